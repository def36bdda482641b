# Right-sizing rules.
#   GF-RS-001 deny  the workload does not fit the pool's nodes (lib.fit): GPU or MIG slice memory with
#                   headroom, a multi-GPU replica larger than a node, NVLink for training over GPUs, an
#                   inter-node GPU network (EFA, GPUDirect) for a training replica over several nodes,
#                   the same on every node type the pool admits (a NodePool's or ComputeClass's shapes);
#                   GPU memory, NVLink and the inter-node network on the other node types a pool
#                   admits (several GPU models or counts)
#   GF-RS-002 warn  GPU/slice memory is more than oversize_factor (default 4) x the need; names the cheapest
#                   fitting option on the same cloud and region; on a pool of several GPU models, when the
#                   GPU of every node type it admits is
#   GF-RS-003 warn  inference or development on a full training-class GPU when a MIG slice or a
#                   smaller inference GPU fits
#   GF-RS-004 deny  the pool's GPU does not compute in workload.precision (bf16: 8.0+, fp8: 8.9+), nor
#                   the GPU of any other node type it admits
#   GF-RS-005 warn  production inference with two or more replicas on a pool of at most one node
#   GF-RS-007 warn  the node's host memory or vCPUs do not hold the replicas it runs (lib.fit); a warning,
#                   as a pool document knows the weights only as workload.gpu_memory_gib / 1.2
package gpufleet.rules

import data.gpufleet.lib
import input as doc

# ---------------------------------------------------------------------------------------------
# GF-RS-001
# ---------------------------------------------------------------------------------------------

# The fit (lib.fit, the bundle's copy of catalog.FitWorkload) decides: the replica's GPU memory
# with headroom, its GPUs on one node, NVLink for training over several GPUs. Precision is
# GF-RS-004's, host memory and vCPUs GF-RS-007's.
#
# The fit a documents file's document carries (lib.doc_fit, computed in Go): OPA's index passes over
# a pool whose fit has no problem ("fits": true) before any expression. Other documents (a plan's,
# the provider's) carry none: the fit is computed here, after the shortcuts.
deny contains _rs001(lib.doc_fit_or_carried(doc)) if doc.fit.fits == false

deny contains _rs001(f) if {
	not doc.fit.fits == true
	not doc.fit.fits == false
	not lib.doc_fits_gpus_surely
	f := lib.doc_fit(doc)
}

_rs001(f) := {"rule": "GF-RS-001", "attribute": _rs001_attribute(failed), "text": text} if {
	failed := [c | some c in _rs001_constraints; c in f.problems]
	count(failed) > 0
	text := sprintf("%s; %s", [concat("; ", [_rs001_text(c, f) | some c in failed]), _rs001_fix_for(failed)])
}

# In the order the message names them.
_rs001_constraints := ["memory", "gpus_per_replica", "interconnect", "internode"]

# On the other node types the pool admits (lib.candidate_misfits): GPU memory, NVLink and the
# inter-node GPU network, which neither Karpenter nor GKE's fallback weighs (the GPUs a replica asks
# for and its host resources are pod requests, which they do: those problems are not said here). One
# finding for all of them, grouped by GPU model and reason; what the pool's own fit already says is
# not said again (_said_by_own_fit).
deny contains {"rule": "GF-RS-001", "attribute": _shape_attribute[doc.cloud], "text": text} if {
	_admits_several # before the comprehension: the usual pool of one node type allocates nothing here
	misfits := [[t, model, reason] |
		some [t, model, f] in lib.candidate_misfits(doc)
		reasons := [_candidate_reason(c, f) |
			some c in ["memory", "interconnect", "internode"]
			c in f.problems
			not _said_by_own_fit(c, model)
		]
		count(reasons) > 0
		reason := concat(", ", reasons)
	]
	count(misfits) > 0
	text := sprintf("a replica does not fit node types this pool admits: %s; %s, so replicas can land on them. Admit only node types whose GPUs hold a replica (workload.gpu_memory_gib %s GiB with %v %% kept free), or set workload.gpus_per_replica to the GPUs a replica asks for", [
		_candidate_groups(misfits), _candidates_launch(doc.resource_type), lib.gib(doc.workload.gpu_memory_gib), lib.memory_headroom_percent,
	])
}

