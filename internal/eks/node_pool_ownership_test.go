package eks_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// spotMix is a pool with both sides: train-od and train-spot.
var spotMix = trainingWorkload + acctest.Scaling(0, 2, 4) + acctest.Capacity(50, 0)

// A launch template of the pool's name that another tool made is an error before anything is
// created, and stays as it was; once it is gone, the pool applies.
func TestAccEKSNodePool_launchTemplateNameClash(t *testing.T) {
	sim := startSim(t)
	c := clients(t, sim)
	foreign := c.foreignLaunchTemplate(t, "gpufleet.ml.train-spot", map[string]string{"team": "other"})
	sim.ResetRequests()
	cfg := providerConfig(sim, "") + poolConfig("train", `["g5.xlarge"]`, spotMix)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config:      cfg,
				ExpectError: acctest.ExpectErrorParts("creating EKS node group", "ml/train-spot", foreign, "no gpufleet:owner tag", "left it unchanged"),
			},
			{
				PreConfig: func() {
					if n := requestCount(sim, "CreateNodegroup") + requestCount(sim, "CreateLaunchTemplate") + requestCount(sim, "CreateLaunchTemplateVersion") + requestCount(sim, "ModifyLaunchTemplate"); n != 0 {
						t.Fatalf("the clash was found after %d changes: %+v", n, sim.Requests())
					}
					lt, ok := sim.LaunchTemplate(testRegion, foreign)
					if !ok || lt.LatestVersion != 1 || lt.DefaultVersion != 1 {
						t.Fatalf("foreign launch template changed: %+v (exists %t)", lt, ok)
					}
					if _, err := c.ec2.DeleteLaunchTemplate(context.Background(), &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: aws.String(foreign)}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}

// Cluster ml-a with pool b and cluster ml with pool a-b get a launch template each, and destroy
// deletes both.
func TestAccEKSNodePool_launchTemplateNamesUnique(t *testing.T) {
	sim := startSim(t)
	c := clients(t, sim)
	cfg := providerConfig(sim, "") +
		strings.Replace(poolConfig("b", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)), `"ml"`, `"ml-a"`, 1) +
		poolConfig("a-b", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2))
	ngIn := func(cluster, name string) (*ekstypes.Nodegroup, error) {
		out, err := c.eks.DescribeNodegroup(context.Background(), &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)})
		if err != nil {
			return nil, err
		}
		return out.Nodegroup, nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(s *terraform.State) error {
			if ngs := sim.Nodegroups(testRegion, ""); len(ngs) > 0 {
				return fmt.Errorf("%d node groups left after destroy", len(ngs))
			}
			return checkNothingLeft(t, sim)(s)
		},
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
			Check: func(*terraform.State) error {
				b, err := ngIn("ml-a", "b-od")
				if err != nil {
					return err
				}
				ab, err := ngIn("ml", "a-b-od")
				if err != nil {
					return err
				}
				if aws.ToString(b.LaunchTemplate.Id) == aws.ToString(ab.LaunchTemplate.Id) {
					return fmt.Errorf("ml-a/b-od and ml/a-b-od share launch template %s", aws.ToString(b.LaunchTemplate.Id))
				}
				return errors.Join(c.wantOwnedTemplate(b, "ml-a/b/b-od"), c.wantOwnedTemplate(ab, "ml/a-b/a-b-od"))
			},
		}},
	})
}

// A launch template name over EC2's 128 characters fails at plan time, at name.
func TestAccEKSNodePool_launchTemplateNameTooLong(t *testing.T) {
	sim := startSim(t)
	// gpufleet.<100 characters>.inference-canary-pool-x-spot: 138 characters.
	cfg := providerConfig(sim, "") + strings.Replace(poolConfig("inference-canary-pool-x", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)),
		`"ml"`, fmt.Sprintf("%q", strings.Repeat("c", 100)), 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      cfg,
			ExpectError: acctest.ExpectErrorParts("Launch template name too long", `with gpufleet_eks_node_pool.inference-canary-pool-x`, "name", "over EC2's 128", "by 10 characters"),
		}},
	})
	if n := requestCount(sim, ""); n != 0 {
		t.Fatalf("the plan-time error came after %d calls", n)
	}
}

