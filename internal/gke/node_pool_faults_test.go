package gke_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
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

// Bad input fails at plan time, at the attribute, before any call reaches the cloud.
func TestAccGKENodePool_badInput(t *testing.T) {
	mig := func(profile string) string {
		return fmt.Sprintf("  gpu {\n    mig {\n      profile = %q\n    }\n  }\n", profile)
	}
	tags := make([]string, 63)
	for i := range tags {
		tags[i] = fmt.Sprintf("t%02d = %q", i, "x")
	}
	cases := []struct {
		name, machineType, body string
		want                    []string
	}{
		{"accelerator the machine type does not take", "g2-standard-8", "  gpu {\n    type = \"nvidia-tesla-t4\"\n    count = 1\n  }\n", []string{"gpu.type", "g2-standard-8"}},
		{"N1 without a GPU", "n1-standard-8", "", []string{"machine_type", "name an accelerator type"}},
		{"GPU count N1 does not take", "n1-standard-8", "  gpu {\n    type = \"nvidia-tesla-t4\"\n    count = 3\n  }\n", []string{"gpu.count", "nvidia-tesla-t4"}},
		{"partition size GKE does not offer", "a2-highgpu-1g", mig("4g.20gb"), []string{"not offered by GKE", "gpu.mig.profile", "1g.5gb", "7g.40gb"}},
		{"H200 partition of another GPU", "a3-ultragpu-8g", mig("1g.10gb"), []string{"gpu.mig.profile", "H200-141GB offers"}},
		{"MIG on a GPU without MIG", "g2-standard-8", mig("1g.5gb"), []string{"gpu.mig", "L4 has no Multi-Instance GPU"}},
		{"too many sharing replicas", "g2-standard-8", "  gpu {\n    sharing {\n      strategy = \"time-slicing\"\n      replicas = 49\n    }\n  }\n", []string{"gpu.sharing.replicas", "between 2 and 48"}},
		{"label key Kubernetes rejects", "g2-standard-8", `  labels = { "bad key" = "x" }` + "\n", []string{"labels", "qualified name"}},
		{"label under a prefix Kubernetes reserves", "g2-standard-8", `  labels = { "node-role.kubernetes.io/gpu" = "true" }` + "\n", []string{"labels", "Kubernetes reserves"}},
		{"label under a prefix GKE manages", "g2-standard-8", `  labels = { "cloud.google.com/compute-class" = "gpu" }` + "\n", []string{"labels", "GKE manages"}},
		{"tag GCP rejects as a resource label", "g2-standard-8", `  tags = { Project = "vision" }` + "\n", []string{"tags", "GKE resource label key \"Project\""}},
		{"more resource labels than GCP takes", "g2-standard-8", "  tags = {" + strings.Join(tags, ", ") + "}\n", []string{"tags", "at most 64"}},
		{"only spot with a reservation", "g2-standard-8", "  capacity {\n    spot_percentage = 100\n    reservation {\n      type = \"any\"\n    }\n  }\n", []string{"capacity.spot_percentage", "cannot consume reservations"}},
		{"specific reservation without a name", "g2-standard-8", "  capacity {\n    reservation {\n      type = \"specific\"\n    }\n  }\n", []string{"capacity.reservation.name", "names the reservation"}},
		{"node location outside the region", "g2-standard-8", `  node_locations = ["us-central1-a"]` + "\n", []string{"node_locations", "not a zone of europe-west4"}},
		{"size that would wrap as an int32", "g2-standard-8", "", []string{"scaling.max_size", "must be between 1 and 4000"}},
		{"desired size that does not split over the zones", "g2-standard-8", `  node_locations = ["europe-west4-a", "europe-west4-b"]` + "\n", []string{"scaling.desired_size", "per zone"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim := startSim(t)
			sizes := acctest.Scaling(0, 2, 4)
			if tc.name == "desired size that does not split over the zones" {
				sizes = acctest.Scaling(0, 3, 4)
			}
			if tc.name == "size that would wrap as an int32" {
				sizes = "  scaling {\n    min_size = 0\n    max_size = 4294967298\n  }\n"
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      providerConfig(sim, "") + poolConfig("infer", tc.machineType, inferenceWorkload+sizes+tc.body),
					ExpectError: acctest.ExpectErrorParts(tc.want...),
				}},
			})
			if n := requestCount(sim, ""); n != 0 {
				t.Fatalf("bad input reached the cloud: %d calls: %+v", n, sim.Requests())
			}
		})
	}
	// planFails plans config against a cloudsim of its own: the plan fails with want, and no call
	// reached the cloud.
	planFails := func(t *testing.T, config func(*cloudsim.Sim) string, want *regexp.Regexp) {
		t.Helper()
		sim := startSim(t)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProviderFactories,
			Steps:                    []resource.TestStep{{Config: config(sim), ExpectError: want}},
		})
		if n := requestCount(sim, ""); n != 0 {
			t.Fatalf("bad input reached the cloud: %d calls", n)
		}
	}
	pool := poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4))
	// Provider default_tags become resource labels of GKE pools: one GCP rejects fails the plan.
	t.Run("default tag GCP rejects", func(t *testing.T) {
		planFails(t, func(sim *cloudsim.Sim) string {
			return strings.Replace(providerConfig(sim, ""), `default_tags = { managed-by = "terraform" }`, `default_tags = { ManagedBy = "terraform" }`, 1) + pool
		}, acctest.ExpectErrorParts("Provider default tag GKE does not take", "ManagedBy"))
	})
	// gcp.insecure (plaintext, no credentials) with a Compute Engine endpoint on another machine, or
	// none (compute.googleapis.com), fails the plan of a node pool, which reads instance groups there.
	for name, compute := range map[string]string{"remote": "    compute_endpoint = \"https://compute.googleapis.com/compute/v1/\"\n", "none": ""} {
		t.Run("insecure with a "+name+" Compute Engine endpoint", func(t *testing.T) {
			planFails(t, func(sim *cloudsim.Sim) string {
				return regexp.MustCompile(`    compute_endpoint = "[^"]*"\n`).ReplaceAllString(providerConfig(sim, ""), compute) + pool
			}, acctest.ExpectErrorParts("Insecure connection without a loopback Compute Engine endpoint", "gcp.compute_endpoint"))
		})
	}
	// Arguments of the resource itself, with the validator's message at the attribute.
	for name, edit := range map[string][2]string{
		"name too long for <name>-spot": {`name         = "infer"`, `name         = "an-inference-pool-name-of-36-letters"`},
		"location not a region or zone": {`location     = "europe-west4"`, `location     = "europe"`},
	} {
		t.Run(name, func(t *testing.T) {
			planFails(t, func(sim *cloudsim.Sim) string {
				return providerConfig(sim, "") + strings.Replace(pool, edit[0], edit[1], 1)
			},
				regexp.MustCompile(strings.Fields(edit[0])[0]))
		})
	}
}

