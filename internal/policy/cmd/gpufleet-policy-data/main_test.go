package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const example = "../../../../policies/examples/policy-data.yaml"

func writeBad(t *testing.T) string {
	t.Helper()
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("gpufleet:\n  clients:\n    acme: { cost_centre: cc-1, allowed_regions: [] }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return bad
}

func TestRun(t *testing.T) {
	bad := writeBad(t)
	cases := map[string]struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		"valid": {[]string{"validate", example}, 0, "1 policy data file(s) valid\n", ""},
		"second file bad": {[]string{"validate", example, bad}, 1, "", fmt.Sprintf(
			"policy data file %[1]q: gpufleet.clients.acme.allowed_regions: has 0 entries, needs at least 1 (omit the key instead of an empty list)\n"+
				"policy data file %[1]q: gpufleet.clients.acme.cost_centre: unknown key; allowed: allowed_regions, cost_center, isolation, monthly_budget_usd\n", bad)},
		"no files":        {[]string{"validate"}, 2, "", usage},
		"unknown command": {[]string{"check", example}, 2, "", usage},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if stdout.String() != tc.stdout || stderr.String() != tc.stderr {
				t.Errorf("stdout %q, stderr %q\nwant %q, %q", stdout.String(), stderr.String(), tc.stdout, tc.stderr)
			}
		})
	}
}

// The documented command for CI: make policy-data-check DATA=<files> fails on a bad file and
// prints its problems.
func TestMakePolicyDataCheck(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	bad := writeBad(t)
	out, err := exec.Command("make", "-s", "-C", "../../../..", "policy-data-check", "DATA="+bad).CombinedOutput()
	if exit := (*exec.ExitError)(nil); !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("make exited with %v, want make's failure code 2:\n%s", err, out)
	}
	want := fmt.Sprintf("policy data file %q: gpufleet.clients.acme.cost_centre: unknown key; allowed: allowed_regions, cost_center, isolation, monthly_budget_usd", bad)
	if !strings.Contains(string(out), want) {
		t.Errorf("output\n%s\nlacks\n%s", out, want)
	}
	if out, err := exec.Command("make", "-s", "-C", "../../../..", "policy-data-check").CombinedOutput(); err != nil {
		t.Errorf("the example data: %v\n%s", err, out)
	}
}
