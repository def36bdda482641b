package eks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// A node group takes 50 tags: the pool's tags plus the ones gpufleet adds to node groups. The limit
// is checked at plan time, to the tag.
func TestNodegroupTagsProblem_limit(t *testing.T) {
	// Both node groups of a spot mix carry the same tags; the on-demand one is reported first.
	spec := pool.Spec{Cloud: catalog.AWS, ResourceType: ResourceType, Name: "train", Region: "eu-west-1", Client: "acme"}
	spec.Workload = pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 40, Interruptible: true}
	spec.InstanceTypes = []string{"p4d.24xlarge"}
	spec.Scaling = pool.Sizes{Min: 0, Max: 8, Desired: 2}
	spec.Capacity = pool.Capacity{SpotPercentage: 50}
	spec.Labels = map[string]string{"team": "vision"}
	derive := func(userTags int) pool.Derived {
		spec.Tags = map[string]string{}
		for i := range userTags {
			spec.Tags[fmt.Sprintf("t%02d", i)] = "x"
		}
		d, err := pool.Derive(spec, pool.Environment{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	sides := sideConfigs("", spec, derive(0))
	if len(sides) != 2 || len(sides[0].Tags) != len(sides[1].Tags) {
		t.Fatalf("want two node groups with as many tags: %+v", sides)
	}
	base := len(sides[0].Tags)
	if problem := nodegroupTagsProblem(spec, derive(maxNodegroupTags-base)); problem != "" {
		t.Fatalf("%d tags fit: %s", maxNodegroupTags, problem)
	}
	problem := nodegroupTagsProblem(spec, derive(maxNodegroupTags-base+1))
	if !strings.Contains(problem, "train-od would carry 51 tags, and EKS takes at most 50") {
		t.Fatalf("51 tags do not fit: %q", problem)
	}
}
