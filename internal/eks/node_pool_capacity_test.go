package eks_test

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
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
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
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
	resource.Test(t, poolTest(t, sim, resource.TestStep{
		Config: providerConfig(sim, "") + inZoneA(poolConfig("train", `["p5.48xlarge"]`, trainingWorkload+acctest.Scaling(0, 2, 4)+fmt.Sprintf(`
  capacity {
    reservation {
      id   = %q
      type = "capacity-reservation"
    }
  }
`, odcrID))),
		ConfigStateChecks: nodeGroupCheck(0, "train-od", "ON_DEMAND", 0, 2, 4),
		Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
			data, err := clients(t, sim).launchTemplateData(ng)
			if err != nil {
				return err
			}
			return wantReservation(data, odcrID, false)
		}),
	}))
}

// Another capacity reservation, or none, rolls only the on-demand node group onto it (a new version
// of its launch template); the spot node group, its nodes and its ARN stay as they are (the GKE
// audit's N17, on EKS: before, any reservation change replaced the whole pool, spot nodes included).
// A capacity block coming in still replaces the pool (the node group's capacity type changes, and a
// block takes no spot side: the fault matrix's reservation-replaced row).
func TestAccEKSNodePool_reservationChangeReplacesItsSideOnly(t *testing.T) {
	sim := startSim(t)
	config := func(reservation string) string {
		capacity := acctest.Capacity(50, 1)
		if reservation != "" {
			capacity = fmt.Sprintf("  capacity {\n    spot_percentage = 50\n    on_demand_base = 1\n    reservation {\n      id   = %q\n      type = \"capacity-reservation\"\n    }\n  }\n", reservation)
		}
		return providerConfig(sim, "") + inZoneA(poolConfig("train", `["p5.48xlarge"]`, trainingWorkload+acctest.Scaling(0, 2, 4)+capacity))
	}
	arns := map[string]string{}
	record := func(*terraform.State) error {
		for _, name := range []string{"train-od", "train-spot"} {
			ng, ok := sim.Nodegroup(testRegion, testCluster, name)
			if !ok {
				return fmt.Errorf("%s does not exist", name)
			}
			arns[name] = ng.NodegroupArn
		}
		return nil
	}
	// rolled checks that train-od kept its ARN and its template targets the reservation (none: ""),
	// and that nothing but a create ever changed train-spot.
	rolled := func(reservation string) func(*terraform.State) error {
		return func(*terraform.State) error {
			var errs []error
			for name, arn := range arns {
				if ng, _ := sim.Nodegroup(testRegion, testCluster, name); ng.NodegroupArn != arn {
					errs = append(errs, fmt.Errorf("%s was replaced (%s, was %s)", name, ng.NodegroupArn, arn))
				}
			}
			ng, err := clients(t, sim).nodegroup("train-od")
			if err != nil {
				return err
			}
			data, err := clients(t, sim).launchTemplateData(ng)
			if err != nil {
				return err
			}
			switch {
			case reservation != "":
				errs = append(errs, wantReservation(data, reservation, false))
			case data.CapacityReservationSpecification != nil && data.CapacityReservationSpecification.CapacityReservationTarget != nil:
				errs = append(errs, fmt.Errorf("train-od's template still targets %+v", data.CapacityReservationSpecification.CapacityReservationTarget))
			}
			for _, r := range sim.Requests() {
				if name, _ := r.Params["nodegroupName"].(string); r.Service == "eks" && name == "train-spot" && r.Operation != "CreateNodegroup" &&
					!strings.HasPrefix(r.Operation, "Describe") && !strings.HasPrefix(r.Operation, "List") {
					errs = append(errs, fmt.Errorf("train-spot got %s", r.Operation))
				}
			}
			return errors.Join(errs...)
		}
	}
	var diags acctest.ApplyDiagnostics
	moved := func(reservation string) resource.TestStep {
		return resource.TestStep{
			PreConfig:        diags.Reset,
			Config:           config(reservation),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
			Check: resource.ComposeAggregateTestCheckFunc(rolled(reservation), func(*terraform.State) error {
				return diags.ExpectPlanWarning("The apply replaces every node of train-od", "moves to", "spot node group", "stays as it is")
			}),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: config(odcrID), Check: resource.ComposeAggregateTestCheckFunc(record, rolled(odcrID))},
			moved(secondODCR),
			moved(""),
			moved(odcrID),
		},
	})
}

