package policy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

func testSpec() pool.Spec {
	return pool.Spec{
		Cloud:         catalog.AWS,
		ResourceType:  "gpufleet_eks_node_pool",
		Name:          "infer",
		Region:        "us-east-1",
		Client:        "acme",
		Workload:      pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16},
		InstanceTypes: []string{"g6.xlarge"},
		Scaling:       pool.Sizes{Min: 1, Max: 4, Desired: 2},
	}
}

func document(t testing.TB, s pool.Spec, registry pool.Registry) map[string]any {
	t.Helper()
	d, err := pool.Derive(s, pool.Environment{Registry: registry})
	if err != nil {
		t.Fatal(err)
	}
	return pool.Document("gpufleet_eks_node_pool.infer", s, &d)
}

func rules(findings []Finding, severity string) []string {
	var out []string
	for _, f := range findings {
		if f.Severity == severity {
			out = append(out, f.Rule)
		}
	}
	return out
}

func find(findings []Finding, rule string) (Finding, bool) {
	for _, f := range findings {
		if f.Rule == rule {
			return f, true
		}
	}
	return Finding{}, false
}

func newEngine(t testing.TB, opts Options) *Engine {
	t.Helper()
	e, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEngine_compliantPool(t *testing.T) {
	e := newEngine(t, Options{})
	findings, err := e.Evaluate(context.Background(), document(t, testSpec(), nil))
	if err != nil {
		t.Fatal(err)
	}
	if denies := rules(findings, SeverityDeny); len(denies) != 0 {
		t.Fatalf("compliant pool denied: %+v", findings)
	}
	if _, ok := find(findings, RuleInactiveRegistry); !ok {
		t.Fatalf("without policy data the registry rules must say they are inactive: %+v", findings)
	}
}

func TestEngine_denyAtAttribute(t *testing.T) {
	s := testSpec()
	s.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 4}
	findings, err := newEngine(t, Options{}).Evaluate(context.Background(), document(t, s, nil))
	if err != nil {
		t.Fatal(err)
	}
	f, ok := find(findings, "GF-ISO-003")
	if !ok || f.Severity != SeverityDeny {
		t.Fatalf("time-slicing in production must be denied: %+v", findings)
	}
	if !strings.HasPrefix(f.Msg, "GF-ISO-003") || !strings.HasPrefix(f.Attribute, "gpu.sharing") {
		t.Fatalf("finding = %+v, want msg starting with the rule id and attribute gpu.sharing…", f)
	}
}

func TestEngine_waiverTurnsDenyIntoWarning(t *testing.T) {
	s := testSpec()
	s.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 4}
	s.Waivers = map[string]string{"GF-ISO-003": "canary, owner ml-platform, ends 2026-12-31"}
	findings, err := newEngine(t, Options{}).Evaluate(context.Background(), document(t, s, nil))
	if err != nil {
		t.Fatal(err)
	}
	f, ok := find(findings, "GF-ISO-003")
	if !ok || f.Severity != SeverityWarn || !strings.Contains(f.Msg, "canary") {
		t.Fatalf("waived deny must become a warning naming the waiver: %+v", findings)
	}
}

func TestEngine_policyDataActivatesRegistryRules(t *testing.T) {
	dir := t.TempDir()
	dataFile := filepath.Join(dir, "data.yaml")
	if err := os.WriteFile(dataFile, []byte("gpufleet:\n  clients:\n    acme:\n      allowed_regions: [\"eu-*\"]\n      isolation: dedicated\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := LoadData([]string{dataFile})
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, Options{Data: data})
	findings, err := e.Evaluate(context.Background(), document(t, testSpec(), data.Registry))
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := find(findings, "GF-DR-001"); !ok || f.Severity != SeverityDeny {
		t.Fatalf("us-east-1 is outside acme's eu-* regions: %+v", findings)
	}
	if _, ok := find(findings, RuleInactiveRegistry); ok {
		t.Fatal("with policy data the registry rules are active")
	}
	if _, ok := find(findings, "GF-ISO-002"); ok {
		t.Fatalf("the derived client taint satisfies dedicated isolation: %+v", findings)
	}

	s := testSpec()
	s.Client = "globex"
	findings, err = e.Evaluate(context.Background(), document(t, s, data.Registry))
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := find(findings, "GF-TAG-001"); !ok || f.Severity != SeverityDeny {
		t.Fatalf("a client missing from the policy data is GF-TAG-001: %+v", findings)
	}
}

func TestEngine_unknownValuesDoNotFire(t *testing.T) {
	s := testSpec()
	s.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 4}
	s.Unknown = map[string]bool{"workload.environment": true, "instance_types": true}
	findings, err := newEngine(t, Options{}).Evaluate(context.Background(), pool.Document("gpufleet_eks_node_pool.infer", s, nil))
	if err != nil {
		t.Fatal(err)
	}
	if denies := rules(findings, SeverityDeny); len(denies) != 0 {
		t.Fatalf("no rule may fire on a value it needs that is unknown: %+v", findings)
	}
}

