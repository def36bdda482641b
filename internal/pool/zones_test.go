package pool

import (
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

func TestZoneArithmetic(t *testing.T) {
	for _, tc := range []struct{ n, zones, perZone, zonal int }{
		{0, 3, 0, 0}, {1, 3, 1, 3}, {3, 3, 1, 3}, {4, 3, 2, 6}, {5, 1, 5, 5}, {5, 0, 5, 5}, {7, 2, 4, 8},
	} {
		if got := PerZone(tc.n, tc.zones); got != tc.perZone {
			t.Errorf("PerZone(%d, %d) = %d, want %d", tc.n, tc.zones, got, tc.perZone)
		}
		if got := ZonalSize(tc.n, tc.zones); got != tc.zonal {
			t.Errorf("ZonalSize(%d, %d) = %d, want %d", tc.n, tc.zones, got, tc.zonal)
		}
	}
	if SplitsOverZones(4, 3) || !SplitsOverZones(6, 3) || !SplitsOverZones(5, 1) {
		t.Error("SplitsOverZones")
	}
}

func TestDefaultZoneCount(t *testing.T) {
	for _, tc := range []struct {
		cloud    catalog.Cloud
		location string
		want     int
	}{
		{catalog.GCP, "europe-west4", 3}, {catalog.GCP, "europe-west4-a", 1}, {catalog.AWS, "us-east-1", 1},
	} {
		if got := DefaultZoneCount(tc.cloud, tc.location); got != tc.want {
			t.Errorf("DefaultZoneCount(%s, %s) = %d, want %d", tc.cloud, tc.location, got, tc.want)
		}
	}
}

func TestMoveIntoLimits(t *testing.T) {
	for _, tc := range []struct {
		current int
		limits  Sizes
		zones   int
		want    int
	}{
		{4, Sizes{Min: 1, Max: 6}, 3, 4},  // within: as it is
		{0, Sizes{Min: 1, Max: 6}, 3, 3},  // below: min rounded up per zone
		{9, Sizes{Min: 1, Max: 7}, 3, 6},  // above: the largest multiple of the zones within max
		{9, Sizes{Min: 1, Max: 7}, 1, 7},  // one zone: clamped
		{0, Sizes{Min: 2, Max: 5}, 0, 2},  // zones unknown: clamped
		{12, Sizes{Min: 0, Max: 2}, 2, 2}, // two zones, max 2: one per zone
	} {
		if got := MoveIntoLimits(tc.current, tc.limits, tc.zones); got != tc.want {
			t.Errorf("MoveIntoLimits(%d, %+v, %d) = %d, want %d", tc.current, tc.limits, tc.zones, got, tc.want)
		}
	}
}

// On GKE a side the autoscaler owns starts at min_size rounded up per zone, and its cost with it;
// while the zones are unknown (the cluster's, at apply) so is the cost.
func TestGKESidesStartPerZone(t *testing.T) {
	s := Spec{Cloud: catalog.GCP, Name: "p", MachineType: "g2-standard-8", Region: "europe-west4", Client: "acme",
		Workload: Workload{Kind: KindInference, Environment: EnvStaging, GPUMemoryGiB: 16},
		Scaling:  Sizes{Min: 2, Max: 12, Desired: 2}, AutoscalerOwnsSize: true, Capacity: Capacity{SpotPercentage: 50},
		Zones: []string{"europe-west4-a", "europe-west4-b", "europe-west4-c"}}
	sides := s.Sides()
	if len(sides) != 2 || sides[0].Sizes.Desired != 3 || sides[1].Sizes.Desired != 3 {
		t.Fatalf("sides = %+v, want 3 nodes each (one per zone)", sides)
	}
	if !s.StartSizeKnown() {
		t.Fatal("start size unknown with known zones")
	}
	d, err := Derive(s, Environment{})
	if err != nil || d.CostUnknown || d.HourlyUSD == 0 {
		t.Fatalf("derived = %+v, %v", d, err)
	}
	s.Zones = nil
	if s.StartSizeKnown() {
		t.Fatal("start size known without zones")
	}
	if d, err := Derive(s, Environment{}); err != nil || !d.CostUnknown || d.HourlyUSD != 0 || Document("p", s, &d)["cost"].(map[string]any)["hourly_usd"] != nil {
		t.Fatalf("derived without zones = %+v, %v", d, err)
	}
	s.Scaling.Min, s.Scaling.Desired = 0, 0
	if !s.StartSizeKnown() {
		t.Fatal("a pool starting at 0 has a known start size")
	}
	s.AutoscalerOwnsSize, s.Scaling.Desired, s.Zones = false, 6, []string{"europe-west4-a", "europe-west4-b", "europe-west4-c"}
	if sides := s.Sides(); sides[0].Sizes.Desired != 3 || sides[1].Sizes.Desired != 3 {
		t.Fatalf("enforced sides = %+v", sides)
	}
}
