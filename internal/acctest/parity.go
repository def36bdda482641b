package acctest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Policy parity: the provider and conftest reach the same findings for the same pools. conftest
// reads the plan JSON terraform wrote; the provider's evaluator reads the document built from
// pool.Spec. The pool resources' parity tests share these helpers.

// Finding is one policy finding, by pool name.
type Finding struct{ Pool, Rule, Severity, Attribute string }

// ProviderFindings evaluates each spec as the provider does at plan time, with the policy data file.
func ProviderFindings(t *testing.T, dataFile string, defaultTags map[string]string, specs []pool.Spec) []Finding {
	t.Helper()
	return ProviderFindingsWith(t, dataFile, defaultTags, specs, pool.Derive)
}

// ProviderFindingsWith is ProviderFindings for a resource that derives its pools its own way (a
// ComputeClass's ladder).
func ProviderFindingsWith(t *testing.T, dataFile string, defaultTags map[string]string, specs []pool.Spec, derive func(pool.Spec, pool.Environment) (pool.Derived, error)) []Finding {
	t.Helper()
	data, err := policy.LoadData([]string{dataFile})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := policy.New(context.Background(), policy.Options{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	var out []Finding
	for _, s := range specs {
		d, err := derive(s, pool.Environment{Registry: data.Registry, DefaultTags: defaultTags})
		if err != nil {
			t.Fatal(err)
		}
		findings, err := engine.Evaluate(context.Background(), pool.Document(s.ResourceType+"."+s.Name, s, &d))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			out = append(out, Finding{Pool: s.Name, Rule: f.Rule, Severity: f.Severity, Attribute: f.Attribute})
		}
	}
	return out
}

// ParityCheck returns a plan check that runs conftest twice on the plan: as terraform wrote it (the
// bundle reads the provider's policy_document) and without policy_document (the bundle builds the
// document from the pools' attributes, as it does while the document is unknown). The results land
// in fromPlan and fromAttributes.
func ParityCheck(bin, dataFile string, fromPlan, fromAttributes *[]Finding) plancheck.PlanCheck {
	return CapturePlan(func(planJSON []byte) error {
		var err error
		if *fromPlan, err = Conftest(bin, dataFile, planJSON); err != nil {
			return err
		}
		stripped, err := WithoutPolicyDocuments(planJSON)
		if err != nil {
			return err
		}
		*fromAttributes, err = Conftest(bin, dataFile, stripped)
		return err
	})
}

// RequireParity fails t unless both conftest runs found what the provider found, and the provider
// found every finding in want (an empty Attribute matches any).
func RequireParity(t *testing.T, fromPlan, fromAttributes, fromProvider, want []Finding) {
	t.Helper()
	sortFindings(fromPlan)
	sortFindings(fromAttributes)
	sortFindings(fromProvider)
	if !slices.Equal(fromPlan, fromProvider) {
		t.Fatalf("conftest and the provider disagree\nconftest: %v\nprovider: %v", fromPlan, fromProvider)
	}
	if !slices.Equal(fromAttributes, fromProvider) {
		t.Fatalf("conftest building documents from plan attributes disagrees with the provider\nconftest: %v\nprovider: %v", fromAttributes, fromProvider)
	}
	for _, w := range want {
		if !slices.ContainsFunc(fromProvider, func(f Finding) bool {
			return f.Pool == w.Pool && f.Rule == w.Rule && f.Severity == w.Severity && (w.Attribute == "" || f.Attribute == w.Attribute)
		}) {
			t.Errorf("missing %+v in %v", w, fromProvider)
		}
	}
}

func sortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int {
		return strings.Compare(a.Pool+a.Rule+a.Severity+a.Attribute, b.Pool+b.Rule+b.Severity+b.Attribute)
	})
}

// WithoutPolicyDocuments removes the policy_document attribute from every resource change.
func WithoutPolicyDocuments(planJSON []byte) ([]byte, error) {
	var plan map[string]any
	if err := json.Unmarshal(planJSON, &plan); err != nil {
		return nil, err
	}
	changes, _ := plan["resource_changes"].([]any)
	for _, rc := range changes {
		change, _ := rc.(map[string]any)["change"].(map[string]any)
		for _, key := range []string{"after", "after_unknown", "after_sensitive"} {
			if m, ok := change[key].(map[string]any); ok {
				delete(m, "policy_document")
			}
		}
	}
	return json.Marshal(plan)
}

// CapturePlan hands the plan JSON terraform wrote to f, as a plan check.
type planCapture struct{ f func([]byte) error }

func CapturePlan(f func([]byte) error) plancheck.PlanCheck { return planCapture{f} }

func (c planCapture) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	b, err := json.Marshal(req.Plan)
	if err == nil {
		err = c.f(b)
	}
	resp.Error = err
}

