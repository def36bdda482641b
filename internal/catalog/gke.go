package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// gkeShape is a Compute Engine machine type that comes with its own GPUs (accelerator-optimized
// A2/A3/A4 and G2). GKE derives the accelerator from the machine type for these.
type gkeShape struct {
	name        string
	family      string
	gpu         string
	accelerator string
	gpus        int
	vcpu        int
	memoryGiB   float64
}

var gkeFixedShapes = []gkeShape{
	{"g2-standard-4", "g2", "L4", "nvidia-l4", 1, 4, 16},
	{"g2-standard-8", "g2", "L4", "nvidia-l4", 1, 8, 32},
	{"g2-standard-12", "g2", "L4", "nvidia-l4", 1, 12, 48},
	{"g2-standard-16", "g2", "L4", "nvidia-l4", 1, 16, 64},
	{"g2-standard-24", "g2", "L4", "nvidia-l4", 2, 24, 96},
	{"g2-standard-32", "g2", "L4", "nvidia-l4", 1, 32, 128},
	{"g2-standard-48", "g2", "L4", "nvidia-l4", 4, 48, 192},
	{"g2-standard-96", "g2", "L4", "nvidia-l4", 8, 96, 384},

	{"a2-highgpu-1g", "a2-highgpu", "A100-40GB", "nvidia-tesla-a100", 1, 12, 85},
	{"a2-highgpu-2g", "a2-highgpu", "A100-40GB", "nvidia-tesla-a100", 2, 24, 170},
	{"a2-highgpu-4g", "a2-highgpu", "A100-40GB", "nvidia-tesla-a100", 4, 48, 340},
	{"a2-highgpu-8g", "a2-highgpu", "A100-40GB", "nvidia-tesla-a100", 8, 96, 680},
	{"a2-megagpu-16g", "a2-megagpu", "A100-40GB", "nvidia-tesla-a100", 16, 96, 1360},

	{"a2-ultragpu-1g", "a2-ultragpu", "A100-80GB", "nvidia-a100-80gb", 1, 12, 170},
	{"a2-ultragpu-2g", "a2-ultragpu", "A100-80GB", "nvidia-a100-80gb", 2, 24, 340},
	{"a2-ultragpu-4g", "a2-ultragpu", "A100-80GB", "nvidia-a100-80gb", 4, 48, 680},
	{"a2-ultragpu-8g", "a2-ultragpu", "A100-80GB", "nvidia-a100-80gb", 8, 96, 1360},

	{"a3-highgpu-1g", "a3-highgpu", "H100-80GB", "nvidia-h100-80gb", 1, 26, 234},
	{"a3-highgpu-2g", "a3-highgpu", "H100-80GB", "nvidia-h100-80gb", 2, 52, 468},
	{"a3-highgpu-4g", "a3-highgpu", "H100-80GB", "nvidia-h100-80gb", 4, 104, 936},
	{"a3-highgpu-8g", "a3-highgpu", "H100-80GB", "nvidia-h100-80gb", 8, 208, 1872},
	// A3 Mega has its own accelerator type (more GPU-to-GPU network bandwidth), same H100 80 GB GPU.
	{"a3-megagpu-8g", "a3-megagpu", "H100-80GB", "nvidia-h100-mega-80gb", 8, 208, 1872},
	{"a3-ultragpu-8g", "a3-ultragpu", "H200-141GB", "nvidia-h200-141gb", 8, 224, 2952},
	{"a4-highgpu-8g", "a4-highgpu", "B200", "nvidia-b200", 8, 224, 3968},
}

// n1Machine is an N1 predefined machine type; GKE attaches T4, P4, V100 or P100 GPUs to it.
type n1Machine struct {
	name      string
	vcpu      int
	memoryGiB float64 // n1-standard: 3.75 GB per vCPU, n1-highmem: 6.5 GB per vCPU
}

var n1Machines = []n1Machine{
	{"n1-standard-4", 4, 15},
	{"n1-standard-8", 8, 30},
	{"n1-standard-16", 16, 60},
	{"n1-standard-32", 32, 120},
	{"n1-highmem-8", 8, 52},
	{"n1-highmem-16", 16, 104},
}

// n1Limit is how big an N1 machine may be for a given number of attached GPUs.
type n1Limit struct {
	maxVCPU      int
	maxMemoryGiB float64
}

