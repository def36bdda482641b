package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Zones of the catalog's GKE regions that offer each accelerator-optimized machine series' GPU
// (Compute Engine offers GPUs per zone, not per region, and GKE creates a node pool's nodes in
// each of its zones: a zone without the accelerator fails CreateNodePool with "Accelerator type …
// is not available in zone …").
//
// Source: Google Cloud's "GPU regions and zones" (cloud.google.com/compute/docs/gpus/gpu-regions-zones)
// could not be read from here; the zones are those of SkyPilot's GCP catalog, which lists every
// machine type per zone (github.com/skypilot-org/skypilot-catalog, catalogs/v8/gcp/vms.csv at
// 006059e0f18acb1341e22a27751e9f80df6ba92f, read 2026-11-28): the zones where any machine type
// of the accelerator is offered (a2-highgpu and a2-megagpu for nvidia-tesla-a100, g2-standard-*
// for nvidia-l4, a2-ultragpu-*, a3-highgpu-*, a3-megagpu-8g, a3-ultragpu-8g, a4-highgpu-8g). They
// agree with what cloudsim's example world (examples/cloudsim/seed.json) offers in its zones
// (TestAcceleratorZones_seedAgrees).
//
// Only the regions in gkeZoneRegions and the accelerators below are covered: N1's attachable GPUs
// (T4, V100, P100, P4) are not, nor are other regions, and nothing is checked for them.
var gkeAcceleratorZones = map[string]map[string][]string{
	"nvidia-l4": {
		"us-central1": {"a", "b", "c"}, "us-east4": {"a", "c"}, "us-west1": {"a", "b", "c"}, "europe-west4": {"a", "b", "c"},
		"europe-west1": {"b", "c"}, "asia-northeast1": {"a", "b", "c"}, "asia-southeast1": {"a", "b", "c"},
	},
	"nvidia-tesla-a100": {
		"us-central1": {"a", "b", "c", "f"}, "us-west1": {"b"}, "europe-west4": {"a", "b"}, "asia-northeast1": {"a", "c"},
		"asia-southeast1": {"a", "b", "c"},
	},
	"nvidia-a100-80gb": {
		"us-central1": {"a", "c"}, "us-east4": {"c"}, "europe-west4": {"a"}, "asia-southeast1": {"c"},
	},
	"nvidia-h100-80gb": {
		"us-central1": {"a", "b", "c"}, "us-east4": {"a", "b", "c"}, "us-west1": {"a", "b"}, "europe-west4": {"b", "c"},
		"europe-west1": {"b", "c"}, "asia-northeast1": {"b"}, "asia-southeast1": {"b", "c"},
	},
	"nvidia-h100-mega-80gb": {
		"us-central1": {"a", "b", "c"}, "us-east4": {"a", "b", "c"}, "us-west1": {"a", "b"}, "europe-west4": {"b", "c"},
		"europe-west1": {"b", "c"}, "asia-northeast1": {"b"}, "asia-southeast1": {"b", "c"},
	},
	"nvidia-h200-141gb": {
		"us-central1": {"b"}, "us-east4": {"b"}, "us-west1": {"c"}, "europe-west4": {"a"}, "europe-west1": {"b"},
	},
	"nvidia-b200": {
		"us-central1": {"b"}, "us-east4": {"b"}, "europe-west4": {"b"}, "asia-northeast1": {"b"}, "asia-southeast1": {"b"},
	},
}

// gkeZoneRegions are the regions gkeAcceleratorZones covers: an accelerator it lists with no entry
// for one of them is offered in none of its zones.
var gkeZoneRegions = []string{"us-central1", "us-east4", "us-west1", "europe-west4", "europe-west1", "asia-northeast1", "asia-southeast1"}

// GKEAcceleratorZones are the zones of region that offer accelerator, and whether the catalog
// knows them (the accelerator and region are covered; see gkeAcceleratorZones for the source).
func GKEAcceleratorZones(accelerator, region string) ([]string, bool) {
	byRegion, ok := gkeAcceleratorZones[accelerator]
	if !ok || !slices.Contains(gkeZoneRegions, region) {
		return nil, false
	}
	var zones []string
	for _, suffix := range byRegion[region] {
		zones = append(zones, region+"-"+suffix)
	}
	return zones, true
}

// GKEAcceleratorZoneProblem says which of zones do not offer accelerator, when the catalog knows
// (every zone must: GKE creates a node pool's nodes in each of its zones); "" when they all do or
// the catalog does not know.
func GKEAcceleratorZoneProblem(accelerator string, zones []string) string {
	var missing []string
	offered := map[string][]string{}
	for _, z := range zones {
		region := z[:max(0, strings.LastIndex(z, "-"))]
		have, known := GKEAcceleratorZones(accelerator, region)
		if !known || slices.Contains(have, z) {
			continue
		}
		missing = append(missing, z)
		offered[region] = have
	}
	if len(missing) == 0 {
		return ""
	}
	var where []string
	for _, r := range slices.Sorted(maps.Keys(offered)) {
		if len(offered[r]) == 0 {
			where = append(where, "in no zone of "+r)
		} else {
			where = append(where, "only in "+strings.Join(offered[r], ", ")+" of "+r)
		}
	}
	return fmt.Sprintf("%s is not offered in %s: Compute Engine offers it %s (GCP \"GPU regions and zones\")",
		accelerator, strings.Join(missing, ", "), strings.Join(where, "; "))
}
