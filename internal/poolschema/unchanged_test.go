package poolschema

import (
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var testPoolType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"memory": tftypes.Number,
	"labels": tftypes.Map{ElementType: tftypes.String},
	"id":     tftypes.String,
}}

func testPool(memory *big.Float, labels map[string]tftypes.Value, id tftypes.Value) tftypes.Value {
	return tftypes.NewValue(testPoolType, map[string]tftypes.Value{
		"memory": tftypes.NewValue(tftypes.Number, memory),
		"labels": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, labels),
		"id":     id,
	})
}

func decimal(s string) *big.Float {
	f, _, err := big.ParseFloat(s, 10, 512, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	return f
}

// A number that reached the configuration as a float64 (a data source's or a function's output)
// asks for what the state's JSON holds: the pool is unchanged, though the framework marked its
// computed attributes unknown. Other differences, removed map keys and values the configuration
// does not know yet are changes.
func TestKeepsState(t *testing.T) {
	team := map[string]tftypes.Value{"team": tftypes.NewValue(tftypes.String, "ml")}
	id := tftypes.NewValue(tftypes.String, "ml:train")
	state := testPool(decimal("6.71"), team, id)
	unknownID := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	nullID := tftypes.NewValue(tftypes.String, nil)
	fromFloat64 := big.NewFloat(6.71)
	if fromFloat64.Cmp(decimal("6.71")) == 0 {
		t.Fatal("the test needs a float64 that differs from its decimal form")
	}
	cases := []struct {
		name         string
		config, plan tftypes.Value
		want         bool
	}{
		{"same values", testPool(decimal("6.71"), team, nullID), state, true},
		{"float64 of the same number, computed marked unknown", testPool(fromFloat64, team, nullID), testPool(fromFloat64, team, unknownID), true},
		{"another number", testPool(decimal("6.72"), team, nullID), testPool(decimal("6.72"), team, unknownID), false},
		{"integers compare exactly", testPool(decimal("7"), team, nullID), testPool(decimal("7.0000000000000001"), team, unknownID), false},
		{"a label removed", testPool(fromFloat64, map[string]tftypes.Value{}, nullID), testPool(fromFloat64, map[string]tftypes.Value{}, unknownID), false},
		{"a label added", testPool(fromFloat64, map[string]tftypes.Value{"team": team["team"], "x": tftypes.NewValue(tftypes.String, "y")}, nullID),
			testPool(fromFloat64, map[string]tftypes.Value{"team": team["team"], "x": tftypes.NewValue(tftypes.String, "y")}, unknownID), false},
		{"a label not known yet", testPool(fromFloat64, map[string]tftypes.Value{"team": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}, nullID),
			testPool(fromFloat64, map[string]tftypes.Value{"team": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}, unknownID), false},
		{"a configured value not known yet", testPool(fromFloat64, team, unknownID), testPool(fromFloat64, team, unknownID), false},
	}
	for _, c := range cases {
		if got := keepsState(c.config, c.plan, state); got != c.want {
			t.Errorf("%s: keepsState = %t, want %t", c.name, got, c.want)
		}
	}
}
