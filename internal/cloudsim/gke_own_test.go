package cloudsim

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
)

// withDefaultPool seeds the us-central1 cluster with a non-GPU default-pool, as GKE creates
// clusters.
func withDefaultPool(o *Options) {
	o.Seed.GCP.Projects["acme-ml"].Clusters[0].NodePools = []GKENodePoolSeed{{Name: "default-pool", MachineType: "e2-standard-4", NodeCount: 2}}
}

// untaintedL4 is l4Pool without the user's nvidia.com/gpu taint.
func untaintedL4(name string) *containerpb.NodePool {
	p := l4Pool(name)
	p.Config.Taints = nil
	return p
}

func wantMap(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if !maps.Equal(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func wantTaints(t *testing.T, got []*containerpb.NodeTaint, want ...*containerpb.NodeTaint) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = proto.Equal(got[i], want[i])
	}
	if !ok {
		t.Errorf("taints = %v, want %v", got, want)
	}
}

func updatePool(t *testing.T, c *container.ClusterManagerClient, req *containerpb.UpdateNodePoolRequest) *containerpb.NodePool {
	t.Helper()
	req.Name = gkeParent + "/nodePools/" + req.Name
	op, err := c.UpdateNodePool(ctxT(t), req)
	if err != nil {
		t.Fatalf("UpdateNodePool: %v", err)
	}
	waitOperation(t, c, op)
	p, err := c.GetNodePool(ctxT(t), &containerpb.GetNodePoolRequest{Name: req.Name})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// GKE "Run GPUs in Standard node pools", "About GPU sharing strategies", "Running
// multi-instance GPUs", "Spot VMs": GPU pools' nodes gain GKE's accelerator, driver, partition and
// sharing labels, spot pools' gke-spot, none of them in config.labels; every pool gets the
// provisioning model resource label, and GPU pools of a cluster with a non-GPU pool the
// nvidia.com/gpu taint (once).
func TestGKE_CreateNodePool_AddsGKEOwnLabelsAndTaints(t *testing.T) {
	t.Parallel()
	sim := newSim(t, withDefaultPool)
	c := gkeClient(t, sim)
	l4 := untaintedL4("l4-latest")
	a100 := &containerpb.NodePool{Name: "a100-spot", InitialNodeCount: 1, Locations: []string{"us-central1-a"}, Config: &containerpb.NodeConfig{MachineType: "a2-highgpu-1g", Spot: true,
		Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-tesla-a100", AcceleratorCount: 1, GpuPartitionSize: "1g.5gb",
			GpuSharingConfig: &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: 2, GpuSharingStrategy: containerpb.GPUSharingConfig_TIME_SHARING.Enum()}}}}}
	t4 := &containerpb.NodePool{Name: "t4-mps", InitialNodeCount: 1, Locations: []string{"us-central1-f"}, Config: &containerpb.NodeConfig{MachineType: "n1-standard-8",
		Taints: []*containerpb.NodeTaint{gkeGPUTaint()},
		Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-tesla-t4", AcceleratorCount: 1,
			GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: containerpb.GPUDriverInstallationConfig_INSTALLATION_DISABLED.Enum()},
			GpuSharingConfig:            &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: 48, GpuSharingStrategy: containerpb.GPUSharingConfig_MPS.Enum()}}}}}
	cpuSpot := &containerpb.NodePool{Name: "cpu-spot", InitialNodeCount: 1, Config: &containerpb.NodeConfig{MachineType: "e2-standard-8", Spot: true}}
	for _, p := range []*containerpb.NodePool{l4, a100, t4, cpuSpot} {
		waitOperation(t, c, createPool(t, c, p))
	}
	list, err := c.ListNodePools(ctxT(t), &containerpb.ListNodePoolsRequest{Parent: gkeParent})
	if err != nil || len(list.GetNodePools()) != 5 {
		t.Fatalf("ListNodePools = %v %v", list, err)
	}
	for _, p := range list.GetNodePools() {
		if !proto.Equal(p, getPool(t, c, p.GetName())) {
			t.Errorf("%s: ListNodePools and GetNodePool differ", p.GetName())
		}
	}
	p := getPool(t, c, "default-pool")
	wantMap(t, "default-pool labels", p.GetConfig().GetLabels(), nil)
	wantMap(t, "default-pool resource labels", p.GetConfig().GetResourceLabels(), map[string]string{labelProvisioning: "on-demand"})
	wantTaints(t, p.GetConfig().GetTaints())

	nodeLabels := func(name string) map[string]string {
		l, _ := sim.NodeLabels("acme-ml", "us-central1", "ml", name)
		return l
	}
	p = getPool(t, c, "l4-latest")
	wantMap(t, "l4 labels", p.GetConfig().GetLabels(), map[string]string{"gpufleet.io/client": "acme"})
	wantMap(t, "l4 node labels", nodeLabels("l4-latest"), map[string]string{"gpufleet.io/client": "acme", "cloud.google.com/gke-nodepool": "l4-latest",
		"cloud.google.com/gke-accelerator": "nvidia-l4", "cloud.google.com/gke-gpu-driver-version": "latest"})
	wantMap(t, "l4 resource labels", p.GetConfig().GetResourceLabels(), map[string]string{"gpufleet-client": "acme", "goog-gke-node-pool-provisioning-model": "on-demand"})
	wantTaints(t, p.GetConfig().GetTaints(), &containerpb.NodeTaint{Key: "nvidia.com/gpu", Value: "present", Effect: containerpb.NodeTaint_NO_SCHEDULE})

	p = getPool(t, c, "a100-spot")
	wantMap(t, "a100 labels", p.GetConfig().GetLabels(), nil)
	wantMap(t, "a100 node labels", nodeLabels("a100-spot"), map[string]string{"cloud.google.com/gke-nodepool": "a100-spot", "cloud.google.com/gke-accelerator": "nvidia-tesla-a100",
		"cloud.google.com/gke-gpu-driver-version": "default", "cloud.google.com/gke-gpu-partition-size": "1g.5gb",
		"cloud.google.com/gke-gpu-sharing-strategy": "time-sharing", "cloud.google.com/gke-max-shared-clients-per-gpu": "2",
		"cloud.google.com/gke-spot": "true"})
	wantMap(t, "a100 resource labels", p.GetConfig().GetResourceLabels(), map[string]string{"goog-gke-node-pool-provisioning-model": "spot"})
	if d := p.GetConfig().GetAccelerators()[0].GetGpuDriverInstallationConfig(); d.GetGpuDriverVersion() != containerpb.GPUDriverInstallationConfig_DEFAULT {
		t.Errorf("a100 driver config = %v, want DEFAULT filled in", d)
	}
	wantTaints(t, p.GetConfig().GetTaints(), gkeGPUTaint())

	p = getPool(t, c, "t4-mps")
	wantMap(t, "t4 labels", p.GetConfig().GetLabels(), nil)
	wantMap(t, "t4 node labels", nodeLabels("t4-mps"), map[string]string{"cloud.google.com/gke-nodepool": "t4-mps", "cloud.google.com/gke-accelerator": "nvidia-tesla-t4",
		"cloud.google.com/gke-gpu-sharing-strategy": "mps", "cloud.google.com/gke-max-shared-clients-per-gpu": "48"})
	wantTaints(t, p.GetConfig().GetTaints(), gkeGPUTaint())

	p = getPool(t, c, "cpu-spot")
	wantMap(t, "cpu-spot labels", p.GetConfig().GetLabels(), nil)
	wantMap(t, "cpu-spot node labels", nodeLabels("cpu-spot"), map[string]string{"cloud.google.com/gke-nodepool": "cpu-spot", "cloud.google.com/gke-spot": "true"})
	wantMap(t, "cpu-spot resource labels", p.GetConfig().GetResourceLabels(), map[string]string{"goog-gke-node-pool-provisioning-model": "spot"})
	wantTaints(t, p.GetConfig().GetTaints())
}

