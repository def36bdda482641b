package gke

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// updateGroup is one UpdateNodePool field group: build returns the request that brings the node
// pool to cfg for that group alone, nil when it already is.
type updateGroup struct {
	field string
	build func(np *containerpb.NodePool, cfg sideConfig, version string) *containerpb.UpdateNodePoolRequest
}

// updateGroups are the UpdateNodePool calls of an update, one field group each, as
// terraform-provider-google sends them (node_config.go: resource_labels, labels, taints,
// machine_type, guest_accelerator; resource_container_node_pool.go: upgrade_settings, version,
// node_locations) and gcloud container node-pools update takes them (exactly one of
// --node-labels, --node-taints, --labels, --accelerator, --machine-type, --node-locations, the
// upgrade flags per call). upgrade_settings comes first, so that the rollouts of the same apply
// (machine type, accelerators, version) use the new strategy. locations comes last and always
// alone: the container v1 API warns that combined with other fields "the API performs a structural
// modification where changes to other fields will only apply to newly created nodes"
// (UpdateNodePoolRequest.locations) — the running nodes would keep, say, their old client taint.
//
// Whether GKE would take the node-recreating groups (machine type, accelerators, version) in one
// request, recreating the nodes once, is documented nowhere, and neither gcloud nor
// terraform-provider-google sends them so (audit N8): each is a rollout of its own, which the plan
// counts (addRolloutWarning). Labels, taints, resource labels, sizes and zones recreate no node.
var updateGroups = []updateGroup{
	{"upgrade_settings", func(np *containerpb.NodePool, cfg sideConfig, _ string) *containerpb.UpdateNodePoolRequest {
		if want := cfg.NodePool.GetUpgradeSettings(); upgradeSettingsDiffer(np.GetUpgradeSettings(), want) {
			return &containerpb.UpdateNodePoolRequest{UpgradeSettings: want}
		}
		return nil
	}},
	{"resource_labels", func(np *containerpb.NodePool, cfg sideConfig, _ string) *containerpb.UpdateNodePoolRequest {
		if want := cfg.NodePool.GetConfig().GetResourceLabels(); !maps.Equal(userResourceLabels(np), want) {
			return &containerpb.UpdateNodePoolRequest{ResourceLabels: &containerpb.ResourceLabels{Labels: want}}
		}
		return nil
	}},
	{"labels", func(np *containerpb.NodePool, cfg sideConfig, _ string) *containerpb.UpdateNodePoolRequest {
		if want := cfg.NodePool.GetConfig().GetLabels(); !maps.Equal(userLabels(np), want) {
			return &containerpb.UpdateNodePoolRequest{Labels: &containerpb.NodeLabels{Labels: want}}
		}
		return nil
	}},
	{"taints", func(np *containerpb.NodePool, cfg sideConfig, _ string) *containerpb.UpdateNodePoolRequest {
		want := cfg.NodePool.GetConfig()
		if !slices.Equal(withoutGKETaint(poolTaints(np.GetConfig().GetTaints()), want), poolTaints(want.GetTaints())) {
			return &containerpb.UpdateNodePoolRequest{Taints: &containerpb.NodeTaints{Taints: want.GetTaints()}}
		}
		return nil
	}},
	{"machine_type", func(np *containerpb.NodePool, cfg sideConfig, _ string) *containerpb.UpdateNodePoolRequest {
		if mt := cfg.NodePool.GetConfig().GetMachineType(); mt != np.GetConfig().GetMachineType() {
			return &containerpb.UpdateNodePoolRequest{MachineType: mt}
		}
		return nil
	}},
	// The driver and GPU sharing change in place through UpdateNodePoolRequest.accelerators (gcloud
	// container node-pools update --accelerator=type=…,count=…,gpu-driver-version=…,
	// gpu-sharing-strategy=…,max-shared-clients-per-gpu=…; magic-modules PR #18493, tested against
	// GKE). The GPU type and count, the MIG partition size, and removing sharing replace the pool
	// (replacedBy).
	{"accelerators", func(np *containerpb.NodePool, cfg sideConfig, _ string) *containerpb.UpdateNodePoolRequest {
		want := cfg.NodePool.GetConfig().GetAccelerators()
		if accs := np.GetConfig().GetAccelerators(); len(accs) > 0 && len(want) > 0 && !acceleratorSettingsEqual(accs[0], want[0]) {
			return &containerpb.UpdateNodePoolRequest{Accelerators: want}
		}
		return nil
	}},
	{"node_version", func(np *containerpb.NodePool, _ sideConfig, version string) *containerpb.UpdateNodePoolRequest {
		if version != "" && !versionAtLeast(np.GetVersion(), version) {
			return &containerpb.UpdateNodePoolRequest{NodeVersion: version}
		}
		return nil
	}},
	{"locations", func(np *containerpb.NodePool, cfg sideConfig, _ string) *containerpb.UpdateNodePoolRequest {
		if locs := cfg.NodePool.GetLocations(); len(locs) > 0 && !sameSet(locs, np.GetLocations()) {
			return &containerpb.UpdateNodePoolRequest{Locations: locs}
		}
		return nil
	}},
}

