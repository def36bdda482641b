// Package metricstest runs a real Prometheus server for tests, backfilled with two weeks of
// dcgm-exporter-shaped series (promtool tsdb create-blocks-from openmetrics) for a few pools whose
// behaviour is known: steady, idle, bursty, a MIG pool, a pool that loses a GPU, and the guide's
// worked example (acme-train), and one whose every sample is NaN (UnusablePools). Tests compute
// the figures they expect from Pools directly, not through package metrics.
package metricstest

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"
)

// Step is the fixtures' sample interval; Days how far back they reach (a day more than the
// default window, so a 14-day query is covered throughout).
const (
	Step = 5 * time.Minute
	Days = 15
)

// Steps is the number of samples of a device that reports throughout.
const Steps = Days * 24 * int(time.Hour/Step)

// Device is one GPU or MIG device of a fixture pool. At step k (0 = the oldest), it reports when
// From <= k < To: utilisation Util(k) in percent (as DCGM_FI_DEV_GPU_UTIL unless MIG, and as
// DCGM_FI_PROF_GR_ENGINE_ACTIVE = Util/100 when Engine) and framebuffer used FBMiB(k).
type Device struct {
	Pool, Host, UUID string
	GPU              int
	MIGProfile       string // GPU_I_PROFILE, e.g. "3g.40gb"; "" for a whole GPU
	MIGID            string // GPU_I_ID
	Engine           bool
	From, To         int
	Util             func(k int) float64
	FBMiB            func(k int) float64
	// PodEvery, when set, changes the series' pod label every PodEvery steps, as dcgm-exporter does
	// when pods come and go: the device must still count once.
	PodEvery int
}

// Reports says whether d reports at step k.
func (d Device) Reports(k int) bool { return k >= d.From && k < d.To }

// ModelName is the dcgm-exporter modelName of every fixture GPU.
const ModelName = "NVIDIA H100 80GB HBM3"

// Pools are the fixture pools by their gpufleet_pool label.
func Pools() map[string][]Device {
	perHour := int(time.Hour / Step)
	all := func(d Device) Device { d.From, d.To = 0, Steps; return d }
	pools := map[string][]Device{}
	// steady: four GPUs on two nodes, 60-80 % on a three-step cycle, memory 40-59 GiB, pods churn daily.
	for i := range 4 {
		pools["steady"] = append(pools["steady"], all(Device{
			Host: fmt.Sprintf("ip-10-0-1-%d", 10+i/2), UUID: fmt.Sprintf("GPU-5ead%04d", i), GPU: i % 2, PodEvery: 24 * perHour,
			Util:  func(k int) float64 { return float64(60 + 10*((k+i)%3)) },
			FBMiB: func(k int) float64 { return float64(40*1024 + 1024*((k*7+i)%20)) },
		}))
	}
	// idle: two GPUs at 3 % holding 2 GiB.
	for i := range 2 {
		pools["idle"] = append(pools["idle"], all(Device{
			Host: "ip-10-0-2-10", UUID: fmt.Sprintf("GPU-1d1e%04d", i), GPU: i,
			Util:  func(int) float64 { return 3 },
			FBMiB: func(int) float64 { return 2048 },
		}))
	}
	// bursty: three GPUs busy at 95 % two hours of every twelve, otherwise 5 %; engine activity too.
	for i := range 3 {
		pools["bursty"] = append(pools["bursty"], all(Device{
			Host: "ip-10-0-3-10", UUID: fmt.Sprintf("GPU-b325%04d", i), GPU: i, Engine: true,
			Util: func(k int) float64 {
				if k%(12*perHour) < 2*perHour {
					return 95
				}
				return 5
			},
			FBMiB: func(k int) float64 {
				if k%(12*perHour) < 2*perHour {
					return 70 * 1024
				}
				return 10 * 1024
			},
		}))
	}
	// mig: one H100 split 3g.40gb + 2g.20gb + 1g.10gb + 1g.10gb; engine activity only (dcgm-exporter
	// reports no GPU_UTIL for MIG devices).
	for i, p := range []string{"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"} {
		pools["mig"] = append(pools["mig"], all(Device{
			Host: "ip-10-0-4-10", UUID: "GPU-319a0000", MIGProfile: p, MIGID: fmt.Sprint(i + 1), Engine: true,
			Util:  func(k int) float64 { return float64(10 * (i + 1)) },
			FBMiB: func(k int) float64 { return float64(1024 * (i + 1)) },
		}))
	}
	// shrink: three GPUs at 40 %; the third disappears (node scaled in) half-way through the window.
	for i := range 3 {
		d := all(Device{
			Host: fmt.Sprintf("ip-10-0-5-%d", 10+i), UUID: fmt.Sprintf("GPU-5a1c%04d", i),
			Util:  func(int) float64 { return 40 },
			FBMiB: func(int) float64 { return 8 * 1024 },
		})
		if i == 2 {
			d.To = Steps - 7*24*perHour
		}
		pools["shrink"] = append(pools["shrink"], d)
	}
	// acme-train: the guide's worked example (seed 002): 20 H100s at 18 % on average (10 % and 26 %
	// on alternate steps), each holding 12-18 GiB.
	for i := range 20 {
		pools["acme-train"] = append(pools["acme-train"], all(Device{
			Host: fmt.Sprintf("gke-acme-train-%d", i/4), UUID: fmt.Sprintf("GPU-acae%04d", i), GPU: i % 4,
			Util:  func(k int) float64 { return float64(10 + 16*((k+i)%2)) },
			FBMiB: func(k int) float64 { return float64(1024 * (12 + (k*3+i)%7)) },
		}))
	}
	for name, ds := range pools {
		for i := range ds {
			ds[i].Pool = name
		}
	}
	return pools
}

