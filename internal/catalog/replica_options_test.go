package catalog

import (
	"strings"
	"testing"
)

// The tables the right-sizing rules read must hold, per cloud and region, exactly the cheapest
// option of each memory size among all options, by memory, so "the cheapest option with memory
// in a range" is the cheapest table entry in that range.
func TestReplicaOptionTables(t *testing.T) {
	for _, c := range []struct {
		name string
		keep func(replicaOption) bool
	}{
		{"replica_options", func(replicaOption) bool { return true }},
		{"inference_gpu_options", func(o replicaOption) bool { return o.kind == "gpu" && o.class == ClassInference }},
	} {
		t.Run(c.name, func(t *testing.T) {
			table := exportReplicaOptions(c.keep)
			for _, cloud := range []Cloud{AWS, GCP} {
				regions := table[string(cloud)].(map[string]any)
				for region, all := range replicaOptions(cloud) {
					want := map[float64]replicaOption{}
					for _, o := range all {
						if strings.Contains(o.text, "+me") {
							t.Errorf("%s/%s: media-extension profile offered: %s", cloud, region, o.text)
						}
						if w, seen := want[o.memoryGiB]; c.keep(o) && (!seen || o.unitUSD < w.unitUSD) {
							want[o.memoryGiB] = o
						}
					}
					entries, _ := regions[region].([]any)
					if len(entries) != len(want) {
						t.Fatalf("%s/%s: %d entries, want one per memory size (%d)", cloud, region, len(entries), len(want))
					}
					previous := -1.0
					for _, e := range entries {
						term := e.([]any)
						memory, unit := term[1].(float64), term[0].(float64)
						if memory <= previous {
							t.Errorf("%s/%s: entries not in increasing memory at %v GiB", cloud, region, memory)
						}
						previous = memory
						if w := want[memory]; unit != w.unitUSD {
							t.Errorf("%s/%s %v GiB: %v $/h (%s), want the cheapest %v $/h (%s)", cloud, region, memory, unit, term[4], w.unitUSD, w.text)
						}
					}
				}
			}
		})
	}
}

// Spot checks against hand-computed figures of the catalog's public list prices.
func TestReplicaOptionsPricing(t *testing.T) {
	find := func(cloud Cloud, region, text string) replicaOption {
		t.Helper()
		for _, o := range replicaOptions(cloud)[region] {
			if o.text == text {
				return o
			}
		}
		t.Fatalf("%s/%s: no option %q", cloud, region, text)
		return replicaOption{}
	}
	p4d, _ := AWSInstanceType("p4d.24xlarge")
	price, _ := p4d.Price("us-east-1")
	slice := find(AWS, "us-east-1", "the MIG slice 1g.5gb of A100-40GB on p4d.24xlarge")
	if want := round4(price.OnDemandUSD) / 8 / 7; slice.unitUSD != want || slice.gpuUSD != round4(price.OnDemandUSD)/8 || slice.kind != "mig" {
		t.Errorf("1g.5gb slice: %+v, want %v $/h per slice", slice, want)
	}
	t4 := find(GCP, "us-central1", "n1-standard-4 + 1 x nvidia-tesla-t4 (T4, 16 GiB)")
	machine, _ := findN1Machine("n1-standard-4")
	mp, _ := n1MachinePrice(machine, "us-central1")
	gp, _ := n1AcceleratorPrice("nvidia-tesla-t4", "us-central1")
	if want := round4(mp.onDemand) + round4(gp.onDemand); t4.unitUSD != want || t4.class != ClassInference || t4.kind != "gpu" {
		t.Errorf("n1 + T4: %+v, want %v $/h", t4, want)
	}
}
