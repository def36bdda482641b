package render_test

import (
	"fmt"
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
