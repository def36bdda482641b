package catalog

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The fit of a workload to a GPU node: the one function that decides whether replicas of a
// workload can run on a node shape (whole GPUs, a MIG slice or shared GPUs of one node type). The
// gpufleet_recommendation data source, the pool resources' plan-time checks and the policy bundle's
// right-sizing rules (GF-RS-001, GF-RS-004, GF-RS-007, through lib.fit, which evaluates the exported
// catalog.fit_model with the same numbers; TestFitParity keeps them equal) all use it.
//
// A replica fits a node when all of these hold:
//
//   - precision: the GPU computes in the workload's precision (MinComputeCapability: bf16 needs
//     compute capability 8.0, fp8 8.9);
//   - memory, with headroom: the replica's GPU memory need is at most (100 − headroom) % of the
//     memory of the GPUs (or the MIG slice, or the shared GPU) it runs on, headroom 5 % by default
//     (DefaultMemoryHeadroomPercent), rounded down to 0.01 GiB: allocators fragment and CUDA
//     kernels, NCCL buffers and the driver take memory outside any estimate, so a 15.65 GiB
//     model on a 16 GiB T4 does not run;
//   - GPUs per replica: a replica's GPUs are on one node, except a training replica over a whole
//     multiple of the node's GPUs, which spans that many nodes (multi-node training: FSDP, tensor
//     or pipeline parallel over nodes), each node running its share of that one replica. By default inference replicas take the
//     fewest GPUs of the node, a power of two (TensorParallelSizes, the sizes tensor-parallel
//     serving engines split attention heads over), whose memory holds them; every other kind takes
//     one GPU. A MIG slice or a shared GPU holds one replica of one GPU;
//   - interconnect: a training replica on more than one GPU (FSDP, ZeRO, tensor parallel) needs
//     the node's GPUs linked by NVLink or NVSwitch (NodeType.Interconnect), on every node it spans;
//   - inter-node network: a replica over several nodes needs the nodes' GPUs to reach each other
//     over EFA or GPUDirect (NodeType.InterNode, internode.go): over plain TCP NCCL moves a few GB/s;
//   - host memory: the node's memory holds the weights of every replica it runs (they pass
//     through host memory when a model loads) plus HostMemoryReserveGiB for the OS, kubelet and
//     system daemons. The weights are the model's when the recommendation knows the model, else
//     the need / InferenceOverhead (HostGiBFor: the inference estimate read backwards), less the
//     KV cache the need includes (FitDemand.KVCacheGiB: it lives in GPU memory only, kvcache.go);
//   - vCPUs: VCPUsPerReplica per replica the node runs, the core that feeds its GPU(s).
//
// A pool of N replicas then needs ceil(N / replicas per node) nodes; production inference with two
// or more replicas needs at least two nodes so that one node's loss does not take the service
// down; and a pool holds 1 to FitDemand.MaxNodes nodes (NodeLimit: the EKS node group quota, GKE's
// 1 000 per zone; MaxPoolNodes when not given).
const (
	DefaultMemoryHeadroomPercent = 5.0
	VCPUsPerReplica              = 1
	MaxPoolNodes                 = 1000
	// evictionThresholdGiB is the kubelet's hard eviction threshold (memory.available<100Mi).
	evictionThresholdGiB = 100.0 / 1024
)

// TensorParallelSizes are the GPU counts a replica may be split over by default.
var TensorParallelSizes = []int{1, 2, 4, 8, 16}

// hostReserveTiers is GKE's memory reservation for system components (GKE docs, "Standard cluster
// architecture", "Node allocatable resources", as of 2026-01): 25 % of the first 4 GiB, 20 % of the
// next 4, 10 % of the next 8, 6 % of the next 112 and 2 % of the rest, plus the eviction threshold.
var hostReserveTiers = []struct{ uptoGiB, share float64 }{
	{4, 0.25}, {8, 0.20}, {16, 0.10}, {128, 0.06}, {math.Inf(1), 0.02},
}

// eksReserveGiB is what the EKS optimized AMIs' bootstrap reserves on a node (Amazon EKS AMI,
// bootstrap.sh / nodeadm, as of 2026-01): kube-reserved memory of 255 MiB + 11 MiB per pod the node
// may run, at the 110 pods EKS recommends as the cap (EKS docs, "Amazon EKS recommended maximum Pods
// for each Amazon EC2 instance type"), plus the 100 MiB eviction threshold.
const eksReserveGiB = (255.0 + 11*110 + 100) / 1024

