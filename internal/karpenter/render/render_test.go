package render_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

func spec(minSize, maxSize, pct, base int) pool.Spec {
	return pool.Spec{
		Cloud: catalog.AWS, ResourceType: render.ResourceType, Name: "p", Region: "us-east-1", Client: "acme",
		Workload:      pool.Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 16},
		InstanceTypes: []string{"g6.xlarge"}, Scaling: pool.Sizes{Min: minSize, Max: maxSize, Desired: minSize},
		AutoscalerOwnsSize: true, Karpenter: true, Capacity: pool.Capacity{SpotPercentage: pct, OnDemandBase: base},
	}
}

// Over every size and mix, the NodePools hold exactly the pool's sizes: their node limits add up
// to max_size, the static ones' replicas to min_size, each rung to its side of the split, and a
// rung with no room has no NodePool.
func TestNodePoolsHoldTheSizes(t *testing.T) {
	set := render.Settings{NodeRole: "r", Subnets: []render.SelectorTerm{{ID: "subnet-1"}}, SecurityGroups: []render.SelectorTerm{{ID: "sg-1"}}}
	for maxSize := 1; maxSize <= 12; maxSize++ {
		for minSize := 0; minSize <= maxSize; minSize++ {
			for _, mix := range [][2]int{{0, 0}, {50, 0}, {70, 1}, {100, 0}, {100, 3}, {30, 12}} {
				s := spec(minSize, maxSize, mix[0], mix[1])
				d, err := pool.Derive(s, pool.Environment{})
				if err != nil {
					t.Fatal(err)
				}
				rd := render.Render(s, d, set)
				var total, static int
				perSide := map[string]int{}
				for _, np := range rd.NodePools {
					if np.Nodes <= 0 {
						t.Fatalf("%v: empty NodePool %s", s.Scaling, np)
					}
					total += np.Nodes
					if np.Static {
						static += np.Nodes
					}
					perSide[np.CapacityType] += np.Nodes
				}
				od, spot := pool.SplitSizes(s.Scaling, mix[1], mix[0])
				label := fmt.Sprintf("min %d max %d mix %v", minSize, maxSize, mix)
				if total != maxSize || static != minSize || perSide["on-demand"] != od.Max || perSide["spot"] != spot.Max {
					t.Errorf("%s: NodePools %v", label, rd.NodePools)
				}
				if len(rd.Objects) != 1+len(rd.NodePools) {
					t.Errorf("%s: %d objects for %d NodePools", label, len(rd.Objects), len(rd.NodePools))
				}
			}
		}
	}
}

