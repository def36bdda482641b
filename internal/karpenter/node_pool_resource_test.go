package karpenter_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/kubetest"
)

// check runs f on the test's world as a state check.
func check(f func() error) resource.TestCheckFunc {
	return func(*terraform.State) error { return f() }
}

// A plain GPU pool: a node class and one on-demand NodePool, with the GPU's requirements, the GPU
// taint, the client's labels and tags, limits from max_size, all owned by the pool; an empty plan
// after the apply.
func TestAccKarpenterNodePool_basic(t *testing.T) {
	e := newEnv(t)
	cfg := e.provider("") + poolHCL("basic", `["g6.xlarge", "g6.2xlarge"]`, inference+scaling(0, 4))
	addr := "gpufleet_karpenter_node_pool.basic"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("basic"),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools"), knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
						"name": knownvalue.StringExact("basic-od"), "capacity_type": knownvalue.StringExact("on-demand"),
						"weight": knownvalue.Int64Exact(100), "nodes": knownvalue.Int64Exact(4), "static": knownvalue.Bool(false),
					})})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpu_model"), knownvalue.StringExact("L4")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("owner_id"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{16}$`))),
				},
				Check: check(func() error {
					nc := e.get(t, ec2NodeClassGVK, "basic")
					np := e.get(t, nodePoolGVK, "basic-od")
					if nc == nil || np == nil {
						return fmt.Errorf("node class %v, NodePool %v", nc != nil, np != nil)
					}
					owner := nested(np, "metadata", "labels", kube.LabelOwner)
					if owner == nil || owner != nested(nc, "metadata", "labels", kube.LabelOwner) {
						return fmt.Errorf("owner labels %v %v", owner, nested(nc, "metadata", "labels", kube.LabelOwner))
					}
					for key, want := range map[string]string{
						"karpenter.sh/capacity-type":                  "In on-demand",
						"node.kubernetes.io/instance-type":            "In g6.xlarge,g6.2xlarge",
						"karpenter.k8s.aws/instance-gpu-name":         "In l4",
						"karpenter.k8s.aws/instance-gpu-count":        "In 1",
						"karpenter.k8s.aws/instance-gpu-memory":       "Gt 16383",
						"karpenter.k8s.aws/instance-family":           "In g6",
						"karpenter.k8s.aws/instance-gpu-manufacturer": "In nvidia",
					} {
						if got := requirement(np, key); got != want {
							return fmt.Errorf("requirement %s = %q, want %q", key, got, want)
						}
					}
					if got := fmt.Sprint(nested(np, "spec", "limits")); got != "map[nodes:4 nvidia.com/gpu:4]" {
						return fmt.Errorf("limits %s", got)
					}
					if got := fmt.Sprint(nested(np, "spec", "template", "spec", "taints")); !strings.Contains(got, "nvidia.com/gpu") {
						return fmt.Errorf("taints %s", got)
					}
					if got := nested(nc, "spec", "tags", "gpufleet:client"); got != "acme" {
						return fmt.Errorf("client tag %v", got)
					}
					if got := nested(nc, "spec", "tags", "ManagedBy"); got != "terraform" {
						return fmt.Errorf("default tag %v", got)
					}
					if got := nested(np, "spec", "template", "metadata", "labels", "gpufleet.io/client"); got != "acme" {
						return fmt.Errorf("client label %v", got)
					}
					return nil
				}),
			},
			{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}

// A pool lives in the region its state records. When the provider's region changes, the plan
// replaces the pool (region forces a new one): the objects are deleted from the cluster of the old
// region, then written to the new region's cluster of the same name. Refresh and destroy reach the
// cluster of state's region, not the provider's; reaching the provider's, refresh found nothing in
// the new region's cluster, dropped the pool from state, and its NodePools were left launching GPU
// nodes in the old one, which no state recorded.
func TestAccKarpenterNodePool_regionChange(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance tests run with TF_ACC=1")
	}
	west := kubetest.Own(t)
	e := newEnvWith(t, map[string]*kubetest.Server{otherRegion: west})
	westAdmin, err := west.Admin()
	if err != nil {
		t.Fatal(err)
	}
	addr := "gpufleet_karpenter_node_pool.moved"
	pool := poolHCL("moved", `["g6.xlarge"]`, inference+scaling(0, 4))
	where := e.inClusters(t, westAdmin, "moved-od")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             func(*terraform.State) error { return where(false, false) },
		Steps: []resource.TestStep{
			{
				Config: e.providerIn(testRegion, "") + pool,
				Check:  check(func() error { return where(true, false) }),
			},
			{
				Config: e.providerIn(otherRegion, "") + pool,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("region"), knownvalue.StringExact(otherRegion)),
				},
				Check: check(func() error { return where(false, true) }),
			},
		},
	})
}

