# Right-sizing rules.
#   GF-RS-001 deny  the GPU (or MIG slice) memory is smaller than workload.gpu_memory_gib
#   GF-RS-002 warn  GPU/slice memory is more than oversize_factor x the need; names the cheapest
#                   fitting option on the same cloud and region
#   GF-RS-003 warn  inference or development on a full training-class GPU when a MIG slice or a
#                   smaller inference GPU fits
package gpufleet.rules.rightsizing

import data.gpufleet.documents
import data.gpufleet.lib

# ---------------------------------------------------------------------------------------------
# GF-RS-001
# ---------------------------------------------------------------------------------------------

deny contains lib.deny_finding("GF-RS-001", doc, _memory_attribute(doc), text) if {
	some doc in documents.pools
	have := doc.gpu.slice_memory_gib
	need := doc.workload.gpu_memory_gib
	have < need
	is_number(have)
	is_number(need)
	text := sprintf("%s has %s GiB of GPU memory but workload.gpu_memory_gib needs %s GiB; %s", [
		_unit(doc), lib.gib(have), lib.gib(need), _rs001_fix(doc),
	])
}

_rs001_fix(doc) := "choose a larger MIG profile (gpu.mig) or a GPU with more memory" if {
	_uses_mig(doc)
} else := "choose an instance or machine type whose GPU has enough memory, or lower workload.gpu_memory_gib"

_memory_attribute(doc) := "gpu.mig.profile" if {
	is_string(doc.gpu.mig_profile)
} else := "gpu.mig.config" if {
	is_string(doc.gpu.mig_config)
} else := "workload.gpu_memory_gib"

# ---------------------------------------------------------------------------------------------
# GF-RS-002: one pass collects the oversized pools; the cheapest fitting option is looked up
# once per distinct [cloud, region, need, limit], not once per pool.
# ---------------------------------------------------------------------------------------------

warn contains lib.warn_finding("GF-RS-002", doc, _size_attribute(doc), text) if {
	some [key, doc] in _oversized
	suggestions := _suggestions
	text := sprintf("%s has %s GiB of GPU memory, more than %v x the %s GiB workload.gpu_memory_gib; %s", [
		_unit(doc), lib.gib(doc.gpu.slice_memory_gib), lib.oversize_factor, lib.gib(key[2]), suggestions[key],
	])
}

# [[cloud, region, need, largest memory that is not oversized], pool] of the oversized pools.
_oversized := [[[doc.cloud, doc.region, need, limit], doc] |
	some doc in documents.pools
	need := doc.workload.gpu_memory_gib
	limit := lib.oversize_factor * need
	doc.gpu.slice_memory_gib > limit
	is_number(doc.gpu.slice_memory_gib)
	need > 0
]

_suggestions := {key: _suggestion_text(_cheapest_fit(key)) |
	some [key, _] in _oversized
}

# The cheapest option that fits and is not itself oversized, else the cheapest that fits. The
# catalog lists the cheapest option of each memory size per cloud and region
# (catalog.replica_options), so this is the cheapest of a few entries.
_cheapest_fit([cloud, region, need, limit]) := o if {
	o := min({x | some x in data.gpufleet.catalog.replica_options[cloud][region]; x[1] >= need; x[1] <= limit})
} else := o if {
	o := min({x | some x in data.gpufleet.catalog.replica_options[cloud][region]; x[1] >= need})
} else := []

_suggestion_text([]) := "the catalog prices no fitting option for this cloud and region; choose a smaller GPU or a MIG profile"

_suggestion_text(o) := sprintf("the cheapest fitting option in the same region is %s", [option_text(o)]) if count(o) > 0

_size_attribute(doc) := "gpu.mig" if {
	_uses_mig(doc)
} else := _shape_attribute[doc.cloud]

_shape_attribute := {"aws": "instance_types", "gcp": "machine_type"}

# ---------------------------------------------------------------------------------------------
# GF-RS-003: one pass collects the candidates; the cheapest smaller inference GPU is looked up
# once per distinct [cloud, region, need, GPU memory], not once per pool.
# ---------------------------------------------------------------------------------------------

