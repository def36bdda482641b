package catalog

import (
	"fmt"
	"math"
)

// HoursPerMonth is the month cost estimates use: 365 × 24 / 12, the convention of AWS and Google
// pricing calculators.
const HoursPerMonth = 730

// Override is a negotiated rate for one instance/machine type, in USD per node-hour. A zero field
// keeps the catalog's number: OnDemandUSD 0 keeps the (discounted) catalog on-demand price; SpotUSD 0
// keeps the catalog's spot/on-demand ratio, applied to the overridden on-demand price.
type Override struct {
	OnDemandUSD float64
	SpotUSD     float64
}

// Pricing is how a user's bill differs from list prices: an across-the-board discount (EDP, CUD,
// Savings Plans approximated as a percentage) and per-type overrides. The zero value is list prices.
type Pricing struct {
	DiscountPercent float64             // off on-demand; spot is a market price and is not discounted
	Overrides       map[string]Override // key: EC2 instance type or GKE machine type name
}

// Hourly returns what one node of n costs per hour in region, on-demand and on spot.
//
// An override wins and is not discounted, since a negotiated rate already is the discounted rate. It
// applies in every region, so an override with both prices set also prices a region the catalog has
// no row for; anything it leaves to the catalog needs the catalog's row, and its absence is an error.
// For GKE n1 machine types the override is the price of the whole node, GPUs included.
func (p Pricing) Hourly(n NodeType, region string) (onDemand, spot float64, err error) {
	if p.DiscountPercent < 0 || p.DiscountPercent >= 100 || math.IsNaN(p.DiscountPercent) {
		return 0, 0, fmt.Errorf("discount of %g %% is out of range: use 0 to less than 100", p.DiscountPercent)
	}
	row, hasRow := n.Price(region)
	o, hasOverride := p.Overrides[n.Name]
	if hasOverride && (o.OnDemandUSD < 0 || o.SpotUSD < 0) {
		return 0, 0, fmt.Errorf("price override for %s is negative", n.Name)
	}
	needsRow := !hasOverride || o.OnDemandUSD == 0 || o.SpotUSD == 0
	if needsRow && !hasRow {
		return 0, 0, fmt.Errorf("no price for %s in %s: the type is not offered there or the catalog lacks it; set a price override with both on-demand and spot", n.Name, region)
	}

	switch {
	case !hasOverride:
		return round4(row.OnDemandUSD * (1 - p.DiscountPercent/100)), row.SpotUSD, nil
	case o.OnDemandUSD > 0:
		onDemand = o.OnDemandUSD
	default:
		onDemand = round4(row.OnDemandUSD * (1 - p.DiscountPercent/100))
	}
	switch {
	case o.SpotUSD > 0:
		spot = o.SpotUSD
	case o.OnDemandUSD > 0 && row.OnDemandUSD > 0:
		spot = round4(o.OnDemandUSD * row.SpotUSD / row.OnDemandUSD)
	default:
		spot = row.SpotUSD
	}
	return onDemand, spot, nil
}
