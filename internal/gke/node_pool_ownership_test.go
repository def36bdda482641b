package gke_test

import (
	"context"
	"fmt"
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

// samePoolName is a pool named infer under another resource address: what a second state or
// workspace declaring the same cluster and name looks like to the provider.
func samePoolName(address, body string) string {
	return fmt.Sprintf(`
resource "gpufleet_gke_node_pool" %q {
  location       = %q
  cluster        = %q
  name           = "infer"
  client         = "acme"
  machine_type   = "g2-standard-8"
  node_locations = [%q]
%s
}
`, address, testLocation, testCluster, testZoneA, trainingWorkload+acctest.Scaling(0, 2, 4)+body)
}

// mutatingCalls counts the node pool changes the simulator served.
func mutatingCalls(sim *cloudsim.Sim) int {
	n := 0
	for _, op := range []string{"CreateNodePool", "UpdateNodePool", "SetNodePoolSize", "SetNodePoolAutoscaling", "DeleteNodePool"} {
		n += requestCount(sim, op)
	}
	return n
}

// creationID is the id cloudsim gave a node pool of the test cluster when it was created.
func creationID(sim *cloudsim.Sim, name string) string {
	id, _, _ := sim.NodePoolCreation(testProject, testLocation, testCluster, name)
	return id
}

// Two pools with the same cluster and name (two states, two workspaces) never take each other's
// node pools: each owns the node pools it created, by the owner id in their gpufleet_owner label.
// The second pool's apply that needs a node pool the first owns fails before any change, and its
// destroy deletes only its own node pools.
func TestAccGKENodePool_twoPoolsSameName(t *testing.T) {
	sim := startSim(t)
	a := samePoolName("a", "")                       // infer-od
	b := samePoolName("b", acctest.Capacity(100, 0)) // infer-spot
	var odID, ownerA string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: providerConfig(sim, "") + a + b,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gpufleet_gke_node_pool.a", tfjsonpath.New("node_pools"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("infer-od")})})),
					statecheck.ExpectKnownValue("gpufleet_gke_node_pool.b", tfjsonpath.New("node_pools"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact("infer-spot")})})),
				},
				Check: func(s *terraform.State) error {
					ownerA = acctest.StateAttribute(s, "gpufleet_gke_node_pool.a", "owner_id")
					ownerB := acctest.StateAttribute(s, "gpufleet_gke_node_pool.b", "owner_id")
					if ownerA == "" || ownerA == ownerB {
						return fmt.Errorf("owner ids %q and %q", ownerA, ownerB)
					}
					odID = creationID(sim, "infer-od")
					for name, owner := range map[string]string{"infer-od": ownerA, "infer-spot": ownerB} {
						if err := checkNodePool(t, sim, name, func(np *containerpb.NodePool) error {
							return wantResourceLabels(np, map[string]string{"gpufleet_pool": "infer", "gpufleet_owner": owner})
						})(s); err != nil {
							return err
						}
					}
					return nil
				},
			},
			{
				// b now needs infer-od too, which is a's: an error before any change.
				PreConfig:   sim.ResetRequests,
				Config:      providerConfig(sim, "") + a + samePoolName("b", acctest.Capacity(50, 0)),
				ExpectError: acctest.ExpectErrorParts("infer-od is not this pool's", "gpufleet_owner label is", "another gpufleet pool of the same", "left it unchanged"),
			},
			{
				// b leaves: its destroy deletes infer-spot, never a's infer-od.
				PreConfig: func() {
					if n := mutatingCalls(sim); n != 0 {
						t.Fatalf("the failed apply changed %d things: %+v", n, sim.Requests())
					}
				},
				Config: providerConfig(sim, "") + a,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gpufleet_gke_node_pool.a", tfjsonpath.New("owner_id"), knownvalue.NotNull()),
				},
				Check: func(*terraform.State) error {
					if names := gpuPoolNames(t, sim); strings.Join(names, ",") != "infer-od" {
						return fmt.Errorf("node pools %v after b's destroy, want infer-od", names)
					}
					if id := creationID(sim, "infer-od"); id != odID {
						return fmt.Errorf("infer-od was created again (%q, was %q)", id, odID)
					}
					return nil
				},
			},
		},
	})
}

