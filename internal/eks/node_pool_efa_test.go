package eks_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
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
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// Issue #40, item 8: the network block declares EFA interfaces and a placement group on the sides'
// launch templates, for training whose replicas span nodes.

// efaPool is a training pool of p4d.24xlarge (4 network cards) in one subnet, with network.
func efaPool(network string) string {
	return inZoneA(poolConfig("train", `["p4d.24xlarge"]`, `
  workload {
    kind             = "training"
    environment      = "staging"
    gpu_memory_gib   = 600
    gpus_per_replica = 16
  }
  scaling { 
    min_size     = 0
    max_size     = 2
    desired_size = 2
  }
  network {
`+network+`
  }
`))
}

const ownedPG = "gpufleet-ml-train"

// wantEFA checks the launch template of a node group: n EFA interfaces, the first EFA with ENA on
// card 0 device 0, the others EFA-only on cards 1.. device 1, and the placement group pg.
func wantEFA(t *testing.T, sim *cloudsim.Sim, nodegroup string, n int, pg string) func(*terraform.State) error {
	return checkNodegroup(t, sim, nodegroup, func(ng *ekstypes.Nodegroup) error {
		data, err := clients(t, sim).launchTemplateData(ng)
		if err != nil {
			return err
		}
		if len(data.NetworkInterfaces) != n {
			return fmt.Errorf("%d network interfaces, want %d", len(data.NetworkInterfaces), n)
		}
		for i, ni := range data.NetworkInterfaces {
			wantType, wantDevice := "efa-only", int32(1)
			if i == 0 {
				wantType, wantDevice = "efa", 0
			}
			if aws.ToString(ni.InterfaceType) != wantType || aws.ToInt32(ni.NetworkCardIndex) != int32(i) || aws.ToInt32(ni.DeviceIndex) != wantDevice {
				return fmt.Errorf("interface %d: %s on card %d device %d", i, aws.ToString(ni.InterfaceType), aws.ToInt32(ni.NetworkCardIndex), aws.ToInt32(ni.DeviceIndex))
			}
		}
		got := ""
		if data.Placement != nil {
			got = aws.ToString(data.Placement.GroupName)
		}
		if got != pg {
			return fmt.Errorf("placement group %q, want %q", got, pg)
		}
		if ng.Status != ekstypes.NodegroupStatusActive {
			return fmt.Errorf("node group %s: %s %+v", nodegroup, ng.Status, ng.Health)
		}
		return nil
	})
}

// placementGroupTags are the tags of a placement group in the simulator; nil when it is not there.
func placementGroupTags(sim *cloudsim.Sim, name string) map[string]string {
	for _, g := range sim.PlacementGroups(testRegion) {
		if g.GroupName == name {
			if g.Tags == nil {
				return map[string]string{}
			}
			return g.Tags
		}
	}
	return nil
}

// Create with EFA on every card and a placement group gpufleet owns; update to two interfaces (a new
// launch template version: the nodes roll); destroy deletes the node groups, then the group.
func TestAccEKSNodePool_efaCreateUpdateDestroy(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config: providerConfig(sim, "") + efaPool(`    efa                = true
    placement_strategy = "cluster"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(addr, tfjsonpath.New("network").AtMapKey("placement_group"), knownvalue.StringExact(ownedPG)),
			}},
			Check: resource.ComposeTestCheckFunc(wantEFA(t, sim, "train-od", 4, ownedPG), func(*terraform.State) error {
				tags := placementGroupTags(sim, ownedPG)
				if !ownerTagOf(tags["gpufleet:owner"], "ml/train/placement-group") || tags["gpufleet:client"] != "acme" {
					return fmt.Errorf("placement group %s tags %v", ownedPG, tags)
				}
				return nil
			}),
		},
		resource.TestStep{
			Config: providerConfig(sim, "") + efaPool(`    efa                = true
    efa_interfaces     = 2
    placement_strategy = "cluster"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
			Check:            wantEFA(t, sim, "train-od", 2, ownedPG),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("launch_template_version"), knownvalue.StringExact("2")),
			},
		},
		// Refresh reads the template back: nothing to change; import reads the block from it.
		resource.TestStep{
			Config: providerConfig(sim, "") + efaPool(`    efa                = true
    efa_interfaces     = 2
    placement_strategy = "cluster"`),
			PlanOnly: true,
		},
		resource.TestStep{
			Config: providerConfig(sim, "") + efaPool(`    efa                = true
    efa_interfaces     = 2
    placement_strategy = "cluster"`),
			ResourceName: addr, ImportState: true, ImportStateId: "ml:train", ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"timeouts", "policy_waivers", "policy_document.waivers"},
		},
	))
}

