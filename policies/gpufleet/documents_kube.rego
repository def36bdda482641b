# Kubernetes autoscaler objects -> pool documents (issue #38).
#
# GPU capacity declared as Karpenter or GKE objects, wherever they are: Kubernetes YAML given to
# conftest (one object per input; conftest splits a file of several documents into one input each,
# and with --combine gives them all at once), OPA servers and opa eval (an object, an array of them
# or a List), and plans (kubernetes_manifest's manifest, kubectl_manifest's yaml_body). The objects:
#
# - NodePool (karpenter.sh/v1), joined with its node class, an EC2NodeClass (karpenter.k8s.aws/v1)
#   or EKS Auto Mode's NodeClass (eks.amazonaws.com/v1, spec.nodeClassRef), and with the NodeOverlays
#   (karpenter.sh/v1alpha1, sigs.k8s.io/karpenter v1.15.0 pkg/apis/crds/karpenter.sh_nodeoverlays.yaml)
#   whose requirements select it: one document per GPU NodePool;
# - ComputeClass (cloud.google.com/v1): one document per GPU class.
#
# The joins need the objects in one input: conftest --combine, a List, an array, a plan, or
# gpufleet-policy documents over the files. A NodePool judged alone (conftest without --combine on a
# directory of files) has an unknown node class and unknown overlays (null): the rules that need
# them stay quiet, as on any null. policies/README.md lists the fields read from each kind;
# internal/plandoc builds the same documents in Go (TestDocuments_sameAsTheBundle*).
package gpufleet.documents

import data.gpufleet.inputs
import data.gpufleet.lib

# ---------------------------------------------------------------------------------------------
# The objects
# ---------------------------------------------------------------------------------------------

# [address, path, object] of the input's Kubernetes objects of the kinds the builders read: YAML
# documents with the file they came from (their address, "<Kind>/<name>", is made for the few that
# are pools: _kube_of_kind); a plan's kubernetes_manifest and kubectl_manifest objects under their
# resource address (path ""). The one pass over all the objects: a GitOps directory is mostly
# Deployments, Services and ConfigMaps, one comparison each (BenchmarkConftestManifests).
kube_objects := [[null, path, obj] |
	some [path, obj] in inputs.objects
	obj.kind in inputs.builder_kinds
] if {
	not plan_input
} else := [[rc.address, "", obj] |
	some rc in plan_changes
	rc.type == ["kubernetes_manifest", "kubectl_manifest"][_]
	obj := _planned_object(rc)
]

# The input is a plan (an object with resource changes). (Not `not is_array(input.resource_changes)`
# inline: on an array input, OPA leaves that negation undefined.)
plan_input if {
	is_object(input)
	is_array(input.resource_changes)
}

_kube_address(obj) := sprintf("%s/%s", [obj.kind, obj.metadata.name]) if is_string(obj.metadata.name)

else := sprintf("%s/%s", [obj.kind, "(no name)"])

# The object a kubernetes_manifest or kubectl_manifest resource applies: its manifest argument
# (an object), or its yaml_body (a string of one YAML document); undefined while unknown.
_planned_object(rc) := obj if {
	rc.type == "kubernetes_manifest"
	obj := planned(rc).manifest
	is_object(obj)
} else := obj if {
	rc.type == "kubectl_manifest"
	body := planned(rc).yaml_body
	is_string(body)
	obj := yaml.unmarshal(body)
	is_object(obj)
}

# The objects are all there (a combined run, a List or an array of objects, a plan): a node class or
# an overlay that is not among them does not exist for the rules. One object alone (conftest on one
# YAML document) says nothing about the others.
kube_complete if is_array(input.resource_changes)

kube_complete if inputs.combined

kube_complete if is_array(input)

kube_complete if input.kind == "List"

_kube_of_kind(api_group, kind) := [[coalesce(key, _kube_address(obj)), path, obj] |
	some [key, path, obj] in kube_objects
	obj.kind == kind
	startswith(obj.apiVersion, api_group)
]

_nodepools := _kube_of_kind("karpenter.sh/", "NodePool")

_computeclasses := _kube_of_kind("cloud.google.com/", "ComputeClass")

_overlays := [obj | some [_, _, obj] in _kube_of_kind("karpenter.sh/", "NodeOverlay")]

# Node classes by "<group>/<kind>/<name>": EC2NodeClass and Auto Mode's NodeClass. A name given
# twice (two files of a combined run) keeps the first file's. (One pass: the inner comprehension
# is indexed by OPA on the key.)
_node_classes := {key: obj |
	some [key, _] in _keyed_node_classes
	obj := [o | some [k, o] in _keyed_node_classes; k == key][0]
}

_keyed_node_classes := [[_class_key(o), o] | some [_, _, o] in _node_class_objects]

_node_class_objects := array.concat(_kube_of_kind("karpenter.k8s.aws/", "EC2NodeClass"), _kube_of_kind("eks.amazonaws.com/", "NodeClass"))

_class_key(o) := concat("/", [split(o.apiVersion, "/")[0], o.kind, o.metadata.name])

# The pool documents of the input's GPU NodePools and ComputeClasses, [path, address, document],
# and the file of each address (a combined run's findings name it).
kube_pools := array.concat(
	[[path, address, doc] |
		some [address, path, obj] in _nodepools
		doc := _nodepool_document(address, obj)
	],
	[[path, address, doc] |
		some [address, path, obj] in _computeclasses
		doc := _computeclass_document(address, obj)
	],
)

kube_files := {address: min({p | some [p, a, _] in kube_pools; a == address}) | some [_, address, _] in kube_pools}

# [address, files] of each NodePool, ComputeClass and node class that manifests declare more than
# once (GF-INPUT-003; files sorted, one entry per declaration). A cluster holds one object of a
# kind and name, so these are several clusters' objects (conftest --combine over a directory of
# clusters) or a base and its Kustomize patch, and judged together their node classes and files
# would be mixed up. Neighbours once sorted by key, so no pair of objects is compared. A plan's
# objects are told apart by their resources' addresses.
duplicate_objects := [[concat("/", [key[1], key[2]]), [p | some [k, p] in _named_objects; k == key]] |
	some key in {k |
		some i, [k, _] in _named_objects
		_named_objects[i + 1][0] == k
	}
]

_named_objects := sort([[[split(obj.apiVersion, "/")[0], obj.kind, obj.metadata.name], path] |
	not plan_input
	some [_, path, obj] in kube_objects
	obj.kind in {"NodePool", "ComputeClass", "EC2NodeClass", "NodeClass"}
	is_string(obj.metadata.name)
])

# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------

