package catalog

import "testing"

// TestInterNodeNetworks pins the sourced inter-node GPU network facts (internode.go): which shapes
// have EFA or GPUDirect and how many interfaces each takes, and that shapes without one say so.
func TestInterNodeNetworks(t *testing.T) {
	aws := map[string]struct {
		network string
		nics    int
	}{
		"p4d.24xlarge": {NetworkEFA, 4}, "p4de.24xlarge": {NetworkEFA, 4},
		"p5.48xlarge": {NetworkEFA, 32}, "p5e.48xlarge": {NetworkEFA, 32}, "p5en.48xlarge": {NetworkEFA, 16},
		"p6-b200.48xlarge": {NetworkEFA, 8},
		"g6e.48xlarge":     {NetworkEFA, 4}, "g6e.24xlarge": {NetworkEFA, 2}, "g6e.12xlarge": {NetworkEFA, 1},
		"g5.48xlarge": {NetworkEFA, 1}, "g6.48xlarge": {NetworkEFA, 1}, "p3dn.24xlarge": {NetworkEFA, 1},
		"g4dn.12xlarge": {NetworkEFA, 1},
		// No EFA: small sizes, p3, the one-GPU p5.
		"g5.xlarge": {"", 0}, "g6e.4xlarge": {"", 0}, "p3.16xlarge": {"", 0}, "p5.4xlarge": {"", 0},
	}
	for name, want := range aws {
		n, ok := AWSInstanceType(name)
		if !ok {
			t.Fatalf("%s: not in the catalog", name)
		}
		if n.InterNode != want.network || n.InterNodeNICs != want.nics || n.MultiNode() != (want.network != "") {
			t.Errorf("%s: inter-node %q × %d, want %q × %d", name, n.InterNode, n.InterNodeNICs, want.network, want.nics)
		}
	}
	for name := range awsEFA {
		if _, ok := AWSInstanceType(name); !ok {
			t.Errorf("awsEFA names %s, which the catalog does not know", name)
		}
	}

	gcp := map[string]struct {
		network string
		nics    int
	}{
		"a3-highgpu-8g": {NetworkGPUDirectTCPX, 4}, "a3-megagpu-8g": {NetworkGPUDirectTCPXO, 8},
		"a3-ultragpu-8g": {NetworkGPUDirectRDMA, 8}, "a4-highgpu-8g": {NetworkGPUDirectRDMA, 8},
		"a3-highgpu-4g": {"", 0}, "a2-ultragpu-8g": {"", 0}, "g2-standard-96": {"", 0},
	}
	for name, want := range gcp {
		n, err := GKENodeType(name, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if n.InterNode != want.network || n.InterNodeNICs != want.nics {
			t.Errorf("%s: inter-node %q × %d, want %q × %d", name, n.InterNode, n.InterNodeNICs, want.network, want.nics)
		}
	}
	if got := InterNodeName(NetworkGPUDirectTCPXO); got != "GPUDirect-TCPXO" {
		t.Errorf("InterNodeName(tcpxo) = %q", got)
	}
}
