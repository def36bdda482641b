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

import data.gpufleet.lib
import data.gpufleet.rules

deny contains report(f, input.address, "deny") if {
	some f in rules.deny
	not waiver(input, f)
}

warn contains report(f, input.address, "warn") if {
	some f in rules.warn
	not waiver(input, f)
}

# Only a pool with waivers has waived denies to report.
warn contains waived(f, input.address, reason) if {
	input.waivers != {}
	some f in rules.deny
	reason := waiver(input, f)
}

warn contains inactive_registry if not lib.has_registry

# The finding of rule result f on the pool at address.
report(f, address, severity) := {
	"msg": sprintf("%s: %s: %s", [f.rule, address, f.text]),
	"rule": f.rule,
	"address": address,
	"attribute": f.attribute,
	"severity": severity,
}

# A waived deny: a warning that names the waiver's reason.
waived(f, address, reason) := {
	"msg": sprintf("%s: %s: %s (waived: %s)", [f.rule, address, f.text, reason]),
	"rule": f.rule,
	"address": address,
	"attribute": f.attribute,
	"severity": "warn",
}

# The reason of the pool's waiver that covers rule result f; undefined when none does.
waiver(doc, f) := reason if {
	reason := doc.waivers[f.rule]
	not f.rule in lib.non_waivable
}

inactive_registry := {
	"msg": "GF-DATA-001: no client registry in the policy data (data.gpufleet.clients), so data residency (GF-DR-001), dedicated and MIG isolation (GF-ISO-002, GF-ISO-004), budgets (GF-COST-004), and the registry and cost-centre checks of GF-TAG-001 are inactive; pass the policy data (conftest --data <file>, provider policy.data_files)",
	"rule": "GF-DATA-001",
	"address": "",
	"attribute": "",
	"severity": "warn",
}
