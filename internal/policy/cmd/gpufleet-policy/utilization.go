package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics"
)

const utilizationUsage = "usage: gpufleet-policy utilization --prometheus URL --pool NAME [--selector MATCHERS] [--window 14d] [--step 5m]\n" +
	"         [--end RFC3339] [--hourly-usd-per-gpu USD] [--kind prometheus|amp|gmp] [--ca-file PEM] [--timeout 30s, 1s to 10m] [-o FILE]\n" +
	"utilization: what a pool's GPUs did over the window, from dcgm-exporter series in a Prometheus-compatible\n" +
	"  query API, as policy data for GF-RS-006 (conftest --data FILE, provider policy.data_files):\n" +
	"  {\"gpufleet\": {\"utilization\": {\"pools\": {NAME: {...}}}}}. NAME is the pool's name (a gpufleet pool's\n" +
	"  name, an official resource's node group or node pool name); --selector defaults to {gpufleet_pool=\"NAME\"}.\n" +
	"  Credentials come from the environment, never the command line: PROMETHEUS_BEARER_TOKEN, or\n" +
	"  PROMETHEUS_USERNAME and PROMETHEUS_PASSWORD (kind prometheus); the AWS SDK's chain (amp); application\n" +
	"  default credentials (gmp).\n"

// observation is one pool's entry in the utilisation data (policies/policy-data.schema.json,
// $defs.observation): the gpufleet_pool_utilization data source's figures, by the same names.
type observation struct {
	Selector               string   `json:"selector"`
	Window                 string   `json:"window"`
	Step                   string   `json:"step"`
	EndTime                string   `json:"end_time"`
	HoursObserved          float64  `json:"hours_observed"`
	Devices                int      `json:"devices"`
	MIGDevices             int      `json:"mig_devices"`
	GPUsMin                int      `json:"gpus_min"`
	GPUsAvg                float64  `json:"gpus_avg"`
	GPUsMax                int      `json:"gpus_max"`
	UtilizationMeanPercent *float64 `json:"utilization_mean_percent"`
	UtilizationP95Percent  *float64 `json:"utilization_p95_percent"`
	MemoryUsedP95GiB       *float64 `json:"memory_used_p95_gib"`
	MemoryUsedP99GiB       *float64 `json:"memory_used_p99_gib"`
	MemoryUsedMaxGiB       *float64 `json:"memory_used_max_gib"`
	HoursUnder10Percent    *float64 `json:"hours_under_10_percent"`
	HoursUnder30Percent    *float64 `json:"hours_under_30_percent"`
	IdleGPUHours           *float64 `json:"idle_gpu_hours"`
	HourlyUSDPerGPU        *float64 `json:"hourly_usd_per_gpu"`
	IdleMonthlyUSD         *float64 `json:"idle_monthly_usd"`
	Warnings               []string `json:"warnings"`
}

