package catalog

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// GPU memory one replica of a model needs: the one estimate gpufleet uses everywhere (the
// gpu_memory_required function, the gpufleet_recommendation data source, and the policy bundle
// through the exported catalog.memory_model, which lib.memory_required_gib evaluates with the same
// numbers). Parameters are counted in billions, so P billion parameters at b bytes each are P × b
// decimal gigabytes (GB); the result is converted to GiB (2^30 bytes), the unit of every
// gpu_memory_gib in gpufleet.
//
// Formulas and sources:
//
//   - inference: P × bytes(precision) × 1.2. The 1.2 covers the KV cache, activations and CUDA
//     context at moderate batch sizes and context lengths ("Transformer Math 101", EleutherAI,
//     2023: "about 20 % overhead"; a 7B model in fp16 holds 14 GB of weights).
//   - training, method "full": 16 bytes per parameter with Adam in mixed precision: 2 (fp16/bf16
//     weights) + 2 (gradients) + 4 (fp32 master weights) + 4 + 4 (Adam moments) (Rajbhandari et
//     al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", 2020, §3.1:
//     "16Ψ bytes", 1.5B GPT-2 needs at least 24 GB). Plain fp32 training also comes to 16 (4 + 4 +
//     4 + 4). Activations come on top and depend on batch size and sequence length; HuggingFace's
//     accounting ("Model training anatomy") adds 2 bytes for a second weight copy, 18 in all.
//   - training, method "lora": the frozen base at its precision plus the adapters, a trainable share
//     of 1 % of the parameters, trained like full fine-tuning at 16 bytes each (Hu et al., "LoRA",
//     2021: GPT-3 175B needs 350 GB, its fp16 weights, instead of 1.2 TB; LoRA on every projection at
//     rank 64 trains about 1 % of LLaMA-65B).
//   - training, method "qlora": the base in 4-bit NormalFloat with double quantization, 4.127 bits
//     per parameter, plus the adapters as for LoRA (Dettmers et al., "QLoRA", 2023: a 65B model
//     fine-tunes in under 48 GB).
const (
	InferenceOverhead     = 1.2
	FullTrainingBytes     = 16.0
	AdapterTrainableShare = 0.01
	AdapterBytes          = 16.0
	QLoRABitsPerParameter = 4.127
	bytesPerGiB           = 1 << 30
)

// Memory kinds and training methods.
const (
	MemoryKindInference = "inference"
	MemoryKindTraining  = "training"
	MethodFull          = "full"
	MethodLoRA          = "lora"
	MethodQLoRA         = "qlora"
)

// BytesPerParameter is the storage of one weight at each precision. awq and gptq are 4-bit
// weight-only quantisation (W4A16) and fp4 is NVFP4 (4-bit weights and activations): half a byte per
// weight; their per-group scales (an fp16 scale per 128 weights for AWQ/GPTQ, an fp8 scale per 16
// for NVFP4: 3 to 12 % more) fall within the inference estimate's 1.2 overhead.
var BytesPerParameter = map[string]float64{
	"fp32": 4,
	"bf16": 2,
	"fp16": 2,
	"fp8":  1,
	"int8": 1,
	"int4": 0.5,
	"awq":  0.5,
	"gptq": 0.5,
	"fp4":  0.5,
}

var (
	// MemoryKinds and TrainingMethods are the values the estimate takes.
	MemoryKinds     = []string{MemoryKindInference, MemoryKindTraining}
	TrainingMethods = []string{MethodFull, MethodLoRA, MethodQLoRA}
	// fullTrainingPrecisions are the precisions mixed-precision (or fp32) training keeps weights in.
	fullTrainingPrecisions = []string{"bf16", "fp16", "fp32"}
)

// Precisions lists the precisions the estimate knows, widest first.
func Precisions() []string {
	out := make([]string, 0, len(BytesPerParameter))
	for p := range BytesPerParameter {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		bi, bj := BytesPerParameter[out[i]], BytesPerParameter[out[j]]
		if bi != bj {
			return bi > bj
		}
		return out[i] < out[j]
	})
	return out
}

// MemoryDemand is what one replica runs: a model of ParametersBillion parameters stored at
// Precision, for Kind (inference or training) and, for training, Method (default full).
type MemoryDemand struct {
	ParametersBillion float64
	Precision         string
	Kind              string
	Method            string
}

// MemoryEstimate is the GPU memory a demand needs.
type MemoryEstimate struct {
	GiB       float64 // rounded up to 0.01 GiB
	WeightsGB float64 // the model weights alone, decimal GB
	Formula   string  // the formula with its numbers, for messages and docs
}

// ArgumentError is bad input, naming the argument and the valid values nearest to what was given.
type ArgumentError struct {
	Argument string
	Message  string
}

func (e *ArgumentError) Error() string { return e.Argument + ": " + e.Message }

// argumentError builds an ArgumentError for an unknown value, listing the valid values nearest first.
func argumentError(argument, what, value string, valid []string) *ArgumentError {
	return &ArgumentError{Argument: argument, Message: fmt.Sprintf("unknown %s %q; valid values, nearest first: %s",
		what, value, strings.Join(Nearest(value, valid), ", "))}
}

