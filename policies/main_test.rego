package main_test

import data.gpufleet.fixtures as fx
import data.gpufleet.lib
import data.main

input_rules(plan) := rules if {
	rules := {[f.rule, f.severity] | some f in (main.deny | main.warn)} with input as plan
}

test_state_is_not_a_plan if {
	state := {"format_version": "1.0", "terraform_version": "1.11.4", "values": {"root_module": {}}}
	input_rules(state) == {["GF-INPUT-001", "deny"]}
	[f] := [f | some f in main.deny] with input as state
	f.msg == "GF-INPUT-001: input: the input is Terraform state (terraform show -json without a plan file), not a plan; run conftest on the JSON of a plan: terraform show -json plan.out > plan.json"
}

test_empty_object_and_other_formats_are_not_plans if {
	input_rules({}) == {["GF-INPUT-001", "deny"]}
	input_rules({"format_version": "2.0", "resource_changes": []}) == {["GF-INPUT-001", "deny"]}
	input_rules({"format_version": "1.2"}) == {["GF-INPUT-001", "deny"]}
	[f] := [f | some f in main.deny] with input as {"format_version": "2.0", "resource_changes": []}
		with data.conftest.file.name as "plan.json"
	startswith(f.msg, `GF-INPUT-001: plan.json: the plan's format_version "2.0" is not one this bundle knows (1.x)`)
}

test_plans_are_plans if {
	input_rules({"format_version": "1.2", "planned_values": {}}) == set()
	input_rules({"format_version": "1.1", "resource_changes": []}) == set()
}

test_data003_region_not_in_the_plan if {
	doc := {"resource_type": "gpufleet_eks_node_pool", "cloud": "aws", "region": null, "waivers": {}}
	fs := [f | some f in main.warn; f.rule == "GF-DATA-003"] with input as {"format_version": "1.2", "resource_changes": []}
		with data.gpufleet.documents.pools as [["p", doc], ["q", object.union(doc, {"region": "us-east-1"})]]
	[f] := fs
	f.address == "p"
	f.attribute == "region"
	contains(f.msg, "could not judge this pool")
}

# Pools that break every rule of lib.warn_rule_ids (and many others): none of those rules denies,
# and a waiver of a deny is still reported when another waiver names a warn-only rule.
warn_only_pools := [
	fx.pool({"workload": {"kind": "training", "interruptible": true}, "capacity": {"spot_percentage": 0}}),
	fx.pool({"workload": {"interruptible": false}, "scaling": {"max_size": 4}, "capacity": {"spot_percentage": 50, "on_demand_base": 0}}),
	fx.pool({"workload": {"kind": "inference", "gpu_memory_gib": 4}, "gpu": {"model": "H100-80GB", "class": "training", "memory_gib": 80, "slice_memory_gib": 80}, "instance_types": ["p5.48xlarge"], "region": "us-east-1"}),
	fx.pool({"workload": {"environment": "production"}, "capacity": {"spot_percentage": 50, "on_demand_base": 0}, "taints": []}),
]

test_warn_only_rules_never_deny if {
	warned := {f.rule | some doc in warn_only_pools; some f in data.gpufleet.rules.warn with input as doc with data.gpufleet.catalog as fx.catalog}
	lib.warn_rule_ids - warned == set()
	denied := {f.rule | some doc in warn_only_pools; some f in data.gpufleet.rules.deny with input as doc with data.gpufleet.catalog as fx.catalog}
	count(denied & lib.warn_rule_ids) == 0
	count(denied) > 0
}

test_waived_deny_beside_a_warn_only_waiver if {
	doc := object.union(warn_only_pools[3], {"waivers": {"GF-COST-001": "canary", "GF-RS-002": "benchmark"}})
	fs := [f | some f in main.warn; f.rule == "GF-COST-001"] with input as {"format_version": "1.2", "resource_changes": []}
		with data.gpufleet.documents.pools as [["p", doc]]
	[f] := fs
	endswith(f.msg, "(waived: canary)")
	only_warn_waivers := object.union(warn_only_pools[3], {"waivers": {"GF-RS-002": "benchmark"}})
	count([f | some f in main.warn; f.rule == "GF-COST-001"]) == 0 with input as {"format_version": "1.2", "resource_changes": []}
		with data.gpufleet.documents.pools as [["p", only_warn_waivers]]
}
