package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// TestFitParity proves that the bundle's lib.fit (the rules' fit of a workload to a pool's node)
// and catalog.FitWorkload (the recommendation's and the pool resources') agree on every node shape
// of both clouds (whole GPUs, every MIG profile, shared GPUs) for demands that cross every
// constraint: precision, memory with and without headroom, GPUs per replica, NVLink, host memory,
// vCPUs and the pool's node limit. lib.fit reads its numbers from the generated catalog.fit_model,
// so this catches a rule that drifts, not only a number.
func TestFitParity(t *testing.T) {
	compiler, store, err := compile(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q, err := rego.New(rego.Compiler(compiler), rego.Store(store),
		rego.Query(`x := data.gpufleet.lib.fit(input.shape, input.demand)`)).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var shapes []catalog.FitShape
	for _, cloud := range []catalog.Cloud{catalog.AWS, catalog.GCP} {
		for _, n := range catalog.NodeTypes(cloud) {
			shapes = append(shapes, catalog.WholeGPUs(n), catalog.SharedGPUs(n, 3))
			for _, p := range n.GPU().MIGProfiles {
				shapes = append(shapes, catalog.MIGSlices(n, p))
			}
		}
	}
	demands := []catalog.FitDemand{
		{NeedGiB: 15.65, Precision: "fp16", Kind: "inference", Environment: "production", HeadroomPercent: 5},
		{NeedGiB: 15.65, Precision: "fp16", Kind: "inference", Environment: "production", HeadroomPercent: 0, Replicas: 4},
		{NeedGiB: 15.2, Kind: "inference", Environment: "staging", HeadroomPercent: 5, Replicas: 1},
		{NeedGiB: 14, HostGiB: 13.04, Kind: "inference", Environment: "production", HeadroomPercent: 5, Replicas: 4},
		{NeedGiB: 13.51, Precision: "bf16", Kind: "training", Environment: "production", HeadroomPercent: 5},
		{NeedGiB: 8.95, Precision: "fp8", Kind: "inference", Environment: "production", HeadroomPercent: 5, Replicas: 2},
		{NeedGiB: 3.5, Precision: "int8", Kind: "development", Environment: "development", HeadroomPercent: 10, Replicas: 6},
		{NeedGiB: 3.5, Precision: "int4", Kind: "batch", Environment: "staging", HeadroomPercent: 5, Replicas: 1500},
		{NeedGiB: 104.31, Precision: "bf16", Kind: "training", Environment: "production", GPUsPerReplica: 4, HeadroomPercent: 5, Replicas: 1},
		{NeedGiB: 156.46, Precision: "fp16", Kind: "inference", Environment: "production", HeadroomPercent: 5, Replicas: 2},
		{NeedGiB: 391.17, Precision: "fp16", Kind: "inference", Environment: "production", HeadroomPercent: 5, Replicas: 1},
		{NeedGiB: 40, Kind: "inference", Environment: "production", GPUsPerReplica: 2, HeadroomPercent: 5, Replicas: 3},
		{NeedGiB: 0.5, Kind: "inference", Environment: "staging", HeadroomPercent: 50, Replicas: 1000},
		{NeedGiB: 60, Kind: "training", Environment: "production", GPUsPerReplica: 16, HeadroomPercent: 5},
		// KV cache (issue #40, item 1): 8B bf16 at 128k tokens, and 70B fp16 serving 32 sequences of 8k.
		{NeedGiB: 33.95, KVCacheGiB: 16, Precision: "bf16", Kind: "inference", Environment: "production", HeadroomPercent: 5, Replicas: 2},
		{NeedGiB: 236.37, KVCacheGiB: 80, Precision: "fp16", Kind: "inference", Environment: "staging", HeadroomPercent: 5, Replicas: 3},
		{NeedGiB: 9.1, KVCacheGiB: 3.3, Precision: "fp8", Kind: "inference", Environment: "production", HeadroomPercent: 5, Replicas: 16},
		// Quantisation (issue #40, item 2): AWQ from Turing, GPTQ from Volta, fp4 on Blackwell only.
		{NeedGiB: 39.12, Precision: "fp4", Kind: "inference", Environment: "production", HeadroomPercent: 5, Replicas: 2},
		{NeedGiB: 4.5, Precision: "awq", Kind: "inference", Environment: "staging", HeadroomPercent: 5, Replicas: 4},
		{NeedGiB: 4.5, Precision: "gptq", Kind: "development", Environment: "development", HeadroomPercent: 5, Replicas: 2},
		// The clouds' node limits (issue #40, item 3): the EKS quota of 450, GKE's 1 000 a zone over three.
		{NeedGiB: 3.5, Kind: "batch", Environment: "staging", HeadroomPercent: 5, Replicas: 600, MaxNodes: 450},
		{NeedGiB: 12, Kind: "inference", Environment: "staging", HeadroomPercent: 5, Replicas: 2500, MaxNodes: 3000},
		// Multi-node training (issue #40, item 8): a replica over whole nodes needs EFA or GPUDirect
		// between them; 12 GPUs are whole nodes of 4 but not of 8; inference never spans nodes.
		{NeedGiB: 1100, Precision: "bf16", Kind: "training", Environment: "production", GPUsPerReplica: 32, HeadroomPercent: 5, Replicas: 2},
		{NeedGiB: 400, Precision: "bf16", Kind: "training", Environment: "staging", GPUsPerReplica: 12, HeadroomPercent: 5, Replicas: 1},
		{NeedGiB: 300, Kind: "training", Environment: "production", GPUsPerReplica: 16, HeadroomPercent: 5, Replicas: 300, MaxNodes: 450},
		{NeedGiB: 600, Precision: "fp16", Kind: "inference", Environment: "production", GPUsPerReplica: 16, HeadroomPercent: 5, Replicas: 2},
	}
	checked, fits, multiNodeFits, failed := 0, 0, 0, map[string]int{}
	for _, s := range shapes {
		for _, d := range demands {
			want := catalog.FitWorkload(s, d)
			input := map[string]any{"shape": shapeInput(s), "demand": demandInput(d)}
			rs, err := q.Eval(ctx, rego.EvalInput(input))
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s x%d %g GiB/unit x%d (shared %v) for %+v", s.GPU.Name, s.GPUs, s.UnitGiB, s.UnitsPerGPU, s.Shared, d)
			if len(rs) == 0 {
				t.Fatalf("%s: lib.fit is undefined", name)
			}
			raw, _ := json.Marshal(rs[0].Bindings["x"])
			var got struct {
				GPUsPerReplica  int      `json:"gpus_per_replica"`
				NodesPerReplica int      `json:"nodes_per_replica"`
				ReplicasPerNode int      `json:"replicas_per_node"`
				UsableGiB       float64  `json:"usable_gib"`
				HostNeedGiB     float64  `json:"host_need_gib"`
				Nodes           int      `json:"nodes"`
				Problems        []string `json:"problems"`
			}
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("%s: %v in %s", name, err, raw)
			}
			wantProblems := want.Constraints()
			if got.GPUsPerReplica != want.GPUsPerReplica || got.NodesPerReplica != want.NodesPerReplica || got.ReplicasPerNode != want.ReplicasPerNode || got.UsableGiB != want.UsableGiB ||
				got.HostNeedGiB != want.HostNeedGiB || got.Nodes != want.Nodes || !slices.Equal(got.Problems, wantProblems) {
				t.Errorf("%s:\n Rego %s\n Go   %+v %v", name, raw, want, wantProblems)
			}
			checked++
			if want.Fits() {
				fits++
				if want.NodesPerReplica > 1 {
					multiNodeFits++
				}
			}
			for _, c := range wantProblems {
				failed[c]++
			}
		}
	}
	for _, c := range []string{catalog.ConstraintPrecision, catalog.ConstraintMemory, catalog.ConstraintGPUsPerReplica, catalog.ConstraintInterconnect,
		catalog.ConstraintInterNode, catalog.ConstraintHostMemory, catalog.ConstraintVCPUs, catalog.ConstraintNodeLimit} {
		if failed[c] == 0 {
			t.Errorf("no case fails %s: the parity test does not cover it", c)
		}
	}
	if multiNodeFits == 0 {
		t.Error("no replica over several nodes fits: the parity test does not cover multi-node training")
	}
	if fits == 0 || checked < 1000 {
		t.Errorf("%d verdicts compared, %d fit", checked, fits)
	}
	t.Logf("%d verdicts compared, %d fit, failures by constraint %v", checked, fits, failed)
}

