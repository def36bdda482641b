// Package gke implements gpufleet_gke_node_pool: the GKE-specific schema, its translation to and from
// pool.Spec through the shared pool layer, and the GKE and Compute Engine calls that make a pool real.
package gke

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/googleapis/gax-go/v2"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	compute "google.golang.org/api/compute/v1"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
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
	addLocationProblems(&resp.Diagnostics, plan, spec)
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
	switch {
	case derived == nil:
		plan.NodePools = types.ListUnknown(types.ObjectType{AttrTypes: nodePoolSideAttrTypes})
	case !unchanged:
		plan.NodePools = plannedNodePools(ctx, spec, *derived, state, state != nil && plan.NodeLocations.Equal(state.NodeLocations))
		if state != nil {
			resp.RequiresReplace = append(resp.RequiresReplace, replacedBy(ctx, spec, *derived, state)...)
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// replacedBy lists what forces a new pool: GKE cannot change a node pool's GPUs (accelerator type
// or count) in place (terraform-provider-google: guest_accelerator type and count ForceNew,
// node_config.go). The MIG partition size, the driver and GPU sharing change in place
// (updateGroups).
func replacedBy(ctx context.Context, s pool.Spec, d pool.Derived, state *nodePoolModel) path.Paths {
	prior, diags := state.spec(ctx)
	if diags.HasError() {
		return nil
	}
	priorNode, problem, known := prior.NodeType()
	if problem != nil || !known {
		return nil
	}
	if priorNode.Accelerator == d.Node.Accelerator && priorNode.GPUCount == d.Node.GPUCount {
		return nil
	}
	at := path.Root("machine_type")
	if s.GPU.Type != prior.GPU.Type {
		at = path.Root("gpu").AtName("type")
	} else if s.GPU.Count != prior.GPU.Count {
		at = path.Root("gpu").AtName("count")
	}
	return path.Paths{at}
}

// plannedNodePools shows the node pools the apply will leave: names, spot and limits are known.
// The size of a new node pool is what GKE creates: an enforced desired size, or min_size rounded
// up to the same number of nodes in every zone — unknown while the zones are (a pool without
// node_locations, which takes its cluster's at apply). A size the autoscaler owns stays what it
// is, moved into new limits, and is unknown when the zones change (GKE sizes new zones itself).
// Status is unknown, and so are the instance groups of new node pools and of node pools whose
// zones change.
func plannedNodePools(ctx context.Context, s pool.Spec, d pool.Derived, state *nodePoolModel, sameZones bool) types.List {
	prior := map[string]nodePoolSideModel{}
	if state != nil {
		for _, np := range poolschema.ListOf[nodePoolSideModel](ctx, state.NodePools) {
			prior[np.Name.ValueString()] = np
		}
	}
	var out []nodePoolSideModel
	for _, side := range d.Sides {
		np := nodePoolSideModel{
			Name:              types.StringValue(side.Name),
			CapacityType:      types.StringValue(side.CapacityType),
			Spot:              types.BoolValue(side.Spot()),
			MinSize:           types.Int64Value(int64(side.Sizes.Min)),
			MaxSize:           types.Int64Value(int64(side.Sizes.Max)),
			DesiredSize:       types.Int64Value(int64(side.Sizes.Desired)),
			Status:            types.StringUnknown(),
			InstanceGroupURLs: types.ListUnknown(types.StringType),
		}
		if s.AutoscalerOwnsSize && len(s.Zones) == 0 && side.Sizes.Desired > 0 {
			np.DesiredSize = types.Int64Unknown()
		}
		if p, ok := prior[side.Name]; ok {
			switch {
			case s.AutoscalerOwnsSize && sameZones:
				np.DesiredSize = types.Int64Value(int64(pool.MoveIntoLimits(int(p.DesiredSize.ValueInt64()), side.Sizes, len(s.Zones))))
			case s.AutoscalerOwnsSize:
				np.DesiredSize = types.Int64Unknown()
			}
			if sameZones {
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
			"desired_size": np.DesiredSize, "status": np.Status, "instance_group_urls": np.InstanceGroupURLs,
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

// side is a node pool as it exists, with its current size.
type side struct {
	np   *containerpb.NodePool
	size int
}

func nodePoolSideFrom(s side) nodePoolSideModel {
	a := s.np.GetAutoscaling()
	return nodePoolSideModel{
		Name:              types.StringValue(s.np.GetName()),
		CapacityType:      types.StringValue(capacityType(s.np.GetConfig().GetSpot())),
		Spot:              types.BoolValue(s.np.GetConfig().GetSpot()),
		MinSize:           types.Int64Value(int64(a.GetTotalMinNodeCount())),
		MaxSize:           types.Int64Value(int64(a.GetTotalMaxNodeCount())),
		DesiredSize:       types.Int64Value(int64(s.size)),
		Status:            types.StringValue(s.np.GetStatus().String()),
		InstanceGroupURLs: types.ListValueMust(types.StringType, poolschema.StringValues(s.np.GetInstanceGroupUrls())),
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
	if conns.IsLoopbackEndpoint(r.Meta.GCPSettings.Endpoint) {
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
	applyCheck(ctx, c, m.Project.ValueString(), spec, derived, cl, m.Cluster.ValueString(), zones, diags)
	if diags.HasError() {
		return nil, nil
	}
	return c, sideConfigs(spec, derived, zones, poolschema.OwnDefaultTags(spec.Tags, r.Meta.Pool.DefaultTags))
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
		c, cfgs := r.prepareApply(ctx, plan, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		cluster := plan.cluster()
		// A node pool of one of the names that gpufleet did not create is an error before any change.
		for _, cfg := range cfgs {
			if err := checkNameFree(ctx, c, cluster, cfg.Name, plan.Name.ValueString()); err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("creating GKE node pool (%s/%s)", cluster, cfg.Name), err.Error())
				return
			}
		}
		for _, cfg := range cfgs {
			if err := createSide(ctx, c, plan, cluster, cfg); err != nil {
				resp.Diagnostics.AddError(fmt.Sprintf("creating GKE node pool (%s/%s)", cluster, cfg.Name), err.Error())
				break
			}
		}
		// State records what exists, even after an error (a stock-out leaves the node pool in ERROR):
		// terraform then taints the pool and the next apply replaces it, so nothing is orphaned.
		found, err := r.refresh(context.WithoutCancel(ctx), c, plan, string(configured) == "true")
		if err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("reading GKE node pool (%s/%s) after creating it", cluster, plan.Name.ValueString()), err.Error())
		}
		if !found {
			return
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	})
}

// checkNameFree fails when a node pool of the name exists and gpufleet did not create it for poolName.
func checkNameFree(ctx context.Context, c *clients, cluster clusterRef, name, poolName string) error {
	np, err := findNodePool(ctx, c.gke, cluster, name)
	switch {
	case isNotFound(err):
		return nil
	case err != nil:
		return err
	case ownedBy(np, poolName):
		return fmt.Errorf("node pool %s already exists and belongs to gpufleet pool %q: import it (terraform import %s.<name> %s/%s) instead of creating it again", name, poolName, ResourceType, cluster, poolName)
	}
	return fmt.Errorf("node pool %s already exists and was not created by gpufleet (no %s resource label naming pool %q); gpufleet changes only node pools it owns: rename the pool or remove the other node pool", name, pool.TagKeysFor(catalog.GCP).Pool, poolName)
}

// createSide creates one node pool with its initial size per zone (GKE's initial_node_count is per
// zone: the plan's total, rounded up), and fails when GKE leaves it in error.
func createSide(ctx context.Context, c *clients, m *nodePoolModel, cluster clusterRef, cfg sideConfig) error {
	np := cfg.NodePool
	np.InitialNodeCount = int32(pool.PerZone(cfg.Sizes.Desired, len(cfg.Zones)))
	np.Version = m.KubernetesVersion.ValueString()
	err := mutate(ctx, c.gke, cluster, cfg.Name, c.poll, func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error) {
		return c.gke.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: cluster.name(), NodePool: np}, opts...)
	})
	if err != nil {
		return withPoolHealth(ctx, c, cluster, cfg.Name, err)
	}
	created, err := findNodePool(ctx, c.gke, cluster, cfg.Name)
	if err != nil {
		return err
	}
	if err := poolHealth(created); err != nil {
		return err
	}
	tflog.Info(ctx, "created GKE node pool", map[string]any{"cluster": cluster.String(), "node_pool": cfg.Name, "spot": cfg.Spot()})
	return nil
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
		found, err := r.refresh(ctx, c, m, string(configured) != "false")
		if err != nil {
			diags.AddError(fmt.Sprintf("reading GKE node pool (%s/%s)", m.cluster(), m.Name.ValueString()), err.Error())
		}
		return found
	})
}

