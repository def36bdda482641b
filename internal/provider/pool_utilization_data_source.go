package provider

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics"
)

var (
	_ datasource.DataSource                   = &PoolUtilizationDataSource{}
	_ datasource.DataSourceWithConfigure      = &PoolUtilizationDataSource{}
	_ datasource.DataSourceWithValidateConfig = &PoolUtilizationDataSource{}
)

// PoolUtilizationDataSource reads what a pool's GPUs did over a window from the metrics block's
// Prometheus-compatible query API (dcgm-exporter series): package metrics does the work.
type PoolUtilizationDataSource struct {
	meta *conns.Meta
}

// NewPoolUtilizationDataSource is the data source factory.
func NewPoolUtilizationDataSource() datasource.DataSource { return &PoolUtilizationDataSource{} }

type poolUtilizationModel struct {
	Selector        types.String  `tfsdk:"selector"`
	Window          types.String  `tfsdk:"window"`
	Step            types.String  `tfsdk:"step"`
	EndTime         types.String  `tfsdk:"end_time"`
	HourlyUSDPerGPU types.Float64 `tfsdk:"hourly_usd_per_gpu"`
	NodeType        types.String  `tfsdk:"node_type"`
	Region          types.String  `tfsdk:"region"`

	HoursObserved          types.Float64 `tfsdk:"hours_observed"`
	Devices                types.Int64   `tfsdk:"devices"`
	MIGDevices             types.Int64   `tfsdk:"mig_devices"`
	GPUsMin                types.Int64   `tfsdk:"gpus_min"`
	GPUsAvg                types.Float64 `tfsdk:"gpus_avg"`
	GPUsMax                types.Int64   `tfsdk:"gpus_max"`
	UtilizationMeanPercent types.Float64 `tfsdk:"utilization_mean_percent"`
	UtilizationP95Percent  types.Float64 `tfsdk:"utilization_p95_percent"`
	MemoryUsedP95GiB       types.Float64 `tfsdk:"memory_used_p95_gib"`
	MemoryUsedP99GiB       types.Float64 `tfsdk:"memory_used_p99_gib"`
	MemoryUsedMaxGiB       types.Float64 `tfsdk:"memory_used_max_gib"`
	HoursUnder10Percent    types.Float64 `tfsdk:"hours_under_10_percent"`
	HoursUnder30Percent    types.Float64 `tfsdk:"hours_under_30_percent"`
	IdleGPUHours           types.Float64 `tfsdk:"idle_gpu_hours"`
	IdleMonthlyUSD         types.Float64 `tfsdk:"idle_monthly_usd"`
}

func (d *PoolUtilizationDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_pool_utilization"
}

func computedFloat(desc string) schema.Float64Attribute {
	return schema.Float64Attribute{MarkdownDescription: desc, Computed: true}
}

