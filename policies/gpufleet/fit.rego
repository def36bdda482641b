# The fit of a workload to a GPU node: the bundle's copy of catalog.FitWorkload (internal/catalog/fit.go),
# computed with the numbers of the generated catalog.fit_model. TestFitParity (internal/policy) checks
# that both give the same verdict on every node shape of the catalog.
#
#   shape:  {cloud, gpu_model, gpus, unit_gib, units_per_gpu, partitioned, shared, node_memory_gib, vcpus, interconnect,
#           internode} (internode may be null or absent: no inter-node GPU network)
#   demand: {need_gib, host_gib, kv_cache_gib, precision, kind, environment, gpus_per_replica, replicas, headroom_percent,
#           max_nodes} (max_nodes may be null or absent: fit_model.max_pool_nodes)
#           (host_gib, kv_cache_gib, precision, gpus_per_replica and replicas may be null or absent;
#           kv_cache_gib is the share of need_gib that is KV cache, which host memory does not hold)
#
# fit(shape, demand) is {gpus_per_replica, nodes_per_replica, replicas_per_node, usable_gib, host_need_gib,
# nodes, problems}: problems is the sorted list of the constraints the shape fails ("precision", "memory",
# "gpus_per_replica", "interconnect", "internode", "host_memory", "vcpus", "node_limit"). O(1) per call.
# A training replica over a whole multiple of the node's GPUs spans nodes_per_replica nodes, which need
# an inter-node GPU network (EFA, GPUDirect).
package gpufleet.lib

fit(shape, demand) := {
	"gpus_per_replica": asked,
	"nodes_per_replica": k,
	"replicas_per_node": per_node,
	"usable_gib": usable,
	"host_need_gib": host_need,
	"nodes": nodes,
	"problems": sort([c | some c, failed in checks; failed]),
} if {
	gpu := data.gpufleet.catalog.gpus[shape.gpu_model]
	asked := _fit_gpus_asked(shape, demand)
	g := _fit_gpus_used(shape, asked)
	k := _fit_nodes_per_replica(shape, demand, asked)
	per_node := floor(shape.gpus / g) * shape.units_per_gpu
	unit := _fit_unit(shape)
	usable := fit_usable_gib((g * k) * unit, demand.headroom_percent)
	on_node := _fit_on_node(per_node, demand.replicas)
	host_need := fit_round_up2((on_node * _fit_host_gib(demand)) + host_reserve_gib(shape.cloud, shape.node_memory_gib))
	nodes := _fit_nodes(per_node, demand) * k
	checks := {
		"precision": _fit_precision_bad(gpu, demand.precision),
		"gpus_per_replica": _fit_gpus_wrong(shape, asked, k),
		"memory": demand.need_gib > usable,
		"interconnect": _fit_needs_nvlink(shape, demand, g * k),
		"internode": _fit_needs_internode(shape, k),
		"host_memory": host_need > shape.node_memory_gib,
		"vcpus": (on_node * data.gpufleet.catalog.fit_model.vcpus_per_replica) > shape.vcpus,
		"node_limit": nodes > _fit_max_nodes(demand),
	}
}

# (100 - headroom) % of gib, rounded down to 0.01 GiB.
fit_usable_gib(gib, headroom) := floor(round((gib * (100 - headroom)) * 10000) / 10000) / 100

fit_round_up2(x) := ceil(round(x * 1000000) / 10000) / 100

# EKS's AMI reservation on AWS; GKE's memory reservation for system components by tier, plus the
# eviction threshold, on Google Cloud.
host_reserve_gib("aws", _) := data.gpufleet.catalog.fit_model.eks_reserve_gib

host_reserve_gib("gcp", memory) := fit_round_up2(data.gpufleet.catalog.fit_model.eviction_threshold_gib + sum(_tier_shares(memory)))

_tier_shares(memory) := [x |
	some i, t in data.gpufleet.catalog.fit_model.host_reserve_tiers
	lower := _tier_lower(i)
	memory > lower
	x := (min([memory, _tier_upto(t, memory)]) - lower) * t.share
]