// A launch template deleted outside terraform shows as drift, and the next apply replaces the node
// group with a template of its own; later updates work.
func TestAccEKSNodePool_launchTemplateDeletedOutOfBand(t *testing.T) {
	sim := startSim(t)
	c := clients(t, sim)
	cfg := func(tags string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(1, 1, 2)+"  tags = { Project = \""+tags+"\" }\n")
	}
	var deleted string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: cfg("vision"),
				Check: func(*terraform.State) error {
					ng, err := c.nodegroup("train-od")
					if err != nil {
						return err
					}
					deleted = aws.ToString(ng.LaunchTemplate.Id)
					_, err = c.ec2.DeleteLaunchTemplate(context.Background(), &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: aws.String(deleted)})
					return err
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg("vision"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{
						plancheck.ExpectEmptyPlan(),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("launch_template_id"), knownvalue.StringRegexp(regexp.MustCompile(`^lt-`))),
				},
				Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
					if id := aws.ToString(ng.LaunchTemplate.Id); id == deleted {
						return fmt.Errorf("node group still uses the deleted launch template %s", id)
					}
					return errors.Join(c.wantOwnedTemplate(ng, "ml/train/train-od"), wantInstanceTags(t, sim, ng, map[string]string{"Project": "vision"}))
				}),
			},
			{
				Config: cfg("llm"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					return wantFleetTags(t, sim, "train-od", map[string]string{"Project": "llm"})
				},
			},
		},
	})
}

// Destroy deletes the launch templates state records, by id, and nothing else: not the side that
// never existed, not another tool's template that has that side's name.
func TestAccEKSNodePool_destroyDeletesRecordedTemplatesByID(t *testing.T) {
	sim := startSim(t)
	c := clients(t, sim)
	var foreign []string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if ngs := c.nodegroupNames(t); len(ngs) > 0 {
				return fmt.Errorf("node groups left after destroy: %v", ngs)
			}
			var left []string
			for _, lt := range sim.LaunchTemplates(testRegion) {
				left = append(left, lt.ID)
			}
			slices.Sort(left)
			slices.Sort(foreign)
			if !slices.Equal(left, foreign) {
				return fmt.Errorf("launch templates after destroy %v, want exactly the foreign ones %v", left, foreign)
			}
			deletes := sim.RequestsFor("ec2", "DeleteLaunchTemplate")
			if len(deletes) != 1 {
				return fmt.Errorf("%d DeleteLaunchTemplate calls, want 1 (the pool's one template): %+v", len(deletes), deletes)
			}
			if name, id := deletes[0].Params["LaunchTemplateName"], deletes[0].Params["LaunchTemplateId"]; name != nil || id == nil {
				return fmt.Errorf("DeleteLaunchTemplate by name %v / id %v, want by id only", name, id)
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)),
			Check: func(*terraform.State) error {
				// Another tool's templates with the names the spot side would have had.
				foreign = append(foreign,
					c.foreignLaunchTemplate(t, "gpufleet-ml-train-spot", nil),
					c.foreignLaunchTemplate(t, "gpufleet.ml.train-spot", map[string]string{"gpufleet:owner": "other/train/train-spot"}))
				return nil
			},
		}},
	})
}

// CreateNodegroup fails and so does deleting the launch template created for it: state records the
// template, the next apply replaces the tainted pool, and nothing is orphaned.
func TestAccEKSNodePool_createCleanupFailed(t *testing.T) {
	sim := startSim(t)
	testFailedCreateReplaced(t, sim, poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)),
		[]cloudsim.Fault{
			{Service: "eks", Operation: "CreateNodegroup", Kind: cloudsim.ServerError, Status: 400, Code: "InvalidParameterException", Message: "Subnets are not in the cluster's VPC", Count: 1},
			{Service: "ec2", Operation: "DeleteLaunchTemplate", Kind: cloudsim.ServerError, Status: 403, Code: "UnauthorizedOperation", Message: "You are not authorized to perform this operation.", Count: 1},
		},
		"creating EKS node group", "InvalidParameterException", "UnauthorizedOperation", "state records the template")
}

