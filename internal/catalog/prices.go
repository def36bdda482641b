package catalog

import (
	"cmp"
	"fmt"
	"math"
)

// Price data.
//
// The catalog keeps one on-demand list price per node type, quoted for a base region (us-east-1 on
// AWS, us-central1 on GCP, unless the type is not sold there), and derives the other rows from the
// published regional prices where it has them (aws_list_prices.go, gcpSeriesPrices), else from a
// regional factor per region, and from a spot ratio per family. Every derived number is explainable
// in its Source.
//
// What the numbers are, honestly:
//   - base prices: gpufleet's snapshot of the public on-demand list prices (AWS EC2 On-Demand, Linux,
//     shared tenancy; Google Compute Engine on-demand VM + GPU prices), compiled by hand, not fetched
//     from the AWS Price List API or the Cloud Billing Catalog API. AWS P4d/P4de/P5 prices are the
//     reduced ones AWS announced in June 2025. Every AWS base price but p5e's (us-east-2 only) is,
//     to 4 decimals, the us-east-1 price of Karpenter's table generated from the AWS Pricing API
//     on 2026-07-20 (aws/karpenter-provider-aws v1.15.1, pkg/providers/pricing/
//     zz_generated.pricing_aws.go; TestPublishedAWSPrices pins p4d, p4de, p5en and p6-b200 to it).
//     Families flagged as estimates had no reliable public
//     on-demand list price in the snapshot (sold mostly via Capacity Blocks / calendar mode, or new);
//     their Source says "gpufleet estimate".
//   - AWS regional prices of g4dn, g5, g6, g6e, gr6, p3 and p3dn: the ec2instances.info data
//     (AWS Price List API, 2025-05-28; aws_list_prices.go), whose us-east-1 prices are the base
//     prices above.
//   - GCP regional prices of g2, a2-highgpu, a2-megagpu, a2-ultragpu and a3-highgpu: the series'
//     reference type's SKU price in the region over its us-central1 one (gcpSeriesPrices; the
//     SKU snapshot of spot.go, whose us-central1 prices are the base prices above).
//   - regional factors, for the rest: rounded ratios of the region's list price to the base
//     region's, read off the g4dn/p4d (AWS) and n1/T4 (GCP) price pages. Real per-type ratios differ
//     by a few percent, and by about 10 % for g5, g6 and g6e in Tokyo (1.45 where the factor says
//     1.32).
//   - spot: spot prices move; the catalog keeps a spot/on-demand ratio per family and region, good
//     enough to rank options and to size savings, not to bid: a published figure for the region
//     where there is one, else the family's published ratio, else a neighbouring region's figure,
//     else gpufleet's long-run estimate (spot.go). Every row's Source names its ratio's origin and
//     SpotAsOf its date.
//
// Users with negotiated rates override prices in the provider block (see Pricing).

// priceAsOf is the date of the snapshot every row carries.
const priceAsOf = "2025-09-01"

