package policy_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/plandoc"
)

type expectedResult struct {
	Rule      string `json:"rule"`
	Address   string `json:"address"`
	Attribute string `json:"attribute"`
	Severity  string `json:"severity"`
}

// Every committed plan fixture (official resources and ours, compliant and violating, unknown
// values, deletes, no policy data) gives exactly the results in testdata/expected when conftest
// runs the bundle as CI does, with no builtin error (conftest --show-builtin-errors).
func TestConftest_fixtures(t *testing.T) {
	bin := os.Getenv("GPUFLEET_CONFTEST")
	if bin == "" {
		t.Skip("GPUFLEET_CONFTEST is not set (make test sets it to the pinned conftest)")
	}
	policies, _ := filepath.Abs("../../policies")
	files, err := filepath.Glob(filepath.Join(policies, "testdata", "expected", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no expected results under policies/testdata/expected: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var want struct {
				Fixture string           `json:"fixture"`
				Data    []string         `json:"data"`
				Results []expectedResult `json:"results"`
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			// --show-builtin-errors: a builtin given a value of the wrong type (null while unknown)
			// fails the run instead of passing silently, so the rules test types first.
			args := []string{"test", "--no-color", "--show-builtin-errors", "--output", "json", "--policy", policies}
			for _, d := range want.Data {
				args = append(args, "--data", filepath.Join(policies, d))
			}
			args = append(args, filepath.Join(policies, "testdata", want.Fixture))
			out, err := exec.Command(bin, args...).Output()
			var exitErr *exec.ExitError
			if err != nil && (!errors.As(err, &exitErr) || exitErr.ExitCode() != 1) {
				t.Fatalf("conftest %s: %v: %s", strings.Join(args, " "), err, out)
			}
			got := conftestResults(t, out)
			sortResults(want.Results)
			if !slices.Equal(got, want.Results) {
				t.Fatalf("conftest on %s:\ngot  %v\nwant %v", want.Fixture, got, want.Results)
			}
			if denied := slices.ContainsFunc(got, func(r expectedResult) bool { return r.Severity == "deny" }); denied != (err != nil) {
				t.Fatalf("conftest exit status (%v) does not match its deny findings (%v)", err, denied)
			}

			// The plan's documents file (gpufleet-policy documents) gets the same findings, to the
			// letter, and the same exit status.
			plan, readErr := os.Open(args[len(args)-1])
			if readErr != nil {
				t.Fatal(readErr)
			}
			defer plan.Close()
			p, readErr := plandoc.Read(plan)
			if readErr != nil {
				return // not a plan: gpufleet-policy documents refuses it (its own test)
			}
			documents := filepath.Join(t.TempDir(), "pools.json")
			f, createErr := os.Create(documents)
			if createErr != nil {
				t.Fatal(createErr)
			}
			d, buildErr := p.Build()
			if buildErr != nil {
				t.Fatal(buildErr)
			}
			if err := d.WriteFile(f, p); err != nil {
				t.Fatal(err)
			}
			f.Close()
			args[len(args)-1] = documents
			viaDocuments, docErr := exec.Command(bin, args...).Output()
			if docErr != nil && (!errors.As(docErr, &exitErr) || exitErr.ExitCode() != 1) {
				t.Fatalf("conftest %s: %v: %s", strings.Join(args, " "), docErr, viaDocuments)
			}
			if a, b := conftestMessages(t, out), conftestMessages(t, viaDocuments); !slices.Equal(a, b) || (err == nil) != (docErr == nil) {
				t.Fatalf("conftest on the documents of %s (exit %v):\n%s\non the plan (exit %v):\n%s", want.Fixture, docErr, strings.Join(b, "\n"), err, strings.Join(a, "\n"))
			}
		})
	}
}

// conftestMessages are conftest's failures and warnings, each with its metadata, sorted.
func conftestMessages(t *testing.T, out []byte) []string {
	t.Helper()
	var results []struct {
		Failures []map[string]any `json:"failures"`
		Warnings []map[string]any `json:"warnings"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("conftest output: %v: %s", err, out)
	}
	var msgs []string
	for _, r := range results {
		for kind, list := range map[string][]map[string]any{"failure": r.Failures, "warning": r.Warnings} {
			for _, f := range list {
				raw, _ := json.Marshal(f)
				msgs = append(msgs, kind+" "+string(raw))
			}
		}
	}
	slices.Sort(msgs)
	return msgs
}

func conftestResults(t *testing.T, out []byte) []expectedResult {
	t.Helper()
	var results []struct {
		Failures []struct {
			Metadata expectedResult `json:"metadata"`
		} `json:"failures"`
		Warnings []struct {
			Metadata expectedResult `json:"metadata"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("conftest output: %v: %s", err, out)
	}
	var got []expectedResult
	for _, r := range results {
		for _, f := range r.Failures {
			got = append(got, f.Metadata)
		}
		for _, w := range r.Warnings {
			got = append(got, w.Metadata)
		}
	}
	sortResults(got)
	return got
}

func sortResults(rs []expectedResult) {
	slices.SortFunc(rs, func(a, b expectedResult) int {
		return strings.Compare(a.Rule+"\x00"+a.Address+"\x00"+a.Severity+"\x00"+a.Attribute, b.Rule+"\x00"+b.Address+"\x00"+b.Severity+"\x00"+b.Attribute)
	})
}
