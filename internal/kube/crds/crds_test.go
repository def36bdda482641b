package crds_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/crds"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/crds/crdsource"
)

// The copies under internal/kube/crds are the pinned modules' files, byte for byte: a hand edit,
// or a pin moved without `go generate ./internal/kube/crds`, fails here. The module zips come from
// the module cache or the module proxy, checked against the pinned checksums.
func TestCopiesMatchPinnedModules(t *testing.T) {
	for _, p := range crdsource.Pins {
		want, err := crdsource.Read(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		for name, data := range want {
			got, err := crds.File(name)
			if err != nil {
				t.Fatalf("%s (from %s@%s) is not embedded: %v", name, p.Module, p.Version, err)
			}
			if !bytes.Equal(got, data) {
				t.Errorf("%s differs from %s@%s: run go generate ./internal/kube/crds", name, p.Module, p.Version)
			}
		}
	}
}

// Every set has its CRDs.
func TestSetsHaveTheirCRDs(t *testing.T) {
	for _, s := range crds.Sets {
		files, err := s.Files()
		if err != nil {
			t.Fatal(err)
		}
		if len(files) < 2 { // Karpenter: NodePool, NodeOverlay, EC2NodeClass; Auto Mode: NodePool, NodeClass
			t.Errorf("%s has %d CRDs", s, len(files))
		}
	}
}