// GKE API Reference: UpdateNodePool — labels, taints and resource labels replace the user's
// set; GKE's own entries stay (once, also when a client sends them back) and follow an
// accelerator change; limits count only what the user sent.
func TestGKE_UpdateNodePool_KeepsGKEOwnLabels(t *testing.T) {
	t.Parallel()
	sim := newSim(t, withDefaultPool)
	c := gkeClient(t, sim)
	runningPool(t, c, untaintedL4("l4-od"))
	nodeLabels := func() map[string]string {
		l, _ := sim.NodeLabels("acme-ml", "us-central1", "ml", "l4-od")
		return l
	}

	p := updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-od", Labels: &containerpb.NodeLabels{Labels: map[string]string{"team": "ml"}}})
	wantMap(t, "labels", p.GetConfig().GetLabels(), map[string]string{"team": "ml"})
	wantMap(t, "node labels", nodeLabels(), map[string]string{"team": "ml", "cloud.google.com/gke-nodepool": "l4-od",
		"cloud.google.com/gke-accelerator": "nvidia-l4", "cloud.google.com/gke-gpu-driver-version": "latest"})

	dedicated := &containerpb.NodeTaint{Key: "dedicated", Value: "ml", Effect: containerpb.NodeTaint_NO_EXECUTE}
	p = updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-od", Taints: &containerpb.NodeTaints{Taints: []*containerpb.NodeTaint{dedicated}}})
	wantTaints(t, p.GetConfig().GetTaints(), dedicated, gkeGPUTaint())
	p = updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-od", Taints: &containerpb.NodeTaints{Taints: p.GetConfig().GetTaints()}})
	wantTaints(t, p.GetConfig().GetTaints(), dedicated, gkeGPUTaint())
	p = updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-od", Taints: &containerpb.NodeTaints{}})
	wantTaints(t, p.GetConfig().GetTaints(), gkeGPUTaint())

	// The node pool's 64 resource labels pass the API's own limit; its nodes' VMs, which carry
	// GKE's labels too, do not: the update's operation fails (vmLabelFailure).
	user := map[string]string{}
	for i := range 63 {
		user[fmt.Sprintf("label-%02d", i)] = "x"
	}
	sent := mergeLabels(maps.Clone(user), map[string]string{labelProvisioning: "on-demand"})
	p = updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-od", ResourceLabels: &containerpb.ResourceLabels{Labels: sent}})
	if p.GetStatus() != containerpb.NodePool_RUNNING_WITH_ERROR || !strings.Contains(p.GetStatusMessage(), "Invalid value for field 'resource.labels'") {
		t.Fatalf("pool after 64 resource labels = %v %q", p.GetStatus(), p.GetStatusMessage())
	}
	user["label-63"], user["label-64"] = "x", "x"
	_, err := c.UpdateNodePool(ctxT(t), &containerpb.UpdateNodePoolRequest{Name: gkeParent + "/nodePools/l4-od", ResourceLabels: &containerpb.ResourceLabels{Labels: user}})
	wantCode(t, err, codes.InvalidArgument, "at most 64 labels are allowed, got 65")

	updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-od", Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-l4", AcceleratorCount: 1,
		GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: containerpb.GPUDriverInstallationConfig_INSTALLATION_DISABLED.Enum()},
		GpuSharingConfig:            &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: 4, GpuSharingStrategy: containerpb.GPUSharingConfig_MPS.Enum()}}}})
	wantMap(t, "node labels after an accelerator change", nodeLabels(), map[string]string{"team": "ml", "cloud.google.com/gke-nodepool": "l4-od",
		"cloud.google.com/gke-accelerator": "nvidia-l4", "cloud.google.com/gke-gpu-sharing-strategy": "mps", "cloud.google.com/gke-max-shared-clients-per-gpu": "4"})
	// An entry without gpu_sharing_config (or driver) leaves them as they are (mergeAcceleratorUpdate).
	p = updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-od", Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-l4", AcceleratorCount: 1}}})
	wantMap(t, "node labels after an accelerator entry without sharing", nodeLabels(), map[string]string{"team": "ml", "cloud.google.com/gke-nodepool": "l4-od",
		"cloud.google.com/gke-accelerator": "nvidia-l4", "cloud.google.com/gke-gpu-sharing-strategy": "mps", "cloud.google.com/gke-max-shared-clients-per-gpu": "4"})
	wantTaints(t, p.GetConfig().GetTaints(), gkeGPUTaint())
}

