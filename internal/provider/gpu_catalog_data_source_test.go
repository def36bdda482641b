package provider_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// Region globs give one row per shape and matching region, cheapest first, each with its region,
// price source and date; a price cap keeps the rows at or under it.
func TestAccGPUCatalogDataSource_regionGlobsAndPriceCap(t *testing.T) {
	// The rows the filters should keep, from the catalog itself.
	var euL4, cheapUS []knownvalue.Check
	for _, n := range catalog.Find(catalog.Requirement{Cloud: catalog.AWS, GPUModel: "L4"}) {
		for _, p := range n.Prices {
			if strings.HasPrefix(p.Region, "eu-") {
				euL4 = append(euL4, knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"region":           knownvalue.StringRegexp(regexp.MustCompile(`^eu-`)),
					"gpu_model":        knownvalue.StringExact("L4"),
					"price_source":     knownvalue.NotNull(),
					"price_as_of":      knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)),
					"spot_price_as_of": knownvalue.StringExact(p.SpotAsOf),
				}))
			}
		}
	}
	for _, n := range catalog.Find(catalog.Requirement{Cloud: catalog.AWS, Region: "us-east-1", MinGPUMemoryGiB: 20}) {
		if p, _ := n.Price("us-east-1"); p.OnDemandUSD <= 1.5 {
			cheapUS = append(cheapUS, knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact(n.Name), "region": knownvalue.StringExact("us-east-1")}))
		}
	}
	if len(euL4) < 2 || len(cheapUS) == 0 {
		t.Fatalf("the catalog changed: %d L4 rows in eu-*, %d rows under $1.50 in us-east-1", len(euL4), len(cheapUS))
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpufleet_gpu_catalog" "eu_l4" {
  cloud     = "aws"
  regions   = ["eu-*"]
  gpu_model = "L4"
}
data "gpufleet_gpu_catalog" "cheap" {
  cloud                    = "aws"
  region                   = "us-east-1"
  min_gpu_memory_gib       = 20
  max_on_demand_hourly_usd = 1.5
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpufleet_gpu_catalog.eu_l4", tfjsonpath.New("node_types"), knownvalue.ListExact(euL4)),
				statecheck.ExpectKnownValue("data.gpufleet_gpu_catalog.cheap", tfjsonpath.New("node_types"), knownvalue.ListExact(cheapUS)),
			},
		}},
	})
}

func TestAccGPUCatalogDataSource_badFilters(t *testing.T) {
	cases := map[string]struct {
		body string
		want []string
	}{
		"glob matching nothing":   {`regions = ["eu-*", "mars-*"]`, []string{`regions\[1\]`, `"mars-\*" matches no region`, "nearest first"}},
		"price cap without place": {`max_on_demand_hourly_usd = 2`, []string{"max_on_demand_hourly_usd", "set region or regions"}},
		"region and regions":      {"region = \"us-east-1\"\nregions = [\"us-*\"]", []string{"region", "regions"}},
		"empty regions":           {`regions = []`, []string{"regions", "at least 1"}},
		"unknown GPU model":       {`gpu_model = "H100"`, []string{"gpu_model", `"H100" is not valid`, "nearest first: H100-80GB"}},
		"region not priced":       {`region = "us-east1"`, []string{"Region not in the catalog", `region = "us-east1"`, `no aws node type in "us-east1"`, "us-east-1"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      "data \"gpufleet_gpu_catalog\" \"x\" {\ncloud = \"aws\"\n" + tc.body + "\n}\n",
					ExpectError: acctest.ExpectErrorParts(tc.want...),
				}},
			})
		})
	}
}

// Issue #40, item 8: each row says which inter-node GPU network the shape has, and how many
// interfaces it takes: p5.48xlarge 32 EFA interfaces, the one-GPU p5.4xlarge none; a3-megagpu-8g
// GPUDirect-TCPXO over 8 NICs.
func TestAccGPUCatalogDataSource_interNodeNetworks(t *testing.T) {
	row := func(name, network string, nics int64) knownvalue.Check {
		var n knownvalue.Check = knownvalue.Null()
		if network != "" {
			n = knownvalue.StringExact(network)
		}
		return knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact(name), "inter_node_network": n, "inter_node_interfaces": knownvalue.Int64Exact(nics)})
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpufleet_gpu_catalog" "h100_aws" {
  cloud     = "aws"
  region    = "us-east-1"
  gpu_model = "H100-80GB"
}
data "gpufleet_gpu_catalog" "h100_gcp" {
  cloud             = "gcp"
  region            = "us-central1"
  gpu_model         = "H100-80GB"
  max_gpus_per_node = 8
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpufleet_gpu_catalog.h100_aws", tfjsonpath.New("node_types"), knownvalue.SetPartial([]knownvalue.Check{
					row("p5.48xlarge", "efa", 32), row("p5.4xlarge", "", 0)})),
				statecheck.ExpectKnownValue("data.gpufleet_gpu_catalog.h100_gcp", tfjsonpath.New("node_types"), knownvalue.SetPartial([]knownvalue.Check{
					row("a3-megagpu-8g", "gpudirect-tcpxo", 8), row("a3-highgpu-8g", "gpudirect-tcpx", 4), row("a3-highgpu-4g", "", 0)})),
			},
		}},
	})
}
