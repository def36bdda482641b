// Package gke implements gpufleet_gke_node_pool: the GKE-specific schema, its translation to and from
// pool.Spec through the shared pool layer, and the GKE and Compute Engine calls that make a pool real.
package gke

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/googleapis/gax-go/v2"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	compute "google.golang.org/api/compute/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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
	parts := strings.Split(req.ID, "/")
	if len(parts) != 4 || slices.Contains(parts, "") {
		resp.Diagnostics.AddError("Invalid import id", fmt.Sprintf("%q: import gpufleet_gke_node_pool as <project>/<location>/<cluster>/<name>, e.g. my-project/europe-west4/ml/infer.", req.ID))
		return
	}
	for i, name := range []string{"project", "location", "cluster", "name"} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), parts[i])...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}

// ModifyPlan validates the pool, fills every derived attribute so that the plan shows it, and runs
// the policy bundle on the pool, through the shared pool layer. It never calls a cloud.
func (r *NodePoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	plan, state, unchanged := poolschema.PlanOf[nodePoolModel](ctx, &r.Resource, req, resp)
	if plan == nil {
		return
	}
	if plan.Project.IsUnknown() || plan.Project.IsNull() {
		switch {
		case state != nil && !state.Project.IsNull():
			plan.Project = state.Project
		case r.Meta.GCPSettings.Project != "":
			plan.Project = types.StringValue(r.Meta.GCPSettings.Project)
		default:
			resp.Diagnostics.AddAttributeError(path.Root("project"), "Missing project", "set project on the pool or gcp.project in the provider block.")
			return
		}
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

// addLocationProblems checks that node_locations are zones of the location's region.
func addLocationProblems(diags *diag.Diagnostics, m *nodePoolModel, s pool.Spec) {
	if m.Location.IsUnknown() || m.NodeLocations.IsUnknown() {
		return
	}
	for _, z := range s.Zones {
		if regionOf(z) != s.Region {
			diags.AddAttributeError(path.Root("node_locations"), "Node location outside the pool's region",
				fmt.Sprintf("node_locations: %q is not a zone of %s, the region of location %q.", z, s.Region, m.Location.ValueString()))
		}
	}
}

// addZoneSplitProblem checks that an enforced desired size splits evenly over the zones: GKE sizes
// a node pool per zone. At plan time when node_locations are set, else at apply with the cluster's.
func addZoneSplitProblem(diags *diag.Diagnostics, s pool.Spec, d pool.Derived, zones []string) {
	if s.AutoscalerOwnsSize || len(zones) == 0 {
		return
	}
	for _, side := range d.Sides {
		if side.Sizes.Desired%len(zones) != 0 {
			diags.AddAttributeError(path.Root("scaling").AtName("desired_size"), "Desired size does not split over the zones",
				fmt.Sprintf("scaling.desired_size: GKE sizes node pools per zone: node pool %s would have %d nodes over %d zones (%s). Choose a desired size (and spot mix) whose sides are multiples of the zone count, or leave desired_size unset and let the autoscaler size the pool.", side.Name, side.Sizes.Desired, len(zones), strings.Join(zones, ", ")))
			return
		}
	}
}

// planCheck is GKE's plan-time check of a derived pool: Compute Engine's label limit (the pool's
// effective tags, the spot mix label and GKE's provisioning-model label share 64 places), and
// desired sizes that must split over the node locations.
func planCheck(s pool.Spec, d pool.Derived, diags *diag.Diagnostics) {
	addZoneSplitProblem(diags, s, d, s.Zones)
	// The pool's own tags were validated for GCP; provider default_tags are checked for AWS when the
	// provider is configured, and become resource labels here: one GCP rejects is an error, never
	// dropped or mangled.
	for _, k := range slices.Sorted(maps.Keys(d.Tags)) {
		if _, own := s.Tags[k]; own || isDerivedResourceLabel(k) {
			continue
		}
		if problem := pool.TagProblem(catalog.GCP, k, d.Tags[k]); problem != "" {
			diags.AddAttributeError(path.Root("tags"), "Provider default tag GKE does not take",
				fmt.Sprintf("default_tags[%q] of the provider becomes a resource label of this GKE pool: %s Use default_tags that both clouds take (lowercase keys and values).", k, problem))
		}
	}
	const own = 2 // gpufleet_spot_mix, goog-gke-node-pool-provisioning-model
	if n := len(d.Tags) + own; n > maxResourceLabels {
		diags.AddAttributeError(path.Root("tags"), "Too many resource labels for a GKE node pool",
			fmt.Sprintf("each node pool would carry %d resource labels, and Compute Engine takes at most %d: the pool's %d effective tags (default_tags, tags and the derived gpufleet_ labels), gpufleet's spot-mix label and GKE's provisioning-model label. Remove tags.", n, maxResourceLabels, len(d.Tags)))
	}
}

// replacedBy lists what forces a new pool: GKE cannot change a node pool's GPUs (accelerator type
// or count) or MIG partition size in place.
func replacedBy(ctx context.Context, s pool.Spec, d pool.Derived, state *nodePoolModel) path.Paths {
	prior, diags := state.spec(ctx)
	if diags.HasError() {
		return nil
	}
	priorNode, problem, known := prior.NodeType()
	if problem != nil || !known {
		return nil
	}
	var out path.Paths
	if priorNode.Accelerator != d.Node.Accelerator || priorNode.GPUCount != d.Node.GPUCount {
		at := path.Root("machine_type")
		if s.GPU.Type != prior.GPU.Type {
			at = path.Root("gpu").AtName("type")
		} else if s.GPU.Count != prior.GPU.Count {
			at = path.Root("gpu").AtName("count")
		}
		out = append(out, at)
	}
	if partition(prior) != partition(s) {
		out = append(out, path.Root("gpu").AtName("mig"))
	}
	return out
}

func partition(s pool.Spec) string {
	if s.GPU.MIG == nil {
		return ""
	}
	return s.GPU.MIG.ConfigName()
}

// plannedNodePools shows the node pools the apply will leave: names, spot and limits are known;
// a desired size the autoscaler owns stays what it is; status is unknown, and so are the instance
// groups of new node pools and of node pools whose zones change.
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
		if p, ok := prior[side.Name]; ok {
			if s.AutoscalerOwnsSize {
				np.DesiredSize = types.Int64Value(int64(poolschema.KeptDesired(int(p.DesiredSize.ValueInt64()), side.Sizes)))
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
// recomputed from the planned configuration, and their zones.
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
	zones := spec.Zones
	if len(zones) == 0 {
		var err error
		if zones, err = findClusterZones(ctx, c.gke, m.cluster()); err != nil {
			diags.AddError(fmt.Sprintf("reading GKE cluster (%s)", m.cluster()), err.Error())
			return nil, nil
		}
	}
	addZoneSplitProblem(diags, spec, derived, zones)
	if diags.HasError() {
		return nil, nil
	}
	return c, sideConfigs(spec, derived, zones, poolschema.OwnDefaultTags(spec.Tags, r.Meta.Pool.DefaultTags))
}

func (r *NodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
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
		found, err := r.refresh(context.WithoutCancel(ctx), c, plan)
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

func createSide(ctx context.Context, c *clients, m *nodePoolModel, cluster clusterRef, cfg sideConfig) error {
	np := cfg.NodePool
	np.InitialNodeCount = perZone(cfg.Sizes.Desired, cfg.Zones)
	np.Version = m.KubernetesVersion.ValueString()
	err := mutate(ctx, c.gke, cluster, c.poll, func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error) {
		return c.gke.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: cluster.name(), NodePool: np}, opts...)
	})
	if err == nil {
		tflog.Info(ctx, "created GKE node pool", map[string]any{"cluster": cluster.String(), "node_pool": cfg.Name, "spot": cfg.Spot()})
	}
	return err
}

func (r *NodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	poolschema.Read(ctx, req, resp, func(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) bool {
		c := r.clients(ctx, diags)
		if c == nil {
			return false
		}
		found, err := r.refresh(ctx, c, m)
		if err != nil {
			diags.AddError(fmt.Sprintf("reading GKE node pool (%s/%s)", m.cluster(), m.Name.ValueString()), err.Error())
		}
		return found
	})
}

// refresh overwrites m with what GKE and Compute Engine hold; found is false when neither node
// pool exists. A node pool of the name that gpufleet did not create is an error, never adopted.
func (r *NodePoolResource) refresh(ctx context.Context, c *clients, m *nodePoolModel) (bool, error) {
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
	r.flatten(m, sides)
	spec, _ := m.spec(ctx)
	poolschema.Refresh(ctx, r.Meta, spec, &m.Model, effectiveTagsOf(sides[0].np), poolLabels(sides[0].np))
	return true, nil
}

// flatten writes what GKE reports into the model. Settings GKE does not hold (waivers, timeouts,
// whether MIG was given as a profile or an all-<profile> config) and values GKE fills in that the
// configuration left unset (the accelerator of a machine type that implies it, the default driver,
// the cluster's zones) keep their prior form, so that none of them shows as a diff.
func (r *NodePoolResource) flatten(m *nodePoolModel, sides []side) {
	primary := sides[0].np
	cfg := primary.GetConfig()
	m.ID = types.StringValue(poolID(m))
	m.Region = types.StringValue(regionOf(m.Location.ValueString()))
	m.MachineType = types.StringValue(cfg.GetMachineType())
	m.NodeLocations = types.SetValueMust(types.StringType, poolschema.StringValues(primary.GetLocations()))
	m.KubernetesVersion = kubernetesVersion(primary.GetVersion(), m.KubernetesVersion)

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

// kubernetesVersion keeps a configured minor version ("1.31") while the nodes run a patch of it.
func kubernetesVersion(cloud string, prior types.String) types.String {
	if p := prior.ValueString(); p != "" && (cloud == p || strings.HasPrefix(cloud, p+".")) {
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
		found, err := r.refresh(context.WithoutCancel(ctx), c, plan)
		if err != nil || !found {
			resp.Diagnostics.AddWarning("State after the update", fmt.Sprintf("could not read the node pool back (found %t, %v); the next refresh will", found, err))
			return
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	})
}

// updateSide brings an existing node pool to cfg: node labels, resource labels, taints, zones,
// machine type, Kubernetes version, driver and sharing through UpdateNodePool; limits through
// SetNodePoolAutoscaling; an enforced size through SetNodePoolSize. Each operation is waited for.
func updateSide(ctx context.Context, c *clients, m *nodePoolModel, cluster clusterRef, np *containerpb.NodePool, cfg sideConfig) error {
	// The request carries the etag of the node pool it was built from: when someone changed the node
	// pool in between, GKE answers ABORTED, and the request is built again from a fresh read.
	for attempt := 1; ; attempt++ {
		in := nodePoolUpdate(np, cfg, m.KubernetesVersion.ValueString())
		if in == nil {
			break
		}
		in.Name = cluster.poolName(cfg.Name)
		err := mutate(ctx, c.gke, cluster, c.poll, func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error) {
			return c.gke.UpdateNodePool(ctx, in, opts...)
		})
		if err != nil && (status.Code(err) != codes.Aborted || attempt == maxEtagAttempts) {
			return fmt.Errorf("UpdateNodePool: %w", err)
		}
		// Re-read: after a conflict, and after an update, whose new zones bring new instance groups.
		if np, err = findNodePool(ctx, c.gke, cluster, cfg.Name); err != nil {
			return err
		}
	}
	want := cfg.NodePool.GetAutoscaling()
	if a := np.GetAutoscaling(); !a.GetEnabled() || a.GetTotalMinNodeCount() != want.GetTotalMinNodeCount() ||
		a.GetTotalMaxNodeCount() != want.GetTotalMaxNodeCount() || a.GetLocationPolicy() != want.GetLocationPolicy() {
		if err := mutate(ctx, c.gke, cluster, c.poll, func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error) {
			return c.gke.SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{Name: cluster.poolName(cfg.Name), Autoscaling: want}, opts...)
		}); err != nil {
			return fmt.Errorf("SetNodePoolAutoscaling: %w", err)
		}
	}
	if cfg.AutoscalerOwnsSize {
		return nil
	}
	current, err := currentSize(ctx, c.compute, np)
	if err != nil {
		return err
	}
	if current != cfg.Sizes.Desired {
		if err := mutate(ctx, c.gke, cluster, c.poll, func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error) {
			return c.gke.SetNodePoolSize(ctx, &containerpb.SetNodePoolSizeRequest{Name: cluster.poolName(cfg.Name), NodeCount: perZone(cfg.Sizes.Desired, cfg.Zones)}, opts...)
		}); err != nil {
			return fmt.Errorf("SetNodePoolSize: %w", err)
		}
	}
	return nil
}

