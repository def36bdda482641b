# conftest entry point (conftest's default namespace, main):
#
#   terraform show -json plan.out > plan.json
#   conftest test --policy policies --data policy-data.yaml plan.json
#   conftest test --combine --policy policies --data policy-data.yaml plans/*.json   # one run, many plans
#
# deny -> failures, warn -> warnings. Results are objects; conftest prints their msg and keeps
# rule, address, attribute and severity as metadata (conftest --output json).
#
# Every pool document of the plan is judged on its own, by the rules the provider runs on each
# pool (data.gpufleet.rules, with the pool's document as input), and reported under its plan
# address with the waiver handling of findings.rego. The rules are called directly, not through
# data.gpufleet.findings: every extra rule layer would be evaluated again for every pool.
#
# What the input is, is decided in gpufleet/inputs.rego: one plan or documents file (judged by
# _plan_deny and _plan_warn as it is), conftest --combine's array of files (each plan or documents
# file judged on its own, with input as that file, its findings naming the file), and what is not a
# plan (GF-INPUT-001, per file).
package main

import data.gpufleet.documents
import data.gpufleet.findings
import data.gpufleet.inputs
import data.gpufleet.lib
import data.gpufleet.rules

# One plan or documents file, or the objects of one YAML document: its findings as they are. (Not
# combined: the input is the file.)
deny contains _in_pool_file(f) if {
	not inputs.passed_over
	not inputs.combined
	some f in _plan_deny
}

warn contains _in_pool_file(f) if {
	not inputs.passed_over
	not inputs.combined
	some f in _plan_warn
}

# A documents file of manifests (gpufleet-policy documents over YAML files) names the file of each
# NodePool and ComputeClass: their findings name it, as conftest --combine's on the files do. (In
# the rules above, not rules of their own: conftest counts deny and warn rules as its tests.)
_in_pool_file(f) := inputs.in_file(f, documents.pool_files[f.address]) if {
	is_string(documents.pool_files[f.address])
} else := f

# conftest --combine: every plan and documents file judged on its own, as if it were the input
# (GF-COST-004's budget is per plan, as in a run over that file alone), its findings naming it.
deny contains inputs.in_file(g, path) if {
	inputs.combined
	some [path, doc, kind] in inputs.classified
	kind in {"plan", "documents"}
	some f in _plan_deny with input as doc
	g := _in_pool_file(f) with input as doc # a documents file of manifests: the manifest's file too
}

warn contains inputs.in_file(g, path) if {
	inputs.combined
	some [path, doc, kind] in inputs.classified
	kind in {"plan", "documents"}
	some f in _plan_warn with input as doc
	g := _in_pool_file(f) with input as doc
}

# conftest --combine over Kubernetes manifests: the objects of every file are judged together (a
# NodePool, its node class and its NodeOverlay may be in three files, as kubectl apply -f DIR
# would apply them), each finding naming the file of the NodePool or ComputeClass it is about.
deny contains _in_kube_file(f) if {
	inputs.combined
	count(documents.kube_files) > 0
	some f in _plan_deny
}

warn contains _in_kube_file(f) if {
	inputs.combined
	count(documents.kube_files) > 0
	some f in _plan_warn
}

_in_kube_file(f) := inputs.in_file(f, documents.kube_files[f.address]) if {
	documents.kube_files[f.address]
} else := f

# Input that is not a Terraform plan nor a documents file (state, {}, another format, a string, a
# number, an array that is not conftest --combine's): one clear failure per such file instead of
# passing checks.
deny contains f if {
	not inputs.passed_over
	some f in _input_failures
}

_input_failures contains _input_failure(path, why) if some [path, why] in inputs.not_judged

# Manifests that declare one NodePool, ComputeClass or node class several times (GF-INPUT-003):
# several clusters' objects, or a base and its patch, judged together. gpufleet-policy documents
# refuses them in the same words (plandoc.ReadManifests).
_input_failures contains f if {
	some [address, files] in documents.duplicate_objects
	why := sprintf("%s is declared %d times (%s): a cluster holds one object of a kind and name, so these are several clusters' objects or a base and its patch, whose node classes and files are mixed up when judged together; judge each cluster's manifests on their own, as kubectl applies them: one conftest run per cluster directory, or kustomize build | conftest test --combine -", [address, count(files), concat(", ", files)])
	finding := {
		"msg": sprintf("GF-INPUT-003: %s: %s", [files[0], why]),
		"rule": "GF-INPUT-003",
		"address": address,
		"attribute": "metadata.name",
		"severity": "deny",
	}
	f := _combined_file(finding, files[0])
}

# A finding about a file names it in its metadata too when conftest combines files.
_combined_file(f, path) := f if not inputs.combined

else := object.union(f, {"file": path})

_input_failure(path, why) := _combined_file(_input_finding(path, why), path)

_input_finding(path, why) := {
	"msg": sprintf("GF-INPUT-001: %s: %s; run conftest on the JSON of a plan: terraform show -json plan.out > plan.json", [path, why]),
	"rule": "GF-INPUT-001",
	"address": "",
	"attribute": "",
	"severity": "deny",
}

