# Helpers shared by the pool-document builders and the rules: finding constructors, number
# formatting, policy-data access and defaults, glob matching, the spot split, taint and tag
# conventions, and catalog lookups (data.gpufleet.catalog, generated from internal/catalog).
#
# Every helper here is O(1) per pool document: catalog and policy-data access are map lookups.
package gpufleet.lib

# ---------------------------------------------------------------------------------------------
# Policy data (data.gpufleet.clients, data.gpufleet.thresholds)
# ---------------------------------------------------------------------------------------------

# True when a client registry (data.gpufleet.clients) was loaded: residency, dedicated/MIG
# isolation, budget, cost-centre and registry-membership checks only run then.
has_registry if is_object(data.gpufleet.clients)

# A pool is "oversized" (GF-RS-002) when its GPU (or MIG slice) memory exceeds oversize_factor
# (default 4) x the need. The factor the policy data sets, when it is a number > 1:
configured_oversize_factor := f if {
	f := data.gpufleet.thresholds.oversize_factor
	is_number(f)
	f > 1
}

# ---------------------------------------------------------------------------------------------
# Findings
# ---------------------------------------------------------------------------------------------

# What a rule reports about the pool document it judges: the rule id, the attribute to change
# and what is wrong. findings.rego turns it into the reported finding (msg, address, severity).
finding(rule, attribute, text) := {"rule": rule, "attribute": attribute, "text": text}

# Rules whose findings policy_waivers cannot turn into warnings.
non_waivable := {"GF-ISO-001", "GF-DR-001", "GF-TAG-001"}

# The bundle's rules that only ever warn: a waiver of one of them never turns a deny into a warning,
# so conftest does not run the deny rules again for a pool whose waivers all name these.
# (main_test.rego checks that none of them denies.)
# (Not named warn_*: conftest --all-namespaces queries every rule named deny*, warn*, violation* of
# every package, and would refuse a set of strings as results.)
rules_that_only_warn := {"GF-RS-002", "GF-RS-003", "GF-RS-005", "GF-RS-006", "GF-RS-007", "GF-COST-002", "GF-COST-003", "GF-AS-002"}

# The bundle's rule ids (a waiver of another GF- id has no effect, GF-WAIVE-001).
rule_ids := {
	"GF-RS-001", "GF-RS-002", "GF-RS-003", "GF-RS-004", "GF-RS-005", "GF-RS-006", "GF-RS-007", "GF-ISO-001", "GF-ISO-002", "GF-ISO-003", "GF-ISO-004",
	"GF-DR-001", "GF-COST-001", "GF-COST-002", "GF-COST-003", "GF-COST-004", "GF-TAG-001",
	"GF-AS-001", "GF-AS-002", "GF-AS-003", "GF-AS-004", "GF-AS-005", "GF-AS-006", "GF-AS-007", "GF-AS-008",
	"GF-DATA-001", "GF-DATA-002", "GF-DATA-003", "GF-DATA-004", "GF-INPUT-001", "GF-INPUT-002", "GF-INPUT-003", "GF-RULE-001", "GF-WAIVE-001",
}

# conftest run with --namespace gpufleet.rules or gpufleet.findings (or --all-namespaces) asks these
# packages, which judge one pool document, about a whole plan: one failure says so, where they
# would otherwise pass silently. (Never on the one pool document the provider evaluates: see
# documents.whole_plan.)
wrong_namespace := {
	"msg": "GF-INPUT-002: this package judges one pool document, not a plan: run conftest on plans in its default namespace, main (no --namespace, no --all-namespaces)",
	"rule": "GF-INPUT-002",
	"address": "",
	"attribute": null,
	"text": "this package judges one pool document, not a plan: run conftest on plans in its default namespace, main (no --namespace, no --all-namespaces)",
	"severity": "deny",
}

# ---------------------------------------------------------------------------------------------
# Official resources: the settings the document's attributes come from
# ---------------------------------------------------------------------------------------------

