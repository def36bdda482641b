package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

var _ function.Function = &SpotSplitFunction{}

// SpotSplitFunction is provider::gpufleet::spot_split(size, on_demand_base, spot_percentage).
type SpotSplitFunction struct{}

// NewSpotSplitFunction is the function factory.
func NewSpotSplitFunction() function.Function { return &SpotSplitFunction{} }

var spotSplitAttrTypes = map[string]attr.Type{"on_demand": types.Int64Type, "spot": types.Int64Type}

func (f *SpotSplitFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "spot_split"
}

func (f *SpotSplitFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "How a pool size splits into on-demand and spot nodes",
		MarkdownDescription: "Splits a pool size the way `gpufleet_eks_node_pool` and `gpufleet_gke_node_pool` split `min_size`, `max_size` and `desired_size` " +
			"(the same code): `spot = floor(max(size - on_demand_base, 0) × spot_percentage / 100)` and `on_demand = size - spot`. " +
			"Returns an object `{ on_demand, spot }`.",
		Parameters: []function.Parameter{
			function.Int64Parameter{Name: "size", MarkdownDescription: "Number of nodes, 0 or more."},
			function.Int64Parameter{Name: "on_demand_base", MarkdownDescription: "Nodes that always run on-demand (`capacity.on_demand_base`), 0 or more."},
			function.Int64Parameter{Name: "spot_percentage", MarkdownDescription: "Share of the nodes above the base that run on spot (`capacity.spot_percentage`), 0 to 100."},
		},
		Return: function.ObjectReturn{AttributeTypes: spotSplitAttrTypes},
	}
}

func (f *SpotSplitFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var size, base, percentage int64
	resp.Error = req.Arguments.Get(ctx, &size, &base, &percentage)
	if resp.Error != nil {
		return
	}
	switch {
	case size < 0:
		resp.Error = function.NewArgumentFuncError(0, fmt.Sprintf("size: must be 0 or more, got %d", size))
	case base < 0:
		resp.Error = function.NewArgumentFuncError(1, fmt.Sprintf("on_demand_base: must be 0 or more, got %d", base))
	case percentage < 0 || percentage > 100:
		resp.Error = function.NewArgumentFuncError(2, fmt.Sprintf("spot_percentage: must be between 0 and 100, got %d", percentage))
	}
	if resp.Error != nil {
		return
	}
	spot := int64(pool.SpotCount(int(size), int(base), int(percentage)))
	// The attribute types are fixed above, so building the object cannot fail.
	resp.Error = resp.Result.Set(ctx, types.ObjectValueMust(spotSplitAttrTypes, map[string]attr.Value{
		"on_demand": types.Int64Value(size - spot),
		"spot":      types.Int64Value(spot),
	}))
}
