package gpufleet.rules.isolation_test

import data.gpufleet.findings
import data.gpufleet.fixtures as fx

gpu_taint := {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}

acme_taint := {"key": "gpufleet.io/client", "value": "acme", "effect": "NO_SCHEDULE"}

# --- GF-ISO-001 ------------------------------------------------------------------------------

test_iso001_missing_gpu_taint if {
	fs := fx.of(findings.deny, "GF-ISO-001") with input as fx.pool({"taints": [acme_taint]})
	count(fs) == 1
	some f in fs
	f.severity == "deny"
	f.attribute == "taints"
	startswith(f.msg, "GF-ISO-001: gpufleet_eks_node_pool.test: no nvidia.com/gpu taint with effect NO_SCHEDULE")
	contains(f.msg, "add the taint nvidia.com/gpu=present:NO_SCHEDULE")
}

test_iso001_prefer_no_schedule_is_not_enough if {
	taint := {"key": "nvidia.com/gpu", "value": "present", "effect": "PREFER_NO_SCHEDULE"}
	count(fx.of(findings.deny, "GF-ISO-001")) == 1 with input as fx.pool({"taints": [taint]})
}

test_iso001_tainted if {
	count(fx.of(findings.deny, "GF-ISO-001")) == 0 with input as fx.doc
}

