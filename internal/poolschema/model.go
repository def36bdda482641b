// Package poolschema is the layer the pool resources share: the schema of every cloud-neutral
// attribute and block, the Terraform model of those attributes, its translation to pool.Spec with
// unknown values, problem paths as diagnostics, and the plan-time core (validate, derive, document,
// policy). gpufleet_eks_node_pool and gpufleet_gke_node_pool differ only where the clouds differ.
package poolschema

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Model is the cloud-neutral part of a pool resource's Terraform data; the resources embed it.
// Config blocks are pointers (nil = block absent); lists, sets and maps stay framework values so
// that unknown values survive until ModifyPlan.
type Model struct {
	Client        types.String `tfsdk:"client"`
	Taints        types.Set    `tfsdk:"taints"`
	Labels        types.Map    `tfsdk:"labels"`
	Tags          types.Map    `tfsdk:"tags"`
	PolicyWaivers types.Map    `tfsdk:"policy_waivers"`

	Workload *WorkloadModel `tfsdk:"workload"`
	Scaling  *ScalingModel  `tfsdk:"scaling"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`

	GPUModel                types.String  `tfsdk:"gpu_model"`
	GPUsPerNode             types.Int64   `tfsdk:"gpus_per_node"`
	GPUMemoryGiB            types.Float64 `tfsdk:"gpu_memory_gib"`
	EffectiveTaints         types.Set     `tfsdk:"effective_taints"`
	EffectiveLabels         types.Map     `tfsdk:"effective_labels"`
	EffectiveTags           types.Map     `tfsdk:"effective_tags"`
	DevicePluginConfig      types.String  `tfsdk:"device_plugin_config"`
	EstimatedHourlyCostUSD  types.Number  `tfsdk:"estimated_hourly_cost_usd"`
	EstimatedMonthlyCostUSD types.Number  `tfsdk:"estimated_monthly_cost_usd"`
	PolicyDocument          types.Object  `tfsdk:"policy_document"`
	PolicyFindings          types.List    `tfsdk:"policy_findings"`
}

type WorkloadModel struct {
	Kind           types.String  `tfsdk:"kind"`
	Environment    types.String  `tfsdk:"environment"`
	GPUMemoryGiB   types.Float64 `tfsdk:"gpu_memory_gib"`
	Interruptible  types.Bool    `tfsdk:"interruptible"`
	Precision      types.String  `tfsdk:"precision"`
	GPUsPerReplica types.Int64   `tfsdk:"gpus_per_replica"`
	Replicas       types.Int64   `tfsdk:"replicas"`
	KVCacheGiB     types.Float64 `tfsdk:"kv_cache_gib"`
}

// GPUPartitioning is the shared part of the gpu block; the resources embed it in their own.
type GPUPartitioning struct {
	MIG     *MIGModel     `tfsdk:"mig"`
	Sharing *SharingModel `tfsdk:"sharing"`
}

type MIGModel struct {
	Profile types.String `tfsdk:"profile"`
	Config  types.String `tfsdk:"config"`
}

type SharingModel struct {
	Strategy types.String `tfsdk:"strategy"`
	Replicas types.Int64  `tfsdk:"replicas"`
}

// Unset reports whether every value of an optional block is null: the block was written empty
// (`mig {}`), as modules write blocks with dynamic blocks inside, and means what the absent block
// means.
func Unset(values ...attr.Value) bool {
	for _, v := range values {
		if !v.IsNull() {
			return false
		}
	}
	return true
}

// Empty reports whether the mig block was written empty.
func (m *MIGModel) Empty() bool { return Unset(m.Profile, m.Config) }

// Empty reports whether the sharing block was written empty.
func (m *SharingModel) Empty() bool { return Unset(m.Strategy, m.Replicas) }

// KeepEmptyBlock is prior where the cloud holds nothing for an optional block (read is nil) and
// the configuration wrote the block empty (empty(prior)): `mig {}` and no mig block both mean none,
// and state keeps the spelling the configuration used, or every plan would show a change (as
// keepEmpty does for maps).
func KeepEmptyBlock[T any](read, prior *T, empty func(*T) bool) *T {
	if read == nil && prior != nil && empty(prior) {
		return prior
	}
	return read
}

// PartitioningFrom is the shared part of a gpu block read back (read), with the mig and sharing
// blocks the configuration wrote empty kept as written.
func PartitioningFrom(read GPUPartitioning, prior *GPUPartitioning) GPUPartitioning {
	if prior == nil {
		return read
	}
	read.MIG = KeepEmptyBlock(read.MIG, prior.MIG, (*MIGModel).Empty)
	read.Sharing = KeepEmptyBlock(read.Sharing, prior.Sharing, (*SharingModel).Empty)
	return read
}

type ScalingModel struct {
	MinSize     types.Int64 `tfsdk:"min_size"`
	MaxSize     types.Int64 `tfsdk:"max_size"`
	DesiredSize types.Int64 `tfsdk:"desired_size"`
}

