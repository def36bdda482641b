package pool

import (
	"math"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"testing/quick"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

func TestSpotCount_table(t *testing.T) {
	cases := []struct{ size, base, pct, want int }{
		{10, 1, 70, 6}, // floor(9*0.7)
		{2, 1, 70, 0},  // floor(0.7)
		{1, 1, 70, 0},
		{0, 0, 100, 0},
		{8, 0, 100, 8},
		{8, 3, 100, 5},
		{8, 10, 100, 0},
		{5, 0, 0, 0},
		{7, 2, 50, 2}, // floor(2.5)
	}
	for _, c := range cases {
		if got := SpotCount(c.size, c.base, c.pct); got != c.want {
			t.Errorf("SpotCount(%d, %d, %d) = %d, want %d", c.size, c.base, c.pct, got, c.want)
		}
	}
}

// Property: the parts add up, on-demand never drops below the base (or the whole size when smaller),
// and both sides keep min <= desired <= max.
func TestSplitSizes_properties(t *testing.T) {
	prop := func(a, b, c, baseRaw, pctRaw uint8) bool {
		sizes := []int{int(a % 50), int(b % 50), int(c % 50)}
		// order them as min <= desired <= max
		for i := range sizes {
			for j := i + 1; j < len(sizes); j++ {
				if sizes[j] < sizes[i] {
					sizes[i], sizes[j] = sizes[j], sizes[i]
				}
			}
		}
		total := Sizes{Min: sizes[0], Desired: sizes[1], Max: sizes[2]}
		base, pct := int(baseRaw%20), int(pctRaw%101)
		od, spot := SplitSizes(total, base, pct)
		for _, pair := range [][3]int{{total.Min, od.Min, spot.Min}, {total.Desired, od.Desired, spot.Desired}, {total.Max, od.Max, spot.Max}} {
			size, o, s := pair[0], pair[1], pair[2]
			if o+s != size || s < 0 || o < min(size, base) {
				return false
			}
			if s != int(math.Floor(float64(max(size-base, 0))*float64(pct)/100)) {
				return false
			}
		}
		return od.Min <= od.Desired && od.Desired <= od.Max && spot.Min <= spot.Desired && spot.Desired <= spot.Max
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 5000}); err != nil {
		t.Fatal(err)
	}
}

