package cloudsim

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
)

// GKE API Reference: GetCluster (resource name and the deprecated project/zone/cluster form).
func TestGKE_GetCluster_ReturnsSeededCluster(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	cl, err := c.GetCluster(ctxT(t), &containerpb.GetClusterRequest{Name: gkeParent})
	if err != nil {
		t.Fatal(err)
	}
	if cl.GetStatus() != containerpb.Cluster_RUNNING || cl.GetCurrentMasterVersion() != "1.31.6-gke.1020000" || len(cl.GetLocations()) != 4 ||
		cl.GetSelfLink() != "https://container.googleapis.com/v1/"+gkeParent {
		t.Fatalf("cluster = %v", cl)
	}
	//lint:ignore SA1019 the deprecated form is still accepted by the real API
	old, err := c.GetCluster(ctxT(t), &containerpb.GetClusterRequest{ProjectId: "acme-ml", Zone: "europe-west4", ClusterId: "ml"}) //nolint:staticcheck
	if err != nil || old.GetLocation() != "europe-west4" {
		t.Fatalf("deprecated form: %v %v", old, err)
	}
	_, err = c.GetCluster(ctxT(t), &containerpb.GetClusterRequest{Name: "projects/acme-ml/locations/us-east1/clusters/ml"})
	wantCode(t, err, codes.NotFound, "Not found: projects/acme-ml/locations/us-east1/clusters/ml.")
}

// GKE API Reference: Cluster.endpoint (an address without scheme) and
// Cluster.masterAuth.clusterCaCertificate (base64 of the PEM): a real API server that plays the
// cluster, from the seed or set at run time.
func TestGKE_GetCluster_KubernetesAPIServer(t *testing.T) {
	t.Parallel()
	const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
	sim := newSim(t, func(o *Options) {
		o.Seed.GCP.Projects["acme-ml"].Clusters[0].Kubernetes = &KubernetesAPI{Endpoint: "https://127.0.0.1:6443", CAPEM: pem}
	})
	check := func(endpoint string) {
		t.Helper()
		cl, err := gkeClient(t, sim).GetCluster(ctxT(t), &containerpb.GetClusterRequest{Name: gkeParent})
		if err != nil {
			t.Fatal(err)
		}
		ca, err := base64.StdEncoding.DecodeString(cl.GetMasterAuth().GetClusterCaCertificate())
		if cl.GetEndpoint() != endpoint || err != nil || string(ca) != pem {
			t.Fatalf("endpoint %q, CA %q (%v)", cl.GetEndpoint(), ca, err)
		}
	}
	check("127.0.0.1:6443")
	if code, body := ctl(t, sim, "POST", "/gke/cluster-kubernetes", `{"project":"acme-ml","location":"us-central1","cluster":"ml","endpoint":"https://127.0.0.1:7443","ca_pem":`+strconv.Quote(pem)+`}`); code != 204 {
		t.Fatalf("set: %d %s", code, body)
	}
	check("127.0.0.1:7443")
	if code, _ := ctl(t, sim, "POST", "/gke/cluster-kubernetes", `{"project":"acme-ml","location":"us-east1","cluster":"ml"}`); code != 404 {
		t.Fatalf("unknown cluster: %d", code)
	}
	unseeded, err := gkeClient(t, newSim(t)).GetCluster(ctxT(t), &containerpb.GetClusterRequest{Name: gkeParent})
	if err != nil || unseeded.GetEndpoint() != "34.118.0.1" || unseeded.GetMasterAuth() != nil {
		t.Fatalf("unseeded cluster: %v %v", unseeded, err)
	}
}

