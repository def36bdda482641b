package computeclass_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/kubetest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// variantBody is a class of machineType for training that checkpoints, with gpu and capacity
// blocks as given.
func variantBody(machineType, gpu, capacity string) string {
	return fmt.Sprintf(`
  machine_type = %q
  zones        = ["us-central1-a"]
  workload {
    kind           = "training"
    environment    = "staging"
    gpu_memory_gib = 8
    interruptible  = true
  }
  scaling {
    min_size = 0
    max_size = 4
  }
%s
  capacity {
%s
  }
`, machineType, gpu, capacity)
}

// first is the live class's first priority.
func first(t *testing.T, u *unstructured.Unstructured) map[string]any {
	t.Helper()
	return spec(t, u, "priorities").([]any)[0].(map[string]any)
}

// One class through MIG, GPU sharing, a specific reservation in its zone, flex-start and spot
// first, each applied in place to the cluster and checked there and in pod_spec.
func TestAccGKEComputeClass_variants(t *testing.T) {
	w := newWorld(t)
	const name = "cc-variants"
	addr := "gpufleet_gke_compute_class." + name
	config := func(body string) string { return w.providerConfig("") + classConfig(name, body) }
	liveCheck := func(check func(u *unstructured.Unstructured) error) resource.TestCheckFunc {
		return func(*terraform.State) error {
			u := w.live(t, name)
			if u == nil {
				return fmt.Errorf("no ComputeClass %s", name)
			}
			return check(u)
		}
	}
	selector := func(key, want string) statecheck.StateCheck {
		return stateIs(addr, want, "pod_spec", "node_selector", key)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             w.checkGone(t, name),
		Steps: []resource.TestStep{
			{ // MIG: the pods ask for the partitions
				Config: config(variantBody("a2-highgpu-1g", "  gpu {\n    mig {\n      profile = \"3g.20gb\"\n    }\n  }", `    ladder = ["on_demand", "spot"]`)),
				Check: liveCheck(func(u *unstructured.Unstructured) error {
					if g := first(t, u)["gpu"].(map[string]any); g["type"] != "nvidia-tesla-a100" || g["count"] != int64(1) {
						return fmt.Errorf("gpu %v", g)
					}
					return nil
				}),
				ConfigStateChecks: stateChecks(selector(render.LabelPartitionSize, "3g.20gb")),
			},
			{ // time-sharing on the same GPUs
				Config:            config(variantBody("a2-highgpu-1g", "  gpu {\n    sharing {\n      strategy = \"time-slicing\"\n      replicas = 4\n    }\n  }", `    ladder = ["on_demand", "spot"]`)),
				ConfigStateChecks: stateChecks(selector(render.LabelSharingStrategy, "time-sharing"), selector(render.LabelMaxSharedClients, "4")),
			},
			{ // a specific reservation in its own zone, then on-demand in the class's
				Config: config(variantBody("g2-standard-8", "", `    ladder = ["reservation", "on_demand"]
    reservation {
      type    = "specific"
      name    = "l4-reserved"
      project = "acme-shared"
      zones   = ["us-central1-b"]
    }`)),
				Check: liveCheck(func(u *unstructured.Unstructured) error {
					r := first(t, u)["reservations"].(map[string]any)
					s := r["specific"].([]any)[0].(map[string]any)
					if r["affinity"] != "Specific" || s["name"] != "l4-reserved" || s["project"] != "acme-shared" || fmt.Sprint(s["zones"]) != "[us-central1-b]" || first(t, u)["location"] != nil {
						return fmt.Errorf("reservation rung %v", first(t, u))
					}
					return nil
				}),
			},
			{ // flex-start for a day, with a replacement sought an hour before the end
				Config: config(variantBody("a3-highgpu-8g", "", `    ladder = ["flex_start", "spot"]
    flex_start {
      max_run_duration_seconds         = 86400
      node_recycling_lead_time_seconds = 3600
    }`)),
				Check: liveCheck(func(u *unstructured.Unstructured) error {
					f := first(t, u)
					if f["maxRunDurationSeconds"] != int64(86400) || f["flexStart"].(map[string]any)["nodeRecycling"].(map[string]any)["leadTimeSeconds"] != int64(3600) {
						return fmt.Errorf("flex-start rung %v", f)
					}
					return nil
				}),
			},
			{ // spot first, on a shape sold only as Spot and flex-start
				Config: config(variantBody("a3-highgpu-1g", "", `    ladder = ["spot", "flex_start"]`)),
				Check: liveCheck(func(u *unstructured.Unstructured) error {
					if got := rungs(t, u); got != "spot,flex_start" {
						return fmt.Errorf("rungs %s", got)
					}
					return nil
				}),
				ConfigStateChecks: stateChecks(stateIs(addr, 100, "policy_document", "capacity", "spot_percentage")),
			},
		},
	})
}

