package catalog

import (
	"slices"
	"strings"
	"testing"
)

func node(t *testing.T, cloud Cloud, name, accelerator string, count int) NodeType {
	t.Helper()
	for _, n := range NodeTypes(cloud) {
		if n.Name == name && (accelerator == "" || n.Accelerator == accelerator) && (count == 0 || n.GPUCount == count) {
			return n
		}
	}
	t.Fatalf("no %s %s %s x%d", cloud, name, accelerator, count)
	return NodeType{}
}

func TestComputeCapabilityAndPrecision(t *testing.T) {
	for _, tt := range []struct {
		gpu       string
		cc        float64
		supported []string
		not       []string
	}{
		{"T4", 7.5, []string{"fp32", "fp16", "int8", "int4"}, []string{"bf16", "fp8"}},
		{"V100-16GB", 7.0, []string{"fp16", "int8", "int4"}, []string{"bf16", "fp8"}},
		{"P100", 6.0, []string{"fp32", "fp16"}, []string{"int8", "int4", "bf16", "fp8"}},
		{"P4", 6.1, []string{"fp16", "int8"}, []string{"int4", "bf16", "fp8"}},
		{"A10G", 8.6, []string{"bf16", "int8"}, []string{"fp8"}},
		{"A100-80GB", 8.0, []string{"bf16"}, []string{"fp8"}},
		{"L4", 8.9, []string{"bf16", "fp8"}, nil},
		{"L40S", 8.9, []string{"fp8"}, nil},
		{"H100-80GB", 9.0, []string{"bf16", "fp8"}, nil},
		{"B200", 10.0, []string{"fp8"}, nil},
	} {
		g, ok := GPU(tt.gpu)
		if !ok || g.ComputeCapability != tt.cc {
			t.Errorf("%s: compute capability %g, want %g", tt.gpu, g.ComputeCapability, tt.cc)
		}
		for _, p := range tt.supported {
			if !g.SupportsPrecision(p) {
				t.Errorf("%s does not support %s", tt.gpu, p)
			}
		}
		for _, p := range tt.not {
			if g.SupportsPrecision(p) {
				t.Errorf("%s supports %s", tt.gpu, p)
			}
		}
	}
}

func TestInterconnect(t *testing.T) {
	for _, tt := range []struct {
		cloud Cloud
		name  string
		want  string
	}{
		{AWS, "p4d.24xlarge", InterconnectNVSwitch}, {AWS, "p5.48xlarge", InterconnectNVSwitch}, {AWS, "p6-b200.48xlarge", InterconnectNVSwitch},
		{AWS, "p3.8xlarge", InterconnectNVLink}, {AWS, "p3dn.24xlarge", InterconnectNVLink},
		{AWS, "g4dn.12xlarge", InterconnectPCIe}, {AWS, "g5.48xlarge", InterconnectPCIe}, {AWS, "g6e.12xlarge", InterconnectPCIe},
		{AWS, "g4dn.xlarge", ""}, {AWS, "p5.4xlarge", ""},
		{GCP, "a2-highgpu-8g", InterconnectNVLink}, {GCP, "a2-megagpu-16g", InterconnectNVSwitch}, {GCP, "a3-highgpu-8g", InterconnectNVSwitch},
		{GCP, "a4-highgpu-8g", InterconnectNVSwitch}, {GCP, "g2-standard-48", InterconnectPCIe},
	} {
		if got := node(t, tt.cloud, tt.name, "", 0).Interconnect; got != tt.want {
			t.Errorf("%s: interconnect %q, want %q", tt.name, got, tt.want)
		}
	}
}

// GKE's documented reservations: a 16 GiB node keeps 1 + 0.8 + 0.8 GiB + 100 MiB. EKS's AMI keeps
// 255 MiB + 11 MiB x 110 pods + 100 MiB on any node.
func TestHostMemoryReserve(t *testing.T) {
	for mem, want := range map[float64]float64{16: 2.7, 15: 2.6, 4: 1.1, 128: 9.42, 2048: 47.82} {
		if got := HostMemoryReserveGiB(GCP, mem); got != want {
			t.Errorf("GKE %g GiB: reserve %g, want %g", mem, got, want)
		}
	}
	if got := HostMemoryReserveGiB(AWS, 16); got != 1.53 {
		t.Errorf("EKS: reserve %g, want 1.53", got)
	}
}