// A pool reached through a kubernetes block stays in its cluster when the provider's region
// changes (or AWS_REGION, where the region comes from): an update, which keeps the NodePool (its
// uid), not a replacement, which deleted the NodePools and had Karpenter drain their GPU nodes to
// create the same objects again in the same cluster.
func TestAccKarpenterNodePool_regionChangeWithKubernetesBlock(t *testing.T) {
	e := newEnv(t)
	e.srv.AddToken("token-of-the-cluster", "ci")
	addr := "gpufleet_karpenter_node_pool.stays"
	pool := poolHCL("stays", `["g6.xlarge"]`, inference+scaling(0, 4)+tokenBlock(e.srv.URL, e.srv.CAPEM, "token-of-the-cluster"))
	var uid string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("stays"),
		Steps: []resource.TestStep{
			{
				Config: e.providerIn(testRegion, "") + pool,
				Check: check(func() error {
					np, err := e.admin.Get(context.Background(), nodePoolGVK, "stays-od")
					if err != nil {
						return err
					}
					uid = string(np.GetUID())
					return nil
				}),
			},
			{
				Config: e.providerIn(otherRegion, "") + pool,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("region"), knownvalue.StringExact(otherRegion)),
				},
				Check: check(func() error {
					np, err := e.admin.Get(context.Background(), nodePoolGVK, "stays-od")
					if err != nil || string(np.GetUID()) != uid {
						return fmt.Errorf("NodePool stays-od was replaced (uid %s before): %w", uid, err)
					}
					return nil
				}),
			},
		},
	})
}

// A kubernetes block changed to reach another cluster stops the apply before any write: written
// there in place, the pool's NodePools would keep launching GPU nodes in the old cluster, recorded
// by no state. The pool records the identity of its cluster (the NodePool CRD's uid there), and
// replacing it is the way to move it: the objects are deleted from the old cluster with state's
// block, then created in the new one.
func TestAccKarpenterNodePool_anotherCluster(t *testing.T) {
	e := newEnv(t)
	other := kubetest.Own(t)
	otherAdmin, err := other.Admin()
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range []*kubetest.Server{e.srv, other} {
		srv.AddToken("token-of-both-clusters", "ci")
	}
	addr := "gpufleet_karpenter_node_pool.hop"
	cfg := func(srv *kubetest.Server) string {
		block := tokenBlock(srv.URL, srv.CAPEM, "token-of-both-clusters")
		return e.provider("") + poolHCL("hop", `["g6.xlarge"]`, inference+scaling(0, 2)+block)
	}
	where := e.inClusters(t, otherAdmin, "hop-od")
	identity := func(srv *kubetest.Server) knownvalue.Check {
		return knownvalue.StringFunc(func(v string) error {
			crd, err := srv.CRD("nodepools.karpenter.sh")
			if err != nil {
				return err
			}
			if v != string(crd.GetUID()) {
				return fmt.Errorf("cluster_identity %s, the NodePool CRD's uid there %s", v, crd.GetUID())
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             func(*terraform.State) error { return where(false, false) },
		Steps: []resource.TestStep{
			{
				Config:            cfg(e.srv),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("cluster_identity"), identity(e.srv))},
				Check:             check(func() error { return where(true, false) }),
			},
			{
				Config:      cfg(other),
				ExpectError: acctest.ExpectErrorParts("Another cluster", "nothing was written", "-replace"),
			},
			{
				PreConfig: func() {
					if err := where(true, false); err != nil {
						t.Fatalf("after the refused apply: %v", err)
					}
				},
				Taint:             []string{addr},
				Config:            cfg(other),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("cluster_identity"), identity(other))},
				Check:             check(func() error { return where(false, true) }),
			},
		},
	})
}

// The provider's AWS access reaching another cluster of the pool's cluster name (the credentials of
// another account, whose cluster is also "ml") stops refresh with an error: refresh found none of
// the pool's objects there and removed the pool from state, the apply created it in the other
// cluster, and its NodePools kept launching GPU nodes in the first one, recorded by no state. State
// stays as it was, and with the right access again nothing changes and destroy deletes the objects.
func TestAccKarpenterNodePool_otherAccountSameClusterName(t *testing.T) {
	e := newEnv(t)
	other := kubetest.Own(t)
	otherAdmin, err := other.Admin()
	if err != nil {
		t.Fatal(err)
	}
	reach := func(srv *kubetest.Server) {
		if err := e.sim.SetClusterKubernetes(testRegion, testCluster, cloudsim.KubernetesAPI{Endpoint: srv.URL, CAPEM: string(srv.CAPEM)}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := e.provider("") + poolHCL("kept", `["g6.xlarge"]`, inference+scaling(0, 2))
	where := e.inClusters(t, otherAdmin, "kept-od")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             func(*terraform.State) error { return where(false, false) },
		Steps: []resource.TestStep{
			{Config: cfg, Check: check(func() error { return where(true, false) })},
			{
				PreConfig:   func() { reach(other) },
				Config:      cfg,
				ExpectError: acctest.ExpectErrorParts("Reading Karpenter node pool kept", "another cluster", "is another cluster than the one", "state rm"),
			},
			{
				PreConfig: func() {
					if err := where(true, false); err != nil {
						t.Fatalf("after the refused refresh: %v", err)
					}
					reach(e.srv)
				},
				Config:   cfg,
				PlanOnly: true,
			},
		},
	})
}

