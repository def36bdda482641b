# aws_eks_node_group (registry.terraform.io/hashicorp/aws) -> pool document.
#
# A node group is a GPU pool when one of its instance_types is a catalog GPU instance type, or
# its ami_type is an NVIDIA/GPU AMI (then the GPU model is null when the instance type is not in
# the catalog or is set in a launch template). Blocks (scaling_config, taint) are lists of objects.
package gpufleet.documents

import data.gpufleet.lib

# The document is one object literal (no union of parts): a call costs OPA more than the bindings
# of a larger body, and conftest builds every document twice (its deny and warn queries).
eks(rc) := _eks_doc(rc, a, object.get(rc.change, "after_unknown", {}), types, shape) if {
	rc.mode == "managed"
	a := rc.change.after
	is_object(a)
	types := _eks_types(rc, a)
	shape := _eks_shape(types)
	_eks_gpu_pool(shape, types, object.get(a, "ami_type", null))
}

_eks_doc(rc, a, u, types, shape) := {
	"address": rc.address,
	"resource_type": rc.type,
	"cloud": "aws",
	"region": region,
	"zones": null,
	"name": object.get(a, "node_group_name", null),
	"labels": labels,
	"tags": tags,
	"client": convention_client(labels, tags),
	"workload": convention_workload(labels),
	"waivers": convention_waivers(tags),
	"taints": _eks_taints(a, u),
	"instance_types": types,
	"gpu": _eks_gpu(shape, labels),
	"scaling": scaling,
	"capacity": capacity,
	"cost": lib.sides_cost(object.get(data.gpufleet.catalog.aws_instance_types, [shape, "prices", region], null), capacity),
} if {
	labels := _eks_map(a, u, "labels")
	tags := _eks_tags(a, u)
	region := _eks_region(rc, a)
	scaling := _eks_scaling(object.get(a, ["scaling_config", 0], {}))
	capacity := _eks_capacity(object.get(a, "capacity_type", null), scaling)
}

_eks_scaling(s) := {
	"min_size": object.get(s, "min_size", null),
	"max_size": object.get(s, "max_size", null),
	"desired_size": object.get(s, "desired_size", null),
}

# capacity_type: SPOT puts every node on spot; ON_DEMAND, CAPACITY_BLOCK, or unset/unknown (AWS
# defaults to ON_DEMAND) none. CAPACITY_BLOCK is a capacity-block reservation.
_eks_capacity(capacity_type, scaling) := {
	"spot_percentage": pct,
	"on_demand_base": 0,
	"reservation": object.get(_eks_reservations, [capacity_type], null),
	"on_demand": sides[0],
	"spot": sides[1],
} if {
	pct := object.get(_eks_spot_percentages, [capacity_type], 0)
	sides := lib.all_or_nothing_sides(scaling, pct)
}

_eks_spot_percentages := {"SPOT": 100}

_eks_reservations := {"CAPACITY_BLOCK": {"type": "capacity-block", "id": null, "name": null, "project": null}}

# The GPU of the catalog's node type (precomputed, nulls without one); MIG and sharing from the
# labels.
_eks_gpu(shape, labels) := g if {
	g := lib.aws_gpu_documents[shape]
	not labels["nvidia.com/mig.config"]
	not labels["nvidia.com/device-plugin.config"]
	labels != null
} else := object.union(lib.gpu_document(model, object.get(data.gpufleet.catalog.aws_instance_types, [shape, "gpu_count"], null)), {
	"mig_config": mig_config,
	"slice_memory_gib": lib.slice_memory(model, null, mig_config, is_null(labels)),
	"sharing": _eks_sharing(lib.obj(labels)),
}) if {
	model := object.get(data.gpufleet.catalog.aws_instance_types, [shape, "gpu_model"], null)
	mig_config := convention_mig_config(lib.obj(labels))
}

# The instance types: the node group's list; else the instance type of its launch template when
# the template is in the plan; else null (unknown, or not set).
_eks_types(rc, a) := t if {
	t := a.instance_types
	count(t) > 0
} else := [t] if {
	t := _eks_template(rc, a).instance_type
	is_string(t)
} else := t if {
	t := a.instance_types
	is_array(t)
} else := null

# The planned object of the node group's launch template (launch_template { id = ... } or
# name = ...), found through the configuration's references; undefined when it is not in the plan.
_eks_template(rc, a) := templates[0] if {
	count(lib.arr(object.get(a, "launch_template", null))) + count(lib.arr(object.get(rc.change, ["after_unknown", "launch_template"], null))) > 0
	expressions := _config_resource(rc).expressions.launch_template[0]
	templates := [tmpl |
		some key in ["id", "name"]
		some ref in expressions[key].references
		tmpl := _launch_templates[_template_address(rc, ref)]
	]
	count(templates) > 0
}

_template_address(rc, ref) := concat(".", [rc.module_address, ref]) if {
	is_string(rc.module_address)
} else := ref

# The aws_launch_template changes of the plan by address: their planned objects.
_launch_templates := {rc.address: rc.change.after |
	some rc in plan_changes
	rc.type == "aws_launch_template"
	is_object(rc.change.after)
}

# The first instance type the catalog knows as a GPU instance type, or null.
_eks_shape(types) := types[0] if {
	data.gpufleet.catalog.aws_instance_types[types[0]]
} else := known_types[0] if {
	known_types := [t | some t in lib.arr(types); data.gpufleet.catalog.aws_instance_types[t]]
	count(known_types) > 0
} else := null