// GKE API Reference: CreateNodePool, GetNodePool, ListNodePools, GetOperation, ListOperations —
// the pool is PROVISIONING while its CREATE_NODE_POOL operation is RUNNING, then RUNNING.
func TestGKE_CreateNodePool_ProvisioningThenRunning_OperationDone(t *testing.T) {
	t.Parallel()
	sim := newSim(t, observeTransitions)
	c := gkeClient(t, sim)
	op := createPool(t, c, l4Pool("l4-od"))
	if op.GetStatus() != containerpb.Operation_RUNNING || op.GetOperationType() != containerpb.Operation_CREATE_NODE_POOL ||
		op.GetTargetLink() != "https://container.googleapis.com/v1/"+gkeParent+"/nodePools/l4-od" || !strings.HasPrefix(op.GetName(), "operation-") ||
		op.GetSelfLink() != "https://container.googleapis.com/v1/projects/acme-ml/locations/us-central1/operations/"+op.GetName() {
		t.Fatalf("operation = %v", op)
	}
	if p := getPool(t, c, "l4-od"); p.GetStatus() != containerpb.NodePool_PROVISIONING {
		t.Fatalf("status while creating = %v", p.GetStatus())
	}
	done := waitOperation(t, c, op)
	if done.GetError() != nil || done.GetEndTime() == "" {
		t.Fatalf("done = %v", done)
	}
	p := getPool(t, c, "l4-od")
	acc := p.GetConfig().GetAccelerators()
	if p.GetStatus() != containerpb.NodePool_RUNNING || p.GetVersion() != "1.31.6-gke.1020000" || len(p.GetInstanceGroupUrls()) != 1 ||
		len(acc) != 1 || acc[0].GetAcceleratorType() != "nvidia-l4" || acc[0].GetGpuDriverInstallationConfig().GetGpuDriverVersion() != containerpb.GPUDriverInstallationConfig_LATEST ||
		p.GetConfig().GetLabels()["gpufleet.io/client"] != "acme" || p.GetConfig().GetResourceLabels()["gpufleet-client"] != "acme" ||
		!p.GetManagement().GetAutoRepair() || p.GetConfig().GetDiskSizeGb() != 100 {
		t.Fatalf("pool = %v", p)
	}
	list, err := c.ListNodePools(ctxT(t), &containerpb.ListNodePoolsRequest{Parent: gkeParent})
	if err != nil || len(list.GetNodePools()) != 1 {
		t.Fatalf("list = %v %v", list, err)
	}
	ops, err := c.ListOperations(ctxT(t), &containerpb.ListOperationsRequest{Parent: "projects/acme-ml/locations/-"})
	if err != nil || len(ops.GetOperations()) != 1 || ops.GetOperations()[0].GetStatus() != containerpb.Operation_DONE {
		t.Fatalf("operations = %v %v", ops, err)
	}
	cl, err := c.GetCluster(ctxT(t), &containerpb.GetClusterRequest{Name: gkeParent})
	if err != nil || len(cl.GetNodePools()) != 1 {
		t.Fatalf("cluster node pools = %v %v", cl.GetNodePools(), err)
	}
	if n, ok := sim.NodePoolNodeCount("acme-ml", "us-central1", "ml", "l4-od"); !ok || n != 1 {
		t.Errorf("node count = %d %v", n, ok)
	}
}

// GKE API Reference: CreateNodePool — accelerator-optimized machine types report their fixed
// GPUs; MIG partitions, GPU sharing and specific reservations that GKE accepts are accepted.
func TestGKE_CreateNodePool_AcceptsValidGPUConfigurations(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	a100 := &containerpb.NodePool{Name: "a100-mig", Locations: []string{"us-central1-a"}, Config: &containerpb.NodeConfig{MachineType: "a2-highgpu-1g",
		Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-tesla-a100", AcceleratorCount: 1, GpuPartitionSize: "1g.5gb",
			GpuSharingConfig: &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: 2, GpuSharingStrategy: containerpb.GPUSharingConfig_TIME_SHARING.Enum()}}}}}
	// "About GPUs in GKE": multi-instance GPUs with NVIDIA MPS.
	a100mps := &containerpb.NodePool{Name: "a100-mig-mps", Locations: []string{"us-central1-a"}, Config: &containerpb.NodeConfig{MachineType: "a2-highgpu-1g",
		Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-tesla-a100", AcceleratorCount: 1, GpuPartitionSize: "1g.5gb",
			GpuSharingConfig: &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: 4, GpuSharingStrategy: containerpb.GPUSharingConfig_MPS.Enum()}}}}}
	t4 := &containerpb.NodePool{Name: "t4-mps", Locations: []string{"us-central1-f"}, Config: &containerpb.NodeConfig{MachineType: "n1-standard-8", Spot: true,
		Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-tesla-t4", AcceleratorCount: 2,
			GpuSharingConfig: &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: 48, GpuSharingStrategy: containerpb.GPUSharingConfig_MPS.Enum()}}}}}
	h100 := &containerpb.NodePool{Name: "h100-res", Locations: []string{"us-central1-a"}, Config: &containerpb.NodeConfig{MachineType: "a3-highgpu-8g",
		ReservationAffinity: &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_SPECIFIC_RESERVATION,
			Key: "compute.googleapis.com/reservation-name", Values: []string{"projects/acme-ml/reservations/h100-reservation"}}}}
	for _, p := range []*containerpb.NodePool{a100, a100mps, t4, h100} {
		runningPool(t, c, p)
	}
	if acc := getPool(t, c, "h100-res").GetConfig().GetAccelerators(); len(acc) != 1 || acc[0].GetAcceleratorType() != "nvidia-h100-80gb" || acc[0].GetAcceleratorCount() != 8 {
		t.Fatalf("a3-highgpu-8g accelerators = %v", acc)
	}
}

