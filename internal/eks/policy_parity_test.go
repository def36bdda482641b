package eks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

const parityData = `
gpufleet:
  clients:
    acme:
      cost_center: cc-1001
      allowed_regions: ["us-*"]
      isolation: dedicated
      monthly_budget_usd: 1000000
    globex:
      cost_center: cc-2002
      allowed_regions: ["eu-*"]
      isolation: shared
      monthly_budget_usd: 1000000
`

// parityPools cover deny and warn rules of every area, each written once as a pool.Spec: the test
// renders the HCL from it and builds the provider's policy document from it.
func parityPools() []pool.Spec {
	base := func(name, client, instanceType string, w pool.Workload) pool.Spec {
		return pool.Spec{
			Cloud: catalog.AWS, ResourceType: "gpufleet_eks_node_pool", Name: name, Region: testRegion, Client: client,
			Workload: w, InstanceTypes: []string{instanceType}, Scaling: pool.Sizes{Min: 1, Max: 3, Desired: 2},
		}
	}
	// g5.2xlarge: a 20 GiB replica's weights (20 / 1.2 GiB) and the EKS reserve do not fit the
	// 16 GiB of a g5.xlarge (GF-RS-001 since issue #22).
	train := base("train", "acme", "g5.2xlarge", pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, GPUMemoryGiB: 20, Interruptible: true})
	serve := base("serve", "acme", "p5.4xlarge", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16})
	serve.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 2}
	spot := base("spotserve", "acme", "g6.xlarge", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16})
	spot.Capacity = pool.Capacity{SpotPercentage: 50}
	eu := base("eu", "globex", "g6.xlarge", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 16})
	stranger := base("stranger", "initech", "g6.xlarge", pool.Workload{Kind: pool.KindBatch, Environment: pool.EnvStaging, GPUMemoryGiB: 16})
	waived := base("waived", "acme", "g6.xlarge", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16})
	waived.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingMPS, Replicas: 2}
	waived.Waivers = map[string]string{"GF-ISO-003": "canary until 2026-12-31, owner ml-platform"}
	// The fit at plan time (issue #22): bf16 on a T4, and two production replicas on one node.
	bf16 := base("bf16", "acme", "g4dn.2xlarge", pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 14, Precision: "bf16"})
	onenode := base("onenode", "acme", "g6.2xlarge", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16, Replicas: 2})
	onenode.Scaling = pool.Sizes{Min: 1, Max: 1, Desired: 1}
	return []pool.Spec{train, serve, spot, eu, stranger, waived, bf16, onenode}
}

func hclFor(s pool.Spec) string {
	out := poolConfig(s.Name, fmt.Sprintf("[%q]", s.InstanceTypes[0]), acctest.SharedBlocks(s))
	return strings.Replace(out, `client         = "acme"`, fmt.Sprintf("client         = %q", s.Client), 1)
}

// The provider and conftest reach the same findings for the same pools.
func TestAccEKSNodePool_policyParity(t *testing.T) {
	sim := startSim(t)
	acctest.PolicyParityTest(t, checkNothingLeft(t, sim), func(extra string) string { return providerConfig(sim, extra) },
		parityData, map[string]string{"ManagedBy": "terraform"}, parityPools(), hclFor, []acctest.Finding{
			{Pool: "train", Rule: "GF-COST-002", Severity: "warn", Attribute: "capacity.spot_percentage"},
			{Pool: "serve", Rule: "GF-ISO-003", Severity: "deny"},
			{Pool: "spotserve", Rule: "GF-COST-001", Severity: "deny"},
			{Pool: "eu", Rule: "GF-DR-001", Severity: "deny"},
			{Pool: "stranger", Rule: "GF-TAG-001", Severity: "deny"},
			{Pool: "waived", Rule: "GF-ISO-003", Severity: "warn"},
			{Pool: "bf16", Rule: "GF-RS-004", Severity: "deny", Attribute: "instance_types"},
			{Pool: "onenode", Rule: "GF-RS-005", Severity: "warn", Attribute: "scaling.max_size"},
		})
}
