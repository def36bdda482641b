package acctest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The real-cloud acceptance tests of both pool resources run the same steps on a pool whose cloud
// objects are listed in sides (node_groups, node_pools); config renders it at a spot percentage.

// RealCloudBasicSteps create the pool, check its first side reached status, and import it by
// importID to the same state.
func RealCloudBasicSteps(addr, sides, status, importID string, config func(spotPercentage int) string) []resource.TestStep {
	return []resource.TestStep{{
		Config: config(0),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New(sides).AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact(status)),
		},
	}, {
		ResourceName: addr, ImportState: true, ImportStateId: importID,
		ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts", "policy_waivers", "policy_document.waivers"},
	}}
}

// RealCloudSpotMixSteps move the pool from on-demand to half spot (two sides) to all spot (one),
// in place.
func RealCloudSpotMixSteps(addr, sides string, config func(spotPercentage int) string) []resource.TestStep {
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	count := func(n int) []statecheck.StateCheck {
		return []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New(sides), knownvalue.ListSizeExact(n))}
	}
	return []resource.TestStep{
		{Config: config(0)},
		{Config: config(50), ConfigPlanChecks: update, ConfigStateChecks: count(2)},
		{Config: config(100), ConfigPlanChecks: update, ConfigStateChecks: count(1)},
	}
}

// RefreshOnlyAfterLabelChange is the refresh-only step both pool resources test: setLabel changes
// the node labels gpufleet.io/workload (to "training") and rogue (to "yes") outside terraform; the
// refreshed labels show rogue, while effective_tags keep workloadTag = "inference", because the
// cloud objects' tags did not change.
func RefreshOnlyAfterLabelChange(t *testing.T, addr, workloadTag string, setLabel func(key, value string) error) resource.TestStep {
	return resource.TestStep{
		PreConfig: func() {
			if err := errors.Join(setLabel("gpufleet.io/workload", "training"), setLabel("rogue", "yes")); err != nil {
				t.Fatal(err)
			}
		},
		RefreshState:       true,
		ExpectNonEmptyPlan: true,
		Check: func(s *terraform.State) error {
			if got := StateAttribute(s, addr, "labels.rogue"); got != "yes" {
				return fmt.Errorf("labels.rogue = %q after refresh, want the out-of-band yes", got)
			}
			if got := StateAttribute(s, addr, "effective_tags."+workloadTag); got != "inference" {
				return fmt.Errorf("effective_tags.%s = %q after refresh, want inference: the cloud objects' tags did not change", workloadTag, got)
			}
			return nil
		},
	}
}

// DerivedLabelDriftSteps are the steps both pool resources test for a derived node label changed
// outside terraform (setLabel sets gpufleet.io/client to "initech" on the pool's first side):
// refresh reports what the cloud says, and nothing else — client, the cost centre, effective_tags
// and the policy document stay the client gpufleet wrote on the objects it owns, effective_labels
// shows the rogue label — and the next plan is an update that puts the label back (labelIsBack
// checks the cloud), after which the plan is empty.
func DerivedLabelDriftSteps(t *testing.T, config, addr, tagPrefix string, setLabel func(key, value string) error, labelIsBack func() error) []resource.TestStep {
	return []resource.TestStep{
		{Config: config},
		{
			PreConfig: func() {
				if err := setLabel("gpufleet.io/client", "initech"); err != nil {
					t.Fatal(err)
				}
			},
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check: func(s *terraform.State) error {
				want := map[string]string{
					"client":                                            "acme",
					"policy_document.client":                            "acme",
					"effective_tags." + tagPrefix + "client":            "acme",
					"effective_tags." + tagPrefix + "cost-center":       "cc-1001",
					"effective_labels.gpufleet.io/client":               "initech",
					"policy_document.tags." + tagPrefix + "client":      "acme",
					"policy_document.tags." + tagPrefix + "cost-center": "cc-1001",
				}
				var errs []error
				for key, value := range want {
					if got := StateAttribute(s, addr, key); got != value {
						errs = append(errs, fmt.Errorf("%s = %q after refresh, want %q", key, got, value))
					}
				}
				return errors.Join(errs...)
			},
		},
		{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: func(*terraform.State) error { return labelIsBack() },
		},
	}
}
