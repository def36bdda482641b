package computeclass

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/gke"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// importClass fills the model of an imported class from the class gpufleet wrote: what the
// ComputeClass carries (machine type and GPU, ladder, reservation, flex-start, zones, client,
// workload and the fit from the node labels, the user's labels and taints, the class settings) and
// its owner id. What a class does not carry (scaling, tags, MIG, sharing, policy waivers) comes
// from the configuration at the next plan.
func importClass(ctx context.Context, meta *conns.Meta, live *unstructured.Unstructured, m *resourceModel, diags *diag.Diagnostics) bool {
	var obj render.ComputeClass
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, &obj); err != nil {
		diags.AddError("Reading the imported ComputeClass", err.Error())
		return false
	}
	if len(obj.Spec.Priorities) == 0 {
		diags.AddError("Reading the imported ComputeClass", "the ComputeClass has no priorities: it is not one gpufleet renders")
		return false
	}
	m.OwnerID = types.StringValue(live.GetLabels()[kube.LabelOwner])
	spec := obj.Spec
	first := spec.Priorities[0]
	m.MachineType = types.StringValue(first.MachineType)
	m.GPU = &gke.GPUModel{Type: types.StringNull(), Count: types.Int64Null(), DriverVersion: types.StringNull()}
	if g := first.GPU; g != nil {
		if strings.HasPrefix(first.MachineType, "n1-") {
			// Only N1 types take the GPU in the configuration; the others bring their own.
			m.GPU.Type, m.GPU.Count = types.StringValue(g.Type), types.Int64Value(int64(g.Count))
		}
		if g.DriverVersion == "latest" {
			m.GPU.DriverVersion = types.StringValue("LATEST")
		}
	}
	m.Capacity = importCapacity(spec.Priorities)
	m.Zones = types.SetNull(types.StringType)
	for _, p := range spec.Priorities {
		if p.Location != nil && len(p.Location.Zones) > 0 {
			m.Zones = types.SetValueMust(types.StringType, poolschema.StringValues(p.Location.Zones))
			break
		}
	}
	m.WhenUnsatisfiable = types.StringValue(spec.WhenUnsatisfiable)
	m.Description = poolschema.NullableString(spec.Description)
	if spec.ActiveMigration != nil {
		m.ActiveMigration = types.BoolValue(spec.ActiveMigration.OptimizeRulePriority)
	}
	if spec.AutoscalingPolicy != nil {
		m.ConsolidationDelayMinutes = types.Int64Value(int64(spec.AutoscalingPolicy.ConsolidationDelayMinutes))
	}
	m.NodePoolAutoCreation = types.BoolValue(spec.NodePoolAutoCreation != nil && spec.NodePoolAutoCreation.Enabled)
	if c := spec.NodePoolConfig; c != nil {
		importNodeConfig(ctx, c, m)
	}
	if m.GPU.Type.IsNull() && m.GPU.DriverVersion.IsNull() {
		m.GPU = nil // nothing the configuration needs to say
	}
	deriveImported(ctx, meta, &m.classModel, diags)
	return !diags.HasError()
}

// deriveImported fills the computed attributes of an imported class, as a plan would.
func deriveImported(ctx context.Context, meta *conns.Meta, m *classModel, diags *diag.Diagnostics) {
	m.Region = types.StringValue(gke.RegionOf(m.Location.ValueString()))
	s, c, ds := m.spec(ctx)
	diags.Append(ds...)
	if diags.HasError() {
		return
	}
	d, err := render.Derive(s, meta.Pool, c)
	if err != nil {
		diags.AddError("Reading the imported ComputeClass", err.Error())
		return
	}
	m.SetDerived(d, pool.Document(fmt.Sprintf("%s[%s]", s.ResourceType, s.Name), s, &d))
	r, err := render.Render(s, d, c, nil, nil)
	if err != nil {
		diags.AddError("Reading the imported ComputeClass", err.Error())
		return
	}
	m.PodSpec = podSpecValue(r.Pod)
}

