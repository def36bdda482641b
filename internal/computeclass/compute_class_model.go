package computeclass

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/gke"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// classModel is the Terraform data of a ComputeClass: the cloud-neutral pool attributes and blocks
// (poolschema.Model) and what only a ComputeClass has. The render-only data source has the same
// data but the cluster's.
type classModel struct {
	poolschema.Model

	// Where the class is and what it runs.
	Name        types.String `tfsdk:"name"`
	Location    types.String `tfsdk:"location"`
	Region      types.String `tfsdk:"region"`
	MachineType types.String `tfsdk:"machine_type"`
	Zones       types.Set    `tfsdk:"zones"`

	// The class's own settings (spec.whenUnsatisfiable, activeMigration, autoscalingPolicy,
	// nodePoolAutoCreation, description).
	WhenUnsatisfiable         types.String `tfsdk:"when_unsatisfiable"`
	ActiveMigration           types.Bool   `tfsdk:"active_migration"`
	ConsolidationDelayMinutes types.Int64  `tfsdk:"consolidation_delay_minutes"`
	NodePoolAutoCreation      types.Bool   `tfsdk:"node_pool_auto_creation"`
	Description               types.String `tfsdk:"description"`

	GPU      *gke.GPUModel  `tfsdk:"gpu"`
	Capacity *capacityModel `tfsdk:"capacity"`

	Manifests types.String `tfsdk:"manifests"`
	PodSpec   types.Object `tfsdk:"pod_spec"`
}

// capacityModel is the capacity block: the ladder and the settings of its rungs.
type capacityModel struct {
	Ladder      types.List        `tfsdk:"ladder"`
	Reservation *reservationModel `tfsdk:"reservation"`
	FlexStart   *flexStartModel   `tfsdk:"flex_start"`
}

type reservationModel struct {
	Type    types.String `tfsdk:"type"`
	Name    types.String `tfsdk:"name"`
	Project types.String `tfsdk:"project"`
	Zones   types.Set    `tfsdk:"zones"`
}

func (r *reservationModel) empty() bool { return poolschema.Unset(r.Type, r.Name, r.Project, r.Zones) }

type flexStartModel struct {
	MaxRunDurationSeconds        types.Int64 `tfsdk:"max_run_duration_seconds"`
	NodeRecyclingLeadTimeSeconds types.Int64 `tfsdk:"node_recycling_lead_time_seconds"`
}

// podSpecAttrTypes is the type of pod_spec.
var (
	tolerationAttrTypes = map[string]attr.Type{"key": types.StringType, "operator": types.StringType, "value": types.StringType, "effect": types.StringType}
	podSpecAttrTypes    = map[string]attr.Type{
		"node_selector": types.MapType{ElemType: types.StringType},
		"tolerations":   types.ListType{ElemType: types.ObjectType{AttrTypes: tolerationAttrTypes}},
		"labels":        types.MapType{ElemType: types.StringType},
		"annotations":   types.MapType{ElemType: types.StringType},
	}
)

// spec translates the model into the pool spec and the class, recording unknown values. The spec's
// capacity is the ladder's (render.Capacity) and its zones every zone the class may use.
func (m *classModel) spec(ctx context.Context) (pool.Spec, render.Class, diag.Diagnostics) {
	b := poolschema.NewSpec(catalog.GCP, render.ResourceType)
	s := b.Spec()
	s.Name = b.String(m.Name, "name")
	s.Region = gke.RegionOf(b.String(m.Location, "location"))
	b.Unknown(m.Location, "region")
	s.MachineType = b.String(m.MachineType, "machine_type")
	c := render.Class{
		Name:                      s.Name,
		Zones:                     b.StringSet(ctx, m.Zones, "zones"),
		WhenUnsatisfiable:         b.String(m.WhenUnsatisfiable, "when_unsatisfiable"),
		ConsolidationDelayMinutes: b.Int(m.ConsolidationDelayMinutes, "consolidation_delay_minutes"),
		NodePoolAutoCreation:      m.NodePoolAutoCreation.IsNull() || m.NodePoolAutoCreation.ValueBool(),
		Description:               b.String(m.Description, "description"),
	}
	b.Unknown(m.NodePoolAutoCreation, "node_pool_auto_creation")
	b.Unknown(m.ActiveMigration, "active_migration")
	if !m.ActiveMigration.IsNull() && !m.ActiveMigration.IsUnknown() {
		v := m.ActiveMigration.ValueBool()
		c.OptimizeRulePriority = &v
	}
	var gpu *poolschema.GPUPartitioning
	if g := m.GPU; g != nil {
		gpu = &g.GPUPartitioning
		s.GPU.Type = b.String(g.Type, "gpu", "type")
		s.GPU.Count = b.Int(g.Count, "gpu", "count")
		s.GPU.DriverVersion = b.String(g.DriverVersion, "gpu", "driver_version")
	}
	var reservation *pool.Reservation
	if cp := m.Capacity; cp != nil {
		c.Ladder = b.StringList(ctx, cp.Ladder, "capacity", "ladder")
		if r := cp.Reservation; r != nil && !r.empty() {
			reservation = &pool.Reservation{
				Type:    b.String(r.Type, "capacity", "reservation"),
				Name:    b.String(r.Name, "capacity", "reservation"),
				Project: b.String(r.Project, "capacity", "reservation"),
			}
			c.ReservationZones = b.StringSet(ctx, r.Zones, "capacity", "reservation", "zones")
		}
		if f := cp.FlexStart; f != nil {
			c.FlexStart = render.FlexStartSettings{
				MaxRunDurationSeconds:        b.Int(f.MaxRunDurationSeconds, "capacity", "flex_start"),
				NodeRecyclingLeadTimeSeconds: b.Int(f.NodeRecyclingLeadTimeSeconds, "capacity", "flex_start"),
			}
		}
	}
	s.Capacity = render.Capacity(c, reservation)
	b.Common(ctx, &m.Model, gpu, nil)
	s.Zones = classZones(c)
	if !s.Known(pool.P("zones")) || !s.Known(pool.P("capacity", "reservation", "zones")) {
		s.Unknown["zones"] = true
	}
	spec, diags := b.Done()
	return spec, c, diags
}

// classZones are the zones a class may put nodes in, sorted: the class's zones and a specific
// reservation's; nil when the class's rungs may use every zone of the region.
func classZones(c render.Class) []string {
	if len(c.Zones) == 0 {
		return nil
	}
	out := append(slices.Clone(c.Zones), c.ReservationZones...)
	slices.Sort(out)
	return slices.Compact(out)
}
