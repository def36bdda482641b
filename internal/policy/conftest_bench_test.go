package policy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// BenchmarkConftestPlan measures conftest with the gpufleet bundle against conftest with a one-rule
// policy on the same generated plans (reading the plan is the floor), and reports the ratios the
// targets are stated in:
//
//	bundle/one-rule@10k        ≤ 1.5   plan of 10 000 gpufleet pools, as terraform writes it
//	growth-10k/1k              ≈ 10    linear
//	official:bundle/one-rule@10k       plan of 10 000 aws_eks_node_group and google_container_node_pool
//
// Run with -benchtime=1x (make bench does): each iteration runs conftest 18 times.
func BenchmarkConftestPlan(b *testing.B) {
	bin := os.Getenv("GPUFLEET_CONFTEST")
	if bin == "" {
		b.Skip("GPUFLEET_CONFTEST is not set (make bench sets it to the pinned conftest)")
	}
	dir := b.TempDir()
	if keep := os.Getenv("GPUFLEET_BENCH_KEEP"); keep != "" { // keep the plans, e.g. for opa eval --profile
		dir = keep
	}
	ours, err := terraformPlanJSON(b)
	if err != nil {
		b.Fatal(err)
	}
	official, err := fixturePlans("aws_eks_node_group_compliant.json", "google_container_node_pool_compliant.json")
	if err != nil {
		b.Fatal(err)
	}
	plan := func(name string, template map[string]any, n int) string {
		p := filepath.Join(dir, fmt.Sprintf("plan-%s-%d.json", name, n))
		if err := writeGeneratedPlan(p, template, n); err != nil {
			b.Fatal(err)
		}
		return p
	}
	ours1k, ours10k, official10k := plan("gpufleet", ours, 1000), plan("gpufleet", ours, 10000), plan("official", official, 10000)
	bundle, _ := filepath.Abs("../../policies")
	oneRule, _ := filepath.Abs("testdata/one_rule")
	for b.Loop() {
		best := func(policyDir, plan string) time.Duration {
			var fastest time.Duration
			for range 3 {
				start := time.Now()
				out, err := exec.Command(bin, "test", "--no-color", "--policy", policyDir, plan).CombinedOutput()
				elapsed := time.Since(start)
				var exitErr *exec.ExitError
				if err != nil && (!asExitError(err, &exitErr) || exitErr.ExitCode() != 1) {
					b.Fatalf("conftest: %v: %s", err, out)
				}
				if fastest == 0 || elapsed < fastest {
					fastest = elapsed
				}
			}
			return fastest
		}
		bundle1k := best(bundle, ours1k)
		bundle10k, base10k := best(bundle, ours10k), best(oneRule, ours10k)
		official, officialBase := best(bundle, official10k), best(oneRule, official10k)
		b.ReportMetric(bundle10k.Seconds(), "s-bundle@10k")
		b.ReportMetric(base10k.Seconds(), "s-one-rule@10k")
		b.ReportMetric(float64(bundle10k)/float64(base10k), "bundle/one-rule@10k")
		b.ReportMetric(float64(bundle10k)/float64(bundle1k), "growth-10k/1k")
		b.ReportMetric(float64(official)/float64(officialBase), "official:bundle/one-rule@10k")
	}
}

func asExitError(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError) //nolint:errorlint // exec returns *ExitError unwrapped
	if ok {
		*target = e
	}
	return ok
}

// writeGeneratedPlan writes a plan JSON of n pools: template's resource changes and planned values,
// repeated under new addresses.
func writeGeneratedPlan(path string, template map[string]any, n int) error {
	templates, values := planResources(template)
	changes, planned := make([]any, n), make([]any, n)
	for i := range n {
		j := i % len(templates)
		rc, pv := deepCopy(templates[j]), deepCopy(values[j])
		name := fmt.Sprintf("%s_%05d", rc["name"], i)
		address := fmt.Sprintf("%s.%s", rc["type"], name)
		rc["name"], rc["address"], pv["name"], pv["address"] = name, address, name, address
		changes[i], planned[i] = rc, pv
	}
	plan := deepCopy(template)
	plan["resource_changes"] = changes
	plan["planned_values"] = map[string]any{"root_module": map[string]any{"resources": planned}}
	out, err := json.Marshal(plan)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o600)
}

// fixturePlans merges committed plan fixtures of policies/testdata into one plan.
func fixturePlans(names ...string) (map[string]any, error) {
	var merged map[string]any
	var changes, values []any
	for _, name := range names {
		raw, err := os.ReadFile(filepath.Join("../../policies/testdata", name))
		if err != nil {
			return nil, err
		}
		var p map[string]any
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		if merged == nil {
			merged = p
		}
		rcs, pvs := planResources(p)
		for i := range rcs {
			changes, values = append(changes, rcs[i]), append(values, pvs[i])
		}
	}
	merged["resource_changes"] = changes
	merged["planned_values"] = map[string]any{"root_module": map[string]any{"resources": values}}
	return merged, nil
}

