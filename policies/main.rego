# conftest entry point (conftest's default namespace, main):
#
#   terraform show -json plan.out > plan.json
#   conftest test --policy policies --data policy-data.yaml plan.json
#
# deny -> failures, warn -> warnings. Results are objects; conftest prints their msg and keeps
# rule, address, attribute and severity as metadata (conftest --output json).
#
# Every pool document of the plan is judged on its own, by the rules the provider runs on each
# pool (data.gpufleet.rules, with the pool's document as input), and reported under its plan
# address with the waiver handling of findings.rego. The rules are called directly, not through
# data.gpufleet.findings: every extra rule layer would be evaluated again for every pool.
package main

import data.gpufleet.documents
import data.gpufleet.findings
import data.gpufleet.lib
import data.gpufleet.rules

# GF-COST-004 judges a pool against its client's total over the plan: the totals are computed once,
# over the plan, and pinned while each pool is judged.
deny contains findings.judged_deny(f, doc, address) if {
	totals := rules.client_totals
	some [address, doc] in documents.pools
	some f in rules.deny with input as doc with rules.client_totals as totals
}

warn contains findings.judged_warn(f, doc, address) if {
	some [address, doc] in documents.pools
	some f in rules.warn with input as doc
	findings.well_formed(f) # a malformed result is a deny (below)
}

# A warn rule whose result is malformed fails the run, as a deny rule's does (GF-RULE-001), so a
# broken custom rule never passes as a warning. Only a team's own rules can be malformed: with
# data.gpufleet.rules.own_warn_rules_only pinned to true, the bundle's own warn rules stop at their one guard
# (rules/bundle.rego), so this costs a plan without custom rules about 5 µs a pool.
deny contains findings.malformed(f, address) if {
	some [address, doc] in documents.pools
	some f in rules.warn with input as doc with data.gpufleet.rules.own_warn_rules_only as true
	not findings.well_formed(f)
}

# Only pools with waivers have their deny rules evaluated here, and their waivers checked; not those
# whose waivers all name rules that only warn (lib.rules_that_only_warn) or cannot be waived
# (lib.non_waivable): no deny of theirs can be waived.
warn contains findings.waived(f, address, reason, doc.resource_type) if {
	some [address, doc] in _waiving_pools
	_may_waive_a_deny(doc.waivers)
	totals := rules.client_totals
	some f in rules.deny with input as doc with rules.client_totals as totals
	reason := findings.waiver(doc, f)
}

warn contains f if {
	some [address, doc] in _waiving_pools
	some f in findings.ineffective_waivers(doc, address)
}

# The pools with waivers, found in one pass for the two rules above (most pools have none).
_waiving_pools := [[address, doc] |
	some [address, doc] in documents.pools
	doc.waivers != {}
]

_may_waive_a_deny(waivers) if {
	some rule, _ in waivers
	not upper(rule) in lib.rules_that_only_warn
	not upper(rule) in lib.non_waivable
}

warn contains findings.inactive_registry if {
	not lib.has_registry
	count(documents.pools) > 0
}

# GF-DATA-003: a pool whose region is not in the plan (null: an AWS provider whose region comes only
# from the environment, AWS_REGION or a profile, or a location known at apply only). Residency and
# the cost estimates cannot judge it: said once, as a warning, never silently. (A check of the plan:
# the provider itself knows its region.)
warn contains {
	"msg": sprintf("GF-DATA-003: %s: %s", [address, documents.no_region_text]),
	"rule": "GF-DATA-003",
	"address": address,
	"attribute": lib.official_attribute(doc.resource_type, {"aws": "region", "gcp": "location"}[doc.cloud]),
	"severity": "warn",
} if {
	some [address, doc] in documents.pools
	doc.region == null
}

# Official resources the bundle could not judge (documents.unjudged): said once, never silent.
warn contains {
	"msg": sprintf("%s: %s: %s", [rule, address, text]),
	"rule": rule,
	"address": address,
	"attribute": attribute,
	"severity": "warn",
} if {
	some [rule, address, attribute, text] in documents.unjudged
}

# Input that is not a Terraform plan (state, {}, another format): one clear failure instead of
# passing checks.
deny contains {
	"msg": sprintf("GF-INPUT-001: %s: %s; run conftest on the JSON of a plan: terraform show -json plan.out > plan.json", [_file, why]),
	"rule": "GF-INPUT-001",
	"address": "",
	"attribute": "",
	"severity": "deny",
} if {
	why := documents.not_a_plan
}

default _file := "input"

_file := data.conftest.file.name
