package provider_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// The example module's own `terraform test` (examples/modules/client-gpu-pools/tests) runs against
// cloudsim with the provider built from this tree: plan and apply runs on EKS and GKE, assertions on
// costs, taints and tags, a policy deny the module refuses. terraform test destroys what its apply
// runs created, and cloudsim must hold nothing afterwards.
func TestAccModule_clientGPUPools(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	sim, env := seededCloudsim(t)

	// A copy of the module, so that the endpoints' tfvars and terraform's files stay out of the tree.
	module := filepath.Join(t.TempDir(), "client-gpu-pools")
	if err := os.CopyFS(module, os.DirFS("../../examples/modules/client-gpu-pools")); err != nil {
		t.Fatal(err)
	}
	e := sim.Endpoints()
	vars := fmt.Sprintf("eks_endpoint = %q\nec2_endpoint = %q\nautoscaling_endpoint = %q\ngke_endpoint = %q\ncompute_endpoint = %q\n", e.EKS, e.EC2, e.AutoScaling, e.GKE, e.Compute)
	if err := os.WriteFile(filepath.Join(module, "tests", "cloudsim.auto.tfvars"), []byte(vars), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("terraform", "-chdir="+module, "test", "-no-color")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("terraform test: %v\n%s", err, out)
	}
	t.Logf("terraform test:\n%s", out)
	ngs, templates, pools := sim.Nodegroups("", ""), sim.LaunchTemplates(""), sim.NodePools("acme-ml", "europe-west4", "ml")
	if len(ngs)+len(templates)+len(pools) > 0 {
		t.Errorf("left in cloudsim after terraform test: %d node groups, %d launch templates, %d node pools", len(ngs), len(templates), len(pools))
	}
}

// seededCloudsim starts cloudsim with the examples' seed for the test, and returns it with the
// environment in which terraform runs the provider built from this tree.
func seededCloudsim(t *testing.T) (*cloudsim.Sim, []string) {
	t.Helper()
	seed, err := cloudsim.LoadSeed("../../examples/cloudsim/seed.json")
	if err != nil {
		t.Fatal(err)
	}
	sim, err := cloudsim.Start(cloudsim.Options{Seed: seed, TransitionDelay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	env := acctest.DevOverrides(t)
	return sim, env
}

// The module README's usage example, as a user copies it, applied against cloudsim and planned again
// with -detailed-exitcode, as a drift job runs it: the plan must be empty, outputs included (exit 0).
// Before, monthly_cost_per_client (a sum of the pools' costs) came back from state as another
// number than the sum of the plan's float64 costs: exit 2 after every apply, while terraform printed
// "No changes". terraform test cannot see that (its state never goes through state's decimal text),
// so this runs the real CLI.
func TestAccModule_readmeExampleSettles(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	readme, err := os.ReadFile("../../examples/modules/client-gpu-pools/README.md")
	if err != nil {
		t.Fatal(err)
	}
	example := ""
	for _, block := range strings.Split(string(readme), "```hcl\n")[1:] {
		if b, _, _ := strings.Cut(block, "```"); strings.Contains(b, `module "gpu_pools"`) {
			example = b
			break
		}
	}
	if !strings.Contains(example, `source = "./modules/client-gpu-pools"`) || !strings.Contains(example, `output "monthly_cost_per_client"`) {
		t.Fatalf("the README's usage example is not the one this test runs:\n%s", example)
	}
	sim, env := seededCloudsim(t)

	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "modules", "client-gpu-pools"), os.DirFS("../../examples/modules/client-gpu-pools")); err != nil {
		t.Fatal(err)
	}
	e := sim.Endpoints()
	provider := fmt.Sprintf(`terraform {
  required_providers {
    gpufleet = { source = "gpufleet/gpufleet" }
  }
}

provider "gpufleet" {
  aws {
    region                      = "us-east-1"
    skip_credentials_validation = true
    endpoints {
      eks         = %q
      ec2         = %q
      autoscaling = %q
    }
  }
  gcp {
    project          = "acme-ml"
    endpoint         = %q
    compute_endpoint = %q
    insecure         = true
  }
}
`, e.EKS, e.EC2, e.AutoScaling, e.GKE, e.Compute)
	if err := os.WriteFile(filepath.Join(root, "main.tf"), []byte(provider+example), 0o600); err != nil {
		t.Fatal(err)
	}
	terraform := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command("terraform", append([]string{"-chdir=" + root}, append(args, "-no-color")...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		var exitErr *exec.ExitError
		if err != nil && !errors.As(err, &exitErr) {
			t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	if out, code := terraform("get"); code != 0 {
		t.Fatalf("terraform get: exit %d\n%s", code, out)
	}
	if out, code := terraform("apply", "-auto-approve"); code != 0 {
		t.Fatalf("terraform apply: exit %d\n%s", code, out)
	}
	t.Cleanup(func() {
		if out, code := terraform("destroy", "-auto-approve"); code != 0 {
			t.Errorf("terraform destroy: exit %d\n%s", code, out)
		}
	})
	for range 2 {
		if out, code := terraform("plan", "-detailed-exitcode"); code != 0 {
			t.Fatalf("terraform plan -detailed-exitcode after apply: exit %d (2: changes)\n%s", code, out)
		}
	}
	out, _ := terraform("output", "-json", "monthly_cost_per_client")
	var costs map[string]float64
	if err := json.Unmarshal([]byte(out), &costs); err != nil || len(costs) != 2 || costs["acme"] <= 0 || costs["globex"] <= 0 {
		t.Fatalf("monthly_cost_per_client = %s (%v)", out, err)
	}
}
