package eks_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// Issue #40, item 8: a training replica over 16 GPUs is answered on two 8-GPU nodes with EFA, and
// the answer's network block (efa, efa_interfaces, placement_strategy) assigned to
// gpufleet_eks_node_pool as is applies against cloudsim's EFA and placement group rules: the node
// group's launch template has an EFA interface on every network card and the cluster placement
// group gpufleet owns, with no policy finding and no plan warning about replicas without EFA. It
// failed before the answer had a network attribute (Unsupported attribute).
func TestAccEKSNodePool_recommendationMultiNode(t *testing.T) {
	sim := startSim(t)
	config := providerConfig(sim, "") + acctest.MultiNodeTrainingAnswer("aws", testRegion) + inZoneA(poolConfig("train", "[local.aws.node_type]", acctest.MultiNodeTrainingWorkload("aws")+`
  network {
    efa                = local.aws.network.efa
    efa_interfaces     = local.aws.network.efa_interfaces
    placement_strategy = local.aws.network.placement_strategy
  }
`+acctest.AnswerBlocks("aws", true)))
	var diags acctest.ApplyDiagnostics
	var nodeType, side string
	var cards int64
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.train", tfjsonpath.New("aws").AtMapKey("nodes_per_replica"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.train", tfjsonpath.New("aws").AtMapKey("inter_node_network"), knownvalue.StringExact("efa")),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("network").AtMapKey("placement_group"), knownvalue.StringExact(ownedPG)),
			},
			Check: resource.ComposeTestCheckFunc(
				func(s *terraform.State) error {
					if err := diags.ExpectNoPlanWarning("without EFA"); err != nil {
						return err
					}
					data := s.RootModule().Resources["data.gpufleet_recommendation.train"].Primary.Attributes
					nodeType = data["aws.node_type"]
					if _, err := fmt.Sscan(data["aws.network.efa_interfaces"], &cards); err != nil || cards < 1 {
						return fmt.Errorf("aws.network.efa_interfaces = %q (%s)", data["aws.network.efa_interfaces"], nodeType)
					}
					side = s.RootModule().Resources[addr].Primary.Attributes["node_groups.0.name"]
					return nil
				},
				func(s *terraform.State) error { return wantEFA(t, sim, side, int(cards), ownedPG)(s) },
			),
		}},
	})
	t.Logf("answer: %s, %d EFA interfaces, node group %s", nodeType, cards, side)
}
