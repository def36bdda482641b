package provider

import (
	"fmt"
	"math"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/recommend"
)

// The recommendation's `observed` input: what the pool's GPUs did (gpufleet_pool_utilization's
// outputs), sized by recommend.Observed (internal/recommend/observed.go).

type recommendationObservedModel struct {
	NodeType               types.String  `tfsdk:"node_type"`
	Region                 types.String  `tfsdk:"region"`
	MIGProfile             types.String  `tfsdk:"mig_profile"`
	GPUsAvg                types.Float64 `tfsdk:"gpus_avg"`
	GPUsMax                types.Int64   `tfsdk:"gpus_max"`
	NodeCount              types.Int64   `tfsdk:"node_count"`
	HourlyUSDPerGPU        types.Float64 `tfsdk:"hourly_usd_per_gpu"`
	UtilizationP95Percent  types.Float64 `tfsdk:"utilization_p95_percent"`
	UtilizationMeanPercent types.Float64 `tfsdk:"utilization_mean_percent"`
	MemoryUsedP99GiB       types.Float64 `tfsdk:"memory_used_p99_gib"`
	MemoryUsedMaxGiB       types.Float64 `tfsdk:"memory_used_max_gib"`
}

// observedDescription is the rule the recommendation sizes by when `observed` is given (a section of
// the data source's description).
const observedDescription = "**Sizing from observations (`observed`).** With the outputs of `gpufleet_pool_utilization` for the pool as it runs now " +
	"(`observed = { utilization_p95_percent = data.gpufleet_pool_utilization.x.utilization_p95_percent, … }`) and its `node_type`, the recommendation sizes from what the GPUs did:\n\n" +
	"- **memory**: one replica needs `observed.memory_used_p99_gib`, the P99 framebuffer used per device (× `workload.gpus_per_replica` when a replica spans several GPUs; at least 0.01 GiB), and the fit keeps `memory_headroom_percent` free on top as for any need. " +
	"A device is a GPU, or a MIG device when the pool runs MIG slices (`observed.mig_profile`): the memory a replica used on its slice. " +
	"A declared `workload.gpu_memory_gib` or model is then optional and only a check (a warning when it is below the observed P99); a model still gives the weights host memory must hold;\n" +
	"- **compute**: the observed work is the devices (`gpus_max`, else `gpus_avg`) × their compute share × `utilization_p95_percent`, in GPU-equivalents of the pool's GPU model " +
	"(`observed_gpu_equivalents`; a MIG device's share is its compute slices / 7, / 4 on the A30, as `gpufleet_pool_utilization` weighs it). " +
	"Each replica (`replicas`, default one per device, or per `workload.gpus_per_replica` devices) carries work / replicas, and a candidate's unit must carry it: whole GPUs carry `gpus_per_replica`, " +
	"a MIG slice its compute share (`2g.20gb` of an H100: 2/7 = 28.6 %), a GPU time-shared by k replicas 1/k (k at most ⌊1 / load⌋; time-slicing never in production, GF-ISO-003). " +
	"So an H100 pool at 18 % moves to `2g.20gb` slices, not to the `1g` slices (14.3 %) its memory alone would pick, and a busy pool keeps whole GPUs. At P95 a replica may keep its unit fully busy: P95 is the margin;\n" +
	"- **GPU model**: serving (`inference`) may move to another GPU model when the observed memory and activity fit it, the load converted by the models' memory bandwidth (decode's bound; `gpu_models` narrows the candidates); training and batch work stays on the pool's GPU model (whole, MIG slices or shared), and `gpu_models`, when set, must include it;\n" +
	"- **cost now**: `observed_monthly_usd` is `observed.node_count` nodes of `node_type`, or the GPUs the devices occupy (`gpus_avg`, else `gpus_max`; a MIG device is 1 / the profile's instances per GPU of a GPU), " +
	"at `hourly_usd_per_gpu`, or `node_type`'s on-demand price per GPU in `region` at the provider's `pricing`, over `hours_per_month`; each answer's `saving_monthly_usd` is that minus its `monthly_usd`.\n\n" +
	"Guide: \"Right-sizing from utilisation\"."

