package cloudsim

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// gpuLaunchTemplateData exercises every member the provider sends.
func gpuLaunchTemplateData() *ec2types.RequestLaunchTemplateData {
	return &ec2types.RequestLaunchTemplateData{
		InstanceType: ec2types.InstanceTypeG5Xlarge,
		UserData:     aws.String("IyEvYmluL2Jhc2gKZWNobyBoaQ=="),
		TagSpecifications: []ec2types.LaunchTemplateTagSpecificationRequest{
			{ResourceType: ec2types.ResourceTypeInstance, Tags: []ec2types.Tag{{Key: aws.String("gpufleet:client"), Value: aws.String("acme")}, {Key: aws.String("gpufleet:pool"), Value: aws.String("train")}}},
			{ResourceType: ec2types.ResourceTypeVolume, Tags: []ec2types.Tag{{Key: aws.String("gpufleet:client"), Value: aws.String("acme")}}},
		},
		InstanceMarketOptions: &ec2types.LaunchTemplateInstanceMarketOptionsRequest{MarketType: ec2types.MarketTypeSpot,
			SpotOptions: &ec2types.LaunchTemplateSpotMarketOptionsRequest{MaxPrice: aws.String("1.25"), SpotInstanceType: ec2types.SpotInstanceTypeOneTime}},
		CapacityReservationSpecification: &ec2types.LaunchTemplateCapacityReservationSpecificationRequest{
			CapacityReservationTarget: &ec2types.CapacityReservationTarget{CapacityReservationId: aws.String("cr-0a1b2c3d4e5f60001")}},
		MetadataOptions: &ec2types.LaunchTemplateInstanceMetadataOptionsRequest{HttpTokens: ec2types.LaunchTemplateHttpTokensStateRequired, HttpPutResponseHopLimit: aws.Int32(2)},
		BlockDeviceMappings: []ec2types.LaunchTemplateBlockDeviceMappingRequest{{DeviceName: aws.String("/dev/xvda"),
			Ebs: &ec2types.LaunchTemplateEbsBlockDeviceRequest{VolumeSize: aws.Int32(200), VolumeType: ec2types.VolumeTypeGp3, Encrypted: aws.Bool(true), DeleteOnTermination: aws.Bool(true)}}},
		SecurityGroupIds:  []string{"sg-0a", "sg-0b"},
		NetworkInterfaces: []ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest{{DeviceIndex: aws.Int32(0), Groups: []string{"sg-0c"}}},
	}
}

