package gke_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// recommendedPool is the recommendation's documented GKE example for two production replicas of a
// 7B fp16 model in us-central1, on cluster: the answer plugged into gpufleet_gke_node_pool, with
// location = the answer's region and, when withLocations, node_locations = the answer's.
func recommendedPool(cluster string, withLocations bool) string {
	locations := ""
	if withLocations {
		locations = "node_locations = data.gpufleet_recommendation.serve.gcp.node_locations"
	}
	return fmt.Sprintf(`
data "gpufleet_recommendation" "serve" {
  workload {
    kind                     = "inference"
    environment              = "production"
    model_parameters_billion = 7
    precision                = "fp16"
  }
  replicas = 2
  clouds   = ["gcp"]
  regions  = ["us-central1"]
}

locals {
  gcp = data.gpufleet_recommendation.serve.gcp
}

resource "gpufleet_gke_node_pool" "serve" {
  location     = local.gcp.region
  %s
  cluster      = %q
  name         = "serve"
  client       = "acme"
  machine_type = local.gcp.node_type

  workload {
    kind           = "inference"
    environment    = "production"
    gpu_memory_gib = data.gpufleet_recommendation.serve.required_gpu_memory_gib
    precision      = "fp16"
    replicas       = 2
  }

  gpu {
    type  = local.gcp.accelerator
    count = local.gcp.gpus_per_node
  }

  scaling {
    min_size     = local.gcp.min_size
    desired_size = local.gcp.node_count
    max_size     = local.gcp.node_count
  }

  capacity {
    spot_percentage = local.gcp.spot_percentage
    on_demand_base  = local.gcp.on_demand_base
  }
}
`, locations, cluster)
}

// Issue #40, item 10: the recommendation's GKE answer, plugged in as the docs show (location = its
// region, node_locations = its node_locations), plans and applies on regional clusters of three and
// four zones in us-central1 (a, b, c and f; cloudsim offers the L4 in a, b and c, as GCP does),
// with one node in each of the three zones the answer was sized for. Without node_locations, the
// pool on the four-zone cluster takes all four zones and fails at apply (3 nodes do not split over 4 zones), as the old example did.
func TestAccGKENodePool_recommendationOnThreeAndFourZones(t *testing.T) {
	const region = "us-central1"
	zones := func(suffixes ...string) []string {
		var out []string
		for _, s := range suffixes {
			out = append(out, region+"-"+s)
		}
		return out
	}
	sim := startSimWith(t, func(s *cloudsim.Seed) {
		p := s.GCP.Projects[testProject]
		p.Clusters = append(p.Clusters,
			cloudsim.GKEClusterSeed{Name: "three", Location: region, Version: "1.31.5-gke.1023000", Locations: zones("a", "b", "c")},
			cloudsim.GKEClusterSeed{Name: "four", Location: region, Version: "1.31.5-gke.1023000", Locations: zones("a", "b", "c", "f")})
		for _, z := range zones("a", "b", "c") {
			p.Accelerators[z] = []string{"nvidia-l4"}
		}
		p.Accelerators[region+"-f"] = []string{"nvidia-tesla-t4"}
	})
	answered, served := zones("a", "b", "c"), "gpufleet_gke_node_pool.serve"
	for _, cluster := range []string{"three", "four"} {
		t.Run(cluster, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy: func(*terraform.State) error {
					if nps := sim.NodePools(testProject, region, cluster); len(nps) > 0 {
						return fmt.Errorf("%d node pools left", len(nps))
					}
					return nil
				},
				Steps: []resource.TestStep{{
					Config: providerConfig(sim, "") + recommendedPool(cluster, true),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue("data.gpufleet_recommendation.serve", tfjsonpath.New("gcp").AtMapKey("node_locations"), knownvalue.ListExact([]knownvalue.Check{
							knownvalue.StringExact(answered[0]), knownvalue.StringExact(answered[1]), knownvalue.StringExact(answered[2])})),
						statecheck.ExpectKnownValue(served, tfjsonpath.New("node_locations"), knownvalue.SetExact([]knownvalue.Check{
							knownvalue.StringExact(answered[0]), knownvalue.StringExact(answered[1]), knownvalue.StringExact(answered[2])})),
						statecheck.ExpectKnownValue(served, tfjsonpath.New("scaling").AtMapKey("desired_size"), knownvalue.Int64Exact(3)),
					},
				}},
			})
		})
	}
	t.Run("four without node_locations", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProviderFactories,
			Steps: []resource.TestStep{{
				Config:      providerConfig(sim, "") + recommendedPool("four", false),
				ExpectError: regexp.MustCompile(`Desired size does not split over the zones`),
			}},
		})
	})
}

