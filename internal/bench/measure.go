// Package bench measures what `make bench` reports: whole commands (conftest, terraform) against a
// floor measured in the same run, as medians and ratios, and the report it writes
// (bench/results.json, BENCHMARKS.md).
package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Sample is one run of a command: wall time, CPU time (user and system, its children included)
// and peak memory (max RSS of the command and of the children it waited for, such as terraform's
// provider plugins).
type Sample struct {
	WallSeconds float64 `json:"wall_s"`
	CPUSeconds  float64 `json:"cpu_s"`
	PeakMiB     float64 `json:"peak_mib"`
	ExitCode    int     `json:"exit_code"`
}

// Runner runs commands through the measure helper (cmd/measure), built once.
type Runner struct {
	helper string
	dir    string
}

// NewRunner builds the measure helper into a temporary directory of tb.
func NewRunner(tb testing.TB) Runner {
	tb.Helper()
	dir := tb.TempDir()
	helper := filepath.Join(dir, "measure")
	build := exec.Command("go", "build", "-o", helper, "./cmd/measure")
	build.Dir = packageDir(tb)
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("building the measure helper: %v: %s", err, out)
	}
	return Runner{helper: helper, dir: dir}
}

// Build builds the main package pkg (a path relative to the module root) into the runner's
// directory and returns the binary's path.
func (r Runner) Build(tb testing.TB, pkg string) string {
	tb.Helper()
	bin := filepath.Join(r.dir, filepath.Base(pkg))
	build := exec.Command("go", "build", "-o", bin, "./"+strings.TrimPrefix(pkg, "./"))
	build.Dir = filepath.Join(packageDir(tb), "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("building %s: %v: %s", pkg, err, out)
	}
	return bin
}

// Then is the sample of a command run after s: wall and CPU time add up, peak memory is the
// larger of the two (the commands do not run at once).
func (s Sample) Then(next Sample) Sample {
	return Sample{WallSeconds: s.WallSeconds + next.WallSeconds, CPUSeconds: s.CPUSeconds + next.CPUSeconds,
		PeakMiB: max(s.PeakMiB, next.PeakMiB), ExitCode: next.ExitCode}
}

// Run runs args in dir with env (nil: this process's) and returns its sample and output; an exit
// code outside ok (default 0) is an error that carries the output.
func (r Runner) Run(dir string, env []string, ok []int, args ...string) (Sample, []byte, error) {
	if len(ok) == 0 {
		ok = []int{0}
	}
	f, err := os.CreateTemp(r.dir, "sample-*.json")
	if err != nil {
		return Sample{}, nil, err
	}
	f.Close()
	codes := make([]string, len(ok))
	for i, c := range ok {
		codes[i] = strconv.Itoa(c)
	}
	cmd := exec.Command(r.helper, append([]string{"-o", f.Name(), "-ok", strings.Join(codes, ","), "--"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return Sample{}, out, fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, tail(out, 3000))
	}
	raw, err := os.ReadFile(f.Name())
	if err != nil {
		return Sample{}, out, err
	}
	var s Sample
	if err := json.Unmarshal(raw, &s); err != nil {
		return Sample{}, out, err
	}
	if !slices.Contains(ok, s.ExitCode) {
		return s, out, fmt.Errorf("%s: exit code %d", strings.Join(args, " "), s.ExitCode)
	}
	return s, out, nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// packageDir is this package's directory, whichever package's test runs the benchmark.
func packageDir(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "github.com/gpufleet/terraform-provider-gpufleet/internal/bench").Output()
	if err != nil {
		tb.Fatalf("go list: %v", err)
	}
	return strings.TrimSpace(string(out))
}
