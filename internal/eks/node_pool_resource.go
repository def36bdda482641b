// Package eks implements gpufleet_eks_node_pool: the resource schema, its translation to and from
// pool.Spec, and the EKS and EC2 calls that make a pool real.
package eks

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	fwtypes "github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// ResourceType is the resource's type name.
const ResourceType = "gpufleet_eks_node_pool"

const (
	defaultCreateTimeout = 40 * time.Minute
	defaultUpdateTimeout = 60 * time.Minute
	defaultDeleteTimeout = 40 * time.Minute
)

var (
	_ resource.Resource                = &NodePoolResource{}
	_ resource.ResourceWithConfigure   = &NodePoolResource{}
	_ resource.ResourceWithModifyPlan  = &NodePoolResource{}
	_ resource.ResourceWithImportState = &NodePoolResource{}
)

// NodePoolResource is gpufleet_eks_node_pool.
type NodePoolResource struct {
	meta *conns.Meta
}

// NewNodePoolResource is the resource factory.
func NewNodePoolResource() resource.Resource { return &NodePoolResource{} }

func (r *NodePoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_eks_node_pool"
}

func (r *NodePoolResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	meta, err := conns.FromProviderData(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected provider data", err.Error())
		return
	}
	r.meta = meta
}

func poolID(cluster, name string) string { return cluster + ":" + name }

