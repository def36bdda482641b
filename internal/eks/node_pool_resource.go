// Package eks implements gpufleet_eks_node_pool: the resource schema, its translation to and from
// pool.Spec, and the EKS and EC2 calls that make a pool real.
package eks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	fwtypes "github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// ResourceType is the resource's type name.
const ResourceType = "gpufleet_eks_node_pool"

var (
	_ resource.Resource                = &NodePoolResource{}
	_ resource.ResourceWithConfigure   = &NodePoolResource{}
	_ resource.ResourceWithModifyPlan  = &NodePoolResource{}
	_ resource.ResourceWithImportState = &NodePoolResource{}
)

// NodePoolResource is gpufleet_eks_node_pool.
type NodePoolResource struct {
	poolschema.Resource
}

// NewNodePoolResource is the resource factory.
func NewNodePoolResource() resource.Resource { return &NodePoolResource{} }

func (r *NodePoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_eks_node_pool"
}

func poolID(cluster, name string) string { return cluster + ":" + name }

// ImportState takes <cluster_name>:<name>, optionally @<region> (as the Terraform AWS provider's
// import ids do, internal/provider/framework/region.go resourceImportRegion): the pool is read in
// that region, else in the provider's, and state records it.
func (r *NodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id, region := req.ID, ""
	if m := importRegion.FindStringSubmatch(id); m != nil {
		id, region = m[1], m[2]
	}
	cluster, name, ok := strings.Cut(id, ":")
	if !ok || cluster == "" || name == "" || strings.Contains(name, ":") {
		resp.Diagnostics.AddError("Invalid import id", fmt.Sprintf("%q: import gpufleet_eks_node_pool as <cluster_name>:<name>, or <cluster_name>:<name>@<region> for a pool in another region than the provider's, e.g. ml:train or ml:train@eu-west-1.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("cluster_name"), cluster)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	if region != "" {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("region"), region)...)
	}
}

// importRegion is an import id that ends in @<region>.
var importRegion = regexp.MustCompile(`^(.+)@(` + regionPattern + `)$`)

// ModifyPlan validates the pool, fills every derived attribute so that the plan shows it, and runs
// the policy bundle on the pool. What the configuration alone gets wrong fails here with no API call;
// then, for a pool about to be created, the facts only the cloud holds (the cluster's version, the
// reservation's placement) are checked with read-only calls where the credentials allow (checks.go).
func (r *NodePoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	plan, state, unchanged := poolschema.PlanOf[nodePoolModel](ctx, &r.Resource, req, resp)
	if plan == nil {
		return
	}
	var configRegion fwtypes.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("region"), &configRegion)...)
	plan.Region = r.plannedRegion(ctx, configRegion, state)
	if state != nil {
		// A pool lives in the region its state records: another region is a new pool there and
		// the old one destroyed in its own region, a planned replacement (as the Terraform AWS
		// provider's region attribute forces one: internal/provider/framework/region.go,
		// resourceForceNewIfRegionChanges).
		if was := recordedRegion(ctx, state); was != "" && (plan.Region.IsUnknown() || plan.Region.ValueString() != was) {
			resp.RequiresReplace.Append(path.Root("region"))
			unchanged = false
		}
	}
	spec, diags := plan.spec(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	var cfg configuredVersions
	var behind map[string]bool
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("kubernetes_version"), &cfg.kubernetes)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("release_version"), &cfg.release)...)
	if state != nil {
		// A pool keeps its owner id (null for pools made before owner ids); a replacement is planned
		// again as a create, with no state, and gets a new one.
		plan.OwnerID = state.OwnerID
		behind = versionsBehind(ctx, cfg, state)
		unchanged = unchanged && !sidesNeedRepair(ctx, state.NodeGroups, spec) && len(behind) == 0
		addProblems(&resp.Diagnostics, noRollback(ctx, cfg, state))
	}
	addProblems(&resp.Diagnostics, releaseAtPlan(cfg, plan, state))
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.ClusterName.IsUnknown() && !plan.Name.IsUnknown() {
		plan.ID = fwtypes.StringValue(poolID(plan.ClusterName.ValueString(), plan.Name.ValueString()))
	}
	derived, ok := poolschema.Plan(ctx, r.Meta, spec, &plan.Model, unchanged, nodegroupTagsCheck, &resp.Diagnostics)
	if !ok {
		return
	}
	if !unchanged {
		planReleaseVersion(cfg, plan, state)
	}
	if derived != nil && (state == nil || reservationMoves(plan, state) && spec.Capacity.Reservation != nil) {
		addProblems(&resp.Diagnostics, r.planTimeChecks(ctx, plan, spec, cfg, state == nil))
		if resp.Diagnostics.HasError() {
			return
		}
	}
	switch {
	case derived == nil:
		plan.NodeGroups = fwtypes.ListUnknown(fwtypes.ObjectType{AttrTypes: nodeGroupAttrTypes})
	case !unchanged:
		plan.NodeGroups = plannedNodeGroups(ctx, spec, *derived, plan, state, behind)
		if state != nil {
			warnNodesReplaced(ctx, &resp.Diagnostics, plan, state)
			warnReservationMoves(&resp.Diagnostics, plan, state, spec)
		}
	}
	if state != nil {
		warnVersionsDiffer(ctx, &resp.Diagnostics, state)
	}
	if n := plan.Network; n != nil && n.PlacementGroup.IsUnknown() {
		n.PlacementGroup = plannedPlacementGroup(plan)
	}
	warnReplicaWithoutEFA(&resp.Diagnostics, plan, spec)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// plannedRegion is the region a plan gives the pool: the configured one, else the provider's (so
// that a pool created under one AWS_REGION and planned under another shows the move, a
// replacement); unknown for a new pool whose provider region only the SDK's configuration knows
// (the create records it).
func (r *NodePoolResource) plannedRegion(ctx context.Context, configured fwtypes.String, state *nodePoolModel) fwtypes.String {
	switch {
	case !configured.IsNull():
		return configured
	case r.Meta.AWSSettings.RegionHint() != "":
		return fwtypes.StringValue(r.Meta.AWSSettings.RegionHint())
	case state == nil:
		return fwtypes.StringUnknown()
	}
	// Refresh has loaded the AWS configuration already.
	if region, err := r.Meta.AWSRegion(ctx); err == nil && region != "" {
		return fwtypes.StringValue(region)
	}
	if was := recordedRegion(ctx, state); was != "" {
		return fwtypes.StringValue(was)
	}
	return fwtypes.StringUnknown()
}

// plannedNodeGroups shows the node groups the apply will leave: names, capacity types and sizes are
// known; ARNs and launch templates of existing node groups stay (not of a CREATE_FAILED one, which
// the apply replaces); status, and versions that the apply changes, are unknown. A desired size the
// autoscaler owns stays what it is. behind are node groups whose versions the apply brings to the
// pinned ones (versionsBehind).
func plannedNodeGroups(ctx context.Context, s pool.Spec, d pool.Derived, plan, state *nodePoolModel, behind map[string]bool) fwtypes.List {
	prior := map[string]nodeGroupModel{}
	ltChanges, versionChanges, releaseChanges := true, true, true
	if state != nil {
		for _, ng := range poolschema.ListOf[nodeGroupModel](ctx, state.NodeGroups) {
			prior[ng.Name.ValueString()] = ng
		}
		versionChanges = plan.KubernetesVersion.IsUnknown() || !plan.KubernetesVersion.Equal(state.KubernetesVersion)
		releaseChanges = plan.ReleaseVersion.IsUnknown() || !plan.ReleaseVersion.Equal(state.ReleaseVersion)
		// A tag change makes no template version (fleet.go); a roll may, with the pool's tags, and
		// so does a change of the EFA interfaces (network.go).
		ltChanges = versionChanges || releaseChanges || efaChanges(plan, state) || reservationMoves(plan, state)
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
			KubernetesVersion:     fwtypes.StringUnknown(),
			ReleaseVersion:        fwtypes.StringUnknown(),
			InSync:                fwtypes.BoolUnknown(), // a side the apply creates may fail and stay
		}
		p, ok := prior[side.Name]
		if ok && s.AutoscalerOwnsSize {
			ng.DesiredSize = fwtypes.Int64Value(int64(poolschema.KeptDesired(int(p.DesiredSize.ValueInt64()), side.Sizes)))
		}
		if ok && knownString(p.ARN) && knownString(p.LaunchTemplateID) && p.Status.ValueString() != string(types.NodegroupStatusCreateFailed) {
			ng.ARN, ng.LaunchTemplateID, ng.InSync = p.ARN, p.LaunchTemplateID, fwtypes.BoolValue(true)
			inSync := p.InSync.IsNull() || p.InSync.ValueBool()
			if !ltChanges && inSync {
				ng.LaunchTemplateVersion = p.LaunchTemplateVersion
			}
			inSync = inSync && !behind[side.Name]
			if !versionChanges && inSync {
				ng.KubernetesVersion = p.KubernetesVersion
			}
			if !versionChanges && !releaseChanges && inSync {
				ng.ReleaseVersion = p.ReleaseVersion
			}
		}
		out = append(out, ng)
	}
	return nodeGroupList(out)
}

// sidesNeedRepair reports node groups in state that are not what the pool's settings in state
// make: a side missing or one too many (an apply failed part-way), a launch template without its
// node group (no ARN), a node group whose template is gone or not its own (no template), and node
// groups refresh found out of line with the pool (in_sync false: a half-applied update, a
// CREATE_FAILED side, a change outside Terraform).
func sidesNeedRepair(ctx context.Context, l fwtypes.List, s pool.Spec) bool {
	recorded := poolschema.ListOf[nodeGroupModel](ctx, l)
	want := s.Sides()
	if len(recorded) != len(want) {
		return true
	}
	for i, ng := range recorded {
		if ng.Name.ValueString() != want[i].Name || ng.CapacityType.ValueString() != want[i].CapacityType ||
			!knownString(ng.ARN) || !knownString(ng.LaunchTemplateID) || (!ng.InSync.IsNull() && !ng.InSync.ValueBool()) {
			return true
		}
	}
	return false
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
	KubernetesVersion     fwtypes.String `tfsdk:"kubernetes_version"`
	ReleaseVersion        fwtypes.String `tfsdk:"release_version"`
	InSync                fwtypes.Bool   `tfsdk:"in_sync"`
}

