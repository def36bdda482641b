package policybundle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
)

// Signing signs an OPA bundle as `opa sign` / `opa build --signing-key` do: a JWT in
// .signatures.json over the SHA-256 digests of every file, with the key id in its claims.
type Signing struct {
	// Key is a PEM private key (RS*, PS*, ES*) or the shared secret (HS*).
	Key string
	// Algorithm is the JWT algorithm, such as RS256 or HS256.
	Algorithm string
	// KeyID names the key the server verifies with (opa run --verification-key-id; the keys
	// section of OPA's configuration); "default" when empty, as OPA's.
	KeyID string
}

// DecisionDeny and DecisionWarn are the decision paths of the OPA bundle: POST the plan's JSON as
// input to /v1/data/main/deny and /v1/data/main/warn (or /v1/data/main for both) and get the
// findings conftest reports as failures and warnings, objects {msg, rule, address, attribute,
// severity}.
const (
	DecisionDeny = "main/deny"
	DecisionWarn = "main/warn"
)

// WriteOPA writes the OPA bundle archive (tar.gz): the bundle's Rego without its tests, the
// catalog and the policy data of dataFiles as data.json, a .manifest (roots main and gpufleet,
// the revision, Rego v1) and, with signing, .signatures.json. It returns the revision.
func WriteOPA(ctx context.Context, w io.Writer, dataFiles []string, signing *Signing) (string, error) {
	mods, err := modules()
	if err != nil {
		return "", err
	}
	catalog, err := policy.CatalogData(ctx)
	if err != nil {
		return "", fmt.Errorf("the catalog: %w", err)
	}
	gpufleet, err := policyData(dataFiles)
	if err != nil {
		return "", err
	}
	if gpufleet == nil {
		gpufleet = map[string]any{}
	}
	gpufleet["catalog"] = catalog
	data := map[string]any{"gpufleet": gpufleet}
	raw, err := json.Marshal(data)
	if err != nil {
		return "", err
	}
	var b bundle.Bundle
	for _, m := range mods {
		if m.path == policy.CatalogModule {
			continue // carried as data
		}
		parsed, err := ast.ParseModuleWithOpts(m.path, string(m.raw), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return "", err
		}
		b.Modules = append(b.Modules, bundle.ModuleFile{URL: "/" + m.path, Path: "/" + m.path, Raw: m.raw, Parsed: parsed})
	}
	// data.json as OPA reads it back (numbers as json.Number), so that the digests signed are those
	// of the file written.
	if err := json.Unmarshal(raw, &b.Data); err != nil {
		return "", err
	}
	roots := append([]string(nil), Roots...)
	b.Manifest.Roots = &roots
	b.Manifest.Revision = revision(mods, raw)
	b.Manifest.SetRegoVersion(ast.RegoV1)
	if signing != nil {
		keyID := signing.KeyID
		if keyID == "" {
			keyID = "default"
		}
		if err := b.GenerateSignature(bundle.NewSigningConfig(signing.Key, signing.Algorithm, ""), keyID, false); err != nil {
			// OPA reads the key as a file when one of that name exists, and its errors quote the
			// name (stat <key>: file name too long): never the key itself.
			return "", fmt.Errorf("signing the bundle: %s", strings.ReplaceAll(err.Error(), signing.Key, "<signing key>"))
		}
	}
	if err := bundle.NewWriter(w).Write(b); err != nil {
		return "", err
	}
	return b.Manifest.Revision, nil
}