# Per official resource type: the document attribute a rule names -> the resource's own setting.
# gpufleet_gke_compute_class is here too: its document's spot share stands for its capacity ladder
# (internal/computeclass/render.Capacity), which is the setting to change.
official_settings := {
	# Kubernetes objects (documents_kube.rego): the object's own fields. A NodePool's tags are its
	# node class's.
	"NodePool": {
		"capacity.on_demand_base": `spec.template.spec.requirements["karpenter.sh/capacity-type"]`,
		"capacity.spot_percentage": `spec.template.spec.requirements["karpenter.sh/capacity-type"]`,
		"client": `spec.template.metadata.labels["gpufleet.io/client"]`,
		"gpu.mig": `spec.template.metadata.labels["nvidia.com/mig.config"]`,
		"gpu.mig.config": `spec.template.metadata.labels["nvidia.com/mig.config"]`,
		"gpu.mig.profile": `spec.template.metadata.labels["nvidia.com/mig.config"]`,
		"gpu.sharing.strategy": `spec.template.metadata.labels["nvidia.com/device-plugin.config"]`,
		"instance_types": "spec.template.spec.requirements",
		"region": `spec.template.spec.requirements["topology.kubernetes.io/zone"]`,
		"subnet_ids": `spec.template.spec.requirements["topology.kubernetes.io/zone"]`,
		"scaling.desired_size": "spec.limits",
		"scaling.max_size": "spec.limits",
		"scaling.min_size": "spec.replicas",
		"tags": `spec.template.spec.nodeClassRef (the node class's spec.tags["gpufleet:cost-center"])`,
		"taints": "spec.template.spec.taints",
		"workload.environment": `spec.template.metadata.labels["gpufleet.io/environment"]`,
		"workload.gpu_memory_gib": `spec.template.metadata.labels["gpufleet.io/gpu-memory-gib"]`,
		"workload.gpus_per_replica": `spec.template.metadata.labels["gpufleet.io/gpus-per-replica"]`,
		"workload.precision": `spec.template.metadata.labels["gpufleet.io/precision"]`,
		"workload.interruptible": `spec.template.metadata.labels["gpufleet.io/interruptible"]`,
		"workload.kind": `spec.template.metadata.labels["gpufleet.io/workload"]`,
	},
	"ComputeClass": {
		"capacity.on_demand_base": "spec.priorities",
		"capacity.spot_percentage": "spec.priorities",
		"client": `spec.nodePoolConfig.nodeLabels["gpufleet.io/client"]`,
		"gpu.mig": "spec.priorities",
		"gpu.mig.config": "spec.priorities",
		"gpu.mig.profile": "spec.priorities",
		"gpu.sharing.strategy": "spec.priorities",
		"machine_type": "spec.priorities",
		"location": "spec.priorities",
		"node_locations": "spec.priorities",
		"scaling.desired_size": "spec.priorities",
		"scaling.max_size": "spec.priorities",
		"scaling.min_size": "spec.priorities",
		"taints": "spec.nodePoolConfig.taints",
		"workload.environment": `spec.nodePoolConfig.nodeLabels["gpufleet.io/environment"]`,
		"workload.gpu_memory_gib": `spec.nodePoolConfig.nodeLabels["gpufleet.io/gpu-memory-gib"]`,
		"workload.gpus_per_replica": `spec.nodePoolConfig.nodeLabels["gpufleet.io/gpus-per-replica"]`,
		"workload.precision": `spec.nodePoolConfig.nodeLabels["gpufleet.io/precision"]`,
		"workload.interruptible": `spec.nodePoolConfig.nodeLabels["gpufleet.io/interruptible"]`,
		"workload.kind": `spec.nodePoolConfig.nodeLabels["gpufleet.io/workload"]`,
	},
	"gpufleet_gke_compute_class": {
		"capacity.on_demand_base": "capacity.ladder",
		"capacity.spot_percentage": "capacity.ladder",
	},
	"aws_eks_node_group": {
		"capacity.on_demand_base": "capacity_type",
		"capacity.spot_percentage": "capacity_type",
		"client": `labels["gpufleet.io/client"]`,
		"gpu.mig": `labels["nvidia.com/mig.config"]`,
		"gpu.mig.config": `labels["nvidia.com/mig.config"]`,
		"gpu.mig.profile": `labels["nvidia.com/mig.config"]`,
		"gpu.sharing.strategy": `labels["nvidia.com/device-plugin.config"]`,
		"scaling.desired_size": "scaling_config[0].desired_size",
		"scaling.max_size": "scaling_config[0].max_size",
		"scaling.min_size": "scaling_config[0].min_size",
		"tags": `tags["gpufleet:cost-center"]`,
		"taints": "taint",
		"workload.environment": `labels["gpufleet.io/environment"]`,
		"workload.gpu_memory_gib": `labels["gpufleet.io/gpu-memory-gib"]`,
		"workload.gpus_per_replica": `labels["gpufleet.io/gpus-per-replica"]`,
		"workload.precision": `labels["gpufleet.io/precision"]`,
		"workload.interruptible": `labels["gpufleet.io/interruptible"]`,
		"workload.kind": `labels["gpufleet.io/workload"]`,
	},
	"google_container_node_pool": {
		"capacity.on_demand_base": "node_config[0].spot",
		"capacity.spot_percentage": "node_config[0].spot",
		"client": `node_config[0].labels["gpufleet.io/client"]`,
		"gpu.mig": "node_config[0].guest_accelerator[0].gpu_partition_size",
		"gpu.mig.config": "node_config[0].guest_accelerator[0].gpu_partition_size",
		"gpu.mig.profile": "node_config[0].guest_accelerator[0].gpu_partition_size",
		"gpu.sharing.strategy": "node_config[0].guest_accelerator[0].gpu_sharing_config",
		"machine_type": "node_config[0].machine_type",
		"scaling.desired_size": "node_count",
		"scaling.max_size": "autoscaling[0].max_node_count",
		"scaling.min_size": "autoscaling[0].min_node_count",
		"tags": `node_config[0].resource_labels["gpufleet_cost-center"]`,
		"taints": "node_config[0].taint",
		"workload.environment": `node_config[0].labels["gpufleet.io/environment"]`,
		"workload.gpu_memory_gib": `node_config[0].labels["gpufleet.io/gpu-memory-gib"]`,
		"workload.gpus_per_replica": `node_config[0].labels["gpufleet.io/gpus-per-replica"]`,
		"workload.precision": `node_config[0].labels["gpufleet.io/precision"]`,
		"workload.interruptible": `node_config[0].labels["gpufleet.io/interruptible"]`,
		"workload.kind": `node_config[0].labels["gpufleet.io/workload"]`,
	},
}

