package catalog

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// Each formula against a published figure. Figures in decimal GB are compared with WeightsGB or
// with the GiB result converted back (× 2^30 / 1e9).
func TestGPUMemoryRequired_publishedFigures(t *testing.T) {
	gb := func(gib float64) float64 { return gib * bytesPerGiB / 1e9 }
	tests := []struct {
		name     string
		demand   MemoryDemand
		check    func(MemoryEstimate) bool
		describe string
	}{
		{
			// EleutherAI, "Transformer Math 101" (2023): inference memory ≈ 1.2 × the weights; a 7B
			// model in fp16/bf16 is 14 GB of weights, so ≈ 16.8 GB to serve it.
			name: "inference 7B fp16 (Transformer Math 101)", demand: MemoryDemand{7, "fp16", "inference", ""},
			check:    func(e MemoryEstimate) bool { return e.WeightsGB == 14 && near(gb(e.GiB), 16.8, 0.02) && e.GiB == 15.65 },
			describe: "14 GB of weights, 16.8 GB = 15.65 GiB in all",
		},
		{
			// Same source, bytes per parameter: int8 1 byte, int4 half a byte, fp32 4 bytes.
			name: "inference 7B int4", demand: MemoryDemand{7, "int4", "inference", ""},
			check:    func(e MemoryEstimate) bool { return e.WeightsGB == 3.5 && near(gb(e.GiB), 4.2, 0.02) },
			describe: "3.5 GB of weights, 4.2 GB in all",
		},
		{
			name: "inference 7B fp32", demand: MemoryDemand{7, "fp32", "inference", ""},
			check:    func(e MemoryEstimate) bool { return e.WeightsGB == 28 && near(gb(e.GiB), 33.6, 0.02) },
			describe: "28 GB of weights, 33.6 GB in all",
		},
		{
			// Rajbhandari et al., "ZeRO" (2020), §3.1: mixed-precision Adam needs 16 bytes per
			// parameter; "a GPT-2 model with 1.5B parameters ... requires at least 24 GB".
			name: "full training 1.5B (ZeRO)", demand: MemoryDemand{1.5, "fp16", "training", "full"},
			check:    func(e MemoryEstimate) bool { return near(gb(e.GiB), 24, 0.02) },
			describe: "24 GB",
		},
		{
			// The figure from the same accounting: 7B → 112 GB before activations.
			name: "full training 7B bf16, method defaults to full", demand: MemoryDemand{7, "bf16", "training", ""},
			check:    func(e MemoryEstimate) bool { return near(gb(e.GiB), 112, 0.02) },
			describe: "112 GB",
		},
		{
			// Hu et al., "LoRA" (2021), §4.2: fine-tuning GPT-3 175B with LoRA needs 350 GB (its frozen
			// fp16 weights) instead of 1.2 TB. gpufleet adds 1 % trainable at 16 bytes: within 10 %.
			name: "lora 175B fp16 (LoRA paper)", demand: MemoryDemand{175, "fp16", "training", "lora"},
			check:    func(e MemoryEstimate) bool { return e.WeightsGB == 350 && gb(e.GiB) > 350 && gb(e.GiB) < 385 },
			describe: "350 GB of frozen weights and under 385 GB in all",
		},
		{
			// Dettmers et al., "QLoRA" (2023), abstract: finetuning a 65B model in "<48GB of GPU memory";
			// §3: NF4 with double quantization stores 4.127 bits per parameter.
			name: "qlora 65B (QLoRA paper)", demand: MemoryDemand{65, "int4", "training", "qlora"},
			check:    func(e MemoryEstimate) bool { return near(e.WeightsGB, 33.53, 0.01) && gb(e.GiB) < 48 },
			describe: "33.5 GB of NF4 weights and under 48 GB in all",
		},
		{
			// QLoRA abstract: the same 65B model needs ">780GB" fully fine-tuned in 16 bit.
			name: "full training 65B over 780 GB (QLoRA paper)", demand: MemoryDemand{65, "bf16", "training", "full"},
			check:    func(e MemoryEstimate) bool { return gb(e.GiB) > 780 },
			describe: "more than 780 GB",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := GPUMemoryRequired(tt.demand)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(e) {
				t.Errorf("got %g GiB (%g GB), weights %g GB; want %s (%s)", e.GiB, gb(e.GiB), e.WeightsGB, tt.describe, e.Formula)
			}
			if e.Formula == "" {
				t.Error("no formula")
			}
		})
	}
}

func TestGPUMemoryRequired_badInput(t *testing.T) {
	tests := []struct {
		name     string
		demand   MemoryDemand
		argument string
		want     []string
	}{
		{"zero parameters", MemoryDemand{0, "fp16", "inference", ""}, "parameters_billion", []string{"positive"}},
		{"negative parameters", MemoryDemand{-7, "fp16", "inference", ""}, "parameters_billion", []string{"positive", "-7"}},
		{"NaN parameters", MemoryDemand{math.NaN(), "fp16", "inference", ""}, "parameters_billion", []string{"positive"}},
		{"unknown precision, nearest first", MemoryDemand{7, "fp17", "inference", ""}, "precision", []string{`"fp17"`, "nearest first: fp16"}},
		{"unknown kind", MemoryDemand{7, "fp16", "serving", ""}, "kind", []string{`"serving"`, "nearest first: training, inference"}},
		{"unknown method", MemoryDemand{7, "fp16", "training", "qlroa"}, "method", []string{`"qlroa"`, "nearest first: qlora"}},
		{"method on inference", MemoryDemand{7, "fp16", "inference", "lora"}, "method", []string{"only applies to training"}},
		{"full training in int4", MemoryDemand{7, "int4", "training", "full"}, "precision", []string{"bf16", "int4"}},
		{"qlora needs int4", MemoryDemand{7, "bf16", "training", "qlora"}, "precision", []string{`"int4"`, "lora"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := GPUMemoryRequired(tt.demand)
			var ae *ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("got %v, want an ArgumentError", err)
			}
			if ae.Argument != tt.argument {
				t.Errorf("argument %q, want %q", ae.Argument, tt.argument)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestNearest(t *testing.T) {
	got := Nearest("FP8", Precisions())
	if got[0] != "fp8" {
		t.Errorf("Nearest(FP8) = %v", got)
	}
	if got := Precisions(); strings.Join(got, ",") != "fp32,bf16,fp16,fp8,int8,awq,fp4,gptq,int4" {
		t.Errorf("Precisions() = %v", got)
	}
}

func near(got, want, tolerance float64) bool {
	return math.Abs(got-want) <= tolerance*math.Max(1, want)
}
