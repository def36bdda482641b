package plandoc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

const fixtures = "../../policies/testdata"

// bundleDocuments evaluates the bundle's own builders, data.gpufleet.documents.pools and unjudged,
// on a plan: the reference the Go builders must match.
type bundleDocuments struct{ query rego.PreparedEvalQuery }

func newBundleDocuments(t *testing.T) *bundleDocuments {
	t.Helper()
	q, err := rego.New(
		rego.Query(`x := {
			"pools": data.gpufleet.documents.pools,
			"unjudged": data.gpufleet.documents.unjudged,
			"fits": {address: f | some [address, doc] in data.gpufleet.documents.pools; f := data.gpufleet.lib.doc_fit(doc)},
		}`),
		rego.Load([]string{"../../policies/main.rego", "../../policies/gpufleet"}, func(_ string, info os.FileInfo, _ int) bool {
			return strings.HasSuffix(info.Name(), "_test.rego")
		}),
	).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &bundleDocuments{query: q}
}

func (b *bundleDocuments) eval(t *testing.T, plan any) (pools map[string]any, unjudged any, fits map[string]any) {
	t.Helper()
	rs, err := b.query.Eval(context.Background(), rego.EvalInput(plan))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("the bundle's documents are undefined: %v", rs)
	}
	x := normalise(t, rs[0].Bindings["x"]).(map[string]any)
	pools = map[string]any{}
	for _, p := range x["pools"].([]any) {
		pair := p.([]any)
		pools[pair[0].(string)] = pair[1]
	}
	return pools, x["unjudged"], x["fits"].(map[string]any)
}

// goDocuments runs what gpufleet-policy documents runs, and reads the file it writes.
func goDocuments(t *testing.T, raw []byte) (pools map[string]any, unjudged any, err error) {
	t.Helper()
	p, err := Read(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, err
	}
	d, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := d.WriteFile(&out, p); err != nil {
		t.Fatal(err)
	}
	var file struct {
		Header   map[string]any `json:"gpufleet_pool_documents"`
		Pools    [][2]any       `json:"pools"`
		Unjudged any            `json:"unjudged"`
	}
	if err := json.Unmarshal(out.Bytes(), &file); err != nil {
		t.Fatalf("the documents file is not JSON: %v\n%s", err, out.Bytes())
	}
	if file.Header["version"] != float64(FormatVersion) {
		t.Fatalf("header %v", file.Header)
	}
	pools = map[string]any{}
	for _, pair := range file.Pools {
		pools[pair[0].(string)] = pair[1]
	}
	return pools, file.Unjudged, nil
}

func normalise(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// diff names the first place two JSON values differ; numbers may differ in the last digits (Go
// computes costs in float64, OPA in decimal).
func diff(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %s vs %s", path, show(a), show(b))
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range keys {
				if !yield(k) {
					return
				}
			}
		}) {
			xv, xok := x[k]
			yv, yok := y[k]
			if xok != yok {
				return fmt.Sprintf("%s.%s: present %v vs %v (%s vs %s)", path, k, xok, yok, show(xv), show(yv))
			}
			if d := diff(path+"."+k, xv, yv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %s vs %s", path, show(a), show(b))
		}
		for i := range x {
			if d := diff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d != "" {
				return d
			}
		}
		return ""
	case float64:
		y, ok := b.(float64)
		if !ok || math.Abs(x-y) > 1e-9*math.Max(1, math.Abs(x)) {
			return fmt.Sprintf("%s: %s vs %s", path, show(a), show(b))
		}
		return ""
	}
	if fmt.Sprint(a) != fmt.Sprint(b) || (a == nil) != (b == nil) {
		return fmt.Sprintf("%s: %s vs %s", path, show(a), show(b))
	}
	return ""
}

