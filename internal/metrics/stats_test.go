package metrics

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

var testEnd = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// series builds a matrix row with values at consecutive steps of q from step index from; NaN skips.
func series(q Query, labels map[string]string, from int, values ...float64) *model.SampleStream {
	start, _ := q.Range()
	m := model.Metric{}
	for k, v := range labels {
		m[model.LabelName(k)] = model.LabelValue(v)
	}
	s := &model.SampleStream{Metric: m}
	for i, v := range values {
		if math.IsNaN(v) {
			continue
		}
		s.Values = append(s.Values, model.SamplePair{Timestamp: model.TimeFromUnixNano(start.Add(time.Duration(from+i) * q.Step).UnixNano()), Value: model.SampleValue(v)})
	}
	return s
}

func gpu(host, uuid string) map[string]string {
	return map[string]string{"Hostname": host, "UUID": uuid, "gpu": "0", "modelName": "NVIDIA H100 80GB HBM3"}
}

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

// Two GPUs over four one-hour steps: the statistics are those #23 defines, by hand.
func TestCompute_definitions(t *testing.T) {
	q := Query{Selector: `{pool="a"}`, Window: 4 * time.Hour, Step: time.Hour, End: testEnd}
	a, b := gpu("n1", "GPU-a"), gpu("n1", "GPU-b")
	u, err := Compute(q, Series{
		GPUUtil: model.Matrix{series(q, a, 0, 0, 20, 50, 100), series(q, b, 0, 10, 40, 10, 100)},
		FBUsed:  model.Matrix{series(q, a, 0, 1024, 2048, 3072, 4096), series(q, b, 0, 5120, 6144, 7168, 8192)},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Pool means per step: 5, 30, 30, 100.
	near(t, "mean", u.UtilizationMeanPercent, (5+30+30+100)/4.0)
	near(t, "p95", u.UtilizationP95Percent, 100)
	near(t, "hours under 10", u.HoursUnder10Percent, 1)
	near(t, "hours under 30", u.HoursUnder30Percent, 1) // 30 is not under 30
	near(t, "idle", u.IdleGPUHours, (1+0.8+0.5+0)+(0.9+0.6+0.9+0))
	near(t, "mem p95", u.MemoryUsedP95GiB, 8) // 8 samples: rank ceil(7.6)=8
	near(t, "mem p99", u.MemoryUsedP99GiB, 8)
	near(t, "mem max", u.MemoryUsedMaxGiB, 8)
	if u.GPUsMin != 2 || u.GPUsMax != 2 || u.GPUsAvg != 2 || u.HoursObserved != 4 || len(u.Warnings) != 0 {
		t.Errorf("gpus %d/%v/%d over %v h, warnings %q", u.GPUsMin, u.GPUsAvg, u.GPUsMax, u.HoursObserved, u.Warnings)
	}
	near(t, "idle monthly", u.IdleMonthlyUSD(2), u.IdleGPUHours*730/4*2)
}

// Pod labels change while the GPU stays: one device, not two; engine activity wins over GPU_UTIL.
func TestCompute_deviceIdentityAndEngineActive(t *testing.T) {
	q := Query{Selector: `{pool="a"}`, Window: 2 * time.Hour, Step: time.Hour, End: testEnd}
	withPod := gpu("n1", "GPU-a")
	withPod["pod"] = "trainer-0"
	u, err := Compute(q, Series{
		GPUUtil:      model.Matrix{series(q, gpu("n1", "GPU-a"), 0, 90), series(q, withPod, 1, 80)},
		EngineActive: model.Matrix{series(q, gpu("n1", "GPU-a"), 0, 0.5)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if u.Devices != 1 || u.GPUsMax != 1 {
		t.Fatalf("devices %d, gpus max %d: want 1", u.Devices, u.GPUsMax)
	}
	near(t, "mean", u.UtilizationMeanPercent, (50+80)/2.0)
	if u.MemoryKnown || !strings.Contains(strings.Join(u.Warnings, "\n"), "memory used is unknown") {
		t.Errorf("memory known %v, warnings %q", u.MemoryKnown, u.Warnings)
	}
}

// MIG devices are devices; they weigh their compute slices in means and idle GPU-hours; a MIG
// device without engine activity is unknown, with a warning, never idle.
func TestCompute_MIG(t *testing.T) {
	q := Query{Selector: `{pool="m"}`, Window: time.Hour, Step: time.Hour, End: testEnd}
	mig := func(id, profile string) map[string]string {
		l := gpu("n1", "GPU-a")
		l["GPU_I_ID"], l["GPU_I_PROFILE"] = id, profile
		return l
	}
	u, err := Compute(q, Series{
		EngineActive: model.Matrix{series(q, mig("1", "3g.40gb"), 0, 1), series(q, mig("2", "1g.10gb"), 0, 0)},
		FBUsed:       model.Matrix{series(q, mig("1", "3g.40gb"), 0, 1024), series(q, mig("2", "1g.10gb"), 0, 512), series(q, mig("3", "1g.10gb"), 0, 0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if u.Devices != 3 || u.MIGDevices != 3 || u.GPUsMax != 3 {
		t.Fatalf("devices %d, MIG %d, gpus max %d", u.Devices, u.MIGDevices, u.GPUsMax)
	}
	near(t, "mean", u.UtilizationMeanPercent, 100*3.0/4.0) // 3/7 at 100 %, 1/7 at 0 %
	near(t, "idle", u.IdleGPUHours, 1.0/7)
	if w := strings.Join(u.Warnings, "\n"); !strings.Contains(w, "1 MIG device(s) report no DCGM_FI_PROF_GR_ENGINE_ACTIVE") {
		t.Errorf("warnings %q", w)
	}
	near(t, "A30 4g", MIGWeight("4g.24gb", "NVIDIA A30"), 1)
	near(t, "bad profile", MIGWeight("all", "H100"), 1)
}

// A GPU that disappears half-way: counted while it reports; steps where nothing reports are not
// observed, and the coverage is a warning.
func TestCompute_disappearingGPUAndGaps(t *testing.T) {
	q := Query{Selector: `{pool="a"}`, Window: 4 * time.Hour, Step: time.Hour, End: testEnd}
	nan := math.NaN()
	u, err := Compute(q, Series{GPUUtil: model.Matrix{
		series(q, gpu("n1", "GPU-a"), 0, 50, 50, 50, nan),
		series(q, gpu("n2", "GPU-b"), 0, 50, nan, nan, nan),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if u.GPUsMin != 1 || u.GPUsMax != 2 || u.StepsObserved != 3 {
		t.Errorf("gpus %d..%d over %d steps", u.GPUsMin, u.GPUsMax, u.StepsObserved)
	}
	near(t, "avg", u.GPUsAvg, 4.0/3)
	near(t, "idle", u.IdleGPUHours, 2)
	if w := strings.Join(u.Warnings, "\n"); !strings.Contains(w, "3 of the window's 4 steps") {
		t.Errorf("warnings %q", w)
	}
}

func TestCompute_nothing(t *testing.T) {
	q := Query{Selector: `{pool="none"}`, Window: time.Hour, Step: time.Hour, End: testEnd}
	_, err := Compute(q, Series{})
	var none *ErrNoSeries
	if !errors.As(err, &none) || !strings.Contains(err.Error(), `{pool="none"} matches no dcgm-exporter series`) {
		t.Fatalf("err = %v", err)
	}
}

func TestPercentile(t *testing.T) {
	v := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	near(t, "p95", Percentile(v, 95), 10)
	near(t, "p50", Percentile(v, 50), 5)
	near(t, "p0", Percentile(v, 0), 1)
	if v[0] != 5 {
		t.Error("Percentile sorted its input")
	}
}

// finite reports the statistics of u that are NaN or ±Inf: none may be (the data source's
// types.Float64Value panics on NaN, and encoding/json refuses both).
func finite(t *testing.T, u Utilization) {
	t.Helper()
	for name, v := range map[string]float64{
		"hours_observed": u.HoursObserved, "gpus_avg": u.GPUsAvg, "utilization_mean_percent": u.UtilizationMeanPercent,
		"utilization_p95_percent": u.UtilizationP95Percent, "hours_under_10_percent": u.HoursUnder10Percent,
		"hours_under_30_percent": u.HoursUnder30Percent, "idle_gpu_hours": u.IdleGPUHours, "memory_used_p95_gib": u.MemoryUsedP95GiB,
		"memory_used_p99_gib": u.MemoryUsedP99GiB, "memory_used_max_gib": u.MemoryUsedMaxGiB, "idle_monthly_usd": u.IdleMonthlyUSD(4.5),
	} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("%s = %v", name, v)
		}
	}
	if u.GPUsMin < 0 || u.GPUsMin > u.GPUsMax || u.GPUsMax > u.Devices || u.StepsObserved > u.Points {
		t.Errorf("gpus %d..%d of %d devices, %d of %d steps", u.GPUsMin, u.GPUsMax, u.Devices, u.StepsObserved, u.Points)
	}
	if _, err := json.Marshal(u); err != nil {
		t.Errorf("the statistics do not encode: %v", err)
	}
}

// Series whose every sample is NaN (dcgm-exporter's value for a field DCGM has none for): no
// statistic is NaN, utilisation and memory are unknown, and the warnings say why. Before, GPUsAvg
// was 0/0 and GPUsMin math.MaxInt, and the data source panicked on types.Float64Value(NaN).
func TestCompute_onlyNaNSamples(t *testing.T) {
	q := Query{Selector: `{pool="nan"}`, Window: 3 * time.Hour, Step: time.Hour, End: testEnd}
	start, _ := q.Range()
	nanSeries := func(labels map[string]string) *model.SampleStream {
		s := series(q, labels, 0)
		for i := range 3 {
			s.Values = append(s.Values, model.SamplePair{Timestamp: model.TimeFromUnixNano(start.Add(time.Duration(i) * q.Step).UnixNano()), Value: model.SampleValue(math.NaN())})
		}
		return s
	}
	u, err := Compute(q, Series{
		GPUUtil: model.Matrix{nanSeries(gpu("n1", "GPU-a")), nanSeries(gpu("n1", "GPU-b"))},
		FBUsed:  model.Matrix{nanSeries(gpu("n1", "GPU-a"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	finite(t, u)
	if u.UtilizationKnown || u.MemoryKnown || u.StepsObserved != 0 || u.GPUsMin != 0 || u.GPUsMax != 0 || u.GPUsAvg != 0 || u.Devices != 2 {
		t.Errorf("%+v", u)
	}
	w := strings.Join(u.Warnings, "\n")
	for _, want := range []string{
		"6 DCGM_FI_DEV_GPU_UTIL sample(s) of 2 series were NaN or ±Inf",
		"3 DCGM_FI_DEV_FB_USED sample(s) of 1 series were NaN or ±Inf",
		`the 2 DCGM_FI_DEV_GPU_UTIL or DCGM_FI_PROF_GR_ENGINE_ACTIVE series matching {pool="nan"} have no usable sample in the window (NaN, ±Inf or outside it): utilisation`,
		"memory used is unknown",
		"devices reported in 0 of the window's 3 steps",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("no warning %q in:\n%s", want, w)
		}
	}
}

// ±Inf samples are left out like NaN; the others count as they are.
func TestCompute_infiniteSamples(t *testing.T) {
	q := Query{Selector: `{pool="a"}`, Window: 2 * time.Hour, Step: time.Hour, End: testEnd}
	u, err := Compute(q, Series{
		GPUUtil: model.Matrix{series(q, gpu("n1", "GPU-a"), 0, math.Inf(1), 40)},
		FBUsed:  model.Matrix{series(q, gpu("n1", "GPU-a"), 0, 2048, math.Inf(1)), series(q, gpu("n1", "GPU-b"), 0, math.Inf(-1))},
	})
	if err != nil {
		t.Fatal(err)
	}
	finite(t, u)
	near(t, "mean", u.UtilizationMeanPercent, 40)
	near(t, "mem max", u.MemoryUsedMaxGiB, 2)
	if !strings.Contains(strings.Join(u.Warnings, "\n"), "2 DCGM_FI_DEV_FB_USED sample(s) of 2 series were NaN or ±Inf") {
		t.Errorf("warnings %q", u.Warnings)
	}
}

// Samples off the query's steps (a query frontend that aligned the range with the step its own
// way) count at the nearest step: the same statistics as on the steps, and a warning. Before,
// every such sample was dropped, and the statistics were NaN.
func TestCompute_samplesOffTheSteps(t *testing.T) {
	q := Query{Selector: `{pool="a"}`, Window: 4 * time.Hour, Step: time.Hour, End: testEnd}
	a, b := gpu("n1", "GPU-a"), gpu("n1", "GPU-b")
	data := func(shift time.Duration) Series {
		s := Series{
			GPUUtil: model.Matrix{series(q, a, 0, 0, 20, 50, 100), series(q, b, 0, 10, 40, 10, 100)},
			FBUsed:  model.Matrix{series(q, a, 0, 1024, 2048, 3072, 4096)},
		}
		for _, m := range []model.Matrix{s.GPUUtil, s.FBUsed} {
			for _, ss := range m {
				for i := range ss.Values {
					ss.Values[i].Timestamp = ss.Values[i].Timestamp.Add(shift)
				}
			}
		}
		return s
	}
	aligned, err := Compute(q, data(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, shift := range []time.Duration{90 * time.Second, -29 * time.Minute, 30 * time.Minute} {
		u, err := Compute(q, data(shift))
		if err != nil {
			t.Fatal(err)
		}
		finite(t, u)
		warnings := u.Warnings
		u.Warnings, aligned.Warnings = nil, nil
		if !reflect.DeepEqual(u, aligned) {
			t.Errorf("shifted by %s:\n%+v\nwant\n%+v", shift, u, aligned)
		}
		if w := strings.Join(warnings, "\n"); !strings.Contains(w, "12 sample(s) were not on the query's 1h steps") {
			t.Errorf("shifted by %s: warnings %q", shift, w)
		}
	}
	// More than half a step outside the window is outside it.
	u, err := Compute(q, data(4*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	finite(t, u)
	if u.StepsObserved != 0 || u.UtilizationKnown {
		t.Errorf("samples after the window counted: %+v", u)
	}
}

// The range ends on a multiple of the step since the Unix epoch, where query frontends that align
// ranges with their step evaluate (Go's Truncate counts from year 1: a 7m step differs).
func TestQuery_rangeOnTheEpochsSteps(t *testing.T) {
	for _, step := range []time.Duration{7 * time.Minute, 5 * time.Minute, 90 * time.Second, 24 * time.Hour} {
		q := Query{Window: 100 * step, Step: step, End: testEnd.Add(123456 * time.Millisecond)}
		start, end := q.Range()
		if end.UnixMilli()%step.Milliseconds() != 0 || end.After(q.End) || q.End.Sub(end) >= step || end.Sub(start) != q.Window-step {
			t.Errorf("step %s: range %s .. %s for end %s", step, start, end, q.End)
		}
	}
}
