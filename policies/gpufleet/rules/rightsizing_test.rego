package gpufleet.rules.rightsizing_test

import data.gpufleet.findings
import data.gpufleet.fixtures as fx
import data.gpufleet.lib

# --- GF-RS-001 -------------------------------------------------------------------------------

test_rs001_gpu_too_small if {
	fs := fx.of(findings.deny, "GF-RS-001") with input as fx.pool({"workload": {"gpu_memory_gib": 30}})
	count(fs) == 1
	some f in fs
	f.severity == "deny"
	f.address == "gpufleet_eks_node_pool.test"
	f.attribute == "workload.gpu_memory_gib"
	startswith(f.msg, "GF-RS-001: gpufleet_eks_node_pool.test: one L4 GPU has 24 GiB of GPU memory but workload.gpu_memory_gib needs 30 GiB")
}

test_rs001_mig_slice_too_small if {
	fs := fx.of(findings.deny, "GF-RS-001") with input as fx.pool({
		"gpu": {"model": "H100-80GB", "class": "training", "memory_gib": 80, "mig_profile": "1g.10gb", "slice_memory_gib": 10},
		"instance_types": ["p5.48xlarge"],
	})
	some f in fs
	f.attribute == "gpu.mig.profile"
	contains(f.msg, "the MIG slice 1g.10gb of H100-80GB has 10 GiB")
	contains(f.msg, "choose a larger MIG profile")
}

test_rs001_fits if {
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as fx.pool({"workload": {"gpu_memory_gib": 13}})
}

# The old answer to "does 24 GiB fit a 24 GiB GPU" was yes; with 5 % kept free it is 22.8 GiB.
test_rs001_memory_headroom if {
	fs := fx.of(findings.deny, "GF-RS-001") with input as fx.pool({"workload": {"gpu_memory_gib": 23}, "instance_types": ["g6.4xlarge"]})
	some f in fs
	f.attribute == "workload.gpu_memory_gib"
	contains(f.msg, "needs 23 GiB per replica; 22.8 GiB of it is usable with 5 % kept free")
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as fx.pool({"workload": {"gpu_memory_gib": 22.8}, "instance_types": ["g6.4xlarge"]})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as fx.pool({"workload": {"gpu_memory_gib": 23}, "instance_types": ["g6.4xlarge"]})
		with data.gpufleet.thresholds.memory_headroom_percent as 0
}

# Four T4s on an n1-standard-4 (15 GiB): four replicas' weights do not fit its host memory.
test_rs007_host_memory if {
	pool := gke_pool({
		"workload": {"gpu_memory_gib": 14, "replicas": 4},
		"gpu": {"model": "T4", "class": "inference", "memory_gib": 16, "per_node": 4, "slice_memory_gib": 16},
		"instance_types": ["n1-standard-4"],
	})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as fx.pool(pool)
	fs := fx.of(findings.warn, "GF-RS-007") with input as fx.pool(pool)
	count(fs) == 1
	some f in fs
	f.attribute == "machine_type"
	contains(f.msg, "the replicas of a node need 49.3 GiB of host memory")
	contains(f.msg, "the node has 15 GiB")
}

# A documents file's pools carry their fit (gpufleet-policy documents computes lib.doc_fit in Go,
# at the default headroom): GF-RS-001 and GF-RS-007 take it as the fit. A fit with problems at
# another headroom than the one in force is computed again; a fit without problems is taken as it is
# (documents.pools drops a documents file's fits at another headroom: main_test.rego); a fit that is
# not one is computed here.
test_rs001_fit_the_document_carries if {
	pool := fx.pool({"workload": {"gpu_memory_gib": 30}})
	carried := object.union(pool, {"fit": object.union(lib.doc_fit(pool), {"fits": false, "headroom_percent": 5})})
	computed := fx.of(findings.deny, "GF-RS-001") with input as pool
	count(computed) == 1
	fx.of(findings.deny, "GF-RS-001") == computed with input as carried

	# What the carried fit says decides: a fit without a problem is no finding.
	fitting := object.union(pool, {"fit": object.union(carried.fit, {"fits": true, "problems": []})})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as fitting
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as fitting with data.gpufleet.thresholds.memory_headroom_percent as 5

	# A fit with problems at another headroom, or one that is not a fit, is computed here.
	fs := fx.of(findings.deny, "GF-RS-001") with input as carried with data.gpufleet.thresholds.memory_headroom_percent as 10
	some f in fs
	contains(f.msg, "21.6 GiB of it is usable with 10 % kept free")
	tight := fx.pool({"workload": {"gpu_memory_gib": 23}, "instance_types": ["g6.4xlarge"]})
	tight_carried := object.union(tight, {"fit": object.union(lib.doc_fit(tight), {"fits": false, "headroom_percent": 5})})
	count(fx.of(findings.deny, "GF-RS-001")) == 1 with input as tight_carried
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as tight_carried with data.gpufleet.thresholds.memory_headroom_percent as 0
	fx.of(findings.deny, "GF-RS-001") == computed with input as object.union(pool, {"fit": {"fits": "no"}})
	fx.of(findings.deny, "GF-RS-001") == computed with input as object.union(pool, {"fit": null})
}

test_rs007_fit_the_document_carries if {
	pool := fx.pool(gke_pool({
		"workload": {"gpu_memory_gib": 14, "replicas": 4},
		"gpu": {"model": "T4", "class": "inference", "memory_gib": 16, "per_node": 4, "slice_memory_gib": 16},
		"instance_types": ["n1-standard-4"],
	}))
	carried := object.union(pool, {"fit": object.union(lib.doc_fit(pool), {"fits": false, "headroom_percent": 5})})
	computed := fx.of(findings.warn, "GF-RS-007") with input as pool
	count(computed) == 1
	fx.of(findings.warn, "GF-RS-007") == computed with input as carried
	fitting := object.union(pool, {"fit": object.union(carried.fit, {"fits": true, "problems": []})})
	count(fx.of(findings.warn, "GF-RS-007")) == 0 with input as fitting
	fx.of(findings.warn, "GF-RS-007") == computed with input as carried with data.gpufleet.thresholds.memory_headroom_percent as 10
	fx.of(findings.warn, "GF-RS-007") == computed with input as object.union(pool, {"fit": {"fits": 1}})
}