func show(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

// fitCounts counts the documents whose fit the bundle defines (lib.doc_fit) and those of them whose
// Go document carries none (documentFit leaves out what Go's arithmetic could compute otherwise).
type fitCounts struct{ defined, omitted int }

func compare(t *testing.T, b *bundleDocuments, name string, raw []byte, counts *fitCounts) (pools int) {
	t.Helper()
	var plan any
	if err := json.Unmarshal(raw, &plan); err != nil {
		t.Fatal(err)
	}
	gotPools, gotUnjudged, err := goDocuments(t, raw)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	wantPools, wantUnjudged, wantFits := b.eval(t, plan)
	gotPools = normalise(t, gotPools).(map[string]any)
	provided := map[string]bool{} // gpufleet pools whose document is the provider's: passed on as it is, without a fit
	for _, rc := range arr(get(plan, nil, "resource_changes")) {
		if _, ok := get(rc, nil, "change", "after", "policy_document").(map[string]any); ok {
			provided[fmt.Sprint(get(rc, nil, "address"))] = true
		}
	}
	for address, doc := range gotPools {
		if _, carried := doc.(map[string]any)["fit"]; provided[address] {
			if carried {
				t.Errorf("%s: %s: the provider's document got a fit", name, address)
			}
			continue
		}
		compareFit(t, name+": "+address, doc.(map[string]any), wantFits[address], counts)
	}
	if d := diff("pools", gotPools, wantPools); d != "" {
		t.Errorf("%s: Go and the bundle's builders differ at %s", name, d)
	}
	if d := diff("unjudged", normalise(t, gotUnjudged), wantUnjudged); d != "" {
		t.Errorf("%s: Go and the bundle's builders differ at %s", name, d)
	}
	return len(wantPools)
}

// diffFit names where a document's fit and lib.doc_fit differ: at the default headroom, a fit with
// problems is lib.doc_fit's figures, one without is only {"fits": true} (what the rules read).
func diffFit(got, want map[string]any) string {
	if got["headroom_percent"] != catalog.DefaultMemoryHeadroomPercent {
		return fmt.Sprintf("headroom_percent %v", got["headroom_percent"])
	}
	if len(want["problems"].([]any)) == 0 {
		return diff("fit", got, map[string]any{"fits": true, "headroom_percent": catalog.DefaultMemoryHeadroomPercent})
	}
	f := maps.Clone(got)
	if f["fits"] != false {
		return fmt.Sprintf("fits %v with problems %v", f["fits"], want["problems"])
	}
	delete(f, "fits")
	delete(f, "headroom_percent")
	return diff("fit", f, want)
}

// compareFit takes the fit out of a Go document (the Rego builders write none) and checks it
// against lib.doc_fit of the bundle's document: the same verdict and figures, "fits" when there is
// no problem, at the default headroom. A document may go without one where the bundle has one (the
// rules then compute it), never the other way round.
func compareFit(t *testing.T, name string, doc map[string]any, want any, counts *fitCounts) {
	t.Helper()
	got, carried := doc["fit"]
	delete(doc, "fit")
	if want != nil {
		counts.defined++
	}
	switch {
	case !carried && want != nil:
		counts.omitted++
	case carried && want == nil:
		t.Errorf("%s: the Go document carries the fit %s, the bundle's lib.doc_fit is undefined", name, show(got))
	case carried:
		if d := diffFit(got.(map[string]any), want.(map[string]any)); d != "" {
			t.Errorf("%s: Go's fit and lib.doc_fit differ at %s", name, d)
		}
	}
}

// Every plan fixture of the bundle gives the same documents from the Go builders as from the
// bundle's Rego builders.
func TestDocuments_sameAsTheBundle(t *testing.T) {
	b := newBundleDocuments(t)
	files, _ := filepath.Glob(filepath.Join(fixtures, "*.json"))
	judged := 0
	var counts fitCounts
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Read(bytes.NewReader(raw)); err != nil {
			continue // not a plan: TestRead
		}
		judged += compare(t, b, filepath.Base(f), raw, &counts)
	}
	if counts.defined < 20 || counts.omitted > 0 {
		t.Errorf("the bundle computes %d fits of the fixtures' pools, %d of whose Go documents carry none", counts.defined, counts.omitted)
	}
	if judged < 20 {
		t.Fatalf("only %d pools in the fixtures: the comparison proves little", judged)
	}
}