// GKE API Reference: CreateNodePool — INVALID_ARGUMENT like the real API for machine type vs
// accelerator, partition sizes, GPU sharing, taints, labels, reservation affinity, spot and
// preemptible, autoscaling, names and locations; and no pool is created.
func TestGKE_CreateNodePool_InvalidArgument(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	accel := func(typ string, n int64) []*containerpb.AcceleratorConfig {
		return []*containerpb.AcceleratorConfig{{AcceleratorType: typ, AcceleratorCount: n}}
	}
	sharing := func(n int64, s containerpb.GPUSharingConfig_GPUSharingStrategy) *containerpb.GPUSharingConfig {
		return &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: n, GpuSharingStrategy: s.Enum()}
	}
	gpuTaint := &containerpb.NodeTaint{Key: "nvidia.com/gpu", Value: "present", Effect: containerpb.NodeTaint_NO_SCHEDULE}
	cases := []struct {
		name   string
		code   codes.Code
		substr string
		mod    func(p *containerpb.NodePool)
	}{
		{"a2 with T4", codes.InvalidArgument, `Accelerator type "nvidia-tesla-t4" is not supported for machine type "a2-highgpu-1g"`,
			func(p *containerpb.NodePool) {
				p.Config.MachineType, p.Config.Accelerators = "a2-highgpu-1g", accel("nvidia-tesla-t4", 1)
			}},
		{"a2-highgpu-1g with 2 GPUs", codes.InvalidArgument, "Invalid accelerator count 2",
			func(p *containerpb.NodePool) {
				p.Config.MachineType, p.Config.Accelerators = "a2-highgpu-1g", accel("nvidia-tesla-a100", 2)
			}},
		{"kubernetes.io label", codes.InvalidArgument, "Applying kubernetes label is not allowed: node-role.kubernetes.io/gpu",
			func(p *containerpb.NodePool) {
				p.Config.Labels = map[string]string{"node-role.kubernetes.io/gpu": "true"}
			}},
		{"cloud.google.com label", codes.InvalidArgument, "are managed by GKE or Kubernetes and must not be manually specified",
			func(p *containerpb.NodePool) {
				p.Config.Labels = map[string]string{"cloud.google.com/compute-class": "gpu"}
			}},
		{"n1 with L4", codes.InvalidArgument, `Accelerator type "nvidia-l4" is not supported for machine type "n1-standard-8"`,
			func(p *containerpb.NodePool) { p.Config.MachineType = "n1-standard-8" }},
		{"n1 with 3 T4", codes.InvalidArgument, "allowed counts are [1, 2, 4]",
			func(p *containerpb.NodePool) {
				p.Config.MachineType, p.Config.Accelerators = "n1-standard-8", accel("nvidia-tesla-t4", 3)
			}},
		{"n1-standard-16 with one V100", codes.InvalidArgument, "supports at most 12 vCPUs",
			func(p *containerpb.NodePool) {
				p.Locations, p.Config.MachineType, p.Config.Accelerators = []string{"us-central1-f"}, "n1-standard-16", accel("nvidia-tesla-v100", 1)
			}},
		{"e2 with T4", codes.InvalidArgument, "does not support accelerators",
			func(p *containerpb.NodePool) {
				p.Config.MachineType, p.Config.Accelerators = "e2-standard-4", accel("nvidia-tesla-t4", 1)
			}},
		{"partition not for A100 40GB", codes.InvalidArgument, `Invalid value for field 'accelerator.gpu_partition_size': "3g.40gb"`,
			func(p *containerpb.NodePool) {
				p.Config.MachineType, p.Config.Accelerators = "a2-highgpu-1g", accel("nvidia-tesla-a100", 1)
				p.Config.Accelerators[0].GpuPartitionSize = "3g.40gb"
			}},
		{"partition on L4", codes.InvalidArgument, "GPU partitioning is not supported for accelerator type \"nvidia-l4\"",
			func(p *containerpb.NodePool) { p.Config.Accelerators[0].GpuPartitionSize = "1g.5gb" }},
		{"one shared client", codes.InvalidArgument, "max_shared_clients_per_gpu': 1",
			func(p *containerpb.NodePool) {
				p.Config.Accelerators[0].GpuSharingConfig = sharing(1, containerpb.GPUSharingConfig_TIME_SHARING)
			}},
		{"49 shared clients", codes.InvalidArgument, "Must be between 2 and 48",
			func(p *containerpb.NodePool) {
				p.Config.Accelerators[0].GpuSharingConfig = sharing(49, containerpb.GPUSharingConfig_MPS)
			}},
		{"two nvidia.com/gpu taints", codes.InvalidArgument, `only one taint with key "nvidia.com/gpu"`,
			func(p *containerpb.NodePool) {
				p.Config.Taints = []*containerpb.NodeTaint{gpuTaint, {Key: "nvidia.com/gpu", Value: "present", Effect: containerpb.NodeTaint_NO_EXECUTE}}
			}},
		{"duplicate taint", codes.InvalidArgument, "duplicate taint", func(p *containerpb.NodePool) { p.Config.Taints = []*containerpb.NodeTaint{gpuTaint, gpuTaint} }},
		{"taint without effect", codes.InvalidArgument, "has no effect", func(p *containerpb.NodePool) { p.Config.Taints = []*containerpb.NodeTaint{{Key: "team", Value: "ml"}} }},
		{"bad label", codes.InvalidArgument, "not a valid Kubernetes label", func(p *containerpb.NodePool) { p.Config.Labels = map[string]string{"gpufleet.io/client": "a c m e"} }},
		{"AWS-style resource label", codes.InvalidArgument, "Label keys must start with a lowercase letter",
			func(p *containerpb.NodePool) { p.Config.ResourceLabels = map[string]string{"gpufleet:client": "acme"} }},
		{"specific reservation without key", codes.InvalidArgument, "requires key",
			func(p *containerpb.NodePool) {
				p.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_SPECIFIC_RESERVATION, Values: []string{"h100-reservation"}}
			}},
		{"any reservation with values", codes.InvalidArgument, "only be set with SPECIFIC_RESERVATION",
			func(p *containerpb.NodePool) {
				p.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_ANY_RESERVATION, Key: reservationKey, Values: []string{"x"}}
			}},
		{"unspecified reservation type", codes.InvalidArgument, "consume_reservation_type",
			func(p *containerpb.NodePool) { p.Config.ReservationAffinity = &containerpb.ReservationAffinity{} }},
		{"unknown reservation", codes.NotFound, `Reservation "nope" not found`,
			func(p *containerpb.NodePool) {
				p.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_SPECIFIC_RESERVATION, Key: reservationKey, Values: []string{"nope"}}
			}},
		{"spot consuming a reservation", codes.InvalidArgument, "cannot consume reservations",
			func(p *containerpb.NodePool) {
				p.Config.Spot = true
				p.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_SPECIFIC_RESERVATION, Key: reservationKey, Values: []string{"h100-reservation"}}
			}},
		{"spot and preemptible", codes.InvalidArgument, "spot and preemptible cannot both be set", func(p *containerpb.NodePool) { p.Config.Spot, p.Config.Preemptible = true, true }},
		{"autoscaling min above max", codes.InvalidArgument, "minimum node count 3 is greater than maximum node count 2",
			func(p *containerpb.NodePool) {
				p.Autoscaling = &containerpb.NodePoolAutoscaling{Enabled: true, MinNodeCount: 3, MaxNodeCount: 2}
			}},
		{"autoscaling per-zone and total", codes.InvalidArgument, "cannot be combined",
			func(p *containerpb.NodePool) {
				p.Autoscaling = &containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 2, TotalMaxNodeCount: 4}
			}},
		{"bad name", codes.InvalidArgument, "Invalid value for field 'node_pool.name'", func(p *containerpb.NodePool) { p.Name = "L4_Pool" }},
		{"zone outside the cluster's region", codes.InvalidArgument, "must be zones of the cluster's region us-central1", func(p *containerpb.NodePool) { p.Locations = []string{"us-east1-b"} }},
		{"accelerator not in every cluster zone", codes.InvalidArgument, `Accelerator type "nvidia-h100-80gb" is not available in zone "us-central1-f"`,
			func(p *containerpb.NodePool) {
				p.Locations, p.Config.MachineType, p.Config.Accelerators = nil, "a3-highgpu-8g", nil
			}},
		{"node version newer than control plane", codes.InvalidArgument, "is not a valid node version for this cluster", func(p *containerpb.NodePool) { p.Version = "1.32.6-gke.1125000" }},
		{"node version alias without a valid version", codes.InvalidArgument, "is not a valid node version for this cluster", func(p *containerpb.NodePool) { p.Version = "1.27" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := l4Pool("bad-pool")
			tc.mod(p)
			_, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: p})
			wantCode(t, err, tc.code, tc.substr)
		})
	}
	if pools := sim.NodePools("acme-ml", "us-central1", "ml"); len(pools) != 0 {
		t.Fatalf("invalid requests created pools: %v", pools)
	}
}