// CapacityMix is the shared part of the capacity block; the reservation is the cloud's own.
type CapacityMix struct {
	SpotPercentage types.Int64 `tfsdk:"spot_percentage"`
	OnDemandBase   types.Int64 `tfsdk:"on_demand_base"`
}

type TaintModel struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

// TaintAttrTypes is the object type of one taint.
// FindingType is the element type of policy_findings.
var FindingType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"rule": types.StringType, "severity": types.StringType, "attribute": types.StringType, "message": types.StringType,
}}

var TaintAttrTypes = map[string]attr.Type{
	"key":    types.StringType,
	"value":  types.StringType,
	"effect": types.StringType,
}

// SpecBuilder translates a resource model into a pool.Spec, recording the paths of unknown values.
type SpecBuilder struct {
	spec  pool.Spec
	diags diag.Diagnostics
}

// NewSpec starts the spec of one pool.
func NewSpec(cloud catalog.Cloud, resourceType string) *SpecBuilder {
	return &SpecBuilder{spec: pool.Spec{Cloud: cloud, ResourceType: resourceType, Unknown: map[string]bool{}}}
}

// Spec is the spec being built; the resource sets its cloud-specific fields on it.
func (b *SpecBuilder) Spec() *pool.Spec { return &b.spec }

// Unknown records that the value at p is not known yet.
func (b *SpecBuilder) Unknown(v attr.Value, p ...any) {
	if v.IsUnknown() {
		b.spec.Unknown[pool.P(p...).String()] = true
	}
}

// String records whether v is known and returns its value ("" when null or unknown).
func (b *SpecBuilder) String(v types.String, p ...any) string {
	b.Unknown(v, p...)
	return v.ValueString()
}

// Float records whether v is known and returns its value (0 when null or unknown).
func (b *SpecBuilder) Float(v types.Float64, p ...any) float64 {
	b.Unknown(v, p...)
	return v.ValueFloat64()
}

// Int records whether v is known and returns its value (0 when null or unknown).
func (b *SpecBuilder) Int(v types.Int64, p ...any) int {
	b.Unknown(v, p...)
	return int(v.ValueInt64())
}

// StringList records whether the list and every element are known and returns its values.
func (b *SpecBuilder) StringList(ctx context.Context, l types.List, p ...any) []string {
	var out []string
	b.collect(ctx, l, l.Elements(), &out, p)
	return out
}

// StringSet is StringList for sets, sorted.
func (b *SpecBuilder) StringSet(ctx context.Context, s types.Set, p ...any) []string {
	var out []string
	b.collect(ctx, s, s.Elements(), &out, p)
	sort.Strings(out)
	return out
}

// StringMap records whether the map and every value are known and returns its values.
func (b *SpecBuilder) StringMap(ctx context.Context, m types.Map, p ...any) map[string]string {
	var out map[string]string
	b.collect(ctx, m, slices.Collect(maps.Values(m.Elements())), &out, p)
	return out
}

type collection interface {
	attr.Value
	ElementsAs(ctx context.Context, target any, allowUnhandled bool) diag.Diagnostics
}

// collect reads a known collection into out; an unknown collection or element records p instead.
func (b *SpecBuilder) collect(ctx context.Context, v collection, elements []attr.Value, out any, p []any) {
	b.Unknown(v, p...)
	if v.IsNull() || v.IsUnknown() {
		return
	}
	for _, e := range elements {
		if e.IsUnknown() {
			b.spec.Unknown[pool.P(p...).String()] = true
			return
		}
	}
	b.diags.Append(v.ElementsAs(ctx, out, false)...)
}