// A pool whose EKS cluster was deleted outside Terraform is gone with it: refresh removes it from
// state (the next plan creates it again, and the apply says the cluster is not found) rather than
// fail on DescribeCluster for ever, which blocked every plan and destroy; a destroy then has nothing
// to do. Not-found in Read and in Delete, as for the node groups of gpufleet_eks_node_pool.
func TestAccKarpenterNodePool_clusterDeleted(t *testing.T) {
	e := newEnv(t)
	cfg := e.provider("") + poolHCL("lost", `["g6.xlarge"]`, inference+scaling(0, 2))
	t.Cleanup(func() { // cloudsim's deletion does not reach the API server, which outlives the test
		for _, o := range []struct {
			gvk  schema.GroupVersionKind
			name string
		}{{nodePoolGVK, "lost-od"}, {ec2NodeClassGVK, "lost"}} {
			if err := e.admin.Delete(context.Background(), o.gvk, o.name, "", 20*time.Millisecond); err != nil && !kube.IsNotFound(err) {
				t.Error(err)
			}
		}
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() {
					if err := e.sim.DeleteEKSCluster(testRegion, testCluster); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpufleet_karpenter_node_pool.lost", plancheck.ResourceActionCreate),
				}},
				// and the create says why it cannot be done
				ExpectError: regexp.MustCompile(`EKS cluster "ml": cluster not found`),
			},
		},
	})
}

// A destroy deletes the pool's NodePools side by side and waits for their drains together: while
// Karpenter drains one (its termination finalizer holds it, as here), the other must be terminating
// too, not still taking the evicted pods and launching GPU nodes for them. The node class goes last.
func TestAccKarpenterNodePool_deleteDrainsTogether(t *testing.T) {
	e := newEnv(t)
	cfg := e.provider("") + poolHCL("drain", `["g6.xlarge"]`, inference+scaling(0, 4)+acctest.Capacity(50, 0))
	pools := []string{"drain-od", "drain-spot"}
	// hold puts Karpenter's termination finalizer on the NodePools, as the controller does.
	hold := func() {
		for _, name := range pools {
			u, err := e.admin.Get(context.Background(), nodePoolGVK, name)
			if err != nil {
				t.Fatal(err)
			}
			u.SetFinalizers([]string{"karpenter.sh/termination"})
			if _, err := e.srv.UpdateAs(context.Background(), u, "karpenter"); err != nil {
				t.Fatal(err)
			}
		}
	}
	// drain watches the destroy: it notes whether both NodePools were terminating at once, and
	// lets a NodePool go (removes the finalizer) once both are, or after 3 s alone.
	together := make(chan bool, 1)
	drain := func() {
		deadline := time.Now().Add(3 * time.Minute) // from before the destroy's refresh and plan
		both, released := false, map[string]bool{}
		alone := map[string]time.Time{}
		for len(released) < len(pools) && time.Now().Before(deadline) {
			terminating := 0
			for _, name := range pools {
				if u, err := e.admin.Get(context.Background(), nodePoolGVK, name); err == nil && u.GetDeletionTimestamp() != nil {
					terminating++
					if alone[name].IsZero() {
						alone[name] = time.Now()
					}
				}
			}
			both = both || terminating == len(pools)
			for _, name := range pools {
				if released[name] || alone[name].IsZero() || (!both && time.Since(alone[name]) < 3*time.Second) {
					continue
				}
				if err := e.release(nodePoolGVK, name); err != nil && !kube.IsNotFound(err) {
					t.Error(err)
				}
				released[name] = true
			}
			time.Sleep(50 * time.Millisecond)
		}
		together <- both
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg, Check: check(func() error { hold(); return nil })},
			{
				PreConfig: func() { go drain() },
				Config:    cfg,
				Destroy:   true,
				Check:     e.gone("drain"), // a case's CheckDestroy is skipped after a destroy step
			},
		},
	})
	if t.Failed() {
		return // the destroy step may never have started the watch
	}
	select {
	case both := <-together:
		if !both {
			t.Fatal("the destroy deleted one NodePool while the other still ran: their drains were not side by side")
		}
	case <-time.After(time.Minute):
		t.Fatal("the watch of the destroy never ended")
	}
}