# Memory and NVLink when the pool's own fit fails them on its own GPU model (its finding names the
# model); the inter-node network whenever its own fit fails it (lib._doc_internode judges that on
# every node type the pool admits, and its finding names those without one).
_said_by_own_fit(c, model) if {
	c in {"memory", "interconnect"}
	model == doc.gpu.model
	c in _own_problems
}

_said_by_own_fit("internode", _) if "internode" in _own_problems

# The pool's own fit (undefined without one: several GPU models or GPU counts, an unknown need), and
# its problems.
_own_fit := lib.doc_fit_or_carried(doc)

_own_problems := object.get(_own_fit, "problems", []) if _own_fit

else := []

_candidate_reason("memory", f) := sprintf("%s GiB usable on %s", [lib.gib(f.usable_gib), _gpus_text(f.gpus_per_replica)])

_candidate_reason("interconnect", f) := sprintf("no NVLink between the %d GPUs of a training replica", [f.gpus_per_replica])

_candidate_reason("internode", f) := sprintf("no inter-node GPU network for a replica over %d nodes", [f.nodes_per_replica])

# "A10G (21.2 GiB usable on 1 GPU): g5.xlarge, g5.2xlarge, g5.4xlarge, g5.8xlarge and 1 more; L4 (…): …",
# the groups in the order of their first type.
_candidate_groups(misfits) := concat("; ", [sprintf("%s (%s): %s", [model, reason, _types_text(types)]) |
	some i, [_, model, reason] in misfits
	not _same_group_before(misfits, i, model, reason)
	types := [t | some [t, m, r] in misfits; m == model; r == reason]
])

_same_group_before(misfits, i, model, reason) if {
	some j, [_, m, r] in misfits
	j < i
	m == model
	r == reason
}

_types_text(types) := concat(", ", types) if {
	count(types) <= 4
} else := sprintf("%s and %d more", [concat(", ", array.slice(types, 0, 4)), count(types) - 4])

# How each kind of pool comes to launch any node type it admits. Karpenter: EC2 Fleet with the
# lowest-price on-demand strategy and price-capacity-optimized for spot over every instance type that
# meets the requests; where a NodeOverlay sets prices, prioritized and capacity-optimized-prioritized
# in their order (karpenter-provider-aws v1.15.2 pkg/providers/instance/types.go).
_candidates_launch("NodePool") := "Karpenter launches any node type that meets the pods' requests (on-demand, the cheapest), and a GPU's memory, compute capability and links are not among them"

_candidates_launch("ComputeClass") := "GKE falls back down the priorities when those before them are out of capacity"

_candidates_launch(t) := "the node group launches its other instance types when the first is out of capacity, and spot capacity on any of them" if {
	not t in {"NodePool", "ComputeClass"}
}

# ---------------------------------------------------------------------------------------------
# GF-RS-007
# ---------------------------------------------------------------------------------------------

# The fit the document carries or the one computed here, as for GF-RS-001.
bundle_warn contains _rs007(lib.doc_fit_or_carried(doc)) if doc.fit.fits == false

bundle_warn contains _rs007(f) if {
	not doc.fit.fits == true
	not doc.fit.fits == false
	not lib.doc_fits_host_surely
	f := lib.doc_fit(doc)
}

_rs007(f) := {"rule": "GF-RS-007", "attribute": _shape_attribute[doc.cloud], "text": text} if {
	failed := [c | some c in ["host_memory", "vcpus"]; c in f.problems]
	count(failed) > 0
	text := sprintf("%s; choose a node type with more host memory or vCPUs per GPU, or fewer replicas per node", [concat("; ", [_rs001_text(c, f) | some c in failed])])
}

