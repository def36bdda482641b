# The bundle's own warn rules (bundle_warn, in rightsizing.rego and cost.rego) are reported in warn,
# beside a team's own warn rules, behind one guard: conftest's deny query evaluates warn with
# data.gpufleet.rules.own_warn_rules_only pinned to true, to find malformed results of a team's warn
# rules (main.rego), and then enters this one body instead of every bundle rule's.
#
# The flag is a path of the data tree, unset (no rule, no policy data) unless pinned: inside
# conftest's `with input as doc` a reference to a rule, even a constant one, evaluates that rule again
# for every pool (about 26 allocations), a reference to data that is not there costs a few. The
# policy data's schema has no `rules` key (gpufleet-policy validate and the provider refuse one).
package gpufleet.rules

warn contains f if {
	not data.gpufleet.rules.own_warn_rules_only
	some f in bundle_warn
}
