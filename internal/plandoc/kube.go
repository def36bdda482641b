package plandoc

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	json "github.com/segmentio/encoding/json"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Kubernetes autoscaler objects (policies/gpufleet/documents_kube.rego, function for function):
// Karpenter NodePools joined with their node class (EC2NodeClass, or EKS Auto Mode's NodeClass)
// and the NodeOverlays that select them, and GKE ComputeClasses, from YAML manifests
// (ReadManifests) or from a plan's kubernetes_manifest and kubectl_manifest resources.

// kubeObject is one Kubernetes object: the plan address of its resource ("" for a manifest file's
// object, whose address is "<Kind>/<name>"), the file it came from, and the object.
type kubeObject struct {
	key  string
	path string
	obj  map[string]any
}

// ManifestFile is one file of Kubernetes manifests: YAML (one or more documents) or JSON.
type ManifestFile struct {
	Path string
	Data []byte
}

// ReadManifests reads Kubernetes objects from files of YAML or JSON manifests (kubectl apply -f
// and helm template write them): every document, a List's items, and a JSON array's elements,
// all judged together as conftest --combine judges them (a NodePool's node class may be in another
// file). Empty documents are skipped; anything that is not a Kubernetes object (no apiVersion and
// kind) is an error naming the file, as is input without any object.
func ReadManifests(files []ManifestFile) (*Plan, error) {
	p := &Plan{kubeComplete: true}
	for _, f := range files {
		docs, err := manifestDocuments(f.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		for i, d := range docs {
			items, ok := kubeItems(d)
			if !ok {
				return nil, fmt.Errorf("%s: document %d is not a Kubernetes object (no apiVersion and kind)", f.Path, i+1)
			}
			for _, o := range items {
				p.objects = append(p.objects, kubeObject{path: f.Path, obj: o})
			}
		}
	}
	if len(p.objects) == 0 {
		return nil, errors.New("the input holds no Kubernetes object")
	}
	if err := duplicateObjects(p.objects); err != nil {
		return nil, err
	}
	return p, nil
}

// DuplicateObjectsError is ReadManifests' refusal of manifests that declare one NodePool,
// ComputeClass or node class several times, in the words of the bundle's GF-INPUT-003.
type DuplicateObjectsError struct{ msg string }

func (e *DuplicateObjectsError) Error() string { return e.msg }

// duplicateObjects refuses manifests that declare one NodePool, ComputeClass or node class several
// times, in the words of the bundle's GF-INPUT-003 (documents_kube.rego's duplicate_objects, which
// sorts them by API group, kind and name, each with its files sorted): several clusters' objects,
// or a base and its patch, whose joins and files would be mixed up.
func duplicateObjects(objects []kubeObject) error {
	type key struct{ group, kind, name string }
	files := map[key][]string{}
	var keys []key
	for _, o := range objects {
		kind, _ := o.obj["kind"].(string)
		apiVersion, _ := o.obj["apiVersion"].(string)
		v, _ := at(o.obj, "metadata", "name")
		name, named := v.(string)
		if !named || (kind != "NodePool" && kind != "ComputeClass" && kind != "EC2NodeClass" && kind != "NodeClass") {
			continue
		}
		group, _, _ := strings.Cut(apiVersion, "/")
		k := key{group, kind, name}
		if files[k] == nil {
			keys = append(keys, k)
		}
		files[k] = append(files[k], o.path)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(strings.Compare(a.group, b.group), strings.Compare(a.kind, b.kind), strings.Compare(a.name, b.name))
	})
	for _, k := range keys {
		if paths := files[k]; len(paths) > 1 {
			slices.Sort(paths)
			return &DuplicateObjectsError{fmt.Sprintf("%s: %s/%s is declared %d times (%s): a cluster holds one object of a kind and name, so these are several clusters' objects or a base and its patch, whose node classes and files are mixed up when judged together; judge each cluster's manifests on their own, as kubectl applies them: one conftest run per cluster directory, or kustomize build | conftest test --combine -", paths[0], k.kind, k.name, len(paths), strings.Join(paths, ", "))}
		}
	}
	return nil
}

// ManifestPaths are the files gpufleet-policy documents reads for its arguments, taken as conftest
// test takes them (runner.parseFileList and getWalkFn, conftest v0.71.1), so that the documents'
// files name what conftest --combine's findings name:
//   - a file (or - for standard input) as it is; a path that does not exist too: reading it tells
//     what is wrong with it;
//   - a directory, its .yaml, .yml and .json files at any depth in path order (a GitOps repository's
//     cluster directory), named by the directory's path joined with theirs; a symbolic link is
//     followed, a linked directory walked and a linked file named under its target's path, and a
//     link to nothing is an error, as in conftest; a file of another format conftest reads (a
//     Dockerfile, .tf, .gitignore, .env …), which the bundle fails with GF-INPUT-001, is an error
//     naming it;
//   - a file reached twice is read once: conftest keys the files it parses by name;
//   - with ignore (conftest's --ignore), files whose path matches are passed over, in a directory
//     (matched before a link is followed) and when named.
//
// A directory that holds no file to read, or arguments that leave none, are refused.
func ManifestPaths(args []string, ignore *regexp.Regexp) ([]string, error) {
	var paths []string
	seen := map[string]bool{}
	add := func(path string) {
		if !seen[path] {
			seen[path] = true
			paths = append(paths, path)
		}
	}
	for _, arg := range args {
		if arg == "" {
			continue
		}
		if arg == "-" {
			add(arg)
			continue
		}
		if info, err := os.Stat(arg); err != nil || !info.IsDir() {
			if ignore == nil || !ignore.MatchString(arg) {
				add(arg)
			}
			continue
		}
		found := 0
		err := filepath.Walk(arg, manifestWalk(map[string]bool{}, ignore, func(path string) {
			found++
			add(path)
		}))
		if err != nil {
			return nil, err
		}
		if found == 0 {
			return nil, fmt.Errorf("%s: the directory holds no .yaml, .yml or .json file", arg)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no file to read in %s", strings.Join(args, ", "))
	}
	return paths, nil
}

// ReadManifestFiles reads the files ManifestPaths names for ReadManifests: - from stdin, named
// stdinName where it is not empty (conftest's --stdin-filename), - otherwise, as conftest names it.
func ReadManifestFiles(paths []string, stdin io.Reader, stdinName string) ([]ManifestFile, error) {
	files := make([]ManifestFile, 0, len(paths))
	for _, path := range paths {
		var raw []byte
		var err error
		if path == "-" {
			if stdin == nil {
				return nil, errors.New("- names standard input, and there is none")
			}
			raw, err = io.ReadAll(stdin)
			if stdinName != "" {
				path = stdinName
			}
		} else {
			raw, err = os.ReadFile(path)
		}
		if err != nil {
			return nil, err
		}
		files = append(files, ManifestFile{Path: path, Data: raw})
	}
	return files, nil
}

// ConftestUnread are the lines of data, a file of YAML manifests, that start a document conftest
// test never reads although kubectl applies it: conftest (parser/yaml, v0.71.1) splits a file
// into documents only at lines of "---" alone, with the file's line ending (CRLF if any line has
// one), and reads only the first document of each part (sigs.k8s.io/yaml). kubectl's YAML reader
// also takes "--- " and "--- # comment" as separators, and "---" with either ending, so a NodePool
// after such a line passes conftest unjudged (TestConftest_separatorsConftestSkips runs conftest
// on each case). Each line returned is the separator of a document with content that conftest
// skips; a comment or blank document is not reported.
func ConftestUnread(data []byte) []int {
	linebreak := []byte("\n")
	if bytes.Contains(data, []byte("\r\n")) {
		linebreak = []byte("\r\n")
	}
	sep := slices.Concat(linebreak, []byte("---"), linebreak)
	var unread []int
	line := 1
	for {
		part, rest, found := bytes.Cut(data, sep)
		unread = append(unread, unreadIn(part, line)...)
		if !found {
			return unread
		}
		line += bytes.Count(part, []byte("\n")) + 2
		data = rest
	}
}

// unreadIn is ConftestUnread for one of conftest's parts, starting at line: as go-yaml reads a
// stream, a separator starts the first document when only comments, blank lines and directives
// precede it, and a new document otherwise; conftest keeps the first.
func unreadIn(part []byte, line int) []int {
	var unread []int
	docs, content, sepLine := 0, false, 0
	for n := line; len(part) > 0; n++ {
		var l []byte
		l, part, _ = bytes.Cut(part, []byte("\n"))
		if after, ok := bytes.CutPrefix(l, []byte("---")); ok {
			if t := bytes.TrimSpace(after); len(t) == 0 || t[0] == '#' {
				switch {
				case docs == 0 && !content:
					docs = 1
				case docs == 0:
					docs = 2
				default:
					docs++
				}
				content, sepLine = false, n
				continue
			}
		}
		if t := bytes.TrimSpace(l); len(t) == 0 || t[0] == '#' || t[0] == '%' || content {
			continue
		}
		content = true
		if docs >= 2 {
			unread = append(unread, sepLine)
		}
	}
	return unread
}

// manifestWalk is conftest's walk function (runner.getWalkFn) for manifests: each directory walked
// once by its path, links followed.
func manifestWalk(visited map[string]bool, ignore *regexp.Regexp, add func(string)) filepath.WalkFunc {
	return func(path string, info fs.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			if visited[path] {
				return filepath.SkipDir
			}
			visited[path] = true
			return nil
		}
		if ignore != nil && ignore.MatchString(path) {
			return nil
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(path)
			if err != nil {
				return fmt.Errorf("%s: the link leads nowhere: %w", path, err)
			}
			targetInfo, err := os.Stat(target)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if targetInfo.IsDir() {
				return filepath.Walk(target, manifestWalk(visited, ignore, add))
			}
			path = target
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			add(path)
		default:
			if format := conftestFormat(path); format != "" {
				return fmt.Errorf("%s: conftest test reads this file too (as %s) and the bundle fails it with GF-INPUT-001, as it holds no Kubernetes manifest nor plan; pass it over with --ignore REGEX, given to conftest too", path, format)
			}
		}
		return nil
	}
}