# 70B fp16 (156.46 GiB) tensor-parallel over 4 L40S fits; over the 1 L40S of g6e.xlarge it does not.
test_rs001_multi_gpu_replica if {
	l40s := {"model": "L40S", "class": "inference", "memory_gib": 44.7, "slice_memory_gib": 44.7}
	fits := fx.pool({"workload": {"gpu_memory_gib": 156.46, "gpus_per_replica": 4}, "gpu": object.union(l40s, {"per_node": 4}), "instance_types": ["g6e.12xlarge"]})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as fits
	too_big := fx.pool({"workload": {"gpu_memory_gib": 156.46, "gpus_per_replica": 4}, "gpu": object.union(l40s, {"per_node": 1}), "instance_types": ["g6e.8xlarge"]})
	fs := fx.of(findings.deny, "GF-RS-001") with input as too_big
	some f in fs
	f.attribute == "workload.gpus_per_replica"
	contains(f.msg, "a replica over 4 GPUs needs them on one node, and a node of this pool has 1")
}

# A training replica over 4 GPUs needs NVLink: g5.12xlarge's A10Gs share PCIe only; p4d's do not.
test_rs001_training_needs_nvlink if {
	pcie := fx.pool({
		"workload": {"kind": "training", "gpu_memory_gib": 60, "gpus_per_replica": 4},
		"gpu": {"model": "A10G", "class": "inference", "memory_gib": 22.35, "per_node": 4, "slice_memory_gib": 22.35},
		"instance_types": ["g5.12xlarge"],
	})
	fs := fx.of(findings.deny, "GF-RS-001") with input as pcie
	some f in fs
	contains(f.msg, "needs NVLink between them, and the A10G GPUs of this node share pcie only")
	nvlink := fx.pool({
		"workload": {"kind": "training", "gpu_memory_gib": 60, "gpus_per_replica": 4},
		"gpu": {"model": "A100-40GB", "class": "training", "memory_gib": 40, "per_node": 8, "slice_memory_gib": 40},
		"instance_types": ["p4d.24xlarge"],
	})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as nvlink
}

# On nodes of one GPU a training replica over several spans nodes: the message says the node has a
# single GPU (its catalog entry names no interconnect; it said "share null only"), and counts one
# GPU per node in the singular.
test_rs001_training_on_single_gpu_nodes if {
	single := fx.pool({
		"workload": {"kind": "training", "gpu_memory_gib": 60, "gpus_per_replica": 4},
		"gpu": {"model": "H100-80GB", "class": "training", "memory_gib": 80, "per_node": 1, "slice_memory_gib": 80},
		"instance_types": ["p5.4xlarge"],
	})
	fs := fx.of(findings.deny, "GF-RS-001") with input as single
	count(fs) == 1
	some f in fs
	contains(f.msg, "needs NVLink between them, and a node of this pool has a single H100-80GB, linked to no other GPU;")
	contains(f.msg, "spans 4 nodes of 1 GPU, which needs an inter-node GPU network (EFA)")
	not contains(f.msg, "null")
}

# A training replica over 16 GPUs spans two 8-GPU nodes: p3.16xlarge has NVLink but no EFA, p5.48xlarge
# has both (issue #40, item 8). 12 GPUs are no whole number of 8-GPU nodes.
test_rs001_training_over_nodes_needs_internode if {
	v100 := {"model": "V100-16GB", "class": "training", "memory_gib": 16, "per_node": 8, "slice_memory_gib": 16}
	tcp_only := fx.pool({"workload": {"kind": "training", "gpu_memory_gib": 200, "gpus_per_replica": 16}, "gpu": v100, "instance_types": ["p3.16xlarge"]})
	fs := fx.of(findings.deny, "GF-RS-001") with input as tcp_only
	count(fs) == 1
	some f in fs
	f.attribute == "instance_types"
	contains(f.msg, "a training replica over 16 GPUs spans 2 nodes of 8 GPUs, which needs an inter-node GPU network (EFA), and p3.16xlarge has none")
	h100 := {"model": "H100-80GB", "class": "training", "memory_gib": 80, "per_node": 8, "slice_memory_gib": 80}
	efa := fx.pool({"workload": {"kind": "training", "gpu_memory_gib": 1100, "gpus_per_replica": 16}, "gpu": h100, "instance_types": ["p5.48xlarge"]})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as efa
	twelve := fx.pool({"workload": {"kind": "training", "gpu_memory_gib": 600, "gpus_per_replica": 12}, "gpu": h100, "instance_types": ["p5.48xlarge"]})
	gs := fx.of(findings.deny, "GF-RS-001") with input as twelve
	some g in gs
	g.attribute == "workload.gpus_per_replica"
}

# A ComputeClass or NodePool that admits several shapes keeps a replica's nodes on one inter-node
# network only if every shape has the same: a3-highgpu-8g (GPUDirect-TCPX) and a3-megagpu-8g
# (TCPXO), both 8 x H100 80GB, do not reach each other's GPUs (issue #40, item 8).
test_rs001_training_over_nodes_needs_one_internode_on_every_shape if {
	h100 := {"model": "H100-80GB", "class": "training", "memory_gib": 80, "per_node": 8, "slice_memory_gib": 80}
	w := {"kind": "training", "gpu_memory_gib": 1100, "gpus_per_replica": 16}
	mixed := fx.pool({"cloud": "gcp", "region": "us-central1", "workload": w, "gpu": h100, "instance_types": ["a3-megagpu-8g", "a3-highgpu-8g"]})
	fs := fx.of(findings.deny, "GF-RS-001") with input as mixed
	count(fs) == 1
	some f in fs
	contains(f.msg, "a training replica over 16 GPUs spans 2 nodes of 8 GPUs, which must share one inter-node GPU network (GPUDirect-TCPX, GPUDirect-TCPXO or GPUDirect-RDMA), and the node types this pool admits have different ones (a3-megagpu-8g gpudirect-tcpxo, a3-highgpu-8g gpudirect-tcpx)")
	one := fx.pool({"cloud": "gcp", "region": "us-central1", "workload": w, "gpu": h100, "instance_types": ["a3-megagpu-8g"]})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as one
	single_node := fx.pool({"cloud": "gcp", "region": "us-central1", "workload": object.union(w, {"gpus_per_replica": 8, "gpu_memory_gib": 600}), "gpu": h100, "instance_types": ["a3-megagpu-8g", "a3-highgpu-8g"]})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as single_node
}

