package eks

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	fwtypes "github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// A node group takes 50 tags: the pool's tags plus the ones gpufleet adds to node groups; an
// instance takes 50: the pool's tags plus the five EKS's Auto Scaling group adds (audit D12). Both
// limits are checked at plan time, to the tag, the tighter one first.
func TestNodegroupTagsProblem_limit(t *testing.T) {
	// Both node groups of a spot mix carry the same tags; the on-demand one is reported first.
	spec := pool.Spec{Cloud: catalog.AWS, ResourceType: ResourceType, Name: "train", Region: "eu-west-1", Client: "acme"}
	spec.Workload = pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 4, Interruptible: true}
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
	derived := len(derive(0).Tags)
	// Instances: the pool's effective tags and EKS's five.
	if problem := nodegroupTagsProblem(spec, derive(maxInstanceTags-eksInstanceTags-derived)); problem != "" {
		t.Fatalf("45 effective tags fit: %s", problem)
	}
	if problem := nodegroupTagsProblem(spec, derive(maxInstanceTags-eksInstanceTags-derived+1)); !strings.Contains(problem, "instances would carry 51 tags, and EC2 takes at most 50") {
		t.Fatalf("46 effective tags do not fit on an instance: %q", problem)
	}
	// Node groups: with all-balanced MIG slices they carry more of gpufleet's own than an instance
	// carries of EKS's, and that limit binds first.
	spec.GPU = pool.GPU{MIG: &pool.MIG{Config: pool.MIGConfigBalanced}, MIGStrategy: pool.MIGStrategyMixed}
	sides := sideConfigs(poolOwner{}, spec, derive(0))
	if len(sides) != 2 || len(sides[0].Tags) != len(sides[1].Tags) {
		t.Fatalf("want two node groups with as many tags: %+v", sides)
	}
	base := len(sides[0].Tags)
	if base-derived <= eksInstanceTags {
		t.Fatalf("gpufleet adds %d tags to the node groups, want more than EKS's %d on instances for this case", base-derived, eksInstanceTags)
	}
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

// A reservation side rolls with MINIMAL unless the configuration names a strategy; EKS needs a
// maxUnavailable with it. What EKS reports back for an unset block (or attribute) stays unset.
func TestUpdateConfig_implicitMinimalOnReservations(t *testing.T) {
	if u := updateConfig(nil, false); u != nil {
		t.Fatalf("no block, no reservation: %+v, want EKS's default", u)
	}
	u := updateConfig(nil, true)
	if u == nil || u.UpdateStrategy != ekstypes.NodegroupUpdateStrategiesMinimal || aws.ToInt32(u.MaxUnavailable) != 1 {
		t.Fatalf("no block on a reservation: %+v, want MINIMAL with maxUnavailable 1", u)
	}
	explicit := &updateConfigModel{MaxUnavailable: fwtypes.Int64Null(), MaxUnavailablePercentage: fwtypes.Int64Value(25), UpdateStrategy: fwtypes.StringValue("DEFAULT")}
	if u := updateConfig(explicit, true); u.UpdateStrategy != ekstypes.NodegroupUpdateStrategiesDefault || aws.ToInt32(u.MaxUnavailablePercentage) != 25 {
		t.Fatalf("explicit DEFAULT on a reservation: %+v", u)
	}
	if m := updateConfigFrom(&ekstypes.NodegroupUpdateConfig{MaxUnavailable: aws.Int32(1), UpdateStrategy: ekstypes.NodegroupUpdateStrategiesMinimal}, nil, true); m != nil {
		t.Fatalf("read back the implicit config of a reservation side: %+v, want no block", m)
	}
	strategyOnly := &updateConfigModel{MaxUnavailable: fwtypes.Int64Null(), MaxUnavailablePercentage: fwtypes.Int64Null(), UpdateStrategy: fwtypes.StringValue("MINIMAL")}
	m := updateConfigFrom(updateConfig(strategyOnly, false), strategyOnly, false)
	if m == nil || !m.MaxUnavailable.IsNull() || m.UpdateStrategy.ValueString() != "MINIMAL" {
		t.Fatalf("update_strategy alone read back as %+v", m)
	}
	if m := updateConfigFrom(&ekstypes.NodegroupUpdateConfig{MaxUnavailable: aws.Int32(1), UpdateStrategy: ekstypes.NodegroupUpdateStrategiesMinimal}, nil, false); m == nil || m.UpdateStrategy.ValueString() != "MINIMAL" {
		t.Fatalf("import of MINIMAL off a reservation: %+v, want the block", m)
	}
}

