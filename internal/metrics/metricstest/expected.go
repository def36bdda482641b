package metricstest

import (
	"math"
	"slices"
)

// Expected is what a fixture pool's figures must be over its last steps, computed from the
// fixture's own value functions, not from Prometheus or package metrics: the tests' yardstick.
type Expected struct {
	GPUsMin, GPUsMax int
	GPUsAvg          float64
	// Mean and P95 (nearest rank) of the per-step slice-weighted pool mean utilisation.
	Mean, P95        float64
	Under10, Under30 float64 // hours
	Idle             float64 // GPU-hours
	MemP95, MemP99   float64 // GiB, nearest rank over every device's samples
	MemMax           float64
	HoursObserved    float64
}

// migSlices is each fixture MIG profile's share of an H100's seven compute slices.
var migSlices = map[string]float64{"": 1, "3g.40gb": 3.0 / 7, "2g.20gb": 2.0 / 7, "1g.10gb": 1.0 / 7}

// Want computes the figures of devices over the last steps of the fixtures.
func Want(devices []Device, steps int) Expected {
	var e Expected
	var pool, mem []float64
	e.GPUsMin = math.MaxInt
	count := 0
	h := Step.Hours()
	for k := Steps - steps; k < Steps; k++ {
		var n int
		var sum, w float64
		for _, d := range devices {
			if !d.Reports(k) {
				continue
			}
			n++
			sw := migSlices[d.MIGProfile]
			sum += d.Util(k) * sw
			w += sw
			e.Idle += (1 - d.Util(k)/100) * sw * h
			mem = append(mem, d.FBMiB(k)/1024)
		}
		if n == 0 {
			continue
		}
		count += n
		e.HoursObserved += h
		e.GPUsMin, e.GPUsMax = min(e.GPUsMin, n), max(e.GPUsMax, n)
		p := sum / w
		pool = append(pool, p)
		if p < 10 {
			e.Under10 += h
		}
		if p < 30 {
			e.Under30 += h
		}
	}
	e.GPUsAvg = float64(count) / float64(len(pool))
	for _, p := range pool {
		e.Mean += p / float64(len(pool))
	}
	rank := func(v []float64, p float64) float64 {
		s := slices.Sorted(slices.Values(v))
		return s[int(math.Ceil(p/100*float64(len(s))))-1]
	}
	e.P95, e.MemP95, e.MemP99, e.MemMax = rank(pool, 95), rank(mem, 95), rank(mem, 99), slices.Max(mem)
	return e
}

// Values lists e's figures in a fixed order, for comparisons.
func (e Expected) Values() []float64 {
	return []float64{float64(e.GPUsMin), float64(e.GPUsMax), e.GPUsAvg, e.Mean, e.P95, e.Under10, e.Under30, e.Idle, e.MemP95, e.MemP99, e.MemMax, e.HoursObserved}
}
