package policy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// BenchmarkConftestPlan measures conftest with the gpufleet bundle against conftest with a one-rule
// policy on the same generated plans (reading and converting the plan is the floor), and reports
// the ratios the targets are stated in, wall time and peak memory (max RSS):
//
//	official:bundle/one-rule@1k, @10k      ≤ 1.5  aws_eks_node_group and google_container_node_pool,
//	official:rss-bundle/one-rule@1k, @10k  ≤ 1.5  half each, 10 % violating, with policy data
//	gpufleet:bundle/one-rule@10k           ≤ 1.5  gpufleet pools, as terraform writes them
//	growth-10k/1k                          ≈ 10   linear
//
// Run with -benchtime=1x (make bench does). Every command runs GPUFLEET_BENCH_RUNS times (default
// 5), bundle and floor alternating, and the medians are reported. The gpufleet plans need
// terraform; without it only the official plans are measured.
func BenchmarkConftestPlan(b *testing.B) {
	bin := os.Getenv("GPUFLEET_CONFTEST")
	if bin == "" {
		b.Skip("GPUFLEET_CONFTEST is not set (make bench sets it to the pinned conftest)")
	}
	dir := b.TempDir()
	if keep := os.Getenv("GPUFLEET_BENCH_KEEP"); keep != "" { // keep the plans, e.g. for opa eval --profile
		dir = keep
	}
	runs := 5
	if n, err := strconv.Atoi(os.Getenv("GPUFLEET_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	data := filepath.Join(dir, "bench-data.json")
	if err := writeBenchData(data); err != nil {
		b.Fatal(err)
	}
	plans := map[string]string{}
	for _, n := range []int{1000, 10000} {
		p := filepath.Join(dir, fmt.Sprintf("plan-official-%d.json", n))
		if err := writeOfficialPlan(p, n); err != nil {
			b.Fatal(err)
		}
		plans[fmt.Sprintf("official@%dk", n/1000)] = p
	}
	if _, err := exec.LookPath("terraform"); err == nil {
		ours, err := terraformPlanJSON(b)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{1000, 10000} {
			p := filepath.Join(dir, fmt.Sprintf("plan-gpufleet-%d.json", n))
			if err := writeGeneratedPlan(p, ours, nil, n); err != nil {
				b.Fatal(err)
			}
			plans[fmt.Sprintf("gpufleet@%dk", n/1000)] = p
		}
	}
	bundle, _ := filepath.Abs("../../policies")
	oneRule, _ := filepath.Abs("testdata/one_rule")
	for b.Loop() {
		for _, name := range slices.Sorted(maps.Keys(plans)) {
			var wall, rss, cpu, baseWall, baseRSS, baseCPU []float64
			for range runs {
				w, m, c := conftestRun(b, bin, bundle, data, plans[name])
				bw, bm, bc := conftestRun(b, bin, oneRule, data, plans[name])
				wall, rss, cpu = append(wall, w), append(rss, m), append(cpu, c)
				baseWall, baseRSS, baseCPU = append(baseWall, bw), append(baseRSS, bm), append(baseCPU, bc)
			}
			b.ReportMetric(median(baseWall), name+":s-one-rule")
			b.ReportMetric(median(baseRSS), name+":MiB-one-rule")
			b.ReportMetric(median(wall), name+":s-bundle")
			b.ReportMetric(median(rss), name+":MiB-bundle")
			b.ReportMetric(medianRatio(wall, baseWall), name+":bundle/one-rule")
			b.ReportMetric(medianRatio(rss, baseRSS), name+":rss-bundle/one-rule")
			b.ReportMetric(medianRatio(cpu, baseCPU), name+":cpu-bundle/one-rule")
			b.Logf("%s: one-rule %.2fs %.0fMiB (cpu %.2fs), bundle %.2fs %.0fMiB (cpu %.2fs), ratios (median of %d) wall %.2f, rss %.2f, cpu %.2f",
				name, median(baseWall), median(baseRSS), median(baseCPU), median(wall), median(rss), median(cpu), runs,
				medianRatio(wall, baseWall), medianRatio(rss, baseRSS), medianRatio(cpu, baseCPU))
		}
	}
}

// conftestRun runs conftest as CI does and returns its wall time (s), peak memory (MiB, max RSS) and
// CPU time (s, user and system: less sensitive than wall time to other load on the machine).
// conftest is started by a small helper process (this test binary, TestConftestRunHelper): a child
// this large process starts directly would count its RSS in its own maximum.
func conftestRun(b *testing.B, bin, policyDir, data, plan string) (seconds, mib, cpu float64) {
	b.Helper()
	args, _ := json.Marshal([]string{bin, "test", "--no-color", "--policy", policyDir, "--data", data, plan})
	cmd := exec.Command(os.Args[0], "-test.run=^TestConftestRunHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GPUFLEET_RUN_HELPER="+string(args))
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("conftest: %v: %s", err, out)
	}
	at := bytes.Index(out, []byte("helper:"))
	if at < 0 {
		b.Fatalf("conftest helper: %s", out)
	}
	if _, err := fmt.Sscanf(string(out[at:]), "helper: %g s %g MiB %g cpu", &seconds, &mib, &cpu); err != nil {
		b.Fatalf("conftest helper: %v: %s", err, out)
	}
	return seconds, mib, cpu
}

// TestConftestRunHelper runs the command in GPUFLEET_RUN_HELPER (a JSON array) and prints its wall
// time and max RSS; conftest's exit code 1 (failures) is not an error. Only BenchmarkConftestPlan
// runs it.
func TestConftestRunHelper(t *testing.T) {
	raw := os.Getenv("GPUFLEET_RUN_HELPER")
	if raw == "" {
		t.Skip("a helper of BenchmarkConftestPlan")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	var exitErr *exec.ExitError
	if err != nil && (!asExitError(err, &exitErr) || exitErr.ExitCode() != 1) {
		t.Fatalf("%v: %s", err, out)
	}
	usage, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Printf("helper: %g s %g MiB %g cpu\n", elapsed.Seconds(), float64(usage.Maxrss)/1024, cpu.Seconds())
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// medianRatio is the median of the per-run ratios a[i]/b[i] (each pair ran back to back).
func medianRatio(a, b []float64) float64 {
	ratios := make([]float64, len(a))
	for i := range a {
		ratios[i] = a[i] / b[i]
	}
	return median(ratios)
}

// writeBenchData writes the policy data of the benchmark: the clients of the plans, with budgets no
// plan of the benchmark exceeds, so that the plans are mostly compliant (the gpufleet pools are
// acme's, in us-east-1, without a client taint or cost-centre tag).
func writeBenchData(path string) error {
	data := `{"gpufleet": {"thresholds": {"oversize_factor": 4}, "clients": {
  "acme": {"allowed_regions": ["eu-*", "europe-*", "us-*"], "isolation": "shared", "monthly_budget_usd": 1e12},
  "globex": {"cost_center": "cc-2002", "allowed_regions": ["us-*"], "isolation": "mig", "monthly_budget_usd": 1e12},
  "initech": {"cost_center": "cc-3003", "allowed_regions": ["us-*", "eu-*", "europe-*"], "isolation": "shared", "monthly_budget_usd": 1e12}}}}`
	return os.WriteFile(path, []byte(data), 0o600)
}

// writeOfficialPlan writes a plan of n official resources, aws_eks_node_group and
// google_container_node_pool from the committed fixtures: 9 in 10 from the compliant fixtures,
// 1 in 10 from the violating ones.
func writeOfficialPlan(path string, n int) error {
	compliant, err := fixturePlans("aws_eks_node_group_compliant.json", "google_container_node_pool_compliant.json")
	if err != nil {
		return err
	}
	violating, err := fixturePlans("aws_eks_node_group_violating.json", "google_container_node_pool_violating.json")
	if err != nil {
		return err
	}
	return writeGeneratedPlan(path, compliant, violating, n)
}

func asExitError(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError) //nolint:errorlint // exec returns *ExitError unwrapped
	if ok {
		*target = e
	}
	return ok
}

// writeGeneratedPlan writes a plan JSON of n pools: template's resource changes, planned values and
// configuration, repeated under new addresses; every tenth from violating when it is not nil.
func writeGeneratedPlan(path string, template, violating map[string]any, n int) error {
	templates, values := planResources(template)
	configs := configResources(template)
	var badTemplates, badValues []map[string]any
	var badConfigs map[string]map[string]any
	if violating != nil {
		badTemplates, badValues = planResources(violating)
		badConfigs = configResources(violating)
	}
	changes, planned, configured := make([]any, n), make([]any, n), make([]any, 0, n)
	for i := range n {
		rcs, pvs, cfgs := templates, values, configs
		if badTemplates != nil && i%10 == 0 {
			rcs, pvs, cfgs = badTemplates, badValues, badConfigs
		}
		j := (i / 10) % len(rcs)
		rc, pv := deepCopy(rcs[j]), deepCopy(pvs[j])
		name := fmt.Sprintf("%s_%05d", rc["name"], i)
		address := fmt.Sprintf("%s.%s", rc["type"], name)
		if cfg, ok := cfgs[rc["address"].(string)]; ok {
			cfg = deepCopy(cfg)
			cfg["name"], cfg["address"] = name, address
			configured = append(configured, cfg)
		}
		rc["name"], rc["address"], pv["name"], pv["address"] = name, address, name, address
		renamePlanned(rc, pv, strings.ReplaceAll(name, "_", "-"))
		changes[i], planned[i] = rc, pv
	}
	plan := deepCopy(template)
	plan["resource_changes"] = changes
	plan["planned_values"] = map[string]any{"root_module": map[string]any{"resources": planned}}
	if cfg, ok := plan["configuration"].(map[string]any); ok {
		if root, ok := cfg["root_module"].(map[string]any); ok {
			root["resources"] = configured
		}
	}
	out, err := json.Marshal(plan)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o600)
}

// renamePlanned gives a copy its own pool name in its planned object, as every node group or node
// pool of a real plan has: copies that differ only in their address would let the evaluator reuse
// results computed for an identical object, which no real plan allows.
func renamePlanned(rc, pv map[string]any, name string) {
	change, _ := rc["change"].(map[string]any)
	for _, obj := range []any{change["after"], pv["values"]} {
		after, ok := obj.(map[string]any)
		if !ok {
			continue
		}
		for _, key := range []string{"name", "node_group_name"} {
			if _, ok := after[key].(string); ok {
				after[key] = name
			}
		}
		if doc, ok := after["policy_document"].(map[string]any); ok {
			doc["name"] = name
		}
	}
}

// configResources returns a plan's configuration resources of the root module by address.
func configResources(plan map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	cfg, _ := plan["configuration"].(map[string]any)
	root, _ := cfg["root_module"].(map[string]any)
	for _, r := range asSlice(root["resources"]) {
		m := r.(map[string]any)
		out[m["address"].(string)] = m
	}
	return out
}

// fixturePlans merges committed plan fixtures of policies/testdata into one plan.
func fixturePlans(names ...string) (map[string]any, error) {
	var merged map[string]any
	var changes, values, configured []any
	providerConfigs, variables := map[string]any{}, map[string]any{}
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
		cfg, _ := p["configuration"].(map[string]any)
		providers, _ := cfg["provider_config"].(map[string]any)
		maps.Copy(providerConfigs, providers)
		for _, r := range configResources(p) {
			configured = append(configured, r)
		}
		vars, _ := p["variables"].(map[string]any)
		maps.Copy(variables, vars)
	}
	merged["resource_changes"] = changes
	merged["planned_values"] = map[string]any{"root_module": map[string]any{"resources": values}}
	merged["configuration"] = map[string]any{"provider_config": providerConfigs, "root_module": map[string]any{"resources": configured}}
	merged["variables"] = variables
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
