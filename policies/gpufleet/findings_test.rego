package gpufleet.findings_test

import data.gpufleet.findings
import data.gpufleet.fixtures as fx
import data.main

gpu_taint := {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}

# Production inference with its floor on spot (GF-COST-001) and spot on a non-interruptible
# workload (GF-COST-003).
spot_floor := {
	"workload": {"environment": "production"},
	"scaling": {"min_size": 1, "max_size": 4, "desired_size": 2},
	"capacity": {"spot_percentage": 50, "on_demand_base": 0},
}

test_findings_are_the_contract_objects if {
	fs := findings.deny with input as fx.pool(spot_floor)
		with data.gpufleet.clients as fx.clients
	count(fs) == 1
	some f in fs
	object.keys(f) == {"msg", "rule", "address", "attribute", "severity"}
	startswith(f.msg, concat("", [f.rule, ": ", f.address, ": "]))
}

test_waiver_turns_a_deny_into_a_warning if {
	pool := fx.pool(object.union(spot_floor, {"waivers": {"GF-COST-001": "canary until 2026-12-31"}}))
	count(findings.deny) == 0 with input as pool with data.gpufleet.clients as fx.clients
	ws := fx.of(findings.warn, "GF-COST-001") with input as pool with data.gpufleet.clients as fx.clients
	count(ws) == 1
	some w in ws
	w.severity == "warn"
	w.attribute == "capacity.on_demand_base"
	startswith(w.msg, "GF-COST-001: gpufleet_eks_node_pool.test: production inference")
	endswith(w.msg, "(waived: canary until 2026-12-31)")
}

test_waiver_drops_a_warning if {
	count(fx.of(findings.warn, "GF-COST-003")) == 1 with input as fx.pool(spot_floor)
		with data.gpufleet.clients as fx.clients
	pool := fx.pool(object.union(spot_floor, {"waivers": {"GF-COST-003": "accepted"}}))
	count(fx.of(findings.warn, "GF-COST-003")) == 0 with input as pool
		with data.gpufleet.clients as fx.clients
}

test_waiver_for_another_rule_changes_nothing if {
	pool := fx.pool(object.union(spot_floor, {"waivers": {"GF-RS-002": "unrelated"}}))
	fx.rules(findings.deny) == {"GF-COST-001"} with input as pool with data.gpufleet.clients as fx.clients
}

test_non_waivable_rules_stay_denied if {
	pool := fx.pool({
		"client": "", "region": "us-east-1", "taints": [],
		"waivers": {"GF-ISO-001": "no", "GF-TAG-001": "no"},
	})
	fx.rules(findings.deny) == {"GF-ISO-001", "GF-TAG-001"} with input as pool
		with data.gpufleet.clients as fx.clients
	outside := fx.pool({"region": "us-east-1", "zones": [], "waivers": {"GF-DR-001": "no"}})
	fx.rules(findings.deny) == {"GF-DR-001"} with input as outside
		with data.gpufleet.clients as fx.clients

	# the waiver has no effect, and a warning says so
	[w] := [w | some w in findings.warn; w.rule == "GF-WAIVE-001"] with input as outside with data.gpufleet.clients as fx.clients
	w.msg == "GF-WAIVE-001: gpufleet_eks_node_pool.test: the waiver of GF-DR-001 has no effect: GF-DR-001 cannot be waived; remove it"
	fx.rules(findings.warn) == {"GF-WAIVE-001"} with input as outside with data.gpufleet.clients as fx.clients
}

test_waiver_of_an_unknown_gf_rule_says_it_has_no_effect if {
	pool := fx.pool({"waivers": {"GF-COST-02": "typo", "ACME-001": "custom rule, not checked"}})
	fs := [w.msg | some w in findings.warn; w.rule == "GF-WAIVE-001"] with input as pool
	fs == ["GF-WAIVE-001: gpufleet_eks_node_pool.test: the waiver of GF-COST-02 has no effect: the bundle has no rule GF-COST-02; remove it"]
}

# Custom rules (ids outside GF-) are waived like the bundle's, also by official resources' waiver
# tags, whose rule ids are read in upper case.
test_custom_rule_waived if {
	pool := fx.pool({"waivers": {"ACME-001": "approved by ml-platform"}})
	fs := findings.warn with input as pool with data.gpufleet.rules.deny as {{"rule": "ACME-001", "attribute": "region", "text": "no"}}
	[f] := [f | some f in fs; f.rule == "ACME-001"]
	f.msg == "ACME-001: gpufleet_eks_node_pool.test: no (waived: approved by ml-platform)"
	count(findings.deny) == 0 with input as pool with data.gpufleet.rules.deny as {{"rule": "ACME-001", "attribute": "region", "text": "no"}}
	lower_case := fx.pool({"waivers": {"ACME-NO-AP": "approved"}})
	count(findings.deny) == 0 with input as lower_case with data.gpufleet.rules.deny as {{"rule": "acme-no-ap", "attribute": null, "text": "no"}}
}