// foreignNodePool creates a node pool that another tool made, without gpufleet's labels.
func foreignNodePool(t *testing.T, sim *cloudsim.Sim, name string, resourceLabels map[string]string) {
	t.Helper()
	_, err := gkeClient(t, sim).CreateNodePool(context.Background(), &containerpb.CreateNodePoolRequest{
		Parent: clusterName(),
		NodePool: &containerpb.NodePool{Name: name, Config: &containerpb.NodeConfig{MachineType: "e2-standard-4", ResourceLabels: resourceLabels},
			InitialNodeCount: 1, Locations: []string{testZoneA}},
	})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // its create operation is done
}

// A foreign node pool named like the side the pool does not use is ignored: the pool applies and
// is in state with its own node pool, and is destroyed without it. When the pool needs that side,
// the apply stops before any change.
func TestAccGKENodePool_foreignUnusedSide(t *testing.T) {
	sim := startSim(t)
	foreignNodePool(t, sim, "infer-spot", nil)
	foreignID := creationID(sim, "infer-spot")
	cfg := func(pct int) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", trainingWorkload+acctest.Scaling(0, 2, 4)+acctest.Capacity(pct, 0)+
			"  node_locations = [\"europe-west4-a\"]\n")
	}
	foreignUnchanged := func() error {
		np, ok := sim.NodePool(testProject, testLocation, testCluster, "infer-spot")
		if !ok || creationID(sim, "infer-spot") != foreignID || np.GetConfig().GetMachineType() != "e2-standard-4" || len(np.GetConfig().GetResourceLabels()) > 1 {
			return fmt.Errorf("the foreign node pool was changed: %v", np)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if names := gpuPoolNames(t, sim); strings.Join(names, ",") != "infer-spot" {
				return fmt.Errorf("node pools %v after destroy, want the foreign infer-spot alone", names)
			}
			return foreignUnchanged()
		},
		Steps: []resource.TestStep{
			{
				Config: cfg(0),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(0).AtMapKey("name"), knownvalue.StringExact("infer-od")),
				},
				Check: func(*terraform.State) error { return foreignUnchanged() },
			},
			{
				PreConfig:   sim.ResetRequests,
				Config:      cfg(50),
				ExpectError: acctest.ExpectErrorParts("infer-spot is not this pool's", "no gpufleet_pool resource label", "left it unchanged"),
			},
			{
				PreConfig: func() {
					if n := mutatingCalls(sim); n != 0 {
						t.Fatalf("the failed apply changed %d things: %+v", n, sim.Requests())
					}
				},
				Config: cfg(0),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
				}},
				Check: func(*terraform.State) error { return foreignUnchanged() },
			},
		},
	})
}

// legacySeed adds tune-od, a node pool made before owner ids (or by another tool and labelled as
// the migration guide says): gpufleet_pool names its pool, no gpufleet_owner.
func legacySeed(createdVersion string) func(*cloudsim.Seed) {
	return func(s *cloudsim.Seed) {
		cl := &s.GCP.Projects[testProject].Clusters[0]
		cl.NodePools = append(cl.NodePools, cloudsim.GKENodePoolSeed{
			Name: "tune-od", MachineType: "g2-standard-8", NodeCount: 1, Locations: []string{testZoneA},
			TotalMinNodeCount: 1, TotalMaxNodeCount: 1, CreatedVersion: createdVersion,
			Labels:         map[string]string{"gpufleet.io/client": "acme", "gpufleet.io/workload": "training", "gpufleet.io/environment": "staging", "gpufleet.io/capacity-type": "on-demand"},
			ResourceLabels: map[string]string{"gpufleet_pool": "tune", "gpufleet_client": "acme", "gpufleet_workload": "training", "managed-by": "terraform"},
		})
	}
}

const tuneAddr = "gpufleet_gke_node_pool.tune"

