package gpufleet.rules.cost_test

import data.gpufleet.findings
import data.gpufleet.fixtures as fx
import data.gpufleet.rules as cost_rules
import data.main

production := {"workload": {"environment": "production"}}

# --- GF-COST-001 -----------------------------------------------------------------------------

test_cost001_floor_on_spot if {
	pool := fx.pool(object.union(production, {"capacity": {"spot_percentage": 50, "on_demand_base": 0}}))
	fs := fx.of(findings.deny, "GF-COST-001") with input as pool
	count(fs) == 1
	some f in fs
	f.severity == "deny"
	f.attribute == "capacity.on_demand_base"
	startswith(f.msg, "GF-COST-001: gpufleet_eks_node_pool.test: production inference with capacity.spot_percentage 50 and capacity.on_demand_base 0")
	contains(f.msg, "set capacity.on_demand_base to at least 1")
}

test_cost001_floor_is_min_size if {
	pool := fx.pool(object.union(production, {"scaling": {"min_size": 3}, "capacity": {"spot_percentage": 100, "on_demand_base": 1}}))
	some f in fx.of(findings.deny, "GF-COST-001") with input as pool
	contains(f.msg, "guaranteed floor of 3 node(s)")
	contains(f.msg, "at least 3")
}

test_cost001_compliant if {
	base_covers := fx.pool(object.union(production, {"scaling": {"min_size": 2}, "capacity": {"spot_percentage": 70, "on_demand_base": 2}}))
	count(fx.of(findings.deny, "GF-COST-001")) == 0 with input as base_covers
	count(fx.of(findings.deny, "GF-COST-001")) == 0 with input as fx.pool(production)
	staging := fx.pool({"capacity": {"spot_percentage": 50, "on_demand_base": 0}})
	count(fx.of(findings.deny, "GF-COST-001")) == 0 with input as staging
	training := fx.pool(object.union(production, {"workload": {"kind": "training"}, "capacity": {"spot_percentage": 50, "on_demand_base": 0}}))
	count(fx.of(findings.deny, "GF-COST-001")) == 0 with input as training
}

test_cost001_unknown if {
	unknown_pct := fx.pool(object.union(production, {"capacity": {"spot_percentage": null, "on_demand_base": 0}}))
	count(fx.of(findings.deny, "GF-COST-001")) == 0 with input as unknown_pct
	unknown_base := fx.pool(object.union(production, {"capacity": {"spot_percentage": 50, "on_demand_base": null}}))
	count(fx.of(findings.deny, "GF-COST-001")) == 0 with input as unknown_base

	# min_size unknown: the floor is at least one node
	unknown_min := fx.pool(object.union(production, {"scaling": {"min_size": null}, "capacity": {"spot_percentage": 50, "on_demand_base": 1}}))
	count(fx.of(findings.deny, "GF-COST-001")) == 0 with input as unknown_min
}

# --- GF-COST-002 -----------------------------------------------------------------------------

training := {
	"workload": {"kind": "training", "interruptible": true},
	"scaling": {"min_size": 0, "max_size": 4, "desired_size": 3},
	"capacity": {"spot_percentage": 0, "on_demand_base": 1},
}

test_cost002_names_the_saving if {
	fs := fx.of(findings.warn, "GF-COST-002") with input as fx.pool(training)
		with data.gpufleet.catalog as fx.catalog
	count(fs) == 1
	some f in fs
	f.severity == "warn"
	f.attribute == "capacity.spot_percentage"

	# 2 nodes above the base x (0.9014 - 0.3606) $/h x 730 h
	f.msg == "GF-COST-002: gpufleet_eks_node_pool.test: interruptible training runs entirely on-demand; capacity.spot_percentage = 100 would save an estimated $789.57/month (2 node(s) above capacity.on_demand_base at the catalog spot price, 730 h/month)"
}

test_cost002_gke_n1_price if {
	pool := fx.pool(object.union(training, {
		"cloud": "gcp", "region": "us-central1", "instance_types": ["n1-standard-8"],
		"gpu": {"model": "T4", "class": "inference", "memory_gib": 16, "per_node": 2, "slice_memory_gib": 16},
	}))
	some f in fx.of(findings.warn, "GF-COST-002") with input as pool
		with data.gpufleet.catalog as fx.catalog

	# machine (0.38 - 0.0798) + 2 x T4 (0.35 - 0.14), 2 nodes, 730 h
	contains(f.msg, "save an estimated $1051.49/month")
}

test_cost002_no_price if {
	some f in fx.of(findings.warn, "GF-COST-002") with input as fx.pool(object.union(training, {"region": "ap-south-2"}))
		with data.gpufleet.catalog as fx.catalog
	contains(f.msg, "the saving is not estimated")
}

test_cost002_compliant if {
	spot := fx.pool(object.union(training, {"capacity": {"spot_percentage": 100}}))
	count(fx.of(findings.warn, "GF-COST-002")) == 0 with input as spot
	not_interruptible := fx.pool(object.union(training, {"workload": {"interruptible": false}}))
	count(fx.of(findings.warn, "GF-COST-002")) == 0 with input as not_interruptible
	block := fx.pool(object.union(training, {"capacity": {"reservation": {"type": "capacity-block", "id": "cr-1", "name": null, "project": null}}}))
	count(fx.of(findings.warn, "GF-COST-002")) == 0 with input as block
}