# A ComputeClass priority of a machine family and a GPU (machineFamily: a3, gpu: 8 x nvidia-h100-80gb)
# names no machine type: its GPU link is the one every catalog machine type of that GPU and count
# has. Eight H100s are linked by NVLink on every a3 machine type; eight L4s (g2-standard-96) share
# PCIe. (It was taken as PCIe whatever the GPU: training on H100s was denied.)
test_rs001_class_by_machine_family_has_its_gpus_link if {
	h100 := {"model": "H100-80GB", "class": "training", "memory_gib": 80, "per_node": 8, "slice_memory_gib": 80}
	w := {"kind": "training", "gpu_memory_gib": 300, "gpus_per_replica": 8}
	class := {"address": "ComputeClass/train", "resource_type": "ComputeClass", "cloud": "gcp", "region": "europe-west4", "instance_types": [], "workload": w}
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as fx.pool(object.union(class, {"gpu": h100}))
	l4 := {"model": "L4", "class": "inference", "memory_gib": 24, "per_node": 8, "slice_memory_gib": 24}
	fs := fx.of(findings.deny, "GF-RS-001") with input as fx.pool(object.union(class, {"gpu": l4, "workload": {"gpu_memory_gib": 100}}))
	some f in fs
	contains(f.msg, "a training replica over 8 GPUs needs NVLink between them, and the L4 GPUs of this node share the PCIe bus only")
}

# A NodePool of several GPU models (instance-family In [g5, g6, g6e]) has no gpu.model: each node
# type it admits is judged on its own, and those whose GPU does not hold a replica are named, grouped
# by model, smallest nodes first.
_mixed_gpu := {"model": null, "class": null, "memory_gib": null, "per_node": null, "slice_memory_gib": null}

_mixed_nodepool(types, workload) := fx.pool({
	"address": "NodePool/any-family", "resource_type": "NodePool",
	"gpu": _mixed_gpu, "instance_types": types, "workload": workload,
})

test_rs001_mixed_models_each_node_type_judged if {
	pool := _mixed_nodepool(["g5.2xlarge", "g5.xlarge", "g6.xlarge", "g6e.xlarge"], {"gpu_memory_gib": 30})
	fs := fx.of(findings.deny, "GF-RS-001") with input as pool
	count(fs) == 1
	some f in fs
	f.attribute == "spec.template.spec.requirements"
	contains(f.msg, "a replica does not fit node types this pool admits: A10G (21.2 GiB usable on 1 GPU): g5.xlarge, g5.2xlarge; L4 (21.2 GiB usable on 1 GPU): g6.xlarge; Karpenter launches any node type that meets the pods' requests (on-demand, the cheapest)")
	not contains(f.msg, "g6e")
	contains(f.msg, `(spec.template.metadata.labels["gpufleet.io/gpu-memory-gib"] 30 GiB with 5 % kept free)`)

	# every node type holds 13 GiB; nothing is said of a pool without a memory need
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as _mixed_nodepool(["g5.xlarge", "g6.xlarge", "g6e.xlarge"], {"gpu_memory_gib": 13})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as _mixed_nodepool(["g5.xlarge", "g6.xlarge"], {"gpu_memory_gib": null})
}

# Four node types of one group are named, the rest counted; types the catalog does not know are not
# judged; a MIG or time-shared pool's slices are per model, and are not judged per node type.
test_rs001_mixed_models_named_and_passed_over if {
	many := _mixed_nodepool(["g5.xlarge", "g5.2xlarge", "g5.4xlarge", "g5.8xlarge", "g5.16xlarge", "g6e.xlarge", "x9.unknown"], {"gpu_memory_gib": 30})
	some f in fx.of(findings.deny, "GF-RS-001") with input as many
	contains(f.msg, "A10G (21.2 GiB usable on 1 GPU): g5.xlarge, g5.2xlarge, g5.4xlarge, g5.8xlarge and 1 more; Karpenter")
	not contains(f.msg, "x9.unknown")
	shared := object.union(_mixed_nodepool(["g5.xlarge", "g6.xlarge"], {"gpu_memory_gib": 30}), {"gpu": {"sharing": {"strategy": "time-slicing", "replicas": 4}}})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as shared
}

# Every node type is judged with the GPUs a replica asks for (a pod's request, the same wherever it
# lands): gpus_per_replica, else the fewest on which a replica fits some node type of the pool. A
# node type with fewer GPUs is never launched for the replica, and is not named.
test_rs001_mixed_models_judged_with_the_replicas_request if {
	# 4 GPUs a replica: g5.12xlarge holds 60 GiB on its 4 A10Gs; the 1-GPU g5s are never launched
	four := _mixed_nodepool(["g5.xlarge", "g5.2xlarge", "g5.12xlarge", "g6e.12xlarge"], {"gpu_memory_gib": 60, "gpus_per_replica": 4})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as four

	# unset: a 30 GiB replica fits 2 of g6.12xlarge's 4 L4s, so replicas ask for 2 GPUs, and the
	# 1-GPU g6.xlarge is never launched; beside a g6e (one L40S holds it) they ask for 1, and it is
	two := _mixed_nodepool(["g6.xlarge", "g6.12xlarge"], {"gpu_memory_gib": 30})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as two
	one := _mixed_nodepool(["g6.xlarge", "g6.12xlarge", "g6e.xlarge"], {"gpu_memory_gib": 30})
	some f in fx.of(findings.deny, "GF-RS-001") with input as one
	contains(f.msg, "admits: L4 (21.2 GiB usable on 1 GPU): g6.xlarge, g6.12xlarge; Karpenter")

	# a class of 1- and 2-GPU L4 machine types, replicas of 2 GPUs: only the 2-GPU one is launched
	class := fx.pool({
		"address": "ComputeClass/chat", "resource_type": "ComputeClass", "cloud": "gcp", "region": "europe-west4",
		"gpu": _mixed_gpu, "instance_types": ["g2-standard-24", "g2-standard-8"], "workload": {"gpu_memory_gib": 40, "gpus_per_replica": 2},
	})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as class
}

# One GPU model in nodes of 1 and 8 GPUs has no GPU count, so no fit of its own: a training replica
# over 8 GPUs spans 8 g6.xlarge nodes, which have no inter-node network, and that is said.
test_rs001_mixed_counts_internode_said if {
	l4 := {"model": "L4", "class": "inference", "memory_gib": 24, "per_node": null, "slice_memory_gib": 24}
	pool := fx.pool({"address": "NodePool/l4", "resource_type": "NodePool", "gpu": l4, "instance_types": ["g6.xlarge", "g6.48xlarge"], "workload": {"kind": "training", "gpu_memory_gib": 100, "gpus_per_replica": 8}})
	some f in fx.of(findings.deny, "GF-RS-001") with input as pool
	contains(f.msg, "L4 (no NVLink between the 8 GPUs of a training replica, no inter-node GPU network for a replica over 8 nodes): g6.xlarge;")
}

