package recommend

import (
	"fmt"
	"math"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// The recommendation's price model: what the pool will be paid for.
//
//   - hourly_usd is the pool at node_count nodes and its spot mix, at the pool resources' own
//     pricing (pool.Derive: catalog on-demand and per-region spot prices, the provider's
//     pricing.overrides and discount_percent);
//   - monthly_usd, naive_monthly_usd and the runners-up's monthly_usd are hourly_usd × the request's
//     hours_per_month (default 730 = 365 × 24 / 12): a pool that runs part of the month is priced
//     for the hours it runs.
//   - committed_monthly_usd prices the answer's on-demand nodes (its steady baseline) under a
//     1-year commitment of their family in the region (catalog.Commitment: Standard Reserved
//     Instance on AWS, resource-based CUD on GCP, rates with source and date), at
//     Pricing.Committed (the provider's
//     discount on top; none over an on-demand override). A commitment is billed every hour of the
//     month, used or not, so those nodes cost the committed rate × max(730, hours_per_month); spot
//     nodes stay at the spot price × hours_per_month. It is offered only when cheaper than
//     monthly_usd: with a 37 % rate, a pool that runs fewer than 730 × 0.63 ≈ 460 hours a month
//     is cheaper without. The pick is still the cheapest pay-as-you-go option: a commitment
//     is a purchase decision on top of the pool, not a property of it.
//
// The pool resources' estimated_monthly_cost_usd stays at 730 h: a pool declares capacity, not a
// duty cycle, and the budget rule (GF-COST-004) sums the pools' monthly figures as the most they can
// cost. hours_per_month belongs to the question "what will this workload cost", so it lives here.

// Bounds of hours_per_month: at least an hour, at most a 31-day month.
const (
	minHoursPerMonth = 1
	maxHoursPerMonth = 31 * 24
)

// checkHoursPerMonth defaults and checks the request's hours_per_month.
func checkHoursPerMonth(req *Request) error {
	if req.HoursPerMonth == 0 {
		req.HoursPerMonth = catalog.HoursPerMonth
	}
	if h := req.HoursPerMonth; math.IsNaN(h) || h < minHoursPerMonth || h > maxHoursPerMonth {
		return &catalog.ArgumentError{Argument: "hours_per_month", Message: fmt.Sprintf("must be between %d and %d hours (a 31-day month), got %g", minHoursPerMonth, maxHoursPerMonth, h)}
	}
	return nil
}

// price validates the candidate's pool and derives it: the pricing of the pool resources, at the
// provider's overrides and discount, over hours a month. ok is false for a pool the resources would
// reject, or one without a price in its region.
func price(o Option, env Env, hours float64) (candidate, bool) {
	for _, p := range o.Spec.Validate() {
		// A flex-start answer's on-demand side is flex-start VMs of a ComputeClass (capacity.go).
		if !o.FlexStart || p.Summary != pool.SummaryNotSoldOnDemand {
			return candidate{}, false
		}
	}
	d, err := pool.Derive(o.Spec, pool.Environment{Pricing: env.Pricing, Registry: env.Registry})
	if err != nil || d.PriceErr != nil {
		return candidate{}, false
	}
	o.HourlyUSD, o.MonthlyUSD = d.HourlyUSD, monthly(d.HourlyUSD, hours)
	o.CommittedMonthlyUSD, o.Commitment = committed(o, d, env.Pricing, hours)
	o.Ladder = ladder(o, d, env.Pricing)
	o.OutOfPocketHourlyUSD = o.HourlyUSD
	if len(o.Ladder) > 0 && o.Reservation != nil {
		o.OutOfPocketHourlyUSD = math.Round((o.HourlyUSD-o.Ladder[0].HourlyUSD)*10000) / 10000
	}
	return candidate{Option: o, derived: d}, true
}

// committed is the option's monthly cost with its on-demand nodes under their family's commitment,
// and the commitment's name; 0 and "" when none applies or it does not pay off over hours.
func committed(o Option, d pool.Derived, pricing catalog.Pricing, hours float64) (float64, string) {
	var onDemandNodes, spotNodes int
	for _, side := range d.Sides {
		switch side.CapacityType {
		case pool.CapacityOnDemand:
			onDemandNodes += side.Sizes.Desired
		case pool.CapacitySpot:
			spotNodes += side.Sizes.Desired
		}
	}
	if onDemandNodes == 0 {
		return 0, ""
	}
	rate, c, ok, err := pricing.Committed(d.Node, o.Region)
	if !ok || err != nil {
		return 0, ""
	}
	_, spot, err := pricing.Hourly(d.Node, o.Region)
	if err != nil {
		return 0, ""
	}
	total := monthly(float64(onDemandNodes)*rate, max(hours, catalog.HoursPerMonth)) + monthly(float64(spotNodes)*spot, hours)
	if total >= o.MonthlyUSD {
		return 0, ""
	}
	return math.Round(total*100) / 100, c.Name
}

// monthly is an hourly price over hours, to the cent.
func monthly(hourly, hours float64) float64 { return math.Round(hourly*hours*100) / 100 }