// capacityBlock is a pool on the test seed's capacity block: in its zone, sized by the autoscaler
// and EKS (no desired_size, min_size 0), priced at the block's price.
func capacityBlock(sim *cloudsim.Sim) string { return providerConfig(sim, "") + capacityBlockPool() }

// capacityBlockPool is capacityBlock's pool, without the provider.
func capacityBlockPool() string {
	return inZoneA(poolConfig("train", `["p5.48xlarge"]`, trainingWorkload+`
  scaling {
    min_size = 0
    max_size = 2
  }
`+fmt.Sprintf(`
  policy_waivers = { "GF-COST-002" = "capacity block is prepaid for this run, ends 2027-01-01" }
  capacity {
    reservation {
      id               = %q
      type             = "capacity-block"
      hourly_price_usd = 31.464
    }
  }
`, blockID)))
}

// A capacity block the way EKS takes it (EKS User Guide, capacity-blocks-mng): the instance type in
// the launch template (market type capacity-block, the block targeted) and not in CreateNodegroup,
// the subnets in the block's zone; priced at the block's price for all its nodes; at the block's end
// EKS scales the node group to 0, which is no drift.
func TestAccEKSNodePool_capacityBlock(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config: capacityBlock(sim),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				// 2 nodes (the block) × $31.464 an hour, whether they run or not.
				plancheck.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_usd"), knownvalue.Float64Exact(62.928)),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("capacity_type"), knownvalue.StringExact("CAPACITY_BLOCK")),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("desired_size"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("instance_types"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("p5.48xlarge")})),
			},
			Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
				data, err := clients(t, sim).launchTemplateData(ng)
				if err != nil {
					return err
				}
				if data.InstanceType != ec2types.InstanceTypeP548xlarge {
					return fmt.Errorf("launch template instance type %q, want p5.48xlarge", data.InstanceType)
				}
				for _, r := range sim.RequestsFor("eks", "CreateNodegroup") {
					if r.Params["instanceTypes"] != nil {
						return fmt.Errorf("CreateNodegroup carried instanceTypes %v beside the template's", r.Params["instanceTypes"])
					}
				}
				return errors.Join(wantReservation(data, blockID, true), wantLabel(ng, "gpufleet.io/capacity-type", "capacity-block"))
			}),
		},
		resource.TestStep{
			ResourceName:      addr,
			ImportState:       true,
			ImportStateId:     "ml:train",
			ImportStateVerify: true,
			// No EC2 API returns a block's price; an import reads the size the autoscaler left.
			ImportStateVerifyIgnore: []string{"timeouts", "policy_waivers", "policy_document.waivers", "capacity.reservation.hourly_price_usd", "estimated_hourly_cost_usd",
				"estimated_monthly_cost_usd", "policy_document.cost", "scaling.desired_size", "policy_document.scaling"},
		},
		resource.TestStep{
			// The block ends: EKS scales the node group to 0 (min and desired), gpufleet lets it.
			PreConfig: func() {
				if err := sim.ScaleNodegroup(testRegion, testCluster, "train-od", 2); err != nil {
					t.Fatal(err)
				}
				if err := sim.EndCapacityBlock(testRegion, blockID); err != nil {
					t.Fatal(err)
				}
			},
			Config: capacityBlock(sim),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
		},
	))
}

