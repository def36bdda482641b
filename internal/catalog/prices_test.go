package catalog

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// baseRegionOf is the region a node type's list price is quoted for.
func baseRegionOf(t *testing.T, n NodeType) string {
	t.Helper()
	fams := awsFamilies
	if n.Cloud == GCP {
		fams = gcpFamilies
	}
	f, ok := fams[n.Family]
	if !ok {
		t.Fatalf("%s: no family %q", n.Name, n.Family)
	}
	return f.base
}

var isoDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

func TestEveryNodeTypeIsPriced(t *testing.T) {
	for _, cloud := range []Cloud{AWS, GCP} {
		for _, n := range NodeTypes(cloud) {
			id := n.Name + "/" + n.Accelerator
			base := baseRegionOf(t, n)
			p, ok := n.Price(base)
			if !ok {
				t.Errorf("%s: no price in its base region %s", id, base)
				continue
			}
			if n.Prices[0].Region != base {
				t.Errorf("%s: first price row is %s, want base region %s", id, n.Prices[0].Region, base)
			}
			if !strings.Contains(p.Source, base) || strings.Contains(p.Source, "regional factor") && n.Family != "n1" {
				t.Errorf("%s: base row source %q", id, p.Source)
			}
			seen := map[string]bool{}
			for _, r := range n.Prices {
				if seen[r.Region] {
					t.Errorf("%s: two rows for %s", id, r.Region)
				}
				seen[r.Region] = true
				if !slices.Contains(regionsOf(cloud), r.Region) {
					t.Errorf("%s: row for %s, not a %s region", id, r.Region, cloud)
				}
				if r.OnDemandUSD <= 0 || r.SpotUSD <= 0 || r.SpotUSD >= r.OnDemandUSD {
					t.Errorf("%s %s: on-demand %g, spot %g", id, r.Region, r.OnDemandUSD, r.SpotUSD)
				}
				if r.OnDemandUSD != round4(r.OnDemandUSD) || r.SpotUSD != round4(r.SpotUSD) {
					t.Errorf("%s %s: prices not rounded to 4 decimals", id, r.Region)
				}
				if r.Source == "" || !isoDate.MatchString(r.AsOf) {
					t.Errorf("%s %s: source %q as-of %q", id, r.Region, r.Source, r.AsOf)
				}
				if !strings.Contains(r.Source, "spot: gpufleet estimate") && !strings.Contains(r.Source, "spot: published figure for") || !isoDate.MatchString(r.SpotAsOf) {
					t.Errorf("%s %s: source does not say where spot comes from: %q (as of %q)", id, r.Region, r.Source, r.SpotAsOf)
				}
				if r.Region != base && !strings.Contains(r.Source, "regional factor") && !strings.Contains(r.Source, awsListSource) && !strings.Contains(r.Source, gcpSKUSource) {
					t.Errorf("%s %s: a row outside the base region names neither its regional factor nor its published price: %q", id, r.Region, r.Source)
				}
			}
		}
	}
}