func utilization(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("utilization", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	url := fset.String("prometheus", "", "")
	pool := fset.String("pool", "", "")
	selector := fset.String("selector", "", "")
	window := fset.String("window", metrics.DefaultWindow, "")
	step := fset.String("step", metrics.DefaultStep, "")
	end := fset.String("end", "", "")
	price := fset.Float64("hourly-usd-per-gpu", -1, "")
	kind := fset.String("kind", metrics.KindPrometheus, "")
	caFile := fset.String("ca-file", "", "")
	timeout := fset.Duration("timeout", metrics.DefaultTimeout, "")
	out := fset.String("o", "", "")
	if err := fset.Parse(args); err != nil || fset.NArg() != 0 || *url == "" || *pool == "" {
		if err != nil {
			fmt.Fprintf(stderr, "utilization: %v\n", err)
		} else {
			fmt.Fprintln(stderr, "utilization: --prometheus and --pool are required")
		}
		fmt.Fprint(stderr, utilizationUsage)
		return 2
	}
	if *selector == "" {
		*selector = fmt.Sprintf(`{gpufleet_pool=%q}`, *pool)
	}
	q := metrics.Query{Selector: *selector, End: time.Now()}
	var err error
	if q.Window, err = metrics.ParseDuration(*window); err != nil {
		return usageError(stderr, "--window", err)
	}
	if q.Step, err = metrics.ParseDuration(*step); err != nil {
		return usageError(stderr, "--step", err)
	}
	if *end != "" {
		if q.End, err = time.Parse(time.RFC3339, *end); err != nil {
			return usageError(stderr, "--end", fmt.Errorf("%q is not an RFC 3339 time such as 2026-11-20T00:00:00Z", *end))
		}
	}
	if err := q.Validate(); err != nil {
		var we *metrics.WindowError
		var se *metrics.StepError
		switch {
		case errors.As(err, &we):
			return usageError(stderr, "--window", err)
		case errors.As(err, &se):
			return usageError(stderr, "--step", err)
		}
		return usageError(stderr, "--selector", err)
	}
	// A price or a timeout out of range would give figures that look right and are not.
	priceSet := false
	fset.Visit(func(f *flag.Flag) { priceSet = priceSet || f.Name == "hourly-usd-per-gpu" })
	if priceSet && (*price < 0 || math.IsNaN(*price) || math.IsInf(*price, 0)) {
		return usageError(stderr, "--hourly-usd-per-gpu", fmt.Errorf("%v is not a price: give the on-demand price of one GPU-hour in USD, 0 or more", *price))
	}
	if *kind != metrics.KindPrometheus && *kind != metrics.KindAMP && *kind != metrics.KindGMP {
		return usageError(stderr, "--kind", fmt.Errorf("kind %q is not one of prometheus, amp, gmp", *kind))
	}
	if *timeout < time.Second || *timeout > 10*time.Minute {
		return usageError(stderr, "--timeout", fmt.Errorf("%s is not a time limit between 1s and 10m", *timeout))
	}
	ctx := context.Background()
	cfg := metrics.Config{
		URL: *url, Kind: *kind, CAFile: *caFile, Timeout: *timeout,
		BearerToken: os.Getenv("PROMETHEUS_BEARER_TOKEN"), Username: os.Getenv("PROMETHEUS_USERNAME"), Password: os.Getenv("PROMETHEUS_PASSWORD"),
		AWS: func(ctx context.Context) (aws.Config, error) { return config.LoadDefaultConfig(ctx) },
	}
	client, err := metrics.New(ctx, cfg)
	if err != nil {
		var ce *metrics.ConfigError
		if errors.As(err, &ce) && flagOf[ce.Field] != "" {
			return usageError(stderr, flagOf[ce.Field], err)
		}
		fmt.Fprintf(stderr, "utilization: %v\n", err)
		return 1
	}
	if secret := cfg.CleartextSecret(); secret != "" {
		fmt.Fprintf(stderr, "utilization: warning: --prometheus is plain http:// to a host other than this machine, so %s is sent in clear: use https://, or a loopback port-forward\n",
			map[string]string{"bearer_token": "PROMETHEUS_BEARER_TOKEN", "password": "PROMETHEUS_PASSWORD"}[secret])
	}
	u, err := client.Utilization(ctx, q)
	if err != nil {
		fmt.Fprintf(stderr, "utilization: pool %s: %v\n", *pool, err)
		return 1
	}
	for _, w := range u.Warnings {
		fmt.Fprintf(stderr, "utilization: pool %s: warning: %s\n", *pool, w)
	}
	_, qEnd := q.Range()
	obs := observation{
		Selector: q.Selector, Window: *window, Step: *step, EndTime: qEnd.UTC().Format(time.RFC3339),
		HoursObserved: round4(u.HoursObserved), Devices: u.Devices, MIGDevices: u.MIGDevices,
		GPUsMin: u.GPUsMin, GPUsAvg: round4(u.GPUsAvg), GPUsMax: u.GPUsMax,
		UtilizationMeanPercent: known(u.UtilizationKnown, u.UtilizationMeanPercent),
		UtilizationP95Percent:  known(u.UtilizationKnown, u.UtilizationP95Percent),
		HoursUnder10Percent:    known(u.UtilizationKnown, u.HoursUnder10Percent),
		HoursUnder30Percent:    known(u.UtilizationKnown, u.HoursUnder30Percent),
		IdleGPUHours:           known(u.UtilizationKnown, u.IdleGPUHours),
		MemoryUsedP95GiB:       known(u.MemoryKnown, u.MemoryUsedP95GiB),
		MemoryUsedP99GiB:       known(u.MemoryKnown, u.MemoryUsedP99GiB),
		MemoryUsedMaxGiB:       known(u.MemoryKnown, u.MemoryUsedMaxGiB),
		Warnings:               append([]string{}, u.Warnings...),
	}
	if *price >= 0 {
		obs.HourlyUSDPerGPU = known(true, *price)
		obs.IdleMonthlyUSD = known(u.UtilizationKnown, u.IdleMonthlyUSD(*price))
	}
	doc := map[string]any{"gpufleet": map[string]any{"utilization": map[string]any{"pools": map[string]any{*pool: obs}}}}
	err = writeOutput(*out, stdout, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	})
	if err != nil {
		fmt.Fprintf(stderr, "utilization: writing %s: %v\n", *out, err)
		return 1
	}
	return 0
}

// flagOf is the flag of each metrics.ConfigError field that only a flag sets. (A "kind" error past
// the check of --kind's value is about credentials, which come from the environment.)
var flagOf = map[string]string{"url": "--prometheus", "ca_file": "--ca-file"}

func usageError(stderr io.Writer, flagName string, err error) int {
	fmt.Fprintf(stderr, "utilization: %s: %s\n", flagName, strings.TrimSpace(err.Error()))
	return 2
}

func known(ok bool, v float64) *float64 {
	if !ok {
		return nil
	}
	r := round4(v)
	return &r
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