// The provider reports rule results itself (Engine.report); conftest reports them through
// findings.rego. For documents with waivable and non-waivable waivers, with and without policy data,
// both must say the same.
func TestEngine_reportsWhatFindingsRegoReports(t *testing.T) {
	data, err := LoadData([]string{"../../policies/examples/policy-data.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	waived := func(doc map[string]any, waivers map[string]any) map[string]any {
		doc["waivers"] = waivers
		return doc
	}
	timeSliced := testSpec()
	timeSliced.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 4}
	untaintedSpot := document(t, testSpec(), nil)
	untaintedSpot["taints"] = []any{}
	untaintedSpot["capacity"].(map[string]any)["spot_percentage"] = 50
	unregistered := testSpec()
	unregistered.Client = "hooli"
	inEurope := testSpec()
	inEurope.Region = "eu-west-1"
	// A ComputeClass's document: its spot share stands for a spot rung of its ladder, which its
	// findings name (lib.official_settings).
	computeClass := document(t, testSpec(), nil)
	computeClass["resource_type"] = "gpufleet_gke_compute_class"
	computeClass["capacity"].(map[string]any)["spot_percentage"] = 100

	for name, c := range map[string]struct {
		opts Options
		doc  map[string]any
	}{
		"waived deny":                  {Options{}, waived(document(t, timeSliced, nil), map[string]any{"GF-ISO-003": "canary, owner ml-platform, ends 2026-12-31"})},
		"non-waivable and waived warn": {Options{}, waived(untaintedSpot, map[string]any{"GF-ISO-001": "we know, owner ml-platform", "GF-COST-003": "short jobs, owner ml-platform"})},
		"non-waivable with data":       {Options{Data: data}, waived(document(t, testSpec(), data.Registry), map[string]any{"GF-DR-001": "data stays here, owner legal"})},
		"unregistered client":          {Options{Data: data}, document(t, unregistered, data.Registry)},
		"waiver of an unknown rule":    {Options{Data: data}, waived(document(t, inEurope, data.Registry), map[string]any{"GF-COST-02": "typo, owner ml-platform", "ACME-001": "custom rule, owner ml-platform"})},
		"compliant":                    {Options{Data: data}, document(t, inEurope, data.Registry)},
		"compute class ladder":         {Options{}, computeClass},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := newEngine(t, c.opts).Evaluate(context.Background(), c.doc)
			if err != nil {
				t.Fatal(err)
			}
			want := findingsRego(t, c.opts, c.doc)
			if !slices.Equal(got, want) {
				t.Fatalf("provider reports\n%+v\nfindings.rego reports\n%+v", got, want)
			}
			if name != "compliant" && len(got) == 0 {
				t.Fatal("this case is about findings, and there are none")
			}
		})
	}
}

// findingsRego evaluates findings.rego's deny and warn on doc, sorted as Evaluate sorts.
func findingsRego(t *testing.T, opts Options, doc map[string]any) []Finding {
	t.Helper()
	compiler, store, err := compile(opts)
	if err != nil {
		t.Fatal(err)
	}
	const query = `{"deny": data.gpufleet.findings.deny, "warn": data.gpufleet.findings.warn}`
	rs, err := rego.New(rego.Compiler(compiler), rego.Store(store), rego.Query(query), rego.Input(doc)).Eval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []Finding
	for _, severity := range []string{SeverityDeny, SeverityWarn} {
		for _, item := range rs[0].Expressions[0].Value.(map[string]any)[severity].([]any) {
			f, err := findingFrom(item)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, f)
		}
	}
	sortFindings(out)
	return out
}