_rs001_text("memory", f) := sprintf("%s has %s GiB of GPU memory but workload.gpu_memory_gib needs %s GiB per replica; %s GiB of it is usable with %v %% kept free", [
	_unit, lib.gib(doc.gpu.slice_memory_gib), lib.gib(doc.workload.gpu_memory_gib), lib.gib(f.usable_gib), lib.memory_headroom_percent,
]) if {
	f.gpus_per_replica == 1
}

_rs001_text("memory", f) := sprintf("%d %s GPUs per replica have %s GiB usable with %v %% kept free, but workload.gpu_memory_gib needs %s GiB per replica", [
	min([f.gpus_per_replica, doc.gpu.per_node * object.get(f, "nodes_per_replica", 1)]), doc.gpu.model, lib.gib(f.usable_gib), lib.memory_headroom_percent, lib.gib(doc.workload.gpu_memory_gib),
]) if {
	f.gpus_per_replica > 1
}

_rs001_text("gpus_per_replica", f) := sprintf("a replica over %d GPUs needs them on one node, and a node of this pool has %d%s", [
	f.gpus_per_replica, doc.gpu.per_node, _partitioned_note,
])

_rs001_text("interconnect", f) := sprintf("a training replica over %d GPUs needs NVLink between them, and the %s GPUs of this node share %s only", [
	f.gpus_per_replica, doc.gpu.model, _interconnect_name(object.get(lib.doc_node(doc), "interconnect", null)),
]) if {
	doc.gpu.per_node != 1
}

# A node of one GPU (whose catalog entry names no interconnect) links it to no other.
_rs001_text("interconnect", f) := sprintf("a training replica over %d GPUs needs NVLink between them, and a node of this pool has a single %s, linked to no other GPU", [
	f.gpus_per_replica, doc.gpu.model,
]) if {
	doc.gpu.per_node == 1
}

_interconnect_name(i) := i if is_string(i)

else := "the PCIe bus"

# "1 GPU", "8 GPUs".
_gpus_text(n) := "1 GPU" if n == 1

else := sprintf("%d GPUs", [n])

_rs001_text("internode", f) := sprintf("a training replica over %d GPUs spans %d nodes of %s, which needs an inter-node GPU network (%s), and %s has none", [
	f.gpus_per_replica, f.nodes_per_replica, _gpus_text(doc.gpu.per_node), _internode_names[doc.cloud], _rs001_without_internode,
]) if {
	not _rs001_mixed_internode
}

# A NodePool or ComputeClass that admits shapes of different networks, each with one.
_rs001_text("internode", f) := sprintf("a training replica over %d GPUs spans %d nodes of %s, which must share one inter-node GPU network (%s), and the node types this pool admits have different ones (%s); admit node types of one network only", [
	f.gpus_per_replica, f.nodes_per_replica, _gpus_text(doc.gpu.per_node), _internode_names[doc.cloud], concat(", ", lib.internode_of_types(doc)),
]) if {
	_rs001_mixed_internode
}

_rs001_mixed_internode if {
	count(lib.without_internode(doc)) == 0
	count({split(s, " ")[1] | some s in lib.internode_of_types(doc)}) > 1
}

# The node types without the network: the pool's (its first), or those of the shapes a NodePool or
# ComputeClass admits beside ones with it, which can take a replica's nodes all the same.
_rs001_without_internode := concat(", ", lib.without_internode(doc)) if {
	count(lib.without_internode(doc)) > 0
} else := doc.instance_types[0]

_internode_names := {"aws": "EFA", "gcp": "GPUDirect-TCPX, GPUDirect-TCPXO or GPUDirect-RDMA"}

_rs001_text("host_memory", f) := sprintf("the replicas of a node need %s GiB of host memory (their weights, about workload.gpu_memory_gib / %v each, and the system reserve), the node has %s GiB", [
	lib.gib(f.host_need_gib), data.gpufleet.catalog.fit_model.inference_overhead, lib.gib(lib.doc_node(doc).memory_gib),
])