# A GPU pool: one of its instance types is a catalog GPU type, or of an EC2 GPU family the
# catalog does not price (p*, g*, gr*: model unknown). Only when no instance type is known (unset,
# or unknown at plan time) does an NVIDIA/GPU ami_type make it one: an NVIDIA AMI on m5.large has no
# GPU.
_eks_gpu_pool(shape, types, ami) if {
	shape != null
} else if {
	some t in types
	regex.match(`^(p[0-9]|gr?[0-9])`, t)
} else if {
	count(lib.arr(types)) == 0
	is_string(ami)
	regex.match(`NVIDIA|GPU`, ami)
}

# tags_all (tags merged with the provider's default_tags) when known, else tags.
_eks_tags(a, u) := a.tags_all if {
	is_object(a.tags_all)
	not u.tags_all == true
} else := _eks_map(a, u, "tags")

# A map argument: {} when null, null while unknown (absent from after; true in after_unknown).
_eks_map(a, u, key) := v if {
	v := a[key]
	is_object(v)
} else := {} if {
	a[key] == null
} else := null if {
	u[key] == true
} else := {}

# The taint blocks as they are when terraform wrote them with the effects the rules know (the
# AWS provider's spelling); else normalised; null while unknown.
_eks_taints(a, u) := ts if {
	ts := a.taint
	every t in ts {
		t.effect in lib.canonical_effects
		is_string(t.value)
	}
} else := null if {
	u.taint == true
} else := lib.taints(lib.arr(object.get(a, "taint", null)))

# GPU sharing from the NVIDIA device plugin config label gpufleet writes on EKS; the strategy is
# "mps" when the config name says so, else time-slicing; replicas are not visible in the plan.
_eks_sharing(labels) := {"strategy": _sharing_strategy(v), "replicas": null} if {
	v := labels["nvidia.com/device-plugin.config"]
	is_string(v)
	v != ""
}

else := null

_sharing_strategy(name) := "mps" if {
	contains(lower(name), "mps")
} else := "time-slicing"

# Region: the resource's region argument (provider v6), else the region of the provider
# configuration the resource uses, else null. When the plan has a default aws configuration and all
# its aws configurations name one region (or none), every node group has that region: no lookup of
# the resource's own configuration (the common case: one provider block, or aliases in one region).
_eks_region(rc, a) := a.region if {
	is_string(a.region)
} else := r if {
	[r] := _aws_uniform_region
} else := r if {
	r := provider_region(rc, "aws")
} else := null

_aws_uniform_region := [r] if {
	input.configuration.provider_config.aws
	regions := {_config_region(cfg) | some cfg in input.configuration.provider_config; cfg.name == "aws"}
	count(regions) == 1
	some r in regions
}

_config_region(cfg) := r if {
	r := _expression_value(cfg.expressions.region)
	is_string(r)
} else := null

# ---------------------------------------------------------------------------------------------
# Provider configuration (configuration.provider_config) lookups
# ---------------------------------------------------------------------------------------------

# The configuration of a resource (expressions, provider_config_key): found in its module's
# configuration, whose path follows from the resource's module address (module.a.module.b["k"] is
# root_module.module_calls.a.module.module_calls.b.module), so modules at any depth are found
# without recursion. Each module's resources are indexed once per evaluation (a function of the
# module's address is evaluated once per argument), and only for the resources that need their
# configuration (no region argument and aws configurations in several regions; a launch template).
_config_resource(rc) := _module_resources(_module_key(rc))[concat(".", [rc.type, rc.name])]

_module_key(rc) := regex.replace(rc.module_address, `\[[^\]]*\]`, "") if {
	is_string(rc.module_address)
} else := ""

_module_resources(key) := {r.address: r | some r in object.get(_module_config(key), "resources", [])}

_module_config("") := input.configuration.root_module

_module_config(key) := object.get(input.configuration.root_module, path, {}) if {
	key != ""
	path := [step | some i, name in split(key, "."); i % 2 == 1; some step in ["module_calls", name, "module"]]
}

_provider_config(rc, name) := cfg if {
	cfg := input.configuration.provider_config[_config_resource(rc).provider_config_key]
}

else := input.configuration.provider_config[name]

# The provider configuration's region: a constant, or a root variable's value.
provider_region(rc, name) := r if {
	r := _expression_value(_provider_config(rc, name).expressions.region)
	is_string(r)
}

_expression_value(e) := v if {
	v := e.constant_value
} else := input.variables[trim_prefix(ref, "var.")].value if {
	ref := e.references[0]
	startswith(ref, "var.")
}

# ---------------------------------------------------------------------------------------------
# Node groups whose instance type or AMI comes from a launch template
# ---------------------------------------------------------------------------------------------

# [rule, attribute, text] for a node group the bundle cannot judge: no instance type of its own and
# a launch template that is not in the plan (or whose instance type is unknown), so whether it is a
# GPU pool cannot be told.
eks_unjudged(rc) := ["GF-DATA-002", "launch_template", "the node group takes its instance type from a launch template that is not in this plan (or whose instance type is unknown at plan time), so the gpufleet rules could not tell whether it is a GPU pool and did not judge it; set instance_types on the node group, or plan the aws_launch_template with it"] if {
	rc.mode == "managed"
	a := rc.change.after
	is_object(a)
	count(lib.arr(object.get(a, "launch_template", null))) + count(lib.arr(object.get(rc.change, ["after_unknown", "launch_template"], null))) > 0
	not regex.match(`NVIDIA|GPU`, object.get(a, "ami_type", ""))
	_eks_types(rc, a) == null
}