func TestShared_compilesOncePerOptions(t *testing.T) {
	a, err := Shared(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Shared(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("the same options must reuse the compiled engine")
	}
}

func TestNew_userBundle(t *testing.T) {
	dir := t.TempDir()
	// A user rule is written like the bundle's own: it judges the pool document in input and
	// reports lib.finding(rule, attribute, text); conftest runs it the same way.
	custom := `package gpufleet.rules

import data.gpufleet.lib

deny contains lib.finding("ACME-001", "workload.kind", "no inference here") if input.workload.kind == "inference"
`
	if err := os.WriteFile(filepath.Join(dir, "acme.rego"), []byte(custom), 0o600); err != nil {
		t.Fatal(err)
	}
	// A test file of the user's bundle is not part of the policy.
	if err := os.WriteFile(filepath.Join(dir, "acme_test.rego"), []byte("package gpufleet.findings_test\n\ntest_x if true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	findings, err := newEngine(t, Options{BundlePaths: []string{dir}}).Evaluate(context.Background(), document(t, testSpec(), nil))
	if err != nil {
		t.Fatal(err)
	}
	f, ok := find(findings, "ACME-001")
	if !ok {
		t.Fatalf("user rule did not run: %+v", findings)
	}
	if want := "ACME-001: gpufleet_eks_node_pool.infer: no inference here"; f.Msg != want || f.Attribute != "workload.kind" || f.Severity != SeverityDeny {
		t.Fatalf("user finding %+v, want msg %q at workload.kind, deny", f, want)
	}
}

// OPA converts only the parts of the document a rule reads; rules that compare, count or walk
// whole objects of it must see the same document all the same.
func TestEngine_rulesSeeTheWholeDocument(t *testing.T) {
	dir := t.TempDir()
	custom := `package gpufleet.rules

import data.gpufleet.lib

deny contains lib.finding("ACME-002", "scaling", "whole document") if {
	input.scaling == {"min_size": 1, "max_size": 4, "desired_size": 2}
	{"min_size": 1, "max_size": 4, "desired_size": 2} == input.scaling
	input.waivers == {}
	count(input) == ` + strconv.Itoa(len(document(t, testSpec(), nil))) + `
	count([k | some k, _ in input]) == count(input)
	input.labels["gpufleet.io/client"] == "acme"
	[path | walk(input, [path, "acme"])] != []
}
`
	if err := os.WriteFile(filepath.Join(dir, "acme.rego"), []byte(custom), 0o600); err != nil {
		t.Fatal(err)
	}
	findings, err := newEngine(t, Options{BundlePaths: []string{dir}}).Evaluate(context.Background(), document(t, testSpec(), nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := find(findings, "ACME-002"); !ok {
		t.Fatalf("the rule did not see the document it was given: %+v", findings)
	}
}

func TestEngine_malformedRuleResultIsAnError(t *testing.T) {
	dir := t.TempDir()
	custom := "package gpufleet.rules\n\ndeny contains \"no inference here\" if input.workload.kind == \"inference\"\n"
	if err := os.WriteFile(filepath.Join(dir, "acme.rego"), []byte(custom), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := newEngine(t, Options{BundlePaths: []string{dir}}).Evaluate(context.Background(), document(t, testSpec(), nil))
	if err == nil || !strings.Contains(err.Error(), "no inference here") || !strings.Contains(err.Error(), "lib.finding") {
		t.Fatalf("want an error naming the result and lib.finding, got %v", err)
	}
}

func TestEngine_unconvertibleDocumentIsAnError(t *testing.T) {
	doc := document(t, testSpec(), nil)
	doc["client"] = make(chan int)
	if _, err := newEngine(t, Options{}).Evaluate(context.Background(), doc); err == nil || !strings.Contains(err.Error(), "converting the pool document") {
		t.Fatalf("want a conversion error, got %v", err)
	}
}

func TestNew_brokenUserBundleIsAnError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "broken.rego"), []byte("package acme\n\ndeny contains x if {\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := New(context.Background(), Options{BundlePaths: []string{dir}})
	if err == nil || !strings.Contains(err.Error(), "broken.rego") {
		t.Fatalf("want a compile error naming broken.rego, got %v", err)
	}
}

func TestEngine_concurrentUse(t *testing.T) {
	data, err := LoadData([]string{"../../policies/examples/policy-data.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, Options{Data: data})
	// One document, read by every goroutine at once: outside acme's regions (GF-DR-001), with a
	// waiver that does not apply.
	doc := document(t, testSpec(), data.Registry)
	doc["waivers"] = map[string]any{"GF-DR-001": "data stays here, owner legal"}
	want, err := e.Evaluate(context.Background(), doc)
	if err != nil || len(want) == 0 {
		t.Fatalf("findings %+v, %v", want, err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				got, err := e.Evaluate(context.Background(), doc)
				if err == nil && !slices.Equal(got, want) {
					err = fmt.Errorf("findings %+v, want %+v", got, want)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestAddDiagnostics(t *testing.T) {
	findings := []Finding{
		{Msg: "GF-ISO-003: x: shared GPU in production", Rule: "GF-ISO-003", Address: "x", Attribute: "gpu.sharing.strategy", Severity: SeverityDeny},
		{Msg: "GF-COST-002: x: no spot", Rule: "GF-COST-002", Address: "x", Attribute: "capacity.spot_percentage", Severity: SeverityWarn},
		{Msg: "GF-DATA-001: registry rules inactive", Rule: RuleInactiveRegistry, Severity: SeverityWarn},
	}
	seen := map[string]bool{}
	once := func(k string) bool { first := !seen[k]; seen[k] = true; return first }

	var diags diag.Diagnostics
	AddDiagnostics(&diags, findings, EnforceDeny, once)
	if diags.ErrorsCount() != 1 || diags.WarningsCount() != 2 {
		t.Fatalf("deny enforcement: %d errors, %d warnings, want 1 and 2", diags.ErrorsCount(), diags.WarningsCount())
	}
	withPath, ok := diags.Errors()[0].(diag.DiagnosticWithPath)
	if !ok || !withPath.Path().Equal(path.Root("gpu").AtName("sharing").AtName("strategy")) {
		t.Fatalf("deny must be at gpu.sharing.strategy: %+v", diags.Errors()[0])
	}

	diags = nil
	AddDiagnostics(&diags, findings, EnforceWarn, once)
	if diags.ErrorsCount() != 0 || diags.WarningsCount() != 2 {
		t.Fatalf("warn enforcement, second pool: %d errors, %d warnings, want 0 and 2 (the plan-wide warning once)", diags.ErrorsCount(), diags.WarningsCount())
	}
}

func TestAttributePath(t *testing.T) {
	cases := map[string]path.Path{
		"client":                   path.Root("client"),
		"capacity.spot_percentage": path.Root("capacity").AtName("spot_percentage"),
		"taints[2].key":            path.Root("taints").AtListIndex(2).AtName("key"),
	}
	for in, want := range cases {
		got, ok := AttributePath(in)
		if !ok || !got.Equal(want) {
			t.Errorf("AttributePath(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "taints[x]", ".a"} {
		if _, ok := AttributePath(bad); ok {
			t.Errorf("AttributePath(%q) should fail", bad)
		}
	}
}

// BenchmarkEvaluate measures the provider's per-pool policy evaluation: one pool document in, its
// findings out (target: median ≤ 100 µs). The document is a production inference pool on one L4:
// compliant without policy data (one GF-DATA-001 warning); with the example policy data, compliant
// in eu-west-1, and in us-east-1, outside its client's allowed regions (one GF-DR-001 deny).
func BenchmarkEvaluate(b *testing.B) {
	data, err := LoadData([]string{"../../policies/examples/policy-data.yaml"})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, region string
		opts         Options
		findings     []string
	}{
		{"no-data", "eu-west-1", Options{}, []string{RuleInactiveRegistry}},
		{"with-data", "eu-west-1", Options{Data: data}, nil},
		{"with-data-finding", "us-east-1", Options{Data: data}, []string{"GF-DR-001"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := newEngine(b, c.opts)
			s := testSpec()
			s.Region = c.region
			doc := document(b, s, c.opts.Data.Registry)
			ctx := context.Background()
			findings, err := e.Evaluate(ctx, doc)
			if err != nil {
				b.Fatal(err)
			}
			if got := append(rules(findings, SeverityDeny), rules(findings, SeverityWarn)...); !slices.Equal(got, c.findings) {
				b.Fatalf("findings %+v, want rules %v", findings, c.findings)
			}
			for range 100 { // warm-up
				if _, err := e.Evaluate(ctx, doc); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := e.Evaluate(ctx, doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// At terraform plan each pool is planned alone: the provider cannot count the client's other pools,
// so GF-COST-004 says that this pool alone is over the budget and names no pool count.
func TestEngine_budgetOfOnePool(t *testing.T) {
	data, err := LoadData([]string{"../../policies/examples/policy-data.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	spec := testSpec()
	spec.InstanceTypes = []string{"p5.48xlarge"} // about $72 000/month each in us-east-1
	spec.Workload = pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, GPUMemoryGiB: 60}
	spec.Scaling = pool.Sizes{Min: 1, Max: 4, Desired: 2}
	findings, err := newEngine(t, Options{Data: data}).Evaluate(context.Background(), document(t, spec, data.Registry))
	if err != nil {
		t.Fatal(err)
	}
	var msg string
	for _, f := range findings {
		if f.Rule == "GF-COST-004" {
			msg = f.Msg
		}
	}
	if !strings.Contains(msg, `this pool alone exceeds client "acme"'s monthly budget of $50000.00`) || strings.Contains(msg, "pool(s)") {
		t.Fatalf("GF-COST-004 at plan time: %q in %+v", msg, findings)
	}
}

// The provider's bundle holds the catalog's tables as Rego terms, one complete rule each (no call,
// no rule by key, none of catalog.rego's JSON texts), equal to what catalog.rego gives conftest,
// which decodes the tables by key at evaluation.
func TestEmbeddedModules_catalogAsTerms(t *testing.T) {
	modules, err := embeddedModules()
	if err != nil {
		t.Fatal(err)
	}
	m := modules["policies/"+CatalogModule]
	if m == nil {
		t.Fatal("no catalog module")
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "policies", filepath.FromSlash(CatalogModule)))
	if err != nil {
		t.Fatal(err)
	}
	asWritten, err := ast.ParseModuleWithOpts("catalog.rego", string(raw), ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		t.Fatal(err)
	}
	byKey, tables := 0, 0
	for _, r := range asWritten.Rules {
		if len(r.Head.Reference) > 1 {
			byKey++
		}
	}
	for _, r := range m.Rules {
		name := r.Head.Ref().String()
		if len(r.Head.Reference) > 1 || r.Head.Value == nil || !r.Head.Value.IsGround() || strings.HasPrefix(name, "_") {
			t.Errorf("the provider's catalog rule %s is not one value of Rego terms", name)
		}
		if _, obj := r.Head.Value.Value.(ast.Object); obj {
			tables++
		}
	}
	if byKey < 6 || tables < byKey+2 {
		t.Errorf("catalog.rego has %d tables by key, the provider's module %d objects", byKey, tables)
	}
	query := func(mod *ast.Module) any {
		rs, err := rego.New(rego.Query("data.gpufleet.catalog"), rego.ParsedModule(mod)).Eval(context.Background())
		if err != nil || len(rs) != 1 {
			t.Fatalf("%v %v", rs, err)
		}
		out := rs[0].Expressions[0].Value.(map[string]any)
		for k := range out {
			if strings.HasPrefix(k, "_") {
				delete(out, k)
			}
		}
		return out
	}
	if got, want := query(m), query(asWritten); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Error("the provider's catalog differs from the catalog conftest decodes")
	}
}
