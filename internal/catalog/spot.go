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
// Every row's Source says which of these it used and why.
//
// Where the figures come from (all read offline from stored public copies):
//   - AWS: the Spot price feed behind AWS's "Amazon EC2 Spot Instances Pricing" page (spot.json,
//     Linux, one price per instance type and region), as snapshotted by the spotinfo tool
//     (alexei-led/spotinfo, internal/spot/data/spot-price-data.json at commit 69bcec6; the
//     repository's manifest records fetches of this feed on 2026-08-06 and 2026-08-10; the stored
//     copy does not carry its own fetch time, so the earlier date is the one given). A family's
//     ratio in a region is the sum of the published spot prices of every size the catalog prices
//     there over the sum of the catalog's on-demand prices of the same sizes, so one noisy size
//     does not set the family, and the family's rows together cost on spot what AWS publishes for
//     the same sizes. Read for us-east-1,
//     us-west-2 and ap-northeast-1; the other regions take the base region's figure (step 3): the
//     feed groups regions without naming them near their GPU rows, and a region not identified
//     for certain is not used.
//   - GCP: the Spot and on-demand prices per machine type and region of the Cloud Billing Catalog
//     SKUs, as compiled in Cyclenerd/google-cloud-pricing-cost-calculator pricing.yml at commit
//     0166a59 (generated 2025-03-06): spot ÷ on-demand of one machine type. A3 Ultra and A4 are
//     not in that file; they stay at step 4.
//   - the derekherman.co figures for us-west1 (late 2025) are newer than the pricing.yml snapshot
//     and are kept there.

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

const (
	awsSpotFeedSource = "AWS EC2 Spot price feed (spot.json, Linux) as snapshotted in alexei-led/spotinfo internal/spot/data/spot-price-data.json @69bcec6 (feed fetched 2026-08-06 per the repository's manifest)"
	awsSpotFeedAsOf   = "2026-08-06"
	gcpSKUSource      = "Google Cloud Billing Catalog SKUs as compiled in Cyclenerd/google-cloud-pricing-cost-calculator pricing.yml @0166a59 (generated 2025-03-06)"
	gcpSKUAsOf        = "2025-03-06"
	derekHermanSource = "derekherman.co, \"GPU inference without the cloud tax\", us-west1 Spot prices late 2025"
	derekHermanAsOf   = "2025-12-01"
)

// gcpQuote is a Spot quote from the pricing.yml snapshot: one machine type's Spot and on-demand
// price per hour in one region.
func gcpQuote(spot, onDemand float64, what string) spotQuote {
	return quote(spot, onDemand, what, gcpSKUSource, gcpSKUAsOf)
}

