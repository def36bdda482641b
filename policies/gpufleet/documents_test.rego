package gpufleet.documents_test

import data.gpufleet.documents
import data.gpufleet.fixtures as fx

# The documents of documents.pools ([address, document] pairs).
pool_docs := [doc | some [_, doc] in documents.pools]

test_addresses_beside_documents if {
	pairs := documents.pools with input as plan([rc("aws_eks_node_group", eks_after)]) with data.gpufleet.catalog as fx.catalog
	[[address, doc]] := pairs
	address == "aws_eks_node_group.x"
	doc.address == address
}

rc(type, after) := {
	"address": concat(".", [type, "x"]),
	"mode": "managed",
	"type": type,
	"name": "x",
	"provider_name": "registry.terraform.io/test/test",
	"change": {"actions": ["create"], "before": null, "after": after, "after_unknown": {}},
}

with_unknown(change, unknown) := json.patch(change, [{"op": "add", "path": "/change/after_unknown", "value": unknown}])

plan(changes) := {"format_version": "1.2", "resource_changes": changes}

# Costs are products of decimal prices: compare them to the cent fraction.
near(a, b) if abs(a - b) < 0.0001

cost_near(doc, hourly, monthly) if {
	near(doc.cost.hourly_usd, hourly)
	near(doc.cost.monthly_usd, monthly)
}

gpu_taint := {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}

# ---------------------------------------------------------------------------------------------
# gpufleet_eks_node_pool / gpufleet_gke_node_pool
# ---------------------------------------------------------------------------------------------

ours_after := {
	"client": "acme",
	"name": "train",
	"region": "eu-west-1",
	"cluster_name": "ml",
	"instance_types": ["p4d.24xlarge"],
	"workload": {"kind": "training", "environment": "production", "gpu_memory_gib": 30, "interruptible": true, "precision": null, "gpus_per_replica": null, "replicas": null, "kv_cache_gib": null},
	"gpu": {"mig": {"profile": "3g.20gb", "config": null}, "sharing": null},
	"scaling": {"min_size": 1, "max_size": 5, "desired_size": 3},
	"capacity": {"spot_percentage": 50, "on_demand_base": 1, "reservation": {"id": "cr-1", "type": "capacity-reservation"}},
	"taints": null,
	"labels": null,
	"tags": {"team": "ml"},
	"policy_waivers": {"GF-COST-002": "benchmark"},
	"gpu_model": "A100-40GB",
	"gpus_per_node": 8,
	"gpu_memory_gib": 40,
	"effective_taints": [gpu_taint],
	"effective_labels": {"gpufleet.io/client": "acme"},
	"effective_tags": {"gpufleet:client": "acme", "team": "ml"},
	"estimated_hourly_cost_usd": 57.2,
	"estimated_monthly_cost_usd": 41756,
}

test_ours_eks_document if {
	docs := pool_docs with input as plan([rc("gpufleet_eks_node_pool", ours_after)])
		with data.gpufleet.catalog as fx.catalog
	docs == [{
		"address": "gpufleet_eks_node_pool.x",
		"resource_type": "gpufleet_eks_node_pool",
		"cloud": "aws",
		"region": "eu-west-1",
		"zones": null,
		"name": "train",
		"client": "acme",
		"workload": {"kind": "training", "environment": "production", "gpu_memory_gib": 30, "interruptible": true, "precision": null, "gpus_per_replica": null, "replicas": null, "kv_cache_gib": null},
		"gpu": {
			"model": "A100-40GB", "class": "training", "memory_gib": 40, "per_node": 8,
			"mig_profile": "3g.20gb", "mig_config": null, "slice_memory_gib": 20, "sharing": null,
		},
		"instance_types": ["p4d.24xlarge"],
		"scaling": {"min_size": 1, "max_size": 5, "desired_size": 3},
		"capacity": {
			"spot_percentage": 50, "on_demand_base": 1,
			"reservation": {"type": "capacity-reservation", "id": "cr-1", "name": null, "project": null},
			# spot = floor(max(s - 1, 0) * 50 / 100): min 0, max 2, desired 1
			"on_demand": {"min": 1, "max": 3, "desired": 2}, "spot": {"min": 0, "max": 2, "desired": 1},
		},
		"taints": [gpu_taint],
		"labels": {"gpufleet.io/client": "acme"},
		"tags": {"gpufleet:client": "acme", "team": "ml"},
		"cost": {"hourly_usd": 57.2, "monthly_usd": 41756},
		"waivers": {"GF-COST-002": "benchmark"},
	}]
}

test_ours_gke_document if {
	after := json.patch(json.remove(ours_after, ["instance_types", "cluster_name"]), [
		{"op": "add", "path": "/machine_type", "value": "a2-highgpu-1g"},
		{"op": "add", "path": "/location", "value": "europe-west4"},
		{"op": "replace", "path": "/region", "value": "europe-west4"},
		{"op": "add", "path": "/zones", "value": ["europe-west4-a"]},
		{"op": "replace", "path": "/gpus_per_node", "value": 1},
		{"op": "replace", "path": "/gpu", "value": {"mig": null, "sharing": {"strategy": "time-slicing", "replicas": 4}, "type": "nvidia-tesla-a100", "count": 1}},
		{"op": "replace", "path": "/capacity/reservation", "value": {"type": "specific", "name": "res", "project": "p"}},
	])
	[doc] := pool_docs with input as plan([rc("gpufleet_gke_node_pool", after)])
		with data.gpufleet.catalog as fx.catalog
	doc.cloud == "gcp"
	doc.instance_types == ["a2-highgpu-1g"]
	doc.zones == ["europe-west4-a"]
	doc.gpu.slice_memory_gib == 40
	doc.gpu.per_node == 1
	doc.gpu.sharing == {"strategy": "time-slicing", "replicas": 4}
	doc.capacity.reservation == {"type": "specific", "id": null, "name": "res", "project": "p"}
}

# A ComputeClass: its ladder is the document's spot share, its zones the class's and a specific
# reservation's (internal/computeclass/render.Capacity and the resource's spec).
test_ours_compute_class_ladder if {
	after := json.patch(json.remove(ours_after, ["instance_types", "cluster_name", "capacity"]), [
		{"op": "add", "path": "/machine_type", "value": "g2-standard-8"},
		{"op": "replace", "path": "/region", "value": "us-central1"},
		{"op": "add", "path": "/zones", "value": ["us-central1-c", "us-central1-a"]},
		{"op": "add", "path": "/capacity", "value": {"ladder": ["reservation", "on_demand", "spot"], "reservation": {"type": "specific", "name": "res", "project": null, "zones": ["us-central1-b"]}, "flex_start": null}},
	])
	[doc] := pool_docs with input as plan([rc("gpufleet_gke_compute_class", after)])
		with data.gpufleet.catalog as fx.catalog
	doc.capacity.spot_percentage == 100
	doc.capacity.on_demand_base == 0
	doc.capacity.spot == {"min": 1, "max": 5, "desired": 3}
	doc.zones == ["us-central1-a", "us-central1-b", "us-central1-c"]
	doc.capacity.reservation == {"type": "specific", "id": null, "name": "res", "project": null}

	no_spot := json.patch(after, [{"op": "replace", "path": "/capacity/ladder", "value": ["on_demand"]}, {"op": "replace", "path": "/zones", "value": null}])
	[d2] := pool_docs with input as plan([rc("gpufleet_gke_compute_class", no_spot)])
		with data.gpufleet.catalog as fx.catalog
	d2.capacity.spot_percentage == 0
	d2.zones == null

	unknown := json.patch(after, [{"op": "replace", "path": "/capacity/ladder", "value": null}])
	[d3] := pool_docs with input as plan([rc("gpufleet_gke_compute_class", unknown)])
		with data.gpufleet.catalog as fx.catalog
	d3.capacity.spot_percentage == null
}