// An existing placement group named by the pool is used and never deleted; a group of gpufleet's name
// that is not the pool's is refused before anything is created, and stays as it was.
func TestAccEKSNodePool_efaPlacementGroupOwnership(t *testing.T) {
	sim := startSim(t)
	other := "ml/train/placement-group/0123456789abcdef"
	sim.AddPlacementGroup(testRegion, cloudsim.PlacementGroup{GroupName: "shared-pg", Strategy: "cluster", Tags: map[string]string{"team": "hpc"}})
	sim.AddPlacementGroup(testRegion, cloudsim.PlacementGroup{GroupName: ownedPG, Strategy: "cluster", Tags: map[string]string{"gpufleet:owner": other}})
	untouched := func(*terraform.State) error {
		if tags := placementGroupTags(sim, "shared-pg"); tags["team"] != "hpc" || len(tags) != 1 {
			return fmt.Errorf("shared-pg: %v", tags)
		}
		if tags := placementGroupTags(sim, ownedPG); tags["gpufleet:owner"] != other || len(tags) != 1 {
			return fmt.Errorf("the other pool's group: %v", tags)
		}
		return nil
	}
	tc := poolTest(t, sim,
		resource.TestStep{
			Config: providerConfig(sim, "") + efaPool(`    efa                = true
    placement_strategy = "cluster"`),
			ExpectError: regexp.MustCompile(`placement group gpufleet-ml-train \(pg-[0-9a-f]+\) is not this pool's`),
		},
		resource.TestStep{
			Config: providerConfig(sim, "") + efaPool(`    efa                  = true
    placement_group_name = "shared-pg"`),
			Check: resource.ComposeTestCheckFunc(wantEFA(t, sim, "train-od", 4, "shared-pg"), untouched),
		},
	)
	tc.CheckDestroy = func(s *terraform.State) error {
		if ngs := clients(t, sim).nodegroupNames(t); len(ngs) > 0 {
			return fmt.Errorf("node groups left: %v", ngs)
		}
		return untouched(s)
	}
	resource.Test(t, tc)
	if n := requestCount(sim, "DeletePlacementGroup"); n != 0 {
		t.Errorf("DeletePlacementGroup called %d times on groups the pool does not own", n)
	}
}

// Refused calls leave nothing behind: a refused CreatePlacementGroup creates nothing; a refused
// CreateNodegroup after the group was made deletes the group again (the create fails, no state); a
// refused DeletePlacementGroup keeps the pool in state with the group alone, and the next destroy
// deletes it.
func TestAccEKSNodePool_efaRefusedCallsLeaveNothing(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + efaPool(`    efa                = true
    placement_strategy = "cluster"`)
	inject := func(f cloudsim.Fault) func() {
		return func() {
			if _, err := sim.Inject(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	nothing := func(*terraform.State) error {
		if tags := placementGroupTags(sim, ownedPG); tags != nil {
			return fmt.Errorf("placement group left: %v", tags)
		}
		if ngs := clients(t, sim).nodegroupNames(t); len(ngs) > 0 {
			return fmt.Errorf("node groups left: %v", ngs)
		}
		return nil
	}
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{PreConfig: inject(refused("ec2", "CreatePlacementGroup", "")), Config: cfg, ExpectError: regexp.MustCompile(`creating placement group gpufleet-ml-train`)},
		resource.TestStep{PreConfig: inject(refused("eks", "CreateNodegroup", "train-od")), Config: cfg, ExpectError: regexp.MustCompile(`AccessDeniedException`)},
		resource.TestStep{Config: providerConfig(sim, ""), Check: nothing},
		resource.TestStep{Config: cfg, Check: wantEFA(t, sim, "train-od", 4, ownedPG)},
		resource.TestStep{PreConfig: inject(refused("ec2", "DeletePlacementGroup", "")), Config: providerConfig(sim, ""), ExpectError: regexp.MustCompile(`deleting placement group gpufleet-ml-train`)},
		resource.TestStep{
			Config: providerConfig(sim, ""),
			Check: func(s *terraform.State) error {
				if err := nothing(s); err != nil {
					return err
				}
				if n := requestCount(sim, "DeletePlacementGroup"); n < 2 {
					return fmt.Errorf("DeletePlacementGroup called %d times", n)
				}
				return nil
			},
		},
	))
}

// Plan-time errors at the attribute, before any cloud call: EFA on an instance type without it, more
// interfaces than cards, a cluster placement group over two subnets.
func TestAccEKSNodePool_efaPlanTimeErrors(t *testing.T) {
	sim := startSim(t)
	pool := func(types, network string, subnets bool) string {
		cfg := poolConfig("train", types, "  network {\n"+network+"\n  }\n")
		if !subnets {
			cfg = inZoneA(cfg)
		}
		return providerConfig(sim, "") + cfg
	}
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{Config: pool(`["g5.xlarge"]`, "    efa = true", false), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)network.efa.*g5.xlarge does not support Elastic Fabric Adapter`)},
		resource.TestStep{Config: pool(`["p4d.24xlarge"]`, "    efa = true\n    efa_interfaces = 8", false), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)network.efa_interfaces: 8, but p4d.24xlarge has 4 network card`)},
		resource.TestStep{Config: pool(`["p4d.24xlarge"]`, "    efa = true\n    placement_strategy = \"cluster\"", true), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Cluster placement group over several subnets.*subnet_ids`)},
		resource.TestStep{Config: pool(`["p4d.24xlarge"]`, "    efa_interfaces = 2", false), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)efa_interfaces.*efa`)},
	))
	if calls := mutatingCalls(sim); len(calls) > 0 || slices.ContainsFunc(sim.Requests(), func(r cloudsim.Request) bool { return strings.HasPrefix(r.Operation, "Describe") }) {
		t.Errorf("plan-time errors made cloud calls: %v", calls)
	}
}

