package computeclass_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
)

// classConfig is a gpufleet_gke_compute_class named name on the test cluster, with body.
func classConfig(name, body string) string {
	return fmt.Sprintf(`
resource "gpufleet_gke_compute_class" %[1]q {
  location = %[2]q
  cluster  = %[3]q
  name     = %[1]q
  client   = "initech"
%[4]s
}
`, name, testLocation, testCluster, body)
}

// l4Body is an L4 inference class on the published ladder, with extra settings.
func l4Body(ladder, extra string) string {
	return `
  machine_type = "g2-standard-24"
  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 20
  }
  scaling {
    min_size = 0
    max_size = 4
  }
  capacity {
    ladder = ` + ladder + `
    reservation {
      type = "any"
    }
  }
` + extra
}

const publishedLadder = `["reservation", "on_demand", "flex_start", "spot"]`

// spec reads a field of the live class.
func spec(t *testing.T, u *unstructured.Unstructured, fields ...string) any {
	t.Helper()
	v, _, err := unstructured.NestedFieldNoCopy(u.Object, append([]string{"spec"}, fields...)...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// rungs is the live class's ladder, one word per priority.
func rungs(t *testing.T, u *unstructured.Unstructured) string {
	t.Helper()
	var out []string
	for _, p := range spec(t, u, "priorities").([]any) {
		m := p.(map[string]any)
		switch {
		case m["reservations"] != nil:
			out = append(out, "reservation:"+m["reservations"].(map[string]any)["affinity"].(string))
		case m["flexStart"] != nil:
			out = append(out, "flex_start")
		case m["spot"] == true:
			out = append(out, "spot")
		default:
			out = append(out, "on_demand")
		}
	}
	return strings.Join(out, ",")
}

// checkGone checks that the class is not in the cluster.
func (w *world) checkGone(t *testing.T, name string) func(*terraform.State) error {
	return func(*terraform.State) error {
		if w.live(t, name) != nil {
			return fmt.Errorf("ComputeClass %s is still in the cluster", name)
		}
		return nil
	}
}

// Create, plan again, update, import and destroy a class through GKE's GetCluster and a Google
// token: the class in the cluster is what the plan showed, carries this resource's owner id, and
// is gone after destroy.
func TestAccGKEComputeClass_basic(t *testing.T) {
	w := newWorld(t)
	const name = "cc-basic"
	addr := "gpufleet_gke_compute_class." + name
	config := func(ladder string) string { return w.providerConfig("") + classConfig(name, l4Body(ladder, "")) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             w.checkGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: config(publishedLadder),
				Check: func(s *terraform.State) error {
					u := w.live(t, name)
					if u == nil {
						return fmt.Errorf("no ComputeClass %s in the cluster", name)
					}
					if got := rungs(t, u); got != "reservation:AnyBestEffort,on_demand,flex_start,spot" {
						return fmt.Errorf("rungs %s", got)
					}
					if owner := u.GetLabels()[kube.LabelOwner]; owner == "" || owner != acctest.StateAttribute(s, addr, "owner_id") {
						return fmt.Errorf("owner label %q, owner_id %q", owner, acctest.StateAttribute(s, addr, "owner_id"))
					}
					if g := spec(t, u, "priorities").([]any)[0].(map[string]any)["gpu"].(map[string]any); g["type"] != "nvidia-l4" || g["count"] != int64(2) {
						return fmt.Errorf("gpu %v", g)
					}
					if w.oauth.grants == 0 {
						return fmt.Errorf("no Google token was asked for")
					}
					return nil
				},
				ConfigStateChecks: stateChecks(
					stateIs(addr, testProject+"/"+testLocation+"/"+testCluster+"/"+name, "id"),
					stateIs(addr, name, "pod_spec", "node_selector", "cloud.google.com/compute-class"),
				),
			},
			{Config: config(publishedLadder), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{Config: config(`["on_demand", "flex_start"]`), ExpectError: acctest.ExpectErrorParts(`Reservation without a rung`)},
			{
				Config: strings.Replace(config(`["on_demand", "flex_start"]`), "reservation {\n      type = \"any\"\n    }", "", 1),
				Check: func(*terraform.State) error {
					if got := rungs(t, w.live(t, name)); got != "on_demand,flex_start" {
						return fmt.Errorf("rungs after update %s", got)
					}
					return nil
				},
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateId:     testProject + "/" + testLocation + "/" + testCluster + "/" + name,
				ImportStateVerify: true,
				// What a ComputeClass does not carry comes from the configuration at the next plan.
				ImportStateVerifyIgnore: []string{"scaling", "timeouts", "estimated_hourly_cost_usd", "estimated_monthly_cost_usd", "policy_document", "policy_findings"},
			},
		},
	})
}

