package catalog

import (
	"fmt"
	"strings"
)

// Spot prices per region.
//
// Spot prices move (AWS: gradually, per Availability Zone; Google: at most once a day), so the
// catalog keeps spot as a ratio to the on-demand price of the same row, and takes that ratio, per
// family (or per n1 GPU) and region, from the first of:
//
//  1. a published spot figure for that family in that region (spotQuotes, each with its source and
//     date);
//  2. the family's published ratio where one exists for every region (GCP: the cluster autoscaler's
//     GCE price table, preemptible ÷ on-demand, which has no regions);
//  3. a published figure for the same family in another region (the base region's first, then the
//     cloud's region order): spot discounts of one family move together across regions far more
//     than they differ between them, so a sourced neighbour is a better estimate than no source;
//  4. the family's gpufleet long-run estimate (family.spotRatio), flagged as such in the row.
//
// Every row's Source says which of these it used and why. What the snapshot could not source: the
// AWS Spot Instance Advisor ("savings over On-Demand" per instance type and region) and the
// per-region AWS Spot price table are served as data files and a script-rendered page that
// gpufleet's offline build cannot read, so most AWS families are still at step 4; replace their
// rows with quotes as figures are read off those pages.

// spotQuote is a published spot price, as spot ÷ on-demand of the same node type and region.
type spotQuote struct {
	ratio  float64
	source string
	asOf   string // YYYY-MM-DD
}

// quote builds a spotQuote from a published spot and on-demand price of one node type.
func quote(spot, onDemand float64, what, source, asOf string) spotQuote {
	return spotQuote{ratio: spot / onDemand, source: fmt.Sprintf("%s: %s spot $%g/h ÷ on-demand $%g/h", source, what, spot, onDemand), asOf: asOf}
}

// spotQuotes is family (or n1 GPU accelerator) → region → a published figure.
var spotQuotes = map[string]map[string]spotQuote{
	// Observed GKE/Compute Engine Spot prices in us-west1, late 2025, published in "GPU inference
	// without the cloud tax" (derekherman.co): g2-standard-4 $0.28/h vs $0.71/h on-demand,
	// g2-standard-8 $0.34/h vs $0.85/h, a2-highgpu-1g $1.44/h vs $3.67/h.
	"g2": {
		"us-west1": quote(0.28, 0.71, "g2-standard-4 (1 x L4)", "derekherman.co, \"GPU inference without the cloud tax\", us-west1 Spot prices late 2025", "2025-12-01"),
	},
	"a2-highgpu": {
		"us-west1": quote(1.44, 3.67, "a2-highgpu-1g (1 x A100 40GB)", "derekherman.co, \"GPU inference without the cloud tax\", us-west1 Spot prices late 2025", "2025-12-01"),
	},
	// AWS P5 Spot at about $2.00-2.50 per GPU-hour against about $3.90 on demand in March 2026
	// (costnimbus.com, "GPU cost management for ML teams", "Current GPU Pricing Reality (March
	// 2026)"); the article names no region, read as us-east-1, the region AWS figures are usually
	// quoted for. Its on-demand figure is below AWS's p5.48xlarge list price ($55.04/h, $6.88 per
	// GPU), so the catalog takes the article's ratio (midpoint $2.25 ÷ $3.90), not its dollars.
	"p5": {
		"us-east-1": quote(2.25, 3.90, "P5 per GPU-hour (midpoint of $2.00-2.50)", "costnimbus.com, \"GPU cost management for ML teams\", AWS P5 Spot and On-Demand per GPU-hour, March 2026", "2026-03-01"),
	},
}

// spotFor is a unit's spot ratio in region (see the order above), with its provenance for the
// row's Source and the date of the figure ("" when it is the catalog snapshot's).
func spotFor(cloud Cloud, key string, f family, region string) (ratio float64, source, asOf string) {
	what := key + " family"
	if strings.HasPrefix(key, "nvidia-") {
		what = key
	}
	quotes := spotQuotes[key]
	if q, ok := quotes[region]; ok {
		return q.ratio, fmt.Sprintf("spot: published figure for %s in %s, on-demand × %.2f (%s)", what, region, q.ratio, q.source), q.asOf
	}
	if f.spotSource != "" {
		return f.spotRatio, fmt.Sprintf("spot: gpufleet estimate, on-demand × %.2f (%s), ratio from the %s", f.spotRatio, what, f.spotSource), ""
	}
	for _, r := range baseFirst(f.base, regionsOf(cloud)) {
		if q, ok := quotes[r]; ok {
			return q.ratio, fmt.Sprintf("spot: gpufleet estimate, on-demand × %.2f (%s): no published figure for %s, so the one for %s (%s)", q.ratio, what, region, r, q.source), q.asOf
		}
	}
	return f.spotRatio, fmt.Sprintf("spot: gpufleet estimate, on-demand × %.2f (%s), ratio from the gpufleet long-run average: no published spot figure for the family in the snapshot", f.spotRatio, what), ""
}