// The permissions guide's policy covers a pool with a network block: the placement group created
// (tagged on creation), the EFA launch templates, the group deleted with the pool; without
// ec2:CreatePlacementGroup the create is refused, naming it, before anything exists.
func TestAccEKSNodePool_efaPermissionsGuidePolicy(t *testing.T) {
	sim := underPolicy(t, guidePolicy(t))
	cfg := providerConfig(sim, "") + efaPool(`    efa                = true
    placement_strategy = "cluster"`)
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{Config: cfg, Check: func(s *terraform.State) error {
			if denied := sim.DeniedActions(); len(denied) > 0 {
				return fmt.Errorf("the guide's policy does not allow %v", denied)
			}
			return wantEFA(t, sim, "train-od", 4, ownedPG)(s)
		}},
	))
	if denied := sim.DeniedActions(); len(denied) > 0 {
		t.Errorf("the guide's policy does not allow %v (destroy)", denied)
	}

	narrow := underPolicy(t, without(t, guidePolicy(t), "ec2:CreatePlacementGroup"))
	resource.Test(t, poolTest(t, narrow,
		resource.TestStep{Config: providerConfig(narrow, "") + efaPool(`    efa                = true
    placement_strategy = "cluster"`), ExpectError: regexp.MustCompile(`(?s)creating placement group gpufleet-ml-train.*ec2:CreatePlacementGroup`)},
	))
}

// A training replica over two p4d.24xlarge nodes without network.efa plans with a warning naming
// the fix; with it, the warning is gone.
func TestAccEKSNodePool_efaWarnsReplicaOverNodesWithoutEFA(t *testing.T) {
	sim := startSim(t)
	var diags acctest.ApplyDiagnostics
	without := strings.Replace(efaPool("    placement_strategy = \"cluster\""), "  network {\n    placement_strategy = \"cluster\"\n  }\n", "", 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		Steps: []resource.TestStep{
			{Config: providerConfig(sim, "") + without, PlanOnly: true, ExpectNonEmptyPlan: true,
				Check: func(*terraform.State) error { return nil }},
			{PreConfig: func() {
				if err := diags.ExpectPlanWarning("Replicas span nodes without EFA", "gpus_per_replica = 16 spans 2 p4d.24xlarge nodes", "network { efa = true }"); err != nil {
					t.Fatal(err)
				}
				diags.Reset()
			}, Config: providerConfig(sim, "") + efaPool("    efa = true"), PlanOnly: true, ExpectNonEmptyPlan: true},
			{PreConfig: func() {
				if err := diags.ExpectNoPlanWarning("Replicas span nodes without EFA"); err != nil {
					t.Fatal(err)
				}
			}, Config: providerConfig(sim, "") + efaPool("    efa = true"), PlanOnly: true, ExpectNonEmptyPlan: true},
		},
	})
}