# The findings of the plan or documents file in input.

# GF-COST-004 judges a pool against its client's total over the plan: the totals are computed once,
# over the plan, and pinned while each pool is judged. (Inside `with input as doc` OPA evaluates
# every rule a pool's rules refer to again. The catalog is not pinned: its tables are decoded by key
# (catalog.rego), so a pool's rules decode the few entries they read, which costs less than
# decoding every table whole in each of conftest's two queries, BenchmarkConftestManifests.)
_plan_deny contains findings.judged_deny(f, doc, address) if {
	totals := rules.client_totals
	some [address, doc] in documents.pools
	some f in rules.deny with input as doc with rules.client_totals as totals
}

_plan_warn contains findings.judged_warn(f, doc, address) if {
	some [address, doc] in documents.pools
	some f in rules.warn with input as doc
	findings.well_formed(f) # a malformed result is a deny (below)
}

# A warn rule whose result is malformed fails the run, as a deny rule's does (GF-RULE-001), so a
# broken custom rule never passes as a warning. Only a team's own rules can be malformed: with
# data.gpufleet.rules.own_warn_rules_only pinned to true, the bundle's own warn rules stop at their one guard
# (rules/bundle.rego), so this costs a plan without custom rules about 5 µs a pool.
_plan_deny contains findings.malformed(f, address) if {
	some [address, doc] in documents.pools
	some f in rules.warn with input as doc with data.gpufleet.rules.own_warn_rules_only as true
	not findings.well_formed(f)
}

# Only pools with waivers have their deny rules evaluated here, and their waivers checked; not those
# whose waivers all name rules that only warn (lib.rules_that_only_warn) or cannot be waived
# (lib.non_waivable): no deny of theirs can be waived.
_plan_warn contains findings.waived(f, address, reason, doc.resource_type) if {
	some [address, doc] in _waiving_pools
	_may_waive_a_deny(doc.waivers)
	totals := rules.client_totals
	some f in rules.deny with input as doc with rules.client_totals as totals
	reason := findings.waiver(doc, f)
}

_plan_warn contains f if {
	some [address, doc] in _waiving_pools
	some f in findings.ineffective_waivers(doc, address)
}

# The pools with waivers, found in one pass for the two rules above (most pools have none).
_waiving_pools := [[address, doc] |
	some [address, doc] in documents.pools
	doc.waivers != {}
]

_may_waive_a_deny(waivers) if {
	some rule, _ in waivers
	not upper(rule) in lib.rules_that_only_warn
	not upper(rule) in lib.non_waivable
}

_plan_warn contains findings.inactive_registry if {
	not lib.has_registry
	count(documents.pools) > 0
}

# GF-DATA-003: a pool whose region is not in the plan (null: an AWS provider whose region comes only
# from the environment, AWS_REGION or a profile, or a location known at apply only). Residency and
# the cost estimates cannot judge it: said once, as a warning, never silently. (A check of the plan:
# the provider itself knows its region.)
_plan_warn contains {
	"msg": sprintf("GF-DATA-003: %s: %s", [address, object.get(documents.no_region_texts, doc.resource_type, documents.no_region_text)]),
	"rule": "GF-DATA-003",
	"address": address,
	"attribute": lib.official_attribute(doc.resource_type, {"aws": "region", "gcp": "location"}[doc.cloud]),
	"severity": "warn",
} if {
	some [address, doc] in documents.pools
	doc.region == null
}

# GF-DATA-004: a gpufleet.io/* convention label of an official resource whose value the builders
# cannot read ("prod", "40GB", "yes"): its workload field is null, so the rules that need it could
# not judge the pool by it. Said, never a silent null. (Most pools have none: one step each.)
_plan_warn contains {
	"msg": sprintf("GF-DATA-004: %s: the label %s = %s is not a value the bundle reads (%s), so the pool's %s is unknown and the rules that need it could not judge the pool; set %s", [
		address, key, json.marshal(value), documents.convention_forms[key][1], documents.convention_forms[key][0], documents.convention_forms[key][2],
	]),
	"rule": "GF-DATA-004",
	"address": address,
	"attribute": sprintf(_label_attributes[doc.resource_type], [json.marshal(key)]),
	"severity": "warn",
} if {
	some [address, doc] in documents.pools
	some [key, value] in doc.unread_labels
}

_label_attributes := {
	"aws_eks_node_group": "labels[%s]",
	"google_container_node_pool": "node_config[0].labels[%s]",
	"NodePool": "spec.template.metadata.labels[%s]",
	"ComputeClass": "spec.nodePoolConfig.nodeLabels[%s]",
}

# Official resources the bundle could not judge (documents.unjudged): said once, never silent.
_plan_warn contains {
	"msg": sprintf("%s: %s: %s", [rule, address, text]),
	"rule": rule,
	"address": address,
	"attribute": attribute,
	"severity": "warn",
} if {
	some [rule, address, attribute, text] in documents.unjudged
}
