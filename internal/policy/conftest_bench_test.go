package policy_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/bench"
)

// BenchmarkConftestPlan measures conftest with the gpufleet bundle against conftest with a one-rule
// policy on the same generated plans (reading and converting the plan is the floor), and reports
// the ratios the targets are stated in, wall time and peak memory (max RSS), two ways:
//
//	<plan>:bundle/one-rule, rss-bundle/one-rule        conftest with the bundle on the plan itself
//	<plan>:documents/one-rule, rss-documents/one-rule  gpufleet-policy documents, then conftest with
//	                                                   the bundle gpufleet-policy bundle wrote (no
//	                                                   tests) on the documents file (wall and CPU of
//	                                                   the three commands added up, the largest peak)
//	<plan>:released/one-rule, rss-released/one-rule    conftest with the bundle gpufleet-policy bundle
//	                                                   wrote (no tests) on the plan itself: the
//	                                                   fixed cost the unit tests add to the first
//
// on plans of 1k and 10k official resources (aws_eks_node_group and google_container_node_pool,
// half each, 10 % violating), each with its own configuration block (official) or as for_each
// instances as small as the providers plan them (official-small), of gpufleet pools as terraform
// writes them, and on platform plans of 2k and 20k resources where one in a hundred is a GPU pool
// (conftest_plans_test.go), with policy data.
//
// Run with -benchtime=1x (make bench does). Every command runs GPUFLEET_BENCH_RUNS times (default
// 5), bundle and floor alternating, and the medians are reported. The gpufleet plans need
// terraform; without it only the official plans are measured.
func BenchmarkConftestPlan(b *testing.B) {
	bin, dir, runs := conftestBenchSetup(b)
	data := filepath.Join(dir, "bench-data.json")
	if err := writeBenchData(data); err != nil {
		b.Fatal(err)
	}
	// GPUFLEET_BENCH_PLANS (a comma-separated list of plan names, e.g. platform@20k) measures only
	// those plans.
	only := strings.Split(os.Getenv("GPUFLEET_BENCH_PLANS"), ",")
	wanted := func(name string) bool { return only[0] == "" || slices.Contains(only, name) }
	plans := map[string]string{}
	write := func(name string, writePlan func(path string) error) {
		if !wanted(name) {
			return
		}
		p := filepath.Join(dir, "plan-"+strings.ReplaceAll(name, "@", "-")+".json")
		if err := writePlan(p); err != nil {
			b.Fatal(err)
		}
		plans[name] = p
	}
	for _, n := range []int{1000, 10000} {
		write(fmt.Sprintf("official@%dk", n/1000), func(p string) error { return writeOfficialPlan(p, n) })
	}
	// Official resources as small as the providers plan them, without a configuration block each.
	for _, n := range []int{1000, 10000} {
		write(fmt.Sprintf("official-small@%dk", n/1000), func(p string) error { return writeSmallOfficialPlan(p, n) })
	}
	var ours map[string]any
	if _, err := exec.LookPath("terraform"); err == nil && (wanted("gpufleet@1k") || wanted("gpufleet@10k") || wanted("platform@20k") || wanted("platform@2k")) {
		if ours, err = terraformPlanJSON(b); err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{1000, 10000} {
			write(fmt.Sprintf("gpufleet@%dk", n/1000), func(p string) error { return writeGeneratedPlan(p, ours, nil, n) })
		}
	}
	// A platform team's plan: one resource in a hundred a GPU pool (official and, with terraform,
	// gpufleet), the rest IAM, security-group rules, buckets, helm releases and CPU node groups and
	// pools; at 2k, the fixed costs weigh.
	for _, n := range []int{2000, 20000} {
		write(fmt.Sprintf("platform@%dk", n/1000), func(p string) error { return writePlatformPlan(p, n, ours) })
	}
	bundle, _ := filepath.Abs("../../policies")
	oneRule, _ := filepath.Abs("testdata/one_rule")
	r := bench.NewRunner(b)
	gpufleetPolicy := r.Build(b, "internal/policy/cmd/gpufleet-policy")
	documents, releasedDir := filepath.Join(dir, "pools.json"), filepath.Join(dir, "gpufleet-policies")
	conftest := func(policyDir, plan string) bench.Sample {
		// exit code 1: the plan has failures, as one in ten official resources does
		s, _, err := r.Run("", nil, []int{0, 1}, bin, "test", "--no-color", "--policy", policyDir, "--data", data, plan)
		if err != nil {
			b.Fatalf("conftest: %v", err)
		}
		return s
	}
	for b.Loop() {
		for _, name := range slices.Sorted(maps.Keys(plans)) {
			var withBundle, floor, viaDocuments, released bench.Series
			for range runs {
				withBundle.Add(conftest(bundle, plans[name]))
				floor.Add(conftest(oneRule, plans[name]))
				if err := os.RemoveAll(releasedDir); err != nil {
					b.Fatal(err)
				}
				written, _, err := r.Run("", nil, nil, gpufleetPolicy, "bundle", "-o", releasedDir)
				if err != nil {
					b.Fatalf("gpufleet-policy bundle: %v", err)
				}
				built, _, err := r.Run("", nil, nil, gpufleetPolicy, "documents", "-o", documents, plans[name])
				if err != nil {
					b.Fatalf("gpufleet-policy documents: %v", err)
				}
				viaDocuments.Add(written.Then(built).Then(conftest(releasedDir, documents)))
				released.Add(conftest(releasedDir, plans[name]))
			}
			b.ReportMetric(bench.Median(released.Wall), name+":s-released")
			b.ReportMetric(bench.Median(released.Peak), name+":MiB-released")
			b.ReportMetric(bench.MedianRatio(released.Wall, floor.Wall), name+":released/one-rule")
			b.ReportMetric(bench.MedianRatio(released.Peak, floor.Peak), name+":rss-released/one-rule")
			b.ReportMetric(bench.MedianRatio(released.CPU, floor.CPU), name+":cpu-released/one-rule")
			b.Logf("%s: conftest with the release's bundle (no tests) on the plan %.2fs %.0fMiB, ratios wall %.2f, rss %.2f, cpu %.2f", name,
				bench.Median(released.Wall), bench.Median(released.Peak), bench.MedianRatio(released.Wall, floor.Wall),
				bench.MedianRatio(released.Peak, floor.Peak), bench.MedianRatio(released.CPU, floor.CPU))
			b.ReportMetric(bench.Median(viaDocuments.Wall), name+":s-documents")
			b.ReportMetric(bench.Median(viaDocuments.Peak), name+":MiB-documents")
			b.ReportMetric(bench.MedianRatio(viaDocuments.Wall, floor.Wall), name+":documents/one-rule")
			b.ReportMetric(bench.MedianRatio(viaDocuments.Peak, floor.Peak), name+":rss-documents/one-rule")
			b.ReportMetric(bench.MedianRatio(viaDocuments.CPU, floor.CPU), name+":cpu-documents/one-rule")
			b.Logf("%s: gpufleet-policy documents + conftest %.2fs %.0fMiB, ratios wall %.2f, rss %.2f, cpu %.2f", name,
				bench.Median(viaDocuments.Wall), bench.Median(viaDocuments.Peak), bench.MedianRatio(viaDocuments.Wall, floor.Wall),
				bench.MedianRatio(viaDocuments.Peak, floor.Peak), bench.MedianRatio(viaDocuments.CPU, floor.CPU))
			b.ReportMetric(bench.Median(floor.Wall), name+":s-one-rule")
			b.ReportMetric(bench.Median(floor.Peak), name+":MiB-one-rule")
			b.ReportMetric(bench.Median(withBundle.Wall), name+":s-bundle")
			b.ReportMetric(bench.Median(withBundle.Peak), name+":MiB-bundle")
			b.ReportMetric(bench.MedianRatio(withBundle.Wall, floor.Wall), name+":bundle/one-rule")
			b.ReportMetric(bench.MedianRatio(withBundle.Peak, floor.Peak), name+":rss-bundle/one-rule")
			b.ReportMetric(bench.MedianRatio(withBundle.CPU, floor.CPU), name+":cpu-bundle/one-rule")
			b.Logf("%s: one-rule %.2fs %.0fMiB (cpu %.2fs), bundle %.2fs %.0fMiB (cpu %.2fs), ratios (median of %d) wall %.2f, rss %.2f, cpu %.2f",
				name, bench.Median(floor.Wall), bench.Median(floor.Peak), bench.Median(floor.CPU), bench.Median(withBundle.Wall), bench.Median(withBundle.Peak), bench.Median(withBundle.CPU), runs,
				bench.MedianRatio(withBundle.Wall, floor.Wall), bench.MedianRatio(withBundle.Peak, floor.Peak), bench.MedianRatio(withBundle.CPU, floor.CPU))
		}
	}
}

// conftestBenchSetup is what the conftest benchmarks start from: the pinned conftest (skipped
// without it), their directory (GPUFLEET_BENCH_KEEP keeps what they write, e.g. for opa eval
// --profile) and the runs of each command (GPUFLEET_BENCH_RUNS, default 5).
func conftestBenchSetup(b *testing.B) (conftest, dir string, runs int) {
	conftest = os.Getenv("GPUFLEET_CONFTEST")
	if conftest == "" {
		b.Skip("GPUFLEET_CONFTEST is not set (make bench sets it to the pinned conftest)")
	}
	dir = b.TempDir()
	if keep := os.Getenv("GPUFLEET_BENCH_KEEP"); keep != "" {
		dir = keep
	}
	runs = 5
	if n, err := strconv.Atoi(os.Getenv("GPUFLEET_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	return conftest, dir, runs
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
		{`["g4dn.xlarge"]`, "development", "development", 3, "gpu {\n sharing {\n strategy = \"time-slicing\"\n replicas = 4\n }\n }\n policy_waivers = { \"GF-RS-002\" = \"notebooks share one T4, reviewed 2026-11\" }"},
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