// GKE API Reference: CreateNodePool — ALREADY_EXISTS for a duplicate name; FAILED_PRECONDITION
// "Operation ... is currently creating node pool ..." for a second operation on a node pool whose
// operation runs, while other node pools of the cluster take theirs side by side.
func TestGKE_CreateNodePool_AlreadyExistsAndIncompatibleOperation(t *testing.T) {
	t.Parallel()
	sim := newSim(t, observeTransitions)
	c := gkeClient(t, sim)
	op := createPool(t, c, l4Pool("l4-od"))
	// Another node pool of the cluster is not blocked by this one's operation.
	other := createPool(t, c, l4Pool("l4-spot"))
	_, err := c.SetNodePoolSize(ctxT(t), &containerpb.SetNodePoolSizeRequest{Name: gkeParent + "/nodePools/l4-od", NodeCount: 2})
	wantCode(t, err, codes.FailedPrecondition, "Operation "+op.GetName()+" is currently creating node pool l4-od. Please wait and try again once it is done.")
	waitOperation(t, c, op)
	waitOperation(t, c, other)
	_, err = c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: l4Pool("l4-od")})
	wantCode(t, err, codes.AlreadyExists, "Already exists: "+gkeParent+"/nodePools/l4-od.")
	eu := l4Pool("l4-eu")
	eu.Locations = []string{"europe-west4-a"}
	if _, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: "projects/acme-ml/locations/europe-west4/clusters/ml", NodePool: eu}); err != nil {
		t.Fatal(err)
	}
}

