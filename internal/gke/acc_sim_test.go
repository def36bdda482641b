package gke_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

func TestMain(m *testing.M) { os.Exit(acctest.Main(m)) }

const (
	testProject  = "ml-platform-test"
	testLocation = "europe-west4"
	testCluster  = "ml"
	testZoneA    = "europe-west4-a"
	testZoneB    = "europe-west4-b"
	testZoneC    = "europe-west4-c"
	reservation  = "l4-reserved"
	// regionalCluster is a regional cluster over three zones, whose node VMs carry its four
	// resource labels too.
	regionalCluster = "regional"
	// sharedProject holds reservations shared with testProject (l4-shared) and not (l4-private).
	sharedProject = "ml-shared-res"
)

// testSeed is the Google Cloud world of the acceptance tests: one regional cluster over two zones
// with a CPU default pool (so GKE adds its own GPU taint to GPU pools, as it does in real
// clusters), a regional cluster over three zones with resource labels of its own, every GPU the
// tests use in the three zones, a reservation of G2 machines, and another project's reservations,
// one shared with the tests' project.
func testSeed() *cloudsim.Seed {
	accelerators := []string{"nvidia-l4", "nvidia-tesla-t4", "nvidia-tesla-a100", "nvidia-a100-80gb", "nvidia-h100-80gb", "nvidia-h100-mega-80gb", "nvidia-h200-141gb", "nvidia-b200"}
	l4 := func(name string, share ...string) cloudsim.GCEReservationSeed {
		return cloudsim.GCEReservationSeed{Name: name, Zone: testZoneA, MachineType: "g2-standard-8", AcceleratorType: "nvidia-l4", AcceleratorCount: 1, Count: 4, ShareWith: share}
	}
	return &cloudsim.Seed{GCP: cloudsim.GCPSeed{Projects: map[string]*cloudsim.GCPProjectSeed{
		testProject: {
			Clusters: []cloudsim.GKEClusterSeed{{
				Name: testCluster, Location: testLocation, Version: "1.31.5-gke.1023000", Locations: []string{testZoneA, testZoneB},
				NodePools: []cloudsim.GKENodePoolSeed{{Name: "default-pool", MachineType: "e2-standard-4", NodeCount: 1}},
			}, {
				Name: regionalCluster, Location: testLocation, Version: "1.31.5-gke.1023000", Locations: []string{testZoneA, testZoneB, testZoneC},
				ResourceLabels: map[string]string{"env": "test", "team": "platform", "cost-center": "cc-42", "owner": "sre"},
			}},
			Accelerators: map[string][]string{testZoneA: accelerators, testZoneB: accelerators, testZoneC: accelerators},
			Reservations: []cloudsim.GCEReservationSeed{l4(reservation)},
		},
		sharedProject: {Reservations: []cloudsim.GCEReservationSeed{l4("l4-shared", testProject), l4("l4-private")}},
	}}}
}

// startSim runs cloudsim for one test.
func startSim(t *testing.T) *cloudsim.Sim {
	t.Helper()
	return startSimWith(t, func(*cloudsim.Seed) {})
}