// EC2 API Reference: CreateLaunchTemplate and DescribeLaunchTemplateVersions — the
// LaunchTemplateData sent is stored and returned member for member; TagSpecification of type
// launch-template tags the template itself.
func TestEC2_CreateLaunchTemplate_StoresAndReturnsLaunchTemplateData(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := ec2Client(sim, "us-east-1")
	out, err := c.CreateLaunchTemplate(ctxT(t), &ec2.CreateLaunchTemplateInput{
		LaunchTemplateName: aws.String("gpufleet-train"), VersionDescription: aws.String("v1"), LaunchTemplateData: gpuLaunchTemplateData(),
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeLaunchTemplate, Tags: []ec2types.Tag{{Key: aws.String("gpufleet:pool"), Value: aws.String("train")}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	lt := out.LaunchTemplate
	if !regexp.MustCompile(`^lt-[0-9a-f]{17}$`).MatchString(*lt.LaunchTemplateId) || *lt.DefaultVersionNumber != 1 || *lt.LatestVersionNumber != 1 ||
		*lt.CreatedBy != "arn:aws:iam::123456789012:root" || lt.CreateTime == nil || len(lt.Tags) != 1 || *lt.Tags[0].Value != "train" {
		t.Fatalf("launch template = %+v", lt)
	}
	vs, err := c.DescribeLaunchTemplateVersions(ctxT(t), &ec2.DescribeLaunchTemplateVersionsInput{LaunchTemplateId: lt.LaunchTemplateId, Versions: []string{"$Latest"}})
	if err != nil || len(vs.LaunchTemplateVersions) != 1 {
		t.Fatalf("versions = %+v %v", vs, err)
	}
	v := vs.LaunchTemplateVersions[0]
	d := v.LaunchTemplateData
	if *v.VersionNumber != 1 || !*v.DefaultVersion || *v.VersionDescription != "v1" || *v.LaunchTemplateName != "gpufleet-train" {
		t.Errorf("version = %+v", v)
	}
	checks := map[string]bool{
		"instance type":        d.InstanceType == ec2types.InstanceTypeG5Xlarge,
		"user data":            aws.ToString(d.UserData) == "IyEvYmluL2Jhc2gKZWNobyBoaQ==",
		"tag specifications":   len(d.TagSpecifications) == 2 && d.TagSpecifications[0].ResourceType == ec2types.ResourceTypeInstance && len(d.TagSpecifications[0].Tags) == 2 && d.TagSpecifications[1].ResourceType == ec2types.ResourceTypeVolume,
		"market options":       d.InstanceMarketOptions != nil && d.InstanceMarketOptions.MarketType == ec2types.MarketTypeSpot && aws.ToString(d.InstanceMarketOptions.SpotOptions.MaxPrice) == "1.25",
		"capacity reservation": d.CapacityReservationSpecification != nil && aws.ToString(d.CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId) == "cr-0a1b2c3d4e5f60001",
		"metadata options":     d.MetadataOptions != nil && d.MetadataOptions.HttpTokens == ec2types.LaunchTemplateHttpTokensStateRequired && aws.ToInt32(d.MetadataOptions.HttpPutResponseHopLimit) == 2,
		"block devices":        len(d.BlockDeviceMappings) == 1 && aws.ToInt32(d.BlockDeviceMappings[0].Ebs.VolumeSize) == 200 && d.BlockDeviceMappings[0].Ebs.VolumeType == ec2types.VolumeTypeGp3 && aws.ToBool(d.BlockDeviceMappings[0].Ebs.Encrypted),
		"security groups":      strings.Join(d.SecurityGroupIds, ",") == "sg-0a,sg-0b",
		"interface groups":     len(d.NetworkInterfaces) == 1 && strings.Join(d.NetworkInterfaces[0].Groups, ",") == "sg-0c" && aws.ToInt32(d.NetworkInterfaces[0].DeviceIndex) == 0,
	}
	for what, ok := range checks {
		if !ok {
			t.Errorf("%s not round-tripped: %+v", what, d)
		}
	}
	stored, ok := sim.LaunchTemplate("us-east-1", "gpufleet-train")
	if !ok || stored.Versions[0].Get("TagSpecification.1.Tag.2.Key") != "gpufleet:pool" || stored.Tags["gpufleet:pool"] != "train" {
		t.Errorf("accessor = %+v", stored)
	}
}

// EC2 API Reference: CreateLaunchTemplate — errors for duplicate and malformed names, bad
// user data and tag specification resource types.
func TestEC2_CreateLaunchTemplate_Errors(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := ec2Client(sim, "us-east-1")
	createLaunchTemplate(t, c, "taken", &ec2types.RequestLaunchTemplateData{})
	cases := []struct {
		name, ltName, code, substr string
		data                       *ec2types.RequestLaunchTemplateData
		tags                       []ec2types.TagSpecification
	}{
		{"duplicate name", "taken", "InvalidLaunchTemplateName.AlreadyExistsException", "Launch template name already in use.", &ec2types.RequestLaunchTemplateData{}, nil},
		{"malformed name", "a b", "InvalidLaunchTemplateName.MalformedException", "between 3 and 128 characters", &ec2types.RequestLaunchTemplateData{}, nil},
		{"user data not base64", "userdata", "InvalidUserData.Malformed", "Invalid BASE64 encoding of user data.", &ec2types.RequestLaunchTemplateData{UserData: aws.String("#!/bin/bash")}, nil},
		{"data tag spec type", "tags1", "InvalidParameterValue", "'launch-template' is not a valid taggable resource type",
			&ec2types.RequestLaunchTemplateData{TagSpecifications: []ec2types.LaunchTemplateTagSpecificationRequest{{ResourceType: ec2types.ResourceTypeLaunchTemplate}}}, nil},
		{"template tag spec type", "tags2", "InvalidParameterValue", "'instance' is not a valid taggable resource type", &ec2types.RequestLaunchTemplateData{},
			[]ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeInstance}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateLaunchTemplate(ctxT(t), &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String(tc.ltName), LaunchTemplateData: tc.data, TagSpecifications: tc.tags})
			wantAPIError(t, err, tc.code, tc.substr)
		})
	}
	if lts := sim.LaunchTemplates(""); len(lts) != 1 {
		t.Fatalf("failed creates stored templates: %d", len(lts))
	}
}

