// Package gke implements gpufleet_gke_node_pool: the GKE-specific schema, its translation to and from
// pool.Spec through the shared pool layer, and the GKE and Compute Engine calls that make a pool real.
package gke

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	compute "google.golang.org/api/compute/v1"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/endpoint"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// ResourceType is the resource's type name.
const ResourceType = "gpufleet_gke_node_pool"

// maxEtagAttempts bounds the UpdateNodePool requests rebuilt after etag conflicts.
const maxEtagAttempts = 5

var (
	_ resource.Resource                = &NodePoolResource{}
	_ resource.ResourceWithConfigure   = &NodePoolResource{}
	_ resource.ResourceWithModifyPlan  = &NodePoolResource{}
	_ resource.ResourceWithImportState = &NodePoolResource{}
)

// NodePoolResource is gpufleet_gke_node_pool.
type NodePoolResource struct {
	poolschema.Resource
}

// NewNodePoolResource is the resource factory.
func NewNodePoolResource() resource.Resource { return &NodePoolResource{} }

func (r *NodePoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_gke_node_pool"
}

func poolID(m *nodePoolModel) string {
	return strings.Join([]string{m.Project.ValueString(), m.Location.ValueString(), m.Cluster.ValueString(), m.Name.ValueString()}, "/")
}

func (m *nodePoolModel) cluster() clusterRef {
	return clusterRef{project: m.Project.ValueString(), location: m.Location.ValueString(), cluster: m.Cluster.ValueString()}
}

func (r *NodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ImportClusterID(ctx, ResourceType, "my-project/europe-west4/ml/infer", req, resp)
}