// startSimWith runs cloudsim for one test on the test seed as edit leaves it.
func startSimWith(t *testing.T, edit func(*cloudsim.Seed)) *cloudsim.Sim {
	t.Helper()
	seed := testSeed()
	edit(seed)
	sim, err := cloudsim.Start(cloudsim.Options{Seed: seed, TransitionDelay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	return sim
}

// providerConfig is the provider block that points gpufleet at the simulator.
func providerConfig(sim *cloudsim.Sim, extra string) string {
	e := sim.Endpoints()
	return fmt.Sprintf(`
provider "gpufleet" {
  default_tags = { managed-by = "terraform" }
  gcp {
    project          = %q
    endpoint         = %q
    compute_endpoint = %q
    insecure         = true
  }
%s
}
`, testProject, e.GKE, e.Compute, extra)
}

// poolConfig renders one gpufleet_gke_node_pool with the usual arguments and body for the rest.
func poolConfig(name, machineType, body string) string {
	return poolConfigIn(testCluster, name, machineType, body)
}

// poolConfigIn is poolConfig on another cluster of the test location.
func poolConfigIn(cluster, name, machineType, body string) string {
	return fmt.Sprintf(`
resource "gpufleet_gke_node_pool" %[1]q {
  location     = %[2]q
  cluster      = %[3]q
  name         = %[1]q
  client       = "acme"
  machine_type = %[4]q
%[5]s
}
`, name, testLocation, cluster, machineType, body)
}

const inferenceWorkload = `
  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 16
  }
`

const trainingWorkload = `
  workload {
    kind           = "training"
    environment    = "staging"
    gpu_memory_gib = 20
    interruptible  = true
  }
`

// gkeClient is a real GKE client on the simulator, for checking what the provider left in the cloud.
func gkeClient(t *testing.T, sim *cloudsim.Sim) *container.ClusterManagerClient {
	t.Helper()
	c, err := container.NewClusterManagerClient(context.Background(), sim.GKEClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func clusterName() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", testProject, testLocation, testCluster)
}

// gpuPoolNames lists the clusters' node pools other than the seeded default pool.
func gpuPoolNames(t *testing.T, sim *cloudsim.Sim) []string {
	t.Helper()
	var names []string
	for _, cluster := range []string{testCluster, regionalCluster} {
		for _, np := range sim.NodePools(testProject, testLocation, cluster) {
			if np.GetName() != "default-pool" {
				names = append(names, np.GetName())
			}
		}
	}
	slices.Sort(names)
	return names
}

// checkNothingLeft is a CheckDestroy: no node pool of the tests survives.
func checkNothingLeft(t *testing.T, sim *cloudsim.Sim) func(*terraform.State) error {
	return func(*terraform.State) error {
		if names := gpuPoolNames(t, sim); len(names) > 0 {
			return fmt.Errorf("node pools left after destroy: %v", names)
		}
		return nil
	}
}

// checkNodePool runs f on a node pool as the simulator holds it.
func checkNodePool(t *testing.T, sim *cloudsim.Sim, name string, f func(*containerpb.NodePool) error) func(*terraform.State) error {
	return func(*terraform.State) error {
		np, ok := sim.NodePool(testProject, testLocation, testCluster, name)
		if !ok {
			return fmt.Errorf("node pool %s does not exist", name)
		}
		return f(np)
	}
}

// wantNodeLabel checks a label the node pool's Kubernetes nodes carry (GKE's own ones are there,
// not in the API's config.labels).
func wantNodeLabel(sim *cloudsim.Sim, cluster, pool, key, value string) error {
	labels, _ := sim.NodeLabels(testProject, testLocation, cluster, pool)
	if got, ok := labels[key]; !ok || got != value {
		return fmt.Errorf("nodes of node pool %s: label %s = %q, want %q (labels %v)", pool, key, got, value, labels)
	}
	return nil
}

func wantLabel(np *containerpb.NodePool, key, value string) error {
	if got, ok := np.GetConfig().GetLabels()[key]; !ok || got != value {
		return fmt.Errorf("node pool %s label %s = %q, want %q (labels %v)", np.GetName(), key, got, value, np.GetConfig().GetLabels())
	}
	return nil
}

func wantResourceLabels(np *containerpb.NodePool, want map[string]string) error {
	got := np.GetConfig().GetResourceLabels()
	var errs []error
	for k, v := range want {
		if got[k] != v {
			errs = append(errs, fmt.Errorf("node pool %s resource label %s = %q, want %q", np.GetName(), k, got[k], v))
		}
	}
	if len(errs) > 0 {
		errs = append(errs, fmt.Errorf("resource labels: %v", slices.Sorted(maps.Keys(got))))
	}
	return errors.Join(errs...)
}

// nodeCount is a node pool's size over all zones.
func nodeCount(sim *cloudsim.Sim, name string) int { return nodeCountIn(sim, testCluster, name) }

// nodeCountIn is a node pool's size over all zones, in a cluster of the test location.
func nodeCountIn(sim *cloudsim.Sim, cluster, name string) int {
	np, _ := sim.NodePool(testProject, testLocation, cluster, name)
	perZone, _ := sim.NodePoolNodeCount(testProject, testLocation, cluster, name)
	return int(perZone) * len(np.GetLocations())
}

// requestCount counts the simulator's recorded calls of a service, optionally of one operation.
func requestCount(sim *cloudsim.Sim, operation string) int {
	n := 0
	for _, r := range sim.Requests() {
		if operation == "" || r.Operation == operation {
			n++
		}
	}
	return n
}

// wantEnforced checks a node pool whose size the pool enforces: GKE's autoscaling off (audit N14),
// and the side's limits, which GKE keeps none of, in gpufleet's spot-mix resource label.
func wantEnforced(np *containerpb.NodePool, minSize, maxSize int) error {
	if a := np.GetAutoscaling(); a.GetEnabled() {
		return fmt.Errorf("node pool %s autoscaling %v, want off for an enforced size", np.GetName(), a)
	}
	if v, want := np.GetConfig().GetResourceLabels()["gpufleet_spot_mix"], fmt.Sprintf("_min%d_max%d", minSize, maxSize); !strings.HasSuffix(v, want) {
		return fmt.Errorf("node pool %s gpufleet_spot_mix = %q, want the limits %s", np.GetName(), v, want)
	}
	return nil
}
