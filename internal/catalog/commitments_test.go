package catalog

import (
	"strings"
	"testing"
)

// Every node type the catalog prices has a commitment with a rate, a source and a date.
func TestEveryFamilyHasASourcedCommitment(t *testing.T) {
	for _, cloud := range []Cloud{AWS, GCP} {
		for _, n := range NodeTypes(cloud) {
			c, ok := CommitmentFor(n)
			if !ok {
				t.Errorf("%s (%s): no commitment", n.Name, n.Family)
				continue
			}
			if c.DiscountPercent <= 0 || c.DiscountPercent >= 100 || c.Source == "" || !isoDate.MatchString(c.AsOf) || !strings.HasPrefix(c.Name, "1-year") {
				t.Errorf("%s: %+v", n.Name, c)
			}
			if c.Estimate != strings.HasPrefix(c.Source, "gpufleet estimate") {
				t.Errorf("%s: estimate %v but source %q", n.Name, c.Estimate, c.Source)
			}
		}
	}
}

// The committed rate is list × (1 − commitment) × (1 − discount_percent); an on-demand override is
// the rate paid and gets no commitment on top.
func TestCommittedRate(t *testing.T) {
	g2, _ := GKENodeType("g2-standard-8", "", 0)
	p5, _ := AWSInstanceType("p5.48xlarge")
	g5, _ := AWSInstanceType("g5.xlarge")
	tests := []struct {
		name    string
		pricing Pricing
		n       NodeType
		region  string
		want    float64
		ok      bool
		commit  string
	}{
		// $0.8536 × 0.63
		{"GCP CUD", Pricing{}, g2, "us-central1", 0.5378, true, "1-year resource-based committed use discount (CUD)"},
		// $0.8536 × 0.63 × 0.90
		{"CUD under a 10 % enterprise discount", Pricing{DiscountPercent: 10}, g2, "us-central1", 0.484, true, "1-year resource-based committed use discount (CUD)"},
		// $55.04 × 0.625
		{"AWS Savings Plan", Pricing{}, p5, "us-east-1", 34.4, true, "1-year EC2 Instance Savings Plan, no upfront"},
		{"spot-only override keeps the commitment", Pricing{Overrides: map[string]Override{"p5.48xlarge": {SpotUSD: 10}}}, p5, "us-east-1", 34.4, true, "1-year EC2 Instance Savings Plan, no upfront"},
		{"on-demand override: no commitment on top", Pricing{Overrides: map[string]Override{"g5.xlarge": {OnDemandUSD: 0.7}}}, g5, "us-east-1", 0, false, ""},
	}
	for _, tt := range tests {
		got, c, ok, err := tt.pricing.Committed(tt.n, tt.region)
		if err != nil || ok != tt.ok || got != tt.want || c.Name != tt.commit {
			t.Errorf("%s: %g %q ok %v err %v, want %g %q ok %v", tt.name, got, c.Name, ok, err, tt.want, tt.commit, tt.ok)
		}
	}
	if _, _, _, err := (Pricing{}).Committed(p5, "eu-west-1"); err == nil {
		t.Error("p5.48xlarge is not sold in eu-west-1: want the pricing error")
	}
}

// GCP machine series with their own 1-year rate in the SKU prices carry it; A3 Ultra and A4, which
// have none, take A3 Mega's, flagged.
func TestGCPSeriesCommitments(t *testing.T) {
	for name, want := range map[string]struct {
		pct      float64
		estimate bool
	}{
		"g2-standard-8":  {37, false},
		"a2-highgpu-8g":  {37, false},
		"a3-highgpu-8g":  {30.6, false},
		"a3-megagpu-8g":  {31.2, false},
		"a3-ultragpu-8g": {31.2, true},
		"a4-highgpu-8g":  {31.2, true},
		"a2-ultragpu-1g": {37, false},
	} {
		n, err := GKENodeType(name, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := CommitmentFor(n)
		if !ok || c.DiscountPercent != want.pct || c.Estimate != want.estimate {
			t.Errorf("%s: %+v, want %g %% (estimate %v)", name, c, want.pct, want.estimate)
		}
	}
}
