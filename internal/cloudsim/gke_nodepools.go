package cloudsim

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	rpccode "google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// GKE node pool mutations: CreateNodePool, UpdateNodePool, SetNodePoolSize,
// SetNodePoolAutoscaling, SetNodePoolManagement, DeleteNodePool, and how pools resolve when
// their operation completes (GKE API Reference for each RPC).

// finishNodePool resolves a node pool's transitional status. A failed create leaves the pool in
// ERROR with a status message and conditions (how GKE reports e.g. a GPU stockout); a failed
// update keeps the old configuration and marks the pool RUNNING_WITH_ERROR. A degraded one (a
// partial stockout) takes effect, and the pool is RUNNING_WITH_ERROR with the message.
func (w *world) finishNodePool(key string, r *npRecord) {
	failed := len(r.FailIssues) > 0
	if r.NextStatus == containerpb.NodePool_STATUS_UNSPECIFIED && !failed {
		delete(w.NodePools, key)
		return
	}
	switch {
	case failed && !r.Degraded:
		// A failed delete leaves the node pool with its nodes (gke_faults.go).
		if r.Pool.Status == containerpb.NodePool_PROVISIONING {
			r.Pool.Status = containerpb.NodePool_ERROR
		} else {
			r.Pool.Status = containerpb.NodePool_RUNNING_WITH_ERROR
		}
		r.Pool.StatusMessage = issueMessage(r.FailIssues)
		r.Pool.Conditions = conditions(r.FailIssues)
	default:
		endBlueGreen(r)
		if r.Pending != nil {
			r.Pool = r.Pending
		}
		if r.PendingNodeCount != nil {
			r.NodeCount = *r.PendingNodeCount
		}
		r.Pool.Status, r.Pool.StatusMessage, r.Pool.Conditions = r.NextStatus, "", nil
		if failed {
			r.Pool.Status = containerpb.NodePool_RUNNING_WITH_ERROR
			r.Pool.StatusMessage, r.Pool.Conditions = issueMessage(r.FailIssues), conditions(r.FailIssues)
		}
	}
	r.Pool.Etag = randomHex(16)
	r.Due, r.Pending, r.PendingNodeCount, r.FailIssues, r.Degraded, r.Operation = time.Time{}, nil, nil, nil, false, ""
}

func issueMessage(issues []HealthIssue) string {
	msgs := make([]string, 0, len(issues))
	for _, is := range issues {
		msgs = append(msgs, firstNonEmpty(is.Message, is.Code))
	}
	return strings.Join(msgs, "; ")
}

func conditions(issues []HealthIssue) []*containerpb.StatusCondition {
	out := make([]*containerpb.StatusCondition, 0, len(issues))
	for _, is := range issues {
		out = append(out, &containerpb.StatusCondition{
			Code:          containerpb.StatusCondition_Code(containerpb.StatusCondition_Code_value[is.Code]),
			Message:       firstNonEmpty(is.Message, is.Code),
			CanonicalCode: canonicalCode(is.Code),
		})
	}
	return out
}

// canonicalCode maps a condition code to its google.rpc.Code: capacity and quota problems are
// RESOURCE_EXHAUSTED, everything else UNKNOWN.
func canonicalCode(issue string) rpccode.Code {
	switch issue {
	case "GCE_STOCKOUT", "GCE_QUOTA_EXCEEDED":
		return rpccode.Code_RESOURCE_EXHAUSTED
	}
	return rpccode.Code_UNKNOWN
}

// failure is what a CreateFailed or Degraded fault makes of a node pool operation.
type failure struct {
	issues   []HealthIssue
	degraded bool
}

func failureOf(ctx context.Context) failure {
	f, _ := ctx.Value(failedKey{}).(*Fault)
	if f == nil {
		return failure{}
	}
	issues := append([]HealthIssue(nil), f.HealthIssues...)
	if len(issues) == 0 {
		issues = []HealthIssue{IssueGCEStockout}
	}
	return failure{issues: issues, degraded: f.Kind == Degraded}
}

// defaultOAuthScopes are the scopes GKE gives nodes when none are requested.
var defaultOAuthScopes = []string{
	"https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write",
	"https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly",
	"https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append",
}

