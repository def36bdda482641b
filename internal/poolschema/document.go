package poolschema

import (
	"fmt"
	"math/big"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// PolicyDocumentType is the type of the policy_document attribute: pool.Document's shape
// (policies/README.md), so that the plan JSON carries the very document the provider judged.
var PolicyDocumentType = func() types.ObjectType {
	str, num, boolean := types.StringType, types.NumberType, types.BoolType
	obj := func(attrs map[string]attr.Type) types.ObjectType { return types.ObjectType{AttrTypes: attrs} }
	strList := types.ListType{ElemType: str}
	strMap := types.MapType{ElemType: str}
	sizes := obj(map[string]attr.Type{"min": num, "max": num, "desired": num})
	return obj(map[string]attr.Type{
		"address": str, "resource_type": str, "cloud": str, "region": str, "zones": strList, "name": str, "client": str,
		"workload": obj(map[string]attr.Type{"kind": str, "environment": str, "gpu_memory_gib": num, "interruptible": boolean,
			"precision": str, "gpus_per_replica": num, "replicas": num, "kv_cache_gib": num}),
		"gpu": obj(map[string]attr.Type{
			"model": str, "class": str, "memory_gib": num, "per_node": num, "mig_profile": str, "mig_config": str, "slice_memory_gib": num,
			"sharing": obj(map[string]attr.Type{"strategy": str, "replicas": num}),
		}),
		"instance_types": strList,
		"scaling":        obj(map[string]attr.Type{"min_size": num, "max_size": num, "desired_size": num}),
		"capacity": obj(map[string]attr.Type{
			"spot_percentage": num, "on_demand_base": num,
			"reservation": obj(map[string]attr.Type{"type": str, "id": str, "name": str, "project": str}),
			"on_demand":   sizes, "spot": sizes,
		}),
		"taints":  types.ListType{ElemType: obj(map[string]attr.Type{"key": str, "value": str, "effect": str})},
		"labels":  strMap,
		"tags":    strMap,
		"cost":    obj(map[string]attr.Type{"hourly_usd": num, "monthly_usd": num}),
		"waivers": strMap,
	})
}()

// Decimal is f as the decimal it prints as, at the 512 bits Terraform keeps numbers in: what
// Terraform reads back from state, where it writes numbers in decimal. A float64 handed to Terraform
// as it is (types.Float64Value) keeps its binary value, which is not that decimal (54534.43 is
// 54534.430000000000291… in binary): the value compares equal to the state's, as Terraform compares
// numbers by their shortest text, but arithmetic on it does not, so a module output that sums costs
// showed a change after every apply (issue #36: terraform plan -detailed-exitcode exited 2 while
// printing "No changes").
func Decimal(f float64) *big.Float {
	d, _, err := big.ParseFloat(strconv.FormatFloat(f, 'g', -1, 64), 10, 512, big.ToNearestEven)
	if err != nil { // NaN or ±Inf: a programming error upstream; keep the value as it is
		return big.NewFloat(f)
	}
	return d
}

// DocumentValue converts a policy document to the attribute's type.
func DocumentValue(doc map[string]any) (types.Object, error) {
	v, err := toValue(PolicyDocumentType, doc)
	if err != nil {
		return types.ObjectNull(PolicyDocumentType.AttrTypes), err
	}
	return v.(types.Object), nil
}

// toValue converts JSON-like Go values (maps, slices, strings, numbers, bools, nil) to t.
func toValue(t attr.Type, v any) (attr.Value, error) {
	switch t := t.(type) {
	case types.ObjectType:
		if v == nil {
			return types.ObjectNull(t.AttrTypes), nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("want an object, got %T", v)
		}
		attrs := make(map[string]attr.Value, len(t.AttrTypes))
		for name, at := range t.AttrTypes {
			av, err := toValue(at, m[name])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			attrs[name] = av
		}
		ov, diags := types.ObjectValue(t.AttrTypes, attrs)
		if diags.HasError() {
			return nil, fmt.Errorf("%v", diags)
		}
		return ov, nil
	case types.ListType:
		if v == nil {
			return types.ListNull(t.ElemType), nil
		}
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("want a list, got %T", v)
		}
		elems := make([]attr.Value, len(items))
		for i, item := range items {
			ev, err := toValue(t.ElemType, item)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			elems[i] = ev
		}
		lv, diags := types.ListValue(t.ElemType, elems)
		if diags.HasError() {
			return nil, fmt.Errorf("%v", diags)
		}
		return lv, nil
	case types.MapType:
		if v == nil {
			return types.MapNull(t.ElemType), nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("want a map, got %T", v)
		}
		elems := make(map[string]attr.Value, len(m))
		for k, item := range m {
			ev, err := toValue(t.ElemType, item)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			elems[k] = ev
		}
		mv, diags := types.MapValue(t.ElemType, elems)
		if diags.HasError() {
			return nil, fmt.Errorf("%v", diags)
		}
		return mv, nil
	}
	switch t {
	case types.StringType:
		if v == nil {
			return types.StringNull(), nil
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %T", v)
		}
		return types.StringValue(s), nil
	case types.BoolType:
		if v == nil {
			return types.BoolNull(), nil
		}
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("want a bool, got %T", v)
		}
		return types.BoolValue(b), nil
	case types.NumberType:
		switch n := v.(type) {
		case nil:
			return types.NumberNull(), nil
		case int:
			return types.NumberValue(new(big.Float).SetInt64(int64(n))), nil
		case float64:
			return types.NumberValue(Decimal(n)), nil
		}
		return nil, fmt.Errorf("want a number, got %T", v)
	}
	return nil, fmt.Errorf("unsupported type %s", t)
}
