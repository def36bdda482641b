package computeclass

import (
	"context"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Every class gpufleet renders is one the CRD accepts: plain GPUs, MIG, sharing, reservations,
// flex-start and spot, on every machine family, with the client's taint and the user's labels and
// taints.
func TestRender_classesTheCRDAccepts(t *testing.T) {
	base := func(machineType string) pool.Spec {
		return pool.Spec{
			Cloud: catalog.GCP, ResourceType: render.ResourceType, Region: "us-central1", Client: "acme", MachineType: machineType,
			Workload: pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 10, Interruptible: true},
			Scaling:  pool.Sizes{Max: 4}, AutoscalerOwnsSize: true,
		}
	}
	all := []string{render.RungReservation, render.RungOnDemand, render.RungFlexStart, render.RungSpot}
	for name, tc := range map[string]struct {
		spec  func(pool.Spec) pool.Spec
		class render.Class
	}{
		"l4 any reservation ladder": {func(s pool.Spec) pool.Spec {
			s.Capacity.Reservation = &pool.Reservation{Type: pool.ReservationAny}
			return s
		}, render.Class{Ladder: all, Zones: []string{"us-central1-a", "us-central1-c"}}},
		"l4 specific reservation in its zone": {func(s pool.Spec) pool.Spec {
			s.Capacity.Reservation = &pool.Reservation{Type: pool.ReservationSpecific, Name: "l4-res", Project: "shared-res-1"}
			return s
		}, render.Class{Ladder: all, Zones: []string{"us-central1-a"}, ReservationZones: []string{"us-central1-b"}}},
		"a100 MIG spot first": {func(s pool.Spec) pool.Spec {
			s.MachineType, s.GPU.MIG = "a2-highgpu-1g", &pool.MIG{Profile: "1g.5gb"}
			s.Workload.GPUMemoryGiB = 4
			return s
		}, render.Class{Ladder: []string{render.RungSpot, render.RungOnDemand}}},
		"t4 time-sharing on N1": {func(s pool.Spec) pool.Spec {
			s.MachineType, s.GPU = "n1-standard-8", pool.GPU{Type: "nvidia-tesla-t4", Count: 2, Sharing: &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 4}}
			return s
		}, render.Class{Ladder: []string{render.RungOnDemand, render.RungSpot}}},
		"h100 MPS flex-start": {func(s pool.Spec) pool.Spec {
			s.MachineType, s.GPU.Sharing = "a3-highgpu-8g", &pool.Sharing{Strategy: pool.SharingMPS, Replicas: 2}
			return s
		}, render.Class{Ladder: []string{render.RungFlexStart, render.RungSpot}, FlexStart: render.FlexStartSettings{MaxRunDurationSeconds: 86400, NodeRecyclingLeadTimeSeconds: 3600}}},
		"a3-highgpu-1g flex then spot": {func(s pool.Spec) pool.Spec { s.MachineType = "a3-highgpu-1g"; return s },
			render.Class{Ladder: []string{render.RungFlexStart, render.RungSpot}}},
		"b200 reserved": {func(s pool.Spec) pool.Spec {
			s.MachineType, s.Capacity.Reservation = "a4-highgpu-8g", &pool.Reservation{Type: pool.ReservationSpecific, Name: "b200"}
			return s
		}, render.Class{Ladder: []string{render.RungReservation, render.RungFlexStart}, ReservationZones: []string{"us-central1-b"}}},
		"taints, labels, settings": {func(s pool.Spec) pool.Spec {
			s.Taints = []pool.Taint{{Key: "example.com/team", Value: "vision", Effect: pool.EffectNoExecute}, {Key: "batch-only", Effect: pool.EffectPreferNoSchedule}}
			s.Labels = map[string]string{"example.com/team": "vision"}
			s.GPU.DriverVersion = "LATEST"
			return s
		}, render.Class{Ladder: []string{render.RungOnDemand}, WhenUnsatisfiable: render.ScaleUpAnyway, Description: "vision training", ConsolidationDelayMinutes: 60}},
	} {
		t.Run(name, func(t *testing.T) {
			s := tc.spec(base("g2-standard-8"))
			c := tc.class
			c.Name, c.NodePoolAutoCreation = "cc", true
			s.Name = c.Name
			if problems := append(render.ValidatePool(s), render.Validate(s, c)...); len(problems) > 0 {
				t.Fatalf("problems: %v", problems)
			}
			s.Capacity = render.Capacity(c, s.Capacity.Reservation)
			d, err := render.Derive(s, pool.Environment{Registry: pool.Registry{"acme": {Isolation: pool.IsolationDedicated}}}, c)
			if err != nil {
				t.Fatal(err)
			}
			r, err := render.Render(s, d, c, map[string]string{"gpufleet.io/owner": "0123456789abcdef"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			errs, err := crdErrors(context.Background(), r.Object)
			if err != nil || len(errs) > 0 {
				t.Fatalf("refused (%v): %v\n%s", err, errs, r.YAML)
			}
		})
	}
}