// awsSpotFeed is the published Spot price (USD per instance-hour, Linux) of every size of the
// catalog's AWS families in the regions read. p3 in ap-northeast-1 is left out: only p3.2xlarge is
// listed there, at $4.194/h, its on-demand list price there (aws_list_prices.go), so it makes no
// discount; the region takes us-east-1's figure. p5e is only in the catalog
// for us-east-2 (and its on-demand price is an estimate), so its us-west-2 price ($24.8776/h) is
// not used.
var awsSpotFeed = map[string]map[string]float64{
	"us-east-1": {
		"g4dn.xlarge": 0.3196, "g4dn.2xlarge": 0.3179, "g4dn.4xlarge": 0.5146, "g4dn.8xlarge": 0.77,
		"g4dn.12xlarge": 1.5537, "g4dn.16xlarge": 1.4089, "g4dn.metal": 4.1475,
		"g5.xlarge": 0.5089, "g5.2xlarge": 1.0236, "g5.4xlarge": 0.9008, "g5.8xlarge": 1.2542,
		"g5.12xlarge": 3.4917, "g5.16xlarge": 1.8357, "g5.24xlarge": 2.3425, "g5.48xlarge": 9.1028,
		"g6.xlarge": 0.5375, "g6.2xlarge": 0.8792, "g6.4xlarge": 0.6713, "g6.8xlarge": 1.3626,
		"g6.12xlarge": 2.846, "g6.16xlarge": 1.7823, "g6.24xlarge": 1.8695, "g6.48xlarge": 4.768,
		"g6e.xlarge": 1.6119, "g6e.2xlarge": 2.182, "g6e.4xlarge": 2.8709, "g6e.8xlarge": 1.7736,
		"g6e.12xlarge": 3.1479, "g6e.16xlarge": 2.7307, "g6e.24xlarge": 4.1488, "g6e.48xlarge": 11.5708,
		"gr6.4xlarge": 0.7354, "gr6.8xlarge": 1.2577,
		"p3.2xlarge": 0.5509, "p3.8xlarge": 3.2295, "p3.16xlarge": 6.5858,
		"p3dn.24xlarge": 5.1428,
		"p4d.24xlarge":  14.2313,
		"p4de.24xlarge": 21.8259,
		"p5.4xlarge":    2.6295, "p5.48xlarge": 19.4933,
		"p5en.48xlarge":    27.0749,
		"p6-b200.48xlarge": 42.2529,
	},
	"us-west-2": {
		"g4dn.xlarge": 0.2286, "g4dn.2xlarge": 0.2872, "g4dn.4xlarge": 0.3854, "g4dn.8xlarge": 0.6841,
		"g4dn.12xlarge": 1.4129, "g4dn.16xlarge": 1.1291, "g4dn.metal": 4.1739,
		"g5.xlarge": 0.5237, "g5.2xlarge": 0.5995, "g5.4xlarge": 0.6268, "g5.8xlarge": 0.9514,
		"g5.12xlarge": 3.2525, "g5.16xlarge": 1.5598, "g5.24xlarge": 3.6782, "g5.48xlarge": 7.8077,
		"g6.xlarge": 0.4455, "g6.2xlarge": 0.5282, "g6.4xlarge": 0.6254, "g6.8xlarge": 0.8871,
		"g6.12xlarge": 1.3584, "g6.16xlarge": 1.4403, "g6.24xlarge": 3.1042, "g6.48xlarge": 6.3378,
		"g6e.xlarge": 1.4962, "g6e.2xlarge": 1.3585, "g6e.4xlarge": 1.3862, "g6e.8xlarge": 1.7266,
		"g6e.12xlarge": 4.5144, "g6e.16xlarge": 3.2739, "g6e.24xlarge": 5.7025, "g6e.48xlarge": 8.7616,
		"gr6.4xlarge": 0.5578, "gr6.8xlarge": 0.7909,
		"p3.2xlarge": 0.7754, "p3.8xlarge": 4.8716, "p3.16xlarge": 10.1718,
		"p3dn.24xlarge": 6.5035,
		"p4d.24xlarge":  12.8763,
		"p4de.24xlarge": 22.2036,
		"p5.4xlarge":    2.6295, "p5.48xlarge": 19.9678,
		"p5en.48xlarge":    27.2454,
		"p6-b200.48xlarge": 40.7895,
	},
	"ap-northeast-1": {
		"g4dn.xlarge": 0.2989, "g4dn.2xlarge": 0.4545, "g4dn.4xlarge": 0.494, "g4dn.8xlarge": 0.926,
		"g4dn.12xlarge": 2.3001, "g4dn.16xlarge": 1.5021, "g4dn.metal": 2.0153,
		"g5.xlarge": 0.9122, "g5.2xlarge": 0.8293, "g5.4xlarge": 0.9345, "g5.8xlarge": 1.4235,
		"g5.12xlarge": 2.4616, "g5.16xlarge": 1.1287, "g5.24xlarge": 11.8112, "g5.48xlarge": 7.6325,
		"g6.xlarge": 0.535, "g6.2xlarge": 0.5435, "g6.4xlarge": 0.6455, "g6.8xlarge": 1.0332,
		"g6.12xlarge": 2.2605, "g6.16xlarge": 1.644, "g6.24xlarge": 3.0499, "g6.48xlarge": 6.3267,
		"g6e.xlarge": 1.1104, "g6e.2xlarge": 1.1183, "g6e.4xlarge": 1.569, "g6e.8xlarge": 1.8393,
		"g6e.12xlarge": 4.9744, "g6e.16xlarge": 1.8384, "g6e.24xlarge": 4.5058, "g6e.48xlarge": 10.9964,
		"p4d.24xlarge": 10.8069,
		"p5.4xlarge":   8.6, "p5.48xlarge": 21.2792,
		"p5en.48xlarge": 44.5213,
	},
}

// awsFeedQuotes turns awsSpotFeed into quotes: per family and region the catalog sells it in, the
// summed published spot prices of its sizes over the summed catalog on-demand prices of the same
// sizes (the rows' own on-demand prices, so the family's spot rows add up to the published prices).
func awsFeedQuotes() map[string]map[string]spotQuote {
	out := map[string]map[string]spotQuote{}
	for name, f := range awsFamilies {
		for region, prices := range awsSpotFeed {
			if !contains(f.regions, region) {
				continue
			}
			var spot, onDemand float64
			n := 0
			for t, base := range awsOnDemand {
				p, ok := prices[t]
				if !ok || awsFamilyOf(t) != name {
					continue
				}
				spot += p
				od, _, _ := onDemandIn(AWS, f, base, awsListed(t), "", region)
				onDemand += od
				n++
			}
			if n == 0 {
				continue
			}
			if out[name] == nil {
				out[name] = map[string]spotQuote{}
			}
			what := fmt.Sprintf("%s, its %d sizes summed, against the catalog's on-demand prices of the same sizes,", name, n)
			out[name][region] = quote(round4(spot), round4(onDemand), what, awsSpotFeedSource, awsSpotFeedAsOf)
		}
	}
	return out
}

// gcpSKUPrice is one machine type's Spot and on-demand price (USD per hour) in one region.
type gcpSKUPrice struct{ spot, onDemand float64 }