test_iso001_other_spellings_and_values if {
	kubernetes := {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
	count(fx.of(findings.deny, "GF-ISO-001")) == 0 with input as fx.pool({"taints": [kubernetes]})
	no_execute := {"key": "nvidia.com/gpu", "value": "", "effect": "NO_EXECUTE"}
	count(fx.of(findings.deny, "GF-ISO-001")) == 0 with input as fx.pool({"taints": [no_execute]})
}

test_iso001_unknown_taints if {
	count(fx.of(findings.deny, "GF-ISO-001")) == 0 with input as fx.pool({"taints": null})
}

# --- GF-ISO-002: dedicated ---------------------------------------------------------------------

test_iso002_dedicated_without_client_taint if {
	fs := fx.of(findings.deny, "GF-ISO-002") with input as fx.pool({"taints": [gpu_taint]})
		with data.gpufleet.clients as fx.clients
	count(fs) == 1
	some f in fs
	f.attribute == "taints"
	contains(f.msg, `client "acme" has isolation "dedicated" but the pool has no taint gpufleet.io/client=acme:NO_SCHEDULE`)
}

test_iso002_dedicated_with_client_taint if {
	count(fx.of(findings.deny, "GF-ISO-002")) == 0 with input as fx.doc
		with data.gpufleet.clients as fx.clients
	kubernetes := {"key": "gpufleet.io/client", "value": "acme", "effect": "NoSchedule"}
	count(fx.of(findings.deny, "GF-ISO-002")) == 0 with input as fx.pool({"taints": [gpu_taint, kubernetes]})
		with data.gpufleet.clients as fx.clients
}

test_iso002_dedicated_needs_the_registry if {
	count(fx.of(findings.deny, "GF-ISO-002")) == 0 with input as fx.pool({"taints": [gpu_taint]})
}

test_iso002_shared_clients_need_no_client_taint if {
	pool := fx.pool({
		"client": "initech", "taints": [gpu_taint],
		"labels": {"gpufleet.io/client": "initech"}, "tags": {"gpufleet:client": "initech", "gpufleet:cost-center": "cc-3003"},
	})
	count(fx.of(findings.deny, "GF-ISO-002")) == 0 with input as pool
		with data.gpufleet.clients as fx.clients
}

test_iso002_dedicated_unknown if {
	count(fx.of(findings.deny, "GF-ISO-002")) == 0 with input as fx.pool({"taints": null})
		with data.gpufleet.clients as fx.clients
	count(fx.of(findings.deny, "GF-ISO-002")) == 0 with input as fx.pool({"client": null, "taints": [gpu_taint]})
		with data.gpufleet.clients as fx.clients
}

# --- GF-ISO-002: several clients ---------------------------------------------------------------

test_iso002_label_names_another_client if {
	fs := fx.of(findings.deny, "GF-ISO-002") with input as fx.pool({"labels": {"gpufleet.io/client": "globex"}})
	count(fs) == 1
	some f in fs
	f.attribute == "client"
	contains(f.msg, "the pool is claimed by several clients (acme, globex)")
}

test_iso002_tag_names_another_client if {
	fs := fx.of(findings.deny, "GF-ISO-002") with input as fx.pool({"tags": {"gpufleet_client": "initech"}})
	some f in fs
	contains(f.msg, "(acme, initech)")
}

test_iso002_client_taint_names_another_client if {
	taint := {"key": "gpufleet.io/client", "value": "globex", "effect": "NO_SCHEDULE"}
	fs := fx.of(findings.deny, "GF-ISO-002") with input as fx.pool({"taints": [gpu_taint, acme_taint, taint]})
	some f in fs
	contains(f.msg, "(acme, globex)")
}

test_iso002_both_findings if {
	fs := fx.of(findings.deny, "GF-ISO-002") with input as fx.pool({"taints": [gpu_taint], "labels": {"gpufleet.io/client": "globex"}})
		with data.gpufleet.clients as fx.clients
	{f.attribute | some f in fs} == {"taints", "client"}
}

test_iso002_one_claim_is_not_shared if {
	count(fx.of(findings.deny, "GF-ISO-002")) == 0 with input as fx.doc

	# no client, one label: GF-TAG-001's business, not shared
	count(fx.of(findings.deny, "GF-ISO-002")) == 0 with input as fx.pool({
		"client": "", "labels": {"gpufleet.io/client": "acme"}, "tags": {}, "taints": [gpu_taint],
	})
	count(fx.of(findings.deny, "GF-ISO-002")) == 0 with input as fx.pool({"labels": {"gpufleet.io/client": ""}})
}

test_iso002_shared_unknown if {
	count(fx.of(findings.deny, "GF-ISO-002")) == 0 with input as fx.pool({"client": null})
	count(fx.of(findings.deny, "GF-ISO-002")) == 0 with input as fx.pool({"labels": null, "tags": null, "taints": null})
}

# --- GF-ISO-003 ------------------------------------------------------------------------------

sharing := {"gpu": {"sharing": {"strategy": "time-slicing", "replicas": 4}}}

test_iso003_sharing_in_production if {
	fs := fx.of(findings.deny, "GF-ISO-003") with input as fx.pool(object.union(sharing, {"workload": {"environment": "production"}}))
	count(fs) == 1
	some f in fs
	f.attribute == "gpu.sharing.strategy"
	startswith(f.msg, "GF-ISO-003: gpufleet_eks_node_pool.test: GPU sharing (time-slicing) in production")
}

test_iso003_mps_in_production if {
	pool := fx.pool({"workload": {"environment": "production"}, "gpu": {"sharing": {"strategy": "mps", "replicas": 2}}})
	some f in fx.of(findings.deny, "GF-ISO-003") with input as pool
	contains(f.msg, "GPU sharing (mps)")
}

test_iso003_sharing_outside_production if {
	count(fx.of(findings.deny, "GF-ISO-003")) == 0 with input as fx.pool(sharing)
	count(fx.of(findings.deny, "GF-ISO-003")) == 0 with input as fx.pool({"workload": {"environment": "production"}})
}

test_iso003_unknown if {
	count(fx.of(findings.deny, "GF-ISO-003")) == 0 with input as fx.pool(object.union(sharing, {"workload": {"environment": null}}))
	count(fx.of(findings.deny, "GF-ISO-003")) == 0 with input as fx.pool({"workload": {"environment": "production"}, "gpu": {"sharing": null}})
}

# --- GF-ISO-004 ------------------------------------------------------------------------------

globex := {
	"client": "globex", "region": "us-east-1", "zones": ["us-east-1a"], "taints": [gpu_taint],
	"labels": {"gpufleet.io/client": "globex"}, "tags": {"gpufleet:client": "globex", "gpufleet:cost-center": "cc-2002"},
}

h100 := {
	"instance_types": ["p5.48xlarge"],
	"gpu": {"model": "H100-80GB", "class": "training", "memory_gib": 80, "per_node": 8, "slice_memory_gib": 80},
}

test_iso004_whole_gpu_without_mig if {
	fs := fx.of(findings.deny, "GF-ISO-004") with input as fx.pool(object.union(globex, h100))
		with data.gpufleet.clients as fx.clients
		with data.gpufleet.catalog as fx.catalog
	count(fs) == 1
	some f in fs
	f.attribute == "gpu.mig"
	contains(f.msg, `client "globex" needs hardware isolation (isolation "mig") but the pool runs whole GPUs without MIG; set gpu.mig`)
}

test_iso004_gpu_without_mig_support if {
	fs := fx.of(findings.deny, "GF-ISO-004") with input as fx.pool(globex)
		with data.gpufleet.clients as fx.clients
		with data.gpufleet.catalog as fx.catalog
	some f in fs
	contains(f.msg, "L4 has no MIG: choose a MIG-capable GPU")
}

test_iso004_sharing if {
	pool := fx.pool(object.union(object.union(globex, h100), {"gpu": {"mig_profile": "1g.10gb", "slice_memory_gib": 10, "sharing": {"strategy": "mps", "replicas": 2}}}))
	some f in fx.of(findings.deny, "GF-ISO-004") with input as pool
		with data.gpufleet.clients as fx.clients
		with data.gpufleet.catalog as fx.catalog
	contains(f.msg, "but the pool shares GPUs with mps")
}

test_iso004_mig if {
	pool := fx.pool(object.union(object.union(globex, h100), {"gpu": {"mig_profile": "1g.10gb", "slice_memory_gib": 10}}))
	count(fx.of(findings.deny, "GF-ISO-004")) == 0 with input as pool
		with data.gpufleet.clients as fx.clients
	config := fx.pool(object.union(object.union(globex, h100), {"gpu": {"mig_config": "all-balanced", "slice_memory_gib": 10}}))
	count(fx.of(findings.deny, "GF-ISO-004")) == 0 with input as config
		with data.gpufleet.clients as fx.clients
}

test_iso004_other_isolation_or_no_registry if {
	count(fx.of(findings.deny, "GF-ISO-004")) == 0 with input as fx.pool(h100)
		with data.gpufleet.clients as fx.clients
	count(fx.of(findings.deny, "GF-ISO-004")) == 0 with input as fx.pool(object.union(globex, h100))
}

test_iso004_unknown_mig if {
	# MIG setting unknown at plan time: no slice memory, so "whole GPU" cannot be told
	count(fx.of(findings.deny, "GF-ISO-004")) == 0 with input as fx.pool(object.union(object.union(globex, h100), {"gpu": {"slice_memory_gib": null}}))
		with data.gpufleet.clients as fx.clients
	count(fx.of(findings.deny, "GF-ISO-004")) == 0 with input as fx.pool(object.union(object.union(globex, h100), {"client": null}))
		with data.gpufleet.clients as fx.clients
}