_rs001_text("vcpus", f) := sprintf("the %d replicas of a node need %d vCPUs, the node has %d", [
	f.replicas_per_node, f.replicas_per_node * data.gpufleet.catalog.fit_model.vcpus_per_replica, lib.doc_node(doc).vcpu,
])

_partitioned_note := " (a MIG slice or a shared GPU holds a replica of one GPU)" if {
	lib.doc_partitioned(doc)
} else := ""

_rs001_attribute(failed) := "workload.gpus_per_replica" if {
	"gpus_per_replica" in failed
} else := _memory_attribute if {
	failed[0] == "memory"
} else := _shape_attribute[doc.cloud]

_rs001_fix_for(failed) := _rs001_fix if {
	failed == ["memory"]
} else := sprintf("set workload.gpus_per_replica to at most %d, or choose a node type with more GPUs", [doc.gpu.per_node]) if {
	"gpus_per_replica" in failed
} else := "choose a node type with an inter-node GPU network (EFA on EC2, GPUDirect on GKE), or keep a replica on one node" if {
	failed == ["internode"]
} else := "choose a node type with more GPUs per node, or NVLink-linked GPUs for training over several GPUs"

_rs001_fix := "choose a larger MIG profile (gpu.mig) or a GPU with more memory" if {
	_uses_mig
} else := "choose an instance or machine type whose GPU has enough memory, or lower workload.gpu_memory_gib"

_memory_attribute := "gpu.mig.profile" if {
	is_string(doc.gpu.mig_profile)
} else := "gpu.mig.config" if {
	is_string(doc.gpu.mig_config)
} else := "workload.gpu_memory_gib"

# ---------------------------------------------------------------------------------------------
# GF-RS-002
# ---------------------------------------------------------------------------------------------

# Separate definitions, so that the common cases (no oversize_factor in the policy data, or 4) cost
# a few comparisons per pool and no rule lookup (inside conftest's `with input as doc`, a reference
# to another rule evaluates it again for every pool): the memory one replica gets (_rs002_have) is
# written out, for a GPU or slice that is not time-shared, then for one that is.
# (object.get, not a reference to doc.gpu.sharing.replicas: OPA evaluates a reference in a negated
# comparison before the negation, so an undefined one would fail the body.)
bundle_warn contains _rs002(have, need, 4) if {
	need := doc.workload.gpu_memory_gib
	is_number(need)
	have := doc.gpu.slice_memory_gib
	have > 4 * need # most pools stop here
	need > 0
	is_number(have)
	not object.get(doc.gpu, ["sharing", "replicas"], null) > 0
	not _other_oversize_factor
}

bundle_warn contains _rs002(have, need, 4) if {
	r := doc.gpu.sharing.replicas
	r > 0
	need := doc.workload.gpu_memory_gib
	is_number(need)
	need > 0
	is_number(doc.gpu.slice_memory_gib)
	have := doc.gpu.slice_memory_gib / r
	have > 4 * need
	not _other_oversize_factor
}

bundle_warn contains _rs002(have, need, factor) if {
	factor := data.gpufleet.thresholds.oversize_factor
	factor != 4
	factor == lib.configured_oversize_factor
	have := _rs002_have
	need := doc.workload.gpu_memory_gib
	is_number(need)
	need > 0
	have > factor * need
	is_number(have)
}

_other_oversize_factor if lib.configured_oversize_factor != 4

