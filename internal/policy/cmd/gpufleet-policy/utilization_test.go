package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics/metricstest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/plandoc"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
)

func TestMain(m *testing.M) {
	code := m.Run()
	metricstest.StopShared()
	os.Exit(code)
}

// runUtilization runs the command against the shared real Prometheus with its credentials.
func runUtilization(t *testing.T, srv *metricstest.Server, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("PROMETHEUS_USERNAME", metricstest.Username)
	t.Setenv("PROMETHEUS_PASSWORD", metricstest.Password)
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"utilization", "--prometheus", srv.URL, "--end", srv.End.Format(time.RFC3339)}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// The file the command writes holds the pool's figures, as computed from the fixtures directly.
func TestUtilization_writesObservedFigures(t *testing.T) {
	srv := metricstest.Shared(t)
	out := filepath.Join(t.TempDir(), "util.json")
	code, _, stderr := runUtilization(t, srv, "--pool", "acme-train", "--selector", `{gpufleet_pool="bursty"}`, "--hourly-usd-per-gpu", "6.88", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		GPUFleet struct {
			Utilization struct {
				Pools map[string]observation `json:"pools"`
			} `json:"utilization"`
		} `json:"gpufleet"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	obs, ok := doc.GPUFleet.Utilization.Pools["acme-train"]
	if !ok {
		t.Fatalf("no pool acme-train in %s", raw)
	}
	want := metricstest.Want(metricstest.Pools()["bursty"], 14*24*12)
	for name, pair := range map[string][2]float64{
		"p95":      {*obs.UtilizationP95Percent, want.P95},
		"mean":     {*obs.UtilizationMeanPercent, want.Mean},
		"idle":     {*obs.IdleGPUHours, want.Idle},
		"idle usd": {*obs.IdleMonthlyUSD, want.Idle * 730 / want.HoursObserved * 6.88},
		"mem p99":  {*obs.MemoryUsedP99GiB, want.MemP99},
		"under 30": {*obs.HoursUnder30Percent, want.Under30},
		"gpus max": {float64(obs.GPUsMax), float64(want.GPUsMax)},
		"hours":    {obs.HoursObserved, want.HoursObserved},
	} {
		if math.Abs(pair[0]-pair[1]) > 1.5e-4 {
			t.Errorf("%s = %v, want %v", name, pair[0], pair[1])
		}
	}
	if _, err := policy.LoadData([]string{out}); err != nil {
		t.Errorf("the file is not valid policy data: %v", err)
	}
}

// A pool whose series report only NaN: the file holds null figures and no NaN (encoding/json
// refused NaN: "json: unsupported value: NaN", exit 1), is valid policy data, and the warnings say
// why on standard error.
func TestUtilization_onlyNaNSamples(t *testing.T) {
	srv := metricstest.Shared(t)
	out := filepath.Join(t.TempDir(), "util.json")
	code, _, stderr := runUtilization(t, srv, "--pool", "nan", "--hourly-usd-per-gpu", "6.88", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]map[string]map[string]map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	obs := doc["gpufleet"]["utilization"]["pools"]["nan"]
	for _, name := range []string{"utilization_p95_percent", "utilization_mean_percent", "idle_gpu_hours", "idle_monthly_usd", "memory_used_p99_gib"} {
		if v, ok := obs[name]; !ok || v != nil {
			t.Errorf("%s = %v, want null", name, v)
		}
	}
	if obs["devices"] != 2.0 || obs["gpus_avg"] != 0.0 || obs["hours_observed"] != 0.0 {
		t.Errorf("devices %v, gpus_avg %v, hours_observed %v", obs["devices"], obs["gpus_avg"], obs["hours_observed"])
	}
	for _, want := range []string{"DCGM_FI_DEV_GPU_UTIL sample(s) of 2 series were NaN or ±Inf", "utilisation, hours under 10 %/30 % and idle GPU-hours are unknown", "memory used is unknown"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no warning %q in %s", want, stderr)
		}
	}
	if _, err := policy.LoadData([]string{out}); err != nil {
		t.Errorf("the file is not valid policy data: %v", err)
	}
}

// GF-RS-006 from the same utilisation file gives the same finding in conftest (on a plan) and in
// the provider's engine (on the pool's document), and none for a busy pool.
func TestUtilization_sameFindingInConftestAndProvider(t *testing.T) {
	srv := metricstest.Shared(t)
	bin := os.Getenv("GPUFLEET_CONFTEST")
	if bin == "" {
		t.Skip("GPUFLEET_CONFTEST is not set (make test sets it)")
	}
	dir := t.TempDir()
	idle, busy := filepath.Join(dir, "idle.json"), filepath.Join(dir, "busy.json")
	// acme-train observed as the idle fixture pool; globex-infer as the steady one.
	if code, _, stderr := runUtilization(t, srv, "--pool", "acme-train", "--selector", `{gpufleet_pool="idle"}`, "--hourly-usd-per-gpu", "6.88", "-o", idle); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runUtilization(t, srv, "--pool", "globex-infer", "--selector", `{gpufleet_pool="steady"}`, "-o", busy); code != 0 {
		t.Fatal(stderr)
	}
	planFile := "../../../../policies/testdata/gpufleet_compliant.json"

	// conftest on the plan.
	out, err := exec.Command(bin, "test", "--no-color", "--output", "json", "--policy", "../../../../policies",
		"--data", example, "--data", idle, "--data", busy, planFile).Output()
	var exitErr *exec.ExitError
	if err != nil && (!errors.As(err, &exitErr) || exitErr.ExitCode() != 1) {
		t.Fatalf("conftest: %v: %s", err, out)
	}
	var results []struct {
		Warnings []policy.Finding `json:"warnings"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatal(err)
	}
	var fromConftest []string
	for _, r := range results {
		for _, w := range r.Warnings {
			if strings.HasPrefix(w.Msg, "GF-RS-006") {
				fromConftest = append(fromConftest, w.Msg)
			}
		}
	}

	// The provider's engine, with the same files as policy.data_files, on the plan's pool documents.
	data, err := policy.LoadData([]string{example, idle, busy})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := policy.New(context.Background(), policy.Options{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(planFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	plan, err := plandoc.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := plan.Build()
	if err != nil {
		t.Fatal(err)
	}
	var fromProvider []string
	for _, p := range docs.Pools {
		var doc map[string]any
		if err := json.Unmarshal(p.Document, &doc); err != nil {
			t.Fatal(err)
		}
		doc["address"] = p.Address
		findings, err := engine.Evaluate(context.Background(), doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			if f.Rule == "GF-RS-006" {
				fromProvider = append(fromProvider, f.Msg)
			}
		}
	}
	if len(fromConftest) != 1 || !strings.Contains(fromConftest[0], "gpufleet_eks_node_pool.acme_train: observed P95 GPU utilisation 3 % over 14d") ||
		!strings.Contains(fromConftest[0], "idle GPU-hours, about $") {
		t.Fatalf("conftest GF-RS-006 findings: %q", fromConftest)
	}
	if strings.Join(fromProvider, "\n") != strings.Join(fromConftest, "\n") {
		t.Errorf("provider findings %q\nconftest findings %q", fromProvider, fromConftest)
	}
}

func TestUtilization_badInput(t *testing.T) {
	srv := metricstest.Shared(t)
	cases := map[string]struct {
		args []string
		code int
		want string
	}{
		"no pool":            {nil, 2, "--prometheus and --pool are required"},
		"window over 90d":    {[]string{"--pool", "p", "--window", "91d", "--step", "1h"}, 2, "--window: window 91d is longer than the maximum of 90d"},
		"too many points":    {[]string{"--pool", "p", "--window", "60d", "--step", "1m"}, 2, "--step: window 60d at step 1m would return 86400 points"},
		"matching nothing":   {[]string{"--pool", "nobody"}, 1, `pool nobody: selector {gpufleet_pool="nobody"} matches no dcgm-exporter series`},
		"bad selector":       {[]string{"--pool", "p", "--selector", "pool=p"}, 2, "--selector: selector \"pool=p\" must be label matchers in braces"},
		"negative price":     {[]string{"--pool", "idle", "--hourly-usd-per-gpu", "-1"}, 2, "--hourly-usd-per-gpu: -1 is not a price"},
		"price not a number": {[]string{"--pool", "idle", "--hourly-usd-per-gpu", "NaN"}, 2, "--hourly-usd-per-gpu: NaN is not a price"},
		"zero timeout":       {[]string{"--pool", "idle", "--timeout", "0s"}, 2, "--timeout: 0s is not a time limit between 1s and 10m"},
		"negative timeout":   {[]string{"--pool", "idle", "--timeout", "-5s"}, 2, "--timeout: -5s is not a time limit"},
		"timeout under 1s":   {[]string{"--pool", "idle", "--timeout", "500ms"}, 2, "--timeout: 500ms is not a time limit between 1s and 10m"},
		"unknown kind":       {[]string{"--pool", "idle", "--kind", "thanos"}, 2, `--kind: kind "thanos" is not one of prometheus, amp, gmp`},
		"password for amp":   {[]string{"--pool", "idle", "--kind", "amp"}, 1, `utilization: bearer_token, username and password are for kind "prometheus"; "amp" authenticates`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := runUtilization(t, srv, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
	// A password over plain http:// to another machine is warned about (the query then fails here:
	// the host does not resolve); the password itself is never printed.
	t.Run("password over plain http", func(t *testing.T) {
		t.Setenv("PROMETHEUS_USERNAME", metricstest.Username)
		t.Setenv("PROMETHEUS_PASSWORD", "pw-s3cret")
		var stdout, stderr bytes.Buffer
		code := run([]string{"utilization", "--prometheus", "http://prometheus.invalid:9090", "--pool", "idle", "--timeout", "5s"}, strings.NewReader(""), &stdout, &stderr)
		want := "utilization: warning: --prometheus is plain http:// to a host other than this machine, so PROMETHEUS_PASSWORD is sent in clear"
		if code != 1 || !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "s3cret") {
			t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), want)
		}
	})
	t.Run("password to a loopback port-forward", func(t *testing.T) {
		code, _, stderr := runUtilization(t, srv, "--pool", "idle")
		if code != 0 || strings.Contains(stderr, "sent in clear") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		t.Setenv("PROMETHEUS_USERNAME", metricstest.Username)
		t.Setenv("PROMETHEUS_PASSWORD", "wrong")
		var stdout, stderr bytes.Buffer
		code := run([]string{"utilization", "--prometheus", srv.URL, "--pool", "idle"}, strings.NewReader(""), &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "client error: 401") || strings.Contains(stderr.String(), "wrong") {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	})
}
