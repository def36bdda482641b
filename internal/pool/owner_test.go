package pool

import (
	"regexp"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// Owner ids are distinct, and valid as an AWS tag value and as a GCP label value.
func TestNewOwnerID(t *testing.T) {
	a, err := NewOwnerID()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewOwnerID()
	if a == b || !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(a) {
		t.Fatalf("owner ids %q and %q", a, b)
	}
	for _, cloud := range []catalog.Cloud{catalog.AWS, catalog.GCP} {
		if problem := TagProblem(cloud, "owner", a); problem != "" {
			t.Errorf("%s: %s", cloud, problem)
		}
	}
}
