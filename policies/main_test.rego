package main_test

import data.gpufleet.documents_test as dt
import data.gpufleet.fixtures as fx
import data.gpufleet.lib
import data.main

input_rules(plan) := rules if {
	rules := {[f.rule, f.severity] | some f in (main.deny | main.warn)} with input as plan
}

test_state_is_not_a_plan if {
	state := {"format_version": "1.0", "terraform_version": "1.11.4", "values": {"root_module": {}}}
	input_rules(state) == {["GF-INPUT-001", "deny"]}
	[f] := [f | some f in main.deny] with input as state
	f.msg == "GF-INPUT-001: input: the input is Terraform state (terraform show -json without a plan file), not a plan; run conftest on the JSON of a plan: terraform show -json plan.out > plan.json"
}

test_empty_object_and_other_formats_are_not_plans if {
	input_rules({}) == {["GF-INPUT-001", "deny"]}
	input_rules({"format_version": "2.0", "resource_changes": []}) == {["GF-INPUT-001", "deny"]}
	input_rules({"format_version": "1.2"}) == {["GF-INPUT-001", "deny"]}
	[f] := [f | some f in main.deny] with input as {"format_version": "2.0", "resource_changes": []}
		with data.conftest.file.name as "plan.json"
	startswith(f.msg, `GF-INPUT-001: plan.json: the plan's format_version "2.0" is not one this bundle knows (1.x)`)
}

test_plans_are_plans if {
	input_rules({"format_version": "1.2", "planned_values": {}}) == set()
	input_rules({"format_version": "1.1", "resource_changes": []}) == set()
}

test_data003_region_not_in_the_plan if {
	doc := {"resource_type": "gpufleet_eks_node_pool", "cloud": "aws", "region": null, "waivers": {}}
	fs := [f | some f in main.warn; f.rule == "GF-DATA-003"] with input as {"format_version": "1.2", "resource_changes": []}
		with data.gpufleet.documents.pools as [["p", doc], ["q", object.union(doc, {"region": "us-east-1"})]]
	[f] := fs
	f.address == "p"
	f.attribute == "region"
	contains(f.msg, "could not judge this pool")
}

# Pools that break every rule of lib.rules_that_only_warn (and many others): none of those rules denies,
# and a waiver of a deny is still reported when another waiver names a warn-only rule.
pools_that_only_warn := [
	fx.pool({"workload": {"kind": "training", "interruptible": true}, "capacity": {"spot_percentage": 0}}),
	fx.pool({"workload": {"interruptible": false}, "scaling": {"max_size": 4}, "capacity": {"spot_percentage": 50, "on_demand_base": 0}}),
	fx.pool({"workload": {"kind": "inference", "gpu_memory_gib": 4}, "gpu": {"model": "H100-80GB", "class": "training", "memory_gib": 80, "slice_memory_gib": 80}, "instance_types": ["p5.48xlarge"], "region": "us-east-1"}),
	fx.pool({"workload": {"environment": "production"}, "capacity": {"spot_percentage": 50, "on_demand_base": 0}, "taints": []}),
	fx.pool({"workload": {"environment": "production", "replicas": 3}, "scaling": {"min_size": 1, "max_size": 1, "desired_size": 1}}),
	fx.pool({"autoscaler": {"kind": "NodePool", "weight": 100, "fallback_to": ["gpu-od"], "static": false, "gpu_limit": 8, "capacity_types": ["spot"]}}),
]

# The fixture pools observed idle (GF-RS-006).
idle_test_pool := {"pools": {"test": {"selector": `{gpufleet_pool="test"}`, "window": "14d", "step": "5m", "end_time": "2026-11-20T00:00:00Z", "utilization_p95_percent": 5, "idle_gpu_hours": 300}}}

# Pools judged with the generated catalog (the fit needs its fit_model and node types): GF-RS-007.
pools_that_only_warn_real_catalog := [fx.pool({"workload": {"gpu_memory_gib": 20}})]

