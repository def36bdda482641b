package plandoc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"sigs.k8s.io/yaml"
)

// The policy data the manifest fixtures are judged with: its cluster registry places objects that
// name no zone.
func exampleClusters(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("../../policies/examples/policy-data.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Gpufleet struct {
			Clusters map[string]any `json:"clusters"`
		} `json:"gpufleet"`
	}
	if err := yaml.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Gpufleet.Clusters) == 0 {
		t.Fatal("no cluster registry in the example policy data")
	}
	return data.Gpufleet.Clusters
}

// kubeDocuments are one builder's documents by address, the bundle's fits of them (nil for Go's)
// and the objects it could not judge (documents.unjudged).
type kubeDocuments struct {
	pools, fits map[string]any
	unjudged    any
}

// bundleKubeDocuments is the bundle's data.gpufleet.documents.pools (and each pool's fit) and
// unjudged with the cluster registry as data.gpufleet.clusters.
func bundleKubeDocuments(t *testing.T, clusters map[string]any) func(input any) kubeDocuments {
	t.Helper()
	c, _ := json.Marshal(clusters)
	q, err := rego.New(
		rego.Query(fmt.Sprintf(`x := {
			"pools": data.gpufleet.documents.pools,
			"fits": [[address, f] | some [address, doc] in data.gpufleet.documents.pools; f := data.gpufleet.lib.doc_fit(doc)],
			"unjudged": data.gpufleet.documents.unjudged,
		} with data.gpufleet.clusters as %s`, c)),
		rego.Load([]string{"../../policies/main.rego", "../../policies/gpufleet"}, func(_ string, info os.FileInfo, _ int) bool {
			return strings.HasSuffix(info.Name(), "_test.rego")
		}),
	).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return func(input any) kubeDocuments {
		t.Helper()
		rs, err := q.Eval(context.Background(), rego.EvalInput(input))
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 {
			t.Fatalf("the bundle's documents are undefined: %v", rs)
		}
		x := normalise(t, rs[0].Bindings["x"]).(map[string]any)
		// Pairs, not objects: two objects of one kind and name (a variant may give an object
		// another's name) share an address as manifests; the last one's document counts, as in
		// goKubeDocuments.
		byAddress := func(pairs any) map[string]any {
			m := map[string]any{}
			for _, p := range pairs.([]any) {
				pair := p.([]any)
				m[pair[0].(string)] = pair[1]
			}
			return m
		}
		return kubeDocuments{pools: byAddress(x["pools"]), fits: byAddress(x["fits"]), unjudged: x["unjudged"]}
	}
}

// goKubeDocuments builds the documents of a Plan as gpufleet-policy documents writes them.
func goKubeDocuments(t *testing.T, p *Plan, clusters map[string]any) kubeDocuments {
	t.Helper()
	p.SetClusters(clusters)
	d, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := d.WriteFile(&out, p); err != nil {
		t.Fatal(err)
	}
	var file struct {
		Pools    [][2]any `json:"pools"`
		Unjudged any      `json:"unjudged"`
	}
	if err := json.Unmarshal(out.Bytes(), &file); err != nil {
		t.Fatalf("the documents file is not JSON: %v\n%s", err, out.Bytes())
	}
	pools := map[string]any{}
	for _, pair := range file.Pools {
		pools[pair[0].(string)] = pair[1]
	}
	return kubeDocuments{pools: pools, unjudged: file.Unjudged}
}

// kubeFixtures are the manifest fixtures' objects, file by file, as conftest parses them.
func kubeFixtures(t *testing.T) map[string][]any {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(fixtures, "kube", "*.yaml"))
	if len(files) < 12 {
		t.Fatalf("only %d manifest fixtures", len(files))
	}
	out := map[string][]any{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := manifestDocuments(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = docs
	}
	return out
}