// GKE API Reference: UpdateNodePool — UPGRADE_NODES operation, RECONCILING, then RUNNING with
// labels, taints and resource labels replaced and the version moved, one field group per request.
func TestGKE_UpdateNodePool_ReconcilingThenRunning(t *testing.T) {
	t.Parallel()
	sim := newSim(t, observeTransitions)
	c := gkeClient(t, sim)
	old := l4Pool("l4-od")
	old.Version = "1.30.9-gke.1009000"
	runningPool(t, c, old)
	op, err := c.UpdateNodePool(ctxT(t), &containerpb.UpdateNodePoolRequest{Name: gkeParent + "/nodePools/l4-od",
		Labels: &containerpb.NodeLabels{Labels: map[string]string{"gpufleet.io/workload": "inference"}}})
	if err != nil {
		t.Fatal(err)
	}
	if op.GetOperationType() != containerpb.Operation_UPGRADE_NODES {
		t.Fatalf("type = %v", op.GetOperationType())
	}
	if p := getPool(t, c, "l4-od"); p.GetStatus() != containerpb.NodePool_RECONCILING || p.GetConfig().GetLabels()["gpufleet.io/client"] != "acme" {
		t.Fatalf("during update = %v", p)
	}
	waitOperation(t, c, op)
	for _, req := range []*containerpb.UpdateNodePoolRequest{
		{Name: "l4-od", NodeVersion: "-"},
		{Name: "l4-od", Taints: &containerpb.NodeTaints{Taints: []*containerpb.NodeTaint{{Key: "nvidia.com/gpu", Value: "present", Effect: containerpb.NodeTaint_NO_SCHEDULE}, {Key: "dedicated", Value: "acme", Effect: containerpb.NodeTaint_NO_EXECUTE}}}},
		{Name: "l4-od", ResourceLabels: &containerpb.ResourceLabels{Labels: map[string]string{"gpufleet-pool": "l4"}}},
	} {
		updatePool(t, c, req)
	}
	p := getPool(t, c, "l4-od")
	if p.GetStatus() != containerpb.NodePool_RUNNING || p.GetVersion() != "1.31.6-gke.1020000" || len(p.GetConfig().GetTaints()) != 2 ||
		p.GetConfig().GetLabels()["gpufleet.io/client"] != "" || p.GetConfig().GetLabels()["gpufleet.io/workload"] != "inference" ||
		p.GetConfig().GetResourceLabels()["gpufleet-pool"] != "l4" {
		t.Fatalf("after update = %v", p)
	}
	_, err = c.UpdateNodePool(ctxT(t), &containerpb.UpdateNodePoolRequest{Name: gkeParent + "/nodePools/l4-od", MachineType: "n1-standard-8"})
	wantCode(t, err, codes.InvalidArgument, `Accelerator type "nvidia-l4" is not supported for machine type "n1-standard-8"`)
	_, err = c.UpdateNodePool(ctxT(t), &containerpb.UpdateNodePoolRequest{Name: gkeParent + "/nodePools/nope", NodeVersion: "-"})
	wantCode(t, err, codes.NotFound, "Not found: "+gkeParent+"/nodePools/nope.")
}

