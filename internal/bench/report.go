package bench

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Results are the figures of one `make bench`: per benchmark (sub-benchmarks by their path, the
// -N GOMAXPROCS suffix dropped), per unit, the median over the benchmark's result lines (-count).
type Results struct {
	Date       string                        `json:"date"`
	Machine    Machine                       `json:"machine"`
	Benchmarks map[string]map[string]float64 `json:"benchmarks"`
}

// Machine is what the figures were measured on.
type Machine struct {
	CPUs      int     `json:"cpus"`
	MemoryGiB float64 `json:"memory_gib"`
	CPU       string  `json:"cpu"`
	OS        string  `json:"os"`
	Go        string  `json:"go"`
	Terraform string  `json:"terraform"`
}

var procsSuffix = regexp.MustCompile(`-\d+$`)

// ParseBenchOutput reads `go test -bench` output, copying it to echo, and collects every metric
// of every result line; the "cpu:" header names the processor.
func ParseBenchOutput(r io.Reader, echo io.Writer) (benchmarks map[string]map[string]float64, cpu string, err error) {
	samples := map[string]map[string][]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(echo, line)
		if c, ok := strings.CutPrefix(line, "cpu: "); ok {
			cpu = strings.TrimSpace(c)
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") || len(fields)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(fields[1]); err != nil {
			continue
		}
		name := procsSuffix.ReplaceAllString(fields[0], "")
		if samples[name] == nil {
			samples[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			samples[name][fields[i+1]] = append(samples[name][fields[i+1]], v)
		}
	}
	benchmarks = map[string]map[string]float64{}
	for name, units := range samples {
		benchmarks[name] = map[string]float64{}
		for unit, vs := range units {
			benchmarks[name][unit] = Median(vs)
		}
	}
	return benchmarks, cpu, sc.Err()
}

// Markdown renders the results as BENCHMARKS.md: one table per figure make bench reports.
func (r Results) Markdown() string {
	var b strings.Builder
	m := r.Machine
	fmt.Fprintf(&b, "# Benchmarks\n\nWritten by `make bench` on %s: %d CPUs (%s), %.0f GiB, %s, %s, Terraform %s. ", r.Date, m.CPUs, m.CPU, m.MemoryGiB, m.OS, m.Go, m.Terraform)
	b.WriteString("Every ratio is the median of ratios of runs made back to back in the same `make bench`, so it holds on a machine that is busy with other work, where the absolute figures do not; `bench/results.json` has every figure.\n")

	if rows := r.evaluateRows(); len(rows) > 0 {
		b.WriteString("\n## Policy evaluation in the provider, per pool\n\n`BenchmarkEvaluate`: one pool document through the embedded bundle, as `terraform plan` evaluates every gpufleet pool.\n\n")
		table(&b, []string{"document", "µs", "allocations", "KB allocated"}, rows)
	}
	if rows := r.conftestRows(); len(rows) > 0 {
		b.WriteString("\n## conftest on a plan\n\n`BenchmarkConftestPlan`: `conftest test` with the gpufleet bundle against the floor, conftest with a one-rule policy on the same plan (reading and converting the plan), both with policy data. Plans: *official*, `aws_eks_node_group` and `google_container_node_pool` from the committed fixtures, one in ten violating, each with its configuration block (about 4.7 KB a resource in the plan); *official-small*, the same resources as for_each instances (one configuration block per resource block: about 2.2 KB a resource change, 3.6 KB a resource in the plan); *gpufleet*, gpufleet pools as terraform plans them; *platform*, a platform team's plan where one resource in a hundred is a GPU node group or pool (official and gpufleet) and the rest IAM role policy attachments, security-group rules, S3 buckets, helm releases, Google IAM members and CPU node groups and node pools, in tenant modules. Wall and peak-memory ratios to the floor; targets: platform 1.15, official-small 2.5.\n\n")
		table(&b, []string{"plan", "floor s", "bundle s", "wall ×", "CPU ×", "floor MiB", "bundle MiB", "memory ×"}, rows)
	}
	if rows := r.conftestTable("released"); len(rows) > 0 {
		b.WriteString("\n## conftest on a plan, with the release's bundle\n\nThe same plans and floor, conftest on the plan itself with the bundle `gpufleet-policy bundle` writes (the rules without their `_test.rego` unit tests, which conftest would compile on every run): the first table less the tests' fixed cost.\n\n")
		table(&b, []string{"plan", "floor s", "bundle s", "wall ×", "CPU ×", "floor MiB", "bundle MiB", "memory ×"}, rows)
	}
	if rows := r.documentsRows(); len(rows) > 0 {
		b.WriteString("\n## conftest on the pool documents of a plan\n\nThe same plans and floor, the way CI runs the bundle at its best: `gpufleet-policy bundle -o gpufleet-policies` (the bundle of the release, without its unit tests), `gpufleet-policy documents -o pools.json plan.json` (every pool document built once, in Go), then `conftest test --policy gpufleet-policies` on `pools.json` (the same findings as on the plan). Wall and CPU time of the three commands added up, the largest peak memory; target 1.5 (memory 1.0).\n\n")
		table(&b, []string{"plan", "floor s", "documents + conftest s", "wall ×", "CPU ×", "floor MiB", "peak MiB", "memory ×"}, rows)
	}
	if rows := r.manifestRows(); len(rows) > 0 {
		b.WriteString("\n## conftest on manifests\n\n`BenchmarkConftestManifests`: `conftest test` with the release's bundle (what `gpufleet-policy bundle` writes) against the floor, conftest with a one-deny-one-warn policy, on the same GitOps directory of 2 000 Kubernetes objects in multi-document YAML files, of which 100 (5 %) are GPU NodePools (Karpenter and EKS Auto Mode) or GKE ComputeClasses, beside their node classes and NodeOverlays, CPU NodePools and apps' Deployments, Services, ConfigMaps, ServiceAccounts and HorizontalPodAutoscalers, with policy data (clients and the cluster registry). *combine*: `conftest test --combine` on the directory, as the guide *Policy in CI* has teams run it (target 1.3); *separate*: without `--combine`, each YAML document judged alone; *documents*: `gpufleet-policy bundle`, `gpufleet-policy documents --data … -o pools.json` on the directory (every pool document built once, in Go) and `conftest test` on `pools.json` (the findings of *combine*, to the letter), the three commands' times added up and the largest peak memory, against *combine*'s floor. *combine, 10 000 objects*: *combine* on a directory laid out alike five times the size (500 GPU objects); *combine, one object*: on a directory of one Deployment, what loading each policy costs whatever the directory holds. The bundle's extra cost is mostly that fixed one (conftest parses and compiles the bundle on every run), so its ratio to the floor falls as the directory grows.\n\n")
		table(&b, []string{"run", "floor s", "bundle s", "wall ×", "CPU ×", "floor MiB", "bundle MiB", "memory ×"}, rows)
	}
	if rows := r.planRows(); len(rows) > 0 {
		b.WriteString("\n## terraform plan of 200 pools\n\n`BenchmarkTerraformPlan`: `terraform plan` of 200 new pools, against the same plan by a provider built without gpufleet's plan-time work (validation, derivation, policy; build tag `gpufleet_bench_noplanwork`) and against 200 `terraform_data`. Peak memory is terraform's or the provider's, whichever is larger.\n\n")
		table(&b, []string{"cloud", "pools s", "no plan work s", "terraform_data s", "× no plan work", "× terraform_data", "plan work ms/pool", "pools MiB", "memory × no plan work", "memory × terraform_data"}, rows)
	}
	if rows := r.karpenterPlanRows(); len(rows) > 0 {
		b.WriteString("\n## terraform plan of 200 Karpenter pools\n\n`BenchmarkTerraformPlanKarpenter`: `terraform plan` of 200 new `gpufleet_karpenter_node_pool` (four objects each: an EC2NodeClass, two NodePools, a NodeOverlay), whose objects the provider validates in process against Karpenter's CRDs, against the same plan by a provider built without that validation (build tag `gpufleet_bench_novalidation`; rendering, derivation and policy stay). The CRDs are compiled once per provider process, in the figures.\n\n")
		table(&b, []string{"pools s", "no validation s", "× no validation", "validation ms/pool", "pools MiB", "memory × no validation"}, rows)
	}
	r.utilizationSection(&b)
	if rows := r.applyRows(); len(rows) > 0 {
		b.WriteString("\n## terraform apply of 50 pools\n\n`BenchmarkTerraformApply`: `terraform apply -parallelism=10` of 50 new pools in one cluster, cloudsim answering every call after 200 ms, against the ideal: one pool's calls × 200 ms × ⌈50/10⌉, and at least, where the cloud runs some calls one at a time per cluster (none today: GKE runs the node pool operations of a cluster side by side), those calls of all 50 pools in a row.\n\n")
		table(&b, []string{"cloud", "calls per pool", "one at a time", "apply s", "ideal s", "× ideal"}, rows)
	}
	return b.String()
}

func (r Results) evaluateRows() [][]string {
	var rows [][]string
	for _, name := range slices.Sorted(maps.Keys(r.Benchmarks)) {
		doc, ok := strings.CutPrefix(name, "BenchmarkEvaluate/")
		if !ok {
			continue
		}
		m := r.Benchmarks[name]
		rows = append(rows, []string{doc, num(m["ns/op"]/1000, 1), num(m["allocs/op"], 0), num(m["B/op"]/1000, 1)})
	}
	return rows
}

func (r Results) conftestRows() [][]string { return r.conftestTable("bundle") }

func (r Results) documentsRows() [][]string { return r.conftestTable("documents") }

// conftestTable is BenchmarkConftestPlan's figures of one way to run the bundle (bundle: on the
// plan; documents: on gpufleet-policy documents' file), a row per plan, against the floor.
func (r Results) conftestTable(way string) [][]string {
	m := r.Benchmarks["BenchmarkConftestPlan"]
	var rows [][]string
	for _, plan := range []string{"official@1k", "official@10k", "official-small@1k", "official-small@10k", "gpufleet@1k", "gpufleet@10k", "platform@2k", "platform@20k"} {
		if _, ok := m[plan+":s-"+way]; !ok {
			continue
		}
		rows = append(rows, []string{plan, num(m[plan+":s-one-rule"], 2), num(m[plan+":s-"+way], 2), num(m[plan+":"+way+"/one-rule"], 2),
			num(m[plan+":cpu-"+way+"/one-rule"], 2), num(m[plan+":MiB-one-rule"], 0), num(m[plan+":MiB-"+way], 0), num(m[plan+":rss-"+way+"/one-rule"], 2)})
	}
	return rows
}

// manifestRows is BenchmarkConftestManifests' figures, a row per way of running conftest.
func (r Results) manifestRows() [][]string {
	m := r.Benchmarks["BenchmarkConftestManifests"]
	var rows [][]string
	for _, way := range []struct{ key, label string }{{"combine", "combine"}, {"separate", "separate"}, {"documents", "documents"},
		{"combine-10k", "combine, 10 000 objects"}, {"combine-1", "combine, one object"}} {
		label, way := way.label, way.key
		if _, ok := m[way+":s-released"]; !ok {
			continue
		}
		rows = append(rows, []string{label, num(m[way+":s-floor"], 2), num(m[way+":s-released"], 2), num(m[way+":released/floor"], 2),
			num(m[way+":cpu-released/floor"], 2), num(m[way+":MiB-floor"], 0), num(m[way+":MiB-released"], 0), num(m[way+":rss-released/floor"], 2)})
	}
	return rows
}

func (r Results) planRows() [][]string {
	m := r.Benchmarks["BenchmarkTerraformPlan"]
	var rows [][]string
	for _, cloud := range []string{"eks", "gke"} {
		if _, ok := m[cloud+":s-plan-pools"]; !ok {
			continue
		}
		rows = append(rows, []string{cloud, num(m[cloud+":s-plan-pools"], 2), num(m[cloud+":s-plan-no-plan-work"], 2), num(m[cloud+":s-plan-terraform_data"], 2),
			num(m[cloud+":pools/no-plan-work"], 2), num(m[cloud+":pools/terraform_data"], 1), num(m[cloud+":ms-plan-work-per-pool"], 2),
			num(m[cloud+":MiB-plan-pools"], 0), num(m[cloud+":rss-pools/no-plan-work"], 2), num(m[cloud+":rss-pools/terraform_data"], 2)})
	}
	return rows
}

func (r Results) karpenterPlanRows() [][]string {
	m, ok := r.Benchmarks["BenchmarkTerraformPlanKarpenter"]
	if !ok {
		return nil
	}
	return [][]string{{num(m["karpenter:s-plan-pools"], 2), num(m["karpenter:s-plan-no-validation"], 2), num(m["karpenter:pools/no-validation"], 2),
		num(m["karpenter:ms-validation-per-pool"], 2), num(m["karpenter:MiB-plan-pools"], 0), num(m["karpenter:rss-pools/no-validation"], 2)}}
}

func (r Results) applyRows() [][]string {
	m := r.Benchmarks["BenchmarkTerraformApply"]
	var rows [][]string
	for _, cloud := range []string{"eks", "gke"} {
		if _, ok := m[cloud+":s-apply-50"]; !ok {
			continue
		}
		rows = append(rows, []string{cloud, num(m[cloud+":calls-per-pool"], 0), num(m[cloud+":one-at-a-time-calls-per-pool"], 0),
			num(m[cloud+":s-apply-50"], 1), num(m[cloud+":s-ideal"], 1), num(m[cloud+":apply/ideal"], 2)})
	}
	return rows
}

func num(v float64, decimals int) string { return strconv.FormatFloat(v, 'f', decimals, 64) }

func table(b *strings.Builder, header []string, rows [][]string) {
	fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, row := range rows {
		fmt.Fprintf(b, "| %s |\n", strings.Join(row, " | "))
	}
}
