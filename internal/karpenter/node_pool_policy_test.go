package karpenter_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter"
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
			Cloud: catalog.AWS, ResourceType: karpenter.ResourceType, Name: name, Region: testRegion, Client: client,
			Workload: w, InstanceTypes: []string{instanceType}, Scaling: pool.Sizes{Min: 1, Max: 3, Desired: 1},
			AutoscalerOwnsSize: true, Karpenter: true,
		}
	}
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
	bf16 := base("bf16", "acme", "g4dn.2xlarge", pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 14, Precision: "bf16"})
	onenode := base("onenode", "acme", "g6.2xlarge", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16, Replicas: 2})
	onenode.Scaling = pool.Sizes{Min: 1, Max: 1, Desired: 1}
	return []pool.Spec{train, serve, spot, eu, stranger, waived, bf16, onenode}
}

// hclFor renders a parity pool: the shared blocks without desired_size, which Karpenter has not.
func hclFor(s pool.Spec) string {
	body := regexp.MustCompile(`(?m)^\s*desired_size = \d+\n`).ReplaceAllString(acctest.SharedBlocks(s), "")
	out := poolHCL(s.Name, fmt.Sprintf("[%q]", s.InstanceTypes[0]), body)
	return strings.Replace(out, `client       = "acme"`, fmt.Sprintf("client       = %q", s.Client), 1)
}

// The provider and conftest reach the same findings for the same pools, conftest reading the
// provider's policy_document and building the document from the plan's attributes.
func TestAccKarpenterNodePool_policyParity(t *testing.T) {
	e := newEnv(t)
	var names []string
	for _, s := range parityPools() {
		names = append(names, s.Name)
	}
	acctest.PolicyParityTest(t, e.gone(names...), e.provider, parityData, map[string]string{"ManagedBy": "terraform"}, parityPools(), hclFor, []acctest.Finding{
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

// Policy at plan: a deny fails the plan at the attribute with no request to the cluster or AWS; a
// waiver makes it a warning; enforcement = "warn" lets the pool through.
func TestAccKarpenterNodePool_policy(t *testing.T) {
	e := newEnv(t)
	addr := "gpufleet_karpenter_node_pool.shared"
	before := e.requests(t)
	config := func(providerExtra, poolExtra string) string {
		return e.provider(providerExtra) + poolHCL("shared", `["g6.xlarge"]`, `  workload {
    kind           = "inference"
    environment    = "production"
    gpu_memory_gib = 4
  }
  gpu {
    sharing {
      strategy = "time-slicing"
      replicas = 4
    }
  }
`+scaling(0, 2)+poolExtra)
	}
	calls := func() int { return e.requests(t) - before + len(e.sim.Requests()) }
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("shared"),
		Steps:                    acctest.PolicySteps(t, addr, calls, config),
	})
}
