package catalog

import (
	"strings"
	"testing"
)

// Every node type the catalog prices has a commitment in every region it is priced in, with a
// rate, a source and a date.
func TestEveryFamilyHasASourcedCommitment(t *testing.T) {
	for _, cloud := range []Cloud{AWS, GCP} {
		for _, n := range NodeTypes(cloud) {
			for _, row := range n.Prices {
				c, ok := CommitmentFor(n, row.Region)
				if !ok {
					t.Errorf("%s (%s) in %s: no commitment", n.Name, n.Family, row.Region)
					continue
				}
				if c.DiscountPercent <= 0 || c.DiscountPercent >= 100 || c.Source == "" || !isoDate.MatchString(c.AsOf) || !strings.HasPrefix(c.Name, "1-year") {
					t.Errorf("%s in %s: %+v", n.Name, row.Region, c)
				}
				if c.Estimate != strings.HasPrefix(c.Source, "gpufleet estimate") {
					t.Errorf("%s in %s: estimate %v but source %q", n.Name, row.Region, c.Estimate, c.Source)
				}
			}
		}
	}
}

// AWS families whose on-demand list prices in the catalog are the ones the ec2instances.info data
// gives carry their own 1-year Standard Reserved Instance rate (no upfront), region by region:
// 1 − reserved ÷ on-demand of the family's reference type there. A region without a reserved price
// in the data takes the family's base-region rate, flagged as an estimate; families whose list price changed
// after the data (p4d, p4de, p5, p5en) or that it lacks (p3 has no reserved offer, p5e, p6-b200)
// keep the p5 figure.
func TestAWSCommitmentsFromReservedRates(t *testing.T) {
	for _, tt := range []struct {
		typ, region string
		pct         float64
		estimate    bool
		source      string // a part of the source
	}{
		{"g4dn.xlarge", "us-east-1", 37.1, false, "g4dn.xlarge in us-east-1: 1-year $0.331/h ÷ on-demand $0.526/h"},
		{"g4dn.12xlarge", "eu-west-1", 31.9, false, "g4dn.xlarge in eu-west-1"},
		{"g4dn.xlarge", "ap-northeast-1", 31.7, false, "ec2instances.info"},
		{"g5.48xlarge", "eu-central-1", 37, false, "g5.xlarge in eu-central-1"},
		{"g5.xlarge", "ap-southeast-1", 37, true, "gpufleet estimate: no 1-year reserved price for ap-southeast-1 in the data, so the family's us-east-1 rate"},
		{"g6.xlarge", "us-west-2", 34.9, false, "g6.xlarge in us-west-2"},
		{"g6.xlarge", "eu-west-1", 34.9, true, "gpufleet estimate: no 1-year reserved price for eu-west-1 in the data, so the family's us-east-1 rate"},
		{"g6e.12xlarge", "ap-northeast-1", 37, false, "g6e.xlarge in ap-northeast-1"},
		{"gr6.8xlarge", "us-east-2", 34.9, false, "gr6.4xlarge in us-east-2"},
		{"p3dn.24xlarge", "us-east-1", 38.4, false, "p3dn.24xlarge in us-east-1"},
		{"p5.48xlarge", "us-east-1", 37.5, false, "digiteria"},
		{"p3.2xlarge", "us-east-1", 37.5, true, "gpufleet estimate"},
		{"p4d.24xlarge", "us-east-1", 37.5, true, "gpufleet estimate"},
		{"p5en.48xlarge", "us-east-1", 37.5, true, "gpufleet estimate"},
		{"p6-b200.48xlarge", "us-east-1", 37.5, true, "gpufleet estimate"},
	} {
		n, ok := AWSInstanceType(tt.typ)
		if !ok {
			t.Fatalf("%s: not in the catalog", tt.typ)
		}
		c, ok := CommitmentFor(n, tt.region)
		if !ok || c.DiscountPercent != tt.pct || c.Estimate != tt.estimate || !strings.Contains(c.Source, tt.source) {
			t.Errorf("%s in %s: %+v, want %g %% (estimate %v), source with %q", tt.typ, tt.region, c, tt.pct, tt.estimate, tt.source)
		}
		if c.Name != "1-year Standard Reserved Instance, no upfront" {
			t.Errorf("%s: commitment %q", tt.typ, c.Name)
		}
	}
}

// A reserved rate is a ratio of two prices of one price list: it holds for the catalog only while
// the catalog's on-demand price of the reference type is the one the rate was read against.
func TestAWSReservedRatesMatchTheCatalogsListPrices(t *testing.T) {
	for family, f := range awsReserved {
		n, ok := AWSInstanceType(f.typ)
		if !ok {
			t.Fatalf("%s: %s is not in the catalog", family, f.typ)
		}
		for region := range f.reserved {
			row, ok := n.Price(region)
			if !ok {
				t.Errorf("%s: the data has a rate for %s, where the catalog does not price %s", family, region, f.typ)
				continue
			}
			// The catalog's regional prices are its base price times a regional factor; the base
			// region's must be the data's own on-demand price.
			onDemand, listed := awsListPrices[f.typ][region]
			if !listed {
				t.Errorf("%s: a reserved price for %s in %s, but no on-demand price to take the rate against", family, f.typ, region)
			}
			if region == awsFamilies[family].base && row.OnDemandUSD != onDemand {
				t.Errorf("%s: the catalog lists %s at $%g/h in %s, the reserved rate was read against $%g/h: update both from one price list",
					family, f.typ, row.OnDemandUSD, region, onDemand)
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
		{"AWS reserved", Pricing{}, p5, "us-east-1", 34.4, true, "1-year Standard Reserved Instance, no upfront"},
		{"spot-only override keeps the commitment", Pricing{Overrides: map[string]Override{"p5.48xlarge": {SpotUSD: 10}}}, p5, "us-east-1", 34.4, true, "1-year Standard Reserved Instance, no upfront"},
		// $1.006 × 0.63: g5's own rate
		{"AWS family rate", Pricing{}, g5, "us-east-1", 0.6338, true, "1-year Standard Reserved Instance, no upfront"},
		// the eu-west-1 list price $1.123 × 0.63
		{"AWS family rate in a region", Pricing{}, g5, "eu-west-1", 0.7075, true, "1-year Standard Reserved Instance, no upfront"},
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
		c, ok := CommitmentFor(n, "us-central1")
		if !ok || c.DiscountPercent != want.pct || c.Estimate != want.estimate {
			t.Errorf("%s: %+v, want %g %% (estimate %v)", name, c, want.pct, want.estimate)
		}
	}
}