// applyPoolDefaults fills what GKE fills on create (GKE API Reference: NodeConfig defaults):
// e2-medium, 100 GB pd-balanced, COS_CONTAINERD, the cluster's version and zones, auto-upgrade
// and auto-repair on, surge upgrades, and the fixed GPUs of accelerator-optimized machines.
func applyPoolDefaults(pool *containerpb.NodePool, cl *GKEClusterSeed) {
	if pool.Config == nil {
		pool.Config = &containerpb.NodeConfig{}
	}
	c := pool.Config
	c.MachineType = firstNonEmpty(c.MachineType, "e2-medium")
	if c.DiskSizeGb == 0 {
		c.DiskSizeGb = 100
	}
	c.DiskType = firstNonEmpty(c.DiskType, "pd-balanced")
	c.ImageType = firstNonEmpty(c.ImageType, "COS_CONTAINERD")
	c.ServiceAccount = firstNonEmpty(c.ServiceAccount, "default")
	if len(c.OauthScopes) == 0 {
		c.OauthScopes = append([]string(nil), defaultOAuthScopes...)
	}
	fillFixedAccelerators(c)
	pool.Version = firstNonEmpty(pool.Version, cl.Version)
	if len(pool.Locations) == 0 {
		pool.Locations = cl.zones()
	}
	if pool.Management == nil {
		pool.Management = &containerpb.NodeManagement{AutoUpgrade: true, AutoRepair: true}
	}
	if pool.UpgradeSettings == nil {
		pool.UpgradeSettings = &containerpb.NodePool_UpgradeSettings{MaxSurge: 1,
			Strategy: containerpb.NodePoolUpdateStrategy_SURGE.Enum()}
	}
	if pool.MaxPodsConstraint == nil {
		pool.MaxPodsConstraint = &containerpb.MaxPodsConstraint{MaxPodsPerNode: 110}
	}
	if pool.PodIpv4CidrSize == 0 {
		pool.PodIpv4CidrSize = 24
	}
}

// fillFixedAccelerators reports the GPUs of an accelerator-optimized machine type when the
// request left them out, as GKE does in the node pool it returns.
func fillFixedAccelerators(c *containerpb.NodeConfig) {
	if fixed, ok := fixedGPUMachines[c.MachineType]; ok && len(c.Accelerators) == 0 {
		c.Accelerators = []*containerpb.AcceleratorConfig{{AcceleratorType: fixed.accelerator, AcceleratorCount: fixed.count}}
	}
}

// GKE API Reference: CreateNodePool — returns a CREATE_NODE_POOL operation; the pool is
// PROVISIONING until the operation is DONE, then RUNNING (or ERROR when it failed).
func (g *gkeServer) CreateNodePool(ctx context.Context, req *containerpb.CreateNodePoolRequest) (*containerpb.Operation, error) {
	ref, err := parseClusterRef(req.GetParent(), req.GetProjectId(), req.GetZone(), req.GetClusterId())
	if err != nil {
		return nil, err
	}
	if req.GetNodePool() == nil {
		return nil, invalidArg("Invalid value for field 'node_pool': the node pool is required.")
	}
	var out *containerpb.Operation
	err = g.do(true, func(w *world, now time.Time) error {
		cl, project, err := g.cluster(w, ref)
		if err != nil {
			return err
		}
		if st := gkeClusterStatus(cl); st != "RUNNING" {
			return status.Errorf(codes.FailedPrecondition, "Cluster %s is not running (status %s).", ref.path(), st)
		}
		pool := proto.Clone(req.GetNodePool()).(*containerpb.NodePool)
		applyPoolDefaults(pool, cl)
		pool.Autoscaling = normalizeAutoscaling(pool.Autoscaling)
		if pool.Version, err = cl.resolveNodeVersion(pool.Version); err != nil {
			return err
		}
		var gpuTaint bool
		if err := w.settlePool(ref, pool, cl, project, &gpuTaint); err != nil {
			return err
		}
		fillDefaultDriver(pool.Config, pool.Version)
		if w.NodePools[ref.poolPath(pool.Name)] != nil {
			return status.Errorf(codes.AlreadyExists, "Already exists: %s.", ref.poolPath(pool.Name))
		}
		if err := w.checkGPUQuota(ref, project, pool, pool.GetInitialNodeCount(), nil); err != nil {
			return err
		}
		fail := failureOf(ctx)
		if pool.GetInitialNodeCount() > 0 {
			fail = w.anyReservationFailure(ref, pool, fail)
			fail = w.specificReservationFailure(ref, pool, fail)
			fail = vmLabelFailure(ref, pool, cl, fail)
		}
		out = g.createPool(w, ref, pool, gpuTaint, now, fail)
		return nil
	})
	return out, err
}