// Under the GPU Operator's mixed MIG strategy a node advertises its slices as
// nvidia.com/mig-<profile> and no nvidia.com/gpu: the NodeOverlay says so (the instance type's
// nvidia.com/gpu zeroed) and the NodePools limit the slices; under single, the slices are
// nvidia.com/gpu.
func TestMIGStrategyAdvertised(t *testing.T) {
	set := render.Settings{NodeRole: "r", Subnets: []render.SelectorTerm{{ID: "subnet-1"}}, SecurityGroups: []render.SelectorTerm{{ID: "sg-1"}}}
	for _, c := range []struct {
		strategy string
		capacity map[string]any
		limit    [2]string
	}{
		{pool.MIGStrategySingle, map[string]any{"nvidia.com/gpu": "16"}, [2]string{"nvidia.com/gpu", "32"}},
		{pool.MIGStrategyMixed, map[string]any{"nvidia.com/mig-3g.40gb": "16", "nvidia.com/gpu": "0"}, [2]string{"nvidia.com/mig-3g.40gb", "32"}},
	} {
		s := spec(0, 2, 0, 0)
		s.InstanceTypes = []string{"p5.48xlarge"}
		s.Workload.GPUMemoryGiB = 30
		s.GPU = pool.GPU{MIG: &pool.MIG{Profile: "3g.40gb"}, MIGStrategy: c.strategy}
		if problems := s.Validate(); len(problems) > 0 {
			t.Fatalf("%s: %v", c.strategy, problems)
		}
		d, err := pool.Derive(s, pool.Environment{})
		if err != nil {
			t.Fatal(err)
		}
		var overlay, nodePool map[string]any
		for _, o := range render.Render(s, d, set).Objects {
			switch o.Manifest["kind"] {
			case "NodeOverlay":
				overlay = o.Manifest
			case "NodePool":
				nodePool = o.Manifest
			}
		}
		if overlay == nil || nodePool == nil {
			t.Fatalf("%s: no NodeOverlay or NodePool", c.strategy)
		}
		if got := overlay["spec"].(map[string]any)["capacity"]; fmt.Sprint(got) != fmt.Sprint(c.capacity) {
			t.Errorf("%s: overlay capacity %v, want %v", c.strategy, got, c.capacity)
		}
		// the highest weight: no other overlay of the cluster takes the pool's GPUs over
		if got := overlay["spec"].(map[string]any)["weight"]; got != int64(10000) {
			t.Errorf("%s: overlay weight %v, want 10000", c.strategy, got)
		}
		limits := nodePool["spec"].(map[string]any)["limits"].(map[string]any)
		if limits[c.limit[0]] != c.limit[1] || len(limits) != 2 {
			t.Errorf("%s: NodePool limits %v, want %s = %s and nodes", c.strategy, limits, c.limit[0], c.limit[1])
		}
	}
	// all-balanced needs mixed; under single it is a plan error at gpu.mig.config.
	s := spec(0, 2, 0, 0)
	s.InstanceTypes = []string{"p4d.24xlarge"}
	s.Workload.GPUMemoryGiB = 4
	s.GPU = pool.GPU{MIG: &pool.MIG{Config: pool.MIGConfigBalanced}}
	if problems := s.Validate(); len(problems) != 1 || problems[0].Path.String() != "gpu.mig.config" {
		t.Errorf("all-balanced under single: %v", problems)
	}
}

// Issue #40, item 8: a training replica over 16 GPUs spans two p5.48xlarge, whose NodePools admit
// p5.48xlarge only, and the rendering says that Karpenter gives them EFA only for pods that request
// vpc.amazonaws.com/efa; a replica on one node gets no such note.
func TestInterNodeNeedsTheEFARequest(t *testing.T) {
	set := render.Settings{NodeRole: "r", Subnets: []render.SelectorTerm{{ID: "subnet-1"}}, SecurityGroups: []render.SelectorTerm{{ID: "sg-1"}}}
	for _, tc := range []struct {
		gpus int
		want bool
	}{{16, true}, {8, false}} {
		s := spec(0, 4, 100, 0)
		s.InstanceTypes = []string{"p5.48xlarge"}
		s.Workload = pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 600, GPUsPerReplica: tc.gpus, Interruptible: true}
		d, err := pool.Derive(s, pool.Environment{})
		if err != nil {
			t.Fatal(err)
		}
		rd := render.Render(s, d, set)
		noted := false
		for _, n := range rd.Notes {
			if n.Summary == "EFA needs the training pods' request" {
				noted = n.Severity == render.Warning && n.Path.String() == "workload.gpus_per_replica" &&
					strings.Contains(n.Detail, "spans 2 p5.48xlarge nodes, which reach each other over EFA (32 network cards)") &&
					strings.Contains(n.Detail, `"vpc.amazonaws.com/efa": 32`)
			}
		}
		if noted != tc.want {
			t.Errorf("%d GPUs per replica: noted %v, want %v (%+v)", tc.gpus, noted, tc.want, rd.Notes)
		}
		for _, o := range rd.Objects {
			if o.Kind() != "NodePool" {
				continue
			}
			reqs := o.Manifest["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["requirements"].([]any)
			if got := fmt.Sprint(reqs[1]); !strings.Contains(got, "node.kubernetes.io/instance-type") || !strings.Contains(got, "[p5.48xlarge]") {
				t.Errorf("NodePool requirement %s, want instance types p5.48xlarge only", got)
			}
		}
	}
}

