# Pool documents: one per GPU node pool. The rules only ever read these documents.
#
# - conftest passes plan JSON (terraform show -json): one document is built per current GPU pool
#   in resource_changes[] (gpufleet_eks_node_pool, gpufleet_gke_node_pool,
#   gpufleet_karpenter_node_pool, aws_eks_node_group, google_container_node_pool). Resources being
#   deleted are skipped; for a replacement
#   (["delete","create"] / ["create","delete"]) the new object is checked.
# - or conftest passes Kubernetes objects (YAML manifests: NodePool with its node class and
#   overlays, ComputeClass), or a plan holds them in kubernetes_manifest / kubectl_manifest:
#   documents_kube.rego builds one document per GPU NodePool or ComputeClass;
# - or conftest passes the documents file `gpufleet-policy documents` wrote from a plan: the same
#   documents, built once, in Go (internal/plandoc, checked against the builders here); they are
#   read as they are. conftest asks deny and warn as two queries, and builds every document of a
#   plan once per query: on plans of official resources that costs more than reading the plan.
# - the provider passes the one document it built in Go as input; it does not read these.
#
# Unknown plan values become null; no rule fires on a null it needs. The document schema is in
# policies/README.md. Builders for the official resources are in documents_eks.rego and
# documents_gke.rego.
package gpufleet.documents

import data.gpufleet.inputs
import data.gpufleet.lib

# The pool documents of a plan, an array of [address, document]: one per current GPU pool. (An
# array, not a set: a set would hash every document on insertion.)
default pools := []

pools := input.pools if {
	documents_file
	is_array(input.pools)
	_carried_fits_hold
}

# A documents file's documents carry their fit at the catalog's default headroom: when the policy
# data sets another, the fits go (the rules compute them again at that headroom).
pools := [[address, _without_fit(doc)] | some [address, doc] in input.pools] if {
	documents_file
	is_array(input.pools)
	not _carried_fits_hold
}

_without_fit(doc) := object.remove(doc, ["fit"]) if is_object(doc)

else := doc

_carried_fits_hold if lib.memory_headroom_percent == data.gpufleet.catalog.fit_model.default_memory_headroom_percent

# The input is a documents file of the version this bundle reads (gpufleet-policy documents of the
# same release; plandoc.FormatVersion; inputs.documents_file).
documents_file if input.gpufleet_pool_documents.version == 1

# The file of each NodePool's and ComputeClass's document in a documents file of manifests
# (gpufleet-policy documents over YAML files: {address: file}), which their findings name, as
# conftest --combine's on the manifests do (kube_files); undefined for a plan's.
pool_files := input.files if {
	documents_file
	is_object(input.files)
}

# Kubernetes objects (YAML manifests; documents_kube.rego): the documents of their GPU NodePools and
# ComputeClasses, all the input's objects together (with --combine, every file's).
pools := [[address, doc] | some [_, address, doc] in kube_pools] if {
	not plan_input
	not documents_file
	count(inputs.objects) > 0
}

# The input holds a whole plan's pools, as a plan or as a documents file, or several files of them
# (conftest --combine), or Kubernetes objects: not the one pool document the provider evaluates.
whole_plan if is_array(input.resource_changes)

whole_plan if documents_file

whole_plan if inputs.combined

whole_plan if inputs.manifests(input) # last: on a combined input, an array, it would look at every entry

# gpufleet pools carry the document the provider computed (the policy_document attribute): it is
# used as it is; its address is the provider's name for the pool, the plan's address goes beside
# it, so the document is not copied to replace it. Other pools, and gpufleet pools whose document is
# unknown at plan time, are built from their plan attributes. Builders skip changes without a
# planned object (["delete"], "forget") and resources that are not GPU pools. Only the changes of
# the pool types are visited (plan_changes): in a platform's plan nearly every resource is
# something else.
pools := array.concat(
	array.concat(
		[[rc.address, doc] |
			some rc in plan_changes
			doc := rc.change.after.policy_document
			is_object(doc)
		],
		[[rc.address, doc] |
			some rc in plan_changes
			not cpu[rc.address]
			doc := build(rc.type, rc)
		],
	),
	[[address, doc] | some [_, address, doc] in kube_pools],
) if {
	is_array(input.resource_changes)
	cpu := cpu_node_groups # a value bound here: a lookup in the rule itself would evaluate it per change
}