official_attribute(type, attribute) := object.get(official_settings, [type, attribute], attribute)

# A rule's text with the official resource's settings: fixes first (how to set a value), then the
# names of the settings.
official_text(type, text) := strings.replace_n(_official_names[type], strings.replace_n(_official_fixes[type], text))

_official_fixes := {
	"NodePool": {
		"capacity.spot_percentage 100 and capacity.on_demand_base 0": "karpenter.sh/capacity-type allowing spot (a NodePool without that requirement allows it)",
		"capacity.spot_percentage is 100 ": "the NodePool allows karpenter.sh/capacity-type spot ",
		"capacity.spot_percentage = 100": "karpenter.sh/capacity-type In [spot]",
		"set capacity.spot_percentage = 0": "remove spot from the karpenter.sh/capacity-type requirement",
		"set capacity.spot_percentage (up to 100)": "allow spot in the karpenter.sh/capacity-type requirement",
		"set capacity.on_demand_base to at least": "remove spot from the karpenter.sh/capacity-type requirement (a NodePool has no on-demand base) for a floor of",
		"gpu.mig.config": "the label nvidia.com/mig.config",
		"gpu.mig.profile": "the label nvidia.com/mig.config",
		"set gpu.mig.profile = ": "set the template label nvidia.com/mig.config = all-",
		"set gpu.mig (a profile or a config such as all-balanced)": "set the template label nvidia.com/mig.config (such as all-balanced)",
		"workload.interruptible = true": `the template label gpufleet.io/interruptible = "true"`,
		"remove gpu.sharing": "remove the template label nvidia.com/device-plugin.config",
		"drop gpu.sharing": "drop the template label nvidia.com/device-plugin.config",
		"set client (official resources: the node label gpufleet.io/client or the tag gpufleet:client)": "set the template label gpufleet.io/client (or the node class tag gpufleet:client)",
		" (gpufleet pools derive it from the policy data)": " in the node class's spec.tags",
		" node(s) above capacity.on_demand_base at": " node(s) at",
		"reduce its size": "lower spec.limits",
		"reduce sizes": "lower spec.limits",
		" to run nodes above capacity.on_demand_base on spot": " to run its nodes on spot",
		"add the taint nvidia.com/gpu=present:NO_SCHEDULE": "add the taint {key: nvidia.com/gpu, value: present, effect: NoSchedule} to spec.template.spec.taints",
		"max(1, scaling.min_size)": "at least 1",
	},
	"ComputeClass": {
		"capacity.spot_percentage 100 and capacity.on_demand_base 0": "a priority with spot: true",
		"capacity.spot_percentage is 100 ": "a priority has spot: true ",
		"capacity.spot_percentage = 100": "a priority with spot: true first",
		"set capacity.spot_percentage = 0": "remove the spot: true priorities",
		"set capacity.spot_percentage (up to 100)": "add a priority with spot: true",
		"set capacity.on_demand_base to at least": "remove the spot: true priorities (a ComputeClass has no on-demand base) for a floor of",
		"workload.interruptible = true": `the node label gpufleet.io/interruptible = "true" in nodePoolConfig.nodeLabels`,
		"set client (official resources: the node label gpufleet.io/client or the tag gpufleet:client)": "set the node label gpufleet.io/client in spec.nodePoolConfig.nodeLabels",
		" node(s) above capacity.on_demand_base at": " node(s) at",
		" to run nodes above capacity.on_demand_base on spot": " to run its nodes on Spot VMs",
		"add the taint nvidia.com/gpu=present:NO_SCHEDULE": "add the taint {key: nvidia.com/gpu, value: present, effect: NoSchedule} to spec.nodePoolConfig.taints",
		"max(1, scaling.min_size)": "at least 1",
	},
	"gpufleet_gke_compute_class": {
		"capacity.spot_percentage 100 and capacity.on_demand_base 0": `a "spot" rung in capacity.ladder`,
		"capacity.spot_percentage is 100 ": `capacity.ladder has a "spot" rung `,
		"capacity.spot_percentage = 100": `a "spot" rung first in capacity.ladder`,
		"set capacity.spot_percentage = 0": `remove the "spot" rung from capacity.ladder`,
		"set capacity.spot_percentage (up to 100)": `add a "spot" rung to capacity.ladder`,
		"set capacity.on_demand_base to at least": `remove the "spot" rung from capacity.ladder (a ComputeClass has no on-demand base) for a floor of`,
		" node(s) above capacity.on_demand_base at": " node(s) at",
	},
	"aws_eks_node_group": {
		"capacity.spot_percentage 100 and capacity.on_demand_base 0": `capacity_type "SPOT"`,
		"capacity.spot_percentage is 100 ": `capacity_type is "SPOT" `,
		"capacity.spot_percentage = 100": `capacity_type = "SPOT"`,
		"gpu.mig.config": `labels["nvidia.com/mig.config"]`,
		"gpu.mig.profile": `labels["nvidia.com/mig.config"]`,
		"set capacity.spot_percentage = 0": `set capacity_type = "ON_DEMAND"`,
		"set capacity.spot_percentage (up to 100)": `set capacity_type = "SPOT"`,
		"set capacity.on_demand_base to at least": `set capacity_type = "ON_DEMAND" (a node group has no on-demand base) for a floor of`,
		"set gpu.mig.profile = ": "set the label nvidia.com/mig.config = all-",
		"set gpu.mig (a profile or a config such as all-balanced)": "set the label nvidia.com/mig.config (such as all-balanced)",
		"workload.interruptible = true": `the label gpufleet.io/interruptible = "true"`,
		"remove gpu.sharing": "remove the label nvidia.com/device-plugin.config",
		"drop gpu.sharing": "drop the label nvidia.com/device-plugin.config",
		"set client (official resources: the node label gpufleet.io/client or the tag gpufleet:client)": "set the node label gpufleet.io/client (or the tag gpufleet:client)",
		" (gpufleet pools derive it from the policy data)": "",
		" node(s) above capacity.on_demand_base at": " node(s) at",
	},
	"google_container_node_pool": {
		"capacity.spot_percentage 100 and capacity.on_demand_base 0": "node_config[0].spot",
		"capacity.spot_percentage is 100 ": "node_config[0].spot is true ",
		"capacity.spot_percentage = 100": "node_config[0].spot = true",
		"gpu.mig.config": "node_config[0].guest_accelerator[0].gpu_partition_size",
		"gpu.mig.profile": "node_config[0].guest_accelerator[0].gpu_partition_size",
		"set capacity.spot_percentage = 0": "set node_config[0].spot = false",
		"set capacity.spot_percentage (up to 100)": "set node_config[0].spot = true",
		"set capacity.on_demand_base to at least": "set node_config[0].spot = false (a node pool has no on-demand base) for a floor of",
		"set gpu.mig.profile = ": "set node_config[0].guest_accelerator[0].gpu_partition_size = ",
		"set gpu.mig (a profile or a config such as all-balanced)": "set node_config[0].guest_accelerator[0].gpu_partition_size",
		"workload.interruptible = true": `the node label gpufleet.io/interruptible = "true"`,
		"remove gpu.sharing": "remove node_config[0].guest_accelerator[0].gpu_sharing_config",
		"drop gpu.sharing": "drop gpu_sharing_config",
		"set client (official resources: the node label gpufleet.io/client or the tag gpufleet:client)": "set the node label gpufleet.io/client (or the resource label gpufleet_client)",
		"gpufleet:cost-center tag": "gpufleet_cost-center resource label",
		" (gpufleet pools derive it from the policy data)": "",
		" node(s) above capacity.on_demand_base at": " node(s) at",
	},
}