test_cost002_unknown if {
	count(fx.of(findings.warn, "GF-COST-002")) == 0 with input as fx.pool(object.union(training, {"workload": {"interruptible": null}}))
	count(fx.of(findings.warn, "GF-COST-002")) == 0 with input as fx.pool(object.union(training, {"capacity": {"spot_percentage": null}}))
}

# --- GF-COST-003 -----------------------------------------------------------------------------

spot_mix := {"scaling": {"min_size": 0, "max_size": 4, "desired_size": 2}, "capacity": {"spot_percentage": 50, "on_demand_base": 0}}

test_cost003_spot_without_interruptible if {
	fs := fx.of(findings.warn, "GF-COST-003") with input as fx.pool(spot_mix)
	count(fs) == 1
	some f in fs
	f.attribute == "capacity.spot_percentage"
	startswith(f.msg, "GF-COST-003: gpufleet_eks_node_pool.test: capacity.spot_percentage is 50 but workload.interruptible is false: up to 2 node(s) run on spot")
}

test_cost003_compliant if {
	count(fx.of(findings.warn, "GF-COST-003")) == 0 with input as fx.pool(object.union(spot_mix, {"workload": {"interruptible": true}}))
	count(fx.of(findings.warn, "GF-COST-003")) == 0 with input as fx.doc

	# no node above the base can be spot
	count(fx.of(findings.warn, "GF-COST-003")) == 0 with input as fx.pool({"scaling": {"max_size": 2}, "capacity": {"spot_percentage": 50, "on_demand_base": 2}})
}

test_cost003_unknown if {
	count(fx.of(findings.warn, "GF-COST-003")) == 0 with input as fx.pool(object.union(spot_mix, {"workload": {"interruptible": null}}))
	count(fx.of(findings.warn, "GF-COST-003")) == 0 with input as fx.pool(object.union(spot_mix, {"scaling": {"max_size": null}}))
	count(fx.of(findings.warn, "GF-COST-003")) == 0 with input as fx.pool(object.union(spot_mix, {"capacity": {"on_demand_base": null}}))
}

# --- GF-COST-004 -----------------------------------------------------------------------------

# A plan's pools as [address, document] (data.gpufleet.documents.pools), judged by main.rego.
acme_pools := [
	["a", fx.pool({"cost": {"monthly_usd": 30000}})],
	["b", fx.pool({"cost": {"monthly_usd": 30000}})],
	["c", fx.pool({"cost": {"monthly_usd": null}})],
	["d", fx.pool({"client": "initech", "cost": {"monthly_usd": 30000}})],
]

plan_denies(pools, clients) := fs if {
	fs := fx.of(main.deny, "GF-COST-004") with input as {"resource_changes": []}
		with data.gpufleet.documents.pools as pools
		with data.gpufleet.clients as clients
}

test_cost004_client_over_budget if {
	fs := plan_denies(acme_pools, fx.clients)
	{f.address | some f in fs} == {"a", "b"}
	some f in fs
	f.address == "a"
	f.attribute == "scaling.desired_size"
	f.msg == `GF-COST-004: a: client "acme"'s 2 pool(s) in this plan cost an estimated $60000.00/month, over its monthly budget of $50000.00 (this pool: $30000.00/month); reduce sizes, use spot where the workload allows, or raise the budget in the policy data`
}

test_cost004_totals_per_client_with_a_budget if {
	totals := cost_rules.client_totals with input as {"resource_changes": []}
		with data.gpufleet.documents.pools as acme_pools
		with data.gpufleet.clients as fx.clients
	totals == {"acme": [2, 60000], "initech": [1, 30000], "globex": [0, 0]}
}

test_cost004_within_budget if {
	count(plan_denies([acme_pools[0], acme_pools[3]], fx.clients)) == 0
}

test_cost004_single_pool_from_the_provider if {
	[f] := [f | some f in fx.of(findings.deny, "GF-COST-004")] with input as fx.pool({"cost": {"monthly_usd": 50000.01}})
		with data.gpufleet.clients as fx.clients
	f.msg == `GF-COST-004: gpufleet_eks_node_pool.test: this pool alone exceeds client "acme"'s monthly budget of $50000.00: it costs an estimated $50000.01/month; reduce its size, use spot where the workload allows, or raise the budget in the policy data (the budget over all the client's pools of a plan is checked by conftest on the plan)`
	not contains(f.msg, "pool(s)")
	count(fx.of(findings.deny, "GF-COST-004")) == 0 with input as fx.pool({"cost": {"monthly_usd": 50000}})
		with data.gpufleet.clients as fx.clients
}

test_cost004_needs_policy_data_and_known_costs if {
	count(plan_denies(acme_pools, null)) == 0
	count(plan_denies([["a", fx.pool({"cost": {"monthly_usd": null}})]], fx.clients)) == 0
	count(plan_denies(acme_pools, json.remove(fx.clients, ["acme/monthly_budget_usd"]))) == 0
	count(fx.of(findings.deny, "GF-COST-004")) == 0 with input as fx.pool({"cost": {"monthly_usd": null}})
		with data.gpufleet.clients as fx.clients
}

test_cost002_states_the_assumptions if {
	pool := fx.pool(object.union(training, {"assumptions": ["the node counts per zone x 3 zones"]}))
	some f in fx.of(findings.warn, "GF-COST-002") with input as pool
		with data.gpufleet.catalog as fx.catalog
	endswith(f.msg, " (assumed: the node counts per zone x 3 zones)")
}