// An apply of an object that the server did but whose answer was lost (a gateway timeout) leaves
// nothing unrecorded: the object is looked up, and counts as applied. A create undoes it with the
// others, so that the next apply, with a new owner id, finds no object of the pool's names that is
// not its own; an update records it in state, so that an apply that takes it away again (the spot
// mix reverted) deletes it rather than leave a NodePool that launches spot GPU nodes unrecorded.
func TestAccKarpenterNodePool_answerLost(t *testing.T) {
	e := newEnv(t)
	e.srv.AddToken("token-through-the-gateway", "ci-bot")
	for _, update := range []bool{false, true} {
		name := map[bool]string{false: "lost-create", true: "lost-update"}[update]
		t.Run(name, func(t *testing.T) {
			var lost, armed atomic.Bool
			armed.Store(!update) // an update's first apply goes through
			proxy := e.srv.LossyProxy(t, func(r *http.Request) bool {
				return armed.Load() && r.Method == http.MethodPatch && strings.HasSuffix(r.URL.Path, "/nodepools/"+name+"-spot") && lost.CompareAndSwap(false, true)
			})
			block := tokenBlock(proxy.URL, proxy.CAPEM, "token-through-the-gateway")
			cfg := func(pct int) string {
				return e.provider("") + poolHCL(name, `["g6.xlarge"]`, inference+scaling(0, 4)+acctest.Capacity(pct, 0)+block)
			}
			failing := resource.TestStep{Config: cfg(50), ExpectError: acctest.ExpectErrorParts("NodePool "+name+"-spot", "answer was lost")}
			steps := []resource.TestStep{failing, {
				PreConfig: func() {
					if !lost.Load() {
						t.Fatal("no answer was lost: the test proves nothing")
					}
					if err := e.gone(name)(nil); err != nil {
						t.Fatalf("after the failed create: %v", err)
					}
				},
				Config: cfg(50),
			}}
			if update {
				steps = []resource.TestStep{
					{Config: cfg(0), Check: check(func() error { armed.Store(true); return nil })},
					failing,
					{
						PreConfig: func() {
							if !lost.Load() || e.get(t, nodePoolGVK, name+"-spot") == nil {
								t.Fatal("no answer was lost, or the spot NodePool was not applied: the test proves nothing")
							}
						},
						Config: cfg(0), // the mix reverted: the spot NodePool goes
						Check: check(func() error {
							if e.get(t, nodePoolGVK, name+"-spot") != nil {
								return fmt.Errorf("NodePool %s-spot is left in the cluster: the failed update did not record it", name)
							}
							return nil
						}),
					},
				}
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy:             e.gone(name),
				Steps:                    steps,
			})
		})
	}
}

// The plan of a new pool sends no request to the API server (its audit log counts them) and no
// call to EKS or STS: the objects are rendered and validated in process.
func TestAccKarpenterNodePool_planSendsNoRequests(t *testing.T) {
	e := newEnv(t)
	cfg := e.provider("") + poolHCL("noreq", `["g6.xlarge"]`, strings.Replace(inference, "16", "4", 1)+scaling(1, 4)+acctest.Capacity(50, 0)+
		"  gpu {\n    sharing {\n      strategy = \"time-slicing\"\n      replicas = 4\n    }\n  }\n")
	before := e.requests(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:             cfg,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
	e.expectNoCalls(t, before, "the plan")
	// The proof can fail: the apply does reach the cluster (and EKS and STS).
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("noreq"),
		Steps:                    []resource.TestStep{{Config: cfg}},
	})
	if e.requests(t) == before || len(e.sim.RequestsFor("eks", "DescribeCluster")) == 0 {
		t.Fatal("the apply did not reach the cluster: the count above proves nothing")
	}
}

// A change of size and spot mix updates the NodePools in place; a rung that goes away is deleted.
func TestAccKarpenterNodePool_update(t *testing.T) {
	e := newEnv(t)
	addr := "gpufleet_karpenter_node_pool.upd"
	cfg := func(body string) string { return e.provider("") + poolHCL("upd", `["g6.xlarge"]`, inference+body) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("upd"),
		Steps: []resource.TestStep{
			{
				Config: cfg(scaling(0, 10) + acctest.Capacity(70, 1)),
				Check: check(func() error {
					od, spot := e.get(t, nodePoolGVK, "upd-od"), e.get(t, nodePoolGVK, "upd-spot")
					if od == nil || spot == nil {
						return fmt.Errorf("rungs: od %v spot %v", od != nil, spot != nil)
					}
					if fmt.Sprintf("%v %v", nested(od, "spec", "limits", "nodes"), nested(spot, "spec", "limits", "nodes")) != "4 6" {
						return fmt.Errorf("limits od %v spot %v, want 4 and 6 (base 1, 70 %% of 9 above it)", nested(od, "spec", "limits", "nodes"), nested(spot, "spec", "limits", "nodes"))
					}
					return nil
				}),
			},
			{
				Config: cfg(scaling(0, 6)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: check(func() error {
					if e.get(t, nodePoolGVK, "upd-spot") != nil {
						return fmt.Errorf("the spot NodePool is still there")
					}
					if got := nested(e.get(t, nodePoolGVK, "upd-od"), "spec", "limits", "nodes"); got != "6" {
						return fmt.Errorf("od limit %v", got)
					}
					return nil
				}),
			},
			{Config: cfg(scaling(0, 6)), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}

// Import by <cluster_name>:<name> reads the pool back as the configuration wrote it.
func TestAccKarpenterNodePool_import(t *testing.T) {
	e := newEnv(t)
	addr := "gpufleet_karpenter_node_pool.imp"
	cfg := e.provider("") + poolHCL("imp", `["p5.48xlarge"]`, `  workload {
    kind           = "training"
    environment    = "production"
    gpu_memory_gib = 30
    interruptible  = true
  }
  gpu {
    mig {
      profile = "3g.40gb"
    }
  }
  labels = { "example.com/team" = "research" }
  tags   = { CostCenter = "4711" }
  taints = [{ key = "example.com/dedicated", value = "research", effect = "NO_SCHEDULE" }]
  disruption {
    consolidate_after = "30m"
  }
`+scaling(0, 6)+acctest.Capacity(50, 2))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("imp"),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           testCluster + ":imp",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"policy_findings", "timeouts"},
			},
			{
				ResourceName:  addr,
				ImportState:   true,
				ImportStateId: testCluster + ":nothing-here",
				ExpectError:   regexp.MustCompile(`Cannot import non-existent remote object`),
			},
			{ResourceName: addr, ImportState: true, ImportStateId: "no-colon", ExpectError: regexp.MustCompile(`Invalid import id`)},
		},
	})
}