// EC2 API Reference: CreateLaunchTemplate — data that would launch no instance (an instance type
// the region does not offer, a hop limit out of range) is no error: EC2 creates the template and
// returns a Warning for each problem, and a node group on it fails with
// Ec2LaunchTemplateInvalidConfiguration.
func TestEC2_CreateLaunchTemplate_Warnings(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c, e := eksClient(sim, "us-east-1"), ec2Client(sim, "us-east-1")
	out, err := e.CreateLaunchTemplate(ctxT(t), &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String("warned"), LaunchTemplateData: &ec2types.RequestLaunchTemplateData{
		InstanceType:    "g9.xlarge",
		MetadataOptions: &ec2types.LaunchTemplateInstanceMetadataOptionsRequest{HttpPutResponseHopLimit: aws.Int32(65)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if w := out.Warning; w == nil || len(w.Errors) != 2 || aws.ToString(w.Errors[0].Code) != "InvalidInstanceType" || !strings.Contains(aws.ToString(w.Errors[0].Message), "g9.xlarge") ||
		!strings.Contains(aws.ToString(w.Errors[1].Message), "HttpPutResponseHopLimit") {
		t.Fatalf("warning = %+v", out.Warning)
	}
	in := gpuNodegroup("gpu-lt")
	in.InstanceTypes = nil
	in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Id: out.LaunchTemplate.LaunchTemplateId, Version: aws.String("1")}
	if _, err := c.CreateNodegroup(ctxT(t), in); err != nil {
		t.Fatal(err)
	}
	ng := waitSettled(t, c, "ml", "gpu-lt")
	if ng.Status != ekstypes.NodegroupStatusCreateFailed || ng.Health.Issues[0].Code != ekstypes.NodegroupIssueCodeEc2LaunchTemplateInvalidConfiguration {
		t.Fatalf("node group = %+v", ng)
	}
}

// EC2 API Reference: CreateLaunchTemplateVersion (SourceVersion), ModifyLaunchTemplate
// (SetDefaultVersion) and DescribeLaunchTemplateVersions ($Latest, $Default, numbers).
func TestEC2_LaunchTemplateVersions_SourceVersionLatestAndDefault(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := ec2Client(sim, "us-east-1")
	lt := createLaunchTemplate(t, c, "gpu", gpuLaunchTemplateData())
	v2, err := c.CreateLaunchTemplateVersion(ctxT(t), &ec2.CreateLaunchTemplateVersionInput{LaunchTemplateName: aws.String("gpu"), SourceVersion: aws.String("1"),
		VersionDescription: aws.String("bigger"), LaunchTemplateData: &ec2types.RequestLaunchTemplateData{InstanceType: ec2types.InstanceTypeG512xlarge}})
	if err != nil {
		t.Fatal(err)
	}
	d := v2.LaunchTemplateVersion.LaunchTemplateData
	if *v2.LaunchTemplateVersion.VersionNumber != 2 || *v2.LaunchTemplateVersion.DefaultVersion || d.InstanceType != ec2types.InstanceTypeG512xlarge ||
		aws.ToString(d.UserData) == "" || len(d.TagSpecifications) != 2 {
		t.Fatalf("version 2 must inherit from version 1 and override InstanceType: %+v", v2.LaunchTemplateVersion)
	}
	describe := func(versions ...string) []int64 {
		out, err := c.DescribeLaunchTemplateVersions(ctxT(t), &ec2.DescribeLaunchTemplateVersionsInput{LaunchTemplateId: lt.LaunchTemplateId, Versions: versions})
		if err != nil {
			t.Fatal(err)
		}
		var ns []int64
		for _, v := range out.LaunchTemplateVersions {
			ns = append(ns, *v.VersionNumber)
		}
		return ns
	}
	if got := describe("$Latest", "$Default"); len(got) != 2 || got[0] != 2 || got[1] != 1 {
		t.Fatalf("$Latest,$Default = %v", got)
	}
	if got := describe(); len(got) != 2 || got[0] != 2 {
		t.Fatalf("all versions, newest first = %v", got)
	}
	mod, err := c.ModifyLaunchTemplate(ctxT(t), &ec2.ModifyLaunchTemplateInput{LaunchTemplateId: lt.LaunchTemplateId, DefaultVersion: aws.String("2")})
	if err != nil || *mod.LaunchTemplate.DefaultVersionNumber != 2 || *mod.LaunchTemplate.LatestVersionNumber != 2 {
		t.Fatalf("modify = %+v %v", mod, err)
	}
	if got := describe("$Default"); got[0] != 2 {
		t.Fatalf("$Default after modify = %v", got)
	}
	_, err = c.DescribeLaunchTemplateVersions(ctxT(t), &ec2.DescribeLaunchTemplateVersionsInput{LaunchTemplateId: lt.LaunchTemplateId, Versions: []string{"9"}})
	wantAPIError(t, err, "InvalidLaunchTemplateId.VersionNotFound", "Could not find the specified version 9 for the launch template with ID "+*lt.LaunchTemplateId)
	_, err = c.ModifyLaunchTemplate(ctxT(t), &ec2.ModifyLaunchTemplateInput{LaunchTemplateId: lt.LaunchTemplateId, DefaultVersion: aws.String("9")})
	wantAPIError(t, err, "InvalidLaunchTemplateId.VersionNotFound", "")
}

// EC2 API Reference: DescribeLaunchTemplates — by id, name and filters; the real not-found
// codes for unknown ids and names.
func TestEC2_DescribeLaunchTemplates_IdsNamesFiltersAndNotFound(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := ec2Client(sim, "us-east-1")
	a := createLaunchTemplate(t, c, "pool-a", &ec2types.RequestLaunchTemplateData{})
	if _, err := c.CreateLaunchTemplate(ctxT(t), &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String("pool-b"), LaunchTemplateData: &ec2types.RequestLaunchTemplateData{},
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeLaunchTemplate, Tags: []ec2types.Tag{{Key: aws.String("team"), Value: aws.String("ml")}}}}}); err != nil {
		t.Fatal(err)
	}
	names := func(in *ec2.DescribeLaunchTemplatesInput) []string {
		out, err := c.DescribeLaunchTemplates(ctxT(t), in)
		if err != nil {
			t.Fatal(err)
		}
		var ns []string
		for _, lt := range out.LaunchTemplates {
			ns = append(ns, *lt.LaunchTemplateName)
		}
		sort.Strings(ns)
		return ns
	}
	if got := names(&ec2.DescribeLaunchTemplatesInput{}); strings.Join(got, ",") != "pool-a,pool-b" {
		t.Errorf("all = %v", got)
	}
	if got := names(&ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{*a.LaunchTemplateId}}); strings.Join(got, ",") != "pool-a" {
		t.Errorf("by id = %v", got)
	}
	if got := names(&ec2.DescribeLaunchTemplatesInput{Filters: []ec2types.Filter{{Name: aws.String("tag:team"), Values: []string{"ml"}}}}); strings.Join(got, ",") != "pool-b" {
		t.Errorf("tag filter = %v", got)
	}
	if got := names(&ec2.DescribeLaunchTemplatesInput{Filters: []ec2types.Filter{{Name: aws.String("launch-template-name"), Values: []string{"pool-*"}}}}); len(got) != 2 {
		t.Errorf("wildcard filter = %v", got)
	}
	_, err := c.DescribeLaunchTemplates(ctxT(t), &ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{"lt-0123456789abcdef0"}})
	wantAPIError(t, err, "InvalidLaunchTemplateId.NotFound", "lt-0123456789abcdef0")
	_, err = c.DescribeLaunchTemplates(ctxT(t), &ec2.DescribeLaunchTemplatesInput{LaunchTemplateNames: []string{"nope"}})
	wantAPIError(t, err, "InvalidLaunchTemplateName.NotFoundException", "At least one of the launch templates specified in the request does not exist.")
	_, err = c.DescribeLaunchTemplates(ctxT(t), &ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{"lt-zz"}})
	wantAPIError(t, err, "InvalidLaunchTemplateId.Malformed", "")
	_, err = c.DescribeLaunchTemplates(ctxT(t), &ec2.DescribeLaunchTemplatesInput{Filters: []ec2types.Filter{{Name: aws.String("colour"), Values: []string{"x"}}}})
	wantAPIError(t, err, "InvalidParameterValue", "The filter 'colour' is invalid")
	other, err := ec2Client(sim, "eu-west-1").DescribeLaunchTemplates(ctxT(t), &ec2.DescribeLaunchTemplatesInput{})
	if err != nil || len(other.LaunchTemplates) != 0 {
		t.Errorf("eu-west-1 sees us-east-1 templates: %v %v", other, err)
	}
}

