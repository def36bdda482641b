package eks

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// nodePoolModel is the resource's Terraform data. Config blocks are pointers (nil = block absent);
// lists, sets and maps stay framework values so that unknown values survive until ModifyPlan.
type nodePoolModel struct {
	ID                types.String `tfsdk:"id"`
	ClusterName       types.String `tfsdk:"cluster_name"`
	Name              types.String `tfsdk:"name"`
	Region            types.String `tfsdk:"region"`
	Client            types.String `tfsdk:"client"`
	NodeRoleARN       types.String `tfsdk:"node_role_arn"`
	SubnetIDs         types.Set    `tfsdk:"subnet_ids"`
	InstanceTypes     types.List   `tfsdk:"instance_types"`
	AMIType           types.String `tfsdk:"ami_type"`
	KubernetesVersion types.String `tfsdk:"kubernetes_version"`
	Taints            types.Set    `tfsdk:"taints"`
	Labels            types.Map    `tfsdk:"labels"`
	Tags              types.Map    `tfsdk:"tags"`
	PolicyWaivers     types.Map    `tfsdk:"policy_waivers"`

	Workload     *workloadModel     `tfsdk:"workload"`
	GPU          *gpuModel          `tfsdk:"gpu"`
	Scaling      *scalingModel      `tfsdk:"scaling"`
	Capacity     *capacityModel     `tfsdk:"capacity"`
	UpdateConfig *updateConfigModel `tfsdk:"update_config"`
	Timeouts     timeouts.Value     `tfsdk:"timeouts"`

	GPUModel                types.String  `tfsdk:"gpu_model"`
	GPUsPerNode             types.Int64   `tfsdk:"gpus_per_node"`
	GPUMemoryGiB            types.Float64 `tfsdk:"gpu_memory_gib"`
	EffectiveTaints         types.Set     `tfsdk:"effective_taints"`
	EffectiveLabels         types.Map     `tfsdk:"effective_labels"`
	EffectiveTags           types.Map     `tfsdk:"effective_tags"`
	DevicePluginConfig      types.String  `tfsdk:"device_plugin_config"`
	EstimatedHourlyCostUSD  types.Float64 `tfsdk:"estimated_hourly_cost_usd"`
	EstimatedMonthlyCostUSD types.Float64 `tfsdk:"estimated_monthly_cost_usd"`
	NodeGroups              types.List    `tfsdk:"node_groups"`
	PolicyDocument          types.Object  `tfsdk:"policy_document"`
}

type workloadModel struct {
	Kind          types.String  `tfsdk:"kind"`
	Environment   types.String  `tfsdk:"environment"`
	GPUMemoryGiB  types.Float64 `tfsdk:"gpu_memory_gib"`
	Interruptible types.Bool    `tfsdk:"interruptible"`
}

type gpuModel struct {
	MIG     *migModel     `tfsdk:"mig"`
	Sharing *sharingModel `tfsdk:"sharing"`
}

type migModel struct {
	Profile types.String `tfsdk:"profile"`
	Config  types.String `tfsdk:"config"`
}

type sharingModel struct {
	Strategy types.String `tfsdk:"strategy"`
	Replicas types.Int64  `tfsdk:"replicas"`
}

type scalingModel struct {
	MinSize     types.Int64 `tfsdk:"min_size"`
	MaxSize     types.Int64 `tfsdk:"max_size"`
	DesiredSize types.Int64 `tfsdk:"desired_size"`
}

type capacityModel struct {
	SpotPercentage types.Int64       `tfsdk:"spot_percentage"`
	OnDemandBase   types.Int64       `tfsdk:"on_demand_base"`
	Reservation    *reservationModel `tfsdk:"reservation"`
}

type reservationModel struct {
	ID   types.String `tfsdk:"id"`
	Type types.String `tfsdk:"type"`
}

type updateConfigModel struct {
	MaxUnavailable           types.Int64 `tfsdk:"max_unavailable"`
	MaxUnavailablePercentage types.Int64 `tfsdk:"max_unavailable_percentage"`
}

type taintModel struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

var taintAttrTypes = map[string]attr.Type{
	"key":    types.StringType,
	"value":  types.StringType,
	"effect": types.StringType,
}

var nodeGroupAttrTypes = map[string]attr.Type{
	"name":                    types.StringType,
	"arn":                     types.StringType,
	"capacity_type":           types.StringType,
	"min_size":                types.Int64Type,
	"max_size":                types.Int64Type,
	"desired_size":            types.Int64Type,
	"status":                  types.StringType,
	"launch_template_id":      types.StringType,
	"launch_template_version": types.StringType,
}