// Generated variants of the fixtures' official resources: every attribute the builders read,
// removed (unknown at plan time), set to null, or set to a value another fixture gives it, one
// at a time and several at once. The two builders agree on every variant.
func TestDocuments_sameAsTheBundleOnVariants(t *testing.T) {
	b := newBundleDocuments(t)
	var plans []map[string]any
	values := map[string][]any{} // attribute name -> values the fixtures give it
	for _, name := range []string{"aws_eks_node_group_compliant.json", "aws_eks_node_group_violating.json", "aws_eks_node_group_real_world.json",
		"google_container_node_pool_compliant.json", "google_container_node_pool_violating.json", "unknown_values.json", "real_module_plans.json",
		"aws_eks_node_group_kubernetes_labels.json", "aws_eks_node_group_for_each_templates.json"} {
		raw, err := os.ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			t.Fatal(err)
		}
		var plan map[string]any
		if err := json.Unmarshal(raw, &plan); err != nil {
			t.Fatal(err)
		}
		plans = append(plans, plan)
		for _, rc := range plan["resource_changes"].([]any) {
			collectValues(get(rc, nil, "change", "after"), values)
		}
	}
	values["*"] = append(values["*"], []any{"SPOT", "ON_DEMAND", "CAPACITY_BLOCK", "TRUE", "yes", "-5", "1e3", "abc", "all-balanced", "all-disabled",
		"all-1g.10gb", "mps-sharing", "", "us-central1", "us-central1-a", "europe-west4", "NoSchedule", "PreferNoSchedule", 0.0, 3.0, true, false,
		"SPECIFIC_RESERVATION", "ANY_RESERVATION", "projects/p/reservations/r", "TIME_SHARING", "MPS", "nvidia-l4", "nvidia-tesla-t4", "n1-standard-8",
		"g2-standard-8", "a2-highgpu-1g", "a3-edgegpu-8g", "a4x-highgpu-4g", "p5.48xlarge", "m5.large", "7", "fp16", "int4", "lora", "qlora", "training", "inference", "development",
		"bf16", "fp8", "2", "8", "1.5",
		// convention labels written the Kubernetes way, and what the bundle cannot read
		"Production", "STAGING", "Inference", "Training", "True", "BF16", "LoRA", "40Gi", "40G", "39.5G", "40960Mi", "1Ti", "40GB", "40gi", "prod", "7B"}...)
	rng := rand.New(rand.NewPCG(13, 2026))
	variants, pools := 0, 0
	var counts fitCounts
	for round := range 1500 {
		plan := deepCopy(plans[round%len(plans)])
		changes := plan["resource_changes"].([]any)
		rc := changes[rng.IntN(len(changes))].(map[string]any)
		switch rc["type"] {
		case "aws_eks_node_group", "google_container_node_pool", "aws_launch_template", "google_container_cluster":
		default:
			continue
		}
		change := rc["change"].(map[string]any)
		for range 1 + rng.IntN(3) {
			mutate(rng, change, values)
		}
		raw, _ := json.Marshal(plan)
		pools += compare(t, b, fmt.Sprintf("variant %d of %s", round, rc["address"]), raw, &counts)
		variants++
		if t.Failed() {
			t.Logf("variant %d:\n%s", round, show(rc))
			return
		}
	}
	t.Logf("%d variants, %d pools, %d fits, %d of them not in the Go document", variants, pools, counts.defined, counts.omitted)
	if pools < 500 {
		t.Fatalf("only %d pools among the variants", pools)
	}
	if counts.defined < 300 || counts.omitted*20 > counts.defined {
		t.Errorf("%d fits, %d of them not in the Go document: the rules would compute most of them again", counts.defined, counts.omitted)
	}
}

func collectValues(v any, values map[string][]any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if _, isMap := e.(map[string]any); !isMap {
				values[k] = append(values[k], e)
			}
			collectValues(e, values)
		}
	case []any:
		for _, e := range x {
			collectValues(e, values)
		}
	}
}

