package gke_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// gpuDirectSeed gives the test cluster multi-networking (or not) and the project four GPU networks
// of one subnetwork each, and an RDMA network of eight subnetworks.
func gpuDirectSeed(multiNetworking bool) func(*cloudsim.Seed) {
	return func(s *cloudsim.Seed) {
		p := s.GCP.Projects[testProject]
		p.Clusters[0].MultiNetworking = multiNetworking
		p.Networks = map[string][]string{"rdma-net": nil}
		for i := 1; i <= 4; i++ {
			p.Networks[fmt.Sprintf("gpu-net-%d", i)] = []string{fmt.Sprintf("gpu-sub-%d", i)}
		}
		for i := range 8 {
			p.Networks["rdma-net"] = append(p.Networks["rdma-net"], fmt.Sprintf("rdma-sub-%d", i))
		}
		p.RDMANetworks = []string{"rdma-net"}
	}
}

// gpuNetworks is network.additional_node_networks over gpu-net-<first>… (n networks).
func gpuNetworks(first, n int) string {
	var b strings.Builder
	b.WriteString("  network {\n    additional_node_networks = [\n")
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, "      { network = \"gpu-net-%d\", subnetwork = \"gpu-sub-%d\" },\n", i, i)
	}
	b.WriteString("    ]\n  }\n")
	return b.String()
}

// rdmaNetworks is the network block of GPUDirect-RDMA: a gVNIC network, then rdma RDMA subnetworks.
func rdmaNetworks(rdma int) string {
	var b strings.Builder
	b.WriteString("  network {\n    additional_node_networks = [\n      { network = \"gpu-net-1\", subnetwork = \"gpu-sub-1\" },\n")
	for i := range rdma {
		fmt.Fprintf(&b, "      { network = \"rdma-net\", subnetwork = \"rdma-sub-%d\" },\n", i)
	}
	b.WriteString("    ]\n  }\n")
	return b.String()
}

// multiNodeTraining is a training workload whose replicas take gpus GPUs, on spot nodes.
func multiNodeTraining(gpus int, network string) string {
	return fmt.Sprintf(`
  node_locations = ["europe-west4-b"]
  workload {
    kind             = "training"
    environment      = "staging"
    gpu_memory_gib   = 60
    gpus_per_replica = %d
    interruptible    = true
  }
  scaling {
    min_size     = 0
    max_size     = 2
    desired_size = 2
  }
  capacity {
    spot_percentage = 100
  }
%s`, gpus, network)
}

// Issue #40, item 8: training replicas over two a3-highgpu-8g nodes with GPUDirect-TCPX's four
// additional node networks: both reach GKE on the node pool, state holds them with the stack's
// name, import reads them back, and another network replaces the pool (GKE sets them at create
// only). The first step failed before the network block existed (no such block).
func TestAccGKENodePool_gpuDirectCreateImport(t *testing.T) {
	sim := startSimWith(t, gpuDirectSeed(true))
	const addr = "gpufleet_gke_node_pool.train"
	cfg := func(first int) string {
		return providerConfig(sim, "") + poolConfig("train", "a3-highgpu-8g", multiNodeTraining(16, gpuNetworks(first, 4)))
	}
	var diags acctest.ApplyDiagnostics
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: cfg(1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("network").AtMapKey("gpu_direct"), knownvalue.StringExact("gpudirect-tcpx")),
					noPlanWarning{&diags, "Replicas span nodes"},
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("network").AtMapKey("additional_node_networks"), knownvalue.ListSizeExact(4)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("network").AtMapKey("additional_node_networks").AtSliceIndex(3).AtMapKey("subnetwork"), knownvalue.StringExact("gpu-sub-4")),
				},
				Check: checkNodePool(t, sim, "train-spot", func(np *containerpb.NodePool) error {
					got := np.GetNetworkConfig().GetAdditionalNodeNetworkConfigs()
					if len(got) != 4 || got[0].GetNetwork() != "gpu-net-1" || got[3].GetSubnetwork() != "gpu-sub-4" {
						return fmt.Errorf("node pool train-spot additional node networks = %v, want gpu-net-1…4", got)
					}
					return nil
				}),
			},
			{
				Config:                  cfg(1),
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           fmt.Sprintf("%s/%s/%s/train", testProject, testLocation, testCluster),
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "policy_waivers", "policy_document.waivers"},
			},
			{
				PreConfig: diags.Reset,
				Config:    providerConfig(sim, "") + poolConfig("train", "a3-highgpu-8g", multiNodeTraining(16, strings.Replace(gpuNetworks(1, 4), `"gpu-net-4", subnetwork = "gpu-sub-4"`, `"rdma-net", subnetwork = "rdma-sub-0"`, 1))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
				}},
				Check: checkNodePool(t, sim, "train-spot", func(np *containerpb.NodePool) error {
					if got := np.GetNetworkConfig().GetAdditionalNodeNetworkConfigs(); len(got) != 4 || got[3].GetNetwork() != "rdma-net" {
						return fmt.Errorf("node pool train-spot additional node networks = %v after the replacement", got)
					}
					return nil
				}),
			},
		},
	})
}