func tuneConfig(sim *cloudsim.Sim, body string) string {
	return providerConfig(sim, "") + fmt.Sprintf(`
resource "gpufleet_gke_node_pool" "tune" {
  location       = %q
  cluster        = %q
  name           = "tune"
  client         = "acme"
  machine_type   = "g2-standard-8"
  node_locations = [%q]
%s
}
`, testLocation, testCluster, testZoneA, trainingWorkload+acctest.Scaling(1, 1, 1)+body)
}

// A pool made before owner ids: imported, it has no owner id and owns the node pools its state
// records; a node pool of its other side's name that its state does not record (another's, made
// before owner ids too) is not adopted, changed or deleted. Its next apply gives it an owner id and
// writes it on its node pool.
func TestAccGKENodePool_legacyOwnership(t *testing.T) {
	sim := startSimWith(t, legacySeed(""))
	tuneID := creationID(sim, "tune-od")
	cfg := tuneConfig(sim, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if names := gpuPoolNames(t, sim); strings.Join(names, ",") != "tune-spot" {
				return fmt.Errorf("node pools %v after destroy, want the other tune-spot alone", names)
			}
			return nil
		},
		Steps: []resource.TestStep{
			importTune(cfg, func(s []*terraform.InstanceState) error {
				if len(s) != 1 || s[0].Attributes["owner_id"] != "" || s[0].Attributes["node_pools.#"] != "1" {
					return fmt.Errorf("imported %v", s)
				}
				return nil
			}),
			{
				PreConfig: func() {
					foreignNodePool(t, sim, "tune-spot", map[string]string{"gpufleet_pool": "tune"})
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(tuneAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(tuneAddr, tfjsonpath.New("owner_id")),
					plancheck.ExpectKnownValue(tuneAddr, tfjsonpath.New("node_pools"), knownvalue.ListSizeExact(1)),
				}},
				Check: func(s *terraform.State) error {
					owner := acctest.StateAttribute(s, tuneAddr, "owner_id")
					if owner == "" || creationID(sim, "tune-od") != tuneID {
						return fmt.Errorf("owner id %q, tune-od created again: %t", owner, creationID(sim, "tune-od") != tuneID)
					}
					if err := checkNodePool(t, sim, "tune-od", func(np *containerpb.NodePool) error {
						return wantResourceLabels(np, map[string]string{"gpufleet_owner": owner})
					})(s); err != nil {
						return err
					}
					return checkNodePool(t, sim, "tune-spot", func(np *containerpb.NodePool) error {
						if _, ok := np.GetConfig().GetResourceLabels()["gpufleet_owner"]; ok || np.GetConfig().GetMachineType() != "e2-standard-4" {
							return fmt.Errorf("the other tune-spot was changed: %v", np.GetConfig())
						}
						return nil
					})(s)
				},
			},
		},
	})
}

