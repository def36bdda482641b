package gke_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

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
				PreConfig:   acctest.Inject(t, sim, cloudsim.Fault{Service: "gke", Operation: "CreateNodePool", Match: "infer-spot", Kind: cloudsim.CreateFailed, Count: 1}),
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
			PreConfig: acctest.Inject(t, sim, cloudsim.Fault{Service: "gke", Operation: "CreateNodePool", Kind: cloudsim.Unavailable, AfterStart: true, Count: 1}),
			Config:    providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)),
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
			importTune(cfg, func(s []*terraform.InstanceState) error {
				if got := s[0].Attributes["gpu.driver_version"]; got != "INSTALLATION_DISABLED" {
					return fmt.Errorf("imported gpu.driver_version = %q", got)
				}
				return nil
			}),
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

// A create whose timeout passes while GKE has not yet registered the second node pool (its
// CreateNodePool never reached the service) keeps the node pool that runs: the create warns
// instead of failing, state records the running node pool and, for the one not made, an entry
// NOT_CREATED with in_sync = false (so that Terraform finds the node pools it planned, and neither
// reports an inconsistent result nor taints the pool), and the next apply creates the missing node
// pool beside the running one. Before, the missing create counted as a refusal: the rollback
// deleted the running on-demand node pool.
func TestAccGKENodePool_createTimeoutBeforeSecondSide(t *testing.T) {
	sim := startSim(t)
	cfg := func(timeouts string) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", trainingWorkload+acctest.Scaling(2, 2, 4)+acctest.Capacity(50, 0)+
			"  node_locations = [\"europe-west4-a\"]\n"+timeouts)
	}
	var diags acctest.ApplyDiagnostics
	var odID string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				PreConfig:          acctest.Inject(t, sim, cloudsim.Fault{Service: "gke", Operation: "CreateNodePool", Match: "infer-spot", Kind: cloudsim.Latency, Latency: time.Minute, Count: 1}),
				Config:             cfg("  timeouts {\n    create = \"4s\"\n  }\n"),
				ExpectNonEmptyPlan: true, // the plan after it creates infer-spot
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("infer-od"), "status": knownvalue.StringExact("RUNNING")}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("infer-spot"), "status": knownvalue.StringExact("NOT_CREATED"), "in_sync": knownvalue.Bool(false)}),
					})),
				},
				Check: func(s *terraform.State) error {
					if err := diags.ExpectWarning("infer-spot", "not created", "does not taint"); err != nil {
						return err
					}
					if r := s.RootModule().Resources[addr]; r == nil || r.Primary.Tainted {
						return fmt.Errorf("the pool is tainted or not in state: %v", r)
					}
					if _, ok := sim.NodePool(testProject, testLocation, testCluster, "infer-spot"); ok {
						return fmt.Errorf("infer-spot exists: the create reached GKE, the test proves nothing")
					}
					np, ok := sim.NodePool(testProject, testLocation, testCluster, "infer-od")
					if !ok || np.GetStatus() != containerpb.NodePool_RUNNING {
						return fmt.Errorf("the running on-demand node pool was not kept: %v", np)
					}
					odID = creationID(sim, "infer-od")
					return nil
				},
			},
			{
				Config: cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					if id := creationID(sim, "infer-od"); odID == "" || id != odID {
						return fmt.Errorf("infer-od was created again (creation id %q, before %q)", id, odID)
					}
					if names := gpuPoolNames(t, sim); !slices.Equal(names, []string{"infer-od", "infer-spot"}) {
						return fmt.Errorf("node pools %v, want infer-od and infer-spot", names)
					}
					return nil
				},
			},
		},
	})
}

