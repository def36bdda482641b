package gke_test

import (
	"fmt"
	"regexp"
	"testing"

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
