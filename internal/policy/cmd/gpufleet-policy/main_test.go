package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
		"no command":      {nil, 2, "", usage},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, strings.NewReader(""), &stdout, &stderr); code != tc.code {
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

const fixtures = "../../../../policies/testdata/"

// documents writes a documents file that holds the plan's pools under their addresses; input that
// is not a plan fails with what it is, and nothing on standard output.
func TestRun_documents(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pools.json")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"documents", "-o", out, fixtures + "aws_eks_node_group_compliant.json"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Header map[string]any `json:"gpufleet_pool_documents"`
		Pools  [][2]any       `json:"pools"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
	if file.Header["version"] != 1.0 || len(file.Pools) == 0 {
		t.Fatalf("header %v, %d pools", file.Header, len(file.Pools))
	}
	for _, p := range file.Pools {
		if doc := p[1].(map[string]any); doc["address"] != p[0] || doc["resource_type"] != "aws_eks_node_group" {
			t.Errorf("pool %v: address %v, resource_type %v", p[0], doc["address"], doc["resource_type"])
		}
	}

	stdout.Reset()
	plan, _ := os.ReadFile(fixtures + "aws_eks_node_group_compliant.json")
	if code := run([]string{"documents", "-"}, bytes.NewReader(plan), &stdout, &stderr); code != 0 || !bytes.Equal(stdout.Bytes(), raw) {
		t.Errorf("from standard input: exit code %d, output differs from the file's: %v", code, !bytes.Equal(stdout.Bytes(), raw))
	}

	for name, tc := range map[string]struct{ file, want string }{
		"state":   {"not_a_plan_state.json", "not_a_plan_state.json: the input is Terraform state (terraform show -json without a plan file), not a plan; run it on the JSON of a plan: terraform show -json plan.out > plan.json\n"},
		"empty":   {"not_a_plan_empty.json", "not_a_plan_empty.json: the input has no format_version: it is not the JSON of a Terraform plan; run it on the JSON of a plan: terraform show -json plan.out > plan.json\n"},
		"missing": {"no_such_file.json", "open ../../../../policies/testdata/no_such_file.json: no such file or directory\n"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run([]string{"documents", fixtures + tc.file}, nil, &stdout, &stderr); code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			if got := strings.TrimPrefix(stderr.String(), fixtures); stdout.Len() > 0 || got != tc.want {
				t.Errorf("stdout %q, stderr %q, want %q", stdout.String(), got, tc.want)
			}
		})
	}
	if code := run([]string{"documents"}, nil, &stdout, &stderr); code != 2 {
		t.Errorf("no plan: exit code %d, want 2", code)
	}
}

// junit turns conftest's JSON results into JUnit; what is not conftest's JSON fails.
func TestRun_junit(t *testing.T) {
	results := `[{"filename": "plan.json", "namespace": "main", "successes": 3,
  "failures": [{"msg": "GF-ISO-001: aws_eks_node_group.x: no taint", "metadata": {"rule": "GF-ISO-001", "address": "aws_eks_node_group.x", "severity": "deny"}}],
  "warnings": [{"msg": "GF-DATA-001: no registry", "metadata": {"rule": "GF-DATA-001", "address": "", "severity": "warn"}}, {"msg": "custom check\nsecond line"}]},
 {"filename": "other.json", "namespace": "main", "successes": 4}]`
	var stdout, stderr bytes.Buffer
	if code := run([]string{"junit"}, strings.NewReader(results), &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	for _, want := range []string{
		`<testsuites name="gpufleet" tests="4" failures="1">`,
		`<testsuite name="plan.json" tests="3" failures="1">`,
		`<testcase name="GF-ISO-001 aws_eks_node_group.x" classname="conftest.main">`,
		`<failure message="GF-ISO-001: aws_eks_node_group.x: no taint" type="deny">GF-ISO-001: aws_eks_node_group.x: no taint</failure>`,
		`<testcase name="GF-DATA-001" classname="conftest.main">`,
		`<system-out>WARN GF-DATA-001: no registry</system-out>`,
		`<testcase name="custom check" classname="conftest.main">`,
		`<testcase name="no findings" classname="conftest.main">`,
		`<system-out>4 checks passed</system-out>`,
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("no %s in\n%s", want, stdout.String())
		}
	}
	stdout.Reset()
	if code := run([]string{"junit"}, strings.NewReader("FAIL - plan.json - main - text output"), &stdout, &stderr); code != 1 || stdout.Len() > 0 {
		t.Errorf("text input: exit code %d, output %q", code, stdout.String())
	}
}

// bundle writes the bundle's Rego files without tests, replaces a directory it wrote before (an
// older release's file does not stay behind), and refuses a directory it did not write.
func TestRun_bundle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gpufleet-policies")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"bundle", "-o", dir}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	var files []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, rel)
		}
		return err
	})
	for _, want := range []string{"main.rego", "gpufleet/documents.rego", "gpufleet/rules/residency.rego", "gpufleet/catalog.rego", ".gpufleet-policy-bundle"} {
		if !slices.Contains(files, filepath.FromSlash(want)) {
			t.Errorf("no %s in %v", want, files)
		}
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.rego") || (!strings.HasSuffix(f, ".rego") && f != ".gpufleet-policy-bundle") {
			t.Errorf("%s is in the bundle", f)
		}
	}

	stale := filepath.Join(dir, "gpufleet", "rules", "removed_in_this_release.rego")
	if err := os.WriteFile(stale, []byte("package gpufleet.rules\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"bundle", "-o", dir}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("again: exit code %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file of the earlier bundle stayed: %v", err)
	}

	// -o FILE.tar.gz: the same files as an archive (policybundle's test pulls it with conftest)
	archive := filepath.Join(t.TempDir(), "gpufleet-policies_0.0.0.tar.gz")
	stdout.Reset()
	if code := run([]string{"bundle", "-o", archive}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "wrote the conftest bundle archive") {
		t.Fatalf("archive: exit code %d: %s%s", code, stdout.String(), stderr.String())
	}
	inArchive := tarFiles(t, archive)
	maps.DeleteFunc(inArchive, func(name string, _ []byte) bool { return strings.HasSuffix(name, "/") }) // directories
	for _, f := range files {
		if f == ".gpufleet-policy-bundle" {
			continue
		}
		if _, ok := inArchive[filepath.ToSlash(f)]; !ok {
			t.Errorf("no %s in the archive: %v", f, slices.Collect(maps.Keys(inArchive)))
		}
	}
	if len(inArchive) != len(files)-1 {
		t.Errorf("the archive holds %d files, the directory %d besides its marker", len(inArchive), len(files)-1)
	}

	mine := t.TempDir()
	own := filepath.Join(mine, "my_rules.rego")
	if err := os.WriteFile(own, []byte("package gpufleet.rules\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run([]string{"bundle", "-o", mine}, nil, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "was not written by gpufleet-policy bundle") {
		t.Errorf("a directory of someone else's: exit code %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(own); err != nil {
		t.Errorf("the directory's own file is gone: %v", err)
	}
}

// bundle --format opa writes an OPA bundle archive (manifest, data.json with the catalog and the
// policy data, .signatures.json with a key); --format hcp a policy set; flags that do not fit the
// format are usage errors.
func TestRun_bundleFormats(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "gpufleet.tar.gz")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"bundle", "--format", "opa", "-o", archive, "--data", example, "--signing-key", "a-shared-secret", "--signing-alg", "HS256", "--signing-key-id", "ci"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	files := tarFiles(t, archive)
	for _, name := range []string{"/.manifest", "/.signatures.json", "/data.json", "/main.rego", "/gpufleet/rules/residency.rego"} {
		if _, ok := files[name]; !ok {
			t.Errorf("no %s in the archive: %v", name, slices.Collect(maps.Keys(files)))
		}
	}
	for name := range files {
		if strings.HasSuffix(name, "_test.rego") || name == "/gpufleet/catalog.rego" {
			t.Errorf("%s in the archive (tests stay out; the catalog is data)", name)
		}
	}
	var manifest struct {
		Revision string   `json:"revision"`
		Roots    []string `json:"roots"`
	}
	var data struct {
		GPUFleet struct {
			Catalog map[string]any `json:"catalog"`
			Clients map[string]any `json:"clients"`
		} `json:"gpufleet"`
	}
	if err := errors.Join(json.Unmarshal(files["/.manifest"], &manifest), json.Unmarshal(files["/data.json"], &data)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(manifest.Roots, []string{"main", "gpufleet"}) || !strings.Contains(stdout.String(), manifest.Revision) || manifest.Revision == "" {
		t.Errorf("manifest %+v, stdout %q", manifest, stdout.String())
	}
	if data.GPUFleet.Catalog["aws_instance_types"] == nil || data.GPUFleet.Clients["acme"] == nil {
		t.Errorf("data.json lacks the catalog or the policy data")
	}

	set := filepath.Join(dir, "policy-set")
	stdout.Reset()
	if code := run([]string{"bundle", "--format", "hcp", "-o", set, "--data", example}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	for _, name := range []string{"policies.hcl", "gpufleet/hcp.rego", "gpufleet/policy_data.rego", "gpufleet/catalog.rego", "main.rego"} {
		if _, err := os.Stat(filepath.Join(set, name)); err != nil {
			t.Error(err)
		}
	}

	for name, args := range map[string][]string{
		"unknown format":          {"bundle", "--format", "wasm", "-o", filepath.Join(dir, "x")},
		"signing a directory":     {"bundle", "-o", filepath.Join(dir, "y"), "--signing-key", "k"},
		"data for conftest":       {"bundle", "-o", filepath.Join(dir, "z"), "--data", example},
		"algorithm without a key": {"bundle", "--format", "opa", "-o", filepath.Join(dir, "b.tar.gz"), "--signing-alg", "HS256"},
	} {
		stderr.Reset()
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("%s: exit code %d, stderr %q", name, code, stderr.String())
		}
	}
	stderr.Reset()
	if code := run([]string{"bundle", "--format", "opa", "-o", filepath.Join(dir, "bad.tar.gz"), "--data", writeBad(t)}, strings.NewReader(""), &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "cost_centre") {
		t.Errorf("bad policy data: exit code %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.tar.gz")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed run left %s behind", filepath.Join(dir, "bad.tar.gz"))
	}
}

func tarFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = raw
	}
}

// documents reads Kubernetes manifests too (#38): every file's objects together, a NodePool joined
// with its node class in another file, the cluster registry of --data placing the pools that name
// no zone; a YAML document that is not a Kubernetes object is refused, naming the file.
func TestRun_documentsOfManifests(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	nodePool := write("nodepool.yaml", `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    metadata: {labels: {gpufleet.io/client: acme}}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [g6.xlarge]}
  limits: {nvidia.com/gpu: "4"}
---
`)
	nodeClass := write("nodeclass.yaml", `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: gpu, labels: {gpufleet.io/cluster: ml-prod-eu}}