func nodeGroupList(ngs []nodeGroupModel) fwtypes.List {
	elems := make([]attr.Value, len(ngs))
	for i, ng := range ngs {
		elems[i] = fwtypes.ObjectValueMust(nodeGroupAttrTypes, map[string]attr.Value{
			"name": ng.Name, "arn": ng.ARN, "capacity_type": ng.CapacityType,
			"min_size": ng.MinSize, "max_size": ng.MaxSize, "desired_size": ng.DesiredSize,
			"status": ng.Status, "launch_template_id": ng.LaunchTemplateID, "launch_template_version": ng.LaunchTemplateVersion,
			"kubernetes_version": ng.KubernetesVersion, "release_version": ng.ReleaseVersion, "in_sync": ng.InSync,
		})
	}
	return fwtypes.ListValueMust(fwtypes.ObjectType{AttrTypes: nodeGroupAttrTypes}, elems)
}

// nodeGroupFrom is a node group's state entry; in_sync is refresh's to judge, true until it does.
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
		KubernetesVersion:     poolschema.NullableString(aws.ToString(ng.Version)),
		ReleaseVersion:        poolschema.NullableString(aws.ToString(ng.ReleaseVersion)),
		InSync:                fwtypes.BoolValue(ng.Status != types.NodegroupStatusCreateFailed),
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
	eks         *eks.Client
	ec2         *ec2.Client
	autoscaling *autoscaling.Client
	poll        time.Duration
	region      string
}

// clients are the AWS clients of the pool's region (recordedRegion), or reports why there are none.
func (r *NodePoolResource) clients(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) *clients {
	c, err := r.clientsIn(ctx, recordedRegion(ctx, m))
	if err != nil {
		diags.AddError("Configuring the AWS client", err.Error())
		return nil
	}
	return c
}

// clientsIn are the AWS clients of region, "" for the provider's.
func (r *NodePoolResource) clientsIn(ctx context.Context, region string) (*clients, error) {
	if r.Meta == nil {
		return nil, errors.New("the gpufleet provider was not configured before the resource was used")
	}
	eksConn, err := r.Meta.EKSIn(ctx, region)
	if err != nil {
		return nil, err
	}
	ec2Conn, err := r.Meta.EC2In(ctx, region)
	if err != nil {
		return nil, err
	}
	asConn, err := r.Meta.AutoScalingIn(ctx, region)
	if err != nil {
		return nil, err
	}
	return &clients{eks: eksConn, ec2: ec2Conn, autoscaling: asConn, poll: r.Meta.AWSSettings.PollInterval(), region: eksConn.Options().Region}, nil
}

// recordedRegion is the region a pool lives in: the one its state or plan records, else, for a
// state written before the pool recorded one, the region of its node groups' ARNs; "" when neither
// says (a new pool, an import), for the provider's region. A pool is read, changed and deleted in
// its own region whatever the provider's region is on this run (AWS_REGION in another shell, a
// changed variable): looking in the provider's region would not find it and drop it from state
// while its node groups keep running.
func recordedRegion(ctx context.Context, m *nodePoolModel) string {
	if knownString(m.Region) {
		return m.Region.ValueString()
	}
	for _, ng := range poolschema.ListOf[nodeGroupModel](ctx, m.NodeGroups) {
		if region := regionOfARN(ng.ARN.ValueString()); knownString(ng.ARN) && region != "" {
			return region
		}
	}
	return ""
}

func (r *NodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	poolschema.Create(ctx, req, resp, func(ctx context.Context, plan *nodePoolModel, timeout time.Duration) {
		if !knownString(plan.OwnerID) {
			id, err := pool.NewOwnerID()
			if err != nil {
				resp.Diagnostics.AddError("creating EKS node pool", err.Error())
				return
			}
			plan.OwnerID = fwtypes.StringValue(id)
		}
		c, sides := r.prepareApply(ctx, plan, req.Config, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		cluster := plan.ClusterName.ValueString()
		// Before anything is created: every node group and launch template of the sides' names must
		// be free (a new pool owns nothing yet), and the cloud must take the pool.
		if _, side, err := preflight(ctx, c, plan, sides, nil); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating EKS node group (%s/%s)", cluster, side), err.Error())
			return
		}
		spec, _ := plan.spec(ctx)
		if err := applyChecks(ctx, c, plan, spec, sides, true, spec.Capacity.Reservation != nil); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating EKS node pool (%s/%s)", cluster, plan.Name.ValueString()), err.Error())
			return
		}
		// The placement group before the launch templates that name it; one this create made is
		// deleted again when nothing of the pool comes to exist, or recorded when that fails.
		pgCreated, err := ensurePlacementGroup(ctx, c, plan, sides[0].InstanceTags, &resp.Diagnostics)
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating EKS node pool (%s/%s)", cluster, plan.Name.ValueString()), err.Error())
			if pgCreated {
				dropCreatedPlacementGroup(ctx, c, plan, resp)
			}
			return
		}
		var existing []*types.Nodegroup
		var leftovers []nodeGroupModel
		var failed []sideFailure
		for _, cfg := range sides {
			ng, leftover, err := createSide(ctx, c, plan, cfg, &resp.Diagnostics)
			if leftover != nil {
				leftovers = append(leftovers, *leftover)
			}
			if err != nil {
				failed = append(failed, sideFailure{name: cfg.Name, err: err})
				break // what refused this side would most likely refuse the next
			}
			existing = append(existing, ng)
		}
		outcomes := waitSides(ctx, c, cluster, existing, timeout)
		existing = poolschema.MapSlice(outcomes, func(o sideOutcome) *types.Nodegroup { return o.ng })
		for _, o := range outcomes {
			if !running(o.ng) {
				failed = append(failed, sideFailure{name: aws.ToString(o.ng.NodegroupName), ng: o.ng, err: o.err})
			}
		}
		reportCreate(&resp.Diagnostics, cluster, outcomes, failed)
		if len(existing) == 0 && len(leftovers) == 0 {
			// Nothing of the pool exists: no state, and no placement group left behind (or, when it
			// cannot be deleted, state with the group alone).
			if pgCreated {
				dropCreatedPlacementGroup(ctx, c, plan, resp)
			}
			return
		}
		// State records what exists. With a node group running, or still creating at the timeout, the
		// failed sides are recorded as they are (a CREATE_FAILED node group not in sync, a refused
		// side absent) and the next apply creates or replaces only them. With none running or
		// creating (an error), terraform taints the pool and the next apply replaces it, deleting
		// every node group and launch template recorded here.
		plan.ID = fwtypes.StringValue(poolID(cluster, plan.Name.ValueString()))
		plan.NodeGroups = nodeGroupList(createdSides(sides, existing, leftovers))
		if plan.KubernetesVersion.IsUnknown() || plan.KubernetesVersion.IsNull() {
			plan.KubernetesVersion = fwtypes.StringNull()
			if len(existing) > 0 {
				plan.KubernetesVersion = fwtypes.StringValue(aws.ToString(firstRunning(existing).Version))
			}
		}
		if plan.ReleaseVersion.IsUnknown() {
			plan.ReleaseVersion = fwtypes.StringNull()
			if len(existing) > 0 {
				plan.ReleaseVersion = poolschema.NullableString(aws.ToString(firstRunning(existing).ReleaseVersion))
			}
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	})
}

