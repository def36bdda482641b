package recommend

import (
	"context"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Issue #40, item 8: a training replica larger than one node needs the nodes' GPUs linked by an
// inter-node GPU network (EFA on AWS, GPUDirect-TCPX/TCPXO/RDMA on GKE); answers only use shapes
// that have one, say which, and no-fit messages name it.

// train70BOver16 is 70B full training in bf16 (≈ 1 043 GiB with gradients and optimizer state),
// FSDP over 16 GPUs: two 8-GPU nodes.
var train70BOver16 = Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, ParametersBillion: 70, Precision: "bf16", GPUsPerReplica: 16}

func TestRecommend_multiNodeTrainingOnlyWithInterNodeNetwork(t *testing.T) {
	a := recommendOK(t, Request{Workload: train70BOver16, Replicas: 2, Clouds: both, Regions: usEast})
	want := map[catalog.Cloud][]string{
		catalog.AWS: {catalog.NetworkEFA},
		catalog.GCP: {catalog.NetworkGPUDirectTCPX, catalog.NetworkGPUDirectTCPXO, catalog.NetworkGPUDirectRDMA},
	}
	for cloud, r := range a.Results {
		b := r.Best
		if !b.Node.MultiNode() || !strings.Contains(strings.Join(want[cloud], ","), b.InterNode) || b.InterNode == "" {
			t.Errorf("%s: a replica over two nodes on %s, inter-node network %q", cloud, b.Label(), b.InterNode)
		}
		if b.NodesPerReplica != 16/b.Node.GPUCount || b.Nodes != 2*b.NodesPerReplica || b.ReplicasPerNode != 1 {
			t.Errorf("%s: %s: %d nodes per replica, %d nodes for 2 replicas, %d replicas per node", cloud, b.Label(), b.NodesPerReplica, b.Nodes, b.ReplicasPerNode)
		}
		if !b.Node.NVLinked() {
			t.Errorf("%s: %s: a training replica over nodes of GPUs without NVLink", cloud, b.Label())
		}
		if b.Spec.Workload.GPUsPerReplica != 16 {
			t.Errorf("%s: pool workload.gpus_per_replica %d", cloud, b.Spec.Workload.GPUsPerReplica)
		}
		for _, ru := range r.RunnersUp {
			if ru.InterNode == "" {
				t.Errorf("%s: runner-up %s has no inter-node network", cloud, ru.Label())
			}
		}
	}
	// A replica on one node needs no inter-node network, and the answer names none.
	one := recommendOK(t, Request{Workload: Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, ParametersBillion: 7, Precision: "bf16", GPUsPerReplica: 4}, Clouds: both, Regions: usEast})
	for cloud, r := range one.Results {
		if r.Best.InterNode != "" || r.Best.NodesPerReplica != 1 {
			t.Errorf("%s: a replica on one node answered with inter-node %q over %d nodes", cloud, r.Best.InterNode, r.Best.NodesPerReplica)
		}
	}
}

// On A100 40 GB, AWS has p4d.24xlarge with EFA; GKE's A100 machines (a2-highgpu, a2-megagpu) have
// no GPUDirect: GCP has no answer, the message names the missing network, and no A100 machine is
// offered as a "nearest" option (no setting gives a machine type GPUDirect).
func TestRecommend_multiNodeNoFitNamesTheNetwork(t *testing.T) {
	w := Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 1100, Precision: "bf16", GPUsPerReplica: 32}
	a, err := Recommend(context.Background(), Request{Workload: w, Clouds: both, Regions: usEast, GPUModels: []string{"A100-40GB"}}, env(t, catalog.Pricing{}))
	if err != nil {
		t.Fatal(err)
	}
	if b := a.Results[catalog.AWS].Best; b == nil || b.Node.Name != "p4d.24xlarge" || b.InterNode != catalog.NetworkEFA || b.NodesPerReplica != 4 {
		t.Fatalf("aws: want 4 p4d.24xlarge over EFA, got %+v (%s)", b, a.Results[catalog.AWS].Why)
	}
	g := a.Results[catalog.GCP]
	if g.Best != nil {
		t.Fatalf("gcp: %s has no GPUDirect", g.Best.Label())
	}
	for _, part := range []string{"no gcp shape with GPUDirect-TCPX, GPUDirect-TCPXO or GPUDirect-RDMA in", "takes a training replica over 32 GPUs across nodes",
		"inter-node GPU network excluded", "which needs an inter-node GPU network (GPUDirect-TCPX, GPUDirect-TCPXO or GPUDirect-RDMA); this node type has none"} {
		if !strings.Contains(g.Why, part) {
			t.Errorf("gcp no-fit message lacks %q:\n%s", part, g.Why)
		}
	}
	if strings.Contains(g.Why, "fails only inter-node") {
		t.Errorf("gcp no-fit message offers a shape without GPUDirect as nearest:\n%s", g.Why)
	}
}

// A replica over more GPUs than any node is refused at once when no shape of the GPU models asked
// has an inter-node network (V100 16 GB: p3, no EFA), and for inference, which stays on one node.
func TestRecommend_multiNodeBadInputNamesTheArgument(t *testing.T) {
	for name, c := range map[string]struct {
		w      Workload
		models []string
		texts  []string
	}{
		"training on V100 16 GB only": {Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 200, GPUsPerReplica: 16}, []string{"V100-16GB"},
			[]string{"the largest node of aws and gcp has 8 GPUs", "none of the GPU models allowed has one"}},
		"training over 12 GPUs": {Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 200, GPUsPerReplica: 12}, []string{"H100-80GB"},
			[]string{"a multiple of 8 on p5.48xlarge", "a multiple of 8 on a3-highgpu-8g"}},
		"inference over 32 GPUs": {Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 200, GPUsPerReplica: 32}, nil,
			[]string{"a replica's GPUs must be on one node, and the largest node of aws and gcp has 16 GPUs"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Recommend(context.Background(), Request{Workload: c.w, Clouds: both, Regions: usEast, GPUModels: c.models}, env(t, catalog.Pricing{}))
			assertArgument(t, err, "workload.gpus_per_replica", c.texts...)
		})
	}
}