_official_names := {type: {name: setting |
	some name, setting in settings
	contains(name, ".")
	not startswith(name, "gpu.mig.")
} |
	some type, settings in official_settings
}

# ---------------------------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------------------------

# GiB with at most one decimal: 80, 39.5.
gib(x) := sprintf("%v", [round(x * 10) / 10])

# US dollars with cents: $1234.50 (non-negative amounts).
# (%.2f does not format integers, and %d on a number costs several times %.2f in OPA.)
usd(x) := sprintf("$%v.00", [x]) if {
	x == round(x)
} else := sprintf("$%.2f", [x])

# ---------------------------------------------------------------------------------------------
# Small value helpers
# ---------------------------------------------------------------------------------------------

obj(x) := x if {
	is_object(x)
} else := {}

arr(x) := x if {
	is_array(x)
} else := []

num(x) := x if {
	is_number(x)
} else := null

str(x) := x if {
	is_string(x)
} else := null

# "true"/"false" label values (any case) as booleans; anything else is null.
bool_label(x) if {
	is_string(x)
	lower(x) == "true"
} else := false if {
	is_string(x)
	lower(x) == "false"
} else := null

# A numeric label value ("60", "39.5") as a number; anything else is null. No leading zero ("040",
# "00.5"): OPA's to_number keeps such a text as its number literal, which is not a JSON number
# (gpufleet-policy documents could not write it, and the Go builder reads 40).
num_label(x) := to_number(x) if {
	is_string(x)
	regex.match(`^(0|[1-9][0-9]*)(\.[0-9]+)?$`, x)
} else := null