// conftestFormat is the format conftest test parses a file of a directory as, other than YAML and
// JSON ("" for a file it passes over): conftest v0.71.1's parser.NewFromPath (a Dockerfile,
// Terraform and HCL, ignore files, .env files, nginx.conf, Jenkinsfiles, text protos, CODEOWNERS,
// and the extensions named after its parsers). TestConftest_filesOfADirectory checks a file of
// each against conftest.
func conftestFormat(path string) string {
	name := strings.ToLower(filepath.Base(path))
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	switch {
	case name == "dockerfile" || strings.HasPrefix(name, "dockerfile.") || ext == "dockerfile":
		return "a Dockerfile"
	case ext == "hcl" || ext == "tf" || ext == "tfvars":
		return "HCL"
	case ext == "gitignore" || ext == "dockerignore":
		return "an ignore file"
	case name == ".env" || strings.HasPrefix(name, ".env.") || ext == "env":
		return "a .env file"
	case name == "nginx.conf":
		return "nginx configuration"
	case name == "jenkinsfile" || strings.HasPrefix(name, "jenkinsfile."):
		return "a Jenkinsfile"
	case ext == "textproto" || ext == "textpb":
		return "a text proto"
	case name == "codeowners":
		return "CODEOWNERS"
	}
	switch ext {
	case "codeowners", "cue", "cyclonedx", "edn", "groovy", "hcl1", "hcl2", "hocon", "ignore", "ini", "jsonc", "jsonnet", "nginx", "properties", "spdx", "toml", "vcl", "xml", "dotenv":
		return ext
	}
	return ""
}

// manifestDocuments are the YAML documents of data as JSON values (sigs.k8s.io/yaml, as conftest
// and OPA convert YAML), nulls left out.
func manifestDocuments(data []byte) ([]any, error) {
	r := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []any
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		raw, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		if v != nil {
			out = append(out, v)
		}
	}
}

// kubeItems is inputs.objects of one document: a Kubernetes object, a List's items that are
// objects, or the objects of an array (of objects and nulls); false for anything else.
func kubeItems(d any) ([]map[string]any, bool) {
	list := []any{d}
	if a, ok := d.([]any); ok {
		list = a
		if !slices.ContainsFunc(a, isKubeObject) {
			return nil, false
		}
	}
	var out []map[string]any
	for _, e := range list {
		if e == nil && len(list) > 1 || e == nil && isArray(d) {
			continue
		}
		if !isKubeObject(e) {
			return nil, false
		}
		o := e.(map[string]any)
		if o["kind"] == "List" && isArray(o["items"]) {
			for _, i := range o["items"].([]any) {
				if isKubeObject(i) {
					out = append(out, i.(map[string]any))
				}
			}
			continue
		}
		out = append(out, o)
	}
	return out, true
}

// isKubeObject is inputs.kube_object.
func isKubeObject(v any) bool {
	o, ok := v.(map[string]any)
	return ok && isString(o["apiVersion"]) && isString(o["kind"])
}

// planKubeObjects are documents.kube_objects of a plan: the objects of its kubernetes_manifest
// (manifest) and kubectl_manifest (yaml_body) resources, under their addresses.
func (p *Plan) planKubeObjects() {
	for i := range p.changes {
		rc := &p.changes[i]
		if rc.Type != "kubernetes_manifest" && rc.Type != "kubectl_manifest" {
			continue
		}
		c, ok := rc.decodeChange()
		if !ok {
			continue
		}
		a, ok := rc.planned(c)
		if !ok {
			continue
		}
		var o any
		if rc.Type == "kubernetes_manifest" {
			o = a["manifest"]
		} else if body, ok := a["yaml_body"].(string); ok {
			if raw, err := yaml.YAMLToJSON([]byte(body)); err == nil {
				_ = json.Unmarshal(raw, &o)
			}
		}
		if m, ok := o.(map[string]any); ok {
			p.objects = append(p.objects, kubeObject{key: rc.Address, obj: m})
		}
	}
	p.kubeComplete = true
}

// kubeIndex holds what the builders look up across objects, computed once per plan.
type kubeIndex struct {
	nodePools      []kubeObject
	computeClasses []kubeObject
	overlays       []map[string]any
	nodeClasses    map[string]map[string]any
	summaries      []npSummary
}

// kube indexes the plan's objects (once; Build calls it before it builds documents).
func (p *Plan) kube() *kubeIndex {
	if p.kubeIdx != nil {
		return p.kubeIdx
	}
	k := &kubeIndex{nodeClasses: map[string]map[string]any{}}
	ofKind := func(group, kind string) []kubeObject {
		var out []kubeObject
		for _, o := range p.objects {
			if o.obj["kind"] == kind && strings.HasPrefix(o.obj["apiVersion"].(string), group) {
				out = append(out, o)
			}
		}
		return out
	}
	k.nodePools = ofKind("karpenter.sh/", "NodePool")
	k.computeClasses = ofKind("cloud.google.com/", "ComputeClass")
	for _, o := range ofKind("karpenter.sh/", "NodeOverlay") {
		k.overlays = append(k.overlays, o.obj)
	}
	for _, o := range append(ofKind("karpenter.k8s.aws/", "EC2NodeClass"), ofKind("eks.amazonaws.com/", "NodeClass")...) {
		name, ok := at(o.obj, "metadata", "name")
		if !ok || !isString(name) {
			continue
		}
		key := strings.Split(o.obj["apiVersion"].(string), "/")[0] + "/" + o.obj["kind"].(string) + "/" + name.(string)
		if _, seen := k.nodeClasses[key]; !seen {
			k.nodeClasses[key] = o.obj
		}
	}
	for _, o := range k.nodePools {
		if s, ok := summarise(o.obj); ok {
			k.summaries = append(k.summaries, s)
		}
	}
	p.kubeIdx = k
	return k
}