func (d *PoolUtilizationDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	unknownNote := " Null (with a warning that says why) when no series reports it, or no sample of theirs is usable (NaN, ±Inf): a missing series is never read as zero."
	resp.Schema = schema.Schema{
		MarkdownDescription: "What a GPU pool's GPUs actually did over a window, from NVIDIA dcgm-exporter series in the Prometheus-compatible query API of the " +
			"provider's `metrics` block (Prometheus, Amazon Managed Service for Prometheus, Google Cloud Managed Service for Prometheus). " +
			"One range query per metric at `step` — `DCGM_FI_DEV_GPU_UTIL`, `DCGM_FI_PROF_GR_ENGINE_ACTIVE`, `DCGM_FI_DEV_FB_USED` — with the " +
			"`selector`'s label matchers; the statistics are computed from the samples. A device is a GPU or a MIG device (series with `GPU_I_PROFILE`/`GPU_I_ID` labels), " +
			"identified by node and UUID, so pods coming and going on a GPU do not multiply it. Where a device reports `DCGM_FI_PROF_GR_ENGINE_ACTIVE` it is its " +
			"utilisation (it is the only one MIG devices report), else `DCGM_FI_DEV_GPU_UTIL`. In means and idle GPU-hours a MIG device weighs its share of the GPU's " +
			"compute slices (`3g.40gb` = 3/7). Steps in which no device reports are left out (`hours_observed`), with a warning. " +
			"Samples that are NaN or ±Inf (dcgm-exporter exports NaN for a field DCGM has no value for) are left out, with a warning; samples that are " +
			"not on the query's steps (a query frontend that aligns the range with the step its own way) count at the nearest step, with a warning. " +
			"No figure is ever NaN. " +
			"See the guide *Right-sizing from utilisation*.",
		Attributes: map[string]schema.Attribute{
			"selector": schema.StringAttribute{
				MarkdownDescription: "PromQL label matchers in braces that select the pool's dcgm-exporter series, e.g. `{gpufleet_pool=\"acme-train\"}` or `{cluster=\"prod\", label_eks_amazonaws_com_nodegroup=~\"acme-train-.*\"}`. The metric names are gpufleet's; `__name__` is not allowed.",
				Required:            true,
			},
			"window": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("How far back to look, as a Prometheus duration: `14d` (default), `7d`, `36h`. At most `90d`, and at most %d steps (`window` / `step`): a longer window needs a wider step.", metrics.MaxPoints),
				Optional:            true,
			},
			"step": schema.StringAttribute{
				MarkdownDescription: "Resolution of the range queries: `5m` (default). Each step's sample is the latest within Prometheus's lookback (5 minutes by default) and stands for the whole step; `window` must be a whole number of steps.",
				Optional:            true,
			},
			"end_time": schema.StringAttribute{
				MarkdownDescription: "End of the window (RFC 3339, e.g. `2026-11-20T00:00:00Z`), for a reproducible report. Defaults to now. Truncated to a multiple of the step since the Unix epoch, as query frontends that align ranges with their step (Cortex, Mimir, Thanos) do.",
				Optional:            true,
				Validators:          []validator.String{rfc3339Validator{}},
			},
			"hourly_usd_per_gpu": schema.Float64Attribute{
				MarkdownDescription: "What one GPU costs per hour, for `idle_monthly_usd`. Unset: the catalog's on-demand price of `node_type` in `region` (after the provider's `pricing` overrides and discount) divided by its GPUs.",
				Optional:            true,
				Computed:            true,
				Validators:          []validator.Float64{float64validator.AtLeast(0)},
			},
			"node_type": schema.StringAttribute{
				MarkdownDescription: "The pool's EC2 instance type or GKE machine type (one with fixed GPUs, e.g. `a3-highgpu-8g`), to price idle GPU-hours when `hourly_usd_per_gpu` is unset.",
				Optional:            true,
				Validators: []validator.String{stringvalidator.AlsoRequires(path.MatchRoot("region")),
					stringvalidator.ConflictsWith(path.MatchRoot("hourly_usd_per_gpu"))},
			},
			"region": schema.StringAttribute{
				MarkdownDescription: "Region of `node_type`'s price, e.g. `us-east-1` or `us-central1`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.AlsoRequires(path.MatchRoot("node_type"))},
			},
			"hours_observed":           computedFloat("Hours of the window in which at least one device reported (steps × step): the statistics cover these."),
			"devices":                  schema.Int64Attribute{MarkdownDescription: "Distinct devices (GPUs and MIG devices) seen over the window.", Computed: true},
			"mig_devices":              schema.Int64Attribute{MarkdownDescription: "How many of `devices` are MIG devices.", Computed: true},
			"gpus_min":                 schema.Int64Attribute{MarkdownDescription: "Fewest devices reporting in one observed step.", Computed: true},
			"gpus_avg":                 computedFloat("Devices reporting per observed step, on average."),
			"gpus_max":                 schema.Int64Attribute{MarkdownDescription: "Most devices reporting in one step.", Computed: true},
			"utilization_mean_percent": computedFloat("At each step the mean utilisation over the pool's devices; the mean of that over the window." + unknownNote),
			"utilization_p95_percent":  computedFloat("The 95th percentile (nearest rank) over the window of the per-step pool mean: GF-RS-006 compares it to its threshold." + unknownNote),
			"memory_used_p95_gib":      computedFloat("95th percentile (nearest rank) of framebuffer used per device, every device's samples pooled, in GiB." + unknownNote),
			"memory_used_p99_gib":      computedFloat("99th percentile of framebuffer used per device, in GiB: what a right-sized GPU or MIG slice must hold, plus headroom." + unknownNote),
			"memory_used_max_gib":      computedFloat("Most framebuffer any device used at a step, in GiB." + unknownNote),
			"hours_under_10_percent":   computedFloat("Hours (steps × step) whose pool mean utilisation was under 10 %." + unknownNote),
			"hours_under_30_percent":   computedFloat("Hours whose pool mean utilisation was under 30 %." + unknownNote),
			"idle_gpu_hours":           computedFloat("The sum over steps and devices of (1 − utilisation) × step, in GPU-hours." + unknownNote),
			"idle_monthly_usd":         computedFloat("`idle_gpu_hours` scaled from `hours_observed` to a 730-hour month, at `hourly_usd_per_gpu`. Null without a price or a known utilisation."),
		},
	}
}