// A create whose only CreateNodePool reached GKE and is carried out after the create timeout (the
// answer lost, and the node pool not there yet when the create looks it up): the create keeps the
// pool in state with its owner id and a NOT_CREATED entry, and warns, so that the next refresh finds
// the node pool by its owner label. Before, the create failed with no state, the pool's owner id
// was lost with it, and the node pool GKE made a moment later was in no state: the next apply failed
// on it as another's, and a destroy left it running.
func TestAccGKENodePool_createAnswerLostBeforeRegistered(t *testing.T) {
	sim := startSim(t)
	cfg := func(timeouts string) string { return oneZonePool(sim, timeouts) }
	var diags acctest.ApplyDiagnostics
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				PreConfig:          acctest.Inject(t, sim, cloudsim.Fault{Service: "gke", Operation: "CreateNodePool", Match: "infer-od", Kind: cloudsim.Latency, Latency: 5 * time.Second, AfterStart: true, Count: 1}),
				Config:             cfg("  timeouts {\n    create = \"2s\"\n  }\n"),
				ExpectNonEmptyPlan: true,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("infer-od"), "status": knownvalue.StringExact("NOT_CREATED"), "in_sync": knownvalue.Bool(false)}),
					})),
				},
				Check: func(s *terraform.State) error {
					if err := diags.ExpectWarning("infer-od", "not created", "owner"); err != nil {
						return err
					}
					if r := s.RootModule().Resources[addr]; r == nil || r.Primary.Tainted || r.Primary.Attributes["owner_id"] == "" {
						return fmt.Errorf("the pool is tainted, not in state or without its owner id: %v", r)
					}
					if _, ok := sim.NodePool(testProject, testLocation, testCluster, "infer-od"); ok {
						return fmt.Errorf("infer-od exists already: the test proves nothing")
					}
					return nil
				},
			},
			{
				PreConfig: func() {
					for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
						if np, ok := sim.NodePool(testProject, testLocation, testCluster, "infer-od"); ok && np.GetStatus() == containerpb.NodePool_RUNNING {
							return
						}
					}
					t.Fatal("GKE never made infer-od")
				},
				Config: cfg(""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("RUNNING")),
				},
				Check: func(*terraform.State) error {
					if names := gpuPoolNames(t, sim); !slices.Equal(names, []string{"infer-od"}) {
						return fmt.Errorf("node pools %v, want the one GKE made late", names)
					}
					return nil
				},
			},
		},
	})
}

// The same create cut off before GKE registered it (it never makes the node pool): the create warns
// and keeps the pool's state, the next refresh drops the pool, and the next apply creates it.
func TestAccGKENodePool_createCutOffNeverRegistered(t *testing.T) {
	sim := startSim(t)
	cfg := func(timeouts string) string { return oneZonePool(sim, timeouts) }
	var diags acctest.ApplyDiagnostics
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				PreConfig:          acctest.Inject(t, sim, cloudsim.Fault{Service: "gke", Operation: "CreateNodePool", Match: "infer-od", Kind: cloudsim.Latency, Latency: time.Minute, Count: 1}),
				Config:             cfg("  timeouts {\n    create = \"2s\"\n  }\n"),
				ExpectNonEmptyPlan: true,
				Check:              func(*terraform.State) error { return diags.ExpectWarning("infer-od", "not created") },
			},
			{
				Config: cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
				}},
				Check: func(*terraform.State) error {
					if names := gpuPoolNames(t, sim); !slices.Equal(names, []string{"infer-od"}) {
						return fmt.Errorf("node pools %v, want infer-od", names)
					}
					return nil
				},
			},
		},
	})
}

// The create timeout passing while the first node pool still provisions (GKE registered it) and
// before the second is sent: the pool is kept, untainted, with the provisioning node pool and a
// NOT_CREATED entry for the other, where Terraform reported an inconsistent result and tainted it.
func TestAccGKENodePool_createTimeoutWhileFirstSideProvisions(t *testing.T) {
	sim, err := cloudsim.Start(cloudsim.Options{Seed: testSeed(), TransitionDelay: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	var diags acctest.ApplyDiagnostics
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config: providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", trainingWorkload+acctest.Scaling(2, 2, 4)+acctest.Capacity(50, 0)+
				"  node_locations = [\"europe-west4-a\"]\n  timeouts {\n    create = \"1s\"\n  }\n"),
			ExpectNonEmptyPlan: true,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("infer-od"), "status": knownvalue.StringExact("PROVISIONING")}),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("infer-spot"), "status": knownvalue.StringExact("NOT_CREATED"), "in_sync": knownvalue.Bool(false)}),
				})),
			},
			Check: func(s *terraform.State) error {
				if err := diags.ExpectWarning("infer-spot: not created", "infer-od is still PROVISIONING", "does not taint"); err != nil {
					return err
				}
				if r := s.RootModule().Resources[addr]; r == nil || r.Primary.Tainted {
					return fmt.Errorf("the pool is tainted or not in state: %v", r)
				}
				return nil
			},
		}},
	})
}