# The gpufleet.io/gpu-memory-gib label's value in GiB: a number of GiB ("40", "39.5"), or a
# Kubernetes quantity of bytes with a binary or decimal suffix, as Kubernetes reads it ("40Gi" is
# 40 x 2^30 bytes, 40 GiB; "40G" is 40 x 10^9 bytes, 37.252902984619140625 GiB; "40960Mi" 40 GiB),
# converted from bytes (bytes / 2^30: exact for the byte counts such labels give). Undefined for
# anything else (other suffixes, "40GB", "40gi", exponents, signs, a number with a leading zero as
# num_label; a quantity may have one, as Kubernetes reads it, "040Gi": the arithmetic gives a number).
memory_gib(x) := n if {
	n := num_label(x)
	n != null
} else := (to_number(q[1]) * _quantity_bytes[q[3]]) / 1073741824 if {
	is_string(x)
	[q] := regex.find_all_string_submatch_n(`^([0-9]+(\.[0-9]+)?)(Ki|Mi|Gi|Ti|k|M|G|T)$`, x, 1)
}

# Bytes per unit of the Kubernetes quantity suffixes (k8s.io/apimachinery resource.Quantity).
_quantity_bytes := {
	"k": 1000, "M": 1000000, "G": 1000000000, "T": 1000000000000,
	"Ki": 1024, "Mi": 1048576, "Gi": 1073741824, "Ti": 1099511627776,
}

# ---------------------------------------------------------------------------------------------
# Spot mix: with base b and percentage p, a size s splits into
#   spot = floor(max(s - b, 0) * p / 100), on_demand = s - spot.
# ---------------------------------------------------------------------------------------------

