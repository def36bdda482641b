package main_test

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
