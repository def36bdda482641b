package recommend

import (
	"context"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Mixes other than 0/100 % spot keep a floor on demand: interruptible production serving keeps at
// least half its nodes on demand at its size and at every size the autoscaler may pick, and its
// floor of two nodes (its replicas spread over two, GF-RS-005) on demand (GF-COST-001); production
// training over several nodes keeps its first node on demand; staging training is all spot.
func TestRecommend_spotMixKeepsAFloor(t *testing.T) {
	e := env(t, catalog.Pricing{})
	serving := Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 20, Interruptible: true}, Replicas: 12, Clouds: both, Regions: []string{"us-*"}}
	training := Request{Workload: Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, GPUMemoryGiB: 60, Interruptible: true}, Replicas: 24, Clouds: both, Regions: []string{"us-*"}}
	staging := training
	staging.Workload.Environment = pool.EnvStaging
	for name, tt := range map[string]struct {
		req        Request
		spot, base int
	}{"production serving": {serving, 50, 2}, "production training": {training, 100, 1}, "staging training": {staging, 100, 0}} {
		a, err := Recommend(context.Background(), tt.req, e)
		if err != nil {
			t.Fatal(err)
		}
		for _, cloud := range both {
			b := a.Results[cloud].Best
			// GKE: the base is whole nodes in every zone the pool spans (zones.go).
			base := pool.ZonalSize(tt.base, b.Zones)
			if b.Nodes < 2 || b.SpotPercentage != tt.spot || b.OnDemandBase != base {
				t.Errorf("%s on %s: %s, %d nodes, spot %d %% base %d; want ≥ 2 nodes, spot %d %% base %d", name, cloud, b.Label(), b.Nodes, b.SpotPercentage, b.OnDemandBase, tt.spot, base)
				continue
			}
			od, spot := pool.SplitSizes(b.Spec.Scaling, b.OnDemandBase, b.SpotPercentage)
			if od.Desired != base+(b.Nodes-base)-(b.Nodes-base)*tt.spot/100 || spot.Desired == 0 {
				t.Errorf("%s on %s: %d nodes split %d on demand, %d spot", name, cloud, b.Nodes, od.Desired, spot.Desired)
			}
			if tt.spot == 50 {
				for size := 1; size <= 2*b.Nodes; size++ {
					if s := pool.SpotCount(size, b.OnDemandBase, b.SpotPercentage); 2*(size-s) < size || size-s < 1 {
						t.Errorf("%s at %d nodes: %d on demand, below half", name, size, size-s)
					}
				}
			}
		}
	}
}
