package eks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// GF-RS-006 at plan time: the utilisation file `gpufleet-policy utilization` writes, listed in
// policy.data_files beside the policy data, makes the provider warn about the pool of that name with
// the same text conftest shows; policy_waivers waives it.
func TestAccEKSNodePool_observedUtilization(t *testing.T) {
	sim := startSim(t)
	dir := t.TempDir()
	dataFile, utilFile := filepath.Join(dir, "policy-data.yaml"), filepath.Join(dir, "util.json")
	writePolicyData(t, dataFile, `"us-*"`)
	util := `{"gpufleet": {"utilization": {"pools": {"train": {
  "selector": "{gpufleet_pool=\"train\"}", "window": "14d", "step": "5m", "end_time": "2026-11-20T00:00:00Z",
  "utilization_p95_percent": 12.04, "idle_gpu_hours": 591.36, "hourly_usd_per_gpu": 0.8048, "idle_monthly_usd": 1035.84
}}}}}`
	if err := os.WriteFile(utilFile, []byte(util), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := func(waivers string) string {
		return providerConfig(sim, fmt.Sprintf("  policy {\n    data_files = [%q, %q]\n  }\n", dataFile, utilFile)) +
			poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(1, 1, 2)+waivers)
	}
	want := "GF-RS-006: gpufleet_eks_node_pool[train]: observed P95 GPU utilisation 12 % over 14d to 2026-11-20T00:00:00Z is under the 30 % threshold: " +
		"591.4 idle GPU-hours, about $1035.84 a month idle at $0.8048 per GPU-hour; consolidate onto fewer GPUs, MIG slices or time-slicing (gpufleet_recommendation), or waive"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(""), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{
						"rule": knownvalue.StringExact("GF-RS-006"), "severity": knownvalue.StringExact("warn"),
						"attribute": knownvalue.StringExact("scaling.desired_size"), "message": knownvalue.StringRegexp(regexp.MustCompile("^" + regexp.QuoteMeta(want) + "$")),
					}),
				})),
			}},
			{Config: cfg("  policy_waivers = { \"GF-RS-006\" = \"batch pool, busy at quarter end\" }\n"), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
			}},
		},
	})
}
