package karpenter_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// recommendedKarpenterPool is a gpufleet_recommendation for replicas of an interruptible
// production workload of kind with the team's reservation, and a gpufleet_karpenter_node_pool
// configured from its aws answer as the right-sizing guide plugs it in.
func recommendedKarpenterPool(name, kind string, memoryGiB float64, gpusPerReplica, replicas int, reservation string, capacity ...string) string {
	gpus := ""
	if gpusPerReplica > 0 {
		gpus = fmt.Sprintf("gpus_per_replica = %d", gpusPerReplica)
	}
	return fmt.Sprintf(`
data "gpufleet_recommendation" %[1]q {
  workload {
    kind           = %[2]q
    environment    = "production"
    interruptible  = true
    gpu_memory_gib = %[3]g
    %[4]s
  }
  replicas = %[5]d
  clouds   = ["aws"]
  regions  = [%[6]q]
  capacity {
    reservation {
%[7]s
    }
%[10]s  }
}

locals {
  %[1]s = data.gpufleet_recommendation.%[1]s.aws
}

resource "gpufleet_karpenter_node_pool" %[1]q {
  cluster_name            = %[8]q
  name                    = %[1]q
  node_role               = "KarpenterNodeRole-ml"
  client                  = "acme"
  subnet_selector         = [{ tags = { "karpenter.sh/discovery" = "ml" } }]
  security_group_selector = [{ id = "sg-0123456789abcdef0" }]
  instance_types          = [local.%[1]s.node_type]

  workload {
    kind             = %[2]q
    environment      = "production"
    interruptible    = true
    gpu_memory_gib   = data.gpufleet_recommendation.%[1]s.required_gpu_memory_gib
    gpus_per_replica = local.%[1]s.gpus_per_replica
    replicas         = %[5]d
  }

%[9]s}
`, name, kind, memoryGiB, gpus, replicas, testRegion, reservation, testCluster, acctest.AnswerBlocks(name, false, "id", "type", "hourly_price_usd"), strings.Join(capacity, ""))
}

// Issue #40, item 7: the recommendation's ladder assigns to gpufleet_karpenter_node_pool as is. An
// EC2 capacity reservation the team holds (5 g6e.xlarge) is used first by 8 interruptible serving
// replicas: the answer's reserved rung becomes the pool's reserved NodePool (selecting the
// reservation), its spot rung the spot NodePool; a capacity block (2
// p5.48xlarge, scheduled in 2099: its rung carries its dates) takes every node of a training job, with no spot. Both plan and apply with no
// policy finding (GF-AS-001 would deny a reserved rung that selects no reservation).
func TestAccKarpenterNodePool_recommendationLadder(t *testing.T) {
	e := newEnv(t)
	serve := recommendedKarpenterPool("serve", "inference", 20, 0, 8, `      id        = "cr-0123456789abcdef0"
      zone      = "us-east-1a"
      node_type = "g6e.xlarge"
      nodes     = 5`)
	train := recommendedKarpenterPool("train", "training", 70, 8, 2, `      id               = "cr-0fedcba9876543210"
      type             = "capacity-block"
      zone             = "us-east-1a"
      node_type        = "p5.48xlarge"
      nodes            = 2
      hourly_price_usd = 31.464
      start            = "2099-01-05T11:30:00Z"
      end              = "2099-01-12T11:30:00Z"`)
	ladder := func(name string) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue("gpufleet_karpenter_node_pool."+name, tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("serve", "train"),
		Steps: []resource.TestStep{{
			Config: e.provider("") + serve + train,
			ConfigStateChecks: append(append(ladder("serve"), ladder("train")...),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.serve", tfjsonpath.New("aws").AtMapKey("ladder"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"capacity_type": knownvalue.StringExact("reserved"), "nodes": knownvalue.Int64Exact(5), "reservation_id": knownvalue.StringExact("cr-0123456789abcdef0")}),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"capacity_type": knownvalue.StringExact("spot"), "nodes": knownvalue.Int64Exact(3)}),
				})),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.train", tfjsonpath.New("aws").AtMapKey("ladder"), knownvalue.ListExact([]knownvalue.Check{
					// A block that has not started (its dates, far ahead, checked at plan) is used, and
					// its rung carries them.
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"capacity_type": knownvalue.StringExact("capacity-block"), "nodes": knownvalue.Int64Exact(2),
						"start": knownvalue.StringExact("2099-01-05T11:30:00Z"), "end": knownvalue.StringExact("2099-01-12T11:30:00Z")}),
				})),
			),
			Check: resource.ComposeTestCheckFunc(
				// The answer's rungs are the pool's NodePools, capacity type for capacity type.
				sameRungs("serve"), sameRungs("train"),
				check(func() error {
					if got := requirement(e.get(t, nodePoolGVK, "serve-od"), "karpenter.sh/capacity-type"); got != "In reserved,on-demand" {
						return fmt.Errorf("serve-od capacity types %s", got)
					}
					if got := requirement(e.get(t, nodePoolGVK, "serve-spot"), "karpenter.sh/capacity-type"); got != "In spot" {
						return fmt.Errorf("serve-spot capacity types %s", got)
					}
					for name, id := range map[string]string{"serve": "cr-0123456789abcdef0", "train": "cr-0fedcba9876543210"} {
						if got := fmt.Sprint(nested(e.get(t, ec2NodeClassGVK, name), "spec", "capacityReservationSelectorTerms")); got != "[map[id:"+id+"]]" {
							return fmt.Errorf("%s reservation selector %s", name, got)
						}
					}
					if e.get(t, nodePoolGVK, "train-spot") != nil {
						return fmt.Errorf("a capacity block pool with a spot NodePool")
					}
					return nil
				}),
			),
		}},
	})
}