# A pool of several GPU models (a NodePool of instance-family In [g6e, p4d, p5], a ComputeClass whose
# priorities name an A100 and an H100) has no GPU of its own to compare: it is oversized when the
# GPU of every node type it admits is, the smallest too. Karpenter launches the cheapest node type
# that meets the pods' requests and GKE falls back down the priorities, and GPU memory is no request
# nor priority, so any of them can take the replicas (GF-RS-001's candidates; a node type with fewer
# GPUs than a replica asks for is never launched for it). Whole GPUs only: a MIG or time-shared
# pool's slices are per model. Node types the catalog does not know are not judged (GF-DATA-002
# names them). _admits_several first: the usual pool of one node type stops there.
bundle_warn contains {"rule": "GF-RS-002", "attribute": _shape_attribute[doc.cloud], "text": text} if {
	_admits_several
	doc.gpu.model == null
	need := doc.workload.gpu_memory_gib
	is_number(need)
	need > 0
	not lib.doc_partitioned(doc)
	asked := _asked_or_one
	smallest := min([[g.memory_gib, model, t] |
		some [t, model, gpus, _] in lib.candidate_shapes(doc)
		lib.launched_for(doc, gpus, asked)
		g := lib.gpu(model)
	])
	factor := _rs002_factor
	smallest[0] > factor * need
	text := sprintf("the GPU of every node type this pool admits has %s GiB of memory or more (the smallest: %s on %s), more than %v x the %s GiB workload.gpu_memory_gib; %s; %s", [
		lib.gib(smallest[0]), smallest[1], smallest[2], factor, lib.gib(need), _candidates_launch(doc.resource_type), _suggestion_text(_cheapest_fit(need, factor * need)),
	])
}

# The oversize factor of the policy data, else 4 (an unusable one, which GF-DATA-001 names, too).
_rs002_factor := f if {
	f := lib.configured_oversize_factor
} else := 4

# The memory one replica gets: the slice or GPU, split between the replicas that time-share it (as
# the fit splits it).
_rs002_have := doc.gpu.slice_memory_gib / doc.gpu.sharing.replicas if {
	is_number(doc.gpu.slice_memory_gib)
	doc.gpu.sharing.replicas > 0
} else := doc.gpu.slice_memory_gib

_rs002_unit := sprintf("each of the %v replicas time-sharing %s", [doc.gpu.sharing.replicas, _unit]) if {
	doc.gpu.sharing.replicas > 0
} else := _unit

_rs002(have, need, factor) := {"rule": "GF-RS-002", "attribute": _size_attribute, "text": text} if {
	text := sprintf("%s has %s GiB of GPU memory, more than %v x the %s GiB workload.gpu_memory_gib; %s", [
		_rs002_unit, lib.gib(have), factor, lib.gib(need), _suggestion_text(_cheapest_fit(need, factor * need)),
	])
}

# The cheapest option that fits and is not itself oversized, else the cheapest that fits. The
# catalog lists the cheapest option of each memory size per region (catalog.replica_options).
# At the default memory headroom and without workload.precision (the common case), an option fits
# when its usable memory (x[7], computed by the generator as the fit computes it) holds the need:
# two comparisons an option, no call. Otherwise comparisons of the option's memory first: an option
# with less memory than the need, whose usable memory is less still, or above the limit, is passed
# over before _option_fits' arithmetic.
_cheapest_fit(need, limit) := _cheapest_usable(need, limit) if {
	not data.gpufleet.thresholds.memory_headroom_percent
	not is_string(object.get(doc.workload, "precision", null))
} else := o if {
	o := min({x | some x in _options; x[1] >= need; x[1] <= limit; _option_fits(x, need)})
} else := o if {
	o := min({x | some x in _options; x[1] >= need; _option_fits(x, need)})
} else := []

_cheapest_usable(need, limit) := o if {
	o := min({x | some x in _options; x[7] >= need; x[1] <= limit})
} else := o if {
	o := min({x | some x in _options; x[7] >= need})
} else := []

_options := data.gpufleet.catalog.replica_options[doc.cloud][doc.region]

_suggestion_text([]) := "the catalog prices no fitting option for this cloud and region; choose a smaller GPU or a MIG profile"

_suggestion_text(o) := sprintf("the cheapest fitting option in the same region is %s", [option_text(o)]) if count(o) > 0

_size_attribute := "gpu.mig" if {
	_uses_mig
} else := _shape_attribute[doc.cloud]