// A hand edit of a field gpufleet applied (kubectl edit moves it to another field manager) shows
// as a change of manifests, and the apply puts it back; an object deleted by hand is recreated.
func TestAccKarpenterNodePool_drift(t *testing.T) {
	e := newEnv(t)
	addr := "gpufleet_karpenter_node_pool.drift"
	cfg := e.provider("") + poolHCL("drift", `["g6.xlarge"]`, inference+scaling(0, 4))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("drift"),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() {
					live, err := e.admin.Get(context.Background(), nodePoolGVK, "drift-od")
					if err != nil {
						t.Fatal(err)
					}
					if err := unstructured.SetNestedField(live.Object, "40", "spec", "limits", "nodes"); err != nil {
						t.Fatal(err)
					}
					live.SetManagedFields(nil)
					if _, err := e.srv.UpdateAs(context.Background(), live, "kubectl-edit"); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("manifests"), knownvalue.StringRegexp(regexp.MustCompile(`nodes: "4"`))),
				}},
				Check: check(func() error {
					if got := nested(e.get(t, nodePoolGVK, "drift-od"), "spec", "limits", "nodes"); got != "4" {
						return fmt.Errorf("the apply left the hand edit: limits.nodes %v", got)
					}
					return nil
				}),
			},
			{
				PreConfig: func() { e.deleteObject(t, nodePoolGVK, "drift-od") },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: check(func() error {
					if e.get(t, nodePoolGVK, "drift-od") == nil {
						return fmt.Errorf("the deleted NodePool was not recreated")
					}
					return nil
				}),
			},
			{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}

// A pool whose objects were all deleted outside Terraform leaves the state on refresh, and the next
// apply creates it again; a delete of what is already gone is a success.
func TestAccKarpenterNodePool_disappears(t *testing.T) {
	e := newEnv(t)
	addr := "gpufleet_karpenter_node_pool.gone"
	cfg := e.provider("") + poolHCL("gone", `["g6.xlarge"]`, inference+scaling(0, 2))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("gone"),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: check(func() error {
					e.deleteObject(t, nodePoolGVK, "gone-od")
					e.deleteObject(t, ec2NodeClassGVK, "gone")
					return nil
				}),
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
				}},
			},
		},
	})
}

// An object of the pool's names that gpufleet did not make is never adopted: the apply fails before
// writing anything, and the object is left as it was.
func TestAccKarpenterNodePool_foreignObject(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	foreign := foreignNodePool("taken-od")
	foreign["spec"].(map[string]any)["disruption"] = map[string]any{"consolidateAfter": "1m"}
	if _, err := e.admin.Apply(ctx, foreign, false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.deleteObject(t, nodePoolGVK, "taken-od") })
	cfg := e.provider("") + poolHCL("taken", `["g6.xlarge"]`, inference+scaling(0, 2))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      cfg,
			ExpectError: acctest.ExpectErrorParts("NodePool taken-od", "is not this resource's", "no gpufleet.io/owner label", "written nothing"),
		}},
	})
	if e.get(t, ec2NodeClassGVK, "taken") != nil {
		t.Fatal("the failed apply wrote the node class")
	}
	if got := requirement(e.get(t, nodePoolGVK, "taken-od"), "karpenter.sh/capacity-type"); got != "In spot" {
		t.Fatalf("the foreign NodePool was changed: %s", got)
	}
}