// ModifyPlan validates the pool, fills every derived attribute so that the plan shows it, and runs
// the policy bundle on the pool, through the shared pool layer. It never calls a cloud.
func (r *NodePoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	plan, state, unchanged := poolschema.PlanOf[nodePoolModel](ctx, &r.Resource, req, resp)
	if plan == nil {
		return
	}
	if !PlanProject(&plan.Project, state != nil, func() types.String { return state.Project }, r.Meta, "the pool", &resp.Diagnostics) {
		return
	}
	if m := r.Meta; m != nil && m.GCPSettings.Insecure && !endpoint.IsLoopback(m.GCPSettings.ComputeEndpoint) {
		// The provider's own check allows gcp.insecure without compute_endpoint (a ComputeClass
		// needs no Compute Engine); a node pool reads its instance group sizes there.
		resp.Diagnostics.AddError("Insecure connection without a loopback Compute Engine endpoint",
			"gcp.insecure talks to Google APIs in plaintext and without credentials, so a gpufleet_gke_node_pool needs the provider's gcp.compute_endpoint on this machine too "+
				"(127.0.0.1, ::1 or localhost): the node pools' instance group sizes are read there. Set it, or turn gcp.insecure off.")
		return
	}
	plan.Region = types.StringUnknown()
	if !plan.Location.IsUnknown() {
		plan.Region = types.StringValue(regionOf(plan.Location.ValueString()))
	}
	// Unset node_locations are unknown in the plan only because GKE fills in the cluster's zones:
	// the pool is judged on its region then, as it is with any zones of the region.
	forSpec := *plan
	if plan.NodeLocations.IsUnknown() {
		var configured types.Set
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("node_locations"), &configured)...)
		if configured.IsNull() {
			forSpec.NodeLocations = types.SetNull(types.StringType)
		}
	}
	spec, diags := forSpec.spec(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state != nil {
		// A pool keeps its owner id; a replacement is planned as a create, with no state, and gets a
		// new one. Node pools that need a repair make a plan even when nothing else changes.
		plan.OwnerID = state.OwnerID
		unchanged = unchanged && !sidesNeedRepair(ctx, state.NodePools, spec)
	}
	addLocationProblems(&resp.Diagnostics, plan, spec)
	addAcceleratorZoneProblem(&resp.Diagnostics, &forSpec, spec)
	addUpgradeSettingsProblems(&resp.Diagnostics, plan.UpgradeSettings, spec)
	planNetwork(&resp.Diagnostics, plan, spec)
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.Project.IsUnknown() && !plan.Location.IsUnknown() && !plan.Cluster.IsUnknown() && !plan.Name.IsUnknown() {
		plan.ID = types.StringValue(poolID(plan))
	}
	derived, ok := poolschema.Plan(ctx, r.Meta, spec, &plan.Model, unchanged, planCheck, &resp.Diagnostics)
	if !ok {
		return
	}
	if forSpec.NodeLocations.IsNull() && plan.NodeLocations.IsUnknown() {
		plan.MarkDocumentUnknown("zones")
	}
	if derived != nil && derived.CostUnknown {
		// The cost depends on the cluster's zones, read at apply (pool.Spec.StartSizeKnown).
		plan.MarkDocumentUnknown("cost")
	}
	if state != nil && !unchanged && state.OwnerID.IsNull() {
		plan.OwnerID = types.StringUnknown() // a pool made before owner ids gets one (ownership.go)
	}
	switch {
	case derived == nil:
		plan.NodePools = types.ListUnknown(types.ObjectType{AttrTypes: nodePoolSideAttrTypes})
	case !unchanged:
		var replaced []string
		if state != nil {
			replaced = replacedSides(ctx, spec, state)
		}
		blueGreen := plan.UpgradeSettings != nil && (plan.UpgradeSettings.Strategy.IsUnknown() || plan.UpgradeSettings.Strategy.ValueString() == strategyBlueGreen)
		plan.NodePools = plannedNodePools(ctx, spec, *derived, state, state != nil && plan.NodeLocations.Equal(state.NodeLocations), blueGreen, replaced)
		if state != nil {
			requiresReplace := replacedBy(ctx, spec, *derived, state)
			resp.RequiresReplace = append(resp.RequiresReplace, requiresReplace...)
			addRepairWarnings(ctx, &resp.Diagnostics, state.NodePools, derived.Sides)
			if len(requiresReplace) == 0 {
				addReplacedSideWarning(&resp.Diagnostics, replaced)
				addRolloutWarning(ctx, &resp.Diagnostics, spec, plan, state)
			}
			// A version GKE picks (kubernetes_version unset) is the oldest the node pools run: a node
			// pool that the apply creates or deletes may change it (createSide).
			var configured types.String
			resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("kubernetes_version"), &configured)...)
			if configured.IsNull() && (len(replaced) > 0 || sidesChange(ctx, state.NodePools, derived.Sides)) {
				plan.KubernetesVersion = types.StringUnknown()
			}
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// replacedBy lists what forces a new pool: GKE cannot change a node pool's GPUs (accelerator type
// or count) or its MIG partition size in place (magic-modules PR #18493, tested against GKE: type,
// count and gpu_partition_size "intentionally keep ForceNew"; terraform-provider-google,
// node_config.go), and gpufleet cannot tell that an update without GPU sharing removes it (an
// empty accelerators list "is a no-op (not a removal)", the same PR; audit N15): removing
// gpu.sharing replaces the pool rather than send an update GKE may ignore. The driver and a change
// of sharing settings are made in place (updateGroups).
func replacedBy(ctx context.Context, s pool.Spec, d pool.Derived, state *nodePoolModel) path.Paths {
	prior, diags := state.spec(ctx)
	if diags.HasError() {
		return nil
	}
	var out path.Paths
	if priorNode, problem, known := prior.NodeType(); problem == nil && known &&
		(priorNode.Accelerator != d.Node.Accelerator || priorNode.GPUCount != d.Node.GPUCount) {
		at := path.Root("machine_type")
		if s.GPU.Type != prior.GPU.Type {
			at = path.Root("gpu").AtName("type")
		} else if s.GPU.Count != prior.GPU.Count {
			at = path.Root("gpu").AtName("count")
		}
		out = append(out, at)
	}
	if s.Known(pool.P("gpu", "mig")) && partitionSize(prior) != partitionSize(s) {
		out = append(out, path.Root("gpu").AtName("mig"))
	}
	if s.Known(pool.P("gpu", "sharing")) && prior.GPU.Sharing != nil && s.GPU.Sharing == nil {
		out = append(out, path.Root("gpu").AtName("sharing"))
	}
	return out
}

// partitionSize is the MIG partition size (gpu_partition_size) of a pool's GPUs, "" for none.
func partitionSize(s pool.Spec) string {
	if m := s.GPU.MIG; m != nil {
		return strings.TrimPrefix(m.ConfigName(), "all-")
	}
	return ""
}

// replacedSides are the node pools of state that the apply deletes and creates again because
// their reservation changes (affinityChanged): the on-demand node pool, when the reservation
// block is another than state's.
func replacedSides(ctx context.Context, s pool.Spec, state *nodePoolModel) []string {
	prior, diags := state.spec(ctx)
	if diags.HasError() || !s.Known(pool.P("capacity", "reservation")) {
		return nil
	}
	if !reservationReplaces(prior.Capacity.Reservation, s.Capacity.Reservation) {
		return nil
	}
	od := s.Name + pool.SuffixOnDemand
	for _, np := range poolschema.ListOf[nodePoolSideModel](ctx, state.NodePools) {
		if np.Name.ValueString() == od {
			return []string{od}
		}
	}
	return nil
}

// addReplacedSideWarning says in the plan which node pools the apply deletes and creates again.
func addReplacedSideWarning(diags *diag.Diagnostics, replaced []string) {
	if len(replaced) == 0 {
		return
	}
	diags.AddWarning("The apply replaces a node pool",
		fmt.Sprintf("Node pool %s consumes another reservation after this apply: GKE cannot change a node pool's reservation affinity, so the apply deletes it and creates it again under its name, and its nodes are replaced (the node pool's capacity is gone until the new one runs). The pool's spot node pool, if any, keeps running.", strings.Join(replaced, " and ")))
}

// addRolloutWarning says in the plan how many times the apply recreates the nodes: each change of
// machine type, GPU driver or sharing, and Kubernetes version is a rollout of its own (updateGroups),
// with the pool's upgrade strategy.
func addRolloutWarning(ctx context.Context, diags *diag.Diagnostics, s pool.Spec, plan, state *nodePoolModel) {
	prior, priorDiags := state.spec(ctx)
	if priorDiags.HasError() {
		return
	}
	var rollouts []string
	if s.Known(pool.P("machine_type")) && s.MachineType != prior.MachineType {
		rollouts = append(rollouts, "machine type")
	}
	if s.Known(pool.P("gpu")) && (driverVersion(s.GPU.DriverVersion) != driverVersion(prior.GPU.DriverVersion) ||
		(s.GPU.Sharing == nil) != (prior.GPU.Sharing == nil) || s.GPU.Sharing != nil && *s.GPU.Sharing != *prior.GPU.Sharing) {
		rollouts = append(rollouts, "GPU driver or sharing")
	}
	if v, was := plan.KubernetesVersion.ValueString(), state.KubernetesVersion.ValueString(); !plan.KubernetesVersion.IsUnknown() && v != "" && was != "" && !versionAtLeast(was, v) {
		rollouts = append(rollouts, "Kubernetes version")
	}
	if len(rollouts) > 1 {
		diags.AddWarning("The apply recreates the nodes more than once",
			fmt.Sprintf("This plan changes the %s: GKE recreates every node of the pool's node pools once for each (one update call per change, as gcloud and terraform-provider-google send them), %d times in all, with the upgrade_settings strategy. Apply the changes together only if that is acceptable; there is no single GKE call that makes them at once.", strings.Join(rollouts, ", "), len(rollouts)))
	}
}

// plannedNodePools shows the node pools the apply will leave: names, spot and limits are known.
// The size of a new node pool is what GKE creates: an enforced desired size, or min_size rounded
// up to the same number of nodes in every zone — unknown while the zones are (a pool without
// node_locations, which takes its cluster's at apply). A size the autoscaler owns stays what it
// is, moved into new limits, and is unknown when the zones change (GKE sizes new zones itself).
// Status is unknown, and so are the instance groups of new node pools (an ERROR one the apply
// creates again is new, as is one whose reservation changes: replaced), of node pools whose zones
// change, and of a pool with the blue-green upgrade strategy (blueGreen): a change that recreates
// the nodes moves them to new ("green") instance groups, and GKE may start such an upgrade itself
// between the plan and the apply (cloudsim's mutatePool, SetBlueGreenPhase). in_sync is true after
// an update (which fails when a node pool ends otherwise), unknown for a new pool: a create that
// leaves a side in error beside a running one succeeds with a warning, in_sync false (Create).
func plannedNodePools(ctx context.Context, s pool.Spec, d pool.Derived, state *nodePoolModel, sameZones, blueGreen bool, replaced []string) types.List {
	prior := map[string]nodePoolSideModel{}
	if state != nil {
		for _, np := range poolschema.ListOf[nodePoolSideModel](ctx, state.NodePools) {
			if st := np.Status.ValueString(); st != containerpb.NodePool_ERROR.String() && st != statusNotCreated && !slices.Contains(replaced, np.Name.ValueString()) {
				prior[np.Name.ValueString()] = np
			}
		}
	}
	var out []nodePoolSideModel
	for i, side := range d.Sides {
		np := nodePoolSideModel{
			Name:              types.StringValue(side.Name),
			CapacityType:      types.StringValue(side.CapacityType),
			Spot:              types.BoolValue(side.Spot()),
			MinSize:           types.Int64Value(int64(side.Sizes.Min)),
			MaxSize:           types.Int64Value(int64(side.Sizes.Max)),
			DesiredSize:       types.Int64Value(int64(side.Sizes.Desired)),
			Status:            types.StringUnknown(),
			InstanceGroupURLs: types.ListUnknown(types.StringType),
			InSync:            types.BoolValue(true),
		}
		if state == nil {
			np.InSync = types.BoolUnknown()
		}
		// A node pool the cluster autoscaler sizes, created before another: once it runs, the
		// autoscaler may resize it while the other is created (pending GPU pods are why the pool is
		// made); a size fixed in the plan would make Terraform fail the create as inconsistent and
		// taint the pool, and the next apply would delete the node pools that run. The last one
		// created is read back as soon as it runs.
		createdFirst := state == nil && i < len(d.Sides)-1
		if s.AutoscalerOwnsSize && (createdFirst || len(s.Zones) == 0 && side.Sizes.Desired > 0) {
			np.DesiredSize = types.Int64Unknown()
		}
		if p, ok := prior[side.Name]; ok {
			switch {
			case s.AutoscalerOwnsSize && sameZones:
				np.DesiredSize = types.Int64Value(int64(pool.MoveIntoLimits(int(p.DesiredSize.ValueInt64()), side.Sizes, len(s.Zones))))
			case s.AutoscalerOwnsSize:
				np.DesiredSize = types.Int64Unknown()
			}
			if sameZones && !blueGreen {
				np.InstanceGroupURLs = p.InstanceGroupURLs
			}
		}
		out = append(out, np)
	}
	return nodePoolList(out)
}

func nodePoolList(nps []nodePoolSideModel) types.List {
	elems := make([]attr.Value, len(nps))
	for i, np := range nps {
		elems[i] = types.ObjectValueMust(nodePoolSideAttrTypes, map[string]attr.Value{
			"name": np.Name, "capacity_type": np.CapacityType, "spot": np.Spot, "min_size": np.MinSize, "max_size": np.MaxSize,
			"desired_size": np.DesiredSize, "status": np.Status, "instance_group_urls": np.InstanceGroupURLs, "in_sync": np.InSync,
		})
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: nodePoolSideAttrTypes}, elems)
}

