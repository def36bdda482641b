package policy_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/plandoc"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
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
	bin, policies := conftestAndPolicies(t)
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
				Combine bool             `json:"combine"` // Kubernetes manifests: a NodePool with its node class (#38)
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
			if want.Combine {
				args = append(args, "--combine")
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

			if want.Combine {
				// Manifests: their documents file (gpufleet-policy documents --data …) gets the
				// same findings, to the letter, the file each names too.
				documents := manifestDocumentsFile(t, args[len(args)-1:], want.Data, policies)
				docArgs := slices.Concat(slices.DeleteFunc(slices.Clone(args[:len(args)-1]), func(a string) bool { return a == "--combine" }), []string{documents})
				viaDocuments, docErr := exec.Command(bin, docArgs...).Output()
				if docErr != nil && (!errors.As(docErr, &exitErr) || exitErr.ExitCode() != 1) {
					t.Fatalf("conftest %s: %v: %s", strings.Join(docArgs, " "), docErr, viaDocuments)
				}
				combined := conftestMessages(t, out)
				if b := conftestMessages(t, viaDocuments); !slices.Equal(combined, b) || (err == nil) != (docErr == nil) {
					t.Fatalf("conftest on the documents of %s (exit %v):\n%s\non the manifests (exit %v):\n%s", want.Fixture, docErr, strings.Join(b, "\n"), err, strings.Join(combined, "\n"))
				}
				return
			}
			// The plan's documents file (gpufleet-policy documents) gets the same findings, to the
			// letter, and the same exit status.
			documents, ok := documentsFile(t, args[len(args)-1])
			if !ok {
				return // not a plan: gpufleet-policy documents refuses it (its own test)
			}
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

// documentsFile writes what gpufleet-policy documents writes for the plan at path, in a
// temporary pools.json; false when the file is not a plan.
func documentsFile(t *testing.T, path string) (string, bool) {
	t.Helper()
	plan, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	p, err := plandoc.Read(plan)
	if err != nil {
		return "", false
	}
	d, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	documents := filepath.Join(t.TempDir(), "pools.json")
	f, err := os.Create(documents)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := d.WriteFile(f, p); err != nil {
		t.Fatal(err)
	}
	return documents, true
}

// conftestAndPolicies are the pinned conftest (GPUFLEET_CONFTEST; the test is skipped without it)
// and the absolute path of the policies directory.
func conftestAndPolicies(t *testing.T) (string, string) {
	t.Helper()
	bin := os.Getenv("GPUFLEET_CONFTEST")
	if bin == "" {
		t.Skip("GPUFLEET_CONFTEST is not set (make test sets it to the pinned conftest)")
	}
	policies, err := filepath.Abs("../../policies")
	if err != nil {
		t.Fatal(err)
	}
	return bin, policies
}

// manifestDocumentsFile writes what gpufleet-policy documents --data DATA... writes for manifest
// files, in a temporary pools.json.
func manifestDocumentsFile(t *testing.T, paths []string, data []string, policies string) string {
	t.Helper()
	files, err := plandoc.ReadManifestFiles(paths, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return manifestDocumentsOf(t, files, data, policies)
}

// manifestDocumentsOf is manifestDocumentsFile of files already read.
func manifestDocumentsOf(t *testing.T, files []plandoc.ManifestFile, data []string, policies string) string {
	t.Helper()
	p, err := plandoc.ReadManifests(files)
	if err != nil {
		t.Fatal(err)
	}
	var dataPaths []string
	for _, d := range data {
		dataPaths = append(dataPaths, filepath.Join(policies, d))
	}
	loaded, err := policy.LoadData(dataPaths)
	if err != nil {
		t.Fatal(err)
	}
	clusters, _ := loaded.Raw["gpufleet"].(map[string]any)["clusters"].(map[string]any)
	p.SetClusters(clusters)
	d, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	documents := filepath.Join(t.TempDir(), "pools.json")
	f, err := os.Create(documents)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := d.WriteFile(f, p); err != nil {
		t.Fatal(err)
	}
	return documents
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

// conftest test --combine (one run over a repository's plans) judges every plan and documents file
// of the run as conftest judges it alone: the same failures and warnings, to the letter, each
// naming its file after the rule id and in its "file" metadata; a file that is not a plan (state, a
// string, a number) is a GF-INPUT-001 failure naming it. Before, a combined input found no pool and
// no GF-INPUT-001: "9 passed", exit 0, on the bundle's violating fixtures.
func TestConftest_combine(t *testing.T) {
	bin, policies := conftestAndPolicies(t)
	expected, _ := filepath.Glob(filepath.Join(policies, "testdata", "expected", "*.json"))
	var files []string
	for _, file := range expected {
		var want struct {
			Fixture string   `json:"fixture"`
			Data    []string `json:"data"`
		}
		raw, err := os.ReadFile(file)
		if err != nil || json.Unmarshal(raw, &want) != nil {
			t.Fatalf("%s: %v", file, err)
		}
		// Plan fixtures: the manifest fixtures' objects would join across files (their own test).
		if slices.Equal(want.Data, []string{"examples/policy-data.yaml"}) && strings.HasSuffix(want.Fixture, ".json") {
			files = append(files, filepath.Join("testdata", want.Fixture))
		}
	}
	// A documents file of a violating plan, and files that are JSON but no object.
	documents, ok := documentsFile(t, filepath.Join(policies, "testdata", "aws_eks_node_group_violating.json"))
	if !ok {
		t.Fatal("the violating fixture is not a plan")
	}
	files = append(files, documents)
	dir := t.TempDir()
	for name, contents := range map[string]string{"note.json": `"not a plan"`, "count.json": `42`} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(contents), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	if len(files) < 10 {
		t.Fatalf("only %d files", len(files))
	}
	conftest := func(args ...string) ([]string, bool) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"test", "--no-color", "--show-builtin-errors", "--output", "json", "--policy", ".",
			"--data", "examples/policy-data.yaml"}, args...)...)
		cmd.Dir = policies
		out, err := cmd.Output()
		var exitErr *exec.ExitError
		if err != nil && (!errors.As(err, &exitErr) || exitErr.ExitCode() != 1) {
			t.Fatalf("conftest %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return conftestMessages(t, out), err != nil
	}
	plans := files[:len(files)-3] // the fixtures only
	if _, failed := conftest(append([]string{"--combine"}, plans...)...); !failed {
		t.Fatalf("conftest --combine passed %d plan fixtures, violating ones among them", len(plans))
	}
	var want []string
	for _, file := range files {
		alone, _ := conftest(file)
		for _, m := range alone {
			kind, raw, _ := strings.Cut(m, " ")
			var f map[string]any
			if err := json.Unmarshal([]byte(raw), &f); err != nil {
				t.Fatal(err)
			}
			meta := f["metadata"].(map[string]any)
			rule := meta["rule"].(string)
			meta["file"] = file
			if rule == "GF-INPUT-001" { // alone, it names the file by its base name
				f["msg"] = strings.Replace(f["msg"].(string), filepath.Base(file), file, 1)
			} else {
				f["msg"] = rule + ": " + file + ": " + strings.TrimPrefix(f["msg"].(string), rule+": ")
			}
			b, _ := json.Marshal(f)
			want = append(want, kind+" "+string(b))
		}
	}
	slices.Sort(want)
	got, failed := conftest(append([]string{"--combine"}, files...)...)
	if !slices.Equal(got, want) || !failed {
		t.Fatalf("conftest --combine over %d files (failed: %v):\n%s\nwant (each file alone, naming it):\n%s", len(files), failed, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, name := range []string{"note.json", "count.json", "not_a_plan_state.json", "not_a_plan_empty.json", "aws_eks_node_group_violating.json", "pools.json"} {
		if !slices.ContainsFunc(got, func(m string) bool { return strings.Contains(m, name+": ") && strings.HasPrefix(m, "failure ") }) {
			t.Errorf("no failure names %s", name)
		}
	}
}

// The guide "Policy in CI" quotes a run of conftest --combine over envs/*/plan.json: the line of
// the violating fixture's GF-ISO-001 as envs/prod/plan.json, up to its ellipsis.
func TestConftest_combineAsThePolicyInCIGuideQuotes(t *testing.T) {
	bin, _ := conftestAndPolicies(t)
	raw, err := os.ReadFile("../../templates/guides/policy-in-ci.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "```\nFAIL - Combined - main - ")
	quote, _, _ := strings.Cut(rest, "\n")
	quote, _ = strings.CutSuffix(quote, " …")
	if !ok || quote == "" {
		t.Fatal("the guide quotes no conftest --combine line")
	}
	out := violatingFixtureAs(t, bin, "envs/prod/plan.json", "--combine")
	if !strings.Contains(string(out), "FAIL - Combined - main - "+quote) {
		t.Fatalf("conftest --combine printed\n%s\nthe guide quotes\nFAIL - Combined - main - %s …", out, quote)
	}
}

// policies/README.md's example output: each line is one conftest prints for the violating EKS
// fixture saved as plan.json.
func TestConftest_readmeExampleOutput(t *testing.T) {
	bin, _ := conftestAndPolicies(t)
	raw, err := os.ReadFile("../../policies/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "Example output")
	_, rest, _ = strings.Cut(rest, "```\n")
	quote, _, _ := strings.Cut(rest, "```")
	if !ok || !strings.HasPrefix(quote, "FAIL - plan.json") {
		t.Fatal("policies/README.md has no example output")
	}
	out := violatingFixtureAs(t, bin, "plan.json")
	for _, line := range strings.Split(strings.TrimSpace(quote), "\n") {
		if !slices.Contains(strings.Split(string(out), "\n"), line) {
			t.Errorf("policies/README.md quotes\n%s\nwhich conftest does not print:\n%s", line, out)
		}
	}
}

// violatingFixtureAs runs conftest (with the example policy data and flags) on the violating EKS
// fixture saved as path, a relative path as a user names it, and returns what conftest prints.
func violatingFixtureAs(t *testing.T, conftest, path string, flags ...string) []byte {
	t.Helper()
	policies, _ := filepath.Abs("../../policies")
	dir := t.TempDir()
	plan, err := os.ReadFile(filepath.Join(policies, "testdata", "aws_eks_node_group_violating.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, path), plan, 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"test", "--no-color", "--policy", policies, "--data", filepath.Join(policies, "examples", "policy-data.yaml")}, flags...)
	cmd := exec.Command(conftest, append(args, path)...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	return out
}

// The guide "Policy in CI" quotes conftest --combine on a cluster directory of manifests and on
// helm template output: each line it quotes (up to its ellipsis) is one conftest prints for the
// manifest fixtures laid out as the guide lays them out.
func TestConftest_manifestsAsThePolicyInCIGuideQuotes(t *testing.T) {
	bin, _ := conftestAndPolicies(t)
	raw, err := os.ReadFile("../../templates/guides/policy-in-ci.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "## GitOps")
	section, _, _ = strings.Cut(section, "\n## ")
	if !ok {
		t.Fatal("the guide has no GitOps section")
	}
	var quotes []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "FAIL - ") || strings.HasPrefix(line, "WARN - ") {
			quote, _ := strings.CutSuffix(line, " …")
			quotes = append(quotes, quote)
		}
	}
	if len(quotes) < 3 {
		t.Fatalf("the guide quotes %d lines", len(quotes))
	}
	policies, _ := filepath.Abs("../../policies")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "clusters", "ml-us"), 0o755); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{"karpenter_time_slicing_without_overlay.yaml": "notebooks.yaml", "karpenter_training_disruption.yaml": "finetune.yaml"} {
		b, err := os.ReadFile(filepath.Join(policies, "testdata", "kube", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "clusters", "ml-us", to), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	conftest := func(stdin []byte, args ...string) string {
		cmd := exec.Command(bin, append([]string{"test", "--no-color", "--combine", "--policy", policies, "--data", filepath.Join(policies, "examples", "policy-data.yaml")}, args...)...)
		cmd.Dir = dir
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	helm, err := os.ReadFile(filepath.Join(policies, "testdata", "kube", "helm_template_output.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	printed := conftest(nil, "clusters/ml-us/") + conftest(helm, "-")
	for _, q := range quotes {
		if !strings.Contains(printed, q) {
			t.Errorf("the guide quotes\n%s …\nconftest printed\n%s", q, printed)
		}
	}
	// A chart beside the manifests: its Chart.yaml is refused, naming it, and the guide's --ignore
	// passes it over, leaving the findings of the manifests.
	ignore := regexp.MustCompile(`(?m)^conftest test --combine --ignore '([^']+)' .* clusters/ml-us/$`).FindStringSubmatch(section)
	if ignore == nil {
		t.Fatal("the guide shows no conftest --ignore on the cluster directory")
	}
	if err := os.MkdirAll(filepath.Join(dir, "clusters", "ml-us", "charts", "gpu"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "clusters", "ml-us", "charts", "gpu", "Chart.yaml"), []byte("apiVersion: v2\nname: gpu\nversion: 0.1.0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	withChart, ignored := conftest(nil, "clusters/ml-us/"), conftest(nil, "--ignore", ignore[1], "clusters/ml-us/")
	if !strings.Contains(withChart, "FAIL - Combined - main - GF-INPUT-001: clusters/ml-us/charts/gpu/Chart.yaml: ") {
		t.Errorf("a chart's Chart.yaml in the directory, without --ignore:\n%s", withChart)
	}
	if want := conftest(nil, "clusters/ml-us/notebooks.yaml", "clusters/ml-us/finetune.yaml"); strings.Contains(ignored, "GF-INPUT-001") || ignored != want {
		t.Errorf("--ignore '%s':\n%s\nwant\n%s", ignore[1], ignored, want)
	}
}

// gpufleet-policy documents on a directory (plandoc.ManifestPaths: its manifests at any depth) and
// conftest on its documents file get the findings conftest --combine gets on the directory, to the
// letter (each naming its NodePool's or ComputeClass's file), and the same exit status.
func TestConftest_documentsOfADirectory(t *testing.T) {
	bin, policies := conftestAndPolicies(t)
	data := filepath.Join(policies, "examples", "policy-data.yaml")
	dir := t.TempDir()
	for from, to := range map[string]string{
		"karpenter_time_slicing_without_overlay.yaml": "notebooks.yaml",
		"karpenter_training_disruption.yaml":          "training/finetune.yaml",
		"karpenter_no_gpu_limit.yaml":                 "inference/nodepools.yml",
		"computeclass_scale_up_anyway.yaml":           "README.md", // not a manifest: passed over by both
		// NodePools shared by the clusters' directories, linked into each: conftest follows the links
		// and names the files under their targets' paths.
		"../shared/gpu/karpenter_isolation.yaml": "../shared/gpu/isolation.yaml",
		"../shared/karpenter_budget.yaml":        "../shared/budget.yaml",
	} {
		b, err := os.ReadFile(filepath.Join(policies, "testdata", "kube", filepath.Base(from)))
		if err == nil {
			err = os.MkdirAll(filepath.Dir(filepath.Join(dir, "ml-us", to)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "ml-us", to), b, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"ml-us/shared-gpu": "../shared/gpu", "ml-us/budget.yaml": "../shared/budget.yaml", "ml-us/training/again.yml": "finetune.yaml"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir) // the files named as conftest names them: ml-us/…, shared/…
	var stdin []byte
	conftest := func(args ...string) ([]string, error) {
		cmd := exec.Command(bin, append([]string{"test", "--no-color", "-o", "json", "--policy", policies, "--data", data}, args...)...)
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		out, err := cmd.Output()
		var exitErr *exec.ExitError
		if err != nil && (!errors.As(err, &exitErr) || exitErr.ExitCode() != 1) {
			t.Fatalf("conftest %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return conftestMessages(t, out), err
	}
	combined, err := conftest("--combine", "ml-us/")
	var files []string
	for _, m := range combined {
		_, raw, _ := strings.Cut(m, " ")
		var f map[string]any
		if err := json.Unmarshal([]byte(raw), &f); err != nil {
			t.Fatal(err)
		}
		file, _ := f["metadata"].(map[string]any)["file"].(string)
		files = append(files, file)
	}
	if slices.Sort(files); !slices.Equal(slices.Compact(files), []string{"ml-us/inference/nodepools.yml", "ml-us/notebooks.yaml", "ml-us/training/finetune.yaml", "shared/budget.yaml", "shared/gpu/isolation.yaml"}) {
		t.Fatalf("the combined run's findings name the files %q, not the five of manifests", files)
	}
	paths, pathsErr := plandoc.ManifestPaths([]string{"ml-us/"}, nil)
	if pathsErr != nil {
		t.Fatal(pathsErr)
	}
	documents := manifestDocumentsFile(t, paths, []string{"examples/policy-data.yaml"}, policies)
	viaDocuments, docErr := conftest(documents)
	if !slices.Equal(combined, viaDocuments) || (err == nil) != (docErr == nil) {
		t.Fatalf("conftest on the documents of the directory (exit %v):\n%s\non the directory (exit %v):\n%s", docErr, strings.Join(viaDocuments, "\n"), err, strings.Join(combined, "\n"))
	}

	// conftest test --ignore, given to both: matched on the paths walked, before links are followed
	// (the link ml-us/shared-gpu, not shared/gpu/…).
	const ignore = `finetune|again|shared-gpu$`
	combined, err = conftest("--combine", "--ignore", ignore, "ml-us/")
	if paths, pathsErr = plandoc.ManifestPaths([]string{"ml-us/"}, regexp.MustCompile(ignore)); pathsErr != nil {
		t.Fatal(pathsErr)
	}
	viaDocuments, docErr = conftest(manifestDocumentsFile(t, paths, []string{"examples/policy-data.yaml"}, policies))
	if !slices.Equal(combined, viaDocuments) || (err == nil) != (docErr == nil) || slices.ContainsFunc(combined, func(m string) bool { return strings.Contains(m, "finetune") || strings.Contains(m, "isolation.yaml") }) {
		t.Fatalf("--ignore %s: conftest on the documents (exit %v):\n%s\non the directory (exit %v):\n%s", ignore, docErr, strings.Join(viaDocuments, "\n"), err, strings.Join(combined, "\n"))
	}

	// helm template … | conftest test --combine --stdin-filename NAME -: the findings name NAME.
	helm, err := os.ReadFile(filepath.Join(policies, "testdata", "kube", "helm_template_output.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const rendered = "charts/gpu-pools/rendered.yaml"
	stdin = helm
	combined, err = conftest("--combine", "--stdin-filename", rendered, "-")
	stdin = nil
	piped, readErr := plandoc.ReadManifestFiles([]string{"-"}, bytes.NewReader(helm), rendered)
	if readErr != nil {
		t.Fatal(readErr)
	}
	viaDocuments, docErr = conftest(manifestDocumentsOf(t, piped, []string{"examples/policy-data.yaml"}, policies))
	if len(combined) == 0 || !slices.Equal(combined, viaDocuments) || (err == nil) != (docErr == nil) || !strings.Contains(combined[0], `"file":"`+rendered+`"`) {
		t.Fatalf("--stdin-filename: conftest on the documents (exit %v):\n%s\non standard input (exit %v):\n%s", docErr, strings.Join(viaDocuments, "\n"), err, strings.Join(combined, "\n"))
	}
}

// conftest test splits a YAML file only at lines of "---" alone and reads the first document of
// each part: after "--- ", "--- # comment", or "---" with LF in a file with CRLF line endings
// (separators for kubectl), a GPU NodePool passes conftest unjudged. plandoc.ConftestUnread tells
// those lines (gpufleet-policy documents warns of them and reads the documents as kubectl does):
// on each case of plandoc's testdata, conftest reports the NodePool's GF-AS-007 exactly when
// ConftestUnread reports no line.
func TestConftest_separatorsConftestSkips(t *testing.T) {
	bin, policies := conftestAndPolicies(t)
	raw, err := os.ReadFile("../plandoc/testdata/conftest_separators.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases map[string]struct {
			YAML string `json:"yaml"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil || len(file.Cases) < 10 {
		t.Fatalf("%d cases: %v", len(file.Cases), err)
	}
	fixture, err := os.ReadFile(filepath.Join(policies, "testdata", "kube", "karpenter_no_gpu_limit.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	np, _, _ := strings.Cut(string(fixture), "\n---\n") // the NodePool, without its node class
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
	crlf := strings.NewReplacer("\n", "\r\n")
	expand := strings.NewReplacer("{cm}", cm, "{np}", np+"\n", "{cm_crlf}", crlf.Replace(cm), "{np_crlf}", crlf.Replace(np+"\n"))
	dir := t.TempDir()
	skipped := 0
	for name, c := range file.Cases {
		data := []byte(expand.Replace(c.YAML))
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".yaml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command(bin, "test", "--no-color", "--combine", "--policy", policies, "--data", filepath.Join(policies, "examples", "policy-data.yaml"), path).CombinedOutput()
		judged, unread := strings.Contains(string(out), "GF-AS-007: "), plandoc.ConftestUnread(data)
		if judged == (len(unread) > 0) {
			t.Errorf("%s: conftest judged the NodePool: %v; ConftestUnread: %v\n%s", name, judged, unread, out)
		}
		if !judged {
			skipped++
		}
	}
	if skipped < 4 {
		t.Errorf("conftest skipped the NodePool in %d cases only", skipped)
	}
}

// The files of a directory conftest test reads besides YAML and JSON (plandoc's conftestFormat):
// beside a NodePool, each fails conftest's run, named (the bundle's GF-INPUT-001, or conftest's
// own parse error), and gpufleet-policy documents refuses the directory naming it; the files
// conftest passes over are passed over by both.
func TestConftest_filesOfADirectory(t *testing.T) {
	bin, policies := conftestAndPolicies(t)
	nodePool, err := os.ReadFile(filepath.Join(policies, "testdata", "kube", "karpenter_no_gpu_limit.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, contents := range map[string]string{
		"Dockerfile": "FROM alpine:3\n", "Dockerfile.gpu": "FROM alpine:3\n", "main.tf": "locals {\n  a = 1\n}\n", "prod.tfvars": "a = 1\n",
		".gitignore": "*.tmp\n", ".dockerignore": "*.tmp\n", ".env": "A=1\n", ".env.prod": "A=1\n", "nginx.conf": "events {}\n",
		"Jenkinsfile": "pipeline {}\n", "CODEOWNERS": "* @platform\n", "settings.toml": "a = 1\n", "settings.ini": "[a]\nb = 1\n",
		"pom.xml": "<a>1</a>\n", "app.properties": "a=1\n", "x.textproto": "a: 1\n",
		"README.md": "", "values.tpl": "", "notes.txt": "", "LICENSE": "", // passed over
	} {
		dir := t.TempDir()
		for file, body := range map[string][]byte{"np.yaml": nodePool, name: []byte(contents)} {
			if err := os.WriteFile(filepath.Join(dir, file), body, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		out, err := exec.Command(bin, "test", "--no-color", "--combine", "--policy", policies, dir).CombinedOutput()
		var exitErr *exec.ExitError
		if err != nil && !errors.As(err, &exitErr) {
			t.Fatal(err)
		}
		read := strings.Contains(string(out), filepath.Join(dir, name))
		_, pathsErr := plandoc.ManifestPaths([]string{dir}, nil)
		if read != (pathsErr != nil) || (pathsErr != nil && !strings.Contains(pathsErr.Error(), filepath.Join(dir, name)+": conftest test reads this file too")) {
			t.Errorf("%s: conftest reads it: %v (%s); ManifestPaths: %v", name, read, out, pathsErr)
		}
		if _, err := plandoc.ManifestPaths([]string{dir}, regexp.MustCompile(regexp.QuoteMeta(name)+"$")); err != nil {
			t.Errorf("%s, --ignore'd: %v", name, err)
		}
	}
}