func (r *NodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	cluster, name, ok := strings.Cut(req.ID, ":")
	if !ok || cluster == "" || name == "" || strings.Contains(name, ":") {
		resp.Diagnostics.AddError("Invalid import id", fmt.Sprintf("%q: import gpufleet_eks_node_pool as <cluster_name>:<name>, e.g. ml:train.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("cluster_name"), cluster)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}

// ModifyPlan validates the pool, fills every derived attribute so that the plan shows it, and runs
// the policy bundle on the pool. It never calls a cloud: bad input fails here with no API call.
func (r *NodePoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.meta == nil {
		return
	}
	unchanged := !req.State.Raw.IsNull() && req.Plan.Raw.Equal(req.State.Raw)
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var state *nodePoolModel
	if !req.State.Raw.IsNull() {
		state = &nodePoolModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	}
	if region := r.meta.AWSSettings.RegionHint(); region != "" {
		plan.Region = fwtypes.StringValue(region)
	} else if state != nil && !state.Region.IsNull() {
		plan.Region = state.Region
	}
	spec, diags := plan.spec(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.ClusterName.IsUnknown() && !plan.Name.IsUnknown() {
		plan.ID = fwtypes.StringValue(poolID(plan.ClusterName.ValueString(), plan.Name.ValueString()))
	}
	derived, ok := poolschema.Plan(ctx, r.meta, spec, &plan.Model, unchanged, nodegroupTagsCheck, &resp.Diagnostics)
	if !ok {
		return
	}
	switch {
	case derived == nil:
		plan.NodeGroups = fwtypes.ListUnknown(fwtypes.ObjectType{AttrTypes: nodeGroupAttrTypes})
	case !unchanged:
		plan.NodeGroups = plannedNodeGroups(ctx, spec, *derived, state)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// plannedNodeGroups shows the node groups the apply will leave: names, capacity types and sizes are
// known; ARNs and launch templates of existing node groups stay; status and a launch template
// version that the apply changes are unknown. A desired size the autoscaler owns stays what it is.
func plannedNodeGroups(ctx context.Context, s pool.Spec, d pool.Derived, state *nodePoolModel) fwtypes.List {
	prior := map[string]nodeGroupModel{}
	ltChanges := true
	if state != nil {
		for _, ng := range nodeGroupsOf(ctx, state.NodeGroups) {
			prior[ng.Name.ValueString()] = ng
		}
		ltChanges = !state.EffectiveTags.Equal(poolschema.StringMapValue(d.Tags))
	}
	var out []nodeGroupModel
	for _, side := range d.Sides {
		ng := nodeGroupModel{
			Name:                  fwtypes.StringValue(side.Name),
			CapacityType:          fwtypes.StringValue(side.CapacityType),
			MinSize:               fwtypes.Int64Value(int64(side.Sizes.Min)),
			MaxSize:               fwtypes.Int64Value(int64(side.Sizes.Max)),
			DesiredSize:           fwtypes.Int64Value(int64(side.Sizes.Desired)),
			Status:                fwtypes.StringUnknown(),
			ARN:                   fwtypes.StringUnknown(),
			LaunchTemplateID:      fwtypes.StringUnknown(),
			LaunchTemplateVersion: fwtypes.StringUnknown(),
		}
		if p, ok := prior[side.Name]; ok {
			if s.AutoscalerOwnsSize {
				ng.DesiredSize = fwtypes.Int64Value(int64(poolschema.KeptDesired(int(p.DesiredSize.ValueInt64()), side.Sizes)))
			}
			ng.ARN, ng.LaunchTemplateID = p.ARN, p.LaunchTemplateID
			if !ltChanges {
				ng.LaunchTemplateVersion = p.LaunchTemplateVersion
			}
		}
		out = append(out, ng)
	}
	return nodeGroupList(out)
}

type nodeGroupModel struct {
	Name                  fwtypes.String `tfsdk:"name"`
	ARN                   fwtypes.String `tfsdk:"arn"`
	CapacityType          fwtypes.String `tfsdk:"capacity_type"`
	MinSize               fwtypes.Int64  `tfsdk:"min_size"`
	MaxSize               fwtypes.Int64  `tfsdk:"max_size"`
	DesiredSize           fwtypes.Int64  `tfsdk:"desired_size"`
	Status                fwtypes.String `tfsdk:"status"`
	LaunchTemplateID      fwtypes.String `tfsdk:"launch_template_id"`
	LaunchTemplateVersion fwtypes.String `tfsdk:"launch_template_version"`
}

func nodeGroupsOf(ctx context.Context, l fwtypes.List) []nodeGroupModel {
	var out []nodeGroupModel
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	l.ElementsAs(ctx, &out, false)
	return out
}

func nodeGroupList(ngs []nodeGroupModel) fwtypes.List {
	elems := make([]attr.Value, len(ngs))
	for i, ng := range ngs {
		elems[i] = fwtypes.ObjectValueMust(nodeGroupAttrTypes, map[string]attr.Value{
			"name": ng.Name, "arn": ng.ARN, "capacity_type": ng.CapacityType,
			"min_size": ng.MinSize, "max_size": ng.MaxSize, "desired_size": ng.DesiredSize,
			"status": ng.Status, "launch_template_id": ng.LaunchTemplateID, "launch_template_version": ng.LaunchTemplateVersion,
		})
	}
	return fwtypes.ListValueMust(fwtypes.ObjectType{AttrTypes: nodeGroupAttrTypes}, elems)
}

func nodeGroupFrom(ng *types.Nodegroup) nodeGroupModel {
	m := nodeGroupModel{
		Name:                  fwtypes.StringValue(aws.ToString(ng.NodegroupName)),
		ARN:                   fwtypes.StringValue(aws.ToString(ng.NodegroupArn)),
		CapacityType:          fwtypes.StringValue(string(ng.CapacityType)),
		Status:                fwtypes.StringValue(string(ng.Status)),
		MinSize:               fwtypes.Int64Value(0),
		MaxSize:               fwtypes.Int64Value(0),
		DesiredSize:           fwtypes.Int64Value(0),
		LaunchTemplateID:      fwtypes.StringNull(),
		LaunchTemplateVersion: fwtypes.StringNull(),
	}
	if sc := ng.ScalingConfig; sc != nil {
		m.MinSize = fwtypes.Int64Value(int64(aws.ToInt32(sc.MinSize)))
		m.MaxSize = fwtypes.Int64Value(int64(aws.ToInt32(sc.MaxSize)))
		m.DesiredSize = fwtypes.Int64Value(int64(aws.ToInt32(sc.DesiredSize)))
	}
	if lt := ng.LaunchTemplate; lt != nil {
		m.LaunchTemplateID = fwtypes.StringValue(aws.ToString(lt.Id))
		m.LaunchTemplateVersion = fwtypes.StringValue(aws.ToString(lt.Version))
	}
	return m
}

type clients struct {
	eks  *eks.Client
	ec2  *ec2.Client
	poll time.Duration
}

func (r *NodePoolResource) clients(ctx context.Context, diags *diag.Diagnostics) *clients {
	if r.meta == nil {
		diags.AddError("Provider not configured", "the gpufleet provider was not configured before the resource was used")
		return nil
	}
	eksConn, err := r.meta.EKS(ctx)
	if err != nil {
		diags.AddError("Configuring the AWS client", err.Error())
		return nil
	}
	ec2Conn, err := r.meta.EC2(ctx)
	if err != nil {
		diags.AddError("Configuring the AWS client", err.Error())
		return nil
	}
	return &clients{eks: eksConn, ec2: ec2Conn, poll: r.meta.AWSSettings.PollInterval()}
}

func (r *NodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, sides := r.prepareApply(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	cluster := plan.ClusterName.ValueString()
	var existing []*types.Nodegroup
	for _, cfg := range sides {
		ng, err := createSide(ctx, c, &plan, cfg)
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating EKS node group (%s/%s)", cluster, cfg.Name), err.Error())
			break
		}
		existing = append(existing, ng)
	}
	existing = waitSidesActive(ctx, c, cluster, existing, timeout, &resp.Diagnostics)
	if len(existing) == 0 {
		return // nothing exists: no state, nothing to clean up
	}
	// State records what exists, even after an error: terraform then taints the pool and the next
	// apply replaces it, deleting every node group and launch template recorded here.
	plan.ID = fwtypes.StringValue(poolID(cluster, plan.Name.ValueString()))
	plan.NodeGroups = nodeGroupList(mapSlice(existing, nodeGroupFrom))
	if plan.KubernetesVersion.IsUnknown() || plan.KubernetesVersion.IsNull() {
		plan.KubernetesVersion = fwtypes.StringValue(aws.ToString(existing[0].Version))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// prepareApply is what Create and Update share: the cloud clients and the node groups the plan asks
// for, recomputed from the planned configuration (the plan holds only their results).
func (r *NodePoolResource) prepareApply(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) (*clients, []sideConfig) {
	c := r.clients(ctx, diags)
	if c == nil || diags.HasError() {
		return nil, nil
	}
	spec, d := m.spec(ctx)
	diags.Append(d...)
	poolschema.AddProblems(diags, spec.Validate())
	if diags.HasError() {
		return nil, nil
	}
	derived, err := pool.Derive(spec, r.meta.Pool)
	if err != nil {
		diags.AddError("Deriving the pool", err.Error())
		return nil, nil
	}
	return c, sideConfigs(m.ClusterName.ValueString(), spec, derived)
}

// createSide creates the launch template and the node group of one side. If the node group cannot
// be created, its launch template is deleted again so that nothing is orphaned.
func createSide(ctx context.Context, c *clients, m *nodePoolModel, cfg sideConfig) (*types.Nodegroup, error) {
	cluster := m.ClusterName.ValueString()
	ltID, ltVersion, err := createLaunchTemplate(ctx, c.ec2, cluster, cfg)
	if err != nil {
		return nil, fmt.Errorf("creating launch template %s: %w", launchTemplateName(cluster, cfg.Name), err)
	}
	in := &eks.CreateNodegroupInput{
		ClusterName:    aws.String(cluster),
		NodegroupName:  aws.String(cfg.Name),
		NodeRole:       aws.String(m.NodeRoleARN.ValueString()),
		Subnets:        setStrings(m.SubnetIDs),
		InstanceTypes:  cfg.InstanceTypes,
		AmiType:        types.AMITypes(m.AMIType.ValueString()),
		CapacityType:   types.CapacityTypes(cfg.CapacityType),
		ScalingConfig:  scalingConfig(cfg.Sizes),
		Labels:         cfg.Labels,
		Taints:         eksTaints(cfg.Taints),
		Tags:           cfg.Tags,
		LaunchTemplate: &types.LaunchTemplateSpecification{Id: aws.String(ltID), Version: aws.String(ltVersion)},
		UpdateConfig:   updateConfig(m.UpdateConfig),
	}
	if v := m.KubernetesVersion.ValueString(); v != "" {
		in.Version = aws.String(v)
	}
	out, err := c.eks.CreateNodegroup(ctx, in)
	if err != nil {
		if cleanupErr := deleteLaunchTemplate(context.WithoutCancel(ctx), c.ec2, launchTemplateName(cluster, cfg.Name)); cleanupErr != nil {
			return nil, fmt.Errorf("%w (and deleting its launch template: %w)", err, cleanupErr)
		}
		return nil, err
	}
	tflog.Info(ctx, "created EKS node group", map[string]any{"cluster": cluster, "nodegroup": cfg.Name, "capacity_type": cfg.CapacityType})
	return out.Nodegroup, nil
}

// waitSidesActive waits for each node group and returns the latest description of every one that
// exists, failed ones included.
func waitSidesActive(ctx context.Context, c *clients, cluster string, ngs []*types.Nodegroup, timeout time.Duration, diags *diag.Diagnostics) []*types.Nodegroup {
	var out []*types.Nodegroup
	for _, ng := range ngs {
		name := aws.ToString(ng.NodegroupName)
		got, err := waitNodegroupActive(ctx, c.eks, cluster, name, timeout, c.poll)
		if got == nil {
			got = ng
		}
		if err != nil {
			diags.AddError(fmt.Sprintf("waiting for EKS node group (%s/%s) to become ACTIVE", cluster, name), err.Error())
		}
		out = append(out, got)
	}
	return out
}

func scalingConfig(s pool.Sizes) *types.NodegroupScalingConfig {
	return &types.NodegroupScalingConfig{MinSize: aws.Int32(int32(s.Min)), MaxSize: aws.Int32(int32(s.Max)), DesiredSize: aws.Int32(int32(s.Desired))}
}

func updateConfig(m *updateConfigModel) *types.NodegroupUpdateConfig {
	if m == nil || (m.MaxUnavailable.IsNull() && m.MaxUnavailablePercentage.IsNull()) {
		return nil
	}
	u := &types.NodegroupUpdateConfig{}
	if !m.MaxUnavailable.IsNull() {
		u.MaxUnavailable = aws.Int32(int32(m.MaxUnavailable.ValueInt64()))
	}
	if !m.MaxUnavailablePercentage.IsNull() {
		u.MaxUnavailablePercentage = aws.Int32(int32(m.MaxUnavailablePercentage.ValueInt64()))
	}
	return u
}

func setStrings(s fwtypes.Set) []string {
	var out []string
	for _, e := range s.Elements() {
		if v, ok := e.(fwtypes.String); ok {
			out = append(out, v.ValueString())
		}
	}
	slices.Sort(out)
	return out
}

func mapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

func (r *NodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c := r.clients(ctx, &resp.Diagnostics)
	if c == nil {
		return
	}
	found, err := r.refresh(ctx, c, &state)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("reading EKS node pool (%s/%s)", state.ClusterName.ValueString(), state.Name.ValueString()), err.Error())
		return
	}
	if !found {
		tflog.Warn(ctx, "EKS node pool not found, removing from state", map[string]any{"cluster": state.ClusterName.ValueString(), "name": state.Name.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// refresh overwrites m with what EKS and EC2 hold; found is false when neither node group exists.
func (r *NodePoolResource) refresh(ctx context.Context, c *clients, m *nodePoolModel) (bool, error) {
	cluster, name := m.ClusterName.ValueString(), m.Name.ValueString()
	var found []*types.Nodegroup
	for _, suffix := range []string{pool.SuffixOnDemand, pool.SuffixSpot} {
		ng, err := findNodegroup(ctx, c.eks, cluster, name+suffix)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("node group %s%s: %w", name, suffix, err)
		}
		found = append(found, ng)
	}
	if len(found) == 0 {
		return false, nil
	}
	reservation, err := readReservation(ctx, c.ec2, found)
	if err != nil {
		return false, fmt.Errorf("launch template of node group %s: %w", aws.ToString(found[0].NodegroupName), err)
	}
	r.flatten(m, found, reservation)
	spec, _ := m.spec(ctx)
	poolschema.Refresh(ctx, r.meta, spec, &m.Model)
	return true, nil
}

// readReservation reads the reservation target from the on-demand side's launch template version.
func readReservation(ctx context.Context, conn *ec2.Client, ngs []*types.Nodegroup) (*pool.Reservation, error) {
	for _, ng := range ngs {
		if ng.CapacityType == types.CapacityTypesSpot || ng.LaunchTemplate == nil {
			continue
		}
		v, err := findLaunchTemplateVersion(ctx, conn, aws.ToString(ng.LaunchTemplate.Id), aws.ToString(ng.LaunchTemplate.Version))
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return reservationOf(v.LaunchTemplateData), nil
	}
	return nil, nil
}

// flatten writes what EKS reports into the model. Settings EKS does not hold (waivers, timeouts,
// whether MIG was given as a profile or an all-<profile> config) keep their prior values.
func (r *NodePoolResource) flatten(m *nodePoolModel, ngs []*types.Nodegroup, reservation *pool.Reservation) {
	primary := ngs[0]
	m.ID = fwtypes.StringValue(poolID(m.ClusterName.ValueString(), m.Name.ValueString()))
	m.Region = fwtypes.StringValue(regionOfARN(aws.ToString(primary.NodegroupArn)))
	m.NodeRoleARN = fwtypes.StringValue(aws.ToString(primary.NodeRole))
	m.SubnetIDs = fwtypes.SetValueMust(fwtypes.StringType, poolschema.StringValues(primary.Subnets))
	m.InstanceTypes = fwtypes.ListValueMust(fwtypes.StringType, poolschema.StringValues(primary.InstanceTypes))
	m.AMIType = fwtypes.StringValue(string(primary.AmiType))
	m.KubernetesVersion = fwtypes.StringValue(aws.ToString(primary.Version))

	labels := maps.Clone(primary.Labels)
	delete(labels, pool.LabelCapacityType)
	m.Client = fwtypes.StringValue(labels[pool.LabelClient])
	m.Workload = poolschema.WorkloadFrom(labels, m.Workload)
	m.GPU = gpuFromLabels(labels, m.GPU)
	m.Labels = poolschema.UserLabels(labels, func(string) bool { return false })
	m.Taints = poolschema.UserTaints(poolTaints(primary.Taints))
	m.Tags = poolschema.UserTags(primary.Tags, r.meta.Pool.DefaultTags, m.Tags, isDerivedTag)
	m.Scaling = poolschema.ScalingFrom(mapSlice(ngs, nodegroupSizes), m.Scaling)
	m.Capacity = capacityFrom(ngs, reservation, m.Capacity)
	m.UpdateConfig = updateConfigFrom(primary.UpdateConfig, m.UpdateConfig)
	m.NodeGroups = nodeGroupList(mapSlice(ngs, nodeGroupFrom))
}

// regionOfARN reads the region of arn:aws:eks:<region>:<account>:nodegroup/...
func regionOfARN(arn string) string {
	parts := strings.SplitN(arn, ":", 5)
	if len(parts) < 4 {
		return ""
	}
	return parts[3]
}

func gpuFromLabels(labels map[string]string, prior *gpuModel) *gpuModel {
	var g gpuModel
	if cfg := labels[pool.LabelMIGConfig]; cfg != "" {
		g.MIG = &poolschema.MIGModel{Profile: fwtypes.StringNull(), Config: fwtypes.StringNull()}
		profile, isAll := strings.CutPrefix(cfg, "all-")
		switch {
		case prior != nil && prior.MIG != nil && prior.MIG.Config.ValueString() == cfg:
			g.MIG.Config = fwtypes.StringValue(cfg)
		case isAll && cfg != pool.MIGConfigBalanced:
			g.MIG.Profile = fwtypes.StringValue(profile)
		default:
			g.MIG.Config = fwtypes.StringValue(cfg)
		}
	}
	if name := labels[pool.LabelDevicePlugin]; name != "" {
		rest, _ := strings.CutPrefix(name, "gpufleet-")
		if i := strings.LastIndex(rest, "-"); i > 0 {
			var replicas int64
			if _, err := fmt.Sscanf(rest[i+1:], "%d", &replicas); err == nil {
				g.Sharing = &poolschema.SharingModel{Strategy: fwtypes.StringValue(rest[:i]), Replicas: fwtypes.Int64Value(replicas)}
			}
		}
	}
	if g.MIG == nil && g.Sharing == nil {
		return nil
	}
	return &g
}

func capacityFrom(ngs []*types.Nodegroup, reservation *pool.Reservation, prior *capacityModel) *capacityModel {
	pct, base, recorded := parseSpotMix(ngs[0].Tags[tagSpotMix])
	var priorMix *poolschema.CapacityMix
	if prior != nil {
		priorMix = &prior.CapacityMix
	}
	mix, isSet := poolschema.CapacityMixFrom(pct, base, recorded, priorMix, len(ngs) == 1 && ngs[0].CapacityType == types.CapacityTypesSpot)
	c := &capacityModel{CapacityMix: mix}
	if reservation != nil {
		c.Reservation = &reservationModel{ID: fwtypes.StringValue(reservation.ID), Type: fwtypes.StringValue(reservation.Type)}
	}
	if !isSet && reservation == nil {
		return nil // nothing the block would say
	}
	return c
}

// nodegroupSizes is a node group's scaling config.
func nodegroupSizes(ng *types.Nodegroup) pool.Sizes {
	sc := ng.ScalingConfig
	if sc == nil {
		return pool.Sizes{}
	}
	return pool.Sizes{Min: int(aws.ToInt32(sc.MinSize)), Max: int(aws.ToInt32(sc.MaxSize)), Desired: int(aws.ToInt32(sc.DesiredSize))}
}

// updateConfigFrom keeps the block absent when the user did not set it and EKS reports its default.
func updateConfigFrom(u *types.NodegroupUpdateConfig, prior *updateConfigModel) *updateConfigModel {
	if u == nil {
		return prior
	}
	isDefault := aws.ToInt32(u.MaxUnavailable) == 1 && u.MaxUnavailablePercentage == nil
	if prior == nil && isDefault {
		return nil
	}
	m := &updateConfigModel{MaxUnavailable: fwtypes.Int64Null(), MaxUnavailablePercentage: fwtypes.Int64Null()}
	if u.MaxUnavailable != nil {
		m.MaxUnavailable = fwtypes.Int64Value(int64(*u.MaxUnavailable))
	}
	if u.MaxUnavailablePercentage != nil {
		m.MaxUnavailablePercentage = fwtypes.Int64Value(int64(*u.MaxUnavailablePercentage))
	}
	return m
}

func (r *NodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, defaultUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, wanted := r.prepareApply(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	cluster := plan.ClusterName.ValueString()
	wantedNames := map[string]bool{}
	var result []*types.Nodegroup

	// Grow or change what stays and create what is new before deleting what goes, so capacity does
	// not dip while spot and on-demand sides swap.
	for _, cfg := range wanted {
		wantedNames[cfg.Name] = true
		ng, err := findNodegroup(ctx, c.eks, cluster, cfg.Name)
		switch {
		case isNotFound(err):
			created, err := createSide(ctx, c, &plan, cfg)
			if err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("creating EKS node group (%s/%s)", cluster, cfg.Name), err.Error())
				continue
			}
			result = append(result, waitSidesActive(ctx, c, cluster, []*types.Nodegroup{created}, timeout, &resp.Diagnostics)...)
		case err != nil:
			resp.Diagnostics.AddError(fmt.Sprintf("reading EKS node group (%s/%s)", cluster, cfg.Name), err.Error())
		default:
			updated, err := updateSide(ctx, c, &plan, ng, cfg, timeout)
			if err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("updating EKS node group (%s/%s)", cluster, cfg.Name), err.Error())
			}
			result = append(result, updated)
		}
	}
	var gone []string
	for _, ng := range nodeGroupsOf(ctx, state.NodeGroups) {
		if name := ng.Name.ValueString(); !wantedNames[name] {
			gone = append(gone, name)
		}
	}
	if err := deleteSides(ctx, c, cluster, gone, timeout); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting EKS node groups of pool (%s/%s)", cluster, plan.Name.ValueString()), err.Error())
	}
	if resp.Diagnostics.HasError() {
		// Part of the update may have happened: record what the cloud holds now, not the plan.
		if found, err := r.refresh(context.WithoutCancel(ctx), c, &plan); err != nil || !found {
			resp.Diagnostics.AddWarning("State after a failed update", fmt.Sprintf("could not read the node pool back (found %t, %v); the next refresh will", found, err))
			return
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	plan.NodeGroups = nodeGroupList(mapSlice(result, nodeGroupFrom))
	plan.KubernetesVersion = fwtypes.StringValue(aws.ToString(result[0].Version))
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// updateSide brings an existing node group to cfg: a new launch template version and Kubernetes
// version through UpdateNodegroupVersion, labels, taints, sizes and update config through
// UpdateNodegroupConfig, tags through TagResource/UntagResource. Each update is waited for.
func updateSide(ctx context.Context, c *clients, m *nodePoolModel, ng *types.Nodegroup, cfg sideConfig, timeout time.Duration) (*types.Nodegroup, error) {
	cluster := m.ClusterName.ValueString()
	ltID, ltVersion := "", ""
	if lt := ng.LaunchTemplate; lt != nil {
		ltID, ltVersion = aws.ToString(lt.Id), aws.ToString(lt.Version)
		current, err := findLaunchTemplateVersion(ctx, c.ec2, ltID, ltVersion)
		if err != nil && !isNotFound(err) {
			return ng, fmt.Errorf("reading launch template %s: %w", ltID, err)
		}
		if launchTemplateDiffers(current, cfg) {
			if ltVersion, err = createLaunchTemplateVersion(ctx, c.ec2, ltID, cfg); err != nil {
				return ng, fmt.Errorf("creating a version of launch template %s: %w", ltID, err)
			}
		}
	}
	wantVersion := m.KubernetesVersion.ValueString()
	if (ltID != "" && ltVersion != aws.ToString(ng.LaunchTemplate.Version)) || (wantVersion != "" && wantVersion != aws.ToString(ng.Version)) {
		in := &eks.UpdateNodegroupVersionInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(cfg.Name)}
		if wantVersion != "" && wantVersion != aws.ToString(ng.Version) {
			in.Version = aws.String(wantVersion)
		}
		if ltID != "" {
			in.LaunchTemplate = &types.LaunchTemplateSpecification{Id: aws.String(ltID), Version: aws.String(ltVersion)}
		}
		out, err := c.eks.UpdateNodegroupVersion(ctx, in)
		if err != nil {
			return ng, fmt.Errorf("UpdateNodegroupVersion: %w", err)
		}
		if err := waitUpdateSuccessful(ctx, c.eks, cluster, cfg.Name, aws.ToString(out.Update.Id), timeout, c.poll); err != nil {
			return ng, err
		}
	}
	if in := configUpdate(ng, cfg, m.UpdateConfig); in != nil {
		in.ClusterName, in.NodegroupName = aws.String(cluster), aws.String(cfg.Name)
		out, err := c.eks.UpdateNodegroupConfig(ctx, in)
		if err != nil {
			return ng, fmt.Errorf("UpdateNodegroupConfig: %w", err)
		}
		if err := waitUpdateSuccessful(ctx, c.eks, cluster, cfg.Name, aws.ToString(out.Update.Id), timeout, c.poll); err != nil {
			return ng, err
		}
	}
	if err := updateTags(ctx, c.eks, aws.ToString(ng.NodegroupArn), ng.Tags, cfg.Tags); err != nil {
		return ng, err
	}
	return waitNodegroupActive(ctx, c.eks, cluster, cfg.Name, timeout, c.poll)
}

// configUpdate builds the UpdateNodegroupConfig request for what differs; nil when nothing does.
func configUpdate(ng *types.Nodegroup, cfg sideConfig, uc *updateConfigModel) *eks.UpdateNodegroupConfigInput {
	in := &eks.UpdateNodegroupConfigInput{}
	changed := false
	labels := &types.UpdateLabelsPayload{AddOrUpdateLabels: map[string]string{}}
	for k, v := range cfg.Labels {
		if cur, ok := ng.Labels[k]; !ok || cur != v {
			labels.AddOrUpdateLabels[k] = v
		}
	}
	for k := range ng.Labels {
		if _, ok := cfg.Labels[k]; !ok {
			labels.RemoveLabels = append(labels.RemoveLabels, k)
		}
	}
	if len(labels.AddOrUpdateLabels) > 0 || len(labels.RemoveLabels) > 0 {
		slices.Sort(labels.RemoveLabels)
		in.Labels, changed = labels, true
	}
	currentTaints, wanted := poolTaints(ng.Taints), slices.Clone(cfg.Taints)
	poolschema.SortTaints(wanted)
	if !slices.Equal(currentTaints, wanted) {
		taints := &types.UpdateTaintsPayload{}
		for _, t := range wanted {
			if !slices.Contains(currentTaints, t) {
				taints.AddOrUpdateTaints = append(taints.AddOrUpdateTaints, eksTaints([]pool.Taint{t})...)
			}
		}
		for _, t := range currentTaints {
			if !slices.ContainsFunc(wanted, func(w pool.Taint) bool { return w.Key == t.Key && w.Effect == t.Effect }) {
				taints.RemoveTaints = append(taints.RemoveTaints, eksTaints([]pool.Taint{t})...)
			}
		}
		in.Taints, changed = taints, true
	}
	current, sizes := nodegroupSizes(ng), cfg.Sizes
	if cfg.AutoscalerOwnsSize {
		sizes.Desired = poolschema.KeptDesired(current.Desired, sizes)
	}
	if ng.ScalingConfig == nil || current != sizes {
		in.ScalingConfig, changed = scalingConfig(sizes), true
	}
	if want := updateConfig(uc); want != nil && (ng.UpdateConfig == nil ||
		aws.ToInt32(want.MaxUnavailable) != aws.ToInt32(ng.UpdateConfig.MaxUnavailable) ||
		aws.ToInt32(want.MaxUnavailablePercentage) != aws.ToInt32(ng.UpdateConfig.MaxUnavailablePercentage)) {
		in.UpdateConfig, changed = want, true
	}
	if !changed {
		return nil
	}
	return in
}

func updateTags(ctx context.Context, conn *eks.Client, arn string, current, wanted map[string]string) error {
	add := map[string]string{}
	for k, v := range wanted {
		if cur, ok := current[k]; !ok || cur != v {
			add[k] = v
		}
	}
	var remove []string
	for k := range current {
		if _, ok := wanted[k]; !ok {
			remove = append(remove, k)
		}
	}
	if len(remove) > 0 {
		slices.Sort(remove)
		if _, err := conn.UntagResource(ctx, &eks.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: remove}); err != nil {
			return fmt.Errorf("UntagResource: %w", err)
		}
	}
	if len(add) > 0 {
		if _, err := conn.TagResource(ctx, &eks.TagResourceInput{ResourceArn: aws.String(arn), Tags: add}); err != nil {
			return fmt.Errorf("TagResource: %w", err)
		}
	}
	return nil
}

// deleteSides deletes node groups, waits until they are gone, then deletes their launch templates.
// All deletions start before the first wait, so the sides drain in parallel. A node group or template
// that is already gone is fine.
func deleteSides(ctx context.Context, c *clients, cluster string, names []string, timeout time.Duration) error {
	var errs []error
	var deleting []string
	for _, name := range names {
		_, err := c.eks.DeleteNodegroup(ctx, &eks.DeleteNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)})
		switch {
		case isNotFound(err):
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		default:
			deleting = append(deleting, name)
		}
	}
	for _, name := range names {
		if slices.Contains(deleting, name) {
			if err := waitNodegroupDeleted(ctx, c.eks, cluster, name, timeout, c.poll); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
				continue
			}
		}
		if err := deleteLaunchTemplate(ctx, c.ec2, launchTemplateName(cluster, name)); err != nil {
			errs = append(errs, fmt.Errorf("deleting launch template %s: %w", launchTemplateName(cluster, name), err))
		}
	}
	return errors.Join(errs...)
}

func (r *NodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, defaultDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	c := r.clients(ctx, &resp.Diagnostics)
	if c == nil || resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cluster, name := state.ClusterName.ValueString(), state.Name.ValueString()
	// Both sides, whatever state says: a side whose create failed half-way may not be in state, and
	// the names are deterministic.
	if err := deleteSides(ctx, c, cluster, []string{name + pool.SuffixOnDemand, name + pool.SuffixSpot}, timeout); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("deleting EKS node pool (%s/%s)", cluster, name), err.Error())
	}
}
