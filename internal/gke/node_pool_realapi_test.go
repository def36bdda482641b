package gke_test

// Acceptance tests of the GKE behaviours the audit of gpufleet_gke_node_pool against the real API
// found (../shared/audits/gke-vs-real.md), each against the rule cloudsim now holds.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	state "github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

const threeZones = "  node_locations = [\"europe-west4-a\", \"europe-west4-b\", \"europe-west4-c\"]\n"

// autoscaled is a scaling block without desired_size: the pool starts at min_size.
func autoscaled(minSize, maxSize int) string {
	return fmt.Sprintf("  scaling {\n    min_size = %d\n    max_size = %d\n  }\n", minSize, maxSize)
}

// hourly is what n on-demand and m spot g2-standard-8 nodes cost in the test region per hour, as
// the pools round it.
func hourly(t *testing.T, onDemandNodes, spotNodes int) float64 {
	t.Helper()
	node, err := catalog.GKENodeType("g2-standard-8", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	od, spot, err := catalog.Pricing{}.Hourly(node, testLocation)
	if err != nil {
		t.Fatal(err)
	}
	return math.Round((float64(onDemandNodes)*od+float64(spotNodes)*spot)*10000) / 10000
}

func nodePoolAt(i int, field string) tfjsonpath.Path {
	return tfjsonpath.New("node_pools").AtSliceIndex(i).AtMapKey(field)
}

// §1 of issue #21, audit A.4: GKE sizes node pools per zone and rounds initial_node_count up, so an
// autoscaled regional pool of min_size 1 over three zones starts with three nodes. The plan shows
// them and prices them, and the apply leaves exactly them (no "inconsistent result after apply");
// the spot mix's sides are rounded each.
func TestAccGKENodePool_regionalInitialSize(t *testing.T) {
	sim := startSim(t)
	cfg := func(body string) string {
		return providerConfig(sim, "") + poolConfigIn(regionalCluster, "infer", "g2-standard-8", threeZones+body)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: cfg(inferenceWorkload + autoscaled(1, 6)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, nodePoolAt(0, "desired_size"), knownvalue.Int64Exact(3)),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_usd"), knownvalue.Float64Exact(hourly(t, 3, 0))),
				}},
				ConfigStateChecks: nodePoolCheck(0, "infer-od", false, 1, 3, 6),
				Check: func(*terraform.State) error {
					if n := nodeCountIn(sim, regionalCluster, "infer-od"); n != 3 {
						return fmt.Errorf("%d nodes, want 3 (one per zone)", n)
					}
					return nil
				},
			},
			{
				// min 2 splits into one on-demand and one spot node: each side starts with one per zone.
				Config: cfg(trainingWorkload + autoscaled(2, 12) + acctest.Capacity(50, 0)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, nodePoolAt(0, "desired_size"), knownvalue.Int64Exact(3)),
					plancheck.ExpectKnownValue(addr, nodePoolAt(1, "desired_size"), knownvalue.Int64Exact(3)),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_usd"), knownvalue.Float64Exact(hourly(t, 3, 3))),
				}},
				ConfigStateChecks: append(nodePoolCheck(0, "infer-od", false, 1, 3, 6), nodePoolCheck(1, "infer-spot", true, 1, 3, 6)...),
			},
		},
	})
}

// A regional pool whose first nodes, one per zone, would exceed max_size is a plan error at the
// attribute, before any call: max_size holds.
func TestAccGKENodePool_regionalMaxSize(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      providerConfig(sim, "") + poolConfigIn(regionalCluster, "infer", "g2-standard-8", threeZones+inferenceWorkload+autoscaled(1, 2)),
			ExpectError: acctest.ExpectErrorParts("scaling.min_size", "infer-od", "3 nodes", "3 zones", "max_size 2"),
		}},
	})
	if n := requestCount(sim, ""); n != 0 {
		t.Fatalf("a pool that cannot start within max_size reached the cloud: %d calls", n)
	}
}