_shape_attribute := {"aws": "instance_types", "gcp": "machine_type"}

# ---------------------------------------------------------------------------------------------
# GF-RS-003
# ---------------------------------------------------------------------------------------------

bundle_warn contains {"rule": "GF-RS-003", "attribute": attribute, "text": text} if {
	doc.gpu.class == "training"
	doc.workload.kind in {"inference", "development"}
	lib.full_gpu(doc)
	need := doc.workload.gpu_memory_gib
	is_number(need)
	have := doc.gpu.slice_memory_gib
	slice := _smallest_mig_fit(need, have)
	gpu := _cheapest_smaller_inference(need, have)
	count(slice) + count(gpu) > 0
	attribute := _rs003_attribute(slice)
	text := sprintf("%s workload on a whole training-class %s GPU (%s GiB) needing %s GiB; %s", [
		doc.workload.kind, doc.gpu.model, lib.gib(have), lib.gib(need), _rs003_text(slice, gpu),
	])
}

# Cheapest whole inference-class GPU with need <= memory < the current GPU's ([] when none).
_cheapest_smaller_inference(need, have) := o if {
	o := min({x |
		some x in data.gpufleet.catalog.inference_gpu_options[doc.cloud][doc.region]
		x[1] >= need
		x[1] < have
		_option_fits(x, need)
	})
} else := []

# The smallest MIG profile of the pool's own GPU that fits: [memory, name] ([] when none).
_smallest_mig_fit(need, have) := min(fits) if {
	fits := {[p.memory_gib, name] |
		some name, p in lib.gpu(doc.gpu.model).mig_profiles
		not contains(name, "+")
		lib.fit_usable_gib(p.memory_gib, lib.memory_headroom_percent) >= need
		p.memory_gib < have
	}
	count(fits) > 0
} else := []

_rs003_attribute(slice) := "gpu.mig.profile" if {
	count(slice) > 0
} else := _shape_attribute[doc.cloud]

_rs003_text(slice, []) := sprintf("the MIG slice %s (%s GiB) fits: set gpu.mig.profile = %q", [slice[1], lib.gib(slice[0]), slice[1]])

_rs003_text([], o) := sprintf("a smaller inference GPU fits: the cheapest in the same region is %s", [option_text(o)]) if {
	count(o) > 0
}

_rs003_text(slice, o) := sprintf("the MIG slice %s (%s GiB) fits (set gpu.mig.profile = %q), and so does a smaller inference GPU: the cheapest in the same region is %s", [
	slice[1], lib.gib(slice[0]), slice[1], option_text(o),
]) if {
	count(slice) > 0
	count(o) > 0
}

# ---------------------------------------------------------------------------------------------
# GF-RS-004
# ---------------------------------------------------------------------------------------------

deny contains {"rule": "GF-RS-004", "attribute": _shape_attribute[doc.cloud], "text": text} if {
	precision := doc.workload.precision
	is_string(precision)
	not doc.fit.fits == true # a fit without a problem computes in it (the fit's "precision" test is this rule's)
	not lib.computes_in(doc.gpu.model, precision) # tables: no catalog rule evaluated for the usual pool
	g := lib.gpu(doc.gpu.model)
	need := data.gpufleet.catalog.fit_model.min_compute_capability[precision]
	not g.compute_capability >= need # lib.precision_supported, with the lookups made above
	text := sprintf("%s (%s, compute capability %v) does not compute in %s, which needs compute capability %v or newer; choose a newer GPU or set workload.precision to one it supports", [
		doc.gpu.model, g.architecture, g.compute_capability, precision, need,
	])
}

