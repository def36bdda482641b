// Package catalog is gpufleet's offline knowledge of GPUs: NVIDIA GPU models and their MIG profile
// tables, AWS GPU instance types and GKE machine/accelerator types, and price estimates per region.
// It is pure data plus lookups: no I/O, safe for concurrent use.
package catalog

import (
	"fmt"
	"sort"
	"strings"
)

// Cloud names a cloud provider as it appears in the policy document.
type Cloud string

const (
	AWS Cloud = "aws"
	GCP Cloud = "gcp"
)

// Class says what a GPU was built for; inference or development on a training-class GPU is usually waste.
type Class string

const (
	ClassTraining  Class = "training"
	ClassInference Class = "inference"
)

// MIGProfile is one GPU instance profile of NVIDIA Multi-Instance GPU, as in NVIDIA's MIG user guide
// ("Supported MIG Profiles"). MemoryGiB is the nominal memory in the profile name.
type MIGProfile struct {
	Name          string  // e.g. "3g.40gb"
	ComputeSlices int     // the "3g"
	MemoryGiB     float64 // the "40gb"
	MaxInstances  int     // how many of this profile one GPU holds at most
}

// GPUModel is one NVIDIA GPU as the catalog knows it.
type GPUModel struct {
	Name         string // e.g. "H100-80GB", "L4"
	Architecture string // e.g. "Hopper"
	// ComputeCapability is NVIDIA's compute capability (SM version), e.g. 8.9 for L4: what the GPU
	// can compute (bf16 needs 8.0, fp8 8.9). See computeCapabilities in gpus.go for the source.
	ComputeCapability float64
	MemoryGiB         float64
	Class             Class
	MIGProfiles       []MIGProfile // empty when the GPU has no MIG
	BalancedMIG       []string     // the profiles of the GPU Operator's "all-balanced" MIG config
	GKEAccelerator    string       // GKE accelerator type, "" when GKE does not offer the GPU
}

// MIGCapable reports whether the GPU can be partitioned with MIG.
func (g GPUModel) MIGCapable() bool { return len(g.MIGProfiles) > 0 }

// MIGProfile finds a profile by name.
func (g GPUModel) MIGProfile(name string) (MIGProfile, bool) {
	for _, p := range g.MIGProfiles {
		if p.Name == name {
			return p, true
		}
	}
	return MIGProfile{}, false
}

// MIGProfileNames lists the profile names in the order of NVIDIA's table.
func (g GPUModel) MIGProfileNames() []string {
	names := make([]string, len(g.MIGProfiles))
	for i, p := range g.MIGProfiles {
		names[i] = p.Name
	}
	return names
}

// Price is one price row: what one node costs per hour in one region.
type Price struct {
	Region      string
	OnDemandUSD float64 // per node-hour
	SpotUSD     float64 // per node-hour; an estimate, spot prices move
	Source      string  // where the numbers come from
	AsOf        string  // YYYY-MM-DD of the on-demand price
	SpotAsOf    string  // YYYY-MM-DD of the spot figure the spot price is derived from
}

// NodeType is one shape of GPU node: an EC2 instance type, or a GKE machine type with its accelerators.
type NodeType struct {
	Cloud       Cloud
	Name        string // EC2 instance type or GKE machine type
	Family      string // e.g. "p5", "a3-highgpu", "n1"
	GPUModel    string
	GPUCount    int
	VCPU        int
	MemoryGiB   float64
	Accelerator string // GKE accelerator type; "" on AWS
	// Interconnect links the node's GPUs: InterconnectNVSwitch, InterconnectNVLink or
	// InterconnectPCIe; "" for one GPU. See interconnect.go for the sources.
	Interconnect string
	// InterNode is the network the node's GPUs reach other nodes' GPUs through: NetworkEFA,
	// NetworkGPUDirectTCPX, NetworkGPUDirectTCPXO or NetworkGPUDirectRDMA; "" for none (plain TCP).
	// See internode.go for the sources.
	InterNode string
	// InterNodeNICs is how many interfaces that network takes: on AWS the instance type's network
	// cards, one EFA interface each; on Google Cloud the extra GPU NICs (additional node networks).
	InterNodeNICs int
	Prices        []Price
}

// MultiNode reports whether the node has an inter-node GPU network, which a replica spread over
// several nodes needs.
func (n NodeType) MultiNode() bool { return n.InterNode != "" }

// NVLinked reports whether the node's GPUs talk over NVLink (directly or through NVSwitch), which
// a replica spread over several GPUs for training needs.
func (n NodeType) NVLinked() bool {
	return n.Interconnect == InterconnectNVLink || n.Interconnect == InterconnectNVSwitch
}

// Price returns the price row for a region.
func (n NodeType) Price(region string) (Price, bool) {
	for _, p := range n.Prices {
		if p.Region == region {
			return p, true
		}
	}
	return Price{}, false
}

// GPU returns the GPU model the node carries.
func (n NodeType) GPU() GPUModel {
	g, _ := GPU(n.GPUModel)
	return g
}

// GPU looks a GPU model up by name (case-insensitive).
func GPU(name string) (GPUModel, bool) {
	for _, g := range gpuModels {
		if strings.EqualFold(g.Name, name) {
			return g, true
		}
	}
	return GPUModel{}, false
}

// GPUs lists every GPU model.
func GPUs() []GPUModel { return append([]GPUModel(nil), gpuModels...) }