// Bad network blocks fail at plan, naming network.additional_node_networks, before any call: on a
// machine type without GPUDirect, and with a number of networks other than the machine type's
// (A3 High 4, A3 Mega 8, A4 9). Replicas over GPUDirect nodes without the block plan with a
// warning that names the networks they need; a replica on one node gets none.
func TestAccGKENodePool_gpuDirectPlanErrors(t *testing.T) {
	sim := startSimWith(t, gpuDirectSeed(true))
	var diags acctest.ApplyDiagnostics
	plan := func(machine string, gpus int, network string) string {
		return providerConfig(sim, "") + poolConfig("train", machine, multiNodeTraining(gpus, network))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		Steps: []resource.TestStep{
			{Config: plan("g2-standard-96", 8, gpuNetworks(1, 4)), PlanOnly: true,
				ExpectError: acctest.ExpectErrorParts("GPUDirect networks on a machine type without GPUDirect", "additional_node_networks", "machine_type g2-standard-96 has no GPUDirect NICs")},
			{Config: plan("a3-highgpu-8g", 16, gpuNetworks(1, 3)), PlanOnly: true,
				ExpectError: acctest.ExpectErrorParts("Wrong number of GPUDirect networks", "additional_node_networks", "a3-highgpu-8g reaches other nodes' GPUs over GPUDirect-TCPX through 4 additional node networks", "one per GPU NIC", "3 given")},
			{Config: plan("a4-highgpu-8g", 16, rdmaNetworks(7)), PlanOnly: true,
				ExpectError: acctest.ExpectErrorParts("Wrong number of GPUDirect networks", "a4-highgpu-8g reaches other nodes' GPUs over GPUDirect-RDMA through 9 additional node networks", "its second gVNIC's network, then one RDMA subnetwork per GPU", "8 given")},
			{Config: plan("a3-highgpu-8g", 16, ""), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{planWarning{&diags, []string{
					"Replicas span nodes without GPUDirect networks", "gpus_per_replica = 16 spans 2 a3-highgpu-8g nodes", "GPUDirect-TCPX with 4 additional node networks", "Set network.additional_node_networks"}}}}},
			{PreConfig: diags.Reset, Config: plan("a3-highgpu-8g", 8, ""), PlanOnly: true, ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{noPlanWarning{&diags, "Replicas span nodes"}}}},
		},
	})
	if n := len(sim.Requests()); n != 0 {
		t.Fatalf("plans made %d cloud calls, want none", n)
	}
}

