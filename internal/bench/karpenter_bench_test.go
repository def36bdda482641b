package bench_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/bench"
)

// karpenterPool is one benchmark Karpenter pool: time-sliced L4s of a development workload, half on
// spot above one on-demand node, so that each renders four objects (EC2NodeClass, two NodePools, a
// NodeOverlay), all validated at plan.
func karpenterPool(i int) string {
	return fmt.Sprintf(`resource "gpufleet_karpenter_node_pool" "p%04[1]d" {
  cluster_name   = "ml"
  name           = "p%04[1]d"
  client         = "acme"
  node_role      = "KarpenterNodeRole-ml"
  instance_types = ["g6.xlarge", "g6.2xlarge"]
  subnet_selector         = [{ tags = { "karpenter.sh/discovery" = "ml" } }]
  security_group_selector = [{ id = "sg-0123456789abcdef0" }]
  labels = { "example.com/pool" = "p%04[1]d" }
  workload {
    kind           = "development"
    environment    = "development"
    gpu_memory_gib = 4
    interruptible  = true
  }
  gpu {
    sharing {
      strategy = "time-slicing"
      replicas = 4
    }
  }
  scaling {
    min_size = 0
    max_size = %[2]d
  }
  capacity {
    spot_percentage = 50
    on_demand_base  = 1
  }
}
`, i, 4+i%5)
}

// BenchmarkTerraformPlanKarpenter times `terraform plan` of 200 gpufleet_karpenter_node_pool, whose
// 800 objects the provider validates in process against Karpenter's CRDs, against the same plan by a
// provider built without that validation (build tag gpufleet_bench_novalidation: rendering,
// derivation and policy stay): the validation's cost, CRD compilation included, which the issue
// wants within 1.2× of the plan without it. Medians of GPUFLEET_BENCH_RUNS runs (default 3),
// alternating. No cluster or cloud call: a plan makes none.
func BenchmarkTerraformPlanKarpenter(b *testing.B) {
	requireTerraform(b)
	const n = 200
	runs := benchRuns(3)
	r := bench.NewRunner(b)
	full, bare := acctest.DevOverrides(b), acctest.DevOverrides(b, "gpufleet_bench_novalidation")
	var cfg strings.Builder
	cfg.WriteString("terraform {\n  required_providers {\n    gpufleet = { source = \"gpufleet/gpufleet\" }\n  }\n}\n")
	cfg.WriteString("provider \"gpufleet\" {\n  aws {\n    region = \"us-east-1\"\n    skip_credentials_validation = true\n    endpoints {\n      eks = \"http://127.0.0.1:1\"\n      sts = \"http://127.0.0.1:1\"\n    }\n  }\n}\n")
	for i := range n {
		cfg.WriteString(karpenterPool(i))
	}
	dir := writeModule(b, "karpenter", cfg.String())
	plan := func(env []string) bench.Sample {
		s, _, err := r.Run(dir, env, nil, "terraform", "plan", "-input=false", "-refresh=false", "-no-color")
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	for b.Loop() {
		var with, without bench.Series
		for range runs {
			with.Add(plan(full))
			without.Add(plan(bare))
		}
		b.ReportMetric(bench.Median(with.Wall), "karpenter:s-plan-pools")
		b.ReportMetric(bench.Median(without.Wall), "karpenter:s-plan-no-validation")
		b.ReportMetric(bench.MedianRatio(with.Wall, without.Wall), "karpenter:pools/no-validation")
		b.ReportMetric(bench.Median(with.Peak), "karpenter:MiB-plan-pools")
		b.ReportMetric(bench.MedianRatio(with.Peak, without.Peak), "karpenter:rss-pools/no-validation")
		b.ReportMetric((bench.Median(with.Wall)-bench.Median(without.Wall))/n*1000, "karpenter:ms-validation-per-pool")
	}
}
