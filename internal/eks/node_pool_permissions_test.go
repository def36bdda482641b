package eks_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// terraformKey is the access key terraform signs with in the permission tests; cloudsim checks its
// calls against the policy. The tests' own reads sign with another key, which is not checked.
const terraformKey = "AKIAGPUFLEETTERRAFORM"

// guidePolicy is the IAM policy the permissions guide prints for gpufleet_eks_node_pool, read from
// the generated page (docs/guides/permissions.md, from templates/guides/permissions.md.tmpl).
func guidePolicy(t *testing.T) string {
	t.Helper()
	return acctest.FencedBlock(t, "../../docs/guides/permissions.md", "## AWS: `gpufleet_eks_node_pool`", "json")
}

// without is a policy with one action taken out (a statement left with no action goes).
func without(t *testing.T, policy, action string) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(policy), &doc); err != nil {
		t.Fatal(err)
	}
	var kept []any
	found := false
	for _, st := range doc["Statement"].([]any) {
		m := st.(map[string]any)
		var actions []any
		switch a := m["Action"].(type) {
		case string:
			actions = []any{a}
		case []any:
			actions = a
		}
		left := slices.DeleteFunc(slices.Clone(actions), func(a any) bool { return a == action })
		found = found || len(left) < len(actions)
		if len(left) > 0 {
			m["Action"] = left
			kept = append(kept, m)
		}
	}
	if !found {
		t.Fatalf("the policy has no %s", action)
	}
	doc["Statement"] = kept
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// underPolicy starts cloudsim for a fresh account (no EKS node group service-linked role yet) whose
// terraform identity has policy.
func underPolicy(t *testing.T, policy string) *cloudsim.Sim {
	t.Helper()
	sim := startSim(t)
	if err := sim.SetIAM(&cloudsim.IAMIdentity{AccessKeyID: terraformKey, Policy: policy, FreshAccount: true}); err != nil {
		t.Fatalf("the policy: %v", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", terraformKey)
	return sim
}

// permissionsPool is a pool on the test seed's capacity reservation, with extra (tags) in its body.
func permissionsPool(sim *cloudsim.Sim, desired int, extra string) string {
	return reservedPool(sim, odcrID, desired, 2, extra)
}

// The least-privilege policy of the permissions guide is enough for everything gpufleet does with a
// pool on a reservation, in an account that never had a managed node group (audit D7: the first node
// group needs iam:CreateServiceLinkedRole): create, update (sizes, tags, a newer AMI release, which
// rolls the nodes onto a new launch template version), import and destroy. cloudsim checks every EKS,
// EC2 and Auto Scaling call terraform makes against it, as IAM would.
func TestAccEKSNodePool_permissionsGuidePolicy(t *testing.T) {
	sim := underPolicy(t, guidePolicy(t))
	noDenial := func(*terraform.State) error {
		if denied := sim.DeniedActions(); len(denied) > 0 {
			return fmt.Errorf("the guide's policy does not allow %v", denied)
		}
		return nil
	}
	vision, llm := "  tags = { Project = \"vision\" }\n", "  tags = { Project = \"llm\" }\n"
	release := "  release_version = \"1.31.9-20250801\"\n"
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config: permissionsPool(sim, 1, vision),
			Check: func(s *terraform.State) error {
				if !sim.NodegroupServiceLinkedRoleExists() {
					return fmt.Errorf("the first node group made no service-linked role")
				}
				return noDenial(s)
			},
		},
		resource.TestStep{Config: permissionsPool(sim, 2, vision), ConfigPlanChecks: updateThenNothing(), Check: noDenial},
		resource.TestStep{
			Config: permissionsPool(sim, 2, llm), ConfigPlanChecks: updateThenNothing(),
			Check: func(s *terraform.State) error {
				return errors.Join(noDenial(s), wantFleetTags(t, sim, "train-od", map[string]string{"Project": "llm"}),
					sim.PublishAMIRelease(testRegion, "1.31", "1.31.9-20250801"))
			},
		},
		resource.TestStep{
			Config: permissionsPool(sim, 2, llm+release), ConfigPlanChecks: updateThenNothing(),
			Check: func(s *terraform.State) error {
				return errors.Join(noDenial(s), wantRelease(t, sim, "train-od", "1.31.9-20250801")(s))
			},
		},
		resource.TestStep{Config: providerConfig(sim, "") + "removed {\n  from = " + addr + "\n  lifecycle {\n    destroy = false\n  }\n}\n"},
		resource.TestStep{Config: permissionsPool(sim, 2, llm+release), ResourceName: addr, ImportState: true, ImportStateId: "ml:train", ImportStatePersist: true},
		// After the import the plan adds only what no AWS API holds (the policy waivers); the apply
		// changes nothing in the cloud, and the plan after it is empty.
		resource.TestStep{Config: permissionsPool(sim, 2, llm+release), ConfigPlanChecks: updateThenNothing(), Check: noDenial},
		// The destroy that closes the case runs under the policy too; CheckDestroy reads with the
		// test's own key.
	))
	if denied := sim.DeniedActions(); len(denied) > 0 {
		t.Fatalf("the guide's policy does not allow %v", denied)
	}
}