// Reservation placement is checked before anything changes: at plan, with read-only calls
// (DescribeCapacityReservations, DescribeSubnets), or without any call where the configuration
// alone is wrong.
func TestAccEKSNodePool_reservationChecks(t *testing.T) {
	reservation := func(id, typ string) string {
		return fmt.Sprintf("  capacity {\n    reservation {\n      id   = %q\n      type = %q\n    }\n  }\n", id, typ)
	}
	block := func(extra string) string {
		return fmt.Sprintf("  capacity {\n    reservation {\n      id   = %q\n      type = \"capacity-block\"\n%s    }\n  }\n", blockID, extra)
	}
	price := "      hourly_price_usd = 31.464\n"
	limits := "  scaling {\n    min_size = 0\n    max_size = 2\n  }\n"
	cases := []struct {
		name, instanceType, body string
		zoneA, reads             bool
		want                     []string
	}{
		{"subnets outside the reservation's zone", "p5.48xlarge", acctest.Scaling(0, 2, 4) + reservation(odcrID, "capacity-reservation"), false, true,
			[]string{"subnet_ids", "subnet-0b2b2b2b2b2b2b2b2 is in us-east-1b", odcrID, "us-east-1a"}},
		{"another instance type", "p4d.24xlarge", acctest.Scaling(0, 2, 4) + reservation(odcrID, "capacity-reservation"), true, true,
			[]string{"instance_types", odcrID, "p5.48xlarge", "not p4d.24xlarge"}},
		{"more nodes than the reservation", "p5.48xlarge", acctest.Scaling(0, 2, 6) + reservation(odcrID, "capacity-reservation"), true, true,
			[]string{"scaling.max_size", odcrID, "4 instances", "6"}},
		{"a block declared as a reservation", "p5.48xlarge", acctest.Scaling(0, 2, 2) + reservation(blockID, "capacity-reservation"), true, true,
			[]string{"capacity.reservation.type", blockID, "capacity-block"}},
		{"an unknown reservation", "p5.48xlarge", acctest.Scaling(0, 2, 2) + reservation("cr-0123456789abcdef0", "capacity-reservation"), true, true,
			[]string{"capacity.reservation.id", "cr-0123456789abcdef0", "does not exist"}},
		{"a block with an enforced desired size", "p5.48xlarge", acctest.Scaling(0, 2, 2) + block(price), true, false,
			[]string{"scaling.desired_size", "scales the node group", "capacity block"}},
		{"a block with a minimum size", "p5.48xlarge", "  scaling {\n    min_size = 1\n    max_size = 2\n  }\n" + block(price), true, false,
			[]string{"scaling.min_size", "capacity block", "0"}},
		{"a block without its price", "p5.48xlarge", limits + block(""), true, false,
			[]string{"capacity.reservation.hourly_price_usd", "capacity block"}},
		{"more nodes than the reservation has free", "p5.48xlarge", acctest.Scaling(0, 2, 4) + reservation(usedODCR, "capacity-reservation"), true, true,
			[]string{"scaling.desired_size", usedODCR, "1 of its 4 instances free", "starts 2 nodes"}},
		{"a dedicated-tenancy reservation", "p5.48xlarge", acctest.Scaling(0, 1, 4) + reservation(dedicatedODCR, "capacity-reservation"), true, true,
			[]string{"capacity.reservation.id", dedicatedODCR, "dedicated tenancy", "default tenancy"}},
		{"a price on a reservation", "p5.48xlarge", acctest.Scaling(0, 2, 4) + fmt.Sprintf("  capacity {\n    reservation {\n      id   = %q\n      type = \"capacity-reservation\"\n%s    }\n  }\n", odcrID, price), true, false,
			[]string{"capacity.reservation.hourly_price_usd", "capacity block"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim := startSim(t)
			cfg := providerConfig(sim, "") + poolConfig("train", fmt.Sprintf("[%q]", tc.instanceType), trainingWorkload+tc.body+
				"  policy_waivers = { \"GF-COST-002\" = \"reserved capacity is prepaid, ends 2027-01-01\" }\n")
			if tc.zoneA {
				cfg = inZoneA(cfg)
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps:                    []resource.TestStep{{Config: cfg, ExpectError: acctest.ExpectErrorParts(tc.want...)}},
			})
			if calls := mutatingCalls(sim); len(calls) > 0 {
				t.Fatalf("bad reservation settings reached the cloud: %v", calls)
			}
			if reads := requestCount(sim, "DescribeCapacityReservations"); (reads > 0) != tc.reads {
				t.Fatalf("%d DescribeCapacityReservations calls, want them %t", reads, tc.reads)
			}
		})
	}
}