// updateSide brings an existing node pool to cfg: one UpdateNodePool per field group (updateGroups),
// the limits through SetNodePoolAutoscaling, the size through SetNodePoolSize (targetSize). Each
// operation is waited for and the node pool read again: an operation that leaves it ERROR or
// RUNNING_WITH_ERROR (a resize or new limits that stock out) fails the update with GKE's message
// (audit N13), and the later calls are not sent. A node pool RUNNING_WITH_ERROR that needs no
// change gets its size sent again, the request GKE's status asks for ("Customer may need to reissue
// a request or trigger a new update", container v1 API, NodePool.Status).
func updateSide(ctx context.Context, c *clients, m *nodePoolModel, cluster clusterRef, np *containerpb.NodePool, cfg sideConfig) error {
	version := m.KubernetesVersion.ValueString()
	sent := false
	for _, g := range updateGroups {
		var changed bool
		var err error
		if np, changed, err = updateGroupOf(ctx, c, cluster, np, cfg, version, g); err != nil {
			return err
		}
		sent = sent || changed
	}
	if want := cfg.NodePool.GetAutoscaling(); autoscalingDiffers(np.GetAutoscaling(), want) {
		var err error
		np, err = mutateAndCheck(ctx, c, cluster, cfg.Name, "SetNodePoolAutoscaling", func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error) {
			return c.gke.SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{Name: cluster.poolName(cfg.Name), Autoscaling: want}, opts...)
		})
		if err != nil {
			return err
		}
		sent = true
	}
	current, err := currentSize(ctx, c.compute, np)
	if err != nil {
		return err
	}
	zones := len(np.GetLocations())
	target := targetSize(current, zones, cfg)
	if current == target && (sent || np.GetStatus() != containerpb.NodePool_RUNNING_WITH_ERROR) {
		return poolHealth(np)
	}
	_, err = mutateAndCheck(ctx, c, cluster, cfg.Name, "SetNodePoolSize", func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error) {
		return c.gke.SetNodePoolSize(ctx, &containerpb.SetNodePoolSizeRequest{Name: cluster.poolName(cfg.Name), NodeCount: int32(pool.PerZone(target, zones))}, opts...)
	})
	return err
}

// mutateAndCheck runs one operation on a node pool (call names it in errors) and returns the node
// pool as GKE then holds it, or an error when the operation failed or left it in error.
func mutateAndCheck(ctx context.Context, c *clients, cluster clusterRef, name, call string,
	start func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error)) (*containerpb.NodePool, error) {
	if err := mutate(ctx, c.gke, cluster, name, c.poll, start); err != nil {
		return nil, withPoolHealth(ctx, c, cluster, name, fmt.Errorf("%s: %w", call, err))
	}
	np, err := findNodePool(ctx, c.gke, cluster, name)
	if err != nil {
		return nil, err
	}
	if err := poolHealth(np); err != nil {
		return np, fmt.Errorf("%s: %w", call, err)
	}
	return np, nil
}

