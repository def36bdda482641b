# Data residency.
#   GF-DR-001 deny  the pool's region or zones match none of the client's allowed_regions globs
#                   (not waivable; needs policy data)
package gpufleet.rules

import data.gpufleet.lib
import input as doc

# The region, then each zone, is matched against the globs; the message lists every location
# outside them and is built only for a pool that has one.
deny contains _dr001(globs) if {
	clients := data.gpufleet.clients
	globs := clients[doc.client].allowed_regions
	not lib.location_allowed(doc.region, globs)
	is_string(doc.region)
}

deny contains _dr001(globs) if {
	clients := data.gpufleet.clients
	globs := clients[doc.client].allowed_regions
	some zone in doc.zones
	not lib.location_allowed(zone, globs)
}

_dr001(globs) := lib.finding("GF-DR-001", _dr001_attribute[[doc.cloud, doc.region in outside]], text) if {
	outside := [location |
		some location in array.concat([doc.region], [zone | some zone in doc.zones])
		is_string(location)
		not lib.location_allowed(location, globs)
	]
	text := sprintf("%s outside client %q's allowed regions (%s); move the pool to an allowed region", [
		concat(", ", outside), doc.client, concat(", ", globs),
	])
}

# What to change, by [cloud, region outside]: the region (GKE: location) when it is outside,
# else the zones.
_dr001_attribute := {
	["aws", true]: "region",
	["gcp", true]: "location",
	["aws", false]: "subnet_ids",
	["gcp", false]: "node_locations",
}