// GKE API Reference: SetNodePoolSize — SET_NODE_POOL_SIZE; the size lives in the instance
// groups (observable through NodePoolNodeCount), initialNodeCount is unchanged.
func TestGKE_SetNodePoolSize_ChangesNodeCount(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	runningPool(t, c, l4Pool("l4-od"))
	op, err := c.SetNodePoolSize(ctxT(t), &containerpb.SetNodePoolSizeRequest{Name: gkeParent + "/nodePools/l4-od", NodeCount: 3})
	if err != nil || op.GetOperationType() != containerpb.Operation_SET_NODE_POOL_SIZE {
		t.Fatalf("op = %v %v", op, err)
	}
	waitOperation(t, c, op)
	if n, _ := sim.NodePoolNodeCount("acme-ml", "us-central1", "ml", "l4-od"); n != 3 {
		t.Fatalf("node count = %d", n)
	}
	if p := getPool(t, c, "l4-od"); p.GetInitialNodeCount() != 1 || p.GetStatus() != containerpb.NodePool_RUNNING {
		t.Fatalf("pool = %v", p)
	}
	_, err = c.SetNodePoolSize(ctxT(t), &containerpb.SetNodePoolSizeRequest{Name: gkeParent + "/nodePools/l4-od", NodeCount: -1})
	wantCode(t, err, codes.InvalidArgument, "node_count")
}

