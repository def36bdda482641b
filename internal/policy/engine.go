// Package policy runs the gpufleet Rego bundle inside the provider: the embedded bundle (the same
// files conftest runs from policies/) plus the user's bundle_paths, compiled once per process, with
// the policy data files as data. It evaluates one pool document at a time and turns findings into
// plan diagnostics. It never calls a cloud.
package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/gpufleet/terraform-provider-gpufleet/policies"
)

// rulesQuery is the query the provider asks of every pool document: what the rules (the bundle's and
// the user's, package gpufleet.rules) report about it. Evaluate turns each result into a finding the
// way findings.rego does for conftest: asking findings.rego itself costs every pool its layer of
// rules again, about 10 µs per finding on top of the rules themselves.
const rulesQuery = `{"deny": data.gpufleet.rules.deny, "warn": data.gpufleet.rules.warn}`

// bundleConstantsQuery asks, once per engine, what does not depend on the pool: the rules that
// waivers cannot cover, the bundle's rule ids, and the findings about no pool at all (GF-DATA-001
// without a registry).
const bundleConstantsQuery = `{"non_waivable": data.gpufleet.lib.non_waivable, "rule_ids": data.gpufleet.lib.rule_ids, "plan_wide": data.gpufleet.findings.warn, "settings": data.gpufleet.lib.official_settings, "fixes": data.gpufleet.lib._official_fixes}`

// Severities of a finding.
const (
	SeverityDeny = "deny"
	SeverityWarn = "warn"
)

// Finding is one policy result, as the bundle reports it.
type Finding struct {
	Msg       string `json:"msg"`
	Rule      string `json:"rule"`
	Address   string `json:"address"`
	Attribute string `json:"attribute"`
	Severity  string `json:"severity"`
}

// Engine evaluates pool documents. It is safe for concurrent use.
type Engine struct {
	query       rego.PreparedEvalQuery
	nonWaivable map[string]bool
	ruleIDs     map[string]bool // the bundle's rules: a waiver of another GF- id has no effect
	planWide    []Finding       // reported with every pool; AddDiagnostics shows them once per plan
	// wording is, per resource type whose settings are not the document's names
	// (lib.official_settings: gpufleet_gke_compute_class's ladder), how findings name them.
	wording map[string]wording
}

// wording is lib.official_attribute and lib.official_text for one resource type.
type wording struct {
	attributes   map[string]string
	fixes, names *strings.Replacer
}

// Options say what to compile.
type Options struct {
	BundlePaths []string // directories of extra Rego v1 policies
	Data        Data     // policy data
}

var (
	enginesMu sync.Mutex
	engines   = map[string]*Engine{}
)

// Shared returns the engine for opts, compiling it on first use only: terraform configures the
// provider once per operation, and every pool of the plan reuses the same prepared query.
func Shared(ctx context.Context, opts Options) (*Engine, error) {
	key, err := cacheKey(opts)
	if err != nil {
		return nil, err
	}
	enginesMu.Lock()
	defer enginesMu.Unlock()
	if e, ok := engines[key]; ok {
		return e, nil
	}
	e, err := New(ctx, opts)
	if err != nil {
		return nil, err
	}
	engines[key] = e
	return e, nil
}

func cacheKey(opts Options) (string, error) {
	h := sha256.New()
	for _, p := range opts.BundlePaths {
		fmt.Fprintf(h, "bundle:%s\n", p)
		// Key on content too, so an edited user policy is recompiled in a long-lived process.
		if err := hashRegoFiles(h, p); err != nil {
			return "", err
		}
	}
	fmt.Fprintf(h, "data:%v\n", opts.Data.Raw)
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashRegoFiles(h interface{ Write([]byte) (int, error) }, dir string) error {
	return fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading policy bundle path %q: %w", dir, err)
		}
		if d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return nil
		}
		b, err := fs.ReadFile(os.DirFS(dir), p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s:%d:", p, len(b))
		_, err = h.Write(b)
		return err
	})
}

// New compiles the embedded bundle with opts. A broken user policy is an error naming the file.
func New(ctx context.Context, opts Options) (*Engine, error) {
	compiler, store, err := compile(opts)
	if err != nil {
		return nil, err
	}
	prepare := func(query string) (rego.PreparedEvalQuery, error) {
		q, err := rego.New(rego.Compiler(compiler), rego.Store(store), rego.Query(query)).PrepareForEval(ctx)
		if err != nil {
			return q, fmt.Errorf("compiling the policy bundle: %w", err)
		}
		return q, nil
	}
	q, err := prepare(rulesQuery)
	if err != nil {
		return nil, err
	}
	e := &Engine{query: q, nonWaivable: map[string]bool{}, ruleIDs: map[string]bool{}}
	constantsQuery, err := prepare(bundleConstantsQuery)
	if err != nil {
		return nil, err
	}
	constants, err := evalObject(ctx, constantsQuery, bundleConstantsQuery)
	if err != nil {
		return nil, err
	}
	nonWaivable, _ := constants["non_waivable"].([]any)
	for _, r := range nonWaivable {
		if rule, ok := r.(string); ok {
			e.nonWaivable[rule] = true
		}
	}
	ruleIDs, _ := constants["rule_ids"].([]any)
	for _, r := range ruleIDs {
		if rule, ok := r.(string); ok {
			e.ruleIDs[rule] = true
		}
	}
	e.wording = wordings(constants["settings"], constants["fixes"])
	planWide, _ := constants["plan_wide"].([]any)
	for _, item := range planWide {
		f, err := findingFrom(item)
		if err != nil {
			return nil, err
		}
		e.planWide = append(e.planWide, f)
	}
	return e, nil
}

