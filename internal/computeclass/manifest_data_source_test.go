package computeclass_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m, acctest.Main)) }

// offlineProvider is a provider block whose cloud endpoints are closed loopback ports: any cloud
// call would fail. The example policy data, enforcement "deny".
func offlineProvider(t *testing.T) string {
	t.Helper()
	data, err := filepath.Abs("../../policies/examples/policy-data.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`
provider "gpufleet" {
  gcp {
    project  = "acme-ml"
    endpoint = "127.0.0.1:1"
    insecure = true
  }
  policy {
    enforcement = "deny"
    data_files  = [%q]
  }
}
`, data)
}

// l4Manifest is an L4 inference class: the published ladder, with extra arguments.
func l4Manifest(extra string) string {
	return `
data "gpufleet_gke_compute_class_manifest" "l4" {
  name         = "initech-l4"
  location     = "us-central1"
  client       = "initech"
  machine_type = "g2-standard-24"
  zones        = ["us-central1-a", "us-central1-b"]
  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 20
  }
  scaling {
    min_size = 0
    max_size = 4
  }
  gpu {
    driver_version = "LATEST"
  }
  capacity {
    ladder = ["reservation", "on_demand", "flex_start", "spot"]
    reservation {
      type = "any"
    }
  }
` + extra + "}\n"
}

// The data source renders the class and its pod stanza with no cluster and no cloud.
func TestAccGKEComputeClassManifest_renders(t *testing.T) {
	addr := "data.gpufleet_gke_compute_class_manifest.l4"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: offlineProvider(t) + l4Manifest(""),
			Check: resource.ComposeAggregateTestCheckFunc(
				manifestHas(addr, "apiVersion: cloud.google.com/v1", "kind: ComputeClass", "affinity: AnyBestEffort", "machineType: g2-standard-24",
					"type: nvidia-l4", "maxRunDurationSeconds: 604800", "whenUnsatisfiable: DoNotScaleUp", "- us-central1-a", "gpufleet.io/client: initech"),
			),
			ConfigStateChecks: stateChecks(
				stateIs(addr, map[string]string{"cloud.google.com/compute-class": "initech-l4", "cloud.google.com/gke-accelerator": "nvidia-l4"}, "pod_spec", "node_selector"),
				stateIs(addr, true, "active_migration"),
				stateIs(addr, 15, "consolidation_delay_minutes"),
				stateIs(addr, 100, "policy_document", "capacity", "spot_percentage"),
				stateIs(addr, "gpufleet_gke_compute_class", "policy_document", "resource_type"),
				stateIs(addr, 2, "gpus_per_node"),
				// the resource's defaults (poolschema.ApplyDefaults)
				stateIs(addr, "DoNotScaleUp", "when_unsatisfiable"),
				stateIs(addr, true, "node_pool_auto_creation"),
			),
		}},
	})
}

// Bad input fails the read at the attribute, with no cluster and no cloud: the pool's and the
// ladder's own rules, and the CRD's (a taint value of two characters, which GKE's pattern refuses).
func TestAccGKEComputeClassManifest_badInput(t *testing.T) {
	for name, tc := range map[string]struct{ config, err string }{
		"taint value the CRD refuses": {
			l4Manifest(`  taints = [{ key = "team", value = "ml", effect = "NO_SCHEDULE" }]` + "\n"),
			`ComputeClass refused by its CRD.*spec.nodePoolConfig.taints\[1\].value`,
		},
		"rung the machine type is not sold as": {
			strings.Replace(l4Manifest(""), `"g2-standard-24"`, `"a3-highgpu-1g"`, 1),
			`Rung the machine type is not sold as.*capacity.ladder\[0\]`,
		},
		"reservation rung without reservation": {
			strings.Replace(l4Manifest(""), "reservation {\n      type = \"any\"\n    }", "", 1),
			`Missing reservation`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps:                    []resource.TestStep{{Config: offlineProvider(t) + tc.config, ExpectError: acctest.ExpectErrorParts(tc.err)}},
			})
		})
	}
}

func manifestHas(addr string, lines ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		m := acctest.StateAttribute(s, addr, "manifests")
		for _, l := range lines {
			if !strings.Contains(m, l) {
				return fmt.Errorf("manifests has no %q:\n%s", l, m)
			}
		}
		return nil
	}
}
