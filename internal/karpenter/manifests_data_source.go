package karpenter

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rsschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

var (
	_ datasource.DataSource              = &ManifestsDataSource{}
	_ datasource.DataSourceWithConfigure = &ManifestsDataSource{}
)

// ManifestsDataSource is gpufleet_karpenter_manifests: the objects gpufleet_karpenter_node_pool
// would apply for the same arguments, as YAML, validated in process the same way, for GitOps
// repositories. It reaches no cluster and manages nothing.
type ManifestsDataSource struct {
	meta *conns.Meta
}

// NewManifestsDataSource is the data source factory.
func NewManifestsDataSource() datasource.DataSource { return &ManifestsDataSource{} }

func (d *ManifestsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_karpenter_manifests"
}

func (d *ManifestsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	meta, err := conns.FromProviderData(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected provider data", err.Error())
		return
	}
	d.meta = meta
}

// dataSourceArguments are the resource's arguments the data source takes, and its outputs.
var (
	dataSourceArguments = append([]string{"cluster_name", "name"}, recordedArguments...)
	dataSourceOutputs   = []string{"manifests", "objects", "node_pools"}
)

// resourceSchema is gpufleet_karpenter_node_pool's schema.
func resourceSchema(ctx context.Context) rsschema.Schema {
	var resp resource.SchemaResponse
	(&NodePoolResource{}).Schema(ctx, resource.SchemaRequest{}, &resp)
	return resp.Schema
}

func (d *ManifestsDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	rs := resourceSchema(ctx)
	args := map[string]rsschema.Attribute{}
	argBlocks := map[string]rsschema.Block{}
	outs := map[string]rsschema.Attribute{}
	for _, name := range dataSourceArguments {
		if a, ok := rs.Attributes[name]; ok {
			args[name] = a
		}
		if b, ok := rs.Blocks[name]; ok {
			argBlocks[name] = b
		}
	}
	for _, name := range dataSourceOutputs {
		outs[name] = rs.Attributes[name]
	}
	attrs := poolschema.DataSourceAttributes(args, argumentFlags)
	maps.Copy(attrs, poolschema.DataSourceAttributes(outs, outputFlags))
	blocks := poolschema.DataSourceBlocks(argBlocks, argumentFlags)
	resp.Schema = dsschema.Schema{
		MarkdownDescription: "The objects `gpufleet_karpenter_node_pool` would apply for the same arguments (node class, NodePools, NodeOverlay), as YAML, for GitOps repositories: rendered and validated in process against the Karpenter release's CRDs exactly as the resource does at plan, with the same errors and warnings at the same arguments. It reaches no cluster and manages nothing; the objects carry no owner label.",
		Attributes:          attrs,
		Blocks:              blocks,
	}
}

func (d *ManifestsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.meta == nil {
		resp.Diagnostics.AddError("Provider not configured", "the gpufleet provider was not configured before the data source was used")
		return
	}
	// The arguments as the resource's planned values: its schema, the resource's defaults applied.
	rs := resourceSchema(ctx)
	rsType := rs.Type().TerraformType(ctx).(tftypes.Object)
	var in map[string]tftypes.Value
	if err := req.Config.Raw.As(&in); err != nil {
		resp.Diagnostics.AddError("Reading the configuration", err.Error())
		return
	}
	vals := map[string]tftypes.Value{}
	for name, t := range rsType.AttributeTypes {
		if v, ok := in[name]; ok && !isOutput(name) {
			vals[name] = v
		} else {
			vals[name] = tftypes.NewValue(t, nil)
		}
	}
	raw, err := poolschema.ApplyDefaults(ctx, rs, tftypes.NewValue(rsType, vals))
	if err != nil {
		resp.Diagnostics.AddError("Applying the resource's defaults", err.Error())
		return
	}
	planned := tfsdk.Plan{Schema: rs, Raw: raw}
	m := new(nodePoolModel)
	resp.Diagnostics.Append(planned.Get(ctx, m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	record, err := recordConfig(planned.Raw)
	if err != nil {
		resp.Diagnostics.AddError("Recording the pool's configuration", err.Error())
		return
	}
	region := types.StringValue(d.meta.AWSSettings.RegionHint())
	spec, diags := m.spec(ctx, &m.Model, region)
	resp.Diagnostics.Append(diags...)
	set, diags := m.settings(ctx, record)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	poolschema.AddProblems(&resp.Diagnostics, spec.Validate())
	if resp.Diagnostics.HasError() {
		return
	}
	if !spec.AllKnown() || record == "" {
		resp.Diagnostics.AddError("Unknown arguments", "every argument of gpufleet_karpenter_manifests must be known when it is read.")
		return
	}
	derived, err := pool.Derive(spec, d.meta.Pool)
	if err != nil {
		resp.Diagnostics.AddError("Deriving the pool", err.Error())
		return
	}
	rendering := render.Render(spec, derived, set)
	addNotes(&resp.Diagnostics, rendering.Notes)
	if !resp.Diagnostics.HasError() {
		validateObjects(ctx, set, rendering, nil, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.State.Raw = req.Config.Raw
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("manifests"), manifests(rendering.Objects))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("objects"), objectList(rendering.Objects))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node_pools"), nodePoolList(rendering.NodePools))...)
}

func isOutput(name string) bool {
	for _, o := range dataSourceOutputs {
		if o == name {
			return true
		}
	}
	return false
}

// argumentFlags: an argument of the data source is required or optional as in the resource, and
// optional where the resource computes it (the data source applies the resource's defaults itself).
func argumentFlags(_ string, a rsschema.Attribute) poolschema.Flags {
	return poolschema.Flags{Required: a.IsRequired(), Optional: a.IsOptional() || (a.IsComputed() && !a.IsRequired())}
}

// outputFlags: the outputs (and what they nest) are computed.
func outputFlags(string, rsschema.Attribute) poolschema.Flags {
	return poolschema.Flags{Computed: true}
}
