package cloudsim

import (
	"slices"
	"strconv"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/proto"
)

// What GKE adds to a node pool on its own and returns in GetNodePool and ListNodePools although
// the request did not ask for it — the usual cause of perpetual diffs in Terraform
// (terraform-provider-google issues #7928 and #3786, and the GKE 1.30 driver version diff):
//
//   - The taint nvidia.com/gpu=present:NoSchedule on GPU nodes, unless every node pool of the
//     cluster is a GPU pool ("Run GPUs in Standard node pools": GKE only taints GPU nodes when
//     the cluster has non-GPU nodes to schedule other Pods on). It shows in config.taints
//     (terraform-provider-google's effective_taints, issue #7928).
//   - The resource label goog-gke-node-pool-provisioning-model (GKE "Automatically applied
//     labels").
//   - gpu_driver_installation_config {gpu_driver_version = DEFAULT} for an accelerator created
//     without one on GKE 1.30 or later ("Default on driver installation is applied to new node pool
//     creation in GKE 1.30", GoogleCloudPlatform/magic-modules PR #11152; fillDefaultDriver). A node
//     pool created earlier has none, which reads as GPU_DRIVER_VERSION_UNSPECIFIED ("Default value is
//     to not install any GPU driver", container v1 API, GPUDriverInstallationConfig), and keeps it
//     through upgrades (audit N2).
//
// GKE's own Kubernetes labels (cloud.google.com/gke-accelerator, gke-gpu-driver-version,
// gke-gpu-partition-size, gke-gpu-sharing-strategy, gke-max-shared-clients-per-gpu, gke-spot,
// gke-nodepool) are on the Kubernetes nodes, not in the API's config.labels:
// terraform-provider-google, google/services/container/node_config.go, "GKE only applies its own
// out-of-band labels when you enable Sandbox" (audit A.13). Sim.NodeLabels shows them.
//
// Updates replace the user's taints and resource labels; GKE's own stay, and follow the new
// accelerator, sharing, driver and spot settings.

// GKE's own Kubernetes labels and resource label.
const (
	labelAccelerator      = "cloud.google.com/gke-accelerator"
	labelDriverVersion    = "cloud.google.com/gke-gpu-driver-version"
	labelPartitionSize    = "cloud.google.com/gke-gpu-partition-size"
	labelSharingStrategy  = "cloud.google.com/gke-gpu-sharing-strategy"
	labelMaxSharedClients = "cloud.google.com/gke-max-shared-clients-per-gpu"
	labelSpot             = "cloud.google.com/gke-spot"
	labelProvisioning     = "goog-gke-node-pool-provisioning-model"
)

// gkeGPUTaint is the taint GKE puts on the nodes of GPU pools.
func gkeGPUTaint() *containerpb.NodeTaint {
	return &containerpb.NodeTaint{Key: "nvidia.com/gpu", Value: "present", Effect: containerpb.NodeTaint_NO_SCHEDULE}
}

func isGPUPool(p *containerpb.NodePool) bool { return len(p.GetConfig().GetAccelerators()) > 0 }

// gkeOwnLabels returns the Kubernetes labels GKE puts on a node pool's nodes beside the pool's own.
func gkeOwnLabels(c *containerpb.NodeConfig) map[string]string {
	out := map[string]string{}
	if c.GetSpot() {
		out[labelSpot] = "true"
	}
	accs := c.GetAccelerators()
	if len(accs) == 0 {
		return out
	}
	acc := accs[0]
	out[labelAccelerator] = acc.GetAcceleratorType()
	switch acc.GetGpuDriverInstallationConfig().GetGpuDriverVersion() {
	case containerpb.GPUDriverInstallationConfig_DEFAULT:
		out[labelDriverVersion] = "default"
	case containerpb.GPUDriverInstallationConfig_LATEST:
		out[labelDriverVersion] = "latest"
	}
	if size := acc.GetGpuPartitionSize(); size != "" {
		out[labelPartitionSize] = size
	}
	if sc := acc.GetGpuSharingConfig(); sc != nil {
		out[labelSharingStrategy] = "time-sharing"
		if sc.GetGpuSharingStrategy() == containerpb.GPUSharingConfig_MPS {
			out[labelSharingStrategy] = "mps"
		}
		out[labelMaxSharedClients] = strconv.FormatInt(sc.GetMaxSharedClientsPerGpu(), 10)
	}
	return out
}

// stripGKEOwn removes what GKE added (its taint only when it added it), leaving the
// configuration as the user set it: validation judges the user's taints and resource labels
// alone, and GKE's own entries sent back by a client are not kept as the user's.
func stripGKEOwn(c *containerpb.NodeConfig, gpuTaint bool) {
	delete(c.ResourceLabels, labelProvisioning)
	if gpuTaint {
		own := gkeGPUTaint()
		c.Taints = slices.DeleteFunc(c.Taints, func(t *containerpb.NodeTaint) bool { return proto.Equal(t, own) })
	}
}

// addGKEOwn adds GKE's own entries to a node configuration; gpuTaint says whether GKE taints
// the pool's GPU nodes.
func addGKEOwn(c *containerpb.NodeConfig, gpuTaint bool) {
	model := "on-demand"
	if c.GetSpot() {
		model = "spot"
	}
	c.ResourceLabels = mergeLabels(c.ResourceLabels, map[string]string{labelProvisioning: model})
	own := gkeGPUTaint()
	if gpuTaint && len(c.GetAccelerators()) > 0 && !slices.ContainsFunc(c.Taints, func(t *containerpb.NodeTaint) bool {
		return t.GetKey() == own.GetKey() && t.GetEffect() == own.GetEffect()
	}) {
		c.Taints = append(c.Taints, own)
	}
}

func mergeLabels(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]string{}
	}
	for k, v := range src {
		dst[k] = v
	}
	return dst
}

// hasNonGPUPool reports whether a cluster has a node pool without GPUs other than the named one.
func (w *world) hasNonGPUPool(ref clusterRef, except string) bool {
	for _, r := range poolsOf(w, ref) {
		if r.Pool.GetName() != except && !isGPUPool(r.Pool) {
			return true
		}
	}
	return false
}

// settlePool validates a node pool as the user set it and adds GKE's own entries. gpuTaint is
// the pool's record of whether GKE taints its GPU nodes: decided when the pool gets GPUs while
// the cluster has a non-GPU pool, and kept from then on, as the nodes keep their taint.
func (w *world) settlePool(ref clusterRef, pool *containerpb.NodePool, cl *GKEClusterSeed, project *GCPProjectSeed, gpuTaint *bool) error {
	stripGKEOwn(pool.Config, *gpuTaint)
	if err := validateNodePool(pool, cl, project, ref.project, w.Seed); err != nil {
		return err
	}
	if isGPUPool(pool) && !*gpuTaint {
		*gpuTaint = w.hasNonGPUPool(ref, pool.GetName())
	}
	addGKEOwn(pool.Config, *gpuTaint)
	return nil
}

// fillDefaultDriver gives the accelerators of a node pool created at version the default driver
// when the request named none: GKE does so for node pools created on 1.30 or later (see above).
func fillDefaultDriver(c *containerpb.NodeConfig, version string) {
	if v, ok := parseGKEVersion(version); !ok || v.major == 1 && v.minor < 30 {
		return
	}
	for _, acc := range c.GetAccelerators() {
		if acc.GpuDriverInstallationConfig == nil {
			acc.GpuDriverInstallationConfig = &containerpb.GPUDriverInstallationConfig{
				GpuDriverVersion: containerpb.GPUDriverInstallationConfig_DEFAULT.Enum()}
		}
	}
}