// sameRungs checks that the answer's ladder and the pool's dynamic NodePools have the same
// capacity types in the same order; an on-demand rung after the reserved one (the overflow rung) is
// the reserved NodePool's fallback, not a NodePool of its own.
func sameRungs(name string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		data := s.RootModule().Resources["data.gpufleet_recommendation."+name].Primary.Attributes
		pool := s.RootModule().Resources["gpufleet_karpenter_node_pool."+name].Primary.Attributes
		var rungs, pools []string
		for i := 0; data[fmt.Sprintf("aws.ladder.%d.capacity_type", i)] != ""; i++ {
			if r := data[fmt.Sprintf("aws.ladder.%d.capacity_type", i)]; r != "on-demand" || len(rungs) == 0 || rungs[len(rungs)-1] != "reserved" {
				rungs = append(rungs, r)
			}
		}
		for i := 0; pool[fmt.Sprintf("node_pools.%d.name", i)] != ""; i++ {
			if pool[fmt.Sprintf("node_pools.%d.static", i)] == "false" {
				pools = append(pools, pool[fmt.Sprintf("node_pools.%d.capacity_type", i)])
			}
		}
		if strings.Join(rungs, ",") != strings.Join(pools, ",") {
			return fmt.Errorf("%s: the answer's ladder %v, the pool's NodePools %v", name, rungs, pools)
		}
		return nil
	}
}

// Issue #40, item 7, the overflow rung: the same eight serving replicas with an ODCR of only three
// g6e.xlarge and overflow_to_on_demand are answered on it, reserved 3, on-demand 2, spot 3, for
// gpufleet_karpenter_node_pool only (applies_to). Plugged in as is, the pool's reserved NodePool
// takes reserved and on-demand capacity (Karpenter falls back to on demand when the reservation is
// full) up to the five nodes of the two rungs, selecting the reservation, and its spot NodePool
// the three spot nodes: it applies with no policy finding.
func TestAccKarpenterNodePool_recommendationOverflow(t *testing.T) {
	e := newEnv(t)
	serve := recommendedKarpenterPool("serve", "inference", 20, 0, 8, `      id        = "cr-0123456789abcdef0"
      zone      = "us-east-1a"
      node_type = "g6e.xlarge"
      nodes     = 3`, "    overflow_to_on_demand = true\n")
	data := "data.gpufleet_recommendation.serve"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("serve"),
		Steps: []resource.TestStep{{
			Config: e.provider("") + serve,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("gpufleet_karpenter_node_pool.serve", tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue(data, tfjsonpath.New("aws").AtMapKey("applies_to"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("gpufleet_karpenter_node_pool")})),
				statecheck.ExpectKnownValue(data, tfjsonpath.New("aws").AtMapKey("ladder"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"capacity_type": knownvalue.StringExact("reserved"), "nodes": knownvalue.Int64Exact(3), "reservation_id": knownvalue.StringExact("cr-0123456789abcdef0")}),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"capacity_type": knownvalue.StringExact("on-demand"), "nodes": knownvalue.Int64Exact(2)}),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"capacity_type": knownvalue.StringExact("spot"), "nodes": knownvalue.Int64Exact(3)}),
				})),
			},
			Check: resource.ComposeTestCheckFunc(
				// The reserved and on-demand rungs are the reserved NodePool, limited to their nodes.
				sameRungs("serve"),
				func(s *terraform.State) error {
					pool := s.RootModule().Resources["gpufleet_karpenter_node_pool.serve"].Primary.Attributes
					nodes := map[string]int{}
					for i := 0; pool[fmt.Sprintf("node_pools.%d.name", i)] != ""; i++ {
						n, err := strconv.Atoi(pool[fmt.Sprintf("node_pools.%d.nodes", i)])
						if err != nil {
							return err
						}
						nodes[pool[fmt.Sprintf("node_pools.%d.capacity_type", i)]] += n
					}
					if fmt.Sprint(nodes) != "map[reserved:5 spot:3]" { // static and dynamic NodePools of each rung
						return fmt.Errorf("nodes per capacity type %v", nodes)
					}
					return nil
				},
				check(func() error {
					if got := requirement(e.get(t, nodePoolGVK, "serve-od"), "karpenter.sh/capacity-type"); got != "In reserved,on-demand" {
						return fmt.Errorf("serve-od capacity types %s", got)
					}
					if got := fmt.Sprint(nested(e.get(t, ec2NodeClassGVK, "serve"), "spec", "capacityReservationSelectorTerms")); got != "[map[id:cr-0123456789abcdef0]]" {
						return fmt.Errorf("reservation selector %s", got)
					}
					return nil
				}),
			),
		}},
	})
}