// dropCreatedPlacementGroup deletes again the placement group a create made (or may have made: it
// is looked for) when nothing else of the pool exists. When the deletion fails, state records the
// pool with the group alone, as refresh reads a pool whose destroy could not delete it
// (ownedPlacementGroupLeft): the create has failed, so terraform taints the pool, and the next apply
// replaces it, deleting the group first, as destroy does. Without state the group was orphaned, with
// an owner id no state holds, and the next apply failed on it as another's. A group of the name that
// is not the pool's is not recorded: it is not the pool's to delete.
func dropCreatedPlacementGroup(ctx context.Context, c *clients, plan *nodePoolModel, resp *resource.CreateResponse) {
	cluster, name := plan.ClusterName.ValueString(), plan.Name.ValueString()
	err := deleteOwnedPlacementGroup(context.WithoutCancel(ctx), c.ec2, plan)
	if err == nil {
		return
	}
	summary := fmt.Sprintf("deleting placement group of EKS node pool (%s/%s) again", cluster, name)
	if isNotOwned(err) {
		resp.Diagnostics.AddError(summary, err.Error())
		return
	}
	resp.Diagnostics.AddError(summary, fmt.Sprintf("%v. State records the pool with placement group %s alone, so that it is not orphaned: terraform taints the pool, and the next apply replaces it, deleting the group first (as destroy does).",
		err, plan.Network.PlacementGroup.ValueString()))
	plan.ID = fwtypes.StringValue(poolID(cluster, name))
	plan.NodeGroups = nodeGroupList(nil)
	if plan.KubernetesVersion.IsUnknown() {
		plan.KubernetesVersion = fwtypes.StringNull()
	}
	if plan.ReleaseVersion.IsUnknown() {
		plan.ReleaseVersion = fwtypes.StringNull()
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

// prepareApply is what Create and Update share: the cloud clients and the node groups the plan asks
// for, recomputed from the planned configuration (the plan holds only their results).
func (r *NodePoolResource) prepareApply(ctx context.Context, m *nodePoolModel, config tfsdk.Config, diags *diag.Diagnostics) (*clients, []sideConfig) {
	var versions configuredVersions
	diags.Append(config.GetAttribute(ctx, path.Root("kubernetes_version"), &versions.kubernetes)...)
	diags.Append(config.GetAttribute(ctx, path.Root("release_version"), &versions.release)...)
	c := r.clients(ctx, m, diags)
	if c == nil || diags.HasError() {
		return nil, nil
	}
	if !knownString(m.Region) {
		m.Region = fwtypes.StringValue(c.region)
	}
	spec, specDiags := m.spec(ctx)
	derived, ok := poolschema.Derive(&r.Resource, spec, specDiags, diags)
	if !ok {
		return nil, nil
	}
	sides := sideConfigs(m.owner(), spec, derived)
	for i := range sides {
		sides[i].Network = m.networkOf(sides[i].instanceTypes())
		sides[i].OwnDefaultTags = poolschema.JoinWithin(poolschema.OwnDefaultTags(spec.Tags, r.Meta.Pool.DefaultTags), ",", maxTagValue)
		sides[i].PinnedVersion, sides[i].PinnedRelease = versions.pinned(), versions.release.ValueString()
	}
	return c, sides
}

// applyChecks runs the cloud checks before an apply changes anything (see checks.go), for creating
// node groups (creating) and, with a reservation, for the side on it (reserved); then it sets the
// release new node groups are created with: the configured one, else the pool's while the cluster
// runs the pool's version (so that a side added later runs what the other runs), else the latest.
func applyChecks(ctx context.Context, c *clients, m *nodePoolModel, s pool.Spec, sides []sideConfig, creating, reserved bool) error {
	if !creating && !reserved {
		return nil
	}
	subnets := setStrings(m.SubnetIDs)
	if !reserved {
		s.Capacity.Reservation = nil
	}
	facts, err := readFacts(ctx, c, m.ClusterName.ValueString(), s, subnets, true)
	if err != nil {
		return err
	}
	var problems []checkProblem
	if creating && len(sides) > 0 {
		problems = append(problems, facts.createProblems(sides[0].PinnedVersion, sides[0].PinnedRelease, m.AMIType.ValueString())...)
	}
	problems = append(problems, facts.reservationProblems(s, subnets)...)
	if err := joinProblems(problems); err != nil {
		return err
	}
	for i := range sides {
		switch release := sides[i].PinnedRelease; {
		case release != "":
			sides[i].CreateRelease = release // createProblems refused one that does not fit
		case release == "" && knownString(m.ReleaseVersion) && m.KubernetesVersion.ValueString() == facts.clusterVersion:
			sides[i].CreateRelease = m.ReleaseVersion.ValueString()
		}
	}
	return nil
}

func sideOwnerOf(m *nodePoolModel, nodegroup string) sideOwner { return m.owner().side(nodegroup) }

// preflight runs before an apply changes anything. It finds the sides' own node groups (by name;
// recorded gives the ARNs state holds) and fails, naming the side, when a node group or a launch
// template of a side's name is not the side's: gpufleet never adopts, changes or deletes it.
func preflight(ctx context.Context, c *clients, m *nodePoolModel, sides []sideConfig, recorded map[string]nodeGroupModel) (map[string]*types.Nodegroup, string, error) {
	own := map[string]*types.Nodegroup{}
	for _, cfg := range sides {
		o := sideOwnerOf(m, cfg.Name)
		ng, err := findOwnedNodegroup(ctx, c, o, recorded[cfg.Name].ARN.ValueString())
		switch {
		case err == nil:
			own[cfg.Name] = ng
		case !isNotFound(err):
			return nil, cfg.Name, err
		}
		lt, err := findLaunchTemplateByName(ctx, c.ec2, o.templateName())
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return nil, cfg.Name, fmt.Errorf("finding launch template %s: %w", o.templateName(), err)
		}
		if err := o.checkOwned(lt); err != nil {
			return nil, cfg.Name, err
		}
	}
	return own, "", nil
}

// templateOnly is the state entry of a side whose launch template exists without its node group.
func templateOnly(name, capacityType, ltID, ltVersion string) nodeGroupModel {
	return nodeGroupModel{
		Name: fwtypes.StringValue(name), ARN: fwtypes.StringNull(), CapacityType: fwtypes.StringValue(capacityType), Status: fwtypes.StringNull(),
		MinSize: fwtypes.Int64Value(0), MaxSize: fwtypes.Int64Value(0), DesiredSize: fwtypes.Int64Value(0),
		LaunchTemplateID: fwtypes.StringValue(ltID), LaunchTemplateVersion: fwtypes.StringValue(ltVersion),
		KubernetesVersion: fwtypes.StringNull(), ReleaseVersion: fwtypes.StringNull(), InSync: fwtypes.BoolValue(false),
	}
}

// createSide creates the launch template and the node group of one side. If the node group cannot
// be created, a launch template this call created is deleted again; a template the side had already
// (left over from an earlier attempt), or one whose deletion fails, comes back as the side's state
// entry, so that the next apply reuses it and destroy deletes it.
//
// A create whose answer was lost is not a create that failed: the create timeout or an interrupt
// (terraform-plugin-go cancels the RPC's context on Ctrl-C) can end CreateNodegroup after EKS
// accepted it, and EKS can fail (5xx) after it did. So when CreateNodegroup fails, the side's node
// group is looked for (findAfterFailedCreate); one that is the side's by its owner tag, which
// carries the pool's random owner id (ownership.go), is the one this call made. It comes back as
// created, its launch template kept, with a warning on diags: the caller records it in state and
// waits for it as for any other, within the time left. Deleting its template and recording nothing
// would orphan a running node group, and lose the owner id that makes it the pool's (a new pool's
// id is in no state yet), so that the next apply would fail on it as another's. When the look-up
// itself fails, whether EKS made the node group cannot be told: the template stays, as the side's
// state entry. The same holds for a launch template whose CreateLaunchTemplate answer was lost,
// and for one EC2 made with warnings that could not be deleted again (createLaunchTemplate).
func createSide(ctx context.Context, c *clients, m *nodePoolModel, cfg sideConfig, diags *diag.Diagnostics) (*types.Nodegroup, *nodeGroupModel, error) {
	cluster := m.ClusterName.ValueString()
	o := sideOwnerOf(m, cfg.Name)
	if err := ctx.Err(); err != nil {
		// The timeout or an interrupt came before the side: nothing is asked for, so nothing can
		// have been made.
		return nil, nil, fmt.Errorf("the apply ended before it was asked for: %w", err)
	}
	ltID, ltVersion, created, err := createLaunchTemplate(ctx, c.ec2, o, cfg, c.poll)
	if isNotOwned(err) {
		return nil, nil, err
	}
	if err != nil {
		err = fmt.Errorf("creating launch template %s: %w", o.templateName(), err)
		if ltID != "" {
			// Made all the same (its answer lost, or made with warnings and not deleted again): the
			// side's, recorded.
			leftover := templateOnly(cfg.Name, cfg.CapacityType, ltID, ltVersion)
			return nil, &leftover, err
		}
		return nil, nil, err
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
		UpdateConfig:   updateConfig(m.UpdateConfig, cfg.Reservation != nil),
	}
	// No version: EKS creates node groups at the cluster's, the only one it takes (applyChecks
	// refused a pool pinned to another).
	if cfg.CreateRelease != "" {
		in.ReleaseVersion = aws.String(cfg.CreateRelease)
	}
	if err := ctx.Err(); err != nil {
		// The timeout or an interrupt came between the template and the node group: no
		// CreateNodegroup is sent, so there is no node group to look for.
		leftover, err := dropLaunchTemplate(ctx, c, o, cfg, ltID, ltVersion, created, fmt.Errorf("the apply ended before the node group was asked for: %w", err))
		return nil, leftover, err
	}
	var tries attempts
	out, err := c.eks.CreateNodegroup(ctx, in, tries.eksOption)
	if err = tries.wrap(err); err != nil {
		ng, findErr := findAfterFailedCreate(ctx, err, c.poll, func(ctx context.Context) (*types.Nodegroup, error) {
			return findOwnedNodegroup(ctx, c, o, "")
		})
		switch {
		case findErr == nil:
			tflog.Warn(ctx, "EKS made the node group, the answer to CreateNodegroup was lost", map[string]any{"cluster": cluster, "nodegroup": cfg.Name, "error": err.Error()})
			diags.AddWarning(fmt.Sprintf("EKS node group (%s/%s) created, its answer lost", cluster, cfg.Name),
				fmt.Sprintf("CreateNodegroup failed (%v), but EKS had made %s: gpufleet found it by its %s tag. State records it with its launch template %s, so that it is not orphaned, and the next apply manages it as the pool's.",
					err, cfg.Name, tagOwner, ltID))
			return ng, nil, nil
		case !isNotFound(findErr) && !isNotOwned(findErr):
			leftover := templateOnly(cfg.Name, cfg.CapacityType, ltID, ltVersion)
			return nil, &leftover, fmt.Errorf("%w (and looking for whether EKS made %s all the same failed: %w; state records its launch template %s with the pool's owner id, so that the next refresh finds the node group if EKS made it)",
				err, cfg.Name, findErr, ltID)
		}
		leftover, err := dropLaunchTemplate(ctx, c, o, cfg, ltID, ltVersion, created, err)
		return nil, leftover, err
	}
	tflog.Info(ctx, "created EKS node group", map[string]any{"cluster": cluster, "nodegroup": cfg.Name, "capacity_type": cfg.CapacityType})
	return out.Nodegroup, nil, nil
}

// dropLaunchTemplate ends a side whose node group was not made (err says why): a launch template
// this call created is deleted again, and err comes back; a template the side had already, or one
// whose deletion fails, comes back as the side's state entry.
func dropLaunchTemplate(ctx context.Context, c *clients, o sideOwner, cfg sideConfig, ltID, ltVersion string, created bool, err error) (*nodeGroupModel, error) {
	leftover := templateOnly(cfg.Name, cfg.CapacityType, ltID, ltVersion)
	if !created {
		return &leftover, err
	}
	if cleanupErr := deleteOwnedLaunchTemplate(context.WithoutCancel(ctx), c.ec2, o, ltID); cleanupErr != nil {
		return &leftover, fmt.Errorf("%w (and deleting its launch template %s: %w; state records the template, so the next apply reuses it and destroy deletes it)", err, ltID, cleanupErr)
	}
	return nil, err
}

// createSideReported is createSide for Create and Update: the error goes to diags, a launch template
// left without its node group to leftovers; nil when the node group was not created.
func createSideReported(ctx context.Context, c *clients, m *nodePoolModel, cfg sideConfig, leftovers *[]nodeGroupModel, diags *diag.Diagnostics) *types.Nodegroup {
	ng, leftover, err := createSide(ctx, c, m, cfg, diags)
	if leftover != nil {
		*leftovers = append(*leftovers, *leftover)
	}
	if err != nil {
		diags.AddError(fmt.Sprintf("creating EKS node group (%s/%s)", m.ClusterName.ValueString(), cfg.Name), err.Error())
		return nil
	}
	return ng
}

// createdSides are the state entries of a create, one a side as the plan shows them: the node group
// where it exists, else what the side was to be, with no ARN and not in sync, and the launch
// template that was left of it, if any.
func createdSides(sides []sideConfig, existing []*types.Nodegroup, leftovers []nodeGroupModel) []nodeGroupModel {
	out := make([]nodeGroupModel, 0, len(sides))
	for _, cfg := range sides {
		if i := slices.IndexFunc(existing, func(ng *types.Nodegroup) bool { return aws.ToString(ng.NodegroupName) == cfg.Name }); i >= 0 {
			out = append(out, nodeGroupFrom(existing[i]))
			continue
		}
		entry := templateOnly(cfg.Name, cfg.CapacityType, "", "")
		if i := slices.IndexFunc(leftovers, func(l nodeGroupModel) bool { return l.Name.ValueString() == cfg.Name }); i >= 0 {
			entry = leftovers[i]
		}
		entry.LaunchTemplateID, entry.LaunchTemplateVersion = poolschema.NullableString(entry.LaunchTemplateID.ValueString()), poolschema.NullableString(entry.LaunchTemplateVersion.ValueString())
		entry.MinSize, entry.MaxSize, entry.DesiredSize = fwtypes.Int64Value(int64(cfg.Sizes.Min)), fwtypes.Int64Value(int64(cfg.Sizes.Max)), fwtypes.Int64Value(int64(cfg.Sizes.Desired))
		out = append(out, entry)
	}
	return out
}

// sideOutcome is how waiting for a node group being created ended: its latest description, and
// the error the wait ended with (nil once ACTIVE).
type sideOutcome struct {
	ng  *types.Nodegroup
	err error
}

// waitSides waits for each node group and returns the latest description of every one that exists,
// failed ones included. Each is waited for in turn: EKS creates them side by side, so a wait that
// ran out of time leaves the next one a last look (waitNodegroupActive describes it once more).
func waitSides(ctx context.Context, c *clients, cluster string, ngs []*types.Nodegroup, timeout time.Duration) []sideOutcome {
	var out []sideOutcome
	for _, ng := range ngs {
		got, err := waitNodegroupActive(ctx, c.eks, cluster, aws.ToString(ng.NodegroupName), timeout, c.poll)
		if got == nil {
			got = ng
		}
		out = append(out, sideOutcome{ng: got, err: err})
	}
	return out
}

// waitSidesActive is waitSides for Update, where every failure is an error: terraform does not
// taint a pool whose update fails, state records the failed node group, and the next apply
// replaces only it.
func waitSidesActive(ctx context.Context, c *clients, cluster string, ngs []*types.Nodegroup, timeout time.Duration, diags *diag.Diagnostics) []*types.Nodegroup {
	var out []*types.Nodegroup
	for _, o := range waitSides(ctx, c, cluster, ngs, timeout) {
		if o.err != nil {
			diags.AddError(fmt.Sprintf("waiting for EKS node group (%s/%s) to become ACTIVE", cluster, aws.ToString(o.ng.NodegroupName)), o.err.Error())
		}
		out = append(out, o.ng)
	}
	return out
}

// running reports a node group that runs what it could launch: ACTIVE, or DEGRADED (EKS API
// Reference: NodegroupStatus — it exists and serves, with health issues). Not running: one that
// failed to create, or whose creation had not ended when the create timed out.
func running(ng *types.Nodegroup) bool {
	return ng != nil && (ng.Status == types.NodegroupStatusActive || ng.Status == types.NodegroupStatusDegraded)
}

// firstRunning is the first running node group, else the first.
func firstRunning(ngs []*types.Nodegroup) *types.Nodegroup {
	if i := slices.IndexFunc(ngs, running); i >= 0 {
		return ngs[i]
	}
	return ngs[0]
}

// sideFailure is a side that a create did not bring up: ng is its node group, nil when EKS or EC2
// refused to create it.
type sideFailure struct {
	name string
	ng   *types.Nodegroup
	err  error
}

// reportCreate reports how a create went. When no node group runs or may still come to run, each
// failure is an error: the pool has nothing worth keeping, and terraform taints it. When one runs, a
// failure of another side must not cost it (audit D1: terraform taints a resource whose create fails
// with state, and the next apply would destroy the healthy node group to replace the pool), so each
// failure is a warning that names the side and its health issues, and says that the next apply
// replaces (or creates) only that side; state records the side as it is, not in sync. So too when
// none runs yet but one is still CREATING at the create timeout (GKE audit N17b): it may run by the
// next apply, which would destroy it with a tainted pool. A DEGRADED node group is running, with a
// warning, as after an update.
func reportCreate(diags *diag.Diagnostics, cluster string, outcomes []sideOutcome, failed []sideFailure) {
	var up, creating []string
	for _, o := range outcomes {
		if running(o.ng) {
			up = append(up, aws.ToString(o.ng.NodegroupName))
		}
		if o.ng.Status == types.NodegroupStatusCreating {
			creating = append(creating, aws.ToString(o.ng.NodegroupName))
		}
		if o.ng.Status == types.NodegroupStatusDegraded {
			diags.AddWarning(fmt.Sprintf("EKS node group (%s/%s) is DEGRADED", cluster, aws.ToString(o.ng.NodegroupName)), healthIssues(o.ng))
		}
	}
	kept := fmt.Sprintf("The pool is created with %s, which keeps running: terraform does not taint the pool for this. ", strings.Join(up, " and "))
	if len(up) == 0 {
		kept = fmt.Sprintf("The pool is created with %s, still creating at the create timeout and maybe running by the next apply: terraform does not taint the pool for this, so that the next apply does not destroy it. ", strings.Join(creating, " and "))
	}
	for _, f := range failed {
		if len(up) == 0 && len(creating) == 0 {
			summary := fmt.Sprintf("creating EKS node group (%s/%s)", cluster, f.name)
			if f.ng != nil {
				summary = fmt.Sprintf("waiting for EKS node group (%s/%s) to become ACTIVE", cluster, f.name)
			}
			diags.AddError(summary, f.err.Error())
			continue
		}
		switch {
		case f.ng == nil:
			diags.AddWarning(fmt.Sprintf("EKS node group (%s/%s) not created", cluster, f.name),
				fmt.Sprintf("%s: %v.\n\n%sState records %s without a node group (in_sync = false), and the next apply creates only %s.", f.name, f.err, kept, f.name, f.name))
		case f.ng.Status == types.NodegroupStatusCreateFailed:
			diags.AddWarning(fmt.Sprintf("EKS node group (%s/%s) is CREATE_FAILED", cluster, f.name),
				fmt.Sprintf("%s ended CREATE_FAILED: %s.\n\n%sState records %s with in_sync = false, and the next apply replaces only %s.", f.name, healthIssues(f.ng), kept, f.name, f.name))
		default:
			diags.AddWarning(fmt.Sprintf("EKS node group (%s/%s) not ACTIVE yet", cluster, f.name),
				fmt.Sprintf("%s is %s: %v.\n\n%sState records %s; the next refresh reads how its creation ended, and if it failed, the next apply replaces only %s.", f.name, f.ng.Status, f.err, kept, f.name, f.name))
		}
	}
}

func scalingConfig(s pool.Sizes) *types.NodegroupScalingConfig {
	return &types.NodegroupScalingConfig{MinSize: aws.Int32(int32(s.Min)), MaxSize: aws.Int32(int32(s.Max)), DesiredSize: aws.Int32(int32(s.Desired))}
}

// updateConfig is a side's NodegroupUpdateConfig; nil leaves EKS's default. A side on a capacity
// reservation or block (reserved) rolls with the MINIMAL strategy unless update_strategy says
// otherwise: the DEFAULT strategy launches new nodes first (EKS User Guide,
// managed-node-update-behavior), into a reservation that has no room for them. EKS needs
// maxUnavailable or maxUnavailablePercentage with a strategy (EKS API Reference:
// NodegroupUpdateConfig); its default is maxUnavailable 1.
func updateConfig(m *updateConfigModel, reserved bool) *types.NodegroupUpdateConfig {
	strategy := implicitStrategy(reserved)
	if m != nil && !m.UpdateStrategy.IsNull() {
		strategy = types.NodegroupUpdateStrategies(m.UpdateStrategy.ValueString())
	}
	if m == nil || (m.MaxUnavailable.IsNull() && m.MaxUnavailablePercentage.IsNull()) {
		if strategy == "" {
			return nil
		}
		return &types.NodegroupUpdateConfig{MaxUnavailable: aws.Int32(1), UpdateStrategy: strategy}
	}
	u := &types.NodegroupUpdateConfig{UpdateStrategy: strategy}
	if !m.MaxUnavailable.IsNull() {
		u.MaxUnavailable = aws.Int32(int32(m.MaxUnavailable.ValueInt64()))
	}
	if !m.MaxUnavailablePercentage.IsNull() {
		u.MaxUnavailablePercentage = aws.Int32(int32(m.MaxUnavailablePercentage.ValueInt64()))
	}
	return u
}

// implicitStrategy is the update strategy of a side whose configuration names none: MINIMAL on a
// reservation, EKS's default ("") otherwise.
func implicitStrategy(reserved bool) types.NodegroupUpdateStrategies {
	if reserved {
		return types.NodegroupUpdateStrategiesMinimal
	}
	return ""
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

func (r *NodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	poolschema.Read(ctx, req, resp, func(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) bool {
		c := r.clients(ctx, m, diags)
		if c == nil {
			return false
		}
		m.Region = fwtypes.StringValue(c.region)
		subject := fmt.Sprintf("EKS node pool (%s/%s)", m.ClusterName.ValueString(), m.Name.ValueString())
		found, drift, err := r.refresh(ctx, c, m)
		if err != nil {
			diags.AddError("reading "+subject, err.Error())
			return false
		}
		for _, d := range drift {
			diags.AddWarning(subject+" drifted", d)
		}
		return found
	})
}

// refresh overwrites m with what EKS and EC2 hold; found is false when no node group and no launch
// template of the pool exists. Only the pool's own node groups and templates are read (see
// ownership.go): a node group of a side's name that is not the pool's is left out, and reported when
// state held that side. drift explains the sides whose launch template is missing or not theirs:
// their state entry has no launch template id, which the next plan repairs. Each node group found is
// compared with what the pool's settings, as read, give it (in_sync).
func (r *NodePoolResource) refresh(ctx context.Context, c *clients, m *nodePoolModel) (bool, []string, error) {
	cluster, name := m.ClusterName.ValueString(), m.Name.ValueString()
	owner := m.owner()
	prior := map[string]nodeGroupModel{}
	for _, ng := range poolschema.ListOf[nodeGroupModel](ctx, m.NodeGroups) {
		prior[ng.Name.ValueString()] = ng
	}
	var found []*types.Nodegroup
	var entries []nodeGroupModel
	var drift []string
	var ownDefaults []string           // from the first template read
	var templateTags map[string]string // the first owned template's tags: what gpufleet wrote and owns
	versions := map[string]*ec2types.LaunchTemplateVersion{}
	ownerIDs := map[string]bool{} // import: the owner ids the pool's objects carry
	var foreign []error           // import: node groups of the sides' names that are not the pool's
	for _, suffix := range []string{pool.SuffixOnDemand, pool.SuffixSpot} {
		ngName := name + suffix
		o := owner.side(ngName)
		p, recorded := prior[ngName]
		ng, err := findOwnedNodegroup(ctx, c, o, p.ARN.ValueString())
		switch {
		case isNotOwned(err) && recorded && knownString(p.ARN):
			drift = append(drift, err.Error()+" It is no longer part of the pool's state.")
		case isNotOwned(err) && owner.anyID:
			foreign = append(foreign, err)
		}
		if isNotFound(err) || isNotOwned(err) {
			// A template recorded without its node group (a create whose cleanup failed, a node
			// group deleted outside terraform) stays in state: the next apply reuses it, and
			// destroy deletes it.
			if !recorded || !knownString(p.LaunchTemplateID) {
				continue
			}
			_, err := findOwnedLaunchTemplate(ctx, c.ec2, o, p.LaunchTemplateID.ValueString())
			switch {
			case err == nil:
				entries = append(entries, templateOnly(ngName, p.CapacityType.ValueString(), p.LaunchTemplateID.ValueString(), p.LaunchTemplateVersion.ValueString()))
			case !isNotFound(err) && !isNotOwned(err):
				return false, nil, fmt.Errorf("launch template %s of node group %s: %w", p.LaunchTemplateID.ValueString(), ngName, err)
			}
			continue
		}
		if err != nil {
			return false, nil, fmt.Errorf("node group %s: %w", ngName, err)
		}
		found = append(found, ng)
		entry := nodeGroupFrom(ng)
		lt, problem, err := launchTemplateProblem(ctx, c.ec2, o, ng)
		if err != nil {
			return false, nil, err
		}
		if owner.anyID {
			ownerIDs[o.ownerIDOf(firstNonEmpty(ng.Tags[tagOwner], ltOwnerTag(lt)))] = true
		}
		if lt != nil {
			if templateTags == nil {
				templateTags = tagMap(lt.Tags)
				ownDefaults = strings.Split(templateTags[tagOwnDefaultTags], ",")
			}
			v, err := findLaunchTemplateVersion(ctx, c.ec2, aws.ToString(ng.LaunchTemplate.Id), aws.ToString(ng.LaunchTemplate.Version))
			if err != nil && !isNotFound(err) {
				return false, nil, fmt.Errorf("launch template of node group %s: %w", ngName, err)
			}
			versions[ngName] = v
		}
		if problem != "" {
			drift = append(drift, problem)
			entry.LaunchTemplateID, entry.LaunchTemplateVersion = fwtypes.StringNull(), fwtypes.StringNull()
		}
		entries = append(entries, entry)
	}
	if len(entries) == 0 {
		if len(foreign) > 0 {
			// An import finds node groups by name and adopts none by its name alone (audit
			// eks-vs-real.md D8): say what makes one the pool's rather than "no such object".
			return false, nil, fmt.Errorf("%w\n\nTo import a node group that another tool created (aws_eks_node_group), tag it first, in that tool's configuration, with gpufleet:owner = \"<cluster_name>/<name>/<node group>\" (here %q), apply, and import again; gpufleet then replaces it, at the first apply, with a node group on a launch template of the pool's. See the migration guide", errors.Join(foreign...), owner.side(name+pool.SuffixOnDemand).legacyValue())
		}
		// No node group, but the placement group gpufleet made for them is still there (a destroy
		// that could not delete it): the pool is that, so that state keeps it and destroy retries.
		left, err := ownedPlacementGroupLeft(ctx, c.ec2, m)
		if err != nil {
			return false, nil, err
		}
		if left {
			m.NodeGroups = nodeGroupList(nil)
			return true, drift, nil
		}
		return false, drift, nil
	}
	for _, err := range foreign {
		drift = append(drift, err.Error()+" The import leaves it out of the pool.")
	}
	if owner.anyID {
		if len(ownerIDs) > 1 {
			return false, nil, fmt.Errorf("the node groups of %s/%s carry the owner tags of different pools (%s); import one pool's node groups, after deleting or renaming the other's",
				cluster, name, strings.Join(slices.Sorted(maps.Keys(ownerIDs)), ", "))
		}
		for id := range ownerIDs {
			m.OwnerID = poolschema.NullableString(id)
		}
	}
	if len(found) > 0 {
		priorReservation := m.reservation()
		if templateTags == nil {
			templateTags = found[0].Tags // no owned template: the node group's own tags
		}
		r.flatten(m, found, versions, readReservation(found, versions, priorReservation), ownDefaults, templateTags)
		spec, _ := m.spec(ctx)
		poolschema.Refresh(ctx, r.Meta, spec, &m.Model, effectiveTagsOf(found[0].Tags), poolLabels(found[0]))
		fleets, err := readFleets(ctx, c, found)
		switch {
		case isAccessDenied(err):
			// A role made for an earlier version may lack the reads of Auto Scaling groups, instances
			// and volumes: refresh does without them, and says what it cannot see; a tag change
			// needs them and fails, naming the action.
			drift = append(drift, fmt.Sprintf("%v. Until the identity terraform runs as may read them (see the permissions guide), refresh cannot tell whether the node groups' instances and volumes carry the pool's tags.", err))
			fleets = nil
		case err != nil:
			return false, nil, err
		}
		r.markInSync(ctx, m, found, versions, fleets, entries)
	}
	m.NodeGroups = nodeGroupList(entries)
	return true, drift, nil
}

// markInSync sets in_sync on the entries of the node groups found: whether each holds what the
// pool's settings, as refresh read them (from the first node group), give it. The first node group
// is compared too: what the pool's attributes cannot show (the launch template in use, tags only
// node groups carry) can be out of line on it as well.
func (r *NodePoolResource) markInSync(ctx context.Context, m *nodePoolModel, found []*types.Nodegroup, versions map[string]*ec2types.LaunchTemplateVersion,
	fleets map[string]*fleet, entries []nodeGroupModel) {
	spec, diags := m.spec(ctx)
	if diags.HasError() || len(spec.Validate()) > 0 {
		return // a pool changed outside terraform beyond what gpufleet accepts: its attributes show it
	}
	d, err := pool.Derive(spec, r.Meta.Pool)
	if err != nil {
		return
	}
	want := map[string]sideConfig{}
	for _, cfg := range sideConfigs(m.owner(), spec, d) {
		cfg.Network = m.networkOf(cfg.instanceTypes())
		want[cfg.Name] = cfg
	}
	for _, ng := range found {
		name := aws.ToString(ng.NodegroupName)
		i := slices.IndexFunc(entries, func(e nodeGroupModel) bool { return e.Name.ValueString() == name })
		cfg, ok := want[name]
		entries[i].InSync = fwtypes.BoolValue(ok && sideInSync(ng, versions[name], cfg, m.UpdateConfig) &&
			fleetInSync(ng, versions[name], fleets[name], cfg.InstanceTags))
	}
}

// sideInSync reports whether a node group holds everything cfg gives it: no failed creation, its
// capacity type, sizes, labels, taints, update config and tags, and a launch template version with
// the side's data (its tags aside: fleetInSync judges those where they matter, on the instances).
func sideInSync(ng *types.Nodegroup, v *ec2types.LaunchTemplateVersion, cfg sideConfig, uc *updateConfigModel) bool {
	return ng.Status != types.NodegroupStatusCreateFailed && string(ng.CapacityType) == cfg.CapacityType &&
		configUpdate(ng, cfg, uc) == nil && maps.Equal(ng.Tags, cfg.Tags) && !launchTemplateDiffers(v, cfg)
}

func ltOwnerTag(lt *ec2types.LaunchTemplate) string {
	if lt == nil {
		return ""
	}
	return tagMap(lt.Tags)[tagOwner]
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// effectiveTagsOf is a node group's tags less the ones only node groups carry.
func effectiveTagsOf(ngTags map[string]string) map[string]string {
	out := maps.Clone(ngTags)
	maps.DeleteFunc(out, func(k, _ string) bool { return nodegroupOnlyTag(k) })
	return out
}

func knownString(v fwtypes.String) bool {
	return !v.IsNull() && !v.IsUnknown() && v.ValueString() != ""
}

// launchTemplateProblem returns the node group's launch template if it is the side's own, or
// explains why the template cannot carry the pool's settings any more: it is gone, or it is not the
// side's own. A node group cannot switch launch templates, so the repair replaces the node group.
func launchTemplateProblem(ctx context.Context, conn *ec2.Client, o sideOwner, ng *types.Nodegroup) (*ec2types.LaunchTemplate, string, error) {
	subject := fmt.Sprintf("EKS node group (%s/%s)", o.cluster, o.nodegroup)
	if ng.LaunchTemplate == nil {
		return nil, subject + " has no launch template, so its instances cannot carry the pool's tags; the next apply replaces the node group.", nil
	}
	id := aws.ToString(ng.LaunchTemplate.Id)
	lt, err := findOwnedLaunchTemplate(ctx, conn, o, id)
	switch {
	case err == nil:
		return lt, "", nil
	case isNotFound(err):
		return nil, fmt.Sprintf("the launch template %s of %s was deleted outside terraform. A node group cannot switch launch templates, so the next apply replaces the node group, with a new launch template.", id, subject), nil
	case isNotOwned(err):
		return nil, fmt.Sprintf("%s uses a launch template gpufleet does not own: %s. The next apply replaces the node group, with a launch template of its own.", subject, err), nil
	}
	return nil, "", fmt.Errorf("reading launch template %s of %s: %w", id, subject, err)
}

// readReservation reads the reservation target from the on-demand side's launch template version;
// when that version cannot be read (the template is gone), the prior reservation stands.
func readReservation(ngs []*types.Nodegroup, versions map[string]*ec2types.LaunchTemplateVersion, prior *pool.Reservation) *pool.Reservation {
	for _, ng := range ngs {
		if ng.CapacityType == types.CapacityTypesSpot || ng.LaunchTemplate == nil {
			continue
		}
		v := versions[aws.ToString(ng.NodegroupName)]
		if v == nil {
			return prior
		}
		return reservationOf(v.LaunchTemplateData)
	}
	return nil
}

// poolLabels are a node group's node labels less the side's own capacity-type label: the labels
// every node of the pool carries.
func poolLabels(ng *types.Nodegroup) map[string]string {
	labels := maps.Clone(ng.Labels)
	delete(labels, pool.LabelCapacityType)
	return labels
}

// flatten writes what EKS reports into the model. Settings EKS does not hold (waivers, timeouts,
// whether MIG was given as a profile or an all-<profile> config) keep their prior values. The
// client is the one gpufleet tagged on what it owns (ownedTags), not a node label's.
func (r *NodePoolResource) flatten(m *nodePoolModel, ngs []*types.Nodegroup, versions map[string]*ec2types.LaunchTemplateVersion, reservation *pool.Reservation, ownDefaults []string, ownedTags map[string]string) {
	primary := ngs[0]
	m.ID = fwtypes.StringValue(poolID(m.ClusterName.ValueString(), m.Name.ValueString()))
	m.Region = fwtypes.StringValue(regionOfARN(aws.ToString(primary.NodegroupArn)))
	m.NodeRoleARN = fwtypes.StringValue(aws.ToString(primary.NodeRole))
	m.SubnetIDs = fwtypes.SetValueMust(fwtypes.StringType, poolschema.StringValues(primary.Subnets))
	instanceTypes := primary.InstanceTypes
	if v := versions[aws.ToString(primary.NodegroupName)]; len(instanceTypes) == 0 && v != nil && v.LaunchTemplateData != nil && v.LaunchTemplateData.InstanceType != "" {
		instanceTypes = []string{string(v.LaunchTemplateData.InstanceType)} // a capacity block's, in its template
	}
	m.InstanceTypes = fwtypes.ListValueMust(fwtypes.StringType, poolschema.StringValues(instanceTypes))
	if v := versions[aws.ToString(primary.NodegroupName)]; m.Network == nil && v != nil {
		m.Network = networkFromTemplate(m, v.LaunchTemplateData, instanceTypes) // import: the block as the template holds it
	}
	m.AMIType = fwtypes.StringValue(string(primary.AmiType))
	m.KubernetesVersion = fwtypes.StringValue(aws.ToString(primary.Version))
	m.ReleaseVersion = poolschema.NullableString(aws.ToString(primary.ReleaseVersion))

	labels := poolLabels(primary)
	m.Client = poolschema.ClientFrom(ownedTags, pool.TagKeysFor(catalog.AWS).Client, labels)
	m.Workload = poolschema.WorkloadFrom(labels, m.Workload)
	m.GPU = gpuFromLabels(labels, m.GPU)
	m.MIGStrategy = migStrategyFrom(primary.Tags, labels, m.MIGStrategy)
	m.Labels = poolschema.UserLabels(labels, m.Labels, func(k string) bool { return k == pool.LabelAccelerator })
	m.Taints = poolschema.UserTaints(poolTaints(primary.Taints), m.Taints)
	m.Tags = poolschema.UserTags(primary.Tags, r.Meta.Pool.DefaultTags, m.Tags, ownDefaults, isDerivedTag)
	m.Scaling = poolschema.ScalingFrom(poolschema.MapSlice(ngs, nodegroupSizes), m.Scaling)
	m.Capacity = capacityFrom(ngs, reservation, m.Capacity)
	m.UpdateConfig = updateConfigFrom(primary.UpdateConfig, m.UpdateConfig, reservation != nil && primary.CapacityType != types.CapacityTypesSpot)
	m.NodeGroups = nodeGroupList(poolschema.MapSlice(ngs, nodeGroupFrom))
}

// regionOfARN reads the region of arn:aws:eks:<region>:<account>:nodegroup/...
func regionOfARN(arn string) string {
	parts := strings.SplitN(arn, ":", 5)
	if len(parts) < 4 {
		return ""
	}
	return parts[3]
}

// migStrategyFrom reads the MIG strategy a pool was made for from its node group's autoscaler tags:
// mixed when they advertise nvidia.com/mig-* resources, single for another MIG pool. A pool without
// MIG advertises the same under both and keeps what state says (single when it says nothing).
func migStrategyFrom(tags, labels map[string]string, prior fwtypes.String) fwtypes.String {
	for k := range tags {
		if strings.HasPrefix(k, autoscalerResourcePrefix+"nvidia.com/mig-") {
			return fwtypes.StringValue(pool.MIGStrategyMixed)
		}
	}
	if labels[pool.LabelMIGConfig] != "" || !knownString(prior) {
		return fwtypes.StringValue(pool.MIGStrategySingle)
	}
	return prior
}

func gpuFromLabels(labels map[string]string, prior *gpuModel) *gpuModel {
	var g gpuModel
	if cfg := pool.MIGConfigFromLabel(labels[pool.LabelMIGConfig]); cfg != "" {
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
	if name := labels[pool.LabelDevicePlugin]; name != "" && name != pool.DevicePluginMIGMixed {
		rest, _ := strings.CutPrefix(name, "gpufleet-")
		if i := strings.LastIndex(rest, "-"); i > 0 {
			var replicas int64
			if _, err := fmt.Sscanf(rest[i+1:], "%d", &replicas); err == nil {
				g.Sharing = &poolschema.SharingModel{Strategy: fwtypes.StringValue(rest[:i]), Replicas: fwtypes.Int64Value(replicas)}
			}
		}
	}
	if prior != nil {
		g.GPUPartitioning = poolschema.PartitioningFrom(g.GPUPartitioning, &prior.GPUPartitioning)
	}
	if g.MIG == nil && g.Sharing == nil && prior == nil {
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
		// No EC2 API returns a capacity block's price: it stays what the configuration said.
		price := fwtypes.Float64Null()
		if prior != nil && prior.Reservation != nil {
			price = prior.Reservation.HourlyPriceUSD
		}
		c.Reservation = &reservationModel{ID: fwtypes.StringValue(reservation.ID), Type: fwtypes.StringValue(reservation.Type), HourlyPriceUSD: price}
	} else if prior != nil {
		c.Reservation = poolschema.KeepEmptyBlock(nil, prior.Reservation, (*reservationModel).Empty)
	}
	if !isSet && c.Reservation == nil {
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

// updateConfigFrom keeps the block, and each of its attributes, absent when the user did not set it
// and EKS reports what gpufleet sends without it: maxUnavailable 1, the side's implicit strategy
// (EKS may report the default strategy as DEFAULT or not at all).
func updateConfigFrom(u *types.NodegroupUpdateConfig, prior *updateConfigModel, reserved bool) *updateConfigModel {
	if u == nil {
		return prior
	}
	defaultMax := aws.ToInt32(u.MaxUnavailable) == 1 && u.MaxUnavailablePercentage == nil
	implicit := u.UpdateStrategy == implicitStrategy(reserved) || (!reserved && u.UpdateStrategy == types.NodegroupUpdateStrategiesDefault)
	if (prior == nil || prior.empty()) && defaultMax && implicit {
		return prior // absent, or written empty: EKS's default either way
	}
	m := &updateConfigModel{MaxUnavailable: fwtypes.Int64Null(), MaxUnavailablePercentage: fwtypes.Int64Null(), UpdateStrategy: fwtypes.StringNull()}
	maxUnset := prior != nil && prior.MaxUnavailable.IsNull() && prior.MaxUnavailablePercentage.IsNull()
	if u.MaxUnavailable != nil && (!maxUnset || !defaultMax) {
		m.MaxUnavailable = fwtypes.Int64Value(int64(*u.MaxUnavailable))
	}
	if u.MaxUnavailablePercentage != nil {
		m.MaxUnavailablePercentage = fwtypes.Int64Value(int64(*u.MaxUnavailablePercentage))
	}
	if !implicit || (prior != nil && !prior.UpdateStrategy.IsNull()) {
		m.UpdateStrategy = fwtypes.StringValue(string(u.UpdateStrategy))
	}
	return m
}

func (r *NodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	poolschema.Update(ctx, req, resp, func(ctx context.Context, plan, state *nodePoolModel, timeout time.Duration) {
		c, wanted := r.prepareApply(ctx, plan, req.Config, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		if plan.Network != nil && plan.Network.PlacementGroup.IsUnknown() {
			// Another placement group replaces the pool: an update keeps the one it has, if any.
			plan.Network.PlacementGroup = fwtypes.StringNull()
			if state.Network != nil {
				plan.Network.PlacementGroup = state.Network.PlacementGroup
			}
		}
		cluster := plan.ClusterName.ValueString()
		recorded := poolschema.ListOf[nodeGroupModel](ctx, state.NodeGroups)
		recordedBy := map[string]nodeGroupModel{}
		for _, ng := range recorded {
			recordedBy[ng.Name.ValueString()] = ng
		}
		own, side, err := preflight(ctx, c, plan, wanted, recordedBy)
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("updating EKS node group (%s/%s)", cluster, side), err.Error())
			return
		}
		creating, reservedCreating := false, false
		for _, cfg := range wanted {
			if ng := own[cfg.Name]; ng == nil || ng.Status == types.NodegroupStatusCreateFailed {
				creating = true
				reservedCreating = reservedCreating || cfg.Reservation != nil
			}
		}
		// Another capacity reservation (or one added) is checked as a new one is, before any change:
		// the on-demand node group rolls onto it.
		reservedCreating = reservedCreating || reservationMoves(plan, state) && plan.reservation() != nil
		spec, _ := plan.spec(ctx)
		if err := applyChecks(ctx, c, plan, spec, wanted, creating, reservedCreating); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("updating EKS node pool (%s/%s)", cluster, plan.Name.ValueString()), err.Error())
			return
		}
		wantedNames := map[string]bool{}
		var result []*types.Nodegroup
		var leftovers []nodeGroupModel
		create := func(cfg sideConfig) {
			if created := createSideReported(ctx, c, plan, cfg, &leftovers, &resp.Diagnostics); created != nil {
				result = append(result, waitSidesActive(ctx, c, cluster, []*types.Nodegroup{created}, timeout, &resp.Diagnostics)...)
			}
		}
		// replace deletes a node group of the side that cannot be brought to the configuration in
		// place, but not its launch template (the new node group reuses it if it is the side's), then
		// creates the side again.
		replace := func(cfg sideConfig, ng *types.Nodegroup, reason string) {
			tflog.Warn(ctx, "replacing EKS node group", map[string]any{"cluster": cluster, "nodegroup": cfg.Name, "reason": reason})
			entry := nodeGroupFrom(ng)
			entry.LaunchTemplateID = fwtypes.StringNull()
			if _, err := deleteSides(ctx, c, plan, []nodeGroupModel{entry}, timeout); err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("replacing EKS node group (%s/%s)", cluster, cfg.Name), err.Error())
				return
			}
			create(cfg)
		}

		// First what is new: a side created, or one that failed to create made again (it runs
		// nothing). A node group that failed to create cannot be updated, only deleted and created
		// again (EKS API Reference: UpdateNodegroupConfig takes ACTIVE and DEGRADED node groups).
		var fresh []sideConfig
		for _, cfg := range wanted {
			wantedNames[cfg.Name] = true
			switch ng := own[cfg.Name]; {
			case ng == nil:
				create(cfg)
			case ng.Status == types.NodegroupStatusCreateFailed:
				replace(cfg, ng, "CREATE_FAILED: "+healthIssues(ng))
			default:
				continue
			}
			fresh = append(fresh, cfg)
		}
		// Then what stays, grown or changed. A side that is to run fewer nodes (its share moving to a
		// new side of the spot mix) keeps its size, running, when a new side was refused, failed to
		// create (a spot stockout) or is not ACTIVE at the timeout: a failed apply costs no running
		// node, and the next apply shrinks it once the new side runs. (Before, it shrank first.)
		var freshDown []string
		if len(fresh) > 0 {
			if freshDown = notActive(fresh, result); len(freshDown) == 0 && resp.Diagnostics.HasError() {
				freshDown = []string{"the apply failed"}
			}
		}
		for _, cfg := range wanted {
			ng := own[cfg.Name]
			if ng == nil || ng.Status == types.NodegroupStatusCreateFailed {
				continue
			}
			if now, to := nodegroupSizes(ng).Desired, targetSizes(ng, cfg).Desired; to < now && len(freshDown) > 0 {
				resp.Diagnostics.AddError(fmt.Sprintf("keeping EKS node group (%s/%s) at its size", cluster, cfg.Name),
					fmt.Sprintf("%s runs %d nodes and was to run %d, its share moving to node groups that do not run (%s): it is kept, running and unchanged; the next apply changes it once they are ACTIVE.",
						cfg.Name, now, to, strings.Join(freshDown, ", ")))
				result = append(result, ng)
				continue
			}
			lt, problem, err := launchTemplateProblem(ctx, c.ec2, sideOwnerOf(plan, cfg.Name), ng)
			if err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("updating EKS node group (%s/%s)", cluster, cfg.Name), err.Error())
				continue
			}
			if problem != "" {
				// The node group's template is gone or not its own, and a node group cannot switch
				// templates: replace the node group. Its template, if any, is not the side's to delete.
				replace(cfg, ng, problem)
				continue
			}
			updated, err := updateSide(ctx, c, plan, ng, lt, cfg, timeout)
			if err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("updating EKS node group (%s/%s)", cluster, cfg.Name), err.Error())
			}
			result = append(result, updated)
		}
		// In the configuration's order (the new sides were made first).
		slices.SortStableFunc(result, func(a, b *types.Nodegroup) int {
			return cmp.Compare(sideIndex(wanted, a), sideIndex(wanted, b))
		})
		var gone []nodeGroupModel
		var goneNames []string
		for _, ng := range recorded {
			if !wantedNames[ng.Name.ValueString()] {
				gone = append(gone, ng)
				goneNames = append(goneNames, ng.Name.ValueString())
			}
		}
		// What goes is deleted only once what stays runs: a side swap (the spot mix moving every node
		// to the other capacity type) whose new node group is refused, fails to create (a spot
		// stockout) or is still creating when the apply times out keeps the node group it was to
		// replace, running, and the next apply deletes it once its replacement is ACTIVE (as the GKE
		// pool does: allHealthy).
		if down := notActive(wanted, result); len(gone) > 0 && (resp.Diagnostics.HasError() || len(down) > 0) {
			why := "the apply failed"
			if len(down) > 0 {
				why = "the node groups that replace it are not ACTIVE (" + strings.Join(down, ", ") + ")"
			}
			resp.Diagnostics.AddError(fmt.Sprintf("keeping EKS node groups of pool (%s/%s)", cluster, plan.Name.ValueString()),
				fmt.Sprintf("%s kept, running: %s; the next apply deletes it once they are ACTIVE.", strings.Join(goneNames, " and "), why))
			gone = nil
		}
		skipped, err := deleteSides(ctx, c, plan, gone, timeout)
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("deleting EKS node groups of pool (%s/%s)", cluster, plan.Name.ValueString()), err.Error())
		}
		addSkipped(&resp.Diagnostics, skipped)
		for _, ng := range result {
			if ng.Status == types.NodegroupStatusDegraded {
				resp.Diagnostics.AddWarning(fmt.Sprintf("EKS node group (%s/%s) is DEGRADED", cluster, aws.ToString(ng.NodegroupName)), healthIssues(ng))
			}
		}
		if resp.Diagnostics.HasError() {
			// Part of the update may have happened: record what the cloud holds now, not the plan,
			// starting from every side and template this update or the prior state knows of.
			merged := nodeGroupList(mergeSides(recorded, append(poolschema.MapSlice(result, nodeGroupFrom), leftovers...)))
			plan.NodeGroups = merged
			found, _, err := r.refresh(context.WithoutCancel(ctx), c, plan)
			switch {
			case err != nil:
				// The read-back failed: state is the prior state (the framework's, for a failed
				// update) with every node group and launch template this update or the prior state
				// knows of. Without them, a launch template this update left without its node group
				// was in no state: the next refresh would not look for it, and destroy would orphan
				// it. One recorded that is gone is dropped by the next refresh; the prior settings
				// make the next plan apply the change again.
				kept := *state
				kept.NodeGroups = merged
				resp.Diagnostics.AddWarning("State after a failed update",
					fmt.Sprintf("could not read the node pool back (%v): state records the pool's settings as before the update, with every node group and launch template the update made or found; the next refresh reads them, and the next apply makes the change again.", err))
				resp.Diagnostics.Append(resp.State.Set(ctx, &kept)...)
			case !found:
				// None of them exists (refresh looked for each): the next refresh removes the pool.
				resp.Diagnostics.AddWarning("State after a failed update", "the node pool was read back, and none of its node groups, launch templates or placement group exists; the next refresh removes it from state, and the next apply creates it.")
			default:
				resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
			}
			return
		}
		plan.NodeGroups = nodeGroupList(poolschema.MapSlice(result, nodeGroupFrom))
		// The pool's versions are its first node group's, where the plan leaves them open; a known
		// planned value stands (the next refresh reads the node groups).
		if plan.KubernetesVersion.IsUnknown() {
			plan.KubernetesVersion = fwtypes.StringValue(aws.ToString(result[0].Version))
		}
		if plan.ReleaseVersion.IsUnknown() {
			plan.ReleaseVersion = poolschema.NullableString(aws.ToString(result[0].ReleaseVersion))
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	})
}