// refresh overwrites m with what GKE and Compute Engine hold; found is false when neither node
// pool exists. A node pool of the name that gpufleet did not create is an error, never adopted.
// versionConfigured says that kubernetes_version is the configuration's (see kubernetesVersion).
func (r *NodePoolResource) refresh(ctx context.Context, c *clients, m *nodePoolModel, versionConfigured bool) (bool, error) {
	cluster, name := m.cluster(), m.Name.ValueString()
	var sides []side
	for _, suffix := range []string{pool.SuffixOnDemand, pool.SuffixSpot} {
		np, err := findNodePool(ctx, c.gke, cluster, name+suffix)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("node pool %s%s: %w", name, suffix, err)
		}
		if !ownedBy(np, name) {
			return false, fmt.Errorf("node pool %s%s exists but was not created by gpufleet for pool %q (no matching %s resource label)", name, suffix, name, pool.TagKeysFor(catalog.GCP).Pool)
		}
		size, err := currentSize(ctx, c.compute, np)
		if err != nil {
			return false, fmt.Errorf("node pool %s%s: %w", name, suffix, err)
		}
		sides = append(sides, side{np: np, size: size})
	}
	if len(sides) == 0 {
		return false, nil
	}
	r.flatten(m, sides, versionConfigured)
	spec, _ := m.spec(ctx)
	poolschema.Refresh(ctx, r.Meta, spec, &m.Model, effectiveTagsOf(sides[0].np), poolLabels(sides[0].np))
	return true, nil
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
	m.KubernetesVersion = kubernetesVersion(primary.GetVersion(), m.KubernetesVersion, versionConfigured)

	labels := poolLabels(primary)
	m.Client = poolschema.ClientFrom(primary.GetConfig().GetResourceLabels(), pool.TagKeysFor(catalog.GCP).Client, labels)
	m.Workload = poolschema.WorkloadFrom(labels, m.Workload)
	m.Labels = poolschema.UserLabels(labels, m.Labels, isGKELabel)
	m.Taints = poolschema.UserTaints(poolTaints(cfg.GetTaints()), m.Taints)
	m.Tags = poolschema.UserTags(userResourceLabels(primary), r.Meta.Pool.DefaultTags, m.Tags, ownDefaultsOf(primary), isDerivedResourceLabel)
	m.GPU = gpuFrom(cfg, m.GPU)

	sizes := make([]pool.Sizes, len(sides))
	for i, s := range sides {
		a := s.np.GetAutoscaling()
		sizes[i] = pool.Sizes{Min: int(a.GetTotalMinNodeCount()), Max: int(a.GetTotalMaxNodeCount()), Desired: s.size}
	}
	m.Scaling = poolschema.ScalingFrom(sizes, m.Scaling)
	m.Capacity = capacityFrom(sides, m.Capacity)
	m.NodePools = nodePoolList(poolschema.MapSlice(sides, nodePoolSideFrom))
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
// the default driver stay unset when they were unset before.
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
	if v := acc.GetGpuDriverInstallationConfig().GetGpuDriverVersion().String(); v != DriverDefault || !g.DriverVersion.IsNull() {
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
		c, cfgs := r.prepareApply(ctx, plan, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		cluster := plan.cluster()
		wanted := map[string]bool{}
		// Grow or change what stays and create what is new before deleting what goes, so capacity does
		// not dip while spot and on-demand sides swap.
		for _, cfg := range cfgs {
			wanted[cfg.Name] = true
			np, err := findNodePool(ctx, c.gke, cluster, cfg.Name)
			switch {
			case isNotFound(err):
				if err := createSide(ctx, c, plan, cluster, cfg); err != nil {
					resp.Diagnostics.AddError(fmt.Sprintf("creating GKE node pool (%s/%s)", cluster, cfg.Name), err.Error())
				}
			case err != nil:
				resp.Diagnostics.AddError(fmt.Sprintf("reading GKE node pool (%s/%s)", cluster, cfg.Name), err.Error())
			case !ownedBy(np, plan.Name.ValueString()):
				resp.Diagnostics.AddError(fmt.Sprintf("updating GKE node pool (%s/%s)", cluster, cfg.Name), "the node pool was not created by gpufleet for this pool; gpufleet changes only node pools it owns")
			default:
				if err := updateSide(ctx, c, plan, cluster, np, cfg); err != nil {
					resp.Diagnostics.AddError(fmt.Sprintf("updating GKE node pool (%s/%s)", cluster, cfg.Name), err.Error())
				}
			}
		}
		var gone []string
		for _, np := range poolschema.ListOf[nodePoolSideModel](ctx, state.NodePools) {
			if name := np.Name.ValueString(); !wanted[name] {
				gone = append(gone, name)
			}
		}
		if err := deleteSides(ctx, c, cluster, plan.Name.ValueString(), gone); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("deleting GKE node pools of pool (%s/%s)", cluster, plan.Name.ValueString()), err.Error())
		}
		// State is what GKE holds now: the update, or as much of it as happened.
		found, err := r.refresh(context.WithoutCancel(ctx), c, plan, string(configured) == "true")
		if err != nil || !found {
			resp.Diagnostics.AddWarning("State after the update", fmt.Sprintf("could not read the node pool back (found %t, %v); the next refresh will", found, err))
			return
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	})
}