// updateGroupOf sends one field group's UpdateNodePool when the node pool differs from cfg in it,
// and returns the node pool as GKE then holds it, and whether it sent one. The request carries the
// etag of the node pool it was built from: when someone changed the node pool in between, GKE
// answers ABORTED, and the request is built again from a fresh read.
func updateGroupOf(ctx context.Context, c *clients, cluster clusterRef, np *containerpb.NodePool, cfg sideConfig, version string, g updateGroup) (*containerpb.NodePool, bool, error) {
	for attempt := 1; ; attempt++ {
		in := g.build(np, cfg, version)
		if in == nil {
			return np, attempt > 1, nil
		}
		in.Name, in.Etag = cluster.poolName(cfg.Name), np.GetEtag()
		err := mutate(ctx, c.gke, cluster, cfg.Name, c.poll, func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error) {
			return c.gke.UpdateNodePool(ctx, in, opts...)
		})
		conflict := status.Code(err) == codes.Aborted && attempt < maxEtagAttempts
		if err != nil && !conflict {
			return np, true, withPoolHealth(ctx, c, cluster, cfg.Name, fmt.Errorf("UpdateNodePool (%s): %w", g.field, err))
		}
		// Re-read: after a conflict, and after an update (a new etag; new zones bring new instance
		// groups).
		fresh, err := findNodePool(ctx, c.gke, cluster, cfg.Name)
		if err != nil {
			return np, true, err
		}
		np = fresh
		if herr := poolHealth(np); herr != nil && !conflict {
			return np, true, fmt.Errorf("UpdateNodePool (%s): %w", g.field, herr)
		}
	}
}

// withPoolHealth adds to an operation's error what state the node pool is left in, when that is
// an error state.
func withPoolHealth(ctx context.Context, c *clients, cluster clusterRef, name string, err error) error {
	np, ferr := findNodePool(context.WithoutCancel(ctx), c.gke, cluster, name)
	if ferr != nil {
		return err
	}
	if herr := poolHealth(np); herr != nil && !strings.Contains(err.Error(), herr.Error()) {
		return fmt.Errorf("%w; %w", err, herr)
	}
	return err
}

// withoutGKETaint drops the GPU taint GKE adds itself when gpufleet does not ask for it.
func withoutGKETaint(current []pool.Taint, want *containerpb.NodeConfig) []pool.Taint {
	if slices.ContainsFunc(want.GetTaints(), func(t *containerpb.NodeTaint) bool { return t.GetKey() == pool.TaintGPU }) {
		return current
	}
	return slices.DeleteFunc(current, func(t pool.Taint) bool { return t.Key == pool.TaintGPU })
}

// acceleratorSettingsEqual compares what UpdateNodePoolRequest.accelerators changes in place:
// the driver (as driverOf reads it) and sharing. A partition size that differs is a replacement
// (replacedBy), never an update GKE refuses.
func acceleratorSettingsEqual(a, b *containerpb.AcceleratorConfig) bool {
	sa, sb := a.GetGpuSharingConfig(), b.GetGpuSharingConfig()
	return driverOf(a) == driverOf(b) &&
		(sa == nil) == (sb == nil) && sa.GetGpuSharingStrategy() == sb.GetGpuSharingStrategy() && sa.GetMaxSharedClientsPerGpu() == sb.GetMaxSharedClientsPerGpu()
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// versionParts reads a GKE version or alias ("1.31", "1.31.5", "1.31.5-gke.1023000") into its
// numbers, major first; nil when it is none.
func versionParts(v string) []int {
	base, gkePatch, explicit := strings.Cut(v, "-gke.")
	fields := strings.Split(base, ".")
	if explicit {
		fields = append(fields, gkePatch)
	}
	out := make([]int, 0, len(fields))
	for _, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// versionAtLeast reports whether nodes running version running satisfy a configured version: the
// same, one it names (GKE resolves "1.31" to a 1.31 patch and "1.31.5" to a 1.31.5-gke.N, container
// v1 API, UpdateNodePoolRequest.node_version), or a later one (node auto-upgrade, on by default and
// mandatory on release channels, moves nodes forward; GKE does not move a node pool back a minor
// version, and gpufleet never asks it to).
func versionAtLeast(running, configured string) bool {
	r, w := versionParts(running), versionParts(configured)
	if r == nil || w == nil {
		return running == configured
	}
	for i, n := range w {
		switch {
		case i >= len(r):
			return false
		case r[i] != n:
			return r[i] > n
		}
	}
	return true
}
