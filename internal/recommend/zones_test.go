package recommend

import (
	"context"
	"errors"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Every side of a zonal size splits over the zones, and the base is whole nodes per zone.
func TestZonalSize(t *testing.T) {
	for _, tt := range []struct{ nodes, base, pct, zones, size, wantBase int }{
		{1, 0, 0, 1, 1, 0},
		{2, 1, 0, 1, 2, 1},
		{2, 0, 0, 3, 3, 0},
		{2, 2, 50, 3, 3, 3},
		{4, 2, 50, 3, 9, 3}, // 3 on demand + 6 over the base: 3 spot, 3 more on demand
		{12, 2, 50, 3, 15, 3},
		{7, 0, 100, 3, 9, 0},
		{5, 1, 100, 4, 8, 4},
	} {
		size, base := zonalSize(tt.nodes, tt.base, tt.pct, tt.zones)
		if size != tt.size || base != tt.wantBase {
			t.Errorf("zonalSize(%d, %d, %d %%, %d zones) = %d, base %d; want %d, base %d", tt.nodes, tt.base, tt.pct, tt.zones, size, base, tt.size, tt.wantBase)
		}
		od, spot := pool.SplitSizes(pool.Sizes{Min: size, Max: size, Desired: size}, base, tt.pct)
		if !pool.SplitsOverZones(od.Desired, tt.zones) || !pool.SplitsOverZones(spot.Desired, tt.zones) {
			t.Errorf("zonalSize(%d, %d, %d %%, %d zones): sides %d and %d do not split", tt.nodes, tt.base, tt.pct, tt.zones, od.Desired, spot.Desired)
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