// HostMemoryReserveGiB is the host memory a node of memoryGiB on a cloud keeps for itself, rounded
// up to 0.01 GiB: EKS's AMI reservation on AWS, GKE's tiers on Google Cloud.
func HostMemoryReserveGiB(cloud Cloud, memoryGiB float64) float64 {
	if cloud == AWS {
		return roundUp2(eksReserveGiB)
	}
	r, lower := evictionThresholdGiB, 0.0
	for _, t := range hostReserveTiers {
		if memoryGiB > lower {
			r += (min(memoryGiB, t.uptoGiB) - lower) * t.share
		}
		lower = t.uptoGiB
	}
	return roundUp2(r)
}

// Fit constraints, as FitProblem.Constraint and the bundle's lib.fit name them.
const (
	ConstraintPrecision      = "precision"
	ConstraintMemory         = "memory"
	ConstraintGPUsPerReplica = "gpus_per_replica"
	ConstraintInterconnect   = "interconnect"
	ConstraintInterNode      = "internode"
	ConstraintHostMemory     = "host_memory"
	ConstraintVCPUs          = "vcpus"
	ConstraintNodeLimit      = "node_limit"
)

// FitDemand is what one replica needs and how many run.
type FitDemand struct {
	NeedGiB         float64 // GPU memory one replica needs in all (over all its GPUs)
	HostGiB         float64 // host memory one replica needs; 0: (NeedGiB − KVCacheGiB) / InferenceOverhead (its weights)
	KVCacheGiB      float64 // of NeedGiB, the KV cache: GPU memory only, never in host memory
	Precision       string  // "" when unknown: not checked
	Kind            string  // training | inference | development | batch
	Environment     string
	GPUsPerReplica  int     // 0: the default above
	Replicas        int     // 0 when unknown: the node's capacity counts, and no node count
	HeadroomPercent float64 // 0–50
	MaxNodes        int     // nodes a pool may hold (NodeLimit); 0: MaxPoolNodes
}

// FitShape is how a node offers GPUs: whole GPUs, a MIG profile, or shared GPUs.
type FitShape struct {
	Cloud         Cloud // the host memory reserve differs
	GPU           GPUModel
	GPUs          int     // per node
	UnitGiB       float64 // memory of what one replica gets on one GPU: the GPU, or the MIG slice
	UnitsPerGPU   int     // MIG slices or time-sharing replicas per GPU; 1 for whole GPUs
	Partitioned   bool    // MIG or sharing: a replica gets one unit of one GPU
	Shared        bool    // sharing: UnitsPerGPU replicas split the GPU's memory
	NodeMemoryGiB float64
	VCPUs         int
	Interconnect  string
	InterNode     string // NodeType.InterNode: "" when the node has no inter-node GPU network
}

// WholeGPUs is the shape of a node type's whole GPUs.
func WholeGPUs(n NodeType) FitShape {
	g := n.GPU()
	return FitShape{Cloud: n.Cloud, GPU: g, GPUs: n.GPUCount, UnitGiB: g.MemoryGiB, UnitsPerGPU: 1, NodeMemoryGiB: n.MemoryGiB, VCPUs: n.VCPU, Interconnect: n.Interconnect, InterNode: n.InterNode}
}

// MIGSlices is the shape of a node type's GPUs cut into one MIG profile.
func MIGSlices(n NodeType, p MIGProfile) FitShape {
	s := WholeGPUs(n)
	s.UnitGiB, s.UnitsPerGPU, s.Partitioned = p.MemoryGiB, p.MaxInstances, true
	return s
}

// SharedGPUs is the shape of a node type's GPUs time-shared by replicas per GPU.
func SharedGPUs(n NodeType, replicas int) FitShape {
	s := WholeGPUs(n)
	s.UnitsPerGPU, s.Partitioned, s.Shared = replicas, true, true
	return s
}

// FitProblem is one constraint a shape fails, and how.
type FitProblem struct {
	Constraint string
	Text       string
}

// Fit is the verdict.
type Fit struct {
	GPUsPerReplica  int
	NodesPerReplica int     // 1, or the nodes a multi-node training replica spans
	ReplicasPerNode int     // 1 for a multi-node replica: each node runs its share of one replica
	UsableGiB       float64 // GPU memory a replica may use: (100 − headroom) % of its GPUs' or slice's
	HostNeedGiB     float64 // host memory the node needs for the replicas it runs, reserve included
	Nodes           int     // nodes for d.Replicas (0 when Replicas is 0)
	Problems        []FitProblem
}

// Fits reports whether there is no problem.
func (f Fit) Fits() bool { return len(f.Problems) == 0 }

// Constraints lists the constraints that failed, sorted.
func (f Fit) Constraints() []string {
	out := make([]string, len(f.Problems))
	for i, p := range f.Problems {
		out[i] = p.Constraint
	}
	slices.Sort(out)
	return out
}

// Has reports whether constraint failed.
func (f Fit) Has(constraint string) bool {
	return slices.ContainsFunc(f.Problems, func(p FitProblem) bool { return p.Constraint == constraint })
}