// A template that is no longer the pool's (its owner tag now names another pool) shows as drift; the
// repair would need its name, so the apply fails with the template's id before any change, and
// neither it nor its versions are touched, by the update or by destroy.
func TestAccEKSNodePool_launchTemplateNoLongerOwned(t *testing.T) {
	sim := startSim(t)
	c := clients(t, sim)
	cfg := providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2))
	var taken string
	wantErr := new(regexp.Regexp) // filled in once the template id is known
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if ngs := c.nodegroupNames(t); len(ngs) > 0 {
				return fmt.Errorf("node groups left after destroy: %v", ngs)
			}
			if lts := sim.LaunchTemplates(testRegion); len(lts) != 1 || lts[0].ID != taken || lts[0].LatestVersion != 1 {
				return fmt.Errorf("launch templates after destroy %+v, want only %s, unchanged", lts, taken)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					ng, err := c.nodegroup("train-od")
					if err != nil {
						return err
					}
					taken = aws.ToString(ng.LaunchTemplate.Id)
					*wantErr = *acctest.ExpectErrorParts("updating EKS node group", "ml/train-od", taken, `tag is "ml/inference/train-od"`, "left it unchanged")
					_, err = c.ec2.CreateTags(context.Background(), &ec2.CreateTagsInput{Resources: []string{taken},
						Tags: []ec2types.Tag{{Key: aws.String("gpufleet:owner"), Value: aws.String("ml/inference/train-od")}}})
					return err
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("launch_template_id")),
				}},
				ExpectError: wantErr,
			},
		},
	})
}

// A node group of a side's name that another tool created is never adopted, changed or deleted:
// refresh leaves it out of the pool's state (the plan stays empty), a plan that wants that side
// fails before any change, naming it, and destroy leaves it as it was.
func TestAccEKSNodePool_foreignNodegroupNotAdopted(t *testing.T) {
	sim := startSim(t)
	c := clients(t, sim)
	cfg := func(pct int) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, trainingWorkload+acctest.Scaling(0, 2, 4)+acctest.Capacity(pct, 0))
	}
	var foreign *ekstypes.Nodegroup
	unchanged := func() error {
		ng, err := c.nodegroup("train-spot")
		if err != nil {
			return fmt.Errorf("the foreign node group is gone: %w", err)
		}
		if aws.ToString(ng.NodegroupArn) != aws.ToString(foreign.NodegroupArn) || ng.Tags["team"] != "other" || len(ng.Tags) != 1 ||
			aws.ToInt32(ng.ScalingConfig.DesiredSize) != 1 || len(ng.Labels) != 0 {
			return fmt.Errorf("the foreign node group changed: %+v", ng)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if ngs := c.nodegroupNames(t); !slices.Equal(ngs, []string{"train-spot"}) {
				return fmt.Errorf("node groups after destroy %v, want only the foreign train-spot", ngs)
			}
			if lts := c.launchTemplateNames(t); len(lts) > 0 {
				return fmt.Errorf("launch templates left after destroy: %v", lts)
			}
			return unchanged()
		},
		Steps: []resource.TestStep{
			{
				// The post-apply plan refreshes with train-spot in the cloud: it must stay empty.
				Config: cfg(0),
				Check: func(*terraform.State) error {
					foreign = c.foreignNodegroup(t, "train-spot", map[string]string{"team": "other"})
					return nil
				},
			},
			{
				PreConfig:   sim.ResetRequests,
				Config:      cfg(50),
				ExpectError: acctest.ExpectErrorParts("EKS node group", "ml/train-spot", "not this pool's", "left it unchanged"),
			},
			{
				PreConfig: func() {
					if calls := mutatingCalls(sim); len(calls) > 0 {
						t.Fatalf("the foreign node group was found after changes: %v", calls)
					}
					if err := unchanged(); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg(0),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}

// A second pool of the same cluster and name (another state, here another resource) fails before
// it changes anything of the first: the first pool's launch template keeps its one version, and
// nothing of it is deleted.
func TestAccEKSNodePool_samePoolNameTwice(t *testing.T) {
	sim := startSim(t)
	first := poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2))
	second := poolConfigAs("again", "train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+"  depends_on = [gpufleet_eks_node_pool.train]\n")
	var arn, template string
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config: providerConfig(sim, "") + first,
			Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
				arn, template = aws.ToString(ng.NodegroupArn), aws.ToString(ng.LaunchTemplate.Id)
				sim.ResetRequests()
				return nil
			}),
		},
		resource.TestStep{
			Config:      providerConfig(sim, "") + first + second,
			ExpectError: acctest.ExpectErrorParts("creating EKS node group", "ml/train-od", "not this pool's"),
		},
		resource.TestStep{
			PreConfig: func() { checkFirstPoolUntouched(t, sim, arn, template) },
			Config:    providerConfig(sim, "") + first,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
		},
	))
}

