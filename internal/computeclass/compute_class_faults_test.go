package computeclass_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/kubetest"
)

// The fault matrix of the ComputeClass: its create, an update (a rung dropped from the ladder) and
// its destroy, each refused by the API server (nothing done) or done with the answer lost; then: a
// class there before an update is not deleted or created again (UID); the state the faulty apply
// left is what the cluster holds (refresh finds no drift, and state holds a class exactly when the
// cluster does); the next plan is the repair the row names; an apply without faults converges and
// the destroy leaves nothing.
func TestAccGKEComputeClass_faultMatrix(t *testing.T) {
	w := newWorld(t)
	w.srv.AddToken("gpufleet-ci-faults-token", "ci")
	rows := classFaultRows()
	for i, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			name := fmt.Sprintf("cc-fault-%d", i)
			addr := "gpufleet_gke_compute_class." + name
			var armed, fired atomic.Bool
			proxy := w.srv.FaultyProxy(t, func(req *http.Request) kubetest.Fault {
				if armed.Load() && req.Method == r.method && req.URL.Path == "/apis/cloud.google.com/v1/computeclasses/"+name && fired.CompareAndSwap(false, true) {
					return r.fault
				}
				return kubetest.Pass
			})
			config := func(body string) string {
				if body == "" {
					return w.providerConfig("")
				}
				return w.providerConfig("") + classConfig(name, body+proxyBlock(proxy, "gpufleet-ci-faults-token"))
			}
			uid := ""
			var steps []resource.TestStep
			if r.before != "" {
				steps = append(steps, resource.TestStep{Config: config(r.before)})
			}
			faulty := resource.TestStep{
				PreConfig: func() {
					if u := w.live(t, name); u != nil {
						uid = string(u.GetUID())
					}
					armed.Store(true)
				},
				Config: config(r.after),
			}
			if r.after == "" {
				faulty.Config, faulty.Destroy = config(r.before), true
			}
			if r.err != nil {
				faulty.ExpectError = acctest.ExpectErrorParts(r.err...)
			}
			checks := []plancheck.PlanCheck{classStateIsCluster{w: w, t: t, addr: addr, name: name}}
			if r.after == "" && r.repair == plancheck.ResourceActionNoop {
				checks = append(checks, plancheck.ExpectEmptyPlan())
			} else {
				checks = append(checks, plancheck.ExpectResourceAction(addr, r.repair))
			}
			repair := resource.TestStep{
				PreConfig: func() {
					armed.Store(false)
					if !fired.Load() {
						t.Fatalf("no %s of the class met the fault: the row proves nothing", r.method)
					}
					if u := w.live(t, name); r.after != "" && uid != "" && (u == nil || string(u.GetUID()) != uid) {
						t.Fatalf("the class, there before the faulty update, was deleted or created again")
					}
				},
				Config:           config(r.after),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: checks},
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy:             w.checkGone(t, name),
				Steps:                    append(steps, faulty, repair),
			})
		})
	}
}

// classFaultRow is one failure of the ComputeClass's fault matrix.
type classFaultRow struct {
	name          string
	before, after string // after "": the destroy
	method        string
	fault         kubetest.Fault
	err           []string // nil: the fault is absorbed
	repair        plancheck.ResourceActionType
}

func classFaultRows() []classFaultRow {
	ladder, fewer := l4Body(publishedLadder, ""), l4Body(`["reservation", "on_demand", "spot"]`, "")
	return []classFaultRow{
		{"create/refused", "", ladder, http.MethodPatch, kubetest.Refuse, []string{"Applying the ComputeClass", "Internal error occurred"}, plancheck.ResourceActionCreate},
		{"create/lost", "", ladder, http.MethodPatch, kubetest.Lose, []string{"Applying the ComputeClass", "answer was lost"}, plancheck.ResourceActionCreate},
		{"update/refused", ladder, fewer, http.MethodPatch, kubetest.Refuse, []string{"Applying the ComputeClass", "Internal error occurred"}, plancheck.ResourceActionUpdate},
		{"update/lost", ladder, fewer, http.MethodPatch, kubetest.Lose, []string{"Applying the ComputeClass", "answer was lost"}, plancheck.ResourceActionUpdate},
		{"destroy/refused", ladder, "", http.MethodDelete, kubetest.Refuse, []string{"Deleting the ComputeClass", "Internal error occurred"}, plancheck.ResourceActionDestroy},
		{"destroy/lost", ladder, "", http.MethodDelete, kubetest.Lose, nil, plancheck.ResourceActionNoop},
	}
}

// The README quotes how many rows the matrix has.
func TestClassFaultMatrix_rowsTheREADMEQuotes(t *testing.T) {
	acctest.ExpectREADMESays(t, fmt.Sprintf("`TestAccGKEComputeClass_faultMatrix` (`make test`, %d rows", len(classFaultRows())))
}

// classStateIsCluster checks a plan made after a faulty apply: the refresh found the state that
// apply left to be what the cluster holds (no drift), and state holds the class exactly when the
// cluster does.
type classStateIsCluster struct {
	w          *world
	t          *testing.T
	addr, name string
}

func (c classStateIsCluster) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, d := range req.Plan.ResourceDrift {
		if d.Address != c.addr {
			continue
		}
		resp.Error = fmt.Errorf("the state the faulty apply left is not the cluster's: refresh changed %v (%v)", acctest.ChangedAttributes(d.Change.Before, d.Change.After), d.Change.Actions)
		return
	}
	inState := false
	if req.Plan.PriorState != nil && req.Plan.PriorState.Values != nil {
		for _, r := range req.Plan.PriorState.Values.RootModule.Resources {
			inState = inState || r.Address == c.addr
		}
	}
	if live := c.w.live(c.t, c.name) != nil; live != inState {
		resp.Error = fmt.Errorf("the cluster holds the class: %v; state: %v", live, inState)
	}
}
