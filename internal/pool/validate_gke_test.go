package pool

import (
	"strings"
	"testing"
)

// GKE shapes sold only as Spot, flex-start or reserved capacity have no plain on-demand side; MPS
// runs on MIG partitions.
func TestValidate_gkeProvisioningAndMPSOnMIG(t *testing.T) {
	problems := func(mod func(*Spec)) []Problem {
		s := gkeSpec()
		s.Workload = Workload{Kind: KindTraining, Environment: EnvStaging, GPUMemoryGiB: 40, Interruptible: true}
		mod(&s)
		return s.Validate()
	}
	for name, tc := range map[string]struct {
		mod  func(*Spec)
		want string // "" for valid
	}{
		"a3-highgpu-1g on demand": {func(s *Spec) { s.MachineType = "a3-highgpu-1g" }, "sells a3-highgpu-1g only as Spot or flex-start"},
		"a3-highgpu-4g half spot": {func(s *Spec) { s.MachineType, s.Capacity.SpotPercentage = "a3-highgpu-4g", 50 }, "on-demand side of up to 2 nodes"},
		"a3-highgpu-1g all spot":  {func(s *Spec) { s.MachineType, s.Capacity.SpotPercentage = "a3-highgpu-1g", 100 }, ""},
		"a4 on demand":            {func(s *Spec) { s.MachineType = "a4-highgpu-8g" }, "Spot, flex-start or a reservation"},
		"a4 reserved": {func(s *Spec) {
			s.MachineType, s.Capacity.Reservation = "a4-highgpu-8g", &Reservation{Type: ReservationSpecific, Name: "a4"}
		}, ""},
		// ANY_RESERVATION falls back to standard VMs, which A4 is not sold as (audit N9).
		"a4 any reservation": {func(s *Spec) {
			s.MachineType, s.Capacity.Reservation = "a4-highgpu-8g", &Reservation{Type: ReservationAny}
		}, `type "any" falls back to standard VMs`},
		"a3-highgpu-1g reserved": {func(s *Spec) {
			s.MachineType, s.Capacity.Reservation = "a3-highgpu-1g", &Reservation{Type: ReservationAny}
		}, "only as Spot or flex-start"},
		"a3-highgpu-8g on demand": {func(s *Spec) { s.MachineType = "a3-highgpu-8g" }, ""},
		"MPS on MIG partitions on GKE": {func(s *Spec) {
			s.MachineType, s.GPU = "a2-highgpu-1g", GPU{MIG: &MIG{Profile: "3g.20gb"}, Sharing: &Sharing{Strategy: SharingMPS, Replicas: 2}}
		}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			got := problems(tc.mod)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Fatalf("problems: %v", got)
			case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0].Path.String(), "capacity.") || !strings.Contains(got[0].Detail, tc.want)):
				t.Fatalf("problems %v, want one at capacity with %q", got, tc.want)
			}
		})
	}
}
