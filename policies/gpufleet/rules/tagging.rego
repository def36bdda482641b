# Tagging.
#   GF-TAG-001 deny  pool without a client; with policy data: a client missing from the
#                    registry, or a cost_center the gpufleet:cost-center tag does not carry
#                    (not waivable)
package gpufleet.rules

import data.gpufleet.documents
import data.gpufleet.lib
import input as doc

deny contains {"rule": "GF-TAG-001", "attribute": "client", "text": _no_client_text} if {
	doc.client == ""
}

_no_client_text := "the pool has no client, so its cost cannot be attributed and isolation and residency rules cannot apply; set client (official resources: the node label gpufleet.io/client or the tag gpufleet:client)"

deny contains {"rule": "GF-TAG-001", "attribute": "client", "text": text} if {
	clients := data.gpufleet.clients
	is_object(clients) # lib.has_registry, without a rule lookup for every pool
	not clients[doc.client]
	is_string(doc.client)
	doc.client != ""
	text := sprintf("client %q is not in the policy data's client registry (gpufleet.clients); fix the client name or register the client", [doc.client])
}

deny contains {"rule": "GF-TAG-001", "attribute": "tags", "text": text} if {
	clients := data.gpufleet.clients
	want := clients[doc.client].cost_center
	not doc.tags["gpufleet:cost-center"] == want
	not doc.tags["gpufleet_cost-center"] == want
	have := lib.tag_or_null(doc.tags, "cost-center")
	not _same(have, want)
	is_string(want)
	is_object(doc.tags)
	text := sprintf("client %q has cost centre %q but the pool's gpufleet:cost-center tag is %s; set the tag (gpufleet pools derive it from the policy data)", [doc.client, want, _shown(have)])
}

# Cost centres compare case-insensitively (GKE resource label values are lower case); a tag that is
# missing (null) is never the same (and lower would fail on it).
_same(have, want) if {
	is_string(have)
	lower(have) == lower(want)
}

_shown(null) := "missing"

_shown(have) := sprintf("%q", [have]) if have != null

# conftest --namespace gpufleet.rules on a plan (see lib.wrong_namespace). conftest asks every rule
# named deny_*; the provider and main ask deny only, so pools never pay for this one.
deny_plan contains lib.wrong_namespace if documents.whole_plan