test_warn_only_rules_never_deny if {
	warned := {f.rule | some doc in pools_that_only_warn; some f in data.gpufleet.rules.warn with input as doc with data.gpufleet.catalog as fx.catalog with data.gpufleet.utilization as idle_test_pool}
	warned_real := {f.rule | some doc in pools_that_only_warn_real_catalog; some f in data.gpufleet.rules.warn with input as doc}
	lib.rules_that_only_warn - (warned | warned_real) == set()
	denied := {f.rule | some doc in pools_that_only_warn; some f in data.gpufleet.rules.deny with input as doc with data.gpufleet.catalog as fx.catalog with data.gpufleet.utilization as idle_test_pool}
	denied_real := {f.rule | some doc in pools_that_only_warn_real_catalog; some f in data.gpufleet.rules.deny with input as doc}
	count((denied | denied_real) & lib.rules_that_only_warn) == 0
	count(denied) > 0
}

test_waived_deny_beside_a_warn_only_waiver if {
	doc := object.union(pools_that_only_warn[3], {"waivers": {"GF-COST-001": "canary", "GF-RS-002": "benchmark"}})
	fs := [f | some f in main.warn; f.rule == "GF-COST-001"] with input as {"format_version": "1.2", "resource_changes": []}
		with data.gpufleet.documents.pools as [["p", doc]]
	[f] := fs
	endswith(f.msg, "(waived: canary)")
	only_warn_waivers := object.union(pools_that_only_warn[3], {"waivers": {"GF-RS-002": "benchmark"}})
	count([f | some f in main.warn; f.rule == "GF-COST-001"]) == 0 with input as {"format_version": "1.2", "resource_changes": []}
		with data.gpufleet.documents.pools as [["p", only_warn_waivers]]
}

# ---------------------------------------------------------------------------------------------
# Documents files (gpufleet-policy documents): the plan's pools, built once, read as they are
# ---------------------------------------------------------------------------------------------

# A plan with an EKS GPU node group (a finding to waive, a client over budget), a GKE node pool,
# and a node group the bundle cannot judge (its launch template is not in the plan).
documents_plan := dt.plan([
	dt.rc("aws_eks_node_group", dt.eks_after),
	object.union(dt.rc("google_container_node_pool", dt.gke_after), {"address": "google_container_node_pool.y", "name": "y"}),
	object.union(dt.rc("aws_eks_node_group", {"ami_type": "CUSTOM", "instance_types": null, "launch_template": [{"id": "lt-1"}]}), {"address": "aws_eks_node_group.lt", "name": "lt"}),
])

documents_clients := {
	"globex": {"cost_center": "cc-2002", "allowed_regions": ["eu-*"], "isolation": "dedicated", "monthly_budget_usd": 1},
	"initech": {"cost_center": "cc-3003", "allowed_regions": ["us-*"], "isolation": "shared"},
}

# What gpufleet-policy documents writes for documents_plan (the Go builders give these documents;
# internal/plandoc's TestDocuments_sameAsTheBundle checks that they are the bundle's).
documents_file := {
	"gpufleet_pool_documents": {"version": 1, "plan_format_version": "1.2", "terraform_version": "1.11.4"},
	"pools": pools,
	"unjudged": unjudged,
} if {
	pools := data.gpufleet.documents.pools with input as documents_plan with data.gpufleet.catalog as fx.catalog
	unjudged := data.gpufleet.documents.unjudged with input as documents_plan with data.gpufleet.catalog as fx.catalog
}

test_documents_file_gets_the_plans_findings if {
	count(documents_file.pools) == 2
	count(documents_file.unjudged) == 1
	deny := main.deny with input as documents_plan with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
	warn := main.warn with input as documents_plan with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog

	# GF-RS-001: the GKE pool time-shares a 16 GiB T4 between 4 replicas of 12.5 GiB (issue #22's fit)
	{f.rule | some f in deny} == {"GF-DR-001", "GF-ISO-002", "GF-COST-004", "GF-RS-001"}
	{f.rule | some f in warn} >= {"GF-DATA-002"}
	deny == main.deny with input as documents_file with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
	warn == main.warn with input as documents_file with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
}

