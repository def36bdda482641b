package eks_test

import (
	"fmt"
	"testing"
	"time"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// Lost answers: the create timeout (or an interrupt: terraform-plugin-go cancels the RPC's context on
// Ctrl-C) ends a create call after the cloud has accepted it. A Latency fault longer than the
// timeout does that in cloudsim: the call waits until the client gives up, and is then served all
// the same (cloudsim invokeAWS).

// lostAnswerTimeout is the create and update timeout of these tests: past what an apply does before
// the delayed call on a loaded 2-core machine, so that the timeout ends that call and no other.
const lostAnswerTimeout = "8s"

// lostAnswerLatency delays the call past the timeout; the client's giving up ends it earlier.
const lostAnswerLatency = 2 * time.Minute

// lostAnswerTimeouts is the timeouts block of a pool whose op ends at lostAnswerTimeout.
func lostAnswerTimeouts(op string) string {
	return fmt.Sprintf("  timeouts {\n    %s = %q\n  }\n", op, lostAnswerTimeout)
}

// nodegroupIdentity is what tells one creation of a node group from another of the same name.
type nodegroupIdentity struct{ arn, createdAt, launchTemplate string }

// identityOf is the identity of a node group as cloudsim holds it.
func identityOf(sim *cloudsim.Sim, name string) (nodegroupIdentity, error) {
	ng, ok := sim.Nodegroup(testRegion, testCluster, name)
	if !ok {
		return nodegroupIdentity{}, fmt.Errorf("node group %s does not exist", name)
	}
	id := nodegroupIdentity{arn: ng.NodegroupArn, createdAt: ng.CreatedAt.UTC().Format(time.RFC3339Nano)}
	if ng.LaunchTemplate != nil {
		id.launchTemplate = ng.LaunchTemplate.ID
	}
	return id, nil
}

// CreateNodegroup accepted, its answer lost to the create timeout: the create finds the node group
// by its owner tag and records it, with its launch template, in an untainted pool; the next apply
// has nothing to do, and keeps that very node group; destroy deletes it. Before, the create deleted
// the node group's launch template and recorded nothing: the node group was orphaned, tagged with
// an owner id no state held.
func TestAccEKSNodePool_createAnswerLost(t *testing.T) {
	sim := startSim(t)
	var diags acctest.ApplyDiagnostics
	cfg := providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+lostAnswerTimeouts("create"))
	var created nodegroupIdentity
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				PreConfig: acctest.Inject(t, sim, cloudsim.Fault{Service: "eks", Operation: "CreateNodegroup", Kind: cloudsim.Latency, Latency: lostAnswerLatency, Count: 1, Match: od}),
				Config:    cfg,
				Check: func(s *terraform.State) error {
					if err := diags.ExpectWarning(od, "created, its answer lost", "deadline exceeded", "gpufleet:owner"); err != nil {
						return err
					}
					var err error
					if created, err = identityOf(sim, od); err != nil {
						return err
					}
					rs, ok := s.RootModule().Resources[addr]
					if !ok {
						return fmt.Errorf("%s not in state", addr)
					}
					if rs.Primary.Tainted {
						return fmt.Errorf("%s is tainted, with %s running or creating", addr, od)
					}
					if got := rs.Primary.Attributes["node_groups.0.arn"]; got != created.arn {
						return fmt.Errorf("state records %s with ARN %q, the cloud's is %q", od, got, created.arn)
					}
					if got := rs.Primary.Attributes["node_groups.0.launch_template_id"]; got != created.launchTemplate {
						return fmt.Errorf("state records %s with launch template %q, the node group's is %q", od, got, created.launchTemplate)
					}
					if _, ok := sim.LaunchTemplate(testRegion, created.launchTemplate); !ok {
						return fmt.Errorf("launch template %s of %s was deleted under it", created.launchTemplate, od)
					}
					if n := requestCount(sim, "DeleteLaunchTemplate"); n != 0 {
						return fmt.Errorf("DeleteLaunchTemplate called %d times", n)
					}
					return nil
				},
			},
			{
				Config:           cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: func(*terraform.State) error {
					now, err := identityOf(sim, od)
					if err != nil {
						return err
					}
					if now != created {
						return fmt.Errorf("%s is another node group now (%+v), not the one the interrupted create made (%+v)", od, now, created)
					}
					if n := requestCount(sim, "CreateNodegroup") + requestCount(sim, "DeleteNodegroup"); n != 1 {
						return fmt.Errorf("%d CreateNodegroup and DeleteNodegroup calls, want the one create", n)
					}
					return nil
				},
			},
		},
	})
}