func (g *gkeServer) createPool(w *world, ref clusterRef, pool *containerpb.NodePool, gpuTaint bool, now time.Time, fail failure) *containerpb.Operation {
	r := w.addPool(ref, pool, containerpb.NodePool_PROVISIONING, gpuTaint)
	r.Due, r.NextStatus, r.FailIssues, r.Degraded = now.Add(g.sim.opts.TransitionDelay), containerpb.NodePool_RUNNING, fail.issues, fail.degraded
	op := g.startOperation(w, ref, containerpb.Operation_CREATE_NODE_POOL, ref.poolPath(pool.Name), now, fail)
	r.Operation = op.Name
	return op
}

// computeAPIBase is the prefix of the instance group URLs GKE reports.
const computeAPIBase = "https://www.googleapis.com/compute/v1/"

// addPool stores a new node pool with its self link, instance groups and initial size.
func (w *world) addPool(ref clusterRef, pool *containerpb.NodePool, st containerpb.NodePool_Status, gpuTaint bool) *npRecord {
	pool.SelfLink = containerAPIBase + ref.poolPath(pool.Name)
	pool.InstanceGroupUrls = instanceGroupURLs(ref, pool, nil)
	pool.Status, pool.StatusMessage, pool.Conditions = st, "", nil
	pool.Etag = randomHex(16)
	r := &npRecord{Project: ref.project, Location: ref.location, Cluster: ref.cluster, Pool: pool,
		NodeCount: pool.InitialNodeCount, GPUTaint: gpuTaint, CreationID: randomHex(8), CreatedAt: time.Now()}
	w.NodePools[ref.poolPath(pool.Name)] = r
	return r
}

// instanceGroupURLs returns the pool's managed instance groups, one per zone (GKE API
// Reference: NodePool.instance_group_urls), keeping those of zones it already had: GKE adds
// and removes groups when the locations change. The groups of one pool share a random suffix.
func instanceGroupURLs(ref clusterRef, pool *containerpb.NodePool, old []string) []string {
	byZone := map[string]string{}
	suffix := randomHex(8)
	for _, u := range old {
		m := splitName(strings.TrimPrefix(u, computeAPIBase))
		byZone[m["locations"]] = u
		if name := strings.TrimSuffix(m["instanceGroupManagers"], "-grp"); len(name) > 8 {
			suffix = name[len(name)-8:]
		}
	}
	urls := make([]string, 0, len(pool.Locations))
	for _, z := range pool.Locations {
		u := byZone[z]
		if u == "" {
			u = fmt.Sprintf("%sprojects/%s/zones/%s/instanceGroupManagers/gke-%s-%s-%s-grp",
				computeAPIBase, ref.project, z, ref.cluster, pool.Name, suffix)
		}
		urls = append(urls, u)
	}
	return urls
}

// Sizes are what was asked for: initial_node_count and SetNodePoolSize's node_count per zone,
// taken as they are even outside the autoscaling limits, which the cluster autoscaler moves the
// size into later, on its own schedule (GKE "Cluster autoscaler — minimum and maximum node pool
// size": "If the current node pool size is lower than the specified minimum or greater than the
// specified maximum when you enable autoscaling, the autoscaler waits to take effect until a new
// node is needed in the node pool or until a node can be safely deleted from the node pool",
// https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler). A regional pool
// of initial_node_count 1 in three zones starts with three nodes, whatever its total maximum.

