package karpenter_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/kubetest"
)

// faultRow is one failure of the fault matrix: a pool applied as before (none for a create), then
// the apply of after (the destroy when after is ""), whose request method to the object named
// object (its kind and its name's suffix after the pool's name) meets fault.
type faultRow struct {
	name          string
	before, after string
	method        string
	object        poolObject
	fault         kubetest.Fault
	// err are parts of the faulty apply's error; nil when the apply absorbs the fault and succeeds.
	err []string
	// repair is what the next plan does.
	repair plancheck.ResourceActionType
	// meanwhile, when set, is an object someone else deletes while the faulty apply runs (as its
	// node class's write passes, after it checked the objects it writes and deletes).
	meanwhile *poolObject
}

// poolObject is one of a pool's objects: its kind and its name after the pool's name.
type poolObject struct {
	gvk    schema.GroupVersionKind
	suffix string
}

var (
	fmNodeClass = poolObject{ec2NodeClassGVK, ""}
	fmOnDemand  = poolObject{nodePoolGVK, "-od"}
	fmSpot      = poolObject{nodePoolGVK, "-spot"}
	fmOverlay   = poolObject{nodeOverlayGVK, ""}
)

// path is the object's path on the API server (cluster-scoped).
func (o poolObject) path(pool string) string {
	plural := strings.ToLower(o.gvk.Kind) + "s"
	if strings.HasSuffix(plural, "ss") {
		plural = strings.TrimSuffix(plural, "s") + "es" // ec2nodeclasses
	}
	return fmt.Sprintf("/apis/%s/%s/%s/%s%s", o.gvk.Group, o.gvk.Version, plural, pool, o.suffix)
}

func (o poolObject) String() string { return o.gvk.Kind + " <pool>" + o.suffix }

// Bodies: L4 notebooks time-sliced four ways (the node class, a NodeOverlay) on an on-demand and a
// spot NodePool, and the plain pool of one on-demand NodePool.
var (
	fmShared = strings.Replace(inference, "16", "4", 1) + scaling(0, 4) +
		"  gpu {\n    sharing {\n      strategy = \"time-slicing\"\n      replicas = 4\n    }\n  }\n"
	fmMix   = fmShared + acctest.Capacity(50, 0)
	fmPlain = inference + scaling(0, 4) + acctest.Capacity(0, 0)
)

// fmObjects are the objects a body gives the pool.
func fmObjects(body string) []poolObject {
	switch body {
	case fmMix:
		return []poolObject{fmNodeClass, fmOnDemand, fmSpot, fmOverlay}
	case fmPlain:
		return []poolObject{fmNodeClass, fmOnDemand}
	}
	return nil
}

func faultMatrixRows() []faultRow {
	var rows []faultRow
	add := func(transition, before, after, method string, objects []poolObject, outcome func(o poolObject, f kubetest.Fault) ([]string, plancheck.ResourceActionType)) {
		for _, o := range objects {
			for _, f := range []kubetest.Fault{kubetest.Refuse, kubetest.Lose} {
				err, repair := outcome(o, f)
				rows = append(rows, faultRow{
					name:   fmt.Sprintf("%s/%s/%s%s/%s", transition, method, strings.ToLower(o.gvk.Kind), o.suffix, map[kubetest.Fault]string{kubetest.Refuse: "refused", kubetest.Lose: "lost"}[f]),
					before: before, after: after, method: method, object: o, fault: f, err: err, repair: repair,
				})
			}
		}
	}
	failed := func(repair plancheck.ResourceActionType, doing string) func(poolObject, kubetest.Fault) ([]string, plancheck.ResourceActionType) {
		return func(o poolObject, f kubetest.Fault) ([]string, plancheck.ResourceActionType) {
			why := map[kubetest.Fault]string{kubetest.Refuse: "Internal error occurred", kubetest.Lose: "answer was lost"}[f]
			return []string{doing, o.gvk.Kind, why}, repair
		}
	}
	// A deletion whose answer is lost was done: the apply looks, and goes on.
	deleted := func(repair plancheck.ResourceActionType, doing string) func(poolObject, kubetest.Fault) ([]string, plancheck.ResourceActionType) {
		return func(o poolObject, f kubetest.Fault) ([]string, plancheck.ResourceActionType) {
			if f == kubetest.Lose {
				return nil, plancheck.ResourceActionNoop
			}
			return failed(repair, doing)(o, f)
		}
	}
	add("create", "", fmMix, http.MethodPatch, fmObjects(fmMix), failed(plancheck.ResourceActionCreate, "creating"))
	add("grow", fmPlain, fmMix, http.MethodPatch, fmObjects(fmMix), failed(plancheck.ResourceActionUpdate, "updating"))
	add("shrink", fmMix, fmPlain, http.MethodPatch, fmObjects(fmPlain), failed(plancheck.ResourceActionUpdate, "updating"))
	add("shrink", fmMix, fmPlain, http.MethodDelete, []poolObject{fmSpot, fmOverlay}, deleted(plancheck.ResourceActionUpdate, "updating"))
	add("destroy", fmMix, "", http.MethodDelete, []poolObject{fmOnDemand, fmSpot, fmOverlay, fmNodeClass}, deleted(plancheck.ResourceActionDestroy, "deleting"))
	// An update that fails after an object it was to delete went meanwhile: state drops it.
	rows = append(rows, faultRow{
		name: "shrink/PATCH/nodepool-od/refused/overlay-gone-meanwhile", before: fmMix, after: fmPlain, method: http.MethodPatch, object: fmOnDemand,
		fault: kubetest.Refuse, err: []string{"updating", "NodePool", "Internal error occurred"}, repair: plancheck.ResourceActionUpdate,
		meanwhile: &fmOverlay,
	})
	return rows
}