spec: {tags: {gpufleet:cost-center: cc-1001}}
`)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"documents", "--data", "../../../../policies/examples/policy-data.yaml", nodePool, nodeClass}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var file struct {
		Pools [][2]json.RawMessage `json:"pools"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &file); err != nil || len(file.Pools) != 1 {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	var doc struct {
		Address string            `json:"address"`
		Region  string            `json:"region"`
		Tags    map[string]string `json:"tags"`
	}
	if err := json.Unmarshal(file.Pools[0][1], &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Address != "NodePool/gpu" || doc.Region != "eu-west-1" || doc.Tags["gpufleet:cost-center"] != "cc-1001" {
		t.Fatalf("document %+v", doc)
	}
	// The file of each pool, which its findings name, as a combined run's do.
	var files struct {
		Files map[string]string `json:"files"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &files); err != nil || !maps.Equal(files.Files, map[string]string{"NodePool/gpu": nodePool}) {
		t.Fatalf("files %v (%v)", files.Files, err)
	}
	want := strings.Replace(stdout.String(), strings.Trim(jsonString(t, nodePool), `"`), "ml/karpenter/gpu.yaml", 1)
	// From standard input (helm template … | gpufleet-policy documents -), named "-" as conftest names it.
	raw, err := os.ReadFile(nodePool)
	if err != nil {
		t.Fatal(err)
	}
	var piped bytes.Buffer
	files.Files = nil
	if code := run([]string{"documents", "-"}, bytes.NewReader(raw), &piped, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	} else if err := json.Unmarshal(piped.Bytes(), &files); err != nil || !maps.Equal(files.Files, map[string]string{"NodePool/gpu": "-"}) {
		t.Fatalf("files of standard input %v (%v)", files.Files, err)
	}

	// A directory, as conftest test takes one: its .yaml, .yml and .json files at any depth, the
	// rest passed over; the same documents as of its files given one by one, under its paths.
	repo := filepath.Join(dir, "repo")
	for name, from := range map[string]string{"ml/karpenter/gpu.yaml": nodePool, "ml/classes/gpu.yml": nodeClass} {
		raw, err := os.ReadFile(from)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(repo, name), raw, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("# not a manifest\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	data, _ := filepath.Abs(example)
	t.Chdir(repo) // the files named as conftest names them: ml/…
	if code := run([]string{"documents", "--data", data, "ml/"}, nil, &stdout, &stderr); code != 0 || stdout.String() != want {
		t.Fatalf("exit %d: %s\n%s\nwant\n%s", code, stderr.String(), stdout.String(), want)
	}
	// A file that is not a manifest (a chart's Chart.yaml) is refused, as the bundle refuses it in
	// conftest (GF-INPUT-001); --ignore passes it over, as conftest test --ignore does.
	if err := os.MkdirAll("ml/charts/gpu", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("ml/charts/gpu/Chart.yaml", []byte("apiVersion: v2\nname: gpu\nversion: 0.1.0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := run([]string{"documents", "--data", data, "ml/"}, nil, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "ml/charts/gpu/Chart.yaml: document 1 is not a Kubernetes object") || !strings.Contains(stderr.String(), "--ignore REGEX passes over other files") || stdout.Len() > 0 {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr.String(), stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"documents", "--data", data, "--ignore", `charts/`, "ml/"}, nil, &stdout, &stderr); code != 0 || stdout.String() != want {
		t.Fatalf("--ignore: exit %d: %s\n%s\nwant\n%s", code, stderr.String(), stdout.String(), want)
	}
	stderr.Reset()
	if code := run([]string{"documents", "--ignore", `(`, "ml/"}, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "--ignore: error parsing regexp") {
		t.Fatalf("a bad --ignore: exit %d, stderr %q", code, stderr.String())
	}
	// --stdin-filename names standard input in the documents' files, as conftest's names it.
	piped.Reset()
	files.Files = nil
	if code := run([]string{"documents", "--stdin-filename", "charts/gpu/rendered.yaml", "-"}, bytes.NewReader(raw), &piped, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	} else if err := json.Unmarshal(piped.Bytes(), &files); err != nil || !maps.Equal(files.Files, map[string]string{"NodePool/gpu": "charts/gpu/rendered.yaml"}) {
		t.Fatalf("files of standard input named by --stdin-filename %v (%v)", files.Files, err)
	}

	// A separator kubectl takes and conftest does not ("--- " here): the NodePool after it is read,
	// and the line is named in a warning.
	stdout.Reset()
	stderr.Reset()
	configMap := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n--- # the GPU pool\n"
	if code := run([]string{"documents", "--stdin-filename", "gitops/gpu.yaml", "-"}, strings.NewReader(configMap+string(raw)), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), `"NodePool/gpu"`) {
		t.Fatalf("exit %d: %s\n%s", code, stderr.String(), stdout.String())
	} else if !strings.HasPrefix(stderr.String(), "gitops/gpu.yaml:4: warning: kubectl starts a document at this separator, conftest test does not") || strings.Count(stderr.String(), "\n") != 1 {
		t.Fatalf("the warning: %q", stderr.String())
	}

	// Two clusters' directories at once, each with its NodePool "gpu": refused in the words of the
	// bundle's GF-INPUT-003, and nothing written.
	if err := os.MkdirAll("ml-eu/karpenter", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("ml-eu/karpenter/gpu.yaml", raw, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"documents", "--ignore", "charts/", "ml/", "ml-eu/"}, nil, &stdout, &stderr); code != 1 || stdout.Len() > 0 ||
		stderr.String() != "ml-eu/karpenter/gpu.yaml: NodePool/gpu is declared 2 times (ml-eu/karpenter/gpu.yaml, ml/karpenter/gpu.yaml): a cluster holds one object of a kind and name, so these are several clusters' objects or a base and its patch, whose node classes and files are mixed up when judged together; judge each cluster's manifests on their own, as kubectl applies them: one conftest run per cluster directory, or kustomize build | conftest test --combine -\n" {
		t.Fatalf("two clusters: exit %d, stderr %q, stdout %q", code, stderr.String(), stdout.String())
	}

	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(filepath.Join(empty, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := run([]string{"documents", empty}, nil, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "empty: the directory holds no .yaml, .yml or .json file") || stdout.Len() > 0 {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr.String(), stdout.String())
	}

	stdout.Reset()
	if code := run([]string{"documents", nodePool, write("notes.yaml", "title: not an object of Kubernetes\n")}, nil, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "notes.yaml: document 1 is not a Kubernetes object") || stdout.Len() > 0 {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr.String(), stdout.String())
	}
}

// jsonString is s as JSON writes it.
func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