// Issue #40, item 7: the recommendation answers 405B in fp4 served in production with
// a4-highgpu-8g, which Compute Engine sells only as Spot, flex-start or reserved, on the team's
// reservation of it; the answer plugged into gpufleet_gke_node_pool (node_locations and the
// reservation block from the answer) applies against cloudsim, which consumes a specific reservation
// only in its zone and for its machine type (validateReservationAffinity).
func TestAccGKENodePool_recommendationOnReservation(t *testing.T) {
	const zone = testZoneB
	sim := startSimWith(t, func(s *cloudsim.Seed) {
		p := s.GCP.Projects[testProject]
		p.Reservations = append(p.Reservations, cloudsim.GCEReservationSeed{Name: "b200-serving", Zone: zone, MachineType: "a4-highgpu-8g",
			AcceleratorType: "nvidia-b200", AcceleratorCount: 8, Count: 2})
	})
	config := reservedPoolConfig(`
    kind                     = "inference"
    environment              = "production"
    model_parameters_billion = 405
    precision                = "fp4"`, `
    kind             = "inference"
    environment      = "production"
    gpu_memory_gib   = data.gpufleet_recommendation.serve.required_gpu_memory_gib
    precision        = "fp4"
    gpus_per_replica = local.gcp.gpus_per_replica`, 1, `
      id        = "b200-serving"
      zone      = "`+zone+`"
      node_type = "a4-highgpu-8g"
      nodes     = 2`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config: providerConfig(sim, "") + config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("gpufleet_gke_node_pool.serve", tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue("gpufleet_gke_node_pool.serve", tfjsonpath.New("node_locations"), knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(zone)})),
			},
			Check: checkNodePool(t, sim, "serve-od", func(np *containerpb.NodePool) error {
				ra := np.GetConfig().GetReservationAffinity()
				if np.GetStatus() != containerpb.NodePool_RUNNING || ra.GetConsumeReservationType() != containerpb.ReservationAffinity_SPECIFIC_RESERVATION || fmt.Sprint(ra.GetValues()) != "[b200-serving]" {
					return fmt.Errorf("node pool %s, affinity %v", np.GetStatus(), ra)
				}
				return nil
			}),
		}},
	})
}

// reservedPoolConfig is a gpufleet_recommendation of replicas of a workload (demand: its workload
// lines) on the team's reservation (its block's lines), and the gpufleet_gke_node_pool serve
// configured from the gcp answer as the right-sizing guide plugs it in (pool: its workload lines).
func reservedPoolConfig(demand, pool string, replicas int, reservation string, capacity ...string) string {
	return fmt.Sprintf(`
data "gpufleet_recommendation" "serve" {
  workload {%[4]s
  }
  replicas = %[6]d
  clouds   = ["gcp"]
  regions  = [%[1]q]
  capacity {%[8]s
    reservation {%[7]s
    }
  }
}

locals {
  gcp = data.gpufleet_recommendation.serve.gcp
}

resource "gpufleet_gke_node_pool" "serve" {
  location       = local.gcp.region
  node_locations = local.gcp.node_locations
  cluster        = %[2]q
  name           = "serve"
  client         = "acme"
  machine_type   = local.gcp.node_type

  workload {%[5]s
    replicas         = %[6]d
  }

  gpu {
    type  = local.gcp.accelerator
    count = local.gcp.gpus_per_node
  }

%[3]s}
`, testLocation, testCluster, acctest.AnswerBlocks("gcp", true, "type", "name", "project"), demand, pool, replicas, reservation, strings.Join(capacity, ""))
}

