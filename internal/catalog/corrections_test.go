package catalog

import (
	"math"
	"strings"
	"testing"
)

// The catalog facts corrected against published tables, each pinned with its source.
func TestPublishedAWSPrices(t *testing.T) {
	tests := []struct {
		name     string
		onDemand float64
	}{
		// AWS EC2 On-Demand pricing, us-east-1, Linux (published list prices; the same in the AWS
		// Pricing API on 2026-07-20, as Karpenter's generated table gives it: aws/karpenter-provider-aws
		// v1.15.1, pkg/providers/pricing/zz_generated.pricing_aws.go).
		{"p5en.48xlarge", 63.296},
		{"p6-b200.48xlarge", 113.9328},
		{"p4d.24xlarge", 21.9576},  // $21.957642 in that table
		{"p4de.24xlarge", 27.4471}, // $27.44705
		// The ec2instances.info data (AWS Price List API, 2025-05-28): these were estimates before.
		{"gr6.4xlarge", 1.5392},
		{"gr6.8xlarge", 2.4464},
	}
	for _, tt := range tests {
		n, _ := AWSInstanceType(tt.name)
		p, ok := n.Price("us-east-1")
		if !ok {
			t.Fatalf("%s has no us-east-1 row", tt.name)
		}
		if p.OnDemandUSD != tt.onDemand || strings.Contains(p.Source, "estimate of the") || !strings.Contains(p.Source, "us-east-1") {
			t.Errorf("%s us-east-1: $%g, source %q; want the published $%g", tt.name, p.OnDemandUSD, p.Source, tt.onDemand)
		}
	}
	// Rows that stay estimates say so: p5e (no published on-demand price in the snapshot).
	for _, name := range []string{"p5e.48xlarge"} {
		n, ok := AWSInstanceType(name)
		if !ok || len(n.Prices) == 0 {
			t.Fatalf("%s missing", name)
		}
		for _, p := range n.Prices {
			if !strings.Contains(p.Source, "gpufleet estimate of the AWS EC2 On-Demand list price") {
				t.Errorf("%s %s: source %q does not say the price is an estimate", name, p.Region, p.Source)
			}
		}
	}
}

// GCP spot ratios come from the cluster autoscaler's GCE price table (kubernetes/autoscaler,
// cluster-autoscaler/cloudprovider/gce/gce_price_info.go): preemptibleGpuPrices / gpuPrices and
// preemptiblePrices / instancePrices. us-central1 is the table's region, so spot is its number where
// no regional Spot figure is published (the n1 GPUs).
func TestGCPSpotRatiosFromTheClusterAutoscalerTable(t *testing.T) {
	for accelerator, want := range map[string][2]float64{
		"nvidia-tesla-t4":   {0.35, 0.11},
		"nvidia-tesla-p4":   {0.60, 0.216},
		"nvidia-tesla-v100": {2.48, 0.74},
		"nvidia-tesla-p100": {1.46, 0.43},
	} {
		p, ok := n1AcceleratorPrice(accelerator, "us-central1")
		if !ok || p.onDemand != want[0] || math.Abs(p.spot-want[1]) > 1e-9 || !strings.Contains(p.source, "gce_price_info.go") {
			t.Errorf("%s: on-demand %g spot %g (%q), want %g and %g from the table", accelerator, p.onDemand, p.spot, p.source, want[0], want[1])
		}
	}
	// A2 machine types: the table's ratio is the family's fallback, but every region the catalog
	// sells A2 in has its own published Spot figure (spot.go), which wins.
	for _, r := range [][2]float64{{a2HighgpuSpot, 1.102016 / 3.673385}, {a2UltragpuSpot, 1.6 / 5.0688}} {
		if math.Abs(r[0]-r[1]) > 1e-9 {
			t.Errorf("A2 fallback ratio %g, want the table's %g", r[0], r[1])
		}
	}
	for machine, ratio := range map[string]float64{"a2-ultragpu-1g": 2.02746835616438 / 5.06879789041096, "a2-highgpu-1g": 1.293355 / 3.673385, "g2-standard-4": 0.279932 / 0.706832255} {
		n, _ := GKENodeType(machine, "", 0)
		p, _ := n.Price("us-central1")
		if p.SpotUSD != round4(p.OnDemandUSD*ratio) || !strings.Contains(p.Source, "published figure for") || !strings.Contains(p.Source, "in us-central1") {
			t.Errorf("%s: spot %g of %g (%q), want the us-central1 Spot SKU ratio %.4f", machine, p.SpotUSD, p.OnDemandUSD, p.Source, ratio)
		}
	}
}

// N1 takes the Tesla P4 (GA) in counts 1, 2 and 4.
func TestN1TakesTheP4(t *testing.T) {
	for _, count := range []int{1, 2, 4} {
		n, err := GKENodeType("n1-standard-8", "nvidia-tesla-p4", count)
		if err != nil || n.GPUModel != "P4" || n.GPU().MemoryGiB != 8 {
			t.Errorf("n1-standard-8 + %d P4: %+v, %v", count, n, err)
		}
	}
	if _, err := GKENodeType("n1-standard-32", "nvidia-tesla-p4", 1); err == nil {
		t.Error("one P4 takes at most 24 vCPUs")
	}
}
