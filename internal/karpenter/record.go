package karpenter

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// recordConfig is the record annotation of a planned pool (or a data source's configuration): the
// recorded arguments that are not null, defaults applied, as JSON, set elements in a stable order.
// "" when a value is not known yet.
func recordConfig(config tftypes.Value) (string, error) {
	var attrs map[string]tftypes.Value
	if err := config.As(&attrs); err != nil {
		return "", err
	}
	rec := map[string]any{}
	for _, name := range recordedArguments {
		v, ok := attrs[name]
		if !ok || v.IsNull() {
			continue
		}
		if !v.IsFullyKnown() {
			return "", nil
		}
		j, err := tfToJSON(v)
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		rec[name] = j
	}
	out, err := json.Marshal(rec) // keys sorted
	return string(out), err
}

// tfToJSON converts a known Terraform value to JSON-like Go values.
func tfToJSON(v tftypes.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	typ := v.Type()
	switch {
	case typ.Is(tftypes.String):
		var s string
		err := v.As(&s)
		return s, err
	case typ.Is(tftypes.Bool):
		var b bool
		err := v.As(&b)
		return b, err
	case typ.Is(tftypes.Number):
		var f big.Float
		if err := v.As(&f); err != nil {
			return nil, err
		}
		return json.Number(f.Text('g', -1)), nil
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Set{}), typ.Is(tftypes.Tuple{}):
		var elems []tftypes.Value
		if err := v.As(&elems); err != nil {
			return nil, err
		}
		out := make([]any, len(elems))
		for i, e := range elems {
			j, err := tfToJSON(e)
			if err != nil {
				return nil, err
			}
			out[i] = j
		}
		if typ.Is(tftypes.Set{}) {
			sort.Slice(out, func(i, j int) bool {
				a, _ := json.Marshal(out[i])
				b, _ := json.Marshal(out[j])
				return string(a) < string(b)
			})
		}
		return out, nil
	case typ.Is(tftypes.Map{}), typ.Is(tftypes.Object{}):
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			return nil, err
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			if e.IsNull() && typ.Is(tftypes.Object{}) {
				continue
			}
			j, err := tfToJSON(e)
			if err != nil {
				return nil, err
			}
			out[k] = j
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported type %s", typ)
}

// recordedValues reads a record annotation back into the values of the state's attributes:
// name → value of the attribute's type (attribute types from the resource schema's object type).
func recordedValues(record string, stateType tftypes.Object) (map[string]tftypes.Value, error) {
	var rec map[string]json.RawMessage
	if err := json.Unmarshal([]byte(record), &rec); err != nil {
		return nil, fmt.Errorf("the %s annotation is not JSON: %w", annotationConfig, err)
	}
	out := map[string]tftypes.Value{}
	for name, raw := range rec {
		typ, ok := stateType.AttributeTypes[name]
		if !ok {
			continue // an argument of another gpufleet release
		}
		v, err := tftypes.ValueFromJSONWithOpts(raw, typ, tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true})
		if err != nil {
			return nil, fmt.Errorf("%s in the %s annotation: %w", name, annotationConfig, err)
		}
		out[name] = v
	}
	return out, nil
}