// mutate changes one attribute somewhere in the planned object: removes it (unknown at plan time,
// marked in after_unknown where the plan would mark it), sets it to null, or to another value.
func mutate(rng *rand.Rand, change map[string]any, values map[string][]any) {
	after, ok := change["after"].(map[string]any)
	if !ok {
		return
	}
	unknown, _ := change["after_unknown"].(map[string]any)
	if unknown == nil {
		unknown = map[string]any{}
		change["after_unknown"] = unknown
	}
	// Walk down to a random container, keeping the matching after_unknown container.
	var container any = after
	var uContainer any = unknown
	for rng.IntN(3) > 0 {
		switch c := container.(type) {
		case map[string]any:
			keys := slices.Sorted(mapKeys(c))
			if len(keys) == 0 {
				break
			}
			k := keys[rng.IntN(len(keys))]
			if _, ok := c[k].(map[string]any); !ok {
				if _, ok := c[k].([]any); !ok {
					break
				}
			}
			container = c[k]
			uContainer = get(uContainer, nil, k)
		case []any:
			if len(c) == 0 {
				break
			}
			i := rng.IntN(len(c))
			container = c[i]
			uContainer = get(uContainer, nil, i)
		}
	}
	switch c := container.(type) {
	case map[string]any:
		keys := slices.Sorted(mapKeys(c))
		if len(keys) == 0 {
			return
		}
		k := keys[rng.IntN(len(keys))]
		switch rng.IntN(4) {
		case 0:
			delete(c, k)
			if u, ok := uContainer.(map[string]any); ok {
				u[k] = true
			}
		case 1:
			c[k] = nil
		default:
			pool := values[k]
			if rng.IntN(3) == 0 || len(pool) == 0 {
				pool = values["*"]
			}
			c[k] = deepCopyValue(pool[rng.IntN(len(pool))])
		}
	case []any:
		if len(c) > 0 {
			i := rng.IntN(len(c))
			pool := values["*"]
			c[i] = deepCopyValue(pool[rng.IntN(len(pool))])
		}
	}
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func deepCopy(m map[string]any) map[string]any { return deepCopyValue(m).(map[string]any) }

func deepCopyValue(v any) any {
	raw, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

// Input that is not a plan is refused with what it is, in the bundle's words (GF-INPUT-001).
func TestRead(t *testing.T) {
	cases := map[string]string{
		`[]`:     "the input is a JSON array, not the JSON object of a Terraform plan",
		` 42 `:   "the input is a JSON number, not the JSON object of a Terraform plan",
		`"plan"`: "the input is a JSON string, not the JSON object of a Terraform plan",
		``:       "the input is not a JSON object",
		`[1, 2`:  "the input is not a JSON object",
		`{}`:     "the input has no format_version: it is not the JSON of a Terraform plan",
		`{"format_version": "1.0", "values": {}}`:         "the input is Terraform state (terraform show -json without a plan file), not a plan",
		`{"format_version": "2.0", "planned_values": {}}`: `the plan's format_version "2.0" is not one this bundle knows (1.x)`,
		`{"format_version": "1.2"}`:                       "the input has no planned_values or resource_changes: it is not the JSON of a Terraform plan",
	}
	for input, want := range cases {
		if _, err := Read(strings.NewReader(input)); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", input, err, want)
		}
	}
	for _, input := range []string{
		`{"format_version": "1.2" "resource_changes": []}`,
		`{"format_version": "1.2", "resource_changes": [{"address": "a"} {"address": "b"}]}`,
		`{"format_version": "1.2", "resource_changes": [{"address": "a}]`,
		`{"format_version": "1.2", "resource_changes": []} trailing`,
		`{"format_version": "1.2", "resource_changes": [{"address": tru}]}`,
	} {
		if _, err := Read(strings.NewReader(input)); err == nil || !strings.HasPrefix(err.Error(), "the input is not the JSON of a Terraform plan") && !strings.HasPrefix(err.Error(), "reading resource_changes") {
			t.Errorf("%s: error %v, want invalid JSON", input, err)
		}
	}
	// Strings may hold quotes, brackets and braces.
	tricky, err := Read(strings.NewReader(`{"format_version": "1.2", "t\"k": "}", "resource_changes": [{"address": "a\"]}{[", "type": "x"}, {"address": "b", "type": "y"}]}`))
	if err != nil || len(tricky.changes) != 2 || tricky.changes[0].Address != `a"]}{[` || tricky.changes[1].Type != "y" {
		t.Errorf("strings with JSON punctuation: %v, %+v", err, tricky)
	}
	p, err := Read(strings.NewReader(`{"format_version": "1.2", "resource_changes": []}`))
	if err != nil {
		t.Fatalf("an empty plan: %v", err)
	}
	if d, err := p.Build(); err != nil || len(d.Pools) != 0 {
		t.Errorf("an empty plan: %v, %d pools", err, len(d.Pools))
	}
}

// gpufleet-policy documents refuses what the bundle refuses (GF-INPUT-001), in the same words
// (inputs.why_not): JSON of every type that is not an object, state, other formats, objects that
// are not plans; and it reads what the bundle judges as a plan.
func TestRead_sameAsTheBundle(t *testing.T) {
	q, err := rego.New(
		rego.Query(`x := data.gpufleet.inputs.why_not(input)`),
		rego.Load([]string{"../../policies/gpufleet"}, func(_ string, info os.FileInfo, _ int) bool {
			return strings.HasSuffix(info.Name(), "_test.rego")
		}),
	).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{`[]`, `[{"format_version": "1.2", "resource_changes": []}]`, `[{"path": "a.json", "contents": {}}]`, `42`, `-1.5`, `"plan.json"`,
		`true`, `false`, `null`, `{}`, `{"a": 1}`, `{"format_version": "1.0", "values": {}}`, `{"format_version": 1}`, `{"format_version": "2.0", "planned_values": {}}`,
		`{"format_version": "1.2"}`, `{"format_version": "1.2", "resource_changes": {}}`, `{"format_version": "1.2", "planned_values": {}}`,
		`{"format_version": "1.2", "resource_changes": []}`} {
		var v any
		if err := json.Unmarshal([]byte(input), &v); err != nil {
			t.Fatal(err)
		}
		rs, err := q.Eval(context.Background(), rego.EvalInput(v))
		if err != nil {
			t.Fatal(err)
		}
		_, readErr := Read(strings.NewReader(input))
		switch {
		case len(rs) == 0 && readErr != nil:
			t.Errorf("%s: the bundle judges it as a plan, gpufleet-policy documents refuses it: %v", input, readErr)
		case len(rs) == 1 && readErr == nil:
			t.Errorf("%s: the bundle refuses it (%v), gpufleet-policy documents reads it", input, rs[0].Bindings["x"])
		case len(rs) == 1 && rs[0].Bindings["x"] != readErr.Error():
			t.Errorf("%s: the bundle says %q, gpufleet-policy documents %q", input, rs[0].Bindings["x"], readErr)
		}
	}
}

// The documents' JSON is what encoding/json reads back as the documents, for every kind of value
// the builders make, strings with quotes, control characters and invalid UTF-8 included.
func TestAppendJSON(t *testing.T) {
	doc := map[string]any{
		"s": "a\"b\\c\n\x01é\xff", "n": 658.0219999999999, "i": 2.0, "big": 1e21, "neg": -0.5, "t": true, "f": false, "null": nil,
		"list": []any{map[string]any{"k": "v"}, []any{}, 3.0}, "empty": map[string]any{},
	}
	raw, err := appendJSON(nil, doc)
	if err != nil {
		t.Fatal(err)
	}
	var back any
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("not JSON: %v: %s", err, raw)
	}
	want := normalise(t, doc)
	if d := diff("doc", back, want); d != "" || back.(map[string]any)["s"] != "a\"b\\c\n\x01é\uFFFD" {
		t.Errorf("%s: %s", d, raw)
	}
	if _, err := appendJSON(nil, map[string]any{"x": math.NaN()}); err == nil {
		t.Error("NaN encoded")
	}
	if raw, _ := appendJSON(nil, map[string]any{"monthly_usd": 7e6}); string(raw) != `{"monthly_usd":7000000}` {
		t.Errorf("a $7M pool's cost is written %s", raw)
	}
	// Numbers are written as encoding/json writes them: OPA keeps the text, and rules print it.
	for _, f := range []float64{0, 2, -3, 7e6, 1234567.5, 658.0219999999999, 0.1, 1e-6, 1e-7, 1.5e-9, 1e20, 1e21, 1.2345e22, -4e-8} {
		want, _ := json.Marshal(f)
		if got := appendFloat(nil, f); string(got) != string(want) {
			t.Errorf("%v: %s, want %s", f, got, want)
		}
	}
}

