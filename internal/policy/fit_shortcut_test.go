package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// TestDocFitShortcuts proves that the shortcuts GF-RS-001 and GF-RS-007 take before the fit
// (lib.doc_fits_gpus_surely, lib.doc_fits_host_surely: cheap sufficient conditions on the pool
// document) never skip a fit that has one of the rule's problems, on every node shape of both
// clouds (whole GPUs, every MIG profile, shared GPUs) for needs around each shape's usable memory
// and host memory, with and without gpus_per_replica and replicas. It also requires that the
// shortcuts hold for at least half the fitting pools: a shortcut that never holds saves nothing.
func TestDocFitShortcuts(t *testing.T) {
	compiler, store, err := compile(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q, err := rego.New(rego.Compiler(compiler), rego.Store(store), rego.Query(`f := data.gpufleet.lib.doc_fit(input)
		g := count([1 | data.gpufleet.lib.doc_fits_gpus_surely])
		h := count([1 | data.gpufleet.lib.doc_fits_host_surely])`)).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type gpuDoc struct {
		node            catalog.NodeType
		unit            float64
		sharing         any
		migProfile, mig any
	}
	var shapes []gpuDoc
	for _, cloud := range []catalog.Cloud{catalog.AWS, catalog.GCP} {
		for _, n := range catalog.NodeTypes(cloud) {
			g := n.GPU()
			shapes = append(shapes, gpuDoc{node: n, unit: g.MemoryGiB}, gpuDoc{node: n, unit: g.MemoryGiB, sharing: map[string]any{"replicas": 3}})
			for _, p := range g.MIGProfiles {
				shapes = append(shapes, gpuDoc{node: n, unit: p.MemoryGiB, migProfile: p.Name})
			}
		}
	}
	workloads := []map[string]any{
		{"kind": "inference", "gpus_per_replica": nil, "replicas": nil},
		{"kind": "inference", "gpus_per_replica": 1, "replicas": 4},
		{"kind": "inference", "gpus_per_replica": 2, "replicas": 2},
		{"kind": "training", "gpus_per_replica": 4, "replicas": 1},
		{"kind": "development", "gpus_per_replica": 0, "replicas": 2},
	}
	var checked, skippedGPU, skippedHost, fitting int
	for _, s := range shapes {
		split := 1.0
		if s.sharing != nil {
			split = 3
		}
		share := s.unit / split
		// Needs around the usable memory of the slice or share (0.01 GiB steps), and across the host memory.
		needs := []float64{0.5, 15.65, 60}
		usable := math.Floor(share*95) / 100
		for d := -0.04; d < 0.015; d += 0.01 {
			needs = append(needs, math.Round((usable+d)*100)/100)
		}
		for _, per := range []float64{1, 3} {
			needs = append(needs, math.Round(s.node.MemoryGiB/per*1.2*100)/100-0.5, math.Round(s.node.MemoryGiB/per*1.2*100)/100)
		}
		for _, need := range needs {
			for _, w := range workloads {
				doc := map[string]any{
					"cloud":          string(s.node.Cloud),
					"instance_types": []any{s.node.Name},
					"gpu": map[string]any{"model": s.node.GPUModel, "per_node": s.node.GPUCount, "slice_memory_gib": s.unit,
						"sharing": s.sharing, "mig_profile": s.migProfile, "mig_config": s.mig},
					"workload": map[string]any{"kind": w["kind"], "environment": "production", "gpu_memory_gib": need,
						"gpus_per_replica": w["gpus_per_replica"], "replicas": w["replicas"], "precision": nil},
				}
				rs, err := q.Eval(ctx, rego.EvalInput(doc))
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s %s %g GiB (sharing %v, mig %v) for %g GiB %v", s.node.Cloud, s.node.Name, s.unit, s.sharing, s.migProfile, need, w)
				if len(rs) == 0 {
					t.Fatalf("%s: lib.doc_fit is undefined", name)
				}
				problems := map[string]bool{}
				for _, p := range rs[0].Bindings["f"].(map[string]any)["problems"].([]any) {
					problems[p.(string)] = true
				}
				gpus, host := rs[0].Bindings["g"].(json.Number), rs[0].Bindings["h"].(json.Number)
				if gpus.String() == "1" {
					skippedGPU++
					if problems["memory"] || problems["gpus_per_replica"] || problems["interconnect"] {
						t.Errorf("%s: doc_fits_gpus_surely holds, but the fit has problems %v", name, problems)
					}
				}
				if host.String() == "1" {
					skippedHost++
					if problems["host_memory"] || problems["vcpus"] {
						t.Errorf("%s: doc_fits_host_surely holds, but the fit has problems %v", name, problems)
					}
				}
				if len(problems) == 0 {
					fitting++
				}
				checked++
			}
		}
	}
	t.Logf("%d documents, %d fit; the GPU shortcut skipped %d fits, the host shortcut %d", checked, fitting, skippedGPU, skippedHost)
	if skippedGPU < fitting/2 || skippedHost < fitting/2 {
		t.Errorf("the shortcuts skip %d and %d of %d fits: they save little", skippedGPU, skippedHost, fitting)
	}
}
