# Data residency.
#   GF-DR-001 deny  the pool's region or zones match none of the client's allowed_regions globs
#                   (not waivable; needs policy data)
package gpufleet.rules

import data.gpufleet.lib
import input as doc

# The region outside the globs: the finding is about the region (GKE: location) and lists the
# zones outside as well. Otherwise a zone outside: the finding is about the zones. The message is
# built only for a pool that has a location outside. Every pool of a client with allowed regions
# passes here: the globs are tried in the rule body (a call of lib.location_allowed costs OPA more),
# with every, which stops at the first glob that matches, as most pools' first or second does.
deny contains {"rule": "GF-DR-001", "attribute": {"aws": "region", "gcp": "location"}[doc.cloud], "text": text} if {
	clients := data.gpufleet.clients
	globs := clients[doc.client].allowed_regions
	is_string(doc.region) # before glob.match reads it: null (unknown) is an error there
	every p in globs {
		not glob.match(p, null, doc.region)
	}
	text := _dr001_text(array.concat([doc.region], _dr001_zones_outside(globs)), globs)
}

deny contains {"rule": "GF-DR-001", "attribute": {"aws": "subnet_ids", "gcp": "node_locations"}[doc.cloud], "text": text} if {
	some zone in doc.zones
	is_string(zone)
	clients := data.gpufleet.clients
	globs := clients[doc.client].allowed_regions
	every p in globs {
		not glob.match(p, null, zone)
	}
	not _dr001_region_outside(globs)
	text := _dr001_text(_dr001_zones_outside(globs), globs)
}

_dr001_region_outside(globs) if {
	is_string(doc.region)
	not lib.location_allowed(doc.region, globs)
}

_dr001_zones_outside(globs) := [zone |
	some zone in doc.zones
	is_string(zone)
	not lib.location_allowed(zone, globs)
]

_dr001_text(outside, globs) := sprintf("%s outside client %q's allowed regions (%s); move the pool to an allowed region", [
	concat(", ", outside), doc.client, concat(", ", globs),
])
