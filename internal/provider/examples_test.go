package provider_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics/metricstest"
)

// The documented examples of every resource, data source and function plan with the real terraform
// binary, so an example that stops working fails CI. Planning changes nothing in a cloud (bad input
// and policy are judged at plan time, data sources and functions are offline); the endpoints point at
// closed loopback ports to prove it, where the read-only checks of a new EKS pool on a reservation
// find nothing to read and wait for the apply. Policy runs with the example policy data, as warnings: the examples
// show settings, not one client's compliant fleet.
func TestAccExamples_plan(t *testing.T) {
	data, err := filepath.Abs("../../policies/examples/policy-data.yaml")
	if err != nil {
		t.Fatal(err)
	}
	provider := fmt.Sprintf(`
provider "gpufleet" {
  aws {
    region                      = "us-east-1"
    skip_credentials_validation = true
    endpoints {
      eks         = "http://127.0.0.1:1"
      ec2         = "http://127.0.0.1:1"
      autoscaling = "http://127.0.0.1:1"
    }
  }
  gcp {
    project          = "ml-platform"
    endpoint         = "127.0.0.1:1"
    compute_endpoint = "http://127.0.0.1:1/compute/v1/"
    insecure         = true
  }
  policy {
    enforcement = "warn"
    data_files  = [%q]
  }
}
`, data)
	files, err := filepath.Glob("../../examples/*/*/*.tf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found (%v)", err)
	}
	for _, file := range files {
		switch filepath.Base(filepath.Dir(filepath.Dir(file))) {
		case "provider":
			continue // the provider block itself: planned by every other example
		case "modules":
			continue // a module's files only plan together: its terraform test runs them (TestAccModule_clientGPUPools)
		}
		t.Run(filepath.Join(filepath.Base(filepath.Dir(file)), filepath.Base(file)), func(t *testing.T) {
			example, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			config := provider
			if filepath.Base(filepath.Dir(file)) == "gpufleet_pool_utilization" {
				// It reads the real Prometheus of the utilisation tests (skipped without one).
				srv := metricstest.Shared(t)
				config = strings.Replace(provider, "  policy {", fmt.Sprintf("  metrics {\n    url = %q\n    username = %q\n    password = %q\n  }\n  policy {",
					srv.URL, metricstest.Username, metricstest.Password), 1)
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
				Steps: []resource.TestStep{{
					Config:             config + string(example),
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
				}},
			})
		})
	}
}

// The examples are what `terraform fmt` writes.
func TestExamples_formatted(t *testing.T) {
	out, err := exec.Command("terraform", "fmt", "-check", "-recursive", "-list=true", "../../examples").CombinedOutput()
	if err != nil {
		t.Fatalf("terraform fmt -check: %v\nnot formatted:\n%s", err, out)
	}
}