// wordings reads lib.official_settings and lib._official_fixes into replacers that do what
// strings.replace_n does with them (pairs in sorted key order, one strings.Replacer).
func wordings(settings, fixes any) map[string]wording {
	replacer := func(m map[string]string) *strings.Replacer {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		pairs := make([]string, 0, 2*len(keys))
		for _, k := range keys {
			pairs = append(pairs, k, m[k])
		}
		return strings.NewReplacer(pairs...)
	}
	strs := func(v any) map[string]string {
		out := map[string]string{}
		m, _ := v.(map[string]any)
		for k, x := range m {
			if s, ok := x.(string); ok {
				out[k] = s
			}
		}
		return out
	}
	out := map[string]wording{}
	all, _ := settings.(map[string]any)
	fixesByType, _ := fixes.(map[string]any)
	for typ, v := range all {
		attributes := strs(v)
		names := map[string]string{}
		for name, setting := range attributes {
			if strings.Contains(name, ".") && !strings.HasPrefix(name, "gpu.mig.") {
				names[name] = setting
			}
		}
		out[typ] = wording{attributes: attributes, fixes: replacer(strs(fixesByType[typ])), names: replacer(names)}
	}
	return out
}

// compile parses and compiles the embedded bundle and the user's bundle paths, once for every query
// of the engine (rego.New would compile the modules again for each), and loads the policy data.
func compile(opts Options) (*ast.Compiler, storage.Store, error) {
	modules, err := embeddedModules()
	if err != nil {
		return nil, nil, err
	}
	data := map[string]any{}
	mergeInto(data, opts.Data.Raw)
	if len(opts.BundlePaths) > 0 {
		loaded, err := loader.NewFileLoader().WithRegoVersion(ast.RegoV1).Filtered(opts.BundlePaths, skipTests)
		if err != nil {
			return nil, nil, fmt.Errorf("loading the policy bundle paths: %w", err)
		}
		for name, m := range loaded.Modules {
			modules[name] = m.Parsed
		}
		mergeInto(data, loaded.Documents)
	}
	compiler := ast.NewCompiler().
		WithDefaultRegoVersion(ast.RegoV1).
		WithEnablePrintStatements(false).
		WithUseTypeCheckAnnotations(true)
	if compiler.Compile(modules); compiler.Failed() {
		return nil, nil, fmt.Errorf("compiling the policy bundle: %w", compiler.Errors)
	}
	// The rules read the client registry for every pool: keep it as AST values, so no read has to
	// convert it from Go values again.
	return compiler, inmem.NewFromObjectWithOpts(data, inmem.OptReturnASTValuesOnRead(true)), nil
}

// evalObject evaluates the prepared query, an object.
func evalObject(ctx context.Context, pq rego.PreparedEvalQuery, query string, opts ...rego.EvalOption) (map[string]any, error) {
	rs, err := pq.Eval(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("evaluating the policy bundle: %w", err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("evaluating the policy bundle: %s is undefined", query)
	}
	obj, ok := rs[0].Expressions[0].Value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("evaluating the policy bundle: %s is %T, not an object", query, rs[0].Expressions[0].Value)
	}
	return obj, nil
}

// skipTests keeps _test.rego files and non-Rego files out of the user's bundle paths.
func skipTests(_ string, info fs.FileInfo, _ int) bool {
	return !info.IsDir() && (!strings.HasSuffix(info.Name(), ".rego") || strings.HasSuffix(info.Name(), "_test.rego"))
}

// embeddedModules parses the Rego files of the embedded bundle, without tests.
func embeddedModules() (map[string]*ast.Module, error) {
	out := map[string]*ast.Module{}
	err := fs.WalkDir(policies.Bundle, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".rego") || strings.HasSuffix(p, "_test.rego") {
			return nil
		}
		b, err := fs.ReadFile(policies.Bundle, p)
		if err != nil {
			return err
		}
		name := "policies/" + p
		var m *ast.Module
		if p == CatalogModule {
			m, err = catalogAsTerms(context.Background(), name)
		} else {
			m, err = ast.ParseModuleWithOpts(name, string(b), ast.ParserOptions{RegoVersion: ast.RegoV1})
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out[name] = m
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the embedded policy bundle: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("the embedded policy bundle is empty")
	}
	return out, nil
}