// GKE API Reference: SetNodePoolAutoscaling (an UPDATE_CLUSTER operation) and
// SetNodePoolManagement (SET_NODE_POOL_MANAGEMENT).
func TestGKE_SetNodePoolAutoscalingAndManagement(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	runningPool(t, c, l4Pool("l4-od"))
	name := gkeParent + "/nodePools/l4-od"
	op, err := c.SetNodePoolAutoscaling(ctxT(t), &containerpb.SetNodePoolAutoscalingRequest{Name: name,
		Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, TotalMinNodeCount: 0, TotalMaxNodeCount: 8, LocationPolicy: containerpb.NodePoolAutoscaling_ANY}})
	if err != nil || op.GetOperationType() != containerpb.Operation_UPDATE_CLUSTER {
		t.Fatalf("autoscaling op = %v %v", op, err)
	}
	waitOperation(t, c, op)
	if a := getPool(t, c, "l4-od").GetAutoscaling(); !a.GetEnabled() || a.GetTotalMaxNodeCount() != 8 || a.GetLocationPolicy() != containerpb.NodePoolAutoscaling_ANY {
		t.Fatalf("autoscaling = %v", a)
	}
	_, err = c.SetNodePoolAutoscaling(ctxT(t), &containerpb.SetNodePoolAutoscalingRequest{Name: name,
		Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MinNodeCount: 0, MaxNodeCount: 0}})
	wantCode(t, err, codes.InvalidArgument, "Must be greater than zero")
	op, err = c.SetNodePoolManagement(ctxT(t), &containerpb.SetNodePoolManagementRequest{Name: name, Management: &containerpb.NodeManagement{AutoUpgrade: false, AutoRepair: true}})
	if err != nil || op.GetOperationType() != containerpb.Operation_SET_NODE_POOL_MANAGEMENT {
		t.Fatalf("management op = %v %v", op, err)
	}
	waitOperation(t, c, op)
	if m := getPool(t, c, "l4-od").GetManagement(); m.GetAutoUpgrade() || !m.GetAutoRepair() {
		t.Fatalf("management = %v", m)
	}
}

// GKE API Reference: DeleteNodePool — STOPPING while DELETE_NODE_POOL runs, then NOT_FOUND.
func TestGKE_DeleteNodePool_StoppingThenGone(t *testing.T) {
	t.Parallel()
	sim := newSim(t, observeTransitions)
	c := gkeClient(t, sim)
	runningPool(t, c, l4Pool("l4-od"))
	op, err := c.DeleteNodePool(ctxT(t), &containerpb.DeleteNodePoolRequest{Name: gkeParent + "/nodePools/l4-od"})
	if err != nil || op.GetOperationType() != containerpb.Operation_DELETE_NODE_POOL {
		t.Fatalf("op = %v %v", op, err)
	}
	if p := getPool(t, c, "l4-od"); p.GetStatus() != containerpb.NodePool_STOPPING {
		t.Fatalf("status = %v", p.GetStatus())
	}
	waitOperation(t, c, op)
	_, err = c.GetNodePool(ctxT(t), &containerpb.GetNodePoolRequest{Name: gkeParent + "/nodePools/l4-od"})
	wantCode(t, err, codes.NotFound, "")
}

// GKE API Reference: GetOperation — NOT_FOUND for an unknown operation.
func TestGKE_GetOperation_Unknown_NotFound(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	_, err := gkeClient(t, sim).GetOperation(ctxT(t), &containerpb.GetOperationRequest{Name: "projects/acme-ml/locations/us-central1/operations/operation-1"})
	wantCode(t, err, codes.NotFound, "operation-1")
}

// RPCs cloudsim does not implement answer UNIMPLEMENTED (the generated Unimplemented server).
func TestGKE_UnimplementedRPC_Unimplemented(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	_, err := gkeClient(t, sim).CreateCluster(ctxT(t), &containerpb.CreateClusterRequest{Parent: "projects/acme-ml/locations/us-central1", Cluster: &containerpb.Cluster{Name: "x"}})
	wantCode(t, err, codes.Unimplemented, "")
	if reqs := sim.RequestsFor("gke", "CreateCluster"); len(reqs) != 1 || reqs[0].Error != "UNIMPLEMENTED" {
		t.Fatalf("request log = %+v", reqs)
	}
}

// Read accessors return copies: mutating them does not change the simulator.
func TestGKE_NodePoolAccessor_ReturnsCopy(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	runningPool(t, c, l4Pool("l4-od"))
	p, ok := sim.NodePool("acme-ml", "us-central1", "ml", "l4-od")
	if !ok {
		t.Fatal("missing")
	}
	want := proto.Clone(p)
	p.Config.Labels["x"] = "y"
	if again, _ := sim.NodePool("acme-ml", "us-central1", "ml", "l4-od"); !proto.Equal(again, want) {
		t.Fatal("accessor exposed stored state")
	}
}
