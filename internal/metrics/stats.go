package metrics

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// HoursPerMonth is the month idle cost is scaled to, as everywhere in gpufleet.
const HoursPerMonth = 730

// Series is what the range queries returned, one matrix per metric (nil when the query matched no
// series).
type Series struct {
	GPUUtil      model.Matrix
	EngineActive model.Matrix
	FBUsed       model.Matrix
}

// Utilization is what a pool's GPUs did over a window. Devices are GPUs and MIG devices alike (a
// MIG device is one device; in utilisation means and idle GPU-hours it weighs its share of the
// GPU's compute slices, e.g. 3g.40gb = 3/7). Fields documented "unknown" are meaningless unless
// their Known flag is set: gpufleet never turns a missing series into a zero.
type Utilization struct {
	// Points is the number of steps in the window; StepsObserved those in which a device reported.
	Points, StepsObserved int
	// HoursObserved is StepsObserved × step, in hours.
	HoursObserved float64
	// GPUsMin/Avg/Max: distinct devices reporting any metric, per observed step.
	GPUsMin, GPUsMax int
	GPUsAvg          float64
	// Devices is the number of distinct devices seen over the window; MIGDevices those of them
	// that are MIG devices.
	Devices, MIGDevices int

	// UtilizationKnown: some device reported utilisation. At each step the pool's utilisation is
	// the (slice-weighted) mean over the devices reporting it; Mean and P95 are over those steps.
	UtilizationKnown       bool
	UtilizationMeanPercent float64
	UtilizationP95Percent  float64
	// HoursUnder10Percent / HoursUnder30Percent: steps whose pool utilisation is under 10 % / 30 %,
	// in hours.
	HoursUnder10Percent, HoursUnder30Percent float64
	// IdleGPUHours is the sum over steps and devices of (1 − utilisation) × step × slice weight.
	IdleGPUHours float64

	// MemoryKnown: some device reported framebuffer use. Percentiles of every device's samples
	// pooled, in GiB.
	MemoryKnown                        bool
	MemoryUsedP95GiB, MemoryUsedP99GiB float64
	MemoryUsedMaxGiB                   float64
	Warnings                           []string
}

// IdleMonthlyUSD is the idle GPU-hours scaled from the observed hours to a 730-hour month, at
// pricePerGPUHour.
func (u Utilization) IdleMonthlyUSD(pricePerGPUHour float64) float64 {
	if u.HoursObserved == 0 {
		return 0
	}
	return u.IdleGPUHours * HoursPerMonth / u.HoursObserved * pricePerGPUHour
}

// ErrNoSeries is returned by Compute when no metric matched the selector.
type ErrNoSeries struct{ Selector string }

func (e *ErrNoSeries) Error() string {
	return fmt.Sprintf("selector %s matches no dcgm-exporter series (%s, %s, %s) in the window: check the label and its value, and that dcgm-exporter is scraped",
		e.Selector, MetricGPUUtil, MetricEngineActive, MetricFBUsed)
}

// device is one GPU or MIG device, identified by its node and UUID (or GPU index) and MIG instance:
// dcgm-exporter puts pod labels on the series of a GPU in use, so one device has many series.
type device struct {
	key    string
	weight float64 // share of a GPU's compute: 1, or the MIG profile's compute slices / the GPU's
	mig    bool
}

func deviceOf(m model.Metric) device {
	host := firstLabel(m, "Hostname", "instance")
	id := firstLabel(m, "UUID", "gpu", "device")
	d := device{key: host + "/" + id, weight: 1}
	if gi := string(m["GPU_I_ID"]); gi != "" || m["GPU_I_PROFILE"] != "" {
		d.key += "/mig/" + gi
		d.mig = true
		d.weight = MIGWeight(string(m["GPU_I_PROFILE"]), string(m["modelName"]))
	}
	return d
}

func firstLabel(m model.Metric, names ...model.LabelName) string {
	for _, n := range names {
		if v := m[n]; v != "" {
			return string(v)
		}
	}
	return ""
}