# The pool's own fit does not span nodes on its first type (8 GPUs of a p3.16xlarge hold a replica
# of 8); the p3.8xlarge it also admits does (2 nodes), and has no EFA: said, in either order.
test_rs001_other_type_spans_nodes_without_internode if {
	v100 := {"model": "V100-16GB", "class": "training", "memory_gib": 16, "per_node": 8, "slice_memory_gib": 16}
	w := {"kind": "training", "gpu_memory_gib": 60, "gpus_per_replica": 8}
	group := fx.pool({"address": "aws_eks_node_group.train", "resource_type": "aws_eks_node_group", "gpu": v100, "instance_types": ["p3.16xlarge", "p3.8xlarge"], "workload": w})
	fs := fx.of(findings.deny, "GF-RS-001") with input as group
	count(fs) == 1
	some f in fs
	contains(f.msg, "V100-16GB (no inter-node GPU network for a replica over 2 nodes): p3.8xlarge;")

	# a training replica over the 8 A10Gs of a g5.48xlarge needs NVLink, which the pool's own fit
	# says; the g5.12xlarge beside it (2 nodes of 4) is not told again for NVLink
	a10g := {"model": "A10G", "class": "inference", "memory_gib": 22.35, "per_node": 8, "slice_memory_gib": 22.35}
	g5 := fx.pool({"address": "aws_eks_node_group.g5", "resource_type": "aws_eks_node_group", "gpu": a10g, "instance_types": ["g5.48xlarge", "g5.12xlarge"], "workload": {"kind": "training", "gpu_memory_gib": 60, "gpus_per_replica": 8}})
	gs := fx.of(findings.deny, "GF-RS-001") with input as g5
	every g in gs {
		not contains(g.msg, "no NVLink between")
	}
}

# A replica's request is sized for a node type it fits wholly: a V100 node holds 25 GiB on one GPU
# but does not compute in bf16, so the request is not taken as 1 GPU from it (GF-RS-004 names it),
# and the L4s are judged with the 2 GPUs a replica asks for on them.
test_rs001_request_from_a_node_type_that_fits_wholly if {
	pool := _mixed_nodepool(["p3dn.24xlarge", "g6.12xlarge"], {"gpu_memory_gib": 25, "precision": "bf16"})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as pool
	count(fx.of(findings.deny, "GF-RS-004")) == 1 with input as pool
}

# A ComputeClass priority of gpu.count 0 is no node to judge, and a class whose only GPU count is 0
# has no fit (it divided by zero: conftest --show-builtin-errors failed the run).
test_rs001_gpu_count_zero if {
	class := fx.pool({
		"address": "ComputeClass/zero", "resource_type": "ComputeClass", "cloud": "gcp", "region": "europe-west4",
		"gpu": object.union(_mixed_gpu, {"model": "L4", "per_node": 0}), "instance_types": [], "workload": {"gpu_memory_gib": 30},
		"autoscaler": {"kind": "ComputeClass", "priorities": [_priority(null, "L4", false), object.union(_priority(null, "L4", false), {"gpu_count": 0})]},
	})
	[[name, _, _, _]] := lib.candidate_shapes(class)
	name == "priority 1"
	not lib.doc_fit(class)
}

# What the pool's own fit says is not said again: a node group of g5.xlarge and g5.12xlarge for a
# 30 GiB training replica (one A10G each) gets one GF-RS-001, on its first type; a NodePool of T4s of
# two sizes for bf16 work one GF-RS-004.
test_rs001_rs004_own_model_said_once if {
	a10g := {"model": "A10G", "class": "inference", "memory_gib": 22.35, "per_node": 1, "slice_memory_gib": 22.35}
	group := fx.pool({"address": "aws_eks_node_group.train", "resource_type": "aws_eks_node_group", "gpu": a10g, "instance_types": ["g5.xlarge", "g5.12xlarge"], "workload": {"kind": "training", "gpu_memory_gib": 30}})
	fs := fx.of(findings.deny, "GF-RS-001") with input as group
	count(fs) == 1
	some f in fs
	contains(f.msg, "one A10G GPU has 22.4 GiB of GPU memory")
	t4 := {"model": "T4", "class": "inference", "memory_gib": 16, "per_node": 1, "slice_memory_gib": 16}
	t4s := fx.pool({"gpu": t4, "instance_types": ["g4dn.xlarge", "g4dn.12xlarge"], "workload": {"gpu_memory_gib": 10, "precision": "bf16"}})
	count(fx.of(findings.deny, "GF-RS-004")) == 1 with input as t4s
}

# A training replica over 8 GPUs needs NVLink: a NodePool of p4d.24xlarge and g5.48xlarge (8 A10G on
# PCIe) gets the cheaper g5 for the same request of 8 GPUs; on g6.xlarge the replica spans 8 nodes,
# which have neither NVLink nor an inter-node GPU network.
test_rs001_mixed_models_interconnect if {
	pool := _mixed_nodepool(["p4d.24xlarge", "g5.48xlarge", "g6.xlarge"], {"kind": "training", "gpu_memory_gib": 10, "gpus_per_replica": 8})
	fs := fx.of(findings.deny, "GF-RS-001") with input as pool
	count(fs) == 1
	some f in fs
	contains(f.msg, "this pool admits: L4 (no NVLink between the 8 GPUs of a training replica, no inter-node GPU network for a replica over 8 nodes): g6.xlarge; A10G (no NVLink between the 8 GPUs of a training replica): g5.48xlarge; Karpenter")
	not contains(f.msg, "p4d")
}

