package bench_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/bench"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// clouds are the two pool resources the terraform benchmarks run, each as N pools in one cluster.
var clouds = []struct {
	name     string
	services []string // cloudsim services the pools call
	// oneAtATime are the operations the cloud runs one at a time per cluster. None today: GKE runs
	// operations on different node pools of a cluster side by side (concurrent node pool
	// mutations), and the GKE pool locks per node pool.
	oneAtATime []string
	provider   func(e cloudsim.Endpoints) string
	pool       func(i int) string // the pool's resource block up to its cloud-neutral part, poolBody
}{
	{
		name:     "eks",
		services: []string{"eks", "ec2"},
		provider: func(e cloudsim.Endpoints) string {
			return fmt.Sprintf("  aws {\n    region = \"us-east-1\"\n    skip_credentials_validation = true\n    endpoints {\n      eks = %q\n      ec2 = %q\n      autoscaling = %q\n    }\n  }\n", e.EKS, e.EC2, e.AutoScaling)
		},
		pool: func(i int) string {
			return fmt.Sprintf(`resource "gpufleet_eks_node_pool" "p%04[1]d" {
  cluster_name   = "ml"
  name           = "p%04[1]d"
  client         = "acme"
  node_role_arn  = "arn:aws:iam::123456789012:role/gpu-nodes"
  subnet_ids     = ["subnet-0a1a1a1a1a1a1a1a1"]
  instance_types = ["g6.xlarge"]
`, i)
		},
	},
	{
		name:     "gke",
		services: []string{"gke", "compute"},
		provider: func(e cloudsim.Endpoints) string {
			return fmt.Sprintf("  gcp {\n    project = \"acme-ml\"\n    endpoint = %q\n    compute_endpoint = %q\n    insecure = true\n  }\n", e.GKE, e.Compute)
		},
		pool: func(i int) string {
			return fmt.Sprintf(`resource "gpufleet_gke_node_pool" "p%04[1]d" {
  location       = "europe-west4"
  cluster        = "ml"
  name           = "p%04[1]d"
  client         = "acme"
  machine_type   = "g2-standard-8"
  node_locations = ["europe-west4-a"]
`, i)
		},
	},
}

// poolBody ends every benchmark pool, on either cloud: a staging inference workload whose size
// the autoscaler owns.
const poolBody = `  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 16
  }
  scaling {
    min_size = 1
    max_size = 2
  }
}
`

// config is a root module of n pools of cloud c under a provider pointed at e.
func config(c int, e cloudsim.Endpoints, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "terraform {\n  required_providers {\n    gpufleet = { source = \"gpufleet/gpufleet\" }\n  }\n}\nprovider \"gpufleet\" {\n%s}\n", clouds[c].provider(e))
	for i := range n {
		b.WriteString(clouds[c].pool(i) + poolBody)
	}
	return b.String()
}