spot_nodes(size, base, pct) := floor((max([size - base, 0]) * pct) / 100)

# The on-demand and spot sides of min, max and desired sizes; both null when a number is unknown.
# All-on-demand pools (the common case) take a short path.
spot_split(scaling, base, pct) := {
	"on_demand": {"min": scaling.min_size, "max": scaling.max_size, "desired": scaling.desired_size},
	"spot": {"min": 0, "max": 0, "desired": 0},
} if {
	pct == 0
	is_number(base)
	is_number(scaling.min_size)
	is_number(scaling.max_size)
	is_number(scaling.desired_size)
} else := {
	"on_demand": {"min": mn - s_min, "max": mx - s_max, "desired": d - s_d},
	"spot": {"min": s_min, "max": s_max, "desired": s_d},
} if {
	mn := scaling.min_size
	mx := scaling.max_size
	d := scaling.desired_size
	is_number(mn)
	is_number(mx)
	is_number(d)
	is_number(base)
	is_number(pct)
	s_min := floor((max([mn - base, 0]) * pct) / 100)
	s_max := floor((max([mx - base, 0]) * pct) / 100)
	s_d := floor((max([d - base, 0]) * pct) / 100)
} else := {"on_demand": null, "spot": null}

# ---------------------------------------------------------------------------------------------
# Regions and zones
# ---------------------------------------------------------------------------------------------

# glob match where "-" is not a delimiter: "eu-*" matches "eu-west-1", "europe-*" matches
# "europe-west4" and the zone "europe-west4-a".
location_allowed(location, globs) if {
	some pattern in globs
	glob.match(pattern, null, location)
}

# GCP: "us-central1-a" is a zone of "us-central1"; a region has two dash-separated parts.
gcp_is_zone(location) if count(split(location, "-")) == 3

gcp_region(location) := concat("-", array.slice(parts, 0, 2)) if {
	parts := split(location, "-")
	count(parts) == 3
}

else := location

# ---------------------------------------------------------------------------------------------
# Taints, labels, tags
# ---------------------------------------------------------------------------------------------

label_client := "gpufleet.io/client"

label_workload := "gpufleet.io/workload"

label_environment := "gpufleet.io/environment"

label_gpu_memory := "gpufleet.io/gpu-memory-gib"

label_interruptible := "gpufleet.io/interruptible"

label_model_parameters := "gpufleet.io/model-parameters-billion"

label_precision := "gpufleet.io/precision"

label_training_method := "gpufleet.io/training-method"

label_gpus_per_replica := "gpufleet.io/gpus-per-replica"

label_replicas := "gpufleet.io/replicas"

label_kv_cache := "gpufleet.io/kv-cache-gib"

label_mig_config := "nvidia.com/mig.config"

label_device_plugin_config := "nvidia.com/device-plugin.config"

# The taint effects the rules read as they are (GKE's and the AWS provider's spelling).
canonical_effects := {"NO_SCHEDULE", "NO_EXECUTE", "PREFER_NO_SCHEDULE"}

# Taint blocks the rules read as they are: each of an effect of the canonical spelling, with a string
# value. The builders keep such a list as it is. (A comprehension costs OPA about half what an every
# does, and the call's result is cached: most pools carry the same taints.)
canonical_taints(ts) if {
	is_array(ts)
	count([t | some t in ts; not canonical_taint(t)]) == 0
}

canonical_taint(t) if {
	canonical_effects[t.effect]
	is_string(t.value)
}

# Kubernetes and AWS spellings of taint effects, normalised to GKE's.
_effects := {
	"NoSchedule": "NO_SCHEDULE",
	"NoExecute": "NO_EXECUTE",
	"PreferNoSchedule": "PREFER_NO_SCHEDULE",
	"NO_SCHEDULE": "NO_SCHEDULE",
	"NO_EXECUTE": "NO_EXECUTE",
	"PREFER_NO_SCHEDULE": "PREFER_NO_SCHEDULE",
}

effect(e) := v if {
	v := _effects[e]
} else := upper(e) if {
	is_string(e)
} else := null

taint(t) := {"key": t.key, "value": v, "effect": effect(object.get(t, "effect", null))} if {
	v := object.get(t, "value", "")
	is_string(v)
}

else := {"key": t.key, "value": "", "effect": effect(object.get(t, "effect", null))}

