package catalog

import (
	"fmt"
	"math"
)

// Commitments: what a steady on-demand baseline costs when it is committed for a year.
//
// AWS: a 1-year Standard Reserved Instance, no upfront (regional: a commitment to an instance type
// in a region that, on Linux, covers every size of its family, EC2 User Guide, "Instance size
// flexibility for Reserved Instances"; billed every hour of the term). An EC2 Instance Savings Plan
// is the same kind of commitment, to an instance family in a region (AWS Savings Plans FAQ:
// "commitment to usage of individual instance families in a region", savings up to 72 %); its rates
// are not in the sources below. GCP: a 1-year resource-based
// committed use discount (vCPUs, memory and GPUs of a machine series in a region, billed every
// hour of the term; Compute Engine, "Resource-based committed use discounts"). Spot usage is
// covered by neither.
//
// The rates are a percentage off the on-demand list price, with source and date. Sources found for
// the snapshot:
//   - AWS, per family and region: the 1-year Standard no-upfront reserved price (Linux, shared
//     tenancy) against the on-demand price of the family's reference type in that region, from the
//     ec2instances.info data (compiled from the AWS Price List API) as packaged in the Go module
//     github.com/cristim/ec2-instances-info at v0.0.0-20250528091325-32acf84f42eb
//     (data/instances.json, 2025-05-28; `go mod download` of that version reads it). Every size of
//     a family has its reference type's rate to within 0.2 point. The rates hold for the catalog
//     only while its list prices are the data's: TestAWSReservedRatesMatchTheCatalogsListPrices
//     holds the base region's to it. That is so for g4dn, g5, g6, g6e, gr6 and p3dn. A region
//     without a reserved price in the data (g5 in ap-southeast-1, g6 in eu-west-1: the data has no
//     price of theirs there at all) takes the family's base-region rate, flagged as an estimate.
//   - AWS, p5: 1-year reserved/committed rates for H100 instances at 35-40 % off on-demand in Q1
//     2026 (digiteria labs, "Cloud GPU pricing shifts in Q1 2026").
//   - AWS, the rest, flagged as estimates with the p5 figure: p3 (the data has no reserved offer for
//     it), p5e and p6-b200 (not in the data), and p4d, p4de and p5en, whose on-demand list prices
//     changed after the data (the catalog lists p4d.24xlarge at $21.9576/h, the data $32.7726/h; the
//     data's ratios, 38.4 % Standard for p4d and p4de, are of the old prices).
//   - GCP, per machine series: the 1-year commitment price of each machine type per region that
//     the Cloud Billing Catalog SKUs give (vCPU, memory and GPU commitment SKUs), as compiled in
//     Cyclenerd/google-cloud-pricing-cost-calculator pricing.yml at commit 0166a59 (generated
//     2025-03-06), against the on-demand price of the same type: g2-standard-4 37.0 %,
//     a2-highgpu-1g 37.0 %, a2-megagpu-16g 37.0 %, a3-highgpu-1g and -8g 30.6 % (us-central1,
//     the same in europe-west4), a3-megagpu-8g 31.2 % (us-east4; it is not sold in us-central1).
//     The file has no 1-year price for a2-ultragpu (A100 80GB), A3 Ultra (H200) or A4 (B200).
//   - GCP, general: resource-based CUDs are 37 % off on-demand for 1 year and 55 % for 3 years on
//     vCPUs, memory and GPUs (lillytechsystems.com, "GCP AI cost: committed use discounts", 2026;
//     Google's own page states "up to 57 %" for machine types and GPUs, the 3-year ceiling): n1 and
//     a2-ultragpu take it. A3 Ultra and A4 take the A3 Mega rate, flagged as an estimate: the
//     H100 series' published rates (30.6 % and 31.2 %) are the nearest, and both are below 37 %.

// Commitment is the commitment a family's on-demand baseline is priced with in a region.
type Commitment struct {
	Name            string  // e.g. "1-year Standard Reserved Instance, no upfront"
	DiscountPercent float64 // off the on-demand list price
	Source          string
	AsOf            string // YYYY-MM-DD
	Estimate        bool   // the family has no published rate of its own; Source says whose is used
}

