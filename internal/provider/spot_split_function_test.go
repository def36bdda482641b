package provider_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// The function splits as the pool resources do (pool.SplitSizes), checked on sizes that round.
func TestAccSpotSplitFunction_basic(t *testing.T) {
	cases := [][3]int{{10, 2, 70}, {12, 4, 100}, {3, 5, 50}, {7, 0, 0}, {9, 1, 33}, {0, 0, 100}}
	var config string
	var checks []statecheck.StateCheck
	for i, c := range cases {
		od, spot := pool.SplitSizes(pool.Sizes{Min: c[0], Max: c[0], Desired: c[0]}, c[1], c[2])
		name := fmt.Sprintf("s%d", i)
		config += fmt.Sprintf("output %q { value = provider::gpufleet::spot_split(%d, %d, %d) }\n", name, c[0], c[1], c[2])
		checks = append(checks, statecheck.ExpectKnownOutputValue(name, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"on_demand": knownvalue.Int64Exact(int64(od.Desired)),
			"spot":      knownvalue.Int64Exact(int64(spot.Desired)),
		})))
	}
	// The figures by hand: 10 nodes, base 2, 70 % → floor(8 × 0.7) = 5 spot; 12, base 4, 100 % → 8 spot.
	checks = append(checks,
		statecheck.ExpectKnownOutputValue("s0", knownvalue.ObjectExact(map[string]knownvalue.Check{"on_demand": knownvalue.Int64Exact(5), "spot": knownvalue.Int64Exact(5)})),
		statecheck.ExpectKnownOutputValue("s1", knownvalue.ObjectExact(map[string]knownvalue.Check{"on_demand": knownvalue.Int64Exact(4), "spot": knownvalue.Int64Exact(8)})),
	)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps:                    []resource.TestStep{{Config: config, ConfigStateChecks: checks}},
	})
}

func TestAccSpotSplitFunction_badInput(t *testing.T) {
	testFunctionErrors(t, "spot_split", map[string]functionErrorCase{
		"negative size":       {"(-1, 0, 50)", []string{"size", "0 or more", "-1"}},
		"negative base":       {"(4, -2, 50)", []string{"on_demand_base", "0 or more"}},
		"percentage over 100": {"(4, 0, 150)", []string{"spot_percentage", "between 0 and 100", "150"}},
	})
}

// functionErrorCase is a call of a provider function with bad arguments and the parts of the error
// terraform must show, in order.
type functionErrorCase struct {
	call string
	want []string
}

// testFunctionErrors runs each bad call of provider::gpufleet::<name> through terraform.
func testFunctionErrors(t *testing.T, name string, cases map[string]functionErrorCase) {
	t.Helper()
	for caseName, tc := range cases {
		t.Run(caseName, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
				Steps: []resource.TestStep{{
					Config:      `output "x" { value = provider::gpufleet::` + name + tc.call + ` }`,
					ExpectError: acctest.ExpectErrorParts(tc.want...),
				}},
			})
		})
	}
}