// capacityType names a node pool's capacity as the EKS pool's node groups do.
func capacityType(spot bool) string {
	if spot {
		return pool.CapacitySpot
	}
	return pool.CapacityOnDemand
}

// side is a node pool as it exists, with its current size and whether it is what the pool gives
// it (markInSync).
type side struct {
	np     *containerpb.NodePool
	size   int
	inSync bool
	limits pool.Sizes // the node pool's limits (sideLimits)
}

// sideLimits are a node pool's limits: its autoscaling's, or, with autoscaling off (an enforced
// size, audit N14), which GKE keeps none of, the ones gpufleet recorded in its labelSpotMix label;
// else (a node pool made before they were recorded) those the pool's settings as state holds them
// (prior) give the side; else the size it has.
func sideLimits(np *containerpb.NodePool, size int, prior map[string]pool.Sizes) pool.Sizes {
	if a := np.GetAutoscaling(); a.GetEnabled() {
		return pool.Sizes{Min: int(a.GetTotalMinNodeCount()), Max: int(a.GetTotalMaxNodeCount()), Desired: size}
	}
	if l, ok := parseLimits(np.GetConfig().GetResourceLabels()[labelSpotMix]); ok {
		return pool.Sizes{Min: l.Min, Max: l.Max, Desired: size}
	}
	if p, ok := prior[np.GetName()]; ok {
		return pool.Sizes{Min: p.Min, Max: p.Max, Desired: size}
	}
	return pool.Sizes{Min: size, Max: size, Desired: size}
}

func nodePoolSideFrom(s side) nodePoolSideModel {
	return nodePoolSideModel{
		Name:              types.StringValue(s.np.GetName()),
		CapacityType:      types.StringValue(capacityType(s.np.GetConfig().GetSpot())),
		Spot:              types.BoolValue(s.np.GetConfig().GetSpot()),
		MinSize:           types.Int64Value(int64(s.limits.Min)),
		MaxSize:           types.Int64Value(int64(s.limits.Max)),
		DesiredSize:       types.Int64Value(int64(s.size)),
		Status:            types.StringValue(s.np.GetStatus().String()),
		InstanceGroupURLs: types.ListValueMust(types.StringType, poolschema.StringValues(s.np.GetInstanceGroupUrls())),
		InSync:            types.BoolValue(s.inSync),
	}
}

type clients struct {
	gke     *container.ClusterManagerClient
	compute *compute.Service
	poll    time.Duration
}

func (r *NodePoolResource) clients(ctx context.Context, diags *diag.Diagnostics) *clients {
	gkeConn, ok := poolschema.Connect(ctx, &r.Resource, "GKE", (*conns.Meta).GKE, diags)
	if !ok {
		return nil
	}
	computeConn, ok := poolschema.Connect(ctx, &r.Resource, "Compute Engine", (*conns.Meta).Compute, diags)
	if !ok {
		return nil
	}
	poll := 10 * time.Second
	if endpoint.IsLoopback(r.Meta.GCPSettings.Endpoint) {
		poll = 50 * time.Millisecond // a simulator answers in milliseconds
	}
	return &clients{gke: gkeConn, compute: computeConn, poll: poll}
}

// prepareApply is what Create and Update share: the clients, the node pools the plan asks for,
// recomputed from the planned configuration, and their zones, after the checks that need the
// cloud (applyCheck), before any change.
func (r *NodePoolResource) prepareApply(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) (*clients, []sideConfig) {
	c := r.clients(ctx, diags)
	if c == nil {
		return nil, nil
	}
	spec, specDiags := m.spec(ctx)
	derived, ok := poolschema.Derive(&r.Resource, spec, specDiags, diags)
	if !ok {
		return nil, nil
	}
	cl, err := findCluster(ctx, c.gke, m.cluster())
	if err != nil {
		diags.AddError(fmt.Sprintf("reading GKE cluster (%s)", m.cluster()), err.Error())
		return nil, nil
	}
	zones := spec.Zones
	if len(zones) == 0 {
		zones = cl.zones
	}
	networks, netDiags := m.Network.networks(ctx)
	diags.Append(netDiags...)
	applyCheck(ctx, c, m.Project.ValueString(), spec, derived, cl, m.Cluster.ValueString(), zones, diags)
	addMultiNetworkingProblem(diags, networks, cl, m.Cluster.ValueString())
	if diags.HasError() {
		return nil, nil
	}
	cfgs := sideConfigs(spec, derived, zones, poolschema.OwnDefaultTags(spec.Tags, r.Meta.Pool.DefaultTags), m.OwnerID.ValueString(), m.UpgradeSettings)
	for i := range cfgs {
		cfgs[i].NodePool.NetworkConfig = nodeNetworkConfig(networks)
	}
	return c, cfgs
}

// versionConfiguredKey is the private state key that records whether kubernetes_version was
// configured: a configured version (or alias) stays in state while the nodes run it or a later
// version; an unset one reports what the nodes run.
const versionConfiguredKey = "kubernetes_version_configured"

// versionConfigured reads whether the configuration sets kubernetes_version, as private state.
func versionConfigured(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) []byte {
	var v types.String
	diags.Append(config.GetAttribute(ctx, path.Root("kubernetes_version"), &v)...)
	return []byte(strconv.FormatBool(!v.IsNull()))
}

