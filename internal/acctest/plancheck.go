package acctest

import (
	"context"

	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// AfterPlan is a plan check that runs f once the plan is made, before the apply: a test starts
// there what must happen while the apply runs (a finalizer released while the apply waits).
type AfterPlan func()

var _ plancheck.PlanCheck = AfterPlan(nil)

// CheckPlan runs f.
func (f AfterPlan) CheckPlan(context.Context, plancheck.CheckPlanRequest, *plancheck.CheckPlanResponse) {
	f()
}