func (d *PoolUtilizationDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	meta, err := conns.FromProviderData(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected provider data", err.Error())
		return
	}
	d.meta = meta
}

// ValidateConfig checks selector, window and step at plan time, before any query.
func (d *PoolUtilizationDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m poolUtilizationModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !m.Selector.IsUnknown() && !m.Selector.IsNull() {
		if err := metrics.ValidateSelector(m.Selector.ValueString()); err != nil {
			attributeError(&resp.Diagnostics, path.Root("selector"), "Invalid selector", err.Error())
		}
	}
	if m.Window.IsUnknown() || m.Step.IsUnknown() {
		return
	}
	_, _, _ = windowStep(m, &resp.Diagnostics)
}

// windowStep parses and checks window and step, reporting at the attribute to blame.
func windowStep(m poolUtilizationModel, diags *diag.Diagnostics) (time.Duration, time.Duration, bool) {
	parse := func(v types.String, def, attr string) (time.Duration, bool) {
		s := def
		if !v.IsNull() {
			s = v.ValueString()
		}
		dur, err := metrics.ParseDuration(s)
		if err != nil {
			attributeError(diags, path.Root(attr), "Invalid "+attr, err.Error())
			return 0, false
		}
		return dur, true
	}
	window, okW := parse(m.Window, metrics.DefaultWindow, "window")
	step, okS := parse(m.Step, metrics.DefaultStep, "step")
	if !okW || !okS {
		return 0, 0, false
	}
	err := metrics.ValidateWindowStep(window, step)
	var we *metrics.WindowError
	switch {
	case errors.As(err, &we):
		attributeError(diags, path.Root("window"), "Invalid window", err.Error())
	case err != nil:
		attributeError(diags, path.Root("step"), "Invalid step", err.Error())
	}
	return window, step, err == nil
}