// create_before_destroy with the same name: the replacement fails before it changes anything of the
// pool it would replace, which keeps running.
func TestAccEKSNodePool_createBeforeDestroySameName(t *testing.T) {
	sim := startSim(t)
	cfg := func(instanceType string) string {
		return providerConfig(sim, "") + poolConfig("train", fmt.Sprintf("[%q]", instanceType), inferenceWorkload+acctest.Scaling(0, 1, 2)+
			"  lifecycle {\n    create_before_destroy = true\n  }\n")
	}
	var arn, template string
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config: cfg("g6.xlarge"),
			Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
				arn, template = aws.ToString(ng.NodegroupArn), aws.ToString(ng.LaunchTemplate.Id)
				sim.ResetRequests()
				return nil
			}),
		},
		resource.TestStep{
			Config:      cfg("g6.2xlarge"),
			ExpectError: acctest.ExpectErrorParts("creating EKS node group", "ml/train-od", "not this pool's"),
		},
		resource.TestStep{
			PreConfig: func() { checkFirstPoolUntouched(t, sim, arn, template) },
			Config:    cfg("g6.xlarge"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
		},
	))
}

// checkFirstPoolUntouched fails the test when anything but reads reached the cloud since the
// requests were reset, or when the pool's node group or launch template changed.
func checkFirstPoolUntouched(t *testing.T, sim *cloudsim.Sim, arn, template string) {
	t.Helper()
	if calls := mutatingCalls(sim); len(calls) > 0 {
		t.Fatalf("the second pool changed the cloud: %v", calls)
	}
	ng, ok := sim.Nodegroup(testRegion, testCluster, "train-od")
	if !ok || ng.NodegroupArn != arn || ng.LaunchTemplate == nil || ng.LaunchTemplate.ID != template || ng.LaunchTemplate.Version != "1" {
		t.Fatalf("the first pool's node group changed: %+v (exists %t)", ng, ok)
	}
	lt, ok := sim.LaunchTemplate(testRegion, template)
	if !ok || lt.LatestVersion != 1 || lt.DefaultVersion != 1 {
		t.Fatalf("the first pool's launch template changed: %+v (exists %t)", lt, ok)
	}
}

// A pool made before owner ids and node group owner tags (its launch template tagged
// gpufleet:owner = <cluster>/<pool>/<node group>, its node group untagged) is still the pool's: it
// imports with no owner id, the next apply gives its node group the owner tag (in place, no node
// replaced), and destroy deletes it.
func TestAccEKSNodePool_legacyPoolKeepsWorking(t *testing.T) {
	sim := startSim(t)
	c := clients(t, sim)
	cfg := providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2))
	var template string
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config: cfg,
			// Make the objects what earlier versions left: no owner tag on the node group, and the
			// template's owner tag without an owner id.
			Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
				template = aws.ToString(ng.LaunchTemplate.Id)
				if _, err := c.eks.UntagResource(context.Background(), &eks.UntagResourceInput{ResourceArn: ng.NodegroupArn, TagKeys: []string{"gpufleet:owner"}}); err != nil {
					return err
				}
				_, err := c.ec2.CreateTags(context.Background(), &ec2.CreateTagsInput{Resources: []string{template},
					Tags: []ec2types.Tag{{Key: aws.String("gpufleet:owner"), Value: aws.String("ml/train/train-od")}}})
				return err
			}),
			ExpectNonEmptyPlan: true,
		},
		resource.TestStep{
			Config: providerConfig(sim, "") + "removed {\n  from = " + addr + "\n  lifecycle {\n    destroy = false\n  }\n}\n",
		},
		resource.TestStep{
			Config:             cfg,
			ResourceName:       addr,
			ImportState:        true,
			ImportStateId:      "ml:train",
			ImportStatePersist: true,
			ImportStateCheck: func(states []*terraform.InstanceState) error {
				if id, ok := states[0].Attributes["owner_id"]; ok && id != "" {
					return fmt.Errorf("owner_id %q, want none for a pool made before owner ids", id)
				}
				return nil
			},
		},
		resource.TestStep{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
				if aws.ToString(ng.LaunchTemplate.Id) != template || aws.ToString(ng.LaunchTemplate.Version) != "1" {
					return fmt.Errorf("the node group's launch template changed: %v", ng.LaunchTemplate)
				}
				return wantTag(ng, "gpufleet:owner", "ml/train/train-od")
			}),
		},
	))
}