// GPUMemoryRequired estimates the GPU memory one replica needs (see the formulas above).
func GPUMemoryRequired(d MemoryDemand) (MemoryEstimate, error) {
	if math.IsNaN(d.ParametersBillion) || math.IsInf(d.ParametersBillion, 0) || d.ParametersBillion <= 0 {
		return MemoryEstimate{}, &ArgumentError{Argument: "parameters_billion",
			Message: fmt.Sprintf("must be a positive number of billions of parameters, e.g. 7 or 0.5; got %g", d.ParametersBillion)}
	}
	bytes, ok := BytesPerParameter[d.Precision]
	if !ok {
		return MemoryEstimate{}, argumentError("precision", "precision", d.Precision, Precisions())
	}
	p := d.ParametersBillion
	weights := p * bytes
	var total float64
	var formula string
	switch d.Kind {
	case MemoryKindInference:
		if d.Method != "" {
			return MemoryEstimate{}, &ArgumentError{Argument: "method", Message: fmt.Sprintf("method %q only applies to training; leave it unset for inference", d.Method)}
		}
		total = weights * InferenceOverhead
		formula = fmt.Sprintf("%g B params × %g bytes (%s) × %g overhead = %s GB", p, bytes, d.Precision, InferenceOverhead, fmtGB(total))
	case MemoryKindTraining:
		adapters := p * AdapterTrainableShare * AdapterBytes
		switch d.Method {
		case MethodFull, "":
			if !slices.Contains(fullTrainingPrecisions, d.Precision) {
				return MemoryEstimate{}, &ArgumentError{Argument: "precision", Message: fmt.Sprintf(
					"full training keeps weights in %s (mixed precision with fp32 master weights); precision %q is for inference, or for lora/qlora on a quantized base",
					strings.Join(Nearest(d.Precision, fullTrainingPrecisions), ", "), d.Precision)}
			}
			total = p * FullTrainingBytes
			formula = fmt.Sprintf("%g B params × %g bytes (weights, gradients, fp32 master weights, Adam moments) = %s GB before activations", p, FullTrainingBytes, fmtGB(total))
		case MethodLoRA:
			total = weights + adapters
			formula = fmt.Sprintf("%g B params × %g bytes (%s, frozen) + %g %% trainable × %g bytes = %s GB before activations",
				p, bytes, d.Precision, AdapterTrainableShare*100, AdapterBytes, fmtGB(total))
		case MethodQLoRA:
			if d.Precision != "int4" {
				return MemoryEstimate{}, &ArgumentError{Argument: "precision", Message: fmt.Sprintf(
					"qlora stores the base in 4-bit NormalFloat: set precision = \"int4\" (got %q), or use method = \"lora\" for a %s base", d.Precision, d.Precision)}
			}
			weights = p * QLoRABitsPerParameter / 8
			total = weights + adapters
			formula = fmt.Sprintf("%g B params × %g bits (NF4, double quantization) / 8 + %g %% trainable × %g bytes = %s GB before activations",
				p, QLoRABitsPerParameter, AdapterTrainableShare*100, AdapterBytes, fmtGB(total))
		default:
			return MemoryEstimate{}, argumentError("method", "training method", d.Method, TrainingMethods)
		}
	default:
		return MemoryEstimate{}, argumentError("kind", "kind", d.Kind, MemoryKinds)
	}
	return MemoryEstimate{GiB: GBToGiB(total), WeightsGB: weights, Formula: formula}, nil
}

// GBToGiB converts decimal gigabytes to GiB, rounded up to 0.01 GiB so a fit never falls short.
func GBToGiB(gb float64) float64 {
	return math.Ceil(math.Round(gb*1e9/bytesPerGiB*1e6)/1e4) / 100
}

func fmtGB(gb float64) string { return fmt.Sprintf("%.4g", gb) }

// exportMemoryModel is catalog.memory_model: the numbers lib.memory_required_gib computes with.
func exportMemoryModel() map[string]any {
	bytes := map[string]any{}
	for p, b := range BytesPerParameter {
		bytes[p] = b
	}
	return map[string]any{
		"bytes_per_parameter":      bytes,
		"inference_overhead":       InferenceOverhead,
		"full_training_bytes":      FullTrainingBytes,
		"full_training_precisions": fullTrainingPrecisions,
		"adapter_trainable_share":  AdapterTrainableShare,
		"adapter_bytes":            AdapterBytes,
		"qlora_bits_per_parameter": QLoRABitsPerParameter,
		"bytes_per_gib":            bytesPerGiB,
	}
}

// Nearest orders valid values so that an error can lead with the value the user most likely meant:
// values that contain what was given (or are contained in it, ignoring case) first, then by edit
// distance, then as given.
func Nearest(value string, valid []string) []string {
	out := slices.Clone(valid)
	v := strings.ToLower(value)
	rank := func(s string) (int, int) {
		s = strings.ToLower(s)
		contained := 1
		if v != "" && (strings.Contains(s, v) || strings.Contains(v, s)) {
			contained = 0
		}
		return contained, editDistance(v, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		ci, di := rank(out[i])
		cj, dj := rank(out[j])
		return ci < cj || ci == cj && di < dj
	})
	return out
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
