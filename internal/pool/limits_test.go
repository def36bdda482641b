package pool

import (
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// Issue #40, item 3: each side of an EKS pool is a managed node group held to the account's
// "Nodes per managed node group" quota (default 450); each side of a GKE pool a node pool of at
// most 1 000 nodes per zone; other pools 1 000 in all.
func TestValidate_nodeLimitsOfTheClouds(t *testing.T) {
	eks := func(size, base, spot, quota int) Spec {
		s := eksSpec()
		s.Scaling, s.Capacity = Sizes{Min: 0, Max: size, Desired: 0}, Capacity{OnDemandBase: base, SpotPercentage: spot}
		s.NodeLimits = NodeLimitsFor("gpufleet_eks_node_pool", Environment{EKSMaxNodesPerNodeGroup: quota})
		return s
	}
	gke := func(size int, location string, zones ...string) Spec {
		s := gkeSpec()
		s.Region, s.Zones, s.Scaling = location, zones, Sizes{Min: 0, Max: size, Desired: 0}
		s.NodeLimits = NodeLimitsFor("gpufleet_gke_node_pool", Environment{})
		return s
	}
	other := eksSpec()
	other.ResourceType, other.Scaling = "gpufleet_karpenter_node_pool", Sizes{Max: 1200}
	other.NodeLimits = NodeLimitsFor(other.ResourceType, Environment{})
	for name, tc := range map[string]struct {
		spec   Spec
		detail string // "" for none
	}{
		"450 on demand":                      {eks(450, 0, 0, 0), ""},
		"451 on demand":                      {eks(451, 0, 0, 0), "on-demand node group 451 nodes, over the EKS service quota \"Nodes per managed node group\" of 450"},
		"900 split evenly":                   {eks(900, 0, 50, 0), ""},
		"900 mostly spot":                    {eks(900, 0, 70, 0), "spot node group 630 nodes"},
		"1000 with the quota raised":         {eks(1000, 0, 0, 1000), ""},
		"regional GKE pool of 2 400":         {gke(2400, "us-central1"), ""},
		"regional GKE pool of 3 300":         {gke(3300, "us-central1"), "1100 nodes in each of its 3 zone(s), over GKE's 1000 nodes per node pool per zone"},
		"four zones of 1 000":                {gke(4000, "us-central1", "us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f"), ""},
		"zonal GKE pool of 1 200":            {gke(1200, "us-central1-a"), "1200 nodes in each of its 1 zone(s)"},
		"karpenter pool over gpufleet's cap": {other, "a pool holds at most 1000 nodes"},
	} {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, p := range tc.spec.Validate() {
				if p.Path.String() == "scaling.max_size" {
					got = append(got, p.Detail)
				}
			}
			switch {
			case tc.detail == "" && len(got) > 0:
				t.Errorf("unexpected: %v", got)
			case tc.detail != "" && (len(got) != 1 || !strings.Contains(got[0], tc.detail)):
				t.Errorf("got %q, want ...%s...", got, tc.detail)
			}
		})
	}
	if catalog.NodeLimit(catalog.GCP, 3, 0) != 3000 || catalog.NodeLimit(catalog.AWS, 3, 0) != 450 || catalog.NodeLimit(catalog.AWS, 1, 700) != 700 {
		t.Error("catalog.NodeLimit")
	}
}