func (r *NodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	configured := versionConfigured(ctx, req.Config, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, versionConfiguredKey, configured)...)
	poolschema.Create(ctx, req, resp, func(ctx context.Context, plan *nodePoolModel, _ time.Duration) {
		id, err := pool.NewOwnerID()
		if err != nil {
			resp.Diagnostics.AddError("creating GKE node pool", err.Error())
			return
		}
		plan.OwnerID = types.StringValue(id)
		c, cfgs := r.prepareApply(ctx, plan, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		cluster, o := plan.cluster(), plan.owner(ctx, types.ListNull(types.ObjectType{AttrTypes: nodePoolSideAttrTypes}), types.StringNull())
		// A node pool of a name the pool needs that exists already is another's (a new pool owns
		// nothing yet): an error before any change. One of a side the pool does not need is ignored.
		if _, err := ownSides(ctx, c, cluster, o, sideNames(cfgs)); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("creating GKE node pool (%s/%s)", cluster, plan.Name.ValueString()), err.Error())
			return
		}
		version := createVersion(plan, string(configured) == "true")
		var created []string
		var refused error
		var sideErrs []error
		timedOut, cutOff := false, false
		for _, cfg := range cfgs {
			if err := ctx.Err(); err != nil {
				// The create timeout: what was made stays, in state (tainted only when nothing of it
				// runs or is still provisioning).
				refused, timedOut = fmt.Errorf("%s: not created: %w", cfg.Name, err), true
				break
			}
			cerr := createSide(ctx, c, cluster, o, cfg, version)
			if cerr == nil {
				created = append(created, cfg.Name)
				continue
			}
			err := fmt.Errorf("%s: %w", cfg.Name, cerr)
			// GKE made it, in error (or it cannot be read: state will say), or it refused it.
			if np, ferr := findNodePool(context.WithoutCancel(ctx), c.gke, cluster, cfg.Name); ferr == nil && o.owns(np) || ferr != nil && !isNotFound(ferr) {
				created, sideErrs = append(created, cfg.Name), append(sideErrs, err)
				continue
			}
			if ctx.Err() != nil {
				// The create timeout or an interrupt (Ctrl-C) ended the call before GKE registered
				// the node pool: not a refusal. What was made stays, as above; the rollback would
				// delete node pools that run for a create GKE never answered.
				refused, timedOut, cutOff = fmt.Errorf("%s: not created: %w", cfg.Name, cerr), true, true
				break
			}
			refused = err
			break
		}
		planned := plan.NodePools
		if refused != nil && !timedOut && len(created) > 0 {
			// GKE refused a side: the sides this create made go again, so that nothing is left
			// half-made (the pool had nothing before); the next apply creates the pool again.
			rollback, cancel := context.WithTimeout(context.WithoutCancel(ctx), poolschema.DefaultDeleteTimeout)
			defer cancel()
			if err := deleteOwnSides(rollback, c, cluster, o, created); err != nil {
				refused = fmt.Errorf("%w; and deleting the node pools this apply created (%s) failed, state records them: %w", refused, strings.Join(created, ", "), err)
			} else {
				refused = fmt.Errorf("%w; the node pools this apply created (%s) were deleted again", refused, strings.Join(created, ", "))
			}
		}
		// State records whatever exists, even after an error, so that nothing is orphaned.
		// The create's context ended (its timeout, an interrupt): GKE may still be making node pools.
		ended := timedOut || ctx.Err() != nil
		found, warnings, readFailed := r.refreshAfterApply(ctx, c, plan, string(configured) == "true", refused == nil && len(sideErrs) == 0 || ended,
			types.ListNull(types.ObjectType{AttrTypes: nodePoolSideAttrTypes}), types.StringNull(), &resp.State, &resp.Diagnostics)
		addWarnings(&resp.Diagnostics, fmt.Sprintf("GKE node pool (%s/%s)", cluster, plan.Name.ValueString()), warnings)
		subject := fmt.Sprintf("creating GKE node pool (%s/%s)", cluster, plan.Name.ValueString())
		provisioning := provisioningSides(ctx, plan.NodePools)
		switch {
		case ended && readFailed:
			// The create timeout, and the read back failed (warned above): state records the node
			// pools as planned, untainted, for the next refresh to read.
			resp.Diagnostics.AddWarning(subject+": not done at the create timeout", errors.Join(append(sideErrs, refused)...).Error()+
				"\n\nTerraform does not taint the pool for this, so that the next apply does not delete node pools that may be running by then; the next refresh reads how their creation ended.")
		case timedOut || len(sideErrs) > 0 && len(provisioning) > 0:
			if found && (anyRunning(ctx, plan.NodePools) || len(provisioning) > 0) {
				// The create timeout, with node pools that run or are still provisioning (GKE audit
				// N17b): an error would have Terraform taint the pool, and the next apply would delete
				// node pools that may be running by then. What is missing or failed is in state for the
				// next plan to repair.
				detail := errors.Join(append(sideErrs, refused)...).Error()
				for _, np := range provisioning {
					detail += fmt.Sprintf("\n\n%s is still PROVISIONING at the create timeout.", np)
				}
				keepPlanned(ctx, req.Plan.Raw, planned, plan, &resp.State, &resp.Diagnostics)
				resp.Diagnostics.AddWarning(subject+": not done at the create timeout", detail+
					"\n\nTerraform does not taint the pool for this, so that the next apply does not delete node pools that may be running by then. State records the node pools as GKE holds them; the next refresh reads how their creation ended, and the next plan shows the repair of any that failed or were not created.")
				break
			}
			if !found && cutOff {
				// Nothing found, but the timeout or an interrupt cut a CreateNodePool off after it was
				// sent: GKE may carry it out after the look-up (the answer lost). State keeps the pool,
				// with its owner id and an entry NOT_CREATED for each node pool, so that the next
				// refresh finds by the owner label what GKE made; without state the owner id would be
				// lost, and a node pool made late would be in no state: the next apply would fail on
				// it as another's, and no destroy would delete it. The next refresh drops the pool if
				// GKE made nothing.
				if plan.ID.IsUnknown() {
					plan.ID = types.StringValue(poolID(plan))
				}
				plan.NodePools = nodePoolList(nil)
				keepPlanned(ctx, req.Plan.Raw, planned, plan, &resp.State, &resp.Diagnostics)
				resp.Diagnostics.AddWarning(subject+": not done at the create timeout", errors.Join(append(sideErrs, refused)...).Error()+
					"\n\nGKE had not answered the create of the node pools when the timeout passed (or the apply was interrupted), and it may still make them. State keeps the pool and its owner id, so that the next refresh finds what GKE made by the owner label, and drops the pool if GKE made nothing; the next plan then shows what is left to create.")
				break
			}
			resp.Diagnostics.AddError(subject, errors.Join(append(sideErrs, refused)...).Error())
		case refused != nil:
			resp.Diagnostics.AddError(subject, errors.Join(append(sideErrs, refused)...).Error())
		case len(sideErrs) > 0 && found && anyRunning(ctx, plan.NodePools):
			// Terraform taints a pool whose create fails, and the next apply would delete it with
			// the node pool that runs: the create succeeds, the failed side is in state with
			// in_sync false, and the next plan repairs it.
			keepPlanned(ctx, req.Plan.Raw, planned, plan, &resp.State, &resp.Diagnostics)
			resp.Diagnostics.AddWarning(subject+": a node pool is not healthy",
				errors.Join(sideErrs...).Error()+"\n\nThe pool is created with its running node pools; a failed node pool is in state with in_sync = false, and the next plan shows its repair (terraform apply again once GKE has capacity, or once the caller has the permission named).")
		case len(sideErrs) > 0:
			resp.Diagnostics.AddError(subject, errors.Join(sideErrs...).Error())
		}
	})
}

