package gke_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Policy at plan time, as on EKS: a deny fails the plan at the attribute (no cloud call), a waiver
// turns it into a warning, enforcement = "warn" downgrades it.
func TestAccGKENodePool_policy(t *testing.T) {
	sim := startSim(t)
	shared := acctest.SharingInProduction + acctest.Scaling(0, 2, 4)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: acctest.PolicySteps(t, addr, func() int { return requestCount(sim, "") }, func(providerExtra, poolExtra string) string {
			return providerConfig(sim, providerExtra) + poolConfig("infer", "g2-standard-8", shared+poolExtra)
		}),
	})
}

const parityData = `
gpufleet:
  clients:
    acme:
      cost_center: cc-1001
      allowed_regions: ["europe-*"]
      isolation: dedicated
      monthly_budget_usd: 1000000
    globex:
      cost_center: cc-2002
      allowed_regions: ["us-*"]
      isolation: shared
      monthly_budget_usd: 1000000
`

// parityPools cover deny and warn rules of every area on GKE, each written once as a pool.Spec.
func parityPools() []pool.Spec {
	base := func(name, client, machineType string, w pool.Workload) pool.Spec {
		return pool.Spec{
			Cloud: catalog.GCP, ResourceType: "gpufleet_gke_node_pool", Name: name, Region: testLocation, Zones: []string{testZoneA},
			Client: client, Workload: w, MachineType: machineType, Scaling: pool.Sizes{Min: 1, Max: 3, Desired: 2},
		}
	}
	train := base("train", "acme", "g2-standard-8", pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, GPUMemoryGiB: 20, Interruptible: true})
	serve := base("serve", "acme", "a3-highgpu-8g", // sold on demand (a3-highgpu-1g is Spot or flex-start only)
		pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16})
	serve.Zones = []string{testZoneB} // europe-west4's H100 zones are b and c (catalog.GKEAcceleratorZones)
	serve.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 2}
	spot := base("spotserve", "acme", "g2-standard-8", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16})
	spot.Capacity = pool.Capacity{SpotPercentage: 50}
	us := base("us", "globex", "g2-standard-8", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 16})
	stranger := base("stranger", "initech", "g2-standard-8", pool.Workload{Kind: pool.KindBatch, Environment: pool.EnvStaging, GPUMemoryGiB: 16})
	waived := base("waived", "acme", "g2-standard-8", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16})
	waived.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingMPS, Replicas: 2}
	waived.Waivers = map[string]string{"GF-ISO-003": "canary until 2026-12-31, owner ml-platform"}
	return []pool.Spec{train, serve, spot, us, stranger, waived}
}

func hclFor(s pool.Spec) string {
	body := acctest.SharedBlocks(s) + fmt.Sprintf("  node_locations = [%q]\n", s.Zones[0])
	out := poolConfig(s.Name, s.MachineType, body)
	return strings.Replace(out, `client       = "acme"`, fmt.Sprintf("client       = %q", s.Client), 1)
}

// The provider and conftest reach the same findings for the same GKE pools.
func TestAccGKENodePool_policyParity(t *testing.T) {
	sim := startSim(t)
	acctest.PolicyParityTest(t, checkNothingLeft(t, sim), func(extra string) string { return providerConfig(sim, extra) },
		parityData, map[string]string{"managed-by": "terraform"}, parityPools(), hclFor, []acctest.Finding{
			{Pool: "train", Rule: "GF-COST-002", Severity: "warn", Attribute: "capacity.spot_percentage"},
			{Pool: "serve", Rule: "GF-ISO-003", Severity: "deny"},
			{Pool: "spotserve", Rule: "GF-COST-001", Severity: "deny"},
			{Pool: "us", Rule: "GF-DR-001", Severity: "deny"},
			{Pool: "stranger", Rule: "GF-TAG-001", Severity: "deny"},
			{Pool: "waived", Rule: "GF-ISO-003", Severity: "warn"},
		})
}
