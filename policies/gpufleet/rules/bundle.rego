# The bundle's own warn rules (bundle_warn, in rightsizing.rego and cost.rego) are reported in warn,
# beside a team's own warn rules, behind one guard: conftest's deny query evaluates warn with
# own_warn_rules_only pinned to true, to find malformed results of a team's warn rules (main.rego),
# and then enters this one body instead of every bundle rule's.
package gpufleet.rules

default own_warn_rules_only := false

warn contains f if {
	not own_warn_rules_only
	some f in bundle_warn
}
