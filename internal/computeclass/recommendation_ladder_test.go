package computeclass_test

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

// recommendedClass is the right-sizing guide's A4 example: 405B in fp4 served in production on a
// Compute Engine reservation of a4-highgpu-8g the team holds, and the gpufleet_gke_compute_class
// configured from the gcp answer as the guide plugs it in; capacity is the data source's capacity
// block.
func recommendedClass(name, capacity string) string {
	return recommendedClassFor(name, capacity, `
    model_parameters_billion = 405
    precision                = "fp4"`, `
    precision        = "fp4"`, 1)
}

// recommendedClassFor is a production serving workload (demand: its data source workload lines;
// pool: the class's workload lines beyond the answer's) of replicas with capacity, and the
// gpufleet_gke_compute_class configured from the gcp answer as the guide plugs it in.
func recommendedClassFor(name, capacity, demand, pool string, replicas int) string {
	return fmt.Sprintf(`
data "gpufleet_recommendation" "serve" {
  workload {
    kind                     = "inference"
    environment              = "production"%[5]s
  }
  replicas = %[7]d
  clouds   = ["gcp"]
  regions  = [%[2]q]
  capacity {
%[4]s
  }
}

locals {
  gcp = data.gpufleet_recommendation.serve.gcp
}

resource "gpufleet_gke_compute_class" %[1]q {
  location     = %[2]q
  cluster      = %[3]q
  name         = %[1]q
  client       = "initech"
  machine_type = local.gcp.node_type
  zones        = local.gcp.node_locations

  workload {
    kind             = "inference"
    environment      = "production"
    gpu_memory_gib   = data.gpufleet_recommendation.serve.required_gpu_memory_gib
    gpus_per_replica = local.gcp.gpus_per_replica
    replicas         = %[7]d%[6]s
  }

  scaling {
    min_size = local.gcp.min_size
    max_size = local.gcp.node_count
  }

  capacity {
    ladder = local.gcp.gke_capacity_ladder
    reservation {
      type    = local.gcp.reservation.type
      name    = local.gcp.reservation.name
      project = local.gcp.reservation.project
      zones   = local.gcp.reservation.zones
    }
  }
}
`, name, testLocation, testCluster, capacity, demand, pool, replicas)
}

// heldA4 is the team's reservation of two a4-highgpu-8g in us-central1-b.
const heldA4 = `    reservation {
      id        = "b200-serving"
      zone      = "us-central1-b"
      node_type = "a4-highgpu-8g"
      nodes     = 2
    }`

// Issue #40, item 7: a4-highgpu-8g, which Compute Engine sells only as Spot, flex-start or
// reserved, is answered on the team's reservation, and the answer's ladder and reservation assign
// to gpufleet_gke_compute_class as is: the class's first priority consumes the reservation by name
// (Specific) and the next is flex-start (A4 has no on-demand rung), with no policy finding
// (GF-AS-005 would deny zones beside a Specific reservation, GF-AS-006 a flex-start rung that
// consumes reservations).
func TestAccGKEComputeClass_recommendationLadder(t *testing.T) {
	w := newWorld(t)
	const name = "cc-a4-reserved"
	addr := "gpufleet_gke_compute_class." + name
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             w.checkGone(t, name),
		Steps: []resource.TestStep{{
			Config: w.providerConfig("") + recommendedClass(name, heldA4),
			ConfigStateChecks: stateChecks(
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.serve", tfjsonpath.New("gcp").AtMapKey("ladder"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{"capacity_type": knownvalue.StringExact("reservation"), "nodes": knownvalue.Int64Exact(1),
						"reservation_id": knownvalue.StringExact("b200-serving"), "hourly_usd": knownvalue.Float64Exact(106), "start": knownvalue.Null(), "end": knownvalue.Null()}),
				})),
				stateIs("data.gpufleet_recommendation.serve", 0, "gcp", "out_of_pocket_hourly_usd"),
			),
			Check: func(*terraform.State) error {
				u := w.live(t, name)
				if u == nil {
					return fmt.Errorf("no ComputeClass %s in the cluster", name)
				}
				if got := rungs(t, u); got != "reservation:Specific,flex_start" {
					return fmt.Errorf("rungs %s", got)
				}
				first := spec(t, u, "priorities").([]any)[0].(map[string]any)
				if got := fmt.Sprint(first["machineType"], " ", first["reservations"]); got != "a4-highgpu-8g map[affinity:Specific specific:[map[name:b200-serving zones:[us-central1-b]]]]" {
					return fmt.Errorf("reservation priority %s", got)
				}
				return nil
			},
		}},
	})
}