# The same on the other node types the pool admits (lib.candidate_shapes): a NodePool of several
# GPU models may launch the oldest for the cheapest, and a ComputeClass fall back to it. Its own GPU
# model is the rule above's. (Whatever the memory need: compute capability is the GPU's alone.)
deny contains {"rule": "GF-RS-004", "attribute": _shape_attribute[doc.cloud], "text": text} if {
	precision := doc.workload.precision
	is_string(precision)
	_admits_several
	need := data.gpufleet.catalog.fit_model.min_compute_capability[precision]
	asked := _asked_or_one
	misfits := [[t, model, reason] |
		some [t, model, gpus, _] in lib.candidate_shapes(doc)
		model != doc.gpu.model
		lib.launched_for(doc, gpus, asked)
		not lib.computes_in(model, precision)
		g := lib.gpu(model)
		not g.compute_capability >= need
		reason := sprintf("%s, compute capability %v", [g.architecture, g.compute_capability])
	]
	count(misfits) > 0
	text := sprintf("the GPUs of node types this pool admits do not compute in %s, which needs compute capability %v or newer: %s; %s, so replicas can land on them. Admit only node types of newer GPUs, or set workload.precision to one they all support", [
		precision, need, _candidate_groups(misfits), _candidates_launch(doc.resource_type),
	])
}

# ---------------------------------------------------------------------------------------------
# GF-RS-005
# ---------------------------------------------------------------------------------------------

bundle_warn contains {"rule": "GF-RS-005", "attribute": "scaling.max_size", "text": text} if {
	replicas := doc.workload.replicas
	is_number(replicas)
	lib.spreads_replicas(doc.workload.kind, doc.workload.environment, replicas)
	size := doc.scaling.max_size
	is_number(size)
	size < 2
	text := sprintf("production inference with %v replicas on a pool of at most %v node: one node's loss takes every replica down; set scaling.max_size (and min_size) to at least 2 so the replicas spread over nodes", [
		replicas, size,
	])
}

# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------

_uses_mig if is_string(doc.gpu.mig_profile)

_uses_mig if is_string(doc.gpu.mig_config)

# "the MIG slice 1g.10gb of H100-80GB", "one H100-80GB GPU", ...
_unit := sprintf("the MIG slice %s of %s", [doc.gpu.mig_profile, doc.gpu.model]) if {
	is_string(doc.gpu.mig_profile)
} else := sprintf("the smallest slice of MIG config %s on %s", [doc.gpu.mig_config, doc.gpu.model]) if {
	is_string(doc.gpu.mig_config)
} else := sprintf("one %s GPU", [doc.gpu.model]) if {
	is_string(doc.gpu.model)
} else := "one GPU"

# An option of catalog.replica_options holds a replica (the fit's memory with headroom, and the
# workload's precision when the option names its GPU's compute capability, x[6]).
_option_fits(x, need) if {
	lib.fit_usable_gib(x[1], lib.memory_headroom_percent) >= need
	_option_computes(x)
}

_option_computes(_) if not is_string(object.get(doc.workload, "precision", null))

_option_computes(x) if x[6] >= data.gpufleet.catalog.fit_model.min_compute_capability[doc.workload.precision]

# An option of catalog.replica_options: [unit_usd, memory_gib, "gpu" | "mig", class, text, gpu_usd,
# compute_capability, usable_gib at the default memory headroom].
option_text(o) := sprintf("%s at %s/h per GPU", [o[4], lib.usd(o[0])]) if o[2] == "gpu"

option_text(o) := sprintf("%s at %s/h per slice (%s/h per GPU)", [o[4], lib.usd(o[0]), lib.usd(o[5])]) if o[2] == "mig"

# The GPUs a replica asks for, as far as GF-RS-004 needs them: workload.gpus_per_replica, else 1 (a
# node type of any size may be launched).
_asked_or_one := doc.workload.gpus_per_replica if {
	is_number(doc.workload.gpus_per_replica)
	doc.workload.gpus_per_replica >= 1
} else := 1

# lib.admits_several of the pool, without a call: two lookups (a function call per pool cost a
# combined run of 100 pools 1 400 allocations, BenchmarkConftestManifests).
_admits_several if doc.instance_types[1]

_admits_several if doc.autoscaler.priorities[1]