// keepPlanned is the state of a create that ends with a warning while node pools are missing,
// failed or still provisioning: the plan's known values, its unknown ones as GKE holds them
// (plannedWithRead), and a NOT_CREATED entry for each planned node pool GKE does not hold
// (withNotCreated). What refresh derives from node pools that are missing or not yet sized (the
// pool's sizes, costs and policy document; the desired size of one whose instance groups GKE has
// not listed yet) differs from what the plan gives the pool, and Terraform would report an
// inconsistent result and taint the pool: the next apply would delete the node pools that run.
// The next refresh reads the pool as it is.
func keepPlanned(ctx context.Context, plannedRaw tftypes.Value, planned types.List, m *nodePoolModel, state *tfsdk.State, diags *diag.Diagnostics) {
	if withNotCreated(ctx, planned, m) {
		diags.Append(state.Set(ctx, m)...)
	}
	state.Raw = nullUnknowns(plannedWithRead(plannedRaw, state.Raw))
}

// statusNotCreated is the status state records for a node pool a create planned and did not make
// (withNotCreated); no GKE node pool has it.
const statusNotCreated = "NOT_CREATED"

// withNotCreated gives m, after a create that timed out or was interrupted, an entry for each node
// pool planned that GKE does not hold: the planned values, status NOT_CREATED, no instance groups
// and in_sync false. Terraform requires the node pools it planned in the result (else it reports
// an inconsistent result and taints the pool, and the next apply deletes the node pools that run);
// the next refresh drops the entries, and the next plan creates the node pools. It reports whether
// it added any.
func withNotCreated(ctx context.Context, planned types.List, m *nodePoolModel) bool {
	got := map[string]nodePoolSideModel{}
	for _, np := range poolschema.ListOf[nodePoolSideModel](ctx, m.NodePools) {
		got[np.Name.ValueString()] = np
	}
	var out []nodePoolSideModel
	added := false
	for _, np := range poolschema.ListOf[nodePoolSideModel](ctx, planned) {
		if g, ok := got[np.Name.ValueString()]; ok {
			out = append(out, g)
			continue
		}
		if np.DesiredSize.IsUnknown() {
			np.DesiredSize = types.Int64Value(0)
		}
		np.Status, np.InSync = types.StringValue(statusNotCreated), types.BoolValue(false)
		np.InstanceGroupURLs = types.ListValueMust(types.StringType, nil)
		out, added = append(out, np), true
	}
	if added {
		m.NodePools = nodePoolList(out)
	}
	return added
}

// plannedWithRead is the planned value with each unknown value taken from read, at the same path,
// where read holds it known.
func plannedWithRead(planned, read tftypes.Value) tftypes.Value {
	out, err := tftypes.Transform(planned, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		if got, _, err := tftypes.WalkAttributePath(read, p); err == nil {
			if rv, ok := got.(tftypes.Value); ok && rv.IsFullyKnown() && rv.Type().Equal(v.Type()) {
				return rv, nil
			}
		}
		return v, nil
	})
	if err != nil {
		return read
	}
	return out
}

// sideNames are the names of a pool's node pools.
func sideNames(cfgs []sideConfig) []string {
	return poolschema.MapSlice(cfgs, func(c sideConfig) string { return c.Name })
}

// createVersion is the version a node pool is created at: the configured one, else none, which
// GKE takes as the control plane's (createSide).
func createVersion(m *nodePoolModel, configured bool) string {
	if configured {
		return m.KubernetesVersion.ValueString()
	}
	return ""
}

// provisioningSides are the node pools of the list that GKE is still creating (PROVISIONING).
func provisioningSides(ctx context.Context, l types.List) []string {
	var out []string
	for _, np := range poolschema.ListOf[nodePoolSideModel](ctx, l) {
		if np.Status.ValueString() == containerpb.NodePool_PROVISIONING.String() {
			out = append(out, np.Name.ValueString())
		}
	}
	return out
}

// anyRunning reports whether a node pool of the list has nodes that serve.
func anyRunning(ctx context.Context, l types.List) bool {
	for _, np := range poolschema.ListOf[nodePoolSideModel](ctx, l) {
		if st, ok := containerpb.NodePool_Status_value[np.Status.ValueString()]; ok && running(containerpb.NodePool_Status(st)) {
			return true
		}
	}
	return false
}

func addWarnings(diags *diag.Diagnostics, subject string, warnings []string) {
	for _, w := range warnings {
		diags.AddWarning(subject, w)
	}
}

// refreshAfterApply writes into state what the cloud holds after an apply, with a context of its
// own (the apply's may have ended). When the pool cannot be read back although an apply made node
// pools, state records the model as the apply left it, its unknown values null, so that nothing is
// orphaned; the next refresh reads the rest. found is false when none of the pool exists.
//
// A create whose read back fails (a role without compute.instanceGroupManagers.get, a read that
// outlasts its retries) warns instead when its node pools may run (keep: GKE made them healthy, or
// the create timed out while GKE may still be making them), and readFailed says so: an error would
// have Terraform taint the pool, and the next apply would delete and create again the node pools
// that run. The next refresh reads them, or fails with the same error.
func (r *NodePoolResource) refreshAfterApply(ctx context.Context, c *clients, m *nodePoolModel, versionConfigured, keep bool, recorded types.List, recordedOwner types.String, state *tfsdk.State, diags *diag.Diagnostics) (found bool, warnings []string, readFailed bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), refreshAfterApplyTimeout)
	defer cancel()
	found, warnings, err := r.refresh(ctx, c, m, versionConfigured, recorded, recordedOwner)
	if err != nil {
		summary, detail := fmt.Sprintf("reading GKE node pool (%s/%s) back", m.cluster(), m.Name.ValueString()),
			err.Error()+"\n\nState records the pool as the apply left it; the next refresh reads it."
		if keep {
			diags.AddWarning(summary, err.Error()+"\n\nState records the node pools as planned (the pool is not tainted, so that the next apply does not replace node pools that may run). The next refresh reads them; until it can, plans fail with this error.")
		} else {
			diags.AddError(summary, detail)
		}
		if !m.ID.IsUnknown() {
			diags.Append(state.Set(ctx, m)...)
			state.Raw = nullUnknowns(state.Raw)
		}
		return true, warnings, true
	}
	if found {
		diags.Append(state.Set(ctx, m)...)
	} else {
		state.RemoveResource(ctx)
	}
	return found, warnings, false
}

// refreshAfterApplyTimeout bounds the reads after an apply.
const refreshAfterApplyTimeout = 5 * time.Minute

