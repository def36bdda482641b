package gpufleet.documents_kube_test

import data.gpufleet.documents

gpu_nodepool := {
	"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"},
	"spec": {
		"template": {
			"metadata": {"labels": {"gpufleet.io/client": "acme", "nvidia.com/device-plugin.config": "time-slicing-4"}},
			"spec": {
				"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
				"requirements": [
					{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
					{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6.xlarge"]},
					{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["eu-west-1a"]},
				],
			},
		},
		"limits": {"nvidia.com/gpu": "16"},
	},
}

node_class := {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"}, "spec": {"tags": {"gpufleet:cost-center": "cc-1"}}}

overlay := {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": "gpu"}, "spec": {
	"requirements": [{"key": "karpenter.sh/nodepool", "operator": "In", "values": ["gpu"]}],
	"capacity": {"nvidia.com/gpu": "4"},
}}

cpu_nodepool := {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "cpu"}, "spec": {"template": {"spec": {"requirements": [{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m"]}]}}}}

test_a_list_joins_the_node_class_and_overlay if {
	[[address, doc]] := documents.pools with input as {"apiVersion": "v1", "kind": "List", "items": [gpu_nodepool, node_class, overlay, cpu_nodepool]}
	address == "NodePool/gpu"
	doc.region == "eu-west-1"
	doc.gpu.model == "L4"
	doc.gpu.sharing == {"strategy": "time-slicing", "replicas": 4}
	doc.tags == {"gpufleet:cost-center": "cc-1"}
	doc.scaling.max_size == 4 # 16 advertised GPUs, 4 a node
	doc.capacity.spot_percentage == 100
	doc.autoscaler.node_class.found == true
	doc.autoscaler.advertised_gpus_per_node == 4
	is_number(doc.cost.monthly_usd)
}

test_one_object_alone_leaves_the_joins_unknown if {
	[[_, doc]] := documents.pools with input as gpu_nodepool
	doc.tags == null
	doc.client == "acme"
	doc.autoscaler.node_class.found == null
	doc.autoscaler.advertised_gpus_per_node == null
	doc.autoscaler.fallback_to == null
}

test_combined_files_join_across_files if {
	pools := documents.pools with input as [{"path": "a.yaml", "contents": gpu_nodepool}, {"path": "b.yaml", "contents": node_class}]
	[[_, doc]] := pools
	doc.autoscaler.node_class.found == true
	documents.kube_files == {"NodePool/gpu": "a.yaml"} with input as [{"path": "a.yaml", "contents": gpu_nodepool}, {"path": "b.yaml", "contents": node_class}]
}

test_plan_kubernetes_manifest_and_kubectl_manifest if {
	plan := {"format_version": "1.2", "planned_values": {}, "resource_changes": [
		{"address": "kubernetes_manifest.gpu", "mode": "managed", "type": "kubernetes_manifest", "change": {"actions": ["create"], "after": {"manifest": gpu_nodepool}}},
		{"address": "kubectl_manifest.class", "mode": "managed", "type": "kubectl_manifest", "change": {"actions": ["create"], "after": {"yaml_body": yaml.marshal(node_class)}}},
	]}
	[[address, doc]] := documents.pools with input as plan
	address == "kubernetes_manifest.gpu"
	doc.address == "kubernetes_manifest.gpu"
	doc.autoscaler.node_class.found == true
	doc.tags == {"gpufleet:cost-center": "cc-1"}
}

test_cpu_nodepools_and_other_kinds_are_no_pools if {
	documents.pools == [] with input as [cpu_nodepool, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}, null]
}

test_computeclass if {
	class := {"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": {"name": "l4"}, "spec": {
		"priorities": [
			{"machineType": "g2-standard-8", "gpu": {"type": "nvidia-l4", "count": 1}, "reservations": {"affinity": "Specific", "specific": [{"name": "r", "zones": ["europe-west4-a"]}]}},
			{"machineType": "g2-standard-8", "gpu": {"type": "nvidia-l4", "count": 1}, "spot": true},
		],
		"nodePoolConfig": {"nodeLabels": {"gpufleet.io/client": "globex"}},
		"whenUnsatisfiable": "DoNotScaleUp",
	}}
	[[address, doc]] := documents.pools with input as class
	address == "ComputeClass/l4"
	doc.cloud == "gcp"
	doc.region == "europe-west4"
	doc.gpu.model == "L4"
	doc.capacity.spot_percentage == 100
	doc.capacity.reservation.type == "specific"
	doc.client == "globex"
}

# A ComputeClass has no tags to carry a client: without the label its client is "" (GF-TAG-001),
# not unknown, even judged alone.
test_computeclass_without_client_label if {
	class := {"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": {"name": "l4"}, "spec": {
		"priorities": [{"machineType": "g2-standard-8", "gpu": {"type": "nvidia-l4", "count": 1}}],
		"nodePoolConfig": {"nodeLabels": {"gpufleet.io/workload": "inference"}},
	}}
	[[_, doc]] := documents.pools with input as class
	doc.client == ""
	doc.tags == null
}

# The overlays are looked up by the NodePool names their karpenter.sh/nodepool requirement admits;
# an overlay without one is tried on every NodePool: the same overlays select a NodePool as when each
# is tried on it.
test_overlays_select_by_nodepool_name_or_labels if {
	other := json.patch(overlay, [
		{"op": "replace", "path": "/metadata/name", "value": "other"},
		{"op": "replace", "path": "/spec/requirements/0/values", "value": ["cpu", "gpu-b"]},
		{"op": "replace", "path": "/spec/capacity/nvidia.com~1gpu", "value": "8"},
	])
	by_label := json.patch(overlay, [
		{"op": "replace", "path": "/metadata/name", "value": "by-label"},
		{"op": "replace", "path": "/spec/requirements", "value": [{"key": "gpufleet.io/client", "operator": "In", "values": ["acme"]}]},
		{"op": "replace", "path": "/spec/capacity/nvidia.com~1gpu", "value": "2"},
	])
	named_too := json.patch(overlay, [
		{"op": "replace", "path": "/metadata/name", "value": "named-too"},
		{"op": "replace", "path": "/spec/requirements/0/values", "value": ["cpu", "gpu"]},
		{"op": "replace", "path": "/spec/capacity/nvidia.com~1gpu", "value": "3"},
	])
	advertised(other) == 1 # names other NodePools only: the L4's own GPU
	advertised(by_label) == 2
	advertised(named_too) == 3
	advertised([other, by_label]) == 2
	advertised([other, by_label, named_too, overlay]) == 3 # Karpenter's order: equal weights, the name later in the alphabet
	heavy := json.patch(overlay, [{"op": "add", "path": "/spec/weight", "value": 10}])
	advertised([other, by_label, named_too, heavy]) == 4 # the highest weight, whatever its capacity
	advertised([json.patch(heavy, [{"op": "replace", "path": "/spec/capacity/nvidia.com~1gpu", "value": "1"}]), named_too]) == 1
	b := json.patch(gpu_nodepool, [{"op": "replace", "path": "/metadata/name", "value": "gpu-b"}])
	docs := {a: d | some [a, d] in documents.pools} with input as {"apiVersion": "v1", "kind": "List", "items": [gpu_nodepool, b, node_class, other, named_too]}
	docs["NodePool/gpu"].autoscaler.advertised_gpus_per_node == 3
	docs["NodePool/gpu-b"].autoscaler.advertised_gpus_per_node == 8
}

advertised(overlays) := doc.autoscaler.advertised_gpus_per_node if {
	[[_, doc]] := documents.pools with input as {"apiVersion": "v1", "kind": "List", "items": array.concat([gpu_nodepool, node_class], _arr(overlays))}
}

_arr(x) := x if is_array(x)

else := [x]

# A spot-only NodePool's fallbacks (GF-AS-002) are the on-demand-only NodePools of its node class,
# GPU requirements and labels weighted at most as high, looked up by those.
test_fallbacks_of_a_spot_nodepool if {
	spot := json.patch(gpu_nodepool, [{"op": "add", "path": "/spec/weight", "value": 50}])
	od := json.patch(spot, [
		{"op": "replace", "path": "/metadata/name", "value": "od"},
		{"op": "replace", "path": "/spec/template/spec/requirements/0/values", "value": ["on-demand"]},
		{"op": "replace", "path": "/spec/weight", "value": 10},
	])
	od_heavier := json.patch(od, [{"op": "replace", "path": "/metadata/name", "value": "od-heavier"}, {"op": "replace", "path": "/spec/weight", "value": 90}])
	od_other_labels := json.patch(od, [{"op": "replace", "path": "/metadata/name", "value": "od-other"}, {"op": "add", "path": "/spec/template/metadata/labels/team", "value": "x"}])
	od_other_type := json.patch(od, [{"op": "replace", "path": "/metadata/name", "value": "od-g5"}, {"op": "replace", "path": "/spec/template/spec/requirements/1/values", "value": ["g5.xlarge"]}])
	od_static := json.patch(od, [{"op": "replace", "path": "/metadata/name", "value": "od-static"}, {"op": "add", "path": "/spec/replicas", "value": 2}])
	od_too := json.patch(od, [{"op": "replace", "path": "/metadata/name", "value": "od-too"}])
	docs := {a: d | some [a, d] in documents.pools} with input as {"apiVersion": "v1", "kind": "List", "items": [spot, od, od_heavier, od_other_labels, od_other_type, od_static, od_too, node_class]}
	docs["NodePool/gpu"].autoscaler.fallback_to == ["od", "od-too"]
	docs["NodePool/od"].autoscaler.fallback_to == []
}

# Under the GPU Operator's mixed MIG strategy the nodes advertise nvidia.com/mig-<profile> and no
# nvidia.com/gpu (gpufleet_karpenter_node_pool's mig_strategy = "mixed" renders such limits): the
# slices' limits are the NodePool's GPU limit.
test_mixed_mig_limits_are_the_gpu_limit if {
	mixed := json.patch(gpu_nodepool, [{"op": "replace", "path": "/spec/limits", "value": {"nodes": "2", "nvidia.com/mig-3g.40gb": "32", "nvidia.com/mig-1g.10gb": "8"}}])
	[[_, doc]] := documents.pools with input as mixed
	doc.autoscaler.gpu_limit == 40
}

# Limits and an overlay's capacity are Kubernetes quantities, read as the API server reads them (the
# CRDs take "16.0", "1k" or "500m" as well as 16 and "16"); a string that is no quantity, or one in
# micro or nano units, is no limit.
test_limits_are_quantities if {
	every pair in [["16", 16], [16, 16], ["16.0", 16], ["+16", 16], ["16.", 16], ["1k", 1000], ["2Ki", 2048], ["1e1", 10], ["1E", 1e18], ["500m", 0.5], [".5", 0.5]] {
		[q, want] := pair
		[[_, doc]] := documents.pools with input as json.patch(gpu_nodepool, [{"op": "replace", "path": "/spec/limits", "value": {"nvidia.com/gpu": q}}])
		doc.autoscaler.gpu_limit == want
	}
	every q in ["16 GPUs", "1K", "1u", "1e", "sixteen", "", true] {
		[[_, doc]] := documents.pools with input as json.patch(gpu_nodepool, [{"op": "replace", "path": "/spec/limits", "value": {"nodes": "4", "nvidia.com/gpu": q}}])
		doc.autoscaler.gpu_limit == null
	}
	[[_, doc]] := documents.pools with input as {"apiVersion": "v1", "kind": "List", "items": [
		json.patch(gpu_nodepool, [{"op": "replace", "path": "/spec/limits", "value": {"nvidia.com/gpu": "1.6e1"}}]),
		node_class, json.patch(overlay, [{"op": "replace", "path": "/spec/capacity", "value": {"nvidia.com/gpu": "4.0"}}]),
	]}
	doc.autoscaler.advertised_gpus_per_node == 4
	doc.scaling.max_size == 4
}

# Objects declared more than once (several clusters' directories combined, a base and its patch):
# each NodePool, ComputeClass or node class of one kind and name with its files, sorted; other
# kinds, objects of other names and a plan's resources are not.
test_duplicate_objects if {
	clusters := [
		{"path": "clusters/us/gpu.yaml", "contents": gpu_nodepool},
		{"path": "clusters/eu/gpu.yaml", "contents": gpu_nodepool},
		{"path": "clusters/eu/gpu.yaml", "contents": node_class},
		{"path": "clusters/us/gpu.yaml", "contents": node_class},
		{"path": "clusters/us/overlay.yaml", "contents": overlay},
		{"path": "clusters/eu/overlay.yaml", "contents": overlay},
		{"path": "clusters/eu/cpu.yaml", "contents": cpu_nodepool},
	]
	documents.duplicate_objects == [
		["EC2NodeClass/gpu", ["clusters/eu/gpu.yaml", "clusters/us/gpu.yaml"]],
		["NodePool/gpu", ["clusters/eu/gpu.yaml", "clusters/us/gpu.yaml"]],
	] with input as clusters
	documents.duplicate_objects == [["NodePool/gpu", ["-", "-"]]] with input as [{"path": "-", "contents": [gpu_nodepool, cpu_nodepool, gpu_nodepool]}]
	documents.duplicate_objects == [] with input as [{"path": "a.yaml", "contents": [gpu_nodepool, node_class, overlay, cpu_nodepool]}]
	documents.duplicate_objects == [] with input as {"format_version": "1.2", "planned_values": {}, "resource_changes": [
		{"address": "kubernetes_manifest.us", "mode": "managed", "type": "kubernetes_manifest", "change": {"actions": ["create"], "after": {"manifest": gpu_nodepool}}},
		{"address": "kubernetes_manifest.eu", "mode": "managed", "type": "kubernetes_manifest", "change": {"actions": ["create"], "after": {"manifest": gpu_nodepool}}},
	]}
}

# A NodePool of the given requirements (and no taint nor limit): its document, alone.
_np_alone(reqs) := doc if {
	np := json.patch(gpu_nodepool, [
		{"op": "replace", "path": "/spec/template/spec/requirements", "value": reqs},
		{"op": "remove", "path": "/spec/limits"},
	])
	[[_, doc]] := documents.pools with input as np
}

_count_req(op, values) := {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": op, "values": values}

# "Any GPU" as teams write it: every instance-gpu-* requirement but NotIn, DoesNotExist and
# instance-gpu-count In [0] selects GPU instances, which alone carry those labels.
test_gpu_nodepools_by_any_gpu_requirement if {
	_np_alone([_count_req("Gt", ["0"])])
	_np_alone([_count_req("Gte", ["1"])])
	_np_alone([_count_req("Exists", [])])
	_np_alone([_count_req("Lte", ["2"])])
	_np_alone([{"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "Gte", "values": ["40000"]}])
	not _np_alone([{"key": "eks.amazonaws.com/instance-gpu-name", "operator": "Exists"}]) # another prefix than the node class's
	not _np_alone([_count_req("In", ["0"])])
	not _np_alone([_count_req("NotIn", ["0"])])
	not _np_alone([_count_req("DoesNotExist", [])])
}

# Gte and Lte bound the candidate instance types as Gt and Lt do.
test_gte_and_lte_bound_the_instance_types if {
	doc := _np_alone([
		{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["l4"]},
		_count_req("Lte", ["1"]),
	])
	count(doc.instance_types) > 0
	every t in doc.instance_types {
		data.gpufleet.catalog.aws_instance_types[t].gpu_count == 1
	}
	doc.gpu.per_node == 1
	big := _np_alone([{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["l4"]}, _count_req("Gte", ["8"])])
	every t in big.instance_types {
		data.gpufleet.catalog.aws_instance_types[t].gpu_count >= 8
	}
	big.gpu.per_node == 8
}

# Without a karpenter.sh/capacity-type requirement Karpenter launches spot first: the NodePool's
# capacity types are all it admits. Reserved is one only where the requirement names it or the
# node class selects reservations.
test_capacity_types_as_karpenter_launches_them if {
	no_requirement := _np_alone([_count_req("Gt", ["0"])])
	no_requirement.autoscaler.capacity_types == ["on-demand", "spot"]
	no_requirement.capacity.spot_percentage == 100
	no_requirement.capacity.reservation == null
	not_spot := _np_alone([_count_req("Gt", ["0"]), {"key": "karpenter.sh/capacity-type", "operator": "NotIn", "values": ["spot"]}])
	not_spot.autoscaler.capacity_types == ["on-demand"]
	named := _np_alone([_count_req("Gt", ["0"]), {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved", "on-demand"]}])
	named.autoscaler.capacity_types == ["on-demand", "reserved"]
	with_terms := json.patch(node_class, [{"op": "add", "path": "/spec/capacityReservationSelectorTerms", "value": [{"id": "cr-0123456789abcdef0"}]}])
	np := json.patch(gpu_nodepool, [{"op": "remove", "path": "/spec/template/spec/requirements/0"}])
	[[_, selected]] := documents.pools with input as [np, with_terms]
	selected.autoscaler.capacity_types == ["on-demand", "reserved", "spot"]
	selected.capacity.reservation.type == "capacity-reservation"
}

# Consolidation is off for a NodePool whose consolidateAfter is Never, a static NodePool, and nodes
# the template annotates karpenter.sh/do-not-disrupt: "true"; expiry is not.
test_disruption_that_never_consolidates if {
	never := json.patch(gpu_nodepool, [{"op": "add", "path": "/spec/disruption", "value": {"consolidateAfter": "Never"}}])
	static := json.patch(gpu_nodepool, [{"op": "add", "path": "/spec/replicas", "value": 2}])
	pinned := json.patch(gpu_nodepool, [{"op": "add", "path": "/spec/template/metadata/annotations", "value": {"karpenter.sh/do-not-disrupt": "true"}}])
	every np in [never, static, pinned] {
		[[_, doc]] := documents.pools with input as np
		doc.autoscaler.disruption.consolidates_busy_nodes == false
		doc.autoscaler.disruption.expire_after == "720h"
	}
	[[_, defaults]] := documents.pools with input as gpu_nodepool
	defaults.autoscaler.disruption.consolidates_busy_nodes == true
}

_class(spec) := {"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": {"name": "c"}, "spec": spec}

_l4 := {"machineType": "g2-standard-8", "gpu": {"type": "nvidia-l4", "count": 1}}

# A priority without a location takes spec.priorityDefaults.location: the class's zones and region.
test_computeclass_priority_defaults_location if {
	[[_, doc]] := documents.pools with input as _class({"priorities": [_l4], "priorityDefaults": {"location": {"zones": ["us-central1-a", "us-central1-b"]}}})
	doc.zones == ["us-central1-a", "us-central1-b"]
	doc.region == "us-central1"
	[[_, own]] := documents.pools with input as _class({"priorities": [object.union(_l4, {"location": {"zones": ["europe-west4-a"]}})], "priorityDefaults": {"location": {"zones": ["us-central1-a"]}}})
	own.region == "europe-west4"
}

# Labels and taints every GPU priority adds to its nodes are the class's; one that a single priority
# adds is not on every GPU node.
test_computeclass_priority_labels_and_taints if {
	tainted := object.union(_l4, {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}], "nodeLabels": {"gpufleet.io/environment": "production"}})
	[[_, doc]] := documents.pools with input as _class({"priorities": [tainted, object.union(tainted, {"spot": true})]})
	doc.taints == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]
	doc.workload.environment == "production"
	[[_, partly]] := documents.pools with input as _class({"priorities": [tainted, _l4]})
	partly.taints == []
	partly.workload.environment == null
}

# CPU priorities say nothing of the GPU nodes: not their spot, zones or reservation.
test_computeclass_cpu_priorities_apart if {
	cpu := {"machineFamily": "n4", "spot": true, "location": {"zones": ["us-east1-b"]}, "reservations": {"affinity": "AnyBestEffort"}}
	[[_, doc]] := documents.pools with input as _class({"priorities": [object.union(_l4, {"location": {"zones": ["europe-west4-a"]}}), cpu]})
	doc.capacity.spot_percentage == 0
	doc.capacity.reservation == null
	doc.zones == ["europe-west4-a"]
}

# A machine family's GPU is the catalog's when the family has one model (g2: L4), unknown otherwise
# (a2: A100 40 and 80 GB); an unknown GPU priority makes the class's model unknown.
test_computeclass_machine_family_gpu if {
	[[_, g2]] := documents.pools with input as _class({"priorities": [{"machineFamily": "g2"}]})
	g2.gpu.model == "L4"
	g2.gpu.per_node == null
	[[_, mixed]] := documents.pools with input as _class({"priorities": [{"machineType": "a2-ultragpu-1g"}, {"machineFamily": "a2"}]})
	mixed.gpu.model == null
	[[_, unlisted]] := documents.pools with input as _class({"priorities": [_l4, {"machineType": "g2-standard-999"}]})
	unlisted.gpu.model == null
}

# Reservations with affinity None are not consumed: no reservation, and flex-start beside them is
# not GF-AS-006's trap.
test_computeclass_affinity_none if {
	flex := object.union(_l4, {"flexStart": {"enabled": true}, "reservations": {"affinity": "None"}})
	[[_, doc]] := documents.pools with input as _class({"priorities": [flex]})
	doc.capacity.reservation == null
	not "GF-AS-006" in {f.rule | some f in data.gpufleet.rules.deny with input as doc}
}

# GPU sharing and MIG partitions of the priorities' gpu.gpuSharing, when every GPU priority has the
# same.
test_computeclass_gpu_sharing if {
	shared := object.union(_l4, {"gpu": {"gpuSharing": {"sharingStrategy": "TIME_SHARING", "maxSharedClientsPerGPU": 4}}})
	[[_, doc]] := documents.pools with input as _class({"priorities": [shared]})
	doc.gpu.sharing == {"strategy": "time-slicing", "replicas": 4}
	[[_, mig]] := documents.pools with input as _class({"priorities": [{"machineType": "a2-highgpu-1g", "gpu": {"type": "nvidia-tesla-a100", "count": 1, "gpuSharing": {"gpuPartitionSize": "1g.5gb"}}}]})
	mig.gpu.mig_profile == "1g.5gb"
	mig.gpu.slice_memory_gib < mig.gpu.memory_gib
	[[_, apart]] := documents.pools with input as _class({"priorities": [shared, _l4]})
	apart.gpu.sharing == null
}

# g1-small is a shared-core CPU machine type, not a GPU one.
test_computeclass_g1_is_no_gpu if {
	count(documents.pools) == 0 with input as _class({"priorities": [{"machineType": "g1-small"}, {"machineFamily": "e2"}]})
}

# An overlay reaches the NodePool's nodes as Karpenter matches it with each instance type: one for
# instance types the NodePool does not launch advertises nothing on its nodes, nor one on a custom
# label its template does not set; one that admits all its instance types does.
test_overlays_match_instance_types_and_labels if {
	on := func_overlay([{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6.xlarge", "g6.2xlarge"]}])
	advertised(on) == 4
	advertised(func_overlay([{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6.12xlarge"]}])) == 1
	advertised(func_overlay([{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["l4"]}])) == 4
	advertised(func_overlay([{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["a10g"]}])) == 1
	advertised(func_overlay([{"key": "example.com/team", "operator": "In", "values": ["ml"]}])) == 1
	advertised(func_overlay([{"key": "example.com/team", "operator": "DoesNotExist"}])) == 4
	advertised(func_overlay([{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["eu-west-1a"]}])) == 4
}

func_overlay(reqs) := json.patch(overlay, [{"op": "replace", "path": "/spec/requirements", "value": reqs}])

# GF-DATA-002 on autoscaler objects: what a GPU NodePool's In requirements name that the catalog does
# not know, and the ComputeClass priorities of a GPU model it cannot tell.
with_requirements(reqs) := json.patch(gpu_nodepool, [{"op": "replace", "path": "/spec/template/spec/requirements", "value": reqs}])

test_unjudged_nodepool_of_a_family_the_catalog_does_not_know if {
	some_known := with_requirements([{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6", "g9x"]}])
	[[rule, address, attribute, text]] := documents.unjudged with input as some_known
	rule == "GF-DATA-002"
	address == "NodePool/gpu"
	attribute == "spec.template.spec.requirements"
	startswith(text, "its requirements admit instance family g9x, which the gpufleet catalog does not know, so the GPU memory, right-sizing and cost checks judged only the catalog's instance types it admits")

	none_known := with_requirements([{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g9x"]}])
	[[_, _, _, alone]] := documents.unjudged with input as none_known
	contains(alone, "so the gpufleet rules judged it as a GPU pool of unknown GPU model")

	# named instance types: those Karpenter may launch (a CPU type is not named)
	types := with_requirements([{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g9x.xlarge", "g6.xlarge", "m5.large"]}])
	[[_, _, _, named]] := documents.unjudged with input as types
	startswith(named, "its requirements admit instance type g9x.xlarge, which")

	# GPU names, when neither instance types nor families are named; strings only
	gpu_names := with_requirements([{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["l4", "rtx9000", 1, {"a": 1}]}])
	[[_, _, _, by_name]] := documents.unjudged with input as gpu_names
	startswith(by_name, "its requirements admit GPU rtx9000, which")

	# Auto Mode's keys
	auto := json.patch(with_requirements([{"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g9x"]}]), [{"op": "replace", "path": "/spec/template/spec/nodeClassRef", "value": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"}}])
	[[_, auto_address, _, _]] := documents.unjudged with input as auto
	auto_address == "NodePool/gpu"
}

test_unjudged_nothing_the_catalog_knows_or_karpenter_launches if {
	documents.unjudged == [] with input as gpu_nodepool
	documents.unjudged == [] with input as with_requirements([{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6", "p6-b200"]}])

	# NotIn names no node type Karpenter launches, and excludes what an In names
	documents.unjudged == [] with input as with_requirements([{"key": "karpenter.k8s.aws/instance-family", "operator": "NotIn", "values": ["g9x"]}])
	documents.unjudged == [] with input as with_requirements([
		{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6", "g9x"]},
		{"key": "karpenter.k8s.aws/instance-family", "operator": "NotIn", "values": ["g9x"]},
	])

	# the instance types it names are all it launches: families and GPU names only narrow them
	documents.unjudged == [] with input as with_requirements([
		{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6.xlarge"]},
		{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6", "g9x"]},
		{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["rtx9000"]},
	])
	documents.unjudged == [] with input as with_requirements([
		{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g9x.xlarge", "g6.xlarge"]},
		{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6"]},
	])
	documents.unjudged == [] with input as with_requirements([
		{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6"]},
		{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["l4", "rtx9000"]},
	])

	# a CPU NodePool: its families are no GPU shapes
	documents.unjudged == [] with input as cpu_nodepool
}

test_gpu_shapes_of_a_hyphen if {
	every v in ["p6-b200", "p6-b200.48xlarge", "p6e-gb200", "p6e-gb200.36xlarge", "g6e.xlarge", "gr6", "p5", "g", "p"] {
		documents._gpu_shape(v)
	}
	every v in ["m5.large", "inf2", "trn1.32xlarge", "c7i", "m7g-x", "g1-small", "gpu-a", "p4d-24xlarge"] {
		not documents._gpu_shape(v)
	}

	# a B200 NodePool named by its instance type, without the GPU taint or limit, is a GPU pool
	b200 := json.patch(with_requirements([{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p6-b200.48xlarge"]}]), [{"op": "remove", "path": "/spec/limits"}])
	[[_, doc]] := documents.pools with input as b200
	doc.gpu.model == "B200"
}

test_unjudged_computeclass_priorities if {
	cc := {"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": {"name": "serve"}, "spec": {"priorities": [
		{"machineFamily": "g4", "gpu": {"type": "nvidia-rtx-pro-6000", "count": 1}},
		{"machineFamily": "g2", "gpu": {"type": "nvidia-l4", "count": 1}},
		{"machineFamily": "n2"},
		{"machineFamily": "a2"},
		{"machineType": "a3-edgegpu-8g"},
	]}}
	[[rule, address, attribute, text]] := documents.unjudged with input as cc
	rule == "GF-DATA-002"
	address == "ComputeClass/serve"
	attribute == "spec.priorities"
	startswith(text, "the gpufleet catalog cannot tell the GPU model of priority 1 (gpu.type nvidia-rtx-pro-6000), priority 4 (machineFamily a2), priority 5 (machineType a3-edgegpu-8g), so the class's GPU model is unknown")

	known := json.patch(cc, [{"op": "replace", "path": "/spec/priorities", "value": [{"machineFamily": "g2", "gpu": {"type": "nvidia-l4", "count": 1}}, {"machineType": "a2-highgpu-1g"}]}])
	documents.unjudged == [] with input as known
}
