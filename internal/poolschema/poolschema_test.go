package poolschema

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Unknown values in the model become unknown paths of the spec, so validation skips them and the
// derived attributes stay unknown; an unset desired_size hands the size to the autoscaler.
func TestSpecBuilder_unknownsAndAutoscaler(t *testing.T) {
	ctx := context.Background()
	m := &Model{
		Client:   types.StringUnknown(),
		Labels:   types.MapValueMust(types.StringType, map[string]attr.Value{"team": types.StringUnknown()}),
		Tags:     types.MapNull(types.StringType),
		Taints:   types.SetNull(types.ObjectType{AttrTypes: TaintAttrTypes}),
		Workload: &WorkloadModel{Kind: types.StringValue("training"), Environment: types.StringValue("staging"), GPUMemoryGiB: types.Float64Value(20), Interruptible: types.BoolNull()},
		Scaling:  &ScalingModel{MinSize: types.Int64Value(2), MaxSize: types.Int64Value(8), DesiredSize: types.Int64Null()},
	}
	b := NewSpec(catalog.AWS, "gpufleet_eks_node_pool")
	b.Common(ctx, m, nil, nil)
	s, diags := b.Done()
	if diags.HasError() {
		t.Fatal(diags)
	}
	for _, p := range []pool.Path{pool.P("client"), pool.P("labels")} {
		if s.Known(p) {
			t.Errorf("%s is known, want unknown", p)
		}
	}
	if !s.Known(pool.P("scaling", "min_size")) || !s.AutoscalerOwnsSize || s.Scaling.Desired != 2 {
		t.Errorf("scaling %+v, autoscaler owns %t: want desired = min_size 2 and the autoscaler owning the size", s.Scaling, s.AutoscalerOwnsSize)
	}
}

// A desired size the autoscaler owns moves into new limits and no further.
func TestKeptDesired(t *testing.T) {
	for _, tc := range []struct{ current, min, max, want int }{
		{3, 1, 6, 3}, {3, 4, 6, 4}, {9, 1, 6, 6}, {0, 0, 2, 0},
	} {
		if got := KeptDesired(tc.current, pool.Sizes{Min: tc.min, Max: tc.max}); got != tc.want {
			t.Errorf("KeptDesired(%d, %d..%d) = %d, want %d", tc.current, tc.min, tc.max, got, tc.want)
		}
	}
}

// Read-back keeps an unset desired size unset, and an import (no prior scaling) reads the current one.
func TestScalingFrom(t *testing.T) {
	sides := []pool.Sizes{{Min: 1, Max: 3, Desired: 2}, {Min: 0, Max: 5, Desired: 3}}
	got := ScalingFrom(sides, &ScalingModel{DesiredSize: types.Int64Null()})
	if got.MinSize.ValueInt64() != 1 || got.MaxSize.ValueInt64() != 8 || !got.DesiredSize.IsNull() {
		t.Errorf("autoscaler-owned: %+v, want 1..8 and no desired size", got)
	}
	if got := ScalingFrom(sides, nil); got.DesiredSize.ValueInt64() != 5 {
		t.Errorf("import: desired %v, want 5", got.DesiredSize)
	}
	if got := ScalingFrom(sides, &ScalingModel{DesiredSize: types.Int64Value(4)}); got.DesiredSize.ValueInt64() != 5 {
		t.Errorf("enforced: desired %v, want the cloud's 5 (drift shows)", got.DesiredSize)
	}
}

// Tags that repeat a default_tags value stay the user's when prior state or the cloud record says so.
func TestUserTags_ownDefaults(t *testing.T) {
	cloud := map[string]string{"managed-by": "terraform", "project": "vision", "gpufleet_pool": "infer"}
	defaults := map[string]string{"managed-by": "terraform"}
	derived := func(k string) bool { return k == "gpufleet_pool" }
	own := OwnDefaultTags(map[string]string{"managed-by": "terraform", "project": "vision"}, defaults)
	if !slices.Equal(own, []string{"managed-by"}) {
		t.Fatalf("OwnDefaultTags = %v, want [managed-by]", own)
	}
	if got := UserTags(cloud, defaults, types.MapNull(types.StringType), nil, derived); len(got.Elements()) != 1 {
		t.Errorf("without a record: %v, want only project", got)
	}
	if got := UserTags(cloud, defaults, types.MapNull(types.StringType), own, derived); len(got.Elements()) != 2 {
		t.Errorf("with the record: %v, want project and managed-by", got)
	}
}

// Keys are joined while they fit in a tag or label value; the rest are left out.
func TestJoinWithin(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		max  int
		want string
	}{
		{[]string{"a", "bb", "ccc"}, 63, "a.bb.ccc"},
		{[]string{"a", "bb", "ccc"}, 6, "a.bb"},
		{[]string{"toolongkey", "b"}, 5, "b"},
		{nil, 10, ""},
	} {
		if got := JoinWithin(tc.keys, ".", tc.max); got != tc.want {
			t.Errorf("JoinWithin(%v, %d) = %q, want %q", tc.keys, tc.max, got, tc.want)
		}
	}
}