// Text joins the problems for a message.
func (f Fit) Text() string {
	texts := make([]string, len(f.Problems))
	for i, p := range f.Problems {
		texts[i] = p.Text
	}
	return strings.Join(texts, "; ")
}

// usableGiB is (100 − headroom) % of gib, rounded down to 0.01 GiB (after rounding away float noise).
func usableGiB(gib, headroom float64) float64 {
	return math.Floor(math.Round(gib*(100-headroom)*1e4)/1e4) / 100
}

// roundUp2 rounds up to 0.01 (after rounding away float noise).
func roundUp2(x float64) float64 { return math.Ceil(math.Round(x*1e6)/1e4) / 100 }

// HostGiBFor is the host memory one replica needs when only its GPU memory need is known: its
// weights as the inference estimate implies them (need / InferenceOverhead), rounded up to 0.01 GiB.
func HostGiBFor(needGiB float64) float64 { return roundUp2(needGiB / InferenceOverhead) }

// defaultGPUsPerReplica is the fewest tensor-parallel GPUs of the shape whose usable memory holds
// the replica (inference on whole GPUs), else 1; the node's GPU count when none holds it.
func defaultGPUsPerReplica(s FitShape, d FitDemand) int {
	if d.Kind != "inference" || s.Partitioned {
		return 1
	}
	for _, g := range TensorParallelSizes {
		if g > s.GPUs {
			break
		}
		if d.NeedGiB <= usableGiB(float64(g)*s.UnitGiB, d.HeadroomPercent) {
			return g
		}
	}
	return s.GPUs
}

// FitWorkload decides whether replicas of d fit shape s (see the constraints above).
func FitWorkload(s FitShape, d FitDemand) Fit {
	var f Fit
	add := func(c, format string, args ...any) {
		f.Problems = append(f.Problems, FitProblem{Constraint: c, Text: fmt.Sprintf(format, args...)})
	}
	if !s.GPU.SupportsPrecision(d.Precision) {
		add(ConstraintPrecision, "%s (%s, compute capability %s) does not compute in %s, which needs compute capability %s or newer",
			s.GPU.Name, s.GPU.Architecture, fmtCC(s.GPU.ComputeCapability), d.Precision, fmtCC(MinComputeCapability[d.Precision]))
	}
	g := d.GPUsPerReplica
	if g == 0 {
		g = defaultGPUsPerReplica(s, d)
	}
	f.GPUsPerReplica, f.NodesPerReplica = g, 1
	switch {
	case g > 1 && s.Partitioned:
		add(ConstraintGPUsPerReplica, "a replica over %d GPUs cannot run on MIG slices or shared GPUs", g)
		g = 1
	case g > s.GPUs && SpansNodes(d.Kind, g, s.GPUs):
		f.NodesPerReplica = g / s.GPUs
		if s.InterNode == "" {
			add(ConstraintInterNode, "a training replica over %d GPUs spans %d nodes of %s, which needs an inter-node GPU network (%s); this node type has none",
				g, f.NodesPerReplica, gpusText(s.GPUs), InterNodeNamesFor(s.Cloud))
		}
		g = s.GPUs
	case g > s.GPUs && d.Kind == "training":
		add(ConstraintGPUsPerReplica, "a replica over %d GPUs needs them on one node, which has %d, or on whole nodes (a multiple of %d GPUs)", g, s.GPUs, s.GPUs)
		g = s.GPUs
	case g > s.GPUs:
		add(ConstraintGPUsPerReplica, "a replica over %d GPUs needs them on one node, which has %d", g, s.GPUs)
		g = s.GPUs
	}
	f.ReplicasPerNode = s.GPUs / g * s.UnitsPerGPU
	unit := s.UnitGiB
	if s.Shared && s.UnitsPerGPU > 1 { // the GPU's memory is split between the replicas that share it
		unit = math.Floor(math.Round(s.UnitGiB/float64(s.UnitsPerGPU)*1e6)/1e4) / 100
	}
	f.UsableGiB = usableGiB(float64(g*f.NodesPerReplica)*unit, d.HeadroomPercent)
	if d.NeedGiB > f.UsableGiB {
		add(ConstraintMemory, "%s GiB needed per replica, %d x %s GiB usable at %s %% headroom gives %s GiB",
			fmtG(d.NeedGiB), g*f.NodesPerReplica, fmtG(unit), fmtG(d.HeadroomPercent), fmtG(f.UsableGiB))
	}
	// Over several nodes too: each node's GPUs take their share of the replica over NVLink (a node of
	// one GPU, or of PCIe-linked GPUs, is no building block for one replica).
	switch {
	case g*f.NodesPerReplica <= 1 || d.Kind != "training" || s.Interconnect == InterconnectNVLink || s.Interconnect == InterconnectNVSwitch:
	case s.GPUs == 1: // the catalog names no interconnect for a node of one GPU
		add(ConstraintInterconnect, "a training replica over %d GPUs needs NVLink between them; this node type has a single GPU, linked to no other", f.GPUsPerReplica)
	default:
		add(ConstraintInterconnect, "a training replica over %d GPUs needs NVLink between them; this node's GPUs share %s only", f.GPUsPerReplica, cmpOr(s.Interconnect, "the PCIe bus"))
	}
	onNode := f.ReplicasPerNode
	if d.Replicas > 0 {
		onNode = min(onNode, d.Replicas)
	}
	host := d.HostGiB
	if host == 0 {
		host = HostGiBFor(max(d.NeedGiB-d.KVCacheGiB, 0))
	}
	reserve := HostMemoryReserveGiB(s.Cloud, s.NodeMemoryGiB)
	f.HostNeedGiB = roundUp2(float64(onNode)*host + reserve)
	if f.HostNeedGiB > s.NodeMemoryGiB {
		add(ConstraintHostMemory, "%d replica(s) x %s GiB of weights + %s GiB reserved need %s GiB of host memory, the node has %s GiB",
			onNode, fmtG(host), fmtG(reserve), fmtG(f.HostNeedGiB), fmtG(s.NodeMemoryGiB))
	}
	if onNode*VCPUsPerReplica > s.VCPUs {
		add(ConstraintVCPUs, "%d replica(s) need %d vCPUs at %d per replica, the node has %d", onNode, onNode*VCPUsPerReplica, VCPUsPerReplica, s.VCPUs)
	}
	if d.Replicas > 0 && f.ReplicasPerNode > 0 {
		f.Nodes = (d.Replicas + f.ReplicasPerNode - 1) / f.ReplicasPerNode * f.NodesPerReplica
		if SpreadsReplicas(d.Kind, d.Environment, d.Replicas) {
			f.Nodes = max(f.Nodes, 2)
		}
		if limit := cmpOrInt(d.MaxNodes, MaxPoolNodes); f.Nodes > limit {
			add(ConstraintNodeLimit, "%d replicas at %d per node need %d nodes, more than the %d a pool holds", d.Replicas, f.ReplicasPerNode, f.Nodes, limit)
		}
	}
	return f
}

