package cloudsim

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// EC2 API Reference: CreatePlacementGroup, DescribePlacementGroups, DeletePlacementGroup — tags on
// create, a duplicate name, lookups by name and tag, the unknown-name error on describe and delete.
func TestEC2_PlacementGroups_CreateDescribeDelete(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := ec2Client(sim, "us-east-1")
	out, err := c.CreatePlacementGroup(ctxT(t), &ec2.CreatePlacementGroupInput{GroupName: aws.String("train"), Strategy: ec2types.PlacementStrategyCluster,
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypePlacementGroup, Tags: []ec2types.Tag{{Key: aws.String("gpufleet:owner"), Value: aws.String("o-1")}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if g := out.PlacementGroup; aws.ToString(g.GroupName) != "train" || g.Strategy != ec2types.PlacementStrategyCluster || g.State != ec2types.PlacementGroupStateAvailable ||
		!strings.HasPrefix(aws.ToString(g.GroupId), "pg-") || len(g.Tags) != 1 {
		t.Fatalf("created %+v", g)
	}
	_, err = c.CreatePlacementGroup(ctxT(t), &ec2.CreatePlacementGroupInput{GroupName: aws.String("train"), Strategy: ec2types.PlacementStrategyCluster})
	wantAPIError(t, err, "InvalidPlacementGroup.Duplicate", "'train' already exists")
	byTag, err := c.DescribePlacementGroups(ctxT(t), &ec2.DescribePlacementGroupsInput{Filters: []ec2types.Filter{{Name: aws.String("tag:gpufleet:owner"), Values: []string{"o-1"}}}})
	if err != nil || len(byTag.PlacementGroups) != 1 || aws.ToString(byTag.PlacementGroups[0].GroupName) != "train" {
		t.Fatalf("by tag: %+v %v", byTag, err)
	}
	_, err = c.DescribePlacementGroups(ctxT(t), &ec2.DescribePlacementGroupsInput{GroupNames: []string{"nope"}})
	wantAPIError(t, err, "InvalidPlacementGroup.Unknown", "'nope' is unknown")
	if _, err := c.DeletePlacementGroup(ctxT(t), &ec2.DeletePlacementGroupInput{GroupName: aws.String("train")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeletePlacementGroup(ctxT(t), &ec2.DeletePlacementGroupInput{GroupName: aws.String("train")})
	wantAPIError(t, err, "InvalidPlacementGroup.Unknown", "'train' is unknown")
}

// efaTemplate is launch template data with an EFA interface on each of cards network cards (the
// first EFA with ENA, the others EFA-only) in placement group pg ("" for none).
func efaTemplate(cards int, pg string) *ec2types.RequestLaunchTemplateData {
	data := &ec2types.RequestLaunchTemplateData{}
	for i := range cards {
		ni := ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest{NetworkCardIndex: aws.Int32(int32(i)), DeviceIndex: aws.Int32(1), InterfaceType: aws.String("efa-only")}
		if i == 0 {
			ni.DeviceIndex, ni.InterfaceType = aws.Int32(0), aws.String("efa")
		}
		data.NetworkInterfaces = append(data.NetworkInterfaces, ni)
	}
	if pg != "" {
		data.Placement = &ec2types.LaunchTemplatePlacementRequest{GroupName: aws.String(pg)}
	}
	return data
}

// A template EC2 takes with warnings: an EFA-only primary interface, a placement group that does not
// exist; an InterfaceType EC2 does not know is refused.
func TestEC2_LaunchTemplate_NetworkWarnings(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := ec2Client(sim, "us-east-1")
	primary := efaTemplate(2, "nope")
	primary.NetworkInterfaces[0].InterfaceType = aws.String("efa-only")
	out, err := c.CreateLaunchTemplate(ctxT(t), &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String("bad"), LaunchTemplateData: primary})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range out.Warning.Errors {
		msgs = append(msgs, aws.ToString(e.Code)+": "+aws.ToString(e.Message))
	}
	if got := strings.Join(msgs, "; "); !strings.Contains(got, "EFA-only network interface cannot be the primary") || !strings.Contains(got, "InvalidPlacementGroup.Unknown") {
		t.Errorf("warnings: %s", got)
	}
	odd := efaTemplate(1, "")
	odd.NetworkInterfaces[0].InterfaceType = aws.String("rdma")
	_, err = c.CreateLaunchTemplate(ctxT(t), &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String("odd"), LaunchTemplateData: odd})
	wantAPIError(t, err, "InvalidParameterValue", "'rdma' for InterfaceType")
	// Read back as sent: the interfaces and the placement.
	good := createLaunchTemplate(t, c, "good", efaTemplate(4, ""))
	vs, err := c.DescribeLaunchTemplateVersions(ctxT(t), &ec2.DescribeLaunchTemplateVersionsInput{LaunchTemplateId: good.LaunchTemplateId})
	if err != nil || len(vs.LaunchTemplateVersions[0].LaunchTemplateData.NetworkInterfaces) != 4 ||
		aws.ToString(vs.LaunchTemplateVersions[0].LaunchTemplateData.NetworkInterfaces[3].InterfaceType) != "efa-only" {
		t.Fatalf("read back: %+v %v", vs, err)
	}
}

// The node group's instances do not launch with EFA on a type without it, on a network card the
// type lacks, or in a cluster placement group over subnets of two zones; they do on p4d.24xlarge with
// its four cards in one zone.
func TestEKS_Fleet_EFAAndPlacementGroup(t *testing.T) {
	sim := newSim(t)
	c, e := eksClient(sim, "us-east-1"), ec2Client(sim, "us-east-1")
	if _, err := e.CreatePlacementGroup(ctxT(t), &ec2.CreatePlacementGroupInput{GroupName: aws.String("pg"), Strategy: ec2types.PlacementStrategyCluster}); err != nil {
		t.Fatal(err)
	}
	createLaunchTemplate(t, e, "efa1", efaTemplate(1, ""))
	createLaunchTemplate(t, e, "efa5", efaTemplate(5, ""))
	createLaunchTemplate(t, e, "efa4pg", efaTemplate(4, "pg"))
	for _, c2 := range []struct{ name, template, itype, want string }{
		{"no-efa", "efa1", "g5.xlarge", "EFA interfaces are not supported on g5.xlarge"},
		{"five-cards", "efa5", "p4d.24xlarge", "Network card index 4 is not valid for p4d.24xlarge, which has 4 network card(s)"},
		{"two-zones", "efa4pg", "p4d.24xlarge", "Cluster placement group pg is in one Availability Zone"},
	} {
		in := onTemplate(c2.name, c2.template)
		in.InstanceTypes = []string{c2.itype}
		createNodegroup(t, c, in)
		if ng := waitSettled(t, c, "ml", c2.name); ng.Status != ekstypes.NodegroupStatusCreateFailed || ng.Health.Issues[0].Code != "AsgInstanceLaunchFailures" ||
			!strings.Contains(aws.ToString(ng.Health.Issues[0].Message), c2.want) {
			t.Errorf("%s: %s %+v", c2.name, ng.Status, ng.Health)
		}
	}
	in := onTemplate("one-zone", "efa4pg")
	in.InstanceTypes, in.Subnets = []string{"p4d.24xlarge"}, []string{"subnet-0a1a1a1a1a1a1a1a1"}
	activeNodegroup(t, c, in)
	_, err := e.DeletePlacementGroup(ctxT(t), &ec2.DeletePlacementGroupInput{GroupName: aws.String("pg")})
	wantAPIError(t, err, "InvalidPlacementGroup.InUse", "'pg' is in use")
}
