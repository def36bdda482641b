package catalog

import (
	"math"
	"testing"
)

// Every GPU the catalog knows has a datasheet bandwidth, so the throughput check never skips one.
func TestEveryGPUHasAMemoryBandwidth(t *testing.T) {
	for _, g := range GPUs() {
		if MemoryBandwidthGBps(g) <= 0 {
			t.Errorf("%s: no memory bandwidth", g.Name)
		}
	}
	for name := range memoryBandwidthGBps {
		if _, ok := GPU(name); !ok {
			t.Errorf("bandwidth for %q, which is not a GPU model", name)
		}
	}
}

// The worked examples of the docs: a 7B model in fp16 reads 14 GB per token.
func TestDecodeTokensPerSecond(t *testing.T) {
	gpu := func(name string) GPUModel { g, _ := GPU(name); return g }
	a100, _ := gpu("A100-80GB").MIGProfile("1g.10gb")
	tests := []struct {
		name      string
		shape     DecodeShape
		params    float64
		precision string
		want      float64
	}{
		{"7B fp16 on an L4: 300 GB/s × 0.6 / 14 GB", DecodeShape{GPU: gpu("L4"), GPUsPerReplica: 1}, 7, "fp16", 12.857},
		{"7B fp16 on an A10G", DecodeShape{GPU: gpu("A10G"), GPUsPerReplica: 1}, 7, "fp16", 25.714},
		{"7B int4 on an L4: 3.5 GB per token", DecodeShape{GPU: gpu("L4"), GPUsPerReplica: 1}, 7, "int4", 51.429},
		{"7B fp16 on an H100", DecodeShape{GPU: gpu("H100-80GB"), GPUsPerReplica: 1}, 7, "fp16", 143.571},
		{"70B fp16 over 4 H100s", DecodeShape{GPU: gpu("H100-80GB"), GPUsPerReplica: 4}, 70, "fp16", 57.429},
		{"7B int8 on a MIG 1g.10gb of an A100 80GB: 1/8 of 2039 GB/s", DecodeShape{GPU: gpu("A100-80GB"), GPUsPerReplica: 1, Share: a100.MemoryGiB / 80}, 7, "int8", 21.846},
	}
	for _, tt := range tests {
		bytes, err := WeightBytes(tt.params, tt.precision)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeTokensPerSecond(tt.shape, bytes)
		if err != nil || math.Abs(got-tt.want) > 0.001 {
			t.Errorf("%s: %g tokens/s (%v), want %g", tt.name, got, err, tt.want)
		}
	}
	for _, bad := range []DecodeShape{{GPU: gpu("L4")}, {GPU: gpu("L4"), GPUsPerReplica: 1, Share: 1.5}, {GPU: GPUModel{Name: "X1"}, GPUsPerReplica: 1}} {
		if _, err := DecodeTokensPerSecond(bad, 1e9); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
	if _, err := WeightBytes(7, "fp17"); err == nil {
		t.Error("fp17: want an error")
	}
}
