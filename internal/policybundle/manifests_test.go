package policybundle_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/plandoc"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policybundle"
)

// Kubernetes autoscaler objects get the same findings wherever they are judged (#38): conftest
// --combine on the YAML manifests, conftest on a plan that holds the same objects in
// kubernetes_manifest resources, an OPA server with the signed bundle (POST /v1/data/main with the
// objects, and with the plan), and the HCP Terraform policy set on that plan. The findings name the
// objects by "<Kind>/<name>" in the manifests and by their resource address in plans: mapped, they
// are the same to the letter, on every manifest fixture.
func TestManifests_sameFindingsEverywhere(t *testing.T) {
	conftest := conftestBinary(t)
	opa := opaBinary(t)
	dir := t.TempDir()
	private, public := rsaKeys(t, dir)
	signed := filepath.Join(dir, "gpufleet.tar.gz")
	writeOPABundle(t, signed, &policybundle.Signing{Key: private, Algorithm: "RS256"})
	server := startOPA(t, signed, public)
	server.ready(t)
	hcp := filepath.Join(dir, "hcp")
	if _, err := policybundle.WriteHCP(hcp, []string{filepath.Join(policies, "examples", "policy-data.yaml")}); err != nil {
		t.Fatal(err)
	}

	files, _ := filepath.Glob(filepath.Join(policies, "testdata", "kube", "*.yaml"))
	if len(files) < 12 {
		t.Fatalf("only %d manifest fixtures", len(files))
	}
	judged := 0
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			p, err := plandoc.ReadManifests([]plandoc.ManifestFile{{Path: file, Data: raw}})
			if err != nil {
				t.Fatal(err)
			}
			objects := p.Objects()

			// conftest --combine on the manifests, its messages without the file it names
			deny, warn := conftestCombined(t, conftest, file)
			judged += len(deny) + len(warn)

			// the same objects as kubernetes_manifest resources of a plan
			addresses := map[string]string{} // plan address -> <Kind>/<name>
			var changes []any
			for i, o := range objects {
				name, _ := o["metadata"].(map[string]any)["name"].(string)
				address := fmt.Sprintf("kubernetes_manifest.o%d", i)
				addresses[address] = o["kind"].(string) + "/" + name
				changes = append(changes, map[string]any{
					"address": address, "mode": "managed", "type": "kubernetes_manifest", "name": fmt.Sprintf("o%d", i),
					"provider_name": "registry.terraform.io/hashicorp/kubernetes",
					"change":        map[string]any{"actions": []any{"create"}, "before": nil, "after": map[string]any{"manifest": o, "object": nil}, "after_unknown": map[string]any{"object": true}},
				})
			}
			plan, _ := json.Marshal(map[string]any{"format_version": "1.2", "terraform_version": "1.14.0", "planned_values": map[string]any{}, "resource_changes": changes})
			planFile := filepath.Join(t.TempDir(), "plan.json")
			if err := os.WriteFile(planFile, plan, 0o600); err != nil {
				t.Fatal(err)
			}
			named := func(fs []finding) []finding {
				out := []finding{}
				for _, f := range fs {
					if kube, ok := addresses[f.Address]; ok {
						f.Msg = strings.Replace(f.Msg, ": "+f.Address+": ", ": "+kube+": ", 1)
						f.Address = kube
					}
					out = append(out, f)
				}
				return sorted(out)
			}
			same := func(engine string, gotDeny, gotWarn []finding) {
				t.Helper()
				if !slices.Equal(gotDeny, deny) || !slices.Equal(gotWarn, warn) {
					t.Errorf("%s:\ndeny %v\nwarn %v\nconftest --combine on the manifests:\ndeny %v\nwarn %v", engine, gotDeny, gotWarn, deny, warn)
				}
			}
			planDeny, planWarn := conftestFindings(t, planFile)
			same("conftest on the plan", named(planDeny), named(planWarn))

			manifests, _ := json.Marshal(objects)
			serverDeny, serverWarn := server.decide(t, manifests)
			same("OPA server on the objects", serverDeny, serverWarn)
			serverDeny, serverWarn = server.decide(t, plan)
			same("OPA server on the plan", named(serverDeny), named(serverWarn))

			input := filepath.Join(t.TempDir(), "input.json")
			if err := os.WriteFile(input, hcpInput(t, plan), 0o600); err != nil {
				t.Fatal(err)
			}
			hcpDeny, hcpWarn := hcpEval(t, opa, hcp, input, "data.gpufleet.hcp.deny"), hcpEval(t, opa, hcp, input, "data.gpufleet.hcp.warn")
			if w, d := msgs(named(planWarn)), msgs(named(planDeny)); !slices.Equal(msgs(named(asFindings(hcpDeny))), d) || !slices.Equal(msgs(named(asFindings(hcpWarn))), w) {
				t.Errorf("HCP policy set:\ndeny %v\nwarn %v\nconftest on the plan:\ndeny %v\nwarn %v", hcpDeny, hcpWarn, d, w)
			}
		})
	}
	if judged < 20 {
		t.Fatalf("only %d findings over the manifest fixtures: the comparison proves little", judged)
	}
}

// conftestCombined are conftest --combine's failures and warnings on one manifest file, with the
// example policy data; the file a combined run names in each message and in its metadata is left
// out, as a run on that file's objects alone would report them.
func conftestCombined(t *testing.T, bin, file string) (deny, warn []finding) {
	t.Helper()
	out, err := exec.Command(bin, "test", "--no-color", "--combine", "-o", "json", "--policy", policies, "--data", filepath.Join(policies, "examples", "policy-data.yaml"), file).Output()
	var exitErr *exec.ExitError
	if err != nil && (!errors.As(err, &exitErr) || exitErr.ExitCode() != 1) {
		t.Fatalf("conftest on %s: %v: %s", file, err, out)
	}
	var results []struct {
		Failures []struct {
			Msg      string  `json:"msg"`
			Metadata finding `json:"metadata"`
		} `json:"failures"`
		Warnings []struct {
			Msg      string  `json:"msg"`
			Metadata finding `json:"metadata"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("conftest output: %v: %s", err, out)
	}
	for _, r := range results {
		for _, f := range r.Failures {
			f.Metadata.Msg = strings.Replace(f.Msg, ": "+file+": ", ": ", 1)
			deny = append(deny, f.Metadata)
		}
		for _, w := range r.Warnings {
			w.Metadata.Msg = strings.Replace(w.Msg, ": "+file+": ", ": ", 1)
			warn = append(warn, w.Metadata)
		}
	}
	return sorted(deny), sorted(warn)
}

// hcpEval is the policy set's query on HCP Terraform's input, with the pinned opa.
func hcpEval(t *testing.T, bin, dir, input, query string) []string {
	t.Helper()
	out, err := exec.Command(bin, "eval", "--format", "json", "--data", dir, "--input", input, query).Output()
	if err != nil {
		t.Fatalf("opa eval %s: %v: %s", query, err, out)
	}
	var result struct {
		Result []struct {
			Expressions []struct {
				Value []string `json:"value"`
			} `json:"expressions"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &result); err != nil || len(result.Result) != 1 || len(result.Result[0].Expressions) != 1 {
		t.Fatalf("opa eval %s: %v: %s", query, err, out)
	}
	return result.Result[0].Expressions[0].Value
}

// asFindings are policy set messages as findings whose address is the one the message names.
func asFindings(messages []string) []finding {
	var out []finding
	for _, m := range messages {
		parts := strings.SplitN(m, ": ", 3)
		f := finding{Msg: m}
		if len(parts) == 3 {
			f.Address = parts[1]
		}
		out = append(out, f)
	}
	return out
}