// reservationMoves reports whether an update changes the capacity reservation the on-demand node
// group's launch template targets (another one, or one added or removed; a capacity block coming or
// going replaces the pool instead, reservationChanged).
func reservationMoves(plan, state *nodePoolModel) bool {
	return state != nil && reservationKey(plan.reservation()) != reservationKey(state.reservation())
}

// notActive names the pool's sides that are not ACTIVE after an update's creates and updates, with
// their status (a side the update could not create is missing from result): the node groups a side
// swap leaves the pool with, which must run before the ones they replace are deleted. ACTIVE only:
// a DEGRADED node group may have launched none of its nodes (EKS API Reference: Issue,
// AsgInstanceLaunchFailures).
func notActive(wanted []sideConfig, result []*types.Nodegroup) []string {
	var out []string
	for _, cfg := range wanted {
		i := slices.IndexFunc(result, func(ng *types.Nodegroup) bool { return ng != nil && aws.ToString(ng.NodegroupName) == cfg.Name })
		switch {
		case i < 0:
			out = append(out, cfg.Name+" not created")
		case result[i].Status != types.NodegroupStatusActive:
			out = append(out, fmt.Sprintf("%s %s", cfg.Name, result[i].Status))
		}
	}
	return out
}

// sideIndex is the place of a node group's side in wanted (len(wanted) for another).
func sideIndex(wanted []sideConfig, ng *types.Nodegroup) int {
	if i := slices.IndexFunc(wanted, func(cfg sideConfig) bool { return ng != nil && cfg.Name == aws.ToString(ng.NodegroupName) }); i >= 0 {
		return i
	}
	return len(wanted)
}