// spec translates the model into the cloud-neutral pool spec, recording unknown values.
func (m *nodePoolModel) spec(ctx context.Context) (pool.Spec, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := pool.Spec{
		Cloud:        catalog.AWS,
		ResourceType: ResourceType,
		Name:         m.Name.ValueString(),
		Region:       m.Region.ValueString(),
		Client:       m.Client.ValueString(),
		Unknown:      map[string]bool{},
	}
	unknown := func(v attr.Value, p ...any) {
		if v.IsUnknown() {
			s.Unknown[pool.P(p...).String()] = true
		}
	}
	unknown(m.Name, "name")
	unknown(m.Region, "region")
	unknown(m.Client, "client")
	unknown(m.InstanceTypes, "instance_types")
	diags.Append(stringList(ctx, m.InstanceTypes, &s.InstanceTypes)...)
	if w := m.Workload; w != nil {
		unknown(w.Kind, "workload", "kind")
		unknown(w.Environment, "workload", "environment")
		unknown(w.GPUMemoryGiB, "workload", "gpu_memory_gib")
		unknown(w.Interruptible, "workload", "interruptible")
		s.Workload = pool.Workload{Kind: w.Kind.ValueString(), Environment: w.Environment.ValueString(), GPUMemoryGiB: w.GPUMemoryGiB.ValueFloat64(), Interruptible: w.Interruptible.ValueBool()}
	}
	if g := m.GPU; g != nil {
		if g.MIG != nil {
			unknown(g.MIG.Profile, "gpu", "mig")
			unknown(g.MIG.Config, "gpu", "mig")
			s.GPU.MIG = &pool.MIG{Profile: g.MIG.Profile.ValueString(), Config: g.MIG.Config.ValueString()}
		}
		if g.Sharing != nil {
			unknown(g.Sharing.Strategy, "gpu", "sharing")
			unknown(g.Sharing.Replicas, "gpu", "sharing")
			s.GPU.Sharing = &pool.Sharing{Strategy: g.Sharing.Strategy.ValueString(), Replicas: int(g.Sharing.Replicas.ValueInt64())}
		}
	}
	if sc := m.Scaling; sc != nil {
		unknown(sc.MinSize, "scaling", "min_size")
		unknown(sc.MaxSize, "scaling", "max_size")
		unknown(sc.DesiredSize, "scaling", "desired_size")
		s.Scaling = pool.Sizes{Min: int(sc.MinSize.ValueInt64()), Max: int(sc.MaxSize.ValueInt64()), Desired: int(sc.DesiredSize.ValueInt64())}
	}
	if c := m.Capacity; c != nil {
		unknown(c.SpotPercentage, "capacity", "spot_percentage")
		unknown(c.OnDemandBase, "capacity", "on_demand_base")
		s.Capacity.SpotPercentage = int(c.SpotPercentage.ValueInt64())
		s.Capacity.OnDemandBase = int(c.OnDemandBase.ValueInt64())
		if r := c.Reservation; r != nil {
			unknown(r.ID, "capacity", "reservation")
			unknown(r.Type, "capacity", "reservation")
			s.Capacity.Reservation = &pool.Reservation{ID: r.ID.ValueString(), Type: r.Type.ValueString()}
		}
	}
	unknown(m.Taints, "taints")
	if !m.Taints.IsNull() && !m.Taints.IsUnknown() {
		var taints []taintModel
		diags.Append(m.Taints.ElementsAs(ctx, &taints, false)...)
		for _, t := range taints {
			if t.Key.IsUnknown() || t.Value.IsUnknown() || t.Effect.IsUnknown() {
				s.Unknown["taints"] = true
			}
			s.Taints = append(s.Taints, pool.Taint{Key: t.Key.ValueString(), Value: t.Value.ValueString(), Effect: t.Effect.ValueString()})
		}
		sortTaints(s.Taints)
	}
	unknown(m.Labels, "labels")
	unknown(m.Tags, "tags")
	unknown(m.PolicyWaivers, "policy_waivers")
	diags.Append(stringMap(ctx, m.Labels, &s.Labels, func() { s.Unknown["labels"] = true })...)
	diags.Append(stringMap(ctx, m.Tags, &s.Tags, func() { s.Unknown["tags"] = true })...)
	diags.Append(stringMap(ctx, m.PolicyWaivers, &s.Waivers, func() { s.Unknown["policy_waivers"] = true })...)
	if len(s.Unknown) == 0 {
		s.Unknown = nil
	}
	return s, diags
}

// sortTaints gives taints a stable order: they are a set in the schema.
func sortTaints(taints []pool.Taint) {
	sort.SliceStable(taints, func(i, j int) bool {
		if taints[i].Key != taints[j].Key {
			return taints[i].Key < taints[j].Key
		}
		return taints[i].Effect < taints[j].Effect
	})
}

func stringList(ctx context.Context, l types.List, out *[]string) diag.Diagnostics {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	for _, e := range l.Elements() {
		if e.IsUnknown() {
			return nil
		}
	}
	return l.ElementsAs(ctx, out, false)
}

func stringMap(ctx context.Context, m types.Map, out *map[string]string, onUnknown func()) diag.Diagnostics {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	for _, e := range m.Elements() {
		if e.IsUnknown() {
			onUnknown()
			return nil
		}
	}
	return m.ElementsAs(ctx, out, false)
}

// problemPath turns a pool problem path into a schema path. Taints are a set: a problem in one taint
// is reported on the taints attribute.
func problemPath(p pool.Path) path.Path {
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

func taintSet(taints []pool.Taint) types.Set {
	elems := make([]attr.Value, len(taints))
	for i, t := range taints {
		elems[i] = types.ObjectValueMust(taintAttrTypes, map[string]attr.Value{
			"key":    types.StringValue(t.Key),
			"value":  nullableString(t.Value),
			"effect": types.StringValue(t.Effect),
		})
	}
	return types.SetValueMust(types.ObjectType{AttrTypes: taintAttrTypes}, elems)
}

func nullableString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func stringMapValue(m map[string]string) types.Map {
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
	return stringMapValue(m)
}