# Node labels as the conventions read them: the template's labels, and the gpufleet.io/* labels of
# the object's own metadata where the template has none of that name.
_kube_labels(meta_labels, node_labels) := object.union(
	{k: v | some k, v in lib.obj(meta_labels); startswith(k, "gpufleet.io/")},
	lib.obj(node_labels),
)

# Waivers: annotations gpufleet.io/waive-<rule id> whose value is the reason
# (gpufleet.io/waive-gf-as-007: "bench cluster, 2026-12"), as the tags of official resources.
_kube_waivers(annotations) := {upper(trim_prefix(k, "gpufleet.io/waive-")): v |
	some k, v in lib.obj(annotations)
	startswith(k, "gpufleet.io/waive-")
	is_string(v)
}

# The cluster an object is for: the label or annotation gpufleet.io/cluster of the object, else of
# its node class, else the karpenter.sh/discovery tag its node class selects subnets by (the
# convention of Karpenter's getting-started guide); null when none says.
# (label and annotation: the object's own, null when it has none; values rather than the object,
# whose name is its own: OPA reuses the result of a call for the objects that have the same.)
_kube_cluster(label, annotation, node_class) := c if {
	c := label
	is_string(c)
} else := c if {
	c := annotation
	is_string(c)
} else := c if {
	c := node_class.metadata.labels["gpufleet.io/cluster"]
	is_string(c)
} else := c if {
	c := node_class.metadata.annotations["gpufleet.io/cluster"]
	is_string(c)
} else := c if {
	is_object(node_class)
	cs := {t.tags["karpenter.sh/discovery"] | some t in lib.arr(object.get(node_class, ["spec", "subnetSelectorTerms"], null)); is_string(t.tags["karpenter.sh/discovery"])}
	count(cs) == 1
	some c in cs
} else := null

# The region of zones (all of one region), else of a region requirement, else of the cluster in the
# policy data's cluster registry (data.gpufleet.clusters.<name> = {cloud, region}); null otherwise.
_kube_region(cloud, zones, regions, cluster) := r if {
	rs := {_zone_region(cloud, z) | some z in zones}
	count(rs) == 1
	some r in rs
	is_string(r)
} else := r if {
	count(zones) == 0
	[r] := regions
} else := r if {
	count(zones) == 0
	count(regions) == 0
	c := data.gpufleet.clusters[cluster]
	c.cloud == cloud
	r := c.region
} else := null

# us-east-1a -> us-east-1 (AWS); us-central1-a -> us-central1 (GCP); undefined for other shapes
# (an AWS Local Zone such as us-east-1-bos-1a).
_zone_region("aws", z) := r if {
	regex.match(`^[a-z]+-[a-z]+-[0-9]+[a-z]$`, z)
	r := substring(z, 0, count(z) - 1)
}

_zone_region("gcp", z) := lib.gcp_region(z) if lib.gcp_is_zone(z)

# ---------------------------------------------------------------------------------------------
# Karpenter and EKS Auto Mode NodePools
# ---------------------------------------------------------------------------------------------

# Requirements: [{key, operator, values}] (karpenter.sh/v1 NodeSelectorRequirementWithMinValues).
# The values a requirement of key allows among candidates: In keeps, NotIn removes, Exists keeps,
# DoesNotExist removes all; Gt/Lt compare numbers. Requirements of the same key are ANDed.
_req_admits(reqs, key, v) if {
	every r in reqs {
		_one_admits(r, key, v)
	}
}

_one_admits(r, key, v) if {
	r.key != key
} else if {
	r.key == key
	_op_admits(r.operator, r.values, v)
}

_op_admits("In", values, v) if v in {sprintf("%v", [x]) | some x in lib.arr(values)}

_op_admits("NotIn", values, v) if not v in {sprintf("%v", [x]) | some x in lib.arr(values)}

_op_admits("Exists", _, _)

_op_admits("Gt", values, v) if to_number(v) > to_number(values[0])

_op_admits("Lt", values, v) if to_number(v) < to_number(values[0])

_op_admits("Gte", values, v) if to_number(v) >= to_number(values[0])

_op_admits("Lte", values, v) if to_number(v) <= to_number(values[0])

