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
// update keeps the old configuration and marks the pool RUNNING_WITH_ERROR.
func (w *world) finishNodePool(key string, r *npRecord) {
	if r.NextStatus == containerpb.NodePool_STATUS_UNSPECIFIED {
		delete(w.NodePools, key)
		return
	}
	if len(r.FailIssues) > 0 {
		if r.Pool.Status == containerpb.NodePool_PROVISIONING {
			r.Pool.Status = containerpb.NodePool_ERROR
		} else {
			r.Pool.Status = containerpb.NodePool_RUNNING_WITH_ERROR
		}
		r.Pool.StatusMessage = issueMessage(r.FailIssues)
		r.Pool.Conditions = conditions(r.FailIssues)
	} else {
		if r.Pending != nil {
			r.Pool = r.Pending
		}
		if r.PendingNodeCount != nil {
			r.NodeCount = *r.PendingNodeCount
		}
		r.NodeCount = clampNodeCount(r.Pool, r.NodeCount)
		r.Pool.Status, r.Pool.StatusMessage, r.Pool.Conditions = r.NextStatus, "", nil
	}
	r.Pool.Etag = randomHex(16)
	r.Due, r.Pending, r.PendingNodeCount, r.FailIssues, r.Operation = time.Time{}, nil, nil, nil, ""
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

func failedIssues(ctx context.Context) []HealthIssue {
	f, _ := ctx.Value(failedKey{}).(*Fault)
	if f == nil {
		return nil
	}
	if len(f.HealthIssues) == 0 {
		return []HealthIssue{IssueGCEStockout}
	}
	return append([]HealthIssue(nil), f.HealthIssues...)
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
		var gpuTaint bool
		if err := w.settlePool(ref, pool, cl, project, &gpuTaint); err != nil {
			return err
		}
		if w.NodePools[ref.poolPath(pool.Name)] != nil {
			return status.Errorf(codes.AlreadyExists, "Already exists: %s.", ref.poolPath(pool.Name))
		}
		if err := g.checkNoRunningOp(w, ref); err != nil {
			return err
		}
		out = g.createPool(w, ref, pool, gpuTaint, now, failedIssues(ctx))
		return nil
	})
	return out, err
}

func (g *gkeServer) createPool(w *world, ref clusterRef, pool *containerpb.NodePool, gpuTaint bool, now time.Time, fail []HealthIssue) *containerpb.Operation {
	r := w.addPool(ref, pool, containerpb.NodePool_PROVISIONING, gpuTaint)
	r.Due, r.NextStatus, r.FailIssues = now.Add(g.sim.opts.TransitionDelay), containerpb.NodePool_RUNNING, fail
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
		NodeCount: clampNodeCount(pool, pool.InitialNodeCount), GPUTaint: gpuTaint}
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

// clampNodeCount keeps an autoscaled pool's per-zone size within its limits (GKE API
// Reference: NodePoolAutoscaling — min/max_node_count per zone, total_min/total_max_node_count
// across the pool's zones). Sizes are per zone here, so total limits are divided by the zone
// count; when they cannot both hold, the maximum wins.
func clampNodeCount(pool *containerpb.NodePool, n int32) int32 {
	a := pool.GetAutoscaling()
	if !a.GetEnabled() {
		return n
	}
	lo, hi := a.GetMinNodeCount(), a.GetMaxNodeCount()
	if zones := int32(len(pool.GetLocations())); zones > 0 && (a.GetTotalMinNodeCount() != 0 || a.GetTotalMaxNodeCount() != 0) {
		lo, hi = (a.GetTotalMinNodeCount()+zones-1)/zones, a.GetTotalMaxNodeCount()/zones
	}
	n = max(n, lo)
	if hi > 0 {
		n = min(n, hi)
	}
	return n
}