func TestSides(t *testing.T) {
	s := eksSpec() // 0/2/8, base 1, 70 %: spot max floor(7*0.7) = 4
	got := s.Sides()
	want := []Side{
		{Name: "train-od", CapacityType: CapacityOnDemand, Sizes: Sizes{Min: 0, Desired: 2, Max: 4}},
		{Name: "train-spot", CapacityType: CapacitySpot, Sizes: Sizes{Min: 0, Desired: 0, Max: 4}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sides = %+v, want %+v", got, want)
	}

	s.Capacity = Capacity{SpotPercentage: 100}
	if got := s.Sides(); len(got) != 1 || got[0].Name != "train-spot" {
		t.Fatalf("all-spot pool: sides = %+v, want only train-spot", got)
	}
	s.Capacity = Capacity{}
	if got := s.Sides(); len(got) != 1 || got[0].Name != "train-od" {
		t.Fatalf("on-demand pool: sides = %+v, want only train-od", got)
	}
	s.Capacity = Capacity{Reservation: &Reservation{Type: ReservationCapacityBlock, ID: "cr-0123456789abcdef0"}}
	if got := s.Sides(); len(got) != 1 || got[0].CapacityType != CapacityCapacityBlock {
		t.Fatalf("capacity block: sides = %+v, want one CAPACITY_BLOCK side", got)
	}
}

func TestDerive_eks(t *testing.T) {
	s := eksSpec()
	s.GPU.MIG = &MIG{Profile: "3g.40gb"}
	s.GPU.Sharing = &Sharing{Strategy: SharingTimeSlicing, Replicas: 2}
	s.Taints = []Taint{{Key: "team", Value: "ml", Effect: EffectNoSchedule}}
	s.Labels = map[string]string{"team": "ml"}
	s.Tags = map[string]string{"Owner": "ml-platform", "Env": "prod"}
	env := Environment{
		DefaultTags: map[string]string{"Env": "default", "ManagedBy": "terraform"},
		Registry:    Registry{"acme": {CostCenter: "cc-1001", Isolation: IsolationDedicated}},
	}
	d, err := Derive(s, env)
	if err != nil {
		t.Fatal(err)
	}
	if d.GPU.Name != "H100-80GB" || d.Node.GPUCount != 8 || d.SliceMemoryGiB != 40 {
		t.Fatalf("gpu = %s x%d slice %g, want H100-80GB x8 slice 40", d.GPU.Name, d.Node.GPUCount, d.SliceMemoryGiB)
	}
	wantTaints := []Taint{
		{Key: TaintGPU, Value: "present", Effect: EffectNoSchedule},
		{Key: TaintClient, Value: "acme", Effect: EffectNoSchedule},
		{Key: "team", Value: "ml", Effect: EffectNoSchedule},
	}
	if !reflect.DeepEqual(d.Taints, wantTaints) {
		t.Fatalf("taints = %+v, want %+v", d.Taints, wantTaints)
	}
	wantLabels := map[string]string{
		"team": "ml", LabelClient: "acme", LabelWorkload: "training", LabelEnvironment: "production",
		LabelGPUMemory: "60", LabelInterruptible: "true", LabelMIGConfig: "all-3g.40gb",
		LabelDevicePlugin: "gpufleet-time-slicing-2", LabelAccelerator: "nvidia-h100-80gb",
	}
	if !reflect.DeepEqual(d.Labels, wantLabels) {
		t.Fatalf("labels = %v, want %v", d.Labels, wantLabels)
	}
	wantTags := map[string]string{
		"Env": "prod", "ManagedBy": "terraform", "Owner": "ml-platform",
		"gpufleet:client": "acme", "gpufleet:pool": "train", "gpufleet:workload": "training", "gpufleet:cost-center": "cc-1001",
	}
	if !reflect.DeepEqual(d.Tags, wantTags) {
		t.Fatalf("tags = %v, want %v", d.Tags, wantTags)
	}
	if !strings.Contains(d.DevicePluginConfig, "timeSlicing:") || !strings.Contains(d.DevicePluginConfig, "replicas: 2") || !strings.Contains(d.DevicePluginConfig, "migStrategy: single") {
		t.Fatalf("device plugin config:\n%s", d.DevicePluginConfig)
	}
	if labels := SideLabels(d.Labels, d.Sides[1]); labels[LabelCapacityType] != "spot" || d.Labels[LabelCapacityType] != "" {
		t.Fatalf("side labels must add the capacity type without changing the pool labels: %v", labels)
	}
}

func TestDerive_noRegistryNoClientTaint(t *testing.T) {
	d, err := Derive(eksSpec(), Environment{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Taints) != 1 || d.Taints[0].Key != TaintGPU {
		t.Fatalf("taints = %+v, want only the GPU taint", d.Taints)
	}
	if _, ok := d.Tags["gpufleet:cost-center"]; ok {
		t.Fatal("no cost centre without policy data")
	}
}

func TestDerive_gkeTagKeysAndNoEKSLabels(t *testing.T) {
	s := gkeSpec()
	s.MachineType = "a2-highgpu-1g"
	s.GPU.MIG = &MIG{Profile: "1g.5gb"}
	s.GPU.Sharing = &Sharing{Strategy: SharingMPS, Replicas: 4}
	s.Workload.GPUMemoryGiB = 4
	d, err := Derive(s, Environment{Registry: Registry{"acme": {CostCenter: "cc-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"gpufleet_client", "gpufleet_pool", "gpufleet_workload", "gpufleet_cost-center"} {
		if d.Tags[k] == "" {
			t.Errorf("missing GKE resource label %s in %v", k, d.Tags)
		}
	}
	if _, ok := d.Labels[LabelMIGConfig]; ok {
		t.Error("GKE partitions with gpu_partition_size, not the MIG manager label")
	}
	if _, ok := d.Labels[LabelDevicePlugin]; ok {
		t.Error("GKE shares GPUs with gpu_sharing_config, not the device plugin label")
	}
	if d.SliceMemoryGiB != 5 {
		t.Errorf("slice = %g, want 5", d.SliceMemoryGiB)
	}
}

func TestDerive_cost(t *testing.T) {
	s := eksSpec() // desired 2 with base 1 and 70 %: floor(1*0.7)=0 spot, 2 on-demand
	s.Scaling = Sizes{Min: 0, Max: 10, Desired: 10}
	node, _ := catalog.AWSInstanceType("p5.48xlarge")
	od, spot, err := catalog.Pricing{}.Hourly(node, "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Derive(s, Environment{})
	if err != nil {
		t.Fatal(err)
	}
	// 10 nodes, base 1, 70 %: 6 spot, 4 on-demand.
	want := 4*od + 6*spot
	if math.Abs(d.HourlyUSD-want) > 0.001 {
		t.Fatalf("hourly = %v, want %v", d.HourlyUSD, want)
	}
	if math.Abs(d.MonthlyUSD-want*catalog.HoursPerMonth) > 0.01 {
		t.Fatalf("monthly = %v, want %v", d.MonthlyUSD, want*catalog.HoursPerMonth)
	}

	discounted, err := Derive(s, Environment{Pricing: catalog.Pricing{DiscountPercent: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if wantD := 4*od*0.9 + 6*spot; math.Abs(discounted.HourlyUSD-wantD) > 0.001 {
		t.Fatalf("discounted hourly = %v, want %v", discounted.HourlyUSD, wantD)
	}

	s.Region = "xx-nowhere-1"
	d, err = Derive(s, Environment{})
	if err != nil {
		t.Fatal(err)
	}
	if d.PriceErr == nil || d.HourlyUSD != 0 {
		t.Fatalf("a region without prices must say so, got %v / %v", d.HourlyUSD, d.PriceErr)
	}
}

func TestSliceProfile(t *testing.T) {
	h100, _ := catalog.GPU("H100-80GB")
	for cfg, want := range map[MIG]float64{
		{Profile: "2g.20gb"}:        20,
		{Config: "all-1g.10gb"}:     10,
		{Config: MIGConfigBalanced}: 10,
		{Config: "all-7g.80gb"}:     80,
	} {
		p, err := SliceProfile(h100, cfg)
		if err != nil || p.MemoryGiB != want {
			t.Errorf("SliceProfile(%+v) = %v, %v; want %g GiB", cfg, p, err, want)
		}
	}
	if _, err := SliceProfile(h100, MIG{Config: "mixed"}); err == nil {
		t.Error("want an error for an unknown config")
	}
}

func TestDocument_unknownsAreNull(t *testing.T) {
	s := eksSpec()
	s.Unknown = map[string]bool{"scaling.desired_size": true, "client": true}
	doc := Document("gpufleet_eks_node_pool.train", s, nil)
	if doc["client"] != nil {
		t.Errorf("client = %v, want null", doc["client"])
	}
	if doc["scaling"].(map[string]any)["desired_size"] != nil {
		t.Error("desired_size must be null")
	}
	if doc["scaling"].(map[string]any)["max_size"] != 8 {
		t.Error("max_size is known")
	}
	if doc["gpu"].(map[string]any)["model"] != nil || doc["taints"] != nil {
		t.Error("derived values must be null without a derivation")
	}

	s.Unknown = nil
	d, err := Derive(s, Environment{})
	if err != nil {
		t.Fatal(err)
	}
	doc = Document("gpufleet_eks_node_pool.train", s, &d)
	gpu := doc["gpu"].(map[string]any)
	if gpu["model"] != "H100-80GB" || gpu["slice_memory_gib"] != 80.0 || gpu["per_node"] != 8 {
		t.Errorf("gpu = %v", gpu)
	}
	capacity := doc["capacity"].(map[string]any)
	if capacity["spot"].(map[string]any)["max"] != 4 {
		t.Errorf("capacity = %v", capacity)
	}
}

// The GPU Operator names "+me" configs with ".me" (gpu-operator 0400_configmap.yaml: all-1g.10gb.me),
// and '+' is no Kubernetes label value; the label reads back as gpufleet spells the profile.
func TestMIGConfigLabel(t *testing.T) {
	for config, label := range map[string]string{"all-1g.10gb+me": "all-1g.10gb.me", "all-3g.40gb": "all-3g.40gb", "all-balanced": "all-balanced", "all-2g.12gb+me": "all-2g.12gb.me"} {
		if got := MIGConfigLabel(config); got != label {
			t.Errorf("MIGConfigLabel(%s) = %s, want %s", config, got, label)
		}
		if got := MIGConfigFromLabel(label); got != config {
			t.Errorf("MIGConfigFromLabel(%s) = %s, want %s", label, got, config)
		}
	}
}

// Every MIG profile of every GPU gpufleet knows has a config of its own in the GPU Operator's default
// MIG manager config, under the name gpufleet's label gives it (NVIDIA/gpu-operator
// assets/state-mig-manager/0400_configmap.yaml, read 2026-11-25): otherwise the MIG manager has
// nothing to apply.
func TestMIGConfigLabel_operatorHasEveryProfile(t *testing.T) {
	operator := map[string]bool{}
	for _, name := range strings.Fields(`all-1g.5gb all-1g.5gb.me all-2g.10gb all-3g.20gb all-4g.20gb all-7g.40gb
		all-1g.10gb all-1g.10gb.me all-1g.20gb all-1g.23gb all-1g.23gb.me all-1g.24gb.me all-2g.20gb all-3g.40gb all-4g.40gb all-7g.80gb
		all-1g.6gb all-1g.6gb.me all-2g.12gb all-2g.12gb.me all-4g.24gb all-1g.12gb all-1g.12gb.me all-1g.24gb all-1g.45gb all-1g.47gb
		all-2g.24gb all-2g.45gb all-2g.47gb all-3g.47gb all-4g.47gb all-7g.94gb all-3g.48gb all-3g.90gb all-3g.93gb all-3g.95gb
		all-4g.48gb all-4g.90gb all-4g.93gb all-4g.95gb all-7g.96gb all-7g.180gb all-7g.186gb all-7g.189gb all-balanced
		all-1g.18gb all-1g.18gb.me all-1g.35gb all-2g.35gb all-3g.71gb all-4g.71gb all-7g.141gb
		all-1g.36gb all-2g.36gb all-3g.72gb all-4g.72gb all-7g.144gb`) {
		operator[name] = true
	}
	for _, g := range catalog.GPUs() {
		for _, p := range g.MIGProfileNames() {
			if label := MIGConfigLabel(MIG{Profile: p}.ConfigName()); !operator[label] {
				t.Errorf("%s %s: the GPU Operator has no MIG config %s", g.Name, p, label)
			}
		}
	}
}

// Audit N11 (#35): every node label value gpufleet writes is a Kubernetes label value (at most 63
// letters, digits, '-', '_' or '.', beginning and ending with a letter or digit), or the spec is a
// plan-time problem at the attribute it comes from: EKS and GKE refuse the whole node group or node
// pool for one bad label. The workload's GPU memory is written in full ('f' format, no exponent).
func TestDerive_labelValuesAreKubernetesLabelValues(t *testing.T) {
	valid := regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	for _, base := range []func() Spec{eksSpec, gkeSpec} {
		for _, mem := range []float64{0.1, 0.30000000000000004, 1.0 / 3, 79.5, 1e21, 1e62, 1e63, 1e64, 1.5e300} {
			s := base()
			s.Workload.GPUMemoryGiB, s.Workload.GPUsPerReplica, s.Workload.Replicas, s.Workload.Precision = mem, 1, 1<<62, "bf16"
			if problems := s.Validate(); len(problems) != 0 {
				requireProblem(t, problems, "workload.gpu_memory_gib", LabelGPUMemory)
				continue
			}
			d, err := Derive(s, Environment{})
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range d.Labels {
				if len(v) > 63 || !valid.MatchString(v) {
					t.Errorf("%s, gpu_memory_gib %g: label %s=%q is not a Kubernetes label value", s.Cloud, mem, k, v)
				}
			}
		}
	}
}
