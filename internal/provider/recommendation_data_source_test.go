package provider_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	ccrender "github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/eks"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/gke"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/recommend"
)

// recommendationProvider is an offline provider block: loopback endpoints on closed ports (a cloud
// call would fail), the example policy data, enforcement "deny" and a price override.
func recommendationProvider(t *testing.T, extra string) string {
	t.Helper()
	data, err := filepath.Abs("../../policies/examples/policy-data.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`
provider "gpufleet" {
  aws {
    region                      = "us-east-1"
    skip_credentials_validation = true
    endpoints {
      eks         = "http://127.0.0.1:1"
      ec2         = "http://127.0.0.1:1"
      autoscaling = "http://127.0.0.1:1"
    }
  }
  gcp {
    endpoint         = "127.0.0.1:1"
    compute_endpoint = "http://127.0.0.1:1/compute/v1/"
    insecure         = true
  }
  policy {
    enforcement = "deny"
    data_files  = [%q]
  }
  %s
}
`, data, extra)
}

func TestRecommendResourceTypes(t *testing.T) {
	if recommend.ResourceTypes["aws"] != eks.ResourceType || recommend.ResourceTypes["gcp"] != gke.ResourceType {
		t.Fatalf("recommend.ResourceTypes %v disagree with the pool resources", recommend.ResourceTypes)
	}
	if recommend.AutoscalerResourceTypes["aws"] != karpenter.ResourceType || recommend.AutoscalerResourceTypes["gcp"] != ccrender.ResourceType {
		t.Fatalf("recommend.AutoscalerResourceTypes %v disagree with the autoscaler resources", recommend.AutoscalerResourceTypes)
	}
}

// The example, planned as written with the bundle enforcing "deny": the recommended EKS and GKE
// pools plan without a deny finding (a deny is a plan error), and carry what was recommended.
func TestAccRecommendationDataSource_examplePlansWithoutDeny(t *testing.T) {
	example, err := os.ReadFile("../../examples/data-sources/gpufleet_recommendation/data-source.tf")
	if err != nil {
		t.Fatal(err)
	}
	eksPool, gkePool := "gpufleet_eks_node_pool.serve", "gpufleet_gke_node_pool.serve"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:             recommendationProvider(t, "") + string(example),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(eksPool, plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction(gkePool, plancheck.ResourceActionCreate),
				// globex requires MIG isolation: 15.65 GiB per replica (7B fp16), 8 replicas.
				plancheck.ExpectKnownValue(eksPool, tfjsonpath.New("instance_types").AtSliceIndex(0), knownvalue.StringExact("p5.4xlarge")),
				plancheck.ExpectKnownValue(eksPool, tfjsonpath.New("gpu").AtMapKey("mig").AtMapKey("profile"), knownvalue.StringExact("1g.20gb")),
				plancheck.ExpectKnownValue(eksPool, tfjsonpath.New("workload").AtMapKey("gpu_memory_gib"), knownvalue.Float64Exact(15.65)),
				plancheck.ExpectKnownValue(eksPool, tfjsonpath.New("scaling").AtMapKey("desired_size"), knownvalue.Int64Exact(2)),
				// GKE: production replicas spread over the three zones of a regional pool, one node in
				// each (GKE sizes pools per zone, issue #21): three a2-ultragpu-1g hold the 8 replicas in
				// three 2g.20gb slices per A100 80GB (one a2-highgpu-4g held them all before issue #22,
				// two a2-highgpu-2g in one zone before the answer was sized per zone). Issue #40 item 10:
				// the answer names its zones, and us-central1 offers the A100 80GB of the a2-ultragpu-1g
				// answer before in two zones only (a, c): three a2-highgpu-2g (A100 40GB, a to f) in
				// 3g.20gb slices, in us-central1-a, -b and -c.
				plancheck.ExpectKnownValue(gkePool, tfjsonpath.New("machine_type"), knownvalue.StringExact("a2-highgpu-2g")),
				plancheck.ExpectKnownValue(gkePool, tfjsonpath.New("scaling").AtMapKey("desired_size"), knownvalue.Int64Exact(3)),
				plancheck.ExpectKnownValue(gkePool, tfjsonpath.New("gpu").AtMapKey("mig").AtMapKey("profile"), knownvalue.StringExact("3g.20gb")),
				plancheck.ExpectKnownValue(gkePool, tfjsonpath.New("node_locations"), knownvalue.SetExact([]knownvalue.Check{
					knownvalue.StringExact("us-central1-a"), knownvalue.StringExact("us-central1-b"), knownvalue.StringExact("us-central1-c")})),
				plancheck.ExpectKnownValue(gkePool, tfjsonpath.New("location"), knownvalue.StringExact("us-central1")),
			}},
		}},
	})
}

// A development workload given in GiB, on AWS only, at a negotiated rate: shared L4s, priced at the
// override, the gcp answer null, and the naive choice a whole training-class GPU on-demand. Six
// replicas' weights (3.5 / 1.2 GiB each) and the EKS reserve need 19.05 GiB of host memory: a
// g6.2xlarge (32 GiB), not the g6.xlarge (16 GiB) of the answer before issue #22.
func TestAccRecommendationDataSource_basic(t *testing.T) {
	ds := "data.gpufleet_recommendation.dev"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: recommendationProvider(t, `pricing {
    overrides = { "g6.2xlarge" = { on_demand_hourly_usd = 0.5, spot_hourly_usd = 0.2 } }
  }`) + `
data "gpufleet_recommendation" "dev" {
  workload {
    kind           = "development"
    environment    = "development"
    gpu_memory_gib = 3.5
  }
  replicas = 6
  clouds   = ["aws"]
  regions  = ["us-east-1"]
  client   = "initech"
  # a development pool used 40 % of the month
  hours_per_month = 292
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("required_gpu_memory_gib"), knownvalue.Float64Exact(3.5)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp"), knownvalue.Null()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("node_type"), knownvalue.StringExact("g6.2xlarge")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("node_memory_gib"), knownvalue.Float64Exact(32)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("vcpus_per_node"), knownvalue.Int64Exact(8)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("gpus_per_replica"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("accelerator"), knownvalue.Null()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("region"), knownvalue.StringExact("us-east-1")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("gpu_model"), knownvalue.StringExact("L4")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("mig_profile"), knownvalue.Null()),
				// six 3.5 GiB replicas time-share one L4 (22.35 GiB usable)
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("sharing_replicas"), knownvalue.Int64Exact(6)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("node_count"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("spot_percentage"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("on_demand_base"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("gke_capacity_ladder"), knownvalue.Null()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("hourly_usd"), knownvalue.Float64Exact(0.5)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("monthly_usd"), knownvalue.Float64Exact(146)), // $0.50/h x 292 h
				// g6.xlarge's on-demand override is the rate paid: no commitment on top
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("commitment"), knownvalue.Null()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("committed_monthly_usd"), knownvalue.Null()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("naive_node_type"), knownvalue.StringExact("p3.2xlarge")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("runners_up").AtSliceIndex(0).AtMapKey("reason"), knownvalue.StringRegexp(regexp.MustCompile(`^costs \$[0-9.]+/month more than g6.2xlarge`))),
			},
		}},
	})
}