func observedAttribute() schema.Attribute {
	sibling := func(name string) path.Expression { return path.MatchRelative().AtParent().AtName(name) }
	return schema.SingleNestedAttribute{
		MarkdownDescription: "What the pool's GPUs did, to size from measurements instead of the declared need: `gpufleet_pool_utilization`'s outputs for the pool as it runs now, and its `node_type`. " +
			"See **Sizing from observations** above for how each figure is used.",
		Optional: true,
		Attributes: map[string]schema.Attribute{
			"node_type": schema.StringAttribute{
				MarkdownDescription: "The pool's node type now: EC2 instance type or GKE machine type with fixed GPUs. Its GPU model is what the utilisation was measured on, and the only model the answer uses.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"region": schema.StringAttribute{
				MarkdownDescription: "The pool's region: prices `node_type` for `observed_monthly_usd`. One of this and `hourly_usd_per_gpu` is required.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1), stringvalidator.AtLeastOneOf(sibling("hourly_usd_per_gpu"))},
			},
			"mig_profile": schema.StringAttribute{
				MarkdownDescription: "The pool's MIG profile now, when its devices are MIG slices (e.g. `3g.40gb`): each device then weighs the slice's compute share and costs 1 / the profile's instances per GPU of a GPU, and the memory figures are per slice.",
				Optional:            true,
			},
			"gpus_avg": schema.Float64Attribute{
				MarkdownDescription: "`gpus_avg` of `gpufleet_pool_utilization`: devices reporting, on average. Prices the pool now (the GPUs paid for on average); sizes the work when `gpus_max` is not given. At least one of `gpus_avg` and `gpus_max`.",
				Optional:            true,
				Validators:          []validator.Float64{float64validator.AtLeast(0.0001), float64validator.AtLeastOneOf(sibling("gpus_max"))},
			},
			"gpus_max": schema.Int64Attribute{
				MarkdownDescription: "`gpus_max` of `gpufleet_pool_utilization`: the most devices reporting at once. The work is sized at it (the pool at its largest did the work), and it is the default `replicas`.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"node_count": schema.Int64Attribute{
				MarkdownDescription: "Nodes the pool runs now: `observed_monthly_usd` is then these nodes of `node_type`, instead of the devices observed.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"hourly_usd_per_gpu": schema.Float64Attribute{
				MarkdownDescription: "What one GPU costs per hour (`hourly_usd_per_gpu` of `gpufleet_pool_utilization`); unset: `node_type`'s on-demand price in `region` at the provider's `pricing`, divided by its GPUs.",
				Optional:            true,
				Validators:          []validator.Float64{float64validator.AtLeast(0.0001)},
			},
			"utilization_p95_percent": schema.Float64Attribute{
				MarkdownDescription: "`utilization_p95_percent` of `gpufleet_pool_utilization`, 0 to 100: the work the pool must still carry.",
				Required:            true,
				Validators:          []validator.Float64{float64validator.Between(0, 100)},
			},
			"utilization_mean_percent": schema.Float64Attribute{
				MarkdownDescription: "`utilization_mean_percent` of `gpufleet_pool_utilization`, 0 to 100: gives each answer's `observed_utilization_mean_percent`.",
				Optional:            true,
				Validators:          []validator.Float64{float64validator.Between(0, 100)},
			},
			"memory_used_p99_gib": schema.Float64Attribute{
				MarkdownDescription: "`memory_used_p99_gib` of `gpufleet_pool_utilization`: the memory need of one replica. At most the memory of the GPU (or of `mig_profile`'s slice).",
				Required:            true,
				Validators:          []validator.Float64{float64validator.AtLeast(0)},
			},
			"memory_used_max_gib": schema.Float64Attribute{
				MarkdownDescription: "`memory_used_max_gib` of `gpufleet_pool_utilization`: a check: at least `memory_used_p99_gib`, at most the GPU's or slice's memory, and a warning when the memory a replica gets on an answer (its GPUs, its slice, or its share of a time-shared GPU) is below it.",
				Optional:            true,
				Validators:          []validator.Float64{float64validator.AtLeast(0)},
			},
		},
	}
}