# A malformed result of a custom rule is a deny naming the rule, never dropped.
test_malformed_rule_results_are_denied if {
	results := {"just a string", {"rule": "ACME-002", "attribute": "region"}, {"rule": "ACME-003", "attribute": 7, "text": "x"}}
	fs := findings.deny with input as fx.doc with data.gpufleet.rules.deny as results
	[f.msg | some f in fs] == [
		`GF-RULE-001: gpufleet_eks_node_pool.test: a rule of data.gpufleet.rules (ACME-002) returned {"attribute":"region","rule":"ACME-002"}, not a result of lib.finding(rule, attribute, text) with rule and text strings; fix the rule`,
		`GF-RULE-001: gpufleet_eks_node_pool.test: a rule of data.gpufleet.rules (ACME-003) returned {"attribute":7,"rule":"ACME-003","text":"x"}, not a result of lib.finding(rule, attribute, text) with rule and text strings; fix the rule`,
		`GF-RULE-001: gpufleet_eks_node_pool.test: a rule of data.gpufleet.rules (rule unknown) returned "just a string", not a result of lib.finding(rule, attribute, text) with rule and text strings; fix the rule`,
	]
	ws := findings.warn with input as fx.doc with data.gpufleet.rules.warn as {"oops"}
	{w.rule | some w in ws; w.severity == "deny"} == {"GF-RULE-001"}
}

# Official resources: attribute and message name the resource's own settings.
test_official_attribute_and_text if {
	f := {"rule": "GF-COST-001", "attribute": "capacity.on_demand_base", "text": "production inference with capacity.spot_percentage 100 and capacity.on_demand_base 0: part of its guaranteed floor of 2 node(s) (max(1, scaling.min_size)) runs on spot and can be reclaimed at once; set capacity.on_demand_base to at least 2"}
	eks := findings.report(f, "aws_eks_node_group.x", "deny", "aws_eks_node_group")
	eks.attribute == "capacity_type"
	eks.msg == `GF-COST-001: aws_eks_node_group.x: production inference with capacity_type "SPOT": part of its guaranteed floor of 2 node(s) (max(1, scaling_config[0].min_size)) runs on spot and can be reclaimed at once; set capacity_type = "ON_DEMAND" (a node group has no on-demand base) for a floor of 2`
	gke := findings.report({"rule": "GF-RS-001", "attribute": "gpu.mig.profile", "text": "choose a larger MIG profile (gpu.mig)"}, "google_container_node_pool.x", "deny", "google_container_node_pool")
	gke.attribute == "node_config[0].guest_accelerator[0].gpu_partition_size"
	gke.msg == "GF-RS-001: google_container_node_pool.x: choose a larger MIG profile (node_config[0].guest_accelerator[0].gpu_partition_size)"
	ours := findings.report(f, "gpufleet_eks_node_pool.x", "deny", "gpufleet_eks_node_pool")
	ours.attribute == "capacity.on_demand_base"
}

# A ComputeClass: the spot share of its document is its ladder's spot rung.
test_compute_class_attribute_and_text if {
	f := {"rule": "GF-COST-001", "attribute": "capacity.on_demand_base", "text": "production inference with capacity.spot_percentage 100 and capacity.on_demand_base 0: part of its guaranteed floor of 1 node(s) (max(1, scaling.min_size)) runs on spot and can be reclaimed at once; set capacity.on_demand_base to at least 1"}
	cc := findings.report(f, "gpufleet_gke_compute_class.x", "deny", "gpufleet_gke_compute_class")
	cc.attribute == "capacity.ladder"
	cc.msg == `GF-COST-001: gpufleet_gke_compute_class.x: production inference with a "spot" rung in capacity.ladder: part of its guaranteed floor of 1 node(s) (max(1, scaling.min_size)) runs on spot and can be reclaimed at once; remove the "spot" rung from capacity.ladder (a ComputeClass has no on-demand base) for a floor of 1`
	w := findings.report({"rule": "GF-COST-003", "attribute": "capacity.spot_percentage", "text": "capacity.spot_percentage is 100 but workload.interruptible is false: up to 4 node(s) run on spot and can be reclaimed at short notice; set capacity.spot_percentage = 0, or make the workload checkpoint and set workload.interruptible = true"}, "x", "warn", "gpufleet_gke_compute_class")
	w.msg == `GF-COST-003: x: capacity.ladder has a "spot" rung but workload.interruptible is false: up to 4 node(s) run on spot and can be reclaimed at short notice; remove the "spot" rung from capacity.ladder, or make the workload checkpoint and set workload.interruptible = true`
}

# A plan whose gpufleet pools carry these documents (policy_document), at addresses "p0", "p1", ...
plan_of(docs) := {"format_version": "1.2", "resource_changes": [rc |
	some i, doc in docs
	rc := {
		"address": sprintf("p%d", [i]), "mode": "managed", "type": "gpufleet_eks_node_pool", "name": sprintf("p%d", [i]),
		"change": {"actions": ["create"], "after": {"policy_document": doc}, "after_unknown": {}},
	}
]}

