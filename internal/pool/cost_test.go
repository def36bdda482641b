package pool

import (
	"math"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// Worked examples of spot and right-sizing savings, priced through the pools' own pricing path
// (Pricing.Hourly with overrides, the spot split, Cost) with the month length as an argument: the
// examples use a 720-hour month, the pools' estimates 730 hours.
const exampleMonth = 720.0

// usdEqual compares dollar amounts to the cent.
func usdEqual(got, want float64) bool { return math.Abs(got-want) < 0.005 }

// examplePool is a pool of one-GPU nodes: size nodes, the first base on-demand, the rest spot at
// spotPercentage.
func examplePool(cloud catalog.Cloud, nodeType string, size, base, spotPercentage int) Spec {
	s := Spec{Cloud: cloud, Name: "example", Region: "us-east-1", Scaling: Sizes{Min: 0, Max: size, Desired: size},
		Capacity: Capacity{SpotPercentage: spotPercentage, OnDemandBase: base}}
	if cloud == catalog.GCP {
		s.Region, s.MachineType = "us-central1", nodeType
	} else {
		s.InstanceTypes = []string{nodeType}
	}
	return s
}

func mustCost(t *testing.T, s Spec, p catalog.Pricing, hours float64) float64 {
	t.Helper()
	c, err := s.Cost(p, hours)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// 12 on-demand A100s at $4.00/h over a 720-hour month cost 12 × 4 × 720 = $34,560. Keeping 4 on
// demand at a negotiated $2.60/h ($7,488) and moving 8 to spot at $0.80/h ($4,608) costs $12,096:
// 65 % less. A widely quoted version of this example prints the "before" as $28,800, which is
// 10 GPUs (10 × 4 × 720), not 12.
func TestCost_workedExampleSpotA100(t *testing.T) {
	const a100 = "a2-highgpu-1g" // one A100 40GB per node
	if n, _ := catalog.GKENodeType(a100, "", 0); n.GPUCount != 1 || n.GPUModel != "A100-40GB" {
		t.Fatalf("%s is %d x %s", a100, n.GPUCount, n.GPUModel)
	}
	listRate := catalog.Pricing{Overrides: map[string]catalog.Override{a100: {OnDemandUSD: 4.00}}}
	mixRate := catalog.Pricing{Overrides: map[string]catalog.Override{a100: {OnDemandUSD: 2.60, SpotUSD: 0.80}}}

	before := mustCost(t, examplePool(catalog.GCP, a100, 12, 0, 0), listRate, exampleMonth)
	if !usdEqual(before, 34560) {
		t.Errorf("12 on-demand A100s: $%.2f, want $34,560", before)
	}
	if usdEqual(before, 28800) || !usdEqual(mustCost(t, examplePool(catalog.GCP, a100, 10, 0, 0), listRate, exampleMonth), 28800) {
		t.Errorf("$28,800 is the price of 10 GPUs, not 12")
	}

	mix := examplePool(catalog.GCP, a100, 12, 4, 100)
	od, spot := SplitSizes(mix.Scaling, mix.Capacity.OnDemandBase, mix.Capacity.SpotPercentage)
	if od.Desired != 4 || spot.Desired != 8 {
		t.Fatalf("split %d on-demand + %d spot, want 4 + 8", od.Desired, spot.Desired)
	}
	onDemandPart := mustCost(t, examplePool(catalog.GCP, a100, 4, 0, 0), mixRate, exampleMonth)
	spotPart := mustCost(t, examplePool(catalog.GCP, a100, 8, 0, 100), mixRate, exampleMonth)
	after := mustCost(t, mix, mixRate, exampleMonth)
	if !usdEqual(onDemandPart, 7488) || !usdEqual(spotPart, 4608) || !usdEqual(after, 12096) {
		t.Errorf("after: $%.2f on-demand + $%.2f spot = $%.2f, want $7,488 + $4,608 = $12,096", onDemandPart, spotPart, after)
	}
	if saving := 1 - after/before; math.Abs(saving-0.65) > 1e-9 {
		t.Errorf("saving %.4f, want 0.65", saving)
	}

	// The month is an argument: the pools' 730-hour month is not hidden in the arithmetic.
	if got := mustCost(t, examplePool(catalog.GCP, a100, 12, 0, 0), listRate, catalog.HoursPerMonth); !usdEqual(got, 35040) {
		t.Errorf("12 A100s over 730 h: $%.2f, want $35,040", got)
	}
	// And the pools' own estimate is the same path: Derive's hourly cost is Cost over one hour.
	d, err := Derive(mix, Environment{Pricing: mixRate})
	if err != nil {
		t.Fatal(err)
	}
	if !usdEqual(d.HourlyUSD*exampleMonth, after) || !usdEqual(d.MonthlyUSD, d.HourlyUSD*catalog.HoursPerMonth) {
		t.Errorf("Derive: $%g/h, $%g/month; want $%g/h", d.HourlyUSD, d.MonthlyUSD, after/exampleMonth)
	}
}

// Right-sizing 20 H100s to 7 at $5,000 per GPU-month (a 720-hour month): $100,000 → $35,000.
func TestCost_workedExampleRightSizeH100(t *testing.T) {
	const h100 = "p5.4xlarge" // one H100 80GB per instance
	if n, _ := catalog.AWSInstanceType(h100); n.GPUCount != 1 || n.GPUModel != "H100-80GB" {
		t.Fatalf("%s is %d x %s", h100, n.GPUCount, n.GPUModel)
	}
	rate := catalog.Pricing{Overrides: map[string]catalog.Override{h100: {OnDemandUSD: 5000 / exampleMonth}}}
	before := mustCost(t, examplePool(catalog.AWS, h100, 20, 0, 0), rate, exampleMonth)
	after := mustCost(t, examplePool(catalog.AWS, h100, 7, 0, 0), rate, exampleMonth)
	if !usdEqual(before, 100000) || !usdEqual(after, 35000) {
		t.Errorf("20 H100s $%.2f → 7 H100s $%.2f; want $100,000 → $35,000", before, after)
	}
}
