package bench

import (
	"io"
	"math"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestMedianAndRatios(t *testing.T) {
	if got := Median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("Median = %g, want 2", got)
	}
	if got := Median([]float64{4, 1, 3, 2}); got != 3 {
		t.Errorf("Median of four = %g, want the upper middle 3", got)
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median of nothing is a number")
	}
	// Pairs ran back to back: the ratio of each pair, then their median.
	if got := MedianRatio([]float64{2, 9, 3}, []float64{1, 3, 1}); got != 3 {
		t.Errorf("MedianRatio = %g, want 3 (ratios 2, 3, 3)", got)
	}
}

func TestIdealApply(t *testing.T) {
	cases := []struct {
		calls, pools, parallelism int
		want                      time.Duration
	}{
		{8, 50, 10, 8 * 5 * 200 * time.Millisecond},
		{8, 51, 10, 8 * 6 * 200 * time.Millisecond},
		{8, 5, 10, 8 * 200 * time.Millisecond},
	}
	for _, c := range cases {
		if got := IdealApply(c.calls, 200*time.Millisecond, c.pools, c.parallelism); got != c.want {
			t.Errorf("IdealApply(%d calls, %d pools, parallelism %d) = %v, want %v", c.calls, c.pools, c.parallelism, got, c.want)
		}
	}
}

const benchOutput = `goos: linux
cpu: Intel(R) Xeon(R) Processor
BenchmarkEvaluate/no-data-2         	   39000	     30000 ns/op	   12000 B/op	     200 allocs/op
BenchmarkEvaluate/no-data-2         	   39000	     28000 ns/op	   12000 B/op	     200 allocs/op
BenchmarkEvaluate/no-data-2         	   39000	     31000 ns/op	   12000 B/op	     200 allocs/op
BenchmarkTerraformApply-2   	       1	90000000000 ns/op	        12.00 eks:calls-per-pool	         0 eks:one-at-a-time-calls-per-pool	        14.2 eks:s-apply-50	        12.00 eks:s-ideal	         1.183 eks:apply/ideal
BenchmarkConftestManifests-2   	       1	16057390279 ns/op	        87.93 combine:MiB-floor	       125.7 combine:MiB-released	         2.091 combine:cpu-released/floor	         2.721 combine:released/floor	         1.430 combine:rss-released/floor	         0.9919 combine:s-floor	         2.699 combine:s-released
--- BENCH: BenchmarkConftestPlan-2
PASS
ok  	github.com/gpufleet/terraform-provider-gpufleet/internal/bench	18.693s
`

// Result lines become medians per benchmark and unit, GOMAXPROCS suffixes dropped; the output
// goes on to the console; the tables show what was measured.
func TestParseBenchOutputAndMarkdown(t *testing.T) {
	var echo strings.Builder
	got, cpu, err := ParseBenchOutput(strings.NewReader(benchOutput), &echo)
	if err != nil {
		t.Fatal(err)
	}
	if echo.String() != benchOutput {
		t.Error("the output was not passed through as it is")
	}
	if cpu != "Intel(R) Xeon(R) Processor" {
		t.Errorf("cpu = %q", cpu)
	}
	if v := got["BenchmarkEvaluate/no-data"]["ns/op"]; v != 30000 {
		t.Errorf("median ns/op = %g, want 30000", v)
	}
	if v := got["BenchmarkTerraformApply"]["eks:apply/ideal"]; v != 1.183 {
		t.Errorf("apply/ideal = %g, want 1.183", v)
	}
	md := Results{Date: "2026-11-24", Machine: Machine{CPUs: 2, MemoryGiB: 24, CPU: cpu, OS: "linux/amd64", Go: "go1.26", Terraform: "1.11.4"}, Benchmarks: got}.Markdown()
	for _, want := range []string{"2026-11-24: 2 CPUs", "| no-data | 30.0 | 200 | 12.0 |", "| eks | 12 | 0 | 14.2 | 12.0 | 1.18 |", "| combine | 0.99 | 2.70 | 2.72 | 2.09 | 88 | 126 | 1.43 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("BENCHMARKS.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "conftest on a plan") {
		t.Error("a table without figures was written")
	}
	if _, _, err := ParseBenchOutput(strings.NewReader(""), io.Discard); err != nil {
		t.Error(err)
	}
}

// The provider the plan benchmark compares with is built with the tag gpufleet_bench_noplanwork:
// it must keep compiling.
func TestNoPlanWorkBuildTagCompiles(t *testing.T) {
	out, err := exec.Command("go", "vet", "-tags", "gpufleet_bench_noplanwork", "github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema").CombinedOutput()
	if err != nil {
		t.Fatalf("go vet -tags gpufleet_bench_noplanwork: %v\n%s", err, out)
	}
}