// Throttling and UNAVAILABLE on GKE and Compute are retried: eight pools under a 30 % fault rate
// (terraform's default -parallelism=10) all apply, and the cloud holds exactly them.
func TestAccGKENodePool_throttling(t *testing.T) {
	sim := startSim(t)
	for _, f := range []cloudsim.Fault{
		{Service: "gke", Kind: cloudsim.Throttle, Rate: 0.2},
		{Service: "gke", Kind: cloudsim.Unavailable, Rate: 0.1},
		{Service: "compute", Kind: cloudsim.Throttle, Rate: 0.2},
	} {
		if _, err := sim.Inject(f); err != nil {
			t.Fatal(err)
		}
	}
	var cfg strings.Builder
	cfg.WriteString(providerConfig(sim, ""))
	for i := range 8 {
		cfg.WriteString(poolConfig(fmt.Sprintf("p%d", i), "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config: cfg.String(),
			Check: func(*terraform.State) error {
				if names := gpuPoolNames(t, sim); len(names) != 8 {
					return fmt.Errorf("node pools %v, want 8", names)
				}
				for _, code := range []string{"RESOURCE_EXHAUSTED", "UNAVAILABLE"} {
					if !hasError(sim, code) {
						return fmt.Errorf("no call failed with %s: the test did not exercise retries", code)
					}
				}
				return nil
			},
		}},
	})
}

func hasError(sim *cloudsim.Sim, code string) bool {
	for _, r := range sim.Requests() {
		if r.Error == code || strings.Contains(r.Error, code) {
			return true
		}
	}
	return false
}

// 20 pools of one cluster applied at -parallelism=10 (GKE runs their node pool operations side by
// side), while operations started elsewhere make GKE refuse some calls for a while: all succeed.
func TestAccGKENodePool_parallelPools(t *testing.T) {
	sim := startSim(t)
	var cfg strings.Builder
	cfg.WriteString(providerConfig(sim, ""))
	for i := range 20 {
		cfg.WriteString(poolConfig(fmt.Sprintf("p%02d", i), "g2-standard-8", trainingWorkload+acctest.Capacity(50, 0)+"  scaling {\n    min_size = 0\n    max_size = 4\n  }\n"))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				// Operations started elsewhere (another terraform run, the console, GKE's own
				// upgrades) make GKE refuse node pool calls for a while.
				if _, err := sim.Inject(cloudsim.Fault{Service: "gke", Operation: "CreateNodePool", Kind: cloudsim.ServerError, Code: "FAILED_PRECONDITION",
					Message: "Operation operation-1-upgrade is currently upgrading cluster ml. Please wait and try again once it is done.", Rate: 0.3, Count: 10}); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg.String(),
			Check: func(*terraform.State) error {
				if names := gpuPoolNames(t, sim); len(names) != 40 {
					return fmt.Errorf("%d node pools, want 40 (20 pools × 2 sides): %v", len(names), names)
				}
				if !hasError(sim, "FAILED_PRECONDITION") {
					return fmt.Errorf("no call met the other operation: the test did not exercise the retry")
				}
				return nil
			},
		}},
	})
}

