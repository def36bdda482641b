package eks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

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
	sides := sideConfigs(poolOwner{}, spec, derive(0))
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

// Only the side's own templates count as its own: by owner tag, with the pool's owner id; for pools
// made before owner ids, by the owner tag without one, or, for templates made before the owner tag,
// by legacy name and pool tag, which tells apart the legacy names that collide. Import takes any id.
func TestSideOwner_owns(t *testing.T) {
	lt := func(name string, tags ...string) *ec2types.LaunchTemplate {
		out := &ec2types.LaunchTemplate{LaunchTemplateName: aws.String(name), LaunchTemplateId: aws.String("lt-0123456789abcdef0")}
		for i := 0; i < len(tags); i += 2 {
			out.Tags = append(out.Tags, ec2types.Tag{Key: aws.String(tags[i]), Value: aws.String(tags[i+1])})
		}
		return out
	}
	mlAB := poolOwner{cluster: "ml", pool: "a-b"}.side("a-b-od")
	mlaB := poolOwner{cluster: "ml-a", pool: "b"}.side("b-od")
	withID := poolOwner{cluster: "ml", pool: "a-b", id: "0123456789abcdef"}.side("a-b-od")
	importing := poolOwner{cluster: "ml", pool: "a-b", anyID: true}.side("a-b-od")
	cases := []struct {
		name  string
		owner sideOwner
		lt    *ec2types.LaunchTemplate
		want  bool
	}{
		{"owner tag", mlAB, lt("gpufleet.ml.a-b-od", tagOwner, "ml/a-b/a-b-od"), true},
		{"another pool's owner tag", mlAB, lt("gpufleet.ml.a-b-od", tagOwner, "ml/a/a-b-od"), false},
		{"owner tag wins over a legacy name", mlAB, lt("gpufleet-ml-a-b-od", tagOwner, "ml-a/b/b-od", "gpufleet:pool", "a-b"), false},
		{"no tags", mlAB, lt("gpufleet.ml.a-b-od"), false},
		{"legacy, this pool", mlAB, lt("gpufleet-ml-a-b-od", "gpufleet:pool", "a-b"), true},
		{"legacy, the colliding pool", mlaB, lt("gpufleet-ml-a-b-od", "gpufleet:pool", "a-b"), false},
		{"legacy name without pool tag", mlAB, lt("gpufleet-ml-a-b-od"), false},
		{"owner id", withID, lt("gpufleet.ml.a-b-od", tagOwner, "ml/a-b/a-b-od/0123456789abcdef"), true},
		{"another owner id: a pool of the same name", withID, lt("gpufleet.ml.a-b-od", tagOwner, "ml/a-b/a-b-od/fedcba9876543210"), false},
		{"no owner id: a pool made before owner ids", withID, lt("gpufleet.ml.a-b-od", tagOwner, "ml/a-b/a-b-od"), false},
		{"an owner id, for a pool made before owner ids", mlAB, lt("gpufleet.ml.a-b-od", tagOwner, "ml/a-b/a-b-od/0123456789abcdef"), false},
		{"legacy name, for a pool with an owner id", withID, lt("gpufleet-ml-a-b-od", "gpufleet:pool", "a-b"), false},
		{"import: any owner id", importing, lt("gpufleet.ml.a-b-od", tagOwner, "ml/a-b/a-b-od/fedcba9876543210"), true},
		{"import: a legacy owner tag", importing, lt("gpufleet.ml.a-b-od", tagOwner, "ml/a-b/a-b-od"), true},
		{"import: another node group's tag", importing, lt("gpufleet.ml.a-b-od", tagOwner, "ml/a-b/a-b-odd/fedcba9876543210"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.owner.owns(tc.lt); got != tc.want {
				t.Fatalf("owns = %t, want %t", got, tc.want)
			}
			if err := tc.owner.checkOwned(tc.lt); (err == nil) != tc.want || (err != nil && !isNotOwned(err)) {
				t.Fatalf("checkOwned = %v", err)
			}
		})
	}
}

func TestInstanceArchitecture(t *testing.T) {
	for it, want := range map[string]string{
		"g5g.xlarge": archARM, "g5g.metal": archARM, "c7gn.large": archARM, "m6gd.xlarge": archARM,
		"g5.xlarge": archX86, "g4dn.xlarge": archX86, "g6e.xlarge": archX86, "p4de.24xlarge": archX86,
		"p5en.48xlarge": archX86, "p6-b200.48xlarge": archX86, "g4ad.xlarge": archX86,
	} {
		if got := instanceArchitecture(it); got != want {
			t.Errorf("instanceArchitecture(%s) = %s, want %s", it, got, want)
		}
	}
	if got := amiTypesFor(archARM); len(got) != 2 || amiArchitecture(got[0]) != archARM {
		t.Errorf("amiTypesFor(arm64) = %v", got)
	}
}