// A create the cloud cannot take leaves nothing: on a cluster without multi-networking the apply
// stops before any node pool is created (gpufleet reads the cluster first), and networks GKE does
// not find are refused by CreateNodePool, with nothing left behind either.
func TestAccGKENodePool_gpuDirectRefusedCreateLeavesNothing(t *testing.T) {
	for _, tc := range []struct {
		name            string
		multiNetworking bool
		network         string
		want            []string
	}{
		{"cluster without multi-networking", false, gpuNetworks(1, 4), []string{"Cluster without multi-networking", "cluster ml does not have multi-networking enabled", "Nothing was created"}},
		{"network GKE does not find", true, strings.Replace(gpuNetworks(1, 4), `"gpu-sub-4"`, `"gpu-sub-9"`, 1), []string{"train-spot", `subnetwork "gpu-sub-9" was not found in network "gpu-net-4"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim := startSimWith(t, gpuDirectSeed(tc.multiNetworking))
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy:             checkNothingLeft(t, sim),
				Steps: []resource.TestStep{{
					Config:      providerConfig(sim, "") + poolConfig("train", "a3-highgpu-8g", multiNodeTraining(16, tc.network)),
					ExpectError: acctest.ExpectErrorParts(tc.want...),
				}},
			})
			if names := gpuPoolNames(t, sim); len(names) > 0 {
				t.Fatalf("node pools left: %v", names)
			}
			if n := requestCount(sim, "CreateNodePool"); tc.multiNetworking != (n > 0) {
				t.Fatalf("CreateNodePool calls = %d (multi-networking %v)", n, tc.multiNetworking)
			}
		})
	}
}

// noPlanWarning checks that no plan warned with part.
type noPlanWarning struct {
	diags *acctest.ApplyDiagnostics
	part  string
}

func (c noPlanWarning) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = c.diags.ExpectNoPlanWarning(c.part)
}

// Issue #40, item 8: a training replica over 16 GPUs in europe-west4 is answered on two nodes of a
// GPUDirect machine type, and the answer plugged into gpufleet_gke_node_pool with its network
// (additional_node_networks built from the answer's additional_node_network_count over the team's
// networks) applies against cloudsim's multi-networking rules with no policy finding; the pool's
// network.gpu_direct is the answer's. It failed before the answer had a network attribute.
func TestAccGKENodePool_recommendationGPUDirect(t *testing.T) {
	sim := startSimWith(t, func(s *cloudsim.Seed) {
		gpuDirectSeed(true)(s)
		p := s.GCP.Projects[testProject]
		for i := 5; i <= 8; i++ {
			p.Networks[fmt.Sprintf("gpu-net-%d", i)] = []string{fmt.Sprintf("gpu-sub-%d", i)}
		}
	})
	const addr = "gpufleet_gke_node_pool.train"
	config := providerConfig(sim, "") + acctest.MultiNodeTrainingAnswer("gcp", testLocation) + fmt.Sprintf(`
resource "gpufleet_gke_node_pool" "train" {
  location       = local.gcp.region
  node_locations = local.gcp.node_locations
  cluster        = %[1]q
  name           = "train"
  client         = "acme"
  machine_type   = local.gcp.node_type

%[2]s
  scaling {
    min_size     = local.gcp.min_size
    desired_size = local.gcp.node_count
    max_size     = local.gcp.node_count
  }

  capacity {
    spot_percentage = local.gcp.spot_percentage
    on_demand_base  = local.gcp.on_demand_base
  }

  network {
    additional_node_networks = [for i in range(local.gcp.network.additional_node_network_count) : {
      network    = "gpu-net-${i + 1}"
      subnetwork = "gpu-sub-${i + 1}"
    }]
  }
}
`, testCluster, acctest.MultiNodeTrainingWorkload("gcp"))
	var diags acctest.ApplyDiagnostics
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue("data.gpufleet_recommendation.train", tfjsonpath.New("gcp").AtMapKey("nodes_per_replica"), knownvalue.Int64Exact(2)),
				statecheck.CompareValuePairs(addr, tfjsonpath.New("network").AtMapKey("gpu_direct"),
					"data.gpufleet_recommendation.train", tfjsonpath.New("gcp").AtMapKey("network").AtMapKey("gpu_direct"), compare.ValuesSame()),
				statecheck.CompareValuePairs("data.gpufleet_recommendation.train", tfjsonpath.New("gcp").AtMapKey("network").AtMapKey("gpu_direct"),
					"data.gpufleet_recommendation.train", tfjsonpath.New("gcp").AtMapKey("inter_node_network"), compare.ValuesSame()),
			},
			Check: func(s *terraform.State) error {
				if err := diags.ExpectNoPlanWarning("Replicas span nodes"); err != nil {
					return err
				}
				a := s.RootModule().Resources[addr].Primary.Attributes
				want := map[string]string{"a3-highgpu-8g": "4", "a3-megagpu-8g": "8"}[a["machine_type"]]
				if want == "" || a["network.additional_node_networks.#"] != want {
					return fmt.Errorf("machine type %s with %s additional node networks", a["machine_type"], a["network.additional_node_networks.#"])
				}
				for _, side := range []string{"train-od", "train-spot"} {
					if np, ok := sim.NodePool(testProject, testLocation, testCluster, side); ok && fmt.Sprint(len(np.GetNetworkConfig().GetAdditionalNodeNetworkConfigs())) != want {
						return fmt.Errorf("node pool %s has %d additional node networks, want %s", side, len(np.GetNetworkConfig().GetAdditionalNodeNetworkConfigs()), want)
					}
				}
				t.Logf("answer: %s, %s additional node networks (%s)", a["machine_type"], want, a["network.gpu_direct"])
				return nil
			},
		}},
	})
}