// A node group left on MINIMAL by a reservation since removed, or by an update_strategy since unset,
// goes back to EKS's default strategy: refresh would read MINIMAL back for ever otherwise. One on a
// reservation keeps it.
func TestConfigUpdate_minimalNoLongerGiven(t *testing.T) {
	sizes := pool.Sizes{Min: 0, Desired: 1, Max: 2}
	ng := &ekstypes.Nodegroup{
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), DesiredSize: aws.Int32(1), MaxSize: aws.Int32(2)},
		UpdateConfig:  &ekstypes.NodegroupUpdateConfig{MaxUnavailable: aws.Int32(1), UpdateStrategy: ekstypes.NodegroupUpdateStrategiesMinimal},
	}
	in := configUpdate(ng, sideConfig{Side: pool.Side{Sizes: sizes}}, nil)
	if in == nil || in.UpdateConfig == nil || in.UpdateConfig.UpdateStrategy != ekstypes.NodegroupUpdateStrategiesDefault || aws.ToInt32(in.UpdateConfig.MaxUnavailable) != 1 {
		t.Fatalf("MINIMAL without a reservation or a configured strategy: %+v, want DEFAULT with maxUnavailable 1", in)
	}
	if in := configUpdate(ng, sideConfig{Side: pool.Side{Sizes: sizes}, Reservation: &pool.Reservation{ID: "cr-0a1b2c3d4e5f60718", Type: "capacity-reservation"}}, nil); in != nil {
		t.Fatalf("MINIMAL on a reservation changed: %+v", in.UpdateConfig)
	}
	ng.UpdateConfig.UpdateStrategy = ekstypes.NodegroupUpdateStrategiesDefault
	if in := configUpdate(ng, sideConfig{Side: pool.Side{Sizes: sizes}}, nil); in != nil {
		t.Fatalf("DEFAULT changed again: %+v", in.UpdateConfig)
	}
}

// A node group keeps its Kubernetes version and AMI release unless the configuration moves them; a
// configured Amazon Linux release of another Kubernetes version is an error (the plan refuses it,
// audit D13), never dropped; a Bottlerocket release is Bottlerocket's, of no Kubernetes version (D14).
func TestSideVersions(t *testing.T) {
	cases := []struct {
		name                         string
		amiType                      ekstypes.AMITypes
		pinnedVersion, pinnedRelease string
		version, release             string
		fails                        bool
	}{
		{"follows the cluster: keeps both", "", "", "", "1.31", "1.31.4-20250301", false},
		{"a newer release", "", "", "1.31.9-20250801", "1.31", "1.31.9-20250801", false},
		{"a newer version: the latest release of it", "", "1.32", "", "1.32", "", false},
		{"a newer version with its release", "", "1.32", "1.32.1-20250901", "1.32", "1.32.1-20250901", false},
		{"a release of another version", "", "1.32", "1.31.9-20250801", "", "", true},
		{"a Bottlerocket release", ekstypes.AMITypesBottlerocketX8664Nvidia, "", "1.40.0-ab12cd34", "1.31", "1.40.0-ab12cd34", false},
		{"a Bottlerocket release with an all-digit commit", ekstypes.AMITypesBottlerocketX8664Nvidia, "", "1.29.0-31415926", "1.31", "1.29.0-31415926", false},
		{"a Bottlerocket release on Amazon Linux", ekstypes.AMITypesAl2023X8664Nvidia, "", "1.40.0-ab12cd34", "", "", true},
		{"an older version", "", "1.30", "", "", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ng := &ekstypes.Nodegroup{Version: aws.String("1.31"), ReleaseVersion: aws.String("1.31.4-20250301"), AmiType: tc.amiType}
			version, release, err := sideVersions(ng, sideConfig{PinnedVersion: tc.pinnedVersion, PinnedRelease: tc.pinnedRelease})
			if (err != nil) != tc.fails || version != tc.version || release != tc.release {
				t.Fatalf("sideVersions = %q, %q, %v; want %q, %q, fails %t", version, release, err, tc.version, tc.release, tc.fails)
			}
		})
	}
}

// Releases are read as their AMI type's: an Amazon Linux release is of one Kubernetes minor; a
// Bottlerocket one, all-digit commit or not, of none, and ordered by Bottlerocket version.
func TestParseRelease(t *testing.T) {
	br := string(ekstypes.AMITypesBottlerocketX8664Nvidia)
	if r, ok := parseRelease("AL2023_x86_64_NVIDIA", "1.31.7-20250620"); !ok || r.bottlerocket || r.minor != 31 {
		t.Errorf("Amazon Linux release read as %+v, %t", r, ok)
	}
	if r, ok := parseRelease(br, "1.29.0-31415926"); !ok || !r.bottlerocket {
		t.Errorf("Bottlerocket release with an all-digit commit read as %+v, %t", r, ok)
	}
	if !releaseFits(br, "1.29.0-31415926", "1.31") || releaseFits("AL2023_x86_64_NVIDIA", "1.29.0-31415926", "1.31") {
		t.Error("1.29.0-31415926 fits 1.31 as a Bottlerocket release, not as an Amazon Linux one")
	}
	older, _ := parseRelease(br, "1.29.0-31415926")
	newer, _ := parseRelease(br, "1.30.0-ca9b9399")
	if !older.comparable(newer) || !older.before(newer) || newer.before(older) {
		t.Error("Bottlerocket 1.29.0 is before 1.30.0")
	}
	if p := releaseProblem("AL2023_x86_64_NVIDIA", "1.32.1-20250301", "1.31"); p == nil || p.Path.String() != "release_version" {
		t.Errorf("release of 1.32 for 1.31: %v, want a problem at release_version", p)
	}
}