// mutatePool is the common path of the node pool update RPCs: find the pool, refuse while
// another operation runs, compute the pool as it will be, validate it and start the operation.
// The pool is RECONCILING (or STOPPING) until the operation completes.
// nodeCount, when set, is the per-zone size the operation sets (SetNodePoolSize).
func (g *gkeServer) mutatePool(ctx context.Context, ref clusterRef, name string, typ containerpb.Operation_Type,
	nodeCount *int32, change func(next *containerpb.NodePool, cl *GKEClusterSeed)) (*containerpb.Operation, error) {
	var out *containerpb.Operation
	err := g.do(true, func(w *world, now time.Time) error {
		r, cl, project, err := g.pool(w, ref, name)
		if err != nil {
			return err
		}
		if err := g.checkNoRunningOp(w, ref); err != nil {
			return err
		}
		if typ != containerpb.Operation_DELETE_NODE_POOL && r.Pool.Status != containerpb.NodePool_RUNNING &&
			r.Pool.Status != containerpb.NodePool_RUNNING_WITH_ERROR {
			return status.Errorf(codes.FailedPrecondition, "Node pool %s is not ready for updates (status %s).", name, r.Pool.Status)
		}
		next := proto.Clone(r.Pool).(*containerpb.NodePool)
		change(next, cl)
		gpuTaint := r.GPUTaint
		if err := w.settlePool(ref, next, cl, project, &gpuTaint); err != nil {
			return err
		}
		next.InstanceGroupUrls = instanceGroupURLs(ref, next, next.InstanceGroupUrls)
		r.GPUTaint = gpuTaint
		var fail []HealthIssue
		if typ == containerpb.Operation_UPGRADE_NODES {
			fail = failedIssues(ctx)
		}
		r.Pending, r.NextStatus, r.FailIssues, r.PendingNodeCount = next, containerpb.NodePool_RUNNING, fail, nodeCount
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

// GKE API Reference: UpdateNodePool — version ("-" or "latest" for the control plane's),
// image type, locations, Kubernetes labels and taints (replacing the whole set), resource
// labels, accelerators, machine type, disk, upgrade settings, network tags, workload metadata,
// kubelet and Linux node config. Returns an UPGRADE_NODES operation.
func (g *gkeServer) UpdateNodePool(ctx context.Context, req *containerpb.UpdateNodePoolRequest) (*containerpb.Operation, error) {
	ref, name, err := parsePoolRef(req.GetName(), req.GetProjectId(), req.GetZone(), req.GetClusterId(), req.GetNodePoolId())
	if err != nil {
		return nil, err
	}
	return g.mutatePool(ctx, ref, name, containerpb.Operation_UPGRADE_NODES, nil,
		func(next *containerpb.NodePool, cl *GKEClusterSeed) { applyPoolUpdate(next, req, cl) })
}

func applyPoolUpdate(p *containerpb.NodePool, req *containerpb.UpdateNodePoolRequest, cl *GKEClusterSeed) {
	c := p.Config
	switch v := req.GetNodeVersion(); v {
	case "":
	case "-", "latest":
		p.Version = cl.Version
	default:
		p.Version = v
	}
	if len(req.GetLocations()) > 0 {
		p.Locations = append([]string(nil), req.GetLocations()...)
	}
	if req.GetUpgradeSettings() != nil {
		p.UpgradeSettings = req.GetUpgradeSettings()
	}
	applyConfigUpdate(c, req)
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
		c.Accelerators = req.GetAccelerators()
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
	return g.mutatePool(ctx, ref, name, containerpb.Operation_SET_NODE_POOL_SIZE, ptr(req.GetNodeCount()),
		func(*containerpb.NodePool, *GKEClusterSeed) {})
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
	return g.mutatePool(ctx, ref, name, containerpb.Operation_UPDATE_CLUSTER, nil,
		func(next *containerpb.NodePool, _ *GKEClusterSeed) {
			next.Autoscaling = proto.Clone(req.GetAutoscaling()).(*containerpb.NodePoolAutoscaling)
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
	return g.mutatePool(ctx, ref, name, containerpb.Operation_SET_NODE_POOL_MANAGEMENT, nil,
		func(next *containerpb.NodePool, _ *GKEClusterSeed) {
			next.Management = proto.Clone(req.GetManagement()).(*containerpb.NodeManagement)
		})
}

// GKE API Reference: DeleteNodePool — the pool is STOPPING until the DELETE_NODE_POOL
// operation is DONE, then gone.
func (g *gkeServer) DeleteNodePool(ctx context.Context, req *containerpb.DeleteNodePoolRequest) (*containerpb.Operation, error) {
	ref, name, err := parsePoolRef(req.GetName(), req.GetProjectId(), req.GetZone(), req.GetClusterId(), req.GetNodePoolId())
	if err != nil {
		return nil, err
	}
	return g.mutatePool(ctx, ref, name, containerpb.Operation_DELETE_NODE_POOL, nil,
		func(*containerpb.NodePool, *GKEClusterSeed) {})
}