// Bad input fails at plan, naming the argument, with the nearest valid values; the provider's
// endpoints are closed ports, so a cloud call would fail differently.
func TestAccRecommendationDataSource_badInput(t *testing.T) {
	workload := func(body string) string {
		return "workload {\n kind = \"inference\"\n environment = \"staging\"\n" + body + "\n}\n"
	}
	mem := workload("gpu_memory_gib = 8")
	cases := map[string]struct {
		body string
		want []string
	}{
		"unknown precision":     {workload("model_parameters_billion = 7\n precision = \"fp17\"") + `clouds = ["aws"]` + "\n" + `regions = ["*"]`, []string{"workload.precision", `"fp17"`, "nearest first: fp16"}},
		"unknown method":        {workload("model_parameters_billion = 7\n precision = \"fp16\"\n method = \"qlroa\"") + `clouds = ["aws"]` + "\n" + `regions = ["*"]`, []string{"workload.method", "nearest first: qlora"}},
		"unknown kind":          {"workload {\n kind = \"serving\"\n environment = \"staging\"\n gpu_memory_gib = 8\n}\n" + `clouds = ["aws"]` + "\n" + `regions = ["*"]`, []string{"workload.kind", `"serving"`, "nearest first"}},
		"zero parameters":       {workload("model_parameters_billion = 0\n precision = \"fp16\"") + `clouds = ["aws"]` + "\n" + `regions = ["*"]`, []string{"model_parameters_billion", "at least"}},
		"negative memory":       {workload("gpu_memory_gib = -1") + `clouds = ["aws"]` + "\n" + `regions = ["*"]`, []string{"gpu_memory_gib", "at least"}},
		"memory and model":      {workload("gpu_memory_gib = 8\n model_parameters_billion = 7\n precision = \"fp16\"") + `clouds = ["aws"]` + "\n" + `regions = ["*"]`, []string{"gpu_memory_gib", "model_parameters_billion"}},
		"no memory":             {workload("") + `clouds = ["aws"]` + "\n" + `regions = ["*"]`, []string{"gpu_memory_gib", "model_parameters_billion"}},
		"unknown cloud":         {mem + `clouds = ["azure"]` + "\n" + `regions = ["*"]`, []string{"clouds", `"azure"`, "aws, gcp"}},
		"empty regions":         {mem + `clouds = ["aws"]` + "\n" + `regions = []`, []string{"regions", "at least 1"}},
		"glob matching nothing": {mem + `clouds = ["gcp"]` + "\n" + `regions = ["eu-*"]`, []string{`regions\[0\]`, `"eu-\*" matches no region`, "europe-"}},
		"unknown client":        {mem + `clouds = ["aws"]` + "\n" + `regions = ["*"]` + "\n" + `client = "acm"`, []string{"client", `"acm" is not in the policy data`, "nearest first: acme"}},
		"client's regions":      {mem + `clouds = ["aws"]` + "\n" + `regions = ["us-*"]` + "\n" + `client = "acme"`, []string{"client", `"acme" may only run in eu-\*`}},
		"impossible demand":     {workload("gpu_memory_gib = 4000") + `clouds = ["aws", "gcp"]` + "\n" + `regions = ["us-*"]`, []string{"workload.gpu_memory_gib", "nothing fits", "most GPU memory on one node"}},
		"zero gpus_per_replica": {workload("gpu_memory_gib = 8\n gpus_per_replica = 0") + `clouds = ["aws"]` + "\n" + `regions = ["*"]`, []string{"workload.gpus_per_replica", "at least 1"}},
		"gpus_per_replica above the largest node": {workload("gpu_memory_gib = 8\n gpus_per_replica = 32") + `clouds = ["aws", "gcp"]` + "\n" + `regions = ["us-*"]`,
			[]string{"workload.gpus_per_replica", "largest node of aws and gcp has 16 GPUs", "a2-megagpu-16g", "got 32"}},
		"unknown gpu model": {mem + `clouds = ["aws"]` + "\n" + `regions = ["*"]` + "\n" + `gpu_models = ["L4", "H100"]`, []string{`gpu_models\[1\]`, `"H100"`, "nearest first: H100-80GB"}},
		"headroom above 50": {mem + `clouds = ["aws"]` + "\n" + `regions = ["*"]` + "\n" + `memory_headroom_percent = 60`, []string{"memory_headroom_percent", "between 0.* and 50"}},
		"residency on one cloud, fit on none": {workload("gpu_memory_gib = 8\n precision = \"fp8\"") + `clouds = ["aws", "gcp"]` + "\n" + `regions = ["us-*", "europe-west4"]` + "\n" + `client = "acme"` + "\n" + `gpu_models = ["T4"]`,
			[]string{"data residency excludes every aws region asked", "precision excluded", "does not compute in fp8"}},
		"price cap":           {mem + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]` + "\n" + `max_hourly_usd = 0.01`, []string{"max_hourly_usd", "over max_hourly_usd"}},
		"rate on training":    {"workload {\n kind = \"training\"\n environment = \"staging\"\n gpu_memory_gib = 8\n tokens_per_second = 20\n}\n" + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]`, []string{"workload.tokens_per_second", "inference"}},
		"rate no GPU reaches": {workload("model_parameters_billion = 7\n precision = \"fp16\"\n tokens_per_second = 5000") + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]`, []string{"workload.tokens_per_second", "decodes 5000 tokens/s per replica", "the fastest that holds"}},
		"five zones":          {mem + `clouds = ["gcp"]` + "\n" + `regions = ["us-central1"]` + "\n" + `gke_zones = 5`, []string{"gke_zones", "between 1 and 4"}},
		"hours above a month": {mem + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]` + "\n" + `hours_per_month = 745`, []string{"hours_per_month", "between 1.* and 744"}},
		"no hours":            {mem + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]` + "\n" + `hours_per_month = 0`, []string{"hours_per_month", "between 1.* and 744"}},
		// Issue #40, item 1: the KV cache.
		"context on training":       {"workload {\n kind = \"training\"\n environment = \"staging\"\n model_parameters_billion = 8\n precision = \"bf16\"\n context_length = 4096\n}\n" + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]`, []string{"workload.context_length", "training workload has none"}},
		"context beyond the window": {workload("model = \"mistral-7b-v0.3\"\n precision = \"bf16\"\n context_length = 65536") + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]`, []string{"workload.context_length", "at most 32768"}},
		"unknown model":             {workload("model = \"llama-3-8b\"\n precision = \"bf16\"") + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]`, []string{"workload.model", "nearest first: llama-3.1-8b"}},
		"sequences without context": {workload("model = \"llama-3.1-8b\"\n precision = \"bf16\"\n concurrent_sequences = 8") + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]`, []string{"workload.context_length", "must be specified", "workload.concurrent_sequences"}},
		"context and kv cache":      {workload("model = \"llama-3.1-8b\"\n precision = \"bf16\"\n context_length = 8192\n kv_cache_gib = 4") + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]`, []string{"kv_cache_gib", "context_length"}},
		// Issue #40, item 7: the capacity the team holds.
		"reservation zone without its GPU": {mem + `clouds = ["gcp"]` + "\n" + `regions = ["us-central1"]` + "\n" + held(`id = "b200"`, `zone = "us-central1-a"`, `node_type = "a4-highgpu-8g"`, `nodes = 1`),
			[]string{`capacity.reservation\[0\].zone`, "us-central1-a has no a4-highgpu-8g", "only in us-central1-b"}},
		"reservation of no nodes": {mem + `clouds = ["gcp"]` + "\n" + `regions = ["us-central1"]` + "\n" + held(`id = "b200"`, `zone = "us-central1-b"`, `node_type = "a4-highgpu-8g"`, `nodes = 0`),
			[]string{`capacity.reservation\[0\].nodes`, "at least 1"}},
		"reservation of an unknown type": {mem + `clouds = ["gcp"]` + "\n" + `regions = ["us-central1"]` + "\n" + held(`id = "b200"`, `zone = "us-central1-b"`, `node_type = "a4-highgpu-4g"`, `nodes = 1`),
			[]string{`capacity.reservation\[0\].node_type`, `unknown node type "a4-highgpu-4g"`, "nearest:", "a3-highgpu-4g, a4-highgpu-8g"}},
		"capacity block without its price": {mem + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]` + "\n" + held(`id = "cr-0fedcba9876543210"`, `type = "capacity-block"`, `zone = "us-east-1a"`, `node_type = "p5.48xlarge"`, `nodes = 2`),
			[]string{`capacity.reservation\[0\].hourly_price_usd`, "a capacity block is prepaid"}},
		"reservation outside the regions": {mem + `clouds = ["gcp"]` + "\n" + `regions = ["europe-*"]` + "\n" + held(`id = "b200"`, `zone = "us-central1-b"`, `node_type = "a4-highgpu-8g"`, `nodes = 1`),
			[]string{`capacity.reservation\[0\].zone`, "us-central1-b is in us-central1, which regions europe-\\*", "could not be used"}},
		"flex_start without gcp": {mem + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]` + "\n" + "capacity {\n flex_start = true\n}\n",
			[]string{`capacity.flex_start`, "flex-start VMs are GKE's"}},
		"reservation on a cloud not asked": {mem + `clouds = ["aws"]` + "\n" + `regions = ["us-*"]` + "\n" + held(`id = "b200"`, `zone = "us-central1-b"`, `node_type = "a4-highgpu-8g"`, `nodes = 1`),
			[]string{`capacity.reservation\[0\].node_type`, "a4-highgpu-8g is a gcp node type, and clouds is aws"}},
		"reservation in both forms": {mem + `clouds = ["gcp"]` + "\n" + `regions = ["us-central1"]` + "\n" + held(`id = "b200"`, `zone = "us-central1-b"`, `node_type = "a4-highgpu-8g"`, `nodes = 1`, `gpu = "B200"`, `gpus = 8`),
			[]string{`capacity.reservation\[0\].gpus`, "given in one form"}},
		"reservation in GPUs of several shapes": {mem + `clouds = ["gcp"]` + "\n" + `regions = ["us-central1"]` + "\n" + held(`id = "h100s"`, `zone = "us-central1-a"`, `gpu = "H100-80GB"`, `gpus = 16`),
			[]string{`capacity.reservation\[0\].gpu`, "may be a reservation of a3-highgpu-1g", "give node_type and nodes"}},
		"reservation in GPUs not whole nodes": {mem + `clouds = ["gcp"]` + "\n" + `regions = ["us-central1"]` + "\n" + held(`id = "b200"`, `zone = "us-central1-b"`, `gpu = "B200"`, `gpus = 12`),
			[]string{`capacity.reservation\[0\].gpus`, "12 GPUs of B200 are not a whole number of nodes", "a4-highgpu-8g \\(8 GPUs each\\)"}},
		"N1 reservation without its GPU": {mem + `clouds = ["gcp"]` + "\n" + `regions = ["us-central1"]` + "\n" + held(`id = "t4s"`, `zone = "us-central1-b"`, `node_type = "n1-standard-8"`, `nodes = 2`),
			[]string{`capacity.reservation\[0\].gpu`, "N1 machine type", "guestAccelerators"}},
		"N1 reservation of a count it does not take": {mem + `clouds = ["gcp"]` + "\n" + `regions = ["us-central1"]` + "\n" + held(`id = "t4s"`, `zone = "us-central1-b"`, `node_type = "n1-standard-8"`, `nodes = 2`, `gpu = "T4"`, `gpus_per_node = 3`),
			[]string{`capacity.reservation\[0\].gpus_per_node`, "takes T4 in counts 1, 2, 4 per VM, not 3"}},
		"capacity block ending at another hour": {mem + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]` + "\n" + held(`id = "cr-0fedcba9876543210"`, `type = "capacity-block"`, `zone = "us-east-1a"`, `node_type = "p5.48xlarge"`, `nodes = 2`, `hourly_price_usd = 31.464`, `start = "2099-01-05T11:30:00Z"`, `end = "2099-01-12T12:00:00Z"`),
			[]string{`capacity.reservation\[0\].end`, "every EC2 capacity block ends at 11:30 UTC"}},
		"capacity block with one date": {mem + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]` + "\n" + held(`id = "cr-0fedcba9876543210"`, `type = "capacity-block"`, `zone = "us-east-1a"`, `node_type = "p5.48xlarge"`, `nodes = 2`, `hourly_price_usd = 31.464`, `start = "2099-01-05T11:30:00Z"`),
			[]string{`capacity.reservation\[0\].end`, "dates go together"}},
		"overflow without a reservation": {mem + `clouds = ["aws"]` + "\n" + `regions = ["us-east-1"]` + "\n" + "capacity {\n overflow_to_on_demand = true\n}\n",
			[]string{`capacity.overflow_to_on_demand`, "overflow applies to a capacity reservation"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      recommendationProvider(t, "") + "data \"gpufleet_recommendation\" \"x\" {\n" + tc.body + "\n}\n",
					ExpectError: acctest.ExpectErrorParts(tc.want...),
				}},
			})
		})
	}
}