# gpufleet-policy documents writes each pool's fit at the catalog's default headroom: where the
# policy data sets another, the fits are dropped and the rules compute them at that headroom, so a
# pool that fits at 5 % and not at 30 % is GF-RS-001's in both pipelines.
test_documents_file_fits_at_another_headroom if {
	[[address, doc]] := [p | some p in documents_file.pools; p[1].cloud == "aws"]
	doc.workload.gpu_memory_gib == 30 # on an A100 40GB: 38 GiB usable at 5 %, 28 at 30 %
	file := json.patch(documents_file, [{"op": "replace", "path": "/pools", "value": [[address, object.union(doc, {"fit": {"fits": true, "headroom_percent": 5}})]]}])
	rs001(main.deny) == set() with input as file with data.gpufleet.catalog as fx.catalog
	rs001(main.deny) == {address} with input as file with data.gpufleet.catalog as fx.catalog
		with data.gpufleet.thresholds.memory_headroom_percent as 30
	data.gpufleet.documents.pools[0][1].fit with input as file with data.gpufleet.catalog as fx.catalog
	not data.gpufleet.documents.pools[0][1].fit with input as file with data.gpufleet.catalog as fx.catalog
		with data.gpufleet.thresholds.memory_headroom_percent as 30

	# What is not a document stays as it is (no builtin error on it).
	odd := json.patch(file, [{"op": "add", "path": "/pools/-", "value": ["x", "not a document"]}])
	data.gpufleet.documents.pools[1] == ["x", "not a document"] with input as odd with data.gpufleet.catalog as fx.catalog
		with data.gpufleet.thresholds.memory_headroom_percent as 30
}

rs001(fs) := {f.address | some f in fs; f.rule == "GF-RS-001"}

test_documents_file_of_another_version_is_refused if {
	other := json.patch(documents_file, [{"op": "replace", "path": "/gpufleet_pool_documents/version", "value": 2}])
	input_rules(other) == {["GF-INPUT-001", "deny"]}
	[f] := [f | some f in main.deny] with input as other
	contains(f.msg, "(version 2) this bundle does not read (version 1)")
	data.gpufleet.documents.pools == [] with input as other
}

test_documents_file_is_a_plan if {
	data.gpufleet.inputs.kind(documents_file) == "documents"
	data.gpufleet.documents.whole_plan with input as documents_file
	not data.gpufleet.documents.whole_plan with input as fx.doc
}

test_wrong_namespace_on_a_documents_file if {
	data.gpufleet.findings.deny_plan == {lib.wrong_namespace} with input as documents_file
	data.gpufleet.rules.deny_plan == {lib.wrong_namespace} with input as documents_file
}

# ---------------------------------------------------------------------------------------------
# What is not a plan, and conftest --combine (inputs.rego)
# ---------------------------------------------------------------------------------------------

# Every JSON value that is not an object is refused with what it is; before, none was (an array,
# a string or a number passed with no finding at all).
test_values_that_are_not_objects_are_not_plans if {
	every value in [42, "plan.json", [1, 2], [], null, true, [{"format_version": "1.2", "resource_changes": []}]] {
		input_rules(value) == {["GF-INPUT-001", "deny"]}
	}
	[f] := [f | some f in main.deny] with input as 42 with data.conftest.file.name as "plan.json"
	f.msg == "GF-INPUT-001: plan.json: the input is a JSON number, not the JSON object of a Terraform plan; run conftest on the JSON of a plan: terraform show -json plan.out > plan.json"
	[g] := [f | some f in main.deny] with input as [1, 2]
	startswith(g.msg, "GF-INPUT-001: input: the input is a JSON array, not the JSON object of a Terraform plan")
}

# conftest test --combine a.json b.json … gives [{"path", "contents"}, …].
combine(files) := [{"path": path, "contents": contents} | some path, contents in files]

combined_plans := combine({
	"plans/eu/plan.json": documents_plan,
	"plans/empty/plan.json": {"format_version": "1.2", "planned_values": {}},
	"plans/state.json": {"format_version": "1.0", "values": {"root_module": {}}},
	"plans/note.json": "not a plan",
})