const (
	awsCommitmentName = "1-year Standard Reserved Instance, no upfront"
	gcpCommitmentName = "1-year resource-based committed use discount (CUD)"

	awsRISource = "ec2instances.info data (from the AWS Price List API; Go module github.com/cristim/ec2-instances-info v0.0.0-20250528091325-32acf84f42eb, data/instances.json), Linux, shared tenancy"
	awsRIAsOf   = "2025-05-28"

	gcpSKUCUDSource = "Google Cloud Billing Catalog 1-year commitment and on-demand SKU prices as compiled in Cyclenerd/google-cloud-pricing-cost-calculator pricing.yml @0166a59 (generated 2025-03-06)"
	gcpSKUCUDAsOf   = "2025-03-06"

	gcpCUDSource = "lillytechsystems.com, \"GCP AI cost: committed use discounts\": resource-based CUDs 37 % (1 year) / 55 % (3 years); Google Compute Engine, \"Resource-based committed use discounts\": up to 57 % for machine types and GPUs"
	gcpCUDAsOf   = "2026-03-01"
	awsH100Src   = "digiteria labs, \"Cloud GPU pricing shifts in Q1 2026\": 1-year reserved/committed H100 pricing 35-40 % off on-demand (midpoint 37.5 %)"
	awsH100AsOf  = "2026-01-31"
)

// percentOff is 1 − committed ÷ on-demand, in percent to one decimal.
func percentOff(committed, onDemand float64) float64 {
	return math.Round((1-committed/onDemand)*1000) / 10
}

func awsPublished(source, asOf string, pct float64) Commitment {
	return Commitment{Name: awsCommitmentName, DiscountPercent: pct, Source: source, AsOf: asOf}
}

func awsEstimate(why string) Commitment {
	c := awsPublished("gpufleet estimate: "+why+", so the H100 (p5) figure: "+awsH100Src, awsH100AsOf, 37.5)
	c.Estimate = true
	return c
}

// awsReservedFamily is a family's reference type (its smallest size) and that type's 1-year
// Standard no-upfront reserved price (USD per hour) by region, from the data. The on-demand price
// the rate is taken against is the same type's in awsListPrices.
type awsReservedFamily struct {
	typ      string
	reserved map[string]float64
}

// awsReserved: family → its reference type's reserved prices in each catalog region where the data
// has one.
var awsReserved = map[string]awsReservedFamily{
	"g4dn": {"g4dn.xlarge", map[string]float64{
		"us-east-1": 0.331, "us-east-2": 0.331, "us-west-2": 0.331,
		"eu-west-1": 0.4, "eu-central-1": 0.449, "eu-north-1": 0.352,
		"ap-northeast-1": 0.485, "ap-southeast-1": 0.464,
	}},
	"g5": {"g5.xlarge", map[string]float64{
		"us-east-1": 0.63378, "us-east-2": 0.63378, "us-west-2": 0.63378,
		"eu-west-1": 0.70749, "eu-central-1": 0.79254, "eu-north-1": 0.67221,
		"ap-northeast-1": 0.91917,
	}},
	"g6": {"g6.xlarge", map[string]float64{
		"us-east-1": 0.52392, "us-east-2": 0.52392, "us-west-2": 0.52392,
		"eu-central-1": 0.65517, "eu-north-1": 0.55569, "ap-northeast-1": 0.75985,
	}},
	"g6e": {"g6e.xlarge", map[string]float64{
		"us-east-1": 1.17243, "us-east-2": 1.17243, "us-west-2": 1.17243,
		"eu-central-1": 1.46601, "eu-north-1": 1.24362, "ap-northeast-1": 1.70037,
	}},
	"gr6": {"gr6.4xlarge", map[string]float64{
		"us-east-1": 1.00202, "us-east-2": 1.00202, "us-west-2": 1.00202,
		"eu-central-1": 1.25304, "eu-north-1": 1.06282, "ap-northeast-1": 1.45323,
	}},
	"p3dn": {"p3dn.24xlarge", map[string]float64{
		"us-east-1": 19.215, "us-west-2": 19.215, "eu-west-1": 20.817,
		"ap-northeast-1": 27.025,
	}},
}

// awsReservedIn is the family's rate in region: its own where the data has one, else its base
// region's, flagged as an estimate (as a neighbouring region's spot figure is, spot.go).
func awsReservedIn(family, region string) (Commitment, bool) {
	f, ok := awsReserved[family]
	if !ok {
		return Commitment{}, false
	}
	rateIn := func(region string) Commitment {
		reserved, onDemand := f.reserved[region], awsListPrices[f.typ][region]
		return awsPublished(fmt.Sprintf("%s: %s in %s: 1-year $%g/h ÷ on-demand $%g/h", awsRISource, f.typ, region, reserved, onDemand),
			awsRIAsOf, percentOff(reserved, onDemand))
	}
	if _, ok := f.reserved[region]; ok {
		return rateIn(region), true
	}
	base := awsFamilies[family].base
	c := rateIn(base)
	c.Source = fmt.Sprintf("gpufleet estimate: no 1-year reserved price for %s in the data, so the family's %s rate: %s", region, base, c.Source)
	c.Estimate = true
	return c, true
}

func gcpPublished() Commitment {
	return Commitment{Name: gcpCommitmentName, DiscountPercent: 37, Source: gcpCUDSource, AsOf: gcpCUDAsOf}
}

