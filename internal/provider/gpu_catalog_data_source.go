package provider

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
)

var (
	_ datasource.DataSource              = &GPUCatalogDataSource{}
	_ datasource.DataSourceWithConfigure = &GPUCatalogDataSource{}
)

// GPUCatalogDataSource lists GPU node shapes of a cloud from gpufleet's catalog.
type GPUCatalogDataSource struct {
	meta *conns.Meta
}

// NewGPUCatalogDataSource is the data source factory.
func NewGPUCatalogDataSource() datasource.DataSource { return &GPUCatalogDataSource{} }

type gpuCatalogModel struct {
	Cloud           types.String    `tfsdk:"cloud"`
	Region          types.String    `tfsdk:"region"`
	Regions         []types.String  `tfsdk:"regions"`
	MaxHourlyUSD    types.Float64   `tfsdk:"max_on_demand_hourly_usd"`
	GPUModel        types.String    `tfsdk:"gpu_model"`
	MinGPUMemoryGiB types.Float64   `tfsdk:"min_gpu_memory_gib"`
	MIGCapable      types.Bool      `tfsdk:"mig_capable"`
	MaxGPUsPerNode  types.Int64     `tfsdk:"max_gpus_per_node"`
	NodeTypes       []nodeTypeModel `tfsdk:"node_types"`
}

type nodeTypeModel struct {
	Name              types.String  `tfsdk:"name"`
	Region            types.String  `tfsdk:"region"`
	Family            types.String  `tfsdk:"family"`
	Accelerator       types.String  `tfsdk:"accelerator"`
	GPUModel          types.String  `tfsdk:"gpu_model"`
	GPUCount          types.Int64   `tfsdk:"gpu_count"`
	GPUMemoryGiB      types.Float64 `tfsdk:"gpu_memory_gib"`
	GPUClass          types.String  `tfsdk:"gpu_class"`
	MIGProfiles       []string      `tfsdk:"mig_profiles"`
	VCPU              types.Int64   `tfsdk:"vcpu"`
	MemoryGiB         types.Float64 `tfsdk:"memory_gib"`
	InterNodeNetwork  types.String  `tfsdk:"inter_node_network"`
	InterNodeNICs     types.Int64   `tfsdk:"inter_node_interfaces"`
	OnDemandHourlyUSD types.Float64 `tfsdk:"on_demand_hourly_usd"`
	SpotHourlyUSD     types.Float64 `tfsdk:"spot_hourly_usd"`
	PriceSource       types.String  `tfsdk:"price_source"`
	PriceAsOf         types.String  `tfsdk:"price_as_of"`
	SpotPriceAsOf     types.String  `tfsdk:"spot_price_as_of"`
}

func (d *GPUCatalogDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_gpu_catalog"
}

