package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

var _ function.Function = &MIGProfilesFunction{}

// MIGProfilesFunction is provider::gpufleet::mig_profiles(gpu_model).
type MIGProfilesFunction struct{}

// NewMIGProfilesFunction is the function factory.
func NewMIGProfilesFunction() function.Function { return &MIGProfilesFunction{} }

var migProfileAttrTypes = map[string]attr.Type{
	"name":           types.StringType,
	"compute_slices": types.Int64Type,
	"memory_gib":     types.Float64Type,
	"max_instances":  types.Int64Type,
}

func (f *MIGProfilesFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "mig_profiles"
}

func (f *MIGProfilesFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "MIG profiles of a GPU model",
		MarkdownDescription: "Returns the NVIDIA Multi-Instance GPU profiles of a GPU model, in the order of NVIDIA's MIG user guide: " +
			"`name` (e.g. `3g.40gb`), `compute_slices`, `memory_gib` and `max_instances` per GPU. An empty list for GPUs without MIG.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:                "gpu_model",
				MarkdownDescription: "GPU model as gpufleet names it, e.g. `H100-80GB`, `A100-40GB`, `A30`, `L4`.",
			},
		},
		Return: function.ListReturn{ElementType: types.ObjectType{AttrTypes: migProfileAttrTypes}},
	}
}

func (f *MIGProfilesFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var model string
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &model))
	if resp.Error != nil {
		return
	}
	gpu, ok := catalog.GPU(model)
	if !ok {
		resp.Error = function.NewArgumentFuncError(0, fmt.Sprintf("unknown GPU model %q: gpufleet knows %s", model, strings.Join(gpuModelNames(), ", ")))
		return
	}
	profiles := make([]attr.Value, 0, len(gpu.MIGProfiles))
	for _, p := range gpu.MIGProfiles {
		obj, diags := types.ObjectValue(migProfileAttrTypes, map[string]attr.Value{
			"name":           types.StringValue(p.Name),
			"compute_slices": types.Int64Value(int64(p.ComputeSlices)),
			"memory_gib":     types.Float64Value(p.MemoryGiB),
			"max_instances":  types.Int64Value(int64(p.MaxInstances)),
		})
		if diags.HasError() {
			resp.Error = function.FuncErrorFromDiags(ctx, diags)
			return
		}
		profiles = append(profiles, obj)
	}
	list, diags := types.ListValue(types.ObjectType{AttrTypes: migProfileAttrTypes}, profiles)
	if diags.HasError() {
		resp.Error = function.FuncErrorFromDiags(ctx, diags)
		return
	}
	resp.Error = resp.Result.Set(ctx, list)
}