test_ours_mig_config_slices if {
	balanced := object.union(ours_after, {"gpu": {"mig": {"profile": null, "config": "all-balanced"}}})
	[a] := pool_docs with input as plan([rc("gpufleet_eks_node_pool", balanced)])
		with data.gpufleet.catalog as fx.catalog
	a.gpu.slice_memory_gib == 5 # smallest of A100-40GB's balanced profiles (1g.5gb)
	single := object.union(ours_after, {"gpu": {"mig": {"profile": null, "config": "all-2g.10gb"}}})
	[b] := pool_docs with input as plan([rc("gpufleet_eks_node_pool", single)])
		with data.gpufleet.catalog as fx.catalog
	b.gpu.slice_memory_gib == 10
	none := object.union(ours_after, {"gpu": {"mig": null}})
	[c] := pool_docs with input as plan([rc("gpufleet_eks_node_pool", none)])
		with data.gpufleet.catalog as fx.catalog
	c.gpu.slice_memory_gib == 40
}

test_ours_unknown_values_are_null if {
	after := json.remove(ours_after, ["client", "effective_taints", "estimated_monthly_cost_usd", "workload/gpu_memory_gib", "gpu/mig"])
	change := with_unknown(rc("gpufleet_eks_node_pool", after), {
		"client": true, "effective_taints": true, "estimated_monthly_cost_usd": true,
		"workload": {"gpu_memory_gib": true}, "gpu": {"mig": true},
	})
	[doc] := pool_docs with input as plan([change])
		with data.gpufleet.catalog as fx.catalog
	doc.client == null
	doc.taints == null
	doc.cost.monthly_usd == null
	doc.workload.gpu_memory_gib == null
	doc.gpu.mig_profile == null
	doc.gpu.slice_memory_gib == null # MIG unknown: not the whole GPU
}

test_ours_unknown_mig_profile if {
	after := json.remove(ours_after, ["gpu/mig/profile"])
	change := with_unknown(rc("gpufleet_eks_node_pool", after), {"gpu": {"mig": {"profile": true}}})
	[doc] := pool_docs with input as plan([change])
		with data.gpufleet.catalog as fx.catalog
	doc.gpu.mig_profile == null
	doc.gpu.slice_memory_gib == null
}

test_ours_policy_document_from_the_provider if {
	provided := {"resource_type": "gpufleet_eks_node_pool", "address": "", "client": "acme", "cloud": "aws"}
	after := object.union(ours_after, {"policy_document": provided})
	documents.pools == [["gpufleet_eks_node_pool.x", provided]] with input as plan([rc("gpufleet_eks_node_pool", after)])
}

# ---------------------------------------------------------------------------------------------
# Which changes are checked
# ---------------------------------------------------------------------------------------------

test_deletes_are_skipped_replacements_checked if {
	deleted := json.patch(rc("gpufleet_eks_node_pool", null), [{"op": "replace", "path": "/change/actions", "value": ["delete"]}])
	replaced := json.patch(rc("gpufleet_gke_node_pool", object.union(ours_after, {"machine_type": "a2-highgpu-1g"})), [
		{"op": "replace", "path": "/change/actions", "value": ["delete", "create"]},
		{"op": "replace", "path": "/address", "value": "gpufleet_gke_node_pool.new"},
	])
	noop := json.patch(rc("gpufleet_eks_node_pool", ours_after), [
		{"op": "replace", "path": "/change/actions", "value": ["no-op"]},
		{"op": "replace", "path": "/address", "value": "gpufleet_eks_node_pool.kept"},
	])
	read := json.patch(rc("aws_eks_node_group", eks_after), [{"op": "replace", "path": "/mode", "value": "data"}])
	docs := pool_docs with input as plan([deleted, replaced, noop, read])
		with data.gpufleet.catalog as fx.catalog
	{d.address | some d in docs} == {"gpufleet_gke_node_pool.new", "gpufleet_eks_node_pool.kept"}
}

test_no_plan_no_documents if {
	documents.pools == [] with input as fx.doc
	documents.pools == [] with input as {"resource_changes": []}
	documents.pools == [] with input as {"something": "else"}
}

# ---------------------------------------------------------------------------------------------
# aws_eks_node_group
# ---------------------------------------------------------------------------------------------