// Issue #40, item 7: with flex_start and no reservation, the same workload is answered with
// a4-highgpu-8g on flex-start VMs, and the answer's ladder assigns to the class as is: one
// flex-start priority, no reservation, no policy finding.
func TestAccGKEComputeClass_recommendationFlexStart(t *testing.T) {
	w := newWorld(t)
	const name = "cc-a4-flex"
	addr := "gpufleet_gke_compute_class." + name
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             w.checkGone(t, name),
		Steps: []resource.TestStep{{
			Config: w.providerConfig("") + recommendedClass(name, "    flex_start = true"),
			ConfigStateChecks: stateChecks(
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
				stateIs("data.gpufleet_recommendation.serve", true, "gcp", "flex_start"),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.serve", tfjsonpath.New("gcp").AtMapKey("ladder"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{"capacity_type": knownvalue.StringExact("flex_start"), "nodes": knownvalue.Int64Exact(1),
						"reservation_id": knownvalue.Null(), "hourly_usd": knownvalue.Float64Exact(106), "start": knownvalue.Null(), "end": knownvalue.Null()}),
				})),
			),
			Check: func(*terraform.State) error {
				u := w.live(t, name)
				if u == nil {
					return fmt.Errorf("no ComputeClass %s in the cluster", name)
				}
				if got := rungs(t, u); got != "flex_start" {
					return fmt.Errorf("rungs %s", got)
				}
				return nil
			},
		}},
	})
}

// Issue #40, item 7, the overflow rung: four production serving replicas of 20 GiB with the team's
// reservation of two g2-standard-8 in us-central1-a and overflow_to_on_demand are answered on it,
// reservation 2 then on_demand 2, for gpufleet_gke_compute_class only (applies_to). Plugged in as
// is, the class's first priority consumes the reservation by name and the next runs on demand in
// the reservation's zone (GKE tries the priorities in order), with no policy finding.
func TestAccGKEComputeClass_recommendationOverflow(t *testing.T) {
	w := newWorld(t)
	const name = "cc-l4-overflow"
	addr := "gpufleet_gke_compute_class." + name
	data := "data.gpufleet_recommendation.serve"
	config := recommendedClassFor(name, `    overflow_to_on_demand = true
    reservation {
      id        = "l4-serving"
      zone      = "us-central1-a"
      node_type = "g2-standard-8"
      nodes     = 2
    }`, `
    gpu_memory_gib           = 20`, "", 4)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             w.checkGone(t, name),
		Steps: []resource.TestStep{{
			Config: w.providerConfig("") + config,
			ConfigStateChecks: stateChecks(
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue(data, tfjsonpath.New("gcp").AtMapKey("applies_to"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("gpufleet_gke_compute_class")})),
				statecheck.ExpectKnownValue(data, tfjsonpath.New("gcp").AtMapKey("ladder"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"capacity_type": knownvalue.StringExact("reservation"), "nodes": knownvalue.Int64Exact(2), "reservation_id": knownvalue.StringExact("l4-serving")}),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"capacity_type": knownvalue.StringExact("on_demand"), "nodes": knownvalue.Int64Exact(2)}),
				})),
			),
			Check: func(*terraform.State) error {
				u := w.live(t, name)
				if u == nil {
					return fmt.Errorf("no ComputeClass %s in the cluster", name)
				}
				if got := rungs(t, u); got != "reservation:Specific,on_demand,flex_start" {
					return fmt.Errorf("rungs %s", got)
				}
				second := spec(t, u, "priorities").([]any)[1].(map[string]any)
				if got := fmt.Sprint(second["machineType"], " ", second["location"]); got != "g2-standard-8 map[zones:[us-central1-a]]" {
					return fmt.Errorf("on-demand priority %s", got)
				}
				return nil
			},
		}},
	})
}