func TestRegionalPrices(t *testing.T) {
	tests := []struct {
		name, region string
		wantOD       float64
		wantSource   string
	}{
		{"g4dn.xlarge", "us-east-1", 0.526, "gpufleet snapshot of the AWS EC2 On-Demand list price (Linux), us-east-1; spot: published figure for g4dn family in us-east-1, on-demand × 0.44"},
		{"g4dn.xlarge", "eu-west-1", 0.587, "on-demand: " + awsListSource + ", eu-west-1 $0.587/h"},
		// Tokyo: the published price, not us-east-1's $1.006 × 1.32 = $1.3279.
		{"g5.xlarge", "ap-northeast-1", 1.459, awsListSource + ", ap-northeast-1 $1.459/h"},
		{"g6e.2xlarge", "eu-north-1", 2.3782, awsListSource + ", eu-north-1 $2.37822/h"},
		// gr6 outside the US: the regions the data added, at its prices.
		{"gr6.8xlarge", "eu-central-1", 3.0593, awsListSource + ", eu-central-1 $3.05927/h"},
		// Not in the data there: the regional factor.
		{"g5.xlarge", "ap-southeast-1", 1.3682, "us-east-1 × gpufleet regional factor 1.36 for ap-southeast-1"},
		{"g6.xlarge", "eu-west-1", 0.9014, "us-east-1 × gpufleet regional factor 1.12 for eu-west-1"},
		// p4d's price changed after the data: the regional factor on the catalog's new price.
		{"p4d.24xlarge", "eu-west-1", 24.5925, "us-east-1 × gpufleet regional factor 1.12 for eu-west-1"},
		// GCP: the series' SKU price in the region over its us-central1 one (pricing.yml), times the
		// catalog's us-central1 price: us-east4 prices like Iowa for GPUs (the factor said +12 %),
		// A3 in the Netherlands 27 % above it (the factor said +10 %).
		{"g2-standard-4", "us-east4", 0.7045, gcpSKUSource + ": g2-standard-4 in us-east4 $0.704517808/h ÷ in us-central1 $0.706832255/h"},
		{"g2-standard-8", "europe-west4", 0.8972, "g2-standard-4 in europe-west4"},
		{"a3-highgpu-8g", "europe-west4", 112.5406, "a3-highgpu-1g in europe-west4"},
		{"a2-ultragpu-8g", "us-east4", 45.6618, "a2-ultragpu-1g in us-east4"},
		// No SKU price there (us-west1), or none in the base region (A3 Mega): the factor.
		{"g2-standard-8", "us-west1", 0.8536, "us-central1 × gpufleet regional factor 1.00 for us-west1"},
		{"a3-megagpu-8g", "us-east4", 104.608, "us-central1 × gpufleet regional factor 1.12 for us-east4"},
		{"p5.48xlarge", "us-east-2", 55.04, "regional factor 1.00 for us-east-2"},
		{"p5e.48xlarge", "us-east-2", 60, "gpufleet estimate of the AWS EC2 On-Demand list price (Linux) (no reliable public list price in the snapshot), us-east-2;"},
		// p5en is priced from its published us-east-1 list price ($63.296/h) since the catalog corrections.
		{"p5en.48xlarge", "ap-northeast-1", 83.5507, "us-east-1 × gpufleet regional factor 1.32 for ap-northeast-1"},
	}
	for _, tt := range tests {
		n, ok := AWSInstanceType(tt.name)
		if !ok {
			var err error
			if n, err = GKENodeType(tt.name, "", 0); err != nil {
				t.Fatal(err)
			}
		}
		p, ok := n.Price(tt.region)
		if !ok {
			t.Errorf("%s: no price in %s", tt.name, tt.region)
			continue
		}
		if math.Abs(p.OnDemandUSD-tt.wantOD) > 1e-9 {
			t.Errorf("%s %s: on-demand %g, want %g", tt.name, tt.region, p.OnDemandUSD, tt.wantOD)
		}
		if !strings.Contains(p.Source, tt.wantSource) {
			t.Errorf("%s %s: source %q lacks %q", tt.name, tt.region, p.Source, tt.wantSource)
		}
	}
}

// The published regional prices are taken only for families whose base-region price in the catalog
// is the data's own: a family whose list price changed since (AWS's June 2025 cut of p4d, p4de, p5
// and p5en) must not mix the old regional prices with the new base one. Every listed region is one
// the catalog sells the family in.
func TestAWSListPricesMatchTheBaseRegion(t *testing.T) {
	for typ, regions := range awsListPrices {
		f, ok := awsFamilies[awsFamilyOf(typ)]
		if !ok {
			t.Errorf("%s: no such family", typ)
			continue
		}
		if got, want := round4(regions[f.base]), awsOnDemand[typ]; got != want {
			t.Errorf("%s: the data lists $%g/h in %s, the catalog $%g/h: take both from one price list", typ, regions[f.base], f.base, want)
		}
		for region := range regions {
			if !slices.Contains(f.regions, region) {
				t.Errorf("%s: a published price for %s, where the catalog does not sell the family", typ, region)
			}
		}
	}
	for _, fam := range []string{"p4d", "p4de", "p5", "p5e", "p5en", "p6-b200"} {
		for typ := range awsListPrices {
			if awsFamilyOf(typ) == fam {
				t.Errorf("%s: its family's list price is not the data's", typ)
			}
		}
	}
}

func TestAvailabilityIsARegionFact(t *testing.T) {
	tests := []struct {
		cloud   Cloud
		name    string
		in, out []string
	}{
		{AWS, "g4dn.xlarge", awsRegions, nil},
		{AWS, "p5e.48xlarge", []string{"us-east-2"}, []string{"us-east-1", "eu-west-1"}},
		{AWS, "p6-b200.48xlarge", []string{"us-east-1", "us-west-2"}, []string{"eu-central-1", "ap-southeast-1"}},
		{AWS, "p3dn.24xlarge", []string{"us-east-1", "eu-west-1", "ap-northeast-1"}, []string{"eu-north-1"}},
		// The regions the ec2instances.info data prices gr6 in.
		{AWS, "gr6.4xlarge", []string{"us-east-2", "eu-central-1", "eu-north-1", "ap-northeast-1"}, []string{"eu-west-1", "ap-southeast-1"}},
		{GCP, "a4-highgpu-8g", []string{"us-central1"}, []string{"asia-southeast1", "us-west1"}},
		{GCP, "a3-ultragpu-8g", []string{"us-central1"}, []string{"asia-northeast1"}},
		{GCP, "g2-standard-8", gcpRegions, nil},
	}
	for _, tt := range tests {
		var n NodeType
		var err error
		if tt.cloud == AWS {
			n, _ = AWSInstanceType(tt.name)
		} else if n, err = GKENodeType(tt.name, "", 0); err != nil {
			t.Fatal(err)
		}
		for _, r := range tt.in {
			if _, ok := n.Price(r); !ok {
				t.Errorf("%s should be offered in %s", tt.name, r)
			}
		}
		for _, r := range tt.out {
			if _, ok := n.Price(r); ok {
				t.Errorf("%s should not be offered in %s", tt.name, r)
			}
		}
	}
}