// Without node_locations a pool gets the cluster's zones, known only at apply: the plan shows the
// starting size and its cost as unknown rather than a wrong number; an enforced desired size is
// known (it splits over the zones, or the apply fails before any change).
func TestAccGKENodePool_regionalClusterZones(t *testing.T) {
	sim := startSim(t)
	cfg := func(scaling string) string {
		return providerConfig(sim, "") + poolConfigIn(regionalCluster, "infer", "g2-standard-8", inferenceWorkload+scaling)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: cfg(autoscaled(1, 6)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue(addr, nodePoolAt(0, "desired_size")),
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("estimated_monthly_cost_usd")),
					plancheck.ExpectKnownValue(addr, nodePoolAt(0, "max_size"), knownvalue.Int64Exact(6)),
				}},
				ConfigStateChecks: append(nodePoolCheck(0, "infer-od", false, 1, 3, 6),
					state.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_usd"), knownvalue.Float64Exact(hourly(t, 3, 0))),
					state.ExpectKnownValue(addr, tfjsonpath.New("node_locations"), knownvalue.SetSizeExact(3))),
			},
			{
				Config: cfg(acctest.Scaling(0, 6, 6)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, nodePoolAt(0, "desired_size"), knownvalue.Int64Exact(6)),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_usd"), knownvalue.Float64Exact(hourly(t, 6, 0))),
				}},
				ConfigStateChecks: nodePoolCheck(0, "infer-od", false, 0, 6, 6),
			},
		},
	})
}

// A desired size that does not split over the cluster's zones, known only at apply, fails the
// apply before any change.
func TestAccGKENodePool_regionalDesiredSplitAtApply(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      providerConfig(sim, "") + poolConfigIn(regionalCluster, "infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 6)),
			ExpectError: acctest.ExpectErrorParts("scaling.desired_size", "2 nodes over 3 zones"),
		}},
	})
	if n := requestCount(sim, "CreateNodePool"); n != 0 {
		t.Fatalf("%d CreateNodePool calls for a size that does not split", n)
	}
}

// updateGroups are the fields an UpdateNodePool request set, from the request log.
func updateGroups(r cloudsim.Request) []string {
	var out []string
	for k := range r.Params {
		if k != "name" && k != "etag" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Audit A.1: a change of node_locations never shares an UpdateNodePool with labels, taints or
// resource labels (GKE would apply those to new nodes only: the client's isolation taint would
// miss the running nodes); every field group goes in its own call.
func TestAccGKENodePool_locationsUpdateAlone(t *testing.T) {
	sim := startSim(t)
	cfg := func(body string) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+body)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(acctest.Scaling(0, 1, 4) + "  node_locations = [\"europe-west4-a\"]\n")},
			{
				Config: cfg(`  node_locations = ["europe-west4-a", "europe-west4-b"]
  labels = { team = "vision" }
  tags   = { project = "vision" }
  taints = [{ key = "dedicated", value = "vision", effect = "NO_EXECUTE" }]
  gpu {
    driver_version = "LATEST"
  }
` + acctest.Scaling(0, 2, 4)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
				Check: func(*terraform.State) error {
					var errs []error
					for _, r := range sim.RequestsFor("gke", "UpdateNodePool") {
						if g := updateGroups(r); len(g) != 1 {
							errs = append(errs, fmt.Errorf("UpdateNodePool with %v: one field group per call", g))
						}
					}
					np, _ := sim.NodePool(testProject, testLocation, testCluster, "infer-od")
					errs = append(errs, wantLabel(np, "team", "vision"))
					if len(np.GetLocations()) != 2 || nodeCount(sim, "infer-od") != 2 {
						errs = append(errs, fmt.Errorf("locations %v, %d nodes; want two zones, 2 nodes", np.GetLocations(), nodeCount(sim, "infer-od")))
					}
					return errors.Join(errs...)
				},
			},
		},
	})
}

// Audit A.2: GKE resolves version aliases ("1.31.5" → "1.31.5-gke.N"): the pool keeps the
// configured alias while the nodes run a version it names, with no "inconsistent result after
// apply"; a lower version than the nodes run plans no downgrade.
func TestAccGKENodePool_versionAliases(t *testing.T) {
	sim := startSim(t)
	cfg := func(version string) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 1, 2)+
			"  node_locations = [\"europe-west4-a\"]\n  kubernetes_version = \""+version+"\"\n")
	}
	version := func(want string) func(*terraform.State) error {
		return checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error {
			if np.GetVersion() != want {
				return fmt.Errorf("nodes run %q, want %q", np.GetVersion(), want)
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config:            cfg("1.31.4"),
				Check:             version("1.31.4-gke.1183000"),
				ConfigStateChecks: []state.StateCheck{state.ExpectKnownValue(addr, tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("1.31.4"))},
			},
			{Config: cfg("1.31"), Check: version("1.31.4-gke.1183000")}, // 1.31.4 is a 1.31: nothing to do
			{Config: cfg("1.30"), Check: version("1.31.4-gke.1183000")}, // no downgrade
			{Config: cfg("1.31.5"), Check: version("1.31.5-gke.1023000")},
		},
	})
}