# Every plan of a combined input is judged as it is alone, its findings naming its file; what is not a
# plan is a GF-INPUT-001 failure naming its file; GF-DATA-001 (no policy data) is said once.
test_combined_plans_are_each_judged if {
	alone_deny := main.deny with input as documents_plan with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
	alone_warn := main.warn with input as documents_plan with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
	deny := main.deny with input as combined_plans with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
	warn := main.warn with input as combined_plans with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
	count(alone_deny) > 0
	{f | some f in deny; f.rule != "GF-INPUT-001"} == {data.gpufleet.inputs.in_file(f, "plans/eu/plan.json") | some f in alone_deny}
	warn == {data.gpufleet.inputs.in_file(f, "plans/eu/plan.json") | some f in alone_warn}
	{[f.file, f.address] | some f in deny; f.rule == "GF-INPUT-001"} == {["plans/state.json", ""], ["plans/note.json", ""]}
	some f in deny
	f.rule == "GF-DR-001"
	f.file == "plans/eu/plan.json"
	startswith(f.msg, "GF-DR-001: plans/eu/plan.json: aws_eks_node_group.x: ")
	some g in deny
	g.file == "plans/note.json"
	g.msg == "GF-INPUT-001: plans/note.json: the input is a JSON string, not the JSON object of a Terraform plan; run conftest on the JSON of a plan: terraform show -json plan.out > plan.json"
	[d] := [d | some d in main.warn; d.rule == "GF-DATA-001"] with input as combine({"a.json": documents_plan, "b.json": documents_plan})
		with data.gpufleet.catalog as fx.catalog
	not d.file
}

# Documents files (gpufleet-policy documents of each plan) combined give the plans' findings; a plan
# and its documents file side by side give each finding twice, once per file.
test_combined_documents_files if {
	by_plan := main.deny with input as combine({"a.json": documents_plan}) with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
	by_file := main.deny with input as combine({"a.json": documents_file}) with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
	count(by_plan) > 0
	by_plan == by_file
	both := main.deny with input as combine({"a.json": documents_plan, "b.json": documents_file}) with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
	count(both) == 2 * count(by_plan)
}

# A documents file of manifests names each pool's file (gpufleet-policy documents over YAML files):
# its findings name it as conftest --combine's on the files do, the other findings are as they are;
# combined, a finding names the documents file, then the manifest's.
test_documents_file_of_manifests_names_their_files if {
	some [address, _] in documents_file.pools
	named := object.union(documents_file, {"files": {address: "clusters/ml/gpu.yaml"}})
	plain := main.deny with input as documents_file with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
	deny := main.deny with input as named with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
	count(deny) == count(plain)
	count({f | some f in plain; f.address == address}) > 0
	{f | some f in plain; f.address != address} == {f | some f in deny; f.address != address}
	{f | some f in deny; f.address == address} == {data.gpufleet.inputs.in_file(f, "clusters/ml/gpu.yaml") | some f in plain; f.address == address}
	some f in deny
	f.address == address
	f.file == "clusters/ml/gpu.yaml"
	startswith(f.msg, concat("", [f.rule, ": clusters/ml/gpu.yaml: "]))
	combined := main.deny with input as combine({"pools.json": named}) with data.gpufleet.clients as documents_clients with data.gpufleet.catalog as fx.catalog
	{g.msg | some g in combined; g.address == address} == {concat("", [g.rule, ": pools.json: ", trim_prefix(g.msg, concat("", [g.rule, ": "]))]) | some g in deny; g.address == address}
}

test_wrong_namespace_on_a_combined_input if {
	data.gpufleet.rules.deny_plan == {lib.wrong_namespace} with input as combined_plans
	data.gpufleet.findings.deny_plan == {lib.wrong_namespace} with input as combined_plans
}

test_what_an_input_is if {
	data.gpufleet.inputs.kind(documents_plan) == "plan"
	data.gpufleet.inputs.kind(documents_file) == "documents"
	data.gpufleet.inputs.kind({"format_version": "1.0", "values": {}}) == "other"
	data.gpufleet.inputs.kind("x") == "other"
	data.gpufleet.inputs.combined with input as combined_plans
	not data.gpufleet.inputs.combined with input as [{"path": "a.json"}]
	not data.gpufleet.inputs.combined with input as []
	not data.gpufleet.inputs.combined with input as documents_plan
}

