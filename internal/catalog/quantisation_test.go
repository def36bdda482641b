package catalog

import "testing"

// Issue #40, item 2: weight-only quantisation and fp4 run only where the serving engines' kernels
// do: GPTQ from Volta, AWQ from Turing, fp4 on Blackwell only.
func TestSupportsPrecision_quantisationByArchitecture(t *testing.T) {
	for _, tc := range []struct {
		gpu, precision string
		want           bool
	}{
		{"V100-16GB", "gptq", true}, {"V100-16GB", "awq", false}, {"P100", "gptq", false},
		{"T4", "awq", true}, {"T4", "gptq", true}, {"T4", "fp4", false},
		{"A10G", "awq", true}, {"L4", "fp4", false}, {"H100-80GB", "fp4", false}, {"H200-141GB", "awq", true},
		{"B200", "fp4", true}, {"B200", "awq", true},
	} {
		g, _ := GPU(tc.gpu)
		if got := g.SupportsPrecision(tc.precision); got != tc.want {
			t.Errorf("%s computes in %s: %v, want %v", tc.gpu, tc.precision, got, tc.want)
		}
	}
}

// A 4-bit model holds half a byte per weight: 70B in AWQ, GPTQ or fp4 is 35 GB of weights, 42 GB to serve.
func TestGPUMemoryRequired_quantisedWeights(t *testing.T) {
	for _, p := range []string{"awq", "gptq", "fp4"} {
		e, err := GPUMemoryRequired(MemoryDemand{ParametersBillion: 70, Precision: p, Kind: MemoryKindInference})
		if err != nil || e.WeightsGB != 35 || e.GiB != GBToGiB(42) {
			t.Errorf("%s: %+v, %v", p, e, err)
		}
		if _, err := GPUMemoryRequired(MemoryDemand{ParametersBillion: 7, Precision: p, Kind: MemoryKindTraining}); err == nil {
			t.Errorf("%s: full training in a quantised precision was accepted", p)
		}
	}
}
