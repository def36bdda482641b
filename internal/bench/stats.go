package bench

import (
	"math"
	"slices"
)

// Median of xs (the upper middle one for an even count); NaN for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// MedianRatio is the median of the ratios a[i]/b[i]: each pair ran back to back, so load on the
// machine that lasts a while weighs on both sides of a ratio.
func MedianRatio(a, b []float64) float64 {
	ratios := make([]float64, 0, len(a))
	for i := range min(len(a), len(b)) {
		ratios = append(ratios, a[i]/b[i])
	}
	return Median(ratios)
}

// Series collects the samples of one command over the runs of a benchmark.
type Series struct{ Wall, CPU, Peak []float64 }

// Add appends one sample.
func (s *Series) Add(x Sample) {
	s.Wall, s.CPU, s.Peak = append(s.Wall, x.WallSeconds), append(s.CPU, x.CPUSeconds), append(s.Peak, x.PeakMiB)
}