// A ComputeClass whose document is unknown at plan time: the Go builder reads its ladder and zones
// as the bundle does, for every ladder and zone spelling.
func TestDocuments_computeClassSameAsTheBundle(t *testing.T) {
	b := newBundleDocuments(t)
	after := func(ladder, zones, reservationZones any) map[string]any {
		return map[string]any{
			"name": "serve", "client": "initech", "region": "us-central1", "machine_type": "g2-standard-8", "zones": zones,
			"workload":  map[string]any{"kind": "inference", "environment": "production", "gpu_memory_gib": 16, "interruptible": false},
			"scaling":   map[string]any{"min_size": 1, "max_size": 3, "desired_size": nil},
			"capacity":  map[string]any{"ladder": ladder, "reservation": map[string]any{"type": "specific", "name": "r", "project": nil, "zones": reservationZones}, "flex_start": nil},
			"gpu_model": "L4", "gpus_per_node": 1, "gpu_memory_gib": 22.35,
			"effective_taints": []any{map[string]any{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}},
		}
	}
	var changes []any
	for i, a := range []map[string]any{
		after([]any{"reservation", "on_demand", "spot"}, []any{"us-central1-c", "us-central1-a"}, []any{"us-central1-b"}),
		after([]any{"on_demand"}, nil, nil),
		after(nil, []any{"us-central1-a"}, nil),
		after([]any{"spot", "flex_start"}, []any{"us-central1-a"}, []any{"us-central1-a"}),
	} {
		changes = append(changes, map[string]any{
			"address": fmt.Sprintf("gpufleet_gke_compute_class.c%d", i), "mode": "managed", "type": "gpufleet_gke_compute_class", "name": fmt.Sprintf("c%d", i),
			"change": map[string]any{"actions": []any{"create"}, "after": a, "after_unknown": map[string]any{"policy_document": true}},
		})
	}
	raw, err := json.Marshal(map[string]any{"format_version": "1.2", "resource_changes": changes})
	if err != nil {
		t.Fatal(err)
	}
	var counts fitCounts
	if n := compare(t, b, "compute classes", raw, &counts); n != 4 {
		t.Fatalf("%d documents, want 4", n)
	}
}
