package gke_test

import (
	"fmt"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// Audit N1: a spot mix moved from all on-demand to all spot whose new spot node pool stocks out
// keeps the on-demand node pool running: state holds both, the next plan is the repair, and an
// apply once GKE has capacity creates the spot node pool again and only then deletes the on-demand
// one.
func TestAccGKENodePool_swapKeepsRunningSide(t *testing.T) {
	sim := startSim(t)
	cfg := func(pct int) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", trainingWorkload+acctest.Scaling(2, 2, 4)+acctest.Capacity(pct, 0)+
			"  node_locations = [\"europe-west4-a\"]\n")
	}
	var odID string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(0), Check: func(*terraform.State) error { odID = creationID(sim, "infer-od"); return nil }},
			{
				PreConfig: func() {
					if _, err := sim.Inject(cloudsim.Fault{Service: "gke", Operation: "CreateNodePool", Match: "infer-spot", Kind: cloudsim.CreateFailed, Count: 1}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      cfg(100),
				ExpectError: acctest.ExpectErrorParts("infer-spot", "ERROR", "infer-od kept"),
			},
			{
				PreConfig: func() {
					np, ok := sim.NodePool(testProject, testLocation, testCluster, "infer-od")
					if !ok || np.GetStatus() != containerpb.NodePool_RUNNING || creationID(sim, "infer-od") != odID || nodeCount(sim, "infer-od") != 2 {
						t.Fatalf("the running on-demand node pool was not kept: %v", np)
					}
				},
				Config: cfg(100),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("infer-spot"), "in_sync": knownvalue.Bool(true)})})),
				}},
				Check: func(*terraform.State) error {
					if names := gpuPoolNames(t, sim); len(names) != 1 || names[0] != "infer-spot" {
						return fmt.Errorf("node pools %v, want infer-spot", names)
					}
					return nil
				},
			},
		},
	})
}

// Audit N10: a CreateNodePool answered UNAVAILABLE after GKE started the create is not sent again
// blindly (that meets ALREADY_EXISTS and fails the pool): the node pool is found by its owner label
// and its creation awaited.
func TestAccGKENodePool_createUnavailableAfterStart(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				if _, err := sim.Inject(cloudsim.Fault{Service: "gke", Operation: "CreateNodePool", Kind: cloudsim.Unavailable, AfterStart: true, Count: 1}); err != nil {
					t.Fatal(err)
				}
			},
			Config: providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("RUNNING")),
			},
			Check: func(*terraform.State) error {
				if got := errorsOf(sim, "CreateNodePool"); len(got) != 1 || got[0] != "UNAVAILABLE" {
					return fmt.Errorf("CreateNodePool answers %q, want one UNAVAILABLE and no create sent again", got)
				}
				return nil
			},
		}},
	})
}

// errorsOf lists the error codes the simulator answered one operation with, "" for success.
func errorsOf(sim *cloudsim.Sim, operation string) []string {
	var out []string
	for _, r := range sim.RequestsFor("gke", operation) {
		out = append(out, r.Error)
	}
	return out
}

// Audit N6: a side added months later is created at a version the cluster accepts (the control
// plane's), not at the explicit patch state recorded from the other side, which GKE has since
// stopped offering. kubernetes_version, unset, shows the oldest version the nodes run.
func TestAccGKENodePool_sideAddedLater(t *testing.T) {
	sim := startSim(t)
	cfg := func(pct int) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", trainingWorkload+acctest.Scaling(0, 2, 4)+acctest.Capacity(pct, 0)+
			"  node_locations = [\"europe-west4-a\"]\n")
	}
	version := func(name, want string) func(*terraform.State) error {
		return checkNodePool(t, sim, name, func(np *containerpb.NodePool) error {
			if np.GetVersion() != want {
				return fmt.Errorf("%s runs %s, want %s", name, np.GetVersion(), want)
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(0), ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("1.31.5-gke.1023000")),
			}},
			{
				PreConfig: func() {
					if err := sim.UpgradeGKEControlPlane(testProject, testLocation, testCluster, "1.31.9-gke.1044000"); err != nil {
						t.Fatal(err)
					}
					if err := sim.RetireGKENodeVersions(testProject, testLocation, testCluster, "1.31.5-gke.1023000"); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg(50),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("1.31.5-gke.1023000")),
				},
				Check: resource.ComposeTestCheckFunc(version("infer-od", "1.31.5-gke.1023000"), version("infer-spot", "1.31.9-gke.1044000")),
			},
			{
				Config: cfg(100),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("kubernetes_version")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("1.31.9-gke.1044000")),
				},
			},
		},
	})
}

// Audit N2: a node pool created before GKE 1.30 has no driver setting (GPU_DRIVER_VERSION_UNSPECIFIED:
// GKE installs no driver). Import reads it as INSTALLATION_DISABLED, which means the same on the
// nodes, and a configuration that says so plans no accelerator change, which would recreate every
// node with GKE's driver.
func TestAccGKENodePool_importDriverUnspecified(t *testing.T) {
	sim := startSimWith(t, legacySeed("1.29.15-gke.1218000"))
	cfg := tuneConfig(sim, "  gpu {\n    driver_version = \"INSTALLATION_DISABLED\"\n  }\n")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config:             cfg,
				ResourceName:       tuneAddr,
				ImportState:        true,
				ImportStateId:      testProject + "/" + testLocation + "/" + testCluster + "/tune",
				ImportStatePersist: true,
				ImportStateCheck: func(s []*terraform.InstanceState) error {
					if got := s[0].Attributes["gpu.driver_version"]; got != "INSTALLATION_DISABLED" {
						return fmt.Errorf("imported gpu.driver_version = %q", got)
					}
					return nil
				},
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(tuneAddr, tfjsonpath.New("gpu").AtMapKey("driver_version"), knownvalue.StringExact("INSTALLATION_DISABLED")),
				}},
				Check: func(s *terraform.State) error {
					for _, r := range sim.RequestsFor("gke", "UpdateNodePool") {
						if _, ok := r.Params["accelerators"]; ok {
							return fmt.Errorf("an accelerator update was sent: %v", r.Params)
						}
					}
					return checkNodePool(t, sim, "tune-od", func(np *containerpb.NodePool) error {
						if d := np.GetConfig().GetAccelerators()[0].GetGpuDriverInstallationConfig(); d != nil {
							return fmt.Errorf("the driver setting became %v", d)
						}
						return nil
					})(s)
				},
			},
		},
	})
}
