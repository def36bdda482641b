package gke_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// Issue #40, item 8: training replicas over two a3-highgpu-8g nodes plan with a warning that the
// pool does not attach GPUDirect-TCPX's additional networks (not done: GKE GPUDirect); a replica on
// one node gets none.
func TestAccGKENodePool_gpuDirectWarnsReplicaOverNodes(t *testing.T) {
	sim := startSim(t)
	var diags acctest.ApplyDiagnostics
	pool := func(gpus int) string {
		return providerConfig(sim, "") + poolConfig("train", "a3-highgpu-8g", `
  node_locations = ["europe-west4-b"]
  workload {
    kind             = "training"
    environment      = "staging"
    gpu_memory_gib   = 600
    gpus_per_replica = `+map[int]string{8: "8", 16: "16"}[gpus]+`
  }
  scaling {
    min_size = 0
    max_size = 2
  }
  capacity {
    spot_percentage = 100
  }
`)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		Steps: []resource.TestStep{
			{Config: pool(16), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{planWarning{&diags, []string{
					"Replicas span nodes without GPUDirect networks", "gpus_per_replica = 16 spans 2 a3-highgpu-8g nodes", "GPUDirect-TCPX with 4 additional GPU networks"}}}}},
			{PreConfig: diags.Reset, Config: pool(8), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{noPlanWarning{&diags, "Replicas span nodes"}}}},
		},
	})
}

// noPlanWarning checks that no plan warned with part.
type noPlanWarning struct {
	diags *acctest.ApplyDiagnostics
	part  string
}

func (c noPlanWarning) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = c.diags.ExpectNoPlanWarning(c.part)
}