// TestSpansNodesParity proves that the bundle's lib.spans_nodes (which lib.fit and lib.launched_for
// read: GF-RS-001 and GF-RS-004 on the other node types a pool admits) is catalog.SpansNodes, and
// that launched_for launches a node type for a replica that it holds or spans whole nodes of, for
// every workload kind and the GPU counts of the catalog's nodes and of replicas.
func TestSpansNodesParity(t *testing.T) {
	compiler, store, err := compile(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q, err := rego.New(rego.Compiler(compiler), rego.Store(store), rego.Query(`spans := count({1 | data.gpufleet.lib.spans_nodes(input.kind, input.gpus, input.node_gpus)}) == 1
		launched := count({1 | data.gpufleet.lib.launched_for({"workload": {"kind": input.kind}}, input.node_gpus, input.gpus)}) == 1`)).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	spanning := 0
	for _, kind := range []string{"training", "inference", "development", "batch"} {
		for _, nodeGPUs := range []int{1, 2, 4, 8} {
			for gpus := 1; gpus <= 33; gpus++ {
				rs, err := q.Eval(ctx, rego.EvalInput(map[string]any{"kind": kind, "gpus": gpus, "node_gpus": nodeGPUs}))
				if err != nil {
					t.Fatal(err)
				}
				if len(rs) != 1 {
					t.Fatalf("%s over %d GPUs on nodes of %d: %d results", kind, gpus, nodeGPUs, len(rs))
				}
				want := catalog.SpansNodes(kind, gpus, nodeGPUs)
				if got := rs[0].Bindings["spans"]; got != want {
					t.Errorf("%s over %d GPUs on nodes of %d: spans_nodes %v, catalog.SpansNodes %v", kind, gpus, nodeGPUs, got, want)
				}
				if got := rs[0].Bindings["launched"]; got != (gpus <= nodeGPUs || want) {
					t.Errorf("%s over %d GPUs on nodes of %d: launched_for %v", kind, gpus, nodeGPUs, got)
				}
				if want {
					spanning++
				}
			}
		}
	}
	if spanning == 0 {
		t.Error("no case spans nodes")
	}
}

func shapeInput(s catalog.FitShape) map[string]any {
	return map[string]any{
		"cloud": string(s.Cloud), "gpu_model": s.GPU.Name, "gpus": s.GPUs, "unit_gib": s.UnitGiB, "units_per_gpu": s.UnitsPerGPU,
		"partitioned": s.Partitioned, "shared": s.Shared, "node_memory_gib": s.NodeMemoryGiB, "vcpus": s.VCPUs,
		"interconnect": nullIfEmpty(s.Interconnect), "internode": nullIfEmpty(s.InterNode),
	}
}

func demandInput(d catalog.FitDemand) map[string]any {
	in := map[string]any{
		"need_gib": d.NeedGiB, "host_gib": nil, "precision": nullIfEmpty(d.Precision), "kind": d.Kind, "environment": d.Environment,
		"gpus_per_replica": nil, "replicas": nil, "headroom_percent": d.HeadroomPercent,
	}
	if d.HostGiB != 0 {
		in["host_gib"] = d.HostGiB
	}
	if d.KVCacheGiB != 0 {
		in["kv_cache_gib"] = d.KVCacheGiB
	}
	if d.MaxNodes != 0 {
		in["max_nodes"] = d.MaxNodes
	}
	if d.GPUsPerReplica != 0 {
		in["gpus_per_replica"] = d.GPUsPerReplica
	}
	if d.Replicas != 0 {
		in["replicas"] = d.Replicas
	}
	return in
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
