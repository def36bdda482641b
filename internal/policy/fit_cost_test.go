package policy

import (
	"context"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// fitAllocBudget is how many heap allocations the provider's embedded evaluation of one fitting
// pool document may cost (the whole query, every rule). Before the fit (commit 4b458f0) the
// evaluation of testSpec's pool cost 268 allocations; with lib.doc_fit evaluated for GF-RS-001 and
// GF-RS-007 it cost 2 158; with the shortcuts (lib.doc_fits_gpus_surely, lib.doc_fits_host_surely)
// that skip the fit of a pool that surely fits, about 525 (600 with workload.precision, replicas and
// gpus_per_replica set, which GF-RS-004 and GF-RS-005 judge); with the shortcuts' inequalities
// solved into tables in their first bodies (catalog_fit.rego) and no rule referenced on the common
// paths of GF-RS-002 and the bundle's warn guard, 377 (458). OPA's decimal arithmetic allocates, and
// so does every rule a pool's evaluation references: a rule that computes the fit of every pool
// again, or the tables' bodies tried after fit.rego's inequalities, breaks this budget (512 then).
var fitAllocBudget = map[string]float64{"plain": 420, "fit settings": 500}

// TestEvaluate_fittingPoolSkipsTheFit holds the shortcuts' gain: a pool that fits its nodes costs
// the embedded evaluation at most its fitAllocBudget allocations, with and without the fit's settings.
func TestEvaluate_fittingPoolSkipsTheFit(t *testing.T) {
	e := newEngine(t, Options{})
	ctx := context.Background()
	withSettings := testSpec()
	withSettings.Workload.Precision, withSettings.Workload.GPUsPerReplica, withSettings.Workload.Replicas = "fp16", 1, 2
	for name, s := range map[string]pool.Spec{"plain": testSpec(), "fit settings": withSettings} {
		doc := document(t, s, nil)
		findings, err := e.Evaluate(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		if got := append(rules(findings, SeverityDeny), rules(findings, SeverityWarn)...); len(got) != 1 || got[0] != RuleInactiveRegistry {
			t.Fatalf("%s: findings %+v, want only %s", name, findings, RuleInactiveRegistry)
		}
		allocs := testing.AllocsPerRun(50, func() {
			if _, err := e.Evaluate(ctx, doc); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > fitAllocBudget[name] {
			t.Errorf("%s: the evaluation of a fitting pool costs %.0f allocations, more than the budget of %.0f: does a rule compute lib.doc_fit for every pool?", name, allocs, fitAllocBudget[name])
		} else {
			t.Logf("%s: %.0f allocations (budget %.0f)", name, allocs, fitAllocBudget[name])
		}
	}
}
