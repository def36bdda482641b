package eks_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/testproxy"
)

// What a failed apply leaves is recorded: the placement group a create made without its answer, or
// could not delete again; a launch template EC2 made with warnings that could not be deleted again;
// the launch template an update left when the update's read-back fails. Each is deleted by the next
// apply or by destroy, and none is orphaned.

// efaClusterPG is the network block of a pool with a cluster placement group gpufleet creates.
const efaClusterPG = `    efa                = true
    placement_strategy = "cluster"`

// CreatePlacementGroup accepted, its answer lost to the create timeout: the create finds the group
// by its owner tag, warns, and deletes it again when nothing else of the pool comes to exist; the
// next apply creates the pool. Before, the create failed with the group in place, carrying an owner
// id no state held, and the next apply failed on it as another's.
func TestAccEKSNodePool_placementGroupAnswerLost(t *testing.T) {
	sim := startSim(t)
	var diags acctest.ApplyDiagnostics
	pool := func(extra string) string {
		return providerConfig(sim, "") + strings.TrimSuffix(efaPool(efaClusterPG), "}\n") + extra + "}\n"
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				PreConfig:   acctest.Inject(t, sim, cloudsim.Fault{Service: "ec2", Operation: "CreatePlacementGroup", Kind: cloudsim.Latency, Latency: lostAnswerLatency, Count: 1}),
				Config:      pool(lostAnswerTimeouts("create")),
				ExpectError: acctest.ExpectErrorParts("deadline exceeded"),
			},
			{
				PreConfig: func() {
					if reqs := sim.RequestsFor("ec2", "CreatePlacementGroup"); len(reqs) != 1 || reqs[0].Error != "" {
						t.Fatalf("CreatePlacementGroup calls %+v: want one, served after the timeout ended it, or the test proves nothing", reqs)
					}
					if err := diags.ExpectWarning(ownedPG, "created, its answer lost", "deadline exceeded", "gpufleet:owner"); err != nil {
						t.Error(err)
					}
					if tags := placementGroupTags(sim, ownedPG); tags != nil {
						t.Errorf("placement group %s left after the failed create, in no state: %v", ownedPG, tags)
					}
					if n := requestCount(sim, "CreateLaunchTemplate") + requestCount(sim, "CreateNodegroup"); n != 0 {
						t.Errorf("%d CreateLaunchTemplate and CreateNodegroup calls after the create timed out", n)
					}
				},
				Config: pool(""),
				Check:  wantEFA(t, sim, od, 4, ownedPG),
			},
		},
	})
}