// manifestPlan reads objects as one YAML file of that name, a document each.
func manifestPlan(t *testing.T, name string, objects []any) *Plan {
	t.Helper()
	var docs [][]byte
	for _, o := range objects {
		y, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, y)
	}
	p, err := ReadManifests([]ManifestFile{{Path: name, Data: bytes.Join(docs, []byte("---\n"))}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// compareKube builds the documents of objects both ways: Go from the manifests, the bundle from
// conftest --combine's input ([{path, contents}]); and both again from a plan that holds the same
// objects in kubernetes_manifest and kubectl_manifest resources.
func compareKube(t *testing.T, bundle func(any) kubeDocuments, clusters map[string]any, name string, objects []any) int {
	t.Helper()
	var combined []any
	for _, o := range objects {
		combined = append(combined, map[string]any{"path": name, "contents": o})
	}
	p := manifestPlan(t, name, objects)
	check := func(form string, gotDocs, want kubeDocuments) {
		got := normalise(t, gotDocs.pools).(map[string]any)
		var counts fitCounts
		for address, doc := range got {
			compareFit(t, name+" "+form+": "+address, doc.(map[string]any), want.fits[address], &counts)
		}
		if d := diff("pools", got, want.pools); d != "" {
			t.Errorf("%s (%s): Go and the bundle's builders differ at %s\nobjects: %s", name, form, d, show(objects))
		}
		if d := diff("unjudged", normalise(t, gotDocs.unjudged), want.unjudged); d != "" {
			t.Errorf("%s (%s): Go and the bundle's builders differ at %s\nobjects: %s", name, form, d, show(objects))
		}
	}
	want := bundle(combined)
	check("manifests", goKubeDocuments(t, p, clusters), want)

	var changes []any
	for i, o := range objects {
		after, typ := map[string]any{"manifest": o}, "kubernetes_manifest"
		if i%2 == 1 {
			y, _ := yaml.Marshal(o)
			after, typ = map[string]any{"yaml_body": string(y)}, "kubectl_manifest"
		}
		changes = append(changes, map[string]any{
			"address": fmt.Sprintf("%s.o%d", typ, i), "mode": "managed", "type": typ, "name": fmt.Sprintf("o%d", i),
			"change": map[string]any{"actions": []any{"create"}, "after": after},
		})
	}
	plan := map[string]any{"format_version": "1.2", "planned_values": map[string]any{}, "resource_changes": changes}
	raw, _ := json.Marshal(plan)
	pp, err := Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var planValue any
	_ = json.Unmarshal(raw, &planValue)
	wantPlan := bundle(planValue)
	check("plan", goKubeDocuments(t, pp, clusters), wantPlan)
	// (Two objects of one kind and name share an address as manifests, not in a plan.)
	if len(wantPlan.pools) < len(want.pools) || len(want.pools) == 0 && len(wantPlan.pools) > 0 {
		t.Errorf("%s: %d documents from the manifests, %d from the plan", name, len(want.pools), len(wantPlan.pools))
	}
	return len(want.pools)
}

// The Go builders of Kubernetes objects (gpufleet-policy documents) give the bundle's documents on
// every manifest fixture, as manifests and inside a plan.
func TestDocuments_manifestsSameAsTheBundle(t *testing.T) {
	clusters := exampleClusters(t)
	bundle := bundleKubeDocuments(t, clusters)
	judged := 0
	for name, objects := range kubeFixtures(t) {
		judged += compareKube(t, bundle, clusters, name, objects)
	}
	if judged < 20 {
		t.Fatalf("only %d pools in the manifest fixtures", judged)
	}
}

// Generated variants of the manifest fixtures: a field the builders read removed, set to null, or
// given a value of the same field elsewhere in the fixtures (requirements' keys, operators and
// values, limits, labels, weights, disruption, node class references, overlays' capacity,
// priorities), one at a time and several at once. The two builders agree on every variant.
func TestDocuments_manifestsSameAsTheBundleOnVariants(t *testing.T) {
	clusters := exampleClusters(t)
	bundle := bundleKubeDocuments(t, clusters)
	all := kubeFixtures(t)
	values := map[string][]any{}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range all {
			if !yield(n) {
				return
			}
		}
	})
	for _, n := range names {
		for _, o := range all[n] {
			collectValues(o, values)
		}
	}
	rng := rand.New(rand.NewPCG(38, 2026))
	variants := 0
	for i := 0; i < 300; i++ {
		name := names[rng.IntN(len(names))]
		var objects []any
		for _, o := range all[name] {
			objects = append(objects, deepCopyValue(o))
		}
		for range 1 + rng.IntN(3) {
			m, ok := objects[rng.IntN(len(objects))].(map[string]any)
			if ok {
				mutateDeep(rng, m, values)
			}
		}
		compareKube(t, bundle, clusters, fmt.Sprintf("%s variant %d", name, i), objects)
		variants++
		if t.Failed() {
			break
		}
	}
	if variants < 300 {
		t.Fatalf("only %d variants", variants)
	}
}

