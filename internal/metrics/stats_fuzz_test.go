package metrics

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

// fuzzValues are the sample values a fuzz input picks from: what dcgm-exporter and a broken
// exporter can send, NaN and ±Inf included, beside any byte's value.
var fuzzValues = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, 0.5, 1, 10, 29.999, 30, 50, 99.5, 100, 150, -5, 80 * 1024, 1e300, -1e300, 5e-324}

var fuzzSteps = []time.Duration{time.Second, time.Minute, 5 * time.Minute, 7 * time.Minute, time.Hour}

// fuzzSeries decodes a fuzz input into a query and its series: data[0] the window's steps, data[1]
// the step, then five bytes per sample: metric, device (MIG or not), step index, jitter (a signed
// share of half a step, 0 without jitter), value. Two series: one sample of each without jitter
// (on the step), and the same with it.
func fuzzSeries(data []byte) (q Query, onSteps, jittered Series) {
	if len(data) < 2 {
		return Query{}, Series{}, Series{}
	}
	steps := 1 + int(data[0])%48
	step := fuzzSteps[int(data[1])%len(fuzzSteps)]
	q = Query{Selector: `{pool="fuzz"}`, Window: time.Duration(steps) * step, Step: step, End: testEnd.Add(time.Duration(data[1]) * time.Second)}
	start, _ := q.Range()
	type key struct{ metric, device int }
	streams := map[key][2]*model.SampleStream{}
	for rest := data[2:]; len(rest) >= 5; rest = rest[5:] {
		k := key{int(rest[0]) % 3, int(rest[1]) % 6}
		pair, ok := streams[k]
		if !ok {
			labels := gpu("n1", "GPU-"+string(rune('a'+k.device%3)))
			if k.device >= 3 { // MIG devices of the same GPUs
				labels["GPU_I_ID"], labels["GPU_I_PROFILE"] = "1", []string{"1g.10gb", "3g.40gb", "bad"}[k.device%3]
			}
			for i := range pair {
				pair[i] = &model.SampleStream{Metric: model.Metric{}}
				for n, v := range labels {
					pair[i].Metric[model.LabelName(n)] = model.LabelValue(v)
				}
			}
			streams[k] = pair
		}
		i := int(rest[2]) % (steps + 2)                                         // now and then a step after the window
		jitter := time.Duration(float64(step/2) * float64(int8(rest[3])) / 129) // |jitter| < step/2
		v := fuzzValues[int(rest[4])%len(fuzzValues)]
		if rest[4] >= 128 {
			v = float64(rest[4]) - 128
		}
		at := start.Add(time.Duration(i) * step)
		pair[0].Values = append(pair[0].Values, model.SamplePair{Timestamp: model.TimeFromUnixNano(at.UnixNano()), Value: model.SampleValue(v)})
		pair[1].Values = append(pair[1].Values, model.SamplePair{Timestamp: model.TimeFromUnixNano(at.Add(jitter).UnixNano()), Value: model.SampleValue(v)})
	}
	for k, pair := range streams {
		for i, into := range []*Series{&onSteps, &jittered} {
			m := []*model.Matrix{&into.GPUUtil, &into.EngineActive, &into.FBUsed}[k.metric]
			*m = append(*m, pair[i])
		}
	}
	return q, onSteps, jittered
}

// The statistics of any samples, NaN, ±Inf, gaps, samples after the window and samples off the
// steps included: never NaN or ±Inf, in their ranges, unknown with a warning when nothing usable
// reported them; and samples within half a step of a step give what they give on it.
func FuzzCompute(f *testing.F) {
	f.Add([]byte{3, 4, 0, 0, 0, 0, 3, 0, 0, 1, 0, 3, 2, 0, 2, 0, 0})                // two util samples, a NaN, one hour steps
	f.Add([]byte{2, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 1, 1}) // only NaN and +Inf, util and memory
	f.Add([]byte{4, 3, 0, 1, 0, 77, 131, 0, 1, 1, 200, 150, 2, 1, 2, 100, 228})     // 7m steps, samples off the steps
	f.Add([]byte{1, 0, 1, 3, 0, 0, 6, 1, 4, 0, 0, 9, 2, 5, 0, 0, 10})               // MIG devices, engine activity
	f.Add([]byte{5, 1, 0, 0, 6, 0, 9, 2, 0, 6, 0, 14, 0, 2, 0, 0, 12})              // samples after the window, 1e300
	f.Fuzz(func(t *testing.T, data []byte) {
		q, onSteps, jittered := fuzzSeries(data)
		if q.Step == 0 {
			return
		}
		want, err := Compute(q, onSteps)
		var none *ErrNoSeries
		if err != nil {
			if !errors.As(err, &none) || len(onSteps.GPUUtil)+len(onSteps.EngineActive)+len(onSteps.FBUsed) > 0 {
				t.Fatalf("error %v with series", err)
			}
			return
		}
		finite(t, want)
		w := strings.Join(want.Warnings, "\n")
		switch {
		case want.UtilizationKnown && (want.UtilizationMeanPercent < 0 || want.UtilizationP95Percent > 100 || want.UtilizationMeanPercent > 100):
			t.Errorf("utilisation %v %v", want.UtilizationMeanPercent, want.UtilizationP95Percent)
		case !want.UtilizationKnown && !strings.Contains(w, "utilisation, hours under 10 %/30 % and idle GPU-hours are unknown"):
			t.Errorf("utilisation unknown without a warning: %q", w)
		case !want.MemoryKnown && !strings.Contains(w, "memory used is unknown"):
			t.Errorf("memory unknown without a warning: %q", w)
		case want.HoursUnder10Percent > want.HoursUnder30Percent || want.HoursUnder30Percent > want.HoursObserved || want.HoursObserved > q.Window.Hours()+1e-9:
			t.Errorf("hours %v <= %v <= %v <= %v", want.HoursUnder10Percent, want.HoursUnder30Percent, want.HoursObserved, q.Window.Hours())
		case want.IdleGPUHours < 0 || want.IdleGPUHours > want.HoursObserved*float64(want.GPUsMax)+1e-9:
			t.Errorf("idle %v GPU-hours over %v hours of at most %d GPUs", want.IdleGPUHours, want.HoursObserved, want.GPUsMax)
		}
		got, err := Compute(q, jittered)
		if err != nil {
			t.Fatal(err)
		}
		finite(t, got)
		got.Warnings, want.Warnings = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("samples off the steps:\n%+v\non them:\n%+v", got, want)
		}
	})
}