// gcpSeries is a machine series' own 1-year rate: 1 − (1-year price ÷ on-demand price) of one of
// its machine types in one region, from the SKU prices.
func gcpSeries(machine, region string, committedMonth, onDemandMonth float64) Commitment {
	return Commitment{
		Name:            gcpCommitmentName,
		DiscountPercent: percentOff(committedMonth, onDemandMonth),
		Source:          fmt.Sprintf("%s: %s in %s, 1-year $%g/month ÷ on-demand $%g/month", gcpSKUCUDSource, machine, region, committedMonth, onDemandMonth),
		AsOf:            gcpSKUCUDAsOf,
	}
}

// gcpEstimate is the rate of another series (from), for a series with no published rate of its own.
func gcpEstimate(why string, from Commitment) Commitment {
	c := from
	c.Source = "gpufleet estimate: " + why + ", so " + from.Source
	c.Estimate = true
	return c
}

var (
	gcpA3High = gcpSeries("a3-highgpu-1g", "us-central1", 5601.26008308, 8074.71249111)
	gcpA3Mega = gcpSeries("a3-megagpu-8g", "us-east4", 46678.66370976, 67844.4393504)
)

// commitments is family → commitment, the same in every region; AWS families with a rate per region
// are in awsReserved. A family in neither gets no commitment.
var commitments = map[Cloud]map[string]Commitment{
	AWS: {
		"p5":      awsPublished(awsH100Src, awsH100AsOf, 37.5),
		"p3":      awsEstimate("the data has no reserved offer for p3"),
		"p4d":     awsEstimate("the on-demand list price changed after the data (its reserved ratio is of the old prices)"),
		"p4de":    awsEstimate("the on-demand list price changed after the data (its reserved ratio is of the old prices)"),
		"p5e":     awsEstimate("p5e is not in the data"),
		"p5en":    awsEstimate("the on-demand list price changed after the data, which has no reserved offer for p5en"),
		"p6-b200": awsEstimate("p6-b200 is not in the data"),
	},
	GCP: {
		// The series' own rates where the SKU prices give them; n1 with T4/P4/V100/P100 and a2-ultragpu
		// (A100 80GB) take the general resource-based rate, which covers vCPUs, memory and GPUs alike.
		"n1":          gcpPublished(),
		"g2":          gcpSeries("g2-standard-4", "us-central1", 325.07215214, 515.98754615),
		"a2-highgpu":  gcpSeries("a2-highgpu-1g", "us-central1", 1689.3711392, 2681.57105),
		"a2-megagpu":  gcpSeries("a2-megagpu-16g", "us-central1", 25634.2950272, 40689.83792),
		"a2-ultragpu": gcpPublished(),
		"a3-highgpu":  gcpA3High,
		"a3-megagpu":  gcpA3Mega,
		"a3-ultragpu": gcpEstimate("no published 1-year rate for A3 Ultra (H200) in the snapshot, the nearest series' (A3 Mega, H100)", gcpA3Mega),
		"a4-highgpu":  gcpEstimate("no published 1-year rate for A4 (B200) in the snapshot, the nearest series' (A3 Mega, H100)", gcpA3Mega),
	},
}

// CommitmentFor is the commitment a node type's on-demand baseline can be priced with in region.
func CommitmentFor(n NodeType, region string) (Commitment, bool) {
	if n.Cloud == AWS {
		if c, ok := awsReservedIn(n.Family, region); ok {
			return c, true
		}
	}
	c, ok := commitments[n.Cloud][n.Family]
	return c, ok
}

// Committed is what one node of n costs per hour in region under its family's commitment, at the
// user's pricing:
//   - an on-demand override is the negotiated rate the user pays and already reflects whatever
//     commitment they hold: no commitment is applied on top (ok false);
//   - otherwise the commitment's discount applies to the catalog's on-demand list price, and the
//     provider's discount_percent (an enterprise discount, which AWS and Google apply after Savings
//     Plans and CUD rates) on top: list × (1 − commitment) × (1 − discount).
//
// ok is false when the family has no commitment or the type is overridden; err as Pricing.Hourly.
func (p Pricing) Committed(n NodeType, region string) (hourly float64, c Commitment, ok bool, err error) {
	if _, _, err := p.Hourly(n, region); err != nil {
		return 0, Commitment{}, false, err
	}
	if o, overridden := p.Overrides[n.Name]; overridden && o.OnDemandUSD > 0 {
		return 0, Commitment{}, false, nil
	}
	c, ok = CommitmentFor(n, region)
	if !ok {
		return 0, Commitment{}, false, nil
	}
	row, _ := n.Price(region) // Hourly succeeded without an on-demand override: the row exists
	return round4(row.OnDemandUSD * (1 - c.DiscountPercent/100) * (1 - p.DiscountPercent/100)), c, true, nil
}