// The fault matrix of the Karpenter pool: every write of a create, an update that adds a spot
// NodePool and a NodeOverlay, one that removes them, and the destroy, refused by the API server
// (nothing done) or done with its answer lost; then: no object that held nodes before the faulty
// apply and is still wanted is deleted or created again (UIDs); the state the faulty apply left is
// what the cluster holds (refresh finds no drift, and state lists exactly the pool's objects in the
// cluster); the next plan is the repair the row names; an apply without faults converges to an
// empty plan, and the destroy leaves nothing.
func TestAccKarpenterNodePool_faultMatrix(t *testing.T) {
	rows := faultMatrixRows()
	t.Logf("%d rows", len(rows))
	e := newEnv(t)
	e.srv.AddToken("token-through-the-gateway", "ci-bot")
	for i, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			name := fmt.Sprintf("fm%02d", i)
			addr := "gpufleet_karpenter_node_pool." + name
			var armed, fired atomic.Bool
			path := row.object.path(name)
			var gone atomic.Bool
			proxy := e.srv.FaultyProxy(t, func(r *http.Request) kubetest.Fault {
				if m := row.meanwhile; m != nil && armed.Load() && r.Method == http.MethodPatch && r.URL.Path == fmNodeClass.path(name) && gone.CompareAndSwap(false, true) {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					if err := e.admin.Delete(ctx, m.gvk, name+m.suffix, "", 100*time.Millisecond); err != nil {
						t.Errorf("deleting %s meanwhile: %v", m, err)
					}
				}
				if armed.Load() && r.Method == row.method && r.URL.Path == path && fired.CompareAndSwap(false, true) {
					return row.fault
				}
				return kubetest.Pass
			})
			block := tokenBlock(proxy.URL, proxy.CAPEM, "token-through-the-gateway")
			config := func(body string) string {
				if body == "" {
					return e.provider("")
				}
				return e.provider("") + poolHCL(name, `["g6.xlarge"]`, body+block)
			}
			uids := map[string]string{} // the pool's objects before the faulty apply
			var steps []resource.TestStep
			if row.before != "" {
				steps = append(steps, resource.TestStep{Config: config(row.before)})
			}
			faulty := resource.TestStep{
				PreConfig: func() {
					for _, o := range e.poolObjects(t, name) {
						uids[o.key] = o.uid
					}
					armed.Store(true)
				},
				Config: config(row.after),
			}
			if row.after == "" {
				faulty.Config = config(row.before)
				faulty.Destroy = true
			}
			if row.err != nil {
				faulty.ExpectError = acctest.ExpectErrorParts(row.err...)
			}
			repair := resource.TestStep{
				PreConfig: func() {
					armed.Store(false)
					if !fired.Load() {
						t.Fatalf("no %s request to %s met the fault: the row proves nothing", row.method, path)
					}
					now := map[string]string{}
					for _, o := range e.poolObjects(t, name) {
						now[o.key] = o.uid
					}
					for _, o := range fmObjects(row.after) {
						key := o.gvk.Kind + "/" + name + o.suffix
						if uid, ok := uids[key]; ok && now[key] != uid {
							t.Fatalf("%s, there before the faulty apply and still wanted, was deleted or created again (uid %q, was %q)", key, now[key], uid)
						}
					}
				},
				Config: config(row.after),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					stateIsCluster{e: e, t: t, addr: addr, name: name},
					plancheck.ExpectResourceAction(addr, row.repair),
				}},
			}
			if row.after == "" && row.repair == plancheck.ResourceActionNoop {
				// destroyed after all: nothing of the pool is left to plan
				repair.ConfigPlanChecks.PreApply = []plancheck.PlanCheck{stateIsCluster{e: e, t: t, addr: addr, name: name}, plancheck.ExpectEmptyPlan()}
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy:             e.gone(name),
				Steps:                    append(steps, faulty, repair),
			})
		})
	}
}

