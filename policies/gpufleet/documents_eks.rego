# aws_eks_node_group (registry.terraform.io/hashicorp/aws) -> pool document.
#
# A node group is a GPU pool when one of its instance_types is a catalog GPU instance type, or
# its ami_type is an NVIDIA/GPU AMI (then the GPU model is null when the instance type is not in
# the catalog or is set in a launch template). Blocks (scaling_config, taint) are lists of objects.
package gpufleet.documents

import data.gpufleet.lib

# The document is one object literal (no union of parts), built in the builder's own body: a call
# costs OPA more than the bindings of a larger body, most of all one whose arguments are the
# resource change and its planned object (OPA caches every call's result under its arguments:
# about 50 allocations a node group), and conftest builds every document twice (its deny and warn
# queries). The head is evaluated only when the body holds: a node group that is not a GPU pool
# stops at _eks_gpu_pool.
build("aws_eks_node_group", rc) := {
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
	"unread_labels": convention_unread(labels),
	"waivers": convention_waivers(tags),
	"taints": _eks_taints(object.get(a, "taint", null), object.get(u, "taint", false)),
	"instance_types": types,
	"gpu": _eks_gpu(shape, labels),
	"scaling": scaling,
	"capacity": capacity,
	"cost": lib.sides_cost(object.get(data.gpufleet.catalog.aws_instance_types, [shape, "prices", region], null), capacity),
} if {
	rc.mode == "managed"
	a := rc.change.after
	is_object(a)
	types := _eks_types(rc, a)
	shape := _eks_shape(types)
	_eks_gpu_pool(shape, types, object.get(a, "ami_type", null))
	u := object.get(rc.change, "after_unknown", {})
	labels := _eks_map(object.get(a, "labels", false), object.get(u, "labels", false))
	tags := _eks_tags(object.get(a, "tags_all", false), object.get(u, "tags_all", false), object.get(a, "tags", false), object.get(u, "tags", false))
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
# the template is in the plan; else null while they cannot be told (a launch template that is not
# found, or whose instance type is unknown or unset: eks_unjudged says which); else the list as it
# is (none, no launch template: not a GPU pool unless its AMI says so).
_eks_types(rc, a) := t if {
	t := a.instance_types
	count(t) > 0
} else := [t] if {
	t := _eks_template(rc, a)[1].after.instance_type
	is_string(t)
} else := null if {
	_has_launch_template(rc, a)
} else := t if {
	t := a.instance_types
	is_array(t)
} else := null

_has_launch_template(rc, a) if {
	count(lib.arr(object.get(a, "launch_template", null))) + count(lib.arr(object.get(rc.change, ["after_unknown", "launch_template"], null))) > 0
}

# [address, change] of the node group's launch template in the plan: the template its
# configuration references (launch_template { id = aws_launch_template.x.id } or name = ...); or,
# when the configuration does not show the block (terraform leaves a dynamic block out of the plan's
# configuration, as terraform-aws-modules/eks writes it), the one aws_launch_template its module
# configures, of the same module instance (the instance of the node group's own key, or without
# one, or [0]). Undefined when it is not in the plan.
_eks_template(rc, a) := t if {
	_has_launch_template(rc, a)
	t := _eks_template_of(rc, object.get(_module_resources(_module_key(rc)), concat(".", [rc.type, rc.name]), {}))
}

_eks_template_of(rc, cfg) := templates[0] if {
	expressions := cfg.expressions.launch_template[0]
	templates := [[address, tmpl] |
		some key in ["id", "name"]
		refs := expressions[key].references
		some address in array.concat([_template_address(rc, ref) | some ref in refs], [a | a := _keyed_template(rc, cfg, refs)])
		tmpl := _launch_templates[address]
	]
	count(templates) > 0
} else := templates[0] if {
	not cfg.expressions.launch_template
	names := [r.name | some r in _module_resources(_module_key(rc)); r.mode == "managed"; r.type == "aws_launch_template"]
	count(names) == 1
	templates := [[address, tmpl] |
		some address in _module_template_addresses(rc, names[0])
		tmpl := _launch_templates[address]
	]
	count(templates) > 0
}

# For a node group of for_each or count, the address of the launch template instance of its own key,
# when its launch_template expression's references say that it takes that one: the templates indexed
# by the node group's key (aws_launch_template.gpu[each.key].id: references aws_launch_template.gpu
# and each.key, nothing else; aws_launch_template.gpu[count.index].id), or each.value of a for_each
# over the templates (for_each = aws_launch_template.gpu, id = each.value.id). In the node group's
# module instance. Undefined when the references say anything else (another index, a variable).
_keyed_template(rc, cfg, refs) := sprintf("%s[%s]", [_template_address(rc, base), json.marshal(rc.index)]) if {
	base := _template_resource_ref(refs)
	{r | some r in refs} == {base, _own_key[type_name(rc.index)]}
} else := sprintf("%s[%s]", [_template_address(rc, base), json.marshal(rc.index)]) if {
	is_string(rc.index)
	[base] := cfg.for_each_expression.references
	regex.match(`^aws_launch_template\.[^.\[]+$`, base)
	count(refs) > 0
	every r in refs {
		regex.match(`^each\.value(\.|$)`, r)
	}
}

# How a node group's own instance key is written: each.key (for_each: string keys), count.index.
_own_key := {"string": "each.key", "number": "count.index"}

# The one reference to a whole aws_launch_template resource (aws_launch_template.gpu, no key) among
# refs; undefined when there is none or more than one.
_template_resource_ref(refs) := base if {
	[base] := [r | some r in refs; regex.match(`^aws_launch_template\.[^.\[]+$`, r)]
}

_template_address(rc, ref) := concat(".", [rc.module_address, ref]) if {
	is_string(rc.module_address)
} else := ref

# Where a module's one aws_launch_template <name> is in the plan: without a key, with the node
# group's own key, or with count's [0].
_module_template_addresses(rc, name) := [base, sprintf("%s[%s]", [base, json.marshal(rc.index)]), sprintf("%s[0]", [base])] if {
	base := _template_address(rc, concat(".", ["aws_launch_template", name]))
	rc.index != null
} else := [base, sprintf("%s[0]", [base])] if {
	base := _template_address(rc, concat(".", ["aws_launch_template", name]))
}

# The aws_launch_template changes of the plan by address: {"after", "after_unknown"} of those
# with a planned object.
_launch_templates := {rc.address: {"after": rc.change.after, "after_unknown": object.get(rc.change, "after_unknown", {})} |
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

# The helpers below take the values they read (a planned value, false when absent, and its
# after_unknown entry), not the planned object: OPA caches a call's result under its arguments, and
# the values repeat from node group to node group where the objects do not.

# tags_all (tags merged with the provider's default_tags) when known, else tags.
_eks_tags(all, all_unknown, tags, tags_unknown) := all if {
	is_object(all)
	not all_unknown == true
} else := _eks_map(tags, tags_unknown)

# A map argument: {} when null, null while unknown (absent from after, false here; true in
# after_unknown).
_eks_map(v, unknown) := v if {
	is_object(v)
} else := {} if {
	v == null
} else := null if {
	unknown == true
} else := {}

# The taint blocks as they are when terraform wrote them with the effects the rules know (the
# AWS provider's spelling); else normalised; null while unknown.
_eks_taints(ts, unknown) := ts if {
	lib.canonical_taints(ts)
} else := null if {
	unknown == true
} else := lib.taints(lib.arr(ts))

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

# [rule, attribute, text] for a node group whose instance type cannot be told: no instance type of
# its own, and a launch template that is not found in the plan, or whose instance type is unknown
# or unset. Without an NVIDIA/GPU ami_type it is not judged at all; with one it is judged as a GPU
# pool of unknown model. The text says what was missing.
eks_unjudged(rc) := ["GF-DATA-002", "launch_template", text] if {
	rc.mode == "managed"
	a := rc.change.after
	is_object(a)
	_has_launch_template(rc, a)
	_eks_types(rc, a) == null
	text := sprintf("the node group takes its instance type from a launch template, but %s, so %s; set instance_types on the node group, or plan the aws_launch_template with it", [
		_eks_template_missing(rc, a),
		_eks_unjudged_consequence(object.get(a, "ami_type", null)),
	])
}

_eks_unjudged_consequence(ami) := sprintf("the gpufleet rules judged it as a GPU pool of unknown GPU model (its ami_type is %s): the GPU memory, right-sizing and cost checks could not judge it", [ami]) if {
	is_string(ami)
	regex.match(`NVIDIA|GPU`, ami)
} else := "the gpufleet rules could not tell whether it is a GPU pool and did not judge it"

# What is missing: the template's instance type (unknown until apply, or not set), or the template
# itself (named by the configuration but not in the plan, or not named at all: a dynamic block).
_eks_template_missing(rc, a) := sprintf("the instance_type of its launch template %s is unknown until apply", [t[0]]) if {
	t := _eks_template(rc, a)
	object.get(t[1].after_unknown, "instance_type", false) == true
} else := sprintf("its launch template %s sets no instance_type (and the node group's instance_types is empty)", [t[0]]) if {
	t := _eks_template(rc, a)
} else := picked[0] if {
	cfg := _config_resource(rc)
	expressions := cfg.expressions.launch_template[0]
	picked := [sprintf("the configuration picks its launch template among the instances of %s by %s (launch_template.%s), which the plan does not resolve", [base, concat(", ", others), key]) |
		some key in ["id", "name"]
		refs := expressions[key].references
		base := _template_resource_ref(refs)
		not _keyed_template(rc, cfg, refs)
		others := [r | some r in refs; r != base; not startswith(r, concat("", [base, "."]))]
		count(others) > 0
	]
	count(picked) > 0
} else := sprintf("its launch template (%s in the configuration) is not in this plan", [concat(", ", refs)]) if {
	cfg := _config_resource(rc)
	expressions := cfg.expressions.launch_template[0]
	refs := [sprintf("%s = %s", [key, _expression_text(rc, cfg, expressions[key])]) |
		some key in ["id", "name"]
		is_object(expressions[key])
	]
	count(refs) > 0
} else := sprintf("the plan's configuration does not say which template (a dynamic launch_template block, as terraform-aws-modules/eks writes it), and %s has no single aws_launch_template in this plan to take it from", [_module_name(rc)])

_expression_text(rc, cfg, e) := t if {
	t := _keyed_template(rc, cfg, e.references)
} else := e.references[0] if {
	is_string(e.references[0])
} else := json.marshal(e.constant_value) if {
	"constant_value" in object.keys(e)
} else := "an expression"

_module_name(rc) := sprintf("its module %s", [rc.module_address]) if {
	is_string(rc.module_address)
} else := "the root module"
