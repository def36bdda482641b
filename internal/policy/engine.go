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
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/gpufleet/terraform-provider-gpufleet/policies"
)

// findingsQuery is the one query the provider asks: the waiver-applied deny and warn sets, and
// nothing else of the findings package.
const findingsQuery = `{"deny": data.gpufleet.findings.deny, "warn": data.gpufleet.findings.warn}`

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
	query rego.PreparedEvalQuery
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
	data := map[string]any{}
	mergeInto(data, opts.Data.Raw)
	regoOpts := []func(*rego.Rego){
		rego.Query(findingsQuery),
		rego.SetRegoVersion(ast.RegoV1),
	}
	embedded, err := embeddedModules()
	if err != nil {
		return nil, err
	}
	for name, src := range embedded {
		regoOpts = append(regoOpts, rego.Module(name, src))
	}
	if len(opts.BundlePaths) > 0 {
		loaded, err := loader.NewFileLoader().WithRegoVersion(ast.RegoV1).Filtered(opts.BundlePaths, skipTests)
		if err != nil {
			return nil, fmt.Errorf("loading the policy bundle paths: %w", err)
		}
		for _, m := range loaded.Modules {
			regoOpts = append(regoOpts, rego.ParsedModule(m.Parsed))
		}
		mergeInto(data, loaded.Documents)
	}
	// The rules read the client registry for every pool: keep it as AST values, so no read has to
	// convert it from Go values again.
	store := inmem.NewFromObjectWithOpts(data, inmem.OptReturnASTValuesOnRead(true))
	regoOpts = append(regoOpts, rego.Store(store))
	q, err := rego.New(regoOpts...).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("compiling the policy bundle: %w", err)
	}
	return &Engine{query: q}, nil
}

// skipTests keeps _test.rego files and non-Rego files out of the user's bundle paths.
func skipTests(_ string, info fs.FileInfo, _ int) bool {
	return !info.IsDir() && (!strings.HasSuffix(info.Name(), ".rego") || strings.HasSuffix(info.Name(), "_test.rego"))
}

// embeddedModules reads the Rego files of the embedded bundle, without tests.
func embeddedModules() (map[string]string, error) {
	out := map[string]string{}
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
		out["policies/"+p] = string(b)
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

// Evaluate runs the bundle on one pool document and returns its findings, denies first.
func (e *Engine) Evaluate(ctx context.Context, doc map[string]any) ([]Finding, error) {
	input, err := ast.InterfaceToValue(doc)
	if err != nil {
		return nil, fmt.Errorf("converting the pool document: %w", err)
	}
	rs, err := e.query.Eval(ctx, rego.EvalParsedInput(input))
	if err != nil {
		return nil, fmt.Errorf("evaluating the policy bundle: %w", err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("evaluating the policy bundle: %s is undefined", findingsQuery)
	}
	sets, ok := rs[0].Expressions[0].Value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("evaluating the policy bundle: %s is %T, not an object", findingsQuery, rs[0].Expressions[0].Value)
	}
	var findings []Finding
	for _, severity := range []string{SeverityDeny, SeverityWarn} {
		items, _ := sets[severity].([]any)
		for _, item := range items {
			f, err := findingFrom(item, severity)
			if err != nil {
				return nil, err
			}
			findings = append(findings, f)
		}
	}
	sort.SliceStable(findings, func(i, j int) bool {
		if findings[i].Severity != findings[j].Severity {
			return findings[i].Severity == SeverityDeny
		}
		if findings[i].Rule != findings[j].Rule {
			return findings[i].Rule < findings[j].Rule
		}
		return findings[i].Msg < findings[j].Msg
	})
	return findings, nil
}

func findingFrom(item any, severity string) (Finding, error) {
	m, ok := item.(map[string]any)
	if !ok {
		return Finding{}, fmt.Errorf("policy finding %v is not an object with msg, rule, address, attribute", item)
	}
	str := func(k string) string { s, _ := m[k].(string); return s }
	f := Finding{Msg: str("msg"), Rule: str("rule"), Address: str("address"), Attribute: str("attribute"), Severity: str("severity")}
	if f.Severity == "" {
		f.Severity = severity
	}
	if f.Msg == "" {
		return Finding{}, fmt.Errorf("policy finding %v has no msg", item)
	}
	return f, nil
}