// Issue #40, item 7: a Compute Engine reservation of N1 VMs names their attached GPUs: two staging
// replicas of 12 GiB with the team's reservation of two n1-standard-8 with one T4 each (node_type,
// gpu, gpus_per_node) are answered on it, and the answer plugged into gpufleet_gke_node_pool applies
// against cloudsim, which consumes a specific reservation only with its machine type and its
// accelerators per VM (validateReservationAffinity): the pool's node_config carries 1 x
// nvidia-tesla-t4 and the reservation affinity, with no policy finding.
func TestAccGKENodePool_recommendationOnN1Reservation(t *testing.T) {
	sim := startSimWith(t, func(s *cloudsim.Seed) {
		p := s.GCP.Projects[testProject]
		p.Reservations = append(p.Reservations, cloudsim.GCEReservationSeed{Name: "t4-serving", Zone: testZoneB, MachineType: "n1-standard-8",
			AcceleratorType: "nvidia-tesla-t4", AcceleratorCount: 1, Count: 2})
	})
	config := reservedPoolConfig(`
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 12`, `
    kind             = "inference"
    environment      = "staging"
    gpu_memory_gib   = data.gpufleet_recommendation.serve.required_gpu_memory_gib`, 2, `
      id            = "t4-serving"
      zone          = "`+testZoneB+`"
      node_type     = "n1-standard-8"
      nodes         = 2
      gpu           = "T4"
      gpus_per_node = 1`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config: providerConfig(sim, "") + config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("gpufleet_gke_node_pool.serve", tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.serve", tfjsonpath.New("gcp").AtMapKey("ladder"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"capacity_type": knownvalue.StringExact("reservation"), "nodes": knownvalue.Int64Exact(2), "reservation_id": knownvalue.StringExact("t4-serving")}),
				})),
			},
			Check: checkNodePool(t, sim, "serve-od", func(np *containerpb.NodePool) error {
				ra := np.GetConfig().GetReservationAffinity()
				accs := np.GetConfig().GetAccelerators()
				if np.GetStatus() != containerpb.NodePool_RUNNING || fmt.Sprint(ra.GetValues()) != "[t4-serving]" || np.GetConfig().GetMachineType() != "n1-standard-8" ||
					len(accs) != 1 || accs[0].GetAcceleratorType() != "nvidia-tesla-t4" || accs[0].GetAcceleratorCount() != 1 {
					return fmt.Errorf("node pool %s, machine %s, accelerators %v, affinity %v", np.GetStatus(), np.GetConfig().GetMachineType(), accs, ra)
				}
				return nil
			}),
		}},
	})
}

// Issue #40, item 7: an answer that overflows its reservation (overflow_to_on_demand: reservation
// 2, on_demand 2) is for gpufleet_gke_compute_class only; plugged into gpufleet_gke_node_pool
// anyway, the apply fails before any change at max_size, naming the reservation's count: a node
// pool of a specific reservation gets only its VMs (cloudsim fails the nodes beyond them,
// specificReservationFailure), so its on-demand side could never reach its size.
func TestAccGKENodePool_recommendationOverflowRefused(t *testing.T) {
	sim := startSimWith(t, func(s *cloudsim.Seed) {
		p := s.GCP.Projects[testProject]
		p.Reservations = append(p.Reservations, cloudsim.GCEReservationSeed{Name: "l4-serving", Zone: testZoneB, MachineType: "g2-standard-8",
			AcceleratorType: "nvidia-l4", AcceleratorCount: 1, Count: 2})
	})
	config := reservedPoolConfig(`
    kind           = "inference"
    environment    = "production"
    gpu_memory_gib = 20`, `
    kind             = "inference"
    environment      = "production"
    gpu_memory_gib   = data.gpufleet_recommendation.serve.required_gpu_memory_gib`, 4, `
      id        = "l4-serving"
      zone      = "`+testZoneB+`"
      node_type = "g2-standard-8"
      nodes     = 2`, `
    overflow_to_on_demand = true`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config:      providerConfig(sim, "") + config,
			ExpectError: regexp.MustCompile(`(?s)More nodes than the reservation holds.*reservation "l4-serving" holds 2 VMs`),
		}},
	})
}