// kubeAddress is documents._kube_address.
func kubeAddress(o kubeObject) string {
	if o.key != "" {
		return o.key
	}
	if name, ok := at(o.obj, "metadata", "name"); ok && isString(name) {
		return o.obj["kind"].(string) + "/" + name.(string)
	}
	return o.obj["kind"].(string) + "/(no name)"
}

// kubePools is documents.kube_pools: the documents of the GPU NodePools, then of the GPU
// ComputeClasses.
func (p *Plan) kubePools() ([]Pool, error) {
	if len(p.objects) == 0 {
		return nil, nil
	}
	k := p.kube()
	var out []Pool
	add := func(address, file string, doc map[string]any) error {
		if doc == nil {
			return nil
		}
		if f, ok := documentFit(doc); ok {
			doc["fit"] = f
		}
		raw, err := appendJSON(nil, doc)
		if err != nil {
			return fmt.Errorf("encoding the document of %s: %w", address, err)
		}
		out = append(out, Pool{Address: address, Document: raw, File: file})
		return nil
	}
	for _, o := range k.nodePools {
		address := kubeAddress(o)
		if err := add(address, o.path, p.nodePoolDocument(k, address, o.obj)); err != nil {
			return nil, err
		}
	}
	for _, o := range k.computeClasses {
		address := kubeAddress(o)
		if err := add(address, o.path, p.computeClassDocument(address, o.obj)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

// kubeLabels is documents._kube_labels.
func kubeLabels(meta, node any) map[string]any {
	out := map[string]any{}
	for k, v := range obj(meta) {
		if strings.HasPrefix(k, "gpufleet.io/") {
			out[k] = v
		}
	}
	for k, v := range obj(node) {
		out[k] = v
	}
	return out
}

// kubeWaivers is documents._kube_waivers.
func kubeWaivers(annotations any) map[string]any {
	out := map[string]any{}
	for k, v := range obj(annotations) {
		if strings.HasPrefix(k, "gpufleet.io/waive-") && isString(v) {
			out[strings.ToUpper(strings.TrimPrefix(k, "gpufleet.io/waive-"))] = v
		}
	}
	return out
}

// metaCluster is documents._meta_cluster.
func metaCluster(o any) (string, bool) {
	for _, field := range []string{"labels", "annotations"} {
		if c, ok := at(o, "metadata", field, "gpufleet.io/cluster"); ok && isString(c) {
			return c.(string), true
		}
	}
	return "", false
}

// kubeCluster is documents._kube_cluster.
func kubeCluster(o any, nodeClass map[string]any) any {
	if c, ok := metaCluster(o); ok {
		return c
	}
	if nodeClass == nil {
		return nil
	}
	if c, ok := metaCluster(nodeClass); ok {
		return c
	}
	found := map[string]bool{}
	for _, t := range arr(get(nodeClass, nil, "spec", "subnetSelectorTerms")) {
		if c, ok := at(t, "tags", "karpenter.sh/discovery"); ok && isString(c) {
			found[c.(string)] = true
		}
	}
	if len(found) == 1 {
		for c := range found {
			return c
		}
	}
	return nil
}

var awsZone = regexp.MustCompile(`^[a-z]+-[a-z]+-[0-9]+[a-z]$`)

// zoneRegion is documents._zone_region.
func zoneRegion(cloud, z string) (string, bool) {
	if cloud == "aws" {
		if awsZone.MatchString(z) {
			return z[:len(z)-1], true
		}
		return "", false
	}
	if gcpIsZone(z) {
		return gcpRegion(z), true
	}
	return "", false
}

// kubeRegion is documents._kube_region, with the cluster registry of the policy data given to
// SetClusters (data.gpufleet.clusters).
func (p *Plan) kubeRegion(cloud string, zones, regions []string, cluster any) any {
	rs := map[string]bool{}
	for _, z := range zones {
		if r, ok := zoneRegion(cloud, z); ok {
			rs[r] = true
		}
	}
	if len(rs) == 1 {
		for r := range rs {
			return r
		}
	}
	if len(zones) == 0 && len(regions) == 1 {
		return regions[0]
	}
	if len(zones) == 0 && len(regions) == 0 {
		if name, ok := cluster.(string); ok {
			c, ok := p.clusters[name]
			if ok && get(c, nil, "cloud") == cloud {
				if r, ok := at(c, "region"); ok {
					return r
				}
			}
		}
	}
	return nil
}

// regoV is sprintf("%v", [x]) of a scalar as OPA writes it.
func regoV(x any) string {
	switch v := x.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return "null"
	}
	raw, _ := json.Marshal(x)
	return string(raw)
}

// toNumber is to_number of a number or a numeric string.
func toNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case nil:
		return 0, true
	}
	return 0, false
}

// ---------------------------------------------------------------------------------------------
// Requirements
// ---------------------------------------------------------------------------------------------

// oneAdmits is documents._one_admits: requirement r says nothing against value v of key.
func oneAdmits(r any, key string, v any, vDefined bool) bool {
	rk, ok := at(r, "key")
	if !ok {
		return false
	}
	if rk != key {
		return true
	}
	op, hasOp := at(r, "operator")
	values := func() map[string]bool {
		s := map[string]bool{}
		for _, x := range arr(get(r, nil, "values")) {
			s[regoV(x)] = true
		}
		return s
	}
	switch {
	case !hasOp || !isString(op):
		return false
	case op == "In":
		return vDefined && isString(v) && values()[v.(string)]
	case op == "NotIn":
		return vDefined && (!isString(v) || !values()[v.(string)])
	case op == "Exists":
		return true
	case op == "Gt" || op == "Lt" || op == "Gte" || op == "Lte":
		first, ok := at(r, "values", 0)
		if !ok || !vDefined {
			return false
		}
		a, ok1 := toNumber(v)
		b, ok2 := toNumber(first)
		if !ok1 || !ok2 {
			return false
		}
		switch op {
		case "Gt":
			return a > b
		case "Gte":
			return a >= b
		case "Lte":
			return a <= b
		}
		return a < b
	case op == "DoesNotExist":
		return false
	}
	return true
}

// reqAdmits is documents._req_admits.
func reqAdmits(reqs []any, key string, v any) bool {
	for _, r := range reqs {
		if !oneAdmits(r, key, v, true) {
			return false
		}
	}
	return true
}

// reqIn is documents._req_in: the sorted In values of key.
func reqIn(reqs []any, key string) []string {
	return inValues(reqs, key, func(x any) (string, bool) { return regoV(x), true })
}

// reqInStrings is documents._req_in_strings: the sorted string In values of key.
func reqInStrings(reqs []any, key string) []string {
	return inValues(reqs, key, func(x any) (string, bool) { s, ok := x.(string); return s, ok })
}