// nullUnknowns replaces the unknown values of v with nulls.
func nullUnknowns(v tftypes.Value) tftypes.Value {
	out, err := tftypes.Transform(v, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	if err != nil {
		return v
	}
	return out
}

func (r *NodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	configured, diags := req.Private.GetKey(ctx, versionConfiguredKey)
	resp.Diagnostics.Append(diags...)
	poolschema.Read(ctx, req, resp, func(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) bool {
		c := r.clients(ctx, diags)
		if c == nil {
			return false
		}
		// Without the record (imported, or written by an earlier version) the version counts as
		// configured: state keeps what it holds while the nodes run it or a later version.
		found, warnings, err := r.refresh(ctx, c, m, string(configured) != "false", m.NodePools, m.OwnerID)
		subject := fmt.Sprintf("GKE node pool (%s/%s)", m.cluster(), m.Name.ValueString())
		if err != nil {
			diags.AddError("reading "+subject, err.Error())
		}
		addWarnings(diags, subject, warnings)
		return found
	})
}

// refresh overwrites m with what GKE and Compute Engine hold of the pool's own node pools
// (ownership.go; recorded are the node pools of the state m comes from, null on import); found is
// false when none exists. A node pool of a side's name that is not the pool's is left out, with a
// warning when state held it. versionConfigured says that kubernetes_version is the
// configuration's (see kubernetesVersion).
func (r *NodePoolResource) refresh(ctx context.Context, c *clients, m *nodePoolModel, versionConfigured bool, recorded types.List, recordedOwner types.String) (bool, []string, error) {
	cluster, name := m.cluster(), m.Name.ValueString()
	o := m.owner(ctx, recorded, recordedOwner)
	priorLimits := map[string]pool.Sizes{}
	if prior, diags := m.spec(ctx); !diags.HasError() && prior.Known(pool.P("scaling")) && prior.Known(pool.P("capacity")) {
		for _, s := range prior.Sides() {
			priorLimits[s.Name] = s.Sizes
		}
	}
	var sides []side
	var warnings []string
	for _, suffix := range []string{pool.SuffixOnDemand, pool.SuffixSpot} {
		np, err := findNodePool(ctx, c.gke, cluster, name+suffix)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return false, warnings, fmt.Errorf("node pool %s%s: %w", name, suffix, err)
		}
		if !o.owns(np) {
			if _, held := o.recorded[np.GetName()]; held {
				warnings = append(warnings, o.notOwned(cluster, np).Error()+" It is no longer part of the pool's state.")
			}
			continue
		}
		size, err := currentSize(ctx, c.compute, np)
		if err != nil {
			return false, warnings, fmt.Errorf("node pool %s%s: %w", name, suffix, err)
		}
		sides = append(sides, side{np: np, size: size, inSync: !failed(np.GetStatus().String()), limits: sideLimits(np, size, priorLimits)})
	}
	if len(sides) == 0 {
		return false, warnings, nil
	}
	if o.legacy && slices.ContainsFunc(sides, func(s side) bool { return ownerIDOf(s.np) != o.id }) {
		// A pool made before owner ids whose first apply under them (o.id, the plan's new id) did not
		// write that id on every node pool keeps none yet: with it, the next refresh would take the
		// node pools that lack it for another's. The next apply gives it an id again.
		m.OwnerID = types.StringNull()
	}
	if o.anyID {
		id, err := importedOwnerID(cluster, name, poolschema.MapSlice(sides, func(s side) *containerpb.NodePool { return s.np }))
		if err != nil {
			return false, warnings, err
		}
		m.OwnerID = id
	}
	r.flatten(m, sides, versionConfigured)
	spec, _ := m.spec(ctx)
	poolschema.Refresh(ctx, r.Meta, spec, &m.Model, effectiveTagsOf(sides[0].np), poolLabels(sides[0].np))
	r.markInSync(ctx, m, sides)
	return true, warnings, nil
}

// markInSync sets in_sync on the node pools read: whether each holds what the pool's settings, as
// refresh read them (from the first node pool), give it (sideInSync). The first node pool is
// compared too: what the pool's attributes cannot show (a failed status, the owner label) can be
// out of line on it as well.
func (r *NodePoolResource) markInSync(ctx context.Context, m *nodePoolModel, sides []side) {
	spec, diags := m.spec(ctx)
	if !diags.HasError() && len(spec.Validate()) == 0 {
		if d, err := pool.Derive(spec, r.Meta.Pool); err == nil {
			want := map[string]sideConfig{}
			for _, cfg := range sideConfigs(spec, d, spec.Zones, poolschema.OwnDefaultTags(spec.Tags, r.Meta.Pool.DefaultTags), m.OwnerID.ValueString(), m.UpgradeSettings) {
				want[cfg.Name] = cfg
			}
			for i, s := range sides {
				cfg, ok := want[s.np.GetName()]
				sides[i].inSync = ok && sideInSync(s.np, s.size, cfg, m.KubernetesVersion.ValueString())
			}
		}
	} // else a pool changed outside terraform beyond what gpufleet accepts: its attributes show it
	m.NodePools = nodePoolList(poolschema.MapSlice(sides, nodePoolSideFrom))
}

// flatten writes what GKE reports into the model. Settings GKE does not hold (waivers, timeouts,
// whether MIG was given as a profile or an all-<profile> config) and values GKE fills in that the
// configuration left unset (the accelerator of a machine type that implies it, the default driver,
// the cluster's zones) keep their prior form, so that none of them shows as a diff.
func (r *NodePoolResource) flatten(m *nodePoolModel, sides []side, versionConfigured bool) {
	primary := sides[0].np
	cfg := primary.GetConfig()
	m.ID = types.StringValue(poolID(m))
	m.Region = types.StringValue(regionOf(m.Location.ValueString()))
	m.MachineType = types.StringValue(cfg.GetMachineType())
	m.NodeLocations = types.SetValueMust(types.StringType, poolschema.StringValues(primary.GetLocations()))
	m.KubernetesVersion = kubernetesVersion(oldestVersion(sides), m.KubernetesVersion, versionConfigured)

	labels := poolLabels(primary)
	m.Client = poolschema.ClientFrom(primary.GetConfig().GetResourceLabels(), pool.TagKeysFor(catalog.GCP).Client, labels)
	m.Workload = poolschema.WorkloadFrom(labels, m.Workload)
	m.Labels = poolschema.UserLabels(labels, m.Labels, isGKELabel)
	m.Taints = poolschema.UserTaints(poolTaints(cfg.GetTaints()), m.Taints)
	m.Tags = poolschema.UserTags(userResourceLabels(primary), r.Meta.Pool.DefaultTags, m.Tags, ownDefaultsOf(primary), isDerivedResourceLabel)
	m.GPU = gpuFrom(cfg, m.GPU)

	m.Scaling = poolschema.ScalingFrom(poolschema.MapSlice(sides, func(s side) pool.Sizes { return s.limits }), m.Scaling)
	m.Capacity = capacityFrom(sides, m.Capacity)
	rollout := sides[0].np // the on-demand node pool when there is one: its settings may differ on a reservation
	m.UpgradeSettings = upgradeSettingsFrom(rollout.GetUpgradeSettings(), m.UpgradeSettings, !rollout.GetConfig().GetSpot() && reserves(rollout))
	m.Network = networkFrom(primary, m.Network)
	m.NodePools = nodePoolList(poolschema.MapSlice(sides, nodePoolSideFrom))
}