func (d *GPUCatalogDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "GPU instance types (AWS) or machine type and accelerator combinations (GKE) from gpufleet's catalog, " +
			"with GPU model, count, memory, MIG profiles and price estimates. With `region` (or `regions`, globs), only shapes priced there are listed, " +
			"one row per shape and region, cheapest first, at the provider's negotiated rates (`pricing`). Every row names the source and date of its catalog price.",
		Attributes: map[string]schema.Attribute{
			"cloud": schema.StringAttribute{
				MarkdownDescription: "`aws` or `gcp`.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.OneOf(string(catalog.AWS), string(catalog.GCP))},
			},
			"region": schema.StringAttribute{
				MarkdownDescription: "Only shapes with a price in this region, e.g. `us-east-1` or `europe-west4`; prices are for this region.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("regions"))},
			},
			"regions": schema.ListAttribute{
				MarkdownDescription: "Regions or globs, as the policy data's `allowed_regions` spells them (`eu-*`, `europe-west*`): one row per shape and matching region it is priced in. Each glob must match a region of `cloud`.",
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"max_on_demand_hourly_usd": schema.Float64Attribute{
				MarkdownDescription: "Only rows whose on-demand node-hour, at the provider's pricing, costs at most this much. Needs `region` or `regions`.",
				Optional:            true,
				Validators:          []validator.Float64{float64validator.AtLeast(0)},
			},
			"gpu_model": schema.StringAttribute{
				MarkdownDescription: "Only this GPU model, e.g. `L4` or `H100-80GB`.",
				Optional:            true,
				Validators:          []validator.String{oneOfNearest(gpuModelNames()...)},
			},
			"min_gpu_memory_gib": schema.Float64Attribute{
				MarkdownDescription: "Only GPUs with at least this much usable memory (GiB) each.",
				Optional:            true,
				Validators:          []validator.Float64{float64validator.AtLeast(0)},
			},
			"mig_capable": schema.BoolAttribute{
				MarkdownDescription: "When `true`, only GPUs that support MIG.",
				Optional:            true,
			},
			"max_gpus_per_node": schema.Int64Attribute{
				MarkdownDescription: "Only shapes with at most this many GPUs per node.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"node_types": schema.ListNestedAttribute{
				MarkdownDescription: "The matching node shapes.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"name":           schema.StringAttribute{Computed: true, MarkdownDescription: "EC2 instance type or GKE machine type."},
						"region":         schema.StringAttribute{Computed: true, MarkdownDescription: "Region of the row's prices; null without `region` or `regions`."},
						"family":         schema.StringAttribute{Computed: true, MarkdownDescription: "Instance or machine family, e.g. `p5`, `a3-highgpu`."},
						"accelerator":    schema.StringAttribute{Computed: true, MarkdownDescription: "GKE accelerator type; null on AWS."},
						"gpu_model":      schema.StringAttribute{Computed: true, MarkdownDescription: "GPU model, e.g. `H100-80GB`."},
						"gpu_count":      schema.Int64Attribute{Computed: true, MarkdownDescription: "GPUs per node."},
						"gpu_memory_gib": schema.Float64Attribute{Computed: true, MarkdownDescription: "Usable memory of one GPU in GiB, as the cloud reports it (an L4 sold as 24 GB has 22.35 GiB)."},
						"gpu_class":      schema.StringAttribute{Computed: true, MarkdownDescription: "`training` or `inference`: what the GPU was built for."},
						"mig_profiles":   schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "MIG profiles of the GPU; empty without MIG."},
						"vcpu":           schema.Int64Attribute{Computed: true, MarkdownDescription: "vCPUs per node."},
						"memory_gib":     schema.Float64Attribute{Computed: true, MarkdownDescription: "Host memory per node in GiB."},
						"inter_node_network": schema.StringAttribute{Computed: true, MarkdownDescription: "The network the node's GPUs reach other nodes' GPUs through, for training whose replicas span nodes: `" + strings.Join(catalog.InterNodeNetworks, "`, `") + "` " +
							"(EFA on EC2; GPUDirect-TCPX on a3-highgpu-8g, TCPXO on a3-megagpu-8g, RDMA on a3-ultragpu-8g and a4-highgpu-8g); null for none. Sources: EC2 User Guide \"Elastic Fabric Adapter\", GKE \"Maximize GPU network bandwidth\" (guide \"Right-sizing\")."},
						"inter_node_interfaces": schema.Int64Attribute{Computed: true, MarkdownDescription: "Interfaces of `inter_node_network`: on EC2 the network cards, one EFA interface each (p5.48xlarge 32); on GKE the additional GPU NICs (a3-megagpu-8g 8); 0 without one."},
						"on_demand_hourly_usd":  schema.Float64Attribute{Computed: true, MarkdownDescription: "On-demand price of one node-hour in `region`, after the provider's discount and overrides; null without `region`."},
						"spot_hourly_usd":       schema.Float64Attribute{Computed: true, MarkdownDescription: "Spot price estimate of one node-hour in `region`; null without `region`."},
						"price_source":          schema.StringAttribute{Computed: true, MarkdownDescription: "Where the catalog price comes from."},
						"price_as_of":           schema.StringAttribute{Computed: true, MarkdownDescription: "Date of the catalog's on-demand price (YYYY-MM-DD)."},
						"spot_price_as_of":      schema.StringAttribute{Computed: true, MarkdownDescription: "Date of the spot figure the spot price is derived from (YYYY-MM-DD): spot prices are per family and region, each from a published figure where there is one, and `price_source` says which (guide \"What a recommendation costs\")."},
					},
				},
			},
		},
	}
}

func gpuModelNames() []string {
	var names []string
	for _, g := range catalog.GPUs() {
		names = append(names, g.Name)
	}
	return names
}

func (d *GPUCatalogDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	meta, err := conns.FromProviderData(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected provider data", err.Error())
		return
	}
	d.meta = meta
}