// One action missing from the guide's policy fails the apply with the error AWS gives, which names
// the action: here iam:CreateServiceLinkedRole, in an account that never had a managed node group
// (the first CreateNodegroup), and autoscaling:CreateOrUpdateTags, on a tag change.
func TestAccEKSNodePool_permissionsMissingAction(t *testing.T) {
	t.Run("iam:CreateServiceLinkedRole", func(t *testing.T) {
		sim := underPolicy(t, without(t, guidePolicy(t), "iam:CreateServiceLinkedRole"))
		resource.Test(t, poolTest(t, sim, resource.TestStep{
			Config:      permissionsPool(sim, 1, ""),
			ExpectError: acctest.ExpectErrorParts("creating EKS node group", "train-od", "AccessDeniedException", "not authorized to perform: iam:CreateServiceLinkedRole", "AWSServiceRoleForAmazonEKSNodegroup"),
		}))
	})
	t.Run("autoscaling:CreateOrUpdateTags", func(t *testing.T) {
		sim := underPolicy(t, without(t, guidePolicy(t), "autoscaling:CreateOrUpdateTags"))
		resource.Test(t, poolTest(t, sim,
			resource.TestStep{Config: permissionsPool(sim, 1, "  tags = { Project = \"vision\" }\n")},
			resource.TestStep{
				Config:      permissionsPool(sim, 1, "  tags = { Project = \"llm\" }\n"),
				ExpectError: acctest.ExpectErrorParts("updating EKS node group", "train-od", "autoscaling:CreateOrUpdateTags", "AccessDenied", "not authorized to perform: autoscaling:CreateOrUpdateTags"),
			},
		))
	})
	// A role made for an earlier version, without the reads of the node groups' Auto Scaling groups:
	// refresh does without them (a warning), and only a tag change, which needs them, fails.
	t.Run("autoscaling:DescribeAutoScalingGroups", func(t *testing.T) {
		sim := underPolicy(t, without(t, guidePolicy(t), "autoscaling:DescribeAutoScalingGroups"))
		resource.Test(t, poolTest(t, sim,
			resource.TestStep{
				Config:           permissionsPool(sim, 1, "  tags = { Project = \"vision\" }\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			resource.TestStep{Config: permissionsPool(sim, 2, "  tags = { Project = \"vision\" }\n"), ConfigPlanChecks: updateThenNothing()},
			resource.TestStep{
				Config:      permissionsPool(sim, 2, "  tags = { Project = \"llm\" }\n"),
				ExpectError: acctest.ExpectErrorParts("updating EKS node group", "train-od", "autoscaling:DescribeAutoScalingGroups", "AccessDenied"),
			},
		))
	})
}