// mutatePool is the common path of the node pool update RPCs: find the pool, refuse while
// another operation runs on it, compute the pool as it will be, validate it and start the
// operation. The pool is RECONCILING (or STOPPING) until the operation completes.
// nodeCount, when set, is the per-zone size the operation sets (SetNodePoolSize).
// rollout says that the operation recreates the node pool's nodes (upgradeFailure).
func (g *gkeServer) mutatePool(ctx context.Context, ref clusterRef, name string, typ containerpb.Operation_Type,
	nodeCount *int32, rollout bool, change func(next *containerpb.NodePool, cl *GKEClusterSeed) error) (*containerpb.Operation, error) {
	var out *containerpb.Operation
	err := g.do(true, func(w *world, now time.Time) error {
		r, cl, project, err := g.pool(w, ref, name)
		if err != nil {
			return err
		}
		if err := g.checkNoRunningOp(w, ref, name); err != nil {
			return err
		}
		if typ != containerpb.Operation_DELETE_NODE_POOL && r.Pool.Status != containerpb.NodePool_RUNNING &&
			r.Pool.Status != containerpb.NodePool_RUNNING_WITH_ERROR {
			return status.Errorf(codes.FailedPrecondition, "Node pool %s is not ready for updates (status %s).", name, r.Pool.Status)
		}
		next := proto.Clone(r.Pool).(*containerpb.NodePool)
		if err := change(next, cl); err != nil {
			return err
		}
		gpuTaint := r.GPUTaint
		if err := w.settlePool(ref, next, cl, project, &gpuTaint); err != nil {
			return err
		}
		count := r.NodeCount
		if nodeCount != nil {
			count = *nodeCount
		}
		if typ != containerpb.Operation_DELETE_NODE_POOL {
			if err := w.checkGPUQuota(ref, project, next, count, r); err != nil {
				return err
			}
		}
		next.InstanceGroupUrls = instanceGroupURLs(ref, next, next.InstanceGroupUrls)
		if rollout && next.GetUpgradeSettings().GetStrategy() == containerpb.NodePoolUpdateStrategy_BLUE_GREEN {
			// A rollout with the blue-green strategy moves the nodes to new ("green") instance groups
			// and deletes the old ("blue") ones: GKE "creates a new set of node resources ("green"
			// nodes) with the new node configuration before evicting any workloads on the original
			// resources ("blue" nodes)" (GKE "Node upgrade strategies"), and lists both while the
			// upgrade runs ("During the node pool blue-green upgrade operation, the URLs contain both
			// blue and green resources", container v1 API, NodePool.instance_group_urls). The node pool
			// ends the operation with the green groups alone (the phases between are
			// SetBlueGreenPhase's).
			next.InstanceGroupUrls = instanceGroupURLs(ref, next, nil)
		}
		r.GPUTaint = gpuTaint
		// The fault, when one fired for this call: faults.go lets CreateFailed and Degraded fire
		// only on the operations that can end so (gke_faults.go).
		fail := failureOf(ctx)
		if typ != containerpb.Operation_DELETE_NODE_POOL && count > 0 {
			if rollout {
				fail = w.upgradeFailure(ref, r, next, fail)
			}
			fail = vmLabelFailure(ref, next, cl, fail)
		}
		r.Pending, r.NextStatus, r.FailIssues, r.Degraded, r.PendingNodeCount = next, containerpb.NodePool_RUNNING, fail.issues, fail.degraded, nodeCount
		r.Pool.Status = containerpb.NodePool_RECONCILING
		if typ == containerpb.Operation_DELETE_NODE_POOL {
			r.Pending, r.NextStatus = nil, containerpb.NodePool_STATUS_UNSPECIFIED
			r.Pool.Status = containerpb.NodePool_STOPPING
		}
		r.Due = now.Add(g.sim.opts.TransitionDelay)
		out = g.startOperation(w, ref, typ, ref.poolPath(name), now, fail)
		r.Operation = out.Name
		return nil
	})
	return out, err
}

