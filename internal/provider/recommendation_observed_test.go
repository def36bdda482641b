package provider_test

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics/metricstest"
)

// acmeTrainMonthly is what seed 002's pool costs now: twenty p5.4xlarge in us-east-1, 730 h.
func acmeTrainMonthly(t *testing.T) float64 {
	t.Helper()
	return p5Monthly(t, 20)
}

// p5Monthly is n p5.4xlarge (one H100 each) in us-east-1 on demand, 730 h.
func p5Monthly(t *testing.T, n int) float64 {
	t.Helper()
	node, _ := catalog.AWSInstanceType("p5.4xlarge")
	p, ok := node.Price("us-east-1")
	if !ok {
		t.Fatal("no p5.4xlarge price in us-east-1")
	}
	return math.Round(float64(n)*p.OnDemandUSD*730*100) / 100
}

// Seed 002 through terraform, observed as literal values: 20 H100s at 18 % become 2g.20gb slices
// on 7 H100s (7 x p5.4xlarge), 51.4 % busy on average, with the pool's cost now and the saving.
func TestAccRecommendationDataSource_observedLiterals(t *testing.T) {
	ds := "data.gpufleet_recommendation.acme"
	now, after := acmeTrainMonthly(t), p5Monthly(t, 7)
	check := func(p tfjsonpath.Path, c knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(ds, p, c)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: recommendationProvider(t, "") + `
data "gpufleet_recommendation" "acme" {
  workload {
    kind        = "training"
    environment = "production"
  }
  clouds  = ["aws"]
  regions = ["us-east-1"]
  observed = {
    node_type                = "p5.4xlarge"
    region                   = "us-east-1"
    gpus_avg                 = 20
    gpus_max                 = 20
    utilization_p95_percent  = 18
    utilization_mean_percent = 18
    memory_used_p99_gib      = 18
    memory_used_max_gib      = 18.5
  }
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				check(tfjsonpath.New("required_gpu_memory_gib"), knownvalue.Float64Exact(18)),
				check(tfjsonpath.New("observed_gpu_equivalents"), knownvalue.Float64Exact(3.6)),
				check(tfjsonpath.New("observed_monthly_usd"), knownvalue.Float64Exact(now)),
				check(tfjsonpath.New("aws").AtMapKey("node_type"), knownvalue.StringExact("p5.4xlarge")),
				check(tfjsonpath.New("aws").AtMapKey("mig_profile"), knownvalue.StringExact("2g.20gb")),
				check(tfjsonpath.New("aws").AtMapKey("node_count"), knownvalue.Int64Exact(7)),
				check(tfjsonpath.New("aws").AtMapKey("monthly_usd"), knownvalue.Float64Exact(after)),
				check(tfjsonpath.New("aws").AtMapKey("saving_monthly_usd"), knownvalue.Float64Exact(math.Round((now-after)*100)/100)),
				check(tfjsonpath.New("aws").AtMapKey("observed_utilization_mean_percent"), knownvalue.Float64Exact(51.4)), // 3.6 / 7
			},
		}, {
			// Without observed the same provider answers a declared need, and the observed outputs are null.
			Config: recommendationProvider(t, "") + `
data "gpufleet_recommendation" "acme" {
  workload {
    kind           = "training"
    environment    = "production"
    gpu_memory_gib = 18
  }
  replicas = 20
  clouds   = ["aws"]
  regions  = ["us-east-1"]
  gpu_models = ["H100-80GB"]
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				check(tfjsonpath.New("observed_monthly_usd"), knownvalue.Null()),
				check(tfjsonpath.New("observed_gpu_equivalents"), knownvalue.Null()),
				check(tfjsonpath.New("aws").AtMapKey("saving_monthly_usd"), knownvalue.Null()),
				// memory alone: 1g.20gb, four to a GPU, which cannot carry 18 % of an H100
				check(tfjsonpath.New("aws").AtMapKey("mig_profile"), knownvalue.StringExact("1g.20gb")),
			},
		}},
	})
}

