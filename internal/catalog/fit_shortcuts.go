package catalog

import (
	"encoding/json"
	"math"
	"strconv"
)

// The bundle's fit shortcuts as tables.
//
// Before GF-RS-001 and GF-RS-007 evaluate the fit (lib.doc_fit), they ask cheap sufficient
// conditions on the pool document (lib.doc_fits_gpus_surely, lib.doc_fits_host_surely in
// policies/gpufleet/fit.rego): when one holds, the fit surely has none of that rule's problems.
// Written as inequalities, each costs a pool several of OPA's decimal operations, which allocate;
// in a plan of thousands of pools that was a quarter of the bundle's evaluation. The inequalities
// depend on the pool only through its need, so they are solved here, once, for the largest need
// that satisfies them, at the default memory headroom:
//
//   - gpu_need_gib: GPU or slice memory (a number key) → the largest workload.gpu_memory_gib with
//     100 × need + 3 ≤ memory × (100 − DefaultMemoryHeadroomPercent), rounded down to 0.01 GiB;
//   - host: cloud → node type → [GPUs, need]: with one replica on each of the node's GPUs (at most
//     GPUs replicas), their weights (need / 1.2 each) and the system reserve fit the node's memory
//     by the same bounds as lib.doc_fits_host_surely (EKS: 6 × weights ≤ 5 × need + 1 per replica,
//     reserve ≤ 10 / 6 GiB; GKE: reserve ≤ 0.06 × memory + 1.75 GiB), and their vCPUs the node's;
//     a node type whose GPUs' replicas do not fit its vCPUs has no entry.
//
// The Rego keeps the inequalities for what the tables do not cover (another memory headroom, a
// time-shared GPU, a slice memory not in the catalog); TestDocFitShortcuts checks the tables
// against the fit on every shape of the catalog, as it does the inequalities.
func exportFitShortcuts() map[string]any {
	gpuNeed := numberKeyed{}
	for _, g := range gpuModels {
		gpuNeed[g.MemoryGiB] = sureGPUNeed(g.MemoryGiB)
		for _, p := range g.MIGProfiles {
			gpuNeed[p.MemoryGiB] = sureGPUNeed(p.MemoryGiB)
		}
	}
	host := map[string]any{}
	for _, cloud := range []Cloud{AWS, GCP} {
		gpus := map[string]NodeType{} // node type → its shape with the most GPUs (n1 machines take several counts)
		for _, n := range NodeTypes(cloud) {
			if n.GPUCount > gpus[n.Name].GPUCount {
				gpus[n.Name] = n
			}
		}
		types := map[string]any{}
		for name, n := range gpus {
			if need, ok := sureHostNeed(cloud, n); ok {
				types[name] = []any{n.GPUCount, need}
			}
		}
		host[string(cloud)] = types
	}
	return map[string]any{"gpu_need_gib": gpuNeed, "host": host}
}

// sureGPUNeed solves 100 × need + 3 ≤ memory × (100 − headroom) for need, rounded down to 0.01.
func sureGPUNeed(memory float64) float64 {
	return floor2((memory*(100-DefaultMemoryHeadroomPercent) - 3) / 100)
}

// sureHostNeed solves lib.doc_fits_host_surely's bound for need with b = the node's GPUs:
// EKS: b × (5 × need + 1) + 10 ≤ 6 × memory; GKE: 25 × (b × (5 × need + 1) + 11) ≤ 141 × memory.
func sureHostNeed(cloud Cloud, n NodeType) (float64, bool) {
	b := float64(n.GPUCount)
	if b < 1 || n.GPUCount*VCPUsPerReplica > n.VCPU {
		return 0, false
	}
	var perReplica float64 // the bound on 5 × need + 1
	switch cloud {
	case AWS:
		perReplica = (6*n.MemoryGiB - 10) / b
	case GCP:
		perReplica = (141*n.MemoryGiB/25 - 11) / b
	}
	need := floor2((perReplica - 1) / 5)
	return need, need >= 0
}

// floor2 rounds x down to 0.01, a hair below where float64 noise could round it up.
func floor2(x float64) float64 {
	return math.Floor(x*100-1e-6) / 100
}

// numberKeyed is an object with number keys (Rego allows them; OPA compares number keys by
// value, so 16 and 16.0 are the same key). JSON has only string keys: in the OPA bundle's data
// (internal/policybundle) the keys are strings, no number finds them, and the Rego falls back to the
// inequalities.
type numberKeyed map[float64]float64

// MarshalJSON writes the keys as JSON strings ("22.35"), as the catalog's JSON readers
// (PolicyData, the OPA bundle's data) have them.
func (m numberKeyed) MarshalJSON() ([]byte, error) {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[strconv.FormatFloat(k, 'f', -1, 64)] = v
	}
	return json.Marshal(out)
}