// observedOutputs are the top-level outputs about the pool now.
func observedOutputs() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"observed_monthly_usd":     schema.Float64Attribute{Computed: true, MarkdownDescription: "What the observed pool costs now over `hours_per_month` (see `observed`); null without `observed`."},
		"observed_gpu_equivalents": schema.Float64Attribute{Computed: true, MarkdownDescription: "The observed work at P95 in GPUs of the pool's GPU model: devices × compute share × `utilization_p95_percent` / 100; null without `observed`."},
	}
}

func (o *recommendationObservedModel) observed() *recommend.Observed {
	if o == nil {
		return nil
	}
	r := &recommend.Observed{
		NodeType:              o.NodeType.ValueString(),
		Region:                o.Region.ValueString(),
		MIGProfile:            o.MIGProfile.ValueString(),
		GPUsAvg:               o.GPUsAvg.ValueFloat64(),
		GPUsMax:               float64(o.GPUsMax.ValueInt64()),
		NodeCount:             int(o.NodeCount.ValueInt64()),
		HourlyUSDPerGPU:       o.HourlyUSDPerGPU.ValueFloat64(),
		UtilizationP95Percent: o.UtilizationP95Percent.ValueFloat64(),
		MemoryUsedP99GiB:      o.MemoryUsedP99GiB.ValueFloat64(),
	}
	if !o.UtilizationMeanPercent.IsNull() {
		v := o.UtilizationMeanPercent.ValueFloat64()
		r.UtilizationMeanPercent = &v
	}
	if !o.MemoryUsedMaxGiB.IsNull() {
		v := o.MemoryUsedMaxGiB.ValueFloat64()
		r.MemoryUsedMaxGiB = &v
	}
	return r
}

// setObserved writes the observed outputs and each answer's saving, and warns where the observation
// and the declaration or the answer disagree.
func (m *recommendationModel) setObserved(a recommend.Answer, diags *diag.Diagnostics) {
	m.ObservedMonthlyUSD, m.ObservedGPUEquivalents = types.Float64Null(), types.Float64Null()
	o := a.Observed
	if o == nil {
		return
	}
	m.ObservedMonthlyUSD = types.Float64Value(o.MonthlyUSD)
	m.ObservedGPUEquivalents = types.Float64Value(round4(o.GPUEquivalents))
	if o.DeclaredGiB > 0 && o.DeclaredGiB < o.NeedGiB {
		diags.AddAttributeWarning(path.Root("workload"), "Declared need below the observed memory",
			fmt.Sprintf("the workload declares %g GiB per replica, its GPUs used %g GiB at P99: the recommendation sizes from the observation", o.DeclaredGiB, o.NeedGiB))
	}
	for cloud, p := range map[catalog.Cloud]*recommendedPoolModel{catalog.AWS: m.AWS, catalog.GCP: m.GCP} {
		if p == nil {
			continue
		}
		best := a.Results[cloud].Best
		p.SavingMonthlyUSD = types.Float64Value(math.Round((o.MonthlyUSD-best.MonthlyUSD)*100) / 100)
		if u, ok := o.MeanUtilizationPercent(*best); ok {
			p.ObservedUtilizationMeanPercent = types.Float64Value(math.Round(u*10) / 10)
		}
		if unit, above := o.PeakAbove(*best); above {
			diags.AddAttributeWarning(path.Root("observed").AtName("memory_used_max_gib"), "Peak memory above the answer's unit",
				fmt.Sprintf("%s: a replica gets %g GiB on %s, the pool's GPUs peaked at %g GiB (P99 %g GiB): at such a peak it would run out of memory; raise memory_headroom_percent or size from the peak",
					cloud, unit, best.Label(), o.PeakGiB, o.NeedGiB))
		}
	}
}
