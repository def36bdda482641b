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