// Audit A.2: node auto-upgrade (on by default, mandatory on release channels) moves the nodes past
// the configured version; the next plan is empty, not a downgrade.
func TestAccGKENodePool_autoUpgrade(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 1, 2)+
		"  node_locations = [\"europe-west4-a\"]\n  kubernetes_version = \"1.30\"\n")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{Config: cfg}, {
			PreConfig: func() {
				if err := sim.AutoUpgradeNodePool(testProject, testLocation, testCluster, "infer-od", "1.31", time.Millisecond); err != nil {
					t.Fatal(err)
				}
				time.Sleep(50 * time.Millisecond)
			},
			Config:   cfg,
			PlanOnly: true,
		}},
	})
}

const specificReservation = "  capacity {\n    reservation {\n      type = \"specific\"\n      name = %q\n%s    }\n  }\n"

func reservationBlock(name, project string) string {
	extra := ""
	if project != "" {
		extra = fmt.Sprintf("      project = %q\n", project)
	}
	return fmt.Sprintf(specificReservation, name, extra)
}

// Audit A.5: a specific reservation is zonal: a pool over two known zones is a plan error at
// node_locations, before any call.
func TestAccGKENodePool_reservationZones(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 2)+
				"  node_locations = [\"europe-west4-a\", \"europe-west4-b\"]\n"+reservationBlock(reservation, "")),
			ExpectError: acctest.ExpectErrorParts("node_locations", "specific reservation", "one zone"),
		}},
	})
	if n := requestCount(sim, ""); n != 0 {
		t.Fatalf("%d calls for a reservation the zones cannot consume", n)
	}
}

// Audit A.5: at apply, before any change, the reservation is read in its owner project and zone:
// another machine shape, a reservation not shared with the pool's project, or the cluster's two
// zones fail with what to change; a shared one is consumed.
func TestAccGKENodePool_reservationChecks(t *testing.T) {
	cases := []struct {
		name, machineType, body string
		want                    []string
	}{
		{"other machine shape", "g2-standard-16", "  node_locations = [\"europe-west4-a\"]\n" + reservationBlock(reservation, ""),
			[]string{"reservation", reservation, "g2-standard-8", "machine_type g2-standard-16"}},
		{"not shared", "g2-standard-8", "  node_locations = [\"europe-west4-a\"]\n" + reservationBlock("l4-private", sharedProject),
			[]string{"l4-private", sharedProject, "not shared with project " + testProject}},
		{"cluster zones", "g2-standard-8", reservationBlock(reservation, ""),
			[]string{"node_locations are unset", "europe-west4-a, europe-west4-b", "specific reservation is zonal"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim := startSim(t)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      providerConfig(sim, "") + poolConfig("infer", tc.machineType, inferenceWorkload+acctest.Scaling(0, 1, 2)+tc.body),
					ExpectError: acctest.ExpectErrorParts(tc.want...),
				}},
			})
			if n := requestCount(sim, "CreateNodePool"); n != 0 {
				t.Fatalf("%d CreateNodePool calls: the reservation must be checked before any change", n)
			}
		})
	}
	t.Run("shared", func(t *testing.T) {
		sim := startSim(t)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProviderFactories,
			CheckDestroy:             checkNothingLeft(t, sim),
			Steps: []resource.TestStep{{
				Config: providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 1, 2)+
					"  node_locations = [\"europe-west4-a\"]\n"+reservationBlock("l4-shared", sharedProject)),
				Check: checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error {
					if v := np.GetConfig().GetReservationAffinity().GetValues(); len(v) != 1 || v[0] != "projects/"+sharedProject+"/reservations/l4-shared" {
						return fmt.Errorf("reservation affinity %v", v)
					}
					return nil
				}),
			}},
		})
		if reqs := sim.RequestsFor("compute", "reservations.get"); len(reqs) == 0 || reqs[0].Params["project"] != sharedProject {
			t.Fatalf("reservation not read in its owner project: %+v", reqs)
		}
	})
}

