package recommend

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// guideHas fails the test when the right-sizing guide does not say want (one line of it).
func guideHas(t *testing.T, want string) {
	t.Helper()
	guide, err := os.ReadFile(filepath.Join("..", "..", workedExamplesGuide))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(guide), want) {
		t.Errorf("%s does not say %q", workedExamplesGuide, want)
	}
}

// thousands writes n as the guide does: 1 500.
func thousands(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d %03d", n/1000, n%1000)
}

// Issue #40, item 3: an AWS answer stays within the account's "Nodes per managed node group" quota
// (default 450): 600 replicas of 20 GiB at one per g6.2xlarge would be 600 nodes, so the answer is
// 150 g6.12xlarge; with the quota raised to 1 000 (aws.max_nodes_per_node_group) it is the 600.
func TestRecommend_eksAnswerWithinTheNodeGroupQuota(t *testing.T) {
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 20}
	req := Request{Workload: w, Replicas: 600, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}}
	e := env(t, catalog.Pricing{})
	a, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	def := a.Results[catalog.AWS].Best
	if def.Nodes > catalog.EKSNodesPerNodeGroupDefault || def.Node.Name != "g6.12xlarge" || def.Nodes != 150 {
		t.Errorf("default quota: %d x %s", def.Nodes, def.Node.Name)
	}
	e.EKSMaxNodesPerNodeGroup = 1000
	a, err = Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	raised := a.Results[catalog.AWS].Best
	if raised.Nodes != 600 || raised.Node.Name != "g6.2xlarge" {
		t.Errorf("quota 1000: %d x %s", raised.Nodes, raised.Node.Name)
	}
	guideHas(t, fmt.Sprintf("600 production replicas of 20 GiB are %d %s within the default quota,", def.Nodes, def.Node.Name))
	guideHas(t, fmt.Sprintf("%d %s with `max_nodes_per_node_group = 1000`.", raised.Nodes, raised.Node.Name))
}

// GKE holds 1 000 nodes per node pool per zone: a regional answer over three zones scales to 3 000
// nodes (1 500 replicas on as many g2-standard-8, where one zone takes 750 n1-highmem-8), and no
// answer exceeds its zones' limit after its sides are rounded to whole nodes in every zone.
func TestRecommend_gkeAnswerWithinItsZonesLimit(t *testing.T) {
	e := env(t, catalog.Pricing{})
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 20}
	best := map[int]*Option{}
	for _, tc := range []struct {
		replicas, zones, nodes int
		node                   string
	}{{1500, 3, 1500, "g2-standard-8"}, {1500, 1, 750, "n1-highmem-8"}, {2999, 3, 3000, "g2-standard-8"}} {
		req := Request{Workload: w, Replicas: tc.replicas, GKEZones: tc.zones, Clouds: []catalog.Cloud{catalog.GCP}, Regions: []string{"us-central1"}}
		a, err := Recommend(context.Background(), req, e)
		if err != nil {
			t.Fatal(err)
		}
		b := a.Results[catalog.GCP].Best
		if b.Nodes != tc.nodes || b.Node.Name != tc.node || b.Nodes/b.Zones > catalog.GKENodesPerPoolZone {
			t.Errorf("%d replicas over %d zones: %d x %s in %d zones", tc.replicas, tc.zones, b.Nodes, b.Node.Name, b.Zones)
		}
		if tc.replicas == 1500 {
			best[tc.zones] = b
		}
	}
	if three, one := best[3], best[1]; three != nil && one != nil {
		guideHas(t, fmt.Sprintf("%s %s, %d a zone, where one zone takes %d %s.", thousands(three.Nodes), three.Node.Name, three.Nodes/three.Zones, one.Nodes, one.Node.Name))
	}
	// Interruptible serving splits into on-demand and spot sides, each rounded up to whole nodes per
	// zone: 2 999 replicas fit 3 000 nodes, but the sides' rounding takes the pool to 3 003.
	w.Interruptible = true
	a, err := Recommend(context.Background(), Request{Workload: w, Replicas: 2999, GKEZones: 3, Clouds: []catalog.Cloud{catalog.GCP}, Regions: []string{"us-central1"}}, e)
	if err != nil {
		t.Fatal(err)
	}
	if b := a.Results[catalog.GCP].Best; b.Nodes > 3*catalog.GKENodesPerPoolZone {
		t.Errorf("%d nodes over %d zones: over GKE's limit", b.Nodes, b.Zones)
	} else if len(b.Spec.Validate()) > 0 {
		t.Errorf("the answer's pool is invalid: %v", b.Spec.Validate())
	}
}
