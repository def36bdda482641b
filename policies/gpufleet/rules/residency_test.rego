package gpufleet.rules.residency_test

import data.gpufleet.findings
import data.gpufleet.fixtures as fx

test_dr001_region_outside if {
	fs := fx.of(findings.deny, "GF-DR-001") with input as fx.pool({"region": "us-east-1", "zones": ["us-east-1a"]})
		with data.gpufleet.clients as fx.clients
	count(fs) == 1
	some f in fs
	f.severity == "deny"
	f.attribute == "region"
	f.msg == `GF-DR-001: gpufleet_eks_node_pool.test: us-east-1, us-east-1a outside client "acme"'s allowed regions (eu-*, europe-*); move the pool to an allowed region`
}

test_dr001_gke_location_and_zones if {
	pool := fx.pool({"cloud": "gcp", "region": "us-central1", "zones": ["us-central1-a", "us-central1-b"]})
	some f in fx.of(findings.deny, "GF-DR-001") with input as pool
		with data.gpufleet.clients as fx.clients
	f.attribute == "location"
	contains(f.msg, "us-central1, us-central1-a, us-central1-b outside")
}

test_dr001_zone_outside if {
	pool := fx.pool({"cloud": "gcp", "region": "europe-west4", "zones": ["europe-west4-a", "us-central1-a"]})
	some f in fx.of(findings.deny, "GF-DR-001") with input as pool
		with data.gpufleet.clients as fx.clients
	f.attribute == "node_locations"
	contains(f.msg, ": us-central1-a outside")
	aws := fx.pool({"zones": ["eu-west-1a", "us-east-1a"]})
	some g in fx.of(findings.deny, "GF-DR-001") with input as aws
		with data.gpufleet.clients as fx.clients
	g.attribute == "subnet_ids"
}

test_dr001_inside if {
	count(fx.of(findings.deny, "GF-DR-001")) == 0 with input as fx.doc
		with data.gpufleet.clients as fx.clients

	# "europe-*" matches the region and its zones: "-" is not a glob delimiter
	pool := fx.pool({"cloud": "gcp", "region": "europe-west4", "zones": ["europe-west4-a", "europe-west4-b"]})
	count(fx.of(findings.deny, "GF-DR-001")) == 0 with input as pool
		with data.gpufleet.clients as fx.clients
}

test_dr001_needs_policy_data if {
	count(fx.of(findings.deny, "GF-DR-001")) == 0 with input as fx.pool({"region": "us-east-1", "zones": []})
	clients := json.remove(fx.clients, ["acme/allowed_regions"])
	count(fx.of(findings.deny, "GF-DR-001")) == 0 with input as fx.pool({"region": "us-east-1", "zones": []})
		with data.gpufleet.clients as clients
}

test_dr001_unknown if {
	count(fx.of(findings.deny, "GF-DR-001")) == 0 with input as fx.pool({"region": null, "zones": null})
		with data.gpufleet.clients as fx.clients
	count(fx.of(findings.deny, "GF-DR-001")) == 0 with input as fx.pool({"client": null, "region": "us-east-1"})
		with data.gpufleet.clients as fx.clients

	# zones unknown: the known region alone decides
	some f in fx.of(findings.deny, "GF-DR-001") with input as fx.pool({"region": "us-east-1", "zones": null})
		with data.gpufleet.clients as fx.clients
	contains(f.msg, ": us-east-1 outside")
}