// held is a capacity block with one reservation of these attributes.
func held(attributes ...string) string {
	out := "capacity {\n reservation {\n"
	for _, a := range attributes {
		out += "  " + a + "\n"
	}
	return out + " }\n}\n"
}

// No provider configuration and no credentials at all: the embedded bundle still judges the
// candidates, and nothing calls a cloud.
func TestAccRecommendationDataSource_noProviderConfig(t *testing.T) {
	ds := "data.gpufleet_recommendation.train"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpufleet_recommendation" "train" {
  workload {
    kind                     = "training"
    environment              = "staging"
    interruptible            = true
    model_parameters_billion = 13
    precision                = "int4"
    method                   = "qlora"
  }
  clouds  = ["gcp"]
  regions = ["us-central1"]
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws"), knownvalue.Null()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("spot_percentage"), knownvalue.Int64Exact(100)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("on_demand_base"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("node_type"), knownvalue.StringExact("n1-standard-4")),
				// interruptible training: the cheapest rung first; no flex-start rung on N1
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("gke_capacity_ladder"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("spot"), knownvalue.StringExact("on_demand"),
				})),
			},
		}},
	})
}

// GKE sizes node pools per zone (issue #21): production inference that spreads its replicas is
// answered for the three zones of a regional pool, node_count a multiple of them and priced for
// all; gke_zones = 1 answers for one pinned zone.
func TestAccRecommendationDataSource_gkeZones(t *testing.T) {
	ds := "data.gpufleet_recommendation.serve"
	config := func(zones string) string {
		return `
data "gpufleet_recommendation" "serve" {
  workload {
    kind           = "inference"
    environment    = "production"
    gpu_memory_gib = 15
  }
  replicas = 2
  clouds   = ["gcp"]
  regions  = ["us-central1"]
` + zones + `
}
`
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config(""),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("zones"), knownvalue.Int64Exact(3)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("node_count"), knownvalue.Int64Exact(3)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("nodes_per_zone"), knownvalue.Int64Exact(1)),
			},
		}, {
			Config: config("gke_zones = 1"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("zones"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("node_count"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("nodes_per_zone"), knownvalue.Int64Exact(2)),
			},
		}},
	})
}