// A plan sends no request to the cluster: not for a new class, not for a class whose plan fails
// (a CRD error, a ladder error, a policy deny), counted in the API server's audit log.
func TestAccGKEComputeClass_planSendsNoRequests(t *testing.T) {
	w := newWorld(t)
	before := w.requests(t)
	steps := []resource.TestStep{{
		Config:             w.providerConfig("") + classConfig("cc-plan-only", l4Body(publishedLadder, "")),
		PlanOnly:           true,
		ExpectNonEmptyPlan: true,
	}}
	for _, bad := range []struct{ body, err string }{
		{l4Body(publishedLadder, `  taints = [{ key = "team", value = "ml", effect = "NO_SCHEDULE" }]`), `ComputeClass refused by its CRD`},
		{strings.Replace(l4Body(publishedLadder, ""), `"g2-standard-24"`, `"a3-highgpu-1g"`, 1), `Rung the machine type is not sold as`},
		{strings.Replace(l4Body(publishedLadder, ""), `"staging"`, `"production"`, 1), `GF-COST-001`},
	} {
		steps = append(steps, resource.TestStep{Config: w.providerConfig("") + classConfig("cc-bad", bad.body), ExpectError: acctest.ExpectErrorParts(bad.err)})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: acctest.ProviderFactories, Steps: steps})
	if n := w.requests(t) - before; n != 0 {
		t.Fatalf("plans sent %d requests to the API server, want 0", n)
	}
}

// A field changed by hand in the cluster shows in manifests after a refresh, and the next apply
// puts it back; a class deleted by hand is created again.
func TestAccGKEComputeClass_driftAndDisappears(t *testing.T) {
	w := newWorld(t)
	const name = "cc-drift"
	config := w.providerConfig("") + classConfig(name, l4Body(publishedLadder, ""))
	edit := func() {
		u := w.live(t, name)
		_ = unstructured.SetNestedField(u.Object, "ScaleUpAnyway", "spec", "whenUnsatisfiable")
		if _, err := w.admin.Resource(computeClassGVR).Update(context.Background(), u, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
			t.Fatal(err)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             w.checkGone(t, name),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: edit,
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpufleet_gke_compute_class."+name, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					if got := spec(t, w.live(t, name), "whenUnsatisfiable"); got != "DoNotScaleUp" {
						return fmt.Errorf("whenUnsatisfiable %v after apply", got)
					}
					return nil
				},
			},
			{
				PreConfig: func() {
					if err := w.admin.Resource(computeClassGVR).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpufleet_gke_compute_class."+name, plancheck.ResourceActionCreate),
				}},
				Check: func(*terraform.State) error {
					if w.live(t, name) == nil {
						return fmt.Errorf("not created again")
					}
					return nil
				},
			},
		},
	})
}

// A class whose GKE cluster was deleted outside Terraform is gone with it: refresh removes it from
// state with a warning (the next plan creates it again, and the apply says the cluster is not
// found) rather than fail on GetCluster for ever, which blocked every plan and destroy.
func TestAccGKEComputeClass_clusterDeleted(t *testing.T) {
	w := newWorld(t)
	const name = "cc-lost"
	config := w.providerConfig("") + classConfig(name, l4Body(publishedLadder, ""))
	t.Cleanup(func() { // cloudsim's deletion does not reach the API server, which outlives the test
		_ = w.admin.Resource(computeClassGVR).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					if err := w.sim.DeleteGKECluster(testProject, testLocation, testCluster); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpufleet_gke_compute_class."+name, plancheck.ResourceActionCreate),
				}},
				ExpectError: acctest.ExpectErrorParts("GKE cluster projects/acme-ml/locations/us-central1/clusters/ml: cluster not found"),
			},
		},
	})
}

