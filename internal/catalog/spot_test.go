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
		// us-west1: the derekherman.co figures (late 2025), newer than the pricing.yml snapshot.
		{GCP, "g2-standard-4", "", "us-west1", 0.28 / 0.71, "spot: published figure for g2 family in us-west1", "2025-12-01"},
		{GCP, "a2-highgpu-1g", "", "us-west1", 1.44 / 3.67, "published figure for a2-highgpu family in us-west1", "2025-12-01"},
		// Elsewhere the region's own Spot and on-demand SKU prices (pricing.yml, 2025-03-06).
		{GCP, "g2-standard-4", "", "europe-west4", 0.253236 / 0.742916046, "published figure for g2 family in europe-west4, on-demand × 0.34 (Google Cloud Billing Catalog SKUs", gcpSKUAsOf},
		{GCP, "a2-highgpu-1g", "", "europe-west4", 1.44587 / 3.747972, "published figure for a2-highgpu family in europe-west4", gcpSKUAsOf},
		{GCP, "a3-highgpu-8g", "", "asia-northeast1", 11.1325598580274 / 15.8304238290685, "published figure for a3-highgpu family in asia-northeast1", gcpSKUAsOf},
		// A3 Mega is not in the snapshot for us-central1: us-east4's figure, named.
		{GCP, "a3-megagpu-8g", "", "us-central1", 37.391837369863 / 92.9375881512329, "no published figure for us-central1, so the one for us-east4", gcpSKUAsOf},
		// A4 is not in it at all: the flagged long-run estimate.
		{GCP, "a4-highgpu-8g", "", "us-central1", 0.45, "gpufleet long-run average: no published spot figure", priceAsOf},
		// AWS: the spot feed's prices of every size of the family, summed, over the catalog's
		// on-demand prices of the same sizes.
		{AWS, "p5.48xlarge", "", "us-east-1", 22.1228 / 61.92, "published figure for p5 family in us-east-1", awsSpotFeedAsOf},
		{AWS, "g6e.xlarge", "", "ap-northeast-1", 27.952 / 108.6308, "published figure for g6e family in ap-northeast-1", awsSpotFeedAsOf},
		{AWS, "p5.48xlarge", "", "eu-north-1", 22.1228 / 61.92, "no published figure for eu-north-1, so the one for us-east-1", awsSpotFeedAsOf},
		{AWS, "g4dn.xlarge", "", "eu-west-1", 9.0322 / 20.746, "no published figure for eu-west-1, so the one for us-east-1", awsSpotFeedAsOf},
		// p3 in Tokyo is left out of the feed (its spot is its on-demand price there: no discount).
		{AWS, "p3.2xlarge", "", "ap-northeast-1", 10.3662 / 39.78, "no published figure for ap-northeast-1, so the one for us-east-1", awsSpotFeedAsOf},
		// p5e (us-east-2 only, on-demand an estimate): nothing sourced, the flagged estimate.
		{AWS, "p5e.48xlarge", "", "us-east-2", 0.60, "gpufleet long-run average: no published spot figure", priceAsOf},
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

// The spot feed's figures are per size; the catalog keeps one ratio per family and region, so a
// family's spot rows add up to the published prices of its sizes there (to rounding).
func TestAWSFeedKeepsTheFamilySpend(t *testing.T) {
	for region, prices := range awsSpotFeed {
		got, want := map[string]float64{}, map[string]float64{}
		for typ, published := range prices {
			n, ok := AWSInstanceType(typ)
			if !ok {
				t.Errorf("%s: not in the catalog", typ)
				continue
			}
			p, ok := n.Price(region)
			if !ok {
				continue // sold there, but not in the catalog's regions for the family
			}
			got[n.Family] += p.SpotUSD
			want[n.Family] += published
		}
		for fam := range want {
			if d := got[fam] - want[fam]; d > 0.001*float64(len(prices)) || d < -0.001*float64(len(prices)) {
				t.Errorf("%s %s: spot rows add up to %.4f, the feed to %.4f", fam, region, got[fam], want[fam])
			}
		}
	}
}