test_waived_budget_keeps_the_whole_plan_total if {
	plan := plan_of([
		fx.pool({"cost": {"monthly_usd": 30000}}),
		fx.pool({"cost": {"monthly_usd": 30000}, "waivers": {"GF-COST-004": "approved overrun"}}),
	])
	denied := fx.of(main.deny, "GF-COST-004") with input as plan with data.gpufleet.clients as fx.clients
	{f.address | some f in denied} == {"p0"}
	warned := fx.of(main.warn, "GF-COST-004") with input as plan with data.gpufleet.clients as fx.clients
	some w in warned
	w.address == "p1"
	contains(w.msg, "2 pool(s) in this plan cost an estimated $60000.00/month")
	endswith(w.msg, "(waived: approved overrun)")
}

test_inactive_registry_warns_once if {
	ws := fx.of(main.warn, "GF-DATA-001") with input as plan_of([fx.doc, fx.doc])
	ws == {{
		"msg": "GF-DATA-001: no client registry in the policy data (data.gpufleet.clients), so data residency (GF-DR-001), dedicated and MIG isolation (GF-ISO-002, GF-ISO-004), budgets (GF-COST-004), and the registry and cost-centre checks of GF-TAG-001 are inactive; pass the policy data (conftest --data <file>, provider policy.data_files)",
		"rule": "GF-DATA-001",
		"address": "",
		"attribute": "",
		"severity": "warn",
	}}
	ws == fx.of(findings.warn, "GF-DATA-001") with input as fx.doc
}

test_registry_present_or_no_pools_no_data_warning if {
	count(fx.of(findings.warn, "GF-DATA-001")) == 0 with input as fx.doc with data.gpufleet.clients as fx.clients
	count(fx.of(main.warn, "GF-DATA-001")) == 0 with input as plan_of([fx.doc]) with data.gpufleet.clients as fx.clients
	count(fx.of(main.warn, "GF-DATA-001")) == 0 with input as {"resource_changes": []}

	# thresholds alone are not a registry
	count(fx.of(findings.warn, "GF-DATA-001")) == 1 with input as fx.doc with data.gpufleet.thresholds as {"oversize_factor": 3}
}

test_compliant_pool_has_no_findings if {
	count(findings.deny) == 0 with input as fx.doc with data.gpufleet.clients as fx.clients with data.gpufleet.catalog as fx.catalog
	count(findings.warn) == 0 with input as fx.doc with data.gpufleet.clients as fx.clients with data.gpufleet.catalog as fx.catalog
}

# conftest reports what the provider reports for the same document, under the plan's address.
test_main_is_what_the_provider_reports if {
	waived := fx.pool(object.union(spot_floor, {"waivers": {"GF-COST-003": "accepted", "GF-COST-001": "canary"}}))
	every doc in [fx.pool(spot_floor), waived, fx.doc] {
		provider := {"deny": findings.deny, "warn": findings.warn} with input as doc with data.gpufleet.clients as fx.clients
		conftest := {"deny": main.deny, "warn": main.warn} with input as plan_of([doc]) with data.gpufleet.clients as fx.clients
		conftest == {severity: {readdressed(f) | some f in fs} | some severity, fs in provider}
	}
	fx.rules(main.warn) == {"GF-COST-001"} with input as plan_of([waived]) with data.gpufleet.clients as fx.clients
}

readdressed(f) := object.union(f, {
	"address": "p0",
	"msg": replace(f.msg, ": gpufleet_eks_node_pool.test: ", ": p0: "),
})

test_main_finds_spot_floor if {
	fx.rules(main.deny) == {"GF-COST-001"} with input as plan_of([fx.pool(spot_floor)]) with data.gpufleet.clients as fx.clients
}

test_main_on_plan_json if {
	plan := {"format_version": "1.2", "resource_changes": [{
		"address": "gpufleet_eks_node_pool.p", "mode": "managed", "type": "gpufleet_eks_node_pool", "name": "p",
		"change": {"actions": ["create"], "after": {"client": "", "effective_taints": [gpu_taint]}, "after_unknown": {}},
	}]}
	fx.rules(main.deny) == {"GF-TAG-001"} with input as plan
	fx.rules(main.warn) == {"GF-DATA-001", "GF-DATA-003"} with input as plan # no region in the plan
}

test_benchmark_baseline_is_inert_in_the_bundle if {
	# policies/bench/one_rule (package main) would deny this pool; loaded with the bundle it stays quiet.
	plan := {"format_version": "1.2", "resource_changes": [{
		"address": "gpufleet_eks_node_pool.p", "mode": "managed", "type": "gpufleet_eks_node_pool", "name": "p",
		"change": {"actions": ["create"], "after": {"effective_taints": [gpu_taint]}, "after_unknown": {"client": true}},
	}]}
	count(main.deny) == 0 with input as plan
}