// A kubernetes block reaches the cluster instead of GKE: a bearer token here; GKE is not asked.
func TestAccGKEComputeClass_kubernetesBlock(t *testing.T) {
	w := newWorld(t)
	const name = "cc-block"
	w.srv.AddToken("gpufleet-ci-static-token", "ci")
	block := fmt.Sprintf(`
  kubernetes {
    host                   = %q
    cluster_ca_certificate = %q
    token                  = "gpufleet-ci-static-token"
  }
`, w.srv.URL, string(w.srv.CAPEM))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             w.checkGone(t, name),
		Steps: []resource.TestStep{{
			Config: w.providerConfig("") + classConfig(name, l4Body(publishedLadder, block)),
			Check: func(*terraform.State) error {
				if w.live(t, name) == nil {
					return fmt.Errorf("no ComputeClass %s", name)
				}
				if n := len(w.sim.RequestsFor("", "GetCluster")); n != 0 {
					return fmt.Errorf("GKE was asked %d times for the cluster", n)
				}
				return nil
			},
		}},
	})
}

// A ComputeClass of the name created by someone else after gpufleet checked the name was free,
// before its write, is never written: the write is create-only (kube.Client.ApplyOver), the apply
// fails at name naming the class, and the other's class is left exactly as it was.
func TestAccGKEComputeClass_classCreatedMeanwhile(t *testing.T) {
	w := newWorld(t)
	const name = "cc-raced"
	w.srv.AddToken("gpufleet-ci-race-token", "ci")
	var raced atomic.Bool
	var before string // the other's class's resourceVersion, as it made it
	proxy := w.srv.HookedProxy(t, func(r *http.Request) {
		if r.Method != http.MethodPatch || !strings.HasSuffix(r.URL.Path, "/computeclasses/"+name) || !raced.CompareAndSwap(false, true) {
			return
		}
		other := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"priorities": []any{map[string]any{"machineFamily": "n4"}}, "whenUnsatisfiable": "ScaleUpAnyway"},
		}}
		made, err := w.admin.Resource(computeClassGVR).Create(context.Background(), other, metav1.CreateOptions{})
		if err != nil {
			t.Errorf("creating the other's class: %v", err)
			return
		}
		before = made.GetResourceVersion()
	})
	t.Cleanup(func() {
		_ = w.admin.Resource(computeClassGVR).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	block := proxyBlock(proxy, "gpufleet-ci-race-token")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      w.providerConfig("") + classConfig(name, l4Body(publishedLadder, block)),
			ExpectError: acctest.ExpectErrorParts("ComputeClass of this name is not this resource's", "no "+kube.LabelOwner+" label", "gpufleet has written nothing"),
		}},
	})
	if !raced.Load() {
		t.Fatal("the class was never applied: the test proves nothing")
	}
	if u := w.live(t, name); u == nil || u.GetResourceVersion() != before || len(u.GetLabels()) != 0 {
		t.Fatalf("the other's class was written: %v", u)
	}
}

// A create whose apply the server did but whose answer was lost (a gateway timeout, here a proxy
// in front of the API server) leaves no class behind: the class this create made is deleted, so
// that the next apply, with a new owner id, does not find a class of its name that is not its own.
func TestAccGKEComputeClass_answerLost(t *testing.T) {
	w := newWorld(t)
	const name = "cc-lost-answer"
	w.srv.AddToken("gpufleet-ci-gateway-token", "ci")
	var lost atomic.Bool
	proxy := w.srv.LossyProxy(t, func(r *http.Request) bool {
		return r.Method == http.MethodPatch && strings.HasSuffix(r.URL.Path, "/computeclasses/"+name) && lost.CompareAndSwap(false, true)
	})
	block := proxyBlock(proxy, "gpufleet-ci-gateway-token")
	config := w.providerConfig("") + classConfig(name, l4Body(publishedLadder, block))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             w.checkGone(t, name),
		Steps: []resource.TestStep{
			{Config: config, ExpectError: acctest.ExpectErrorParts("Applying the ComputeClass", "answer was lost")},
			{
				PreConfig: func() {
					if !lost.Load() {
						t.Fatal("no answer was lost: the test proves nothing")
					}
					if w.live(t, name) != nil {
						t.Fatalf("ComputeClass %s is left in the cluster after the failed create", name)
					}
				},
				Config: config,
			},
		},
	})
}