// planResources returns a plan's resource changes and, in the same order, their planned values.
func planResources(plan map[string]any) (changes, values []map[string]any) {
	byAddress := map[string]map[string]any{}
	if pv, ok := plan["planned_values"].(map[string]any); ok {
		if root, ok := pv["root_module"].(map[string]any); ok {
			for _, r := range asSlice(root["resources"]) {
				m := r.(map[string]any)
				byAddress[m["address"].(string)] = m
			}
		}
	}
	for _, rc := range asSlice(plan["resource_changes"]) {
		m := rc.(map[string]any)
		v := byAddress[m["address"].(string)]
		if v == nil {
			v = map[string]any{"address": m["address"], "name": m["name"], "type": m["type"]}
		}
		changes, values = append(changes, m), append(values, v)
	}
	return changes, values
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// terraformPlanJSON plans eight gpufleet pools (mostly compliant, one with a warning, as a healthy
// plan is) with the provider built from this tree and returns `terraform show -json` of the plan.
// No cloud call: a plan of new pools only validates, derives and evaluates policy.
func terraformPlanJSON(b *testing.B) (map[string]any, error) {
	if _, err := exec.LookPath("terraform"); err != nil {
		b.Skip("terraform is not on PATH")
	}
	env := acctest.DevOverrides(b)
	dir := b.TempDir()
	var cfg strings.Builder
	cfg.WriteString(`terraform {
  required_providers {
    gpufleet = { source = "gpufleet/gpufleet" }
  }
}
provider "gpufleet" {
  aws {
    region                      = "us-east-1"
    skip_credentials_validation = true
  }
}
`)
	shapes := []struct {
		types, kind, env string
		memory           int
		extra            string
	}{
		{`["g6.xlarge"]`, "inference", "production", 16, ""},
		{`["g6.xlarge", "g6.2xlarge"]`, "inference", "staging", 16, ""},
		{`["g5.xlarge", "g5.2xlarge", "g5.4xlarge"]`, "training", "staging", 20, "capacity {\n spot_percentage = 70\n on_demand_base = 1\n }\n workload_interruptible = true"},
		{`["p5.48xlarge"]`, "training", "production", 30, "gpu {\n mig {\n profile = \"3g.40gb\"\n }\n }\n capacity {\n spot_percentage = 80\n }\n workload_interruptible = true"},
		{`["p4d.24xlarge"]`, "inference", "staging", 8, "gpu {\n mig {\n profile = \"2g.10gb\"\n }\n }"},
		{`["g6e.xlarge"]`, "inference", "production", 40, "labels = { team = \"search\" }"},
		{`["g4dn.xlarge"]`, "development", "development", 4, "gpu {\n sharing {\n strategy = \"time-slicing\"\n replicas = 4\n }\n }\n policy_waivers = { \"GF-RS-002\" = \"notebooks share one T4, reviewed 2026-11\" }"},
		{`["g5.xlarge"]`, "training", "staging", 16, "workload_interruptible = true"}, // GF-COST-002: no spot share
	}
	for i, sh := range shapes {
		interruptible := strings.Contains(sh.extra, "workload_interruptible = true")
		extra := strings.ReplaceAll(sh.extra, "workload_interruptible = true", "")
		fmt.Fprintf(&cfg, `resource "gpufleet_eks_node_pool" "pool%d" {
  cluster_name   = "ml"
  name           = "pool%d"
  client         = "acme"
  node_role_arn  = "arn:aws:iam::123456789012:role/gpu-nodes"
  subnet_ids     = ["subnet-0a1a1a1a1a1a1a1a1"]
  instance_types = %s
  workload {
    kind           = %q
    environment    = %q
    gpu_memory_gib = %d
    interruptible  = %t
  }
  scaling {
    min_size     = 1
    desired_size = 2
    max_size     = 6
  }
  %s
}
`, i, i, sh.types, sh.kind, sh.env, sh.memory, interruptible, extra)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg.String()), 0o600); err != nil {
		return nil, err
	}
	if _, err := acctest.Terraform(dir, env, "plan", "-input=false", "-no-color", "-out=plan.out"); err != nil {
		return nil, err
	}
	out, err := acctest.Terraform(dir, env, "show", "-json", "plan.out")
	if err != nil {
		return nil, err
	}
	var plan map[string]any
	return plan, json.Unmarshal(out, &plan)
}

func deepCopy(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}
