package eks

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// nodePoolModel is the resource's Terraform data: the cloud-neutral pool attributes and blocks
// (poolschema.Model) and what only EKS has.
type nodePoolModel struct {
	poolschema.Model

	ID                types.String `tfsdk:"id"`
	OwnerID           types.String `tfsdk:"owner_id"`
	ClusterName       types.String `tfsdk:"cluster_name"`
	Name              types.String `tfsdk:"name"`
	Region            types.String `tfsdk:"region"`
	NodeRoleARN       types.String `tfsdk:"node_role_arn"`
	SubnetIDs         types.Set    `tfsdk:"subnet_ids"`
	InstanceTypes     types.List   `tfsdk:"instance_types"`
	AMIType           types.String `tfsdk:"ami_type"`
	KubernetesVersion types.String `tfsdk:"kubernetes_version"`
	ReleaseVersion    types.String `tfsdk:"release_version"`
	MIGStrategy       types.String `tfsdk:"mig_strategy"`

	GPU          *gpuModel          `tfsdk:"gpu"`
	Capacity     *capacityModel     `tfsdk:"capacity"`
	UpdateConfig *updateConfigModel `tfsdk:"update_config"`
	Network      *networkModel      `tfsdk:"network"`

	NodeGroups types.List `tfsdk:"node_groups"`
}

// gpuModel is the gpu block: on EKS only the shared MIG and sharing blocks.
type gpuModel struct {
	poolschema.GPUPartitioning
}

type (
	capacityModel    = poolschema.EC2Capacity
	reservationModel = poolschema.EC2Reservation
)

type updateConfigModel struct {
	MaxUnavailable           types.Int64  `tfsdk:"max_unavailable"`
	MaxUnavailablePercentage types.Int64  `tfsdk:"max_unavailable_percentage"`
	UpdateStrategy           types.String `tfsdk:"update_strategy"`
}

// empty reports whether the update_config block was written empty: EKS's default.
func (u *updateConfigModel) empty() bool {
	return poolschema.Unset(u.MaxUnavailable, u.MaxUnavailablePercentage, u.UpdateStrategy)
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
	"kubernetes_version":      types.StringType,
	"release_version":         types.StringType,
	"in_sync":                 types.BoolType,
}

// reservation is the reservation of the `capacity` block, as state or the plan holds it (its id and type;
// nil without one).
func (m *nodePoolModel) reservation() *pool.Reservation {
	if m.Capacity == nil || m.Capacity.Reservation == nil {
		return nil
	}
	return &pool.Reservation{ID: m.Capacity.Reservation.ID.ValueString(), Type: m.Capacity.Reservation.Type.ValueString()}
}

// owner is what the pool's owner tags name. A pool read without owner id and without recorded node
// groups is being imported: any owner id of its cluster and name is accepted, and then recorded.
func (m *nodePoolModel) owner() poolOwner {
	o := poolOwner{cluster: m.ClusterName.ValueString(), pool: m.Name.ValueString(), id: m.OwnerID.ValueString()}
	o.anyID = m.OwnerID.IsNull() && m.NodeGroups.IsNull()
	return o
}

// spec translates the model into the cloud-neutral pool spec, recording unknown values.
func (m *nodePoolModel) spec(ctx context.Context) (pool.Spec, diag.Diagnostics) {
	b := poolschema.NewSpec(catalog.AWS, ResourceType)
	s := b.Spec()
	s.Name = b.String(m.Name, "name")
	s.Region = b.String(m.Region, "region")
	s.InstanceTypes = b.StringList(ctx, m.InstanceTypes, "instance_types")
	var gpu *poolschema.GPUPartitioning
	if m.GPU != nil {
		gpu = &m.GPU.GPUPartitioning
	}
	b.Common(ctx, &m.Model, gpu, b.EC2Capacity(m.Capacity))
	s.GPU.MIGStrategy = b.String(m.MIGStrategy, "mig_strategy")
	return b.Done()
}