# Normalised taint list; null (unknown) stays null.
taints(list) := [taint(t) | some t in list] if {
	is_array(list)
} else := null

# Effects that keep pods without a toleration off a node (GKE/AWS and Kubernetes spellings).
_repelling := {"NO_SCHEDULE", "NO_EXECUTE", "NoSchedule", "NoExecute"}

# The taints carry nvidia.com/gpu with a repelling effect (any value).
gpu_tainted(taints) if {
	some t in taints
	t.key == "nvidia.com/gpu"
	t.effect in _repelling
}

# The taints carry gpufleet.io/client=<client> with a repelling effect.
client_tainted(taints, client) if {
	some t in taints
	t.key == "gpufleet.io/client"
	t.value == client
	t.effect in _repelling
}

# A gpufleet cloud tag: "gpufleet:<name>", or "gpufleet_<name>" where the key cannot hold ":"
# (GKE resource labels).
tag(tags, name) := v if {
	v := tags[concat("", ["gpufleet:", name])]
} else := v if {
	v := tags[concat("", ["gpufleet_", name])]
}

tag_or_null(tags, name) := t if {
	t := tag(tags, name)
} else := null

# Every non-empty client a pool claims: its client, the gpufleet.io/client label, the
# gpufleet:client tag and the values of gpufleet.io/client taints.
client_claims(doc) := ({doc.client, l, t1, t2} | {t.value | some t in arr(doc.taints); t.key == label_client}) - {"", null} if {
	l := object.get(obj(doc.labels), label_client, null)
	t1 := object.get(obj(doc.tags), "gpufleet:client", null)
	t2 := object.get(obj(doc.tags), "gpufleet_client", null)
}

# ---------------------------------------------------------------------------------------------
# Catalog lookups (data.gpufleet.catalog)
# ---------------------------------------------------------------------------------------------

default hours_per_month := 730

hours_per_month := data.gpufleet.catalog.hours_per_month

# A GPU model's catalog entry.
gpu(model) := data.gpufleet.catalog.gpus[model]

# A GPU model's class (training, inference), null for a model the catalog does not know.
gpu_class(model) := c if {
	c := data.gpufleet.catalog.gpus[model].class
} else := null

# Memory of one GPU slice a replica gets: the whole GPU's memory without MIG; the MIG profile's
# memory when a profile is set; the smallest profile of the GPU's balanced list for
# "all-balanced"; the profile's memory for "all-<profile>". null when the MIG setting is unknown
# (mig_unknown true) or the model or profile is not in the catalog.
slice_memory(model, profile, config, mig_unknown) := m if {
	profile == null
	config == null
	mig_unknown != true
	m := data.gpufleet.catalog.gpus[model].memory_gib
} else := null if {
	mig_unknown == true
} else := m if {
	is_string(profile)
	m := data.gpufleet.catalog.gpus[model].mig_profiles[profile].memory_gib
} else := m if {
	config == "all-balanced"
	g := data.gpufleet.catalog.gpus[model]
	m := min({g.mig_profiles[p].memory_gib | some p in g.balanced_mig})
} else := m if {
	is_string(config)
	startswith(config, "all-")
	m := data.gpufleet.catalog.gpus[model].mig_profiles[substring(config, 4, -1)].memory_gib
} else := null

# Pool whose replicas get whole GPUs: no MIG profile or config, and the MIG setting is known
# (slice_memory_gib is null when it is not).
full_gpu(doc) if {
	doc.gpu.mig_profile == null
	doc.gpu.mig_config == null
	is_number(doc.gpu.slice_memory_gib)
}

# Per-node {on_demand_usd, spot_usd} of a node shape in a region. On GKE, fixed-GPU machine
# types are priced with their GPUs; n1 machine types add count x the accelerator's per-GPU price.
node_price("aws", shape, _, _, region) := data.gpufleet.catalog.aws_instance_types[shape].prices[region]

node_price("gcp", shape, _, _, region) := p if {
	machine := data.gpufleet.catalog.gke_machine_types[shape]
	machine.gpu_count > 0
	p := machine.prices[region]
}

node_price("gcp", shape, model, per_node, region) := {
	"on_demand_usd": m.on_demand_usd + (per_node * a.on_demand_usd),
	"spot_usd": m.spot_usd + (per_node * a.spot_usd),
} if {
	machine := data.gpufleet.catalog.gke_machine_types[shape]
	machine.gpu_count == 0
	is_number(per_node)
	m := machine.prices[region]
	a := data.gpufleet.catalog.gke_accelerators[gpu(model).gke_accelerator].prices[region]
}