// GPUByAccelerator finds the GPU behind a GKE accelerator type, including accelerator types that
// name a GPU a second time (A3 Mega's nvidia-h100-mega-80gb is an H100 80 GB).
func GPUByAccelerator(accelerator string) (GPUModel, bool) {
	if alias, ok := gkeAcceleratorAliases[accelerator]; ok {
		return GPU(alias)
	}
	for _, g := range gpuModels {
		if g.GKEAccelerator != "" && g.GKEAccelerator == accelerator {
			return g, true
		}
	}
	return GPUModel{}, false
}

// AWSInstanceType looks an EC2 GPU instance type up.
func AWSInstanceType(name string) (NodeType, bool) {
	for _, n := range awsInstanceTypes {
		if n.Name == name {
			return n, true
		}
	}
	return NodeType{}, false
}

// IsNodeTypeName reports whether name is an EC2 GPU instance type or a GKE GPU machine type the
// catalog knows (the keys of price overrides).
func IsNodeTypeName(name string) bool {
	if _, ok := AWSInstanceType(name); ok {
		return true
	}
	return knownGKEMachineType(name)
}

// GKENodeType resolves a GKE machine type and its accelerators into one node shape. accelerator and
// count may be left empty/zero for machine types that come with fixed GPUs (a2, a3, a4, g2); when
// given, they must match what the machine type carries. n1 machine types need both, as GKE attaches
// T4, V100 or P100 GPUs to them, and Compute Engine caps the machine size per GPU count.
func GKENodeType(machineType, accelerator string, count int) (NodeType, error) {
	if !knownGKEMachineType(machineType) {
		return NodeType{}, fmt.Errorf("machine type %q is not a GKE GPU machine type the catalog knows", machineType)
	}
	if count < 0 {
		return NodeType{}, fmt.Errorf("GPU count %d for machine type %q is negative", count, machineType)
	}
	if _, n1 := findN1Machine(machineType); n1 && (accelerator == "" || count == 0) {
		return NodeType{}, fmt.Errorf("machine type %q has no GPUs of its own: name an accelerator type (%s) and a count",
			machineType, strings.Join(n1AcceleratorNames(), ", "))
	}
	for _, n := range gkeNodeTypes() {
		if n.Name != machineType {
			continue
		}
		if accelerator != "" && n.Accelerator != accelerator {
			continue
		}
		if count != 0 && n.GPUCount != count {
			continue
		}
		return n, nil
	}
	return NodeType{}, explainGKEMismatch(machineType, accelerator, count)
}

// GKEMachineTakes says whether a machine type takes an accelerator in some count ("": its own
// GPUs), so that a wrong count can be told from a wrong accelerator.
func GKEMachineTakes(machineType, accelerator string) bool {
	for _, n := range gkeNodeTypes() {
		if n.Name == machineType && (accelerator == "" || n.Accelerator == accelerator) {
			return true
		}
	}
	return false
}

// NodeTypes lists every node shape of a cloud, sorted by name then GPU count.
func NodeTypes(cloud Cloud) []NodeType {
	var out []NodeType
	switch cloud {
	case AWS:
		out = append(out, awsInstanceTypes...)
	case GCP:
		out = gkeNodeTypes()
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		if out[i].Accelerator != out[j].Accelerator {
			return out[i].Accelerator < out[j].Accelerator
		}
		return out[i].GPUCount < out[j].GPUCount
	})
	return out
}

// Regions lists the regions that have prices for a cloud.
func Regions(cloud Cloud) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range NodeTypes(cloud) {
		for _, p := range n.Prices {
			if !seen[p.Region] {
				seen[p.Region] = true
				out = append(out, p.Region)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Requirement filters node shapes. Zero fields do not filter.
type Requirement struct {
	Cloud           Cloud
	Region          string  // only shapes priced in this region
	GPUModel        string  // exact GPU model
	MinGPUMemoryGiB float64 // memory of one GPU
	MIGCapable      bool
	MinGPUs         int
	MaxGPUs         int
}

// Find returns the node shapes meeting r, cheapest on-demand first (in r.Region when set).
func Find(r Requirement) []NodeType {
	var out []NodeType
	for _, cloud := range []Cloud{AWS, GCP} {
		if r.Cloud != "" && r.Cloud != cloud {
			continue
		}
		for _, n := range NodeTypes(cloud) {
			if r.matches(n) {
				out = append(out, n)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return referencePrice(out[i], r.Region) < referencePrice(out[j], r.Region) })
	return out
}

func (r Requirement) matches(n NodeType) bool {
	g := n.GPU()
	switch {
	case r.GPUModel != "" && !strings.EqualFold(r.GPUModel, n.GPUModel),
		g.MemoryGiB < r.MinGPUMemoryGiB,
		r.MIGCapable && !g.MIGCapable(),
		r.MinGPUs > 0 && n.GPUCount < r.MinGPUs,
		r.MaxGPUs > 0 && n.GPUCount > r.MaxGPUs:
		return false
	}
	if r.Region != "" {
		if _, ok := n.Price(r.Region); !ok {
			return false
		}
	}
	return true
}

func referencePrice(n NodeType, region string) float64 {
	if p, ok := n.Price(region); ok {
		return p.OnDemandUSD
	}
	if len(n.Prices) > 0 {
		return n.Prices[0].OnDemandUSD
	}
	return 0
}