// gcpSKUSeries is a machine series' reference type (its smallest) and that type's prices by
// region, from the SKU snapshot (gcpSKUSource): the series' Spot ratios (spotQuotes) and its
// regional on-demand prices (gcpSeriesPrices) come from it.
type gcpSKUSeries struct {
	machine, what string // e.g. "g2-standard-4", "g2-standard-4 (1 x L4)"
	prices        map[string]gcpSKUPrice
}

// gcpSKU is family → its reference type's SKU prices. a3-highgpu-1g carries the same per-GPU prices
// as -8g (us-central1: $4.4245 of $11.0612 and $35.3957 of $88.49); in Tokyo the Spot discount is
// small (Spot $11.13/h of $15.83/h). A3 Mega is not listed for us-central1 or us-west1 in the
// snapshot; those rows take us-east4's Spot figure.
var gcpSKU = map[string]gcpSKUSeries{
	"g2": {"g2-standard-4", "g2-standard-4 (1 x L4)", map[string]gcpSKUPrice{
		"us-central1":     {0.279932, 0.706832255},
		"us-east4":        {0.281812, 0.704517808},
		"europe-west4":    {0.253236, 0.742916046},
		"europe-west1":    {0.292732, 0.778293004},
		"asia-northeast1": {0.295108, 0.907714004},
		"asia-southeast1": {0.31084, 0.872018928},
	}},
	"a2-highgpu": {"a2-highgpu-1g", "a2-highgpu-1g (1 x A100 40GB)", map[string]gcpSKUPrice{
		"us-central1":     {1.293355, 3.673385},
		"europe-west4":    {1.44587, 3.747972},
		"asia-northeast1": {1.271375, 4.049590926},
		"asia-southeast1": {1.60545, 4.013757926},
	}},
	"a2-megagpu": {"a2-megagpu-16g", "a2-megagpu-16g (16 x A100 40GB)", map[string]gcpSKUPrice{
		"us-central1":     {19.48024, 55.739504},
		"europe-west4":    {21.99824, 56.62656},
		"asia-southeast1": {24.1896, 60.476222816},
	}},
	"a2-ultragpu": {"a2-ultragpu-1g", "a2-ultragpu-1g (1 x A100 80GB)", map[string]gcpSKUPrice{
		"us-central1":     {2.02746835616438, 5.06879789041096},
		"us-east4":        {2.29658383561644, 5.70773247945206},
		"europe-west4":    {1.81105531506849, 5.58091847945206},
		"asia-southeast1": {2.51254383561644, 6.24768547945206},
	}},
	"a3-highgpu": {"a3-highgpu-1g", "a3-highgpu-1g (1 x H100 80GB)", map[string]gcpSKUPrice{
		"us-central1":     {4.42446871232877, 11.0612499878219},
		"us-east4":        {4.45487967123288, 11.0694695189041},
		"us-west1":        {4.42446871232877, 11.0612499878219},
		"europe-west4":    {3.96990063013699, 14.0675598969041},
		"europe-west1":    {4.86850871232877, 12.1712308248219},
		"asia-northeast1": {11.1325598580274, 15.8304238290685},
		"asia-southeast1": {4.03772567123288, 14.2847866209041},
	}},
	"a3-megagpu": {"a3-megagpu-8g", "a3-megagpu-8g (8 x H100 80GB Mega)", map[string]gcpSKUPrice{
		"us-east4":        {37.391837369863, 92.9375881512329},
		"europe-west4":    {46.2640050410959, 118.236831175233},
		"europe-west1":    {40.8776696986301, 102.194646598575},
		"asia-northeast1": {38.6663908642192, 119.276366632548},
	}},
}

// spotQuotes is family (or n1 GPU accelerator) → region → a published figure.
var spotQuotes = func() map[string]map[string]spotQuote {
	q := awsFeedQuotes()
	// Compute Engine Spot ÷ on-demand per region (pricing.yml, 2025-03-06, gcpSKU).
	for family, series := range gcpSKU {
		q[family] = map[string]spotQuote{}
		for region, p := range series.prices {
			q[family][region] = gcpQuote(p.spot, p.onDemand, series.what)
		}
	}
	// Observed GKE/Compute Engine Spot prices in us-west1, late 2025, published in "GPU inference
	// without the cloud tax" (derekherman.co): g2-standard-4 $0.28/h vs $0.71/h on-demand,
	// g2-standard-8 $0.34/h vs $0.85/h, a2-highgpu-1g $1.44/h vs $3.67/h.
	q["g2"]["us-west1"] = quote(0.28, 0.71, "g2-standard-4 (1 x L4)", derekHermanSource, derekHermanAsOf)
	q["a2-highgpu"]["us-west1"] = quote(1.44, 3.67, "a2-highgpu-1g (1 x A100 40GB)", derekHermanSource, derekHermanAsOf)
	return q
}()

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
