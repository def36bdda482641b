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
	advertised([other, by_label, named_too, overlay]) == 4
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