// A kubernetes block changed to reach another cluster stops the apply before any write, rather than
// write the class there and leave the old one in the first cluster, recorded by no state: the class
// records the identity of its cluster (the ComputeClass CRD's uid there).
func TestAccGKEComputeClass_anotherCluster(t *testing.T) {
	w := newWorld(t)
	const name = "cc-hop"
	other := kubetest.Own(t)
	otherAdmin := adminOf(t, other)
	if err := installCRD(otherAdmin); err != nil {
		t.Fatal(err)
	}
	config := func(srv *kubetest.Server) string {
		srv.AddToken("gpufleet-ci-token-of-both", "ci")
		return w.providerConfig("") + classConfig(name, l4Body(publishedLadder, fmt.Sprintf(`
  kubernetes {
    host                   = %q
    cluster_ca_certificate = %q
    token                  = "gpufleet-ci-token-of-both"
  }
`, srv.URL, string(srv.CAPEM))))
	}
	crd, err := w.srv.CRD("computeclasses.cloud.google.com")
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             w.checkGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: config(w.srv),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue("gpufleet_gke_compute_class."+name,
					tfjsonpath.New("cluster_identity"), knownvalue.StringExact(string(crd.GetUID())))},
			},
			{Config: config(other), ExpectError: acctest.ExpectErrorParts("Another cluster", "nothing was written")},
		},
	})
	if _, err := otherAdmin.Resource(computeClassGVR).Get(context.Background(), name, metav1.GetOptions{}); !kube.IsNotFound(err) {
		t.Fatalf("the refused apply wrote the class to the other cluster (%v)", err)
	}
}

// The provider's Google access reaching another cluster where the class's was (GetCluster answering
// with another endpoint: a cluster recreated under its name, another project's) stops refresh and
// destroy with an error instead of finding no class, removing it from state and leaving it in the
// first cluster; with the first cluster reached again nothing changes.
func TestAccGKEComputeClass_otherClusterSameName(t *testing.T) {
	w := newWorld(t)
	const name = "cc-kept"
	other := kubetest.Own(t)
	if err := installCRD(adminOf(t, other)); err != nil {
		t.Fatal(err)
	}
	other.AddToken(w.oauth.token, gkeUser)
	reach := func(srv *kubetest.Server) {
		if err := w.sim.SetGKEClusterKubernetes(testProject, testLocation, testCluster, cloudsim.KubernetesAPI{Endpoint: srv.URL, CAPEM: string(srv.CAPEM)}); err != nil {
			t.Fatal(err)
		}
	}
	config := w.providerConfig("") + classConfig(name, l4Body(publishedLadder, ""))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             w.checkGone(t, name),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig:   func() { reach(other) },
				Config:      config,
				ExpectError: acctest.ExpectErrorParts("Reading the ComputeClass: another cluster", "is another cluster than the one", "state rm"),
			},
			{
				PreConfig: func() {
					if w.live(t, name) == nil {
						t.Fatal("the class left the first cluster")
					}
					reach(w.srv)
				},
				Config:   config,
				PlanOnly: true,
			},
		},
	})
}

