package metrics

import (
	"errors"
	"math"
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
