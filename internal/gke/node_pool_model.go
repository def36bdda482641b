package gke

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// nodePoolModel is the resource's Terraform data: the cloud-neutral pool attributes and blocks
// (poolschema.Model) and what only GKE has.
type nodePoolModel struct {
	poolschema.Model

	ID                types.String `tfsdk:"id"`
	OwnerID           types.String `tfsdk:"owner_id"`
	Project           types.String `tfsdk:"project"`
	Location          types.String `tfsdk:"location"`
	Region            types.String `tfsdk:"region"`
	Cluster           types.String `tfsdk:"cluster"`
	Name              types.String `tfsdk:"name"`
	MachineType       types.String `tfsdk:"machine_type"`
	NodeLocations     types.Set    `tfsdk:"node_locations"`
	KubernetesVersion types.String `tfsdk:"kubernetes_version"`

	GPU             *gpuModel             `tfsdk:"gpu"`
	Capacity        *capacityModel        `tfsdk:"capacity"`
	UpgradeSettings *upgradeSettingsModel `tfsdk:"upgrade_settings"`
	Network         *networkModel         `tfsdk:"network"`

	NodePools types.List `tfsdk:"node_pools"`
}

// gpuModel is the gpu block: the shared MIG and sharing blocks plus GKE's accelerator settings.
type gpuModel struct {
	poolschema.GPUPartitioning
	Type          types.String `tfsdk:"type"`
	Count         types.Int64  `tfsdk:"count"`
	DriverVersion types.String `tfsdk:"driver_version"`
}

type capacityModel struct {
	poolschema.CapacityMix
	Reservation *reservationModel `tfsdk:"reservation"`
}

type reservationModel struct {
	Type    types.String `tfsdk:"type"`
	Name    types.String `tfsdk:"name"`
	Project types.String `tfsdk:"project"`
}

// empty reports whether the reservation block was written empty: no reservation.
func (r *reservationModel) empty() bool { return poolschema.Unset(r.Type, r.Name, r.Project) }

// upgradeSettingsModel is the upgrade_settings block: how GKE rolls a node pool's nodes when a
// change recreates them (NodePool.UpgradeSettings).
type upgradeSettingsModel struct {
	Strategy             types.String `tfsdk:"strategy"`
	MaxSurge             types.Int64  `tfsdk:"max_surge"`
	MaxUnavailable       types.Int64  `tfsdk:"max_unavailable"`
	NodePoolSoakDuration types.String `tfsdk:"node_pool_soak_duration"`
	BatchNodeCount       types.Int64  `tfsdk:"batch_node_count"`
	BatchSoakDuration    types.String `tfsdk:"batch_soak_duration"`
}

type nodePoolSideModel struct {
	Name              types.String `tfsdk:"name"`
	CapacityType      types.String `tfsdk:"capacity_type"`
	Spot              types.Bool   `tfsdk:"spot"`
	MinSize           types.Int64  `tfsdk:"min_size"`
	MaxSize           types.Int64  `tfsdk:"max_size"`
	DesiredSize       types.Int64  `tfsdk:"desired_size"`
	Status            types.String `tfsdk:"status"`
	InstanceGroupURLs types.List   `tfsdk:"instance_group_urls"`
	InSync            types.Bool   `tfsdk:"in_sync"`
}

var nodePoolSideAttrTypes = map[string]attr.Type{
	"name":                types.StringType,
	"capacity_type":       types.StringType,
	"spot":                types.BoolType,
	"min_size":            types.Int64Type,
	"max_size":            types.Int64Type,
	"desired_size":        types.Int64Type,
	"status":              types.StringType,
	"instance_group_urls": types.ListType{ElemType: types.StringType},
	"in_sync":             types.BoolType,
}

// GKE driver installation settings (GPUDriverInstallationConfig.GPUDriverVersion).
const (
	DriverDefault  = "DEFAULT"
	DriverLatest   = "LATEST"
	DriverDisabled = "INSTALLATION_DISABLED"
)

var driverVersions = []string{DriverDefault, DriverLatest, DriverDisabled}

var (
	// A GCP zone (europe-west4-a) and its region.
	zonePattern = regexp.MustCompile(`^([a-z]+-[a-z]+[0-9]+)-[a-z]$`)
)

// regionOf is the region of a GKE location: the location itself, or a zone's region.
func regionOf(location string) string {
	if m := zonePattern.FindStringSubmatch(location); m != nil {
		return m[1]
	}
	return location
}

// spec translates the model into the cloud-neutral pool spec, recording unknown values.
func (m *nodePoolModel) spec(ctx context.Context) (pool.Spec, diag.Diagnostics) {
	b := poolschema.NewSpec(catalog.GCP, ResourceType)
	s := b.Spec()
	s.Name = b.String(m.Name, "name")
	s.Region = regionOf(b.String(m.Location, "location"))
	b.Unknown(m.Location, "region")
	s.MachineType = b.String(m.MachineType, "machine_type")
	// Unset node_locations are the cluster's zones, which only the apply reads (GetCluster): a zonal
	// cluster has its own zone and any more it was given (a multi-zonal cluster), so even a zonal
	// location says nothing of them at plan time (audit N5).
	s.Zones = b.StringSet(ctx, m.NodeLocations, "node_locations")
	var gpu *poolschema.GPUPartitioning
	if g := m.GPU; g != nil {
		gpu = &g.GPUPartitioning
		s.GPU.Type = b.String(g.Type, "gpu", "type")
		s.GPU.Count = b.Int(g.Count, "gpu", "count")
		s.GPU.DriverVersion = b.String(g.DriverVersion, "gpu", "driver_version")
	}
	var mix *poolschema.CapacityMix
	if c := m.Capacity; c != nil {
		mix = &c.CapacityMix
		if r := c.Reservation; r != nil && !r.empty() {
			s.Capacity.Reservation = &pool.Reservation{
				Type:    b.String(r.Type, "capacity", "reservation"),
				Name:    b.String(r.Name, "capacity", "reservation"),
				Project: b.String(r.Project, "capacity", "reservation"),
			}
		}
	}
	b.Common(ctx, &m.Model, gpu, mix)
	return b.Done()
}