func TestN1ComboPriceIsMachinePlusGPUs(t *testing.T) {
	tests := []struct {
		machine, accelerator string
		count                int
		region               string
		wantOD               float64
	}{
		// 8 × 0.031611 + 30 × 0.004237 = 0.37998 → 0.38; + 2 × 0.35
		{"n1-standard-8", "nvidia-tesla-t4", 2, "us-central1", 1.08},
		// (0.38 + 4 × 2.48) × 1.10
		{"n1-standard-8", "nvidia-tesla-v100", 4, "europe-west4", 0.418 + 4*2.728},
	}
	for _, tt := range tests {
		n, err := GKENodeType(tt.machine, tt.accelerator, tt.count)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := n.Price(tt.region)
		if !ok {
			t.Fatalf("%s: no price in %s", tt.machine, tt.region)
		}
		if math.Abs(p.OnDemandUSD-tt.wantOD) > 1e-9 {
			t.Errorf("%s + %d × %s in %s: %g, want %g", tt.machine, tt.count, tt.accelerator, tt.region, p.OnDemandUSD, tt.wantOD)
		}
	}
	// The export's parts and the node types' sums are the same numbers, in every region.
	for _, n := range NodeTypes(GCP) {
		if n.Family != "n1" {
			continue
		}
		m, _ := findN1Machine(n.Name)
		for _, p := range n.Prices {
			mp, ok1 := n1MachinePrice(m, p.Region)
			gp, ok2 := n1AcceleratorPrice(n.Accelerator, p.Region)
			if !ok1 || !ok2 {
				t.Errorf("%s/%s in %s: parts not priced", n.Name, n.Accelerator, p.Region)
				continue
			}
			if p.OnDemandUSD != round4(mp.onDemand+float64(n.GPUCount)*gp.onDemand) || p.SpotUSD != round4(mp.spot+float64(n.GPUCount)*gp.spot) {
				t.Errorf("%s + %d × %s in %s: %g/%g is not the sum of its parts", n.Name, n.GPUCount, n.Accelerator, p.Region, p.OnDemandUSD, p.SpotUSD)
			}
		}
		// A combination exists exactly where the GPU is offered.
		for _, r := range gcpRegions {
			_, priced := n.Price(r)
			if offered := slices.Contains(n1Accelerators[n.Accelerator].regions, r); priced != offered {
				t.Errorf("%s + %s in %s: priced %v, GPU offered %v", n.Name, n.Accelerator, r, priced, offered)
			}
		}
	}
}

func TestPriceTablesHaveNoStrays(t *testing.T) {
	// Every price belongs to a shape and every region has a factor, so no number is silently unused.
	for name := range awsOnDemand {
		if _, ok := AWSInstanceType(name); !ok {
			t.Errorf("awsOnDemand has %s, which is not an instance type", name)
		}
	}
	for name := range gceOnDemand {
		if _, ok := findFixedShape(name); !ok {
			t.Errorf("gceOnDemand has %s, which is not a machine type", name)
		}
	}
	for _, r := range append(slices.Clone(awsRegions), gcpRegions...) {
		if regionalFactor[r] <= 0 {
			t.Errorf("region %s has no factor", r)
		}
	}
	for name, fams := range map[string]map[string]family{"aws": awsFamilies, "gcp": gcpFamilies} {
		for fam, f := range fams {
			if !slices.Contains(f.regions, f.base) || f.spotRatio <= 0 || f.spotRatio >= 1 {
				t.Errorf("%s family %s: base %s in %v, spot ratio %g", name, fam, f.base, f.regions, f.spotRatio)
			}
		}
	}
}

// A series' regional prices are ratios of its SKU prices (gcpSeriesPrices): they fit the catalog
// only while the series' reference type costs in the base region what the SKU snapshot says.
func TestGCPSKUBasePricesAreTheCatalogs(t *testing.T) {
	for family, series := range gcpSKU {
		base := gcpFamilies[family].base
		p, ok := series.prices[base]
		if !ok {
			if gcpSeriesPrices(family, 1) != nil {
				t.Errorf("%s: regional prices without a SKU price in %s", family, base)
			}
			continue
		}
		// to the catalog's 4 decimals (a3-highgpu-1g: $11.0612499878 is listed as $11.0613)
		if got, want := p.onDemand, gceOnDemand[series.machine]; math.Abs(got-want) > 0.00006 {
			t.Errorf("%s: the SKU snapshot prices %s at $%g/h in %s, the catalog at $%g/h: take both from one price list", family, series.machine, p.onDemand, base, want)
		}
	}
}
