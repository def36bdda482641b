# The fit of a workload to a GPU node: the bundle's copy of catalog.FitWorkload (internal/catalog/fit.go),
# computed with the numbers of the generated catalog.fit_model. TestFitParity (internal/policy) checks
# that both give the same verdict on every node shape of the catalog.
#
#   shape:  {gpu_model, gpus, unit_gib, units_per_gpu, partitioned, shared, node_memory_gib, vcpus, interconnect}
#   demand: {need_gib, host_gib, precision, kind, environment, gpus_per_replica, replicas, headroom_percent}
#           (host_gib, precision, gpus_per_replica and replicas may be null)
#
# fit(shape, demand) is {gpus_per_replica, replicas_per_node, usable_gib, host_need_gib, nodes,
# problems}: problems is the sorted list of the constraints the shape fails ("precision", "memory",
# "gpus_per_replica", "interconnect", "host_memory", "vcpus", "node_limit"). O(1) per call.
package gpufleet.lib

_fm := data.gpufleet.catalog.fit_model

fit(shape, demand) := {
	"gpus_per_replica": asked,
	"replicas_per_node": per_node,
	"usable_gib": usable,
	"host_need_gib": host_need,
	"nodes": nodes,
	"problems": sort([c | some c, failed in checks; failed]),
} if {
	gpu := data.gpufleet.catalog.gpus[shape.gpu_model]
	asked := _fit_gpus_asked(shape, demand)
	g := _fit_gpus_used(shape, asked)
	per_node := floor(shape.gpus / g) * shape.units_per_gpu
	unit := _fit_unit(shape)
	usable := fit_usable_gib(g * unit, demand.headroom_percent)
	on_node := _fit_on_node(per_node, demand.replicas)
	host_need := fit_round_up2((on_node * _fit_host_gib(demand)) + host_reserve_gib(shape.node_memory_gib))
	nodes := _fit_nodes(per_node, demand)
	checks := {
		"precision": _fit_precision_bad(gpu, demand.precision),
		"gpus_per_replica": _fit_gpus_wrong(shape, asked),
		"memory": demand.need_gib > usable,
		"interconnect": _fit_needs_nvlink(shape, demand, g),
		"host_memory": host_need > shape.node_memory_gib,
		"vcpus": (on_node * _fm.vcpus_per_replica) > shape.vcpus,
		"node_limit": nodes > _fm.max_pool_nodes,
	}
}

# (100 - headroom) % of gib, rounded down to 0.01 GiB.
fit_usable_gib(gib, headroom) := floor(round((gib * (100 - headroom)) * 10000) / 10000) / 100

fit_round_up2(x) := ceil(round(x * 1000000) / 10000) / 100

# GKE's memory reservation for system components by tier, plus the eviction threshold.
host_reserve_gib(memory) := fit_round_up2(_fm.eviction_threshold_gib + sum(_tier_shares(memory)))

_tier_shares(memory) := [x |
	some i, t in _fm.host_reserve_tiers
	lower := _tier_lower(i)
	memory > lower
	x := (min([memory, _tier_upto(t, memory)]) - lower) * t.share
]

_tier_upto(t, memory) := memory if t.upto_gib == null

_tier_upto(t, _) := t.upto_gib if t.upto_gib != null

_tier_lower(0) := 0

_tier_lower(i) := _fm.host_reserve_tiers[i - 1].upto_gib if i > 0

default _fit_precision_bad(_, _) := false

_fit_precision_bad(gpu, precision) if {
	precision != null
	not gpu.compute_capability >= _fm.min_compute_capability[precision]
}

_fit_gpus_asked(shape, demand) := demand.gpus_per_replica if {
	is_number(demand.gpus_per_replica)
	demand.gpus_per_replica != 0
} else := _fit_default_gpus(shape, demand)

_fit_default_gpus(shape, demand) := 1 if {
	demand.kind != "inference"
} else := 1 if {
	shape.partitioned
} else := min(sizes) if {
	sizes := {g |
		some g in _fm.tensor_parallel_sizes
		g <= shape.gpus
		demand.need_gib <= fit_usable_gib(g * shape.unit_gib, demand.headroom_percent)
	}
	count(sizes) > 0
} else := shape.gpus

_fit_gpus_used(shape, asked) := 1 if {
	asked > 1
	shape.partitioned
} else := shape.gpus if {
	asked > shape.gpus
} else := asked

_fit_gpus_wrong(shape, asked) if {
	asked > 1
	shape.partitioned
}

_fit_gpus_wrong(shape, asked) if asked > shape.gpus

default _fit_gpus_wrong(_, _) := false

_fit_unit(shape) := floor(round((shape.unit_gib / shape.units_per_gpu) * 1000000) / 10000) / 100 if {
	shape.shared
	shape.units_per_gpu > 1
} else := shape.unit_gib

_fit_on_node(per_node, replicas) := min([per_node, replicas]) if {
	is_number(replicas)
	replicas > 0
} else := per_node

_fit_host_gib(demand) := demand.host_gib if {
	is_number(demand.host_gib)
	demand.host_gib != 0
} else := fit_round_up2(demand.need_gib / _fm.inference_overhead)

default _fit_needs_nvlink(_, _, _) := false

_fit_needs_nvlink(shape, demand, g) if {
	g > 1
	demand.kind == "training"
	not shape.interconnect in _fm.nvlinked
}

_fit_nodes(per_node, demand) := max([ceil(demand.replicas / per_node), _fit_min_nodes(demand)]) if {
	is_number(demand.replicas)
	demand.replicas > 0
} else := 0

# Production inference with two or more replicas spreads them over at least two nodes (GF-RS-005).
spreads_replicas(kind, environment, replicas) if {
	kind == "inference"
	environment == "production"
	replicas >= 2
}

_fit_min_nodes(demand) := 2 if {
	spreads_replicas(demand.kind, demand.environment, demand.replicas)
} else := 1
