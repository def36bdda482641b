package eks_test

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// regionalProvider is the provider block with the region left to the environment (AWS_REGION), as
// a new user writes it, or set to var.region.
func regionalProvider(sim *cloudsim.Sim, region string) string {
	e := sim.Endpoints()
	return fmt.Sprintf(`
provider "gpufleet" {
  aws {
    %s
    skip_credentials_validation = true
    endpoints {
      eks         = %q
      ec2         = %q
      autoscaling = %q
    }
  }
}
`, region, e.EKS, e.EC2, e.AutoScaling)
}

// regionalPool is a one-node-group pool whose subnets are the region's (local.subnets[region]).
func regionalPool(region, body string) string {
	return fmt.Sprintf(`
locals {
  subnets = {
    %[1]q = ["subnet-0a1a1a1a1a1a1a1a1", "subnet-0b2b2b2b2b2b2b2b2"]
    %[2]q = ["subnet-0e1e1e1e1e1e1e1e1", "subnet-0f2f2f2f2f2f2f2f2"]
  }
}

resource "gpufleet_eks_node_pool" "train" {
  cluster_name   = %[3]q
  name           = "train"
  client         = "acme"
  node_role_arn  = %[4]q
  subnet_ids     = local.subnets[%[5]s]
  instance_types = ["g6.xlarge"]
%[6]s
}
`, testRegion, otherRegion, testCluster, testRole, region, inferenceWorkload+acctest.Scaling(0, 1, 2)+body)
}

// arnOf is the ARN of a node group in a region of the simulator, "" when there is none.
func arnOf(sim *cloudsim.Sim, region, name string) string {
	ng, ok := sim.Nodegroup(region, testCluster, name)
	if !ok {
		return ""
	}
	return ng.NodegroupArn
}

// A pool created with AWS_REGION=us-east-1 (no aws.region) and planned from a shell where
// AWS_REGION=eu-west-1 is not lost: refresh reads it in the region its state records, and the plan
// shows the move as a replacement instead of a new pool beside an orphaned one. Back in us-east-1
// nothing has changed.
func TestAccEKSNodePool_regionFromEnvironmentChanged(t *testing.T) {
	sim := startSim(t)
	cfg := regionalProvider(sim, "") + regionalPool(fmt.Sprintf("%q", testRegion), "")
	var arn string
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			PreConfig: func() { t.Setenv("AWS_REGION", testRegion) },
			Config:    cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("region"), knownvalue.StringExact(testRegion)),
			},
			Check: func(*terraform.State) error {
				if arn = arnOf(sim, testRegion, "train-od"); arn == "" {
					return fmt.Errorf("no train-od in %s", testRegion)
				}
				return nil
			},
		},
		resource.TestStep{
			PreConfig:          func() { t.Setenv("AWS_REGION", otherRegion) },
			Config:             cfg,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("region"), knownvalue.StringExact(otherRegion)),
				},
			},
		},
		resource.TestStep{
			PreConfig: func() { t.Setenv("AWS_REGION", testRegion) },
			Config:    cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("arn"), knownvalue.StringFunc(func(v string) error {
					if v != arn {
						return fmt.Errorf("state holds %s, want the pool's own %s", v, arn)
					}
					return nil
				})),
			},
			Check: func(*terraform.State) error {
				if got := arnOf(sim, testRegion, "train-od"); got != arn {
					return fmt.Errorf("train-od is now %q, want %s", got, arn)
				}
				if names := clientsIn(t, sim, otherRegion).nodegroupNames(t); len(names) > 0 {
					return fmt.Errorf("node groups in %s: %v", otherRegion, names)
				}
				return nil
			},
		},
	))
}

// A region variable changed from us-east-1 to eu-west-1 replaces the pool: the old one is destroyed
// in us-east-1 (its recorded region), the new one created in eu-west-1, and nothing is left behind.
// The pool's own region attribute moves it back, with the provider still in eu-west-1.
func TestAccEKSNodePool_regionVariableChanged(t *testing.T) {
	sim := startSim(t)
	cfg := `
variable "region" {
  type = string
}
` + regionalProvider(sim, "region = var.region") + regionalPool("var.region", "")
	pinned := `
variable "region" {
  type = string
}
` + regionalProvider(sim, "region = var.region") + regionalPool(fmt.Sprintf("%q", testRegion), fmt.Sprintf("  region = %q\n", testRegion))
	at := func(region string) config.Variables { return config.Variables{"region": config.StringVariable(region)} }
	var first, second string
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config:          cfg,
			ConfigVariables: at(testRegion),
			Check: func(*terraform.State) error {
				first = arnOf(sim, testRegion, "train-od")
				return nil
			},
		},
		resource.TestStep{
			Config:          cfg,
			ConfigVariables: at(otherRegion),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("region"), knownvalue.StringExact(otherRegion)),
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("region"), knownvalue.StringExact(otherRegion)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("arn"),
					knownvalue.StringRegexp(regexp.MustCompile(`^arn:aws:eks:`+otherRegion+`:`))),
			},
			Check: func(*terraform.State) error {
				if ngs := clients(t, sim).nodegroupNames(t); len(ngs) > 0 {
					return fmt.Errorf("node groups left in %s after the move: %v", testRegion, ngs)
				}
				if lts := clients(t, sim).launchTemplateNames(t); len(lts) > 0 {
					return fmt.Errorf("launch templates left in %s after the move: %v", testRegion, lts)
				}
				second = arnOf(sim, otherRegion, "train-od")
				if second == "" || first == "" {
					return fmt.Errorf("train-od: %q in %s before, %q in %s after", first, testRegion, second, otherRegion)
				}
				for _, r := range sim.RequestsFor("eks", "DeleteNodegroup") {
					if r.Region != testRegion {
						return fmt.Errorf("DeleteNodegroup in %s, want only in the old region %s", r.Region, testRegion)
					}
				}
				return nil
			},
		},
		resource.TestStep{
			Config:          pinned,
			ConfigVariables: at(otherRegion),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("region"), knownvalue.StringExact(testRegion)),
			},
			Check: func(*terraform.State) error {
				if ngs := clientsIn(t, sim, otherRegion).nodegroupNames(t); len(ngs) > 0 {
					return fmt.Errorf("node groups left in %s: %v", otherRegion, ngs)
				}
				if !slices.Contains(clients(t, sim).nodegroupNames(t), "train-od") {
					return fmt.Errorf("no train-od in %s", testRegion)
				}
				return nil
			},
		},
	))
}

// Import takes the region from the import id (<cluster>:<name>@<region>) and reads the pool there,
// whatever the provider's region; a pool in another region than the one named is not found.
func TestAccEKSNodePool_importRegion(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + regionalPool(fmt.Sprintf("%q", otherRegion), fmt.Sprintf("  region = %q\n", otherRegion))
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("region"), knownvalue.StringExact(otherRegion)),
			},
		},
		resource.TestStep{
			ResourceName:            addr,
			ImportState:             true,
			ImportStateId:           "ml:train@" + otherRegion,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"timeouts", "policy_waivers", "policy_document.waivers"},
		},
		resource.TestStep{
			ResourceName:  addr,
			ImportState:   true,
			ImportStateId: "ml:train", // the provider's region, us-east-1: no such pool there
			ExpectError:   acctest.ExpectErrorParts("Cannot import non-existent remote object"),
		},
	))
}
