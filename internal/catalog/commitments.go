package catalog

import (
	"fmt"
	"math"
)

// Commitments: what a steady on-demand baseline costs when it is committed for a year.
//
// AWS: a 1-year EC2 Instance Savings Plan, no upfront (a commitment to an instance family in a
// region; it covers every size of the family, like a regional Standard Reserved Instance, and is
// billed every hour of the term). GCP: a 1-year resource-based committed use discount (vCPUs,
// memory and GPUs of a machine series in a region, billed every hour of the term; Compute Engine,
// "Resource-based committed use discounts"). Spot usage is covered by neither.
//
// The rates are per family, as a percentage off the on-demand list price, with source and date.
// Sources found for the snapshot:
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
//   - AWS: 1-year reserved/committed rates for H100 instances at 35-40 % off on-demand in Q1 2026
//     (digiteria labs, "Cloud GPU pricing shifts in Q1 2026"); AWS states "up to 72 %" for EC2
//     Instance Savings Plans, the 3-year all-upfront ceiling. No per-family 1-year rate for the other
//     GPU families was readable offline (the Savings Plans and Reserved Instance rate pages are
//     script-rendered, and no stored copy of the Price List offer files or of a table built from
//     them carries the GPU families), so they take the H100 figure, flagged as an estimate.

// Commitment is the commitment a family's on-demand baseline is priced with.
type Commitment struct {
	Name            string  // e.g. "1-year EC2 Instance Savings Plan, no upfront"
	DiscountPercent float64 // off the on-demand list price
	Source          string
	AsOf            string // YYYY-MM-DD
	Estimate        bool   // the family has no published rate of its own; Source says whose is used
}

const (
	awsCommitmentName = "1-year EC2 Instance Savings Plan, no upfront"
	gcpCommitmentName = "1-year resource-based committed use discount (CUD)"

	gcpSKUCUDSource = "Google Cloud Billing Catalog 1-year commitment and on-demand SKU prices as compiled in Cyclenerd/google-cloud-pricing-cost-calculator pricing.yml @0166a59 (generated 2025-03-06)"
	gcpSKUCUDAsOf   = "2025-03-06"

	gcpCUDSource = "lillytechsystems.com, \"GCP AI cost: committed use discounts\": resource-based CUDs 37 % (1 year) / 55 % (3 years); Google Compute Engine, \"Resource-based committed use discounts\": up to 57 % for machine types and GPUs"
	gcpCUDAsOf   = "2026-03-01"
	awsH100Src   = "digiteria labs, \"Cloud GPU pricing shifts in Q1 2026\": 1-year reserved/committed H100 pricing 35-40 % off on-demand (midpoint 37.5 %)"
	awsH100AsOf  = "2026-01-31"
)

func awsPublished(source, asOf string, pct float64) Commitment {
	return Commitment{Name: awsCommitmentName, DiscountPercent: pct, Source: source, AsOf: asOf}
}

func awsEstimate() Commitment {
	c := awsPublished("gpufleet estimate: no 1-year rate for this family in the snapshot, so the H100 (p5) figure: "+awsH100Src, awsH100AsOf, 37.5)
	c.Estimate = true
	return c
}

func gcpPublished() Commitment {
	return Commitment{Name: gcpCommitmentName, DiscountPercent: 37, Source: gcpCUDSource, AsOf: gcpCUDAsOf}
}

// gcpSeries is a machine series' own 1-year rate: 1 − (1-year price ÷ on-demand price) of one of
// its machine types in one region, from the SKU prices.
func gcpSeries(machine, region string, committedMonth, onDemandMonth float64) Commitment {
	pct := math.Round((1-committedMonth/onDemandMonth)*1000) / 10
	return Commitment{
		Name:            gcpCommitmentName,
		DiscountPercent: pct,
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

// commitments is family → commitment. A family missing here gets no commitment.
var commitments = map[Cloud]map[string]Commitment{
	AWS: {
		"p5":      awsPublished(awsH100Src, awsH100AsOf, 37.5),
		"g4dn":    awsEstimate(),
		"g5":      awsEstimate(),
		"g6":      awsEstimate(),
		"g6e":     awsEstimate(),
		"gr6":     awsEstimate(),
		"p3":      awsEstimate(),
		"p3dn":    awsEstimate(),
		"p4d":     awsEstimate(),
		"p4de":    awsEstimate(),
		"p5e":     awsEstimate(),
		"p5en":    awsEstimate(),
		"p6-b200": awsEstimate(),
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

// CommitmentFor is the commitment a node type's on-demand baseline can be priced with.
func CommitmentFor(n NodeType) (Commitment, bool) {
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
	c, ok = CommitmentFor(n)
	if !ok {
		return 0, Commitment{}, false, nil
	}
	row, _ := n.Price(region) // Hourly succeeded without an on-demand override: the row exists
	return round4(row.OnDemandUSD * (1 - c.DiscountPercent/100) * (1 - p.DiscountPercent/100)), c, true, nil
}