# The node groups and node pools that are surely not GPU pools, passed over before their builders
# are called (a platform's plan has several CPU node groups for every GPU one, and a builder call
# costs a CPU node group about three times what this test does): an EKS node group of one known
# instance type of no EC2 GPU family (p*, g*, gr*: every catalog type is one, TestGPUFamilyPrefixes),
# and a GKE node pool with no guest_accelerator whose known machine type is of no
# accelerator-optimised family (a*, g*). Whatever the test cannot settle (several instance types,
# an unknown or null one) goes to the builder, which decides as before. The values are tested as
# strings before a builtin reads them: a builtin given null is an error that conftest
# --show-builtin-errors reports.
cpu_node_groups := {rc.address |
	some rc in plan_changes
	rc.type == "aws_eks_node_group"
	[t] := rc.change.after.instance_types
	is_string(t)
	strings.any_prefix_match(t, ["p", "g"]) == false
} | {rc.address |
	some rc in plan_changes
	rc.type == "google_container_node_pool"
	t := rc.change.after.node_config[0].machine_type
	is_string(t)
	strings.any_prefix_match(t, ["a", "g"]) == false
	rc.change.after.node_config[0].guest_accelerator == []
}

# The plan's changes of the resource types the bundle reads (the pool types, and the launch
# templates and clusters their builders look up), in plan order: the only pass over all of a
# plan's resource changes. A change costs one comparison of its type with an array literal's
# elements, which allocates no more than the one-rule floor's `rc.type == "…"` (a set lookup
# with `in` allocates a builtin call per change, a rule or function call several times that: what
# a plan of thousands of resources that are not pools would pay for). The change is referred to as
# input.resource_changes[i]: `some rc in input.resource_changes` and then rc.type costs several
# allocations more per change (BenchmarkConftestPlan).
plan_changes := [input.resource_changes[i] |
	input.resource_changes[i].type == ["gpufleet_eks_node_pool", "gpufleet_gke_node_pool", "gpufleet_karpenter_node_pool", "gpufleet_gke_compute_class", "aws_eks_node_group", "google_container_node_pool", "aws_launch_template", "google_container_cluster", "kubernetes_manifest", "kubectl_manifest"][_]
]

# A gpufleet pool is built here only when its policy_document is unknown at plan time (the first
# comprehension of pools takes the known ones as they are).
build("gpufleet_eks_node_pool", rc) := ours(rc, "aws") if not is_object(object.get(rc.change, ["after", "policy_document"], null))

build("gpufleet_gke_node_pool", rc) := ours(rc, "gcp") if not is_object(object.get(rc.change, ["after", "policy_document"], null))

build("gpufleet_karpenter_node_pool", rc) := ours(rc, "aws") if not is_object(object.get(rc.change, ["after", "policy_document"], null))

build("gpufleet_gke_compute_class", rc) := ours(_ladder_mix(rc), "gcp") if not is_object(object.get(rc.change, ["after", "policy_document"], null))

# A ComputeClass's capacity is a ladder (capacity.ladder), which its document shows as a spot share
# (internal/computeclass/render.Capacity): a ladder with a "spot" rung may run every node on Spot
# VMs, spot_percentage 100 over no on-demand base; one without, 0; unknown while the ladder is. Its
# zones are the class's and a specific reservation's, or none (every zone of the region).
_ladder_mix(rc) := object.union(rc, {"change": {"after": {
	"capacity": {"spot_percentage": _ladder_pct(a), "on_demand_base": _ladder_base(a)},
	"zones": _class_zones(a),
}}}) if {
	a := planned(rc)
}

_ladder_pct(a) := 100 if {
	"spot" in a.capacity.ladder
} else := 0 if {
	is_array(a.capacity.ladder)
} else := null

_ladder_base(a) := 0 if is_array(a.capacity.ladder)

else := null

_class_zones(a) := sort({z | some z in array.concat(a.zones, object.get(a, ["capacity", "reservation", "zones"], []))}) if {
	is_array(a.zones)
	count(a.zones) > 0
	is_array(object.get(a, ["capacity", "reservation", "zones"], []))
} else := object.get(a, "zones", null)

# build("aws_eks_node_group", rc) is in documents_eks.rego, build("google_container_node_pool", rc)
# in documents_gke.rego: the builders themselves, not calls of them (a call with the resource change
# as its argument costs about 25 allocations).

# The planned object of a managed resource that exists after apply; undefined otherwise.
planned(rc) := a if {
	rc.mode == "managed"
	a := rc.change.after
	is_object(a)
}

# ---------------------------------------------------------------------------------------------
# gpufleet_eks_node_pool / gpufleet_gke_node_pool: the provider computes most of the document
# (gpu_model, gpus_per_node, effective_* and estimated_* attributes); nested blocks are objects.
# ---------------------------------------------------------------------------------------------