// Policy at plan time, as for the node pools: a deny fails the plan at the attribute with no
// request to the cluster, a waiver turns it into a warning, enforcement = "warn" lets it through.
func TestAccGKEComputeClass_policy(t *testing.T) {
	w := newWorld(t)
	before := w.requests(t)
	body := acctest.SharingInProduction + `
  machine_type = "g2-standard-8"
  scaling {
    min_size = 0
    max_size = 4
  }
  capacity {
    ladder = ["on_demand"]
  }
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             w.checkGone(t, "cc-policy"),
		Steps: acctest.PolicySteps(t, "gpufleet_gke_compute_class.cc-policy", func() int { return w.requests(t) - before }, func(providerExtra, poolExtra string) string {
			return w.providerConfig(providerExtra) + classConfig("cc-policy", body+poolExtra)
		}),
	})
}

const parityData = `
gpufleet:
  clients:
    initech:
      cost_center: cc-3003
      allowed_regions: ["us-*"]
      isolation: shared
      monthly_budget_usd: 1000000
    acme:
      cost_center: cc-1001
      allowed_regions: ["europe-*"]
      isolation: dedicated
      monthly_budget_usd: 1000000
`

// parityClass is one class of the parity test: its pool and its ladder.
type parityClass struct {
	spec  pool.Spec
	class render.Class
}

func parityClasses() []parityClass {
	base := func(name, client string, w pool.Workload, ladder ...string) parityClass {
		c := render.Class{Name: name, Ladder: ladder, NodePoolAutoCreation: true}
		return parityClass{pool.Spec{
			Cloud: catalog.GCP, ResourceType: render.ResourceType, Name: name, Region: testLocation, Client: client, Workload: w,
			MachineType: "g2-standard-8", Scaling: pool.Sizes{Min: 1, Max: 3, Desired: 1}, AutoscalerOwnsSize: true,
			Capacity: render.Capacity(c, nil),
		}, c}
	}
	return []parityClass{
		base("train", "initech", pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 20, Interruptible: true}, render.RungOnDemand),
		base("serve", "initech", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 16}, render.RungOnDemand, render.RungSpot),
		base("batch", "initech", pool.Workload{Kind: pool.KindBatch, Environment: pool.EnvStaging, GPUMemoryGiB: 16}, render.RungSpot, render.RungOnDemand),
		base("elsewhere", "acme", pool.Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 16}, render.RungOnDemand),
		base("stranger", "globex", pool.Workload{Kind: pool.KindBatch, Environment: pool.EnvStaging, GPUMemoryGiB: 16, Interruptible: true}, render.RungSpot),
	}
}

func parityHCL(p parityClass) string {
	s := p.spec
	ladder := ""
	for i, r := range p.class.Ladder {
		if i > 0 {
			ladder += ", "
		}
		ladder += fmt.Sprintf("%q", r)
	}
	return fmt.Sprintf(`
resource "gpufleet_gke_compute_class" %[1]q {
  location     = %[2]q
  cluster      = %[3]q
  name         = %[1]q
  client       = %[4]q
  machine_type = %[5]q
  workload {
    kind           = %[6]q
    environment    = %[7]q
    gpu_memory_gib = %[8]g
    interruptible  = %[9]t
  }
  scaling {
    min_size = %[10]d
    max_size = %[11]d
  }
  capacity {
    ladder = [%[12]s]
  }
}
`, s.Name, testLocation, testCluster, s.Client, s.MachineType, s.Workload.Kind, s.Workload.Environment, s.Workload.GPUMemoryGiB, s.Workload.Interruptible,
		s.Scaling.Min, s.Scaling.Max, ladder)
}

// The provider and conftest reach the same findings for the same classes, with the attributes a
// class has (capacity.ladder for the spot rules).
func TestAccGKEComputeClass_policyParity(t *testing.T) {
	conftestBin := os.Getenv("GPUFLEET_CONFTEST")
	if conftestBin == "" {
		t.Skip("GPUFLEET_CONFTEST is not set (make test sets it to the pinned conftest)")
	}
	w := newWorld(t)
	dataFile := acctest.WriteFile(t, "policy-data.yaml", parityData)
	classes := parityClasses()
	cfg := w.providerConfig(fmt.Sprintf("  policy {\n    enforcement = \"warn\"\n    data_files = [%q]\n  }\n", dataFile))
	var specs []pool.Spec
	byName := map[string]render.Class{}
	for _, c := range classes {
		cfg += parityHCL(c)
		specs = append(specs, c.spec)
		byName[c.spec.Name] = c.class
	}
	var fromPlan, fromAttributes []acctest.Finding
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			for name := range byName {
				if w.live(t, name) != nil {
					return fmt.Errorf("ComputeClass %s is still in the cluster", name)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{acctest.ParityCheck(conftestBin, dataFile, &fromPlan, &fromAttributes)}},
		}},
	})
	fromProvider := acctest.ProviderFindingsWith(t, dataFile, nil, specs, func(s pool.Spec, env pool.Environment) (pool.Derived, error) {
		return render.Derive(s, env, byName[s.Name])
	})
	acctest.RequireParity(t, fromPlan, fromAttributes, fromProvider, []acctest.Finding{
		{Pool: "train", Rule: "GF-COST-002", Severity: "warn", Attribute: "capacity.ladder"},
		{Pool: "serve", Rule: "GF-COST-001", Severity: "deny", Attribute: "capacity.ladder"},
		{Pool: "batch", Rule: "GF-COST-003", Severity: "warn", Attribute: "capacity.ladder"},
		{Pool: "elsewhere", Rule: "GF-DR-001", Severity: "deny"},
		{Pool: "stranger", Rule: "GF-TAG-001", Severity: "deny"},
	})
}

// proxyBlock is a kubernetes block reaching the test API server through proxy with token.
func proxyBlock(proxy *kubetest.Proxy, token string) string {
	return fmt.Sprintf(`
  kubernetes {
    host                   = %q
    cluster_ca_certificate = %q
    token                  = %q
  }
`, proxy.URL, string(proxy.CAPEM), token)
}