// mutateDeep changes one field somewhere under m (not apiVersion and kind, which decide what the
// object is).
func mutateDeep(rng *rand.Rand, m map[string]any, values map[string][]any) {
	var paths [][]any
	var walk func(v any, path []any)
	walk = func(v any, path []any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if len(path) == 0 && (k == "apiVersion" || k == "kind") {
					continue
				}
				p := append(slices.Clone(path), k)
				paths = append(paths, p)
				walk(e, p)
			}
		case []any:
			for i, e := range x {
				p := append(slices.Clone(path), i)
				paths = append(paths, p)
				walk(e, p)
			}
		}
	}
	walk(m, nil)
	if len(paths) == 0 {
		return
	}
	slices.SortFunc(paths, func(a, b []any) int { return strings.Compare(fmt.Sprint(a...), fmt.Sprint(b...)) })
	path := paths[rng.IntN(len(paths))]
	parent, ok := at(m, path[:len(path)-1]...)
	if !ok {
		return
	}
	last := path[len(path)-1]
	key := fmt.Sprint(last)
	var replacement any
	switch rng.IntN(3) {
	case 0:
		if pm, ok := parent.(map[string]any); ok {
			delete(pm, key)
			return
		}
	case 1:
		replacement = nil
	default:
		if vs := values[key]; len(vs) > 0 {
			replacement = deepCopyValue(vs[rng.IntN(len(vs))])
		}
	}
	switch p := parent.(type) {
	case map[string]any:
		p[key] = replacement
	case []any:
		p[last.(int)] = replacement
	}
}

