package pool

import (
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// A pool's nodes reach each other over an inter-node GPU network only if every instance type it
// may launch has it (issue #40, item 8; the bundle's lib._doc_internode): g6.8xlarge has EFA,
// g6.xlarge, with the same one L4, does not. It failed before (the first type's EFA was the pool's).
func TestNodeType_interNodeOfEveryInstanceType(t *testing.T) {
	for _, tc := range []struct {
		types []string
		want  string
		nics  int
	}{
		{[]string{"g6.8xlarge", "g6.16xlarge"}, catalog.NetworkEFA, 1},
		{[]string{"g6.8xlarge", "g6.xlarge"}, "", 0},
		{[]string{"g6.xlarge", "g6.8xlarge"}, "", 0},
		{[]string{"p5.48xlarge"}, catalog.NetworkEFA, 32},
	} {
		n, problem, known := Spec{Cloud: catalog.AWS, InstanceTypes: tc.types}.NodeType()
		if problem != nil || !known || n.InterNode != tc.want || n.InterNodeNICs != tc.nics {
			t.Errorf("%v: inter-node %q over %d interfaces (%v, %v), want %q over %d", tc.types, n.InterNode, n.InterNodeNICs, problem, known, tc.want, tc.nics)
		}
	}
}