// n1GPULimits is Compute Engine's "GPU platforms" table for N1: per accelerator and GPU count, the
// largest machine it can be attached to. It is why n1-standard-32 takes 4 or 8 V100s but not 1 or 2.
var n1GPULimits = map[string]map[int]n1Limit{
	"nvidia-tesla-t4":   {1: {48, 312}, 2: {48, 312}, 4: {96, 624}},
	"nvidia-tesla-p4":   {1: {24, 156}, 2: {48, 312}, 4: {96, 624}},
	"nvidia-tesla-v100": {1: {12, 78}, 2: {24, 156}, 4: {48, 312}, 8: {96, 624}},
	"nvidia-tesla-p100": {1: {16, 104}, 2: {32, 208}, 4: {64, 208}},
}

// n1AttachCounts lists the GPU counts GKE accepts for an accelerator on N1, ascending.
func n1AttachCounts(accelerator string) []int {
	var counts []int
	for c := range n1GPULimits[accelerator] {
		counts = append(counts, c)
	}
	sort.Ints(counts)
	return counts
}

// n1Fits reports whether count × accelerator may be attached to machine m.
func n1Fits(m n1Machine, accelerator string, count int) bool {
	l, ok := n1GPULimits[accelerator][count]
	return ok && m.vcpu <= l.maxVCPU && m.memoryGiB <= l.maxMemoryGiB
}

// n1ValidCounts lists the GPU counts of accelerator that fit machine m.
func n1ValidCounts(m n1Machine, accelerator string) []int {
	var out []int
	for _, c := range n1AttachCounts(accelerator) {
		if n1Fits(m, accelerator, c) {
			out = append(out, c)
		}
	}
	return out
}

func n1AcceleratorNames() []string {
	names := make([]string, 0, len(n1Accelerators))
	for a := range n1Accelerators {
		names = append(names, a)
	}
	sort.Strings(names)
	return names
}

func findN1Machine(name string) (n1Machine, bool) {
	for _, m := range n1Machines {
		if m.name == name {
			return m, true
		}
	}
	return n1Machine{}, false
}

// n1MachinePrice is the price of the N1 machine alone in a region. The policy export and the n1
// combinations of gkeNodeTypes both use it, so they always agree.
func n1MachinePrice(m n1Machine, region string) (unitPrice, bool) {
	base := round4(float64(m.vcpu)*n1VCPUHourUSD + m.memoryGiB*n1GiBHourUSD)
	return regionalPrice(GCP, "n1", gcpFamilies["n1"], base, nil, n1MachineQuote, region)
}

// n1AcceleratorPrice is the price of one attached GPU in a region (same sharing as n1MachinePrice).
func n1AcceleratorPrice(accelerator, region string) (unitPrice, bool) {
	a, ok := n1Accelerators[accelerator]
	if !ok {
		return unitPrice{}, false
	}
	f := family{base: "us-central1", regions: a.regions, spotRatio: a.spotRatio, spotSource: a.spotSource}
	return regionalPrice(GCP, accelerator, f, a.onDemand, nil, "Google Compute Engine GPU on-demand list price", region)
}

// n1ComboPrices sums machine and GPUs per region; a combination exists where both are offered.
func n1ComboPrices(m n1Machine, accelerator string, count int) []Price {
	var rows []Price
	for _, region := range gcpRegions {
		mp, ok := n1MachinePrice(m, region)
		if !ok {
			continue
		}
		gp, ok := n1AcceleratorPrice(accelerator, region)
		if !ok {
			continue
		}
		rows = append(rows, Price{
			Region:      region,
			OnDemandUSD: round4(mp.onDemand + float64(count)*gp.onDemand),
			SpotUSD:     round4(mp.spot + float64(count)*gp.spot),
			Source: fmt.Sprintf("%s + %d × %s, summed. Machine: %s. Per GPU: %s",
				m.name, count, accelerator, mp.source, gp.source),
			AsOf:     priceAsOf,
			SpotAsOf: max(mp.spotAsOf, gp.spotAsOf),
		})
	}
	return rows
}

// gkeNodeTypes lists every GKE node shape: fixed-GPU machine types, then every valid
// (n1 machine, accelerator, count) combination. Built once; callers get their own slice.
func gkeNodeTypes() []NodeType { return slices.Clone(gkeNodeTypesOnce()) }

var gkeNodeTypesOnce = sync.OnceValue(buildGKENodeTypes)

