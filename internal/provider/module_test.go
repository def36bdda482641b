package provider_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
