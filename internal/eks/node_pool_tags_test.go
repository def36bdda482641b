package eks_test

import (
	"fmt"
	"strings"
	"testing"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// A pool whose tags repeat a default_tags value (ManagedBy = "terraform") imports to an empty plan.
func TestAccEKSNodePool_importWithDefaultTags(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+
		"  tags = { ManagedBy = \"terraform\", Project = \"llm\" }\n")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				// Forget the pool, leaving it in the cloud, to import it.
				Config: providerConfig(sim, "") + "removed {\n  from = " + addr + "\n  lifecycle {\n    destroy = false\n  }\n}\n",
			},
			{
				Config:             cfg,
				ResourceName:       addr,
				ImportState:        true,
				ImportStateId:      "ml:train",
				ImportStatePersist: true,
			},
			// The first plan after the import: a plan-only step fails unless it is empty.
			{Config: cfg, PlanOnly: true},
		},
	})
}

// Refresh-only after out-of-band label changes: the labels show them, effective_tags do not change
// (the node groups' tags did not), and the launch template's own tags follow the pool's tags.
func TestAccEKSNodePool_refreshOnlyNoTagChange(t *testing.T) {
	sim := startSim(t)
	c := clients(t, sim)
	cfg := func(project string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+
			"  tags = { Project = \""+project+"\" }\n")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg("vision")},
			acctest.RefreshOnlyAfterLabelChange(t, addr, "gpufleet:workload", func(key, value string) error {
				return sim.SetNodegroupLabel(testRegion, testCluster, "train-od", key, value)
			}),
			{
				Config: cfg("llm"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
					if err := noLabel(ng, "rogue"); err != nil {
						return err
					}
					lt, err := c.launchTemplate(*ng.LaunchTemplate.Id)
					if err != nil {
						return err
					}
					tags := map[string]string{}
					for _, tg := range lt.Tags {
						tags[*tg.Key] = *tg.Value
					}
					if tags["Project"] != "llm" || !ownerTagOf(tags["gpufleet:owner"], "ml/train/train-od") || tags["gpufleet:client"] != "acme" {
						return fmt.Errorf("launch template tags %v, want the pool's (Project = llm) and the owner tag", tags)
					}
					return nil
				}),
			},
		},
	})
}

// An instance takes 50 tags, and EKS's Auto Scaling group gives every instance five of its own (audit
// D12): a pool whose effective tags leave no room for them fails at plan, at tags, before any call;
// one that fits launches instances that carry all of them.
func TestAccEKSNodePool_instanceTagLimit(t *testing.T) {
	sim := startSim(t)
	cfg := func(userTags int) string {
		var tags []string
		for i := range userTags {
			tags = append(tags, fmt.Sprintf("t%02d = \"x\"", i))
		}
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+
			"  tags = { "+strings.Join(tags, ", ")+" }\n")
	}
	// Effective tags: the user's, default_tags' ManagedBy and gpufleet:client, pool and workload.
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config:      cfg(42),
			ExpectError: acctest.ExpectErrorParts("tags", "instances would carry 51 tags", "EC2 takes at most 50", "46 effective tags", "5 that EKS"),
		},
		resource.TestStep{
			PreConfig: func() {
				if calls := mutatingCalls(sim); len(calls) > 0 {
					t.Fatalf("the refused plan reached the cloud: %v", calls)
				}
			},
			Config: cfg(41),
			Check: func(*terraform.State) error {
				for _, i := range sim.Instances(testRegion, testCluster, "train-od") {
					n := 0
					for k := range i.Tags {
						if !strings.HasPrefix(k, "aws:") {
							n++
						}
					}
					if n != 50 {
						return fmt.Errorf("instance %s carries %d tags, want the pool's 45 and EKS's 5", i.ID, n)
					}
				}
				return nil
			},
		},
	))
}
