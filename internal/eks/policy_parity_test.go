package eks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

const parityData = `
gpufleet:
  clients:
    acme:
      cost_center: cc-1001
      allowed_regions: ["us-*"]
      isolation: dedicated
      monthly_budget_usd: 1000000
    globex:
      cost_center: cc-2002
      allowed_regions: ["eu-*"]
      isolation: shared
      monthly_budget_usd: 1000000
`

// parityPools cover deny and warn rules of every area, each written once as a pool.Spec: the test
// renders the HCL from it and builds the provider's policy document from it.
func parityPools() []pool.Spec {
	base := func(name, client, instanceType string, w pool.Workload) pool.Spec {
		return pool.Spec{
			Cloud: catalog.AWS, ResourceType: "gpufleet_eks_node_pool", Name: name, Region: testRegion, Client: client,
			Workload: w, InstanceTypes: []string{instanceType}, Scaling: pool.Sizes{Min: 1, Max: 3, Desired: 2},
		}
	}
	train := base("train", "acme", "g5.xlarge", pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, GPUMemoryGiB: 20, Interruptible: true})
	serve := base("serve", "acme", "p5.4xlarge", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16})
	serve.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 2}
	spot := base("spotserve", "acme", "g6.xlarge", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16})
	spot.Capacity = pool.Capacity{SpotPercentage: 50}
	eu := base("eu", "globex", "g6.xlarge", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 16})
	stranger := base("stranger", "initech", "g6.xlarge", pool.Workload{Kind: pool.KindBatch, Environment: pool.EnvStaging, GPUMemoryGiB: 16})
	waived := base("waived", "acme", "g6.xlarge", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16})
	waived.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingMPS, Replicas: 2}
	waived.Waivers = map[string]string{"GF-ISO-003": "canary until 2026-12-31, owner ml-platform"}
	return []pool.Spec{train, serve, spot, eu, stranger, waived}
}

func hclFor(s pool.Spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  workload {\n    kind = %q\n    environment = %q\n    gpu_memory_gib = %g\n    interruptible = %t\n  }\n",
		s.Workload.Kind, s.Workload.Environment, s.Workload.GPUMemoryGiB, s.Workload.Interruptible)
	b.WriteString(scaling(s.Scaling.Min, s.Scaling.Desired, s.Scaling.Max))
	b.WriteString(capacity(s.Capacity.SpotPercentage, s.Capacity.OnDemandBase))
	if sh := s.GPU.Sharing; sh != nil {
		fmt.Fprintf(&b, "  gpu {\n    sharing {\n      strategy = %q\n      replicas = %d\n    }\n  }\n", sh.Strategy, sh.Replicas)
	}
	for rule, reason := range s.Waivers {
		fmt.Fprintf(&b, "  policy_waivers = { %q = %q }\n", rule, reason)
	}
	out := poolConfig(s.Name, fmt.Sprintf("[%q]", s.InstanceTypes[0]), b.String())
	return strings.Replace(out, `client         = "acme"`, fmt.Sprintf("client         = %q", s.Client), 1)
}

type finding struct{ Pool, Rule, Severity, Attribute string }