// EC2 API Reference: DeleteLaunchTemplate.
func TestEC2_DeleteLaunchTemplate_ThenNotFound(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := ec2Client(sim, "us-east-1")
	lt := createLaunchTemplate(t, c, "gone", &ec2types.RequestLaunchTemplateData{})
	out, err := c.DeleteLaunchTemplate(ctxT(t), &ec2.DeleteLaunchTemplateInput{LaunchTemplateName: aws.String("gone")})
	if err != nil || *out.LaunchTemplate.LaunchTemplateId != *lt.LaunchTemplateId {
		t.Fatalf("delete = %+v %v", out, err)
	}
	_, err = c.DeleteLaunchTemplate(ctxT(t), &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: lt.LaunchTemplateId})
	wantAPIError(t, err, "InvalidLaunchTemplateId.NotFound", "")
	_, err = c.DeleteLaunchTemplate(ctxT(t), &ec2.DeleteLaunchTemplateInput{LaunchTemplateName: aws.String("gone")})
	wantAPIError(t, err, "InvalidLaunchTemplateName.NotFoundException", "")
}

// EC2 API Reference: DescribeCapacityReservations — seeded ODCRs and Capacity Blocks, by id and
// filters; InvalidCapacityReservationId.NotFound for an unknown id.
func TestEC2_DescribeCapacityReservations_FromSeed(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := ec2Client(sim, "us-east-1")
	out, err := c.DescribeCapacityReservations(ctxT(t), &ec2.DescribeCapacityReservationsInput{
		Filters: []ec2types.Filter{{Name: aws.String("reservation-type"), Values: []string{"capacity-block"}}}})
	if err != nil || len(out.CapacityReservations) != 1 {
		t.Fatalf("capacity blocks = %+v %v", out, err)
	}
	cb := out.CapacityReservations[0]
	if *cb.CapacityReservationId != "cr-0cb0cb0cb0cb00001" || cb.InstanceType == nil || *cb.InstanceType != "p5.48xlarge" || *cb.AvailabilityZone != "us-east-1c" ||
		*cb.TotalInstanceCount != 4 || *cb.AvailableInstanceCount != 4 || cb.State != ec2types.CapacityReservationStateActive ||
		cb.ReservationType != ec2types.CapacityReservationTypeCapacityBlock || cb.StartDate == nil || !cb.EndDate.Equal(time.Date(2030, 1, 1, 11, 30, 0, 0, time.UTC)) ||
		*cb.CapacityReservationArn != "arn:aws:ec2:us-east-1:123456789012:capacity-reservation/cr-0cb0cb0cb0cb00001" {
		t.Errorf("capacity block = %+v", cb)
	}
	byID, err := c.DescribeCapacityReservations(ctxT(t), &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{"cr-0a1b2c3d4e5f60001"}})
	if err != nil || len(byID.CapacityReservations) != 1 || byID.CapacityReservations[0].ReservationType != ec2types.CapacityReservationTypeDefault ||
		byID.CapacityReservations[0].InstanceMatchCriteria != ec2types.InstanceMatchCriteriaTargeted {
		t.Fatalf("by id = %+v %v", byID, err)
	}
	none, err := c.DescribeCapacityReservations(ctxT(t), &ec2.DescribeCapacityReservationsInput{Filters: []ec2types.Filter{{Name: aws.String("instance-type"), Values: []string{"g5.xlarge"}}}})
	if err != nil || len(none.CapacityReservations) != 0 {
		t.Fatalf("filter = %+v %v", none, err)
	}
	_, err = c.DescribeCapacityReservations(ctxT(t), &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{"cr-0000000000000dead"}})
	wantAPIError(t, err, "InvalidCapacityReservationId.NotFound", "cr-0000000000000dead")
}