// A create whose operation ends in ERROR (a GPU stock-out) reports GKE's error; state holds the node
// pool GKE made, so nothing is orphaned, and the next apply replaces it.
func TestAccGKENodePool_createFailed(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if _, err := sim.Inject(cloudsim.Fault{Service: "gke", Operation: "CreateNodePool", Kind: cloudsim.CreateFailed, Count: 1}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      cfg,
				ExpectError: acctest.ExpectErrorParts("creating GKE node pool", "infer-od", "ResourceExhausted", "not have enough resources"),
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("RUNNING")),
				},
			},
		},
	})
}

// One side of a spot mix fails to create (a spot stockout leaves it ERROR) while the other runs:
// the create succeeds with a warning rather than fail, since Terraform would taint the pool and the
// next apply delete the running side with it. State holds both, the failed one with in_sync false;
// the next plan is an update that creates the failed side again, and the running side stays.
func TestAccGKENodePool_spotSideFails(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", trainingWorkload+acctest.Scaling(0, 4, 8)+acctest.Capacity(50, 0))
	var odID string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if _, err := sim.Inject(cloudsim.Fault{Service: "gke", Operation: "CreateNodePool", Match: "*-spot", Kind: cloudsim.CreateFailed, Count: 1}); err != nil {
						t.Fatal(err)
					}
				},
				Config:             cfg,
				ExpectNonEmptyPlan: true,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(0).AtMapKey("in_sync"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(1).AtMapKey("status"), knownvalue.StringExact("ERROR")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(1).AtMapKey("in_sync"), knownvalue.Bool(false)),
				},
				Check: func(*terraform.State) error {
					odID, _, _ = sim.NodePoolCreation(testProject, testLocation, testCluster, "infer-od")
					return nil
				},
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(1).AtMapKey("status"), knownvalue.StringExact("RUNNING")),
				},
				Check: func(*terraform.State) error {
					if id, _, _ := sim.NodePoolCreation(testProject, testLocation, testCluster, "infer-od"); id != odID || id == "" {
						return fmt.Errorf("infer-od was created again (%q, was %q)", id, odID)
					}
					return nil
				},
			},
		},
	})
}

// An update whose operation fails leaves state as GKE holds it, and the next apply converges.
func TestAccGKENodePool_updateFailed(t *testing.T) {
	sim := startSim(t)
	cfg := func(labels string) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)+labels)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg("")},
			{
				PreConfig: func() {
					if _, err := sim.Inject(cloudsim.Fault{Service: "gke", Operation: "UpdateNodePool", Kind: cloudsim.CreateFailed, Count: 1}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      cfg(`  labels = { team = "ml" }` + "\n"),
				ExpectError: acctest.ExpectErrorParts("updating GKE node pool", "UpdateNodePool"),
			},
			{
				Config: cfg(`  labels = { team = "ml" }` + "\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error { return wantLabel(np, "team", "ml") }),
			},
		},
	})
}

// An update that meets an etag conflict (someone changed the node pool since it was read) is built
// again from a fresh read and goes through.
func TestAccGKENodePool_etagConflict(t *testing.T) {
	sim := startSim(t)
	cfg := func(labels string) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)+labels)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg("")},
			{
				PreConfig: func() {
					if _, err := sim.Inject(cloudsim.Fault{Service: "gke", Operation: "UpdateNodePool", Kind: cloudsim.ServerError, Code: "ABORTED",
						Message: "Precondition failed: etag mismatch.", Count: 2}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg(`  labels = { team = "ml" }` + "\n"),
				Check: func(*terraform.State) error {
					if !hasError(sim, "ABORTED") {
						return fmt.Errorf("no call met the conflict: the test did not exercise it")
					}
					return checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error { return wantLabel(np, "team", "ml") })(nil)
				},
			},
		},
	})
}