// An object of the pool's names created by someone else after gpufleet checked the name was free,
// before its write, is never written either: the write is create-only (kube.Client.ApplyOver), the
// apply fails naming the object, the objects the create wrote are undone, and the other's object is
// left exactly as it was.
func TestAccKarpenterNodePool_objectCreatedMeanwhile(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.srv.AddToken("token-through-the-race", "ci-bot")
	foreign := foreignNodePool("raced-od")
	var raced atomic.Bool
	var before string // the other's object's resourceVersion, as it made it
	proxy := e.srv.HookedProxy(t, func(r *http.Request) {
		if r.Method != http.MethodPatch || !strings.HasSuffix(r.URL.Path, "/nodepools/raced-od") || !raced.CompareAndSwap(false, true) {
			return
		}
		made, err := e.admin.Apply(ctx, foreign, false)
		if err != nil {
			t.Errorf("creating the other's NodePool: %v", err)
			return
		}
		before = made.GetResourceVersion()
	})
	t.Cleanup(func() { e.deleteObject(t, nodePoolGVK, "raced-od") })
	block := tokenBlock(proxy.URL, proxy.CAPEM, "token-through-the-race")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      e.provider("") + poolHCL("raced", `["g6.xlarge"]`, inference+scaling(0, 2)+block),
			ExpectError: acctest.ExpectErrorParts("NodePool raced-od", "is not this resource's", "no gpufleet.io/owner label", "written nothing"),
		}},
	})
	if !raced.Load() {
		t.Fatal("the NodePool was never applied: the test proves nothing")
	}
	if e.get(t, ec2NodeClassGVK, "raced") != nil {
		t.Fatal("the failed create left its node class")
	}
	live := e.get(t, nodePoolGVK, "raced-od")
	if live == nil || nested(live, "metadata", "resourceVersion") != before || requirement(live, "karpenter.sh/capacity-type") != "In spot" {
		t.Fatalf("the other's NodePool was written: %v", live)
	}
}

// Changes that Karpenter counts as drift replace nodes, and the plan says so at the attribute. The
// pool's tags are its node class's spec.tags (EC2NodeClass.Hash): every node of the pool goes. A
// field of a NodePool's node template that Karpenter hashes (labels, taints, expireAfter…): that
// NodePool's nodes go. Dropping expire_after of a pool with a minimum changes the static NodePool's
// expireAfter (720h to Never, gpufleet's default for static NodePools) and not the dynamic one's;
// new labels change both; a new max_size changes only limits, which drift no node. (Every step
// updates a pool with a min_size, which failed at plan before: state's replicas read as a float.)
func TestAccKarpenterNodePool_driftingChangesWarn(t *testing.T) {
	e := newEnv(t)
	cfg := func(team, extra string, maxSize int) string {
		return e.provider("") + poolHCL("drifting", `["g6.xlarge"]`, inference+scaling(1, maxSize)+fmt.Sprintf("  tags = { team = %q }\n", team)+extra)
	}
	const expiry = "  disruption {\n    expire_after = \"720h\"\n  }\n"
	const template, tags = "A change that replaces the NodePool's nodes", "Changed tags replace the pool's nodes"
	var diags acctest.ApplyDiagnostics
	step := func(team, extra string, maxSize int, check func() error) resource.TestStep {
		return resource.TestStep{PreConfig: diags.Reset, Config: cfg(team, extra, maxSize), Check: func(*terraform.State) error { return check() }}
	}
	none := func() error {
		if err := diags.ExpectNoPlanWarning(template); err != nil {
			return err
		}
		return diags.ExpectNoPlanWarning(tags)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             e.gone("drifting"),
		Steps: []resource.TestStep{
			step("search", expiry, 3, none),
			step("search", expiry, 4, none),
			step("search", "", 4, func() error {
				if err := diags.ExpectNoPlanWarning(template, "NodePool drifting-od "); err != nil {
					return err
				}
				return diags.ExpectPlanWarning(template, "disruption.expire_after: spec.template.spec.expireAfter of NodePool drifting-od-min changes", `"720h" to "Never"`, "as drift")
			}),
			step("search", "  labels = { team = \"vision\" }\n", 4, func() error {
				for _, np := range []string{"drifting-od-min", "drifting-od"} {
					if err := diags.ExpectPlanWarning(template, "labels: spec.template.metadata.labels of NodePool "+np+" changes"); err != nil {
						return err
					}
				}
				return diags.ExpectNoPlanWarning(tags)
			}),
			step("ranking", "  labels = { team = \"vision\" }\n", 4, func() error {
				if err := diags.ExpectNoPlanWarning(template); err != nil {
					return err
				}
				return diags.ExpectPlanWarning(tags, "EC2NodeClass drifting", "counts a change of a node class's spec.tags as drift")
			}),
		},
	})
}

// kubeBlock is a kubernetes block reaching a made-up API server with the settings given.
func kubeBlock(settings string) string {
	return "  kubernetes {\n    host = \"https://203.0.113.10\"\n    " + settings + "\n  }\n"
}

// badKey is a PEM block of a private key whose bytes are no key.
const badKey = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1ieXRlcw==\n-----END PRIVATE KEY-----\n"

