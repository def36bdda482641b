package provider_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// Issue #40, item 6: with the provider in eu-west-1, the aws answer is in eu-west-1 at its prices
// (two g6.xlarge, $1316.04/month, where us-east-1 is cheaper), in_provider_region true; 405B in fp4,
// which nothing in eu-west-1 holds, is answered in us-east-1 with in_provider_region false.
func TestAccRecommendationDataSource_eksAnswerInTheProviderRegion(t *testing.T) {
	provider := strings.Replace(recommendationProvider(t, ""), `region                      = "us-east-1"`, `region                      = "eu-west-1"`, 1)
	ds := func(name, workload string) string {
		return `
data "gpufleet_recommendation" "` + name + `" {
  workload {
    kind        = "inference"
    environment = "production"
    ` + workload + `
  }
  replicas = 2
  clouds   = ["aws"]
  regions  = ["*"]
}
`
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: provider + ds("home", "model_parameters_billion = 7\n    precision = \"fp16\"") + ds("fp4", "model_parameters_billion = 405\n    precision = \"fp4\""),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.home", tfjsonpath.New("aws").AtMapKey("region"), knownvalue.StringExact("eu-west-1")),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.home", tfjsonpath.New("aws").AtMapKey("in_provider_region"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.home", tfjsonpath.New("aws").AtMapKey("node_type"), knownvalue.StringExact("g6.xlarge")),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.home", tfjsonpath.New("aws").AtMapKey("monthly_usd"), knownvalue.Float64Func(func(v float64) error {
					if v < 1316.035 || v > 1316.045 {
						return fmt.Errorf("monthly_usd %g, want 1316.04", v)
					}
					return nil
				})),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.fp4", tfjsonpath.New("aws").AtMapKey("region"), knownvalue.StringExact("us-east-1")),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.fp4", tfjsonpath.New("aws").AtMapKey("in_provider_region"), knownvalue.Bool(false)),
			},
		}},
	})
}
