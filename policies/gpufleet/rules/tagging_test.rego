package gpufleet.rules.tagging_test

import data.gpufleet.findings
import data.gpufleet.fixtures as fx

test_tag001_no_client if {
	fs := fx.of(findings.deny, "GF-TAG-001") with input as fx.pool({"client": ""})
	count(fs) == 1
	some f in fs
	f.severity == "deny"
	f.attribute == "client"
	startswith(f.msg, "GF-TAG-001: gpufleet_eks_node_pool.test: the pool has no client")
}

test_tag001_client_not_registered if {
	fs := fx.of(findings.deny, "GF-TAG-001") with input as fx.pool({"client": "umbrella"})
		with data.gpufleet.clients as fx.clients
	count(fs) == 1
	some f in fs
	f.attribute == "client"
	contains(f.msg, `client "umbrella" is not in the policy data's client registry`)
}

test_tag001_cost_center_missing if {
	fs := fx.of(findings.deny, "GF-TAG-001") with input as fx.pool({"tags": {"gpufleet:cost-center": null}})
		with data.gpufleet.clients as fx.clients
	some f in fs
	f.attribute == "tags"
	contains(f.msg, `client "acme" has cost centre "cc-1001" but the pool's gpufleet:cost-center tag is missing`)
}

test_tag001_cost_center_wrong if {
	fs := fx.of(findings.deny, "GF-TAG-001") with input as fx.pool({"tags": {"gpufleet:cost-center": "cc-9999"}})
		with data.gpufleet.clients as fx.clients
	some f in fs
	contains(f.msg, `tag is "cc-9999"`)
}

test_tag001_compliant if {
	count(fx.of(findings.deny, "GF-TAG-001")) == 0 with input as fx.doc
		with data.gpufleet.clients as fx.clients

	# GKE resource labels: gpufleet_cost-center, lower case
	gke := fx.pool({"cloud": "gcp", "tags": {"gpufleet_client": "acme", "gpufleet_cost-center": "CC-1001"}})
	count(fx.of(findings.deny, "GF-TAG-001")) == 0 with input as gke
		with data.gpufleet.clients as fx.clients
}

test_tag001_without_policy_data_only_the_missing_client if {
	count(fx.of(findings.deny, "GF-TAG-001")) == 0 with input as fx.pool({"client": "umbrella", "tags": {}})
	count(fx.of(findings.deny, "GF-TAG-001")) == 1 with input as fx.pool({"client": ""})
}

test_tag001_unknown if {
	count(fx.of(findings.deny, "GF-TAG-001")) == 0 with input as fx.pool({"client": null})
		with data.gpufleet.clients as fx.clients
	count(fx.of(findings.deny, "GF-TAG-001")) == 0 with input as fx.pool({"tags": null})
		with data.gpufleet.clients as fx.clients
}
