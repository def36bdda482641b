package provider_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// eksPoolOfSize is a gpufleet_eks_node_pool of at most size nodes, all on demand.
func eksPoolOfSize(size int) string {
	return fmt.Sprintf(`
resource "gpufleet_eks_node_pool" "big" {
  cluster_name   = "ml"
  name           = "batch"
  client         = "initech"
  node_role_arn  = "arn:aws:iam::123456789012:role/gpu-nodes"
  subnet_ids     = ["subnet-0a1a1a1a1a1a1a1a1"]
  instance_types = ["g6.xlarge"]
  workload {
    kind           = "batch"
    environment    = "staging"
    gpu_memory_gib = 12
  }
  scaling {
    min_size = 0
    max_size = %d
  }
}
`, size)
}

// Issue #40, item 3: an EKS pool whose node group would exceed the "Nodes per managed node group"
// quota (default 450) fails at plan at scaling.max_size, before any call (the endpoints are closed
// ports); aws.max_nodes_per_node_group raises it for an account whose quota AWS raised.
func TestAccEKSNodePool_nodeGroupQuotaAtPlan(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      recommendationProvider(t, "") + eksPoolOfSize(500),
				PlanOnly:    true,
				ExpectError: acctest.ExpectErrorParts("Node group quota exceeded", "max_size = 500", "on-demand node group 500 nodes", `"Nodes per managed node group" of 450`, "aws.max_nodes_per_node_group"),
			},
			{
				Config:             withEKSQuota(recommendationProvider(t, ""), 1000) + eksPoolOfSize(500),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("gpufleet_eks_node_pool.big", tfjsonpath.New("scaling").AtMapKey("max_size"), knownvalue.Int64Exact(500)),
				}},
			},
		},
	})
}

// withEKSQuota sets aws.max_nodes_per_node_group in recommendationProvider's aws block.
func withEKSQuota(provider string, quota int) string {
	return strings.Replace(provider, "    skip_credentials_validation = true\n", fmt.Sprintf("    skip_credentials_validation = true\n    max_nodes_per_node_group    = %d\n", quota), 1)
}
