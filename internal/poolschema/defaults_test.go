package poolschema

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func defaultsSchema() schema.Schema {
	nested := map[string]schema.Attribute{
		"pct":  schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(0)},
		"name": schema.StringAttribute{Optional: true},
	}
	return schema.Schema{
		Attributes: map[string]schema.Attribute{
			"mode":    schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("karpenter")},
			"enabled": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true)},
			"plain":   schema.StringAttribute{Optional: true},
		},
		Blocks: map[string]schema.Block{
			"capacity": schema.SingleNestedBlock{Attributes: nested},
			"absent":   schema.SingleNestedBlock{Attributes: nested},
			"taint":    schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{Attributes: nested}},
		},
	}
}

// The defaults of the resource's schema reach the data sources' values: top-level, in a present
// block, in each element of a list block; an absent block stays absent and a set value stays.
func TestApplyDefaults(t *testing.T) {
	ctx := context.Background()
	s := defaultsSchema()
	typ := s.Type().TerraformType(ctx).(tftypes.Object)
	nestedType := typ.AttributeTypes["capacity"].(tftypes.Object)
	nested := func(pct *int64, name string) tftypes.Value {
		p := tftypes.NewValue(tftypes.Number, nil)
		if pct != nil {
			p = tftypes.NewValue(tftypes.Number, big.NewFloat(float64(*pct)))
		}
		return tftypes.NewValue(nestedType, map[string]tftypes.Value{"pct": p, "name": tftypes.NewValue(tftypes.String, name)})
	}
	fifty := int64(50)
	in := tftypes.NewValue(typ, map[string]tftypes.Value{
		"mode":     tftypes.NewValue(tftypes.String, nil),
		"enabled":  tftypes.NewValue(tftypes.Bool, false),
		"plain":    tftypes.NewValue(tftypes.String, nil),
		"capacity": nested(nil, "a"),
		"absent":   tftypes.NewValue(nestedType, nil),
		"taint":    tftypes.NewValue(typ.AttributeTypes["taint"], []tftypes.Value{nested(nil, "b"), nested(&fifty, "c")}),
	})
	out, err := ApplyDefaults(ctx, s, in)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Mode     types.String `tfsdk:"mode"`
		Enabled  types.Bool   `tfsdk:"enabled"`
		Plain    types.String `tfsdk:"plain"`
		Capacity *struct {
			Pct  types.Int64  `tfsdk:"pct"`
			Name types.String `tfsdk:"name"`
		} `tfsdk:"capacity"`
		Absent *struct {
			Pct  types.Int64  `tfsdk:"pct"`
			Name types.String `tfsdk:"name"`
		} `tfsdk:"absent"`
		Taint []struct {
			Pct  types.Int64  `tfsdk:"pct"`
			Name types.String `tfsdk:"name"`
		} `tfsdk:"taint"`
	}
	if err := tfsdkGet(ctx, s, out, &m); err != nil {
		t.Fatal(err)
	}
	if m.Mode.ValueString() != "karpenter" || m.Enabled.ValueBool() || !m.Plain.IsNull() {
		t.Errorf("top level: mode %v enabled %v plain %v", m.Mode, m.Enabled, m.Plain)
	}
	if m.Capacity == nil || m.Capacity.Pct.IsNull() || m.Capacity.Pct.ValueInt64() != 0 {
		t.Errorf("the present block's default is not applied: %+v", m.Capacity)
	}
	if m.Absent != nil {
		t.Errorf("the absent block became %+v", m.Absent)
	}
	if len(m.Taint) != 2 || m.Taint[0].Pct.IsNull() || m.Taint[0].Pct.ValueInt64() != 0 || m.Taint[1].Pct.ValueInt64() != 50 {
		t.Errorf("list block: %+v", m.Taint)
	}
}

// A default of a kind ApplyDefaults does not read fails, never skipped in silence.
func TestApplyDefaults_unreadDefaultIsAnError(t *testing.T) {
	ctx := context.Background()
	s := schema.Schema{Attributes: map[string]schema.Attribute{
		"zones": schema.ListAttribute{ElementType: types.StringType, Optional: true, Computed: true, Default: listdefault.StaticValue(types.ListValueMust(types.StringType, nil))},
	}}
	typ := s.Type().TerraformType(ctx).(tftypes.Object)
	in := tftypes.NewValue(typ, map[string]tftypes.Value{"zones": tftypes.NewValue(typ.AttributeTypes["zones"], nil)})
	if _, err := ApplyDefaults(ctx, s, in); err == nil || !strings.Contains(err.Error(), "zones") {
		t.Fatalf("err = %v, want one naming zones", err)
	}
}

func tfsdkGet(ctx context.Context, s schema.Schema, v tftypes.Value, target any) error {
	diags := tfsdk.Plan{Schema: s, Raw: v}.Get(ctx, target)
	if diags.HasError() {
		return fmt.Errorf("%v", diags)
	}
	return nil
}