// reserves reports whether a node pool consumes a reservation (specific or any).
func reserves(np *containerpb.NodePool) bool {
	switch np.GetConfig().GetReservationAffinity().GetConsumeReservationType() {
	case containerpb.ReservationAffinity_SPECIFIC_RESERVATION, containerpb.ReservationAffinity_ANY_RESERVATION:
		return true
	}
	return false
}

// oldestVersion is the oldest version the node pools run: what every node of the pool runs at
// least. A side created later runs the control plane's version (createSide), which is not older.
func oldestVersion(sides []side) string {
	oldest := sides[0].np.GetVersion()
	for _, s := range sides[1:] {
		if v := s.np.GetVersion(); !versionAtLeast(v, oldest) {
			oldest = v
		}
	}
	return oldest
}

// kubernetesVersion is the version state holds. A configured version stays as configured while
// the nodes run it or a later version (versionAtLeast): GKE resolves an alias ("1.31", "1.31.5") to
// an explicit version, and node auto-upgrade moves the nodes past the configured one; neither is a
// change to undo, and the plan never asks for a downgrade. An unset version reports what the nodes
// run.
func kubernetesVersion(cloud string, prior types.String, configured bool) types.String {
	if p := prior.ValueString(); configured && p != "" && versionAtLeast(cloud, p) {
		return prior
	}
	return types.StringValue(cloud)
}

// gpuFrom reads the gpu block back. What the machine type implies (its accelerator and count) and
// the default driver stay unset when they were unset before; a node pool without a driver setting
// reads as INSTALLATION_DISABLED (driverOf).
func gpuFrom(cfg *containerpb.NodeConfig, prior *gpuModel) *gpuModel {
	g := &gpuModel{Type: types.StringNull(), Count: types.Int64Null(), DriverVersion: types.StringNull()}
	if prior != nil {
		g.Type, g.Count, g.DriverVersion = prior.Type, prior.Count, prior.DriverVersion
	}
	accs := cfg.GetAccelerators()
	if len(accs) == 0 {
		return prior
	}
	acc := accs[0]
	if !g.Type.IsNull() || !impliedBy(cfg.GetMachineType(), acc.GetAcceleratorType(), int(acc.GetAcceleratorCount())) {
		g.Type = types.StringValue(acc.GetAcceleratorType())
		g.Count = types.Int64Value(acc.GetAcceleratorCount())
	}
	if !g.Count.IsNull() {
		g.Count = types.Int64Value(acc.GetAcceleratorCount())
	}
	if v := driverOf(acc); v != DriverDefault || !g.DriverVersion.IsNull() {
		g.DriverVersion = types.StringValue(v)
	}
	if size := acc.GetGpuPartitionSize(); size != "" {
		g.MIG = &poolschema.MIGModel{Profile: types.StringValue(size), Config: types.StringNull()}
		if prior != nil && prior.MIG != nil && prior.MIG.Config.ValueString() == "all-"+size {
			g.MIG = &poolschema.MIGModel{Profile: types.StringNull(), Config: prior.MIG.Config}
		}
	} else {
		g.MIG = nil
	}
	g.Sharing = nil
	if sc := acc.GetGpuSharingConfig(); sc != nil {
		strategy := pool.SharingTimeSlicing
		if sc.GetGpuSharingStrategy() == containerpb.GPUSharingConfig_MPS {
			strategy = pool.SharingMPS
		}
		g.Sharing = &poolschema.SharingModel{Strategy: types.StringValue(strategy), Replicas: types.Int64Value(sc.GetMaxSharedClientsPerGpu())}
	}
	if prior != nil {
		g.GPUPartitioning = poolschema.PartitioningFrom(g.GPUPartitioning, &prior.GPUPartitioning)
	}
	if prior == nil && g.Type.IsNull() && g.Count.IsNull() && g.DriverVersion.IsNull() && g.MIG == nil && g.Sharing == nil {
		return nil // nothing the block would say
	}
	return g
}

// impliedBy reports whether the accelerator is what the machine type brings by itself.
func impliedBy(machineType, accelerator string, count int) bool {
	n, problem, _ := (pool.Spec{Cloud: catalog.GCP, MachineType: machineType}).NodeType()
	return problem == nil && n.Accelerator == accelerator && n.GPUCount == count
}

func capacityFrom(sides []side, prior *capacityModel) *capacityModel {
	pct, base, recorded := parseSpotMix(sides[0].np.GetConfig().GetResourceLabels()[labelSpotMix])
	var priorMix *poolschema.CapacityMix
	if prior != nil {
		priorMix = &prior.CapacityMix
	}
	mix, isSet := poolschema.CapacityMixFrom(pct, base, recorded, priorMix, len(sides) == 1 && sides[0].np.GetConfig().GetSpot())
	c := &capacityModel{CapacityMix: mix}
	var reservation *pool.Reservation
	for _, s := range sides {
		if !s.np.GetConfig().GetSpot() {
			reservation = reservationOf(s.np.GetConfig().GetReservationAffinity())
		}
	}
	// GKE reports NO_RESERVATION for a pool that never asked for any; keep the block absent then,
	// or empty when the configuration wrote it empty.
	var priorReservation *reservationModel
	if prior != nil {
		priorReservation = prior.Reservation
	}
	switch {
	case reservation != nil && (reservation.Type != pool.ReservationNone || priorReservation != nil && !priorReservation.empty()):
		c.Reservation = &reservationModel{Type: types.StringValue(reservation.Type), Name: poolschema.NullableString(reservation.Name), Project: poolschema.NullableString(reservation.Project)}
	default:
		c.Reservation = poolschema.KeepEmptyBlock(nil, priorReservation, (*reservationModel).empty)
	}
	if !isSet && c.Reservation == nil {
		return nil
	}
	return c
}

