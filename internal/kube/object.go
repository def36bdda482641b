package kube

import (
	"encoding/json"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// normalizeJSON is a deep copy of a JSON-like Go value (maps, slices, strings, numbers of any Go
// type, bools) in the types an API server decodes JSON into: map[string]any, []any, string, int64,
// float64, bool, nil. Values of other types go through encoding/json.
func normalizeJSON(obj map[string]any) map[string]any {
	out, ok := copyJSON(obj).(map[string]any)
	if !ok {
		return obj
	}
	return out
}

func copyJSON(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int64, float64:
		return x
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyJSON(e)
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	}
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		return v
	}
	return out
}

// FieldErrors joins errors for a message.
func FieldErrors(errs []FieldError) string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return strings.Join(out, "; ")
}

// YAML renders objects as gpufleet shows them (the manifests attribute): YAML documents with
// sorted keys, separated by "---".
func YAML(objs ...map[string]any) string {
	var b strings.Builder
	for i, o := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		out, err := yaml.Marshal(normalizeJSON(o))
		if err != nil {
			b.WriteString("# " + err.Error() + "\n")
			continue
		}
		b.Write(out)
	}
	return b.String()
}
