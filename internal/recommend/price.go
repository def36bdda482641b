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
	if len(o.Spec.Validate()) > 0 {
		return candidate{}, false
	}
	d, err := pool.Derive(o.Spec, pool.Environment{Pricing: env.Pricing, Registry: env.Registry})
	if err != nil || d.PriceErr != nil {
		return candidate{}, false
	}
	o.HourlyUSD, o.MonthlyUSD = d.HourlyUSD, monthly(d.HourlyUSD, hours)
	return candidate{Option: o, derived: d}, true
}

// monthly is an hourly price over hours, to the cent.
func monthly(hourly, hours float64) float64 { return math.Round(hourly*hours*100) / 100 }
