package catalog

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// replicaOption is one way to give one pod replica GPU memory on a cloud in a region: a whole GPU
// of a node type, or one MIG slice of it. The right-sizing rules (GF-RS-002, GF-RS-003) name the
// cheapest option that fits; the table is computed here, once, rather than by the rules for every
// pool they judge.
type replicaOption struct {
	unitUSD   float64 // per replica-hour: the GPU's price, or the GPU's price / slices per GPU
	memoryGiB float64
	kind      string // "gpu" or "mig"
	class     Class
	text      string
	gpuUSD    float64 // per GPU-hour
	cc        float64 // the GPU's compute capability: which precisions the option computes in
}

// term is the option as the rules read it: [unit_usd, memory_gib, kind, class, text, gpu_usd,
// compute_capability, usable_gib]. Rego compares arrays element by element, so min() of a set of
// options is the cheapest. usable_gib is the memory a replica may use at the default headroom (the
// fit's usableGiB): GF-RS-002 compares a need with it, not with OPA's decimal arithmetic per option.
func (o replicaOption) term() []any {
	return []any{o.unitUSD, o.memoryGiB, o.kind, string(o.class), o.text, o.gpuUSD, o.cc, usableGiB(o.memoryGiB, DefaultMemoryHeadroomPercent)}
}

// less orders options as Rego orders their terms.
func (o replicaOption) less(p replicaOption) bool {
	switch {
	case o.unitUSD != p.unitUSD:
		return o.unitUSD < p.unitUSD
	case o.memoryGiB != p.memoryGiB:
		return o.memoryGiB < p.memoryGiB
	case o.kind != p.kind:
		return o.kind < p.kind
	case o.class != p.class:
		return o.class < p.class
	case o.text != p.text:
		return o.text < p.text
	}
	return o.gpuUSD < p.gpuUSD
}

// replicaOptions lists every option per region: each priced GPU node type's whole GPU and each of
// its MIG profiles (not the "+me" media-extension variants). On GKE, GPUs attached to n1 machines
// are priced on the cheapest n1 machine type that takes one of them. Prices are the exported
// (rounded) ones, so the rules' figures match the catalog's.
func replicaOptions(cloud Cloud) map[string][]replicaOption {
	out := map[string][]replicaOption{}
	add := func(region, shape, model string, gpuUSD float64) {
		g, ok := GPU(model)
		if !ok {
			return
		}
		out[region] = append(out[region], replicaOption{
			unitUSD: gpuUSD, memoryGiB: g.MemoryGiB, kind: "gpu", class: g.Class, gpuUSD: gpuUSD, cc: g.ComputeCapability,
			text: fmt.Sprintf("%s (%s, %s GiB)", shape, model, formatGiB(g.MemoryGiB)),
		})
		for _, p := range g.MIGProfiles {
			if p.MaxInstances == 0 || strings.Contains(p.Name, "+") {
				continue
			}
			out[region] = append(out[region], replicaOption{
				unitUSD: gpuUSD / float64(p.MaxInstances), memoryGiB: p.MemoryGiB, kind: "mig", class: g.Class, gpuUSD: gpuUSD, cc: g.ComputeCapability,
				text: fmt.Sprintf("the MIG slice %s of %s on %s", p.Name, model, shape),
			})
		}
	}
	switch cloud {
	case AWS:
		for _, n := range awsInstanceTypes {
			for _, p := range n.Prices {
				add(p.Region, n.Name, n.GPUModel, round4(p.OnDemandUSD)/float64(n.GPUCount))
			}
		}
	case GCP:
		for _, n := range gkeNodeTypesOnce() {
			if n.Family == "n1" {
				continue
			}
			for _, p := range n.Prices {
				add(p.Region, n.Name, n.GPUModel, round4(p.OnDemandUSD)/float64(n.GPUCount))
			}
		}
		for _, a := range n1AcceleratorNames() {
			g, _ := GPUByAccelerator(a)
			for _, region := range gcpRegions {
				gpu, ok := n1AcceleratorPrice(a, region)
				if !ok {
					continue
				}
				machine, machineUSD, ok := cheapestN1For(a, region)
				if !ok {
					continue
				}
				add(region, fmt.Sprintf("%s + 1 x %s", machine, a), g.Name, round4(gpu.onDemand)+machineUSD)
			}
		}
	}
	return out
}

// cheapestN1For is the cheapest n1 machine type (then by name) in a region that takes one GPU of
// the accelerator.
func cheapestN1For(accelerator, region string) (name string, usd float64, ok bool) {
	for _, m := range n1Machines {
		if !slices.Contains(n1ValidCounts(m, accelerator), 1) {
			continue
		}
		p, priced := n1MachinePrice(m, region)
		if !priced {
			continue
		}
		price := round4(p.onDemand)
		if !ok || price < usd || (price == usd && m.name < name) {
			name, usd, ok = m.name, price, true
		}
	}
	return name, usd, ok
}

// exportReplicaOptions is cloud -> region -> the cheapest option of each memory size, by memory:
// the cheapest option with memory in a range is the cheapest of these entries in that range.
// keep selects the options a table is about.
func exportReplicaOptions(keep func(replicaOption) bool) map[string]any {
	out := map[string]any{}
	for _, cloud := range []Cloud{AWS, GCP} {
		regions := map[string]any{}
		for region, options := range replicaOptions(cloud) {
			cheapest := map[float64]replicaOption{}
			for _, o := range options {
				if c, seen := cheapest[o.memoryGiB]; keep(o) && (!seen || o.less(c)) {
					cheapest[o.memoryGiB] = o
				}
			}
			sizes := make([]float64, 0, len(cheapest))
			for m := range cheapest {
				sizes = append(sizes, m)
			}
			sort.Float64s(sizes)
			terms := make([]any, len(sizes))
			for i, m := range sizes {
				terms[i] = cheapest[m].term()
			}
			regions[region] = terms
		}
		out[string(cloud)] = regions
	}
	return out
}

// formatGiB writes GiB as the rules do (lib.gib): at most one decimal, no trailing zeros.
func formatGiB(x float64) string {
	return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
}