// UnusablePools are fixture pools whose series exist but give no usable figure, by their
// gpufleet_pool label: "nan", two GPUs whose every sample of every metric is NaN (dcgm-exporter
// exports NaN for a field DCGM has no value for). They are backfilled with Pools, apart from them:
// Want has nothing to compute for them.
func UnusablePools() map[string][]Device {
	nan := func(int) float64 { return math.NaN() }
	var pool []Device
	for i := range 2 {
		pool = append(pool, Device{Pool: "nan", Host: "ip-10-0-6-10", UUID: fmt.Sprintf("GPU-0a0a%04d", i), GPU: i, From: 0, To: Steps, Util: nan, FBMiB: nan})
	}
	return map[string][]Device{"nan": pool}
}

// WriteOpenMetrics writes every device's series, the last sample at end (on a Step boundary), in
// the OpenMetrics text format promtool backfills: one family at a time, each series in time order.
func WriteOpenMetrics(w io.Writer, pools map[string][]Device, end time.Time) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	start := end.Add(-time.Duration(Steps-1) * Step)
	names := make([]string, 0, len(pools))
	for n := range pools {
		names = append(names, n)
	}
	sort.Strings(names)
	families := []struct {
		name, help string
		value      func(d Device, k int) (float64, bool)
	}{
		{"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", func(d Device, k int) (float64, bool) { return d.Util(k), d.MIGProfile == "" }},
		{"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active.", func(d Device, k int) (float64, bool) { return d.Util(k) / 100, d.Engine }},
		{"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", func(d Device, k int) (float64, bool) { return d.FBMiB(k), true }},
	}
	for _, f := range families {
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s gauge\n", f.name, f.help, f.name)
		for _, n := range names {
			for _, d := range pools[n] {
				if _, ok := f.value(d, 0); !ok {
					continue
				}
				for k := d.From; k < d.To; k++ {
					v, _ := f.value(d, k)
					fmt.Fprintf(bw, "%s{%s} %g %d\n", f.name, labels(d, k), v, start.Add(time.Duration(k)*Step).Unix())
				}
			}
		}
	}
	fmt.Fprintln(bw, "# EOF")
	return bw.Flush()
}

func labels(d Device, k int) string {
	l := []string{
		fmt.Sprintf(`gpu="%d"`, d.GPU), fmt.Sprintf(`UUID="%s"`, d.UUID), `device="nvidia` + fmt.Sprint(d.GPU) + `"`,
		fmt.Sprintf(`modelName="%s"`, ModelName), fmt.Sprintf(`Hostname="%s"`, d.Host),
		`DCGM_FI_DRIVER_VERSION="570.124.06"`, `namespace="gpu-operator"`, fmt.Sprintf(`gpufleet_pool="%s"`, d.Pool),
	}
	if d.MIGProfile != "" {
		l = append(l, fmt.Sprintf(`GPU_I_PROFILE="%s"`, d.MIGProfile), fmt.Sprintf(`GPU_I_ID="%s"`, d.MIGID))
	}
	if d.PodEvery > 0 {
		l = append(l, fmt.Sprintf(`pod="trainer-%d"`, k/d.PodEvery))
	}
	return strings.Join(l, ",")
}
