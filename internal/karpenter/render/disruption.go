package render

import (
	"slices"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Disruption. Karpenter disrupts nodes on its own: it consolidates empty or underutilised nodes,
// replaces drifted ones (a new AMI, a changed NodePool) and expires old ones (karpenter.sh,
// "Disruption"). Each evicts the node's pods, which a training job that cannot checkpoint loses.
// gpufleet's defaults follow the workload:
//
//   - interruptible workloads, and inference and development: consolidation of empty or
//     underutilised nodes after 5 minutes, expiry after 30 days (Karpenter's default 720h), one
//     node in ten at a time (Karpenter's default budget);
//   - training and batch that are not interruptible: only empty nodes are consolidated, after 10
//     minutes; nodes never expire; and no drifted node is replaced while it runs pods (a budget of
//     0 nodes for Drifted), so that an AMI release never stops a run. Such nodes are replaced when
//     they are empty, or by hand.
//
// Settings written in the disruption block replace the defaults; the plan warns when they would
// disrupt a non-interruptible training or batch workload.

// Disruption defaults.
const (
	ConsolidateAfterDefault   = "5m"
	ConsolidateAfterProtected = "10m"
	ExpireAfterDefault        = "720h"
	BudgetNodesDefault        = "10%"
)

// AutoModeMaxLifetime is the longest an EKS Auto Mode node lives, whatever its NodePool's
// expireAfter (AWS, "Automate cluster infrastructure with EKS Auto Mode": "EKS Auto Mode enforces a
// 21-day maximum node lifetime"; read 2026-11-29).
const AutoModeMaxLifetime = 21 * 24 * time.Hour

// Consolidation policies (the NodePool CRD's enum; Balanced since Karpenter v1.15).
const (
	WhenEmpty                = "WhenEmpty"
	WhenEmptyOrUnderutilized = "WhenEmptyOrUnderutilized"
	Balanced                 = "Balanced"
)

// ConsolidationPolicies are the policies a pool may name.
var ConsolidationPolicies = []string{WhenEmpty, WhenEmptyOrUnderutilized, Balanced}

// DisruptionReasons are a budget's reasons (Unhealthy since Karpenter v1.15).
var DisruptionReasons = []string{"Underutilized", "Empty", "Drifted", "Unhealthy"}

// protected reports whether the workload must not be disrupted while it runs.
func (r *renderer) protected() bool {
	w := r.spec.Workload
	return !w.Interruptible && (w.Kind == pool.KindTraining || w.Kind == pool.KindBatch)
}

// holdsBase reports whether rg is the on-demand (or reserved) rung of a pool with an on-demand
// base beside a spot rung. Karpenter consolidates the priciest nodes first (sigs.k8s.io/karpenter
// v1.15.0 pkg/controllers/disruption/consolidation.go, sortCandidates: "by price/disruption ratio
// descending"; earlier releases sorted by disruption cost alone, which takes on-demand nodes as
// readily as spot ones), so under WhenEmptyOrUnderutilized a scale-down removes the on-demand nodes
// before the spot ones and leaves the pool on spot alone, below the base capacity.on_demand_base
// promises. Such a rung consolidates only its empty nodes: the spot rung's underutilised nodes go,
// and their pods move onto the on-demand nodes' room.
func (r *renderer) holdsBase(rg rung) bool {
	if rg.side.Spot() || r.spec.Capacity.OnDemandBase <= 0 {
		return false
	}
	for _, side := range r.derived.Sides {
		if side.Spot() && side.Sizes.Max > 0 {
			return true
		}
	}
	return false
}

func (r *renderer) disruption(rg rung) map[string]any {
	d := r.set.Disruption
	policy, after := WhenEmptyOrUnderutilized, ConsolidateAfterDefault
	switch {
	case r.protected():
		policy, after = WhenEmpty, ConsolidateAfterProtected
	case r.holdsBase(rg):
		policy = WhenEmpty
	}
	if d.ConsolidationPolicy != "" {
		policy = d.ConsolidationPolicy
	}
	if d.ConsolidateAfter != "" {
		after = d.ConsolidateAfter
	}
	out := map[string]any{"consolidationPolicy": policy, "consolidateAfter": after}
	budgets := []any{map[string]any{"nodes": BudgetNodesDefault}}
	if r.protected() {
		budgets = append([]any{map[string]any{"nodes": "0", "reasons": []any{"Drifted"}}}, budgets...)
	}
	if d.BudgetsSet {
		budgets = []any{}
		for _, b := range d.Budgets {
			m := map[string]any{"nodes": b.Nodes}
			if len(b.Reasons) > 0 {
				m["reasons"] = anyStrings(b.Reasons)
			}
			if b.Schedule != "" {
				m["schedule"] = b.Schedule
			}
			if b.Duration != "" {
				m["duration"] = b.Duration
			}
			budgets = append(budgets, m)
		}
	}
	out["budgets"] = budgets
	r.disruptionNotes(policy)
	if r.holdsBase(rg) && policy != WhenEmpty && !r.baseNoted {
		r.baseNoted = true
		r.note(Warning, pool.P("disruption", "consolidation_policy"), "Consolidation of the on-demand base",
			"%s on the on-demand NodePool %s: Karpenter consolidates the priciest nodes first, so a scale-down removes on-demand nodes before spot ones and can leave the pool on spot alone, below capacity.on_demand_base (%d). Leave consolidation_policy unset (gpufleet then gives the on-demand rung %s), or set it to %s.",
			policy, rg.side.Name, r.spec.Capacity.OnDemandBase, WhenEmpty, WhenEmpty)
	}
	return out
}

// expireAfter is a NodePool's node lifetime. A static NodePool (a rung's min_size share) gets none
// unless the block sets one: Karpenter expires nodes forcefully, deleting their NodeClaims without
// regard to disruption budgets (sigs.k8s.io/karpenter v1.15.0 pkg/controllers/nodeclaim/
// expiration), and a static NodePool's nodes, made together, would all expire together: the pool's
// whole minimum drained at once, its replacements held back meanwhile by the NodePool's node limit.
// Drift (a new AMI of the node class's alias) still replaces them, within the budget
// (pkg/controllers/disruption/staticdrift.go).
func (r *renderer) expireAfter(static bool) string {
	switch {
	case r.set.Disruption.ExpireAfter != "":
		return r.set.Disruption.ExpireAfter
	case r.protected(), static:
		return "Never"
	}
	return ExpireAfterDefault
}

// disruptionNotes warn once when the written settings would disrupt a protected workload.
func (r *renderer) disruptionNotes(policy string) {
	if !r.protected() || r.disruptionNoted {
		return
	}
	r.disruptionNoted = true
	d := r.set.Disruption
	w := r.spec.Workload
	if policy != WhenEmpty {
		r.note(Warning, pool.P("disruption", "consolidation_policy"), "Consolidation of a non-interruptible workload",
			"%s consolidates nodes that run pods, evicting them; this %s workload is not interruptible (workload.interruptible), so a run would be lost. Use %s, or mark the workload interruptible.", policy, w.Kind, WhenEmpty)
	}
	if d.ExpireAfter != "" && d.ExpireAfter != "Never" {
		r.note(Warning, pool.P("disruption", "expire_after"), "Expiry of a non-interruptible workload",
			"nodes expire after %s whether or not a run is on them; this %s workload is not interruptible. Use \"Never\", or mark the workload interruptible.", d.ExpireAfter, w.Kind)
	}
	if d.BudgetsSet && !blocksDrift(d.Budgets) {
		r.note(Warning, pool.P("disruption", "budgets"), "Drift of a non-interruptible workload",
			"no budget stops Karpenter from replacing drifted nodes (a new AMI, a changed NodePool) while they run pods; this %s workload is not interruptible. Add a budget with nodes = \"0\" and reasons = [\"Drifted\"].", w.Kind)
	}
}

// blocksDrift reports whether a budget allows no drifted node to be disrupted at any time.
func blocksDrift(budgets []Budget) bool {
	for _, b := range budgets {
		if (b.Nodes == "0" || b.Nodes == "0%") && b.Schedule == "" && (len(b.Reasons) == 0 || slices.Contains(b.Reasons, "Drifted")) {
			return true
		}
	}
	return false
}
