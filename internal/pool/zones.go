package pool

import (
	"regexp"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// GKE sizes node pools per zone: initial_node_count and SetNodePoolSize's node_count are nodes in
// each of the pool's zones (container v1 API, NodePool.initial_node_count and
// SetNodePoolSizeRequest.node_count), while the autoscaling limits gpufleet sets are totals
// (NodePoolAutoscaling.total_min_node_count, total_max_node_count). A total size n over z zones
// is therefore GKE's ceil(n/z) per zone, ceil(n/z)·z nodes in all. These functions are what the
// GKE pool resource and the recommendation share about it.

// GKERegionalDefaultZones is how many zones a regional GKE cluster's node pools get when neither
// the cluster nor the pool names them: "By default, GKE replicates each node pool across three
// zones of the control plane's region" (GKE "Regional clusters",
// https://cloud.google.com/kubernetes-engine/docs/concepts/regional-clusters, read 2026-11-25).
const GKERegionalDefaultZones = 3

var gcpZone = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]+-[a-z]$`)

// DefaultZoneCount is how many zones a pool at a location gets by default: one for an EKS pool
// (sizes there are not per zone) or a GKE zonal location (europe-west4-a), GKERegionalDefaultZones
// for a GKE region (europe-west4). Where the zones are known, use their number instead.
func DefaultZoneCount(cloud catalog.Cloud, location string) int {
	if cloud != catalog.GCP || gcpZone.MatchString(location) {
		return 1
	}
	return GKERegionalDefaultZones
}

// PerZone is the per-zone node count GKE runs for a total of n nodes over zones: rounded up.
// Zones below 1 count as one.
func PerZone(n, zones int) int {
	zones = max(zones, 1)
	return (n + zones - 1) / zones
}

// ZonalSize is how many nodes GKE runs for a total of n over zones: PerZone(n, zones)·zones, the
// smallest multiple of the zone count that is at least n.
func ZonalSize(n, zones int) int { return PerZone(n, zones) * max(zones, 1) }

// SplitsOverZones reports whether a total of n nodes is the same number in each of zones.
func SplitsOverZones(n, zones int) bool { return n%max(zones, 1) == 0 }

// MoveIntoLimits is the size of a side whose size the autoscaler owns once its limits change: the
// current size when it lies within them, else the nearest size within them that is the same in
// every zone (at least ZonalSize(limits.Min), at most the largest multiple of zones not above
// limits.Max). With zones 0 or 1 it is the current size clamped into the limits.
func MoveIntoLimits(current int, limits Sizes, zones int) int {
	zones = max(zones, 1)
	switch {
	case current >= limits.Min && current <= limits.Max:
		return current
	case current < limits.Min:
		return ZonalSize(limits.Min, zones)
	}
	return limits.Max / zones * zones
}