// Common fills the cloud-neutral part of the spec: the shared attributes and blocks, and the shared
// parts of the resource's gpu and capacity blocks (nil when absent).
func (b *SpecBuilder) Common(ctx context.Context, m *Model, gpu *GPUPartitioning, mix *CapacityMix) {
	s := &b.spec
	s.Client = b.String(m.Client, "client")
	if w := m.Workload; w != nil {
		b.Unknown(w.GPUMemoryGiB, "workload", "gpu_memory_gib")
		b.Unknown(w.Interruptible, "workload", "interruptible")
		s.Workload = pool.Workload{
			Kind:           b.String(w.Kind, "workload", "kind"),
			Environment:    b.String(w.Environment, "workload", "environment"),
			GPUMemoryGiB:   w.GPUMemoryGiB.ValueFloat64(),
			Interruptible:  w.Interruptible.ValueBool(),
			Precision:      b.String(w.Precision, "workload", "precision"),
			GPUsPerReplica: b.Int(w.GPUsPerReplica, "workload", "gpus_per_replica"),
			Replicas:       b.Int(w.Replicas, "workload", "replicas"),
			KVCacheGiB:     b.Float(w.KVCacheGiB, "workload", "kv_cache_gib"),
		}
	}
	if gpu != nil {
		if g := gpu.MIG; g != nil && !g.Empty() {
			s.GPU.MIG = &pool.MIG{Profile: b.String(g.Profile, "gpu", "mig"), Config: b.String(g.Config, "gpu", "mig")}
		}
		if g := gpu.Sharing; g != nil && !g.Empty() {
			s.GPU.Sharing = &pool.Sharing{Strategy: b.String(g.Strategy, "gpu", "sharing"), Replicas: b.Int(g.Replicas, "gpu", "sharing")}
		}
	}
	if sc := m.Scaling; sc != nil {
		s.Scaling = pool.Sizes{
			Min:     b.Int(sc.MinSize, "scaling", "min_size"),
			Max:     b.Int(sc.MaxSize, "scaling", "max_size"),
			Desired: b.Int(sc.DesiredSize, "scaling", "desired_size"),
		}
		if sc.DesiredSize.IsNull() {
			s.AutoscalerOwnsSize = true
			s.Scaling.Desired = s.Scaling.Min
			if sc.MinSize.IsUnknown() {
				s.Unknown[pool.P("scaling", "desired_size").String()] = true
			}
		}
	}
	if mix != nil {
		s.Capacity.SpotPercentage = b.Int(mix.SpotPercentage, "capacity", "spot_percentage")
		s.Capacity.OnDemandBase = b.Int(mix.OnDemandBase, "capacity", "on_demand_base")
	}
	b.Unknown(m.Taints, "taints")
	if !m.Taints.IsNull() && !m.Taints.IsUnknown() {
		var taints []TaintModel
		b.diags.Append(m.Taints.ElementsAs(ctx, &taints, false)...)
		for _, t := range taints {
			if t.Key.IsUnknown() || t.Value.IsUnknown() || t.Effect.IsUnknown() {
				s.Unknown["taints"] = true
			}
			s.Taints = append(s.Taints, pool.Taint{Key: t.Key.ValueString(), Value: t.Value.ValueString(), Effect: t.Effect.ValueString()})
		}
		SortTaints(s.Taints)
	}
	s.Labels = b.StringMap(ctx, m.Labels, "labels")
	s.Tags = b.StringMap(ctx, m.Tags, "tags")
	s.Waivers = b.StringMap(ctx, m.PolicyWaivers, "policy_waivers")
}

// Done returns the spec; Unknown is nil when every value is known.
func (b *SpecBuilder) Done() (pool.Spec, diag.Diagnostics) {
	if len(b.spec.Unknown) == 0 {
		b.spec.Unknown = nil
	}
	return b.spec, b.diags
}

// SortTaints gives taints a stable order: they are a set in the schema.
func SortTaints(taints []pool.Taint) {
	sort.SliceStable(taints, func(i, j int) bool {
		if taints[i].Key != taints[j].Key {
			return taints[i].Key < taints[j].Key
		}
		return taints[i].Effect < taints[j].Effect
	})
}

// ProblemPath turns a pool problem path into a schema path. Taints are a set: a problem in one taint
// is reported on the taints attribute.
func ProblemPath(p pool.Path) path.Path {
	if len(p) == 0 {
		return path.Empty()
	}
	first := fmt.Sprint(p[0])
	out := path.Root(first)
	if first == "taints" {
		return out
	}
	for i, step := range p[1:] {
		switch v := step.(type) {
		case int:
			out = out.AtListIndex(v)
		case string:
			if (first == "labels" || first == "tags" || first == "policy_waivers") && i == 0 {
				out = out.AtMapKey(v)
			} else {
				out = out.AtName(v)
			}
		}
	}
	return out
}

// AddProblems reports validation problems at their attributes, naming the attribute in the text too.
func AddProblems(diags *diag.Diagnostics, problems []pool.Problem) {
	for _, p := range problems {
		diags.AddAttributeError(ProblemPath(p.Path), p.Summary, p.Path.String()+": "+p.Detail)
	}
}

// TaintSet is the schema value of taints.
func TaintSet(taints []pool.Taint) types.Set {
	elems := make([]attr.Value, len(taints))
	for i, t := range taints {
		elems[i] = types.ObjectValueMust(TaintAttrTypes, map[string]attr.Value{
			"key":    types.StringValue(t.Key),
			"value":  NullableString(t.Value),
			"effect": types.StringValue(t.Effect),
		})
	}
	return types.SetValueMust(types.ObjectType{AttrTypes: TaintAttrTypes}, elems)
}

// NullableString keeps "" null, as an unset optional string is in config.
func NullableString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// StringMapValue is the schema value of a string map.
func StringMapValue(m map[string]string) types.Map {
	elems := make(map[string]attr.Value, len(m))
	for k, v := range m {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

// mapOrNull keeps an empty map null, as an absent optional map is in config.
func mapOrNull(m map[string]string) types.Map {
	if len(m) == 0 {
		return types.MapNull(types.StringType)
	}
	return StringMapValue(m)
}

// StringValues converts strings to framework values.
func StringValues(in []string) []attr.Value {
	out := make([]attr.Value, len(in))
	for i, v := range in {
		out[i] = types.StringValue(v)
	}
	return out
}