func (d *GPUCatalogDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m gpuCatalogModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cloud := catalog.Cloud(m.Cloud.ValueString())
	var globs catalog.RegionGlobs
	if m.Regions != nil {
		patterns := make([]string, len(m.Regions))
		for i, r := range m.Regions {
			patterns[i] = r.ValueString()
		}
		var err error
		if globs, err = catalog.CompileRegionGlobs("regions", patterns, catalog.Regions(cloud)); err != nil {
			addArgumentError(&resp.Diagnostics, "Region glob matches nothing", err)
			return
		}
	}
	if region, known := m.Region.ValueString(), catalog.Regions(cloud); region != "" && !slices.Contains(known, region) {
		// an empty list would look like "nothing fits"; a region the catalog does not price is
		// most likely a typo (us-east1 for us-east-1). known is sorted.
		attributeError(&resp.Diagnostics, path.Root("region"), "Region not in the catalog",
			fmt.Sprintf("the catalog prices no %s node type in %q; it prices these regions: %s.", cloud, region, strings.Join(known, ", ")))
		return
	}
	if !m.MaxHourlyUSD.IsNull() && m.Region.IsNull() && globs == nil {
		attributeError(&resp.Diagnostics, path.Root("max_on_demand_hourly_usd"), "Price filter without a region",
			"prices are per region: set region or regions as well.")
		return
	}
	var pricing catalog.Pricing
	if d.meta != nil {
		pricing = d.meta.Pool.Pricing
	}
	m.NodeTypes = []nodeTypeModel{}
	for _, n := range catalog.Find(catalog.Requirement{
		Cloud:           cloud,
		Region:          m.Region.ValueString(),
		GPUModel:        m.GPUModel.ValueString(),
		MinGPUMemoryGiB: m.MinGPUMemoryGiB.ValueFloat64(),
		MIGCapable:      m.MIGCapable.ValueBool(),
		MaxGPUs:         int(m.MaxGPUsPerNode.ValueInt64()),
	}) {
		for _, region := range rowRegions(n, m.Region.ValueString(), globs) {
			nt, err := nodeTypeFrom(n, region, pricing)
			if err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("pricing %s in %s", n.Name, region), err.Error())
				return
			}
			if m.MaxHourlyUSD.IsNull() || nt.OnDemandHourlyUSD.ValueFloat64() <= m.MaxHourlyUSD.ValueFloat64() {
				m.NodeTypes = append(m.NodeTypes, nt)
			}
		}
	}
	if globs != nil {
		sort.SliceStable(m.NodeTypes, func(i, j int) bool {
			return m.NodeTypes[i].OnDemandHourlyUSD.ValueFloat64() < m.NodeTypes[j].OnDemandHourlyUSD.ValueFloat64()
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// rowRegions are the regions a node type gets a row for: the region, each priced region the globs
// match, or one row without a region.
func rowRegions(n catalog.NodeType, region string, globs catalog.RegionGlobs) []string {
	if globs == nil {
		return []string{region}
	}
	var out []string
	for _, p := range n.Prices {
		if globs.Match(p.Region) {
			out = append(out, p.Region)
		}
	}
	sort.Strings(out)
	return out
}

func nodeTypeFrom(n catalog.NodeType, region string, pricing catalog.Pricing) (nodeTypeModel, error) {
	g := n.GPU()
	out := nodeTypeModel{
		Name:              types.StringValue(n.Name),
		Region:            stringOrNull(region),
		Family:            types.StringValue(n.Family),
		Accelerator:       types.StringNull(),
		GPUModel:          types.StringValue(n.GPUModel),
		GPUCount:          types.Int64Value(int64(n.GPUCount)),
		GPUMemoryGiB:      types.Float64Value(g.MemoryGiB),
		GPUClass:          types.StringValue(string(g.Class)),
		MIGProfiles:       g.MIGProfileNames(),
		VCPU:              types.Int64Value(int64(n.VCPU)),
		MemoryGiB:         types.Float64Value(n.MemoryGiB),
		InterNodeNetwork:  stringOrNull(n.InterNode),
		InterNodeNICs:     types.Int64Value(int64(n.InterNodeNICs)),
		OnDemandHourlyUSD: types.Float64Null(),
		SpotHourlyUSD:     types.Float64Null(),
		PriceSource:       types.StringNull(),
		PriceAsOf:         types.StringNull(),
		SpotPriceAsOf:     types.StringNull(),
	}
	if n.Accelerator != "" {
		out.Accelerator = types.StringValue(n.Accelerator)
	}
	if len(n.Prices) > 0 {
		row := n.Prices[0]
		if region != "" {
			row, _ = n.Price(region)
		}
		out.PriceSource = types.StringValue(row.Source)
		out.PriceAsOf = types.StringValue(row.AsOf)
		out.SpotPriceAsOf = types.StringValue(row.SpotAsOf)
	}
	if region == "" {
		return out, nil
	}
	od, spot, err := pricing.Hourly(n, region)
	if err != nil {
		return out, err
	}
	out.OnDemandHourlyUSD = types.Float64Value(od)
	out.SpotHourlyUSD = types.Float64Value(spot)
	return out, nil
}