// dropFirstAnswer is an EC2 endpoint in front of sim's that serves the first call of op and
// answers it with 500 InternalError: EC2 made what the call asked for, and the client cannot tell.
// The SDK retries the call (a 5xx answer is retryable, aws/retry DefaultRetryables). dropped counts
// the answers it dropped.
func dropFirstAnswer(t *testing.T, sim *cloudsim.Sim, op string, dropped *atomic.Int32) string {
	t.Helper()
	srv := testproxy.Start(t, sim.Endpoints().EC2, nil, false, func(w http.ResponseWriter, r *http.Request, forward http.Handler) bool {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
			return false
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !strings.Contains(string(body), "Action="+op+"&") || !dropped.CompareAndSwap(0, 1) {
			return false
		}
		rec := httptest.NewRecorder()
		forward.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			t.Errorf("%s through the proxy: %d %s", op, rec.Code, rec.Body.String())
		}
		w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?>
<Response><Errors><Error><Code>InternalError</Code><Message>An internal error has occurred.</Message></Error></Errors><RequestID>9f1c2a4e-0b6d-4c1e-8a53-5d2f7e4b1c90</RequestID></Response>`)
		return true
	})
	return srv.URL
}

// CreatePlacementGroup served and answered 500: the SDK retries, and the retry meets the group the
// first attempt made (InvalidPlacementGroup.Duplicate), with the pool's owner tag. It is the
// pool's, made by this create: when the create then fails with nothing else of the pool (the node
// group refused), it is deleted again, and the next apply creates the pool. Before, it counted as
// not created, stayed, and the next apply failed on it as another's.
func TestAccEKSNodePool_placementGroupRetryMeetsItsOwn(t *testing.T) {
	sim := startSim(t)
	var dropped atomic.Int32
	proxied := strings.Replace(providerConfig(sim, ""), sim.Endpoints().EC2, dropFirstAnswer(t, sim, "CreatePlacementGroup", &dropped), 1)
	cfg := proxied + efaPool(efaClusterPG)
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			PreConfig:   acctest.Inject(t, sim, refused("eks", "CreateNodegroup", od)),
			Config:      cfg,
			ExpectError: acctest.ExpectErrorParts("creating EKS node group", od, "AccessDeniedException"),
		},
		resource.TestStep{
			PreConfig: func() {
				reqs := sim.RequestsFor("ec2", "CreatePlacementGroup")
				if dropped.Load() != 1 || len(reqs) != 2 || reqs[0].Error != "" || reqs[1].Error != "InvalidPlacementGroup.Duplicate" {
					t.Fatalf("dropped %d answers; CreatePlacementGroup calls %+v: want the first served, its answer dropped, and the SDK's retry answered Duplicate, or the test proves nothing", dropped.Load(), reqs)
				}
				if tags := placementGroupTags(sim, ownedPG); tags != nil {
					t.Errorf("placement group %s left after the failed create, in no state: %v", ownedPG, tags)
				}
			},
			Config: cfg,
			Check:  wantEFA(t, sim, od, 4, ownedPG),
		},
	))
}

// CreatePlacementGroup served and answered 500, and the SDK's retry throttled until its attempts ran
// out (aws.max_retries = 2 here; throttling is the usual last answer of a busy account): the last
// answer is a refusal, but an earlier attempt may have made the group, so it is looked for by its
// owner tag and counted as made, and the create goes on with it. Before, only the last answer
// counted: the create failed on the throttling with no state, the group stayed with an owner id no
// state held, and the next apply failed on it as another's.
func TestAccEKSNodePool_placementGroupLastRetryThrottled(t *testing.T) {
	sim := startSim(t)
	var dropped atomic.Int32
	var throttled atomic.Int32
	// The retry, after the dropped answer, is throttled before it reaches EC2.
	ec2 := testproxy.Start(t, dropFirstAnswer(t, sim, "CreatePlacementGroup", &dropped), nil, false, func(w http.ResponseWriter, r *http.Request, _ http.Handler) bool {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
			return false
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !strings.Contains(string(body), "Action=CreatePlacementGroup&") || dropped.Load() == 0 || !throttled.CompareAndSwap(0, 1) {
			return false
		}
		w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?>
<Response><Errors><Error><Code>RequestLimitExceeded</Code><Message>Request limit exceeded.</Message></Error></Errors><RequestID>4b7e1d2c-9a3f-4e5b-8c6d-1f2a3b4c5d6e</RequestID></Response>`)
		return true
	}).URL
	proxied := strings.Replace(providerConfig(sim, ""), sim.Endpoints().EC2, ec2, 1)
	proxied = strings.Replace(proxied, "skip_credentials_validation = true", "skip_credentials_validation = true\n    max_retries                 = 2", 1)
	resource.Test(t, poolTest(t, sim, resource.TestStep{
		Config: proxied + efaPool(efaClusterPG),
		Check: resource.ComposeTestCheckFunc(wantEFA(t, sim, od, 4, ownedPG), func(*terraform.State) error {
			if reqs := sim.RequestsFor("ec2", "CreatePlacementGroup"); dropped.Load() != 1 || throttled.Load() != 1 || len(reqs) != 1 || reqs[0].Error != "" {
				return fmt.Errorf("dropped %d answers, throttled %d calls; CreatePlacementGroup calls %+v: want the first served, its answer dropped, and the retry throttled, or the test proves nothing", dropped.Load(), throttled.Load(), reqs)
			}
			return nil
		}),
	}))
}

// A create that fails with nothing of the pool but its placement group, which it then cannot delete
// (DeletePlacementGroup refused): state records the pool with the group alone, tainted; the next
// apply replaces it, deleting the group first, and creates the pool. Before, the group was orphaned
// (no state), and the next apply failed on it as another's.
func TestAccEKSNodePool_placementGroupCleanupFailsOnCreate(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + efaPool(efaClusterPG)
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			PreConfig: func() {
				for _, f := range []cloudsim.Fault{refused("eks", "CreateNodegroup", od), refused("ec2", "DeletePlacementGroup", "")} {
					if _, err := sim.Inject(f); err != nil {
						t.Fatal(err)
					}
				}
			},
			Config:      cfg,
			ExpectError: acctest.ExpectErrorParts("deleting placement group of EKS node pool", "UnauthorizedOperation"),
		},
		resource.TestStep{
			PreConfig: func() {
				if tags := placementGroupTags(sim, ownedPG); tags == nil {
					t.Fatalf("placement group %s is gone: DeletePlacementGroup was not refused, and the test proves nothing", ownedPG)
				}
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			Check: resource.ComposeTestCheckFunc(wantEFA(t, sim, od, 4, ownedPG), func(*terraform.State) error {
				if n := requestCount(sim, "DeletePlacementGroup"); n != 2 {
					return fmt.Errorf("DeletePlacementGroup called %d times, want the refused one and the replacement's", n)
				}
				return nil
			}),
		},
	))
}

