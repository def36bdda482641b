package kube

import (
	"encoding/json"
	"sigs.k8s.io/yaml"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// normalizeJSON turns a JSON-like Go value (maps, slices, strings, numbers of any Go type, bools)
// into the types an API server decodes JSON into: map[string]any, []any, string, int64, float64,
// bool, nil.
func normalizeJSON(obj map[string]any) map[string]any {
	data, err := json.Marshal(obj)
	if err != nil {
		return obj
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		return obj
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