// The cluster autoscaler resizing the first node pool of a new autoscaled pool while GKE creates
// the second (pending GPU pods are why the pool is made): the create records the size GKE holds
// and succeeds, where a desired_size the plan fixed made Terraform report an inconsistent result
// and taint the pool, and the next apply deleted the node pools that ran.
func TestAccGKENodePool_autoscaledDuringCreate(t *testing.T) {
	sim := startSim(t)
	config := providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", trainingWorkload+autoscaled(2, 8)+acctest.Capacity(50, 0)+
		"  node_locations = [\"europe-west4-a\"]\n")
	scaled := make(chan error, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				if _, err := sim.Inject(cloudsim.Fault{Service: "gke", Operation: "CreateNodePool", Match: "infer-spot", Kind: cloudsim.Latency, Latency: 3 * time.Second, Count: 1}); err != nil {
					t.Fatal(err)
				}
				go func() {
					for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
						if np, ok := sim.NodePool(testProject, testLocation, testCluster, "infer-od"); ok && np.GetStatus() == containerpb.NodePool_RUNNING {
							scaled <- sim.ClusterAutoscale(testProject, testLocation, testCluster, "infer-od", 3)
							return
						}
					}
					scaled <- fmt.Errorf("infer-od never ran")
				}()
			},
			Config: config,
			Check: func(s *terraform.State) error {
				if err := <-scaled; err != nil {
					return err
				}
				if _, ok := sim.NodePool(testProject, testLocation, testCluster, "infer-spot"); !ok {
					return fmt.Errorf("infer-spot was not created")
				}
				if r := s.RootModule().Resources[addr]; r == nil || r.Primary.Tainted || r.Primary.Attributes["node_pools.0.desired_size"] != "3" {
					return fmt.Errorf("the pool is tainted, or not in state with infer-od's 3 nodes: %v", r)
				}
				return nil
			},
		}},
	})
}

// A node pool that turns ERROR after the plan (a failed auto-upgrade or repair GKE started) while
// its nodes still run is not deleted by an apply whose plan did not say so: the update leaves it and
// its nodes as they are, fails naming it, and state records it ERROR. The next plan says that the
// apply replaces it, with its nodes, and that apply does. Before, the update deleted it and its
// running nodes to create it again, which no plan had shown.
func TestAccGKENodePool_turnedErrorAfterPlan(t *testing.T) {
	sim := startSim(t)
	cfg := func(labels string) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)+labels)
	}
	const message = "Node pool upgrade failed: the node pool may be unusable."
	var created string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(""), Check: recordCreation(sim, "infer-od", &created)},
			{
				Config: cfg(`  labels = { team = "ml" }` + "\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.AfterPlan(func() {
						if err := sim.FailNodePool(testProject, testLocation, testCluster, "infer-od", message); err != nil {
							t.Error(err)
						}
					}),
				}},
				ExpectError: acctest.ExpectErrorParts("infer-od", message, "turned ERROR after the plan", "it has 2 nodes", "left it as it is"),
			},
			{
				// State records what GKE holds: the node pool ERROR, with its nodes.
				RefreshState:       true,
				ExpectNonEmptyPlan: true,
				PreConfig: func() {
					if id, _, _ := sim.NodePoolCreation(testProject, testLocation, testCluster, "infer-od"); id != created || id == "" {
						t.Errorf("infer-od was deleted and created again (%q, was %q) though the plan did not say so", id, created)
					}
					if n, _ := sim.NodePoolNodeCount(testProject, testLocation, testCluster, "infer-od"); n == 0 {
						t.Errorf("infer-od lost its nodes")
					}
				},
				Check: resource.TestCheckResourceAttr(addr, "node_pools.0.status", "ERROR"),
			},
			{
				// The plan shows the replacement; its apply makes it.
				Config: cfg(`  labels = { team = "ml" }` + "\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("RUNNING")),
				},
				Check: func(*terraform.State) error {
					if id, _, _ := sim.NodePoolCreation(testProject, testLocation, testCluster, "infer-od"); id == created {
						return fmt.Errorf("infer-od in ERROR was not replaced by the apply whose plan said so")
					}
					return checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error { return wantLabel(np, "team", "ml") })(nil)
				},
			},
		},
	})
}