// nodePoolUpdate builds the UpdateNodePool request for what differs from cfg, leaving out what GKE
// adds itself; nil when nothing does.
func nodePoolUpdate(np *containerpb.NodePool, cfg sideConfig, version string) *containerpb.UpdateNodePoolRequest {
	want := cfg.NodePool.GetConfig()
	in := &containerpb.UpdateNodePoolRequest{}
	changed := false
	if !maps.Equal(userLabels(np), want.GetLabels()) {
		in.Labels, changed = &containerpb.NodeLabels{Labels: want.GetLabels()}, true
	}
	if !maps.Equal(userResourceLabels(np), want.GetResourceLabels()) {
		in.ResourceLabels, changed = &containerpb.ResourceLabels{Labels: want.GetResourceLabels()}, true
	}
	if !slices.Equal(withoutGKETaint(poolTaints(np.GetConfig().GetTaints()), want), poolTaints(want.GetTaints())) {
		in.Taints, changed = &containerpb.NodeTaints{Taints: want.GetTaints()}, true
	}
	if locs := cfg.NodePool.GetLocations(); len(locs) > 0 && !sameSet(locs, np.GetLocations()) {
		in.Locations, changed = locs, true
	}
	if mt := want.GetMachineType(); mt != np.GetConfig().GetMachineType() {
		in.MachineType, changed = mt, true
	}
	if version != "" && kubernetesVersion(np.GetVersion(), types.StringValue(version)).ValueString() != version {
		in.NodeVersion, changed = version, true
	}
	if accs := np.GetConfig().GetAccelerators(); len(accs) > 0 && !acceleratorSettingsEqual(accs[0], want.GetAccelerators()[0]) {
		in.Accelerators, changed = want.GetAccelerators(), true
	}
	if !changed {
		return nil
	}
	in.Etag = np.GetEtag()
	return in
}

// withoutGKETaint drops the GPU taint GKE adds itself when gpufleet does not ask for it.
func withoutGKETaint(current []pool.Taint, want *containerpb.NodeConfig) []pool.Taint {
	if slices.ContainsFunc(want.GetTaints(), func(t *containerpb.NodeTaint) bool { return t.GetKey() == pool.TaintGPU }) {
		return current
	}
	return slices.DeleteFunc(current, func(t pool.Taint) bool { return t.Key == pool.TaintGPU })
}

func acceleratorSettingsEqual(a, b *containerpb.AcceleratorConfig) bool {
	sa, sb := a.GetGpuSharingConfig(), b.GetGpuSharingConfig()
	return a.GetGpuDriverInstallationConfig().GetGpuDriverVersion() == b.GetGpuDriverInstallationConfig().GetGpuDriverVersion() &&
		(sa == nil) == (sb == nil) && sa.GetGpuSharingStrategy() == sb.GetGpuSharingStrategy() && sa.GetMaxSharedClientsPerGpu() == sb.GetMaxSharedClientsPerGpu()
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
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
		err = mutate(ctx, c.gke, cluster, c.poll, func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error) {
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