func (d *PoolUtilizationDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m poolUtilizationModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	window, step, ok := windowStep(m, &resp.Diagnostics)
	if !ok {
		return
	}
	q := metrics.Query{Selector: m.Selector.ValueString(), Window: window, Step: step, End: time.Now()}
	if !m.EndTime.IsNull() {
		q.End, _ = time.Parse(time.RFC3339, m.EndTime.ValueString())
	}
	price, priced := d.price(m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || d.meta == nil {
		return
	}
	client, err := d.meta.MetricsClient(ctx)
	if err != nil {
		var ce *metrics.ConfigError
		field := "url"
		if errors.As(err, &ce) {
			field = ce.Field
		}
		resp.Diagnostics.AddError("Unusable metrics configuration", fmt.Sprintf("provider metrics.%s: %s", field, err))
		return
	}
	u, err := client.Utilization(ctx, q)
	if err != nil {
		utilizationError(&resp.Diagnostics, q, err)
		return
	}
	for _, w := range u.Warnings {
		resp.Diagnostics.AddAttributeWarning(path.Root("selector"), "Incomplete utilisation data", "selector "+q.Selector+": "+w)
	}
	m.HoursObserved = types.Float64Value(round4(u.HoursObserved))
	m.Devices, m.MIGDevices = types.Int64Value(int64(u.Devices)), types.Int64Value(int64(u.MIGDevices))
	m.GPUsMin, m.GPUsMax = types.Int64Value(int64(u.GPUsMin)), types.Int64Value(int64(u.GPUsMax))
	m.GPUsAvg = types.Float64Value(round4(u.GPUsAvg))
	m.UtilizationMeanPercent = known(u.UtilizationKnown, u.UtilizationMeanPercent)
	m.UtilizationP95Percent = known(u.UtilizationKnown, u.UtilizationP95Percent)
	m.HoursUnder10Percent = known(u.UtilizationKnown, u.HoursUnder10Percent)
	m.HoursUnder30Percent = known(u.UtilizationKnown, u.HoursUnder30Percent)
	m.IdleGPUHours = known(u.UtilizationKnown, u.IdleGPUHours)
	m.MemoryUsedP95GiB = known(u.MemoryKnown, u.MemoryUsedP95GiB)
	m.MemoryUsedP99GiB = known(u.MemoryKnown, u.MemoryUsedP99GiB)
	m.MemoryUsedMaxGiB = known(u.MemoryKnown, u.MemoryUsedMaxGiB)
	if m.HourlyUSDPerGPU.IsNull() { // a configured price stays exactly as written
		m.HourlyUSDPerGPU = known(priced, price)
	}
	m.IdleMonthlyUSD = known(priced && u.UtilizationKnown, u.IdleMonthlyUSD(price))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// price is the price per GPU-hour: hourly_usd_per_gpu, or node_type's in region.
func (d *PoolUtilizationDataSource) price(m poolUtilizationModel, diags *diag.Diagnostics) (float64, bool) {
	if !m.HourlyUSDPerGPU.IsNull() {
		return m.HourlyUSDPerGPU.ValueFloat64(), true
	}
	if m.NodeType.IsNull() {
		return 0, false
	}
	name, region := m.NodeType.ValueString(), m.Region.ValueString()
	n, ok := catalog.AWSInstanceType(name)
	if !ok {
		var err error
		if n, err = catalog.GKENodeType(name, "", 0); err != nil {
			attributeError(diags, path.Root("node_type"), "Unknown node type", fmt.Sprintf("%q is neither an EC2 GPU instance type nor a GKE GPU machine type with fixed GPUs the catalog knows", name))
			return 0, false
		}
	}
	var pricing catalog.Pricing
	if d.meta != nil {
		pricing = d.meta.Pool.Pricing
	}
	onDemand, _, err := pricing.Hourly(n, region)
	if err != nil {
		attributeError(diags, path.Root("region"), "No price", fmt.Sprintf("%s in %s: %s", name, region, err))
		return 0, false
	}
	return round4(onDemand / float64(n.GPUCount)), true
}

// utilizationError reports a failed read at the argument to blame.
func utilizationError(diags *diag.Diagnostics, q metrics.Query, err error) {
	var none *metrics.ErrNoSeries
	var qe *metrics.QueryError
	switch {
	case errors.As(err, &none):
		attributeError(diags, path.Root("selector"), "No dcgm-exporter series", err.Error())
	case errors.As(err, &qe) && qe.Arg == "selector":
		attributeError(diags, path.Root("selector"), "Invalid selector", err.Error())
	case errors.As(err, &qe) && qe.Arg == "auth":
		diags.AddError("Metrics endpoint refused the credentials", "provider metrics block: "+err.Error())
	case errors.As(err, &qe) && qe.Arg == "timeout":
		diags.AddError("Metrics query timed out", "provider metrics.timeout_seconds / step "+metrics.StepDuration(q.Step)+": "+err.Error())
	default:
		diags.AddError("Cannot query the metrics endpoint", "provider metrics.url: "+err.Error())
	}
}

func known(ok bool, v float64) types.Float64 {
	if !ok {
		return types.Float64Null()
	}
	return types.Float64Value(round4(v))
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

type rfc3339Validator struct{}

func (rfc3339Validator) Description(context.Context) string { return "must be an RFC 3339 time" }
func (v rfc3339Validator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (rfc3339Validator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := time.Parse(time.RFC3339, req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid time", fmt.Sprintf("%s: %q is not an RFC 3339 time such as 2026-11-20T00:00:00Z", req.Path, req.ConfigValue.ValueString()))
	}
}
