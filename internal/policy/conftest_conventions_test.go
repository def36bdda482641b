package policy_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
)

// conftest runs the pinned conftest with the bundle (and extra policy dirs) on a fixture of
// policies/testdata with the example policy data, and returns its output and exit code.
func conftest(t *testing.T, fixture string, args ...string) (string, int) {
	t.Helper()
	bin, policies := conftestAndPolicies(t)
	all := append([]string{"test", "--no-color", "--policy", policies, "--data", filepath.Join(policies, "examples", "policy-data.yaml")}, args...)
	all = append(all, filepath.Join(policies, "testdata", fixture))
	out, err := exec.Command(bin, all...).Output()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exitErr):
		return string(out), exitErr.ExitCode()
	}
	t.Fatalf("conftest %v: %v", all, err)
	return "", 0
}

// -o sarif (code-scanning UIs): one result per finding, denies at level error, warnings at warning.
func TestConftest_sarif(t *testing.T) {
	out, code := conftest(t, "aws_eks_node_group_violating.json", "-o", "sarif")
	if code != 1 {
		t.Fatalf("exit code %d, want 1 (denies): %s", code, out)
	}
	var report struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				Level   string `json:"level"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || report.Version != "2.1.0" || len(report.Runs) != 1 {
		t.Fatalf("not SARIF 2.1.0 (%v): %s", err, out)
	}
	levels := map[string]int{}
	for _, r := range report.Runs[0].Results {
		if strings.HasPrefix(r.Message.Text, "GF-") {
			levels[r.Level]++
		}
	}
	// aws_eks_node_group_violating.json: 5 denies, 5 warnings (testdata/expected)
	if levels["error"] != 5 || levels["warning"] != 5 {
		t.Fatalf("SARIF levels %v, want 5 error and 5 warning", levels)
	}
}

// -o junit: a test case per finding, named after the message's first line, which starts with
// "<rule>: <address>". conftest v0.71.1 writes warnings as <failure> too (its JUnit output has no
// other outcome): policies/README.md says so; denies and warnings stay apart in json and sarif.
func TestConftest_junit(t *testing.T) {
	out, _ := conftest(t, "aws_eks_node_group_violating.json", "-o", "junit")
	var suites struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &suites); err != nil {
		t.Fatalf("not JUnit XML: %v: %s", err, out)
	}
	named := 0
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			if strings.Contains(c.Name, " - GF-") && strings.Contains(c.Name, ": aws_eks_node_group.") {
				named++
			}
		}
	}
	if named != 10 {
		t.Fatalf("%d test cases named '<rule>: <address>', want 10: %s", named, out)
	}
}

// gpufleet-policy junit on conftest's JSON results: a case per finding named "<rule> <address>",
// the same on every run of the same plan; denies failed, warnings passed with their message.
func TestConftest_junitFromJSON(t *testing.T) {
	out, code := conftest(t, "aws_eks_node_group_violating.json", "-o", "json")
	if code != 1 {
		t.Fatalf("exit code %d, want 1: %s", code, out)
	}
	var report bytes.Buffer
	if err := policy.JUnit(strings.NewReader(out), &report); err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name      string  `xml:"name,attr"`
				Failure   *string `xml:"failure"`
				SystemOut string  `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(report.Bytes(), &suites); err != nil {
		t.Fatalf("not JUnit XML: %v: %s", err, report.String())
	}
	// aws_eks_node_group_violating.json: 5 denies, 5 warnings (testdata/expected)
	if suites.Tests != 10 || suites.Failures != 5 || len(suites.Suites) != 1 || filepath.Base(suites.Suites[0].Name) != "aws_eks_node_group_violating.json" {
		t.Fatalf("%d tests, %d failures: %s", suites.Tests, suites.Failures, report.String())
	}
	passedWarnings := 0
	for _, c := range suites.Suites[0].Cases {
		rule, address, _ := strings.Cut(c.Name, " ")
		if !strings.HasPrefix(rule, "GF-") || !strings.HasPrefix(address, "aws_eks_node_group.") {
			t.Errorf("test case %q is not named <rule> <address>", c.Name)
		}
		if c.Failure == nil && strings.HasPrefix(c.SystemOut, "WARN "+rule+": "+address+": ") {
			passedWarnings++
		}
	}
	if passedWarnings != 5 {
		t.Errorf("%d warnings passed with their message, want 5: %s", passedWarnings, report.String())
	}
}

// A namespace that is not the entry point (main) fails loudly instead of passing the plan.
func TestConftest_namespaceOtherThanMain(t *testing.T) {
	for _, ns := range []string{"gpufleet.rules", "gpufleet.findings"} {
		out, code := conftest(t, "gpufleet_compliant.json", "--namespace", ns)
		if code != 1 || !strings.Contains(out, "GF-INPUT-002") {
			t.Errorf("--namespace %s: exit code %d: %s", ns, code, out)
		}
	}
}

// --all-namespaces asks every package, and every rule named deny*, warn* or violation* in it: the
// plan fails with GF-INPUT-002 (the packages that judge one document), not with conftest's own
// error about a result without "msg".
func TestConftest_allNamespaces(t *testing.T) {
	out, code := conftest(t, "gpufleet_compliant.json", "--all-namespaces")
	if code != 1 || !strings.Contains(out, "GF-INPUT-002") || strings.Contains(out, "must be present") {
		t.Errorf("--all-namespaces: exit code %d: %s", code, out)
	}
}

// A custom rule whose results are malformed is a deny naming it, never dropped.
func TestConftest_malformedCustomRule(t *testing.T) {
	custom, _ := filepath.Abs("testdata/malformed_rule")
	out, code := conftest(t, "gpufleet_compliant.json", "--policy", custom, "-o", "json")
	if code != 1 {
		t.Fatalf("exit code %d, want 1: %s", code, out)
	}
	var results []struct {
		Failures []struct {
			Msg string `json:"msg"`
		} `json:"failures"`
		Warnings []struct {
			Msg string `json:"msg"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &results); err != nil || len(results) != 1 {
		t.Fatalf("conftest output (%v): %s", err, out)
	}
	var failures, warnings []string
	for _, f := range results[0].Failures {
		failures = append(failures, f.Msg)
	}
	for _, w := range results[0].Warnings {
		warnings = append(warnings, w.Msg)
	}
	for _, want := range []string{`GF-RULE-001: gpufleet_eks_node_pool.acme_train: a rule of data.gpufleet.rules (rule unknown) returned "ACME-001: no GPU pools in ap-*"`, `(ACME-002) returned`, `(ACME-003) returned`} {
		if !slices.ContainsFunc(failures, func(m string) bool { return strings.Contains(m, want) }) {
			t.Errorf("no failure with %s in %s", want, out)
		}
	}
	// The malformed warn result is a failure only; the well-formed one a warning.
	if slices.ContainsFunc(warnings, func(m string) bool { return strings.Contains(m, "ACME-003") }) ||
		!slices.Contains(warnings, "ACME-004: gpufleet_eks_node_pool.acme_train: eu pools are reviewed monthly") {
		t.Errorf("warnings %q: want ACME-004, and ACME-003 only as a failure", warnings)
	}
}