ours(rc, cloud) := {
	"address": rc.address,
	"resource_type": rc.type,
	"cloud": cloud,
	"region": object.get(a, "region", null),
	"zones": object.get(a, "zones", null),
	"name": object.get(a, "name", null),
	"client": object.get(a, "client", null),
	"workload": {
		"kind": object.get(a, ["workload", "kind"], null),
		"environment": object.get(a, ["workload", "environment"], null),
		"gpu_memory_gib": object.get(a, ["workload", "gpu_memory_gib"], null),
		"interruptible": object.get(a, ["workload", "interruptible"], null),
		"precision": object.get(a, ["workload", "precision"], null),
		"gpus_per_replica": object.get(a, ["workload", "gpus_per_replica"], null),
		"replicas": object.get(a, ["workload", "replicas"], null),
		"kv_cache_gib": object.get(a, ["workload", "kv_cache_gib"], null),
	},
	"gpu": {
		"model": model,
		"class": lib.gpu_class(model),
		"memory_gib": object.get(a, "gpu_memory_gib", null),
		"per_node": object.get(a, "gpus_per_node", null),
		"mig_profile": profile,
		"mig_config": config,
		"slice_memory_gib": lib.slice_memory(model, profile, config, _mig_unknown(object.get(u, ["gpu", "mig"], object.get(u, "gpu", false)))),
		"sharing": object.get(a, ["gpu", "sharing"], null),
	},
	"instance_types": _ours_shapes(cloud, a),
	"scaling": scaling,
	"capacity": {
		"spot_percentage": pct,
		"on_demand_base": base,
		"reservation": reservation(object.get(a, ["capacity", "reservation"], null)),
		"on_demand": sides.on_demand,
		"spot": sides.spot,
	},
	"taints": object.get(a, "effective_taints", null),
	"labels": object.get(a, "effective_labels", null),
	"tags": object.get(a, "effective_tags", null),
	"cost": {
		"hourly_usd": object.get(a, "estimated_hourly_cost_usd", null),
		"monthly_usd": object.get(a, "estimated_monthly_cost_usd", null),
	},
	"waivers": lib.obj(object.get(a, "policy_waivers", null)),
} if {
	a := planned(rc)
	u := object.get(rc.change, "after_unknown", {})
	model := object.get(a, "gpu_model", null)
	profile := object.get(a, ["gpu", "mig", "profile"], null)
	config := object.get(a, ["gpu", "mig", "config"], null)
	scaling := {
		"min_size": object.get(a, ["scaling", "min_size"], null),
		"max_size": object.get(a, ["scaling", "max_size"], null),
		"desired_size": object.get(a, ["scaling", "desired_size"], null),
	}
	pct := object.get(a, ["capacity", "spot_percentage"], null)
	base := object.get(a, ["capacity", "on_demand_base"], null)
	sides := lib.spot_split(scaling, base, pct)
}

# after_unknown of the gpu.mig block (or of the gpu block): true, or an object with a true leaf.
_mig_unknown(u) if {
	u == true
} else if {
	some leaf in u
	leaf == true
} else := false

_ours_shapes("aws", a) := object.get(a, "instance_types", null)

_ours_shapes("gcp", a) := [mt] if {
	mt := a.machine_type
	is_string(mt)
} else := null

# ---------------------------------------------------------------------------------------------
# Helpers shared by the builders
# ---------------------------------------------------------------------------------------------

coalesce(x, y) := x if {
	x != null
} else := y

sizes(min_size, max_size, desired_size) := {
	"min_size": lib.num(min_size),
	"max_size": lib.num(max_size),
	"desired_size": lib.num(desired_size),
}

# {type, id, name, project} of a reservation block, or null.
reservation(r) := {
	"type": r.type,
	"id": lib.str(object.get(r, "id", null)),
	"name": lib.str(object.get(r, "name", null)),
	"project": lib.str(object.get(r, "project", null)),
} if {
	is_string(r.type)
}

else := null

# The pool's client from the conventions: node label gpufleet.io/client, else the
# gpufleet:client tag (gpufleet_client where keys cannot hold ":"); "" when neither is set,
# null while labels or tags are unknown.
convention_client(labels, tags) := c if {
	c := labels[lib.label_client]
} else := t if {
	t := lib.tag(tags, "client")
} else := null if {
	null in [labels, tags]
} else := ""

# Workload fields from the gpufleet.io/* node labels (an object), read as Kubernetes users write
# them (label_value); null where a label is absent or cannot be read (convention_unread names those:
# GF-DATA-004), and all null while the labels are unknown (null).
convention_workload(null) := {
	"kind": null, "environment": null, "gpu_memory_gib": null, "interruptible": null,
	"precision": null, "gpus_per_replica": null, "replicas": null, "kv_cache_gib": null,
}