eks_after := {
	"ami_type": "AL2023_x86_64_NVIDIA",
	"capacity_type": "SPOT",
	"cluster_name": "ml",
	"instance_types": ["p4d.24xlarge"],
	"labels": {
		"gpufleet.io/client": "globex", "gpufleet.io/workload": "training", "gpufleet.io/environment": "production",
		"gpufleet.io/gpu-memory-gib": "30", "gpufleet.io/interruptible": "true",
	},
	"launch_template": [],
	"node_group_name": "train",
	"region": "us-east-1",
	"scaling_config": [{"desired_size": 2, "max_size": 4, "min_size": 1}],
	"tags": {"gpufleet:client": "globex"},
	"tags_all": {"gpufleet:client": "globex", "gpufleet:cost-center": "cc-2002", "gpufleet-waive-gf-cost-003": "ok"},
	"taint": [{"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "present"}],
}

test_eks_document if {
	[doc] := pool_docs with input as plan([rc("aws_eks_node_group", eks_after)])
		with data.gpufleet.catalog as fx.catalog

	# 2 spot nodes x $9.882/h; x 730 h
	cost_near(doc, 19.764, 14427.72)
	json.remove(doc, ["cost"]) == {
		"address": "aws_eks_node_group.x",
		"resource_type": "aws_eks_node_group",
		"cloud": "aws",
		"region": "us-east-1",
		"zones": null,
		"name": "train",
		"client": "globex",
		"workload": {"kind": "training", "environment": "production", "gpu_memory_gib": 30, "interruptible": true, "precision": null, "gpus_per_replica": null, "replicas": null, "kv_cache_gib": null},
		"unread_labels": [],
		"gpu": {
			"model": "A100-40GB", "class": "training", "memory_gib": 40, "per_node": 8,
			"mig_profile": null, "mig_config": null, "slice_memory_gib": 40, "sharing": null,
		},
		"instance_types": ["p4d.24xlarge"],
		"scaling": {"min_size": 1, "max_size": 4, "desired_size": 2},
		"capacity": {
			"spot_percentage": 100, "on_demand_base": 0, "reservation": null,
			"on_demand": {"min": 0, "max": 0, "desired": 0}, "spot": {"min": 1, "max": 4, "desired": 2},
		},
		"taints": [gpu_taint],
		"labels": eks_after.labels,
		"tags": eks_after.tags_all,
		"waivers": {"GF-COST-003": "ok"},
	}
}

test_eks_region_from_the_provider_configuration if {
	change := rc("aws_eks_node_group", json.remove(eks_after, ["region"]))
	constant := object.union(plan([change]), {"configuration": {"provider_config": {"aws": {"name": "aws", "expressions": {"region": {"constant_value": "eu-west-1"}}}}}})
	[a] := pool_docs with input as constant with data.gpufleet.catalog as fx.catalog
	a.region == "eu-west-1"
	near(a.cost.hourly_usd, 22.1356) # 2 x the eu-west-1 spot price
	variable := object.union(plan([change]), {
		"variables": {"region": {"value": "us-east-1"}},
		"configuration": {"provider_config": {"aws": {"name": "aws", "expressions": {"region": {"references": ["var.region"]}}}}},
	})
	[b] := pool_docs with input as variable with data.gpufleet.catalog as fx.catalog
	b.region == "us-east-1"
	none := plan([change])
	[c] := pool_docs with input as none with data.gpufleet.catalog as fx.catalog
	c.region == null
	c.cost == {"hourly_usd": null, "monthly_usd": null}
}

test_eks_region_from_an_aliased_provider if {
	change := rc("aws_eks_node_group", json.remove(eks_after, ["region"]))
	input_plan := object.union(plan([change]), {"configuration": {
		"provider_config": {
			"aws": {"name": "aws", "expressions": {"region": {"constant_value": "eu-west-1"}}},
			"aws.us": {"name": "aws", "alias": "us", "expressions": {"region": {"constant_value": "us-east-1"}}},
		},
		"root_module": {"resources": [{"address": "aws_eks_node_group.x", "provider_config_key": "aws.us"}]},
	}})
	[doc] := pool_docs with input as input_plan with data.gpufleet.catalog as fx.catalog
	doc.region == "us-east-1"
}

# Every aws configuration in one region: every node group is in it, whatever configuration it uses.
# Without a default configuration, a node group may use the implicit one (no region): its own
# configuration decides.
test_eks_region_when_all_aws_configurations_agree if {
	change := rc("aws_eks_node_group", json.remove(eks_after, ["region"]))
	same := object.union(plan([change]), {"configuration": {
		"provider_config": {
			"aws": {"name": "aws", "expressions": {"region": {"constant_value": "eu-west-1"}}},
			"aws.eu": {"name": "aws", "alias": "eu", "expressions": {"region": {"constant_value": "eu-west-1"}}},
			"google": {"name": "google", "expressions": {"region": {"constant_value": "us-central1"}}},
		},
		"root_module": {"resources": [{"address": "aws_eks_node_group.x", "provider_config_key": "aws.eu"}]},
	}})
	[a] := pool_docs with input as same with data.gpufleet.catalog as fx.catalog
	a.region == "eu-west-1"
	no_default := object.union(plan([change]), {"configuration": {
		"provider_config": {"aws.eu": {"name": "aws", "alias": "eu", "expressions": {"region": {"constant_value": "eu-west-1"}}}},
		"root_module": {"resources": [{"address": "aws_eks_node_group.x", "provider_config_key": "aws"}]},
	}})
	[b] := pool_docs with input as no_default with data.gpufleet.catalog as fx.catalog
	b.region == null
}

test_eks_not_a_gpu_pool if {
	cpu := object.union(eks_after, {"instance_types": ["m5.large"], "ami_type": "AL2023_x86_64_STANDARD"})
	documents.pools == [] with input as plan([rc("aws_eks_node_group", cpu)]) with data.gpufleet.catalog as fx.catalog
}

test_eks_gpu_ami_with_unknown_instance_type if {
	change := with_unknown(rc("aws_eks_node_group", json.remove(eks_after, ["instance_types"])), {"instance_types": true})
	[doc] := pool_docs with input as plan([change]) with data.gpufleet.catalog as fx.catalog
	doc.gpu.model == null
	doc.instance_types == null
	doc.gpu.slice_memory_gib == null
}

test_eks_conventions if {
	labels := {"nvidia.com/mig.config": "all-balanced", "nvidia.com/device-plugin.config": "train-mps"}
	after := json.patch(eks_after, [
		{"op": "replace", "path": "/capacity_type", "value": "CAPACITY_BLOCK"},
		{"op": "replace", "path": "/labels", "value": labels},
		{"op": "replace", "path": "/tags_all", "value": {"gpufleet:client": "globex"}},
	])
	[doc] := pool_docs with input as plan([rc("aws_eks_node_group", after)]) with data.gpufleet.catalog as fx.catalog
	doc.client == "globex" # from the tag: the label is gone
	doc.gpu.mig_config == "all-balanced"
	doc.gpu.slice_memory_gib == 5
	doc.gpu.sharing == {"strategy": "mps", "replicas": null}
	doc.capacity.spot_percentage == 0
	doc.capacity.reservation.type == "capacity-block"
	doc.workload == {"kind": null, "environment": null, "gpu_memory_gib": null, "interruptible": null, "precision": null, "gpus_per_replica": null, "replicas": null, "kv_cache_gib": null}
}

# Without gpufleet.io/gpu-memory-gib, the need is estimated from the model labels with the catalog's
# memory model (the real one: lib.memory_required_gib reads data.gpufleet.catalog.memory_model), so
# GF-RS-001 judges a 13B fp16 model (31.2 GB = 29.06 GiB) on a 16 GB T4.
test_eks_memory_from_model_labels if {
	model := {
		"gpufleet.io/client": "globex", "gpufleet.io/workload": "inference", "gpufleet.io/environment": "staging",
		"gpufleet.io/model-parameters-billion": "13", "gpufleet.io/precision": "fp16",
	}
	after := json.patch(eks_after, [
		{"op": "replace", "path": "/labels", "value": model},
		{"op": "replace", "path": "/instance_types", "value": ["g4dn.xlarge"]},
	])
	[doc] := pool_docs with input as plan([rc("aws_eks_node_group", after)])
	doc.workload.gpu_memory_gib == 29.06
	some f in data.gpufleet.rules.deny with input as doc
	f.rule == "GF-RS-001"

	# training with a method: 7B qlora; a label that gives the need wins over the model labels
	qlora := object.union(model, {"gpufleet.io/workload": "training", "gpufleet.io/model-parameters-billion": "65", "gpufleet.io/precision": "int4", "gpufleet.io/training-method": "qlora"})
	[q] := pool_docs with input as plan([rc("aws_eks_node_group", json.patch(after, [{"op": "replace", "path": "/labels", "value": qlora}]))])
	q.workload.gpu_memory_gib == 40.92
	given := object.union(qlora, {"gpufleet.io/gpu-memory-gib": "44"})
	[g] := pool_docs with input as plan([rc("aws_eks_node_group", json.patch(after, [{"op": "replace", "path": "/labels", "value": given}]))])
	g.workload.gpu_memory_gib == 44

	# a precision the estimate does not know gives no need, so no rule fires on it
	bad := object.union(model, {"gpufleet.io/precision": "fp7"})
	[b] := pool_docs with input as plan([rc("aws_eks_node_group", json.patch(after, [{"op": "replace", "path": "/labels", "value": bad}]))])
	b.workload.gpu_memory_gib == null
}

test_eks_client_unset_or_unknown if {
	unset := json.patch(eks_after, [
		{"op": "replace", "path": "/labels", "value": null},
		{"op": "replace", "path": "/tags", "value": null},
		{"op": "replace", "path": "/tags_all", "value": {}},
	])
	[a] := pool_docs with input as plan([rc("aws_eks_node_group", unset)]) with data.gpufleet.catalog as fx.catalog
	a.client == ""
	a.labels == {}
	unknown := with_unknown(rc("aws_eks_node_group", json.remove(eks_after, ["labels", "tags_all"])), {"labels": true, "tags_all": true})
	[b] := pool_docs with input as plan([unknown]) with data.gpufleet.catalog as fx.catalog
	b.client == "globex" # from tags, as tags_all is unknown
	b.labels == null
	b.gpu.slice_memory_gib == null # the MIG label may be among the unknown labels
	both := with_unknown(rc("aws_eks_node_group", json.remove(eks_after, ["labels", "tags", "tags_all"])), {"labels": true, "tags": true, "tags_all": true})
	[c] := pool_docs with input as plan([both]) with data.gpufleet.catalog as fx.catalog
	c.client == null
}

# ---------------------------------------------------------------------------------------------
# google_container_node_pool
# ---------------------------------------------------------------------------------------------

gke_after := {
	"autoscaling": [{"max_node_count": 3, "min_node_count": 1, "total_max_node_count": null, "total_min_node_count": null}],
	"cluster": "ml",
	"initial_node_count": 1,
	"location": "us-central1",
	"name": "infer",
	"node_config": [{
		"guest_accelerator": [{
			"count": 2, "gpu_partition_size": null, "type": "nvidia-tesla-t4",
			"gpu_sharing_config": [{"gpu_sharing_strategy": "TIME_SHARING", "max_shared_clients_per_gpu": 4}],
		}],
		"labels": {"gpufleet.io/client": "initech", "gpufleet.io/workload": "inference", "gpufleet.io/gpu-memory-gib": "12.5"},
		"machine_type": "n1-standard-8",
		"preemptible": false,
		"reservation_affinity": [],
		"resource_labels": {"gpufleet_client": "initech", "gpufleet_cost-center": "cc-3003"},
		"spot": true,
		"taint": [{"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "present"}],
	}],
	"node_locations": ["us-central1-a", "us-central1-b"],
	"project": "p",
}

test_gke_document if {
	[doc] := pool_docs with input as plan([rc("google_container_node_pool", gke_after)])
		with data.gpufleet.catalog as fx.catalog

	# 2 nodes x (n1-standard-8 spot $0.0798 + 2 x T4 spot $0.14)
	cost_near(doc, 0.7196, 525.308)
	json.remove(doc, ["cost"]) == {
		"address": "google_container_node_pool.x",
		"resource_type": "google_container_node_pool",
		"cloud": "gcp",
		"region": "us-central1",
		"zones": ["us-central1-a", "us-central1-b"],
		"name": "infer",
		"client": "initech",
		"workload": {"kind": "inference", "environment": null, "gpu_memory_gib": 12.5, "interruptible": null, "precision": null, "gpus_per_replica": null, "replicas": null, "kv_cache_gib": null},
		"unread_labels": [],
		"gpu": {
			"model": "T4", "class": "inference", "memory_gib": 16, "per_node": 2,
			"mig_profile": null, "mig_config": null, "slice_memory_gib": 16,
			"sharing": {"strategy": "time-slicing", "replicas": 4},
		},
		"instance_types": ["n1-standard-8"],
		# per-zone counts times two zones; desired = initial_node_count per zone
		"scaling": {"min_size": 2, "max_size": 6, "desired_size": 2},
		"capacity": {
			"spot_percentage": 100, "on_demand_base": 0, "reservation": null,
			"on_demand": {"min": 0, "max": 0, "desired": 0}, "spot": {"min": 2, "max": 6, "desired": 2},
		},
		"taints": [gpu_taint],
		"labels": gke_after.node_config[0].labels,
		"tags": gke_after.node_config[0].resource_labels,
		"waivers": {},
		"assumptions": [],
	}
}

test_gke_zonal_fixed_gpu_machine if {
	# a3-highgpu-1g without guest_accelerator in the config: GKE computes it.
	after := json.patch(gke_after, [
		{"op": "replace", "path": "/location", "value": "us-central1-c"},
		{"op": "remove", "path": "/node_locations"},
		{"op": "remove", "path": "/autoscaling/0"},
		{"op": "replace", "path": "/node_config/0/machine_type", "value": "a3-highgpu-1g"},
		{"op": "remove", "path": "/node_config/0/guest_accelerator"},
		{"op": "replace", "path": "/node_config/0/spot", "value": false},
		{"op": "add", "path": "/node_count", "value": 3},
	])
	change := with_unknown(rc("google_container_node_pool", after), {"node_locations": true, "node_config": [{"guest_accelerator": true}]})
	[doc] := pool_docs with input as plan([change]) with data.gpufleet.catalog as fx.catalog
	doc.region == "us-central1"
	doc.zones == ["us-central1-c"]
	doc.gpu.model == "H100-80GB"
	doc.gpu.per_node == 1
	doc.gpu.slice_memory_gib == 80
	doc.gpu.sharing == null
	doc.scaling == {"min_size": 3, "max_size": 3, "desired_size": 3}
	doc.capacity.spot_percentage == 0
}

test_gke_mig_partition if {
	after := json.patch(gke_after, [
		{"op": "replace", "path": "/node_config/0/machine_type", "value": "a2-highgpu-1g"},
		{"op": "replace", "path": "/node_config/0/guest_accelerator/0", "value": {"count": 1, "type": "nvidia-tesla-a100", "gpu_partition_size": "1g.5gb", "gpu_sharing_config": []}},
	])
	[doc] := pool_docs with input as plan([rc("google_container_node_pool", after)]) with data.gpufleet.catalog as fx.catalog
	doc.gpu.model == "A100-40GB"
	doc.gpu.mig_profile == "1g.5gb"
	doc.gpu.slice_memory_gib == 5
	unknown := with_unknown(
		rc("google_container_node_pool", json.remove(after, ["node_config/0/guest_accelerator/0/gpu_partition_size"])),
		{"node_config": [{"guest_accelerator": [{"gpu_partition_size": true}]}]},
	)
	[u] := pool_docs with input as plan([unknown]) with data.gpufleet.catalog as fx.catalog
	u.gpu.slice_memory_gib == null
}

test_gke_reservation_total_limits_and_waivers if {
	after := json.patch(gke_after, [
		{"op": "replace", "path": "/autoscaling/0", "value": {"total_min_node_count": 0, "total_max_node_count": 5, "min_node_count": null, "max_node_count": null}},
		{"op": "add", "path": "/node_config/0/reservation_affinity/0", "value": {
			"consume_reservation_type": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name",
			"values": ["projects/shared-res/reservations/t4-pool"],
		}},
		{"op": "add", "path": "/node_config/0/resource_labels/gpufleet-waive-gf-iso-003", "value": "canary"},
		{"op": "replace", "path": "/node_config/0/spot", "value": false},
		{"op": "replace", "path": "/node_config/0/preemptible", "value": true},
	])
	[doc] := pool_docs with input as plan([rc("google_container_node_pool", after)]) with data.gpufleet.catalog as fx.catalog
	doc.scaling == {"min_size": 0, "max_size": 5, "desired_size": 2}
	doc.capacity.reservation == {"type": "specific", "id": null, "name": "t4-pool", "project": "shared-res"}
	doc.capacity.spot_percentage == 100 # preemptible
	doc.waivers == {"GF-ISO-003": "canary"}
}

test_gke_not_a_gpu_pool if {
	after := json.patch(gke_after, [
		{"op": "replace", "path": "/node_config/0/machine_type", "value": "e2-standard-4"},
		{"op": "replace", "path": "/node_config/0/guest_accelerator", "value": []},
	])
	documents.pools == [] with input as plan([rc("google_container_node_pool", after)]) with data.gpufleet.catalog as fx.catalog
}

test_gke_unknown_labels_and_location if {
	after := json.remove(gke_after, ["node_config/0/labels", "location", "node_locations"])
	change := with_unknown(rc("google_container_node_pool", after), {"location": true, "node_locations": true, "node_config": [{"labels": true}]})
	[doc] := pool_docs with input as plan([change]) with data.gpufleet.catalog as fx.catalog
	doc.client == "initech" # the gpufleet_client resource label
	doc.labels == null
	doc.region == null
	doc.zones == null
	doc.scaling == {"min_size": null, "max_size": null, "desired_size": null}
	doc.cost == {"hourly_usd": null, "monthly_usd": null}
}

test_eks_nvidia_ami_on_cpu_instance_types_is_not_a_gpu_pool if {
	cpu := object.union(eks_after, {"instance_types": ["m5.large", "c6i.xlarge"], "ami_type": "AL2023_x86_64_NVIDIA"})
	documents.pools == [] with input as plan([rc("aws_eks_node_group", cpu)]) with data.gpufleet.catalog as fx.catalog
}

test_eks_gpu_family_the_catalog_does_not_price if {
	new := object.union(eks_after, {"instance_types": ["m5.large", "p9.48xlarge"], "ami_type": "AL2023_x86_64_STANDARD"})
	[doc] := pool_docs with input as plan([rc("aws_eks_node_group", new)]) with data.gpufleet.catalog as fx.catalog
	doc.gpu.model == null
	doc.cost == {"hourly_usd": null, "monthly_usd": null}
}

test_eks_region_of_an_aliased_provider_passed_two_modules_down if {
	change := json.patch(rc("aws_eks_node_group", json.remove(eks_after, ["region"])), [
		{"op": "replace", "path": "/address", "value": "module.platform.module.gpu[\"a\"].aws_eks_node_group.x"},
		{"op": "add", "path": "/module_address", "value": "module.platform.module.gpu[\"a\"]"},
	])
	input_plan := object.union(plan([change]), {"configuration": {
		"provider_config": {
			"aws": {"name": "aws", "expressions": {"region": {"constant_value": "us-east-1"}}},
			"aws.eu": {"name": "aws", "alias": "eu", "expressions": {"region": {"constant_value": "eu-west-1"}}},
		},
		"root_module": {"module_calls": {"platform": {"module": {"module_calls": {"gpu": {"module": {
			"resources": [{"address": "aws_eks_node_group.x", "provider_config_key": "aws.eu"}],
		}}}}}}},
	}})
	[doc] := pool_docs with input as input_plan with data.gpufleet.catalog as fx.catalog
	doc.region == "eu-west-1"
}

# Module depth has no limit: the configuration is found from the module address (instance keys,
# dots in them included, are not part of the configuration's path).
test_eks_region_of_an_aliased_provider_eight_modules_down if {
	names := ["a", "b", "c", "d", "e", "f", "g", "h"]
	module_address := concat(".", [sprintf("module.%s[\"k.%d\"]", [n, i]) | some i, n in names])
	change := json.patch(rc("aws_eks_node_group", json.remove(eks_after, ["region"])), [
		{"op": "replace", "path": "/address", "value": concat(".", [module_address, "aws_eks_node_group.x"])},
		{"op": "add", "path": "/module_address", "value": module_address},
	])
	innermost := {"resources": [{"address": "aws_eks_node_group.x", "provider_config_key": "aws.eu"}]}
	opening := concat("", [sprintf(`{"module_calls": {%q: {"module": `, [n]) | some n in names])
	root := json.unmarshal(concat("", [opening, json.marshal(innermost), concat("", ["}}}" | some _ in names])]))
	input_plan := object.union(plan([change]), {"configuration": {
		"provider_config": {
			"aws": {"name": "aws", "expressions": {"region": {"constant_value": "us-east-1"}}},
			"aws.eu": {"name": "aws", "alias": "eu", "expressions": {"region": {"constant_value": "eu-west-1"}}},
		},
		"root_module": root,
	}})
	[doc] := pool_docs with input as input_plan with data.gpufleet.catalog as fx.catalog
	doc.region == "eu-west-1"
}

test_eks_instance_type_from_a_launch_template_in_the_plan if {
	group := with_unknown(rc("aws_eks_node_group", object.union(json.remove(eks_after, ["instance_types"]), {"ami_type": "CUSTOM", "launch_template": [{"name": null}]})), {"launch_template": [{"id": true}]})
	template := {
		"address": "aws_launch_template.gpu", "mode": "managed", "type": "aws_launch_template", "name": "gpu",
		"change": {"actions": ["create"], "after": {"instance_type": "p4d.24xlarge"}, "after_unknown": {"id": true}},
	}
	config := {"configuration": {"root_module": {"resources": [{
		"address": "aws_eks_node_group.x", "provider_config_key": "aws",
		"expressions": {"launch_template": [{"id": {"references": ["aws_launch_template.gpu.id", "aws_launch_template.gpu"]}}]},
	}]}}}
	[doc] := pool_docs with input as object.union(plan([group, template]), config) with data.gpufleet.catalog as fx.catalog
	doc.instance_types == ["p4d.24xlarge"]
	doc.gpu.model == "A100-40GB"
	documents.unjudged == [] with input as object.union(plan([group, template]), config) with data.gpufleet.catalog as fx.catalog

	# the template is not in the plan: not judged, and said so
	documents.pools == [] with input as object.union(plan([group]), config) with data.gpufleet.catalog as fx.catalog
	[[rule, address, _, _]] := documents.unjudged with input as object.union(plan([group]), config) with data.gpufleet.catalog as fx.catalog
	[rule, address] == ["GF-DATA-002", "aws_eks_node_group.x"]
}

test_gke_regional_pool_zones_from_the_cluster_or_assumed if {
	after := json.remove(gke_after, ["node_locations"])
	cluster := {
		"address": "google_container_cluster.ml", "mode": "managed", "type": "google_container_cluster", "name": "ml",
		"change": {"actions": ["create"], "after": {"name": "ml", "node_locations": ["us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f"]}, "after_unknown": {}},
	}
	[a] := pool_docs with input as plan([rc("google_container_node_pool", after), cluster]) with data.gpufleet.catalog as fx.catalog
	count(a.zones) == 4
	a.scaling == {"min_size": 4, "max_size": 12, "desired_size": 4}
	a.assumptions == []

	# no cluster in the plan: three zones, said as an assumption
	[b] := pool_docs with input as plan([rc("google_container_node_pool", after)]) with data.gpufleet.catalog as fx.catalog
	b.zones == []
	b.scaling == {"min_size": 3, "max_size": 9, "desired_size": 3}
	count(b.assumptions) == 1
	is_number(b.cost.monthly_usd)
}

# terraform-aws-modules/eks writes launch_template as a dynamic block, which the plan's configuration
# leaves out: the template is the one aws_launch_template of the node group's module instance.
test_eks_instance_type_from_the_template_of_a_dynamic_block if {
	module := "module.eks.module.eks_managed_node_group[\"h100\"]"
	group := object.union(
		with_unknown(rc("aws_eks_node_group", object.union(eks_after, {"instance_types": [], "ami_type": "AL2023_x86_64_NVIDIA", "launch_template": [{}]})), {"launch_template": [{"id": true}]}),
		{"address": concat(".", [module, "aws_eks_node_group.this[0]"]), "module_address": module, "name": "this", "index": 0},
	)
	template := {
		"address": concat(".", [module, "aws_launch_template.this[0]"]), "module_address": module, "index": 0,
		"mode": "managed", "type": "aws_launch_template", "name": "this",
		"change": {"actions": ["create"], "after": {"instance_type": "p4d.24xlarge"}, "after_unknown": {"id": true}},
	}
	config := {"configuration": {"root_module": {"module_calls": {"eks": {"module": {"module_calls": {"eks_managed_node_group": {"module": {"resources": [
		{"address": "aws_launch_template.this", "mode": "managed", "type": "aws_launch_template", "name": "this", "expressions": {}},
		{"address": "aws_eks_node_group.this", "mode": "managed", "type": "aws_eks_node_group", "name": "this", "expressions": {}},
	]}}}}}}}}}
	input_ := object.union(plan([group, template]), config)
	[doc] := pool_docs with input as input_ with data.gpufleet.catalog as fx.catalog
	doc.instance_types == ["p4d.24xlarge"]
	doc.gpu.model == "A100-40GB"
	documents.unjudged == [] with input as input_ with data.gpufleet.catalog as fx.catalog

	# the template is not in the plan: a GPU AMI makes it a GPU pool of unknown model, and one
	# GF-DATA-002 says what was missing
	[unknown_model] := pool_docs with input as object.union(plan([group]), config) with data.gpufleet.catalog as fx.catalog
	unknown_model.gpu.model == null
	[[rule, _, attribute, text]] := documents.unjudged with input as object.union(plan([group]), config) with data.gpufleet.catalog as fx.catalog
	[rule, attribute] == ["GF-DATA-002", "launch_template"]
	contains(text, "dynamic launch_template block")
	contains(text, "GPU pool of unknown GPU model")
}

# instance_types = [] (what the AWS provider stores) with a template that is not in the plan: said,
# not silently a non-GPU pool.
test_eks_empty_instance_types_and_a_template_not_in_the_plan if {
	group := with_unknown(rc("aws_eks_node_group", object.union(eks_after, {"instance_types": [], "ami_type": "CUSTOM", "launch_template": [{}]})), {"launch_template": [{"id": true}]})
	config := {"configuration": {"root_module": {"resources": [{
		"address": "aws_eks_node_group.x", "mode": "managed", "type": "aws_eks_node_group", "name": "x",
		"expressions": {"launch_template": [{"id": {"references": ["data.aws_launch_template.shared.id", "data.aws_launch_template.shared"]}}]},
	}]}}}
	documents.pools == [] with input as object.union(plan([group]), config) with data.gpufleet.catalog as fx.catalog
	[[_, _, _, text]] := documents.unjudged with input as object.union(plan([group]), config) with data.gpufleet.catalog as fx.catalog
	contains(text, "its launch template (id = data.aws_launch_template.shared.id in the configuration) is not in this plan")
}

test_eks_template_in_the_plan_with_an_unknown_instance_type if {
	group := with_unknown(rc("aws_eks_node_group", object.union(json.remove(eks_after, ["instance_types"]), {"ami_type": "CUSTOM", "launch_template": [{}]})), {"launch_template": [{"id": true}]})
	template := {
		"address": "aws_launch_template.late", "mode": "managed", "type": "aws_launch_template", "name": "late",
		"change": {"actions": ["create"], "after": {}, "after_unknown": {"id": true, "instance_type": true}},
	}
	config := {"configuration": {"root_module": {"resources": [{
		"address": "aws_eks_node_group.x", "mode": "managed", "type": "aws_eks_node_group", "name": "x",
		"expressions": {"launch_template": [{"id": {"references": ["aws_launch_template.late.id", "aws_launch_template.late"]}}]},
	}]}}}
	[[_, _, _, text]] := documents.unjudged with input as object.union(plan([group, template]), config) with data.gpufleet.catalog as fx.catalog
	contains(text, "the instance_type of its launch template aws_launch_template.late is unknown until apply")
}

# Accelerator-optimised machine families the catalog does not list (a3-edgegpu-8g, a4x-highgpu-4g)
# with guest_accelerator unknown are GPU pools of unknown model.
test_gke_accelerator_optimised_family_not_in_the_catalog if {
	after := json.remove(object.union(gke_after, {"node_config": [object.union(gke_after.node_config[0], {"machine_type": "a3-edgegpu-8g"})]}), ["node_config/0/guest_accelerator"])
	[doc] := pool_docs with input as plan([with_unknown(rc("google_container_node_pool", after), {"node_config": [{"guest_accelerator": true}]})]) with data.gpufleet.catalog as fx.catalog
	doc.gpu.model == null
	doc.instance_types == ["a3-edgegpu-8g"]
	every cpu in ["e2-standard-4", "g1-small", "c3-standard-8"] {
		pool_docs == [] with input as plan([rc("google_container_node_pool", object.union(after, {"node_config": [object.union(after.node_config[0], {"machine_type": cpu})]}))]) with data.gpufleet.catalog as fx.catalog
	}
}

# Two clusters of one name in different regions: a regional pool takes the zones of the cluster in
# its own location, and evaluation never aborts.
test_gke_clusters_of_one_name_in_two_regions if {
	after := json.remove(gke_after, ["node_locations"])
	[doc] := pool_docs with input as plan([
		gke_cluster("us", after.location, ["us-central1-a", "us-central1-b"]),
		gke_cluster("eu", "europe-west4", ["europe-west4-a", "europe-west4-b", "europe-west4-c", "europe-west4-d"]),
		rc("google_container_node_pool", after),
	])
		with data.gpufleet.catalog as fx.catalog
	doc.zones == ["us-central1-a", "us-central1-b"]
}

gke_cluster(name, location, zones) := {
	"address": concat(".", ["google_container_cluster", name]), "mode": "managed", "type": "google_container_cluster", "name": name,
	"change": {"actions": ["create"], "after": {"name": "ml", "location": location, "node_locations": zones}, "after_unknown": {}},
}

# Waiver tags whose rule ids differ only in case: the reason of the first key, never a conflict.
test_waiver_tags_differing_only_in_case if {
	documents.convention_waivers({"gpufleet-waive-gf-cost-002": "b", "gpufleet-waive-GF-COST-002": "a", "team": "x"}) == {"GF-COST-002": "a"}
}

# The fit's labels on an official resource: precision, GPUs per replica and replicas, judged by
# GF-RS-004 (bf16 on a T4) and GF-RS-005 (two production replicas on a node group of one node).
test_eks_fit_labels if {
	labels := {
		"gpufleet.io/client": "globex", "gpufleet.io/workload": "inference", "gpufleet.io/environment": "production",
		"gpufleet.io/gpu-memory-gib": "8", "gpufleet.io/precision": "bf16", "gpufleet.io/gpus-per-replica": "1", "gpufleet.io/replicas": "2",
	}
	after := json.patch(eks_after, [
		{"op": "replace", "path": "/labels", "value": labels},
		{"op": "replace", "path": "/instance_types", "value": ["g4dn.xlarge"]},
		{"op": "replace", "path": "/scaling_config", "value": [{"min_size": 1, "max_size": 1, "desired_size": 1}]},
	])
	[doc] := pool_docs with input as plan([rc("aws_eks_node_group", after)])
	doc.workload.precision == "bf16"
	doc.workload.gpus_per_replica == 1
	doc.workload.replicas == 2
	some d in data.gpufleet.rules.deny with input as doc
	d.rule == "GF-RS-004"
	some w in data.gpufleet.rules.warn with input as doc
	w.rule == "GF-RS-005"
}

# Node groups and node pools passed over before a builder is called: only those surely without
# GPUs. What the test cannot settle (no instance type, or one unknown; an accelerator, or none
# known) goes to the builder: with an NVIDIA AMI, no instance type makes a GPU pool.
test_cpu_node_groups_are_only_those_surely_without_gpus if {
	gke_nc := gke_after.node_config[0]
	changes := [
		object.union(rc("aws_eks_node_group", object.union(eks_after, {"instance_types": ["m6i.2xlarge"]})), {"address": "eks.cpu_one"}),
		object.union(rc("aws_eks_node_group", object.union(eks_after, {"instance_types": ["m6i.2xlarge", "c6i.xlarge"]})), {"address": "eks.cpu_several"}),
		object.union(rc("aws_eks_node_group", object.union(eks_after, {"instance_types": ["m6i.2xlarge", "g5.xlarge"]})), {"address": "eks.mixed"}),
		object.union(rc("aws_eks_node_group", object.union(eks_after, {"instance_types": []})), {"address": "eks.none"}),
		object.union(rc("aws_eks_node_group", object.union(eks_after, {"instance_types": ["m6i.2xlarge", null]})), {"address": "eks.unknown_element"}),
		object.union(rc("aws_eks_node_group", json.remove(eks_after, ["instance_types"])), {"address": "eks.unknown"}),
		object.union(rc("google_container_node_pool", object.union(gke_after, {"node_config": [object.union(gke_nc, {"machine_type": "n2-standard-8", "guest_accelerator": []})]})), {"address": "gke.cpu"}),
		object.union(rc("google_container_node_pool", object.union(gke_after, {"node_config": [object.union(gke_nc, {"machine_type": "n1-standard-8"})]})), {"address": "gke.n1_with_accelerator"}),
		object.union(rc("google_container_node_pool", object.union(gke_after, {"node_config": [object.union(gke_nc, {"machine_type": "a2-highgpu-1g", "guest_accelerator": []})]})), {"address": "gke.a2"}),
		object.union(rc("google_container_node_pool", object.union(gke_after, {"node_config": [object.union(gke_nc, {"machine_type": null, "guest_accelerator": []})]})), {"address": "gke.default_machine"}),
		object.union(rc("google_container_node_pool", json.remove(gke_after, ["node_config/0/guest_accelerator"])), {"address": "gke.accelerator_unknown"}),
	]
	documents.cpu_node_groups == {"eks.cpu_one", "gke.cpu"} with input as plan(changes) with data.gpufleet.catalog as fx.catalog

	# The builders decide the same without the test.
	pools := documents.pools with input as plan(changes) with data.gpufleet.catalog as fx.catalog
	pools == documents.pools with input as plan(changes) with data.gpufleet.catalog as fx.catalog with documents.cpu_node_groups as set()
	{address | some [address, _] in pools} == {"eks.mixed", "eks.none", "eks.unknown", "gke.n1_with_accelerator", "gke.a2"}
}

# Taint blocks kept as they are only when there is a list of them: a null taint is no taints.
test_null_taint_is_no_taints if {
	[eks] := pool_docs with input as plan([rc("aws_eks_node_group", object.union(eks_after, {"taint": null}))]) with data.gpufleet.catalog as fx.catalog
	eks.taints == []
	gke_nc := object.union(gke_after.node_config[0], {"taint": null})
	[gke] := pool_docs with input as plan([rc("google_container_node_pool", object.union(gke_after, {"node_config": [gke_nc]}))]) with data.gpufleet.catalog as fx.catalog
	gke.taints == []
}

# ---------------------------------------------------------------------------------------------
# Convention labels written the Kubernetes way
# ---------------------------------------------------------------------------------------------

# Names in any case and memory as Kubernetes quantities are read; before, "Production", "Inference"
# and "40Gi" were null, and the rules that need them never fired.
test_convention_labels_the_kubernetes_way if {
	labels := {
		"gpufleet.io/workload": "Inference", "gpufleet.io/environment": "PRODUCTION", "gpufleet.io/interruptible": "True",
		"gpufleet.io/gpu-memory-gib": "40Gi", "gpufleet.io/precision": "BF16", "gpufleet.io/replicas": "3",
		"gpufleet.io/kv-cache-gib": "16Gi",
	}
	documents.convention_workload(labels) == {
		"kind": "inference", "environment": "production", "gpu_memory_gib": 40, "interruptible": true,
		"precision": "bf16", "gpus_per_replica": null, "replicas": 3, "kv_cache_gib": 16,
	}
	documents.convention_unread(labels) == []
}

test_memory_quantities if {
	every value, gib in {
		"40": 40, "39.5": 39.5, "40Gi": 40, "40960Mi": 40, "41943040Ki": 40, "1Ti": 1024, "0.5Gi": 0.5,
		"40G": 37.252902984619140625, "40000M": 37.252902984619140625, "1T": 931.322574615478515625, "39.5G": 36.78724169731140137,
		"040Gi": 40, # a quantity as Kubernetes reads it
	} {
		abs(data.gpufleet.lib.memory_gib(value) - gib) < 0.000000001
	}

	# a number with a leading zero: OPA's to_number keeps "040" as a literal that is not JSON
	every value in ["40GB", "40GiB", "40gi", "40 Gi", "4e1", "-40", "40m", "Gi", "", "forty", "040", "00.5"] {
		not data.gpufleet.lib.memory_gib(value)
	}
	data.gpufleet.lib.num_label("07") == null
	data.gpufleet.lib.num_label("0.5") == 0.5
	json.marshal(documents.convention_workload({"gpufleet.io/gpu-memory-gib": "040"})) # writable as JSON
	documents.convention_unread({"gpufleet.io/gpu-memory-gib": "040", "gpufleet.io/model-parameters-billion": "07"}) == [
		["gpufleet.io/gpu-memory-gib", "040"], ["gpufleet.io/model-parameters-billion", "07"],
	]
}

# What cannot be read is null in the document and named in unread_labels, in the labels' order;
# an unreadable memory label is not replaced by the estimate from the model labels.
test_unreadable_convention_labels if {
	labels := {
		"gpufleet.io/workload": "serving", "gpufleet.io/environment": "prod", "gpufleet.io/interruptible": "yes",
		"gpufleet.io/gpu-memory-gib": "40GB", "gpufleet.io/precision": "bfloat16", "gpufleet.io/model-parameters-billion": "7B",
		"gpufleet.io/training-method": "LoRA", "gpufleet.io/gpus-per-replica": "two", "gpufleet.io/replicas": "3",
	}
	w := documents.convention_workload(labels)
	w == {"kind": null, "environment": null, "gpu_memory_gib": null, "interruptible": null, "precision": null, "gpus_per_replica": null, "replicas": 3, "kv_cache_gib": null}
	documents.convention_unread(labels) == [
		["gpufleet.io/workload", "serving"], ["gpufleet.io/environment", "prod"], ["gpufleet.io/gpu-memory-gib", "40GB"],
		["gpufleet.io/interruptible", "yes"], ["gpufleet.io/precision", "bfloat16"], ["gpufleet.io/model-parameters-billion", "7B"],
		["gpufleet.io/gpus-per-replica", "two"],
	]
	documents.convention_unread(null) == []

	# GPUs and replicas are counted: a fraction cannot be read (it reached OPA's %, which refuses one)
	halves := {"gpufleet.io/gpus-per-replica": "2.5", "gpufleet.io/replicas": "1.5"}
	documents.convention_workload(halves).gpus_per_replica == null
	documents.convention_workload(halves).replicas == null
	documents.convention_unread(halves) == [["gpufleet.io/gpus-per-replica", "2.5"], ["gpufleet.io/replicas", "1.5"]]

	# the estimate from the model labels, with names in any case; not when the method cannot be read
	model := {"gpufleet.io/workload": "Training", "gpufleet.io/model-parameters-billion": "7", "gpufleet.io/precision": "BF16", "gpufleet.io/training-method": "LoRA"}
	documents.convention_memory(model) == documents.convention_memory({"gpufleet.io/workload": "training", "gpufleet.io/model-parameters-billion": "7", "gpufleet.io/precision": "bf16", "gpufleet.io/training-method": "lora"})
	is_number(documents.convention_memory(model))
	documents.convention_memory(object.union(model, {"gpufleet.io/training-method": "dora"})) == null
	documents.convention_memory(object.union(model, {"gpufleet.io/gpu-memory-gib": "lots"})) == null
}

test_unread_labels_in_both_official_documents if {
	eks := json.patch(eks_after, [{"op": "add", "path": "/labels/gpufleet.io~1environment", "value": "Prod"}])
	[a] := pool_docs with input as plan([rc("aws_eks_node_group", eks)]) with data.gpufleet.catalog as fx.catalog
	a.unread_labels == [["gpufleet.io/environment", "Prod"]]
	a.workload.environment == null
	gke := json.patch(gke_after, [{"op": "add", "path": "/node_config/0/labels/gpufleet.io~1gpu-memory-gib", "value": "12.5GB"}])
	[b] := pool_docs with input as plan([rc("google_container_node_pool", gke)]) with data.gpufleet.catalog as fx.catalog
	b.unread_labels == [["gpufleet.io/gpu-memory-gib", "12.5GB"]]
	b.workload.gpu_memory_gib == null
}

# ---------------------------------------------------------------------------------------------
# Launch templates of for_each and count
# ---------------------------------------------------------------------------------------------

keyed_group(name, index, refs, extra) := {
	"change": object.union(rc("aws_eks_node_group", object.union(json.remove(eks_after, ["instance_types"]), {"ami_type": "AL2023_x86_64_NVIDIA", "launch_template": [{}]})), {
		"address": sprintf("aws_eks_node_group.%s[%s]", [name, json.marshal(index)]), "name": name, "index": index,
	}),
	"config": object.union(
		{
			"address": concat(".", ["aws_eks_node_group", name]), "mode": "managed", "type": "aws_eks_node_group", "name": name,
			"expressions": {"launch_template": [{"id": {"references": refs}}]},
		},
		extra,
	),
}

keyed_template(name, index, instance_type) := {
	"address": sprintf("aws_launch_template.%s[%s]", [name, json.marshal(index)]), "mode": "managed", "type": "aws_launch_template", "name": name, "index": index,
	"change": {"actions": ["create"], "after": {"instance_type": instance_type}, "after_unknown": {"id": true}},
}

# A node group takes the launch template of its own key: aws_launch_template.gpu[each.key].id
# (references [aws_launch_template.gpu, each.key]), [count.index], or each.value.id of a for_each
# over the templates. Before, each was GF-DATA-002 "not in this plan", and judged as a GPU pool of
# unknown model.
test_eks_templates_of_for_each_and_count if {
	groups := [
		keyed_group("gpu", "small", ["aws_launch_template.gpu", "each.key"], {}),
		keyed_group("gpu", "medium", ["aws_launch_template.gpu", "each.key"], {}),
		keyed_group("counted", 1, ["aws_launch_template.ltc", "count.index"], {}),
		keyed_group("by_template", "large", ["each.value.id", "each.value"], {"for_each_expression": {"references": ["aws_launch_template.gpu"]}}),
		keyed_group("picked", "x", ["aws_launch_template.gpu", "var.pick", "each.key"], {}),
	]
	templates := [keyed_template("gpu", "small", "g6.xlarge"), keyed_template("gpu", "large", "p4d.24xlarge"), keyed_template("ltc", 1, "g6.xlarge")]
	input_ := object.union(plan(array.concat([g.change | some g in groups], templates)), {"configuration": {"root_module": {"resources": [g.config | some g in groups]}}})
	types := {address: doc.instance_types | some [address, doc] in documents.pools} with input as input_ with data.gpufleet.catalog as fx.catalog
	types == {
		`aws_eks_node_group.gpu["small"]`: ["g6.xlarge"],
		"aws_eks_node_group.counted[1]": ["g6.xlarge"],
		`aws_eks_node_group.by_template["large"]`: ["p4d.24xlarge"],
		`aws_eks_node_group.gpu["medium"]`: null,
		`aws_eks_node_group.picked["x"]`: null,
	}
	unjudged := {address: text | some [_, address, _, text] in documents.unjudged} with input as input_ with data.gpufleet.catalog as fx.catalog
	count(unjudged) == 2
	contains(unjudged["aws_eks_node_group.gpu[\"medium\"]"], `its launch template (id = aws_launch_template.gpu["medium"] in the configuration) is not in this plan`)
	contains(unjudged["aws_eks_node_group.picked[\"x\"]"], "the configuration picks its launch template among the instances of aws_launch_template.gpu by var.pick, each.key (launch_template.id), which the plan does not resolve")
}
