# Findings of every rule, after waivers.
#
# - deny: deny findings that no waiver covers.
# - warn: warn findings that no waiver covers, waived deny findings (severity "warn", the msg
#   names the waiver's reason), and GF-DATA-001 once when no client registry was loaded.
#
# A pool's waivers ({"GF-COST-002": "reason"}: policy_waivers on gpufleet pools, tags
# gpufleet-waive-<rule id> on official resources) apply to that pool's findings of that rule.
# GF-ISO-001, GF-DR-001 and GF-TAG-001 cannot be waived.
package gpufleet.findings

import data.gpufleet.documents
import data.gpufleet.lib

# Findings of the rule packages (data.gpufleet.rules.<area>) before waivers.
rule_deny contains f if {
	some area
	some f in data.gpufleet.rules[area].deny
}

rule_warn contains f if {
	some area
	some f in data.gpufleet.rules[area].warn
}

# Without waivers (the common case) no finding needs a waiver lookup.
deny contains f if {
	count(_waived_pools) == 0
	some f in rule_deny
}

deny contains f if {
	count(_waived_pools) > 0
	some f in rule_deny
	not waiver(f)
}

warn contains waived(f, reason) if {
	some f in _waivable_deny
	reason := waiver(f)
}

# Deny findings of the pools that have waivers: the warn query needs these, so there the deny
# rules run on those pools only, not on the whole plan. Plan-wide aggregates (GF-COST-004's
# per-client totals) keep their whole-plan values.
_waivable_deny := fs if {
	count(_waived_pools) > 0
	budgets := data.gpufleet.rules.cost.client_pools
	fs := rule_deny with data.gpufleet.documents.pools as _waived_pools
		with data.gpufleet.rules.cost.client_pools as budgets
}

# The pools that have waivers (one pass over the plan).
_waived_pools := [doc |
	some doc in documents.pools
	doc.waivers != {} # cheaper than count() on every pool of the plan
	is_object(doc.waivers)
]

warn contains f if {
	count(_waived_pools) == 0
	some f in rule_warn
}

warn contains f if {
	count(_waived_pools) > 0
	some f in rule_warn
	not waiver(f)
}

warn contains inactive_registry if {
	not lib.has_registry
	some _ in documents.pools
}

inactive_registry := {
	"msg": "GF-DATA-001: no client registry in the policy data (data.gpufleet.clients), so data residency (GF-DR-001), dedicated and MIG isolation (GF-ISO-002, GF-ISO-004), budgets (GF-COST-004), and the registry and cost-centre checks of GF-TAG-001 are inactive; pass the policy data (conftest --data <file>, provider policy.data_files)",
	"rule": "GF-DATA-001",
	"address": "",
	"attribute": "",
	"severity": "warn",
}

# The reason of the waiver that covers a finding; undefined when none does.
waiver(f) := reason if {
	not f.rule in lib.non_waivable
	all_waivers := _waivers
	reason := all_waivers[f.address][f.rule]
}

# address -> waivers, for the pools that have any.
_waivers := {doc.address: doc.waivers | some doc in _waived_pools}

waived(f, reason) := object.union(f, {
	"msg": sprintf("%s (waived: %s)", [f.msg, reason]),
	"severity": "warn",
})