// EC2 API Reference: DescribeInstanceTypeOfferings — LocationType region and
// availability-zone, instance-type filter with wildcards, pagination.
func TestEC2_DescribeInstanceTypeOfferings_RegionAndZones(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := ec2Client(sim, "us-east-1")
	region, err := c.DescribeInstanceTypeOfferings(ctxT(t), &ec2.DescribeInstanceTypeOfferingsInput{
		Filters: []ec2types.Filter{{Name: aws.String("instance-type"), Values: []string{"p5.48xlarge"}}}})
	if err != nil || len(region.InstanceTypeOfferings) != 1 || *region.InstanceTypeOfferings[0].Location != "us-east-1" ||
		region.InstanceTypeOfferings[0].LocationType != ec2types.LocationTypeRegion {
		t.Fatalf("region offerings = %+v %v", region, err)
	}
	zones, err := c.DescribeInstanceTypeOfferings(ctxT(t), &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeAvailabilityZone,
		Filters: []ec2types.Filter{{Name: aws.String("instance-type"), Values: []string{"p5.48xlarge"}}}})
	var zs []string
	for _, o := range zones.InstanceTypeOfferings {
		zs = append(zs, *o.Location)
	}
	if err != nil || strings.Join(zs, ",") != "us-east-1a,us-east-1c" {
		t.Fatalf("p5 zones = %v %v", zs, err)
	}
	p := ec2.NewDescribeInstanceTypeOfferingsPaginator(c, &ec2.DescribeInstanceTypeOfferingsInput{MaxResults: aws.Int32(5),
		Filters: []ec2types.Filter{{Name: aws.String("instance-type"), Values: []string{"g6e.*", "g6.*"}}}})
	var all []string
	for p.HasMorePages() {
		page, err := p.NextPage(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.InstanceTypeOfferings {
			all = append(all, string(o.InstanceType))
		}
	}
	if strings.Join(all, ",") != "g6.12xlarge,g6.2xlarge,g6.xlarge,g6e.12xlarge,g6e.2xlarge,g6e.xlarge" {
		t.Fatalf("paginated g6 offerings = %v", all)
	}
	_, err = c.DescribeInstanceTypeOfferings(ctxT(t), &ec2.DescribeInstanceTypeOfferingsInput{LocationType: "planet"})
	wantAPIError(t, err, "InvalidParameterValue", "LocationType")
}