// Evaluate runs the rules on one pool document and returns its findings, denies first.
func (e *Engine) Evaluate(ctx context.Context, doc map[string]any) (findings []Finding, err error) {
	// The rules read a part of the document, and OPA converts only what they read (ast.LazyObject).
	// That conversion panics on a value without a JSON form. pool.Document builds none, but a panic
	// here would take terraform's plan down with the provider.
	defer func() {
		if r := recover(); r != nil {
			findings, err = nil, fmt.Errorf("converting the pool document: %v", r)
		}
	}()
	results, err := evalObject(ctx, e.query, rulesQuery, rego.EvalParsedInput(ast.LazyObject(doc)), rego.EvalMetrics(metrics.NoOp()))
	if err != nil {
		return nil, err
	}
	address, _ := doc["address"].(string)
	waivers, _ := doc["waivers"].(map[string]any)
	resourceType, _ := doc["resource_type"].(string)
	w, reworded := e.wording[resourceType]
	findings = slices.Clone(e.planWide)
	for _, severity := range []string{SeverityDeny, SeverityWarn} {
		items, _ := results[severity].([]any)
		for _, item := range items {
			r, err := ruleResultFrom(item)
			if err != nil {
				return nil, err
			}
			if reworded {
				if a, ok := w.attributes[r.attribute]; ok {
					r.attribute = a
				}
				r.text = w.names.Replace(w.fixes.Replace(r.text))
			}
			if f, ok := e.report(r, address, severity, waivers); ok {
				findings = append(findings, f)
			}
		}
	}
	findings = append(findings, e.ineffectiveWaivers(address, waivers)...)
	sortFindings(findings)
	return findings, nil
}

// ineffectiveWaivers is findings.rego's ineffective_waivers: a warning for each waiver of a rule that
// cannot be waived or of a GF- rule the bundle does not have (custom rules' ids cannot be checked).
func (e *Engine) ineffectiveWaivers(address string, waivers map[string]any) []Finding {
	var out []Finding
	for rule := range waivers {
		var why string
		switch {
		case e.nonWaivable[rule]:
			why = rule + " cannot be waived"
		case strings.HasPrefix(rule, "GF-") && !e.ruleIDs[rule]:
			why = "the bundle has no rule " + rule
		default:
			continue
		}
		out = append(out, Finding{
			Msg:  "GF-WAIVE-001: " + address + ": the waiver of " + rule + " has no effect: " + why + "; remove it",
			Rule: "GF-WAIVE-001", Address: address, Severity: SeverityWarn,
		})
	}
	return out
}

// sortFindings puts denies first, then orders by rule and message.
func sortFindings(findings []Finding) {
	sort.SliceStable(findings, func(i, j int) bool {
		if findings[i].Severity != findings[j].Severity {
			return findings[i].Severity == SeverityDeny
		}
		if findings[i].Rule != findings[j].Rule {
			return findings[i].Rule < findings[j].Rule
		}
		return findings[i].Msg < findings[j].Msg
	})
}

// ruleResult is what a rule reports about the pool it judges (lib.finding).
type ruleResult struct{ rule, attribute, text string }

func ruleResultFrom(item any) (ruleResult, error) {
	m, ok := item.(map[string]any)
	if !ok {
		return ruleResult{}, fmt.Errorf("policy rule result %v is not an object with rule, attribute and text (lib.finding)", item)
	}
	rule, okRule := m["rule"].(string)
	text, okText := m["text"].(string)
	attribute, okAttribute := m["attribute"].(string)
	if !okRule || !okText || (!okAttribute && m["attribute"] != nil) {
		return ruleResult{}, fmt.Errorf("policy rule result %v needs rule, attribute and text strings (lib.finding)", item)
	}
	return ruleResult{rule: rule, attribute: attribute, text: text}, nil
}

// report is findings.rego's report, waiver and waived for the provider: the finding of rule result r
// on the pool at address, unless a waiver drops it (a waived warning); a waived deny is a warning
// that names the waiver's reason.
func (e *Engine) report(r ruleResult, address, severity string, waivers map[string]any) (Finding, bool) {
	f := Finding{Msg: r.rule + ": " + address + ": " + r.text, Rule: r.rule, Address: address, Attribute: r.attribute, Severity: severity}
	// Rule ids match as they are, or in upper case (official resources' waiver tags are lower case).
	rule := r.rule
	reason, waived := waivers[rule]
	if !waived || e.nonWaivable[rule] {
		rule = strings.ToUpper(r.rule)
		reason, waived = waivers[rule]
	}
	if !waived || e.nonWaivable[rule] {
		return f, true
	}
	if severity == SeverityWarn {
		return Finding{}, false
	}
	f.Msg += fmt.Sprintf(" (waived: %s)", reason)
	f.Severity = SeverityWarn
	return f, true
}

// findingFrom reads a finding the bundle reports in full (findings.rego).
func findingFrom(item any) (Finding, error) {
	m, ok := item.(map[string]any)
	if !ok {
		return Finding{}, fmt.Errorf("policy finding %v is not an object with msg, rule, address, attribute", item)
	}
	str := func(k string) string { s, _ := m[k].(string); return s }
	f := Finding{Msg: str("msg"), Rule: str("rule"), Address: str("address"), Attribute: str("attribute"), Severity: str("severity")}
	if f.Msg == "" || f.Severity == "" {
		return Finding{}, fmt.Errorf("policy finding %v has no msg or severity", item)
	}
	return f, nil
}
