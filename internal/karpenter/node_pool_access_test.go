package karpenter_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// A kubernetes block reaches clusters EKS does not describe: a client certificate, a static token,
// an exec credential plugin; no EKS or STS call is made.
func TestAccKarpenterNodePool_kubernetesBlock(t *testing.T) {
	e := newEnv(t)
	e.srv.AddToken("static-token-for-ci-bot", "ci-bot")
	e.srv.AddToken("token-from-the-plugin", "plugin-user")
	plugin := filepath.Join(t.TempDir(), "credential-plugin")
	script := "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"'\"$PLUGIN_TOKEN\"'\"}}'\n"
	if err := os.WriteFile(plugin, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	ca := fmt.Sprintf("<<EOT\n%sEOT", e.srv.CAPEM)
	block := func(auth string) string {
		return fmt.Sprintf("  kubernetes {\n    host = %q\n    cluster_ca_certificate = %s\n%s  }\n", e.srv.URL, ca, auth)
	}
	cert := fmt.Sprintf("    client_certificate = <<EOT\n%sEOT\n    client_key = <<EOT\n%sEOT\n", e.srv.AdminCert, e.srv.AdminKey)
	token := "    token = \"static-token-for-ci-bot\"\n"
	exec := fmt.Sprintf("    exec {\n      api_version = \"client.authentication.k8s.io/v1\"\n      command = %q\n      env = { PLUGIN_TOKEN = \"token-from-the-plugin\" }\n    }\n", plugin)
	body := inference + scaling(0, 1)
	cfg := e.provider("") + poolHCL("kcert", `["g6.xlarge"]`, body+block(cert)) +
		poolHCL("ktoken", `["g6.xlarge"]`, body+block(token)) + poolHCL("kexec", `["g6.xlarge"]`, body+block(exec))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("kcert", "ktoken", "kexec"),
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: check(func() error {
				for _, n := range []string{"kcert", "ktoken", "kexec"} {
					if e.get(t, nodePoolGVK, n+"-od") == nil {
						return fmt.Errorf("%s was not applied", n)
					}
				}
				events, err := e.srv.Events()
				if err != nil {
					return err
				}
				users := map[string]bool{}
				for _, ev := range events {
					users[ev.User.Username] = true
				}
				if !users["ci-bot"] || !users["plugin-user"] {
					return fmt.Errorf("requests by %v: want the static token's and the plugin's users", users)
				}
				if n := len(e.sim.Requests()); n != 0 {
					return fmt.Errorf("%d AWS calls with a kubernetes block", n)
				}
				return nil
			}),
		}},
	})
}

// The data source renders what the resource applies, with the same validation, and reaches no
// cluster.
func TestAccKarpenterManifestsDataSource(t *testing.T) {
	e := newEnv(t)
	body := `  workload {
    kind           = "training"
    environment    = "staging"
    gpu_memory_gib = 30
  }
  gpu {
    mig {
      profile = "3g.40gb"
    }
  }
` + scaling(1, 4) + acctest.Capacity(50, 1)
	res := poolHCL("dsrc", `["p5.48xlarge"]`, body)
	ds := strings.Replace(res, `resource "gpufleet_karpenter_node_pool"`, `data "gpufleet_karpenter_manifests"`, 1)
	before := e.requests(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: e.provider("") + ds,
				Check: resource.ComposeTestCheckFunc(
					resource.TestMatchResourceAttr("data.gpufleet_karpenter_manifests.dsrc", "manifests", regexpMust(`kind: NodeOverlay`)),
					check(func() error {
						if n := e.requests(t) - before; n != 0 {
							return fmt.Errorf("the data source sent %d requests to the cluster", n)
						}
						return nil
					}),
				),
			},
			{
				Config: e.provider("") + ds + res,
				Check:  resource.TestCheckResourceAttrPair("data.gpufleet_karpenter_manifests.dsrc", "manifests", "gpufleet_karpenter_node_pool.dsrc", "manifests"),
			},
			{
				Config:      e.provider("") + strings.Replace(ds, "  instance_types", "  ami_alias = \"ubuntu@latest\"\n  instance_types", 1),
				ExpectError: acctest.ExpectErrorParts("ami_alias", "EC2NodeClass dsrc", "alias"),
			},
		},
		CheckDestroy: e.gone("dsrc"),
	})
}
