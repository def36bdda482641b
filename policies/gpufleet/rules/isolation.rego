# Isolation rules.
#   GF-ISO-001 deny  a GPU pool without the nvidia.com/gpu NO_SCHEDULE taint (not waivable)
#   GF-ISO-002 deny  a "dedicated" client's pool without its gpufleet.io/client taint, or a pool
#                    claimed by several clients
#   GF-ISO-003 deny  time-slicing or MPS in production
#   GF-ISO-004 deny  a client with isolation "mig" on shared GPUs or whole GPUs without MIG
package gpufleet.rules

import data.gpufleet.lib
import input as doc

# GF-ISO-001: NO_EXECUTE also keeps other pods off, so it is accepted as well. The exact taint
# the provider writes is checked first (one membership test); other spellings after.
deny contains {"rule": "GF-ISO-001", "attribute": "taints", "text": _iso001_text} if {
	not {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"} in doc.taints
	not lib.gpu_tainted(doc.taints)
	is_array(doc.taints)
}

_iso001_text := "no nvidia.com/gpu taint with effect NO_SCHEDULE, so pods that need no GPU can land on GPU nodes; add the taint nvidia.com/gpu=present:NO_SCHEDULE"

# GF-ISO-002: dedicated client without its client taint.
deny contains {"rule": "GF-ISO-002", "attribute": "taints", "text": text} if {
	clients := data.gpufleet.clients
	clients[doc.client].isolation == "dedicated"
	not {"key": "gpufleet.io/client", "value": doc.client, "effect": "NO_SCHEDULE"} in doc.taints
	not lib.client_tainted(doc.taints, doc.client)
	is_array(doc.taints)
	text := sprintf("client %q has isolation \"dedicated\" but the pool has no taint gpufleet.io/client=%s:NO_SCHEDULE, so other clients' pods can land on its nodes; add the taint", [doc.client, doc.client])
}

# GF-ISO-002: one pool, several clients (client, gpufleet.io/client label, gpufleet:client tag,
# gpufleet.io/client taints). Cheap tests first: a label or tag, or a client taint, that differs
# from client; only then are the claims collected.
deny contains _iso002_shared if {
	doc.labels["gpufleet.io/client"] != doc.client
	count(lib.client_claims(doc)) > 1
}

deny contains _iso002_shared if {
	doc.tags["gpufleet:client"] != doc.client
	count(lib.client_claims(doc)) > 1
}

deny contains _iso002_shared if {
	doc.tags.gpufleet_client != doc.client
	count(lib.client_claims(doc)) > 1
}

deny contains _iso002_shared if {
	some t in doc.taints
	t.key == "gpufleet.io/client"
	t.value != doc.client
	count(lib.client_claims(doc)) > 1
}

_iso002_shared := {"rule": "GF-ISO-002", "attribute": "client", "text": sprintf(
	"the pool is claimed by several clients (%s) across client, the gpufleet.io/client label, the gpufleet:client tag and gpufleet.io/client taints; give each client its own pool",
	[concat(", ", sort(lib.client_claims(doc)))],
)}

# GF-ISO-003
deny contains {"rule": "GF-ISO-003", "attribute": "gpu.sharing.strategy", "text": text} if {
	doc.workload.environment == "production"
	strategy := doc.gpu.sharing.strategy
	is_string(strategy)
	text := sprintf("GPU sharing (%s) in production gives replicas on one GPU no memory or fault isolation; remove gpu.sharing, or partition the GPU with MIG (gpu.mig)", [strategy])
}

# GF-ISO-004
deny contains {"rule": "GF-ISO-004", "attribute": "gpu.mig", "text": text} if {
	clients := data.gpufleet.clients
	clients[doc.client].isolation == "mig"
	problem := _iso004_problem
	text := sprintf("client %q needs hardware isolation (isolation \"mig\") but the pool %s; %s", [doc.client, problem, _iso004_fix])
}

_iso004_problem := sprintf("shares GPUs with %s", [doc.gpu.sharing.strategy]) if {
	is_string(doc.gpu.sharing.strategy)
} else := "runs whole GPUs without MIG" if {
	lib.full_gpu(doc)
}

_iso004_fix := "set gpu.mig (a profile or a config such as all-balanced) and drop gpu.sharing" if {
	count(lib.gpu(doc.gpu.model).mig_profiles) > 0
} else := sprintf("%s has no MIG: choose a MIG-capable GPU (A100, A30, H100, H200, B200) and set gpu.mig", [doc.gpu.model]) if {
	is_string(doc.gpu.model)
} else := "choose a MIG-capable GPU and set gpu.mig"