// Bad observations fail at plan, naming the argument.
func TestAccRecommendationDataSource_observedBadInput(t *testing.T) {
	observed := func(fields string) string {
		return `workload {
  kind        = "training"
  environment = "production"
}
clouds  = ["aws"]
regions = ["us-east-1"]
observed = {
  node_type = "p5.4xlarge"
` + fields + "\n}\n"
	}
	cases := map[string]struct {
		body string
		want []string
	}{
		"negative utilisation": {observed(`region = "us-east-1"
gpus_max = 4
utilization_p95_percent = -5
memory_used_p99_gib = 10`), []string{"observed.utilization_p95_percent", "between 0.* and 100"}},
		"utilisation over 100": {observed(`region = "us-east-1"
gpus_max = 4
utilization_p95_percent = 50
utilization_mean_percent = 140
memory_used_p99_gib = 10`), []string{"observed.utilization_mean_percent", "between 0.* and 100"}},
		"memory above the GPU": {observed(`region = "us-east-1"
gpus_max = 4
utilization_p95_percent = 50
memory_used_p99_gib = 96`), []string{"observed.memory_used_p99_gib", "96 GiB is more than the 80 GiB of a H100-80GB"}},
		"memory above the slice": {observed(`region = "us-east-1"
mig_profile = "1g.10gb"
gpus_max = 14
utilization_p95_percent = 50
memory_used_p99_gib = 12`), []string{"observed.memory_used_p99_gib", "more than the 10 GiB of the MIG slice 1g.10gb"}},
		"no GPU count": {observed(`region = "us-east-1"
utilization_p95_percent = 50
memory_used_p99_gib = 10`), []string{"observed.gpus_avg", "gpus_max"}},
		"no price": {observed(`gpus_max = 4
utilization_p95_percent = 50
memory_used_p99_gib = 10`), []string{"observed.region", "hourly_usd_per_gpu"}},
		"no P95": {observed(`region = "us-east-1"
gpus_max = 4
memory_used_p99_gib = 10`), []string{"observed", "utilization_p95_percent", "required"}},
		"unknown node type": {`workload {
  kind        = "training"
  environment = "production"
}
clouds  = ["aws"]
regions = ["us-east-1"]
observed = {
  node_type = "p5.4xlarg"
  region = "us-east-1"
  gpus_max = 4
  utilization_p95_percent = 50
  memory_used_p99_gib = 10
}`, []string{"observed.node_type", "neither an EC2 GPU instance type"}},
		"another GPU model": {observed(`region = "us-east-1"
gpus_max = 4
utilization_p95_percent = 50
memory_used_p99_gib = 10`) + `gpu_models = ["L4"]`, []string{"gpu_models", "H100-80GB", "must include it"}},
		"no memory, no observation": {`workload {
  kind        = "training"
  environment = "production"
}
clouds  = ["aws"]
regions = ["us-east-1"]`, []string{"workload.gpu_memory_gib", "workload.model_parameters_billion", "observed"}},
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

// guideObservedBlock is the gpufleet_recommendation block of the guide "Right-sizing from
// utilisation", section 6, as written.
func guideObservedBlock(t *testing.T) string {
	t.Helper()
	guide, err := os.ReadFile("../../templates/guides/right-sizing-from-utilisation.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(guide), "```terraform\ndata \"gpufleet_recommendation\" \"acme_train\"")
	block, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("the guide has no gpufleet_recommendation example")
	}
	return "data \"gpufleet_recommendation\" \"acme_train\"" + block
}

// The real wiring: gpufleet_pool_utilization reads the fixture pool acme-train from the real
// Prometheus and its outputs feed the recommendation, with the guide's block as written; then with
// the data source's price per GPU-hour instead of region and node_count.
func TestAccRecommendationDataSource_observedFromPoolUtilization(t *testing.T) {
	srv := metricstest.Shared(t)
	ds := "data.gpufleet_recommendation.acme_train"
	node, _ := catalog.AWSInstanceType("p5.4xlarge")
	price, _ := node.Price("us-east-1")
	perGPU := math.Round(price.OnDemandUSD/1*1e4) / 1e4 // the data source's hourly_usd_per_gpu
	utilization := metricsProvider(srv, "") + fmt.Sprintf(`
data "gpufleet_pool_utilization" "acme_train" {
  selector  = "{gpufleet_pool=\"acme-train\"}"
  end_time  = %q
  node_type = "p5.4xlarge"
  region    = "us-east-1"
}
`, srv.End.Format(time.RFC3339))
	guide := guideObservedBlock(t)
	byPrice := strings.NewReplacer(`region                   = "us-east-1"`, `hourly_usd_per_gpu = data.gpufleet_pool_utilization.acme_train.hourly_usd_per_gpu`,
		`node_count               = 20`, "").Replace(guide)
	if byPrice == guide {
		t.Fatal("the guide's block no longer sets region and node_count")
	}
	answers := []statecheck.StateCheck{
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("required_gpu_memory_gib"), near(18)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("observed_gpu_equivalents"), near(3.6)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("mig_profile"), knownvalue.StringExact("2g.20gb")),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("node_count"), knownvalue.Int64Exact(7)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("aws").AtMapKey("observed_utilization_mean_percent"), near(51.4)),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("mig_profile"), knownvalue.StringExact("2g.20gb")),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("node_type"), knownvalue.StringExact("a3-highgpu-8g")),
		statecheck.ExpectKnownValue(ds, tfjsonpath.New("gcp").AtMapKey("node_count"), knownvalue.Int64Exact(1)),
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: utilization + guide,
			ConfigStateChecks: append(answers,
				// twenty p5.4xlarge nodes, 730 h
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("observed_monthly_usd"), knownvalue.Float64Exact(acmeTrainMonthly(t)))),
		}, {
			Config: utilization + byPrice,
			ConfigStateChecks: append(answers,
				// 20 GPUs at the data source's price per GPU-hour, 730 h
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("observed_monthly_usd"), near(math.Round(perGPU*20*730*100)/100))),
		}},
	})
}