// EKS Auto Mode replaces every node after at most 21 days, whatever expireAfter says, and a
// NodeClass that selects reservations stops Auto Mode from using open ODCRs for the whole cluster:
// both are warnings at the attribute, in Auto Mode only.
func TestAutoModeLifetimeAndReservationWarnings(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		mode                   string
		expire                 string
		interrupt, reservation bool
		want                   []string
	}{
		{"protected training", render.ModeAutoMode, "", false, false, []string{"workload.interruptible"}},
		{"expire_after 720h", render.ModeAutoMode, "720h", true, false, []string{"disruption.expire_after"}},
		{"expire_after 336h", render.ModeAutoMode, "336h", false, false, nil},
		{"interruptible, default", render.ModeAutoMode, "", true, false, nil},
		{"reservation", render.ModeAutoMode, "", true, true, []string{"capacity.reservation"}},
		{"self-managed Karpenter", render.ModeKarpenter, "", false, true, nil},
	} {
		s := spec(0, 4, 0, 0)
		s.InstanceTypes = []string{"p5.48xlarge"}
		s.Workload = pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 600, Interruptible: tc.interrupt}
		if tc.reservation {
			s.Capacity = pool.Capacity{Reservation: &pool.Reservation{Type: pool.ReservationCapacityReservation, ID: "cr-0a1b2c3d4e5f60718"}}
		}
		d, err := pool.Derive(s, pool.Environment{})
		if err != nil {
			t.Fatal(err)
		}
		set := render.Settings{Mode: tc.mode, NodeRole: "r", Subnets: []render.SelectorTerm{{ID: "subnet-1"}}, SecurityGroups: []render.SelectorTerm{{ID: "sg-1"}}}
		set.Disruption.ExpireAfter = tc.expire
		var got []string
		for _, n := range render.Render(s, d, set).Notes {
			if n.Summary == "Nodes live at most 21 days in Auto Mode" && strings.Contains(n.Detail, "enforces a 21-day maximum node lifetime") ||
				n.Summary == "A reservation in Auto Mode changes the whole cluster" && strings.Contains(n.Detail, "no longer automatically use open ODCRs for any NodeClass") {
				if n.Severity != render.Warning {
					t.Errorf("%s: %s is not a warning", tc.name, n.Summary)
				}
				got = append(got, n.Path.String())
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: warnings at %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Karpenter consolidates the priciest nodes first: the on-demand NodePool of a pool with an
// on-demand base beside a spot share consolidates only empty nodes, so that a scale-down leaves the
// base on-demand; the spot NodePool, and pools without a base or without spot, consolidate
// underutilised nodes. A policy written in the block is kept, with a warning when it would
// consolidate the base.
func TestOnDemandBaseIsNotConsolidatedFirst(t *testing.T) {
	set := render.Settings{NodeRole: "r", Subnets: []render.SelectorTerm{{ID: "subnet-1"}}, SecurityGroups: []render.SelectorTerm{{ID: "sg-1"}}}
	for _, tc := range []struct {
		name          string
		minSize, pct  int
		base          int
		policy        string
		want          map[string]string // NodePool → consolidationPolicy
		warnsAtPolicy bool
	}{
		{"base beside spot", 0, 50, 1, "", map[string]string{"p-od": render.WhenEmpty, "p-spot": render.WhenEmptyOrUnderutilized}, false},
		{"base beside spot, static minimum", 4, 50, 1, "", map[string]string{"p-od-min": render.WhenEmpty, "p-od": render.WhenEmpty, "p-spot-min": render.WhenEmptyOrUnderutilized, "p-spot": render.WhenEmptyOrUnderutilized}, false},
		{"no base", 0, 50, 0, "", map[string]string{"p-od": render.WhenEmptyOrUnderutilized, "p-spot": render.WhenEmptyOrUnderutilized}, false},
		{"base, no spot", 0, 0, 2, "", map[string]string{"p-od": render.WhenEmptyOrUnderutilized}, false},
		{"base, written policy", 0, 50, 1, render.WhenEmptyOrUnderutilized, map[string]string{"p-od": render.WhenEmptyOrUnderutilized, "p-spot": render.WhenEmptyOrUnderutilized}, true},
		{"base, written WhenEmpty", 0, 50, 1, render.WhenEmpty, map[string]string{"p-od": render.WhenEmpty, "p-spot": render.WhenEmpty}, false},
	} {
		s := spec(tc.minSize, 8, tc.pct, tc.base)
		d, err := pool.Derive(s, pool.Environment{})
		if err != nil {
			t.Fatal(err)
		}
		set.Disruption.ConsolidationPolicy = tc.policy
		rd := render.Render(s, d, set)
		got := nodePoolStrings(rd, "spec", "disruption", "consolidationPolicy")
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: consolidation %v, want %v", tc.name, got, tc.want)
		}
		warned := 0
		for _, n := range rd.Notes {
			if n.Summary == "Consolidation of the on-demand base" && n.Path.String() == "disruption.consolidation_policy" && n.Severity == render.Warning {
				warned++
			}
		}
		if warned != map[bool]int{true: 1, false: 0}[tc.warnsAtPolicy] {
			t.Errorf("%s: %d warnings of a consolidated base", tc.name, warned)
		}
	}
}

// Karpenter expires nodes forcefully, whatever the budgets, and a static NodePool's nodes are made
// together: static NodePools get no expiry unless the block sets one (dynamic ones keep 720h), and
// in Auto Mode, which replaces every node after 21 days anyway, a minimum is a warning.
func TestStaticNodePoolsDoNotExpireTogether(t *testing.T) {
	for _, tc := range []struct {
		name, mode, expire string
		minSize            int
		want               map[string]string // NodePool → expireAfter
		warns              bool
	}{
		{"karpenter, minimum", render.ModeKarpenter, "", 2, map[string]string{"p-od-min": "Never", "p-od": "720h"}, false},
		{"karpenter, written expiry", render.ModeKarpenter, "336h", 2, map[string]string{"p-od-min": "336h", "p-od": "336h"}, false},
		{"karpenter, no minimum", render.ModeKarpenter, "", 0, map[string]string{"p-od": "720h"}, false},
		{"auto mode, minimum", render.ModeAutoMode, "", 2, map[string]string{"p-od-min": "Never", "p-od": "720h"}, true},
		{"auto mode, no minimum", render.ModeAutoMode, "", 0, map[string]string{"p-od": "720h"}, false},
	} {
		s := spec(tc.minSize, 4, 0, 0)
		d, err := pool.Derive(s, pool.Environment{})
		if err != nil {
			t.Fatal(err)
		}
		set := render.Settings{Mode: tc.mode, NodeRole: "r", Subnets: []render.SelectorTerm{{ID: "subnet-1"}}, SecurityGroups: []render.SelectorTerm{{ID: "sg-1"}}}
		set.Disruption.ExpireAfter = tc.expire
		rd := render.Render(s, d, set)
		got := nodePoolStrings(rd, "spec", "template", "spec", "expireAfter")
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: expireAfter %v, want %v", tc.name, got, tc.want)
		}
		warned := false
		for _, n := range rd.Notes {
			warned = warned || n.Path.String() == "scaling.min_size" && n.Severity == render.Warning && strings.Contains(n.Detail, "whole minimum drains at once every 21 days")
		}
		if warned != tc.warns {
			t.Errorf("%s: warning of the minimum %v, want %v", tc.name, warned, tc.warns)
		}
	}
}

// nodePoolStrings is the string at path in each NodePool of the rendering, by NodePool name.
func nodePoolStrings(rd render.Rendering, path ...string) map[string]string {
	out := map[string]string{}
	for _, o := range rd.Objects {
		if o.Kind() != "NodePool" {
			continue
		}
		var v any = o.Manifest
		for _, k := range path {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		out[o.Name()], _ = v.(string)
	}
	return out
}