// Audit A.6: during a blue-green upgrade the node pool lists the blue and green instance groups:
// the size is not doubled, no resize is planned, and the blue groups' stale URLs (deleted, still
// listed) are skipped, not a failed refresh.
func TestAccGKENodePool_blueGreenUpgrade(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)+
		"  node_locations = [\"europe-west4-a\", \"europe-west4-b\"]\n")
	phase := func(p containerpb.NodePool_UpdateInfo_BlueGreenInfo_Phase) func() {
		return func() {
			if err := sim.SetBlueGreenPhase(testProject, testLocation, testCluster, "infer-od", p); err != nil {
				t.Fatal(err)
			}
		}
	}
	sizeTwo := []state.StateCheck{state.ExpectKnownValue(addr, nodePoolAt(0, "desired_size"), knownvalue.Int64Exact(2))}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg},
			{PreConfig: phase(containerpb.NodePool_UpdateInfo_BlueGreenInfo_CREATING_GREEN_POOL), Config: cfg, PlanOnly: true},
			{PreConfig: phase(containerpb.NodePool_UpdateInfo_BlueGreenInfo_DELETING_BLUE_POOL), Config: cfg, PlanOnly: true},
			{RefreshState: true, Check: func(s *terraform.State) error {
				if got := acctest.StateAttribute(s, addr, "node_pools.0.desired_size"); got != "2" {
					return fmt.Errorf("desired_size %s during the upgrade, want 2", got)
				}
				return nil
			}},
			{PreConfig: phase(containerpb.NodePool_UpdateInfo_BlueGreenInfo_PHASE_UNSPECIFIED), Config: cfg, ConfigStateChecks: sizeTwo},
		},
	})
	if n := requestCount(sim, "SetNodePoolSize"); n != 0 {
		t.Fatalf("%d SetNodePoolSize calls during a blue-green upgrade", n)
	}
}

// Audit A.7: a create whose operation ends with a stockout in status_message only, leaving the node
// pool RUNNING_WITH_ERROR ("partially usable"), is a warning with GKE's message, not an error, so
// that Terraform does not taint the pool and replace the nodes that run; state holds the node pool
// with in_sync false, and the next apply repairs it in place (its size sent again). An update that
// ends so fails.
func TestAccGKENodePool_degraded(t *testing.T) {
	sim := startSim(t)
	cfg := func(labels string) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)+labels)
	}
	degrade := func(op string) func() {
		return func() {
			if _, err := sim.Inject(cloudsim.Fault{Service: "gke", Operation: op, Kind: cloudsim.Degraded, Count: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				PreConfig: degrade("CreateNodePool"), Config: cfg(""), ExpectNonEmptyPlan: true,
				ConfigStateChecks: []state.StateCheck{
					state.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("RUNNING_WITH_ERROR")),
					state.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(0).AtMapKey("in_sync"), knownvalue.Bool(false)),
				},
			},
			{
				Config: cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []state.StateCheck{
					state.ExpectKnownValue(addr, tfjsonpath.New("node_pools").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("RUNNING")),
				},
			},
			{PreConfig: degrade("UpdateNodePool"), Config: cfg("  labels = { team = \"ml\" }\n"), ExpectError: acctest.ExpectErrorParts("updating GKE node pool", "infer-od", "not have enough resources")},
		},
	})
}

