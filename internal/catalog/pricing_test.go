package catalog

import (
	"math"
	"strings"
	"testing"
)

func TestPricingHourly(t *testing.T) {
	// A fixed node type, so the test does not move when catalog prices are refreshed.
	node := NodeType{Name: "x.large", Prices: []Price{
		{Region: "r1", OnDemandUSD: 10, SpotUSD: 4},
		{Region: "r2", OnDemandUSD: 12, SpotUSD: 6},
	}}
	tests := []struct {
		name          string
		pricing       Pricing
		region        string
		wantOD, wantS float64
		wantErr       []string
	}{
		{name: "list prices", region: "r1", wantOD: 10, wantS: 4},
		{name: "discount applies to on-demand only", pricing: Pricing{DiscountPercent: 25}, region: "r2", wantOD: 9, wantS: 6},
		{name: "override wins and is not discounted", pricing: Pricing{DiscountPercent: 25, Overrides: map[string]Override{"x.large": {OnDemandUSD: 7, SpotUSD: 3}}}, region: "r1", wantOD: 7, wantS: 3},
		{name: "override without spot keeps the catalog ratio", pricing: Pricing{Overrides: map[string]Override{"x.large": {OnDemandUSD: 5}}}, region: "r1", wantOD: 5, wantS: 2},
		{name: "spot-only override keeps discounted catalog on-demand", pricing: Pricing{DiscountPercent: 10, Overrides: map[string]Override{"x.large": {SpotUSD: 1.5}}}, region: "r1", wantOD: 9, wantS: 1.5},
		{name: "override for another type is ignored", pricing: Pricing{Overrides: map[string]Override{"y.large": {OnDemandUSD: 1, SpotUSD: 0.5}}}, region: "r2", wantOD: 12, wantS: 6},
		{name: "full override prices a region the catalog lacks", pricing: Pricing{Overrides: map[string]Override{"x.large": {OnDemandUSD: 8, SpotUSD: 2}}}, region: "r9", wantOD: 8, wantS: 2},
		{name: "missing region", region: "r9", wantErr: []string{"x.large", "r9"}},
		{name: "missing region, override needs the ratio", pricing: Pricing{Overrides: map[string]Override{"x.large": {OnDemandUSD: 8}}}, region: "r9", wantErr: []string{"x.large", "r9", "both on-demand and spot"}},
		{name: "discount out of range", pricing: Pricing{DiscountPercent: 100}, region: "r1", wantErr: []string{"discount", "100"}},
		{name: "negative discount", pricing: Pricing{DiscountPercent: -5}, region: "r1", wantErr: []string{"discount"}},
		{name: "negative override", pricing: Pricing{Overrides: map[string]Override{"x.large": {OnDemandUSD: -1}}}, region: "r1", wantErr: []string{"x.large", "negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			od, spot, err := tt.pricing.Hourly(node, tt.region)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("got %g/%g, want an error", od, spot)
				}
				for _, frag := range tt.wantErr {
					if !strings.Contains(err.Error(), frag) {
						t.Errorf("error %q lacks %q", err, frag)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(od-tt.wantOD) > 1e-9 || math.Abs(spot-tt.wantS) > 1e-9 {
				t.Errorf("got %g/%g, want %g/%g", od, spot, tt.wantOD, tt.wantS)
			}
		})
	}
}

func TestPricingOnCatalog(t *testing.T) {
	n, _ := AWSInstanceType("p5.48xlarge")
	od, spot, err := Pricing{DiscountPercent: 10}.Hourly(n, "us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	list, _ := n.Price("us-east-1")
	if math.Abs(od-list.OnDemandUSD*0.9) > 1e-4 || spot != list.SpotUSD {
		t.Errorf("got %g/%g from list %g/%g", od, spot, list.OnDemandUSD, list.SpotUSD)
	}
	if _, _, err := (Pricing{}).Hourly(n, "eu-west-1"); err == nil || !strings.Contains(err.Error(), "p5.48xlarge in eu-west-1") {
		t.Errorf("p5 in eu-west-1: %v", err)
	}
	if HoursPerMonth != 730 {
		t.Errorf("HoursPerMonth = %d", HoursPerMonth)
	}
}
