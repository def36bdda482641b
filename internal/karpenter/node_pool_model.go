package karpenter

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// nodePoolModel is the resource's Terraform data: the cloud-neutral pool attributes and blocks
// (poolschema.Model) and Karpenter's.
type nodePoolModel struct {
	poolschema.Model
	poolArgs

	ID        types.String `tfsdk:"id"`
	OwnerID   types.String `tfsdk:"owner_id"`
	ClusterID types.String `tfsdk:"cluster_identity"`
	Region    types.String `tfsdk:"region"`
	Manifests types.String `tfsdk:"manifests"`
	Objects   types.List   `tfsdk:"objects"`
	NodePools types.List   `tfsdk:"node_pools"`

	Kubernetes *kube.ConnectionModel `tfsdk:"kubernetes"`
}

// poolArgs are the arguments the resource and the render-only data source share.
type poolArgs struct {
	ClusterName           types.String     `tfsdk:"cluster_name"`
	Name                  types.String     `tfsdk:"name"`
	Mode                  types.String     `tfsdk:"mode"`
	KarpenterVersion      types.String     `tfsdk:"karpenter_version"`
	MIGStrategy           types.String     `tfsdk:"mig_strategy"`
	NodeRole              types.String     `tfsdk:"node_role"`
	InstanceProfile       types.String     `tfsdk:"instance_profile"`
	SubnetSelector        types.List       `tfsdk:"subnet_selector"`
	SecurityGroupSelector types.List       `tfsdk:"security_group_selector"`
	AMIAlias              types.String     `tfsdk:"ami_alias"`
	InstanceTypes         types.List       `tfsdk:"instance_types"`
	GPU                   *gpuModel        `tfsdk:"gpu"`
	Capacity              *capacityModel   `tfsdk:"capacity"`
	Disruption            *disruptionModel `tfsdk:"disruption"`
}

type gpuModel struct {
	poolschema.GPUPartitioning
}

type capacityModel = poolschema.EC2Capacity

type disruptionModel struct {
	ConsolidationPolicy    types.String `tfsdk:"consolidation_policy"`
	ConsolidateAfter       types.String `tfsdk:"consolidate_after"`
	ExpireAfter            types.String `tfsdk:"expire_after"`
	TerminationGracePeriod types.String `tfsdk:"termination_grace_period"`
	Budgets                types.List   `tfsdk:"budgets"`
}

type budgetModel struct {
	Nodes    types.String `tfsdk:"nodes"`
	Reasons  types.List   `tfsdk:"reasons"`
	Schedule types.String `tfsdk:"schedule"`
	Duration types.String `tfsdk:"duration"`
}

type objectModel struct {
	APIVersion types.String `tfsdk:"api_version"`
	Kind       types.String `tfsdk:"kind"`
	Name       types.String `tfsdk:"name"`
}

var (
	objectAttrTypes   = map[string]attr.Type{"api_version": types.StringType, "kind": types.StringType, "name": types.StringType}
	nodePoolAttrTypes = map[string]attr.Type{"name": types.StringType, "capacity_type": types.StringType, "weight": types.Int64Type, "nodes": types.Int64Type, "static": types.BoolType}
)

// spec translates the arguments into the cloud-neutral pool spec, recording unknown values.
func (a *poolArgs) spec(ctx context.Context, m *poolschema.Model, region types.String) (pool.Spec, diag.Diagnostics) {
	b := poolschema.NewSpec(catalog.AWS, render.ResourceType)
	s := b.Spec()
	s.Karpenter = true
	s.Name = b.String(a.Name, "name")
	s.Region = b.String(region, "region")
	s.InstanceTypes = b.StringList(ctx, a.InstanceTypes, "instance_types")
	var gpu *poolschema.GPUPartitioning
	if a.GPU != nil {
		gpu = &a.GPU.GPUPartitioning
	}
	b.Common(ctx, m, gpu, b.EC2Capacity(a.Capacity))
	s.GPU.MIGStrategy = b.String(a.MIGStrategy, "mig_strategy")
	// The render settings must be known too: an unknown selector or role leaves the objects unknown.
	for p, v := range map[string]attr.Value{
		"mode": a.Mode, "karpenter_version": a.KarpenterVersion, "node_role": a.NodeRole, "instance_profile": a.InstanceProfile,
		"subnet_selector": a.SubnetSelector, "security_group_selector": a.SecurityGroupSelector, "ami_alias": a.AMIAlias,
		"cluster_name": a.ClusterName,
	} {
		if !fullyKnown(v) {
			s.Unknown[p] = true
		}
	}
	if d := a.Disruption; d != nil {
		for _, v := range []attr.Value{d.ConsolidationPolicy, d.ConsolidateAfter, d.ExpireAfter, d.TerminationGracePeriod, d.Budgets} {
			if !fullyKnown(v) {
				s.Unknown["disruption"] = true
			}
		}
	}
	return b.Done()
}