// Audit A.8: a node's VM carries the pool's resource labels, gpufleet's spot-mix and owner labels, GKE's own
// (goog-gke-node, goog-k8s-cluster-name, goog-k8s-cluster-location, goog-k8s-node-pool-name,
// goog-gke-node-pool-provisioning-model) and the cluster's: more than 64 is a plan error, or, for
// the cluster's labels known only at apply, an apply error before any change.
func TestAccGKENodePool_resourceLabelBudget(t *testing.T) {
	tags := func(n int) string {
		kv := make([]string, n)
		for i := range kv {
			kv[i] = fmt.Sprintf("t%02d = %q", i, "x")
		}
		return "  tags = {" + strings.Join(kv, ", ") + "}\n"
	}
	t.Run("plan", func(t *testing.T) {
		sim := startSim(t)
		// 54 tags, the default tag and 3 derived ones: 58 + 7 = 65.
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProviderFactories,
			Steps: []resource.TestStep{{
				Config:      providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 1, 2)+"  node_locations = [\"europe-west4-a\"]\n"+tags(54)),
				ExpectError: acctest.ExpectErrorParts("tags", "65 labels", "at most 64", "goog-k8s-node-pool-name"),
			}},
		})
		if n := requestCount(sim, ""); n != 0 {
			t.Fatalf("%d calls", n)
		}
	})
	t.Run("cluster labels at apply", func(t *testing.T) {
		sim := startSim(t)
		// 51 tags + 4 = 55, + 7 = 62 at plan; + the cluster's 4 = 66 at apply.
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProviderFactories,
			Steps: []resource.TestStep{{
				Config:      providerConfig(sim, "") + poolConfigIn(regionalCluster, "infer", "g2-standard-8", threeZones+inferenceWorkload+acctest.Scaling(0, 3, 3)+tags(51)),
				ExpectError: acctest.ExpectErrorParts("66 labels", "4 resource labels", "cluster "+regionalCluster),
			}},
		})
		if n := requestCount(sim, "CreateNodePool"); n != 0 {
			t.Fatalf("%d CreateNodePool calls", n)
		}
	})
}

// Audit A.9: GKE sells A3 High 1g/2g/4g only as Spot or flex-start, and A3 Ultra and A4 only as
// Spot, flex-start or reserved capacity: an on-demand side of them is a plan error at the spot
// share; all-spot, or reserved, plans.
func TestAccGKENodePool_consumptionModels(t *testing.T) {
	sim := startSim(t)
	training := `
  workload {
    kind           = "training"
    environment    = "staging"
    gpu_memory_gib = 40
    interruptible  = true
  }
`
	cases := []struct {
		name, machineType, body string
		want                    []string
	}{
		{"A3 High 1g on demand", "a3-highgpu-1g", autoscaled(0, 2), []string{"capacity.spot_percentage", "a3-highgpu-1g", "Spot or flex-start"}},
		{"A3 Ultra on demand", "a3-ultragpu-8g", autoscaled(0, 2), []string{"capacity.spot_percentage", "a3-ultragpu-8g", "reservation"}},
		{"A3 High 2g half on demand", "a3-highgpu-2g", autoscaled(0, 4) + acctest.Capacity(50, 0), []string{"capacity.spot_percentage", "a3-highgpu-2g"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      providerConfig(sim, "") + poolConfig("infer", tc.machineType, training+"  node_locations = [\""+gpuZone(t, tc.machineType)+"\"]\n"+tc.body),
					ExpectError: acctest.ExpectErrorParts(tc.want...),
				}},
			})
		})
	}
	for name, body := range map[string]string{
		"a3-highgpu-1g":  autoscaled(0, 2) + acctest.Capacity(100, 0),
		"a3-ultragpu-8g": autoscaled(0, 2) + "  capacity {\n    reservation {\n      type = \"specific\"\n      name = \"h200-reserved\"\n    }\n  }\n",
	} {
		t.Run(name+" as sold", func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:             providerConfig(sim, "") + poolConfig("infer", name, training+"  node_locations = [\""+gpuZone(t, name)+"\"]\n"+body),
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
				}},
			})
		})
	}
	if n := requestCount(sim, ""); n != 0 {
		t.Fatalf("%d calls at plan", n)
	}
}