# The on-demand and spot sides of pools whose nodes are all on-demand (pct 0) or all spot (100),
# as spot_split(scaling, 0, pct) returns them, without its arithmetic: [on_demand, spot].
all_or_nothing_sides(scaling, pct) := [_side(scaling), _no_side] if {
	pct == 0
	_known_sizes(scaling)
} else := [_no_side, _side(scaling)] if {
	pct == 100
	_known_sizes(scaling)
} else := [s.on_demand, s.spot] if {
	s := spot_split(scaling, 0, pct)
}

_known_sizes(scaling) if {
	is_number(scaling.min_size)
	is_number(scaling.max_size)
	is_number(scaling.desired_size)
}

_side(scaling) := {"min": scaling.min_size, "max": scaling.max_size, "desired": scaling.desired_size}

_no_side := {"min": 0, "max": 0, "desired": 0}

# The gpu part of a pool document for a whole GPU of the catalog without MIG or sharing; nulls for
# a model the catalog does not know.
gpu_document(model, per_node) := {
	"model": model,
	"class": g.class,
	"memory_gib": g.memory_gib,
	"per_node": per_node,
	"mig_profile": null,
	"mig_config": null,
	"slice_memory_gib": g.memory_gib,
	"sharing": null,
} if {
	g := _gpu_or_unknown(model)
}

# A GPU model's catalog entry; class and memory null for a model the catalog does not know (or null).
# (By key: the catalog decodes the entries that are read, catalog.rego.)
_gpu_or_unknown(model) := g if {
	g := data.gpufleet.catalog.gpus[model]
} else := {"class": null, "memory_gib": null}

# gpu_document of every EC2 GPU instance type of the catalog, computed once per evaluation.
aws_gpu_documents := {shape: gpu_document(t.gpu_model, t.gpu_count) | some shape, t in data.gpufleet.catalog.aws_instance_types}

# Whole-pool cost at desired size of the on-demand and spot sides at a node price
# {on_demand_usd, spot_usd}; both null when the price or a size is unknown.
sides_cost(price, sides) := {"hourly_usd": hourly, "monthly_usd": hourly * 730} if {
	hourly := (sides.on_demand.desired * price.on_demand_usd) + (sides.spot.desired * price.spot_usd)
	data.gpufleet.catalog.hours_per_month == 730
} else := {"hourly_usd": hourly, "monthly_usd": hourly * hours_per_month} if {
	hourly := (sides.on_demand.desired * price.on_demand_usd) + (sides.spot.desired * price.spot_usd)
} else := {"hourly_usd": null, "monthly_usd": null}

# ---------------------------------------------------------------------------------------------
# GPU memory estimate: the formulas of internal/catalog (GPUMemoryRequired) with the numbers of
# data.gpufleet.catalog.memory_model, generated from it; internal/policy's
# TestMemoryRequiredParity checks that both agree. GiB, rounded up to 0.01; undefined on input the
# estimate rejects (unknown precision, kind or method; parameters <= 0).
# ---------------------------------------------------------------------------------------------

_mm := data.gpufleet.catalog.memory_model

memory_required_gib(params, precision, "inference", null) := _gb_to_gib((params * _mm.bytes_per_parameter[precision]) * _mm.inference_overhead) if {
	params > 0
}

memory_required_gib(params, precision, "training", method) := _gb_to_gib(params * _mm.full_training_bytes) if {
	method in {null, "full"}
	params > 0
	precision in _mm.full_training_precisions
}

memory_required_gib(params, precision, "training", "lora") := _gb_to_gib((params * _mm.bytes_per_parameter[precision]) + _adapters_gb(params)) if {
	params > 0
}

memory_required_gib(params, "int4", "training", "qlora") := _gb_to_gib(((params * _mm.qlora_bits_per_parameter) / 8) + _adapters_gb(params)) if {
	params > 0
}

_adapters_gb(params) := (params * _mm.adapter_trainable_share) * _mm.adapter_bytes

_gb_to_gib(gb) := ceil(round(((gb * 1000000000) / _mm.bytes_per_gib) * 1000000) / 10000) / 100
