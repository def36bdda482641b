# google_container_node_pool (registry.terraform.io/hashicorp/google) -> pool document.
#
# A node pool is a GPU pool when node_config[0].guest_accelerator[0].type is an NVIDIA
# accelerator, or node_config[0].machine_type comes with fixed GPUs (a2, a3, a4, g2).
# GKE node counts (node_count, min/max_node_count) are per zone: the document multiplies them by
# the number of zones; total_min/total_max_node_count are taken as they are.
package gpufleet.documents

import data.gpufleet.lib

# As for aws_eks_node_group, the document is one object literal built in the builder's own body; a
# node pool without a GPU model (not a GPU pool) stops at _gke_model, before the rest is computed.
build("google_container_node_pool", rc) := {
	"address": rc.address,
	"resource_type": rc.type,
	"cloud": "gcp",
	"region": region,
	"zones": zones,
	"assumptions": _gke_assumptions(zones, location),
	"name": object.get(a, "name", null),
	"labels": labels,
	"tags": tags,
	"client": convention_client(labels, tags),
	"workload": convention_workload(labels),
	"unread_labels": convention_unread(labels),
	"waivers": convention_waivers(tags),
	"taints": _gke_taints(nc, ncu, object.get(u, "node_config", false)),
	"instance_types": _gke_shapes(machine_type),
	"gpu": _gke_gpu(acc, model, per_node, u),
	"scaling": scaling,
	"capacity": capacity,
	"cost": lib.sides_cost(_gke_price(machine_type, model, per_node, region), capacity),
} if {
	rc.mode == "managed"
	a := rc.change.after
	is_object(a)
	u := object.get(rc.change, "after_unknown", {})
	nc := object.get(a, ["node_config", 0], {})
	location := object.get(a, "location", null)
	acc := lib.obj(object.get(nc, ["guest_accelerator", 0], null))
	machine_type := object.get(nc, "machine_type", null)
	model := _gke_model(acc, machine_type)
	per_node := _gke_gpus(acc, machine_type)
	ncu := object.get(u, ["node_config", 0], {})
	labels := _gke_map(nc, ncu, "labels")
	tags := _gke_map(nc, ncu, "resource_labels")
	region := _gke_region(location)
	zones := _gke_zones(object.get(a, "node_locations", null), location, object.get(a, "cluster", null), object.get(a, "project", null), object.get(u, "node_locations", false))
	scaling := _gke_scaling(object.get(a, ["autoscaling", 0], null), object.get(a, "node_count", null), object.get(a, "initial_node_count", null), _zone_count(zones, location))
	capacity := _gke_capacity(nc, scaling)
}

# A map of node_config: {} when null, null while unknown.
_gke_map(nc, ncu, key) := v if {
	v := nc[key]
	is_object(v)
} else := {} if {
	nc[key] == null
} else := null if {
	nc == {}
} else := null if {
	ncu[key] == true
} else := {}

_gke_price(machine_type, model, per_node, region) := p if {
	p := lib.node_price("gcp", machine_type, model, per_node, region)
} else := null

# The accelerator's GPU: whole GPUs without sharing are precomputed per model and count.
_gke_gpu(acc, model, per_node, u) := lib.gpu_document(model, per_node) if {
	_gke_partition(acc) == null
	not acc.gpu_sharing_config[0]
	not u.node_config[0].guest_accelerator[0].gpu_partition_size
} else := object.union(lib.gpu_document(model, per_node), {
	"mig_profile": profile,
	"slice_memory_gib": lib.slice_memory(model, profile, null, object.get(u, ["node_config", 0, "guest_accelerator", 0, "gpu_partition_size"], false) == true),
	"sharing": _gke_sharing(acc),
}) if {
	profile := _gke_partition(acc)
}

_gke_capacity(nc, scaling) := {
	"spot_percentage": pct,
	"on_demand_base": 0,
	"reservation": _gke_reservation(object.get(nc, ["reservation_affinity", 0], null)),
	"on_demand": sides[0],
	"spot": sides[1],
} if {
	pct := _gke_spot_percentage(nc)
	sides := lib.all_or_nothing_sides(scaling, pct)
}