// Bad input fails at plan, at the attribute, with no request to the cluster: what the CRDs refuse
// (validated in process: a CEL rule, a schema pattern), and what the objects cannot carry.
func TestAccKarpenterNodePool_badInput(t *testing.T) {
	e := newEnv(t)
	before := e.requests(t)
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"ami", inference + scaling(0, 2) + `  ami_alias = "ubuntu@latest"` + "\n", []string{`ami_alias`, `EC2NodeClass`, `spec.amiSelectorTerms\[0\].alias`}},
		{"consolidate", inference + scaling(0, 2) + "  disruption {\n    consolidate_after = \"5 minutes\"\n  }\n", []string{"disruption.consolidate_after", "NodePool", "spec.disruption.consolidateAfter"}},
		{"budget", inference + scaling(0, 2) + "  disruption {\n    budgets = [{ nodes = \"1\", schedule = \"@daily\" }]\n  }\n", []string{"disruption.budgets", "'schedule' must be set with 'duration'"}},
		{"tag", inference + scaling(0, 2) + "  tags = { \"karpenter.sh/nodepool\" = \"x\" }\n", []string{"tags", "restricted tag"}},
		{"desired", inference + "  scaling {\n    min_size = 0\n    max_size = 2\n    desired_size = 1\n  }\n", []string{"scaling.desired_size", "Karpenter has no desired size"}},
		{"automode-mig", inference + scaling(0, 2) + "  mode = \"auto_mode\"\n  gpu {\n    mig {\n      profile = \"1g.10gb\"\n    }\n  }\n", []string{"gpu.mig", "Auto Mode"}},
		// The kubernetes block: PEM that does not parse, and an exec plugin client-go would ignore.
		{"ca-pem", inference + scaling(0, 2) + kubeBlock(`cluster_ca_certificate = "ca.crt"`), []string{"Not the PEM of a certificate", `cluster_ca_certificate = "ca.crt"`, "no PEM block"}},
		{"key-pem", inference + scaling(0, 2) + kubeBlock(fmt.Sprintf("client_certificate = <<EOT\n%sEOT\n    client_key = %q", e.srv.AdminCert, badKey)),
			[]string{"Not the PEM of a private key", "client_key", `"PRIVATE KEY" is not a PKCS`}},
		{"exec-token", inference + scaling(0, 2) + kubeBlock("token = \"t\"\n    exec {\n      api_version = \"client.authentication.k8s.io/v1\"\n      command = \"get-token\"\n    }"),
			[]string{"Invalid Attribute Combination", "exec {", `"kubernetes.token" cannot be specified when "kubernetes.exec"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			types := `["g6.xlarge"]`
			if c.name == "automode-mig" {
				types = `["p5.48xlarge"]`
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      e.provider("") + poolHCL("bad-"+c.name, types, c.body),
					PlanOnly:    true,
					ExpectError: acctest.ExpectErrorParts(c.want...),
				}},
			})

		})
	}
	e.expectNoCalls(t, before, "bad input")
}

// A NodePool of the pool that is being deleted (a removal or destroy that timed out while
// Karpenter drained it: its finalizer holds it) is not taken for live: refresh drops it with a
// warning, and the apply waits for it to go and creates it again. Before, refresh kept it, the plan
// was empty, and the NodePool went a moment later with state still recording it (an apply would
// have written to it, and reported success, as it went).
func TestAccKarpenterNodePool_terminatingObject(t *testing.T) {
	e := newEnv(t)
	addr := "gpufleet_karpenter_node_pool.term"
	cfg := e.provider("") + poolHCL("term", `["g6.xlarge"]`, inference+scaling(0, 2))
	var oldUID string
	released := make(chan error, 1)
	var once sync.Once
	// release lets the terminating NodePool go, 2 s after the plan: the apply has to wait for it.
	// (Also 60 s after it started terminating, so that a failing test's destroy does not wait for
	// it until its timeout.)
	release := func(after time.Duration) {
		time.Sleep(after)
		once.Do(func() {
			released <- e.release(nodePoolGVK, "term-od")
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("term"),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: check(func() error {
					u, err := e.admin.Get(context.Background(), nodePoolGVK, "term-od")
					if err != nil {
						return err
					}
					oldUID = string(u.GetUID())
					u.SetFinalizers([]string{"karpenter.sh/termination"})
					if _, err := e.srv.UpdateAs(context.Background(), u, "karpenter"); err != nil {
						return err
					}
					go release(time.Minute)
					return e.admin.StartDelete(context.Background(), nodePoolGVK, "term-od", "")
				}),
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					acctest.AfterPlan(func() { go release(2 * time.Second) }),
				}},
				Check: check(func() error {
					if err := <-released; err != nil {
						return err
					}
					u, err := e.admin.Get(context.Background(), nodePoolGVK, "term-od")
					if err != nil {
						return fmt.Errorf("the NodePool was not made again: %w", err)
					}
					if kube.Terminating(u) || string(u.GetUID()) == oldUID {
						return fmt.Errorf("term-od is the terminating NodePool (uid %s, deletion %v), not a new one", u.GetUID(), u.GetDeletionTimestamp())
					}
					return nil
				}),
			},
		},
	})
}

// A NodePool that carries the pool's owner id but that state does not list (an apply made it and
// could not record it: its answer lost and the look-up failed too, or the provider was killed
// between two writes) is found by refresh through the owner label, and the next apply deletes it
// as one the configuration no longer has. Before, refresh read state's objects only: the NodePool
// launched spot GPU nodes that no state recorded, and a destroy left it.
func TestAccKarpenterNodePool_unrecordedObject(t *testing.T) {
	e := newEnv(t)
	addr := "gpufleet_karpenter_node_pool.lost"
	cfg := e.provider("") + poolHCL("lost", `["g6.xlarge"]`, inference+scaling(0, 2))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("lost"),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(s *terraform.State) error {
					owner := s.RootModule().Resources[addr].Primary.Attributes["owner_id"]
					if owner == "" {
						return fmt.Errorf("no owner_id in state")
					}
					// The spot NodePool an interrupted apply made: the on-demand one's copy, named and
					// priced as spot, with the pool's labels and owner id.
					u, err := e.admin.Get(context.Background(), nodePoolGVK, "lost-od")
					if err != nil {
						return err
					}
					spot := &unstructured.Unstructured{Object: map[string]any{
						"apiVersion": u.GetAPIVersion(), "kind": u.GetKind(),
						"metadata": map[string]any{"name": "lost-spot", "labels": toAny(u.GetLabels())},
						"spec":     u.Object["spec"],
					}}
					if spot.GetLabels()[kube.LabelOwner] != owner {
						return fmt.Errorf("lost-od's owner label %q, state's owner_id %q", spot.GetLabels()[kube.LabelOwner], owner)
					}
					_, err = e.admin.Apply(context.Background(), spot.Object, false)
					return err
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: check(func() error {
					if e.get(t, nodePoolGVK, "lost-spot") != nil {
						return fmt.Errorf("lost-spot is still in the cluster")
					}
					if e.get(t, nodePoolGVK, "lost-od") == nil {
						return fmt.Errorf("lost-od was deleted")
					}
					return nil
				}),
			},
		},
	})
}

// toAny is a string map as an unstructured object holds it.
func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// A pool whose node role, AMI alias or subnet comes from a resource the same apply creates (unknown
// at plan) still has the rest of its objects validated at plan, with placeholders for those
// values: known bad input is a plan error at its attribute, before any cluster or cloud call, and a
// good pool plans cleanly (no error at the attributes the placeholders stand for). Before, every
// check of the objects was skipped when any such value was unknown, and the cluster refused the
// bad input during the apply.
func TestAccKarpenterNodePool_unknownSettingsValidated(t *testing.T) {
	e := newEnv(t)
	before := e.requests(t)
	unknowns := `
resource "terraform_data" "role" {
  input = "KarpenterNodeRole-ml"
}
resource "terraform_data" "subnet" {
  input = "subnet-0123456789abcdef0"
}
resource "terraform_data" "ami" {
  input = "al2023@latest"
}
`
	pool := func(name, body string) string {
		hcl := poolHCL(name, `["g6.xlarge"]`, body)
		hcl = strings.Replace(hcl, `node_role    = "KarpenterNodeRole-ml"`, `node_role    = terraform_data.role.output`, 1)
		return strings.Replace(hcl, `subnet_selector         = [{ tags = { "karpenter.sh/discovery" = "ml" } }]`, `subnet_selector         = [{ id = terraform_data.subnet.output }]`, 1)
	}
	for _, c := range []struct {
		name, body string
		want       []string // none: the plan succeeds
	}{
		{"consolidate", inference + scaling(0, 2) + "  disruption {\n    consolidate_after = \"5 minutes\"\n  }\n",
			[]string{"disruption.consolidate_after", "NodePool", "spec.disruption.consolidateAfter", "node_role, subnet_selector known only at apply"}},
		{"budget", inference + scaling(0, 2) + "  disruption {\n    budgets = [{ nodes = \"1\", schedule = \"@daily\" }]\n  }\n", []string{"disruption.budgets", "'schedule' must be set with 'duration'"}},
		{"good", inference + scaling(0, 2), nil},
		{"ami", inference + scaling(0, 2) + "  ami_alias = terraform_data.ami.output\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			step := resource.TestStep{Config: e.provider("") + unknowns + pool("unk-"+c.name, c.body), PlanOnly: true}
			if c.want != nil {
				step.ExpectError = acctest.ExpectErrorParts(c.want...)
			} else {
				step.ExpectNonEmptyPlan = true
			}
			resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: acctest.ProviderFactories, Steps: []resource.TestStep{step}})
		})
	}
	e.expectNoCalls(t, before, "the plans")
}

// Another tool's NodePool of a pool's name that is being deleted is refused at once as not the
// pool's, as one that is not: the apply waits only for gpufleet's own objects to go.
func TestAccKarpenterNodePool_foreignTerminatingObject(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	foreign := foreignNodePool("going-od")
	foreign["metadata"].(map[string]any)["finalizers"] = []any{"example.com/hold"}
	if _, err := e.admin.Apply(ctx, foreign, false); err != nil {
		t.Fatal(err)
	}
	if err := e.admin.StartDelete(ctx, nodePoolGVK, "going-od", ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.release(nodePoolGVK, "going-od") })
	cfg := e.provider("") + poolHCL("going", `["g6.xlarge"]`, inference+scaling(0, 2)+"  timeouts {\n    create = \"20s\"\n  }\n")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      cfg,
			ExpectError: acctest.ExpectErrorParts("NodePool going-od", "is not this resource's", "no gpufleet.io/owner label"),
		}},
	})
	if u := e.get(t, nodePoolGVK, "going-od"); u == nil || requirement(u, "karpenter.sh/capacity-type") != "In spot" {
		t.Fatalf("the foreign NodePool was changed: %v", u)
	}
}
