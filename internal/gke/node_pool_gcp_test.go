package gke_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// Real-GKE acceptance tests. They create real GPU node pools and cost money, so they run only when
// GPUFLEET_GCP_ACCEPTANCE=1 and the cluster is named (see README, "Real-cloud tests").
type gcpTarget struct{ project, location, cluster, zone, machineType string }

func gcpTargetFromEnv(t *testing.T) gcpTarget {
	t.Helper()
	if os.Getenv("GPUFLEET_GCP_ACCEPTANCE") != "1" {
		t.Skip("real-GKE test: set GPUFLEET_GCP_ACCEPTANCE=1 and GPUFLEET_GCP_* (see README)")
	}
	target := gcpTarget{
		project:     os.Getenv("GPUFLEET_GCP_PROJECT"),
		location:    os.Getenv("GPUFLEET_GCP_LOCATION"),
		cluster:     os.Getenv("GPUFLEET_GCP_CLUSTER"),
		zone:        os.Getenv("GPUFLEET_GCP_ZONE"),
		machineType: os.Getenv("GPUFLEET_GCP_MACHINE_TYPE"),
	}
	if target.machineType == "" {
		target.machineType = "g2-standard-4"
	}
	if target.project == "" || target.location == "" || target.cluster == "" || target.zone == "" {
		t.Fatal("GPUFLEET_GCP_ACCEPTANCE=1 needs GPUFLEET_GCP_PROJECT, GPUFLEET_GCP_LOCATION, GPUFLEET_GCP_CLUSTER and GPUFLEET_GCP_ZONE")
	}
	return target
}

func (g gcpTarget) config(pct int) string {
	return fmt.Sprintf(`
provider "gpufleet" {
  default_tags = { managed-by = "gpufleet-acceptance" }
  gcp {
    project = %q
  }
}

resource "gpufleet_gke_node_pool" "infer" {
  location       = %q
  cluster        = %q
  name           = "gpufleet-acc"
  client         = "acceptance"
  machine_type   = %q
  node_locations = [%q]
  workload {
    kind           = "training"
    environment    = "development"
    gpu_memory_gib = 16
    interruptible  = true
  }
  scaling {
    min_size = 0
    max_size = 2
  }
  capacity {
    spot_percentage = %d
  }
}
`, g.project, g.location, g.cluster, g.machineType, g.zone, pct)
}

func TestAccGKENodePoolGCP_basic(t *testing.T) {
	target := gcpTargetFromEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: acctest.RealCloudBasicSteps(addr, "node_pools", "RUNNING",
			target.project+"/"+target.location+"/"+target.cluster+"/gpufleet-acc", target.config),
	})
}

func TestAccGKENodePoolGCP_spotMix(t *testing.T) {
	target := gcpTargetFromEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps:                    acctest.RealCloudSpotMixSteps(addr, "node_pools", target.config),
	})
}