// Issue #40, item 1: a 128k-context Llama 3.1 8B replica needs its 16 GiB KV cache on top of the
// weights, so the answer is not an L4; the KV share is an output to plug into the pool.
func TestAccRecommendationDataSource_kvCache128kContext(t *testing.T) {
	ds := "data.gpufleet_recommendation.long"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: recommendationProvider(t, "") + `
data "gpufleet_recommendation" "long" {
  workload {
    kind           = "inference"
    environment    = "production"
    model          = "llama-3.1-8b"
    precision      = "bf16"
    context_length = 131072
  }
  clouds  = ["aws"]
  regions = ["us-east-1"]
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("required_gpu_memory_gib"), knownvalue.Float64Exact(33.95)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("required_kv_cache_gib"), knownvalue.Float64Exact(16)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("node_type"), knownvalue.StringExact("g6e.xlarge")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("gpu_model"), knownvalue.StringExact("L40S")),
			},
		}},
	})
}

// Issue #40, item 8: 70B trained in full over 16 GPUs spans two nodes, answered only with shapes
// whose GPUs reach each other across nodes, and the answer says over which network.
func TestAccRecommendationDataSource_multiNodeTraining(t *testing.T) {
	ds := "data.gpufleet_recommendation.train"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: recommendationProvider(t, "") + `
data "gpufleet_recommendation" "train" {
  workload {
    kind                     = "training"
    environment              = "staging"
    model_parameters_billion = 70
    precision                = "bf16"
    gpus_per_replica         = 16
  }
  clouds  = ["aws", "gcp"]
  regions = ["us-east-1", "us-central1"]
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("node_type"), knownvalue.StringExact("p4de.24xlarge")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("nodes_per_replica"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("inter_node_network"), knownvalue.StringExact("efa")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("gpus_per_replica"), knownvalue.Int64Exact(16)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("node_count"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("node_type"), knownvalue.StringExact("a3-highgpu-8g")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("inter_node_network"), knownvalue.StringExact("gpudirect-tcpx")),
			},
		}},
	})
}