// An update that adds a side (the spot mix) and loses CreateNodegroup's answer to the update
// timeout: the update fails (it timed out), but state records the new node group with its launch
// template, and the next apply finishes the change with that very node group. Before, the update
// deleted the new node group's launch template, and the next apply replaced the node group.
func TestAccEKSNodePool_updateCreateAnswerLost(t *testing.T) {
	sim := startSim(t)
	var diags acctest.ApplyDiagnostics
	config := func(pct int, extra string) string { return providerConfig(sim, "") + mixOf(4, pct, extra) }
	var created nodegroupIdentity
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: config(0, "")},
			{
				PreConfig: func() {
					if _, err := sim.Inject(cloudsim.Fault{Service: "eks", Operation: "CreateNodegroup", Kind: cloudsim.Latency, Latency: lostAnswerLatency, Count: 1, Match: spot}); err != nil {
						t.Fatal(err)
					}
					diags.Reset()
				},
				Config:      config(50, lostAnswerTimeouts("update")),
				ExpectError: acctest.ExpectErrorParts(spot, "deadline exceeded"),
			},
			{
				PreConfig: func() {
					if err := diags.ExpectWarning(spot, "created, its answer lost"); err != nil {
						t.Error(err)
					}
					var err error
					if created, err = identityOf(sim, spot); err != nil {
						t.Fatal(err)
					}
					if _, ok := sim.LaunchTemplate(testRegion, created.launchTemplate); !ok {
						t.Errorf("launch template %s of %s was deleted under it", created.launchTemplate, spot)
					}
				},
				Config: config(50, ""),
				Check: func(s *terraform.State) error {
					now, err := identityOf(sim, spot)
					if err != nil {
						return err
					}
					if now != created {
						return fmt.Errorf("%s is another node group now (%+v), not the one the interrupted update made (%+v)", spot, now, created)
					}
					if got := s.RootModule().Resources[addr].Primary.Attributes["node_groups.1.arn"]; got != created.arn {
						return fmt.Errorf("state records %s with ARN %q, the cloud's is %q", spot, got, created.arn)
					}
					if n := requestCount(sim, "DeleteNodegroup"); n != 0 {
						return fmt.Errorf("DeleteNodegroup called %d times", n)
					}
					return nil
				},
			},
		},
	})
}

// CreateLaunchTemplate accepted, its answer lost to the create timeout: the create fails (nothing
// runs), but state records the template, which carries the new pool's owner id; the pool is tainted,
// and the next apply replaces it, deleting that template. Before, state recorded nothing, and the
// next apply failed on the template as not the pool's (its owner id was lost with the create).
func TestAccEKSNodePool_launchTemplateAnswerLost(t *testing.T) {
	sim := startSim(t)
	cfg := func(extra string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+extra)
	}
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			PreConfig: acctest.Inject(t, sim, cloudsim.Fault{Service: "ec2", Operation: "CreateLaunchTemplate", Kind: cloudsim.Latency, Latency: lostAnswerLatency, Count: 1,
				Match: "gpufleet." + testCluster + "." + od}),
			Config:      cfg(lostAnswerTimeouts("create")),
			ExpectError: acctest.ExpectErrorParts("creating launch template", od, "deadline exceeded"),
		},
		resource.TestStep{
			PreConfig: func() {
				if n := requestCount(sim, "CreateNodegroup"); n != 0 {
					t.Fatalf("CreateNodegroup called %d times: the timeout did not end CreateLaunchTemplate, and the test proves nothing", n)
				}
			},
			Config: cfg(""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
			}},
			Check: checkNodegroup(t, sim, od, func(ng *ekstypes.Nodegroup) error {
				if ng.Status != ekstypes.NodegroupStatusActive {
					return fmt.Errorf("%s is %s", od, ng.Status)
				}
				return nil
			}),
		},
	))
}