// Audit A.12: MPS on MIG partitions, which GKE offers ("About GPUs in GKE": multi-instance GPUs
// with NVIDIA MPS), plans and applies.
func TestAccGKENodePool_mpsOnMIG(t *testing.T) {
	sim := startSim(t)
	tc := acctest.ApplyThenEmptyPlan(providerConfig(sim, "")+poolConfig("infer", "a2-highgpu-1g", `
  workload {
    kind           = "development"
    environment    = "development"
    gpu_memory_gib = 2
  }
  node_locations = ["europe-west4-a"]
  gpu {
    mig {
      profile = "1g.5gb"
    }
    sharing {
      strategy = "mps"
      replicas = 2
    }
  }
`+acctest.Scaling(0, 1, 2)), checkNothingLeft(t, sim))
	tc.Steps[0].Check = checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error {
		acc := np.GetConfig().GetAccelerators()[0]
		if acc.GetGpuPartitionSize() != "1g.5gb" || acc.GetGpuSharingConfig().GetGpuSharingStrategy() != containerpb.GPUSharingConfig_MPS {
			return fmt.Errorf("accelerator %v", acc)
		}
		return nil
	})
	resource.Test(t, tc)
}

// Audit A.11: the lock is per node pool. While GKE repairs one pool (its update retried on
// FAILED_PRECONDITION until the repair ends), another pool of the cluster is created at once, not
// after the first one's wait.
func TestAccGKENodePool_perPoolLock(t *testing.T) {
	sim := startSim(t)
	pool := func(name, body string) string {
		return poolConfig(name, "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)+body)
	}
	first := pool("infer", "  node_locations = [\"europe-west4-a\"]\n")
	const repair = 15 * time.Second
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: providerConfig(sim, "") + first},
			{
				PreConfig: func() {
					// The second pool reads the cluster's zones first (1 s), so the first pool's
					// update is under way when the second pool's create starts.
					if _, err := sim.Inject(cloudsim.Fault{Service: "gke", Operation: "GetCluster", Kind: cloudsim.Latency, Latency: time.Second}); err != nil {
						t.Fatal(err)
					}
					if err := sim.AutoRepairNodePool(testProject, testLocation, testCluster, "infer-od", repair); err != nil {
						t.Fatal(err)
					}
					sim.ResetRequests()
				},
				Config: providerConfig(sim, "") + pool("infer", "  node_locations = [\"europe-west4-a\"]\n  labels = { team = \"ml\" }\n") + pool("other", ""),
				Check: func(*terraform.State) error {
					var created, updated time.Time
					for _, r := range sim.Requests() {
						switch {
						case r.Operation == "CreateNodePool" && r.Error == "" && created.IsZero():
							created = r.Time
						case r.Operation == "UpdateNodePool" && r.Error == "":
							updated = r.Time
						}
					}
					if created.IsZero() || updated.IsZero() || !created.Before(updated) {
						return fmt.Errorf("the other pool's CreateNodePool (%v) waited for the repaired pool's UpdateNodePool (%v)", created, updated)
					}
					if !hasError(sim, "FAILED_PRECONDITION") {
						return fmt.Errorf("the update never met the repair: the test did not exercise the retry")
					}
					return nil
				},
			},
		},
	})
}

// Audit A.13: GKE checks GPU quota at the request (PERMISSION_DENIED "Insufficient regional
// quota"): the apply fails with GKE's message, at once, without retrying, and nothing is left.
func TestAccGKENodePool_quota(t *testing.T) {
	sim := startSimWith(t, func(s *cloudsim.Seed) {
		s.GCP.Projects[testProject].GPUQuota = map[string]map[string]int{testLocation: {"NVIDIA_L4_GPUS": 1}}
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config:      providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)+"  node_locations = [\"europe-west4-a\"]\n"),
			ExpectError: acctest.ExpectErrorParts("creating GKE node pool", "infer-od", "Insufficient regional quota", "NVIDIA_L4_GPUS"),
		}},
	})
	if n := requestCount(sim, "CreateNodePool"); n != 1 {
		t.Fatalf("%d CreateNodePool calls, want 1: a quota error is not retried", n)
	}
}

// Audit A.13: machine types are offered per zone; a zone without the pool's machine type fails the
// apply with GKE's message.
func TestAccGKENodePool_machineTypeNotInZone(t *testing.T) {
	sim := startSimWith(t, func(s *cloudsim.Seed) {
		s.GCP.Projects[testProject].MachineTypes = map[string][]string{testZoneB: {"e2-standard-4", "n1-standard-8"}}
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config:      providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)+"  node_locations = [\"europe-west4-a\", \"europe-west4-b\"]\n"),
			ExpectError: acctest.ExpectErrorParts("creating GKE node pool", `Machine type "g2-standard-8" is not available in zone "europe-west4-b"`),
		}},
	})
}