# An EKS node group launches its other instance types too: a first type that fits does not cover
# them. A ComputeClass falls back down its priorities.
test_rs001_other_node_types_of_a_node_group_and_a_class if {
	l40s := {"model": "L40S", "class": "inference", "memory_gib": 44.7, "per_node": 1, "slice_memory_gib": 44.7}
	group := fx.pool({"address": "aws_eks_node_group.inference", "resource_type": "aws_eks_node_group", "gpu": l40s, "instance_types": ["g6e.xlarge", "g6.xlarge"], "workload": {"gpu_memory_gib": 30}})
	some f in fx.of(findings.deny, "GF-RS-001") with input as group
	f.attribute == "instance_types"
	contains(f.msg, "L4 (21.2 GiB usable on 1 GPU): g6.xlarge; the node group launches its other instance types when the first is out of capacity")
	class := fx.pool({
		"address": "ComputeClass/inference", "resource_type": "ComputeClass", "cloud": "gcp", "region": "europe-west4",
		"gpu": _mixed_gpu, "instance_types": ["a2-highgpu-1g", "g2-standard-8"], "workload": {"gpu_memory_gib": 30},
	})
	some g in fx.of(findings.deny, "GF-RS-001") with input as class
	g.attribute == "spec.priorities"
	contains(g.msg, "L4 (21.2 GiB usable on 1 GPU): g2-standard-8; GKE falls back down the priorities")
	not contains(g.msg, "a2-highgpu-1g")
}

# --- GF-RS-004 -------------------------------------------------------------------------------

test_rs004_bf16_not_on_a_t4 if {
	t4 := {"workload": {"precision": "bf16"}, "gpu": {"model": "T4", "class": "inference", "memory_gib": 16, "slice_memory_gib": 16}, "instance_types": ["g4dn.xlarge"]}
	fs := fx.of(findings.deny, "GF-RS-004") with input as fx.pool(t4)
	count(fs) == 1
	some f in fs
	f.attribute == "instance_types"
	contains(f.msg, "T4 (Turing, compute capability 7.5) does not compute in bf16, which needs compute capability 8 or newer")
	count(fx.of(findings.deny, "GF-RS-004")) == 0 with input as fx.pool({"workload": {"precision": "bf16"}})
}

# A ComputeClass priority of a machine family and a GPU has no machine type: it is judged on its GPUs
# ("priority 2"), and priorities of one GPU are named together.
_priority(machine_type, model, spot) := {"spot": spot, "flex_start": false, "reservation_affinity": null, "location_zones": 0, "machine_type": machine_type, "gpu_model": model, "gpu_count": 1}

test_rs001_class_priorities_of_a_family_judged_on_their_gpus if {
	class := fx.pool({
		"address": "ComputeClass/chat", "resource_type": "ComputeClass", "cloud": "gcp", "region": "europe-west4",
		"gpu": _mixed_gpu, "instance_types": ["a2-highgpu-1g"], "workload": {"gpu_memory_gib": 30},
		"autoscaler": {"kind": "ComputeClass", "priorities": [_priority("a2-highgpu-1g", "A100-40GB", false), _priority(null, "L4", false), _priority(null, "L4", true)]},
	})
	fs := fx.of(findings.deny, "GF-RS-001") with input as class
	count(fs) == 1
	some f in fs
	contains(f.msg, "does not fit node types this pool admits: L4 (21.2 GiB usable on 1 GPU): priority 2, priority 3; GKE falls back down the priorities")
	not contains(f.msg, "a2-highgpu-1g")

	# one priority of a family, the class's own GPU: its own fit says it (GF-RS-001 once), nothing beside it
	one := json.patch(class, [
		{"op": "replace", "path": "/autoscaler/priorities", "value": [_priority(null, "L4", false)]},
		{"op": "replace", "path": "/instance_types", "value": []},
	])
	count(fx.of(findings.deny, "GF-RS-001")) == 1 with input as fx.pool(object.union(one, {"gpu": {"model": "L4", "class": "inference", "memory_gib": 24, "per_node": 1, "slice_memory_gib": 24}}))
	not lib.candidate_misfits(object.union(one, {"gpu": {"model": "L4", "per_node": 1}}))
}

# A NodePool of several GPU models that admits a T4 (g4dn) for bf16 work: the T4 is named.
test_rs004_mixed_models_name_the_old_gpu if {
	pool := _mixed_nodepool(["g4dn.xlarge", "g6.xlarge", "g4dn.2xlarge"], {"gpu_memory_gib": 10, "precision": "bf16"})
	fs := fx.of(findings.deny, "GF-RS-004") with input as pool
	count(fs) == 1
	some f in fs
	f.attribute == "spec.template.spec.requirements"
	contains(f.msg, "the GPUs of node types this pool admits do not compute in bf16, which needs compute capability 8 or newer: T4 (Turing, compute capability 7.5): g4dn.xlarge, g4dn.2xlarge; Karpenter")
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as pool
	count(fx.of(findings.deny, "GF-RS-004")) == 0 with input as _mixed_nodepool(["g5.xlarge", "g6.xlarge"], {"gpu_memory_gib": 10, "precision": "bf16"})

	# a node type with fewer GPUs than a replica asks for is never launched for it
	count(fx.of(findings.deny, "GF-RS-004")) == 0 with input as _mixed_nodepool(["g4dn.xlarge", "g6e.12xlarge"], {"gpu_memory_gib": 10, "precision": "bf16", "gpus_per_replica": 4})

	# compute capability is the GPU's alone: said without a memory need too
	some g in fx.of(findings.deny, "GF-RS-004") with input as _mixed_nodepool(["g4dn.xlarge", "g6.xlarge"], {"gpu_memory_gib": null, "precision": "bf16"})
	contains(g.msg, "T4 (Turing, compute capability 7.5): g4dn.xlarge; Karpenter")
}

# With the fit a documents file carries: its precision problem is this rule's finding; a fit without
# a problem is none; a fit that is not one is passed over to the rule's own test.
test_rs004_fit_the_document_carries if {
	pool := fx.pool({"workload": {"precision": "bf16"}, "gpu": {"model": "T4", "class": "inference", "memory_gib": 16, "slice_memory_gib": 16}, "instance_types": ["g4dn.xlarge"]})
	computed := fx.of(findings.deny, "GF-RS-004") with input as pool
	count(computed) == 1
	carried := object.union(pool, {"fit": object.union(lib.doc_fit(pool), {"fits": false, "headroom_percent": 5})})
	"precision" in carried.fit.problems
	fx.of(findings.deny, "GF-RS-004") == computed with input as carried
	count(fx.of(findings.deny, "GF-RS-004")) == 0 with input as object.union(pool, {"fit": {"fits": true, "headroom_percent": 5}})
	fx.of(findings.deny, "GF-RS-004") == computed with input as object.union(pool, {"fit": {"fits": "?"}})
}

