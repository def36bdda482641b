package poolschema

import (
	"math/big"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// keepsState says whether a proposed plan asks for nothing but what the state holds. The
// framework compares the proposed plan with the state exactly, and marks every computed attribute
// unknown on any difference; but a number that reached the configuration as a float64 (another
// provider's or a data source's output, such as gpufleet_recommendation's
// required_gpu_memory_gib) differs in its last binary digits from the same number read back from
// the state's JSON, while Terraform takes them as equal. So every known value of the plan must
// equal the state's, numbers as Terraform compares them, and an unknown value must be one the
// framework marked (a computed attribute the configuration leaves null): an unknown value of the
// configuration is a change.
func keepsState(config, plan, state tftypes.Value) bool {
	same := true
	_ = tftypes.Walk(plan, func(p *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		if !same {
			return false, nil
		}
		if !v.IsKnown() {
			configured, ok := valueAt(config, p)
			same = ok && configured.IsKnown() && configured.IsNull()
			return false, nil
		}
		prior, ok := valueAt(state, p)
		if !ok || !prior.IsKnown() || v.IsNull() != prior.IsNull() {
			same = false
			return false, nil
		}
		switch {
		case v.IsNull():
			return false, nil
		case v.Type().Is(tftypes.Number):
			same = sameNumber(v, prior)
			return false, nil
		case v.Type().Is(tftypes.Map{}):
			var a, b map[string]tftypes.Value
			same = v.As(&a) == nil && prior.As(&b) == nil && len(a) == len(b)
		case v.Type().Is(tftypes.List{}), v.Type().Is(tftypes.Set{}):
			var a, b []tftypes.Value
			same = v.As(&a) == nil && prior.As(&b) == nil && len(a) == len(b)
		case !v.Type().Is(tftypes.Object{}):
			same = v.Equal(prior)
		}
		return same, nil // the elements of collections and objects are walked next
	})
	return same
}

// valueAt is the value at p in v; ok is false where v has none.
func valueAt(v tftypes.Value, p *tftypes.AttributePath) (tftypes.Value, bool) {
	found, _, err := tftypes.WalkAttributePath(v, p)
	value, ok := found.(tftypes.Value)
	return value, err == nil && ok
}

// sameNumber compares two numbers as Terraform does: integers exactly, others to the 15
// significant digits a float64 holds.
func sameNumber(a, b tftypes.Value) bool {
	var x, y big.Float
	if a.As(&x) != nil || b.As(&y) != nil {
		return false
	}
	if x.IsInt() || y.IsInt() {
		return x.Cmp(&y) == 0
	}
	return x.Text('g', 15) == y.Text('g', 15)
}
