# Data residency.
#   GF-DR-001 deny  the pool's region or zones match none of the client's allowed_regions globs
#                   (not waivable; needs policy data)
package gpufleet.rules

import data.gpufleet.lib
import input as doc

# The region outside the globs: the finding is about the region (GKE: location) and lists the
# zones outside as well. Otherwise a zone outside: the finding is about the zones. The message is
# built only for a pool that has a location outside.
deny contains {"rule": "GF-DR-001", "attribute": {"aws": "region", "gcp": "location"}[doc.cloud], "text": text} if {
	clients := data.gpufleet.clients
	globs := clients[doc.client].allowed_regions
	not lib.location_allowed(doc.region, globs)
	is_string(doc.region)
	text := _dr001_text(array.concat([doc.region], _dr001_zones_outside(globs)), globs)
}

deny contains {"rule": "GF-DR-001", "attribute": {"aws": "subnet_ids", "gcp": "node_locations"}[doc.cloud], "text": text} if {
	some zone in doc.zones
	clients := data.gpufleet.clients
	globs := clients[doc.client].allowed_regions
	not lib.location_allowed(zone, globs)
	not _dr001_region_outside(globs)
	text := _dr001_text(_dr001_zones_outside(globs), globs)
}

_dr001_region_outside(globs) if {
	is_string(doc.region)
	not lib.location_allowed(doc.region, globs)
}

_dr001_zones_outside(globs) := [zone |
	some zone in doc.zones
	not lib.location_allowed(zone, globs)
]

_dr001_text(outside, globs) := sprintf("%s outside client %q's allowed regions (%s); move the pool to an allowed region", [
	concat(", ", outside), doc.client, concat(", ", globs),
])

# GF-DATA-003: the region is not in the plan (null): an AWS provider whose region comes only from
# the environment (AWS_REGION, a profile), or a location known at apply only. Residency and the
# cost estimates cannot judge the pool: said once, as a warning, never silently.
warn contains {"rule": "GF-DATA-003", "attribute": {"aws": "region", "gcp": "location"}[doc.cloud], "text": _no_region_text} if {
	doc.region == null
}

_no_region_text := "the pool's region is not in the plan (the provider's region comes only from the environment, such as AWS_REGION or a profile, or is known at apply only), so data residency (GF-DR-001) and the cost estimates (GF-COST-002's saving, GF-COST-004's budget) could not judge this pool; set region in the provider configuration or on the resource"
