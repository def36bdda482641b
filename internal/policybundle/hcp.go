package policybundle

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
)

// The HCP Terraform / Terraform Enterprise OPA policy set. HCP Terraform evaluates each policy's
// query with OPA and passes one input document: the run's plan as `terraform show -json` writes it
// under input.plan, and the run's metadata (workspace, organization, …) under input.run; a query
// must return an array, and an empty array passes ("Define OPA policies for HCP Terraform", OPA
// input and OPA query: developer.hashicorp.com/terraform/cloud-docs/policy-enforcement/define-policies/opa).
// The entry point judges input.plan exactly as conftest judges the plan file, and returns the
// findings' messages; input.run is not read (the findings depend on the plan alone, as in CI).
const hcpEntryPoint = `# HCP Terraform / Terraform Enterprise entry point of the gpufleet bundle (written by
# gpufleet-policy bundle --format hcp; policies.hcl names its queries).
#
# HCP Terraform passes {"plan": <terraform show -json of the run's plan>, "run": {...}}; the
# bundle's entry point (package main) judges the plan as conftest does, and each query returns
# the sorted messages of one severity: deny (policy gpufleet_deny, mandatory) and warn
# (gpufleet_warn, advisory). An input without a plan object is a deny naming the shape expected.
package gpufleet.hcp

import data.main

deny := sort([f.msg | some f in findings]) if {
	is_object(input.plan)
	findings := main.deny with input as input.plan
} else := ["GF-INPUT-001: the input has no plan object (input.plan): the gpufleet policy set reads HCP Terraform's OPA input, {\"plan\": <terraform show -json>, \"run\": {...}}"]

warn := sort([f.msg | some f in findings]) if {
	is_object(input.plan)
	findings := main.warn with input as input.plan
} else := []
`

// HCPPolicies are the policies of policies.hcl: name, query and enforcement level.
var HCPPolicies = []struct{ Name, Query, EnforcementLevel, Description string }{
	{"gpufleet_deny", "data.gpufleet.hcp.deny", "mandatory", "gpufleet deny findings (conftest failures): GPU pools that break right-sizing, isolation, data-residency, cost or tagging rules"},
	{"gpufleet_warn", "data.gpufleet.hcp.warn", "advisory", "gpufleet warn findings (conftest warnings): waived denies, savings, pools the bundle could not judge"},
}

// WriteHCP writes the policy set into dir (which must be empty or absent): policies.hcl, the
// entry point gpufleet/hcp.rego, the bundle's Rego files without tests, and the policy data of
// dataFiles as gpufleet/policy_data.rego (package gpufleet: clients, thresholds, …). It returns the
// revision, as WriteOPA names it.
func WriteHCP(dir string, dataFiles []string) (string, error) {
	mods, err := modules()
	if err != nil {
		return "", err
	}
	gpufleet, err := policyData(dataFiles)
	if err != nil {
		return "", err
	}
	files := map[string][]byte{"gpufleet/hcp.rego": []byte(hcpEntryPoint)}
	var data []byte
	if gpufleet != nil {
		src := "# Policy data of the gpufleet bundle, written by gpufleet-policy bundle --format hcp from\n# " + fmt.Sprint(dataFiles) + " (a policy set holds Rego, not data files). Each key is\n# json.unmarshal of the data, so that rules reading keys a file leaves out (a threshold at its\n# default) type-check as they do against data.\npackage gpufleet\n"
		for _, key := range slices.Sorted(maps.Keys(gpufleet)) {
			raw, err := json.Marshal(gpufleet[key])
			if err != nil {
				return "", err
			}
			quoted, err := json.Marshal(string(raw))
			if err != nil {
				return "", err
			}
			src += fmt.Sprintf("\n%s := json.unmarshal(%s)\n", key, quoted)
		}
		formatted, err := format.SourceWithOpts("policy_data.rego", []byte(src), format.Opts{RegoVersion: ast.RegoV1})
		if err != nil {
			return "", err
		}
		files["gpufleet/policy_data.rego"] = formatted
		data = formatted
	}
	rev := revision(append(mods, module{"gpufleet/hcp.rego", []byte(hcpEntryPoint)}), data)
	hcl := fmt.Sprintf("# gpufleet policy set %s, written by gpufleet-policy bundle --format hcp.\n", rev)
	for _, p := range HCPPolicies {
		hcl += fmt.Sprintf("\npolicy %q {\n  query             = %q\n  enforcement_level = %q\n  description       = %q\n}\n", p.Name, p.Query, p.EnforcementLevel, p.Description)
	}
	files["policies.hcl"] = []byte(hcl)
	if err := WriteConftest(dir); err != nil {
		return "", err
	}
	for path, raw := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(path)), raw, 0o644); err != nil {
			return "", err
		}
	}
	return rev, nil
}