# GPU model from the accelerator type, else from the machine type's fixed GPUs; null for an
# accelerator the catalog does not know, and for a machine type of an accelerator-optimised family
# (a2, a3, a4, a4x, g2, g4: GPUs attached by the machine type; not g1, the shared-core family)
# that the catalog does not list, such as a3-edgegpu-8g or a4x-highgpu-4g; undefined (not a GPU
# pool) otherwise.
_gke_model(acc, machine_type) := m if {
	m := data.gpufleet.catalog.gke_accelerators[acc.type].gpu_model
} else := m if {
	m := data.gpufleet.catalog.gke_machine_types[machine_type].gpu_model
	is_string(m)
} else := null if {
	startswith(acc.type, "nvidia-")
	acc.count > 0
} else := null if {
	regex.match(`^(a[0-9]+x?|g[2-9])-`, machine_type)
}

_gke_gpus(acc, machine_type) := acc.count if {
	is_number(acc.count)
	acc.count > 0
}

else := n if {
	n := data.gpufleet.catalog.gke_machine_types[machine_type].gpu_count
	n > 0
} else := null

_gke_shapes(machine_type) := [machine_type] if {
	is_string(machine_type)
} else := null

_gke_partition(acc) := p if {
	p := acc.gpu_partition_size
	is_string(p)
	p != ""
}

else := null

_gke_strategies := {"TIME_SHARING": "time-slicing", "MPS": "mps"}

_gke_sharing(acc) := {
	"strategy": _gke_strategies[c.gpu_sharing_strategy],
	"replicas": lib.num(object.get(c, "max_shared_clients_per_gpu", null)),
} if {
	c := acc.gpu_sharing_config[0]
}

else := null

_gke_spot_percentage(nc) := 100 if {
	nc.spot == true
} else := 100 if {
	nc.preemptible == true
} else := 0

_gke_reservation(r) := {"type": "specific", "id": null, "name": name, "project": project} if {
	r.consume_reservation_type == "SPECIFIC_RESERVATION"
	value := _first(r.values)
	parts := split(value, "/")
	name := parts[count(parts) - 1]
	project := _reservation_project(parts)
} else := {"type": "any", "id": null, "name": null, "project": null} if {
	r.consume_reservation_type == "ANY_RESERVATION"
} else := null

_first(values) := values[0] if {
	is_array(values)
} else := null

# "projects/<project>/reservations/<name>" names the project; a bare name does not.
_reservation_project(parts) := parts[1] if {
	count(parts) >= 4
	parts[0] == "projects"
}

else := null

_gke_region(location) := lib.gcp_region(location) if {
	is_string(location)
} else := null

# node_locations when set; the zone of a zonal pool; else the node_locations of its cluster when
# the cluster is in the plan (a pool inherits them); null while unknown.
_gke_zones(node_locations, location, cluster, project, unknown) := node_locations if {
	is_array(node_locations)
	count(node_locations) > 0
} else := [location] if {
	is_string(location)
	lib.gcp_is_zone(location)
} else := zones if {
	zones := _gke_cluster_zones(cluster, location, project)
} else := null if {
	unknown == true
} else := []

# The node_locations of the pool's google_container_cluster in the plan: the cluster of the pool's
# cluster name (cluster = its name or its id projects/<p>/locations/<l>/clusters/<name>) in the
# pool's location and project (the id's, else the pool's own; a location or project that is not
# known matches any). Clusters of the same name elsewhere are other clusters; when several match
# and their zones differ, the zones are taken from none.
_gke_cluster_zones(cluster, own_location, own_project) := zones if {
	is_string(cluster) # null when unknown: split would fail on it
	parts := split(cluster, "/")
	location := _gke_cluster_part(parts, "locations", own_location)
	project := _gke_cluster_part(parts, "projects", own_project)
	candidates := {c.node_locations |
		some c in _gke_clusters[parts[count(parts) - 1]]
		_gke_same(object.get(c, "location", null), location)
		_gke_same(object.get(c, "project", null), project)
		count(c.node_locations) > 0
	}
	count(candidates) == 1
	some zones in candidates
}

