package render

import (
	"math"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Capacity is the pool capacity that stands for a ladder in the pool's policy document (the
// document has no ladder): a ladder with a spot rung may run every node on Spot VMs once the rungs
// before it have no capacity, so it shows as spot_percentage 100 over no on-demand base, and the
// rules about spot on production inference (GF-COST-001) and on work that does not checkpoint
// (GF-COST-003) judge that; a ladder without one shows spot_percentage 0, which GF-COST-002 judges
// for interruptible training. The reservation is the reservation rung's.
func Capacity(c Class, reservation *pool.Reservation) pool.Capacity {
	out := pool.Capacity{Reservation: reservation}
	if c.Has(RungSpot) {
		out.SpotPercentage = 100
	}
	return out
}

// ValidatePool runs the pool's own validation on what a ComputeClass shares with a node pool. Two
// of its rules are a node pool's, not a class's, and Validate has the class's own: the spot mix
// and reservation of one node pool (a ladder's rungs are separate node pools, so a spot rung
// beside a reservation rung is fine), and a node pool's name (a class's name is a label value).
func ValidatePool(s pool.Spec) []pool.Problem {
	s.Capacity = pool.Capacity{SpotPercentage: 100}
	var out []pool.Problem
	for _, p := range s.Validate() {
		if p.Path.String() != "name" {
			out = append(out, p)
		}
	}
	return out
}

// Derive derives the pool's values as a class runs it: pool.Derive, with the cost of the ladder's
// first rung, where GKE puts every node it can. Its spec carries Capacity(c, …).
func Derive(s pool.Spec, env pool.Environment, c Class) (pool.Derived, error) {
	d, err := pool.Derive(s, env)
	if err != nil {
		return d, err
	}
	// A class has no per-zone node pool sizes to round (pool.Spec.StartSizeKnown): its cost is known.
	d.HourlyUSD, d.MonthlyUSD, d.PriceErr, d.CostUnknown = 0, 0, nil, false
	// No price row is no error of the pool: the cost shows as unknown, with a warning (PriceErr).
	if hourly, priceErr := HourlyCost(s, d.Node, c, env.Pricing); priceErr != nil {
		d.PriceErr = priceErr
	} else {
		d.HourlyUSD = math.Round(hourly*10000) / 10000
		d.MonthlyUSD = math.Round(d.HourlyUSD*catalog.HoursPerMonth*100) / 100
	}
	return d, nil
}

// HourlyCost is what the class's nodes cost per hour at the pool's desired size, priced at the
// ladder's first rung: Spot at the spot price; a reservation, on-demand and flex-start at the
// on-demand price (a reservation bills its VMs at the on-demand price, or at a committed price
// given in pricing.overrides; flex-start is billed at a discount gpufleet's catalog does not
// hold, so the on-demand price is its upper bound).
func HourlyCost(s pool.Spec, node catalog.NodeType, c Class, pricing catalog.Pricing) (float64, error) {
	side := pool.Side{CapacityType: pool.CapacityOnDemand, Sizes: s.Scaling}
	if len(c.Ladder) > 0 && c.Ladder[0] == RungSpot {
		side.CapacityType = pool.CapacitySpot
	}
	return pool.Cost(node, s.Region, []pool.Side{side}, pricing, 1)
}
