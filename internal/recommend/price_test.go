package recommend

import (
	"context"
	"math"
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

// A steady production service runs all on-demand: committed_monthly_usd prices its nodes at the
// family's 1-year rate for the whole month. Run 292 h a month, the commitment does not pay off.
func TestRecommend_commitmentForSteadyBaseline(t *testing.T) {
	e := env(t, catalog.Pricing{})
	req := Request{Workload: serve7B, Replicas: 3, Clouds: both, Regions: []string{"us-east-1", "us-central1"}}
	a, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	names := map[catalog.Cloud]string{catalog.AWS: "1-year Standard Reserved Instance, no upfront", catalog.GCP: "1-year resource-based committed use discount (CUD)"}
	for _, cloud := range both {
		b := a.Results[cloud].Best
		rate, c, ok, err := e.Pricing.Committed(b.Node, b.Region)
		if !ok || err != nil || b.SpotPercentage != 0 {
			t.Fatalf("%s: %s spot %d, commitment %v %v", cloud, b.Label(), b.SpotPercentage, ok, err)
		}
		want := monthly(float64(b.Nodes)*rate, 730)
		if b.Commitment != names[cloud] || c.Name != names[cloud] || b.CommittedMonthlyUSD != want || want >= b.MonthlyUSD {
			t.Errorf("%s: %s committed %q $%g, want %q $%g (< $%g pay-as-you-go)", cloud, b.Label(), b.Commitment, b.CommittedMonthlyUSD, names[cloud], want, b.MonthlyUSD)
		}
	}
	req.HoursPerMonth = 292
	if a, err = Recommend(context.Background(), req, e); err != nil {
		t.Fatal(err)
	}
	for _, cloud := range both {
		if b := a.Results[cloud].Best; b.Commitment != "" || b.CommittedMonthlyUSD != 0 {
			t.Errorf("%s at 292 h: commitment %q $%g, want none (a commitment bills 730 h)", cloud, b.Commitment, b.CommittedMonthlyUSD)
		}
	}
}

// Only the on-demand part is committed: interruptible production serving keeps its base on demand
// under the commitment and its spot nodes at the spot price. An on-demand override gets none.
func TestRecommend_commitmentCoversOnlyOnDemand(t *testing.T) {
	e := env(t, catalog.Pricing{})
	req := Request{Workload: serveSpot, Replicas: 4, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}}
	a, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	b := a.Results[catalog.AWS].Best
	od, spot := pool.SplitSizes(b.Spec.Scaling, b.OnDemandBase, b.SpotPercentage)
	if od.Desired == 0 || spot.Desired == 0 {
		t.Fatalf("%s: on-demand %d spot %d, want both", b.Label(), od.Desired, spot.Desired)
	}
	rate, _, _, _ := e.Pricing.Committed(b.Node, b.Region)
	_, spotUSD, _ := e.Pricing.Hourly(b.Node, b.Region)
	if want := monthly(float64(od.Desired)*rate, 730) + monthly(float64(spot.Desired)*spotUSD, 730); math.Abs(b.CommittedMonthlyUSD-want) > 0.005 {
		t.Errorf("%s: committed $%g, want $%g", b.Label(), b.CommittedMonthlyUSD, want)
	}
	over := catalog.Pricing{Overrides: map[string]catalog.Override{b.Node.Name: {OnDemandUSD: b.HourlyUSD}}}
	if a, err = Recommend(context.Background(), req, env(t, over)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Option{a.Results[catalog.AWS].Best} {
		if c.Node.Name == b.Node.Name && c.Commitment != "" {
			t.Errorf("%s under an on-demand override: commitment %q", c.Label(), c.Commitment)
		}
	}
}
