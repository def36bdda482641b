package gpufleet.rules_test

import data.gpufleet.fixtures as fx
import data.gpufleet.rules

# A compliant Karpenter NodePool's document, as documents_kube.rego builds it.
nodepool := fx.pool({"resource_type": "NodePool", "autoscaler": {
	"kind": "NodePool",
	"node_class": {"kind": "EC2NodeClass", "name": "gpu", "found": true, "reservation_terms": 0},
	"capacity_types": ["on-demand"],
	"capacity_block": false,
	"capacity_block_required": false,
	"weight": 0,
	"static": false,
	"gpu_limit": 8,
	"advertised_gpus_per_node": 1,
	"disruption": {"consolidation_policy": "WhenEmpty", "consolidates_busy_nodes": false, "expire_after": "Never"},
	"fallback_to": [],
}})

np(patch) := object.union(nodepool, {"autoscaler": object.union(nodepool.autoscaler, patch)})

computeclass := fx.pool({"resource_type": "ComputeClass", "autoscaler": {
	"kind": "ComputeClass",
	"when_unsatisfiable": "DoNotScaleUp",
	"optimize_rule_priority": false,
	"priorities": [{"spot": false, "flex_start": false, "reservation_affinity": null, "location_zones": 0}],
}})

cc(patch) := object.union(computeclass, {"autoscaler": object.union(computeclass.autoscaler, patch)})

denied(doc) := {f.rule | some f in rules.deny with input as doc with data.gpufleet.catalog as fx.catalog}

warned(doc) := {f.rule | some f in rules.warn with input as doc with data.gpufleet.catalog as fx.catalog}

as_rules := {"GF-AS-001", "GF-AS-002", "GF-AS-003", "GF-AS-004", "GF-AS-005", "GF-AS-006", "GF-AS-007", "GF-AS-008"}

test_compliant_autoscaler_objects_pass if {
	count((denied(nodepool) | warned(nodepool)) & as_rules) == 0
	count((denied(computeclass) | warned(computeclass)) & as_rules) == 0
}

test_no_autoscaler_part_no_as_finding if {
	count((denied(fx.pool({})) | warned(fx.pool({}))) & as_rules) == 0
}

test_as001_reserved_without_selector_terms if {
	"GF-AS-001" in denied(np({"capacity_types": ["on-demand", "reserved"]}))
	not "GF-AS-001" in denied(np({"capacity_types": ["on-demand", "reserved"], "node_class": {"kind": "EC2NodeClass", "name": "gpu", "found": true, "reservation_terms": 1}}))

	# the node class unknown (one object alone): quiet
	not "GF-AS-001" in denied(np({"capacity_types": ["reserved"], "node_class": {"kind": "EC2NodeClass", "name": "gpu", "found": null, "reservation_terms": null}}))
}

test_as001_capacity_block_without_requirement if {
	"GF-AS-001" in denied(np({"capacity_block": true, "capacity_types": ["reserved"], "node_class": {"reservation_terms": 1}}))
	not "GF-AS-001" in denied(np({"capacity_block": true, "capacity_block_required": true, "capacity_types": ["reserved"], "node_class": {"reservation_terms": 1}}))
}

test_as002_spot_falls_back_to_a_weighted_on_demand_nodepool if {
	"GF-AS-002" in warned(np({"capacity_types": ["spot"], "weight": 100, "fallback_to": ["gpu-od"]}))
	not "GF-AS-002" in denied(np({"capacity_types": ["spot"], "weight": 100, "fallback_to": ["gpu-od"]}))
	not "GF-AS-002" in warned(np({"capacity_types": ["spot"], "fallback_to": null}))
}

test_as003_shared_gpus_without_overlay if {
	shared := object.union(np({"advertised_gpus_per_node": 1}), {"gpu": {"per_node": 1, "sharing": {"strategy": "time-slicing", "replicas": null}}})
	"GF-AS-003" in denied(shared)
	overlay := object.union(np({"advertised_gpus_per_node": 4}), {"gpu": {"per_node": 1, "sharing": {"strategy": "time-slicing", "replicas": 4}}})
	not "GF-AS-003" in denied(overlay)
	unknown := object.union(np({"advertised_gpus_per_node": null}), {"gpu": {"per_node": 1, "sharing": {"strategy": "mps", "replicas": null}}})
	not "GF-AS-003" in denied(unknown)
}

test_as004_scale_up_anyway if {
	"GF-AS-004" in denied(cc({"when_unsatisfiable": "ScaleUpAnyway"}))
	not "GF-AS-004" in denied(cc({"when_unsatisfiable": null}))
}

test_as005_specific_reservation_with_zones if {
	fs := [f | some f in rules.deny with input as cc({"priorities": [{"spot": false, "flex_start": false, "reservation_affinity": null, "location_zones": 1}, {"spot": false, "flex_start": false, "reservation_affinity": "Specific", "location_zones": 2}]})]
	[f] := [f | some f in fs; f.rule == "GF-AS-005"]
	f.attribute == "spec.priorities[1].location.zones"
	not "GF-AS-005" in denied(cc({"priorities": [{"spot": false, "flex_start": false, "reservation_affinity": "Specific", "location_zones": 0}]}))
}

test_as006_flex_start_with_reservations if {
	"GF-AS-006" in denied(cc({"priorities": [{"spot": false, "flex_start": true, "reservation_affinity": "AnyBestEffort", "location_zones": 0}]}))
	not "GF-AS-006" in denied(cc({"priorities": [{"spot": false, "flex_start": true, "reservation_affinity": null, "location_zones": 0}]}))
}

test_as007_no_gpu_limit if {
	"GF-AS-007" in denied(np({"gpu_limit": null}))
	not "GF-AS-007" in denied(np({"gpu_limit": null, "static": true}))
}

test_as008_disruption_of_protected_training if {
	training := object.union(nodepool, {"workload": {"kind": "training", "interruptible": false}})
	not "GF-AS-008" in denied(training)
	busy := object.union(training, {"autoscaler": {"disruption": {"consolidation_policy": "WhenEmptyOrUnderutilized", "consolidates_busy_nodes": true, "expire_after": "Never"}}})
	"GF-AS-008" in denied(busy)
	expiring := object.union(training, {"autoscaler": {"disruption": {"consolidation_policy": "WhenEmpty", "consolidates_busy_nodes": false, "expire_after": "720h"}}})
	"GF-AS-008" in denied(expiring)
	interruptible := object.union(busy, {"workload": {"interruptible": true}})
	not "GF-AS-008" in denied(interruptible)
	migrating := object.union(cc({"optimize_rule_priority": true}), {"workload": {"kind": "batch", "interruptible": false}})
	"GF-AS-008" in denied(migrating)
}