# An operator the bundle does not know constrains nothing it can tell. (A requirement without an
# operator, which the CRD refuses, admits nothing.)
_op_admits(op, _, _) if {
	is_string(op)
	not op in {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"}
}

# The In values of key (strings), [] when there is no In requirement of key.
_req_in(reqs, key) := sort({sprintf("%v", [x]) | some r in reqs; r.key == key; r.operator == "In"; some x in lib.arr(r.values)})

# Features of every catalog EC2 GPU instance type, as Karpenter labels them (karpenter-provider-aws
# pkg/providers/instancetype/types.go: instance-family, -category, -generation, -gpu-name (EC2's
# GPU name, lower case: "h100"), -gpu-count, -gpu-memory (MiB per GPU; the catalog's GiB x 1024,
# which EC2's SizeInMiB rounds under, so only Gt and Lt are compared), -gpu-manufacturer).
_aws_features := {t: _aws_features_of(it) | some t, it in data.gpufleet.catalog.aws_instance_types}

# The features of one instance type (it: its catalog entry). A NodePool that names its instance types
# asks for theirs alone (the whole table is built only for one that does not).
_aws_features_of(it) := {
	"instance-family": it.family,
	"instance-category": substring(it.family, 0, _category_length(it.family)),
	"instance-generation": regex.find_n(`[0-9]+`, it.family, 1)[0],
	"instance-gpu-name": _gpu_name(it.gpu_model),
	"instance-gpu-count": sprintf("%v", [it.gpu_count]),
	"instance-gpu-memory": sprintf("%v", [data.gpufleet.catalog.gpus[it.gpu_model].memory_gib * 1024]),
	"instance-gpu-manufacturer": "nvidia",
}

_category_length(family) := 2 if startswith(family, "gr")

else := 1

# Karpenter's instance-gpu-name of a catalog GPU model: "H100-80GB" -> "h100", "L40S" -> "l40s".
_gpu_name(model) := lower(regex.replace(model, `-[0-9]+GB$`, ""))

# The requirement keys _np_gpu reads, by prefix: what each says of the GPU.
_np_gpu_keys := {prefix: object.union(
	{concat("", [prefix, k]): v | some k, v in {"instance-gpu-name": "gpu", "instance-gpu-manufacturer": "gpu", "instance-gpu-memory": "gpu", "instance-gpu-count": "count", "instance-family": "shape", "instance-category": "shape"}},
	{"node.kubernetes.io/instance-type": "shape"},
) |
	some prefix in ["karpenter.k8s.aws/", "eks.amazonaws.com/"]
}

_karpenter_keys := ["instance-family", "instance-category", "instance-generation", "instance-gpu-name", "instance-gpu-count", "instance-gpu-memory", "instance-gpu-manufacturer"]

# The catalog instance types a NodePool's requirements admit (prefix karpenter.k8s.aws/, Auto
# Mode's eks.amazonaws.com/): those named by node.kubernetes.io/instance-type In when it is there
# (no pass over the catalog), else every catalog type that each understood requirement admits.
# named: the instance types node.kubernetes.io/instance-type In names (_req_in); keys: the
# features the requirements constrain (_np_feature_keys).
_np_candidates(reqs, prefix, named, keys) := sort([t |
	some t in named
	it := data.gpufleet.catalog.aws_instance_types[t]
	every k in keys {
		_req_admits(reqs, concat("", [prefix, k]), _aws_features_of(it)[k])
	}
]) if {
	count(named) > 0
} else := sort([t |
	some t, f in _aws_features
	_req_admits(reqs, "node.kubernetes.io/instance-type", t)
	every k in keys {
		_req_admits(reqs, concat("", [prefix, k]), f[k])
	}
])

# The Karpenter feature keys the requirements constrain: each instance type is tested on these
# alone (most GPU NodePools name an instance type and a capacity type, and no feature at all).
# A requirement without a key (null, which the CRD refuses) admits nothing, whatever the key: then
# every key is tested, as _req_admits has every requirement admit the value.
_np_feature_keys(reqs, prefix) := {k |
	some r in reqs
	startswith(r.key, prefix)
	k := substring(r.key, count(prefix), -1)
	k in _karpenter_keys
} if {
	every r in reqs {
		is_string(r.key)
	}
} else := _karpenter_keys

# A NodePool is a GPU pool when its requirements name a GPU (an instance-gpu-* requirement that
# admits GPUs, a GPU instance type, family or category: EC2's p*, g*, gr*), its template taints
# nvidia.com/gpu, or it limits nvidia.com/gpu. The instance-gpu-* labels are on GPU instance types
# alone (karpenter-provider-aws v1.15.2 pkg/providers/instancetype/types.go: DoesNotExist on the
# others), so any requirement of one that is not NotIn or DoesNotExist selects GPU instances: In,
# Exists, and the bounds Gt, Gte, Lt and Lte (sigs.k8s.io/karpenter v1.15.0 pkg/scheduling/
# requirement.go), instance-gpu-count Gt 0 or Exists as teams write "any GPU"; but for
# instance-gpu-count In [0].
_np_gpu(reqs, prefix, taints, limits) if {
	some r in reqs
	_np_gpu_keys[prefix][r.key] == "gpu"
	r.operator in _gpu_operators
} else if {
	some r in reqs
	_np_gpu_keys[prefix][r.key] == "count"
	r.operator in _gpu_operators
	not _no_gpu_count(r)
} else if {
	some r in reqs
	_np_gpu_keys[prefix][r.key] == "shape"
	r.operator == "In"
	some v in r.values
	_gpu_shape(v)
} else if {
	some t in lib.arr(taints)
	t.key == "nvidia.com/gpu"
} else if {
	limits["nvidia.com/gpu"]
}

_gpu_operators := {"In", "Exists", "Gt", "Gte", "Lt", "Lte"}

# An EC2 GPU instance type, family or category by its name: p*, g*, gr* ("g6e.xlarge", "p5", "g"),
# the families of a hyphen and a GPU's name too ("p6-b200", "p6-b200.48xlarge", "p6e-gb200"); not
# GCE's shared-core "g1-small".
_gpu_shape(v) if regex.match(`^(p[0-9]?|gr?[0-9]?)[a-z]*(-[a-z]+[0-9]+[a-z0-9]*)?(\.|$)`, v)

# [rule, address, attribute, text] of the GPU NodePools and ComputeClasses that admit node types
# the catalog does not know (GF-DATA-002, as for a node group whose instance type cannot be told):
# Karpenter launches any instance type the requirements admit, a family that came out after the
# catalog's date too, and GKE any priority's; no rule can judge their GPUs, so this is said rather
# than passed over. A NodePool: the node types its In requirements name that the catalog does not
# know, of those Karpenter may launch (_np_unknown). A ComputeClass: the GPU priorities whose GPU
# model the catalog cannot tell (_cc_model). (A NodePool that names one is a GPU pool by that
# requirement, _np_gpu.)
kube_unjudged := array.concat(
	[["GF-DATA-002", address, "spec.template.spec.requirements", _np_unknown_text(unknown, reqs, prefix)] |
		some [address, _, np] in _nodepools
		tmpl := object.get(np, ["spec", "template", "spec"], {})
		reqs := lib.arr(object.get(tmpl, "requirements", []))
		prefix := _np_prefix(object.get(tmpl, ["nodeClassRef", "group"], null))
		unknown := _np_unknown(reqs, prefix)
		count(unknown) > 0
	],
	[["GF-DATA-002", address, "spec.priorities", _cc_unknown_text(unknown)] |
		some [address, _, cc] in _computeclasses
		unknown := [sprintf("priority %d (%s)", [i + 1, _cc_named(p)]) |
			some i, p in lib.arr(object.get(cc, ["spec", "priorities"], []))
			_cc_gpu_priority(p)
			_cc_model(p) == null
		]
		count(unknown) > 0
	],
)

# What a NodePool's In requirements name that the catalog does not know, of what Karpenter may
# launch: the instance types, when it names them (their families then, and GPU names, narrow them
# only), whose family the requirements admit; else the families; else the GPU names. A value another
# requirement of its key excludes (NotIn) is not launched. (Strings only: Karpenter's labels are.)
_np_unknown(reqs, prefix) := [sprintf("instance type %s", [t]) |
	some t in _req_in_strings(reqs, "node.kubernetes.io/instance-type")
	_gpu_shape(t)
	not data.gpufleet.catalog.aws_instance_types[t]
	_req_admits(reqs, "node.kubernetes.io/instance-type", t)
	_req_admits(reqs, concat("", [prefix, "instance-family"]), split(t, ".")[0])
] if {
	count(_req_in(reqs, "node.kubernetes.io/instance-type")) > 0
} else := [sprintf("instance family %s", [f]) |
	some f in families
	_gpu_shape(f)
	not f in _catalog_families
	_req_admits(reqs, family_key, f)
] if {
	family_key := concat("", [prefix, "instance-family"])
	families := _req_in_strings(reqs, family_key)
	count(_req_in(reqs, family_key)) > 0
} else := [sprintf("GPU %s", [g]) |
	some g in _req_in_strings(reqs, name_key)
	not g in _catalog_gpu_names
	_req_admits(reqs, name_key, g)
] if {
	name_key := concat("", [prefix, "instance-gpu-name"])
}

_req_in_strings(reqs, key) := sort({x | some r in reqs; r.key == key; r.operator == "In"; some x in lib.arr(r.values); is_string(x)})

_catalog_families := {it.family | some it in data.gpufleet.catalog.aws_instance_types}

_catalog_gpu_names := {_gpu_name(it.gpu_model) | some it in data.gpufleet.catalog.aws_instance_types}

_np_unknown_text(unknown, reqs, prefix) := sprintf("its requirements admit %s, which the gpufleet catalog does not know, so %s; name instance types the catalog lists (the gpufleet_gpu_catalog data source), or judge it with a gpufleet release whose catalog has them", [
	concat(", ", unknown),
	_np_unknown_consequence(_np_candidates(reqs, prefix, _req_in(reqs, "node.kubernetes.io/instance-type"), _np_feature_keys(reqs, prefix))),
])

_np_unknown_consequence(catalog_types) := "the gpufleet rules judged it as a GPU pool of unknown GPU model: the GPU memory, right-sizing and cost checks could not judge it" if {
	count(catalog_types) == 0
} else := "the GPU memory, right-sizing and cost checks judged only the catalog's instance types it admits, not those nodes Karpenter may also launch"

_cc_unknown_text(unknown) := sprintf("the gpufleet catalog cannot tell the GPU model of %s, so the class's GPU model is unknown and the GPU memory, right-sizing and cost checks could not judge those priorities' nodes; name a gpu.type or machine type the catalog lists (the gpufleet_gpu_catalog data source), or judge it with a gpufleet release whose catalog has them", [concat(", ", unknown)])

# What a priority names of its node: its GPU, else its machine type, else its machine family.
_cc_named(p) := sprintf("gpu.type %s", [p.gpu.type]) if {
	is_string(p.gpu.type)
} else := sprintf("machineType %s", [p.machineType]) if {
	is_string(p.machineType)
} else := sprintf("machineFamily %s", [p.machineFamily])

_no_gpu_count(r) if {
	r.operator == "In"
	r.values == ["0"]
}

# Capacity types a NodePool launches: those its karpenter.sh/capacity-type requirements admit, all
# of them when it has none (Karpenter reads a key without a requirement as Exists:
# sigs.k8s.io/karpenter v1.15.0 pkg/scheduling/requirements.go, Get; the AWS provider then launches
# reserved, else spot, else on-demand: karpenter-provider-aws v1.15.2 pkg/providers/instance/
# instance.go, getCapacityType; there is no default of on-demand since the v1 API dropped the
# defaulting webhook), but reserved only where the requirement names it (In) or the node class
# selects reservations (capacityReservationSelectorTerms): without terms there is no reserved
# offering to launch (pkg/providers/instancetype/types.go), and a NodePool that merely admits
# reserved (NotIn [spot]) launches on-demand. terms: the node class's reservation selector terms
# (_reservation_terms), null when it is not known. (The types offered are looked up once, not
# asked of a function per type: a call with the requirements costs a hundred allocations.)
_np_capacity_types(reqs, terms) := [c |
	some c in _offered[_reserved_offered(reqs, terms)]
	_req_admits(reqs, "karpenter.sh/capacity-type", c)
]

_offered := {true: ["on-demand", "reserved", "spot"], false: ["on-demand", "spot"]}

_reserved_offered(reqs, terms) if {
	is_number(terms)
	terms > 0
} else if {
	"reserved" in _req_in(reqs, "karpenter.sh/capacity-type")
} else := false

# A Kubernetes quantity as a number: a number as it is, a string as the API server reads it ("8",
# "8.0", "+8", ".5", "500m", "1k", "2Ki", "1e3", "1E": k8s.io/apimachinery pkg/api/resource,
# ParseQuantity; the NodePool CRD's limits and the NodeOverlay's capacity take such strings) with at
# most 18 digits before the point, 9 after it and an exponent of 2 digits (every value a finite
# float64 in the Go builder too); null for anything else, and for the micro and nano suffixes (u,
# n), which units.parse does not read and no count is written in. (plandoc.kubeCount is the same.)
_count(q) := q if {
	is_number(q)
} else := units.parse(q) if {
	is_string(q)
	regex.match(`^([+-]?([0-9]{1,18}(\.[0-9]{0,9})?|\.[0-9]{1,9}))([KMGTPE]i|[mkMGTPE]|[eE][+-]?[0-9]{1,2})?$`, q)
} else := null

_np_document(address, np, node_class, nc_known) := {
	"address": address,
	"resource_type": "NodePool",
	"cloud": "aws",
	"region": region,
	"zones": zones,
	"name": object.get(np, ["metadata", "name"], null),
	"labels": labels,
	"tags": tags,
	"client": convention_client(labels, tags),
	"workload": convention_workload(labels),
	"unread_labels": convention_unread(labels),
	"waivers": _kube_waivers(object.get(np, ["metadata", "annotations"], null)),
	"taints": lib.taints(lib.arr(object.get(tmpl, "taints", []))),
	"instance_types": candidates,
	"gpu": gpu,
	"scaling": scaling,
	"capacity": capacity,
	"cost": cost,
	"assumptions": assumptions,
	"autoscaler": {
		"kind": "NodePool",
		"node_class": {
			"kind": object.get(tmpl, ["nodeClassRef", "kind"], null),
			"name": object.get(tmpl, ["nodeClassRef", "name"], null),
			"found": nc_known,
			"reservation_terms": terms,
		},
		"capacity_types": types,
		"capacity_block": capacity_block,
		"capacity_block_required": capacity_block_required,
		"weight": object.get(np, ["spec", "weight"], 0),
		"static": static,
		"gpu_limit": gpu_limit,
		"advertised_gpus_per_node": advertised,
		"disruption": _np_disruption(object.get(np, ["spec", "disruption"], {}), object.get(tmpl, "expireAfter", null), static, object.get(np, ["spec", "template", "metadata", "annotations", "karpenter.sh/do-not-disrupt"], null)),
		"fallback_to": _np_fallback_to({true: np, false: null}[types == ["spot"]], types),
	},
} if {
	tmpl := object.get(np, ["spec", "template", "spec"], {})
	reqs := lib.arr(object.get(tmpl, "requirements", []))
	prefix := _np_prefix(object.get(tmpl, ["nodeClassRef", "group"], null))
	limits := lib.obj(object.get(np, ["spec", "limits"], {}))
	_np_gpu(reqs, prefix, object.get(tmpl, "taints", []), limits)
	labels := _kube_labels(object.get(np, ["metadata", "labels"], null), object.get(np, ["spec", "template", "metadata", "labels"], null))
	tags := _np_tags(node_class)
	named := _req_in(reqs, "node.kubernetes.io/instance-type")
	catalog_types := _np_candidates(reqs, prefix, named, _np_feature_keys(reqs, prefix))
	candidates := _or_named(catalog_types, named)
	models := {data.gpufleet.catalog.aws_instance_types[t].gpu_model | some t in catalog_types}
	counts := {data.gpufleet.catalog.aws_instance_types[t].gpu_count | some t in catalog_types}
	model := _only(models)
	per_node := _only(counts)
	mig_config := convention_mig_config(labels)
	overlays := array.concat(object.get(_overlays_by_nodepool, [object.get(np, ["metadata", "name"], null)], []), _overlays_of_any_nodepool)
	advertised := _advertised(overlays, {true: [np, catalog_types, prefix], false: null}[count(overlays) > 0], per_node)
	gpu := object.union(lib.gpu_document(model, per_node), {
		"mig_config": mig_config,
		"slice_memory_gib": lib.slice_memory(model, null, mig_config, false),
		"sharing": _np_sharing(labels, advertised, per_node),
	})
	zones := _req_in(reqs, "topology.kubernetes.io/zone")
	region := _kube_region("aws", zones, _req_in(reqs, "topology.kubernetes.io/region"), _kube_cluster(
		object.get(np, ["metadata", "labels", "gpufleet.io/cluster"], null),
		object.get(np, ["metadata", "annotations", "gpufleet.io/cluster"], null),
		node_class,
	))
	terms := _reservation_terms(node_class)
	types := _np_capacity_types(reqs, terms)
	replicas := object.get(np, ["spec", "replicas"], null)
	static := is_number(replicas)
	gpu_count := _count(object.get(limits, "nvidia.com/gpu", null))
	gpu_limit := _gpu_limit(gpu_count, limits)
	max_size := _np_max_nodes(replicas, _count(object.get(limits, "nodes", null)), gpu_count, advertised)
	scaling := _np_scaling(replicas, static, max_size)
	capacity_block_required := "capacity-block" in _req_in(reqs, "karpenter.k8s.aws/capacity-reservation-type")
	capacity_block := _np_capacity_block(labels, capacity_block_required)
	pct := _np_spot_percentage(types)
	sides := _np_sides(scaling, pct, static)
	capacity := {
		"spot_percentage": pct,
		"on_demand_base": 0,
		"reservation": _np_reservation(types, capacity_block),
		"on_demand": sides[0],
		"spot": sides[1],
	}
	[cost, assumptions] := _np_cost(catalog_types, per_node, region, types, max_size)
}

# The NodePool's GPU limit: nvidia.com/gpu, else the sum of its MIG slices' limits
# (nvidia.com/mig-<profile>: under the GPU Operator's mixed MIG strategy the nodes advertise their
# slices so, and no nvidia.com/gpu); null without either.
_gpu_limit(g, limits) := g if {
	is_number(g)
} else := sum(slices) if {
	slices := [n |
		some k, v in limits
		startswith(k, "nvidia.com/mig-")
		n := _count(v)
		is_number(n)
	]
	count(slices) > 0
} else := null

# The instance types of the document: the catalog's that the requirements admit, else those the
# requirements name (types the catalog does not know: model unknown).
_or_named(catalog_types, named) := catalog_types if count(catalog_types) > 0

else := named

_np_prefix(group) := "eks.amazonaws.com/" if group == "eks.amazonaws.com"

else := "karpenter.k8s.aws/"

_only(s) := x if {
	count(s) == 1
	some x in s
} else := null

# The node class's tags (they reach the instances and volumes); null while the node class is not in
# the input.
_np_tags(null) := null

_np_tags(nc) := lib.obj(object.get(nc, ["spec", "tags"], {})) if nc != null

_reservation_terms(null) := null

_reservation_terms(nc) := count(lib.arr(object.get(nc, ["spec", "capacityReservationSelectorTerms"], []))) if nc != null

# nvidia.com/gpu a node advertises to Karpenter: the capacity of the NodeOverlays that select the
# NodePool (where several do, the one Karpenter applies first: below), else its GPUs; null while the overlays are not known
# (one object judged alone) and the GPUs are not either.
# (overlays: those that may select the NodePool; pool: the NodePool, its catalog instance types and
# its label prefix, null when there are no overlays, so that OPA reuses the result of a call for the
# NodePools without one.)
_advertised(overlays, pool, per_node) := max(gpus)[2] if {
	kube_complete
	gpus := [[_overlay_weight(o), _overlay_name(o), n] |
		some o in overlays
		_overlay_selects(o, pool[0], pool[1], pool[2])
		n := _count(o.spec.capacity["nvidia.com/gpu"])
		is_number(n)
	]
	count(gpus) > 0
} else := per_node if {
	kube_complete
} else := null

# Of several overlays that set the capacity, Karpenter keeps the first one's in its order: the
# highest weight (unset: 0), then the name later in the alphabet (sigs.k8s.io/karpenter v1.15.0
# pkg/apis/v1alpha1/nodeoverlay.go, OrderByWeight; pkg/controllers/nodeoverlay/store.go leaves a
# resource an earlier overlay set): the largest [weight, name].
_overlay_weight(o) := w if {
	w := o.spec.weight
	is_number(w)
} else := 0

_overlay_name(o) := n if {
	n := o.metadata.name
	is_string(n)
} else := ""

# The overlays that can select a NodePool, without trying each overlay on each NodePool: those with
# a requirement karpenter.sh/nodepool In [names] under each of the names (no other NodePool's
# name satisfies it), the others apart (they are tried on every NodePool).
_overlays_by_nodepool := {name: overlays |
	some [name, _] in _overlay_nodepool_pairs
	overlays := [o | some [n, o] in _overlay_nodepool_pairs; n == name] # indexed by OPA: one pass
}

_overlay_nodepool_pairs := [[n, o] | some o in _overlays; some n in _overlay_nodepools(o)]

_overlays_of_any_nodepool := [o | some o in _overlays; count(_overlay_nodepools(o)) == 0]

# The NodePool names a karpenter.sh/nodepool In requirement of the overlay admits (as
# _one_admits compares them), {} without one.
_overlay_nodepools(o) := {n |
	some r in lib.arr(object.get(o, ["spec", "requirements"], []))
	r.key == "karpenter.sh/nodepool"
	r.operator == "In"
	some x in lib.arr(r.values)
	n := sprintf("%v", [x])
}

# An overlay selects a NodePool's nodes when each of its requirements admits them, as Karpenter
# matches an overlay with the NodePool's name, its template labels and each instance type's labels
# (sigs.k8s.io/karpenter v1.15.0 pkg/controllers/nodeoverlay/controller.go, getOverlaidOfferings):
# candidates are the NodePool's catalog instance types, prefix its instance labels' prefix.
_overlay_selects(o, np, candidates, prefix) if {
	labels := object.union(lib.obj(object.get(np, ["spec", "template", "metadata", "labels"], {})), {"karpenter.sh/nodepool": np.metadata.name})
	every r in lib.arr(object.get(o, ["spec", "requirements"], [])) {
		_overlay_requirement(r, labels, candidates, prefix)
	}
}

# A requirement of a label the template sets, or of the NodePool's name, admits its value.
_overlay_requirement(r, labels, _, _) if _one_admits(r, r.key, labels[r.key])

# One of an instance type's labels (node.kubernetes.io/instance-type, <prefix>instance-*) admits
# every candidate instance type: the overlay's capacity reaches only the types it admits, and a
# node of another has its physical GPUs. (Instance types the catalog does not know are not
# judged: the overlay is taken as selecting them.)
_overlay_requirement(r, labels, candidates, prefix) if {
	not labels[r.key]
	_instance_key(r.key, prefix)
	every t in candidates {
		_one_admits(r, r.key, _instance_value(r.key, prefix, t))
	}
}

# Another label every node carries (a zone, the capacity type, the architecture): the overlay
# applies to some of the NodePool's offerings, and is taken as selecting it.
_overlay_requirement(r, labels, _, prefix) if {
	not labels[r.key]
	_well_known(r.key)
	not _instance_key(r.key, prefix)
	r.operator != "DoesNotExist"
}

# A custom label the template does not set admits the NodePool's nodes only NotIn or DoesNotExist
# ("Custom Labels must intersect, but if not defined are denied": pkg/scheduling/requirements.go).
_overlay_requirement(r, labels, _, _) if {
	is_string(r.key)
	not labels[r.key]
	not _well_known(r.key)
	r.operator in {"NotIn", "DoesNotExist"}
}

_instance_key("node.kubernetes.io/instance-type", _)

_instance_key(key, prefix) if {
	startswith(key, prefix)
	substring(key, count(prefix), -1) in _karpenter_keys
}

_instance_value("node.kubernetes.io/instance-type", _, t) := t

_instance_value(key, prefix, t) := _aws_features_of(data.gpufleet.catalog.aws_instance_types[t])[substring(key, count(prefix), -1)] if {
	key != "node.kubernetes.io/instance-type"
}

# Labels of every node Karpenter launches, set by Karpenter or the cloud provider.
_well_known(key) if {
	some p in ["karpenter.sh/", "karpenter.k8s.aws/", "eks.amazonaws.com/", "kubernetes.io/", "node.kubernetes.io/", "topology.kubernetes.io/", "topology.k8s.aws/"]
	startswith(key, p)
}

# GPU sharing from the NVIDIA device plugin config label (as on node groups); its replicas are what
# the overlay advertises per GPU.
_np_sharing(labels, advertised, per_node) := object.union(s, {"replicas": _replicas(advertised, per_node)}) if {
	s := _eks_sharing(labels)
	s != null
} else := null

_replicas(advertised, per_node) := advertised / per_node if {
	is_number(advertised)
	is_number(per_node)
	advertised > per_node
	advertised % per_node == 0
} else := null

# The most nodes the NodePool may hold: a static NodePool's replicas; else limits.nodes and the
# nvidia.com/gpu limit over what a node advertises (Karpenter counts the advertised GPUs); null
# without a limit.
# (replicas: spec.replicas; n and g: the nodes and nvidia.com/gpu limits as _count reads them. Values,
# not the NodePool: OPA reuses the result of a call for the NodePools that have the same.)
_np_max_nodes(replicas, n, g, a) := replicas if is_number(replicas)

else := min([n, floor(g / a)]) if {
	is_number(n)
	is_number(g)
	a > 0
} else := n if {
	is_number(n)
} else := floor(g / a) if {
	is_number(g)
	a > 0
} else := null

_np_scaling(replicas, true, _) := {"min_size": replicas, "max_size": replicas, "desired_size": replicas}

_np_scaling(_, false, max_size) := {"min_size": 0, "max_size": max_size, "desired_size": null}

# The on-demand and spot sides: a static NodePool's (its replicas known), as
# lib.all_or_nothing_sides gives them; unknown (null) for one that scales, whose desired size is
# not known (as lib.spot_split gives them).
_np_sides(scaling, pct, true) := lib.all_or_nothing_sides(scaling, pct)

_np_sides(_, _, false) := [null, null]

# A capacity-block rung: gpufleet's label gpufleet.io/capacity-type = capacity-block, or a
# requirement karpenter.k8s.aws/capacity-reservation-type In [capacity-block].
# (required: the requirement is there.)
_np_capacity_block(labels, required) if {
	labels["gpufleet.io/capacity-type"] == "capacity-block"
} else := required

_np_spot_percentage(types) := 100 if "spot" in types

else := 0

_np_reservation(_, true) := {"type": "capacity-block", "id": null, "name": null, "project": null}

_np_reservation(types, false) := {"type": "capacity-reservation", "id": null, "name": null, "project": null} if {
	"reserved" in types
} else := null

# The pool's cost at its limit: the limit's nodes at the lowest price among its instance types (a
# lower bound: Karpenter launches the cheapest that fits), on-demand when the NodePool may launch
# on-demand or reserved capacity (reservations bill at the on-demand price), else spot; nulls when
# the limit, the GPUs per node, the region or a price is unknown.
_np_cost(candidates, per_node, region, types, nodes) := [{"hourly_usd": hourly, "monthly_usd": hourly * lib.hours_per_month}, [text]] if {
	is_number(nodes)
	is_number(per_node)
	is_string(region)
	key := _price_key(types)
	prices := [p[key] | some t in candidates; p := data.gpufleet.catalog.aws_instance_types[t].prices[region]]
	count(prices) > 0
	hourly := nodes * min(prices)
	text := sprintf("cost at the NodePool's limit of %v node(s), each at the lowest %s price of its instance types", [nodes, _price_names[key]])
} else := [{"hourly_usd": null, "monthly_usd": null}, []]

_price_key(types) := "spot_usd" if {
	types == ["spot"]
} else := "on_demand_usd"

_price_names := {"spot_usd": "spot", "on_demand_usd": "on-demand"}

# Disruption as Karpenter applies it (karpenter.sh, "Disruption"; defaults: consolidationPolicy
# WhenEmptyOrUnderutilized, expireAfter 720h): whether it consolidates nodes that run pods
# (WhenEmptyOrUnderutilized or Balanced, unless consolidation is off: consolidateAfter Never,
# sigs.k8s.io/karpenter v1.15.0 pkg/controllers/disruption/consolidation.go; a static NodePool,
# spec.replicas, whose consolidationPolicy "is simply ignored" (its CRD); nodes annotated
# karpenter.sh/do-not-disrupt: "true" by the template, pkg/controllers/state/statenode.go; or a
# budget of 0 nodes without a schedule covers the Underutilized reason) and when nodes expire
# (expiration is forceful in v1: neither the annotation nor a budget holds it).
_np_disruption(d, expire, static, do_not_disrupt) := {
	"consolidation_policy": policy,
	"consolidates_busy_nodes": busy,
	"expire_after": _expire_after(expire),
} if {
	policy := object.get(d, "consolidationPolicy", "WhenEmptyOrUnderutilized")
	busy := _consolidates_busy(policy, lib.arr(object.get(d, "budgets", [])), object.get(d, "consolidateAfter", null), static, do_not_disrupt)
}

_expire_after(e) := e if is_string(e)

else := "720h"

_consolidates_busy(policy, budgets, after, static, do_not_disrupt) := false if {
	policy == "WhenEmpty"
} else := false if {
	after == "Never"
} else := false if {
	static == true
} else := false if {
	do_not_disrupt == "true"
} else := false if {
	_blocked(budgets)
} else := true

_blocked(budgets) if {
	some b in budgets
	b.nodes in {"0", "0%", 0}
	not b.schedule
	_covers_underutilized(object.get(b, "reasons", null))
}

_covers_underutilized(null)

_covers_underutilized(reasons) if "Underutilized" in reasons

# The on-demand-only NodePools a spot-only NodePool would fall back to by weight (GF-AS-002): of the
# same node class and GPU requirements, not static, weighted at most as high; null while the other
# NodePools are not known (one object judged alone), [] for a NodePool that is not spot-only (np
# null then: OPA reuses the result of a call for those).
_np_fallback_to(np, types) := sort([s.name |
	some s in object.get(_on_demand_summaries, [[me.class, me.gpu, me.labels]], []) # a path of one key, an array
	is_number(s.weight)
	is_number(me.weight)
	s.weight <= me.weight
	is_string(s.name)
]) if {
	kube_complete
	types == ["spot"]
	me := _np_summary(np)
	me.static == false
} else := [] if {
	kube_complete
} else := null

_np_summaries := [_np_summary(obj) | some [_, _, obj] in _nodepools]

# The on-demand-only, not static NodePools' summaries by [node class, GPU requirements, labels]: a
# spot-only NodePool looks up those it may fall back to instead of comparing itself with every
# NodePool (one pass: the inner comprehension is indexed by OPA).
_on_demand_summaries := {key: summaries |
	some [key, _] in _on_demand_keyed
	summaries := [s | some [k, s] in _on_demand_keyed; k == key]
}

_on_demand_keyed := [[[s.class, s.gpu, s.labels], s] |
	some s in _np_summaries
	s.types == ["on-demand"]
	s.static == false
]

# What GF-AS-002 compares of a NodePool: its name, node class, capacity types, weight, whether it is
# static, its GPU requirements (the In values of the instance type, family and GPU name) and its
# template labels but gpufleet.io/capacity-type (the same workload).
_np_summary(np) := {
	"name": object.get(np, ["metadata", "name"], ""),
	"class": object.get(tmpl, ["nodeClassRef", "name"], null),
	"types": _np_capacity_types(reqs, null),
	"weight": object.get(np, ["spec", "weight"], 0),
	"static": is_number(object.get(np, ["spec", "replicas"], null)),
	"gpu": [_req_in(reqs, "node.kubernetes.io/instance-type"), _req_in(reqs, concat("", [prefix, "instance-family"])), _req_in(reqs, concat("", [prefix, "instance-gpu-name"]))],
	"labels": object.remove(lib.obj(object.get(np, ["spec", "template", "metadata", "labels"], {})), ["gpufleet.io/capacity-type"]),
} if {
	tmpl := object.get(np, ["spec", "template", "spec"], {})
	reqs := lib.arr(object.get(tmpl, "requirements", []))
	prefix := _np_prefix(object.get(tmpl, ["nodeClassRef", "group"], null))
}

# The NodePool's document with its node class (by nodeClassRef, group and kind defaulting to
# Karpenter's EC2NodeClass) when the input has it; the class is null, and "found" null, when the
# input is one object alone.
_nodepool_document(address, np) := _np_document(address, np, nc, found) if {
	ref := object.get(np, ["spec", "template", "spec", "nodeClassRef"], {})
	key := concat("/", [object.get(ref, "group", "karpenter.k8s.aws"), object.get(ref, "kind", "EC2NodeClass"), object.get(ref, "name", "")])
	[nc, found] := _class_lookup(key)
}

_class_lookup(key) := [_node_classes[key], true] if {
	_node_classes[key]
} else := [null, false] if {
	kube_complete
} else := [null, null]

# ---------------------------------------------------------------------------------------------
# GKE ComputeClasses
# ---------------------------------------------------------------------------------------------

# A class is a GPU class when a priority names a GPU (gpu.type) or an accelerator-optimised machine
# type or family (a2, a3, a4, g2, g4 …: the catalog's GKE GPU machine families start with a or g;
# not g1, the shared-core family of g1-small, as on node pools).
_cc_gpu_priority(p) if is_string(p.gpu.type)

_cc_gpu_priority(p) if regex.match(`^(a[0-9]|g[2-9])`, object.get(p, "machineType", ""))

_cc_gpu_priority(p) if regex.match(`^(a[0-9]|g[2-9])`, object.get(p, "machineFamily", ""))

_computeclass_document(address, cc) := {
	"address": address,
	"resource_type": "ComputeClass",
	"cloud": "gcp",
	"region": region,
	"zones": zones,
	"name": object.get(cc, ["metadata", "name"], null),
	"labels": labels,
	"tags": null, # a ComputeClass carries no resource labels: GKE's cost allocation splits by namespace
	"client": convention_client(labels, {}), # a class has no tags: without the label, no client
	"workload": convention_workload(labels),
	"unread_labels": convention_unread(labels),
	"waivers": _kube_waivers(object.get(cc, ["metadata", "annotations"], null)),
	"taints": array.concat(lib.taints(lib.arr(object.get(cc, ["spec", "nodePoolConfig", "taints"], []))), _cc_common_taints(gpu_priorities)),
	"instance_types": machines,
	"gpu": _cc_gpu(model, per_node, gpu_priorities),
	"scaling": {"min_size": 0, "max_size": null, "desired_size": null},
	"capacity": {
		"spot_percentage": pct,
		"on_demand_base": 0,
		"reservation": _cc_reservation(gpu_priorities),
		"on_demand": null,
		"spot": null,
	},
	"cost": {"hourly_usd": null, "monthly_usd": null},
	"assumptions": [],
	"autoscaler": {
		"kind": "ComputeClass",
		"when_unsatisfiable": object.get(cc, ["spec", "whenUnsatisfiable"], null),
		"optimize_rule_priority": object.get(cc, ["spec", "activeMigration", "optimizeRulePriority"], false),
		"priorities": [{
			"spot": object.get(p, "spot", false) == true,
			"flex_start": object.get(p, ["flexStart", "enabled"], false) == true,
			"reservation_affinity": object.get(p, ["reservations", "affinity"], null),
			"location_zones": count(lib.arr(object.get(p, ["location", "zones"], []))),
			"machine_type": lib.str(object.get(p, "machineType", null)),
			"gpu_model": _cc_model(p),
			"gpu_count": _cc_count(p),
		} |
			some p in priorities
		],
	},
} if {
	priorities := lib.arr(object.get(cc, ["spec", "priorities"], []))
	gpu_priorities := [_cc_with_defaults(p, object.get(cc, ["spec", "priorityDefaults", "location"], null)) | some p in priorities; _cc_gpu_priority(p)]
	count(gpu_priorities) > 0
	labels := _kube_labels(object.get(cc, ["metadata", "labels"], null), object.union(lib.obj(object.get(cc, ["spec", "nodePoolConfig", "nodeLabels"], {})), _cc_common_labels(gpu_priorities)))
	machines := sort({p.machineType | some p in gpu_priorities; is_string(p.machineType)})
	model := _only({_cc_model(p) | some p in gpu_priorities})
	per_node := _only({_cc_count(p) | some p in gpu_priorities})
	zones := sort({z |
		some p in gpu_priorities
		some z in array.concat(lib.arr(object.get(p, ["location", "zones"], [])), [z | some s in lib.arr(object.get(p, ["reservations", "specific"], [])); some z in lib.arr(object.get(s, "zones", []))])
		is_string(z)
	})
	region := _kube_region("gcp", zones, [], _kube_cluster(
		object.get(cc, ["metadata", "labels", "gpufleet.io/cluster"], null),
		object.get(cc, ["metadata", "annotations", "gpufleet.io/cluster"], null),
		null,
	))
	pct := _cc_spot_percentage(gpu_priorities)
}

# What the class's GPU nodes are made from: its GPU priorities (CPU priorities' spot, zones and
# reservations are not those of its GPU nodes), each with the class's spec.priorityDefaults.location
# where it has no location of its own ("PriorityDefaults define the default rules for all priorities
# if the rule doesn't exist in some priority", the ComputeClass CRD; merged field by field).
_cc_with_defaults(p, location) := object.union({"location": location}, p) if {
	is_object(location)
	is_object(p)
} else := p

# Labels and taints of the class's GPU nodes: spec.nodePoolConfig's, with those that every GPU
# priority adds to its nodes (priorities[].nodeLabels, priorities[].taints: "add user defined
# Kubernetes taints to all nodes in the new node pool", the ComputeClass CRD); one that only some
# priorities add is not on every GPU node.
_cc_common_labels(ps) := {k: v |
	some k, v in lib.obj(object.get(ps[0], "nodeLabels", {}))
	every p in ps {
		object.get(p, ["nodeLabels", k], null) == v
	}
}

_cc_common_taints(ps) := [t |
	some t in lib.taints(lib.arr(object.get(ps[0], "taints", [])))
	every p in ps {
		t in lib.taints(lib.arr(object.get(p, "taints", [])))
	}
]

# The GPU of the class's nodes, with GPU sharing and MIG partitions (priorities[].gpu.gpuSharing:
# sharingStrategy, maxSharedClientsPerGPU, gpuPartitionSize) where every GPU priority has the same.
_cc_gpu(model, per_node, ps) := lib.gpu_document(model, per_node) if {
	every p in ps {
		object.get(p, ["gpu", "gpuSharing"], null) == null
	}
} else := object.union(lib.gpu_document(model, per_node), {
	"mig_profile": profile,
	"slice_memory_gib": lib.slice_memory(model, profile, null, false),
	"sharing": _only({_cc_sharing(object.get(p, ["gpu", "gpuSharing"], null)) | some p in ps}),
}) if {
	profile := _only({_cc_partition(object.get(p, ["gpu", "gpuSharing"], null)) | some p in ps})
}

_cc_partition(s) := p if {
	p := s.gpuPartitionSize
	is_string(p)
	p != ""
} else := null

_cc_sharing(s) := {"strategy": _gke_strategies[s.sharingStrategy], "replicas": lib.num(object.get(s, "maxSharedClientsPerGPU", null))} if {
	is_string(s.sharingStrategy)
} else := null

# The GPU model of a GPU priority: its gpu.type's, else its machine type's, else the one model of
# the catalog's machine types of its family (g2: L4); null when the catalog cannot tell (a type it
# does not list, a family of several models such as a2), so that the class has a model only when
# all its GPU priorities have the same.
_cc_model(p) := m if {
	m := data.gpufleet.catalog.gke_accelerators[p.gpu.type].gpu_model
} else := null if {
	is_string(p.gpu.type)
} else := m if {
	m := data.gpufleet.catalog.gke_machine_types[p.machineType].gpu_model
	is_string(m)
} else := m if {
	not object.get(p, "machineType", false)
	ms := _family_models[p.machineFamily]
	count(ms) == 1
	some m in ms
} else := null

# The GPU models of the catalog's GKE machine types by family (a2 → {A100-40GB, A100-80GB}).
_family_models[f] contains m if {
	some name, mt in data.gpufleet.catalog.gke_machine_types
	m := mt.gpu_model
	is_string(m)
	f := split(name, "-")[0]
}

# GPUs per node of a GPU priority: gpu.count, else its machine type's; null otherwise (a family).
_cc_count(p) := p.gpu.count if {
	is_number(p.gpu.count)
} else := n if {
	n := data.gpufleet.catalog.gke_machine_types[p.machineType].gpu_count
	n > 0
} else := null

# A class with a Spot priority may run every node on Spot VMs once the priorities before it have no
# capacity: spot_percentage 100 (as internal/computeclass/render.Capacity shows a ladder).
_cc_spot_percentage(priorities) := 100 if {
	some p in priorities
	p.spot == true
} else := 0

# The reservation of the first priority that consumes one: Specific (named) or AnyBestEffort; not
# affinity None, which "would prevent reservations from being used" (the ComputeClass CRD).
_cc_reservation(priorities) := r if {
	rs := [_cc_one_reservation(p.reservations) | some p in priorities; is_object(p.reservations); object.get(p.reservations, "affinity", null) != "None"]
	r := rs[0]
} else := null

_cc_one_reservation(r) := {"type": "specific", "id": null, "name": lib.str(object.get(r, ["specific", 0, "name"], null)), "project": lib.str(object.get(r, ["specific", 0, "project"], null))} if {
	r.affinity == "Specific"
} else := {"type": "any", "id": null, "name": null, "project": null}
