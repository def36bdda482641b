package recommend

import (
	"fmt"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// GKE sizes node pools per zone (pool/zones.go): a pool at the region of a regional cluster runs the
// same number of nodes in each of its zones, three by default (pool.GKERegionalDefaultZones). A
// GCP answer is therefore sized for the zones the pool will span (Request.GKEZones): each side's
// node count (on-demand and spot) is a multiple of the zone count, as the pool resource requires
// of an enforced desired_size, and the answer is priced at every zone's nodes.
//
// Unless asked, an answer spans one zone (the pool pins node_locations to one zone of the region:
// training keeps its nodes, reservations and interconnect together, and development needs no
// more), except production inference whose replicas spread over nodes (catalog.SpreadsReplicas),
// which spreads them over GKE's three default zones of a regional pool, so that a zone's outage
// leaves replicas serving.

// Bounds of gke_zones: a GKE pool spans one zone at least; GCP regions have three or four.
const (
	minGKEZones = 1
	maxGKEZones = 4
)

// gkeZones is the zone count a GCP answer is sized for.
func (r Request) gkeZones() int {
	switch {
	case r.GKEZones != 0:
		return r.GKEZones
	case catalog.SpreadsReplicas(r.Workload.Kind, r.Workload.Environment, r.Replicas):
		return pool.GKERegionalDefaultZones
	}
	return 1
}

// checkGKEZones rejects a zone count no GKE pool has.
func checkGKEZones(req Request) error {
	if z := req.GKEZones; z != 0 && (z < minGKEZones || z > maxGKEZones) {
		return &catalog.ArgumentError{Argument: "gke_zones", Message: fmt.Sprintf("must be between %d and %d (the zones of one GCP region), got %d", minGKEZones, maxGKEZones, z)}
	}
	return nil
}

// zonalSize is the smallest pool size of at least nodes whose sides, split at the base and spot
// percentage (pool.SplitSizes), each hold the same number of nodes in every one of zones, with the
// on-demand base rounded up to whole nodes per zone too. With one zone, nodes and base stand.
func zonalSize(nodes, base, spotPercentage, zones int) (size, onDemandBase int) {
	if zones <= 1 {
		return nodes, base
	}
	base = pool.ZonalSize(base, zones)
	size = pool.ZonalSize(max(nodes, base), zones)
	for ; ; size += zones {
		s := pool.Sizes{Min: size, Max: size, Desired: size}
		od, spot := pool.SplitSizes(s, base, spotPercentage)
		if pool.SplitsOverZones(od.Desired, zones) && pool.SplitsOverZones(spot.Desired, zones) {
			return size, base
		}
	}
}