func buildGKENodeTypes() []NodeType {
	var out []NodeType
	for _, s := range gkeFixedShapes {
		f, ok := gcpFamilies[s.family]
		if !ok {
			panic(fmt.Sprintf("catalog: no GCP family data for %s", s.name))
		}
		od, ok := gceOnDemand[s.name]
		if !ok {
			panic(fmt.Sprintf("catalog: no GCE on-demand price for %s", s.name))
		}
		internode, nics := gkeInterNode(s.name)
		out = append(out, NodeType{
			InterNode:     internode,
			InterNodeNICs: nics,
			Cloud:         GCP,
			Name:          s.name,
			Family:        s.family,
			GPUModel:      s.gpu,
			GPUCount:      s.gpus,
			VCPU:          s.vcpu,
			MemoryGiB:     s.memoryGiB,
			Accelerator:   s.accelerator,
			Interconnect:  interconnectOf(s.family, s.gpus),
			Prices:        priceRows(GCP, s.family, f, od, gcpSeriesPrices(s.family, od)),
		})
	}
	for _, m := range n1Machines {
		for _, accel := range n1AcceleratorNames() {
			g, ok := GPUByAccelerator(accel)
			if !ok {
				panic(fmt.Sprintf("catalog: accelerator %s has no GPU model", accel))
			}
			for _, count := range n1ValidCounts(m, accel) {
				out = append(out, NodeType{
					Cloud:        GCP,
					Name:         m.name,
					Family:       "n1",
					GPUModel:     g.Name,
					GPUCount:     count,
					VCPU:         m.vcpu,
					MemoryGiB:    m.memoryGiB,
					Accelerator:  accel,
					Interconnect: interconnectOf("n1", count),
					Prices:       n1ComboPrices(m, accel, count),
				})
			}
		}
	}
	return out
}

// knownGKEMachineType reports whether the catalog knows a GKE GPU machine type, with or without
// accelerators of its own.
func knownGKEMachineType(name string) bool {
	if _, ok := findN1Machine(name); ok {
		return true
	}
	_, ok := findFixedShape(name)
	return ok
}

func findFixedShape(name string) (gkeShape, bool) {
	for _, s := range gkeFixedShapes {
		if s.name == name {
			return s, true
		}
	}
	return gkeShape{}, false
}

// explainGKEMismatch says why a machine type does not take the accelerators asked for, naming what
// it does take, so the plan-time error tells the user how to fix the configuration.
func explainGKEMismatch(machineType, accelerator string, count int) error {
	if s, ok := findFixedShape(machineType); ok {
		return fmt.Errorf("machine type %q comes with %d x %q; it does not take %s",
			machineType, s.gpus, s.accelerator, describeAsk(accelerator, count))
	}
	m, _ := findN1Machine(machineType)
	if _, ok := n1Accelerators[accelerator]; !ok {
		return fmt.Errorf("accelerator %q cannot be attached to n1 machine type %q: use one of %s",
			accelerator, machineType, strings.Join(n1AcceleratorNames(), ", "))
	}
	valid := n1ValidCounts(m, accelerator)
	return fmt.Errorf("machine type %q (%d vCPUs, %g GiB) takes %q in counts %v, not %d: Compute Engine limits vCPUs and memory per GPU count",
		machineType, m.vcpu, m.memoryGiB, accelerator, valid, count)
}

func describeAsk(accelerator string, count int) string {
	switch {
	case accelerator == "":
		return fmt.Sprintf("%d GPUs", count)
	case count == 0:
		return fmt.Sprintf("%q", accelerator)
	default:
		return fmt.Sprintf("%d x %q", count, accelerator)
	}
}

// gkePartitionSizes are the gpu_partition_size values GKE accepts per accelerator: a subset of
// NVIDIA's MIG profiles (GKE documentation, "Running multi-instance GPUs": supported partition
// sizes; H200 and B200 from the same page's A3 Ultra and A4 rows).
var gkePartitionSizes = map[string][]string{
	"nvidia-tesla-a100":     {"1g.5gb", "2g.10gb", "3g.20gb", "7g.40gb"},
	"nvidia-a100-80gb":      {"1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb"},
	"nvidia-h100-80gb":      {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "7g.80gb"},
	"nvidia-h100-mega-80gb": {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "7g.80gb"},
	"nvidia-h200-141gb":     {"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"},
	"nvidia-b200":           {"1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"},
}

// GKEPartitionSizes lists the MIG partition sizes GKE offers for an accelerator; none when GKE
// does not partition it.
func GKEPartitionSizes(accelerator string) []string {
	return slices.Clone(gkePartitionSizes[accelerator])
}