test_rs004_fp8_needs_ada if {
	count(fx.of(findings.deny, "GF-RS-004")) == 1 with input as fx.pool({
		"workload": {"precision": "fp8"},
		"gpu": {"model": "A10G", "class": "inference", "memory_gib": 22.35, "slice_memory_gib": 22.35}, "instance_types": ["g5.xlarge"],
	})
	count(fx.of(findings.deny, "GF-RS-004")) == 0 with input as fx.pool({"workload": {"precision": "fp8"}})
	count(fx.of(findings.deny, "GF-RS-004")) == 0 with input as fx.pool({"workload": {"precision": null}})
}

# --- GF-RS-005 -------------------------------------------------------------------------------

test_rs005_production_replicas_on_one_node if {
	one := {"workload": {"environment": "production", "replicas": 2}, "scaling": {"min_size": 1, "max_size": 1, "desired_size": 1}}
	fs := fx.of(findings.warn, "GF-RS-005") with input as fx.pool(one)
	count(fs) == 1
	some f in fs
	f.attribute == "scaling.max_size"
	contains(f.msg, "production inference with 2 replicas on a pool of at most 1 node")
	count(fx.of(findings.warn, "GF-RS-005")) == 0 with input as fx.pool(object.union(one, {"scaling": {"max_size": 2}}))
	count(fx.of(findings.warn, "GF-RS-005")) == 0 with input as fx.pool(object.union(one, {"workload": {"replicas": 1}}))
	count(fx.of(findings.warn, "GF-RS-005")) == 0 with input as fx.pool(object.union(one, {"workload": {"environment": "staging"}}))
	count(fx.of(findings.warn, "GF-RS-005")) == 0 with input as fx.pool(object.union(one, {"workload": {"replicas": null}}))
}

test_rs001_unknown_need_or_slice if {
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as fx.pool({"workload": {"gpu_memory_gib": null}})
	count(fx.of(findings.deny, "GF-RS-001")) == 0 with input as fx.pool({"workload": {"gpu_memory_gib": 30}, "gpu": {"slice_memory_gib": null}})
}

# --- GF-RS-002 -------------------------------------------------------------------------------

test_rs002_oversized_names_cheapest_fit if {
	fs := fx.of(findings.warn, "GF-RS-002") with input as fx.pool({"workload": {"gpu_memory_gib": 4}})
		with data.gpufleet.catalog as fx.catalog
	count(fs) == 1
	some f in fs
	f.severity == "warn"
	f.attribute == "instance_types"
	startswith(f.msg, "GF-RS-002: gpufleet_eks_node_pool.test: one L4 GPU has 24 GiB of GPU memory, more than 4 x the 4 GiB workload.gpu_memory_gib")

	# 1g.5gb of an A100-40GB: p4d.24xlarge's $24.5952/h over 8 GPUs over 7 slices
	contains(f.msg, "the cheapest fitting option in the same region is the MIG slice 1g.5gb of A100-40GB on p4d.24xlarge at $0.44/h per slice ($3.07/h per GPU)")
}

test_rs002_gke_attribute_and_mig_option if {
	fs := fx.of(findings.warn, "GF-RS-002") with input as fx.pool(gke_pool({"workload": {"gpu_memory_gib": 4.5}}))
		with data.gpufleet.catalog as fx.catalog
	some f in fs
	f.attribute == "machine_type"

	# a2-highgpu-1g's $3.6734/h for one A100-40GB over 7 1g.5gb slices beats any whole GPU
	contains(f.msg, "the MIG slice 1g.5gb of A100-40GB on a2-highgpu-1g at $0.52/h per slice ($3.67/h per GPU)")
}

test_rs002_gke_n1_option if {
	fs := fx.of(findings.warn, "GF-RS-002") with input as fx.pool(gke_pool({
		"instance_types": ["a2-highgpu-1g"], "workload": {"gpu_memory_gib": 8},
		"gpu": {"model": "A100-40GB", "class": "training", "memory_gib": 40, "slice_memory_gib": 40},
	}))
		with data.gpufleet.catalog as fx.catalog
	some f in fs

	# n1-standard-8 ($0.38/h) + one T4 ($0.35/h)
	contains(f.msg, "the cheapest fitting option in the same region is n1-standard-8 + 1 x nvidia-tesla-t4 (T4, 16 GiB) at $0.73/h per GPU")
}

gke_pool(patch) := object.union(
	{"cloud": "gcp", "region": "us-central1", "zones": ["us-central1-a"], "instance_types": ["g2-standard-8"]},
	patch,
)

test_rs002_no_priced_option if {
	fs := fx.of(findings.warn, "GF-RS-002") with input as fx.pool({"region": "ap-south-2", "workload": {"gpu_memory_gib": 4}})
		with data.gpufleet.catalog as fx.catalog
	some f in fs
	contains(f.msg, "the catalog prices no fitting option for this cloud and region")
}

test_rs002_threshold_from_policy_data if {
	count(fx.of(findings.warn, "GF-RS-002")) == 0 with input as fx.pool({"workload": {"gpu_memory_gib": 4}})
		with data.gpufleet.thresholds as {"oversize_factor": 8}
		with data.gpufleet.catalog as fx.catalog

	# 24 GiB for a 10 GiB need: within the default 4x, more than a configured 2x
	count(fx.of(findings.warn, "GF-RS-002")) == 0 with input as fx.pool({"workload": {"gpu_memory_gib": 10}})
		with data.gpufleet.catalog as fx.catalog
	some f in fx.of(findings.warn, "GF-RS-002") with input as fx.pool({"workload": {"gpu_memory_gib": 10}})
		with data.gpufleet.thresholds as {"oversize_factor": 2}
		with data.gpufleet.catalog as fx.catalog
	contains(f.msg, "more than 2 x the 10 GiB workload.gpu_memory_gib")
}

test_rs002_unusable_threshold_falls_back_to_4 if {
	every factor in [0.5, 1, "8", null] {
		fs := fx.of(findings.warn, "GF-RS-002") with input as fx.pool({"workload": {"gpu_memory_gib": 4}})
			with data.gpufleet.thresholds as {"oversize_factor": factor}
			with data.gpufleet.catalog as fx.catalog
		some f in fs
		contains(f.msg, "more than 4 x the 4 GiB")
	}
}