func TestFitWorkload(t *testing.T) {
	t4 := WholeGPUs(node(t, AWS, "g4dn.xlarge", "", 0))
	p5 := WholeGPUs(node(t, AWS, "p5.48xlarge", "", 0))
	g5x8 := WholeGPUs(node(t, AWS, "g5.48xlarge", "", 0))
	n1t4x4 := WholeGPUs(node(t, GCP, "n1-standard-4", "nvidia-tesla-t4", 4))
	l40s := WholeGPUs(node(t, AWS, "g6e.12xlarge", "", 0))
	tests := []struct {
		name     string
		shape    FitShape
		demand   FitDemand
		problems []string
		gpus     int
		nodes    int
	}{
		{"bf16 LoRA 7B not on a T4", t4, FitDemand{NeedGiB: 13.08, Precision: "bf16", Kind: "training", HeadroomPercent: 5}, []string{ConstraintPrecision}, 1, 0},
		{"fp8 8B not on a T4", t4, FitDemand{NeedGiB: 8.95, Precision: "fp8", Kind: "inference", HeadroomPercent: 5}, []string{ConstraintPrecision}, 1, 0},
		{"7B fp16 not on a 16 GiB T4 without headroom", t4, FitDemand{NeedGiB: 15.65, Precision: "fp16", Kind: "inference", HeadroomPercent: 5}, []string{ConstraintMemory}, 1, 0},
		{"7B fp16 on a T4 at 0 % headroom", t4, FitDemand{NeedGiB: 15.65, Precision: "fp16", Kind: "inference", HostGiB: 13.04}, nil, 1, 0},
		{"four 14 GB loads need host memory", n1t4x4, FitDemand{NeedGiB: 14, HostGiB: 13.04, Kind: "inference", HeadroomPercent: 5, Replicas: 4}, []string{ConstraintHostMemory}, 1, 1},
		{"7B FSDP over 8 GPUs on one NVSwitch node", p5, FitDemand{NeedGiB: 104.31, Kind: "training", GPUsPerReplica: 8, HeadroomPercent: 5, Replicas: 1}, nil, 8, 1},
		{"7B FSDP over 4 GPUs without NVLink", WholeGPUs(node(t, AWS, "g5.12xlarge", "", 0)), FitDemand{NeedGiB: 60, Kind: "training", GPUsPerReplica: 4, HeadroomPercent: 5}, []string{ConstraintInterconnect}, 4, 0},
		{"two production replicas on two nodes", p5, FitDemand{NeedGiB: 60, Kind: "inference", Environment: "production", HeadroomPercent: 5, Replicas: 2}, nil, 1, 2},
		{"70B fp16 tensor parallel over 4 L40S", l40s, FitDemand{NeedGiB: 156.46, Precision: "fp16", Kind: "inference", HeadroomPercent: 5, Replicas: 1}, nil, 4, 1},
		{"70B fp16 over 8 A10G", g5x8, FitDemand{NeedGiB: 156.46, Precision: "fp16", Kind: "inference", HeadroomPercent: 5, Replicas: 1}, nil, 8, 1},
		{"175B fp16 on 8 H100", p5, FitDemand{NeedGiB: 391.17, Precision: "fp16", Kind: "inference", HeadroomPercent: 5, Replicas: 1}, nil, 8, 1},
		{"175B fp16 not on 8 A10G", g5x8, FitDemand{NeedGiB: 391.17, Precision: "fp16", Kind: "inference", HeadroomPercent: 5, Replicas: 1}, []string{ConstraintMemory}, 8, 1},
		{"gpus_per_replica above the node", t4, FitDemand{NeedGiB: 4, Kind: "inference", GPUsPerReplica: 2, HeadroomPercent: 5}, []string{ConstraintGPUsPerReplica}, 2, 0},
		{"1500 replicas exceed the pool on g4dn.xlarge", t4, FitDemand{NeedGiB: 4, Kind: "inference", HeadroomPercent: 5, Replicas: 1500}, []string{ConstraintNodeLimit}, 1, 1500},
		{"1500 replicas fit on g4dn.12xlarge", WholeGPUs(node(t, AWS, "g4dn.12xlarge", "", 0)), FitDemand{NeedGiB: 4, Kind: "inference", HeadroomPercent: 5, Replicas: 1500}, nil, 1, 375},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := FitWorkload(tt.shape, tt.demand)
			if got := f.Constraints(); !slices.Equal(got, append([]string{}, tt.problems...)) {
				t.Errorf("problems %v (%s), want %v", got, f.Text(), tt.problems)
			}
			if f.GPUsPerReplica != tt.gpus || f.Nodes != tt.nodes {
				t.Errorf("gpus per replica %d, nodes %d; want %d, %d", f.GPUsPerReplica, f.Nodes, tt.gpus, tt.nodes)
			}
		})
	}
}

// On nodes of one GPU a training replica over several spans nodes: the texts say the node has a
// single GPU (the catalog names no interconnect for it; they said "share nothing only") and count
// one GPU per node in the singular; on nodes of PCIe-linked GPUs they name the bus.
func TestFitWorkload_interconnectTexts(t *testing.T) {
	demand := FitDemand{NeedGiB: 60, Kind: "training", GPUsPerReplica: 4, HeadroomPercent: 5}
	for _, tt := range []struct {
		instanceType string
		want         []string
	}{
		{"p5.4xlarge", []string{
			"a training replica over 4 GPUs spans 4 nodes of 1 GPU, which needs an inter-node GPU network (EFA); this node type has none",
			"a training replica over 4 GPUs needs NVLink between them; this node type has a single GPU, linked to no other",
		}},
		{"g5.12xlarge", []string{"a training replica over 4 GPUs needs NVLink between them; this node's GPUs share pcie only"}},
	} {
		f := FitWorkload(WholeGPUs(node(t, AWS, tt.instanceType, "", 0)), demand)
		for _, w := range tt.want {
			if !strings.Contains(f.Text(), w) {
				t.Errorf("%s: %q does not say %q", tt.instanceType, f.Text(), w)
			}
		}
		if strings.Contains(f.Text(), "nothing only") || strings.Contains(f.Text(), "of 1 GPUs") {
			t.Errorf("%s: %q", tt.instanceType, f.Text())
		}
	}
}