func importCapacity(priorities []render.Priority) *capacityModel {
	c := &capacityModel{}
	ladder := make([]attr.Value, len(priorities))
	for i, p := range priorities {
		rung := render.RungOnDemand
		switch {
		case p.Reservations != nil:
			rung = render.RungReservation
			r := &reservationModel{Type: types.StringValue(pool.ReservationAny), Name: types.StringNull(), Project: types.StringNull(), Zones: types.SetNull(types.StringType)}
			if p.Reservations.Affinity == "Specific" && len(p.Reservations.Specific) > 0 {
				s := p.Reservations.Specific[0]
				r.Type, r.Name, r.Project = types.StringValue(pool.ReservationSpecific), types.StringValue(s.Name), poolschema.NullableString(s.Project)
				if len(s.Zones) > 0 {
					r.Zones = types.SetValueMust(types.StringType, poolschema.StringValues(s.Zones))
				}
			}
			c.Reservation = r
		case p.FlexStart != nil && p.FlexStart.Enabled:
			rung = render.RungFlexStart
			f := &flexStartModel{MaxRunDurationSeconds: types.Int64Null(), NodeRecyclingLeadTimeSeconds: types.Int64Null()}
			if p.MaxRunDurationSeconds != 0 && p.MaxRunDurationSeconds != render.MaxRunDurationSeconds {
				f.MaxRunDurationSeconds = types.Int64Value(int64(p.MaxRunDurationSeconds))
			}
			if p.FlexStart.NodeRecycling != nil {
				f.NodeRecyclingLeadTimeSeconds = types.Int64Value(int64(p.FlexStart.NodeRecycling.LeadTimeSeconds))
			}
			if !f.MaxRunDurationSeconds.IsNull() || !f.NodeRecyclingLeadTimeSeconds.IsNull() {
				c.FlexStart = f
			}
		case p.Spot != nil && *p.Spot:
			rung = render.RungSpot
		}
		ladder[i] = types.StringValue(rung)
	}
	c.Ladder = types.ListValueMust(types.StringType, ladder)
	return c
}

// effectsBack maps Kubernetes taint effects to the pool's.
var effectsBack = map[string]string{"NoSchedule": pool.EffectNoSchedule, "NoExecute": pool.EffectNoExecute, "PreferNoSchedule": pool.EffectPreferNoSchedule}

// importNodeConfig reads the client, the workload and the user's labels and taints from the labels
// and taints gpufleet derived them into.
func importNodeConfig(_ context.Context, c *render.NodePoolConfig, m *resourceModel) {
	labels := c.NodeLabels
	m.Client = types.StringValue(labels[pool.LabelClient])
	w := &poolschema.WorkloadModel{
		Kind: types.StringValue(labels[pool.LabelWorkload]), Environment: types.StringValue(labels[pool.LabelEnvironment]),
		GPUMemoryGiB: types.Float64Null(), Interruptible: types.BoolNull(), Precision: types.StringNull(), GPUsPerReplica: types.Int64Null(), Replicas: types.Int64Null(), KVCacheGiB: types.Float64Null(),
	}
	if f, err := strconv.ParseFloat(labels[pool.LabelKVCache], 64); err == nil {
		w.KVCacheGiB = types.Float64Value(f)
	}
	if f, err := strconv.ParseFloat(labels[pool.LabelGPUMemory], 64); err == nil {
		w.GPUMemoryGiB = types.Float64Value(f)
	}
	if labels[pool.LabelInterruptible] == "true" {
		w.Interruptible = types.BoolValue(true)
	}
	if v := labels[pool.LabelPrecision]; v != "" {
		w.Precision = types.StringValue(v)
	}
	for key, to := range map[string]*types.Int64{pool.LabelGPUsPerReplica: &w.GPUsPerReplica, pool.LabelReplicas: &w.Replicas} {
		if n, err := strconv.Atoi(labels[key]); err == nil {
			*to = types.Int64Value(int64(n))
		}
	}
	m.Workload = w
	own := map[string]string{}
	for k, v := range labels {
		if !strings.HasPrefix(k, pool.LabelPrefix) {
			own[k] = v
		}
	}
	m.Labels = types.MapNull(types.StringType)
	if len(own) > 0 {
		m.Labels = poolschema.StringMapValue(own)
	}
	var taints []pool.Taint
	for _, t := range c.Taints {
		if t.Key != pool.TaintGPU && t.Key != pool.TaintClient {
			taints = append(taints, pool.Taint{Key: t.Key, Value: t.Value, Effect: effectsBack[t.Effect]})
		}
	}
	m.Taints = types.SetNull(types.ObjectType{AttrTypes: poolschema.TaintAttrTypes})
	if len(taints) > 0 {
		m.Taints = poolschema.TaintSet(taints)
	}
}
