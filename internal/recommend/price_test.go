package recommend

import (
	"context"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// A training pool that runs 40 % of the month (292 of 730 h) is priced for 292 h: the answer, the
// naive choice and every runner-up. Its hourly price and pick are those of a 730-hour month.
func TestRecommend_hoursPerMonthPartMonthTraining(t *testing.T) {
	w := Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 30}
	req := Request{Workload: w, Replicas: 4, Clouds: both, Regions: []string{"us-*"}}
	e := env(t, catalog.Pricing{})
	full, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	req.HoursPerMonth = 292
	part, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	for _, cloud := range both {
		f, p := full.Results[cloud], part.Results[cloud]
		if f.Best.Label() != p.Best.Label() || f.Best.HourlyUSD != p.Best.HourlyUSD {
			t.Fatalf("%s: hours changed the pick: %s $%g/h vs %s $%g/h", cloud, f.Best.Label(), f.Best.HourlyUSD, p.Best.Label(), p.Best.HourlyUSD)
		}
		if want := monthly(p.Best.HourlyUSD, 292); p.Best.MonthlyUSD != want || f.Best.MonthlyUSD != monthly(f.Best.HourlyUSD, 730) {
			t.Errorf("%s: monthly %g at 292 h (want %g), %g at 730 h", cloud, p.Best.MonthlyUSD, want, f.Best.MonthlyUSD)
		}
		if p.Naive == nil || p.Naive.MonthlyUSD != monthly(p.Naive.HourlyUSD, 292) {
			t.Errorf("%s: naive %+v not priced at 292 h", cloud, p.Naive)
		}
		for _, r := range p.RunnersUp {
			if r.MonthlyUSD != monthly(r.HourlyUSD, 292) {
				t.Errorf("%s: runner-up %s $%g/month at $%g/h", cloud, r.Label(), r.MonthlyUSD, r.HourlyUSD)
			}
		}
	}
}

func TestRecommend_hoursPerMonthOutOfRange(t *testing.T) {
	for _, h := range []float64{0.5, -1, 745, 10000} {
		_, err := Recommend(context.Background(), Request{Workload: prodSmall, Clouds: both, Regions: []string{"*"}, HoursPerMonth: h}, env(t, catalog.Pricing{}))
		assertArgument(t, err, "hours_per_month", "between 1 and 744")
	}
}
