package render

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// l4Pool is a valid pool of g2-standard-24 (2 × L4) nodes for inference.
func l4Pool() pool.Spec {
	return pool.Spec{
		Cloud: catalog.GCP, ResourceType: ResourceType, Name: "acme-l4", Region: "us-central1",
		Client:      "acme",
		Workload:    pool.Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 20},
		MachineType: "g2-standard-24",
		GPU:         pool.GPU{DriverVersion: "LATEST"},
		Scaling:     pool.Sizes{Min: 0, Max: 4, Desired: 0}, AutoscalerOwnsSize: true,
	}
}

func l4Class() Class {
	return Class{Name: "acme-l4", Ladder: []string{RungReservation, RungOnDemand, RungFlexStart, RungSpot}, NodePoolAutoCreation: true}
}

// mustRender validates, derives and renders, failing on any problem.
func mustRender(t *testing.T, s pool.Spec, c Class) (Rendered, pool.Derived) {
	t.Helper()
	s.Zones = append(append([]string(nil), c.Zones...), c.ReservationZones...)
	if problems := append(ValidatePool(s), Validate(s, c)...); len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	s.Capacity = Capacity(c, s.Capacity.Reservation)
	d, err := Derive(s, pool.Environment{}, c)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Render(s, d, c, map[string]string{"gpufleet.io/owner": "id-1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, d
}

// The published GPU ladder (GoogleCloudPlatform/accelerated-platforms, platforms/gke/base/core/
// custom_compute_class/templates/manifests/gpu/*: any reservation, on-demand, flex-start with 7
// days, spot) comes out rung by rung, with the GPU from the catalog.
func TestRender_publishedLadder(t *testing.T) {
	s := l4Pool()
	s.Capacity.Reservation = &pool.Reservation{Type: pool.ReservationAny}
	r, _ := mustRender(t, s, l4Class())
	gpu := &GPU{Type: "nvidia-l4", Count: 2, DriverVersion: "latest"}
	want := []Priority{
		{MachineType: "g2-standard-24", GPU: gpu, Spot: ptr(false), Reservations: &Reservations{Affinity: "AnyBestEffort"}, NodeLabels: map[string]string{"gpufleet.io/capacity-type": "reservation"}},
		{MachineType: "g2-standard-24", GPU: gpu, Spot: ptr(false), NodeLabels: map[string]string{"gpufleet.io/capacity-type": "on-demand"}},
		{MachineType: "g2-standard-24", GPU: gpu, FlexStart: &FlexStart{Enabled: true}, MaxRunDurationSeconds: 604800, NodeLabels: map[string]string{"gpufleet.io/capacity-type": "flex-start"}},
		{MachineType: "g2-standard-24", GPU: gpu, Spot: ptr(true), NodeLabels: map[string]string{"gpufleet.io/capacity-type": "spot"}},
	}
	if !reflect.DeepEqual(r.Object.Spec.Priorities, want) {
		t.Errorf("priorities:\n%s", r.YAML)
	}
	spec := r.Object.Spec
	if spec.WhenUnsatisfiable != DoNotScaleUp || !spec.NodePoolAutoCreation.Enabled || !spec.ActiveMigration.OptimizeRulePriority || spec.AutoscalingPolicy.ConsolidationDelayMinutes != 15 {
		t.Errorf("class settings:\n%s", r.YAML)
	}
	if got := spec.NodePoolConfig.Taints; len(got) != 1 || got[0] != (Taint{Key: "nvidia.com/gpu", Value: "present", Effect: "NoSchedule"}) {
		t.Errorf("taints %v", got)
	}
	if spec.NodePoolConfig.NodeLabels["gpufleet.io/client"] != "acme" || r.Object.Metadata.Labels["gpufleet.io/owner"] != "id-1" {
		t.Errorf("labels:\n%s", r.YAML)
	}
	for _, line := range []string{"apiVersion: cloud.google.com/v1", "kind: ComputeClass", "  name: acme-l4", "    affinity: AnyBestEffort", "  whenUnsatisfiable: DoNotScaleUp"} {
		if !strings.Contains(r.YAML, line+"\n") {
			t.Errorf("YAML has no line %q:\n%s", line, r.YAML)
		}
	}
}

// A Specific reservation names its zones in reservations.specific[].zones and its rung has no
// location; the other rungs keep the class's zones.
func TestRender_specificReservationZones(t *testing.T) {
	s := l4Pool()
	s.Capacity.Reservation = &pool.Reservation{Type: pool.ReservationSpecific, Name: "l4-res", Project: "shared-res"}
	c := l4Class()
	c.Zones, c.ReservationZones = []string{"us-central1-a", "us-central1-b"}, []string{"us-central1-c"}
	r, _ := mustRender(t, s, c)
	first := r.Object.Spec.Priorities[0]
	want := &Reservations{Affinity: "Specific", Specific: []SpecificReservation{{Name: "l4-res", Project: "shared-res", Zones: []string{"us-central1-c"}}}}
	if !reflect.DeepEqual(first.Reservations, want) || first.Location != nil {
		t.Errorf("reservation rung:\n%s", r.YAML)
	}
	for _, p := range r.Object.Spec.Priorities[1:] {
		if p.Location == nil || !reflect.DeepEqual(p.Location.Zones, c.Zones) {
			t.Errorf("rung without the class's zones:\n%s", r.YAML)
		}
	}
}

// MIG and sharing go to the pods' node selectors, with a warning at the attribute each.
func TestRender_migAndSharingOnThePods(t *testing.T) {
	s := l4Pool()
	s.MachineType, s.GPU = "a2-highgpu-1g", pool.GPU{MIG: &pool.MIG{Profile: "3g.20gb"}, Sharing: &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 3}}
	s.Workload.GPUMemoryGiB = 5
	c := Class{Name: "acme-a100", Ladder: []string{RungOnDemand, RungSpot}}
	r, _ := mustRender(t, s, c)
	wantSel := map[string]string{
		LabelComputeClass: "acme-a100", LabelAccelerator: "nvidia-tesla-a100",
		LabelPartitionSize: "3g.20gb", LabelSharingStrategy: "time-sharing", LabelMaxSharedClients: "3",
	}
	if !reflect.DeepEqual(r.Pod.NodeSelector, wantSel) {
		t.Errorf("node selector %v, want %v", r.Pod.NodeSelector, wantSel)
	}
	if strings.Contains(r.YAML, "3g.20gb") {
		t.Errorf("the class carries the partition:\n%s", r.YAML)
	}
	at := map[string]bool{}
	for _, w := range Warnings(s, c) {
		at[w.Path.String()] = true
	}
	for _, p := range []string{"gpu.mig", "gpu.sharing", "tags"} {
		if !at[p] {
			t.Errorf("no warning at %s: %v", p, at)
		}
	}
	s.GPU.Sharing.Strategy = pool.SharingMPS
	if r, _ := mustRender(t, s, c); r.Pod.NodeSelector[LabelSharingStrategy] != "mps" {
		t.Errorf("MPS selector %v", r.Pod.NodeSelector)
	}
}

// The pods tolerate every taint of the class's nodes, the client's taint of a dedicated client too.
func TestRender_podTolerations(t *testing.T) {
	s := l4Pool()
	s.Taints = []pool.Taint{{Key: "flag", Effect: pool.EffectPreferNoSchedule}, {Key: "team", Value: "ml", Effect: pool.EffectNoExecute}} // sorted, as the resource reads them
	c := Class{Name: "acme-l4", Ladder: []string{RungOnDemand}}
	s.Zones = nil
	if problems := append(ValidatePool(s), Validate(s, c)...); len(problems) > 0 {
		t.Fatal(problems)
	}
	s.Capacity = Capacity(c, nil)
	d, err := Derive(s, pool.Environment{Registry: pool.Registry{"acme": {Isolation: pool.IsolationDedicated}}}, c)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Render(s, d, c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Toleration{
		{Key: LabelComputeClass, Operator: "Equal", Value: "acme-l4", Effect: "NoSchedule"},
		{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"},
		{Key: "gpufleet.io/client", Operator: "Equal", Value: "acme", Effect: "NoSchedule"},
		{Key: "flag", Operator: "Exists", Effect: "PreferNoSchedule"},
		{Key: "team", Operator: "Equal", Value: "ml", Effect: "NoExecute"},
	}
	if !reflect.DeepEqual(r.Pod.Tolerations, want) {
		t.Errorf("tolerations\n%v\nwant\n%v", r.Pod.Tolerations, want)
	}
	if n := len(r.Object.Spec.NodePoolConfig.Taints); n != 4 {
		t.Errorf("%d taints on the nodes, want 4:\n%s", n, r.YAML)
	}
}

// Settings that suit the workload: no active migration and no eviction for work that does not
// checkpoint; consolidation delays by kind; the user's own settings win.
func TestDefaults(t *testing.T) {
	for _, tc := range []struct {
		w       pool.Workload
		migrate bool
		delay   int
	}{
		{pool.Workload{Kind: pool.KindTraining}, false, 30},
		{pool.Workload{Kind: pool.KindTraining, Interruptible: true}, true, 30},
		{pool.Workload{Kind: pool.KindBatch}, false, 10},
		{pool.Workload{Kind: pool.KindInference}, true, 15},
		{pool.Workload{Kind: pool.KindDevelopment}, true, 5},
	} {
		if got := Defaults(tc.w); got != (Settings{OptimizeRulePriority: tc.migrate, ConsolidationDelayMinutes: tc.delay}) {
			t.Errorf("%+v: %+v", tc.w, got)
		}
	}
	c := Class{OptimizeRulePriority: ptr(true), ConsolidationDelayMinutes: 45}
	if got := c.Effective(pool.Workload{Kind: pool.KindTraining}); got != (Settings{true, 45}) {
		t.Errorf("user settings: %+v", got)
	}
	s := l4Pool()
	s.Workload = pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 20}
	r, _ := mustRender(t, s, Class{Name: "train", Ladder: []string{RungOnDemand}})
	if r.Pod.Annotations[AnnotationSafeToEvict] != "false" || r.Object.Spec.ActiveMigration.OptimizeRulePriority {
		t.Errorf("non-interruptible training: pod %+v, class\n%s", r.Pod, r.YAML)
	}
}

// The document shows a ladder with a spot rung as all-spot capacity; the cost is the first rung's.
func TestCapacityAndCost(t *testing.T) {
	s := l4Pool()
	s.Scaling = pool.Sizes{Min: 2, Max: 4, Desired: 2}
	node, _, _ := s.NodeType()
	onDemand, spot, err := catalog.Pricing{}.Hourly(node, s.Region)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ladder []string
		pct    int
		hourly float64
	}{
		{[]string{RungOnDemand, RungSpot}, 100, 2 * onDemand},
		{[]string{RungSpot, RungOnDemand}, 100, 2 * spot},
		{[]string{RungFlexStart}, 0, 2 * onDemand},
	} {
		c := Class{Name: "c", Ladder: tc.ladder}
		if got := Capacity(c, nil).SpotPercentage; got != tc.pct {
			t.Errorf("%v: spot_percentage %d, want %d", tc.ladder, got, tc.pct)
		}
		_, d := mustRender(t, s, c)
		if want := float64(int(tc.hourly*10000+0.5)) / 10000; d.HourlyUSD != want || d.CostUnknown {
			t.Errorf("%v: hourly %v, want %v", tc.ladder, d.HourlyUSD, want)
		}
	}
}

// A reservation rung beside a spot rung is valid (they are separate node pools), though one node
// pool with both would not be.
func TestValidatePool_reservationBesideSpot(t *testing.T) {
	s := l4Pool()
	s.Capacity.Reservation = &pool.Reservation{Type: pool.ReservationAny}
	c := Class{Name: "c", Ladder: []string{RungReservation, RungSpot}}
	s.Capacity = Capacity(c, s.Capacity.Reservation)
	if problems := s.Validate(); len(problems) == 0 {
		t.Fatal("pool.Spec.Validate accepts spot with a reservation: the test no longer shows why ValidatePool exists")
	}
	if problems := append(ValidatePool(s), Validate(s, c)...); len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
}

func TestValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		mod  func(*pool.Spec, *Class)
		at   string
		want string
	}{
		"empty ladder":       {func(_ *pool.Spec, c *Class) { c.Ladder = nil }, "capacity.ladder", "list the rungs"},
		"unknown rung":       {func(_ *pool.Spec, c *Class) { c.Ladder = []string{"preemptible"} }, "capacity.ladder[0]", "not one of"},
		"rung twice":         {func(_ *pool.Spec, c *Class) { c.Ladder = []string{RungSpot, RungOnDemand, RungSpot} }, "capacity.ladder[2]", "already rung 1"},
		"reservation rung":   {func(_ *pool.Spec, c *Class) { c.Ladder = []string{RungReservation} }, "capacity.reservation", "add a capacity.reservation"},
		"reservation unused": {func(s *pool.Spec, _ *Class) { s.Capacity.Reservation = &pool.Reservation{Type: pool.ReservationAny} }, "capacity.ladder", "no \"reservation\" rung"},
		"reservation none": {func(s *pool.Spec, c *Class) {
			s.Capacity.Reservation, c.Ladder = &pool.Reservation{Type: pool.ReservationNone}, []string{RungReservation}
		}, "capacity.reservation.type", "leave the rung out"},
		"specific without name": {func(s *pool.Spec, c *Class) {
			s.Capacity.Reservation, c.Ladder = &pool.Reservation{Type: pool.ReservationSpecific}, []string{RungReservation}
		}, "capacity.reservation.name", "names the reservation"},
		"any with zones": {func(s *pool.Spec, c *Class) {
			s.Capacity.Reservation, c.Ladder, c.ReservationZones = &pool.Reservation{Type: pool.ReservationAny}, []string{RungReservation}, []string{"us-central1-a"}
		}, "capacity.reservation.name", "only \"specific\""},
		"a3-highgpu-1g on demand": {func(s *pool.Spec, c *Class) {
			s.MachineType, c.Ladder = "a3-highgpu-1g", []string{RungFlexStart, RungOnDemand}
		}, "capacity.ladder[1]", "only as Spot or flex-start"},
		"a4 reserved is sold": {func(s *pool.Spec, c *Class) {
			s.MachineType, s.Capacity.Reservation, c.Ladder = "a4-highgpu-8g", &pool.Reservation{Type: pool.ReservationAny}, []string{RungReservation, RungFlexStart, RungSpot}
		}, "", ""},
		"flex settings without rung": {func(_ *pool.Spec, c *Class) { c.FlexStart.MaxRunDurationSeconds = 3600 }, "capacity.flex_start", "no \"flex_start\" rung"},
		"flex over 7 days": {func(_ *pool.Spec, c *Class) {
			c.Ladder, c.FlexStart.MaxRunDurationSeconds = []string{RungFlexStart}, MaxRunDurationSeconds+1
		}, "capacity.flex_start.max_run_duration_seconds", "7 days"},
		"lead time over run": {func(_ *pool.Spec, c *Class) {
			c.Ladder, c.FlexStart = []string{RungFlexStart}, FlexStartSettings{MaxRunDurationSeconds: 3600, NodeRecyclingLeadTimeSeconds: 3600}
		}, "capacity.flex_start.node_recycling_lead_time_seconds", "shorter than it"},
		"zone elsewhere":  {func(_ *pool.Spec, c *Class) { c.Zones = []string{"europe-west4-a"} }, "zones", "not a zone of us-central1"},
		"driver disabled": {func(s *pool.Spec, _ *Class) { s.GPU.DriverVersion = "INSTALLATION_DISABLED" }, "gpu.driver_version", "DEFAULT or LATEST"},
		"name default":    {func(_ *pool.Spec, c *Class) { c.Name = "default" }, "name", "selects no class"},
		"name too long":   {func(_ *pool.Spec, c *Class) { c.Name = strings.Repeat("a", 64) }, "name", "1-63"},
	} {
		t.Run(name, func(t *testing.T) {
			s, c := l4Pool(), Class{Name: "acme-l4", Ladder: []string{RungOnDemand, RungSpot}}
			tc.mod(&s, &c)
			got := Validate(s, c)
			if tc.at == "" {
				if len(got) > 0 {
					t.Fatalf("problems: %v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Path.String() != tc.at || !strings.Contains(got[0].Detail, tc.want) {
				t.Fatalf("problems %v, want one at %s with %q", got, tc.at, tc.want)
			}
		})
	}
}

// ScaleUpAnyway, a minimum and a desired size are warnings: a ComputeClass cannot carry them.
func TestWarnings_sizesAndScaleUpAnyway(t *testing.T) {
	s := l4Pool()
	s.Scaling, s.AutoscalerOwnsSize = pool.Sizes{Min: 1, Max: 4, Desired: 2}, false
	got := map[string]string{}
	for _, w := range Warnings(s, Class{WhenUnsatisfiable: ScaleUpAnyway}) {
		got[w.Path.String()] = w.Detail
	}
	for _, at := range []string{"tags", "scaling.min_size", "scaling.desired_size", "when_unsatisfiable"} {
		if got[at] == "" {
			t.Errorf("no warning at %s: %v", at, got)
		}
	}
	if len(got) != 4 {
		t.Errorf("warnings %v", got)
	}
}

// An "any" reservation rung falls back to on-demand within its own priority (AnyBestEffort): a spot
// or flex-start rung right after it runs only when on-demand is out too, which a warning at the
// ladder says; after an on-demand rung, or after a specific reservation (no fallback), nothing.
func TestWarnings_rungsAfterAnAnyReservation(t *testing.T) {
	for _, tc := range []struct {
		reservation string
		ladder      []string
		warn        bool
	}{
		{pool.ReservationAny, []string{RungReservation, RungSpot, RungOnDemand}, true},
		{pool.ReservationAny, []string{RungReservation, RungFlexStart}, true},
		{pool.ReservationAny, []string{RungReservation, RungOnDemand, RungSpot}, false},
		{pool.ReservationAny, []string{RungSpot, RungReservation, RungOnDemand}, false},
		{pool.ReservationSpecific, []string{RungReservation, RungSpot, RungOnDemand}, false},
	} {
		s := l4Pool()
		s.Capacity.Reservation = &pool.Reservation{Type: tc.reservation, Name: "r"}
		var got string
		for _, w := range Warnings(s, Class{Name: "c", Ladder: tc.ladder}) {
			if w.Path.String() == "capacity.ladder" {
				got = w.Summary + ": " + w.Detail
			}
		}
		if (got != "") != tc.warn || tc.warn && !strings.Contains(got, "falls back to on-demand VMs within its own priority") {
			t.Errorf("%s reservation, ladder %v: warning %q", tc.reservation, tc.ladder, got)
		}
	}
}

// Issue #40, item 8: training replicas over two a3-megagpu-8g nodes get a warning that a
// ComputeClass cannot give its nodes GPUDirect-TCPXO's 8 additional node networks; a replica on one
// node gets none.
func TestWarnings_gpuDirectNetworks(t *testing.T) {
	for _, gpus := range []int{16, 8} {
		s := l4Pool()
		s.MachineType = "a3-megagpu-8g"
		s.Workload = pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 600, GPUsPerReplica: gpus, Interruptible: true}
		var got string
		for _, w := range Warnings(s, l4Class()) {
			if w.Path.String() == "workload.gpus_per_replica" {
				got = w.Summary + ": " + w.Detail
			}
		}
		want := gpus == 16
		if (got != "") != want || want && !strings.Contains(got, "GPUDirect networks not carried by a ComputeClass: workload.gpus_per_replica = 16 spans 2 a3-megagpu-8g nodes, whose GPUs reach each other over GPUDirect-TCPXO through 8 additional node networks") {
			t.Errorf("%d GPUs per replica: warning %q", gpus, got)
		}
	}
}