// Conftest runs conftest as CI does and returns its findings by pool name.
func Conftest(bin, dataFile string, planJSON []byte) ([]Finding, error) {
	dir, err := os.MkdirTemp("", "gpufleet-parity-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	planFile := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(planFile, planJSON, 0o600); err != nil {
		return nil, err
	}
	out, err := exec.Command(bin, "test", "--no-color", "--output", "json", "--policy", PoliciesDir(), "--data", dataFile, planFile).Output()
	var exitErr *exec.ExitError
	if err != nil && (!errors.As(err, &exitErr) || exitErr.ExitCode() != 1) { // 1 = failures found
		return nil, fmt.Errorf("conftest: %w: %s", err, out)
	}
	var results []struct {
		Warnings []conftestResult `json:"warnings"`
		Failures []conftestResult `json:"failures"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		return nil, fmt.Errorf("conftest output: %w: %s", err, out)
	}
	var fs []Finding
	for _, r := range results {
		for _, list := range [][]conftestResult{r.Failures, r.Warnings} {
			for _, c := range list {
				if c.Metadata.Address == "" { // plan-wide notices have no pool
					continue
				}
				name := c.Metadata.Address[strings.LastIndex(c.Metadata.Address, ".")+1:]
				fs = append(fs, Finding{Pool: name, Rule: c.Metadata.Rule, Severity: c.Metadata.Severity, Attribute: c.Metadata.Attribute})
			}
		}
	}
	return fs, nil
}

type conftestResult struct {
	Msg      string `json:"msg"`
	Metadata struct {
		Rule      string `json:"rule"`
		Address   string `json:"address"`
		Attribute string `json:"attribute"`
		Severity  string `json:"severity"`
	} `json:"metadata"`
}

// PoliciesDir is the bundle, from a package directory under internal/.
func PoliciesDir() string {
	dir, _ := filepath.Abs("../../policies")
	return dir
}

// PolicyParityTest is the parity test both pool resources run: the pools of specs, rendered by hcl
// under providerBlock(extra), planned with the policy data; conftest on the plan (with and without
// the provider's policy_document) must find exactly what the provider finds, and want among it.
func PolicyParityTest(t *testing.T, checkDestroy func(*terraform.State) error, providerBlock func(extra string) string,
	data string, defaultTags map[string]string, specs []pool.Spec, hcl func(pool.Spec) string, want []Finding) {
	t.Helper()
	conftestBin := os.Getenv("GPUFLEET_CONFTEST")
	if conftestBin == "" {
		t.Skip("GPUFLEET_CONFTEST is not set (make test sets it to the pinned conftest)")
	}
	dataFile := WriteFile(t, "policy-data.yaml", data)
	var cfg strings.Builder
	cfg.WriteString(providerBlock(fmt.Sprintf("  policy {\n    enforcement = \"warn\"\n    data_files = [%q]\n  }\n", dataFile)))
	for _, s := range specs {
		cfg.WriteString(hcl(s))
	}
	var fromPlan, fromAttributes []Finding
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: ProviderFactories,
		CheckDestroy:             checkDestroy,
		Steps: []resource.TestStep{{
			Config:           cfg.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{ParityCheck(conftestBin, dataFile, &fromPlan, &fromAttributes)}},
		}},
	})
	RequireParity(t, fromPlan, fromAttributes, ProviderFindings(t, dataFile, defaultTags, specs), want)
}

// PolicySteps are the policy steps both pool resources run on the pool at addr, whose
// configuration config renders with extra provider and pool settings: a deny fails the plan at the
// attribute with no cloud call (calls counts them); a waiver turns it into a warning, and
// policy_findings records the waived deny as a warning that names the waiver; enforcement = "warn"
// lets the pool through, and policy_findings still says the rule denies it.
func PolicySteps(t *testing.T, addr string, calls func() int, config func(providerExtra, poolExtra string) string) []resource.TestStep {
	finding := func(severity, message string) knownvalue.Check {
		return knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
			"rule":      knownvalue.StringExact("GF-ISO-003"),
			"severity":  knownvalue.StringExact(severity),
			"attribute": knownvalue.StringExact("gpu.sharing.strategy"),
			"message":   knownvalue.StringRegexp(regexp.MustCompile(message)),
		})})
	}
	return []resource.TestStep{
		{
			Config:      config("", ""),
			ExpectError: ExpectErrorParts("GF-ISO-003", "gpu.sharing"),
		},
		{
			PreConfig: func() {
				if n := calls(); n != 0 {
					t.Fatalf("a denied plan reached the cloud: %d calls", n)
				}
			},
			Config: config("", "  policy_waivers = { \"GF-ISO-003\" = \"shared dev-prod canary, owner ml-platform, ends 2026-12-31\" }\n"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_waivers").AtMapKey("GF-ISO-003"), knownvalue.StringRegexp(regexp.MustCompile("canary"))),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), finding("warn", `^GF-ISO-003: .*\(waived: shared dev-prod canary`)),
			},
		},
		{
			Config: config("  policy {\n    enforcement = \"warn\"\n  }\n", ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), finding("deny", `^GF-ISO-003: .*no memory or fault isolation`)),
			}},
		},
	}
}

// SharingInProduction is a workload and gpu block that GF-ISO-003 denies: time-slicing in production.
const SharingInProduction = `
  workload {
    kind           = "inference"
    environment    = "production"
    gpu_memory_gib = 4
  }
  gpu {
    sharing {
      strategy = "time-slicing"
      replicas = 4
    }
  }
`
