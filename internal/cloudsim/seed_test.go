package cloudsim

import (
	"strings"
	"testing"
)

// The example seed that ships with the examples loads and has what the docs promise.
func TestSeed_ExampleSeedLoads(t *testing.T) {
	seed, err := LoadSeed(exampleSeed)
	if err != nil {
		t.Fatal(err)
	}
	for _, region := range []string{"us-east-1", "eu-west-1"} {
		r := seed.awsRegion(region)
		if r.cluster("ml") == nil || len(r.Subnets) == 0 || !r.offeredInRegion("g5.xlarge") {
			t.Errorf("%s: incomplete seed", region)
		}
	}
	types := map[string]bool{}
	for _, cr := range seed.awsRegion("us-east-1").CapacityReservations {
		types[firstNonEmpty(cr.ReservationType, "default")] = cr.InstanceType == "p5.48xlarge"
	}
	if !types["default"] || !types["capacity-block"] {
		t.Errorf("want a p5 ODCR and a p5 capacity block: %v", types)
	}
	p := seed.gcpProject("acme-ml")
	if p == nil || p.cluster("us-central1", "ml") == nil || p.cluster("europe-west4", "ml") == nil ||
		!p.acceleratorInZone("nvidia-l4", "europe-west4-a") || !p.acceleratorInZone("nvidia-h100-80gb", "us-central1-a") {
		t.Errorf("incomplete gcp seed")
	}
}

// Typos in a seed fail loudly.
func TestSeed_UnknownFieldsAndMissingNamesRejected(t *testing.T) {
	for _, bad := range []string{
		`{"aws": {"regions": {"us-east-1": {"clusterz": []}}}}`,
		`{"aws": {"regions": {"us-east-1": {"clusters": [{"name": "ml"}]}}}}`,
		`{"aws": {"regions": {"us-east-1": {"capacity_reservations": [{"id": "cr-1", "instance_type": "p5.48xlarge", "availability_zone": "us-east-1a", "reservation_type": "block"}]}}}}`,
		`{"gcp": {"projects": {"p": {"clusters": [{"name": "ml"}]}}}}`,
		`{"gcp": {"projects": {"p": {"clusters": [{"name": "ml", "location": "us-central1", "version": "1.31", "node_pools": [{"name": "Default_Pool"}]}]}}}}`,
		`{"gcp": {"projects": {"p": {"clusters": [{"name": "ml", "location": "us-central1", "version": "1.31", "node_pools": [{"name": "default-pool", "node_count": -1}]}]}}}}`,
	} {
		if _, err := ParseSeed([]byte(bad)); err == nil || !strings.Contains(err.Error(), "seed") {
			t.Errorf("seed %s accepted (%v)", bad, err)
		}
	}
}
