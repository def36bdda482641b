// Package plandoc builds the policy bundle's pool documents from the JSON of a Terraform plan
// (terraform show -json), in Go, once per resource.
//
// conftest evaluates its deny and warn rules as two separate queries, so a bundle that builds its
// documents in Rego builds every document twice, at about a microsecond per Rego step: on plans
// of official aws_eks_node_group and google_container_node_pool resources that costs more than
// reading the plan. `gpufleet-policy documents` writes the documents this package builds to a
// small file, and conftest judges that file with the same bundle (documents.rego reads its pools
// as they are). The Rego builders (policies/gpufleet/documents*.rego) stay the reference for plans
// given to conftest directly; this package reproduces them function for function (the names in
// comments are theirs), and TestDocuments_sameAsTheBundle compares the two on every plan fixture
// and on generated variants of them.
package plandoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"

	json "github.com/segmentio/encoding/json"
)

// FormatVersion is the version of the documents file; documents.rego accepts this version only.
const FormatVersion = 1

// Plan is the part of a plan's JSON the documents come from.
type Plan struct {
	FormatVersion    string
	TerraformVersion string
	changes          []resourceChange
	providerConfig   map[string]any
	rootModule       json.RawMessage
	variables        map[string]any

	rootModuleValue  any
	modulesMu        sync.Mutex
	moduleResources  map[string]map[string]any
	launchTemplates  map[string]launchTemplate
	gkeClusters      map[string][]any
	awsUniformRegion *regionResult

	// Kubernetes objects (kube.go): a manifest set's, or the plan's kubernetes_manifest and
	// kubectl_manifest objects; complete when every object of the input is there.
	objects      []kubeObject
	kubeComplete bool
	kubeIdx      *kubeIndex
	clusters     map[string]any
}

// resourceChange is one entry of resource_changes. after and after_unknown stay raw until a builder
// needs them: only the planned objects of the resource types the builders read are decoded.
type resourceChange struct {
	Address       string          `json:"address"`
	ModuleAddress any             `json:"module_address"`
	Mode          any             `json:"mode"`
	Type          string          `json:"type"`
	Name          any             `json:"name"`
	Index         json.RawMessage `json:"index"`
	Change        struct {
		After        json.RawMessage `json:"after"`
		AfterUnknown json.RawMessage `json:"after_unknown"`
	} `json:"change"`
}

// The change of a resource the builders read: after and after_unknown, absent or as written.
type change struct {
	after           any
	afterUnknown    any
	hasAfterUnknown bool
}