# A combined input's entries that are Kubernetes objects of a kind no builder reads are passed over
# (inputs._to_classify); every other entry is classified, in the input's order: a builder's kind, a
# List, a kind or apiVersion that is not a string or is missing, a documents file whatever it holds,
# an empty YAML document.
test_classified_passes_over_only_objects_no_builder_reads if {
	entries := [
		{"path": "a.yaml", "contents": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a"}}},
		{"path": "b.yaml", "contents": {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "b"}}},
		{"path": "c.yaml", "contents": {"apiVersion": "v1", "kind": "List", "items": []}},
		{"path": "d.yaml", "contents": {"apiVersion": "v1", "kind": 5}},
		{"path": "e.yaml", "contents": {"apiVersion": 1, "kind": "Service"}},
		{"path": "f.yaml", "contents": {"kind": "ConfigMap"}},
		{"path": "g.json", "contents": object.union(documents_file, {"apiVersion": "v1", "kind": "ConfigMap"})},
		{"path": "h.yaml", "contents": null},
		{"path": "i.json", "contents": documents_plan},
		{"path": "j.yaml", "contents": {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "j"}}},
		{"path": "k.json", "contents": object.union(documents_file, {"apiVersion": "karpenter.sh/v1", "kind": "NodePool"})},
	]
	got := [[path, kind] | some [path, _, kind] in data.gpufleet.inputs.classified] with input as entries
	got == [
		["b.yaml", "manifests"], ["c.yaml", "manifests"], ["d.yaml", "other"], ["e.yaml", "other"],
		["f.yaml", "other"], ["g.json", "documents"], ["h.yaml", "other"], ["i.json", "plan"],
		["k.json", "documents"],
	]
}

# One YAML document of a kind no builder reads (conftest without --combine) is passed over before
# any rule is evaluated, and only such a document: each one passed over is Kubernetes objects
# (inputs.kind) of which no builder reads any (documents.kube_objects), so nothing it holds goes
# unjudged; a builder's kind, a List, a kind or apiVersion that is not a string or is missing, and a
# documents file or a plan are not passed over.
test_single_object_no_builder_reads_is_passed_over if {
	deployment := {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a"}}
	data.gpufleet.inputs.passed_over with input as deployment
	main.deny == set() with input as deployment
	main.warn == set() with input as deployment
	every doc in [
		{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "b"}},
		{"apiVersion": "cloud.google.com/v1", "kind": "ComputeClass", "metadata": {"name": "b"}},
		{"apiVersion": "v1", "kind": "List", "items": [deployment]},
		{"apiVersion": "v1", "kind": 5},
		{"apiVersion": 1, "kind": "Service"},
		{"kind": "ConfigMap"},
		object.union(documents_file, {"apiVersion": "v1", "kind": "ConfigMap"}),
		documents_plan,
		[deployment],
		null,
	] {
		not data.gpufleet.inputs.passed_over with input as doc
	}
	every doc in [deployment, {"apiVersion": "v1", "kind": "Service", "spec": {}}, {"apiVersion": "v1", "kind": "NodePoolish"}] {
		data.gpufleet.inputs.passed_over with input as doc
		data.gpufleet.inputs.kind(doc) == "manifests"
		count(data.gpufleet.documents.kube_objects) == 0 with input as doc
	}
}

# ---------------------------------------------------------------------------------------------
# Convention labels written the Kubernetes way (GF-DATA-004 for what cannot be read)
# ---------------------------------------------------------------------------------------------