// The recommended ladder: cheapest first where the workload allows, rungs the type is sold as.
func TestRecommendedLadder(t *testing.T) {
	for _, tc := range []struct {
		machineType string
		w           pool.Workload
		want        []string
		reserved    bool
	}{
		{"g2-standard-8", pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, Interruptible: true}, []string{RungSpot, RungFlexStart, RungOnDemand}, false},
		{"g2-standard-8", pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction}, []string{RungOnDemand, RungFlexStart}, false},
		{"g2-standard-8", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, Interruptible: true}, []string{RungOnDemand, RungFlexStart}, false},
		{"g2-standard-8", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, Interruptible: true}, []string{RungSpot, RungFlexStart, RungOnDemand}, false},
		{"a3-highgpu-1g", pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging}, []string{RungFlexStart}, false},
		{"n1-standard-8", pool.Workload{Kind: pool.KindBatch, Environment: pool.EnvStaging, Interruptible: true}, []string{RungSpot, RungOnDemand}, false},
		// Issue #40, item 7: a held reservation first; A4 is not sold on demand.
		{"a4-highgpu-8g", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction}, []string{RungReservation, RungFlexStart}, true},
		{"g2-standard-8", pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, Interruptible: true}, []string{RungReservation, RungSpot, RungFlexStart, RungOnDemand}, true},
	} {
		s := pool.Spec{MachineType: tc.machineType, Workload: tc.w}
		if tc.reserved {
			s.Capacity.Reservation = &pool.Reservation{Type: pool.ReservationSpecific, Name: "held"}
		}
		if got := RecommendedLadder(s); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %+v: %v, want %v", tc.machineType, tc.w, got, tc.want)
		}
	}
}