// A node pool that turned ERROR after the plan with no nodes is left too (the plan holds its
// instance groups, so a replacement now would be an inconsistent result), and the next apply,
// whose plan shows the replacement, makes it.
func TestAccGKENodePool_turnedErrorWithoutNodes(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 0, 4)+`  labels = { team = "ml" }`+"\n")
	var created string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 0, 4)),
				Check:  recordCreation(sim, "infer-od", &created),
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.AfterPlan(func() {
						if err := sim.FailNodePool(testProject, testLocation, testCluster, "infer-od", "Node pool repair failed."); err != nil {
							t.Error(err)
						}
					}),
				}},
				ExpectError: acctest.ExpectErrorParts("infer-od", "turned ERROR after the plan", "it has 0 nodes"),
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("RUNNING")),
				},
				Check: func(*terraform.State) error {
					if id, _, _ := sim.NodePoolCreation(testProject, testLocation, testCluster, "infer-od"); id == created {
						return fmt.Errorf("infer-od in ERROR was not replaced by the apply whose plan said so")
					}
					return checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error { return wantLabel(np, "team", "ml") })(nil)
				},
			},
		},
	})
}

// recordCreation is a check that records the creation id cloudsim gave a node pool in *id.
func recordCreation(sim *cloudsim.Sim, name string, id *string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		*id, _, _ = sim.NodePoolCreation(testProject, testLocation, testCluster, name)
		return nil
	}
}

// oneZonePool is an on-demand inference pool of one node pool in one zone, with body added.
func oneZonePool(sim *cloudsim.Sim, body string) string {
	return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 1, 2)+"  node_locations = [\"europe-west4-a\"]\n"+body)
}

// An update that rolls the nodes out with the blue-green strategy (here a new machine type) ends
// with new instance groups: GKE moves the nodes to green groups and deletes the blue ones. The plan
// shows the node pool's instance groups known only after the apply, and the apply succeeds, where a
// plan that kept the old ones made Terraform fail the update as an inconsistent result.
func TestAccGKENodePool_blueGreenRolloutNewInstanceGroups(t *testing.T) {
	sim := startSim(t)
	const blueGreen = "  upgrade_settings {\n    strategy = \"BLUE_GREEN\"\n  }\n"
	cfg := func(machineType string) string {
		return providerConfig(sim, "") + poolConfig("infer", machineType, inferenceWorkload+acctest.Scaling(0, 1, 2)+"  node_locations = [\"europe-west4-a\"]\n"+blueGreen)
	}
	var blue string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg("g2-standard-8"), Check: recordAttribute("node_pools.0.instance_group_urls.0", &blue)},
			{
				Config: cfg("g2-standard-12"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(0).AtMapKey("instance_group_urls")),
				}},
				Check: func(s *terraform.State) error {
					if green := acctest.StateAttribute(s, addr, "node_pools.0.instance_group_urls.0"); green == blue || green == "" {
						return fmt.Errorf("instance groups %q after the blue-green rollout, were %q", green, blue)
					}
					return checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error {
						if np.GetConfig().GetMachineType() != "g2-standard-12" {
							return fmt.Errorf("machine type %s", np.GetConfig().GetMachineType())
						}
						return nil
					})(s)
				},
			},
		},
	})
}

// recordAttribute is a check that records the pool's state attribute at path in *v.
func recordAttribute(path string, v *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		*v = acctest.StateAttribute(s, addr, path)
		return nil
	}
}

// A create that outlasts its timeout while GKE provisions the node pool, and whose read back then
// fails (here Compute Engine refuses the instance group read once): the create warns, and the pool
// is not tainted, since the node pool may be running by the next apply, which would delete it to
// replace a tainted pool. Before, the failed read made the create an error, and Terraform tainted it.
func TestAccGKENodePool_createTimeoutThenReadFails(t *testing.T) {
	sim, config := slowProvisioning(t)
	var diags acctest.ApplyDiagnostics
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			PreConfig: acctest.Inject(t, sim, cloudsim.Fault{Service: "compute", Operation: "instanceGroupManagers.get", Kind: cloudsim.ServerError, Status: 403, Count: 1,
				Code: "forbidden", Message: "Required 'compute.instanceGroupManagers.get' permission"}),
			Config: config,
			Check: func(s *terraform.State) error {
				if err := diags.ExpectWarning("reading GKE node pool", "compute.instanceGroupManagers.get", "not tainted"); err != nil {
					return err
				}
				if r := s.RootModule().Resources[addr]; r == nil || r.Primary.Tainted {
					return fmt.Errorf("the pool is tainted or not in state: %v", r)
				}
				if n := len(sim.RequestsFor("compute", "instanceGroupManagers.get")); n == 0 {
					return fmt.Errorf("no instance group read: the test proves nothing")
				}
				return nil
			},
		}},
	})
}
