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

// zonalSize is the smallest pool size of at least nodes whose sides, split at the base and a spot
// percentage (pool.SplitSizes), each hold the same number of nodes in every one of zones, with the
// on-demand base rounded up to whole nodes per zone too; and that percentage: the largest up to
// the asked one at which both sides split over the zones (issue #40, item 5). A size and a base
// that are whole nodes per zone always split at some percentage (at worst one that puts no node
// on spot at that size), so no node is added to round a side: a percentage of at most 50 keeps at
// least half the nodes on demand at every size (mix.go), and the spot share above the floor is as
// large as the zones allow. Before, the asked 50 % was kept and nodes added until the sides split
// (12 serving nodes over three zones became 15, three of them idle). With one zone, all stand.
func zonalSize(nodes, base, spotPercentage, zones int) (size, onDemandBase, percentage int) {
	if zones <= 1 {
		return nodes, base, spotPercentage
	}
	base = pool.ZonalSize(base, zones)
	size = pool.ZonalSize(max(nodes, base), zones)
	s := pool.Sizes{Min: size, Max: size, Desired: size}
	for percentage = spotPercentage; percentage > 0; percentage-- {
		if od, spot := pool.SplitSizes(s, base, percentage); pool.SplitsOverZones(od.Desired, zones) && pool.SplitsOverZones(spot.Desired, zones) {
			break
		}
	}
	return size, base, percentage
}

// nodeLocations are the zones a GCP answer's pool spans, for its node_locations (issue #40, item
// 10): the first zones of the region that offer the node's GPU (catalog.GKEAcceleratorZones), so
// that the answer plans and applies as sized whatever zones the cluster has (a regional cluster in
// us-central1 may span a, b, c and f, and a pool at the region without node_locations takes all
// four, where the answer was sized for three). ok is false when the region has fewer zones that
// offer the GPU than the answer spans: the answer cannot run there. Nil (the pool's location alone)
// when the catalog does not know the GPU's zones in the region (N1's attachable GPUs, regions
// outside its list), and on AWS.
func nodeLocations(n catalog.NodeType, region string, zones int, cloud catalog.Cloud) (locations []string, ok bool) {
	if cloud != catalog.GCP {
		return nil, true
	}
	offered, known := catalog.GKEAcceleratorZones(n.Accelerator, region)
	switch {
	case !known:
		return nil, true
	case len(offered) < zones:
		return nil, false
	}
	return offered[:zones], true
}
