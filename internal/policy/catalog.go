package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/gpufleet/terraform-provider-gpufleet/policies"
)

// CatalogModule is the generated catalog in the bundle (internal/catalog's RegoExport).
const CatalogModule = "gpufleet/catalog.rego"

// CatalogData is data.gpufleet.catalog as JSON values: the bundle's catalog.rego evaluated, its
// tables whole. The module writes its large tables one JSON text per key in rules of their own
// (their names start with "_"), which are not part of the catalog.
func CatalogData(ctx context.Context) (map[string]any, error) {
	raw, err := policies.Bundle.ReadFile(CatalogModule)
	if err != nil {
		return nil, err
	}
	rs, err := rego.New(rego.Query("data.gpufleet.catalog"), rego.Module(CatalogModule, string(raw))).Eval(ctx)
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("the catalog is undefined")
	}
	catalog, ok := rs[0].Expressions[0].Value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the catalog is not an object")
	}
	for k := range catalog {
		if strings.HasPrefix(k, "_") {
			delete(catalog, k)
		}
	}
	return catalog, nil
}

// catalogAsTerms is the catalog module the provider compiles: CatalogData as Rego terms, one rule
// per table. conftest compiles the bundle on every run, and there a table costs far less as JSON
// text decoded by key than as Rego terms; the provider compiles the bundle once and evaluates it for
// every pool, where each evaluation would decode the entries it reads again.
func catalogAsTerms(ctx context.Context, name string) (*ast.Module, error) {
	catalog, err := CatalogData(ctx)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(catalog))
	for k := range catalog {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var src strings.Builder
	src.WriteString("package gpufleet.catalog\n")
	for _, k := range keys {
		v, err := json.Marshal(catalog[k])
		if err != nil {
			return nil, fmt.Errorf("the catalog's %s: %w", k, err)
		}
		fmt.Fprintf(&src, "\n%s := %s\n", k, v)
	}
	return ast.ParseModuleWithOpts(name, src.String(), ast.ParserOptions{RegoVersion: ast.RegoV1})
}