_tier_upto(t, memory) := memory if t.upto_gib == null

_tier_upto(t, _) := t.upto_gib if t.upto_gib != null

_tier_lower(0) := 0

_tier_lower(i) := data.gpufleet.catalog.fit_model.host_reserve_tiers[i - 1].upto_gib if i > 0

default _fit_precision_bad(_, _) := false

_fit_precision_bad(gpu, precision) if {
	precision != null
	not gpu.compute_capability >= data.gpufleet.catalog.fit_model.min_compute_capability[precision]
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
		some g in data.gpufleet.catalog.fit_model.tensor_parallel_sizes
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

_fit_gpus_wrong(shape, asked, _) if {
	asked > 1
	shape.partitioned
}

_fit_gpus_wrong(shape, asked, 1) if asked > shape.gpus

default _fit_gpus_wrong(_, _, _) := false

# The nodes one replica spans: asked / the node's GPUs when it spans whole nodes (spans_nodes) of
# whole GPUs; else 1.
_fit_nodes_per_replica(shape, demand, asked) := asked / shape.gpus if {
	not shape.partitioned
	spans_nodes(demand.kind, asked, shape.gpus)
} else := 1

# Whether a replica of kind over gpus GPUs runs on several nodes of node_gpus GPUs each: a training
# replica over a whole multiple (two or more) of the node's GPUs. The bundle's one copy of
# catalog.SpansNodes (fit and launched_for read it).
spans_nodes(kind, gpus, node_gpus) if {
	kind == "training"
	node_gpus > 0
	gpus > node_gpus
	floor(gpus) == gpus # OPA's % refuses a fraction (a label of 2.5 GPUs): not a whole multiple
	floor(node_gpus) == node_gpus
	gpus % node_gpus == 0
}

default _fit_needs_internode(_, _) := false

_fit_needs_internode(shape, k) if {
	k > 1
	object.get(shape, "internode", null) == null
}

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
} else := fit_round_up2(max([demand.need_gib - _fit_kv_gib(demand), 0]) / data.gpufleet.catalog.fit_model.inference_overhead)

# Of the need, the KV cache (kv_cache_gib): GPU memory only, so not in the host estimate.
_fit_kv_gib(demand) := demand.kv_cache_gib if {
	is_number(demand.kv_cache_gib)
} else := 0

# The nodes a pool may hold (catalog.NodeLimit: the EKS node group quota, GKE's 1 000 per zone), else
# gpufleet's own limit.
_fit_max_nodes(demand) := demand.max_nodes if {
	is_number(demand.max_nodes)
	demand.max_nodes > 0
} else := data.gpufleet.catalog.fit_model.max_pool_nodes

default _fit_needs_nvlink(_, _, _) := false