# A configured factor of 4 is left to the default's definition, which must still report it.
test_rs002_configured_4 if {
	fs := fx.of(findings.warn, "GF-RS-002") with input as fx.pool({"workload": {"gpu_memory_gib": 4}})
		with data.gpufleet.thresholds as {"oversize_factor": 4}
		with data.gpufleet.catalog as fx.catalog
	count(fs) == 1
	some f in fs
	contains(f.msg, "more than 4 x the 4 GiB")
}

test_rs002_fits if {
	count(fx.of(findings.warn, "GF-RS-002")) == 0 with input as fx.pool({"workload": {"gpu_memory_gib": 6}})
		with data.gpufleet.catalog as fx.catalog
}

test_rs002_unknown if {
	count(fx.of(findings.warn, "GF-RS-002")) == 0 with input as fx.pool({"workload": {"gpu_memory_gib": null}})
		with data.gpufleet.catalog as fx.catalog
	count(fx.of(findings.warn, "GF-RS-002")) == 0 with input as fx.pool({"workload": {"gpu_memory_gib": 4}, "gpu": {"slice_memory_gib": null}})
		with data.gpufleet.catalog as fx.catalog
}

# --- GF-RS-003 -------------------------------------------------------------------------------

h100 := {
	"instance_types": ["p5.48xlarge"], "region": "us-east-1", "zones": ["us-east-1a"],
	"gpu": {"model": "H100-80GB", "class": "training", "memory_gib": 80, "per_node": 8, "slice_memory_gib": 80},
}

test_rs003_mig_slice_fits if {
	fs := fx.of(findings.warn, "GF-RS-003") with input as fx.pool(object.union(h100, {"workload": {"gpu_memory_gib": 30}}))
		with data.gpufleet.catalog as fx.catalog
	count(fs) == 1
	some f in fs
	f.attribute == "gpu.mig.profile"
	startswith(f.msg, "GF-RS-003: gpufleet_eks_node_pool.test: inference workload on a whole training-class H100-80GB GPU (80 GiB) needing 30 GiB")
	contains(f.msg, `the MIG slice 3g.40gb (40 GiB) fits: set gpu.mig.profile = "3g.40gb"`)
}

test_rs003_slice_and_inference_gpu_fit if {
	fs := fx.of(findings.warn, "GF-RS-003") with input as fx.pool(object.union(h100, {"workload": {"kind": "development", "gpu_memory_gib": 9}}))
		with data.gpufleet.catalog as fx.catalog
	some f in fs
	contains(f.msg, "development workload")

	# 9 GiB: 1g.10gb holds 9.5 GiB with 5 % kept free
	contains(f.msg, "the MIG slice 1g.10gb (10 GiB) fits")
	contains(f.msg, "so does a smaller inference GPU: the cheapest in the same region is g4dn.xlarge (T4, 16 GiB) at $0.53/h per GPU")
}

test_rs003_only_inference_gpu_fits if {
	# A training-class GPU without MIG (V100-like): only the inference GPU is named.
	catalog := json.patch(fx.catalog, [{"op": "replace", "path": "/gpus/H100-80GB/mig_profiles", "value": {}}])
	fs := fx.of(findings.warn, "GF-RS-003") with input as fx.pool(object.union(h100, {"workload": {"gpu_memory_gib": 10}}))
		with data.gpufleet.catalog as catalog
	some f in fs
	f.attribute == "instance_types"
	contains(f.msg, "a smaller inference GPU fits: the cheapest in the same region is g4dn.xlarge")
}

test_rs003_training_or_mig_or_inference_class_is_fine if {
	count(fx.of(findings.warn, "GF-RS-003")) == 0 with input as fx.pool(object.union(h100, {"workload": {"kind": "training", "gpu_memory_gib": 30}}))
		with data.gpufleet.catalog as fx.catalog
	count(fx.of(findings.warn, "GF-RS-003")) == 0 with input as fx.pool(object.union(h100, {"workload": {"gpu_memory_gib": 30}, "gpu": {"mig_profile": "3g.40gb", "slice_memory_gib": 40}}))
		with data.gpufleet.catalog as fx.catalog
	count(fx.of(findings.warn, "GF-RS-003")) == 0 with input as fx.pool({"workload": {"gpu_memory_gib": 10}})
		with data.gpufleet.catalog as fx.catalog
}

test_rs003_nothing_smaller_fits if {
	count(fx.of(findings.warn, "GF-RS-003")) == 0 with input as fx.pool(object.union(h100, {"workload": {"gpu_memory_gib": 79}}))
		with data.gpufleet.catalog as fx.catalog
}

test_rs003_unknown if {
	count(fx.of(findings.warn, "GF-RS-003")) == 0 with input as fx.pool(object.union(h100, {"workload": {"gpu_memory_gib": null}}))
		with data.gpufleet.catalog as fx.catalog

	# MIG setting unknown: slice memory null
	count(fx.of(findings.warn, "GF-RS-003")) == 0 with input as fx.pool(object.union(h100, {"workload": {"gpu_memory_gib": 30}, "gpu": {"slice_memory_gib": null}}))
		with data.gpufleet.catalog as fx.catalog
	count(fx.of(findings.warn, "GF-RS-003")) == 0 with input as fx.pool(object.union(h100, {"workload": {"kind": null, "gpu_memory_gib": 30}}))
		with data.gpufleet.catalog as fx.catalog
}

# Four replicas time-sharing a 24 GiB L4 get 6 GiB each: not oversized for a 4 GiB need, as the
# whole GPU would be.
test_rs002_time_shared_gpu_is_split if {
	shared := {"workload": {"gpu_memory_gib": 4}, "gpu": {"sharing": {"strategy": "time-slicing", "replicas": 4}}}
	count(fx.of(findings.warn, "GF-RS-002")) == 0 with input as fx.pool(shared)
		with data.gpufleet.catalog as fx.catalog
	two := {"workload": {"gpu_memory_gib": 2}, "gpu": {"sharing": {"strategy": "time-slicing", "replicas": 2}}}
	fs := fx.of(findings.warn, "GF-RS-002") with input as fx.pool(two)
		with data.gpufleet.catalog as fx.catalog
	some f in fs
	contains(f.msg, "each of the 2 replicas time-sharing one L4 GPU has 12 GiB of GPU memory, more than 4 x the 2 GiB")
}