// GKE "Run GPUs in Standard node pools": GKE taints GPU nodes only when the cluster also has
// non-GPU nodes. A GPU pool in a cluster of GPU pools only keeps the taints it asked for; a
// GPU pool created once a non-GPU pool exists is tainted.
func TestGKE_GPUTaint_NotAddedWhenEveryPoolIsGPU(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	wantTaints(t, runningPool(t, c, untaintedL4("l4-a")).GetConfig().GetTaints())
	wantTaints(t, runningPool(t, c, l4Pool("l4-user-taint")).GetConfig().GetTaints(), gkeGPUTaint())
	p := updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-user-taint", Taints: &containerpb.NodeTaints{}})
	wantTaints(t, p.GetConfig().GetTaints())

	runningPool(t, c, &containerpb.NodePool{Name: "cpu", InitialNodeCount: 1, Config: &containerpb.NodeConfig{MachineType: "e2-standard-4"}})
	wantTaints(t, getPool(t, c, "l4-a").GetConfig().GetTaints())
	wantTaints(t, runningPool(t, c, untaintedL4("l4-b")).GetConfig().GetTaints(), gkeGPUTaint())

	// A seeded non-GPU default pool: the first GPU pool is tainted.
	seeded := newSim(t, withDefaultPool)
	sc := gkeClient(t, seeded)
	if p := getPool(t, sc, "default-pool"); p.GetStatus() != containerpb.NodePool_RUNNING || p.GetConfig().GetMachineType() != "e2-standard-4" || len(p.GetInstanceGroupUrls()) != 4 {
		t.Fatalf("seeded default-pool = %v", p)
	}
	wantTaints(t, runningPool(t, sc, untaintedL4("l4-a")).GetConfig().GetTaints(), gkeGPUTaint())
}
