package pool

import (
	"fmt"
	"strings"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// MIGConfigBalanced is the NVIDIA GPU Operator's mixed MIG layout.
const MIGConfigBalanced = "all-balanced"

// The NVIDIA GPU Operator's MIG strategies (ClusterPolicy mig.strategy). The operator passes its
// strategy to every device plugin of the cluster as the environment variable MIG_STRATEGY
// (gpu-operator controllers/object_controls.go, applyMIGConfiguration), which beats a node's device
// plugin config file (k8s-device-plugin api/config/v1/config.go: "populated in order of precedence
// from (1) command line, (2) environment variable, (3) config file"): one strategy per cluster.
// Single advertises every MIG slice as nvidia.com/gpu and refuses a node with slices of several
// sizes ("more than one MIG device type present on node", k8s-device-plugin internal/rm); mixed
// advertises each size as nvidia.com/mig-<profile>, and MIG-enabled GPUs no longer as
// nvidia.com/gpu (EKS User Guide, device-management-nvidia-mig: "With the mixed strategy, Pods
// request the profile-specific resource"). Audit eks-vs-real.md D2, D3.
const (
	MIGStrategySingle = "single"
	MIGStrategyMixed  = "mixed"
)

// MIGStrategies are the values of mig_strategy.
var MIGStrategies = []string{MIGStrategySingle, MIGStrategyMixed}

// Mixed reports whether the cluster's GPU Operator runs the mixed MIG strategy.
func (g GPU) Mixed() bool { return g.MIGStrategy == MIGStrategyMixed }

// NodeType resolves the node shape of the pool from the catalog. known is false when the instance or
// machine types are not known yet; problem is set when they are invalid.
func (s Spec) NodeType() (node catalog.NodeType, problem *Problem, known bool) {
	switch s.Cloud {
	case catalog.AWS:
		return s.eksNodeType()
	case catalog.GCP:
		return s.gkeNodeType()
	}
	return catalog.NodeType{}, &Problem{Path: P("name"), Summary: "Unknown cloud", Detail: fmt.Sprintf("cloud %q", s.Cloud)}, true
}

func (s Spec) eksNodeType() (catalog.NodeType, *Problem, bool) {
	p := P("instance_types")
	if !s.Known(p) {
		return catalog.NodeType{}, nil, false
	}
	if len(s.InstanceTypes) == 0 {
		return catalog.NodeType{}, &Problem{Path: p, Summary: "Missing instance types", Detail: "list at least one EC2 GPU instance type."}, true
	}
	var first catalog.NodeType
	for i, name := range s.InstanceTypes {
		n, ok := catalog.AWSInstanceType(name)
		if !ok {
			return catalog.NodeType{}, &Problem{Path: P("instance_types", i), Summary: "Not a GPU instance type",
				Detail: fmt.Sprintf("%q is not an NVIDIA GPU instance type gpufleet knows (see the gpufleet_gpu_catalog data source), e.g. g6.xlarge, g5.2xlarge, p5.48xlarge.", name)}, true
		}
		if i == 0 {
			first = n
			continue
		}
		if n.InterNode != first.InterNode {
			// A replica's nodes reach each other only over a network every instance type has (the
			// bundle's lib._doc_internode; issue #40, item 8): the node group may launch any of them.
			first.InterNode, first.InterNodeNICs = "", 0
		}
		if n.GPUModel != first.GPUModel || n.GPUCount != first.GPUCount {
			return catalog.NodeType{}, &Problem{Path: P("instance_types", i), Summary: "Instance types carry different GPUs",
				Detail: fmt.Sprintf("%q has %d x %s but %q has %d x %s: every instance type of a pool must carry the same GPU model and count, so that scheduling, MIG and cost stay the same on every node.", name, n.GPUCount, n.GPUModel, first.Name, first.GPUCount, first.GPUModel)}, true
		}
		if s.AutoscalerOwnsSize && !s.Karpenter && s.Known(P("scaling", "desired_size")) && (n.VCPU != first.VCPU || n.MemoryGiB != first.MemoryGiB) {
			// The cluster autoscaler builds a node group's scale-from-zero node from its first
			// instance type and asks for "the same amount of RAM and number of CPU cores" across a
			// mixed-instances group (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws
			// README, "Using Mixed Instances Policies and Spot Instances"; EKS User Guide,
			// managed-node-groups).
			return catalog.NodeType{}, &Problem{Path: P("instance_types", i), Summary: "Instance types of different sizes",
				Detail: fmt.Sprintf("%q has %d vCPUs and %g GiB of memory, %q %d and %g GiB: the cluster autoscaler, which sizes this pool (no desired_size), takes every node to be the first type and would scale from zero for pods that never fit, or for nodes smaller than it thinks. List instance types of one size, or set desired_size.", name, n.VCPU, n.MemoryGiB, first.Name, first.VCPU, first.MemoryGiB)}, true
		}
	}
	return first, nil, true
}

func (s Spec) gkeNodeType() (catalog.NodeType, *Problem, bool) {
	if !s.Known(P("machine_type")) || !s.Known(P("gpu", "type")) || !s.Known(P("gpu", "count")) {
		return catalog.NodeType{}, nil, false
	}
	n, err := catalog.GKENodeType(s.MachineType, s.GPU.Type, s.GPU.Count)
	if err != nil {
		at := P("machine_type")
		switch {
		case s.GPU.Count != 0 && catalog.GKEMachineTakes(s.MachineType, s.GPU.Type):
			at = P("gpu", "count")
		case s.GPU.Type != "" || s.GPU.Count != 0:
			at = P("gpu", "type")
		}
		return catalog.NodeType{}, &Problem{Path: at, Summary: "Invalid GKE GPU node shape", Detail: err.Error()}, true
	}
	return n, nil, true
}

// SliceProfile returns the MIG profile one replica gets under m: the profile itself, the profile an
// "all-<profile>" config names, or the smallest profile of the balanced layout (the conservative
// answer for right-sizing, since a replica may land on any slice).
func SliceProfile(gpu catalog.GPUModel, m MIG) (catalog.MIGProfile, error) {
	name := m.Profile
	if name == "" {
		switch {
		case m.Config == MIGConfigBalanced:
			if len(gpu.BalancedMIG) == 0 {
				return catalog.MIGProfile{}, fmt.Errorf("%s has no balanced MIG layout", gpu.Name)
			}
			smallest, _ := gpu.MIGProfile(gpu.BalancedMIG[0])
			for _, n := range gpu.BalancedMIG[1:] {
				if p, _ := gpu.MIGProfile(n); p.MemoryGiB < smallest.MemoryGiB {
					smallest = p
				}
			}
			return smallest, nil
		case strings.HasPrefix(m.Config, "all-"):
			name = strings.TrimPrefix(m.Config, "all-")
		default:
			return catalog.MIGProfile{}, fmt.Errorf("%q is not a MIG config: use %q or \"all-<profile>\" with a profile of %s (%s)", m.Config, MIGConfigBalanced, gpu.Name, strings.Join(gpu.MIGProfileNames(), ", "))
		}
	}
	p, ok := gpu.MIGProfile(name)
	if !ok {
		return catalog.MIGProfile{}, fmt.Errorf("%s offers %s, not %q", gpu.Name, strings.Join(gpu.MIGProfileNames(), ", "), name)
	}
	return p, nil
}

// ConfigName is the GPU Operator mig-parted config the nodes get: "all-<profile>" or the config.
func (m MIG) ConfigName() string {
	if m.Profile != "" {
		return "all-" + m.Profile
	}
	return m.Config
}
