package plandoc

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// The fit a documents file carries is lib.doc_fit of its document, on documents that reach every
// branch of the mapping from a document to the fit's shape and demand: each catalog node type (and
// ones the catalog does not know), whole GPUs, MIG profiles and time-sharing, every workload kind,
// replicas over several GPUs, precisions, replica counts over a pool's node limit, and numbers Go
// cannot take as OPA does (a document then carries no fit).
func TestDocumentFit_sameAsTheBundle(t *testing.T) {
	q, err := rego.New(
		rego.Query(`f := data.gpufleet.lib.doc_fit(input)`),
		rego.Load([]string{"../../policies/gpufleet"}, func(_ string, info os.FileInfo, _ int) bool {
			return strings.HasSuffix(info.Name(), "_test.rego")
		}),
	).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type nodeType struct {
		cloud, name, model string
		gpus               float64
	}
	var types []nodeType
	for cloud, table := range map[string]string{"aws": "aws_instance_types", "gcp": "gke_machine_types"} {
		all, _ := catalogAt(table)
		for _, name := range slices.Sorted(maps.Keys(all.(map[string]any))) {
			n := all.(map[string]any)[name].(map[string]any)
			if model, ok := n["gpu_model"].(string); ok {
				types = append(types, nodeType{cloud, name, model, n["gpu_count"].(float64)})
			}
		}
		types = append(types, nodeType{cloud, "x9.unknown", "H100-80GB", 8}, nodeType{cloud, "x9.unknown", "L4", 1})
	}
	slices.SortFunc(types, func(a, b nodeType) int { return strings.Compare(a.cloud+a.name+a.model, b.cloud+b.name+b.model) })
	pick := func(rng *rand.Rand, xs ...any) any { return xs[rng.IntN(len(xs))] }
	rng := rand.New(rand.NewPCG(27, 11))
	compared, fits, omitted, byProblem := 0, 0, 0, map[string]int{}
	for i := range 3000 {
		n := types[rng.IntN(len(types))]
		gpuEntry, _ := catalogAt("gpus", n.model)
		g := gpuEntry.(map[string]any)
		gpu := map[string]any{"model": n.model, "per_node": n.gpus, "mig_profile": nil, "mig_config": nil, "slice_memory_gib": g["memory_gib"], "sharing": nil}
		switch rng.IntN(4) {
		case 0: // a MIG profile of the GPU, when it has any
			for _, p := range slices.Sorted(maps.Keys(g["mig_profiles"].(map[string]any))) {
				if rng.IntN(3) == 0 {
					gpu["mig_profile"], gpu["slice_memory_gib"] = p, g["mig_profiles"].(map[string]any)[p].(map[string]any)["memory_gib"]
					break
				}
			}
		case 1:
			gpu["sharing"] = map[string]any{"strategy": pick(rng, "time-sharing", "mps"), "replicas": pick(rng, 2.0, 4.0, 48.0, 2.0, 4.0, 48.0, nil, 1.5, 0.0)}
		case 2:
			gpu["mig_config"] = "all-balanced"
		}
		if rng.IntN(40) == 0 {
			gpu["per_node"] = pick(rng, 0.0, 1.5, nil)
		}
		doc := map[string]any{
			"cloud":          n.cloud,
			"instance_types": []any{n.name},
			"gpu":            gpu,
			"workload": map[string]any{
				"kind":             pick(rng, "training", "inference", "development", "batch", nil),
				"environment":      pick(rng, "production", "staging", nil),
				"gpu_memory_gib":   pick(rng, 3.0, 9.5, 14.0, 20.0, 38.0, 70.0, 75.0, 150.0, 600.0, 1200.0, nil, -4.0),
				"precision":        pick(rng, nil, nil, nil, nil, "bf16", "fp8", "int4", "fp16", "int8", "fp64"),
				"gpus_per_replica": pick(rng, nil, nil, nil, nil, 0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 2.0, 4.0, 8.0, 1.5, -2.0),
				"replicas":         pick(rng, nil, nil, nil, 1.0, 3.0, 40.0, 9000.0, 1.0, 3.0, 40.0, 9000.0, 2.5),
			},
		}
		if rng.IntN(4) == 0 {
			// A NodePool or ComputeClass admits several shapes: a replica's nodes share an
			// inter-node network only if every one has it (lib._doc_internode).
			other := types[rng.IntN(len(types))]
			if other.cloud == n.cloud {
				doc["instance_types"] = []any{n.name, other.name}
			}
		}
		if rng.IntN(12) == 0 {
			// A ComputeClass priority of a machine family and a GPU names no machine type: the GPU
			// link is the one every catalog node type of the model and count has (lib._doc_interconnect).
			doc["instance_types"] = []any{}
		}
		rs, err := q.Eval(context.Background(), rego.EvalInput(doc))
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if len(rs) == 1 {
			want = normalise(t, rs[0].Bindings["f"])
		}
		got, carried := documentFit(doc)
		name := fmt.Sprintf("document %d %s", i, show(doc))
		switch {
		case !carried && want != nil:
			omitted++
			if !leftToTheRules(doc) {
				t.Errorf("%s: Go computes no fit, lib.doc_fit is %s", name, show(want))
			}
		case carried && want == nil:
			t.Errorf("%s: Go computes the fit %s, lib.doc_fit is undefined", name, show(got))
		case carried:
			if got["fits"] == true {
				fits++
			}
			for _, p := range want.(map[string]any)["problems"].([]any) {
				byProblem[p.(string)]++
			}
			if d := diffFit(normalise(t, got).(map[string]any), want.(map[string]any)); d != "" {
				t.Errorf("%s: Go's fit and lib.doc_fit differ at %s", name, d)
			}
			compared++
		}
	}
	t.Logf("%d fits compared (%d without a problem), problems %v; %d left to the rules", compared, fits, byProblem, omitted)
	for _, c := range []string{"precision", "memory", "gpus_per_replica", "interconnect", "internode", "host_memory", "vcpus", "node_limit"} {
		if byProblem[c] == 0 {
			t.Errorf("no document failed %s: the comparison does not reach it", c)
		}
	}
	if compared < 1500 || fits < 200 || omitted == 0 {
		t.Errorf("%d fits compared, %d without a problem, %d left to the rules", compared, fits, omitted)
	}
}