// liveObject is one of a pool's objects in the cluster.
type liveObject struct{ key, uid, owner string }

// poolObjects are the objects in the cluster labelled as the pool's, whoever owns them.
func (e *env) poolObjects(t *testing.T, name string) []liveObject {
	t.Helper()
	var out []liveObject
	for _, gvk := range []schema.GroupVersionKind{ec2NodeClassGVK, nodePoolGVK, nodeOverlayGVK} {
		items, err := e.admin.List(context.Background(), gvk, map[string]string{render.LabelPool: name})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range items {
			out = append(out, liveObject{key: gvk.Kind + "/" + u.GetName(), uid: string(u.GetUID()), owner: u.GetLabels()[kube.LabelOwner]})
		}
	}
	return out
}

// stateIsCluster checks a plan made after a faulty apply: the refresh found the state that apply
// left to be what the cluster holds (no drift), and the objects state lists are the objects in the
// cluster labelled as the pool's, each owned by the pool (its owner id).
type stateIsCluster struct {
	e          *env
	t          *testing.T
	addr, name string
}

func (c stateIsCluster) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	var errs []string
	for _, d := range req.Plan.ResourceDrift {
		if d.Address == c.addr {
			before, _ := d.Change.Before.(map[string]any)
			after, _ := d.Change.After.(map[string]any)
			errs = append(errs, fmt.Sprintf("the state the faulty apply left is not the cluster's: refresh changed %v (objects %v, now %v)", acctest.ChangedAttributes(before, after), before["objects"], after["objects"]))
		}
	}
	var inState []string
	owner := ""
	if req.Plan.PriorState != nil && req.Plan.PriorState.Values != nil {
		for _, r := range req.Plan.PriorState.Values.RootModule.Resources {
			if r.Address != c.addr {
				continue
			}
			owner, _ = r.AttributeValues["owner_id"].(string)
			objs, _ := r.AttributeValues["objects"].([]any)
			for _, o := range objs {
				m, _ := o.(map[string]any)
				inState = append(inState, fmt.Sprintf("%v/%v", m["kind"], m["name"]))
			}
		}
	}
	var live []string
	for _, o := range c.e.poolObjects(c.t, c.name) {
		live = append(live, o.key)
		if o.owner != owner {
			errs = append(errs, fmt.Sprintf("%s is owned by %q, state's pool by %q", o.key, o.owner, owner))
		}
	}
	slices.Sort(inState)
	slices.Sort(live)
	if !slices.Equal(inState, live) {
		errs = append(errs, fmt.Sprintf("state lists %v, the cluster holds %v", inState, live))
	}
	if len(errs) > 0 {
		resp.Error = fmt.Errorf("%s", strings.Join(errs, "; "))
	}
}

// The README quotes how many rows the matrix has.
func TestFaultMatrix_rowsTheREADMEQuotes(t *testing.T) {
	acctest.ExpectREADMESays(t, fmt.Sprintf("`TestAccKarpenterNodePool_faultMatrix` (`make test`, %d rows", len(faultMatrixRows())))
}

// A destroy that fails after the last of the pool's objects went (here: the node class deleted by
// someone else while gpufleet's read of it failed) is done: nothing of the pool is left, the error
// becomes a warning and the resource leaves state. (Terraform keeps the prior state of a failed
// destroy that returns none, so the error would have left every object in state.)
func TestAccKarpenterNodePool_destroyFailsWithNothingLeft(t *testing.T) {
	e := newEnv(t)
	e.srv.AddToken("token-through-the-gateway", "ci-bot")
	const name = "fm-nothing-left"
	var armed, fired atomic.Bool
	path := fmNodeClass.path(name)
	proxy := e.srv.FaultyProxy(t, func(r *http.Request) kubetest.Fault {
		if r.Method == http.MethodDelete && r.URL.Path == fmOnDemand.path(name) {
			armed.Store(true) // the destroy's NodePools go first; its read of the node class follows
		}
		if armed.Load() && r.Method == http.MethodGet && r.URL.Path == path && fired.CompareAndSwap(false, true) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := e.admin.Delete(ctx, ec2NodeClassGVK, name, "", 100*time.Millisecond); err != nil {
				t.Errorf("deleting the node class meanwhile: %v", err)
			}
			return kubetest.Refuse
		}
		return kubetest.Pass
	})
	block := tokenBlock(proxy.URL, proxy.CAPEM, "token-through-the-gateway")
	cfg := e.provider("") + poolHCL(name, `["g6.xlarge"]`, fmPlain+block)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(s *terraform.State) error {
			if !fired.Load() {
				return fmt.Errorf("the node class was never read during the destroy: the test proves nothing")
			}
			return e.gone(name)(s)
		},
		Steps: []resource.TestStep{{Config: cfg}},
	})
}