// A pool made before owner ids whose first apply under owner ids was killed (Ctrl-C twice, a lost
// runner) after it wrote the new gpufleet_owner label on its node pool and before Terraform saved
// the owner id: the node pool's instance groups, which state recorded, still prove it the pool's.
// Refresh keeps it, as does the read after an update that fails, the next apply gives the pool an
// owner id and writes it, and destroy deletes the node pool. Before, refresh dropped the node pool
// from state (its label named an owner id state did not hold), the next apply failed on it as
// another's, and a destroy left it running.
func TestAccGKENodePool_legacyUpdateKilled(t *testing.T) {
	sim := startSimWith(t, legacySeed(""))
	tuneID := creationID(sim, "tune-od")
	cfg := tuneConfig(sim, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if names := gpuPoolNames(t, sim); len(names) > 0 {
				return fmt.Errorf("node pools %v after destroy", names)
			}
			return nil
		},
		Steps: []resource.TestStep{
			importTune(cfg, nil),
			{
				PreConfig: func() {
					// What the killed apply wrote: its new owner id, which no state holds.
					np, _ := sim.NodePool(testProject, testLocation, testCluster, "tune-od")
					labels := np.GetConfig().GetResourceLabels()
					labels["gpufleet_owner"] = "0123456789abcdef"
					if _, err := gkeClient(t, sim).UpdateNodePool(context.Background(), &containerpb.UpdateNodePoolRequest{
						Name: clusterName() + "/nodePools/tune-od", ResourceLabels: &containerpb.ResourceLabels{Labels: labels}}); err != nil {
						t.Fatal(err)
					}
					time.Sleep(200 * time.Millisecond) // the update is done
					// And this apply's update fails: the node pool keeps the killed apply's label.
					if _, err := sim.Inject(cloudsim.Fault{Service: "gke", Operation: "UpdateNodePool", Kind: cloudsim.CreateFailed, Count: 1}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(tuneAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(tuneAddr, tfjsonpath.New("node_pools"), knownvalue.ListSizeExact(1)),
				}},
				ExpectError: acctest.ExpectErrorParts("updating GKE node pool", "tune-od"),
			},
			{
				// State still holds the node pool (the read after the failed update kept it).
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(tuneAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(tuneAddr, tfjsonpath.New("node_pools"), knownvalue.ListSizeExact(1)),
				}},
				Check: func(s *terraform.State) error {
					owner := acctest.StateAttribute(s, tuneAddr, "owner_id")
					if owner == "" || owner == "0123456789abcdef" || creationID(sim, "tune-od") != tuneID {
						return fmt.Errorf("owner id %q, tune-od created again: %t", owner, creationID(sim, "tune-od") != tuneID)
					}
					return checkNodePool(t, sim, "tune-od", func(np *containerpb.NodePool) error {
						return wantResourceLabels(np, map[string]string{"gpufleet_owner": owner})
					})(s)
				},
			},
		},
	})
}

// A pool made before owner ids (here: its state forgotten, the gpufleet_owner label removed, and the
// pool imported again) plans no change: it owns the node pools its state records, and keeps a null
// owner_id until an apply changes it.
func TestAccGKENodePool_poolWithoutOwnerIDPlansNoChange(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", trainingWorkload+acctest.Scaling(0, 2, 4)+acctest.Capacity(50, 0)+
		"  node_locations = [\"europe-west4-a\"]\n")
	forget := providerConfig(sim, "") + "removed {\n  from = " + addr + "\n  lifecycle {\n    destroy = false\n  }\n}\n"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg},
			{Config: forget},
			{
				PreConfig: func() {
					c := gkeClient(t, sim)
					for _, name := range []string{"infer-od", "infer-spot"} {
						np, _ := sim.NodePool(testProject, testLocation, testCluster, name)
						labels := np.GetConfig().GetResourceLabels()
						delete(labels, "gpufleet_owner")
						if _, err := c.UpdateNodePool(context.Background(), &containerpb.UpdateNodePoolRequest{
							Name: clusterName() + "/nodePools/" + name, ResourceLabels: &containerpb.ResourceLabels{Labels: labels}}); err != nil {
							t.Fatal(err)
						}
					}
					time.Sleep(200 * time.Millisecond) // the updates are done
				},
				Config:             cfg,
				ResourceName:       addr,
				ImportState:        true,
				ImportStateId:      testProject + "/" + testLocation + "/" + testCluster + "/infer",
				ImportStatePersist: true,
				ImportStateCheck: func(s []*terraform.InstanceState) error {
					if got := s[0].Attributes; got["owner_id"] != "" || got["node_pools.#"] != "2" || got["node_pools.1.in_sync"] != "true" {
						return fmt.Errorf("imported owner_id %q, %s node pools, in_sync %s", got["owner_id"], got["node_pools.#"], got["node_pools.1.in_sync"])
					}
					return nil
				},
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}

// importTune is the step that imports the pool "tune" of the legacy seed (legacySeed, tuneConfig)
// into state with cfg, checking what was imported with check when it is not nil.
func importTune(cfg string, check resource.ImportStateCheckFunc) resource.TestStep {
	return resource.TestStep{
		Config:             cfg,
		ResourceName:       tuneAddr,
		ImportState:        true,
		ImportStateId:      testProject + "/" + testLocation + "/" + testCluster + "/tune",
		ImportStatePersist: true,
		ImportStateCheck:   check,
	}
}