// A launch template EC2 creates with warnings, which the create then cannot delete again
// (DeleteLaunchTemplate refused): state records it, in a tainted pool, and destroy deletes it.
// Before, it was orphaned: no state, its owner id in none.
func TestAccEKSNodePool_launchTemplateWarningsCleanupFails(t *testing.T) {
	sim := startSimWith(t, func(r *cloudsim.AWSRegionSeed) {
		for zone, types := range r.InstanceTypeOfferings {
			r.InstanceTypeOfferings[zone] = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "p5.48xlarge" })
		}
	})
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			PreConfig:   acctest.Inject(t, sim, refused("ec2", "DeleteLaunchTemplate", "")),
			Config:      capacityBlock(sim),
			ExpectError: acctest.ExpectErrorParts("creating EKS node group", od, "InvalidInstanceType", "deleting launch template", "UnauthorizedOperation"),
		},
		resource.TestStep{
			PreConfig: func() {
				if lts := clients(t, sim).launchTemplateNames(t); len(lts) != 1 {
					t.Fatalf("launch templates %v: want the one the refused deletion left, or the test proves nothing", lts)
				}
			},
			Config: providerConfig(sim, ""),
			Check: func(*terraform.State) error {
				if lts := clients(t, sim).launchTemplateNames(t); len(lts) > 0 {
					return fmt.Errorf("launch templates left after destroy: %v", lts)
				}
				return nil
			},
		},
	))
}

// injectOnceFired injects then as soon as the fault first (of Count 1) has fired: it is gone from the
// simulator's faults. The caller gives first a latency that leaves the watcher time to see it.
func injectOnceFired(t *testing.T, sim *cloudsim.Sim, first string, then cloudsim.Fault) {
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if !slices.ContainsFunc(sim.Faults(), func(f cloudsim.Fault) bool { return f.ID == first }) {
				if _, err := sim.Inject(then); err != nil {
					t.Error(err)
				}
				return
			}
		}
	}()
}

// An update that adds a side (the spot mix) whose node group is refused and whose launch template
// cannot be deleted again, and whose read-back then fails (DescribeNodegroup denied): state records
// that template with the prior settings, and the next apply, back to on demand only, deletes it.
// Before, a failed read-back left the prior state, without the template: the next apply had
// nothing to do, and the template was orphaned.
func TestAccEKSNodePool_updateReadBackFails(t *testing.T) {
	sim := startSim(t)
	var diags acctest.ApplyDiagnostics
	config := func(pct int) string { return providerConfig(sim, "") + mixOf(4, pct, "") }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: config(0)},
			{
				PreConfig: func() {
					for _, f := range []cloudsim.Fault{refused("eks", "CreateNodegroup", spot), refused("ec2", "DeleteLaunchTemplate", "")} {
						if _, err := sim.Inject(f); err != nil {
							t.Fatal(err)
						}
					}
					// Once the update deletes the spot side's template (refused, after 3 s), every
					// DescribeNodegroup is denied (a permission revoked meanwhile): the update's
					// read-back fails, not the refreshes before it. A denial, which no retryer
					// retries, rather than a 5xx, which the provider's 25 attempts would retry for
					// minutes.
					slow, err := sim.Inject(cloudsim.Fault{Service: "ec2", Operation: "DeleteLaunchTemplate", Kind: cloudsim.Latency, Latency: 3 * time.Second, Count: 1})
					if err != nil {
						t.Fatal(err)
					}
					denied := refused("eks", "DescribeNodegroup", "")
					denied.Count = 0
					injectOnceFired(t, sim, slow, denied)
					diags.Reset()
				},
				Config:      config(50),
				ExpectError: acctest.ExpectErrorParts("creating EKS node group", spot, "AccessDeniedException", "deleting its launch template"),
			},
			{
				PreConfig: func() {
					sim.ClearFaults()
					if err := diags.ExpectWarning("State after a failed update", "could not read the node pool back", "DescribeNodegroup", "AccessDeniedException"); err != nil {
						t.Fatalf("%v: the read-back did not fail, and the test proves nothing", err)
					}
					if lts := clients(t, sim).launchTemplateNames(t); !slices.Contains(lts, "gpufleet."+testCluster+"."+spot) {
						t.Fatalf("launch templates %v: the spot side's is not there, and the test proves nothing", lts)
					}
				},
				Config: config(0),
				Check: func(*terraform.State) error {
					if lts := clients(t, sim).launchTemplateNames(t); len(lts) != 1 || lts[0] != "gpufleet."+testCluster+"."+od {
						return fmt.Errorf("launch templates %v, want only %s's: the failed update's was orphaned", lts, od)
					}
					return nil
				},
			},
		},
	})
}