# The issue's node group: production inference on spot whose 40Gi need does not fit an L4 (24 GB,
# one per g6.xlarge). Before, "Production", "Inference" and "40Gi" were null: neither GF-COST-001
# nor GF-RS-001 fired.
test_kubernetes_way_labels_are_judged if {
	after := object.union(dt.eks_after, {"capacity_type": "SPOT", "instance_types": ["g6.xlarge"], "labels": {
		"gpufleet.io/client": "globex", "gpufleet.io/workload": "Inference", "gpufleet.io/environment": "Production",
		"gpufleet.io/gpu-memory-gib": "40Gi", "gpufleet.io/interruptible": "False",
	}})
	deny := main.deny with input as dt.plan([dt.rc("aws_eks_node_group", after)])
	{f.rule | some f in deny} >= {"GF-COST-001", "GF-RS-001"}
	warn := main.warn with input as dt.plan([dt.rc("aws_eks_node_group", after)])
	count([f | some f in warn; f.rule == "GF-DATA-004"]) == 0
}

test_unreadable_label_is_a_data_finding if {
	eks := object.union(dt.eks_after, {"labels": object.union(dt.eks_after.labels, {"gpufleet.io/environment": "prod", "gpufleet.io/gpu-memory-gib": "40GB"})})
	gke := json.patch(dt.gke_after, [{"op": "add", "path": "/node_config/0/labels/gpufleet.io~1interruptible", "value": "yes"}])
	plan := dt.plan([dt.rc("aws_eks_node_group", eks), object.union(dt.rc("google_container_node_pool", gke), {"address": "google_container_node_pool.y"})])
	fs := {[f.address, f.attribute, f.msg] | some f in main.warn; f.rule == "GF-DATA-004"} with input as plan with data.gpufleet.catalog as fx.catalog
	fs == {
		["aws_eks_node_group.x", `labels["gpufleet.io/environment"]`, `GF-DATA-004: aws_eks_node_group.x: the label gpufleet.io/environment = "prod" is not a value the bundle reads (production, staging or development, in any case), so the pool's workload environment is unknown and the rules that need it could not judge the pool; set one of those`],
		["aws_eks_node_group.x", `labels["gpufleet.io/gpu-memory-gib"]`, `GF-DATA-004: aws_eks_node_group.x: the label gpufleet.io/gpu-memory-gib = "40GB" is not a value the bundle reads (a number of GiB such as 40 or 39.5, or a Kubernetes quantity of bytes such as 40Gi or 40G (10^9 bytes: 37.25 GiB)), so the pool's GPU memory need is unknown and the rules that need it could not judge the pool; set the GiB one replica needs`],
		["google_container_node_pool.y", `node_config[0].labels["gpufleet.io/interruptible"]`, `GF-DATA-004: google_container_node_pool.y: the label gpufleet.io/interruptible = "yes" is not a value the bundle reads (true or false, in any case), so the pool's workload interruptibility is unknown and the rules that need it could not judge the pool; set true or false`],
	}
}

# GF-INPUT-003: one failure per object declared more than once, naming its first file and all of
# them; with one NodePool per cluster directory, none.
test_objects_declared_twice_fail_gf_input_003 if {
	np := {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"}, "spec": {"template": {"spec": {"requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6.xlarge"]}]}}}}
	deny := main.deny with input as combine({"clusters/us/gpu.yaml": np, "clusters/eu/gpu.yaml": np})
	[f] := [f | some f in deny; f.rule == "GF-INPUT-003"]
	f == {
		"msg": "GF-INPUT-003: clusters/eu/gpu.yaml: NodePool/gpu is declared 2 times (clusters/eu/gpu.yaml, clusters/us/gpu.yaml): a cluster holds one object of a kind and name, so these are several clusters' objects or a base and its patch, whose node classes and files are mixed up when judged together; judge each cluster's manifests on their own, as kubectl applies them: one conftest run per cluster directory, or kustomize build | conftest test --combine -",
		"rule": "GF-INPUT-003",
		"address": "NodePool/gpu",
		"attribute": "metadata.name",
		"severity": "deny",
		"file": "clusters/eu/gpu.yaml",
	}
	alone := main.deny with input as [np, np]
	[g] := [g | some g in alone; g.rule == "GF-INPUT-003"]
	not g.file
	one := main.deny with input as combine({"clusters/us/gpu.yaml": np})
	count(one) > 0
	every h in one {
		h.rule != "GF-INPUT-003"
	}
}
