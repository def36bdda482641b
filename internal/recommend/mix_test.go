package recommend

import (
	"context"
	"fmt"
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
			// GKE: the base is whole nodes per zone, and serving's percentage the largest up to 50
			// at which the sides split over the zones (zones.go).
			base, pct := pool.ZonalSize(tt.base, b.Zones), tt.spot
			if b.Zones > 1 && tt.spot == 50 {
				pct = b.SpotPercentage
			}
			if b.Nodes < 2 || b.SpotPercentage != pct || pct < 1 || pct > tt.spot || b.OnDemandBase != base {
				t.Errorf("%s on %s: %s, %d nodes, spot %d %% base %d; want ≥ 2 nodes, spot %d %% base %d", name, cloud, b.Label(), b.Nodes, b.SpotPercentage, b.OnDemandBase, tt.spot, base)
				continue
			}
			od, spot := pool.SplitSizes(b.Spec.Scaling, b.OnDemandBase, b.SpotPercentage)
			if od.Desired != base+(b.Nodes-base)-(b.Nodes-base)*pct/100 || spot.Desired == 0 {
				t.Errorf("%s on %s: %d nodes split %d on demand, %d spot", name, cloud, b.Nodes, od.Desired, spot.Desired)
			}
			if pct <= 50 {
				for size := 1; size <= 2*b.Nodes; size++ {
					if s := pool.SpotCount(size, b.OnDemandBase, b.SpotPercentage); 2*(size-s) < size || size-s < 1 {
						t.Errorf("%s at %d nodes: %d on demand, below half", name, size, size-s)
					}
				}
			}
		}
	}
}

// Issue #40, item 5: interruptible production serving runs a spot share above its on-demand floor
// on GKE as on EKS, without nodes added to round the sides over the zones: 12 replicas of 20 GiB
// are 12 g2-standard-8 over three zones (9 on demand, 3 on spot, one a zone), where the fixed 50 %
// made 15 (9 on demand and 6 spot, three of them idle), and 12 g6.2xlarge on EKS (7 and 5).
func TestRecommend_gkeSpotShareWithoutPadding(t *testing.T) {
	e := env(t, catalog.Pricing{})
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 20, Interruptible: true}
	a, err := Recommend(context.Background(), Request{Workload: w, Replicas: 12, Clouds: both, Regions: []string{"us-east-1", "us-central1"}}, e)
	if err != nil {
		t.Fatal(err)
	}
	for cloud, want := range map[catalog.Cloud][3]int{catalog.AWS: {12, 7, 5}, catalog.GCP: {12, 9, 3}} {
		b := a.Results[cloud].Best
		od, spot := pool.SplitSizes(b.Spec.Scaling, b.OnDemandBase, b.SpotPercentage)
		if b.Nodes != want[0] || od.Desired != want[1] || spot.Desired != want[2] {
			t.Errorf("%s: %s, %d nodes: %d on demand, %d spot; want %v", cloud, b.Label(), b.Nodes, od.Desired, spot.Desired, want)
		}
		if p := b.Spec.Validate(); len(p) > 0 {
			t.Errorf("%s: invalid pool: %v", cloud, p)
		}
	}
	g, w6 := a.Results[catalog.GCP].Best, a.Results[catalog.AWS].Best
	guideHas(t, fmt.Sprintf("%d %s at `spot_percentage` %d, %d on demand and %d on spot (one a zone), where EKS runs", g.Nodes, g.Node.Name, g.SpotPercentage, 9, 3))
	guideHas(t, fmt.Sprintf("%d %s, 7 on demand and 5 on spot.", w6.Nodes, w6.Node.Name))
}
