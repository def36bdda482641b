package provider_test

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics/metricstest"
)

// The worked example of the guide "Right-sizing from utilisation": every figure it states, computed
// here from the catalog, and the data source's outputs for the fixture pool acme-train (20 H100s
// at 18 %) served by the real Prometheus.
func TestAccPoolUtilizationDataSource_guideWorkedExample(t *testing.T) {
	guide, err := os.ReadFile("../../templates/guides/right-sizing-from-utilisation.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	const replicas, p99GiB, p95Percent, headroom = 20, 18.0, 18.0, 1.10
	// The pool runs one H100 per node on p5.4xlarge (EC2 sells it on demand; GKE's one- to four-GPU
	// A3 High machines come as Spot or flex-start only).
	node1, ok1 := catalog.AWSInstanceType("p5.4xlarge")
	node8, ok8 := catalog.AWSInstanceType("p5.48xlarge")
	if !ok1 || !ok8 {
		t.Fatal("p5.4xlarge or p5.48xlarge is not in the catalog")
	}
	price1, _ := node1.Price("us-east-1")
	price8, _ := node8.Price("us-east-1")
	perGPU := roundTo4(price1.OnDemandUSD / float64(node1.GPUCount))
	before := float64(replicas/node1.GPUCount) * price1.OnDemandUSD * 730

	// The smallest H100 MIG profile that holds P99 memory plus headroom and the P95 compute share,
	// the most to a GPU.
	h100, _ := catalog.GPU("H100-80GB")
	var best catalog.MIGProfile
	for _, p := range h100.MIGProfiles {
		if p.MemoryGiB >= p99GiB*headroom && float64(p.ComputeSlices)/7 >= p95Percent/100 && p.MaxInstances > best.MaxInstances {
			best = p
		}
	}
	gpus := int(math.Ceil(float64(replicas) / float64(best.MaxInstances)))
	nodes8 := int(math.Ceil(float64(gpus) / float64(node8.GPUCount)))
	after8 := float64(nodes8) * price8.OnDemandUSD * 730
	after1 := float64(gpus) * price1.OnDemandUSD * 730
	idleHours := replicas * 14 * 24 * (1 - p95Percent/100)
	idleMonthly := idleHours * 730 / (14 * 24) * perGPU
	usd := func(v float64) string { return fmt.Sprintf("$%.2f", v) }
	for _, want := range []string{
		fmt.Sprintf("($%v an hour each, $%v per GPU-hour): **%s a month**", price1.OnDemandUSD, perGPU, usd(before)),
		fmt.Sprintf("**`%s`** (%g GiB, %d/7 = %.1f %% of the compute, the replica busy %.0f %% of its slice), %s to a GPU",
			best.Name, best.MemoryGiB, best.ComputeSlices, float64(best.ComputeSlices)/7*100, p95Percent/(float64(best.ComputeSlices)/7*100)*100, map[int]string{3: "three"}[best.MaxInstances]),
		fmt.Sprintf("⌈20 / %d⌉ = **%d GPUs** instead of 20, at %.0f %% mean utilisation", best.MaxInstances, gpus, replicas*p95Percent/float64(gpus)),
		fmt.Sprintf("%s `p5.4xlarge` nodes: **%s a month**, %s (%.0f %%) less", map[int]string{7: "seven"}[gpus], usd(after1), usd(before-after1), (before-after1)/before*100),
		fmt.Sprintf("%s `p5.48xlarge` node (%d GPUs, %d slices): **%s a month**, %s (%.0f %%) less", map[int]string{1: "one"}[nodes8], nodes8*8, nodes8*8*best.MaxInstances, usd(after8), usd(before-after8), (before-after8)/before*100),
		fmt.Sprintf("| `idle_gpu_hours` | %g |", roundTo4(idleHours)),
		fmt.Sprintf("| `idle_monthly_usd` | %.2f |", idleMonthly),
		fmt.Sprintf("%g idle GPU-hours, about %s a month idle at $%v per GPU-hour", roundTo4(idleHours), usd(idleMonthly), perGPU),
		fmt.Sprintf("mig { profile = %q }", best.Name),
		fmt.Sprintf("scaling { min_size = %d, max_size = %d }", gpus, gpus),
	} {
		if !strings.Contains(strings.Join(strings.Fields(string(guide)), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("the guide does not say %q", want)
		}
	}

	srv := metricstest.Shared(t)
	addr := "data.gpufleet_pool_utilization.acme_train"
	check := func(attr string, c knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), c)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: metricsProvider(srv, "") + fmt.Sprintf(`
data "gpufleet_pool_utilization" "acme_train" {
  selector  = "{gpufleet_pool=\"acme-train\"}"
  end_time  = %q
  node_type = "p5.4xlarge"
  region    = "us-east-1"
}
`, srv.End.Format(time.RFC3339)),
			ConfigStateChecks: []statecheck.StateCheck{
				check("gpus_max", knownvalue.Int64Exact(replicas)),
				check("utilization_mean_percent", near(p95Percent)),
				check("utilization_p95_percent", near(p95Percent)),
				check("memory_used_p99_gib", near(p99GiB)),
				check("idle_gpu_hours", near(idleHours)),
				check("hourly_usd_per_gpu", near(perGPU)),
				check("idle_monthly_usd", near(idleMonthly)),
			},
		}},
	})
}
