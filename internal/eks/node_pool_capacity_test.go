package eks_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

func nodeGroupCheck(i int, name, capacityType string, minSize, desired, maxSize int64) []statecheck.StateCheck {
	at := tfjsonpath.New("node_groups").AtSliceIndex(i)
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(addr, at.AtMapKey("name"), knownvalue.StringExact(name)),
		statecheck.ExpectKnownValue(addr, at.AtMapKey("capacity_type"), knownvalue.StringExact(capacityType)),
		statecheck.ExpectKnownValue(addr, at.AtMapKey("min_size"), knownvalue.Int64Exact(minSize)),
		statecheck.ExpectKnownValue(addr, at.AtMapKey("desired_size"), knownvalue.Int64Exact(desired)),
		statecheck.ExpectKnownValue(addr, at.AtMapKey("max_size"), knownvalue.Int64Exact(maxSize)),
		statecheck.ExpectKnownValue(addr, at.AtMapKey("status"), knownvalue.StringExact("ACTIVE")),
	}
}

// Spot mix 0 → 70 → 100 %: the spot node group appears, then the on-demand one goes, all in place.
func TestAccEKSNodePool_spotMix(t *testing.T) {
	sim := startSim(t)
	cfg := func(pct int) string {
		return providerConfig(sim, "") + poolConfig("train", `["g5.xlarge", "g5.2xlarge", "g5.4xlarge"]`, trainingWorkload+acctest.Scaling(0, 4, 10)+acctest.Capacity(pct, 1))
	}
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config:            cfg(0),
				ConfigStateChecks: append(nodeGroupCheck(0, "train-od", "ON_DEMAND", 0, 4, 10), statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups"), knownvalue.ListSizeExact(1))),
			},
			{
				// base 1, 70 %: min 0 → 0+0, desired 4 → floor(3*.7)=2 spot, max 10 → floor(9*.7)=6 spot.
				Config:            cfg(70),
				ConfigPlanChecks:  update,
				ConfigStateChecks: append(nodeGroupCheck(0, "train-od", "ON_DEMAND", 0, 2, 4), nodeGroupCheck(1, "train-spot", "SPOT", 0, 2, 6)...),
				Check: checkNodegroup(t, sim, "train-spot", func(ng *ekstypes.Nodegroup) error {
					if !slices.Equal(ng.InstanceTypes, []string{"g5.xlarge", "g5.2xlarge", "g5.4xlarge"}) {
						return fmt.Errorf("spot side instance types %v, want all three for diversification", ng.InstanceTypes)
					}
					return wantLabel(ng, "gpufleet.io/capacity-type", "spot")
				}),
			},
			{
				// base 1, 100 %: the on-demand side keeps the base node.
				Config:            cfg(100),
				ConfigPlanChecks:  update,
				ConfigStateChecks: append(nodeGroupCheck(0, "train-od", "ON_DEMAND", 0, 1, 1), nodeGroupCheck(1, "train-spot", "SPOT", 0, 3, 9)...),
			},
			{
				Config: providerConfig(sim, "") + poolConfig("train", `["g5.xlarge", "g5.2xlarge", "g5.4xlarge"]`, trainingWorkload+acctest.Scaling(0, 4, 10)+acctest.Capacity(100, 0)),
				// No base: the on-demand node group goes away, its launch template with it.
				ConfigPlanChecks: update,
				ConfigStateChecks: append(nodeGroupCheck(0, "train-spot", "SPOT", 0, 4, 10),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups"), knownvalue.ListSizeExact(1))),
				Check: func(*terraform.State) error {
					c := clients(t, sim)
					if ngs := c.nodegroupNames(t); !slices.Equal(ngs, []string{"train-spot"}) {
						return fmt.Errorf("node groups %v, want only train-spot", ngs)
					}
					if lts := c.launchTemplateNames(t); !slices.Equal(lts, []string{"gpufleet.ml.train-spot"}) {
						return fmt.Errorf("launch templates %v, want only the spot side's", lts)
					}
					return nil
				},
			},
		},
	})
}