// inValues are the In values of key that value keeps, as it writes them, sorted once each.
func inValues(reqs []any, key string, value func(any) (string, bool)) []string {
	s := map[string]bool{}
	for _, r := range reqs {
		if get(r, nil, "key") == key && get(r, nil, "operator") == "In" {
			for _, x := range arr(get(r, nil, "values")) {
				if v, ok := value(x); ok {
					s[v] = true
				}
			}
		}
	}
	out := make([]string, 0, len(s)) // [], not null, where a document writes them
	for v := range s {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

var karpenterKeys = []string{"instance-family", "instance-category", "instance-generation", "instance-gpu-name", "instance-gpu-count", "instance-gpu-memory", "instance-gpu-manufacturer"}

var (
	gpuNameSuffix  = regexp.MustCompile(`-[0-9]+GB$`)
	digits         = regexp.MustCompile(`[0-9]+`)
	gpuFamilyValue = regexp.MustCompile(`^(p[0-9]?|gr?[0-9]?)[a-z]*(-[a-z]+[0-9]+[a-z0-9]*)?(\.|$)`) // documents._gpu_shape
	gpuMachine     = regexp.MustCompile(`^(a[0-9]|g[2-9])`)
)

// awsFeatures is documents._aws_features, once per process.
var awsFeatures = sync.OnceValue(func() map[string]map[string]any {
	out := map[string]map[string]any{}
	for t, it := range obj(get(policyCatalog(), nil, "aws_instance_types")) {
		family, _ := get(it, "", "family").(string)
		model, _ := get(it, "", "gpu_model").(string)
		mem, ok := get(policyCatalog(), nil, "gpus", model, "memory_gib").(float64)
		gen := digits.FindString(family)
		if !ok || gen == "" {
			continue
		}
		category := family[:min(1, len(family))]
		if strings.HasPrefix(family, "gr") {
			category = family[:2]
		}
		out[t] = map[string]any{
			"instance-family":           family,
			"instance-category":         category,
			"instance-generation":       gen,
			"instance-gpu-name":         strings.ToLower(gpuNameSuffix.ReplaceAllString(model, "")),
			"instance-gpu-count":        regoV(get(it, nil, "gpu_count")),
			"instance-gpu-memory":       regoV(mem * 1024),
			"instance-gpu-manufacturer": "nvidia",
		}
	}
	return out
})

// npCandidates is documents._np_candidates.
func npCandidates(reqs []any, prefix string) []string {
	features := awsFeatures()
	admits := func(f map[string]any) bool {
		for _, k := range karpenterKeys {
			if !reqAdmits(reqs, prefix+k, f[k]) {
				return false
			}
		}
		return true
	}
	var out []string
	if named := reqIn(reqs, "node.kubernetes.io/instance-type"); len(named) > 0 {
		for _, t := range named {
			if f, ok := features[t]; ok && admits(f) {
				out = append(out, t)
			}
		}
		return out
	}
	for t, f := range features {
		if reqAdmits(reqs, "node.kubernetes.io/instance-type", t) && admits(f) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// npGPU is documents._np_gpu.
func npGPU(reqs []any, prefix string, taints any, limits map[string]any) bool {
	for _, r := range reqs {
		key, op := get(r, nil, "key"), get(r, nil, "operator")
		switch key {
		case prefix + "instance-gpu-name", prefix + "instance-gpu-manufacturer", prefix + "instance-gpu-memory":
			if gpuOperators[op] {
				return true
			}
		case prefix + "instance-gpu-count":
			values, _ := at(r, "values")
			noGPU := op == "In" && isArray(values) && len(values.([]any)) == 1 && values.([]any)[0] == "0"
			if gpuOperators[op] && !noGPU {
				return true
			}
		}
	}
	for _, r := range reqs {
		key := get(r, nil, "key")
		if (key == "node.kubernetes.io/instance-type" || key == prefix+"instance-family" || key == prefix+"instance-category") && get(r, nil, "operator") == "In" {
			for _, v := range arr(get(r, nil, "values")) {
				if s, ok := v.(string); ok && gpuFamilyValue.MatchString(s) {
					return true
				}
			}
		}
	}
	for _, t := range arr(taints) {
		if get(t, nil, "key") == "nvidia.com/gpu" {
			return true
		}
	}
	v, ok := limits["nvidia.com/gpu"]
	return truthy(v, ok)
}

// gpuOperators are documents._gpu_operators.
var gpuOperators = map[any]bool{"In": true, "Exists": true, "Gt": true, "Gte": true, "Lt": true, "Lte": true}

// kubeUnjudged is documents.kube_unjudged: the GPU NodePools and ComputeClasses that admit node
// types the catalog does not know (GF-DATA-002), NodePools first, in the input's order.
func (p *Plan) kubeUnjudged() []Unjudged {
	if len(p.objects) == 0 {
		return nil
	}
	k := p.kube()
	var out []Unjudged
	for _, o := range k.nodePools {
		tmpl, ok := get(o.obj, map[string]any{}, "spec", "template", "spec").(map[string]any)
		if !ok {
			continue
		}
		reqs := arr(get(tmpl, []any{}, "requirements"))
		prefix := npPrefix(get(tmpl, nil, "nodeClassRef", "group"))
		unknown := npUnknown(reqs, prefix)
		if len(unknown) == 0 {
			continue
		}
		consequence := "the GPU memory, right-sizing and cost checks judged only the catalog's instance types it admits, not those nodes Karpenter may also launch"
		if len(npCandidates(reqs, prefix)) == 0 {
			consequence = "the gpufleet rules judged it as a GPU pool of unknown GPU model: the GPU memory, right-sizing and cost checks could not judge it"
		}
		out = append(out, Unjudged{"GF-DATA-002", kubeAddress(o), "spec.template.spec.requirements", fmt.Sprintf("its requirements admit %s, which the gpufleet catalog does not know, so %s; name instance types the catalog lists (the gpufleet_gpu_catalog data source), or judge it with a gpufleet release whose catalog has them", strings.Join(unknown, ", "), consequence)})
	}
	for _, o := range k.computeClasses {
		var unknown []string
		for i, pr := range arr(get(o.obj, []any{}, "spec", "priorities")) {
			if ccGPUPriority(pr) && ccModel(pr) == nil {
				unknown = append(unknown, fmt.Sprintf("priority %d (%s)", i+1, ccNamed(pr)))
			}
		}
		if len(unknown) > 0 {
			out = append(out, Unjudged{"GF-DATA-002", kubeAddress(o), "spec.priorities", fmt.Sprintf("the gpufleet catalog cannot tell the GPU model of %s, so the class's GPU model is unknown and the GPU memory, right-sizing and cost checks could not judge those priorities' nodes; name a gpu.type or machine type the catalog lists (the gpufleet_gpu_catalog data source), or judge it with a gpufleet release whose catalog has them", strings.Join(unknown, ", "))})
		}
	}
	return out
}

// npUnknown is documents._np_unknown: what a NodePool's In requirements name that the catalog
// does not know, of what Karpenter may launch: its instance types when it names them, else its
// families, else its GPU names.
func npUnknown(reqs []any, prefix string) []string {
	const typeKey = "node.kubernetes.io/instance-type"
	familyKey, nameKey := prefix+"instance-family", prefix+"instance-gpu-name"
	families, names := catalogFamiliesAndGPUNames()
	var out []string
	switch {
	case len(reqIn(reqs, typeKey)) > 0:
		for _, t := range reqInStrings(reqs, typeKey) {
			if _, known := at(policyCatalog(), "aws_instance_types", t); gpuFamilyValue.MatchString(t) && !known &&
				reqAdmits(reqs, typeKey, t) && reqAdmits(reqs, familyKey, strings.Split(t, ".")[0]) {
				out = append(out, "instance type "+t)
			}
		}
	case len(reqIn(reqs, familyKey)) > 0:
		for _, f := range reqInStrings(reqs, familyKey) {
			if gpuFamilyValue.MatchString(f) && !families[f] && reqAdmits(reqs, familyKey, f) {
				out = append(out, "instance family "+f)
			}
		}
	default:
		for _, g := range reqInStrings(reqs, nameKey) {
			if !names[g] && reqAdmits(reqs, nameKey, g) {
				out = append(out, "GPU "+g)
			}
		}
	}
	return out
}

// catalogFamiliesAndGPUNames are documents._catalog_families and _catalog_gpu_names.
var catalogFamiliesAndGPUNames = sync.OnceValues(func() (families, names map[string]bool) {
	families, names = map[string]bool{}, map[string]bool{}
	for _, it := range obj(get(policyCatalog(), nil, "aws_instance_types")) {
		if f, ok := get(it, nil, "family").(string); ok {
			families[f] = true
		}
		if m, ok := get(it, nil, "gpu_model").(string); ok {
			names[strings.ToLower(gpuNameSuffix.ReplaceAllString(m, ""))] = true
		}
	}
	return families, names
})

// npCapacityTypes is documents._np_capacity_types (nc: the node class, nil when not known).
func npCapacityTypes(reqs []any, nc map[string]any) []string {
	var out []string
	for _, c := range []string{"on-demand", "reserved", "spot"} {
		if !reqAdmits(reqs, "karpenter.sh/capacity-type", c) {
			continue
		}
		if c == "reserved" && !slices.Contains(reqIn(reqs, "karpenter.sh/capacity-type"), "reserved") &&
			(nc == nil || len(arr(get(nc, []any{}, "spec", "capacityReservationSelectorTerms"))) == 0) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// quantityString is a Kubernetes quantity the builders read (documents._count's expression): at
// most 18 digits before the point, 9 after it (the API server keeps nanos) and an exponent of 2
// digits, so that every value read is a finite float64 in both builders.
var quantityString = regexp.MustCompile(`^([+-]?([0-9]{1,18}(\.[0-9]{0,9})?|\.[0-9]{1,9}))([KMGTPE]i|[mkMGTPE]|[eE][+-]?[0-9]{1,2})?$`)

// quantityUnits are the multipliers of units.parse (OPA topdown/parse_units.go), whose result the
// Rego builder reads: m is the float64 0.001, as there.
var quantityUnits = map[string]*big.Rat{
	"": big.NewRat(1, 1), "m": new(big.Rat).SetFloat64(0.001),
	"k": big.NewRat(1e3, 1), "M": big.NewRat(1e6, 1), "G": big.NewRat(1e9, 1), "T": big.NewRat(1e12, 1), "P": big.NewRat(1e15, 1), "E": big.NewRat(1e18, 1),
	"Ki": big.NewRat(1<<10, 1), "Mi": big.NewRat(1<<20, 1), "Gi": big.NewRat(1<<30, 1), "Ti": big.NewRat(1<<40, 1), "Pi": big.NewRat(1<<50, 1), "Ei": big.NewRat(1<<60, 1),
}

// npGPULimit is a NodePool's GPU limit: nvidia.com/gpu, else the sum of its MIG slices' limits
// (nvidia.com/mig-<profile>, what nodes advertise under the GPU Operator's mixed MIG strategy);
// nil without either.
func npGPULimit(limits any) any {
	if g := kubeCount(get(limits, nil, "nvidia.com/gpu")); g != nil {
		return g
	}
	m, _ := limits.(map[string]any)
	// Summed as OPA's sum does (topdown/aggregates.go): big.Float of each number's decimal text, in
	// the bundle's order (the keys sorted), the result as its shortest text.
	var sum *big.Float
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if n, ok := kubeCount(m[k]).(float64); ok && strings.HasPrefix(k, "nvidia.com/mig-") {
			if sum == nil {
				sum = new(big.Float)
			}
			x, _ := new(big.Float).SetString(strconv.FormatFloat(n, 'g', -1, 64))
			sum.Add(sum, x)
		}
	}
	if sum == nil {
		return nil
	}
	f, _ := strconv.ParseFloat(sum.Text('g', -1), 64)
	return f
}

// kubeCount is documents._count: a Kubernetes quantity as a number (a number as it is; a string
// such as "8", "8.0", "500m", "1k", "2Ki", "1e3", as the API server reads it and computed as
// units.parse computes it: exactly, an integer as it is and a fraction to 10 decimals), nil for
// anything else.
func kubeCount(q any) any {
	switch v := q.(type) {
	case float64:
		return v
	case string:
		m := quantityString.FindStringSubmatch(v)
		if m == nil {
			return nil
		}
		num, unit := m[1], m[4]
		if len(unit) > 1 && (unit[0] == 'e' || unit[0] == 'E') && unit[1] != 'i' { // an exponent
			num, unit = num+unit, ""
		}
		n, ok := new(big.Rat).SetString(strings.TrimPrefix(num, "+"))
		if !ok {
			return nil
		}
		n.Mul(n, quantityUnits[unit])
		text := n.FloatString(10)
		if n.IsInt() {
			text = n.Num().String()
		}
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil
		}
		return f
	}
	return nil
}

func npPrefix(group any) string {
	if group == "eks.amazonaws.com" {
		return "eks.amazonaws.com/"
	}
	return "karpenter.k8s.aws/"
}

func only[T comparable](s map[T]bool) any {
	if len(s) == 1 {
		for x := range s {
			return x
		}
	}
	return nil
}

func stringsAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// ---------------------------------------------------------------------------------------------
// NodePools
// ---------------------------------------------------------------------------------------------

// nodePoolDocument is documents._nodepool_document; nil when the NodePool is not a GPU pool.
func (p *Plan) nodePoolDocument(k *kubeIndex, address string, np map[string]any) map[string]any {
	ref := get(np, map[string]any{}, "spec", "template", "spec", "nodeClassRef")
	if !isObject(ref) {
		return nil // object.get on it is a type error in Rego: no document
	}
	group, kind, name := get(ref, "karpenter.k8s.aws", "group"), get(ref, "EC2NodeClass", "kind"), get(ref, "", "name")
	if !isString(group) || !isString(kind) || !isString(name) {
		return nil
	}
	var nc map[string]any
	var found any
	if c, ok := k.nodeClasses[group.(string)+"/"+kind.(string)+"/"+name.(string)]; ok {
		nc, found = c, true
	} else if p.kubeComplete {
		found = false
	}
	tmplV := get(np, map[string]any{}, "spec", "template", "spec")
	tmpl, ok := tmplV.(map[string]any)
	if !ok {
		return nil
	}
	reqs := arr(get(tmpl, []any{}, "requirements"))
	prefix := npPrefix(get(tmpl, nil, "nodeClassRef", "group"))
	limits := obj(get(np, map[string]any{}, "spec", "limits"))
	if !npGPU(reqs, prefix, get(tmpl, []any{}, "taints"), limits) {
		return nil
	}
	disruptionV := get(np, map[string]any{}, "spec", "disruption")
	if !isObject(disruptionV) {
		return nil
	}
	labels := kubeLabels(get(np, nil, "metadata", "labels"), get(np, nil, "spec", "template", "metadata", "labels"))
	var tags any
	if nc != nil {
		tags = obj(get(nc, map[string]any{}, "spec", "tags"))
	}
	catalogTypes := npCandidates(reqs, prefix)
	candidates := catalogTypes
	if len(candidates) == 0 {
		candidates = reqIn(reqs, "node.kubernetes.io/instance-type")
	}
	models, counts := map[any]bool{}, map[any]bool{}
	for _, t := range catalogTypes {
		models[get(policyCatalog(), nil, "aws_instance_types", t, "gpu_model")] = true
		counts[get(policyCatalog(), nil, "aws_instance_types", t, "gpu_count")] = true
	}
	model, perNode := only(models), only(counts)
	migConfig := conventionMIGConfig(labels)
	advertised := p.advertised(k, np, perNode, catalogTypes, prefix)
	gpu := gpuDocument(model, perNode)
	gpu["mig_config"] = migConfig
	gpu["slice_memory_gib"] = sliceMemory(model, nil, migConfig, false)
	gpu["sharing"] = npSharing(labels, advertised, perNode)
	zones := reqIn(reqs, "topology.kubernetes.io/zone")
	region := p.kubeRegion("aws", zones, reqIn(reqs, "topology.kubernetes.io/region"), kubeCluster(np, nc))
	types := npCapacityTypes(reqs, nc)
	replicas, static := get(np, nil, "spec", "replicas").(float64)
	gpuLimit := npGPULimit(limits)
	maxSize := npMaxNodes(np, limits, advertised)
	scaling := map[string]any{"min_size": 0.0, "max_size": maxSize, "desired_size": nil}
	if static {
		scaling = map[string]any{"min_size": replicas, "max_size": replicas, "desired_size": replicas}
	}
	cbRequired := slices.Contains(reqIn(reqs, "karpenter.k8s.aws/capacity-reservation-type"), "capacity-block")
	capacityBlock := labels["gpufleet.io/capacity-type"] == "capacity-block" || cbRequired
	pct := 0.0
	if slices.Contains(types, "spot") {
		pct = 100.0
	}
	sides := allOrNothingSides(scaling, pct)
	var res any
	switch {
	case capacityBlock:
		res = map[string]any{"type": "capacity-block", "id": nil, "name": nil, "project": nil}
	case slices.Contains(types, "reserved"):
		res = map[string]any{"type": "capacity-reservation", "id": nil, "name": nil, "project": nil}
	}
	cost, assumptions := npCost(catalogTypes, perNode, region, types, maxSize)
	var reservationTerms any
	if nc != nil {
		reservationTerms = float64(len(arr(get(nc, []any{}, "spec", "capacityReservationSelectorTerms"))))
	}
	return map[string]any{
		"address":        address,
		"resource_type":  "NodePool",
		"cloud":          "aws",
		"region":         region,
		"zones":          stringsAny(zones),
		"name":           get(np, nil, "metadata", "name"),
		"labels":         labels,
		"tags":           tags,
		"client":         conventionClient(labels, tags),
		"workload":       conventionWorkload(labels),
		"unread_labels":  conventionUnread(labels),
		"waivers":        kubeWaivers(get(np, nil, "metadata", "annotations")),
		"taints":         normalisedTaints(arr(get(tmpl, []any{}, "taints"))),
		"instance_types": stringsAny(candidates),
		"gpu":            gpu,
		"scaling":        scaling,
		"capacity": map[string]any{
			"spot_percentage": pct,
			"on_demand_base":  0.0,
			"reservation":     res,
			"on_demand":       sides[0],
			"spot":            sides[1],
		},
		"cost":        cost,
		"assumptions": assumptions,
		"autoscaler": map[string]any{
			"kind": "NodePool",
			"node_class": map[string]any{
				"kind":              get(tmpl, nil, "nodeClassRef", "kind"),
				"name":              get(tmpl, nil, "nodeClassRef", "name"),
				"found":             found,
				"reservation_terms": reservationTerms,
			},
			"capacity_types":           stringsAny(types),
			"capacity_block":           capacityBlock,
			"capacity_block_required":  cbRequired,
			"weight":                   get(np, 0.0, "spec", "weight"),
			"static":                   static,
			"gpu_limit":                gpuLimit,
			"advertised_gpus_per_node": advertised,
			"disruption":               npDisruption(disruptionV.(map[string]any), get(tmpl, nil, "expireAfter"), static, get(np, nil, "spec", "template", "metadata", "annotations", "karpenter.sh/do-not-disrupt")),
			"fallback_to":              p.fallbackTo(k, np, types),
		},
	}
}

// advertised is documents._advertised.
func (p *Plan) advertised(k *kubeIndex, np map[string]any, perNode any, candidates []string, prefix string) any {
	if !p.kubeComplete {
		return nil
	}
	var best struct {
		weight  float64
		name    string
		n       float64
		defined bool
	}
	for _, o := range k.overlays {
		if !overlaySelects(o, np, candidates, prefix) {
			continue
		}
		n, ok := kubeCount(get(o, nil, "spec", "capacity", "nvidia.com/gpu")).(float64)
		if !ok {
			continue
		}
		// documents._overlay_weight, _overlay_name: the largest [weight, name, n] (Karpenter's order)
		w, _ := get(o, 0.0, "spec", "weight").(float64)
		name, _ := get(o, "", "metadata", "name").(string)
		if !best.defined || w > best.weight || w == best.weight && (name > best.name || name == best.name && n > best.n) {
			best.weight, best.name, best.n, best.defined = w, name, n, true
		}
	}
	if best.defined {
		return best.n
	}
	return perNode
}

// overlaySelects is documents._overlay_selects.
func overlaySelects(o, np map[string]any, candidates []string, prefix string) bool {
	name, ok := at(np, "metadata", "name")
	if !ok {
		return false
	}
	labels := map[string]any{}
	for k, v := range obj(get(np, map[string]any{}, "spec", "template", "metadata", "labels")) {
		labels[k] = v
	}
	labels["karpenter.sh/nodepool"] = name
	for _, r := range arr(get(o, []any{}, "spec", "requirements")) {
		if !overlayRequirement(r, labels, candidates, prefix) {
			return false
		}
	}
	return true
}

// overlayRequirement is documents._overlay_requirement.
func overlayRequirement(r any, labels map[string]any, candidates []string, prefix string) bool {
	keyV, hasKey := at(r, "key")
	key, isStr := keyV.(string)
	if !hasKey || !isStr {
		return false
	}
	v, defined := labels[key]
	if defined && oneAdmits(r, key, v, true) {
		return true
	}
	if truthy(v, defined) {
		return false
	}
	op, hasOp := at(r, "operator")
	switch {
	case instanceKey(key, prefix):
		features := awsFeatures()
		for _, t := range candidates {
			v, ok := any(t), true
			if key != "node.kubernetes.io/instance-type" {
				f, known := features[t]
				v, ok = f[strings.TrimPrefix(key, prefix)]
				ok = ok && known
			}
			if !ok || !oneAdmits(r, key, v, true) {
				return false
			}
		}
		return true
	case wellKnown(key):
		return hasOp && op != "DoesNotExist"
	}
	return op == "NotIn" || op == "DoesNotExist"
}

// instanceKey is documents._instance_key.
func instanceKey(key, prefix string) bool {
	return key == "node.kubernetes.io/instance-type" || strings.HasPrefix(key, prefix) && slices.Contains(karpenterKeys, strings.TrimPrefix(key, prefix))
}

// wellKnown is documents._well_known.
func wellKnown(key string) bool {
	for _, p := range []string{"karpenter.sh/", "karpenter.k8s.aws/", "eks.amazonaws.com/", "kubernetes.io/", "node.kubernetes.io/", "topology.kubernetes.io/", "topology.k8s.aws/"} {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// npSharing is documents._np_sharing.
func npSharing(labels map[string]any, advertised, perNode any) any {
	s, ok := eksSharing(labels).(map[string]any)
	if !ok {
		return nil
	}
	var replicas any
	a, ok1 := advertised.(float64)
	n, ok2 := perNode.(float64)
	if ok1 && ok2 && a > n && math.Mod(a, n) == 0 {
		replicas = a / n
	}
	return map[string]any{"strategy": s["strategy"], "replicas": replicas}
}

// npMaxNodes is documents._np_max_nodes.
func npMaxNodes(np, limits map[string]any, advertised any) any {
	if r, ok := get(np, nil, "spec", "replicas").(float64); ok {
		return r
	}
	n, nOK := kubeCount(get(limits, nil, "nodes")).(float64)
	g, gOK := kubeCount(get(limits, nil, "nvidia.com/gpu")).(float64)
	a, aOK := advertised.(float64)
	aOK = aOK && a > 0
	switch {
	case nOK && gOK && aOK:
		return math.Min(n, math.Floor(g/a))
	case nOK:
		return n
	case gOK && aOK:
		return math.Floor(g / a)
	}
	return nil
}

// npCost is documents._np_cost.
func npCost(catalogTypes []string, perNode, region any, types []string, nodes any) (map[string]any, []any) {
	n, ok1 := nodes.(float64)
	_, ok2 := perNode.(float64)
	r, ok3 := region.(string)
	if ok1 && ok2 && ok3 {
		key, name := "on_demand_usd", "on-demand"
		if slices.Equal(types, []string{"spot"}) {
			key, name = "spot_usd", "spot"
		}
		lowest, found := 0.0, false
		for _, t := range catalogTypes {
			if price, ok := get(policyCatalog(), nil, "aws_instance_types", t, "prices", r, key).(float64); ok {
				if !found || price < lowest {
					lowest = price
				}
				found = true
			}
		}
		hours, _ := get(policyCatalog(), 730.0, "hours_per_month").(float64)
		if found {
			hourly := n * lowest
			return map[string]any{"hourly_usd": hourly, "monthly_usd": hourly * hours},
				[]any{fmt.Sprintf("cost at the NodePool's limit of %s node(s), each at the lowest %s price of its instance types", regoV(n), name)}
		}
	}
	return map[string]any{"hourly_usd": nil, "monthly_usd": nil}, []any{}
}

// npDisruption is documents._np_disruption.
func npDisruption(d map[string]any, expire any, static bool, doNotDisrupt any) map[string]any {
	policy := get(d, "WhenEmptyOrUnderutilized", "consolidationPolicy")
	busy := policy != "WhenEmpty" && get(d, nil, "consolidateAfter") != "Never" && !static && doNotDisrupt != "true"
	if busy {
		for _, b := range arr(get(d, []any{}, "budgets")) {
			nodes, ok := at(b, "nodes")
			if !ok || (nodes != "0" && nodes != "0%" && nodes != 0.0) {
				continue
			}
			if s, ok := at(b, "schedule"); truthy(s, ok) {
				continue
			}
			reasons := get(b, nil, "reasons")
			if reasons == nil || slices.Contains(arr(reasons), any("Underutilized")) {
				busy = false
				break
			}
		}
	}
	if !isString(expire) {
		expire = "720h"
	}
	return map[string]any{"consolidation_policy": policy, "consolidates_busy_nodes": busy, "expire_after": expire}
}

// npSummary is documents._np_summary.
type npSummary struct {
	name, class, weight any
	types               []string
	static              bool
	gpu                 string // the GPU requirements, compared as a whole
	labels              string // the template labels but gpufleet.io/capacity-type
}

func summarise(np map[string]any) (npSummary, bool) {
	tmpl, ok := get(np, map[string]any{}, "spec", "template", "spec").(map[string]any)
	if !ok {
		return npSummary{}, false
	}
	reqs := arr(get(tmpl, []any{}, "requirements"))
	prefix := npPrefix(get(tmpl, nil, "nodeClassRef", "group"))
	_, static := get(np, nil, "spec", "replicas").(float64)
	gpu, _ := json.Marshal([][]string{reqIn(reqs, "node.kubernetes.io/instance-type"), reqIn(reqs, prefix+"instance-family"), reqIn(reqs, prefix+"instance-gpu-name")})
	labels := map[string]any{}
	for k, v := range obj(get(np, map[string]any{}, "spec", "template", "metadata", "labels")) {
		if k != "gpufleet.io/capacity-type" {
			labels[k] = v
		}
	}
	l, _ := json.Marshal(labels) // map keys sorted: equal maps, equal bytes
	return npSummary{
		name: get(np, "", "metadata", "name"), class: get(tmpl, nil, "nodeClassRef", "name"), weight: get(np, 0.0, "spec", "weight"),
		types: npCapacityTypes(reqs, nil), static: static, gpu: string(gpu), labels: string(l),
	}, true
}

// fallbackTo is documents._np_fallback_to.
func (p *Plan) fallbackTo(k *kubeIndex, np map[string]any, types []string) any {
	if !p.kubeComplete {
		return nil
	}
	me, ok := summarise(np)
	if !slices.Equal(types, []string{"spot"}) || !ok || me.static {
		return []any{}
	}
	var names []string
	for _, s := range k.summaries {
		w, ok1 := s.weight.(float64)
		mw, ok2 := me.weight.(float64)
		name, ok3 := s.name.(string)
		if slices.Equal(s.types, []string{"on-demand"}) && !s.static && s.class == me.class && s.gpu == me.gpu && s.labels == me.labels && ok1 && ok2 && ok3 && w <= mw {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return stringsAny(names)
}

// ---------------------------------------------------------------------------------------------
// ComputeClasses
// ---------------------------------------------------------------------------------------------

func ccGPUPriority(p any) bool {
	if t, ok := at(p, "gpu", "type"); ok && isString(t) {
		return true
	}
	for _, f := range []string{"machineType", "machineFamily"} {
		if s, ok := get(p, "", f).(string); ok && gpuMachine.MatchString(s) {
			return true
		}
	}
	return false
}

// ccModel is documents._cc_model: nil where the catalog cannot tell.
func ccModel(p any) any {
	if t, ok := get(p, nil, "gpu", "type").(string); ok {
		m, _ := at(policyCatalog(), "gke_accelerators", t, "gpu_model")
		return m
	}
	mt, _ := get(p, nil, "machineType").(string)
	if m, ok := at(policyCatalog(), "gke_machine_types", mt, "gpu_model"); ok && isString(m) {
		return m
	}
	if mt, ok := at(p, "machineType"); truthy(mt, ok) {
		return nil
	}
	if f, ok := get(p, nil, "machineFamily").(string); ok {
		return only(familyModels()[f])
	}
	return nil
}

// ccNamed is documents._cc_named: what a priority names of its node.
func ccNamed(p any) string {
	if t, ok := get(p, nil, "gpu", "type").(string); ok {
		return "gpu.type " + t
	}
	if t, ok := get(p, nil, "machineType").(string); ok {
		return "machineType " + t
	}
	return "machineFamily " + regoV(get(p, nil, "machineFamily"))
}

// familyModels is documents._family_models.
var familyModels = sync.OnceValue(func() map[string]map[any]bool {
	out := map[string]map[any]bool{}
	for name, mt := range obj(get(policyCatalog(), nil, "gke_machine_types")) {
		m, ok := get(mt, nil, "gpu_model").(string)
		if !ok {
			continue
		}
		f := strings.Split(name, "-")[0]
		if out[f] == nil {
			out[f] = map[any]bool{}
		}
		out[f][m] = true
	}
	return out
})

// ccCount is documents._cc_count: nil where the catalog cannot tell.
func ccCount(p any) any {
	if c, ok := at(p, "gpu", "count"); ok && isNumber(c) {
		return c
	}
	mt, _ := get(p, nil, "machineType").(string)
	if n, ok := at(policyCatalog(), "gke_machine_types", mt, "gpu_count"); ok && isNumber(n) && n.(float64) > 0 {
		return n
	}
	return nil
}

// ccWithDefaults is documents._cc_with_defaults.
func ccWithDefaults(p, location any) any {
	pm, ok := p.(map[string]any)
	if !ok || !isObject(location) {
		return p
	}
	return objectUnion(map[string]any{"location": location}, pm)
}

// objectUnion is Rego's object.union: b's values win, objects in both merged.
func objectUnion(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		am, aok := out[k].(map[string]any)
		bm, bok := v.(map[string]any)
		if aok && bok {
			out[k] = objectUnion(am, bm)
			continue
		}
		out[k] = v
	}
	return out
}

// ccCommonLabels is documents._cc_common_labels.
func ccCommonLabels(ps []any) map[string]any {
	out := map[string]any{}
	for k, v := range obj(get(ps[0], map[string]any{}, "nodeLabels")) {
		common := true
		for _, p := range ps {
			if !reflect.DeepEqual(get(p, nil, "nodeLabels", k), v) {
				common = false
				break
			}
		}
		if common {
			out[k] = v
		}
	}
	return out
}

// ccCommonTaints is documents._cc_common_taints.
func ccCommonTaints(ps []any) []any {
	out := []any{}
	for _, t := range normalisedTaints(arr(get(ps[0], []any{}, "taints"))) {
		common := true
		for _, p := range ps {
			if !slices.ContainsFunc(normalisedTaints(arr(get(p, []any{}, "taints"))), func(u any) bool { return reflect.DeepEqual(t, u) }) {
				common = false
				break
			}
		}
		if common {
			out = append(out, t)
		}
	}
	return out
}

// ccGPU is documents._cc_gpu.
func ccGPU(model, perNode any, ps []any) map[string]any {
	gpu := gpuDocument(model, perNode)
	var profiles, sharings []any
	shared := false
	for _, p := range ps {
		s := get(p, nil, "gpu", "gpuSharing")
		if s != nil {
			shared = true
		}
		var profile, sharing any
		if size, ok := get(s, nil, "gpuPartitionSize").(string); ok && size != "" {
			profile = size
		}
		profiles = append(profiles, profile)
		if name, ok := get(s, nil, "sharingStrategy").(string); ok && gkeStrategies[name] != "" {
			sharing = map[string]any{"strategy": gkeStrategies[name], "replicas": num(get(s, nil, "maxSharedClientsPerGPU"))}
		}
		sharings = append(sharings, sharing)
	}
	if !shared {
		return gpu
	}
	profile := onlyValue(profiles)
	gpu["mig_profile"] = profile
	gpu["slice_memory_gib"] = sliceMemory(model, profile, nil, false)
	gpu["sharing"] = onlyValue(sharings)
	return gpu
}

// onlyValue is documents._only of the set of values: the value when they are all the same, else nil.
func onlyValue(vs []any) any {
	if len(vs) == 0 {
		return nil
	}
	for _, v := range vs[1:] {
		if !reflect.DeepEqual(v, vs[0]) {
			return nil
		}
	}
	return vs[0]
}

// computeClassDocument is documents._computeclass_document; nil when the class is not a GPU class.
func (p *Plan) computeClassDocument(address string, cc map[string]any) map[string]any {
	priorities := arr(get(cc, []any{}, "spec", "priorities"))
	var gpuPriorities []any
	defaults := get(cc, nil, "spec", "priorityDefaults", "location")
	for _, pr := range priorities {
		if ccGPUPriority(pr) {
			gpuPriorities = append(gpuPriorities, ccWithDefaults(pr, defaults))
		}
	}
	if len(gpuPriorities) == 0 {
		return nil
	}
	labels := kubeLabels(get(cc, nil, "metadata", "labels"), objectUnion(obj(get(cc, map[string]any{}, "spec", "nodePoolConfig", "nodeLabels")), ccCommonLabels(gpuPriorities)))
	machines, models, counts := map[string]bool{}, map[any]bool{}, map[any]bool{}
	zoneSet := map[string]bool{}
	var reservation any
	spot := false
	for _, pr := range gpuPriorities {
		if mt, ok := get(pr, nil, "machineType").(string); ok {
			machines[mt] = true
		}
		models[ccModel(pr)] = true
		counts[ccCount(pr)] = true
		for _, z := range arr(get(pr, []any{}, "location", "zones")) {
			if s, ok := z.(string); ok {
				zoneSet[s] = true
			}
		}
		for _, s := range arr(get(pr, []any{}, "reservations", "specific")) {
			for _, z := range arr(get(s, []any{}, "zones")) {
				if s, ok := z.(string); ok {
					zoneSet[s] = true
				}
			}
		}
		if get(pr, nil, "spot") == true {
			spot = true
		}
		if r, ok := get(pr, nil, "reservations").(map[string]any); ok && reservation == nil && get(r, nil, "affinity") != "None" {
			reservation = map[string]any{"type": "any", "id": nil, "name": nil, "project": nil}
			if r["affinity"] == "Specific" {
				reservation = map[string]any{"type": "specific", "id": nil,
					"name": str(get(r, nil, "specific", 0, "name")), "project": str(get(r, nil, "specific", 0, "project"))}
			}
		}
	}
	var prioritiesDoc []any
	for _, pr := range priorities {
		if !isObject(pr) {
			continue // object.get on it is a type error: no element, in Rego
		}
		prioritiesDoc = append(prioritiesDoc, map[string]any{
			"spot":                 get(pr, false, "spot") == true,
			"flex_start":           get(pr, false, "flexStart", "enabled") == true,
			"reservation_affinity": get(pr, nil, "reservations", "affinity"),
			"location_zones":       float64(len(arr(get(pr, []any{}, "location", "zones")))),
			"machine_type":         str(get(pr, nil, "machineType")),
			"gpu_model":            ccModel(pr),
			"gpu_count":            ccCount(pr),
		})
	}
	zones := make([]string, 0, len(zoneSet))
	for z := range zoneSet {
		zones = append(zones, z)
	}
	sort.Strings(zones)
	machineList := make([]string, 0, len(machines))
	for m := range machines {
		machineList = append(machineList, m)
	}
	sort.Strings(machineList)
	pct := 0.0
	if spot {
		pct = 100.0
	}
	if prioritiesDoc == nil {
		prioritiesDoc = []any{}
	}
	return map[string]any{
		"address":        address,
		"resource_type":  "ComputeClass",
		"cloud":          "gcp",
		"region":         p.kubeRegion("gcp", zones, nil, kubeCluster(cc, nil)),
		"zones":          stringsAny(zones),
		"name":           get(cc, nil, "metadata", "name"),
		"labels":         labels,
		"tags":           nil,
		"client":         conventionClient(labels, map[string]any{}), // a class has no tags: without the label, no client
		"workload":       conventionWorkload(labels),
		"unread_labels":  conventionUnread(labels),
		"waivers":        kubeWaivers(get(cc, nil, "metadata", "annotations")),
		"taints":         append(normalisedTaints(arr(get(cc, []any{}, "spec", "nodePoolConfig", "taints"))), ccCommonTaints(gpuPriorities)...),
		"instance_types": stringsAny(machineList),
		"gpu":            ccGPU(only(models), only(counts), gpuPriorities),
		"scaling":        map[string]any{"min_size": 0.0, "max_size": nil, "desired_size": nil},
		"capacity": map[string]any{
			"spot_percentage": pct,
			"on_demand_base":  0.0,
			"reservation":     reservation,
			"on_demand":       nil,
			"spot":            nil,
		},
		"cost":        map[string]any{"hourly_usd": nil, "monthly_usd": nil},
		"assumptions": []any{},
		"autoscaler": map[string]any{
			"kind":                   "ComputeClass",
			"when_unsatisfiable":     get(cc, nil, "spec", "whenUnsatisfiable"),
			"optimize_rule_priority": get(cc, false, "spec", "activeMigration", "optimizeRulePriority"),
			"priorities":             prioritiesDoc,
		},
	}
}

// SetClusters gives the builders the policy data's cluster registry (data.gpufleet.clusters: name →
// {cloud, region}), where an object's region comes from when its requirements name no zone. The
// documents of such objects depend on it, so conftest must judge them with the same policy data.
func (p *Plan) SetClusters(clusters map[string]any) { p.clusters = clusters }

// LooksLikeManifests reports whether data is YAML rather than a JSON document, or a JSON object
// with apiVersion and kind: input whose error is better told as manifests' than as a plan's.
func LooksLikeManifests(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) == 0 {
		return false
	}
	if t[0] != '{' && t[0] != '[' && t[0] != '"' && (t[0] < '0' || t[0] > '9') && t[0] != '-' && !bytes.HasPrefix(t, []byte("null")) && !bytes.HasPrefix(t, []byte("true")) && !bytes.HasPrefix(t, []byte("false")) {
		return true
	}
	var v any
	return json.Unmarshal(t, &v) == nil && isKubeObject(v)
}

// Objects are the Kubernetes objects read (ReadManifests) or found in the plan, in order.
func (p *Plan) Objects() []map[string]any {
	out := make([]map[string]any, len(p.objects))
	for i, o := range p.objects {
		out[i] = o.obj
	}
	return out
}
