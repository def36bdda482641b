package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkConftestPlan measures conftest with the gpufleet bundle on generated plans of 1 000 and
// 10 000 pools against conftest with a one-rule policy on the same plans (reading the plan is the
// floor). It reports the ratios the targets are stated in:
//
//	bundle/one-rule@10k   ≤ 1.5
//	growth-10k/1k         ≈ 10 (linear)
//
// Run with -benchtime=1x (make bench does): each iteration runs conftest twelve times.
func BenchmarkConftestPlan(b *testing.B) {
	bin := os.Getenv("GPUFLEET_CONFTEST")
	if bin == "" {
		b.Skip("GPUFLEET_CONFTEST is not set (make bench sets it to the pinned conftest)")
	}
	dir := b.TempDir()
	plans := map[int]string{}
	for _, n := range []int{1000, 10000} {
		p := filepath.Join(dir, fmt.Sprintf("plan-%d.json", n))
		if err := writeGeneratedPlan(p, n); err != nil {
			b.Fatal(err)
		}
		plans[n] = p
	}
	bundle, _ := filepath.Abs("../../policies")
	oneRule, _ := filepath.Abs("testdata/one_rule")
	for b.Loop() {
		best := func(policyDir, plan string) time.Duration {
			var fastest time.Duration
			for range 3 {
				start := time.Now()
				cmd := exec.Command(bin, "test", "--no-color", "--policy", policyDir, plan)
				out, err := cmd.CombinedOutput()
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
		bundle1k, base1k := best(bundle, plans[1000]), best(oneRule, plans[1000])
		bundle10k, base10k := best(bundle, plans[10000]), best(oneRule, plans[10000])
		b.ReportMetric(bundle10k.Seconds(), "s-bundle@10k")
		b.ReportMetric(base10k.Seconds(), "s-one-rule@10k")
		b.ReportMetric(float64(bundle10k)/float64(base10k), "bundle/one-rule@10k")
		b.ReportMetric(float64(bundle1k)/float64(base1k), "bundle/one-rule@1k")
		b.ReportMetric(float64(bundle10k)/float64(bundle1k), "growth-10k/1k")
	}
}

func asExitError(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError) //nolint:errorlint // exec returns *ExitError unwrapped
	if ok {
		*target = e
	}
	return ok
}

// writeGeneratedPlan writes a plan JSON of n pools, made by repeating the resource changes of the
// committed gpufleet fixture (compliant and violating pools of both clouds) under new addresses.
func writeGeneratedPlan(path string, n int) error {
	var templates []map[string]any
	var plan map[string]any
	for _, fixture := range []string{"gpufleet_compliant.json", "gpufleet_violating.json"} {
		raw, err := os.ReadFile(filepath.Join("../../policies/testdata", fixture))
		if err != nil {
			return err
		}
		var p map[string]any
		if err := json.Unmarshal(raw, &p); err != nil {
			return err
		}
		if plan == nil {
			plan = p
		}
		for _, rc := range p["resource_changes"].([]any) {
			templates = append(templates, rc.(map[string]any))
		}
	}
	changes := make([]any, n)
	for i := range n {
		rc := deepCopy(templates[i%len(templates)])
		name := fmt.Sprintf("%s_%05d", rc["name"], i)
		rc["name"] = name
		rc["address"] = fmt.Sprintf("%s.%s", rc["type"], name)
		changes[i] = rc
	}
	plan["resource_changes"] = changes
	plan["planned_values"] = map[string]any{"root_module": map[string]any{}}
	out, err := json.Marshal(plan)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o600)
}

func deepCopy(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}