// BenchmarkTerraformPlan times `terraform plan` of 200 pools, on EKS and on GKE, against the same
// plan with a provider built without gpufleet's plan-time work (validation, derivation, policy:
// the build tag gpufleet_bench_noplanwork) and against 200 terraform_data resources: wall time and
// peak memory (terraform or the provider, whichever is larger), medians of GPUFLEET_BENCH_RUNS runs
// (default 3) run back to back. No cloud call: a plan of new pools calls none.
func BenchmarkTerraformPlan(b *testing.B) {
	requireTerraform(b)
	const n = 200
	runs := benchRuns(3)
	r := bench.NewRunner(b)
	full, bare := acctest.DevOverrides(b), acctest.DevOverrides(b, "gpufleet_bench_noplanwork")
	closed := cloudsim.Endpoints{EKS: "http://127.0.0.1:1", EC2: "http://127.0.0.1:1", AutoScaling: "http://127.0.0.1:1", GKE: "127.0.0.1:1", Compute: "http://127.0.0.1:1/compute/v1/"}
	var data strings.Builder
	for i := range n {
		fmt.Fprintf(&data, "resource \"terraform_data\" \"d%04d\" {\n  input = { client = \"acme\", size = %d }\n}\n", i, i)
	}
	baseline := writeModule(b, "terraform_data", data.String())
	if _, _, err := r.Run(baseline, full, nil, "terraform", "init", "-input=false", "-no-color"); err != nil {
		b.Fatal(err)
	}
	plan := func(dir string, env []string) bench.Sample {
		s, _, err := r.Run(dir, env, nil, "terraform", "plan", "-input=false", "-refresh=false", "-no-color")
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	for b.Loop() {
		for c := range clouds {
			pools := writeModule(b, clouds[c].name, config(c, closed, n))
			var withWork, without, baseData bench.Series
			for range runs {
				withWork.Add(plan(pools, full))
				without.Add(plan(pools, bare))
				baseData.Add(plan(baseline, full))
			}
			name := clouds[c].name
			b.ReportMetric(bench.Median(withWork.Wall), name+":s-plan-pools")
			b.ReportMetric(bench.Median(without.Wall), name+":s-plan-no-plan-work")
			b.ReportMetric(bench.Median(baseData.Wall), name+":s-plan-terraform_data")
			b.ReportMetric(bench.Median(withWork.Peak), name+":MiB-plan-pools")
			b.ReportMetric(bench.Median(without.Peak), name+":MiB-plan-no-plan-work")
			b.ReportMetric(bench.Median(baseData.Peak), name+":MiB-plan-terraform_data")
			b.ReportMetric(bench.MedianRatio(withWork.Wall, without.Wall), name+":pools/no-plan-work")
			b.ReportMetric(bench.MedianRatio(withWork.Wall, baseData.Wall), name+":pools/terraform_data")
			b.ReportMetric(bench.MedianRatio(withWork.Peak, without.Peak), name+":rss-pools/no-plan-work")
			b.ReportMetric(bench.MedianRatio(withWork.Peak, baseData.Peak), name+":rss-pools/terraform_data")
			b.ReportMetric((bench.Median(withWork.Wall)-bench.Median(without.Wall))/n*1000, name+":ms-plan-work-per-pool")
		}
	}
}

// BenchmarkTerraformApply times `terraform apply -parallelism=10` of 50 new pools, on EKS and on
// GKE, with cloudsim answering every call after 200 ms (and resolving transitional statuses at
// once), against the ideal: the calls one pool's apply makes, counted on a single-pool apply,
// times 200 ms, times ⌈50/10⌉ rounds. The ratio is what the provider's own waiting, polling and
// locking add to the latency a cloud imposes anyway. All pools are in one cluster, as users' are;
// GKE runs the node pool operations of a cluster side by side, one per node pool, so the ideal is
// the same as on EKS.
func BenchmarkTerraformApply(b *testing.B) {
	requireTerraform(b)
	const (
		n           = 50
		parallelism = 10
		latency     = 200 * time.Millisecond
	)
	seed, err := cloudsim.LoadSeed(filepath.Join(moduleRoot(b), "examples", "cloudsim", "seed.json"))
	if err != nil {
		b.Fatal(err)
	}
	r := bench.NewRunner(b)
	env := acctest.DevOverrides(b)
	for b.Loop() {
		for c := range clouds {
			sim, err := cloudsim.Start(cloudsim.Options{Seed: seed})
			if err != nil {
				b.Fatal(err)
			}
			apply := func(dir string, args ...string) bench.Sample {
				s, _, err := r.Run(dir, env, nil, append([]string{"terraform", "apply", "-input=false", "-auto-approve", "-no-color"}, args...)...)
				if err != nil {
					b.Fatal(err)
				}
				return s
			}
			destroy := func(dir string) {
				if _, _, err := r.Run(dir, env, nil, "terraform", "destroy", "-input=false", "-auto-approve", "-no-color"); err != nil {
					b.Fatal(err)
				}
			}
			one := writeModule(b, clouds[c].name+"-one", config(c, sim.Endpoints(), 1))
			sim.ResetRequests()
			apply(one)
			calls, serial := 0, 0
			for _, req := range sim.Requests() {
				calls++
				if slices.Contains(clouds[c].oneAtATime, req.Operation) {
					serial++
				}
			}
			destroy(one)

			many := writeModule(b, clouds[c].name+"-many", config(c, sim.Endpoints(), n))
			for _, svc := range clouds[c].services {
				if _, err := sim.Inject(cloudsim.Fault{Service: svc, Kind: cloudsim.Latency, Latency: latency}); err != nil {
					b.Fatal(err)
				}
			}
			s := apply(many, "-parallelism="+strconv.Itoa(parallelism))
			sim.ClearFaults()
			destroy(many)
			if err := sim.Close(); err != nil {
				b.Fatal(err)
			}

			// The ideal; where the cloud runs some calls one at a time per cluster, no apply can take
			// less than those calls of every pool in a row either.
			ideal := max(bench.IdealApply(calls, latency, n, parallelism), bench.IdealApply(serial*n, latency, 1, 1))
			name := clouds[c].name
			b.ReportMetric(float64(calls), name+":calls-per-pool")
			b.ReportMetric(float64(serial), name+":one-at-a-time-calls-per-pool")
			b.ReportMetric(s.WallSeconds, name+":s-apply-50")
			b.ReportMetric(ideal.Seconds(), name+":s-ideal")
			b.ReportMetric(s.WallSeconds/ideal.Seconds(), name+":apply/ideal")
		}
	}
}

func requireTerraform(b *testing.B) {
	if _, err := exec.LookPath("terraform"); err != nil {
		b.Skip("terraform is not on PATH")
	}
}

// benchRuns is GPUFLEET_BENCH_RUNS, else def.
func benchRuns(def int) int {
	if n, err := strconv.Atoi(os.Getenv("GPUFLEET_BENCH_RUNS")); err == nil && n > 0 {
		return n
	}
	return def
}

func writeModule(b *testing.B, name, content string) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(content), 0o600); err != nil {
		b.Fatal(err)
	}
	return dir
}

func moduleRoot(b *testing.B) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		b.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