// A create that outlasts its timeout while GKE is still provisioning the node pool warns, with
// GKE's message, and does not taint the pool (GKE audit N17b): the node pool may run by the next
// apply, which would delete it to replace a tainted pool. State records it; once it runs, the next
// plan is empty and the node pool is the one the create started.
func TestAccGKENodePool_timeout(t *testing.T) {
	sim, config := slowProvisioning(t)
	var diags acctest.ApplyDiagnostics
	var created string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: config, // the plan after it is empty: a node pool provisioning is on its way
				Check: func(s *terraform.State) error {
					if err := diags.ExpectWarning("infer-od", "timed out waiting for operation", "CREATE_NODE_POOL", "PROVISIONING", "does not taint"); err != nil {
						return err
					}
					if r := s.RootModule().Resources[addr]; r == nil || r.Primary.Tainted {
						return fmt.Errorf("the pool is tainted or not in state: %v", r)
					}
					created = creationID(sim, "infer-od")
					return nil
				},
			},
			{
				PreConfig: func() {
					for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
						if np, ok := sim.NodePool(testProject, testLocation, testCluster, "infer-od"); ok && np.GetStatus() == containerpb.NodePool_RUNNING {
							return
						}
					}
					t.Fatal("infer-od never ran")
				},
				Config:           config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: func(*terraform.State) error {
					if id := creationID(sim, "infer-od"); created == "" || id != created {
						return fmt.Errorf("infer-od was created again (creation id %q, the timed-out create's %q)", id, created)
					}
					return nil
				},
			},
		},
	})
}

// A destroy while the node pool a timed-out create left is still PROVISIONING (the create warns and
// keeps the pool in state) waits for GKE's create operation to end and then deletes the node pool:
// GKE answers the delete FAILED_PRECONDITION meanwhile ("Operation ... is currently creating node
// pool ..."), which mutationRetry retries within the delete timeout.
func TestAccGKENodePool_destroyWhileProvisioning(t *testing.T) {
	sim, config := slowProvisioning(t)
	var diags acctest.ApplyDiagnostics
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check:  func(*terraform.State) error { return diags.ExpectWarning("infer-od", "PROVISIONING", "does not taint") },
			},
			{
				PreConfig: func() {
					if np, ok := sim.NodePool(testProject, testLocation, testCluster, "infer-od"); !ok || np.GetStatus() != containerpb.NodePool_PROVISIONING {
						t.Fatalf("infer-od is %v when the destroy starts, want PROVISIONING: the test proves nothing", np.GetStatus())
					}
				},
				Config:  config,
				Destroy: true,
				// In the step: a test case's CheckDestroy is skipped when its last step destroyed
				// everything (terraform-plugin-testing runs it only with a post-test destroy).
				Check: func(s *terraform.State) error {
					if n := requestCount(sim, "DeleteNodePool"); n < 2 {
						return fmt.Errorf("DeleteNodePool called %d times: the destroy never met the create operation, the test proves nothing", n)
					}
					return checkNothingLeft(t, sim)(s)
				},
			},
		},
	})
}

// slowProvisioning is a cloudsim whose node pools provision for 10 s and a pool whose create times
// out after 1 s, while its node pool is still PROVISIONING: long enough for the refresh, plans and
// destroy that follow on a loaded machine to meet it still provisioning (the first DeleteNodePool
// came 2.3 s after the create there).
func slowProvisioning(t *testing.T) (*cloudsim.Sim, string) {
	t.Helper()
	sim, err := cloudsim.Start(cloudsim.Options{Seed: testSeed(), TransitionDelay: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	return sim, providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)+"  timeouts {\n    create = \"1s\"\n  }\n")
}

// A node pool of the same name that gpufleet did not create is an error before any change, and is
// never adopted, changed or deleted.
func TestAccGKENodePool_foreignNodePool(t *testing.T) {
	sim := startSim(t)
	_, err := gkeClient(t, sim).CreateNodePool(context.Background(), &containerpb.CreateNodePoolRequest{
		Parent:   clusterName(),
		NodePool: &containerpb.NodePool{Name: "infer-od", Config: &containerpb.NodeConfig{MachineType: "e2-standard-4"}, InitialNodeCount: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig:   func() { time.Sleep(200 * time.Millisecond) }, // the foreign create's operation is done
			Config:      providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)),
			ExpectError: acctest.ExpectErrorParts("infer-od is not this pool's", "no gpufleet_pool resource label", "left it unchanged"),
		}},
	})
	np, ok := sim.NodePool(testProject, testLocation, testCluster, "infer-od")
	if !ok || np.GetConfig().GetMachineType() != "e2-standard-4" {
		t.Fatalf("the foreign node pool was changed or deleted: %v", np)
	}
	if n := requestCount(sim, "CreateNodePool"); n != 1 {
		t.Fatalf("%d CreateNodePool calls, want only the foreign one", n)
	}
}
