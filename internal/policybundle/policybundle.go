// Package policybundle packages the gpufleet policy bundle for the engines platform teams run
// policy on, each giving the same findings as conftest with policies/ on the same plan:
//
//   - the conftest bundle (WriteConftest, a directory; WriteConftestArchive, the tar.gz a release
//     publishes for `conftest pull`): the bundle's Rego without its unit tests, which conftest would
//     otherwise compile on every run;
//   - an OPA bundle archive (WriteOPA) for OPA servers: the bundle's Rego without its tests, the
//     GPU catalog and the policy data as data.json, a .manifest with its roots and revision, and,
//     given a key, .signatures.json as `opa sign` writes it (OPA's own bundle package writes and
//     signs it);
//   - an HCP Terraform / Terraform Enterprise OPA policy set (WriteHCP): policies.hcl with one
//     query per severity (deny mandatory, warn advisory), an entry point that reads the plan from
//     HCP Terraform's input.plan, the bundle's Rego and the policy data as Rego (a policy set holds
//     Rego files and policies.hcl).
//
// All carry the Rego files built into this binary (policies/ of the same release).
package policybundle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
	"github.com/gpufleet/terraform-provider-gpufleet/policies"
)

// Roots are the data paths the bundle owns: package main (the entry point conftest and OPA
// servers query) and everything under data.gpufleet (rules, catalog, policy data).
var Roots = []string{"main", "gpufleet"}

// module is one Rego file of the bundle, by its path in policies/.
type module struct {
	path string
	raw  []byte
}

// modules are the bundle's Rego files without their unit tests, in path order.
func modules() ([]module, error) {
	var out []module
	err := fs.WalkDir(policies.Bundle, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".rego") || strings.HasSuffix(path, "_test.rego") {
			return err
		}
		raw, err := policies.Bundle.ReadFile(path)
		if err != nil {
			return err
		}
		out = append(out, module{path, raw})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, err
}

// policyData is data.gpufleet of the policy data files (clients, thresholds), validated and merged
// as the provider does (policy.LoadData); nil without files.
func policyData(files []string) (map[string]any, error) {
	if len(files) == 0 {
		return nil, nil
	}
	data, err := policy.LoadData(files)
	if err != nil {
		return nil, err
	}
	g, _ := data.Raw["gpufleet"].(map[string]any)
	return g, nil
}

// Revision names what the bundle holds: the release of this binary and a digest of its Rego files
// and data, so two bundles of one revision hold the same policy.
func revision(mods []module, data []byte) string {
	h := sha256.New()
	for _, m := range mods {
		fmt.Fprintf(h, "%s\x00%d\x00", m.path, len(m.raw))
		h.Write(m.raw)
	}
	h.Write(data)
	version := "devel"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		version = info.Main.Version
	}
	return version + "+" + hex.EncodeToString(h.Sum(nil))[:16]
}