// EC2 API Reference: DescribeSubnets — by ids and filters; InvalidSubnetID.NotFound.
func TestEC2_DescribeSubnets_FromSeed(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := ec2Client(sim, "us-east-1")
	out, err := c.DescribeSubnets(ctxT(t), &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-0a1a1a1a1a1a1a1a1", "subnet-0c1c1c1c1c1c1c1c1"}})
	if err != nil || len(out.Subnets) != 2 || *out.Subnets[1].AvailabilityZone != "us-east-1c" || *out.Subnets[0].VpcId != "vpc-0ml1" ||
		*out.Subnets[0].SubnetArn != "arn:aws:ec2:us-east-1:123456789012:subnet/subnet-0a1a1a1a1a1a1a1a1" || out.Subnets[0].State != ec2types.SubnetStateAvailable {
		t.Fatalf("subnets = %+v %v", out, err)
	}
	filtered, err := c.DescribeSubnets(ctxT(t), &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{
		{Name: aws.String("vpc-id"), Values: []string{"vpc-0ml1"}}, {Name: aws.String("availability-zone"), Values: []string{"us-east-1b"}}}})
	if err != nil || len(filtered.Subnets) != 1 || *filtered.Subnets[0].SubnetId != "subnet-0b1b1b1b1b1b1b1b1" {
		t.Fatalf("filtered = %+v %v", filtered, err)
	}
	_, err = c.DescribeSubnets(ctxT(t), &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-0a1a1a1a1a1a1a1a1", "subnet-404"}})
	wantAPIError(t, err, "InvalidSubnetID.NotFound", "The subnet ID 'subnet-404' does not exist")
}

// EC2 API Reference: DryRun — DryRunOperation (HTTP 412) instead of doing the call.
func TestEC2_DryRun_DryRunOperation(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	_, err := ec2Client(sim, "us-east-1").CreateLaunchTemplate(ctxT(t), &ec2.CreateLaunchTemplateInput{DryRun: aws.Bool(true),
		LaunchTemplateName: aws.String("dry"), LaunchTemplateData: &ec2types.RequestLaunchTemplateData{}})
	wantAPIError(t, err, "DryRunOperation", "Request would have succeeded")
	if len(sim.LaunchTemplates("")) != 0 {
		t.Fatal("dry run created a template")
	}
}

// An action cloudsim does not implement answers 400 InvalidAction, never 200.
func TestEC2_UnknownAction_InvalidAction(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	_, err := ec2Client(sim, "us-east-1").RunInstances(ctxT(t), &ec2.RunInstancesInput{MinCount: aws.Int32(1), MaxCount: aws.Int32(1), ImageId: aws.String("ami-1")})
	wantAPIError(t, err, "InvalidAction", "The action RunInstances is not valid for this web service.")
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusBadRequest {
		t.Fatalf("want 400, got %v", err)
	}
	if reqs := sim.RequestsFor("ec2", "RunInstances"); len(reqs) != 1 || reqs[0].Error != "InvalidAction" {
		t.Fatalf("request log = %+v", reqs)
	}
}

// EC2 API Reference: CreateTags and DeleteTags on a launch template — tags added, overwritten,
// deleted by key or by key and value, all ids checked before anything changes, 50 tags at most;
// DescribeLaunchTemplates returns what is left.
func TestEC2_CreateTagsDeleteTags_LaunchTemplate(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := ec2Client(sim, "us-east-1")
	lt := createLaunchTemplate(t, c, "tagged", &ec2types.RequestLaunchTemplateData{})
	id := aws.ToString(lt.LaunchTemplateId)
	tag := func(k, v string) ec2types.Tag { return ec2types.Tag{Key: aws.String(k), Value: aws.String(v)} }
	tagsOf := func() map[string]string {
		t.Helper()
		out, err := c.DescribeLaunchTemplates(ctxT(t), &ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{id}})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, tg := range out.LaunchTemplates[0].Tags {
			m[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
		}
		return m
	}
	if _, err := c.CreateTags(ctxT(t), &ec2.CreateTagsInput{Resources: []string{id}, Tags: []ec2types.Tag{tag("team", "ml"), tag("cost", "a"), tag("env", "")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTags(ctxT(t), &ec2.CreateTagsInput{Resources: []string{id}, Tags: []ec2types.Tag{tag("cost", "b")}}); err != nil {
		t.Fatal(err)
	}
	if got := tagsOf(); len(got) != 3 || got["team"] != "ml" || got["cost"] != "b" || got["env"] != "" {
		t.Fatalf("tags after CreateTags = %v", got)
	}
	_, err := c.CreateTags(ctxT(t), &ec2.CreateTagsInput{Resources: []string{id, "lt-0123456789abcdef0"}, Tags: []ec2types.Tag{tag("x", "y")}})
	wantAPIError(t, err, "InvalidLaunchTemplateId.NotFound", "lt-0123456789abcdef0")
	_, err = c.CreateTags(ctxT(t), &ec2.CreateTagsInput{Resources: []string{"i-0123456789abcdef0"}, Tags: []ec2types.Tag{tag("x", "y")}})
	wantAPIError(t, err, "InvalidInstanceID.NotFound", "i-0123456789abcdef0")
	_, err = c.CreateTags(ctxT(t), &ec2.CreateTagsInput{Resources: []string{"sg-0123456789abcdef0"}, Tags: []ec2types.Tag{tag("x", "y")}})
	wantAPIError(t, err, "InvalidID", "sg-0123456789abcdef0")
	var many []ec2types.Tag
	for i := range 48 {
		many = append(many, tag(fmt.Sprintf("t%02d", i), "v"))
	}
	_, err = c.CreateTags(ctxT(t), &ec2.CreateTagsInput{Resources: []string{id}, Tags: many})
	wantAPIError(t, err, "TagLimitExceeded", "maximum number of Tags")
	if got := tagsOf(); len(got) != 3 || got["x"] != "" {
		t.Fatalf("a failed CreateTags changed tags: %v", got)
	}

	// By key and the wrong value: kept; by key and value, and by key alone: deleted.
	if _, err := c.DeleteTags(ctxT(t), &ec2.DeleteTagsInput{Resources: []string{id}, Tags: []ec2types.Tag{tag("team", "other"), tag("cost", "b"), {Key: aws.String("env")}}}); err != nil {
		t.Fatal(err)
	}
	if got := tagsOf(); len(got) != 1 || got["team"] != "ml" {
		t.Fatalf("tags after DeleteTags = %v", got)
	}
	if _, err := c.DeleteTags(ctxT(t), &ec2.DeleteTagsInput{Resources: []string{id}}); err != nil {
		t.Fatal(err)
	}
	if got := tagsOf(); len(got) != 0 {
		t.Fatalf("tags after DeleteTags without tags = %v", got)
	}
}

// Launch templates belong to the region of the call that made them (EC2 API Reference:
// CreateLaunchTemplate, a regional resource): another region neither finds nor tags nor deletes one
// by id or name, and may hold one of the same name.
func TestEC2_LaunchTemplatesPerRegion(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	eu, us := ec2Client(sim, "eu-west-1"), ec2Client(sim, "us-east-1")
	lt := createLaunchTemplate(t, eu, "gpufleet.ml.train-od", &ec2types.RequestLaunchTemplateData{})
	id := aws.ToString(lt.LaunchTemplateId)
	if out, err := us.DescribeLaunchTemplates(ctxT(t), &ec2.DescribeLaunchTemplatesInput{}); err != nil || len(out.LaunchTemplates) != 0 {
		t.Fatalf("us-east-1 lists eu-west-1's templates: %+v %v", out, err)
	}
	_, err := us.DescribeLaunchTemplates(ctxT(t), &ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{id}})
	wantAPIError(t, err, "InvalidLaunchTemplateId.NotFound", id)
	_, err = us.CreateTags(ctxT(t), &ec2.CreateTagsInput{Resources: []string{id}, Tags: []ec2types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
	wantAPIError(t, err, "InvalidLaunchTemplateId.NotFound", id)
	_, err = us.DeleteLaunchTemplate(ctxT(t), &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: aws.String(id)})
	wantAPIError(t, err, "InvalidLaunchTemplateId.NotFound", id)
	createLaunchTemplate(t, us, "gpufleet.ml.train-od", &ec2types.RequestLaunchTemplateData{})
	if out, err := eu.DescribeLaunchTemplates(ctxT(t), &ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{id}}); err != nil || len(out.LaunchTemplates) != 1 {
		t.Fatalf("eu-west-1's template: %+v %v", out, err)
	}
}