func TestAccEKSNodePool_capacityReservation(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config: providerConfig(sim, "") + poolConfig("train", `["p5.48xlarge"]`, trainingWorkload+acctest.Scaling(0, 2, 4)+fmt.Sprintf(`
  capacity {
    reservation {
      id   = %q
      type = "capacity-reservation"
    }
  }
`, odcrID)),
			ConfigStateChecks: nodeGroupCheck(0, "train-od", "ON_DEMAND", 0, 2, 4),
			Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
				data, err := clients(t, sim).launchTemplateData(ng)
				if err != nil {
					return err
				}
				return wantReservation(data, odcrID, false)
			}),
		}},
	})
}

func TestAccEKSNodePool_capacityBlock(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: providerConfig(sim, "") + poolConfig("train", `["p5.48xlarge"]`, trainingWorkload+acctest.Scaling(0, 2, 2)+fmt.Sprintf(`
  policy_waivers = { "GF-COST-002" = "capacity block is prepaid for this run, ends 2027-01-01" }
  capacity {
    reservation {
      id   = %q
      type = "capacity-block"
    }
  }
`, blockID)),
				ConfigStateChecks: nodeGroupCheck(0, "train-od", "CAPACITY_BLOCK", 0, 2, 2),
				Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
					data, err := clients(t, sim).launchTemplateData(ng)
					if err != nil {
						return err
					}
					return errors.Join(wantReservation(data, blockID, true), wantLabel(ng, "gpufleet.io/capacity-type", "capacity-block"))
				}),
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "ml:train",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "policy_waivers", "policy_document.waivers"},
			},
		},
	})
}

func wantReservation(data *ec2types.ResponseLaunchTemplateData, id string, block bool) error {
	spec := data.CapacityReservationSpecification
	if spec == nil || spec.CapacityReservationTarget == nil || aws.ToString(spec.CapacityReservationTarget.CapacityReservationId) != id {
		return fmt.Errorf("launch template does not target reservation %s: %+v", id, spec)
	}
	isBlock := data.InstanceMarketOptions != nil && data.InstanceMarketOptions.MarketType == ec2types.MarketTypeCapacityBlock
	if isBlock != block {
		return fmt.Errorf("capacity-block market type = %v, want %v", isBlock, block)
	}
	return nil
}

// MIG and sharing on every MIG-capable GPU family AWS sells: the MIG manager label, the device
// plugin label, and the autoscaler's advertised nvidia.com/gpu count.
func TestAccEKSNodePool_migFamilies(t *testing.T) {
	cases := []struct {
		instanceType, gpu, profile string
		gpuResources               string // 8 GPUs × slices per GPU × sharing replicas
	}{
		{"p4d.24xlarge", "A100-40GB", "3g.20gb", "32"},
		{"p4de.24xlarge", "A100-80GB", "1g.10gb", "112"},
		{"p5.48xlarge", "H100-80GB", "2g.20gb", "48"},
		{"p5e.48xlarge", "H200-141GB", "3g.71gb", "32"},
		{"p6-b200.48xlarge", "B200", "7g.180gb", "16"},
	}
	for _, tc := range cases {
		t.Run(tc.gpu, func(t *testing.T) {
			sim := startSim(t)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy:             checkNothingLeft(t, sim),
				Steps: []resource.TestStep{{
					Config: providerConfig(sim, "") + poolConfig("train", fmt.Sprintf("[%q]", tc.instanceType), `
  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 8
  }
  gpu {
    mig { profile = "`+tc.profile+`" }
    sharing {
      strategy = "mps"
      replicas = 2
    }
  }
  policy_waivers = { "GF-RS-002" = "MIG sizing benchmark across GPU families, ends 2026-12-31" }
`+acctest.Scaling(0, 1, 1)),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpu_model"), knownvalue.StringExact(tc.gpu)),
						statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_labels").AtMapKey("nvidia.com/mig.config"), knownvalue.StringExact("all-"+tc.profile)),
					},
					Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
						return errors.Join(
							wantLabel(ng, "nvidia.com/mig.config", "all-"+tc.profile),
							wantLabel(ng, "nvidia.com/device-plugin.config", "gpufleet-mps-2"),
							wantTag(ng, "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu", tc.gpuResources),
						)
					}),
				}},
			})
		})
	}
}