// MIGWeight is a MIG profile's share of its GPU's compute: its compute slices ("3g.40gb" → 3) over
// the GPU's (7; 4 on the A30, NVIDIA MIG user guide, "Supported MIG Profiles", 2026). An
// unparseable profile weighs a whole GPU, so cost is never understated.
func MIGWeight(profile, model string) float64 {
	g, _, ok := strings.Cut(profile, "g.")
	n, err := strconv.Atoi(g)
	if !ok || err != nil || n <= 0 {
		return 1
	}
	total := 7.0
	if strings.Contains(model, "A30") {
		total = 4
	}
	return math.Min(1, float64(n)/total)
}

// samples counts, per metric, what its samples were: the warnings say why a figure is unknown or
// what was left out.
type samples struct {
	name    string
	series  int
	used    int // finite, matched to a step of the window
	invalid int // NaN or ±Inf
	shifted int // matched to the nearest step, not on it
	outside int // more than half a step outside the window
}

// Compute reduces the range query results of q to the pool's statistics. Samples that are NaN or
// ±Inf (dcgm-exporter exports NaN for a field DCGM has no value for) are left out, with a
// warning; samples that are not on the query's steps (a query frontend that aligns the range with
// the step on its own terms) are matched to the nearest step, with a warning. A figure nothing
// usable reported is unknown, its warning says why, and no statistic is ever NaN or ±Inf.
func Compute(q Query, s Series) (Utilization, error) {
	start, _ := q.Range()
	n := q.Points()
	stepHours := q.Step.Hours()
	// index is the step nearest to t, whether t is on it, and whether it is one of the window's.
	index := func(t model.Time) (i int, exact, ok bool) {
		d := t.Time().Sub(start)
		k, r := d/q.Step, d%q.Step
		if r < 0 {
			k, r = k-1, r+q.Step
		}
		if 2*r > q.Step {
			k, r = k+1, r-q.Step
		}
		return int(k), r == 0, k >= 0 && k < time.Duration(n)
	}

	// Per step: each device's utilisation (percent), engine activity winning over GPU_UTIL.
	util := make([]map[string]float64, n)
	seen := make([]map[string]bool, n)
	devices := map[string]device{}
	add := func(m model.Matrix, c *samples, f func(i int, d device, v float64)) {
		for _, ss := range m {
			d := deviceOf(ss.Metric)
			devices[d.key] = d
			c.series++
			for _, p := range ss.Values {
				v := float64(p.Value)
				i, exact, ok := index(p.Timestamp)
				switch {
				case math.IsNaN(v) || math.IsInf(v, 0):
					c.invalid++
					continue
				case !ok:
					c.outside++
					continue
				case !exact:
					c.shifted++
				}
				c.used++
				if seen[i] == nil {
					seen[i] = map[string]bool{}
				}
				seen[i][d.key] = true
				f(i, d, v)
			}
		}
	}
	engine := make([]map[string]bool, n)
	setUtil := func(i int, d device, pct float64, fromEngine bool) {
		if util[i] == nil {
			util[i], engine[i] = map[string]float64{}, map[string]bool{}
		}
		if engine[i][d.key] && !fromEngine {
			return
		}
		util[i][d.key] = math.Max(0, math.Min(100, pct))
		engine[i][d.key] = engine[i][d.key] || fromEngine
	}
	counts := []*samples{{name: MetricGPUUtil}, {name: MetricEngineActive}, {name: MetricFBUsed}}
	add(s.GPUUtil, counts[0], func(i int, d device, v float64) { setUtil(i, d, v, false) })
	add(s.EngineActive, counts[1], func(i int, d device, v float64) { setUtil(i, d, v*100, true) })
	// Framebuffer used per step and device (a device's series overlap when its pod labels change).
	fb := make([]map[string]float64, n)
	add(s.FBUsed, counts[2], func(i int, d device, v float64) {
		if fb[i] == nil {
			fb[i] = map[string]float64{}
		}
		fb[i][d.key] = math.Max(fb[i][d.key], v/1024)
	})
	var memGiB []float64
	for _, m := range fb {
		for _, v := range m {
			memGiB = append(memGiB, v)
		}
	}

	var u Utilization
	u.Points = n
	if len(devices) == 0 {
		return u, &ErrNoSeries{Selector: q.Selector}
	}
	u.Devices = len(devices)
	utilDevices := map[string]bool{}
	var poolUtil []float64
	total := 0
	for i := range n {
		c := len(seen[i])
		if c == 0 {
			continue
		}
		if u.StepsObserved == 0 {
			u.GPUsMin = c
		}
		u.StepsObserved++
		total += c
		u.GPUsMin, u.GPUsMax = min(u.GPUsMin, c), max(u.GPUsMax, c)
		if len(util[i]) == 0 {
			continue
		}
		var sum, weights float64
		// In the devices' order, not the map's: the same samples always give the same figures,
		// to the last bit.
		for _, k := range slices.Sorted(maps.Keys(util[i])) {
			pct := util[i][k]
			w := devices[k].weight
			sum += pct * w
			weights += w
			u.IdleGPUHours += (1 - pct/100) * w * stepHours
			utilDevices[k] = true
		}
		p := math.Min(100, sum/weights) // slice weights such as 3/7 round: 100.00000000000001 is 100
		poolUtil = append(poolUtil, p)
		if p < 10 {
			u.HoursUnder10Percent += stepHours
		}
		if p < 30 {
			u.HoursUnder30Percent += stepHours
		}
	}
	u.HoursObserved = float64(u.StepsObserved) * stepHours
	if u.StepsObserved > 0 {
		u.GPUsAvg = float64(total) / float64(u.StepsObserved)
	}
	var migNoUtil int
	for k, d := range devices {
		if d.mig {
			u.MIGDevices++
			if !utilDevices[k] {
				migNoUtil++
			}
		}
	}

	for _, c := range counts {
		if c.invalid > 0 {
			u.Warnings = append(u.Warnings, fmt.Sprintf("%d %s sample(s) of %d series were NaN or ±Inf (dcgm-exporter exports NaN where DCGM has no value): left out",
				c.invalid, c.name, c.series))
		}
	}
	if shifted := counts[0].shifted + counts[1].shifted + counts[2].shifted; shifted > 0 {
		u.Warnings = append(u.Warnings, fmt.Sprintf("%d sample(s) were not on the query's %s steps (the server aligned the range otherwise): each was matched to the nearest step",
			shifted, StepDuration(q.Step)))
	}
	if len(poolUtil) > 0 {
		u.UtilizationKnown = true
		u.UtilizationMeanPercent = math.Min(100, mean(poolUtil))
		u.UtilizationP95Percent = Percentile(poolUtil, 95)
	} else {
		u.Warnings = append(u.Warnings, fmt.Sprintf("%s: utilisation, hours under 10 %%/30 %% and idle GPU-hours are unknown",
			unusable(q, counts[0], counts[1])))
	}
	if migNoUtil > 0 && u.UtilizationKnown {
		u.Warnings = append(u.Warnings, fmt.Sprintf("%d MIG device(s) report no %s (dcgm-exporter has no %s for MIG devices; enable its profiling counters): their utilisation and idle hours are unknown and left out",
			migNoUtil, MetricEngineActive, MetricGPUUtil))
	}
	if len(memGiB) > 0 {
		u.MemoryKnown = true
		u.MemoryUsedP95GiB = Percentile(memGiB, 95)
		u.MemoryUsedP99GiB = Percentile(memGiB, 99)
		u.MemoryUsedMaxGiB = slices.Max(memGiB)
	} else {
		u.Warnings = append(u.Warnings, fmt.Sprintf("%s: memory used is unknown", unusable(q, counts[2])))
	}
	if u.StepsObserved < n {
		u.Warnings = append(u.Warnings, fmt.Sprintf("devices reported in %d of the window's %d steps (%.1f of %.1f hours): statistics cover only those",
			u.StepsObserved, n, u.HoursObserved, q.Window.Hours()))
	}
	return u, nil
}

// unusable says why metrics gave no usable sample: no series matched, or every sample of the
// series that did was NaN, ±Inf or outside the window.
func unusable(q Query, counts ...*samples) string {
	var names []string
	series := 0
	for _, c := range counts {
		names = append(names, c.name)
		series += c.series
	}
	what := strings.Join(names, " or ")
	if series == 0 {
		return fmt.Sprintf("no %s series match %s", what, q.Selector)
	}
	return fmt.Sprintf("the %d %s series matching %s have no usable sample in the window (NaN, ±Inf or outside it)", series, what, q.Selector)
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Percentile is the nearest-rank p-th percentile of v: the smallest value with at least p % of the
// values at or below it (v is not changed).
func Percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[max(rank, 1)-1]
}

// StepDuration formats d the way Prometheus does ("5m", "14d").
func StepDuration(d time.Duration) string { return model.Duration(d).String() }