// mergeSides overlays newer state entries on older ones, by node group name.
func mergeSides(older, newer []nodeGroupModel) []nodeGroupModel {
	out := slices.Clone(older)
	for _, n := range newer {
		i := slices.IndexFunc(out, func(o nodeGroupModel) bool { return o.Name.Equal(n.Name) })
		if i < 0 {
			out = append(out, n)
			continue
		}
		out[i] = n
	}
	return out // refresh puts them in order
}

// addSkipped warns about node groups and launch templates left alone because they are not the
// pool's.
func addSkipped(diags *diag.Diagnostics, skipped []string) {
	for _, s := range skipped {
		diags.AddWarning("Left in place: not the pool's", s)
	}
}

// updateSide brings an existing node group to cfg: a new launch template version and Kubernetes
// version through UpdateNodegroupVersion, labels, taints, sizes and update config through
// UpdateNodegroupConfig, tags through TagResource/UntagResource. Each update is waited for.
func updateSide(ctx context.Context, c *clients, m *nodePoolModel, ng *types.Nodegroup, lt *ec2types.LaunchTemplate, cfg sideConfig, timeout time.Duration) (*types.Nodegroup, error) {
	cluster := m.ClusterName.ValueString()
	ltID, ltVersion := "", ""
	var current *ec2types.LaunchTemplateVersion
	if lt := ng.LaunchTemplate; lt != nil {
		ltID, ltVersion = aws.ToString(lt.Id), aws.ToString(lt.Version)
		var err error
		if current, err = findLaunchTemplateVersion(ctx, c.ec2, ltID, ltVersion); err != nil && !isNotFound(err) {
			return ng, fmt.Errorf("reading launch template %s: %w", ltID, err)
		}
	}
	version, release, err := sideVersions(ng, cfg)
	if err != nil {
		return ng, err
	}
	// A new template version only for what cannot reach the nodes otherwise, or when the nodes roll
	// anyway: then it brings the template's tags up to date too. A tag change alone rolls nothing
	// (fleet.go).
	versionRolls := version != aws.ToString(ng.Version) || (release != "" && release != aws.ToString(ng.ReleaseVersion))
	newTemplate := ltID != "" && (launchTemplateDiffers(current, cfg) || (versionRolls && templateTagsDiffer(current, cfg)))
	rolls := newTemplate || versionRolls
	if sc := ng.ScalingConfig; rolls && ng.CapacityType == types.CapacityTypesCapacityBlock && sc != nil && aws.ToInt32(sc.DesiredSize) > 0 {
		// EKS User Guide, capacity-blocks-mng: "When upgrading managed node groups with Capacity
		// Blocks, make sure that the desired size of the node group is set to 0."
		return ng, fmt.Errorf("this change rolls the node group's nodes (a new launch template version, Kubernetes version or AMI release), and EKS updates a node group on a capacity block only at desired size 0; it runs %d nodes. Apply the change when the block's work is done and the node group is at 0", aws.ToInt32(sc.DesiredSize))
	}
	if err := syncLaunchTemplateTags(ctx, c.ec2, lt, sideOwnerOf(m, cfg.Name).templateTags(cfg)); err != nil {
		return ng, err
	}
	// The Auto Scaling group first: every instance launched from here on, a roll's included, gets
	// the pool's tags. Without the reads (a role made for an earlier version) an update that changes
	// no tag goes on, as refresh does; a tag change needs them.
	tagChange := !maps.Equal(effectiveTagsOf(ng.Tags), cfg.InstanceTags)
	f, err := readFleet(ctx, c, ng)
	switch {
	case isAccessDenied(err) && !tagChange:
		f = nil
	case err != nil:
		return ng, err
	}
	managed := managedTags(ng, current, cfg.InstanceTags)
	if d := driftOf(f, managed, cfg.InstanceTags, templateInstanceTags(current)); len(d.groupPut) > 0 || len(d.groupDelete) > 0 {
		if err := syncGroupTags(ctx, c, f, d); err != nil {
			return ng, err
		}
	}
	if newTemplate {
		if ltVersion, err = createLaunchTemplateVersion(ctx, c.ec2, ltID, cfg); err != nil {
			return ng, fmt.Errorf("creating a version of launch template %s: %w", ltID, err)
		}
	}
	if rolls {
		// Always with the version and release the node group is to run: without them EKS moves it
		// to the cluster's version and the latest release (EKS API Reference, UpdateNodegroupVersion),
		// so a launch template change would also upgrade a pinned pool and its AMI.
		in := &eks.UpdateNodegroupVersionInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(cfg.Name), Version: aws.String(version)}
		if release != "" {
			in.ReleaseVersion = aws.String(release)
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
	// Then what runs: the instances and volumes the group has now (after a roll, the new ones).
	if f != nil {
		if f, err = readFleet(ctx, c, ng); err != nil {
			return ng, err
		}
	}
	if err := syncResourceTags(ctx, c, driftOf(f, managed, cfg.InstanceTags, cfg.InstanceTags), cfg.InstanceTags); err != nil {
		return ng, err
	}
	// The node group's own tags last: they record the pool's, so a change that failed before here is
	// planned again.
	if err := updateTags(ctx, c.eks, aws.ToString(ng.NodegroupArn), ng.Tags, cfg.Tags); err != nil {
		return ng, err
	}
	// Each update was waited for until Successful, as terraform-provider-aws does
	// (waitNodegroupUpdateSuccessful); waiting for ACTIVE as well would wait out the timeout on a node
	// group that is DEGRADED for a reason of its own. The caller reports a DEGRADED node group.
	updated, err := findNodegroup(ctx, c.eks, cluster, cfg.Name)
	if err != nil {
		return ng, err
	}
	return updated, nil
}

// sideVersions are the Kubernetes version and AMI release a node group is to run: the configured
// version, else its own (a pool following the cluster never moves a node group, and never back);
// the configured release where it is of that version, else its own while the version stays ("":
// the latest of a new version).
func sideVersions(ng *types.Nodegroup, cfg sideConfig) (version, release string, err error) {
	version = cfg.PinnedVersion
	if version == "" {
		version = aws.ToString(ng.Version)
	}
	if want, ok1 := k8sMinor(version); ok1 {
		if have, ok2 := k8sMinor(aws.ToString(ng.Version)); ok2 && want < have {
			return "", "", fmt.Errorf("node group runs Kubernetes %s, and EKS cannot roll it back to %s", aws.ToString(ng.Version), version)
		}
	}
	switch {
	case cfg.PinnedRelease != "":
		// The plan refused a release of another version (releaseProblem); never drop it silently.
		if p := releaseProblem(string(ng.AmiType), cfg.PinnedRelease, version); p != nil {
			return "", "", errors.New(p.Detail)
		}
		release = cfg.PinnedRelease
	case version == aws.ToString(ng.Version):
		release = aws.ToString(ng.ReleaseVersion)
	}
	return version, release, nil
}

// targetSizes are the sizes an update gives the node group: the side's, with the desired size it
// runs now where the autoscaler owns it (moved into the new limits).
func targetSizes(ng *types.Nodegroup, cfg sideConfig) pool.Sizes {
	sizes := cfg.Sizes
	if cfg.AutoscalerOwnsSize {
		sizes.Desired = poolschema.KeptDesired(nodegroupSizes(ng).Desired, sizes)
	}
	return sizes
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
	current, sizes := nodegroupSizes(ng), targetSizes(ng, cfg)
	if ng.ScalingConfig == nil || current != sizes {
		in.ScalingConfig, changed = scalingConfig(sizes), true
	}
	want := updateConfig(uc, cfg.Reservation != nil)
	if ng.UpdateConfig != nil && ng.UpdateConfig.UpdateStrategy == types.NodegroupUpdateStrategiesMinimal && (want == nil || want.UpdateStrategy == "") {
		// MINIMAL that the configuration no longer gives the node group (its reservation removed, or
		// update_strategy unset): EKS's default again, or refresh would find MINIMAL for ever.
		if want == nil {
			want = &types.NodegroupUpdateConfig{MaxUnavailable: aws.Int32(1)}
		}
		want.UpdateStrategy = types.NodegroupUpdateStrategiesDefault
	}
	if want != nil && (ng.UpdateConfig == nil ||
		aws.ToInt32(want.MaxUnavailable) != aws.ToInt32(ng.UpdateConfig.MaxUnavailable) ||
		aws.ToInt32(want.MaxUnavailablePercentage) != aws.ToInt32(ng.UpdateConfig.MaxUnavailablePercentage) ||
		(want.UpdateStrategy != "" && want.UpdateStrategy != ng.UpdateConfig.UpdateStrategy)) {
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

// deleteSides deletes the node groups and launch templates that sides record: node groups by name,
// once each is confirmed to be the side's own, waiting until they are gone, then templates by id,
// each only once it is confirmed to be the side's own. All node group deletions start before the
// first wait, so the sides drain in parallel. What is already gone is fine; skipped explains node
// groups and templates left alone as not the side's.
func deleteSides(ctx context.Context, c *clients, m *nodePoolModel, sides []nodeGroupModel, timeout time.Duration) (skipped []string, err error) {
	cluster := m.ClusterName.ValueString()
	var errs []error
	deleting := map[string]bool{}
	keep := map[string]bool{} // sides whose template stays: their node group could not be deleted
	for _, side := range sides {
		name := side.Name.ValueString()
		if !knownString(side.ARN) {
			continue // no node group was recorded: only a launch template
		}
		ng, err := findOwnedNodegroup(ctx, c, sideOwnerOf(m, name), side.ARN.ValueString())
		switch {
		case isNotFound(err):
			continue
		case isNotOwned(err):
			skipped = append(skipped, err.Error())
			keep[name] = ng.LaunchTemplate != nil && aws.ToString(ng.LaunchTemplate.Id) == side.LaunchTemplateID.ValueString()
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			keep[name] = true
			continue
		}
		err = deleteNodegroup(ctx, c, cluster, name, timeout)
		switch {
		case isNotFound(err):
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			keep[name] = true
		default:
			deleting[name] = true
		}
	}
	for _, side := range sides {
		name := side.Name.ValueString()
		if keep[name] {
			continue // its template stays while the node group that uses it does
		}
		if deleting[name] {
			if err := waitNodegroupDeleted(ctx, c.eks, cluster, name, timeout, c.poll); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
				continue
			}
		}
		if !knownString(side.LaunchTemplateID) {
			continue
		}
		id := side.LaunchTemplateID.ValueString()
		err := deleteOwnedLaunchTemplate(ctx, c.ec2, sideOwnerOf(m, name), id)
		switch {
		case isNotOwned(err):
			skipped = append(skipped, err.Error())
		case err != nil:
			errs = append(errs, fmt.Errorf("deleting launch template %s of %s: %w", id, name, err))
		}
	}
	return skipped, errors.Join(errs...)
}

// deleteNodegroup starts the deletion of a node group. EKS refuses it while the node group is
// CREATING or UPDATING (ResourceInUseException): a pool whose create or update outlasted its timeout
// is left in state with such a node group (the create warns and keeps it, GKE audit N17b), and its
// destroy, or the apply that deletes the side, waits for the operation to end, within the timeout,
// and asks once more, rather than fail and leave the pool for another destroy.
func deleteNodegroup(ctx context.Context, c *clients, cluster, name string, timeout time.Duration) error {
	in := &eks.DeleteNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)}
	_, err := c.eks.DeleteNodegroup(ctx, in)
	if apiErrorCode(err) != "ResourceInUseException" {
		return err
	}
	if werr := waitNodegroupSettled(ctx, c.eks, cluster, name, timeout, c.poll); werr != nil {
		return fmt.Errorf("%w; waiting for it to end what it is doing: %w", err, werr)
	}
	_, err = c.eks.DeleteNodegroup(ctx, in)
	return err
}

