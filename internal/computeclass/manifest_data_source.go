package computeclass

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// ManifestDataSource is gpufleet_gke_compute_class_manifest: a ComputeClass rendered, validated and
// judged by policy exactly as gpufleet_gke_compute_class plans it, managing nothing, for
// GitOps repositories.
type ManifestDataSource struct {
	poolschema.DataSource
}

var _ datasource.DataSourceWithConfigure = &ManifestDataSource{}

// NewManifestDataSource is the data source factory.
func NewManifestDataSource() datasource.DataSource { return &ManifestDataSource{} }

func (d *ManifestDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_gke_compute_class_manifest"
}

// classSchema is the schema of exactly classModel: what a ComputeClass has wherever it is rendered.
func classSchema(ctx context.Context) rschema.Schema {
	return rschema.Schema{Attributes: classAttributes(), Blocks: classBlocks(ctx)}
}

func (d *ManifestDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	s := classSchema(ctx)
	blocks := poolschema.DataSourceBlocks(s.Blocks, poolschema.KeepFlags)
	delete(blocks, "timeouts")
	resp.Schema = dschema.Schema{
		MarkdownDescription: "Renders a GPU pool as a GKE ComputeClass without managing anything: the same arguments, validation, " +
			"policy checks, `manifests` and `pod_spec` as `gpufleet_gke_compute_class`, for ComputeClasses applied by GitOps " +
			"(Argo CD, Flux) or `kubectl`. Nothing calls a cluster or a cloud; a policy deny fails the read, as it fails a plan of the resource.",
		Attributes: poolschema.DataSourceAttributes(s.Attributes, poolschema.KeepFlags),
		Blocks:     blocks,
	}
}

func (d *ManifestDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if !d.Configured(&resp.Diagnostics) {
		return
	}
	schema := classSchema(ctx)
	raw, err := withTimeouts(ctx, schema, req.Config.Raw)
	if err == nil {
		raw, err = poolschema.ApplyDefaults(ctx, schema, raw) // the resource's defaults, as its plan has them
	}
	if err != nil {
		resp.Diagnostics.AddError("Reading the configuration", err.Error())
		return
	}
	var m classModel
	resp.Diagnostics.Append(tfsdk.Config{Schema: schema, Raw: raw}.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg := configured{activeMigration: !m.ActiveMigration.IsNull(), consolidationDelay: !m.ConsolidationDelayMinutes.IsNull()}
	planClass(ctx, d.Meta, &m, cfg, false, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	state := tfsdk.State{Schema: schema, Raw: tftypes.NewValue(schema.Type().TerraformType(ctx), nil)}
	resp.Diagnostics.Append(state.Set(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	out, err := withoutTimeouts(ctx, resp.State.Schema.Type().TerraformType(ctx), state.Raw)
	if err != nil {
		resp.Diagnostics.AddError("Writing the state", err.Error())
		return
	}
	resp.State.Raw = out
}

// withTimeouts is the data source's configuration as a value of classSchema, whose timeouts block
// the data source does not have (null).
func withTimeouts(ctx context.Context, s rschema.Schema, v tftypes.Value) (tftypes.Value, error) {
	t, ok := s.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		return tftypes.Value{}, fmt.Errorf("the class schema is not an object")
	}
	attrs, err := attributes(v)
	if err != nil {
		return tftypes.Value{}, err
	}
	attrs["timeouts"] = tftypes.NewValue(t.AttributeTypes["timeouts"], nil)
	return tftypes.NewValue(t, attrs), nil
}

// withoutTimeouts is a value of classSchema as a value of the data source's type.
func withoutTimeouts(_ context.Context, t tftypes.Type, v tftypes.Value) (tftypes.Value, error) {
	attrs, err := attributes(v)
	if err != nil {
		return tftypes.Value{}, err
	}
	delete(attrs, "timeouts")
	return tftypes.NewValue(t, attrs), nil
}

// attributes are an object value's attributes, in a map of their own (As hands out the value's).
func attributes(v tftypes.Value) (map[string]tftypes.Value, error) {
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return nil, err
	}
	return maps.Clone(attrs), nil
}
