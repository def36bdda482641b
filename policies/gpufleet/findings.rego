# Findings: what the rules report, as the provider and conftest show it.
#
# The rules (package gpufleet.rules, in rules/<area>.rego and in a user's own bundle) judge one
# pool document, the input, and report {"rule", "attribute", "text"} (lib.finding) in deny and
# warn. A finding adds the pool's address and the severity: {msg, rule, address, attribute,
# severity}, msg "<rule>: <address>: <text>".
#
# Waivers: a pool's waivers ({"GF-COST-002": "reason"}: policy_waivers on gpufleet pools, tags
# gpufleet-waive-<rule id> on official resources) apply to that pool's findings of that rule. A
# waived deny is a warning whose msg names the reason; a waived warning is dropped. GF-ISO-001,
# GF-DR-001 and GF-TAG-001 cannot be waived.
#
# deny and warn here are the findings of the one pool document in input: what the provider reports
# for the pool. (The provider asks data.gpufleet.rules and does what report, waiver and waived do
# in Go, which is cheaper per pool; a Go test, TestEngine_reportsWhatFindingsRegoReports, keeps the
# two equal.) conftest's entry point (main.rego) judges every pool document of a plan with the same
# rules and the same functions below, under the plan's addresses.
package gpufleet.findings

import data.gpufleet.documents
import data.gpufleet.lib
import data.gpufleet.rules

deny contains judged_deny(f, input, input.address) if {
	some f in rules.deny
}

warn contains judged_warn(f, input, input.address) if {
	some f in rules.warn
}

# Only a pool with waivers has waived denies to report, and waivers that have no effect.
warn contains waived(f, input.address, reason, input.resource_type) if {
	input.waivers != {}
	some f in rules.deny
	reason := waiver(input, f)
}

warn contains f if {
	input.waivers != {}
	some f in ineffective_waivers(input, input.address)
}

warn contains inactive_registry if not lib.has_registry

# conftest --namespace gpufleet.findings on a plan (see lib.wrong_namespace).
deny_plan contains lib.wrong_namespace if documents.whole_plan

# The deny finding of rule result f on the pool document doc at address: reported, unless a waiver
# turns it into a warning; a malformed result is a deny naming what the rule returned.
judged_deny(f, doc, address) := report(f, address, "deny", doc.resource_type) if {
	well_formed(f)
	not waiver(doc, f)
} else := malformed(f, address) if {
	not well_formed(f)
}

# The warn finding of rule result f on the pool document doc at address: reported, unless a waiver
# drops it; a malformed result is reported (severity deny, in the warn query: conftest shows it as a
# warning), never dropped.
judged_warn(f, doc, address) := report(f, address, "warn", doc.resource_type) if {
	well_formed(f)
	not waiver(doc, f)
} else := malformed(f, address) if {
	not well_formed(f)
}

# A rule result as lib.finding returns it: rule and text strings, attribute a string or null.
well_formed(f) if {
	is_string(f.rule)
	is_string(f.text)
	_attribute_ok(f.attribute)
}

_attribute_ok(a) if is_string(a)

_attribute_ok(null)

# The finding of rule result f on the pool at address. On the official resources, the attribute and
# the message name the resource's own settings (lib.official_attribute, lib.official_text).
report(f, address, severity, type) := {
	"msg": sprintf("%s: %s: %s", [f.rule, address, f.text]),
	"rule": f.rule,
	"address": address,
	"attribute": f.attribute,
	"severity": severity,
} if {
	not lib.official_settings[type]
} else := {
	"msg": sprintf("%s: %s: %s", [f.rule, address, lib.official_text(type, f.text)]),
	"rule": f.rule,
	"address": address,
	"attribute": lib.official_attribute(type, f.attribute),
	"severity": severity,
}

# A waived deny: a warning that names the waiver's reason.
waived(f, address, reason, type) := object.union(r, {"msg": sprintf("%s (waived: %s)", [r.msg, reason])}) if {
	r := report(f, address, "warn", type)
}

# A rule result that is not what lib.finding returns: a deny that names the rule (when it says
# which) and the result, so that a broken custom rule never passes silently.
malformed(f, address) := {
	"msg": sprintf("GF-RULE-001: %s: a rule of data.gpufleet.rules (%s) returned %s, not a result of lib.finding(rule, attribute, text) with rule and text strings; fix the rule", [address, _rule_name(f), json.marshal(f)]),
	"rule": "GF-RULE-001",
	"address": address,
	"attribute": "",
	"severity": "deny",
}

_rule_name(f) := f.rule if {
	is_string(f.rule)
} else := "rule unknown"

# The reason of the pool's waiver that covers rule result f; undefined when none does. Rule ids
# match as they are, or in upper case (official resources' waiver tags are lower case).
waiver(doc, f) := reason if {
	reason := doc.waivers[f.rule]
	not f.rule in lib.non_waivable
} else := reason if {
	reason := doc.waivers[upper(f.rule)]
	not upper(f.rule) in lib.non_waivable
}

# Waivers that change nothing: of a rule that cannot be waived, or of a GF- rule the bundle does not
# have (custom rules' ids, outside GF-, cannot be checked: they may not fire on this pool).
ineffective_waivers(doc, address) := {_ineffective(rule, address, why) |
	some rule, _ in doc.waivers
	why := _ineffective_why(rule)
}

_ineffective_why(rule) := sprintf("%s cannot be waived", [rule]) if {
	rule in lib.non_waivable
} else := sprintf("the bundle has no rule %s", [rule]) if {
	startswith(rule, "GF-")
	not rule in lib.rule_ids
}

_ineffective(rule, address, why) := {
	"msg": sprintf("GF-WAIVE-001: %s: the waiver of %s has no effect: %s; remove it", [address, rule, why]),
	"rule": "GF-WAIVE-001",
	"address": address,
	"attribute": "",
	"severity": "warn",
}

inactive_registry := {
	"msg": "GF-DATA-001: no client registry in the policy data (data.gpufleet.clients), so data residency (GF-DR-001), dedicated and MIG isolation (GF-ISO-002, GF-ISO-004), budgets (GF-COST-004), and the registry and cost-centre checks of GF-TAG-001 are inactive; pass the policy data (conftest --data <file>, provider policy.data_files)",
	"rule": "GF-DATA-001",
	"address": "",
	"attribute": "",
	"severity": "warn",
}