// deleteSides deletes node pools that gpufleet created for the pool; one that is already gone is
// fine, one that is not gpufleet's is left alone and reported.
func deleteSides(ctx context.Context, c *clients, cluster clusterRef, poolName string, names []string) error {
	var errs []error
	for _, name := range names {
		np, err := findNodePool(ctx, c.gke, cluster, name)
		switch {
		case isNotFound(err):
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		case !ownedBy(np, poolName):
			errs = append(errs, fmt.Errorf("%s: not deleted: it was not created by gpufleet for pool %q", name, poolName))
			continue
		}
		err = mutate(ctx, c.gke, cluster, name, c.poll, func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error) {
			return c.gke.DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: cluster.poolName(name)}, opts...)
		})
		if err != nil && !isNotFound(err) {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

func (r *NodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	poolschema.Delete(ctx, req, resp, func(ctx context.Context, state *nodePoolModel, _ time.Duration) {
		c := r.clients(ctx, &resp.Diagnostics)
		if c == nil || resp.Diagnostics.HasError() {
			return
		}
		name := state.Name.ValueString()
		// Both sides, whatever state says: a side whose create failed half-way may not be in state;
		// ownership is checked on each before it is deleted.
		if err := deleteSides(ctx, c, state.cluster(), name, []string{name + pool.SuffixOnDemand, name + pool.SuffixSpot}); err != nil {
			resp.Diagnostics.AddError(fmt.Sprintf("deleting GKE node pool (%s/%s)", state.cluster(), name), err.Error())
		}
	})
}