func (r *NodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	configured := versionConfigured(ctx, req.Config, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, versionConfiguredKey, configured)...)
	poolschema.Update(ctx, req, resp, func(ctx context.Context, plan, state *nodePoolModel, _ time.Duration) {
		if plan.OwnerID.IsUnknown() {
			// A pool made before owner ids gets one now: its node pools, which state records, carry
			// it from this apply on (ownership.go).
			id, err := pool.NewOwnerID()
			if err != nil {
				resp.Diagnostics.AddError("updating GKE node pool", err.Error())
				return
			}
			plan.OwnerID = types.StringValue(id)
		}
		c, cfgs := r.prepareApply(ctx, plan, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		cluster, o := plan.cluster(), plan.owner(ctx, state.NodePools, state.OwnerID)
		subject := fmt.Sprintf("GKE node pool (%s/%s)", cluster, plan.Name.ValueString())
		// Before any change: the pool's own node pools, and none of another's of a name it needs.
		own, err := ownSides(ctx, c, cluster, o, sideNames(cfgs))
		if err != nil {
			resp.Diagnostics.AddError("updating "+subject, err.Error())
			return
		}
		version := createVersion(plan, string(configured) == "true")
		// Change what stays and create what comes, then check that all of it is healthy, and only
		// then delete what goes: a side that fails (refused, ERROR, RUNNING_WITH_ERROR: a stockout)
		// leaves the side it was to replace running, and state records both.
		var errs []error
		recordedStatus := map[string]string{}
		for _, np := range poolschema.ListOf[nodePoolSideModel](ctx, state.NodePools) {
			recordedStatus[np.Name.ValueString()] = np.Status.ValueString()
		}
		for _, cfg := range cfgs {
			var err error
			switch np := own[cfg.Name]; {
			case np == nil:
				err = createSide(ctx, c, cluster, o, cfg, version)
			case np.GetStatus() == containerpb.NodePool_ERROR && !slices.Contains([]string{"", containerpb.NodePool_ERROR.String(), statusNotCreated}, recordedStatus[cfg.Name]) && !affinityChanged(np, cfg):
				// It turned ERROR after the plan, which showed no replacement: left as it is, for the
				// next plan to show (turnedError). (One that state did not hold, or held NOT_CREATED,
				// the plan shows being created: it is replaced.)
				err = turnedError(ctx, c, np)
			case np.GetStatus() == containerpb.NodePool_ERROR || affinityChanged(np, cfg):
				// A node pool in ERROR (its creation failed) is not repaired in place: delete it and
				// create it again, as terraform-provider-google replaces one created in error. Nor is
				// one whose reservation changes: no update call carries reservation affinity, and
				// the name is the side's, so the new node pool comes only once the old one is gone
				// (audit N17; the pool's other node pool keeps running).
				tflog.Warn(ctx, "replacing a GKE node pool", map[string]any{"node_pool": cfg.Name, "status": np.GetStatus().String(), "status_message": np.GetStatusMessage()}) //nolint:staticcheck // GKE's summary
				if err = deleteSide(ctx, c, cluster, cfg.Name); err == nil {
					err = createSide(ctx, c, cluster, o, cfg, version)
				}
			default:
				err = updateSide(ctx, c, plan, cluster, np, cfg)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", cfg.Name, err))
			}
		}
		var gone []string
		for name := range own {
			if !slices.Contains(sideNames(cfgs), name) {
				gone = append(gone, name)
			}
		}
		slices.Sort(gone)
		if len(gone) > 0 {
			if len(errs) == 0 {
				if err := allHealthy(ctx, c, cluster, cfgs); err != nil {
					errs = append(errs, err)
				}
			}
			if len(errs) > 0 {
				errs = append(errs, fmt.Errorf("%s kept: the node pools that replace it are not healthy; the next apply deletes it once they are", strings.Join(gone, " and ")))
			} else if err := deleteOwnSides(ctx, c, cluster, o, gone); err != nil {
				errs = append(errs, err)
			}
		}
		// State is what GKE holds now: the update, or as much of it as happened.
		found, warnings, _ := r.refreshAfterApply(ctx, c, plan, string(configured) == "true", false, state.NodePools, state.OwnerID, &resp.State, &resp.Diagnostics)
		addWarnings(&resp.Diagnostics, subject, warnings)
		if found && len(errs) == 0 {
			errs = append(errs, notInSync(ctx, plan.NodePools)...)
		}
		if len(errs) > 0 {
			resp.Diagnostics.AddError("updating "+subject, errors.Join(errs...).Error()+
				"\n\nState records the node pools as GKE holds them; the next plan shows what is left to do.")
		}
	})
}

// turnedError is why an update leaves a node pool that turned ERROR after the plan (state recorded
// it in another status, so the plan showed no replacement) as it is. ERROR says that "the node pool
// may be unusable" (container v1 API, NodePool.Status), not that its nodes are gone: after a failed
// upgrade or repair they may still run and serve (cloudsim's FailNodePool), and no apply deletes
// nodes its plan did not show it deleting. (Nor could the apply replace it quietly: the plan holds
// its instance groups, and a new node pool's would be an inconsistent result.) The update records
// the status, so the next plan shows the replacement, with the nodes it deletes, and its apply
// makes it.
func turnedError(ctx context.Context, c *clients, np *containerpb.NodePool) error {
	nodes := "its nodes could not be counted"
	if n, err := currentSize(ctx, c.compute, np); err != nil {
		nodes += fmt.Sprintf(" (%v)", err)
	} else {
		nodes = fmt.Sprintf("it has %d nodes", n)
	}
	return fmt.Errorf("%w; it turned ERROR after the plan, and %s: gpufleet left it as it is rather than delete what the plan did not show it deleting; the next plan shows its replacement, and the apply of that plan makes it",
		poolHealth(np), nodes)
}

// allHealthy checks that every node pool the pool keeps is RUNNING.
func allHealthy(ctx context.Context, c *clients, cluster clusterRef, cfgs []sideConfig) error {
	for _, cfg := range cfgs {
		np, err := findNodePool(ctx, c.gke, cluster, cfg.Name)
		if err != nil {
			return err
		}
		if np.GetStatus() != containerpb.NodePool_RUNNING {
			if herr := poolHealth(np); herr != nil {
				return herr
			}
			return fmt.Errorf("node pool %s is %s", cfg.Name, np.GetStatus())
		}
	}
	return nil
}

// notInSync lists the node pools refresh found out of line after an update that reported no error.
func notInSync(ctx context.Context, l types.List) []error {
	var errs []error
	for _, np := range poolschema.ListOf[nodePoolSideModel](ctx, l) {
		if !np.InSync.ValueBool() {
			errs = append(errs, fmt.Errorf("node pool %s is %s and not what the pool gives it after the update", np.Name.ValueString(), np.Status.ValueString()))
		}
	}
	return errs
}

func (r *NodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	configured, diags := req.Private.GetKey(ctx, versionConfiguredKey)
	resp.Diagnostics.Append(diags...)
	poolschema.Delete(ctx, req, resp, func(ctx context.Context, state *nodePoolModel, _ time.Duration) {
		c := r.clients(ctx, &resp.Diagnostics)
		if c == nil || resp.Diagnostics.HasError() {
			return
		}
		name, cluster := state.Name.ValueString(), state.cluster()
		// Both sides, whatever state says (a side in state may be one of them only): each is
		// deleted when it is the pool's (ownership.go); another's of the name stays.
		err := deleteOwnSides(ctx, c, cluster, state.owner(ctx, state.NodePools, state.OwnerID), []string{name + pool.SuffixOnDemand, name + pool.SuffixSpot})
		if err == nil {
			return
		}
		resp.Diagnostics.AddError(fmt.Sprintf("deleting GKE node pool (%s/%s)", cluster, name), err.Error())
		// State keeps what is left.
		r.refreshAfterApply(ctx, c, state, string(configured) != "false", false, state.NodePools, state.OwnerID, &resp.State, &resp.Diagnostics)
	})
}
