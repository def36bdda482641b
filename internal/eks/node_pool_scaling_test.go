package eks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// wantSizes checks a node group's scaling config in the cloud.
func wantSizes(ng *ekstypes.Nodegroup, minSize, desired, maxSize int32) error {
	sc := ng.ScalingConfig
	if got := [3]int32{aws.ToInt32(sc.MinSize), aws.ToInt32(sc.DesiredSize), aws.ToInt32(sc.MaxSize)}; got != [3]int32{minSize, desired, maxSize} {
		return fmt.Errorf("node group %s min/desired/max = %v, want %v", aws.ToString(ng.NodegroupName), got, [3]int32{minSize, desired, maxSize})
	}
	return nil
}

// Without desired_size the cluster autoscaler owns the pool's size: its changes are not drift,
// an update of the limits keeps the current size, and setting desired_size enforces it again.
func TestAccEKSNodePool_autoscalerOwnsDesiredSize(t *testing.T) {
	sim := startSim(t)
	limits := func(minSize, maxSize int) string {
		return fmt.Sprintf("  scaling {\n    min_size = %d\n    max_size = %d\n  }\n", minSize, maxSize)
	}
	cfg := func(body string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+body)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: cfg(limits(1, 4)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("scaling").AtMapKey("desired_size"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("desired_size"), knownvalue.Int64Exact(1)),
				},
				// The autoscaler scales up; the post-apply plan must not scale it back.
				Check: func(*terraform.State) error { return sim.ScaleNodegroup(testRegion, testCluster, "train-od", 3) },
			},
			{
				Config: cfg(limits(1, 4)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("desired_size"), knownvalue.Int64Exact(3)),
				},
			},
			{
				Config: cfg(limits(1, 6)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("desired_size"), knownvalue.Int64Exact(3)),
				}},
				Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error { return wantSizes(ng, 1, 3, 6) }),
			},
			{
				// Raising min_size above the current size moves the size up to it, no further.
				Config: cfg(limits(4, 6)),
				Check:  checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error { return wantSizes(ng, 4, 4, 6) }),
			},
			{
				Config: cfg(acctest.Scaling(1, 2, 6)),
				Check:  checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error { return wantSizes(ng, 1, 2, 6) }),
			},
		},
	})
}

// writePolicyData writes a client registry in which acme may run in regions.
func writePolicyData(t *testing.T, file, regions string) {
	t.Helper()
	data := fmt.Sprintf("gpufleet:\n  clients:\n    acme:\n      cost_center: cc-1001\n      allowed_regions: [%s]\n      isolation: shared\n      monthly_budget_usd: 100000\n", regions)
	if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A deny blocks creating or changing a pool, never destroying it or an apply that leaves it
// alone: when policy data changes so that an existing pool now violates a deny rule, the pool
// gets a warning until it is changed, and destroy goes through.
func TestAccEKSNodePool_policyNeverBlocksDestroy(t *testing.T) {
	sim := startSim(t)
	dataFile := filepath.Join(t.TempDir(), "policy-data.yaml")
	writePolicyData(t, dataFile, `"us-*"`)
	cfg := func(labels string) string {
		return providerConfig(sim, fmt.Sprintf("  policy {\n    data_files = [%q]\n  }\n", dataFile)) +
			poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(1, 1, 2)+labels)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(""), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
			}},
			{
				// acme may no longer run in the US: an unchanged pool plans with a warning only, and
				// keeps the findings of the plan that created it.
				PreConfig: func() { writePolicyData(t, dataFile, `"eu-*"`) },
				Config:    cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
				},
			},
			{
				Config:      cfg("  labels = { team = \"ml\" }\n"),
				ExpectError: acctest.ExpectErrorParts("GF-DR-001", "denied"),
			},
		},
	})
}
