package catalog

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestGKEAcceleratorZones(t *testing.T) {
	if z, ok := GKEAcceleratorZones("nvidia-a100-80gb", "europe-west4"); !ok || !slices.Equal(z, []string{"europe-west4-a"}) {
		t.Errorf("A100 80GB in europe-west4: %v %v", z, ok)
	}
	if _, ok := GKEAcceleratorZones("nvidia-tesla-t4", "europe-west4"); ok {
		t.Error("N1 GPUs are not covered")
	}
	if _, ok := GKEAcceleratorZones("nvidia-l4", "me-west1"); ok {
		t.Error("regions outside the catalog's are not covered")
	}
	if z, ok := GKEAcceleratorZones("nvidia-b200", "us-west1"); !ok || len(z) != 0 {
		t.Errorf("B200 in us-west1: %v %v, want none", z, ok)
	}
	want := `nvidia-a100-80gb is not offered in europe-west4-b, europe-west4-c: Compute Engine offers it only in europe-west4-a of europe-west4 (GCP "GPU regions and zones")`
	if p := GKEAcceleratorZoneProblem("nvidia-a100-80gb", []string{"europe-west4-a", "europe-west4-b", "europe-west4-c"}); p != want {
		t.Errorf("problem %q\nwant    %q", p, want)
	}
	for _, ok := range [][]string{{"europe-west4-a"}, {"us-central1-a", "us-central1-c"}, {"me-west1-a"}, nil} {
		if p := GKEAcceleratorZoneProblem("nvidia-a100-80gb", ok); p != "" {
			t.Errorf("%v: %q", ok, p)
		}
	}
	// Every accelerator-optimized machine type's GPU is covered, in every catalog region it is priced in.
	for _, n := range gkeNodeTypes() {
		if n.Family == "n1" {
			continue
		}
		for _, p := range n.Prices {
			if zones, ok := GKEAcceleratorZones(n.Accelerator, p.Region); !ok || len(zones) == 0 {
				t.Errorf("%s (%s) is priced in %s, which offers it in no zone the catalog knows (%v)", n.Name, n.Accelerator, p.Region, ok)
			}
		}
	}
}

// cloudsim's example world offers in its zones what the catalog says the real zones offer, for the
// accelerators and regions the catalog covers: the examples and guides that plan against it fail
// where GKE would.
func TestAcceleratorZones_seedAgrees(t *testing.T) {
	raw, err := os.ReadFile("../../examples/cloudsim/seed.json")
	if err != nil {
		t.Fatal(err)
	}
	var seed struct {
		GCP struct {
			Projects map[string]struct {
				Accelerators map[string][]string `json:"accelerators"`
			} `json:"projects"`
		} `json:"gcp"`
	}
	if err := json.Unmarshal(raw, &seed); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for project, p := range seed.GCP.Projects {
		for zone, offered := range p.Accelerators {
			region := zone[:strings.LastIndex(zone, "-")]
			for accelerator := range gkeAcceleratorZones {
				zones, ok := GKEAcceleratorZones(accelerator, region)
				if !ok {
					continue
				}
				checked++
				if slices.Contains(zones, zone) != slices.Contains(offered, accelerator) {
					t.Errorf("seed project %s, zone %s: offers %s %v, the catalog says %v", project, zone, accelerator, slices.Contains(offered, accelerator), slices.Contains(zones, zone))
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no seed zone in a region the catalog covers")
	}
}