# The smaller GPU GF-RS-003 names computes in the workload's precision (the generated catalog's
# options carry their GPU's compute capability): fp8 skips the T4 for an L4. And the MIG slice
# keeps the headroom: 10 GiB needs 1g.20gb, as 1g.10gb holds 9.5 GiB.
_rs003_h100_pool(precision) := fx.pool({
	"region": "us-east-1", "zones": ["us-east-1a"], "instance_types": ["p5.4xlarge"],
	"workload": {"kind": "inference", "gpu_memory_gib": 10, "precision": precision},
	"gpu": {"model": "H100-80GB", "class": "training", "memory_gib": 80, "slice_memory_gib": 80, "per_node": 1},
})

test_rs003_suggestion_computes_in_the_precision if {
	some fp16 in fx.of(findings.warn, "GF-RS-003") with input as _rs003_h100_pool("fp16")
	contains(fp16.msg, "the MIG slice 1g.20gb (20 GiB) fits")
	contains(fp16.msg, "the cheapest in the same region is g4dn.xlarge (T4, 16 GiB)")
	some fp8 in fx.of(findings.warn, "GF-RS-003") with input as _rs003_h100_pool("fp8")
	contains(fp8.msg, "the cheapest in the same region is g6.xlarge (L4, 22.4 GiB)")
}

# The usable memory the generator writes into every option (x[7], which GF-RS-002 compares needs
# with at the default headroom) is the fit's own, for every option of every cloud and region.
test_options_usable_memory_is_the_fits if {
	h := data.gpufleet.catalog.fit_model.default_memory_headroom_percent
	every table in [data.gpufleet.catalog.replica_options, data.gpufleet.catalog.inference_gpu_options] {
		every _, regions in table {
			every _, options in regions {
				every x in options {
					x[7] == lib.fit_usable_gib(x[1], h)
				}
			}
		}
	}
	count(data.gpufleet.catalog.replica_options.aws["us-east-1"]) > 5
}

# lib.computes_in (generated tables, GF-RS-004's first test) agrees with lib.precision_supported (the
# catalog's rules) on every GPU model and precision of the catalog.
test_computes_in_is_precision_supported if {
	pairs := [[m, p] | some m, _ in data.gpufleet.catalog.gpus; some p, _ in data.gpufleet.catalog.fit_model.min_compute_capability]
	count(pairs) > 20
	computes := [pair | some pair in pairs; lib.computes_in(pair[0], pair[1])]
	supported := [pair | some pair in pairs; lib.precision_supported(pair[0], pair[1])]
	computes == supported
	count(computes) > 0
	count(computes) < count(pairs)
}

# A pool of several GPU models is oversized when the GPU of every node type it admits is, the
# smallest too: one node type whose GPU is not keeps it quiet. Node types a replica's GPUs never
# launch, and those the catalog does not know, are not weighed; a MIG or shared pool's slices are per
# model.
test_rs002_several_models_oversized_when_every_one_is if {
	big := _mixed_nodepool(["g6e.xlarge", "p4d.24xlarge", "p5.48xlarge", "x9.unknown"], {"gpu_memory_gib": 8})
	fs := fx.of(findings.warn, "GF-RS-002") with input as big
	count(fs) == 1
	some f in fs
	f.attribute == "spec.template.spec.requirements"
	contains(f.msg, `the GPU of every node type this pool admits has 40 GiB of memory or more (the smallest: A100-40GB on p4d.24xlarge), more than 4 x the 8 GiB spec.template.metadata.labels["gpufleet.io/gpu-memory-gib"]; Karpenter launches any node type that meets the pods' requests`)
	contains(f.msg, "; the cheapest fitting option in the same region is g4dn.xlarge (T4, 16 GiB) at $0.59/h per GPU")

	# an L4 among them holds 8 GiB within 4x
	count(fx.of(findings.warn, "GF-RS-002")) == 0 with input as _mixed_nodepool(["g6.xlarge", "g6e.xlarge", "p5.48xlarge"], {"gpu_memory_gib": 8})

	# replicas of 8 GPUs: the 1-GPU L4 node is never launched for them, the smallest is the H100
	some eight in fx.of(findings.warn, "GF-RS-002") with input as _mixed_nodepool(["g6.xlarge", "p5.48xlarge"], {"gpu_memory_gib": 8, "gpus_per_replica": 8})
	contains(eight.msg, "(the smallest: H100-80GB on p5.48xlarge)")

	# a configured factor; a time-shared pool; no memory need; node types the catalog does not know
	count(fx.of(findings.warn, "GF-RS-002")) == 0 with input as big with data.gpufleet.thresholds as {"oversize_factor": 8}
	shared := object.union(big, {"gpu": {"sharing": {"strategy": "time-slicing", "replicas": 4}}})
	count(fx.of(findings.warn, "GF-RS-002")) == 0 with input as shared
	count(fx.of(findings.warn, "GF-RS-002")) == 0 with input as _mixed_nodepool(["g6e.xlarge", "p5.48xlarge"], {"gpu_memory_gib": null})
	count(fx.of(findings.warn, "GF-RS-002")) == 0 with input as _mixed_nodepool(["x9.unknown", "x9.other"], {"gpu_memory_gib": 8})
}

# A ComputeClass whose priorities name an A100 and an H100 (a GPU and no machine type each) for a
# 8 GiB model: the smallest is a priority's; at 10 GiB, 40 GiB is not more than 4x.
test_rs002_several_models_computeclass_priorities if {
	class := fx.pool({
		"address": "ComputeClass/embed", "resource_type": "ComputeClass", "cloud": "gcp", "region": "us-central1",
		"gpu": _mixed_gpu, "instance_types": [], "workload": {"gpu_memory_gib": 8},
		"autoscaler": {"priorities": [
			{"machine_type": null, "gpu_model": "H100-80GB", "gpu_count": 1},
			{"machine_type": null, "gpu_model": "A100-40GB", "gpu_count": 1},
		]},
	})
	some f in fx.of(findings.warn, "GF-RS-002") with input as class
	contains(f.msg, "has 40 GiB of memory or more (the smallest: A100-40GB on priority 2), more than 4 x the 8 GiB")
	f.attribute == "spec.priorities"
	contains(f.msg, `8 GiB spec.nodePoolConfig.nodeLabels["gpufleet.io/gpu-memory-gib"]; GKE falls back down the priorities when those before them are out of capacity; the cheapest`)
	count(fx.of(findings.warn, "GF-RS-002")) == 0 with input as object.union(class, {"workload": {"gpu_memory_gib": 10}})
}