# The location or project of a cluster id (projects/<p>/locations/<l>/clusters/<name>), else the
# pool's own.
_gke_cluster_part(parts, key, own) := parts[i + 1] if {
	count(parts) == 6
	i := {"projects": 0, "locations": 2}[key]
	parts[i] == key
} else := own

_gke_same(x, y) if {
	x == y
} else if {
	not is_string(x)
} else if {
	not is_string(y)
}

# The planned google_container_cluster objects of the plan, by name (several may share one, in other
# locations or projects).
_gke_clusters := {name: [c | some c in clusters; c.name == name] | some name in {c.name | some c in clusters}} if {
	clusters := [c.change.after |
		some c in plan_changes
		c.type == "google_container_cluster"
		is_string(c.change.after.name)
	]
}

# The number of zones the per-zone node counts multiply by: the zones'; for a regional pool whose
# zones are not in the plan, GKE's default for a regional cluster, three, stated as an assumption
# (_gke_assumptions) in the cost messages.
_zone_count(zones, location) := count(zones) if {
	is_array(zones)
	count(zones) > 0
} else := _assumed_zones if {
	is_string(location)
	not lib.gcp_is_zone(location)
} else := null

_assumed_zones := 3

_gke_assumptions(zones, location) := [sprintf("the node counts per zone x %v zones: the pool's zones are not in the plan (nor its cluster's), and GKE spreads a regional pool over %v zones by default", [_assumed_zones, _assumed_zones])] if {
	_zone_count(zones, location) == _assumed_zones
	count(lib.arr(zones)) == 0
} else := []

# Sizes of the whole pool. With autoscaling: total_* limits as they are, per-zone limits times
# the zone count; desired = node_count (else initial_node_count) per zone, else the minimum.
# From the values it reads (autoscaling[0], node_count, initial_node_count), not the planned object:
# OPA caches a call's result under its arguments, and the values repeat from pool to pool.
_gke_scaling(auto, node_count, initial, zone_count) := sizes(limits[0], limits[1], _gke_desired(node_count, initial, zone_count, limits[0])) if {
	is_object(auto)
	limits := _gke_limits(auto, zone_count)
}

else := sizes(n, n, n) if {
	n := _per_zone(_gke_node_count(node_count, initial), zone_count)
}

_gke_limits(auto, zone_count) := [coalesce(lib.num(object.get(auto, "total_min_node_count", null)), 0), auto.total_max_node_count] if {
	is_number(auto.total_max_node_count)
	auto.total_max_node_count > 0
}

else := [
	_per_zone(object.get(auto, "min_node_count", null), zone_count),
	_per_zone(object.get(auto, "max_node_count", null), zone_count),
]

_gke_desired(node_count, initial, zone_count, minimum) := n if {
	n := _per_zone(_gke_node_count(node_count, initial), zone_count)
	n != null
}

else := minimum

_gke_node_count(node_count, initial) := coalesce(lib.num(node_count), lib.num(initial))

_per_zone(n, zone_count) := n * zone_count if {
	is_number(n)
	is_number(zone_count)
}

else := null

# The configured taints plus GKE's effective_taints (when known); null while unknown. The
# configured taints alone, as they are, when GKE computes no others (effective_taints unknown).
# Null while the taint blocks, or the node_config block holding them, are unknown: each a lookup
# that fails at once for the usual pool. From node_config[0] and its after_unknown entries, not the
# planned object (see _gke_scaling).
_gke_taints(nc, ncu, unknown) := null if {
	ncu.taint == true
} else := null if {
	ncu == true
} else := null if {
	unknown == true
} else := ts if {
	ts := nc.taint
	not nc.effective_taints
	lib.canonical_taints(ts)
} else := [t | some t in {lib.taint(x) | some x in array.concat(
	lib.arr(object.get(nc, "taint", null)),
	lib.arr(object.get(nc, "effective_taints", null)),
)}]