// Flex-start nodes end after their maximum run duration (7 days at most): a warning for training
// or batch that is not interruptible on a ladder with a flex_start rung, none for interruptible
// work, inference, or a ladder without the rung.
func TestWarnings_flexStartEndsProtectedRuns(t *testing.T) {
	for _, tc := range []struct {
		kind          string
		interruptible bool
		ladder        []string
		maxRun        int
		want          string
	}{
		{pool.KindTraining, false, []string{RungReservation, RungFlexStart}, 0, "at most 604800 seconds (168h0m0s;"},
		{pool.KindBatch, false, []string{RungFlexStart, RungOnDemand}, 86400, "at most 86400 seconds (24h0m0s;"},
		{pool.KindTraining, true, []string{RungReservation, RungFlexStart}, 0, ""},
		{pool.KindInference, false, []string{RungOnDemand, RungFlexStart}, 0, ""},
		{pool.KindTraining, false, []string{RungReservation, RungOnDemand, RungSpot}, 0, ""},
	} {
		s := l4Pool()
		s.Workload = pool.Workload{Kind: tc.kind, Environment: pool.EnvStaging, GPUMemoryGiB: 16, Interruptible: tc.interruptible}
		var got string
		for _, w := range Warnings(s, Class{Name: "c", Ladder: tc.ladder, FlexStart: FlexStartSettings{MaxRunDurationSeconds: tc.maxRun}}) {
			if w.Path.String() == "workload.interruptible" {
				got = w.Summary + ": " + w.Detail
			}
		}
		if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) || tc.want != "" && !strings.Contains(got, "not interruptible and outlasts that is lost") {
			t.Errorf("%s (interruptible %v), ladder %v: warning %q", tc.kind, tc.interruptible, tc.ladder, got)
		}
	}
}