convention_workload(l) := {
	"kind": _label(l, lib.label_workload),
	"environment": _label(l, lib.label_environment),
	"gpu_memory_gib": convention_memory(l),
	"interruptible": _label(l, lib.label_interruptible),
	"precision": _label(l, lib.label_precision),
	"gpus_per_replica": _label(l, lib.label_gpus_per_replica),
	"replicas": _label(l, lib.label_replicas),
	"kv_cache_gib": _label(l, lib.label_kv_cache),
} if {
	is_object(l) # null is the definition above
}

# The value of label key in l, read by label_value; null when absent or unreadable.
_label(l, key) := v if {
	v := label_value(key, l[key])
} else := null

# The gpufleet.io/* convention labels, in the order GF-DATA-004 names them.
convention_keys := [
	lib.label_workload, lib.label_environment, lib.label_gpu_memory, lib.label_interruptible, lib.label_precision,
	lib.label_model_parameters, lib.label_training_method, lib.label_gpus_per_replica, lib.label_replicas,
	lib.label_kv_cache,
]

# A convention label's value as the rules read it, or undefined when it is not one the bundle can
# read: names in any case (Kubernetes label values are case-sensitive, and teams write
# "Production"); the memory need as a number of GiB or a Kubernetes quantity of bytes
# (lib.memory_gib: 40Gi is 40 GiB, 40G is 40*10^9 bytes, 37.25 GiB); counts as numbers.
label_value("gpufleet.io/workload", v) := _workloads[lower(v)] if is_string(v)

label_value("gpufleet.io/environment", v) := _environments[lower(v)] if is_string(v)

label_value("gpufleet.io/interruptible", v) := _booleans[lower(v)] if is_string(v)

label_value("gpufleet.io/precision", v) := p if {
	is_string(v)
	p := lower(v)
	data.gpufleet.catalog.fit_model.min_compute_capability[p]
}

label_value("gpufleet.io/training-method", v) := _methods[lower(v)] if is_string(v)

label_value("gpufleet.io/gpu-memory-gib", v) := lib.memory_gib(v)

label_value("gpufleet.io/model-parameters-billion", v) := n if {
	n := lib.num_label(v)
	n != null
}

# GPUs and replicas are counted: a whole number ("2.5" cannot be read, GF-DATA-004).
label_value("gpufleet.io/gpus-per-replica", v) := to_number(v) if _whole_label(v)

label_value("gpufleet.io/replicas", v) := to_number(v) if _whole_label(v)

_whole_label(v) if {
	is_string(v)
	regex.match(`^(0|[1-9][0-9]*)$`, v) # not "02", which OPA keeps as that literal
}

label_value("gpufleet.io/kv-cache-gib", v) := lib.memory_gib(v)

_workloads := {"training": "training", "inference": "inference", "development": "development", "batch": "batch"}

_environments := {"production": "production", "staging": "staging", "development": "development"}

_booleans := {"true": true, "false": false}

_methods := {"full": "full", "lora": "lora", "qlora": "qlora"}

# [label, value] of every convention label of l whose value label_value cannot read (GF-DATA-004:
# never a silent null); [] while the labels are unknown.
convention_unread(l) := [[key, l[key]] |
	some key in convention_keys
	not _readable(key, l[key])
] if {
	is_object(l)
} else := []

_readable(key, v) if label_value(key, v) != null

# Per convention label, for GF-DATA-004's message: what it sets, the values the bundle reads, how
# to fix it.
convention_forms := {
	lib.label_workload: ["workload kind", "training, inference, development or batch, in any case", "one of those"],
	lib.label_environment: ["workload environment", "production, staging or development, in any case", "one of those"],
	lib.label_gpu_memory: ["GPU memory need", "a number of GiB such as 40 or 39.5, or a Kubernetes quantity of bytes such as 40Gi or 40G (10^9 bytes: 37.25 GiB)", "the GiB one replica needs"],
	lib.label_interruptible: ["workload interruptibility", "true or false, in any case", "true or false"],
	lib.label_precision: ["workload precision", "fp32, bf16, fp16, fp8, int8, int4, awq, gptq or fp4, in any case", "one of those"],
	lib.label_model_parameters: ["memory estimate (its model size)", "a number of billions of parameters such as 7 or 70.6", "the model's parameters in billions"],
	lib.label_training_method: ["memory estimate (its training method)", "full, lora or qlora, in any case", "one of those"],
	lib.label_gpus_per_replica: ["GPUs per replica", "a whole number such as 2", "the GPUs one replica uses"],
	lib.label_replicas: ["replica count", "a whole number such as 3", "the replicas the pool holds"],
	lib.label_kv_cache: ["KV cache share of the memory need", "a number of GiB such as 16, or a Kubernetes quantity of bytes such as 16Gi", "the GiB of the need that are KV cache"],
}

