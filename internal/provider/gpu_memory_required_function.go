package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

var _ function.Function = &GPUMemoryRequiredFunction{}

// GPUMemoryRequiredFunction is provider::gpufleet::gpu_memory_required(parameters_billion, precision, kind, [method]).
type GPUMemoryRequiredFunction struct{}

// NewGPUMemoryRequiredFunction is the function factory.
func NewGPUMemoryRequiredFunction() function.Function { return &GPUMemoryRequiredFunction{} }

func (f *GPUMemoryRequiredFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "gpu_memory_required"
}

// memoryEstimateDescription documents the formulas of catalog.GPUMemoryRequired and their sources;
// the recommendation data source shows it too.
const memoryEstimateDescription = "The estimate, in GiB (2^30 bytes) rounded up to 0.01, counts `P` billion parameters at `b` bytes each as `P × b` decimal GB:\n\n" +
	"| kind / method | formula | source |\n|---|---|---|\n" +
	"| `inference` | `P × bytes(precision) × 1.2` (KV cache, activations, CUDA context) | EleutherAI, *Transformer Math 101* (2023): ~20 % over the weights; 7B fp16 = 14 GB of weights |\n" +
	"| `training`, `full` (default) | `P × 16` bytes: fp16/bf16 weights 2 + gradients 2 + fp32 master weights 4 + Adam moments 4 + 4 | Rajbhandari et al., *ZeRO* (2020) §3.1: 1.5B GPT-2 needs ≥ 24 GB; HuggingFace's *Model training anatomy* counts 18 |\n" +
	"| `training`, `lora` | `P × bytes(precision)` frozen + 1 % of `P` trainable × 16 bytes | Hu et al., *LoRA* (2021): GPT-3 175B in 350 GB instead of 1.2 TB |\n" +
	"| `training`, `qlora` | `P × 4.127 bits / 8` (NF4, double quantization) + 1 % of `P` × 16 bytes; precision `int4` | Dettmers et al., *QLoRA* (2023): 65B fine-tunes in < 48 GB |\n\n" +
	"Bytes per parameter: `fp32` 4, `bf16`/`fp16` 2, `fp8`/`int8` 1, `int4` 0.5. Training estimates are before activations, which grow with batch size and sequence length: leave headroom for them. " +
	"The policy bundle computes the same estimate from the generated `catalog.memory_model` (`lib.memory_required_gib`)."

func (f *GPUMemoryRequiredFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "GPU memory one replica of a model needs",
		MarkdownDescription: "Estimates the GPU memory (GiB) one replica of a model needs, for `workload.gpu_memory_gib`. " +
			"The same estimate the `gpufleet_recommendation` data source and the policy bundle use.\n\n" + memoryEstimateDescription,
		Parameters: []function.Parameter{
			function.Float64Parameter{Name: "parameters_billion", MarkdownDescription: "Model size in billions of parameters, e.g. `7` or `70`; positive."},
			function.StringParameter{Name: "precision", MarkdownDescription: "Precision of the weights: `" + strings.Join(catalog.Precisions(), "`, `") + "`."},
			function.StringParameter{Name: "kind", MarkdownDescription: "`inference` or `training`."},
		},
		VariadicParameter: function.StringParameter{
			Name:                "method",
			MarkdownDescription: "Training only, at most one: `full` (default; Adam in mixed precision), `lora` or `qlora` (precision `int4`).",
		},
		Return: function.Float64Return{},
	}
}

func (f *GPUMemoryRequiredFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var d catalog.MemoryDemand
	var methods []string
	resp.Error = req.Arguments.Get(ctx, &d.ParametersBillion, &d.Precision, &d.Kind, &methods)
	if resp.Error != nil {
		return
	}
	if len(methods) > 1 {
		resp.Error = function.NewArgumentFuncError(3, fmt.Sprintf("method: give at most one of %s, not %d", strings.Join(catalog.TrainingMethods, ", "), len(methods)))
		return
	}
	if len(methods) == 1 {
		d.Method = methods[0]
	}
	e, err := catalog.GPUMemoryRequired(d)
	if err != nil {
		resp.Error = memoryArgumentError(err)
		return
	}
	resp.Error = resp.Result.Set(ctx, e.GiB)
}

// memoryArgumentError points a catalog.ArgumentError at the function argument it names.
func memoryArgumentError(err error) *function.FuncError {
	position := map[string]int64{"parameters_billion": 0, "precision": 1, "kind": 2, "method": 3}
	var ae *catalog.ArgumentError
	if errors.As(err, &ae) {
		if i, ok := position[ae.Argument]; ok {
			return function.NewArgumentFuncError(i, ae.Error())
		}
	}
	return function.NewFuncError(err.Error())
}
