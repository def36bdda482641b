package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/gpufleet/terraform-provider-gpufleet/policies"
)

// TestBundle_otherResourcesCostWhatTheFloorPays checks that a plan's resources that are not GPU
// pools cost each of conftest's queries (deny, warn) no more allocations than the one-rule floor's
// query pays for reading their type: the bundle's one pass over resource_changes
// (documents.plan_changes), nothing built or called for them. Allocation counts, not time: the
// marginal allocations per added resource between a plan with 500 and one with 2 500 other
// resources around the same 20 pools. (Before the single pass, the bundle's queries allocated
// about five times the floor's per resource.)
func TestBundle_otherResourcesCostWhatTheFloorPays(t *testing.T) {
	bundle := compileFS(t, policies.Bundle)
	floor := compileDir(t, filepath.Join("testdata", "one_rule"))
	small, large := platformInput(t, 500), platformInput(t, 2500)
	perResource := func(c *ast.Compiler, query string) float64 {
		return float64(allocations(t, c, query, large)-allocations(t, c, query, small)) / 2000
	}
	floorCost := perResource(floor, "data.main.deny")
	for _, q := range []string{"data.main.deny", "data.main.warn"} {
		if got := perResource(bundle, q); got > 1.5*floorCost {
			t.Errorf("%s: %.1f allocations per resource that is not a pool, the floor's query %.1f: the bundle does more than one type comparison per resource", q, got, floorCost)
		} else {
			t.Logf("%s: %.1f allocations per other resource (floor %.1f)", q, got, floorCost)
		}
	}
}

// platformInput is a plan of 20 official GPU pools and n other resources of a platform plan, as
// conftest hands it to OPA.
func platformInput(t *testing.T, n int) ast.Value {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := writeSmallOfficialPlan(path, 20); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var plan map[string]any
	if err := json.Unmarshal(raw, &plan); err != nil {
		t.Fatal(err)
	}
	others, err := platformResources()
	if err != nil {
		t.Fatal(err)
	}
	changes := plan["resource_changes"].([]any)
	for i := range n {
		rc := deepCopy(others[i%len(others)].Change)
		rc["address"] = fmt.Sprintf("%s.%s[\"%05d\"]", rc["type"], rc["name"], i)
		changes = append(changes, rc)
	}
	plan["resource_changes"] = changes
	v, err := ast.InterfaceToValue(plan)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// allocations is the fewest heap allocations of three evaluations of query on input.
func allocations(t *testing.T, c *ast.Compiler, query string, input ast.Value) uint64 {
	t.Helper()
	ctx := context.Background()
	pq, err := rego.New(rego.Compiler(c), rego.Query(query)).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var fewest uint64
	for i := range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := pq.Eval(ctx, rego.EvalParsedInput(input)); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if n := after.Mallocs - before.Mallocs; i == 0 || n < fewest {
			fewest = n
		}
	}
	return fewest
}

func compileFS(t *testing.T, fsys fs.FS) *ast.Compiler {
	t.Helper()
	modules := map[string]*ast.Module{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") || strings.HasSuffix(p, "_test.rego") {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		modules[p], err = ast.ParseModuleWithOpts(p, string(b), ast.ParserOptions{RegoVersion: ast.RegoV1})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	c := ast.NewCompiler().WithDefaultRegoVersion(ast.RegoV1)
	if c.Compile(modules); c.Failed() {
		t.Fatal(c.Errors)
	}
	return c
}

func compileDir(t *testing.T, dir string) *ast.Compiler {
	t.Helper()
	return compileFS(t, os.DirFS(dir))
}