func (r *NodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	poolschema.Delete(ctx, req, resp, func(ctx context.Context, state *nodePoolModel, timeout time.Duration) {
		c := r.clients(ctx, state, &resp.Diagnostics)
		if c == nil || resp.Diagnostics.HasError() {
			return
		}
		cluster, name := state.ClusterName.ValueString(), state.Name.ValueString()
		// What state records, and only that: Create records every node group and launch template that
		// exists, a half-created side included.
		skipped, err := deleteSides(ctx, c, state, poolschema.ListOf[nodeGroupModel](ctx, state.NodeGroups), timeout)
		addSkipped(&resp.Diagnostics, skipped)
		if err == nil {
			// The node groups are gone: the placement group gpufleet made for them goes too (one named
			// by placement_group_name is not the pool's, nor one whose owner tag is not). If that
			// fails, state keeps the pool with the group alone (refresh finds it), for the next destroy.
			if err = deleteOwnedPlacementGroup(ctx, c.ec2, state); err == nil {
				return
			}
		}
		resp.Diagnostics.AddError(fmt.Sprintf("deleting EKS node pool (%s/%s)", cluster, name), err.Error())
		// Part of the pool may be gone: state keeps what is left, as refresh finds it (a node group
		// that refused deletion, one still DELETING or DELETE_FAILED, a template left behind), so
		// that it holds what the cloud does, and the next destroy deletes the rest.
		left := *state
		found, _, err := r.refresh(context.WithoutCancel(ctx), c, &left)
		switch {
		case err != nil:
			resp.Diagnostics.AddWarning("State after a failed destroy", fmt.Sprintf("could not read the node pool back (%v); state keeps it as it was, and the next refresh reads it", err))
		case !found:
			resp.State.RemoveResource(ctx)
		default:
			resp.Diagnostics.Append(resp.State.Set(ctx, &left)...)
		}
	})
}