// reservedPool is a p5.48xlarge pool in us-east-1a on the capacity reservation id, sized
// 0/desired/max, with extra in its body.
func reservedPool(sim *cloudsim.Sim, id string, desired, maxSize int, extra string) string {
	return providerConfig(sim, "") + inZoneA(poolConfig("train", `["p5.48xlarge"]`, trainingWorkload+acctest.Scaling(0, desired, maxSize)+fmt.Sprintf(`
  policy_waivers = { "GF-COST-002" = "reserved capacity is prepaid, ends 2027-01-01" }
  capacity {
    reservation {
      id   = %q
      type = "capacity-reservation"
    }
  }
`, id)+extra))
}

// A future-dated On-Demand Capacity Reservation (scheduled until its start) is accepted with a
// warning at plan, as a capacity block before its start is (audit D10): the pool is created, its node
// group ACTIVE, and it launches once the reservation is active. One partly used by other instances
// warns that the pool grows past its free instances only as they are released (D15).
func TestAccEKSNodePool_reservationNotStarted(t *testing.T) {
	sim := startSim(t)
	var diags acctest.ApplyDiagnostics
	cfg := func(id string, desired int) string { return reservedPool(sim, id, desired, 4, "") }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				PreConfig:         diags.Reset,
				Config:            cfg(futureODCR, 2),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: nodeGroupCheck(0, "train-od", "ON_DEMAND", 0, 2, 4),
				Check: func(*terraform.State) error {
					return diags.ExpectPlanWarning("capacity.reservation.id", futureODCR, "future-dated", "scheduled", "launches no instance")
				},
			},
			{
				PreConfig: diags.Reset,
				Config:    cfg(usedODCR, 1),
				Check: func(*terraform.State) error {
					return diags.ExpectPlanWarning("scaling.max_size", usedODCR, "1 of its 4 instances free", "only as they are released")
				},
			},
		},
	})
}

// Subnets unknown at plan (another resource's output): the reservation is checked at apply, when they
// are known, before anything is created.
func TestAccEKSNodePool_reservationCheckedAtApply(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + `
resource "terraform_data" "subnet" {
  input = "subnet-0b2b2b2b2b2b2b2b2"
}
` + strings.Replace(poolConfig("train", `["p5.48xlarge"]`, trainingWorkload+acctest.Scaling(0, 2, 4)+fmt.Sprintf(`
  capacity {
    reservation {
      id   = %q
      type = "capacity-reservation"
    }
  }
`, odcrID)), `["subnet-0a1a1a1a1a1a1a1a1", "subnet-0b2b2b2b2b2b2b2b2"]`, `[terraform_data.subnet.output]`, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      cfg,
			ExpectError: acctest.ExpectErrorParts("Error running apply", "subnet_ids", "subnet-0b2b2b2b2b2b2b2b2 is in us-east-1b", odcrID, "us-east-1a"),
		}},
	})
	for _, call := range mutatingCalls(sim) {
		t.Fatalf("the apply changed the cloud before it checked the reservation: %s", call)
	}
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
// plugin label, and the autoscaler's advertised nvidia.com/gpu count. Time-slicing: the device
// plugin takes no MPS on MIG devices.
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
    gpu_memory_gib = 4
  }
  gpu {
    mig { profile = "`+tc.profile+`" }
    sharing {
      strategy = "time-slicing"
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
							wantLabel(ng, "nvidia.com/device-plugin.config", "gpufleet-time-slicing-2"),
							wantTag(ng, "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu", tc.gpuResources),
						)
					}),
				}},
			})
		})
	}
}