// The provider and conftest reach the same findings for the same pools: conftest reads the plan
// JSON terraform wrote, the provider's evaluator reads the document built from pool.Spec.
func TestAccEKSNodePool_policyParity(t *testing.T) {
	conftestBin := os.Getenv("GPUFLEET_CONFTEST")
	if conftestBin == "" {
		t.Skip("GPUFLEET_CONFTEST is not set (make test sets it to the pinned conftest)")
	}
	sim := startSim(t)
	dataFile := acctest.WriteFile(t, "policy-data.yaml", parityData)
	specs := parityPools()
	var cfg strings.Builder
	cfg.WriteString(providerConfig(sim, fmt.Sprintf("  policy {\n    enforcement = \"warn\"\n    data_files = [%q]\n  }\n", dataFile)))
	for _, s := range specs {
		cfg.WriteString(hclFor(s))
	}

	// conftest twice: on the plan as terraform wrote it (the bundle reads the provider's
	// policy_document) and on the same plan without policy_document (the bundle builds the document
	// from the pools' attributes, as it does while the document is unknown).
	var fromConftest, fromConftestBuilt []finding
	capture := capturePlan(func(planJSON []byte) error {
		var err error
		if fromConftest, err = runConftest(conftestBin, dataFile, planJSON); err != nil {
			return err
		}
		stripped, err := withoutPolicyDocuments(planJSON)
		if err != nil {
			return err
		}
		fromConftestBuilt, err = runConftest(conftestBin, dataFile, stripped)
		return err
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config:           cfg.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{capture}},
		}},
	})

	data, err := policy.LoadData([]string{dataFile})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := policy.New(context.Background(), policy.Options{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	var fromProvider []finding
	for _, s := range specs {
		d, err := pool.Derive(s, pool.Environment{Registry: data.Registry, DefaultTags: map[string]string{"ManagedBy": "terraform"}})
		if err != nil {
			t.Fatal(err)
		}
		findings, err := engine.Evaluate(context.Background(), pool.Document("gpufleet_eks_node_pool."+s.Name, s, &d))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			fromProvider = append(fromProvider, finding{Pool: s.Name, Rule: f.Rule, Severity: f.Severity, Attribute: f.Attribute})
		}
	}
	sortFindings(fromConftest)
	sortFindings(fromConftestBuilt)
	sortFindings(fromProvider)
	if !slices.Equal(fromConftest, fromProvider) {
		t.Fatalf("conftest and the provider disagree\nconftest: %v\nprovider: %v", fromConftest, fromProvider)
	}
	if !slices.Equal(fromConftestBuilt, fromProvider) {
		t.Fatalf("conftest building documents from plan attributes disagrees with the provider\nconftest: %v\nprovider: %v", fromConftestBuilt, fromProvider)
	}
	for _, want := range []finding{
		{"train", "GF-COST-002", "warn", "capacity.spot_percentage"},
		{"serve", "GF-ISO-003", "deny", ""},
		{"spotserve", "GF-COST-001", "deny", ""},
		{"eu", "GF-DR-001", "deny", ""},
		{"stranger", "GF-TAG-001", "deny", ""},
		{"waived", "GF-ISO-003", "warn", ""},
	} {
		if !slices.ContainsFunc(fromProvider, func(f finding) bool {
			return f.Pool == want.Pool && f.Rule == want.Rule && f.Severity == want.Severity && (want.Attribute == "" || f.Attribute == want.Attribute)
		}) {
			t.Errorf("missing %+v in %v", want, fromProvider)
		}
	}
}

func sortFindings(fs []finding) {
	slices.SortFunc(fs, func(a, b finding) int {
		return strings.Compare(a.Pool+a.Rule+a.Severity+a.Attribute, b.Pool+b.Rule+b.Severity+b.Attribute)
	})
}

// withoutPolicyDocuments removes the policy_document attribute from every resource change.
func withoutPolicyDocuments(planJSON []byte) ([]byte, error) {
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

type planCapture struct{ f func([]byte) error }

func capturePlan(f func([]byte) error) plancheck.PlanCheck { return planCapture{f} }

func (c planCapture) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	b, err := json.Marshal(req.Plan)
	if err == nil {
		err = c.f(b)
	}
	resp.Error = err
}

// runConftest runs conftest as CI does and returns its findings by pool name.
func runConftest(bin, dataFile string, planJSON []byte) ([]finding, error) {
	dir, err := os.MkdirTemp("", "gpufleet-parity-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	planFile := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(planFile, planJSON, 0o600); err != nil {
		return nil, err
	}
	out, err := exec.Command(bin, "test", "--no-color", "--output", "json", "--policy", policiesDir(), "--data", dataFile, planFile).Output()
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
	var fs []finding
	for _, r := range results {
		for _, list := range [][]conftestResult{r.Failures, r.Warnings} {
			for _, c := range list {
				if c.Metadata.Address == "" { // plan-wide notices have no pool
					continue
				}
				name := c.Metadata.Address[strings.LastIndex(c.Metadata.Address, ".")+1:]
				fs = append(fs, finding{Pool: name, Rule: c.Metadata.Rule, Severity: c.Metadata.Severity, Attribute: c.Metadata.Attribute})
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

func policiesDir() string {
	dir, _ := filepath.Abs("../../policies")
	return dir
}
