package computeclass_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/kubetest"
)

func TestMain(m *testing.M) {
	code := acctest.Main(m)
	kubetest.StopShared()
	os.Exit(code)
}

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
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("pod_spec").AtMapKey("node_selector"), knownvalue.MapExact(map[string]knownvalue.Check{
					"cloud.google.com/compute-class":   knownvalue.StringExact("initech-l4"),
					"cloud.google.com/gke-accelerator": knownvalue.StringExact("nvidia-l4"),
				})),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("active_migration"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("consolidation_delay_minutes"), knownvalue.Int64Exact(15)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_document").AtMapKey("capacity").AtMapKey("spot_percentage"), knownvalue.Int64Exact(100)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_document").AtMapKey("resource_type"), knownvalue.StringExact("gpufleet_gke_compute_class")),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpus_per_node"), knownvalue.Int64Exact(2)),
			},
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
