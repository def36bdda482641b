package catalog

import (
	"strings"
	"testing"
)

// Spot per region: a region's own published figure wins; else the family's published ratio; else a
// neighbouring region's figure, named; else the gpufleet estimate, flagged.
func TestSpotPerRegion(t *testing.T) {
	tests := []struct {
		cloud                Cloud
		name, accel, region  string
		wantRatio            float64
		wantSource, wantAsOf string
	}{
		// $0.28 / $0.71 published for g2-standard-4 in us-west1.
		{GCP, "g2-standard-4", "", "us-west1", 0.28 / 0.71, "spot: published figure for g2 family in us-west1", "2025-12-01"},
		// No figure for europe-west4: us-west1's is used and named.
		{GCP, "g2-standard-4", "", "europe-west4", 0.28 / 0.71, "no published figure for europe-west4, so the one for us-west1", "2025-12-01"},
		// a2-highgpu: us-west1's own figure; elsewhere the cluster autoscaler's ratio (no regions).
		{GCP, "a2-highgpu-1g", "", "us-west1", 1.44 / 3.67, "published figure for a2-highgpu family in us-west1", "2025-12-01"},
		{GCP, "a2-highgpu-1g", "", "europe-west4", 1.102016 / 3.673385, "cluster-autoscaler GCE price table", priceAsOf},
		// p5: the article's ratio in us-east-1 and, named, in the other regions.
		{AWS, "p5.48xlarge", "", "us-east-1", 2.25 / 3.90, "published figure for p5 family in us-east-1", "2026-03-01"},
		{AWS, "p5.48xlarge", "", "eu-north-1", 2.25 / 3.90, "no published figure for eu-north-1, so the one for us-east-1", "2026-03-01"},
		// g4dn: nothing sourced, the flagged long-run estimate.
		{AWS, "g4dn.xlarge", "", "eu-west-1", 0.35, "gpufleet long-run average: no published spot figure", priceAsOf},
	}
	for _, tt := range tests {
		var n NodeType
		if tt.cloud == AWS {
			n, _ = AWSInstanceType(tt.name)
		} else {
			var err error
			if n, err = GKENodeType(tt.name, tt.accel, 0); err != nil {
				t.Fatal(err)
			}
		}
		p, ok := n.Price(tt.region)
		if !ok {
			t.Fatalf("%s: no row for %s", tt.name, tt.region)
		}
		if want := round4(p.OnDemandUSD * tt.wantRatio); p.SpotUSD != want {
			t.Errorf("%s %s: spot %g, want %g (on-demand %g × %.4f)", tt.name, tt.region, p.SpotUSD, want, p.OnDemandUSD, tt.wantRatio)
		}
		if !strings.Contains(p.Source, tt.wantSource) || p.SpotAsOf != tt.wantAsOf {
			t.Errorf("%s %s: source %q as of %s, want %q as of %s", tt.name, tt.region, p.Source, p.SpotAsOf, tt.wantSource, tt.wantAsOf)
		}
	}
}

// Every quote is a discount with a source and a date, for a family the catalog prices.
func TestSpotQuotesAreSourced(t *testing.T) {
	for key, regions := range spotQuotes {
		_, aws := awsFamilies[key]
		_, gcp := gcpFamilies[key]
		_, n1 := n1Accelerators[key]
		if !aws && !gcp && !n1 {
			t.Errorf("spot quotes for %q, which the catalog does not price", key)
		}
		for region, q := range regions {
			if q.ratio <= 0 || q.ratio >= 1 || q.source == "" || !isoDate.MatchString(q.asOf) || regionalFactor[region] == 0 {
				t.Errorf("%s %s: %+v", key, region, q)
			}
		}
	}
}