// Migrating a node group that aws_eks_node_group made (audit D8): import finds it by its name, and
// adopts it only once the user has tagged it for the pool, gpufleet:owner = <cluster>/<pool>/<node
// group>, the explicit step the migration guide gives (a tag written in the old resource's
// configuration). Without the tag the import fails, naming the tag to write, and nothing changes.
// With it, the import succeeds; the node group has no launch template of the pool's, so the first
// apply replaces it, and then plans nothing.
func TestAccEKSNodePool_importAdoptsOnlyTaggedNodegroup(t *testing.T) {
	sim := startSim(t)
	c := clients(t, sim)
	// The pool as the migration guide has it written: the old node group's settings (foreignNodegroup's
	// subnet, instance type and sizes).
	cfg := providerConfig(sim, "") + inZoneA(poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 3)))
	foreign := c.foreignNodegroup(t, "train-od", map[string]string{"team": "ml"})
	importStep := resource.TestStep{Config: cfg, ResourceName: addr, ImportState: true, ImportStateId: "ml:train", ImportStatePersist: true}
	refused := importStep
	refused.ExpectError = acctest.ExpectErrorParts("EKS node group", "ml/train-od", "no gpufleet:owner", "tag", "import a node group", `gpufleet:owner = "<cluster_name>/<name>/<node group>"`, `"ml/train/train-od"`, "migration guide")
	resource.Test(t, poolTest(t, sim,
		refused,
		resource.TestStep{
			PreConfig: func() {
				if calls := mutatingCalls(sim); len(calls) > 1 { // the test's own CreateNodegroup
					t.Fatalf("the refused import changed the cloud: %v", calls)
				}
				// The user's step: the tag, as aws_eks_node_group's tags would write it.
				if _, err := c.eks.TagResource(context.Background(), &eks.TagResourceInput{ResourceArn: foreign.NodegroupArn,
					Tags: map[string]string{"gpufleet:owner": "ml/train/train-od"}}); err != nil {
					t.Fatal(err)
				}
			},
			Config: importStep.Config, ResourceName: addr, ImportState: true, ImportStateId: "ml:train", ImportStatePersist: true,
			ImportStateCheck: func(states []*terraform.InstanceState) error {
				return wantAttr(states[0], "node_groups.0.arn", aws.ToString(foreign.NodegroupArn))
			},
		},
		resource.TestStep{
			Config:           cfg,
			ConfigPlanChecks: updateThenNothing(),
			Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
				if aws.ToString(ng.NodegroupArn) == aws.ToString(foreign.NodegroupArn) || ng.LaunchTemplate == nil {
					return fmt.Errorf("the adopted node group was not replaced with one on the pool's launch template: %+v", ng)
				}
				// An adopted pool has no owner id, as a pool made before owner ids: its owner tag is
				// the one the user wrote, on the new node group and its template.
				lt, err := c.launchTemplate(aws.ToString(ng.LaunchTemplate.Id))
				if err != nil {
					return err
				}
				for _, tag := range lt.Tags {
					if aws.ToString(tag.Key) == "gpufleet:owner" && aws.ToString(tag.Value) == "ml/train/train-od" {
						return wantTag(ng, "gpufleet:owner", "ml/train/train-od")
					}
				}
				return fmt.Errorf("launch template %s is not tagged gpufleet:owner = ml/train/train-od: %v", aws.ToString(lt.LaunchTemplateId), lt.Tags)
			}),
		},
	))
}

// updateThenNothing are the plan checks of an in-place update that converges: the apply updates the
// pool, and the plan after it is empty.
func updateThenNothing() resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{
		PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
	}
}

// wantAttr checks one attribute of an imported state.
func wantAttr(st *terraform.InstanceState, key, want string) error {
	if got := st.Attributes[key]; got != want {
		return fmt.Errorf("imported %s = %q, want %q", key, got, want)
	}
	return nil
}
