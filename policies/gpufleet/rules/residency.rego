# Data residency.
#   GF-DR-001 deny  the pool's region or zones match none of the client's allowed_regions globs
#                   (not waivable; needs policy data)
#
# In a plan the globs are matched once per distinct [cloud, client, region, zones], not once per
# pool; the provider's single document is matched directly.
package gpufleet.rules.residency

import data.gpufleet.documents
import data.gpufleet.lib

# One document (the provider): matched directly, without grouping. The common case, a region
# and zones inside the globs, is settled before any message is built.
deny contains lib.deny_finding("GF-DR-001", doc, verdict.attribute, verdict.text) if {
	[doc] := documents.pools
	globs := data.gpufleet.clients[doc.client].allowed_regions
	not _all_allowed(doc.region, doc.zones, globs)
	verdict := _verdict([doc.cloud, doc.client, doc.region, doc.zones])
	count(verdict.outside) > 0
}

# A plan: one verdict per location group.
deny contains lib.deny_finding("GF-DR-001", doc, verdict.attribute, verdict.text) if {
	lib.has_registry
	count(documents.pools) > 1
	verdicts := _violations
	count(verdicts) > 0
	some [key, doc] in _located
	verdict := verdicts[key]
}

_all_allowed(region, zones, globs) if {
	lib.location_allowed(region, globs)
	every zone in lib.arr(zones) {
		lib.location_allowed(zone, globs)
	}
}

# [[cloud, client, region, zones], pool] of the pools whose client has allowed_regions.
_located := [[[doc.cloud, doc.client, doc.region, doc.zones], doc] |
	some doc in documents.pools
	data.gpufleet.clients[doc.client].allowed_regions
]

# location group -> verdict, for the groups with a region or zone outside the allowed globs.
_violations := {key: verdict |
	some [key, _] in _located
	verdict := _verdict(key)
	count(verdict.outside) > 0
}

_verdict([cloud, client, region, zones]) := {
	"outside": outside,
	"attribute": _attribute(cloud, region, outside),
	"text": sprintf("%s outside client %q's allowed regions (%s); move the pool to an allowed region", [
		concat(", ", outside), client, concat(", ", globs),
	]),
} if {
	globs := data.gpufleet.clients[client].allowed_regions
	outside := [location |
		some location in array.concat(_region(region), lib.arr(zones))
		not lib.location_allowed(location, globs)
	]
}

_region(region) := [region] if {
	is_string(region)
} else := []

# What to change: the region (GKE: location) when it is outside, else the zones.
_attribute(cloud, region, outside) := _region_attribute[cloud] if {
	region in outside
} else := _zones_attribute[cloud]

_region_attribute := {"aws": "region", "gcp": "location"}

_zones_attribute := {"aws": "subnet_ids", "gcp": "node_locations"}