// Regions priced per cloud, in display order (base region first).
var (
	awsRegions = []string{"us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "eu-north-1", "ap-northeast-1", "ap-southeast-1"}
	gcpRegions = []string{"us-central1", "us-east4", "us-west1", "europe-west4", "europe-west1", "asia-northeast1", "asia-southeast1"}
)

// regionalFactor is a region's on-demand price level relative to the cloud's base region (1.00).
// AWS: Ohio and Oregon price like N. Virginia; Ireland ~+12 %, Frankfurt ~+24 %, Stockholm ~+6 %,
// Tokyo ~+32 %, Singapore ~+36 %. GCP: Iowa and Oregon are the cheapest; N. Virginia ~+12 %,
// Netherlands/Belgium ~+10 %, Tokyo ~+28 %, Singapore ~+23 %.
var regionalFactor = map[string]float64{
	"us-east-1":      1.00,
	"us-east-2":      1.00,
	"us-west-2":      1.00,
	"eu-west-1":      1.12,
	"eu-central-1":   1.24,
	"eu-north-1":     1.06,
	"ap-northeast-1": 1.32,
	"ap-southeast-1": 1.36,

	"us-central1":     1.00,
	"us-east4":        1.12,
	"us-west1":        1.00,
	"europe-west4":    1.10,
	"europe-west1":    1.10,
	"asia-northeast1": 1.28,
	"asia-southeast1": 1.23,
}

// family says where a family is sold and how its spot price relates to on-demand.
type family struct {
	base       string   // region the list price is quoted for
	regions    []string // regions where the family is offered (DescribeInstanceTypeOfferings / GCE zones)
	spotRatio  float64  // spot ÷ on-demand
	spotSource string   // where spotRatio comes from; "" is gpufleet's long-run estimate
	estimate   bool     // the base price is a gpufleet estimate, not a public list price
}

// The cluster autoscaler's GCE price table (kubernetes/autoscaler,
// cluster-autoscaler/cloudprovider/gce/gce_price_info.go: instancePrices / preemptiblePrices,
// gpuPrices / preemptibleGpuPrices) is the published source for GCP spot ratios: preemptible ÷
// on-demand, about 0.30 for GPUs, with no regions: the families' fallback where no regional Spot
// figure is published (spot.go). AWS publishes no such table; its families' fallbacks stay gpufleet
// estimates, used only where no region of the family has a published figure.
const caGCEPriceTable = "cluster-autoscaler GCE price table (kubernetes/autoscaler gce_price_info.go)"

// caRatio is a spot ratio read off the cluster autoscaler's table, with its source.
func caRatio(preemptible, onDemand float64, what string) (float64, string) {
	return preemptible / onDemand, fmt.Sprintf("%s: %s preemptible %g / on-demand %g", caGCEPriceTable, what, preemptible, onDemand)
}

var (
	a2HighgpuSpot, a2HighgpuSpotSource   = caRatio(1.102016, 3.673385, "a2-highgpu-1g")
	a2UltragpuSpot, a2UltragpuSpotSource = caRatio(1.6, 5.0688, "a2-ultragpu-1g")
	t4Spot, t4SpotSource                 = caRatio(0.11, 0.35, "nvidia-tesla-t4")
	p4Spot, p4SpotSource                 = caRatio(0.216, 0.60, "nvidia-tesla-p4")
	v100Spot, v100SpotSource             = caRatio(0.74, 2.48, "nvidia-tesla-v100")
	p100Spot, p100SpotSource             = caRatio(0.43, 1.46, "nvidia-tesla-p100")
)

// awsFamilies: availability is a region fact (DescribeInstanceTypeOfferings); the newest H200/B200
// families are only in a few regions and mostly sold through Capacity Blocks. Spot discounts are
// deepest on older, plentiful GPUs and shallowest on the scarce new ones.
var awsFamilies = map[string]family{
	"g4dn": {base: "us-east-1", regions: awsRegions, spotRatio: 0.35},
	"g5":   {base: "us-east-1", regions: awsRegions, spotRatio: 0.40},
	"g6":   {base: "us-east-1", regions: []string{"us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "eu-north-1", "ap-northeast-1"}, spotRatio: 0.40},
	"g6e":  {base: "us-east-1", regions: []string{"us-east-1", "us-east-2", "us-west-2", "eu-central-1", "eu-north-1", "ap-northeast-1"}, spotRatio: 0.45},
	"p3":   {base: "us-east-1", regions: []string{"us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1", "ap-southeast-1"}, spotRatio: 0.33},
	// p3dn and gr6: the regions the ec2instances.info data prices them in (aws_list_prices.go).
	"p3dn":    {base: "us-east-1", regions: []string{"us-east-1", "us-west-2", "eu-west-1", "ap-northeast-1"}, spotRatio: 0.35},
	"p4d":     {base: "us-east-1", regions: []string{"us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1"}, spotRatio: 0.45},
	"p4de":    {base: "us-east-1", regions: []string{"us-east-1", "us-west-2"}, spotRatio: 0.50},
	"p5":      {base: "us-east-1", regions: []string{"us-east-1", "us-east-2", "us-west-2", "eu-north-1", "ap-northeast-1"}, spotRatio: 0.55},
	"p5e":     {base: "us-east-2", regions: []string{"us-east-2"}, spotRatio: 0.60, estimate: true},
	"p5en":    {base: "us-east-1", regions: []string{"us-east-1", "us-east-2", "us-west-2", "ap-northeast-1"}, spotRatio: 0.60},
	"p6-b200": {base: "us-east-1", regions: []string{"us-east-1", "us-west-2"}, spotRatio: 0.65},
	// gr6: its list prices were estimates, and its regions the US ones, until the ec2instances.info
	// data (aws_list_prices.go) gave the same us-east-1 prices and its other regions.
	"gr6": {base: "us-east-1", regions: []string{"us-east-1", "us-east-2", "us-west-2", "eu-central-1", "eu-north-1", "ap-northeast-1"}, spotRatio: 0.40},
}

// awsOnDemand is the on-demand list price (USD per instance-hour, Linux) in the family's base region.
var awsOnDemand = map[string]float64{
	"g4dn.xlarge": 0.526, "g4dn.2xlarge": 0.752, "g4dn.4xlarge": 1.204, "g4dn.8xlarge": 2.176,
	"g4dn.12xlarge": 3.912, "g4dn.16xlarge": 4.352, "g4dn.metal": 7.824,

	"g5.xlarge": 1.006, "g5.2xlarge": 1.212, "g5.4xlarge": 1.624, "g5.8xlarge": 2.448,
	"g5.12xlarge": 5.672, "g5.16xlarge": 4.096, "g5.24xlarge": 8.144, "g5.48xlarge": 16.288,

	"g6.xlarge": 0.8048, "g6.2xlarge": 0.9776, "g6.4xlarge": 1.3232, "g6.8xlarge": 2.0144,
	"g6.12xlarge": 4.6016, "g6.16xlarge": 3.3968, "g6.24xlarge": 6.6752, "g6.48xlarge": 13.3504,

	"g6e.xlarge": 1.861, "g6e.2xlarge": 2.2421, "g6e.4xlarge": 3.0042, "g6e.8xlarge": 4.5286,
	"g6e.12xlarge": 10.4926, "g6e.16xlarge": 7.5772, "g6e.24xlarge": 15.0656, "g6e.48xlarge": 30.1312,

	"p3.2xlarge": 3.06, "p3.8xlarge": 12.24, "p3.16xlarge": 24.48,
	"p3dn.24xlarge": 31.212,

	// AWS Pricing API, us-east-1, as of 2026-07-20 (Karpenter's generated table: $21.957642 and
	// $27.44705).
	"p4d.24xlarge":  21.9576,
	"p4de.24xlarge": 27.4471,

	"p5.4xlarge": 6.88, "p5.48xlarge": 55.04,
	"p5e.48xlarge": 60.00,
	// Published us-east-1 On-Demand list prices (AWS EC2 On-Demand pricing, Linux): p5en.48xlarge
	// $63.296/h, p6-b200.48xlarge $113.9328/h.
	"p5en.48xlarge":    63.296,
	"p6-b200.48xlarge": 113.9328,
	// The ec2instances.info data's us-east-1 prices (aws_list_prices.go).
	"gr6.4xlarge": 1.5392, "gr6.8xlarge": 2.4464,
}

// gcpFamilies: GKE node prices are the Compute Engine VM prices (GPUs included for a2/a3/a4/g2);
// GKE's cluster fee is per cluster, not per node, so it is not in here. a3-highgpu-1g/2g/4g are only
// provisionable as Spot or Flex-start VMs; their on-demand rate is still the reference price.
var gcpFamilies = map[string]family{
	// g2 (L4) is not in the cluster autoscaler's table (it prices L4 at 0); its spot ratio is the
	// published us-west1 figure (spot.go), and 0.30 (in line with the table's other GPU ratios) is
	// only the fallback should that figure go.
	"g2":          {base: "us-central1", regions: gcpRegions, spotRatio: 0.30},
	"a2-highgpu":  {base: "us-central1", regions: []string{"us-central1", "us-west1", "europe-west4", "asia-northeast1", "asia-southeast1"}, spotRatio: a2HighgpuSpot, spotSource: a2HighgpuSpotSource},
	"a2-megagpu":  {base: "us-central1", regions: []string{"us-central1", "europe-west4", "asia-southeast1"}, spotRatio: 0.30},
	"a2-ultragpu": {base: "us-central1", regions: []string{"us-central1", "us-east4", "europe-west4", "asia-southeast1"}, spotRatio: a2UltragpuSpot, spotSource: a2UltragpuSpotSource},
	"a3-highgpu":  {base: "us-central1", regions: gcpRegions, spotRatio: 0.35},
	"a3-megagpu":  {base: "us-central1", regions: []string{"us-central1", "us-east4", "us-west1", "europe-west4", "europe-west1", "asia-northeast1"}, spotRatio: 0.40, estimate: true},
	"a3-ultragpu": {base: "us-central1", regions: []string{"us-central1", "us-east4", "europe-west1"}, spotRatio: 0.45, estimate: true},
	"a4-highgpu":  {base: "us-central1", regions: []string{"us-central1", "europe-west4"}, spotRatio: 0.45, estimate: true},
	// n1 machines alone (no GPU); priced from GCE's per-vCPU and per-GB rates below.
	"n1": {base: "us-central1", regions: gcpRegions, spotRatio: 0.21},
}

// gceOnDemand is the Compute Engine on-demand price (USD per VM-hour, GPUs included) in us-central1.
var gceOnDemand = map[string]float64{
	"g2-standard-4": 0.7068, "g2-standard-8": 0.8536, "g2-standard-12": 1.0004, "g2-standard-16": 1.1472,
	"g2-standard-24": 2.0008, "g2-standard-32": 1.7344, "g2-standard-48": 4.0017, "g2-standard-96": 8.0033,

	"a2-highgpu-1g": 3.6734, "a2-highgpu-2g": 7.3468, "a2-highgpu-4g": 14.6935, "a2-highgpu-8g": 29.3871,
	"a2-megagpu-16g": 55.7395,
	"a2-ultragpu-1g": 5.0688, "a2-ultragpu-2g": 10.1376, "a2-ultragpu-4g": 20.2752, "a2-ultragpu-8g": 40.5503,

	"a3-highgpu-1g": 11.0613, "a3-highgpu-2g": 22.1225, "a3-highgpu-4g": 44.2450, "a3-highgpu-8g": 88.4901,
	"a3-megagpu-8g":  93.40,
	"a3-ultragpu-8g": 84.81,
	"a4-highgpu-8g":  106.00,
}

// N1 predefined machine types are billed per vCPU and per GB of memory (us-central1 on-demand).
const (
	n1VCPUHourUSD  = 0.031611
	n1GiBHourUSD   = 0.004237
	n1MachineQuote = "Google Compute Engine N1 on-demand vCPU/memory rates"
)

// gpuAttach describes a GPU GKE attaches to n1 machines: its per-GPU price and where it is offered.
type gpuAttach struct {
	onDemand   float64 // USD per GPU-hour, us-central1
	spotRatio  float64
	spotSource string
	regions    []string
}

// n1Accelerators: T4 is almost everywhere; V100 and P100 are in few zones, and none in our Asian
// regions or us-east4. On-demand prices and spot ratios agree with the cluster autoscaler's GCE
// price table (gpuPrices, preemptibleGpuPrices). P4 (GA on N1 with 1, 2 or 4 GPUs) is offered in
// us-central1, us-east4, europe-west4 and asia-southeast1 among gpufleet's regions (Compute
// Engine "GPU regions and zones").
var n1Accelerators = map[string]gpuAttach{
	"nvidia-tesla-t4":   {onDemand: 0.35, spotRatio: t4Spot, spotSource: t4SpotSource, regions: gcpRegions},
	"nvidia-tesla-p4":   {onDemand: 0.60, spotRatio: p4Spot, spotSource: p4SpotSource, regions: []string{"us-central1", "us-east4", "europe-west4", "asia-southeast1"}},
	"nvidia-tesla-v100": {onDemand: 2.48, spotRatio: v100Spot, spotSource: v100SpotSource, regions: []string{"us-central1", "us-west1", "europe-west4"}},
	"nvidia-tesla-p100": {onDemand: 1.46, spotRatio: p100Spot, spotSource: p100SpotSource, regions: []string{"us-central1", "us-west1", "europe-west1", "europe-west4"}},
}

// round4 rounds to 4 decimals: finer than any list price, and what the policy export carries, so the
// Go numbers and the Rego numbers are the same numbers.
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// factorFrom is the price level of region relative to base.
func factorFrom(base, region string) float64 { return regionalFactor[region] / regionalFactor[base] }

// onDemandSource says where an on-demand number comes from.
func onDemandSource(cloud Cloud, f family, quote, region string) string {
	what := quote
	if what == "" {
		what = "AWS EC2 On-Demand list price (Linux)"
		if cloud == GCP {
			what = "Google Compute Engine on-demand list price"
		}
	}
	if f.estimate {
		what = "gpufleet estimate of the " + what + " (no reliable public list price in the snapshot)"
	} else {
		what = "gpufleet snapshot of the " + what
	}
	s := fmt.Sprintf("%s, %s", what, f.base)
	if region != f.base {
		s += fmt.Sprintf(" × gpufleet regional factor %.2f for %s", factorFrom(f.base, region), region)
	}
	return s
}

// unitPrice is one region's price of one billed unit (a node, an n1 machine or one attached GPU).
type unitPrice struct {
	onDemand, spot float64
	source         string // on-demand and spot provenance
	asOf           string // date of the on-demand price
	spotAsOf       string // date of the spot figure
}

// listedPrice is a unit's on-demand price in a region taken from a published price list, with its
// provenance and date.
type listedPrice struct {
	usd    float64
	source string
	asOf   string
}

// onDemandIn is a unit's on-demand price in region, with its provenance and date: the published
// price where listed (region → price: aws_list_prices.go, gcpSeriesPrices) has one, else the base
// price × the regional factor. The base region's price is the catalog's own.
func onDemandIn(cloud Cloud, f family, baseOnDemand float64, listed map[string]listedPrice, quote, region string) (od float64, source, asOf string) {
	if p, ok := listed[region]; ok && region != f.base {
		return round4(p.usd), p.source, p.asOf
	}
	return round4(baseOnDemand * factorFrom(f.base, region)), onDemandSource(cloud, f, quote, region), priceAsOf
}

// gcpSeriesPrices is a machine type's on-demand prices outside its base region for priceRows: its
// series' reference type's SKU price in the region over the same type's in the base region
// (gcpSKU), times the type's catalog price there. Within a series every size is the same vCPUs,
// memory and GPUs priced by the unit, so the reference type's regional ratio is every size's.
// None without a SKU price in the base region (A3 Mega).
func gcpSeriesPrices(family string, baseOnDemand float64) map[string]listedPrice {
	series, ok := gcpSKU[family]
	base := gcpFamilies[family].base
	b, inBase := series.prices[base]
	if !ok || !inBase {
		return nil
	}
	out := map[string]listedPrice{}
	for region, p := range series.prices {
		out[region] = listedPrice{
			usd:    baseOnDemand * p.onDemand / b.onDemand,
			source: fmt.Sprintf("%s: %s in %s $%g/h ÷ in %s $%g/h, × the catalog's %s price", gcpSKUSource, series.machine, region, p.onDemand, base, b.onDemand, base),
			asOf:   gcpSKUAsOf,
		}
	}
	return out
}

// regionalPrice is one region's price of a unit whose base-region price is baseOnDemand and whose
// published regional prices are listed (nil for none). ok is false where the unit is not sold. key
// names the family (or the n1 GPU accelerator) whose spot figures apply (spot.go).
func regionalPrice(cloud Cloud, key string, f family, baseOnDemand float64, listed map[string]listedPrice, quote, region string) (unitPrice, bool) {
	if !contains(f.regions, region) {
		return unitPrice{}, false
	}
	od, odSource, asOf := onDemandIn(cloud, f, baseOnDemand, listed, quote, region)
	ratio, spotSource, spotAsOf := spotFor(cloud, key, f, region)
	return unitPrice{
		onDemand: od,
		spot:     round4(od * ratio),
		source:   fmt.Sprintf("on-demand: %s; %s", odSource, spotSource),
		asOf:     asOf,
		spotAsOf: cmp.Or(spotAsOf, priceAsOf),
	}, true
}

// priceRows builds a node type's price rows, base region first, then the cloud's region order.
// key names the family whose spot figures apply, e.g. "g5"; listed is the type's published
// regional prices (nil for none).
func priceRows(cloud Cloud, key string, f family, baseOnDemand float64, listed map[string]listedPrice) []Price {
	var rows []Price
	for _, region := range baseFirst(f.base, regionsOf(cloud)) {
		if u, ok := regionalPrice(cloud, key, f, baseOnDemand, listed, "", region); ok {
			rows = append(rows, Price{Region: region, OnDemandUSD: u.onDemand, SpotUSD: u.spot, Source: u.source, AsOf: u.asOf, SpotAsOf: u.spotAsOf})
		}
	}
	return rows
}

func regionsOf(cloud Cloud) []string {
	if cloud == AWS {
		return awsRegions
	}
	return gcpRegions
}

func baseFirst(base string, regions []string) []string {
	out := []string{base}
	for _, r := range regions {
		if r != base {
			out = append(out, r)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