_fit_needs_nvlink(shape, demand, g) if {
	g > 1
	demand.kind == "training"
	not shape.interconnect in data.gpufleet.catalog.fit_model.nvlinked
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

# ---------------------------------------------------------------------------------------------
# The fit of a pool document: its node shape and its workload's demand
# ---------------------------------------------------------------------------------------------

# The memory headroom the policy data sets (thresholds.memory_headroom_percent), else the default.
memory_headroom_percent := h if {
	h := data.gpufleet.thresholds.memory_headroom_percent
	is_number(h)
	h >= 0
	h <= 50
} else := data.gpufleet.catalog.fit_model.default_memory_headroom_percent

# The fit of a document that carries one (a documents file's: gpufleet-policy documents computes
# lib.doc_fit in Go, at the catalog's default headroom, which it names): the one it carries at the
# headroom in force, else computed here. (documents.pools drops a documents file's fits when the
# policy data sets another headroom, so a pool that fits is never passed over at the wrong one.)
doc_fit_or_carried(doc) := doc.fit if {
	doc.fit.headroom_percent == memory_headroom_percent
} else := doc_fit(doc)

# The fit of the pool's workload to its nodes; undefined while the GPU model, the GPUs per node, the
# slice memory or the memory need is unknown.
doc_fit(doc) := fit(_doc_shape(doc), _doc_demand(doc)) if {
	is_string(doc.gpu.model)
	doc.gpu.per_node >= 1 # a ComputeClass's gpu.count of 0 would divide by zero
	is_number(doc.gpu.slice_memory_gib)
	is_number(doc.workload.gpu_memory_gib)
}

_doc_shape(doc) := {
	"cloud": doc.cloud,
	"gpu_model": doc.gpu.model,
	"gpus": doc.gpu.per_node,
	"unit_gib": doc.gpu.slice_memory_gib,
	"units_per_gpu": _doc_units(doc),
	"partitioned": doc_partitioned(doc),
	"shared": is_object(doc.gpu.sharing),
	"node_memory_gib": node.memory_gib,
	"vcpus": node.vcpu,
	"interconnect": _doc_interconnect(node, doc.gpu.per_node, doc),
	"internode": _doc_internode(doc, node),
} if {
	node := doc_node(doc)
}

# The inter-node GPU network of the pool's nodes: the first node type's, when every node type the
# pool admits that the catalog knows has the same one. A Karpenter NodePool or a ComputeClass that
# admits a shape without it, or with another (GPUDirect-TCPX and TCPXO nodes do not reach each
# other's GPUs), can put a replica's nodes there (issue #40, item 8). A first node type the catalog
# does not know keeps "unknown" (doc_node).
_doc_internode(doc, node) := null if {
	object.get(node, "internode", null) != "unknown"
	some t in doc.instance_types
	n := _catalog_node(doc.cloud, t)
	object.get(n, "internode", null) != object.get(node, "internode", null)
} else := object.get(node, "internode", null)

# The node types a pool admits beside the shape its gpu part describes, on which a replica of the
# workload does not fit: [name, GPU model, fit] of each, in the order of candidate_shapes, with the fit
# on that type's whole GPUs (its problems: "memory", "precision" and the others of fit). A Karpenter
# NodePool launches any type that meets its pods' requests, a ComputeClass falls back down its
# priorities, and an EKS node group launches its other instance types when the first is out of
# capacity (spot: any of them): GPU memory and compute capability are neither requests nor
# priorities, so a replica can land on any type the pool admits that has the GPUs it asks for. A
# NodePool of several GPU models (instance-gpu-name In [a10g, l4], instance-family In [g5, g6, g6e])
# has no gpu.model and no fit of its own: these are its only right-sizing verdicts. Every node type is
# judged with the GPUs a replica asks for (candidate_request); one with fewer GPUs than that is never
# launched for it, and is left out. Whole GPUs only: a MIG or shared pool's slices are per model (its
# gpu part says which). Types the catalog does not know, and ones without a GPU model, are not
# judged.
candidate_misfits(doc) := [[name, model, f] |
	some [name, model, gpus, types] in shapes
	[model, gpus] != [doc.gpu.model, doc.gpu.per_node]
	f := _candidate_fit(doc, model, gpus, types, asked)
	count(f.problems) > 0
	not "gpus_per_replica" in f.problems
] if {
	is_number(doc.workload.gpu_memory_gib)
	admits_several(doc)
	not doc_partitioned(doc)
	shapes := candidate_shapes(doc)
	count(shapes) > 1 # a machine type in instance_types and the priority that names it are one

	# a shape other than the pool's own before candidate_request, whose fits cost a pool of one GPU
	# model and count in several sizes (g6.xlarge, g6.2xlarge: its own fit judges them all) about
	# 0.8 ms in each of conftest's queries (BenchmarkConftestPlan, gpufleet@1k: 250 such pools)
	count([1 | some [_, model, gpus, _] in shapes; [model, gpus] != [doc.gpu.model, doc.gpu.per_node]]) > 0
	asked := candidate_request(doc, shapes)
}

# Whether a pool admits more than one node type (instance types, a ComputeClass's priorities): the
# pools the candidate rules judge, settled by a count or two for the usual pool of one (the
# provider's own pools, TestEvaluate_fittingPoolSkipsTheFit).
admits_several(doc) if {
	is_array(doc.instance_types)
	count(doc.instance_types) > 1
}

admits_several(doc) if {
	is_array(doc.autoscaler.priorities)
	count(doc.autoscaler.priorities) > 1
}

_candidate_fit(doc, model, gpus, types, asked) := doc_fit(object.union(doc, {
	"instance_types": types,
	"gpu": gpu_document(model, gpus),
	"workload": {"gpus_per_replica": asked},
}))

# The GPUs a replica asks for, the same whichever node type it lands on: workload.gpus_per_replica;
# else the fewest on which a replica fits some node type the pool admits wholly (memory, precision,
# links: the request a team sizes for its pool: a 30 GiB model asks for 2 GPUs on a pool of 4-GPU L4
# nodes, and then no 1-GPU node is launched for it); else 1.
candidate_request(doc, shapes) := doc.workload.gpus_per_replica if {
	is_number(doc.workload.gpus_per_replica)
	doc.workload.gpus_per_replica != 0
} else := min(held) if {
	held := {f.gpus_per_replica |
		some [_, model, gpus, types] in shapes
		f := _candidate_fit(doc, model, gpus, types, null) # null: the fewest GPUs that hold it there
		every c in ["memory", "gpus_per_replica", "precision", "interconnect", "internode"] {
			not c in f.problems
		}
	}
	count(held) > 0
} else := 1

# [name, GPU model, GPUs, instance_types] of each node type a pool admits: its catalog node types,
# smallest host memory first (g6.xlarge before g6.2xlarge), then a ComputeClass's priorities that
# name a GPU and no machine type ("priority 2": a machine family and a GPU, on a machine type GKE
# picks, whose host the catalog cannot tell; its GPU link is the model's, _doc_interconnect).
candidate_shapes(doc) := array.concat(
	[[t, n.gpu_model, n.gpu_count, [t]] |
		some [_, t, n] in sort([[n.memory_gib, t, n] |
			some t in arr(doc.instance_types)
			n := _catalog_node(doc.cloud, t)
			is_string(n.gpu_model)
		])
	],
	[[sprintf("priority %d", [i + 1]), p.gpu_model, p.gpu_count, []] |
		some i, p in arr(object.get(doc, ["autoscaler", "priorities"], []))
		p.machine_type == null
		is_string(p.gpu_model)
		p.gpu_count >= 1 # gpu.count 0 (or not a number) is no node to judge
		floor(p.gpu_count) == p.gpu_count
	],
)

# Whether a node type of gpus GPUs is launched for a replica of the pool's workload that asks for
# asked GPUs: it has them, or the replica spans whole nodes of it (spans_nodes, as lib.fit reads
# it). A node type with fewer is never launched for the replica's pods.
launched_for(_, gpus, asked) if asked <= gpus

launched_for(doc, gpus, asked) if spans_nodes(doc.workload.kind, asked, gpus)

# The node types a pool admits that the catalog knows to have no inter-node GPU network, in order.
without_internode(doc) := [t |
	some t in doc.instance_types
	n := _catalog_node(doc.cloud, t)
	object.get(n, "internode", null) == null
]

# The inter-node GPU networks of the node types a pool admits that the catalog knows, as
# "<type> <network>", in order.
internode_of_types(doc) := [sprintf("%s %s", [t, n.internode]) |
	some t in doc.instance_types
	n := _catalog_node(doc.cloud, t)
	is_string(object.get(n, "internode", null))
]

_catalog_node("aws", t) := data.gpufleet.catalog.aws_instance_types[t]

_catalog_node("gcp", t) := data.gpufleet.catalog.gke_machine_types[t]

# The node type's host facts from the catalog; a node type the catalog does not know puts no limit on
# host memory or vCPUs (the numbers are larger than any node's).
doc_node(doc) := n if {
	doc.cloud == "aws"
	n := data.gpufleet.catalog.aws_instance_types[doc.instance_types[0]]
} else := n if {
	doc.cloud == "gcp"
	n := data.gpufleet.catalog.gke_machine_types[doc.instance_types[0]]
} else := {"memory_gib": 1000000000, "vcpu": 1000000000, "interconnect": null, "internode": "unknown"}

_doc_interconnect(_, gpus, _) := null if gpus < 2

_doc_interconnect(node, gpus, _) := object.get(node, "interconnect", null) if {
	gpus >= 2
	object.get(node, "internode", null) != "unknown"
}

# A node the catalog does not name (a ComputeClass priority of a machine family and a GPU, which
# GKE places on a machine type of that family with that many GPUs): the GPU link of every catalog
# node type of the model and GPU count, when they all have the same one (8 x H100 80GB: NVLink on
# every a3 machine type); else none (PCIe, as n1 machine types attach their GPUs).
_doc_interconnect(node, gpus, doc) := _model_interconnect(doc.cloud, doc.gpu.model, gpus) if {
	gpus >= 2
	object.get(node, "internode", null) == "unknown"
}

_model_interconnect(cloud, model, gpus) := link if {
	links := {object.get(n, "interconnect", null) |
		some n in _catalog_nodes(cloud)
		n.gpu_model == model
		n.gpu_count == gpus
	}
	count(links) == 1
	some link in links
} else := null

_catalog_nodes("aws") := data.gpufleet.catalog.aws_instance_types

_catalog_nodes("gcp") := data.gpufleet.catalog.gke_machine_types

_doc_units(doc) := doc.gpu.sharing.replicas if {
	is_number(doc.gpu.sharing.replicas)
} else := n if {
	n := gpu(doc.gpu.model).mig_profiles[doc.gpu.mig_profile].max_instances
} else := 1

doc_partitioned(doc) if is_object(doc.gpu.sharing)

doc_partitioned(doc) if doc.gpu.mig_profile != null

doc_partitioned(doc) if doc.gpu.mig_config != null

default doc_partitioned(_) := false

_doc_demand(doc) := {
	"need_gib": doc.workload.gpu_memory_gib,
	"host_gib": null,
	"kv_cache_gib": _number_or_null(object.get(doc.workload, "kv_cache_gib", null)),
	"precision": _string_or_null(object.get(doc.workload, "precision", null)),
	"kind": doc.workload.kind,
	"environment": doc.workload.environment,
	"gpus_per_replica": _number_or_null(object.get(doc.workload, "gpus_per_replica", null)),
	"replicas": _number_or_null(object.get(doc.workload, "replicas", null)),
	"headroom_percent": memory_headroom_percent,
}

_string_or_null(x) := x if is_string(x)

else := null

_number_or_null(x) := x if is_number(x)

else := null

# Whether the GPU model computes in the precision (catalog.GPUModel.SupportsPrecision).
precision_supported(model, precision) if gpu(model).compute_capability >= data.gpufleet.catalog.fit_model.min_compute_capability[precision]

# ---------------------------------------------------------------------------------------------
# Shortcuts: cheap sufficient conditions on the pool document (input)
# ---------------------------------------------------------------------------------------------

# The rules ask these before the fit: when one holds, lib.doc_fit(input) surely has none of its
# problems, and the rule skips the fit's arithmetic (OPA's decimal arithmetic allocates; most pools
# fit with room to spare). They only ever skip a fit that has no such problem, never decide one:
# TestDocFitShortcuts (internal/policy) checks that on every node shape of the catalog.

# No "memory", "gpus_per_replica" or "interconnect" problem: a replica on one GPU (asked, or the
# default when the need fits one GPU) whose need fits its GPU, slice or share of a time-shared GPU
# 0.03 GiB below the usable memory (the fit rounds the share and the usable memory down to 0.01 GiB).
#
# The first bodies, at the default headroom, are tables generated into catalog_fit.rego (the
# inequalities below solved for the need in Go, internal/catalog/fit_shortcuts.go); these bodies
# judge what the tables do not cover. OPA tries a rule's bodies in the order of their modules' names
# and stops at the first that holds: catalog_fit.rego sorts before fit.rego, so a pool the tables
# settle never pays this arithmetic (TestEvaluate_fittingPoolSkipsTheFit's allocation budget).
doc_fits_gpus_surely if {
	not is_object(input.gpu.sharing)
	need := input.workload.gpu_memory_gib # _doc_need_one_gpu, inline for the common case
	is_number(need)
	is_number(input.gpu.slice_memory_gib)
	input.gpu.per_node >= 1
	input.workload.gpus_per_replica in {null, 0, 1}
	(100 * need) + 3 <= input.gpu.slice_memory_gib * (100 - memory_headroom_percent)
}

# A time-shared GPU: each of its r replicas gets 1 / r of its memory.
doc_fits_gpus_surely if {
	r := input.gpu.sharing.replicas
	is_number(r)
	r >= 1
	((100 * r) * _doc_need_one_gpu) + (3 * r) <= input.gpu.slice_memory_gib * (100 - memory_headroom_percent)
}

# The need of a replica on one GPU of a pool with GPUs and slice memory.
_doc_need_one_gpu := need if {
	need := input.workload.gpu_memory_gib
	is_number(need)
	is_number(input.gpu.slice_memory_gib)
	input.gpu.per_node >= 1

	# One GPU asked, or the default (null, 0), which is one GPU when the need fits one.
	input.workload.gpus_per_replica in {null, 0, 1}
}

# No "host_memory" or "vcpus" problem: at most b replicas on a node (its GPUs x replicas per GPU, or
# workload.replicas), each with need / 1.2 GiB of weights rounded up, and the system reserve fit the
# node's memory. Multiplied by 6 (no decimals): 6 x weights <= 5 x need + 0.07; the reserve is EKS's
# 1.53 GiB (6 x reserve + 0.07 <= 10), or at most GKE's 0.06 x memory + 1.64 GiB (the tiers are
# 25/20/10 % below 16 GiB, which that line bounds) + 0.1 GiB eviction + 0.01 rounding.
# As for the GPU shortcut, the first bodies are tables in catalog_fit.rego.
doc_fits_host_surely if {
	input.cloud == "aws"
	node := data.gpufleet.catalog.aws_instance_types[input.instance_types[0]]
	b := _doc_most_on_node
	b * data.gpufleet.catalog.fit_model.vcpus_per_replica <= node.vcpu
	need := input.workload.gpu_memory_gib
	is_number(need)
	need >= 0
	not _below_one(input.workload.gpus_per_replica)
	(b * ((5 * need) + 1)) + 10 <= 6 * node.memory_gib
}

# 6 x (0.06 m + 1.75) <= 0.36 m + 10.5
doc_fits_host_surely if {
	input.cloud == "gcp"
	node := data.gpufleet.catalog.gke_machine_types[input.instance_types[0]]
	b := _doc_most_on_node
	b * data.gpufleet.catalog.fit_model.vcpus_per_replica <= node.vcpu
	need := input.workload.gpu_memory_gib
	is_number(need)
	need >= 0
	not _below_one(input.workload.gpus_per_replica)
	25 * ((b * ((5 * need) + 1)) + 11) <= 141 * node.memory_gib
}

_below_one(x) if {
	is_number(x)
	x != 0
	x < 1
}

# At most this many replicas on a node: its GPUs x replicas per GPU, or workload.replicas if fewer.
_doc_most_on_node := min([r, n]) if {
	r := input.workload.replicas
	is_number(r)
	r > 0
	n := input.gpu.per_node
	is_number(n)
	n >= 1
	not is_object(input.gpu.sharing)
	input.gpu.mig_profile == null
} else := n if {
	# whole GPUs, one replica per GPU (_doc_units is 1)
	n := input.gpu.per_node
	not is_object(input.gpu.sharing)
	input.gpu.mig_profile == null
	is_number(n)
	n >= 1
} else := r if {
	r := input.workload.replicas
	is_number(r)
	r > 0
	r <= _doc_units_on_node
} else := _doc_units_on_node

_doc_units_on_node := n * u if {
	n := input.gpu.per_node
	is_number(n)
	n >= 1
	u := _doc_units(input)
	u >= 1
}
