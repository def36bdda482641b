package gke_test

import (
	"fmt"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// The workload block's fit settings on GKE (issue #22): a 70B int8 replica (78.23 GiB) tensor
// parallel over the four L4s of a g2-standard-48 (84.93 GiB usable at 5 % headroom), two
// production replicas on two nodes of one zone. The settings are node labels of the node pool,
// read back by refresh and import; a replica over eight GPUs of a four-GPU machine fails at plan
// at gpus_per_replica, before any call to GKE.
func TestAccGKENodePool_fitSettings(t *testing.T) {
	sim := startSim(t)
	const pool = "serve"
	fit := map[string]string{"gpufleet.io/gpus-per-replica": "4", "gpufleet.io/precision": "int8", "gpufleet.io/replicas": "2"}
	cfg := func(gpusPerReplica int) string {
		return providerConfig(sim, "") + poolConfig(pool, "g2-standard-48", fmt.Sprintf(`
  node_locations = [%q]
  workload {
    kind             = "inference"
    environment      = "production"
    gpu_memory_gib   = 78.23
    precision        = "int8"
    gpus_per_replica = %d
    replicas         = 2
  }
`, testZoneA, gpusPerReplica)+acctest.Scaling(2, 2, 2))
	}
	labelsOnNodes := checkNodePool(t, sim, pool+"-od", func(np *containerpb.NodePool) error {
		for k, v := range fit {
			if err := wantLabel(np, k, v); err != nil {
				return err
			}
		}
		return nil
	})
	res := "gpufleet_gke_node_pool." + pool
	inState := []statecheck.StateCheck{
		statecheck.ExpectKnownValue(res, tfjsonpath.New("workload").AtMapKey("gpus_per_replica"), knownvalue.Int64Exact(4)),
		statecheck.ExpectKnownValue(res, tfjsonpath.New("workload").AtMapKey("replicas"), knownvalue.Int64Exact(2)),
		statecheck.ExpectKnownValue(res, tfjsonpath.New("workload").AtMapKey("precision"), knownvalue.StringExact("int8")),
		statecheck.ExpectKnownValue(res, tfjsonpath.New("policy_document").AtMapKey("workload").AtMapKey("gpus_per_replica"), knownvalue.Int64Exact(4)),
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(4), Check: labelsOnNodes, ConfigStateChecks: inState},
			{
				ResourceName:            res,
				ImportState:             true,
				ImportStateId:           fmt.Sprintf("%s/%s/%s/%s", testProject, testLocation, testCluster, pool),
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "policy_waivers", "policy_document.waivers"},
			},
			{Config: cfg(8), ExpectError: acctest.ExpectErrorParts("Replica larger than a node", "gpus_per_replica = 8", "g2-standard-48")},
		},
	})
}