// GKE API Reference: UpdateNodePool — version (an alias GKE resolves, "-" for the control plane's,
// "latest"), image type, locations, Kubernetes labels and taints (replacing the whole set),
// resource labels, accelerators, machine type, disk, upgrade settings, network tags, workload
// metadata, kubelet and Linux node config. Returns an UPGRADE_NODES operation. One field group per
// request (updateFieldGroups).
func (g *gkeServer) UpdateNodePool(ctx context.Context, req *containerpb.UpdateNodePoolRequest) (*containerpb.Operation, error) {
	ref, name, err := parsePoolRef(req.GetName(), req.GetProjectId(), req.GetZone(), req.GetClusterId(), req.GetNodePoolId())
	if err != nil {
		return nil, err
	}
	if err := checkUpdateFieldGroups(req); err != nil {
		return nil, err
	}
	if err := checkNodeNetworkUpdate(req.GetNodeNetworkConfig()); err != nil {
		return nil, err
	}
	return g.mutatePool(ctx, ref, name, containerpb.Operation_UPGRADE_NODES, nil, recreatesNodes(req),
		func(next *containerpb.NodePool, cl *GKEClusterSeed) error { return applyPoolUpdate(next, req, cl) })
}

func applyPoolUpdate(p *containerpb.NodePool, req *containerpb.UpdateNodePoolRequest, cl *GKEClusterSeed) error {
	if v := req.GetNodeVersion(); v != "" {
		resolved, err := cl.resolveNodeVersion(v)
		if err != nil {
			return err
		}
		p.Version = resolved
	}
	if len(req.GetLocations()) > 0 {
		p.Locations = append([]string(nil), req.GetLocations()...)
	}
	if req.GetUpgradeSettings() != nil {
		p.UpgradeSettings = req.GetUpgradeSettings()
	}
	if err := checkAcceleratorUpdate(p.GetConfig().GetAccelerators(), req.GetAccelerators()); err != nil {
		return err
	}
	applyConfigUpdate(p.Config, req)
	return nil
}

func applyConfigUpdate(c *containerpb.NodeConfig, req *containerpb.UpdateNodePoolRequest) {
	c.ImageType = firstNonEmpty(req.GetImageType(), c.ImageType)
	if req.GetLabels() != nil {
		c.Labels = req.GetLabels().GetLabels()
	}
	if req.GetTaints() != nil {
		c.Taints = req.GetTaints().GetTaints()
	}
	if req.GetResourceLabels() != nil {
		c.ResourceLabels = req.GetResourceLabels().GetLabels()
	}
	if req.GetTags() != nil {
		c.Tags = req.GetTags().GetTags()
	}
	if req.GetWorkloadMetadataConfig() != nil {
		c.WorkloadMetadataConfig = req.GetWorkloadMetadataConfig()
	}
	if req.GetKubeletConfig() != nil {
		c.KubeletConfig = req.GetKubeletConfig()
	}
	if req.GetLinuxNodeConfig() != nil {
		c.LinuxNodeConfig = req.GetLinuxNodeConfig()
	}
	if mt := req.GetMachineType(); mt != "" && mt != c.MachineType {
		// Between accelerator-optimized types the GPUs follow the machine type; otherwise the
		// configured accelerators stay and must suit the new machine type.
		_, oldFixed := fixedGPUMachines[c.MachineType]
		_, newFixed := fixedGPUMachines[mt]
		c.MachineType = mt
		if oldFixed && newFixed && len(req.GetAccelerators()) == 0 {
			prev := c.Accelerators
			c.Accelerators = nil
			fillFixedAccelerators(c)
			carryAcceleratorSettings(prev, c.Accelerators)
		}
	}
	if len(req.GetAccelerators()) > 0 {
		c.Accelerators = mergeAcceleratorUpdate(c.Accelerators, req.GetAccelerators())
	}
	c.DiskType = firstNonEmpty(req.GetDiskType(), c.DiskType)
	if req.GetDiskSizeGb() > 0 {
		c.DiskSizeGb = int32(req.GetDiskSizeGb())
	}
}