// The autoscaler's resource tags count what the device plugin advertises: GPUs or slices (single
// strategy) times sharing replicas; under the mixed strategy nvidia.com/mig-* per size and no
// nvidia.com/gpu on MIG nodes (audit D3: the autoscaler would take whole GPUs from the instance type).
func TestAdvertisedResources(t *testing.T) {
	spec := pool.Spec{Cloud: catalog.AWS, ResourceType: ResourceType, Name: "train", Region: "us-east-1", Client: "acme", InstanceTypes: []string{"p5.48xlarge"},
		Workload: pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 8}, Scaling: pool.Sizes{Max: 1}}
	derive := func(mig *pool.MIG, sharing *pool.Sharing, strategy ...string) map[string]int {
		s := spec
		s.GPU.MIG, s.GPU.Sharing = mig, sharing
		if len(strategy) > 0 {
			s.GPU.MIGStrategy = strategy[0]
		}
		d, err := pool.Derive(s, pool.Environment{})
		if err != nil {
			t.Fatal(err)
		}
		return advertisedResources(s, d)
	}
	for name, tc := range map[string]struct {
		got, want map[string]int
	}{
		"whole GPUs":            {derive(nil, nil), map[string]int{"nvidia.com/gpu": 8}},
		"slices":                {derive(&pool.MIG{Profile: "2g.20gb"}, nil), map[string]int{"nvidia.com/gpu": 24}},
		"shared slices":         {derive(&pool.MIG{Profile: "3g.40gb"}, &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 4}), map[string]int{"nvidia.com/gpu": 64}},
		"one media slice a GPU": {derive(&pool.MIG{Profile: "1g.10gb+me"}, nil), map[string]int{"nvidia.com/gpu": 8}},
		"mixed layout, per size, no whole GPU": {derive(&pool.MIG{Config: pool.MIGConfigBalanced}, nil, pool.MIGStrategyMixed),
			map[string]int{"nvidia.com/gpu": 0, "nvidia.com/mig-1g.10gb": 16, "nvidia.com/mig-2g.20gb": 8, "nvidia.com/mig-3g.40gb": 8}},
		"slices under the mixed strategy":     {derive(&pool.MIG{Profile: "2g.20gb"}, nil, pool.MIGStrategyMixed), map[string]int{"nvidia.com/gpu": 0, "nvidia.com/mig-2g.20gb": 24}},
		"whole GPUs under the mixed strategy": {derive(nil, nil, pool.MIGStrategyMixed), map[string]int{"nvidia.com/gpu": 8}},
	} {
		if !maps.Equal(tc.got, tc.want) {
			t.Errorf("%s: %v, want %v", name, tc.got, tc.want)
		}
	}
}

// The plan says which node groups an apply rolls, and why; a change of sizes, labels or tags rolls
// none (tags reach the instances in place).
func TestWarnNodesReplaced(t *testing.T) {
	ctx := t.Context()
	side := func(name string) nodeGroupModel {
		return nodeGroupModel{Name: fwtypes.StringValue(name), ARN: fwtypes.StringValue("arn:aws:eks:us-east-1:123456789012:nodegroup/ml/" + name + "/x"),
			KubernetesVersion: fwtypes.StringValue("1.31"), ReleaseVersion: fwtypes.StringValue("1.31.4-20250301")}
	}
	model := func(tags map[string]string, release string) *nodePoolModel {
		m := &nodePoolModel{KubernetesVersion: fwtypes.StringValue("1.31"), ReleaseVersion: fwtypes.StringValue(release), NodeGroups: nodeGroupList([]nodeGroupModel{side("train-od"), side("train-spot")})}
		m.EffectiveTags = poolschema.StringMapValue(tags)
		return m
	}
	state := model(map[string]string{"Project": "vision"}, "1.31.4-20250301")
	var none diag.Diagnostics
	warnNodesReplaced(ctx, &none, model(map[string]string{"Project": "llm"}, "1.31.4-20250301"), state)
	if len(none) != 0 {
		t.Fatalf("a tag change rolls nothing, but %v", none)
	}
	var diags diag.Diagnostics
	warnNodesReplaced(ctx, &diags, model(map[string]string{"Project": "llm"}, "1.31.9-20250801"), state)
	if len(diags) != 1 || !strings.Contains(diags[0].Summary(), "train-od, train-spot") ||
		strings.Contains(diags[0].Detail(), "effective_tags") || !strings.Contains(diags[0].Detail(), "AMI release changes to 1.31.9-20250801") {
		t.Fatalf("warnings %v", diags)
	}
}