// A "+me" MIG profile (media extensions) is named with ".me" in the label, as the GPU Operator's MIG
// manager names its config (all-1g.10gb.me): "+" is no Kubernetes label value, and EKS rejects it.
// One +me slice fits on a GPU.
func TestAccEKSNodePool_migMediaExtensions(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, poolTest(t, sim, resource.TestStep{
		Config: providerConfig(sim, "") + poolConfig("train", `["p4de.24xlarge"]`, `
  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 8
  }
  gpu {
    mig { profile = "1g.10gb+me" }
  }
  policy_waivers = { "GF-RS-002" = "video decoding needs the media extensions, until 2026-12-31" }
`+acctest.Scaling(0, 1, 1)),
		ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_labels").AtMapKey("nvidia.com/mig.config"), knownvalue.StringExact("all-1g.10gb.me")),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpu").AtMapKey("mig").AtMapKey("profile"), knownvalue.StringExact("1g.10gb+me")),
		},
		Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
			return errors.Join(wantLabel(ng, "nvidia.com/mig.config", "all-1g.10gb.me"),
				wantTag(ng, "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu", "8"))
		}),
	}))
}

// wantResourceTags checks that a node group's cluster autoscaler resource tags are exactly want,
// by resource name.
func wantResourceTags(ng *ekstypes.Nodegroup, want map[string]string) error {
	got := map[string]string{}
	for k, v := range ng.Tags {
		if name, ok := strings.CutPrefix(k, "k8s.io/cluster-autoscaler/node-template/resources/"); ok {
			got[name] = v
		}
	}
	if !maps.Equal(got, want) {
		return fmt.Errorf("node group %s advertises %v to the autoscaler, want %v", aws.ToString(ng.NodegroupName), got, want)
	}
	return nil
}

// all-balanced puts slices of several sizes on each GPU, which only the mixed MIG strategy
// advertises (as nvidia.com/mig-<profile>), and the GPU Operator's strategy is one for the cluster
// (audit D2): without mig_strategy = "mixed" the plan fails at gpu.mig.config. With it, the pool's
// nodes get a device plugin config with that strategy, and the autoscaler tags count the mig-*
// resources and no whole GPU (D3: nvidia.com/gpu = 0, or the autoscaler takes the instance type's 8).
// A single-profile pool in the same cluster advertises its slices as mig-<profile> too.
func TestAccEKSNodePool_migBalancedMixedStrategy(t *testing.T) {
	sim := startSim(t)
	cfg := func(mig, strategy string) string {
		return providerConfig(sim, "") + poolConfig("train", `["p5.48xlarge"]`, `
  workload {
    kind           = "development"
    environment    = "staging"
    gpu_memory_gib = 8
  }
  gpu {
    mig { `+mig+` }
  }
`+strategy+acctest.Scaling(0, 1, 1))
	}
	const mixed = "  mig_strategy = \"mixed\"\n"
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config:      cfg(`config = "all-balanced"`, ""),
			ExpectError: acctest.ExpectErrorParts("all-balanced needs the mixed MIG strategy", "gpu.mig.config", `mig_strategy = "mixed"`),
		},
		resource.TestStep{
			Config:           cfg(`config = "all-balanced"`, mixed),
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_plugin_config"), knownvalue.StringRegexp(regexp.MustCompile(`migStrategy: mixed`))),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("mig_strategy"), knownvalue.StringExact("mixed")),
			},
			Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
				return errors.Join(
					wantLabel(ng, "nvidia.com/mig.config", "all-balanced"),
					wantLabel(ng, "nvidia.com/device-plugin.config", "gpufleet-mig-mixed"),
					wantResourceTags(ng, map[string]string{"nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": "16", "nvidia.com/mig-2g.20gb": "8", "nvidia.com/mig-3g.40gb": "8"}),
				)
			}),
		},
		resource.TestStep{
			ResourceName:            addr,
			ImportState:             true,
			ImportStateId:           "ml:train",
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"timeouts"},
		},
		resource.TestStep{
			Config:           cfg(`profile = "3g.40gb"`, mixed),
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
				return wantResourceTags(ng, map[string]string{"nvidia.com/gpu": "0", "nvidia.com/mig-3g.40gb": "16"})
			}),
		},
	))
}
