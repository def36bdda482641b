package gke_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// gpuZone is the first zone of the test location that offers machineType's GPU, as Compute Engine
// offers it (catalog.GKEAcceleratorZones): the zone a test pool of that machine type runs in.
func gpuZone(t *testing.T, machineType string) string {
	t.Helper()
	node, err := catalog.GKENodeType(machineType, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	zones, ok := catalog.GKEAcceleratorZones(node.Accelerator, testLocation)
	if !ok || len(zones) == 0 {
		t.Fatalf("no zone of %s offers %s", testLocation, node.Accelerator)
	}
	return zones[0]
}

// A pool whose zones are known at plan (node_locations) and include a zone that does not offer
// its GPU fails at plan, at that attribute, before any call: the A100 80GB of a2-ultragpu is
// offered in europe-west4-a only (catalog.GKEAcceleratorZones). Before, the plan passed and
// CreateNodePool failed at apply ("Accelerator type … is not available in zone …"). A zonal pool
// without node_locations runs in its cluster's zones, which always hold the location's zone
// (checked at plan) and may hold more (a multi-zonal cluster, audit N5): the apply reads them and
// fails before any change.
func TestAccGKENodePool_acceleratorZones(t *testing.T) {
	sizes := acctest.Scaling(0, 0, 2)
	t.Run("node_locations", func(t *testing.T) {
		sim := startSim(t)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProviderFactories,
			Steps: []resource.TestStep{{
				Config: providerConfig(sim, "") + poolConfig("tune", "a2-ultragpu-1g", inferenceWorkload+sizes+`  node_locations = ["europe-west4-a", "europe-west4-b"]`+"\n"),
				ExpectError: acctest.ExpectErrorParts("GPU not offered in a zone of the pool",
					"node_locations: the GPU of a2-ultragpu-1g, nvidia-a100-80gb is not offered in europe-west4-b", "only in europe-west4-a of europe-west4"),
			}},
		})
		if n := requestCount(sim, ""); n != 0 {
			t.Fatalf("the plan reached the cloud: %d calls: %+v", n, sim.Requests())
		}
	})
	t.Run("zonal location", func(t *testing.T) {
		sim := startSim(t)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProviderFactories,
			Steps: []resource.TestStep{{
				Config:      providerConfig(sim, "") + strings.Replace(poolConfig("tune", "a3-highgpu-8g", inferenceWorkload+sizes), `location     = "europe-west4"`, `location     = "europe-west4-a"`, 1),
				ExpectError: acctest.ExpectErrorParts("location: the GPU of a3-highgpu-8g, nvidia-h100-80gb is not offered in europe-west4-a", "only in europe-west4-b, europe-west4-c of europe-west4"),
			}},
		})
		if n := requestCount(sim, ""); n != 0 {
			t.Fatalf("the plan reached the cloud: %d calls: %+v", n, sim.Requests())
		}
	})
	// A multi-zonal cluster whose own zone offers the GPU and another zone does not: the plan
	// passes (it knows the location's zone only), the apply reads the cluster's zones and fails
	// before any change.
	t.Run("cluster zones", func(t *testing.T) {
		sim := startSimWith(t, func(s *cloudsim.Seed) {
			p := s.GCP.Projects[testProject]
			p.Clusters = append(p.Clusters, cloudsim.GKEClusterSeed{Name: testCluster, Location: testZoneB, Version: "1.31.5-gke.1023000", Locations: []string{testZoneB, testZoneA}})
		})
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProviderFactories,
			Steps: []resource.TestStep{{
				Config: providerConfig(sim, "") + strings.Replace(poolConfig("tune", "a3-highgpu-8g", inferenceWorkload+sizes), `location     = "europe-west4"`, `location     = "europe-west4-b"`, 1),
				ExpectError: acctest.ExpectErrorParts("GPU not offered in a zone of the pool",
					"node_locations are unset, so the pool's zones are cluster "+testCluster+"'s", "the GPU of a3-highgpu-8g, nvidia-h100-80gb is not offered in europe-west4-a", "only in europe-west4-b, europe-west4-c of europe-west4"),
			}},
		})
		if n := mutatingCalls(sim); n != 0 {
			t.Fatalf("the apply changed the cloud: %d calls: %+v", n, sim.Requests())
		}
	})
	// In the zone that offers it, the pool plans.
	t.Run("zone that offers it", func(t *testing.T) {
		sim := startSim(t)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProviderFactories,
			Steps: []resource.TestStep{{
				Config:             providerConfig(sim, "") + poolConfig("tune", "a2-ultragpu-1g", inferenceWorkload+sizes+`  node_locations = ["europe-west4-a"]`+"\n"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			}},
		})
	})
}