// fullyKnown reports whether v and every value inside it is known.
func fullyKnown(v attr.Value) bool {
	if v.IsUnknown() {
		return false
	}
	tv, err := v.ToTerraformValue(context.Background())
	return err == nil && tv.IsFullyKnown()
}

// settings are the render settings of the arguments, with record, the configuration's arguments
// (recordConfig), as the node class's annotation.
func (a *poolArgs) settings(ctx context.Context, record string) (render.Settings, diag.Diagnostics) {
	var diags diag.Diagnostics
	set := render.Settings{
		Mode:             a.Mode.ValueString(),
		KarpenterVersion: a.KarpenterVersion.ValueString(),
		NodeRole:         a.NodeRole.ValueString(),
		InstanceProfile:  a.InstanceProfile.ValueString(),
		AMIAlias:         a.AMIAlias.ValueString(),
	}
	if set.Mode == "" {
		set.Mode = render.ModeKarpenter
	}
	set.Subnets, diags = selectorTerms(ctx, a.SubnetSelector)
	sgs, d := selectorTerms(ctx, a.SecurityGroupSelector)
	set.SecurityGroups = sgs
	diags.Append(d...)
	if dm := a.Disruption; dm != nil {
		set.Disruption = render.Disruption{
			ConsolidationPolicy:    dm.ConsolidationPolicy.ValueString(),
			ConsolidateAfter:       dm.ConsolidateAfter.ValueString(),
			ExpireAfter:            dm.ExpireAfter.ValueString(),
			TerminationGracePeriod: dm.TerminationGracePeriod.ValueString(),
			BudgetsSet:             !dm.Budgets.IsNull(),
		}
		for _, b := range poolschema.ListOf[budgetModel](ctx, dm.Budgets) {
			rb := render.Budget{Nodes: b.Nodes.ValueString(), Schedule: b.Schedule.ValueString(), Duration: b.Duration.ValueString()}
			if !b.Reasons.IsNull() {
				diags.Append(b.Reasons.ElementsAs(ctx, &rb.Reasons, false)...)
			}
			set.Disruption.Budgets = append(set.Disruption.Budgets, rb)
		}
	}
	set.Annotations = map[string]string{annotationConfig: record}
	return set, diags
}

func selectorTerms(ctx context.Context, l types.List) ([]render.SelectorTerm, diag.Diagnostics) {
	var diags diag.Diagnostics
	var out []render.SelectorTerm
	if l.IsNull() || l.IsUnknown() {
		return nil, nil
	}
	for _, e := range l.Elements() {
		o, ok := e.(types.Object)
		if !ok {
			continue
		}
		attrs := o.Attributes()
		t := render.SelectorTerm{}
		if v, ok := attrs["id"].(types.String); ok {
			t.ID = v.ValueString()
		}
		if v, ok := attrs["name"].(types.String); ok {
			t.Name = v.ValueString()
		}
		if v, ok := attrs["tags"].(types.Map); ok && !v.IsNull() {
			diags.Append(v.ElementsAs(ctx, &t.Tags, false)...)
		}
		out = append(out, t)
	}
	return out, diags
}

// annotationConfig records the pool's arguments, as the configuration wrote them, on its node
// class, so that an import reads back exactly what the configuration says (the spot mix, for one,
// is not recoverable from the NodePools' limits alone). Secrets are never in it: the kubernetes
// block is not recorded.
const annotationConfig = "gpufleet.io/pool-config"

// recordedArguments are the arguments the annotation records.
var recordedArguments = []string{
	"client", "taints", "labels", "tags", "policy_waivers", "workload", "scaling", "gpu", "capacity", "disruption",
	"mode", "karpenter_version", "mig_strategy", "node_role", "instance_profile", "subnet_selector", "security_group_selector",
	"ami_alias", "instance_types",
}
