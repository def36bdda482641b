package recommend

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Every side of a zonal size splits over the zones, the base is whole nodes per zone, and the spot
// percentage is the largest up to the asked one at which the sides split, so that no node is added
// to round a side (issue #40, item 5: 12 serving nodes over three zones were 15 at 50 %).
func TestZonalSize(t *testing.T) {
	for _, tt := range []struct{ nodes, base, pct, zones, size, wantBase, wantPct int }{
		{1, 0, 0, 1, 1, 0, 0},
		{2, 1, 0, 1, 2, 1, 0},
		{2, 0, 0, 3, 3, 0, 0},
		{2, 2, 50, 3, 3, 3, 50},
		{4, 2, 50, 3, 6, 3, 33},   // 3 over the base: no spot node splits over three zones at up to 50 %
		{12, 2, 50, 3, 12, 3, 44}, // 9 over the base: 3 spot (one a zone), 9 on demand
		{15, 2, 50, 3, 15, 3, 50}, // 12 over the base: 6 spot, 9 on demand
		{7, 0, 100, 3, 9, 0, 100},
		{5, 1, 100, 4, 8, 4, 100},
		{5, 1, 50, 1, 5, 1, 50},
	} {
		size, base, pct := zonalSize(tt.nodes, tt.base, tt.pct, tt.zones)
		if size != tt.size || base != tt.wantBase || pct != tt.wantPct {
			t.Errorf("zonalSize(%d, %d, %d %%, %d zones) = %d, base %d, %d %%; want %d, base %d, %d %%", tt.nodes, tt.base, tt.pct, tt.zones, size, base, pct, tt.size, tt.wantBase, tt.wantPct)
		}
		od, spot := pool.SplitSizes(pool.Sizes{Min: size, Max: size, Desired: size}, base, pct)
		if !pool.SplitsOverZones(od.Desired, tt.zones) || !pool.SplitsOverZones(spot.Desired, tt.zones) || tt.pct <= 50 && 2*od.Desired < size {
			t.Errorf("zonalSize(%d, %d, %d %%, %d zones): sides %d and %d do not split, or less than half on demand", tt.nodes, tt.base, tt.pct, tt.zones, od.Desired, spot.Desired)
		}
	}
}

// A regional GKE pool runs the same nodes in each zone (issue #21): production inference that
// spreads its replicas gets GKE's three zones of a regional pool, one node each, priced for all
// three; with gke_zones = 1 (a pinned zone) the same request is two nodes; training stays in one
// zone; a zone count no region has is an error naming gke_zones.
func TestRecommend_gkeRegionalPoolSizedPerZone(t *testing.T) {
	e := env(t, catalog.Pricing{})
	gcp := []catalog.Cloud{catalog.GCP}
	serving := Request{Workload: serve7B, Replicas: 2, Clouds: gcp, Regions: []string{"us-central1"}}
	a, err := Recommend(context.Background(), serving, e)
	if err != nil {
		t.Fatal(err)
	}
	b := a.Results[catalog.GCP].Best
	if b.Zones != pool.GKERegionalDefaultZones || b.Nodes%b.Zones != 0 || b.Nodes < 3 {
		t.Fatalf("regional serving: %s on %d nodes over %d zones; want a multiple of 3", b.Label(), b.Nodes, b.Zones)
	}
	p, _ := b.Node.Price(b.Region)
	if want := p.OnDemandUSD * float64(b.Nodes); !near(b.HourlyUSD, want) {
		t.Errorf("regional serving: $%g/h, want every zone's nodes, %d x $%g = $%g", b.HourlyUSD, b.Nodes, p.OnDemandUSD, want)
	}

	serving.GKEZones = 1
	if a, err = Recommend(context.Background(), serving, e); err != nil {
		t.Fatal(err)
	}
	if b := a.Results[catalog.GCP].Best; b.Zones != 1 || b.Nodes != 2 {
		t.Errorf("one zone: %d nodes over %d zones, want 2 over 1", b.Nodes, b.Zones)
	}

	training := Request{Workload: trainSpot, Clouds: gcp, Regions: []string{"us-central1"}}
	if a, err = Recommend(context.Background(), training, e); err != nil {
		t.Fatal(err)
	}
	if b := a.Results[catalog.GCP].Best; b.Zones != 1 || b.Nodes != 1 {
		t.Errorf("training: %d nodes over %d zones, want 1 over 1", b.Nodes, b.Zones)
	}

	serving.GKEZones = 5
	var ae *catalog.ArgumentError
	if _, err := Recommend(context.Background(), serving, e); !errors.As(err, &ae) || ae.Argument != "gke_zones" {
		t.Errorf("gke_zones = 5: %v, want an error naming gke_zones", err)
	}
}

func near(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }

// Issue #40, item 10: a GCP answer names the zones it was sized for, zones of its region that offer
// its GPU, for the pool's node_locations; a region with fewer such zones than the answer spans has
// no answer there (us-central1 offers the A100 80GB in a and c only, so globex's eight MIG-isolated
// replicas, on a2-ultragpu-1g before, are on a2-highgpu-2g in three zones); a one-zone answer names
// one zone; N1's GPUs, whose zones the catalog does not know, name none.
func TestRecommend_gkeAnswerNamesItsZones(t *testing.T) {
	e := env(t, catalog.Pricing{})
	gcp := []catalog.Cloud{catalog.GCP}
	ask := func(req Request) *Option {
		t.Helper()
		req.Clouds = gcp
		a, err := Recommend(context.Background(), req, e)
		if err != nil {
			t.Fatal(err)
		}
		return a.Results[catalog.GCP].Best
	}
	b := ask(Request{Workload: serve7B, Replicas: 8, Regions: []string{"us-central*"}, Client: "globex"})
	want := []string{"us-central1-a", "us-central1-b", "us-central1-c"}
	if b.Node.Name != "a2-highgpu-2g" || b.MIGProfile != "3g.20gb" || !slices.Equal(b.NodeLocations, want) || !slices.Equal(b.Spec.Zones, want) {
		t.Errorf("globex: %s in %v (spec %v), want a2-highgpu-2g 3g.20gb in %v", b.Label(), b.NodeLocations, b.Spec.Zones, want)
	}
	guideHas(t, fmt.Sprintf("%d x %s in %s slices, in %s, %s and %s.", b.Nodes, b.Node.Name, b.MIGProfile, b.NodeLocations[0], b.NodeLocations[1], b.NodeLocations[2]))
	for _, o := range []*Option{b} {
		if have, _ := catalog.GKEAcceleratorZones(o.Node.Accelerator, o.Region); len(o.NodeLocations) != o.Zones || catalog.GKEAcceleratorZoneProblem(o.Node.Accelerator, o.NodeLocations) != "" {
			t.Errorf("%s: %v over %d zones, offered in %v", o.Label(), o.NodeLocations, o.Zones, have)
		}
	}
	if one := ask(Request{Workload: trainSpot, Regions: []string{"us-central1"}, GPUModels: []string{"A100-80GB"}}); !slices.Equal(one.NodeLocations, []string{"us-central1-a"}) {
		t.Errorf("one zone: %s in %v", one.Label(), one.NodeLocations)
	}
	if n1 := ask(Request{Workload: serve7B, Replicas: 2, Regions: []string{"us-central1"}, GPUModels: []string{"T4"}}); n1.NodeLocations != nil || n1.Zones != 3 {
		t.Errorf("N1: %s in %v over %d zones", n1.Label(), n1.NodeLocations, n1.Zones)
	}
}