warn contains lib.warn_finding("GF-RS-003", doc, attribute, text) if {
	some [key, doc] in _training_gpu_for_inference
	gpu_options := _smaller_inference_gpus
	slice := _smallest_mig_fit(doc.gpu.model, key[2], key[3])
	count(slice) + count(gpu_options[key]) > 0
	attribute := _rs003_attribute(slice, doc)
	text := sprintf("%s workload on a whole training-class %s GPU (%s GiB) needing %s GiB; %s", [
		doc.workload.kind, doc.gpu.model, lib.gib(key[3]), lib.gib(key[2]),
		_rs003_text(slice, gpu_options[key]),
	])
}

# [[cloud, region, need, GPU memory], pool] of inference or development on a whole
# training-class GPU.
_training_gpu_for_inference := [[[doc.cloud, doc.region, need, doc.gpu.slice_memory_gib], doc] |
	some doc in documents.pools
	doc.workload.kind in {"inference", "development"}
	doc.gpu.class == "training"
	lib.full_gpu(doc)
	need := doc.workload.gpu_memory_gib
	is_number(need)
]

_smaller_inference_gpus := {key: _cheapest_smaller_inference(key) |
	some [key, _] in _training_gpu_for_inference
}

# Cheapest whole inference-class GPU with need <= memory < the current GPU's ([] when none).
_cheapest_smaller_inference([cloud, region, need, have]) := o if {
	o := min({x |
		some x in data.gpufleet.catalog.inference_gpu_options[cloud][region]
		x[1] >= need
		x[1] < have
	})
} else := []

# The smallest MIG profile of the pool's own GPU that fits: [memory, name] ([] when none).
_smallest_mig_fit(model, need, have) := sort(fits)[0] if {
	fits := [[p.memory_gib, name] |
		some name, p in lib.gpu(model).mig_profiles
		not contains(name, "+")
		p.memory_gib >= need
		p.memory_gib < have
	]
	count(fits) > 0
} else := []

_rs003_attribute(slice, doc) := "gpu.mig.profile" if {
	count(slice) > 0
} else := _shape_attribute[doc.cloud]

_rs003_text(slice, []) := sprintf("the MIG slice %s (%s GiB) fits: set gpu.mig.profile = %q", [slice[1], lib.gib(slice[0]), slice[1]])

_rs003_text([], o) := sprintf("a smaller inference GPU fits: the cheapest in the same region is %s", [option_text(o)]) if {
	count(o) > 0
}

_rs003_text(slice, o) := sprintf("the MIG slice %s (%s GiB) fits (set gpu.mig.profile = %q), and so does a smaller inference GPU: the cheapest in the same region is %s", [
	slice[1], lib.gib(slice[0]), slice[1], option_text(o),
]) if {
	count(slice) > 0
	count(o) > 0
}

# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------

_uses_mig(doc) if is_string(doc.gpu.mig_profile)

_uses_mig(doc) if is_string(doc.gpu.mig_config)

# "the MIG slice 1g.10gb of H100-80GB", "one H100-80GB GPU", ...
_unit(doc) := sprintf("the MIG slice %s of %s", [doc.gpu.mig_profile, doc.gpu.model]) if {
	is_string(doc.gpu.mig_profile)
} else := sprintf("the smallest slice of MIG config %s on %s", [doc.gpu.mig_config, doc.gpu.model]) if {
	is_string(doc.gpu.mig_config)
} else := sprintf("one %s GPU", [doc.gpu.model]) if {
	is_string(doc.gpu.model)
} else := "one GPU"

# An option of catalog.replica_options: [unit_usd, memory_gib, "gpu" | "mig", class, text, gpu_usd].
option_text(o) := sprintf("%s at %s/h per GPU", [o[4], lib.usd(o[0])]) if o[2] == "gpu"

option_text(o) := sprintf("%s at %s/h per slice (%s/h per GPU)", [o[4], lib.usd(o[0]), lib.usd(o[5])]) if o[2] == "mig"