// SpansNodes reports whether a replica over gpus GPUs runs on several nodes of nodeGPUs each:
// training over a whole multiple (two or more) of the node's GPUs. Other kinds keep a replica on
// one node (serving engines split a replica over nodes rarely, and never by default here).
func SpansNodes(kind string, gpus, nodeGPUs int) bool {
	return kind == "training" && nodeGPUs > 0 && gpus > nodeGPUs && gpus%nodeGPUs == 0
}

// SpreadsReplicas reports whether a pool must spread its replicas over at least two nodes:
// production inference with two or more replicas (GF-RS-005).
func SpreadsReplicas(kind, environment string, replicas int) bool {
	return kind == "inference" && environment == "production" && replicas >= 2
}

func fmtCC(cc float64) string { return fmt.Sprintf("%.1f", cc) }
func fmtG(x float64) string   { return fmt.Sprintf("%g", x) }

func cmpOrInt(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// exportFitModel is catalog.fit_model: the numbers lib.fit computes with.
func exportFitModel() map[string]any {
	minCC := map[string]any{}
	for p, cc := range MinComputeCapability {
		minCC[p] = cc
	}
	tiers := make([]any, len(hostReserveTiers))
	for i, t := range hostReserveTiers {
		upto := any(t.uptoGiB)
		if math.IsInf(t.uptoGiB, 1) {
			upto = nil
		}
		tiers[i] = map[string]any{"upto_gib": upto, "share": t.share}
	}
	sizes := make([]any, len(TensorParallelSizes))
	for i, s := range TensorParallelSizes {
		sizes[i] = s
	}
	return map[string]any{
		"min_compute_capability":          minCC,
		"default_memory_headroom_percent": DefaultMemoryHeadroomPercent,
		"vcpus_per_replica":               VCPUsPerReplica,
		"max_pool_nodes":                  MaxPoolNodes,
		"eviction_threshold_gib":          evictionThresholdGiB,
		"host_reserve_tiers":              tiers,
		"eks_reserve_gib":                 roundUp2(eksReserveGiB),
		"tensor_parallel_sizes":           sizes,
		"inference_overhead":              InferenceOverhead,
		"nvlinked":                        []string{InterconnectNVLink, InterconnectNVSwitch},
	}
}

// gpusText is "1 GPU", "8 GPUs".
func gpusText(n int) string {
	if n == 1 {
		return "1 GPU"
	}
	return fmt.Sprintf("%d GPUs", n)
}