# The memory need: the gpufleet.io/gpu-memory-gib label, else (when it is absent, not when it cannot
# be read) the estimate from the model labels gpufleet.io/model-parameters-billion,
# gpufleet.io/precision and, for training, gpufleet.io/training-method (lib.memory_required_gib);
# null when neither gives a number.
convention_memory(l) := m if {
	m := label_value(lib.label_gpu_memory, l[lib.label_gpu_memory])
} else := null if {
	lib.label_gpu_memory in object.keys(l)
} else := m if {
	params := label_value(lib.label_model_parameters, l[lib.label_model_parameters])
	kind := _memory_kind[label_value(lib.label_workload, l[lib.label_workload])]
	precision := label_value(lib.label_precision, l[lib.label_precision])
	m := lib.memory_required_gib(params, precision, kind, _method(l))
} else := null

# The training method for the estimate: null when the label is absent, undefined when it cannot be
# read (no estimate then).
_method(l) := null if {
	not lib.label_training_method in object.keys(l)
} else := label_value(lib.label_training_method, l[lib.label_training_method])

# Workload kinds as the memory estimate counts them: only training keeps gradients and optimizer state.
_memory_kind := {"training": "training", "inference": "inference", "development": "inference", "batch": "inference"}

# Waivers on official resources: a tag (GKE: resource label) gpufleet-waive-<rule id, lower
# case> whose value is the reason, e.g. gpufleet-waive-gf-cost-002 = "benchmark-until-2026-12".
# Tags whose rule ids differ only in case name the same rule: the reason is that of the first of
# them in key order (never a conflict that aborts the evaluation).
convention_waivers(tags) := {id: tags[min(same)] |
	keys := [k | some k, _ in tags; startswith(k, "gpufleet-waive-")]
	some id in {upper(trim_prefix(k, "gpufleet-waive-")) | some k in keys}
	same := [k | some k in keys; upper(trim_prefix(k, "gpufleet-waive-")) == id]
} if {
	is_object(tags)
	strings.any_prefix_match(object.keys(tags), "gpufleet-waive-")
} else := {}

# MIG config from the GPU Operator label nvidia.com/mig.config ("all-balanced", "all-1g.10gb");
# "all-disabled" means no MIG.
convention_mig_config(labels) := v if {
	v := labels["nvidia.com/mig.config"]
	is_string(v)
	v != "all-disabled"
}

else := null

# ---------------------------------------------------------------------------------------------
# Resources that cannot be judged (input that is not a plan is inputs.rego's GF-INPUT-001)
# ---------------------------------------------------------------------------------------------

# [rule, address, attribute, text] of official resources the bundle could not judge.
unjudged := input.unjudged if {
	documents_file
} else := array.concat(
	[[rule, rc.address, attribute, text] |
		some rc in plan_changes
		rc.type == "aws_eks_node_group"
		not rc.change.after.instance_types[0] # the common case, settled without a call
		[rule, attribute, text] := eks_unjudged(rc)
	],
	kube_unjudged,
)

no_region_text := "the pool's region is not in the plan (the provider's region comes only from the environment, such as AWS_REGION or a profile, or is known at apply only), so data residency (GF-DR-001) and the cost estimates (GF-COST-002's saving, GF-COST-004's budget) could not judge this pool; set region in the provider configuration or on the resource"

# GF-DATA-003 on Kubernetes objects: where their region comes from.
no_region_texts := {
	"NodePool": "the NodePool's region is not known: its requirements name no topology.kubernetes.io/zone (or region), and neither the label or annotation gpufleet.io/cluster (on the NodePool or its node class) nor its node class's karpenter.sh/discovery subnet tag names a cluster of the policy data's cluster registry (gpufleet.clusters), so data residency (GF-DR-001) and the cost estimate (GF-COST-004's budget) could not judge this pool; add a zone requirement, or the label gpufleet.io/cluster with the cluster in the registry",
	"ComputeClass": "the ComputeClass's region is not known: its priorities name no zones (location.zones, a specific reservation's zones) and no label or annotation gpufleet.io/cluster names a cluster of the policy data's cluster registry (gpufleet.clusters), so data residency (GF-DR-001) could not judge this pool; add the label gpufleet.io/cluster with the cluster in the registry",
}