// A waiter sits out notFoundChecks not-found answers in a row (read-after-write lag, audit D9), and
// fails on the next; any other answer resets the count and goes to the waiter's own rule.
func TestTolerateNotFound(t *testing.T) {
	rule := func(_ context.Context, _ string, out string, err error) (bool, error) {
		if err != nil {
			return false, err
		}
		return out != "done", nil
	}
	wait := tolerateNotFound(rule)
	notFound := &ekstypes.ResourceNotFoundException{Message: aws.String("No node group found for name: train-od.")}
	for i := range notFoundChecks {
		if retry, err := wait(context.Background(), "", "", notFound); !retry || err != nil {
			t.Fatalf("not-found answer %d: retry %t, err %v; want a retry", i+1, retry, err)
		}
	}
	if retry, err := wait(context.Background(), "", "pending", nil); !retry || err != nil {
		t.Fatalf("a found answer goes to the rule: retry %t, err %v", retry, err)
	}
	for i := range notFoundChecks {
		if retry, _ := wait(context.Background(), "", "", notFound); !retry {
			t.Fatalf("after a found answer the count starts again: not-found answer %d not retried", i+1)
		}
	}
	retry, err := wait(context.Background(), "", "", notFound)
	if retry || err == nil || !isNotFound(err) || !strings.Contains(err.Error(), "still not found after 21 reads") {
		t.Fatalf("answer %d: retry %t, err %v; want the wait to fail with the not-found error", notFoundChecks+1, retry, err)
	}
	other := errors.New("AccessDeniedException")
	if retry, err := tolerateNotFound(rule)(context.Background(), "", "", other); retry || !errors.Is(err, other) {
		t.Fatalf("other errors go to the rule: retry %t, err %v", retry, err)
	}
}

// A pool lives in the region its state records; a state written before pools recorded one (null
// region) lives where its node groups' ARNs say; a state that says neither (an import, a new pool)
// takes the provider's ("").
func TestRecordedRegion(t *testing.T) {
	ctx := context.Background()
	withGroups := func(region fwtypes.String, arns ...string) *nodePoolModel {
		var ngs []nodeGroupModel
		for i, arn := range arns {
			ng := templateOnly(fmt.Sprintf("train-%d", i), "ON_DEMAND", "lt-0123", "1")
			ng.ARN = poolschema.NullableString(arn)
			ngs = append(ngs, ng)
		}
		m := &nodePoolModel{Region: region, NodeGroups: fwtypes.ListNull(fwtypes.ObjectType{AttrTypes: nodeGroupAttrTypes})}
		if ngs != nil {
			m.NodeGroups = nodeGroupList(ngs)
		}
		return m
	}
	cases := []struct {
		name string
		m    *nodePoolModel
		want string
	}{
		{"recorded", withGroups(fwtypes.StringValue("eu-west-1"), "arn:aws:eks:us-east-1:123456789012:nodegroup/ml/train-od/x"), "eu-west-1"},
		{"old state: from the node groups' ARNs", withGroups(fwtypes.StringNull(), "", "arn:aws:eks:ap-northeast-1:123456789012:nodegroup/ml/train-spot/x"), "ap-northeast-1"},
		{"old state without node groups", withGroups(fwtypes.StringNull()), ""},
		{"planned, unknown", withGroups(fwtypes.StringUnknown()), ""},
	}
	for _, tc := range cases {
		if got := recordedRegion(ctx, tc.m); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Import ids name the region after an @, as the Terraform AWS provider's do.
func TestImportRegion(t *testing.T) {
	for id, want := range map[string][]string{
		"ml:train@eu-west-1":      {"ml:train", "eu-west-1"},
		"ml:train@us-gov-west-1":  {"ml:train", "us-gov-west-1"},
		"ml:train":                nil,
		"ml:train@nowhere":        nil,
		"ml:train@eu-west-1@x":    nil,
		"ml:train-eu@ap-south-2":  {"ml:train-eu", "ap-south-2"},
		"ml:train@eu-central-12x": nil,
	} {
		m := importRegion.FindStringSubmatch(id)
		if (m == nil) != (want == nil) || (m != nil && (m[1] != want[0] || m[2] != want[1])) {
			t.Errorf("%s: %q, want %q", id, m, want)
		}
	}
}
