package eks_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// fitWorkload is 70B in int8 (78.23 GiB per replica) tensor-parallel over gpus GPUs, two
// production replicas.
func fitWorkload(gpus string) string {
	return `
  workload {
    kind             = "inference"
    environment      = "production"
    gpu_memory_gib   = 78.23
    precision        = "int8"
    gpus_per_replica = ` + gpus + `
    replicas         = 2
  }
`
}

// The workload block's fit settings (issue #22): a tensor-parallel replica over the 4 A10G of a
// g5.12xlarge (84.93 GiB usable) plans and applies, its settings are node labels that read back on refresh and import;
// a replica over more GPUs than the node has fails at plan at gpus_per_replica (validation, whatever
// the policy enforcement; the bundle's GF-RS-001 says the same of official resources).
func TestAccEKSNodePool_fitSettings(t *testing.T) {
	sim := startSim(t)
	cfg := func(gpus string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g5.12xlarge"]`, fitWorkload(gpus)+acctest.Scaling(2, 2, 2))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: cfg("4"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("effective_labels").AtMapKey("gpufleet.io/gpus-per-replica"), knownvalue.StringExact("4")),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("effective_labels").AtMapKey("gpufleet.io/precision"), knownvalue.StringExact("int8")),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("effective_labels").AtMapKey("gpufleet.io/replicas"), knownvalue.StringExact("2")),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("policy_document").AtMapKey("workload").AtMapKey("gpus_per_replica"), knownvalue.Int64Exact(4)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("workload").AtMapKey("gpus_per_replica"), knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("workload").AtMapKey("precision"), knownvalue.StringExact("int8")),
				},
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "ml:train",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "policy_waivers", "policy_document.waivers"},
			},
			{
				Config:      cfg("8"),
				ExpectError: acctest.ExpectErrorParts("Replica larger than a node", "gpus_per_replica = 8", "a g5.12xlarge node has 4 A10G GPU"),
			},
		},
	})
}