// A directory is read as conftest reads one: its .yaml, .yml and .json files at any depth, in path
// order, under the directory's path; files, - and paths that do not exist are taken as they are; a
// directory without one such file is an error that names it.
func TestManifestPaths(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"clusters/ml/karpenter/gpu.yaml", "clusters/ml/classes/gpu.YML", "clusters/ml/README.md", "clusters/gke/cc.json", "charts/x/templates/_helpers.tpl", "docs/empty/.keep", "shared/gpu/nodepools.yaml"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ManifestPaths([]string{filepath.Join(dir, "clusters"), "-", filepath.Join(dir, "clusters/ml/README.md")}, nil)
	want := []string{
		filepath.Join(dir, "clusters/gke/cc.json"), filepath.Join(dir, "clusters/ml/classes/gpu.YML"), filepath.Join(dir, "clusters/ml/karpenter/gpu.yaml"),
		"-", filepath.Join(dir, "clusters/ml/README.md"),
	}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("ManifestPaths: %q, %v; want %q", got, err, want)
	}
	if _, err := ManifestPaths([]string{filepath.Join(dir, "docs")}, nil); err == nil || !strings.Contains(err.Error(), "docs: the directory holds no .yaml, .yml or .json file") {
		t.Fatalf("a directory without manifests: %v", err)
	}
	if got, err := ManifestPaths([]string{filepath.Join(dir, "missing")}, nil); err != nil || !slices.Equal(got, []string{filepath.Join(dir, "missing")}) {
		t.Fatalf("a path that does not exist, left for reading to refuse: %q, %v", got, err)
	}
	// A file conftest reads as another format, which the bundle fails (GF-INPUT-001): refused, named.
	if err := os.WriteFile(filepath.Join(dir, "docs", ".gitignore"), []byte("*.tmp\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ManifestPaths([]string{filepath.Join(dir, "docs")}, nil); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "docs", ".gitignore")+": conftest test reads this file too (as an ignore file)") {
		t.Fatalf("a .gitignore: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "docs", ".gitignore")); err != nil {
		t.Fatal(err)
	}

	// Symbolic links, as conftest test follows them (runner.getWalkFn, conftest v0.71.1): a linked
	// directory is walked under its target's path, a linked file is named by its target's path, and
	// a file reached twice is read once (conftest keys what it parses by file name). A team's shared
	// NodePools linked into each cluster's directory are judged, not passed over.
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"clusters/ml/shared": "../../shared", "clusters/ml/gpu-link.yaml": "karpenter/gpu.yaml", "clusters/ml/cc.yml": "../gke/cc.json"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	got, err = ManifestPaths([]string{filepath.Join(dir, "clusters", "ml"), filepath.Join(dir, "clusters", "ml", "classes", "gpu.YML")}, nil)
	want = []string{
		filepath.Join(resolved, "clusters/gke/cc.json"), filepath.Join(dir, "clusters/ml/classes/gpu.YML"), filepath.Join(resolved, "clusters/ml/karpenter/gpu.yaml"),
		filepath.Join(dir, "clusters/ml/karpenter/gpu.yaml"), filepath.Join(resolved, "shared/gpu/nodepools.yaml"),
	}
	if resolved == dir {
		want = slices.Delete(want, 3, 4) // the link and the file, one path
	}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("ManifestPaths over links: %q, %v; want %q", got, err, want)
	}
	if err := os.Symlink("nowhere.yaml", filepath.Join(dir, "clusters/gke/dangling.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := ManifestPaths([]string{filepath.Join(dir, "clusters", "gke")}, nil); err == nil || !strings.Contains(err.Error(), "dangling.yaml") {
		t.Fatalf("a link to nothing, which conftest refuses too: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "clusters/gke/dangling.yaml")); err != nil {
		t.Fatal(err)
	}

	// conftest test --ignore REGEX: files whose path matches are passed over, in a directory and
	// when named; a directory left with nothing, or arguments all ignored, are refused.
	ignore := regexp.MustCompile(`cc\.|README`)
	got, err = ManifestPaths([]string{filepath.Join(dir, "clusters"), filepath.Join(dir, "clusters/ml/README.md")}, ignore)
	want = []string{filepath.Join(dir, "clusters/ml/classes/gpu.YML"), filepath.Join(resolved, "clusters/ml/karpenter/gpu.yaml"), filepath.Join(dir, "clusters/ml/karpenter/gpu.yaml"), filepath.Join(resolved, "shared/gpu/nodepools.yaml")}
	if resolved == dir {
		want = slices.Delete(want, 2, 3)
	}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("ManifestPaths --ignore: %q, %v; want %q", got, err, want)
	}
	if _, err := ManifestPaths([]string{filepath.Join(dir, "clusters/gke")}, ignore); err == nil || !strings.Contains(err.Error(), "gke: the directory holds no .yaml, .yml or .json file") {
		t.Fatalf("a directory whose manifests are all ignored: %v", err)
	}
	if _, err := ManifestPaths([]string{filepath.Join(dir, "clusters/ml/README.md")}, ignore); err == nil || !strings.Contains(err.Error(), "no file to read") {
		t.Fatalf("arguments all ignored: %v", err)
	}
}

// The separators after which conftest reads nothing of a YAML file although kubectl applies what
// follows (ConftestUnread), on the cases that TestConftest_separatorsConftestSkips checks against
// conftest itself.
func TestConftestUnread(t *testing.T) {
	raw, err := os.ReadFile("testdata/conftest_separators.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases map[string]struct {
			YAML   string `json:"yaml"`
			Unread []int  `json:"unread"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil || len(file.Cases) < 10 {
		t.Fatalf("%d cases: %v", len(file.Cases), err)
	}
	const cm, np = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu\n"
	crlf := strings.NewReplacer("\n", "\r\n")
	expand := strings.NewReplacer("{cm}", cm, "{np}", np, "{cm_crlf}", crlf.Replace(cm), "{np_crlf}", crlf.Replace(np))
	for name, c := range file.Cases {
		if got := ConftestUnread([]byte(expand.Replace(c.YAML))); !slices.Equal(got, c.Unread) && (len(got) > 0 || len(c.Unread) > 0) {
			t.Errorf("%s: ConftestUnread %v, want %v", name, got, c.Unread)
		}
	}
}

// Manifests that declare a NodePool, ComputeClass or node class more than once (several clusters'
// directories, a base and its patch): ReadManifests refuses them in the words of the bundle's
// GF-INPUT-003 on the same files combined; one object per cluster directory is read.
func TestReadManifests_duplicatesSameAsTheBundle(t *testing.T) {
	q, err := rego.New(
		rego.Query(`x := sort([f.msg | some f in data.main.deny; f.rule == "GF-INPUT-003"])`),
		rego.Load([]string{"../../policies/main.rego", "../../policies/gpufleet"}, func(_ string, info os.FileInfo, _ int) bool {
			return strings.HasSuffix(info.Name(), "_test.rego")
		}),
	).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const np = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n    spec:\n      requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [g6.xlarge]}]\n"
	const nc = "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: gpu}\n"
	const cc = "apiVersion: cloud.google.com/v1\nkind: ComputeClass\nmetadata: {name: gpu}\nspec: {priorities: [{machineType: g2-standard-8}]}\n"
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gpu}\n"
	for _, c := range []struct {
		name  string
		files []ManifestFile
		want  int // GF-INPUT-003 findings
	}{
		{"one cluster", []ManifestFile{{"clusters/us/gpu.yaml", []byte(np + "---\n" + nc)}, {"clusters/us/cc.yaml", []byte(cc)}, {"clusters/us/cm.yaml", []byte(cm)}}, 0},
		{"two clusters' NodePools", []ManifestFile{{"clusters/us/gpu.yaml", []byte(np)}, {"clusters/eu/gpu.yaml", []byte(np)}}, 1},
		{"one file, twice", []ManifestFile{{"gpu.yaml", []byte(np + "---\n" + cm + "---\n" + np)}}, 1},
		{"a ComputeClass of two files, ConfigMaps of one name", []ManifestFile{{"b.yaml", []byte(cc + "---\n" + cm)}, {"a.yaml", []byte(cc + "---\n" + cm)}}, 1},
		{"NodePools and node classes", []ManifestFile{{"us.yaml", []byte(np + "---\n" + nc)}, {"eu.yaml", []byte(np + "---\n" + nc)}}, 2},
	} {
		var combined []any
		for _, f := range c.files {
			docs, err := manifestDocuments(f.Data)
			if err != nil {
				t.Fatal(err)
			}
			combined = append(combined, map[string]any{"path": f.Path, "contents": docs})
		}
		rs, err := q.Eval(context.Background(), rego.EvalInput(combined))
		if err != nil || len(rs) != 1 {
			t.Fatalf("%s: %v %v", c.name, rs, err)
		}
		var msgs []string
		for _, m := range rs[0].Bindings["x"].([]any) {
			msgs = append(msgs, strings.TrimPrefix(m.(string), "GF-INPUT-003: "))
		}
		_, readErr := ReadManifests(c.files)
		switch {
		case len(msgs) != c.want:
			t.Errorf("%s: the bundle fails GF-INPUT-003 %d times, want %d: %q", c.name, len(msgs), c.want, msgs)
		case c.want == 0 && readErr != nil:
			t.Errorf("%s: ReadManifests refuses it: %v", c.name, readErr)
		case c.want > 0 && (readErr == nil || !slices.Contains(msgs, readErr.Error())):
			t.Errorf("%s: ReadManifests says %v, the bundle %q", c.name, readErr, msgs)
		}
	}
}

// Limits and an overlay's capacity are Kubernetes quantities ("16.0", "1k", "500m", "2Ki", "1e1"):
// both builders read them as the API server does, and what is no quantity (or micro and nano
// units) as no limit.
func TestDocuments_limitQuantitiesSameAsTheBundle(t *testing.T) {
	clusters := exampleClusters(t)
	bundle := bundleKubeDocuments(t, clusters)
	objects := kubeFixtures(t)["karpenter_compliant.yaml"]
	for q, want := range map[any]any{"4": 4.0, 4.0: 4.0, "4.0": 4.0, "+4": 4.0, "4.": 4.0, "1k": 1000.0, "2Ki": 2048.0, "1e1": 10.0, "500m": 0.5, ".5": 0.5, "1E": 1e18,
		"0.3": 0.3, "99.9": 99.9, "1e-11": 0.0, "16Ei": 18446744073709551616.0, "1e99": 1e99, "-1.5Ki": -1536.0, "1E3": 1000.0, "1e+3": 1000.0,
		"4 GPUs": nil, "1K": nil, "1u": nil, "1e": nil, "": nil, true: nil, "1e309": nil, "1.0000000001": nil, "1234567890123456789": nil, "0x10": nil, " 4": nil} {
		var changed []any
		for _, o := range objects {
			o := deepCopyValue(o).(map[string]any)
			if o["kind"] == "NodePool" {
				o["spec"].(map[string]any)["limits"] = map[string]any{"nodes": "8", "nvidia.com/gpu": q}
			}
			if o["kind"] == "NodeOverlay" {
				o["spec"].(map[string]any)["capacity"] = map[string]any{"nvidia.com/gpu": q}
			}
			changed = append(changed, o)
		}
		name := fmt.Sprintf("karpenter_compliant.yaml with %v", q)
		if compareKube(t, bundle, clusters, name, changed) == 0 {
			t.Fatalf("%s: no documents", name)
		}
		for address, doc := range goKubeDocuments(t, manifestPlan(t, "x.yaml", changed), clusters).pools {
			if got := doc.(map[string]any)["autoscaler"].(map[string]any)["gpu_limit"]; got != want {
				t.Errorf("%s: %s's gpu_limit is %v, want %v", name, address, got, want)
			}
		}
		bundleGPULimitsAre(t, bundle, name, changed, want)
	}
	// MIG slices' limits are summed, as fractions too, in the order the bundle sums them.
	for limits, want := range map[string]float64{
		`{"nodes": "8", "nvidia.com/mig-3g.40gb": "0.3", "nvidia.com/mig-1g.10gb": "0.1", "nvidia.com/mig-2g.20gb": "0.2"}`: 0.6,
		`{"nodes": "8", "nvidia.com/mig-3g.40gb": "16", "nvidia.com/mig-1g.10gb": "1k"}`:                                    1016,
	} {
		var l map[string]any
		if err := json.Unmarshal([]byte(limits), &l); err != nil {
			t.Fatal(err)
		}
		var changed []any
		for _, o := range objects {
			o := deepCopyValue(o).(map[string]any)
			if o["kind"] == "NodePool" {
				o["spec"].(map[string]any)["limits"] = l
			}
			changed = append(changed, o)
		}
		compareKube(t, bundle, clusters, "karpenter_compliant.yaml with "+limits, changed)
		if got := npGPULimit(l); got != want {
			t.Errorf("%s: GPU limit %v, want %v", limits, got, want)
		}
		bundleGPULimitsAre(t, bundle, limits, changed, want)
	}
}

// bundleGPULimitsAre checks the bundle's gpu_limit of every NodePool document of objects, exactly
// (compareKube forgives the last digits of a float).
func bundleGPULimitsAre(t *testing.T, bundle func(any) kubeDocuments, name string, objects []any, want any) {
	t.Helper()
	var combined []any
	for _, o := range objects {
		combined = append(combined, map[string]any{"path": "x.yaml", "contents": o})
	}
	docs := bundle(combined).pools
	if len(docs) == 0 {
		t.Errorf("%s: the bundle built no documents", name)
	}
	for address, doc := range docs {
		got := doc.(map[string]any)["autoscaler"].(map[string]any)["gpu_limit"]
		if n, ok := got.(json.Number); ok {
			got, _ = n.Float64()
		}
		if got != want {
			t.Errorf("%s: the bundle's gpu_limit of %s is %v (%T), want %v", name, address, got, got, want)
		}
	}
}

// GF-DATA-002 on NodePools (documents.kube_unjudged): the two builders name the same node types
// the catalog does not know, of those Karpenter may launch, on requirements that narrow or exclude
// them, with values that are no strings, and shapes that are no GPU's.
func TestDocuments_unknownNodeTypesSameAsTheBundle(t *testing.T) {
	clusters := exampleClusters(t)
	bundle := bundleKubeDocuments(t, clusters)
	base := kubeFixtures(t)["catalog_unknown_node_types.yaml"]
	req := func(key, op string, values ...any) any {
		return map[string]any{"key": key, "operator": op, "values": values}
	}
	const family, typ, name = "karpenter.k8s.aws/instance-family", "node.kubernetes.io/instance-type", "karpenter.k8s.aws/instance-gpu-name"
	for _, c := range []struct {
		reqs  []any
		named int // GF-DATA-002 findings: the fixture's ComputeClass, and this NodePool's when it names one
	}{
		{[]any{req(family, "In", "g6", "g9x")}, 2},
		{[]any{req(family, "In", "g6", "g9x"), req(family, "NotIn", "g9x")}, 1},
		{[]any{req(typ, "In", "g6.xlarge"), req(family, "In", "g6", "g9x"), req(name, "In", "rtx9000")}, 1},
		{[]any{req(typ, "In", "g9x.xlarge", "g6.xlarge"), req(family, "In", "g6")}, 1},
		{[]any{req(typ, "In", "g9x.xlarge", "g1-small", "m5.large", 1.0)}, 2},
		{[]any{req(name, "In", "l4", "rtx9000", 1e-7, map[string]any{"a": 1.0}, []any{1.0})}, 2},
		{[]any{req(family, "In", "g6"), req(name, "In", "rtx9000")}, 1},
		{[]any{req(family, "In", "p6e-gb200", "p6-b300", "g1-small")}, 2},
	} {
		var objects []any
		for _, o := range base {
			o := deepCopyValue(o).(map[string]any)
			if o["kind"] == "NodePool" && get(o, nil, "metadata", "name") == "blackwell-train" {
				o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["requirements"] = c.reqs
			}
			objects = append(objects, o)
		}
		label := "catalog_unknown_node_types.yaml with " + show(c.reqs)
		compareKube(t, bundle, clusters, label, objects)
		if got := len(arr(goKubeDocuments(t, manifestPlan(t, "x.yaml", objects), clusters).unjudged)); got != c.named {
			t.Errorf("%s: %d GF-DATA-002 findings, want %d", label, got, c.named)
		}
	}
}