// leftToTheRules is whether documentFit may leave a document's fit to the rules: a number Go would
// truncate (not whole, or below its least), a negative memory need, or a precision the catalog does
// not name.
func leftToTheRules(doc map[string]any) bool {
	gpu, work := doc["gpu"].(map[string]any), doc["workload"].(map[string]any)
	odd := func(v any, least float64) bool {
		x, ok := v.(float64)
		return ok && (x != float64(int(x)) || x < least)
	}
	sharing, _ := gpu["sharing"].(map[string]any)
	precision, named := work["precision"].(string)
	_, known := catalog.MinComputeCapability[precision]
	need, _ := work["gpu_memory_gib"].(float64)
	return odd(gpu["per_node"], 1) || odd(sharing["replicas"], 1) || odd(work["gpus_per_replica"], 0) || odd(work["replicas"], 0) || (named && !known) || need < 0
}

// A gpufleet pool whose planned policy_document is known keeps the provider's document as it is,
// without a fit (the rules compute it, as for any document without one).
func TestDocuments_providedDocumentCarriesNoFit(t *testing.T) {
	b := newBundleDocuments(t)
	raw, err := os.ReadFile(fixtures + "/gpufleet_compliant.json")
	if err != nil {
		t.Fatal(err)
	}
	var plan map[string]any
	if err := json.Unmarshal(raw, &plan); err != nil {
		t.Fatal(err)
	}
	built, _, _ := b.eval(t, plan)
	provided := 0
	for _, rc := range arr(plan["resource_changes"]) {
		after, _ := get(rc, nil, "change", "after").(map[string]any)
		if doc, ok := built[fmt.Sprint(get(rc, nil, "address"))]; ok && after != nil {
			after["policy_document"] = doc
			provided++
		}
	}
	if provided == 0 {
		t.Fatal("no gpufleet pool in the fixture")
	}
	raw, _ = json.Marshal(plan)
	pools, _, err := goDocuments(t, raw)
	if err != nil {
		t.Fatal(err)
	}
	for address, doc := range pools {
		if _, carried := doc.(map[string]any)["fit"]; carried {
			t.Errorf("%s: the provider's document got a fit", address)
		}
	}
	var counts fitCounts
	compare(t, b, "gpufleet_compliant.json with its policy documents", raw, &counts)
}

// The convention labels are read alike by both builders (documents.convention_workload and
// convention_unread): every label with values of each form the bundle reads and of forms it does
// not, counts among them whole ("2"), fractional ("2.5", which reached OPA's %, which refuses a
// fraction, when a replica's GPUs were split over nodes) and not numbers at all.
func TestConventionLabels_sameAsTheBundle(t *testing.T) {
	q, err := rego.New(
		rego.Query(`w := data.gpufleet.documents.convention_workload(input); u := data.gpufleet.documents.convention_unread(input)`),
		rego.Load([]string{"../../policies/gpufleet"}, func(_ string, info os.FileInfo, _ int) bool {
			return strings.HasSuffix(info.Name(), "_test.rego")
		}),
	).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	values := map[string][]any{
		labelWorkload:        {"training", "Inference", "serving", nil},
		labelEnvironment:     {"production", "STAGING", "prod"},
		labelGPUMemory:       {"40", "39.5", "40Gi", "40G", "40GB", "-1", "1e3", "040", "0.5", "00.5", "040Gi"},
		labelInterruptible:   {"true", "False", "yes"},
		labelPrecision:       {"bf16", "FP8", "bfloat16"},
		labelModelParameters: {"7", "70.6", "7B", "07", "070.6", "0.5"},
		labelTrainingMethod:  {"LoRA", "full", "dora"},
		labelGPUsPerReplica:  {"2", "8", "2.5", "0.5", "two", "-2", "02", ""},
		labelReplicas:        {"3", "1.5", "three", "10"},
		labelKVCache:         {"16", "16Gi", "lots", "016", "016Gi", "16.50"},
	}
	rng := rand.New(rand.NewPCG(29, 11))
	fractions := 0
	for i := range 400 {
		labels := map[string]any{}
		for _, key := range conventionKeys {
			if rng.IntN(3) > 0 {
				vs := values[key]
				labels[key] = vs[rng.IntN(len(vs))]
			}
		}
		if strings.Contains(fmt.Sprint(labels[labelGPUsPerReplica], labels[labelReplicas]), ".5") {
			fractions++
		}
		rs, err := q.Eval(context.Background(), rego.EvalInput(labels))
		if err != nil || len(rs) != 1 {
			t.Fatalf("labels %s: %v (%d results)", show(labels), err, len(rs))
		}
		for _, c := range []struct {
			what      string
			got, want any
		}{{"convention_workload", conventionWorkload(labels), rs[0].Bindings["w"]}, {"convention_unread", conventionUnread(labels), rs[0].Bindings["u"]}} {
			if d := diff(c.what, normalise(t, c.got), normalise(t, c.want)); d != "" {
				t.Errorf("labels %d %s: Go and the bundle differ at %s", i, show(labels), d)
			}
		}
	}
	if fractions < 50 {
		t.Errorf("%d label sets with a fractional count", fractions)
	}
}
