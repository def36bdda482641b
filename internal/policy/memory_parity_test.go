package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// TestMemoryRequiredParity proves that the bundle's lib.memory_required_gib (the rules' estimate
// for official node groups labelled with a model size) and catalog.GPUMemoryRequired (the
// provider's) agree on every precision, kind and method, including the input both reject: the
// Rego function reads its numbers from the generated catalog.memory_model, so this catches a
// formula that drifts, not only a number.
func TestMemoryRequiredParity(t *testing.T) {
	compiler, store, err := compile(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q, err := rego.New(rego.Compiler(compiler), rego.Store(store),
		rego.Query(`x := data.gpufleet.lib.memory_required_gib(input.p, input.precision, input.kind, input.method)`)).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string][]string{catalog.MemoryKindInference: {""}, catalog.MemoryKindTraining: {"", "full", "lora", "qlora", "dora"}}
	checked := 0
	for _, p := range []float64{-1, 0, 0.5, 1.5, 7, 8, 13, 34, 65, 70, 175, 405} {
		for _, precision := range append(catalog.Precisions(), "fp64") {
			for _, kind := range append(catalog.MemoryKinds, "serving") {
				for _, method := range methods[kind] {
					want, wantErr := catalog.GPUMemoryRequired(catalog.MemoryDemand{ParametersBillion: p, Precision: precision, Kind: kind, Method: method})
					input := map[string]any{"p": p, "precision": precision, "kind": kind, "method": nil}
					if method != "" {
						input["method"] = method
					}
					rs, err := q.Eval(ctx, rego.EvalInput(input))
					if err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("%gB %s %s %q", p, precision, kind, method)
					switch {
					case wantErr != nil && len(rs) != 0:
						t.Errorf("%s: Go rejects it (%v) but Rego gives %v", name, wantErr, rs[0].Bindings["x"])
					case wantErr == nil && len(rs) == 0:
						t.Errorf("%s: Go gives %g GiB but Rego is undefined", name, want.GiB)
					case wantErr == nil:
						got, err := rs[0].Bindings["x"].(json.Number).Float64()
						if err != nil || got != want.GiB {
							t.Errorf("%s: Rego gives %v GiB, Go %g", name, rs[0].Bindings["x"], want.GiB)
						}
						checked++
					}
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d estimates compared", checked)
	}
}
