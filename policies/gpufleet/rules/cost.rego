# Cost rules.
#   GF-COST-001 deny  production inference whose guaranteed floor can sit on spot
#   GF-COST-002 warn  interruptible training with no spot share (names the estimated saving)
#   GF-COST-003 warn  spot share on a workload that is not interruptible
#   GF-COST-004 deny  a client's pools in the plan exceed its monthly budget (plan-wide)
package gpufleet.rules

import data.gpufleet.documents
import data.gpufleet.lib
import input as doc

# ---------------------------------------------------------------------------------------------
# GF-COST-001: with spot in the mix, nodes up to on_demand_base stay on-demand; the floor a
# production service relies on, max(1, scaling.min_size), must be all on-demand.
# ---------------------------------------------------------------------------------------------

deny contains {"rule": "GF-COST-001", "attribute": "capacity.on_demand_base", "text": text} if {
	doc.workload.environment == "production"
	doc.workload.kind == "inference"
	pct := doc.capacity.spot_percentage
	pct > 0
	is_number(pct)
	base := doc.capacity.on_demand_base
	is_number(base)
	guaranteed := _floor(doc.scaling.min_size)
	base < guaranteed
	text := sprintf("production inference with capacity.spot_percentage %v and capacity.on_demand_base %v: part of its guaranteed floor of %v node(s) (max(1, scaling.min_size)) runs on spot and can be reclaimed at once; set capacity.on_demand_base to at least %v", [pct, base, guaranteed, guaranteed])
}

_floor(min_size) := max([1, min_size]) if {
	is_number(min_size)
} else := 1

# ---------------------------------------------------------------------------------------------
# GF-COST-002
# ---------------------------------------------------------------------------------------------

bundle_warn contains {"rule": "GF-COST-002", "attribute": "capacity.spot_percentage", "text": text} if {
	doc.workload.kind == "training"
	doc.capacity.spot_percentage == 0
	doc.workload.interruptible == true
	not doc.capacity.reservation.type == "capacity-block" # prepaid on-demand; spot does not apply
	text := sprintf("interruptible training runs entirely on-demand; %s%s", [_saving_text, _assumed])
}

_saving_text := sprintf("capacity.spot_percentage = 100 would save an estimated %s/month (%v node(s) above capacity.on_demand_base at the catalog spot price, %v h/month)", [lib.usd(saving), nodes, hours]) if {
	price := lib.node_price(doc.cloud, doc.instance_types[0], doc.gpu.model, doc.gpu.per_node, doc.region)
	is_number(doc.scaling.desired_size) # null for autoscaler objects, which have no desired size
	nodes := max([doc.scaling.desired_size - doc.capacity.on_demand_base, 0])
	hours := data.gpufleet.catalog.hours_per_month
	saving := (nodes * (price.on_demand_usd - price.spot_usd)) * hours
} else := "set capacity.spot_percentage (up to 100) to run nodes above capacity.on_demand_base on spot; the catalog has no price for this node type and region, so the saving is not estimated"

# ---------------------------------------------------------------------------------------------
# GF-COST-003
# ---------------------------------------------------------------------------------------------

bundle_warn contains {"rule": "GF-COST-003", "attribute": "capacity.spot_percentage", "text": text} if {
	doc.workload.interruptible == false
	pct := doc.capacity.spot_percentage
	pct > 0
	is_number(pct)
	max_size := doc.scaling.max_size
	base := doc.capacity.on_demand_base
	is_number(max_size)
	is_number(base)
	spot_max := lib.spot_nodes(max_size, base, pct)
	spot_max > 0
	text := sprintf("capacity.spot_percentage is %v but workload.interruptible is false: up to %v node(s) run on spot and can be reclaimed at short notice; set capacity.spot_percentage = 0, or make the workload checkpoint and set workload.interruptible = true", [pct, spot_max])
}

# ---------------------------------------------------------------------------------------------
# GF-COST-004: a client's pools in the plan together exceed its monthly budget. Every pool of
# such a client gets the finding, so that a waiver can be set per pool. Pools whose cost is
# unknown are not counted and get no finding.
# ---------------------------------------------------------------------------------------------

deny contains {"rule": "GF-COST-004", "attribute": "scaling.desired_size", "text": text} if {
	clients := data.gpufleet.clients
	budget := clients[doc.client].monthly_budget_usd
	[pools, total] := client_totals[doc.client]
	total > budget
	is_number(budget)
	cost := doc.cost.monthly_usd
	is_number(cost)
	text := concat("", [_cost004_text(pools, total, budget, cost), _assumed])
}

# What a cost estimate assumed (the document's assumptions, such as a GKE pool's zone count), or "".
_assumed := sprintf(" (assumed: %s)", [concat("; ", doc.assumptions)]) if {
	count(doc.assumptions) > 0
} else := ""

# The provider plans each pool alone (pools null): it knows this pool only, not the plan's other
# pools; conftest on the plan knows them all.
_cost004_text(null, _, budget, cost) := sprintf("this pool alone exceeds client %q's monthly budget of %s: it costs an estimated %s/month; reduce its size, use spot where the workload allows, or raise the budget in the policy data (the budget over all the client's pools of a plan is checked by conftest on the plan)", [
	doc.client, lib.usd(budget), lib.usd(cost),
])

_cost004_text(pools, total, budget, cost) := sprintf("client %q's %v pool(s) in this plan cost an estimated %s/month, over its monthly budget of %s (this pool: %s/month); reduce sizes, use spot where the workload allows, or raise the budget in the policy data", [
	doc.client, pools, lib.usd(total), lib.usd(budget), lib.usd(cost),
]) if pools != null

# client -> [number of pools, estimated monthly USD] in the plan, for the clients with a
# monthly_budget_usd; pools with an unknown cost are not counted. The provider judges one pool at
# a time and cannot see the plan's other pools: its total is this pool's cost, and the number of
# pools null (unknown). conftest's entry point (main.rego) computes the totals once over the plan's
# documents and pins them while it judges each pool.
client_totals := {doc.client: [null, cost]} if {
	cost := doc.cost.monthly_usd
	is_number(cost)
	is_string(doc.address)
}

# One comprehension per client; OPA indexes the inner comprehension on d.client, so the plan is
# scanned once, not once per client.
client_totals := {client: [count(costs), sum(costs)] |
	some client, policy in data.gpufleet.clients
	is_number(policy.monthly_budget_usd)
	costs := [d.cost.monthly_usd |
		some [_, d] in documents.pools
		d.client == client
		is_number(d.cost.monthly_usd)
	]
} if documents.whole_plan
