# aws_eks_node_group (registry.terraform.io/hashicorp/aws) -> pool document.
#
# A node group is a GPU pool when one of its instance_types is a catalog GPU instance type, or
# its ami_type is an NVIDIA/GPU AMI (then the GPU model is null when the instance type is not in
# the catalog or is set in a launch template). Blocks (scaling_config, taint) are lists of objects.
package gpufleet.documents

import data.gpufleet.lib

eks(rc) := doc if {
	a := planned(rc)
	u := after_unknown(rc)
	types := list_or_null(known(a, u, ["instance_types"]))
	shape := _eks_shape(types)
	_eks_gpu_pool(shape, object.get(a, "ami_type", null))
	model := _eks_model(shape)
	labels := _known_map(a, u, ["labels"])
	tags := _eks_tags(a, u)
	region := _eks_region(rc, a)
	capacity_type := object.get(a, "capacity_type", null)
	pct := _eks_spot_percentage(capacity_type)
	scaling := sizes(
		object.get(a, ["scaling_config", 0, "min_size"], null),
		object.get(a, ["scaling_config", 0, "max_size"], null),
		object.get(a, ["scaling_config", 0, "desired_size"], null),
	)
	sides := lib.spot_split(scaling, 0, pct)
	per_node := _eks_gpus(shape)
	mig_config := convention_mig_config(labels)
	doc := {
		"address": rc.address,
		"resource_type": rc.type,
		"cloud": "aws",
		"region": region,
		"zones": null,
		"name": lib.str(object.get(a, "node_group_name", null)),
		"client": convention_client(labels, tags),
		"workload": convention_workload(labels),
		"gpu": {
			"model": model,
			"class": lib.gpu_class(model),
			"memory_gib": lib.gpu_memory(model),
			"per_node": per_node,
			"mig_profile": null,
			"mig_config": mig_config,
			"slice_memory_gib": lib.slice_memory(model, null, mig_config, is_null(labels)),
			"sharing": _eks_sharing(labels),
		},
		"instance_types": types,
		"scaling": scaling,
		"capacity": {
			"spot_percentage": pct,
			"on_demand_base": 0,
			"reservation": _eks_reservation(capacity_type),
			"on_demand": sides.on_demand,
			"spot": sides.spot,
		},
		"taints": _known_taints(a, u, ["taint"]),
		"labels": labels,
		"tags": tags,
		"cost": lib.pool_cost("aws", shape, model, per_node, region, sides),
		"waivers": convention_waivers(tags),
	}
}

# The first instance type the catalog knows as a GPU instance type, or null.
_eks_shape(types) := known_types[0] if {
	known_types := [t | some t in lib.arr(types); data.gpufleet.catalog.aws_instance_types[t]]
	count(known_types) > 0
}

else := null

_eks_gpu_pool(shape, _) if shape != null

_eks_gpu_pool(_, ami) if {
	is_string(ami)
	regex.match(`NVIDIA|GPU`, ami)
}

_eks_model(shape) := m if {
	m := data.gpufleet.catalog.aws_instance_types[shape].gpu_model
} else := null

_eks_gpus(shape) := n if {
	n := data.gpufleet.catalog.aws_instance_types[shape].gpu_count
} else := null

# SPOT: every node is spot. ON_DEMAND, CAPACITY_BLOCK, or unset/unknown (AWS defaults to
# ON_DEMAND): none is.
_eks_spot_percentage("SPOT") := 100

_eks_spot_percentage(capacity_type) := 0 if capacity_type != "SPOT"

_eks_reservation("CAPACITY_BLOCK") := {"type": "capacity-block", "id": null, "name": null, "project": null}

_eks_reservation(capacity_type) := null if capacity_type != "CAPACITY_BLOCK"

# tags_all (tags merged with the provider's default_tags) when known, else tags.
_eks_tags(a, u) := a.tags_all if {
	unknown(u, ["tags_all"]) == false
	is_object(a.tags_all)
}

else := _known_map(a, u, ["tags"])

# GPU sharing from the NVIDIA device plugin config label gpufleet writes on EKS; the strategy is
# "mps" when the config name says so, else time-slicing; replicas are not visible in the plan.
_eks_sharing(labels) := {"strategy": _sharing_strategy(v), "replicas": null} if {
	v := labels[lib.label_device_plugin_config]
	is_string(v)
	v != ""
}

else := null

_sharing_strategy(name) := "mps" if {
	contains(lower(name), "mps")
} else := "time-slicing"

# Region: the resource's region argument (provider v6), else the region of the provider
# configuration the resource uses, else null.
_eks_region(rc, a) := a.region if {
	is_string(a.region)
} else := r if {
	r := provider_region(rc, "aws")
} else := null

# ---------------------------------------------------------------------------------------------
# Provider configuration (configuration.provider_config) lookups
# ---------------------------------------------------------------------------------------------

# Configuration address (no instance keys) -> provider_config_key, for the root module and one
# level of module calls. Built once per evaluation (comprehensions, not partial rules: those are
# slow with many keys).
_provider_keys := object.union(
	{r.address: r.provider_config_key | some r in input.configuration.root_module.resources},
	{concat(".", ["module", name, r.address]): r.provider_config_key |
		some name, call in input.configuration.root_module.module_calls
		some r in call.module.resources
	},
)

_config_address(rc) := concat(".", [regex.replace(rc.module_address, `\[[^\]]*\]`, ""), rc.type, rc.name]) if {
	is_string(rc.module_address)
}

else := concat(".", [rc.type, rc.name])

_provider_config(rc, name) := cfg if {
	keys := _provider_keys
	cfg := input.configuration.provider_config[keys[_config_address(rc)]]
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
# Known-or-null helpers for plan blocks
# ---------------------------------------------------------------------------------------------

# A map at path: null while unknown, {} when absent or null.
_known_map(a, u, path) := null if {
	unknown(u, path)
} else := lib.obj(object.get(a, path, null))

# Normalised taints at path: null while unknown, [] when absent or null.
_known_taints(a, u, path) := null if {
	unknown(u, path)
} else := lib.taints(lib.arr(object.get(a, path, null)))