// Read decodes the JSON of a Terraform plan: its top level and configuration split in one light
// pass (split.go), its resource changes decoded on every core. Input that is not a plan is an
// error that says what it is, as the bundle's GF-INPUT-001 does.
func Read(r io.Reader) (*Plan, error) {
	var buf bytes.Buffer
	if f, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			buf.Grow(int(info.Size()) + bytes.MinRead) // one allocation, not a doubling per read
		}
	}
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	raw := buf.Bytes()
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, notAnObject(t)
	}
	top, err := objectMembers(raw)
	if err != nil {
		return nil, fmt.Errorf("the input is not the JSON of a Terraform plan: %w", err)
	}
	kind := func(v []byte) byte {
		if len(v) == 0 {
			return 0
		}
		return v[0]
	}
	var version string
	switch {
	case kind(top["values"]) == '{':
		return nil, errors.New("the input is Terraform state (terraform show -json without a plan file), not a plan")
	case kind(top["format_version"]) != '"' || json.Unmarshal(top["format_version"], &version) != nil:
		return nil, errors.New("the input has no format_version: it is not the JSON of a Terraform plan")
	case !strings.HasPrefix(version, "1."):
		return nil, fmt.Errorf("the plan's format_version %q is not one this bundle knows (1.x)", version)
	case kind(top["planned_values"]) != '{' && kind(top["resource_changes"]) != '[':
		return nil, errors.New("the input has no planned_values or resource_changes: it is not the JSON of a Terraform plan")
	}
	p := &Plan{FormatVersion: version}
	// Values of another type than a plan gives are what they are in Rego too: absent, for the
	// builders (a type error leaves the field empty).
	_ = json.Unmarshal(top["terraform_version"], &p.TerraformVersion)
	_ = json.Unmarshal(top["variables"], &p.variables)
	if kind(top["configuration"]) == '{' {
		configuration, err := objectMembers(top["configuration"])
		if err != nil {
			return nil, fmt.Errorf("reading configuration: %w", err)
		}
		_ = json.Unmarshal(configuration["provider_config"], &p.providerConfig)
		p.rootModule = configuration["root_module"]
	}
	if kind(top["resource_changes"]) == '[' {
		elements, err := arrayElements(top["resource_changes"])
		if err != nil {
			return nil, fmt.Errorf("reading resource_changes: %w", err)
		}
		p.changes = make([]resourceChange, len(elements))
		if err := forEach(len(elements), func(i int) error {
			var typeErr *json.UnmarshalTypeError
			if err := json.Unmarshal(elements[i], &p.changes[i]); err != nil && !errors.As(err, &typeErr) {
				return fmt.Errorf("reading resource_changes[%d]: %w", i, err)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// notAnObject is why JSON that is not an object is not a plan, in the words of the bundle's
// inputs.why_not (the JSON type as OPA's type_name names it).
func notAnObject(t []byte) error {
	var v any
	if len(t) == 0 || json.Unmarshal(t, &v) != nil {
		return errors.New("the input is not a JSON object")
	}
	kind := "number"
	switch v.(type) {
	case []any:
		kind = "array"
	case string:
		kind = "string"
	case bool:
		kind = "boolean"
	case nil:
		kind = "null"
	}
	return fmt.Errorf("the input is a JSON %s, not the JSON object of a Terraform plan", kind)
}

// forEach calls f for 0..n-1 on every core, and returns the first error.
func forEach(n int, f func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), 1+n/64)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := f(i); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func isJSONObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

func (rc *resourceChange) decodeChange() (change, bool) {
	var c change
	if len(rc.Change.After) > 0 && json.Unmarshal(rc.Change.After, &c.after) != nil {
		return change{}, false
	}
	if len(rc.Change.AfterUnknown) > 0 {
		c.hasAfterUnknown = true
		if json.Unmarshal(rc.Change.AfterUnknown, &c.afterUnknown) != nil {
			return change{}, false
		}
	}
	return c, true
}

// unknownOr is object.get(rc.change, "after_unknown", {}).
func (c change) unknownOr() any {
	if c.hasAfterUnknown {
		return c.afterUnknown
	}
	return map[string]any{}
}

// planned is documents.planned: the planned object of a managed resource that exists after apply.
func (rc *resourceChange) planned(c change) (map[string]any, bool) {
	if rc.Mode != "managed" {
		return nil, false
	}
	a, ok := c.after.(map[string]any)
	return a, ok
}

// ---------------------------------------------------------------------------------------------
// Rego's view of JSON values: refs that may be undefined, object.get, truthiness.
// ---------------------------------------------------------------------------------------------

// at is the Rego ref v[path[0]][path[1]]...: objects by string key, arrays by integer index;
// false when a step is undefined.
func at(v any, path ...any) (any, bool) {
	for _, step := range path {
		switch c := v.(type) {
		case map[string]any:
			k, ok := step.(string)
			if !ok {
				return nil, false
			}
			if v, ok = c[k]; !ok {
				return nil, false
			}
		case []any:
			i, ok := step.(int)
			if !ok || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// get is object.get(v, path, def).
func get(v any, def any, path ...any) any {
	if x, ok := at(v, path...); ok {
		return x
	}
	return def
}

// truthy is a Rego ref used as a condition: defined and not false.
func truthy(v any, ok bool) bool {
	return ok && v != false
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isNumber(v any) bool { _, ok := v.(float64); return ok }
func isObject(v any) bool { _, ok := v.(map[string]any); return ok }
func isArray(v any) bool  { _, ok := v.([]any); return ok }

// num, str, obj and arr are lib.num, lib.str, lib.obj and lib.arr.
func num(v any) any {
	if isNumber(v) {
		return v
	}
	return nil
}

func str(v any) any {
	if isString(v) {
		return v
	}
	return nil
}

func obj(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

func arr(v any) []any {
	if a, ok := v.([]any); ok {
		return a
	}
	return []any{}
}

// coalesce is documents.coalesce.
func coalesce(x, y any) any {
	if x != nil {
		return x
	}
	return y
}

// count is Rego's count of an array, object or string; false for anything else.
func count(v any) (int, bool) {
	switch c := v.(type) {
	case []any:
		return len(c), true
	case map[string]any:
		return len(c), true
	case string:
		return len([]rune(c)), true
	}
	return 0, false
}
