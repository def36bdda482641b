package poolschema

import (
	"math/big"
	"testing"
)

// Costs go to Terraform as the decimals they print as, at Terraform's 512 bits: the number Terraform
// reads back from state (cty.ParseNumberVal), and whose sums stay the same at every plan. A float64
// (big.NewFloat) is another number, whose sum with another one differs from the state's.
func TestDecimal(t *testing.T) {
	for _, f := range []float64{54534.43, 1084.63, 74.7047, 0.1, 2, 0, 1e21, 123456789.01} {
		d := Decimal(f)
		state, _, err := big.ParseFloat(d.Text('f', -1), 10, 512, big.ToNearestEven)
		if err != nil || state.Cmp(d) != 0 || d.Prec() != 512 {
			t.Errorf("%v: %s (precision %d) reads back from state as %v", f, d.Text('f', -1), d.Prec(), state)
		}
		if g, _ := d.Float64(); g != f {
			t.Errorf("%v: is %v as a float64", f, g)
		}
	}
	a, b := Decimal(54534.43), Decimal(1084.63)
	sum := new(big.Float).SetPrec(512).Add(a, b)
	want, _, _ := big.ParseFloat("55619.06", 10, 512, big.ToNearestEven)
	floats := new(big.Float).SetPrec(512).Add(big.NewFloat(54534.43), big.NewFloat(1084.63))
	if sum.Cmp(want) != 0 || floats.Cmp(want) == 0 {
		t.Errorf("sum %s, of float64s %s, want %s", sum.Text('g', 30), floats.Text('g', 30), want.Text('g', 30))
	}
}
