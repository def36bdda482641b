package pool

import "github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"

// Suffixes of the cloud objects behind a pool.
const (
	SuffixOnDemand = "-od"
	SuffixSpot     = "-spot"
)

// Capacity types of a pool side, in EKS's spelling (GKE maps spot to node_config.spot).
const (
	CapacityOnDemand      = "ON_DEMAND"
	CapacitySpot          = "SPOT"
	CapacityCapacityBlock = "CAPACITY_BLOCK"
)

// SpotCount is the spot share of size nodes: floor(max(size-base, 0) * percentage / 100).
func SpotCount(size, base, percentage int) int {
	above := size - base
	if above <= 0 || percentage <= 0 {
		return 0
	}
	if percentage > 100 {
		percentage = 100
	}
	return above * percentage / 100
}

// SplitSizes splits min, max and desired alike. Both sides stay ordered (min <= desired <= max)
// because the spot count grows by at most one node per node of size.
func SplitSizes(total Sizes, base, percentage int) (onDemand, spot Sizes) {
	split := func(n int) (int, int) {
		s := SpotCount(n, base, percentage)
		return n - s, s
	}
	onDemand.Min, spot.Min = split(total.Min)
	onDemand.Max, spot.Max = split(total.Max)
	onDemand.Desired, spot.Desired = split(total.Desired)
	return onDemand, spot
}

// Side is one cloud object backing the pool: an EKS node group or a GKE node pool.
type Side struct {
	Name         string
	CapacityType string
	Sizes        Sizes
	// BlockHourlyUSD prices a capacity block side: per instance-hour, for all of its instances.
	BlockHourlyUSD float64
}

// StartSizeKnown reports whether the sides' sizes at creation are known: not for a GKE pool whose
// size the autoscaler owns from a min_size above 0 while its zones are not known yet (the
// cluster's, at apply), since GKE rounds each side up to the same number of nodes in every zone.
func (s Spec) StartSizeKnown() bool {
	if s.Cloud != catalog.GCP || !s.AutoscalerOwnsSize || len(s.Zones) > 0 {
		return true
	}
	od, spot := SplitSizes(s.Scaling, s.Capacity.OnDemandBase, s.Capacity.SpotPercentage)
	return od.Desired == 0 && spot.Desired == 0
}

// Spot reports whether the side runs on spot capacity.
func (s Side) Spot() bool { return s.CapacityType == CapacitySpot }

// Sides returns the cloud objects the pool needs: "<name>-od" and "<name>-spot", leaving out a side
// whose max is 0. Capacity blocks replace on-demand on EKS. On GKE, where sizes are per zone, a
// side whose size the autoscaler owns starts at its min_size rounded up to the same number of
// nodes in each of the pool's zones (ZonalSize), when the zones are known.
func (s Spec) Sides() []Side {
	od, spot := SplitSizes(s.Scaling, s.Capacity.OnDemandBase, s.Capacity.SpotPercentage)
	odType, blockPrice := CapacityOnDemand, 0.0
	if r := s.Capacity.Reservation; r != nil && r.Type == ReservationCapacityBlock {
		odType, blockPrice = CapacityCapacityBlock, r.HourlyUSD
	}
	if s.Cloud == catalog.GCP && s.AutoscalerOwnsSize && len(s.Zones) > 0 {
		od.Desired, spot.Desired = ZonalSize(od.Desired, len(s.Zones)), ZonalSize(spot.Desired, len(s.Zones))
	}
	var sides []Side
	if od.Max > 0 {
		sides = append(sides, Side{Name: s.Name + SuffixOnDemand, CapacityType: odType, Sizes: od, BlockHourlyUSD: blockPrice})
	}
	if spot.Max > 0 {
		sides = append(sides, Side{Name: s.Name + SuffixSpot, CapacityType: CapacitySpot, Sizes: spot})
	}
	return sides
}
