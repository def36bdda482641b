package poolschema

import (
	"context"
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ApplyDefaults gives every null attribute of v (a value of s) the Default of the resource schema
// s, as the framework does when it plans the resource: nested attributes of a present block or
// nested object too, never inside an absent one. The data sources that render what a resource
// would apply (gpufleet_karpenter_manifests, gpufleet_gke_compute_class_manifest) read their
// configuration through the resource's schema this way, so a default added to the resource
// applies to them without a second copy.
func ApplyDefaults(ctx context.Context, s schema.Schema, v tftypes.Value) (tftypes.Value, error) {
	return applyDefaults(ctx, s.Attributes, s.Blocks, v)
}

func applyDefaults(ctx context.Context, attrs map[string]schema.Attribute, blocks map[string]schema.Block, v tftypes.Value) (tftypes.Value, error) {
	if v.IsNull() || !v.IsKnown() {
		return v, nil
	}
	var vals map[string]tftypes.Value
	if err := v.As(&vals); err != nil {
		return v, err
	}
	for name, a := range attrs {
		av, ok := vals[name]
		if !ok {
			continue
		}
		if av.IsNull() {
			def, err := defaultOf(ctx, name, a)
			if err != nil {
				return v, err
			}
			if def != nil {
				vals[name] = *def
			}
			continue
		}
		if n, ok := a.(schema.SingleNestedAttribute); ok {
			nv, err := applyDefaults(ctx, n.Attributes, nil, av)
			if err != nil {
				return v, err
			}
			vals[name] = nv
		}
	}
	for name, b := range blocks {
		bv, ok := vals[name]
		if !ok {
			continue
		}
		var err error
		switch b := b.(type) {
		case schema.SingleNestedBlock:
			bv, err = applyDefaults(ctx, b.Attributes, b.Blocks, bv)
		case schema.ListNestedBlock:
			bv, err = applyEach(ctx, b.NestedObject, bv)
		case schema.SetNestedBlock:
			bv, err = applyEach(ctx, b.NestedObject, bv)
		}
		if err != nil {
			return v, err
		}
		vals[name] = bv
	}
	return tftypes.NewValue(v.Type(), vals), nil
}

// applyEach applies the defaults to every element of a list or set block.
func applyEach(ctx context.Context, o schema.NestedBlockObject, v tftypes.Value) (tftypes.Value, error) {
	if v.IsNull() || !v.IsKnown() {
		return v, nil
	}
	var elems []tftypes.Value
	if err := v.As(&elems); err != nil {
		return v, err
	}
	for i, e := range elems {
		ne, err := applyDefaults(ctx, o.Attributes, o.Blocks, e)
		if err != nil {
			return v, err
		}
		elems[i] = ne
	}
	return tftypes.NewValue(v.Type(), elems), nil
}

// defaultOf is the value of a's Default, nil without one. A kind of default this function does not
// read (list, set, map, object …) is an error, never a silently skipped default.
func defaultOf(ctx context.Context, name string, a schema.Attribute) (*tftypes.Value, error) {
	if d := reflect.ValueOf(a).FieldByName("Default"); !d.IsValid() || d.IsNil() {
		return nil, nil
	}
	var val attr.Value
	switch a := a.(type) {
	case schema.StringAttribute:
		resp := &defaults.StringResponse{}
		a.Default.DefaultString(ctx, defaults.StringRequest{}, resp)
		val = resp.PlanValue
	case schema.Int64Attribute:
		resp := &defaults.Int64Response{}
		a.Default.DefaultInt64(ctx, defaults.Int64Request{}, resp)
		val = resp.PlanValue
	case schema.BoolAttribute:
		resp := &defaults.BoolResponse{}
		a.Default.DefaultBool(ctx, defaults.BoolRequest{}, resp)
		val = resp.PlanValue
	case schema.Float64Attribute:
		resp := &defaults.Float64Response{}
		a.Default.DefaultFloat64(ctx, defaults.Float64Request{}, resp)
		val = resp.PlanValue
	case schema.NumberAttribute:
		resp := &defaults.NumberResponse{}
		a.Default.DefaultNumber(ctx, defaults.NumberRequest{}, resp)
		val = resp.PlanValue
	default:
		return nil, fmt.Errorf("%s: a default of %T is not applied by ApplyDefaults", name, a)
	}
	tv, err := val.ToTerraformValue(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &tv, nil
}