// A ComputeClass of the same name that is not this resource's is never adopted, changed or
// deleted: the apply fails before any write, naming it.
func TestAccGKEComputeClass_foreignObject(t *testing.T) {
	w := newWorld(t)
	const name = "cc-foreign"
	foreign := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"priorities": []any{map[string]any{"machineFamily": "n4"}}, "whenUnsatisfiable": "ScaleUpAnyway"},
	}}
	if _, err := w.admin.Resource(computeClassGVR).Create(context.Background(), foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = w.admin.Resource(computeClassGVR).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      w.providerConfig("") + classConfig(name, l4Body(publishedLadder, "")),
			ExpectError: acctest.ExpectErrorParts("is not this resource's", "no "+kube.LabelOwner+" label", "gpufleet has written nothing"),
		}},
	})
	u := w.live(t, name)
	if u == nil || spec(t, u, "whenUnsatisfiable") != "ScaleUpAnyway" || len(u.GetLabels()) != 0 {
		t.Fatalf("the foreign class changed: %v", u)
	}

	// A class this resource made, replaced by hand with another of the name: this resource's class
	// is gone, and destroying the resource leaves the other alone.
	const replaced = "cc-replaced"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: w.providerConfig("") + classConfig(replaced, l4Body(publishedLadder, ""))},
			{
				PreConfig: func() {
					if err := w.admin.Resource(computeClassGVR).Delete(context.Background(), replaced, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
					other := foreign.DeepCopy()
					other.SetName(replaced)
					if _, err := w.admin.Resource(computeClassGVR).Create(context.Background(), other, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config:  w.providerConfig("") + classConfig(replaced, l4Body(publishedLadder, "")),
				Destroy: true,
			},
		},
	})
	t.Cleanup(func() {
		_ = w.admin.Resource(computeClassGVR).Delete(context.Background(), replaced, metav1.DeleteOptions{})
	})
	if u := w.live(t, replaced); u == nil || len(u.GetLabels()) != 0 {
		t.Fatalf("destroying the resource touched the class that replaced its own: %v", u)
	}
}

// Bad input fails the plan at the attribute, before any call to GKE or the cluster.
func TestAccGKEComputeClass_badInput(t *testing.T) {
	w := newWorld(t)
	before := w.requests(t)
	for name, tc := range map[string]struct{ body, err string }{
		"reserved name": {l4Body(publishedLadder, ""), "Reserved ComputeClass name"},
		"driver the class cannot carry": {l4Body(publishedLadder, "  gpu {\n    driver_version = \"INSTALLATION_DISABLED\"\n  }\n"),
			"Driver version a ComputeClass cannot carry"},
		"zone of another region":  {l4Body(publishedLadder, "  zones = [\"europe-west4-a\"]\n"), "Zone outside the cluster's region"},
		"rung twice":              {l4Body(`["on_demand", "spot", "on_demand"]`, ""), "Rung listed twice"},
		"MIG on a GPU without it": {l4Body(publishedLadder, "  gpu {\n    mig {\n      profile = \"1g.5gb\"\n    }\n  }\n"), "MIG not supported"},
	} {
		className := "cc-bad-input"
		if name == "reserved name" {
			className = "default"
		}
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps:                    []resource.TestStep{{Config: w.providerConfig("") + classConfig(className, tc.body), ExpectError: acctest.ExpectErrorParts(tc.err)}},
			})
		})
	}
	if n := w.requests(t) - before; n != 0 {
		t.Fatalf("bad input sent %d requests to the API server", n)
	}
	if n := len(w.sim.Requests()); n != 0 {
		t.Fatalf("bad input sent %d requests to GKE", n)
	}
}

// A class being deleted (a destroy that timed out while a finalizer held it) is not taken for
// live: refresh removes it from state, and the apply waits for it to go and creates it anew.
// Before, refresh kept it and the plan was empty while it went.
func TestAccGKEComputeClass_terminating(t *testing.T) {
	w := newWorld(t)
	const name = "cc-term"
	config := w.providerConfig("") + classConfig(name, l4Body(publishedLadder, ""))
	classes := w.admin.Resource(computeClassGVR)
	var oldUID string
	var once sync.Once
	released := make(chan error, 1)
	// release lets the class go, 2 s after the plan (the apply has to wait for it), or 60 s after
	// it started terminating (so that a failing test's destroy does not wait until its timeout).
	release := func(after time.Duration) {
		time.Sleep(after)
		once.Do(func() {
			u, err := classes.Get(context.Background(), name, metav1.GetOptions{})
			if err == nil {
				u.SetFinalizers(nil)
				_, err = classes.Update(context.Background(), u, metav1.UpdateOptions{})
			}
			released <- err
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             w.checkGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(*terraform.State) error {
					u := w.live(t, name)
					oldUID = string(u.GetUID())
					u.SetFinalizers([]string{"example.com/hold"})
					if _, err := classes.Update(context.Background(), u, metav1.UpdateOptions{}); err != nil {
						return err
					}
					go release(time.Minute)
					return classes.Delete(context.Background(), name, metav1.DeleteOptions{})
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpufleet_gke_compute_class."+name, plancheck.ResourceActionCreate),
					acctest.AfterPlan(func() { go release(2 * time.Second) }),
				}},
				Check: func(*terraform.State) error {
					if err := <-released; err != nil {
						return err
					}
					u := w.live(t, name)
					if u == nil || kube.Terminating(u) || string(u.GetUID()) == oldUID {
						return fmt.Errorf("%s is not a new class: %v", name, u)
					}
					return nil
				},
			},
		},
	})
}