// carryAcceleratorSettings keeps the driver, and for the same GPU the partitioning and sharing,
// when a machine type change replaces the implied accelerators.
func carryAcceleratorSettings(prev, next []*containerpb.AcceleratorConfig) {
	if len(prev) == 0 || len(next) == 0 {
		return
	}
	next[0].GpuDriverInstallationConfig = prev[0].GpuDriverInstallationConfig
	if prev[0].GetAcceleratorType() == next[0].GetAcceleratorType() {
		next[0].GpuPartitionSize, next[0].GpuSharingConfig = prev[0].GpuPartitionSize, prev[0].GpuSharingConfig
	}
}

// GKE API Reference: SetNodePoolSize — node_count per zone; returns SET_NODE_POOL_SIZE. The
// size lives in the instance groups, not in the NodePool resource, so it is not visible via
// GetNodePool (see Sim.NodePoolNodeCount).
func (g *gkeServer) SetNodePoolSize(ctx context.Context, req *containerpb.SetNodePoolSizeRequest) (*containerpb.Operation, error) {
	ref, name, err := parsePoolRef(req.GetName(), req.GetProjectId(), req.GetZone(), req.GetClusterId(), req.GetNodePoolId())
	if err != nil {
		return nil, err
	}
	if req.GetNodeCount() < 0 {
		return nil, invalidArg("Invalid value for field 'node_count': %d. Must be non-negative.", req.GetNodeCount())
	}
	return g.mutatePool(ctx, ref, name, containerpb.Operation_SET_NODE_POOL_SIZE, ptr(req.GetNodeCount()), false,
		func(*containerpb.NodePool, *GKEClusterSeed) error { return nil })
}

// GKE API Reference: SetNodePoolAutoscaling — returns an UPDATE_CLUSTER operation.
func (g *gkeServer) SetNodePoolAutoscaling(ctx context.Context, req *containerpb.SetNodePoolAutoscalingRequest) (*containerpb.Operation, error) {
	ref, name, err := parsePoolRef(req.GetName(), req.GetProjectId(), req.GetZone(), req.GetClusterId(), req.GetNodePoolId())
	if err != nil {
		return nil, err
	}
	if req.GetAutoscaling() == nil {
		return nil, invalidArg("Invalid value for field 'autoscaling': required.")
	}
	return g.mutatePool(ctx, ref, name, containerpb.Operation_UPDATE_CLUSTER, nil, false,
		func(next *containerpb.NodePool, _ *GKEClusterSeed) error {
			next.Autoscaling = normalizeAutoscaling(proto.Clone(req.GetAutoscaling()).(*containerpb.NodePoolAutoscaling))
			return nil
		})
}

// GKE API Reference: SetNodePoolManagement — returns SET_NODE_POOL_MANAGEMENT.
func (g *gkeServer) SetNodePoolManagement(ctx context.Context, req *containerpb.SetNodePoolManagementRequest) (*containerpb.Operation, error) {
	ref, name, err := parsePoolRef(req.GetName(), req.GetProjectId(), req.GetZone(), req.GetClusterId(), req.GetNodePoolId())
	if err != nil {
		return nil, err
	}
	if req.GetManagement() == nil {
		return nil, invalidArg("Invalid value for field 'management': required.")
	}
	return g.mutatePool(ctx, ref, name, containerpb.Operation_SET_NODE_POOL_MANAGEMENT, nil, false,
		func(next *containerpb.NodePool, _ *GKEClusterSeed) error {
			next.Management = proto.Clone(req.GetManagement()).(*containerpb.NodeManagement)
			return nil
		})
}

// GKE API Reference: DeleteNodePool — the pool is STOPPING until the DELETE_NODE_POOL
// operation is DONE, then gone.
func (g *gkeServer) DeleteNodePool(ctx context.Context, req *containerpb.DeleteNodePoolRequest) (*containerpb.Operation, error) {
	ref, name, err := parsePoolRef(req.GetName(), req.GetProjectId(), req.GetZone(), req.GetClusterId(), req.GetNodePoolId())
	if err != nil {
		return nil, err
	}
	return g.mutatePool(ctx, ref, name, containerpb.Operation_DELETE_NODE_POOL, nil, false,
		func(*containerpb.NodePool, *GKEClusterSeed) error { return nil })
}
