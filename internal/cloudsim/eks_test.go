package cloudsim

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// EKS API Reference: DescribeCluster.
func TestEKS_DescribeCluster_ReturnsSeededClusterInCallersRegion(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	for _, region := range []string{"us-east-1", "eu-west-1"} {
		out, err := eksClient(sim, region).DescribeCluster(ctxT(t), &eks.DescribeClusterInput{Name: aws.String("ml")})
		if err != nil {
			t.Fatal(err)
		}
		c := out.Cluster
		if *c.Name != "ml" || *c.Version != "1.31" || c.Status != ekstypes.ClusterStatusActive {
			t.Fatalf("cluster = %+v", c)
		}
		if want := "arn:aws:eks:" + region + ":123456789012:cluster/ml"; *c.Arn != want {
			t.Errorf("arn = %s, want %s", *c.Arn, want)
		}
		if c.CreatedAt == nil || c.CreatedAt.IsZero() || len(c.ResourcesVpcConfig.SubnetIds) != 3 {
			t.Errorf("createdAt/subnets not decoded: %+v", c)
		}
	}
}

// EKS API Reference: DescribeCluster — ResourceNotFoundException.
func TestEKS_DescribeCluster_Unknown_ResourceNotFoundException(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	_, err := eksClient(sim, "us-east-1").DescribeCluster(ctxT(t), &eks.DescribeClusterInput{Name: aws.String("nope")})
	var rnf *ekstypes.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Fatalf("want ResourceNotFoundException, got %v", err)
	}
	if rnf.ErrorMessage() != "No cluster found for name: nope." || aws.ToString(rnf.ClusterName) != "nope" {
		t.Errorf("got %q cluster %q", rnf.ErrorMessage(), aws.ToString(rnf.ClusterName))
	}
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusNotFound {
		t.Errorf("want HTTP 404, got %v", err)
	}
}

// EKS API Reference: ListClusters.
func TestEKS_ListClusters_ListsRegionClusters(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	out, err := eksClient(sim, "eu-west-1").ListClusters(ctxT(t), &eks.ListClustersInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Clusters) != 1 || out.Clusters[0] != "ml" || out.NextToken != nil {
		t.Fatalf("clusters = %v next %v", out.Clusters, out.NextToken)
	}
	out, err = eksClient(sim, "ap-south-1").ListClusters(ctxT(t), &eks.ListClustersInput{})
	if err != nil || len(out.Clusters) != 0 {
		t.Fatalf("unseeded region: %v %v", out.Clusters, err)
	}
}

// EKS API Reference: CreateNodegroup and DescribeNodegroup — status CREATING, then ACTIVE, as
// observed by the SDK's NodegroupActiveWaiter.
func TestEKS_CreateNodegroup_CreatingThenActive_NodegroupActiveWaiter(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	start := time.Now()
	ng := createNodegroup(t, c, gpuNodegroup("gpu-od"))
	if ng.Status != ekstypes.NodegroupStatusCreating {
		t.Fatalf("status after create = %s, want CREATING", ng.Status)
	}
	if err := waitNodegroupActive(t, c, "ml", "gpu-od"); err != nil {
		t.Fatal(err)
	}
	ng = describeNodegroup(t, c, "ml", "gpu-od")
	if ng.Status != ekstypes.NodegroupStatusActive {
		t.Fatalf("status = %s, want ACTIVE", ng.Status)
	}
	arnRE := regexp.MustCompile(`^arn:aws:eks:us-east-1:123456789012:nodegroup/ml/gpu-od/[0-9a-f-]{36}$`)
	if !arnRE.MatchString(*ng.NodegroupArn) {
		t.Errorf("arn %s", *ng.NodegroupArn)
	}
	// Defaults documented in the EKS API Reference for CreateNodegroup.
	checks := map[string]bool{
		"capacityType ON_DEMAND":      ng.CapacityType == ekstypes.CapacityTypesOnDemand,
		"NVIDIA AMI for g5":           ng.AmiType == ekstypes.AMITypesAl2023X8664Nvidia,
		"disk 20 GiB":                 aws.ToInt32(ng.DiskSize) == 20,
		"cluster version":             aws.ToString(ng.Version) == "1.31",
		"release version":             aws.ToString(ng.ReleaseVersion) == "1.31.7-20250620",
		"scaling kept":                *ng.ScalingConfig.DesiredSize == 2 && *ng.ScalingConfig.MaxSize == 4 && *ng.ScalingConfig.MinSize == 0,
		"labels kept":                 ng.Labels["gpufleet.io/client"] == "acme",
		"taints kept":                 len(ng.Taints) == 1 && *ng.Taints[0].Key == "nvidia.com/gpu" && ng.Taints[0].Effect == ekstypes.TaintEffectNoSchedule,
		"tags kept":                   ng.Tags["gpufleet:client"] == "acme",
		"subnets kept":                len(ng.Subnets) == 2,
		"node role kept":              aws.ToString(ng.NodeRole) == roleARN,
		"no health issues":            ng.Health != nil && len(ng.Health.Issues) == 0,
		"ASG named eks-<ng>-<uuid>":   len(ng.Resources.AutoScalingGroups) == 1 && strings.HasPrefix(*ng.Resources.AutoScalingGroups[0].Name, "eks-gpu-od-"),
		"createdAt decoded":           ng.CreatedAt != nil && ng.CreatedAt.After(start.Add(-time.Second)),
		"modifiedAt after transition": ng.ModifiedAt != nil && !ng.ModifiedAt.Before(*ng.CreatedAt),
		"update config default":       ng.UpdateConfig != nil && aws.ToInt32(ng.UpdateConfig.MaxUnavailable) == 1,
	}
	for what, ok := range checks {
		if !ok {
			t.Errorf("%s: got %+v", what, ng)
		}
	}
	stored, ok := sim.Nodegroup("us-east-1", "ml", "gpu-od")
	if !ok || stored.NodegroupArn != *ng.NodegroupArn || stored.Status != "ACTIVE" {
		t.Errorf("accessor = %+v", stored)
	}
}

// EKS API Reference: CreateNodegroup — InvalidParameterException for bad input, and no node
// group is created.
func TestEKS_CreateNodegroup_InvalidParameterException(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	taints51 := make([]ekstypes.Taint, 51)
	for i := range taints51 {
		taints51[i] = ekstypes.Taint{Key: aws.String("k" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26))), Effect: ekstypes.TaintEffectNoSchedule}
	}
	cases := []struct {
		name   string
		mod    func(*eks.CreateNodegroupInput)
		substr string
	}{
		{"name with space", func(in *eks.CreateNodegroupInput) { in.NodegroupName = aws.String("gpu pool") }, "Nodegroup name"},
		{"name too long", func(in *eks.CreateNodegroupInput) { in.NodegroupName = aws.String(strings.Repeat("a", 64)) }, "1-63 characters"},
		{"name starts with hyphen", func(in *eks.CreateNodegroupInput) { in.NodegroupName = aws.String("-gpu") }, "Nodegroup name"},
		{"min greater than desired", func(in *eks.CreateNodegroupInput) { in.ScalingConfig.MinSize = aws.Int32(3) }, "Minimum capacity 3 can't be greater than desired size 2"},
		{"desired greater than max", func(in *eks.CreateNodegroupInput) { in.ScalingConfig.DesiredSize = aws.Int32(5) }, "desiredSize can't be greater than maxSize"},
		{"max zero", func(in *eks.CreateNodegroupInput) {
			in.ScalingConfig = &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(0), DesiredSize: aws.Int32(0)}
		}, "maxSize can't be less than 1"},
		{"Kubernetes-style taint effect", func(in *eks.CreateNodegroupInput) { in.Taints[0].Effect = "NoSchedule" },
			"Invalid taint effect: NoSchedule, must be one of these [NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE]"},
		{"51 taints", func(in *eks.CreateNodegroupInput) { in.Taints = taints51 }, "limit of 50"},
		{"taint key too long", func(in *eks.CreateNodegroupInput) { in.Taints[0].Key = aws.String(strings.Repeat("k", 64)) }, "Taint key"},
		{"taint value too long", func(in *eks.CreateNodegroupInput) { in.Taints[0].Value = aws.String(strings.Repeat("v", 64)) }, "Taint value"},
		{"label key too long", func(in *eks.CreateNodegroupInput) { in.Labels = map[string]string{strings.Repeat("l", 64): "x"} }, "Label key"},
		{"kubernetes.io label", func(in *eks.CreateNodegroupInput) {
			in.Labels = map[string]string{"node-role.kubernetes.io/gpu": "true"}
		}, "prefixes containing kubernetes.io/"},
		{"eks.amazonaws.com label", func(in *eks.CreateNodegroupInput) { in.Labels = map[string]string{"eks.amazonaws.com/nodegroup": "x"} }, "eks.amazonaws.com/"},
		{"capacity type", func(in *eks.CreateNodegroupInput) { in.CapacityType = "SPOTTY" }, "Member must satisfy enum value set: [ON_DEMAND, SPOT, CAPACITY_BLOCK]"},
		{"ami type", func(in *eks.CreateNodegroupInput) { in.AmiType = "AL2023_GPU" }, "at 'amiType'"},
		{"ARM AMI for x86 GPU", func(in *eks.CreateNodegroupInput) { in.AmiType = ekstypes.AMITypesAl2023Arm64Standard }, "[g5.xlarge] is not a valid instance type for requested amiType AL2023_ARM_64_STANDARD"},
		{"label value with '+'", func(in *eks.CreateNodegroupInput) {
			in.Labels = map[string]string{"nvidia.com/mig.config": "all-1g.10gb+me"}
		}, `Invalid value: "all-1g.10gb+me"`},
		{"version older than cluster", func(in *eks.CreateNodegroupInput) { in.Version = aws.String("1.30") }, "can only be created at the cluster's Kubernetes version 1.31"},
		{"release of another version", func(in *eks.CreateNodegroupInput) { in.ReleaseVersion = aws.String("1.30.9-20250101") }, "not valid for Kubernetes version 1.31"},
		{"more nodes than a node group takes", func(in *eks.CreateNodegroupInput) {
			in.ScalingConfig = &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(451), DesiredSize: aws.Int32(0)}
		}, "exceeds the limit of 450 nodes per managed node group"},
		{"instance type not offered in subnet zones", func(in *eks.CreateNodegroupInput) {
			in.InstanceTypes, in.Subnets = []string{"p5.48xlarge"}, []string{"subnet-0b1b1b1b1b1b1b1b1"}
		}, "not offered in any of the requested availability zones [us-east-1b]"},
		{"unknown subnet", func(in *eks.CreateNodegroupInput) { in.Subnets = []string{"subnet-404"} }, "The subnet ID 'subnet-404' does not exist"},
		{"bad node role", func(in *eks.CreateNodegroupInput) { in.NodeRole = aws.String("eks-node") }, "not a valid IAM role ARN"},
		{"reserved tag prefix", func(in *eks.CreateNodegroupInput) { in.Tags = map[string]string{"aws:owner": "x"} }, "reserved prefix aws:"},
		{"both maxUnavailable forms", func(in *eks.CreateNodegroupInput) {
			in.UpdateConfig = &ekstypes.NodegroupUpdateConfig{MaxUnavailable: aws.Int32(1), MaxUnavailablePercentage: aws.Int32(10)}
		}, "Exactly one of maxUnavailable and maxUnavailablePercentage"},
		{"version newer than cluster", func(in *eks.CreateNodegroupInput) { in.Version = aws.String("1.32") }, "Requested Nodegroup version 1.32 is invalid"},
		{"capacity block without launch template", func(in *eks.CreateNodegroupInput) { in.CapacityType = ekstypes.CapacityTypesCapacityBlock }, "requires a launch template"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := gpuNodegroup("bad")
			tc.mod(in)
			_, err := c.CreateNodegroup(ctxT(t), in)
			var ipe *ekstypes.InvalidParameterException
			if !errors.As(err, &ipe) {
				t.Fatalf("want InvalidParameterException, got %v", err)
			}
			if !strings.Contains(ipe.ErrorMessage(), tc.substr) {
				t.Fatalf("message %q does not contain %q", ipe.ErrorMessage(), tc.substr)
			}
			if aws.ToString(ipe.ClusterName) != "ml" {
				t.Errorf("clusterName member = %q", aws.ToString(ipe.ClusterName))
			}
		})
	}
	if ngs := sim.Nodegroups("", ""); len(ngs) != 0 {
		t.Fatalf("invalid requests created node groups: %v", ngs)
	}
}

// EKS API Reference: CreateNodegroup — ResourceInUseException (HTTP 409) for a duplicate name.
func TestEKS_CreateNodegroup_DuplicateName_ResourceInUseException(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	createNodegroup(t, c, gpuNodegroup("gpu-od"))
	_, err := c.CreateNodegroup(ctxT(t), gpuNodegroup("gpu-od"))
	var riu *ekstypes.ResourceInUseException
	if !errors.As(err, &riu) || riu.ErrorMessage() != "NodeGroup already exists with name gpu-od and cluster name ml" {
		t.Fatalf("want ResourceInUseException, got %v", err)
	}
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusConflict {
		t.Errorf("want HTTP 409, got %v", err)
	}
}

// EKS API Reference: CreateNodegroup — clientRequestToken makes a retried create idempotent.
func TestEKS_CreateNodegroup_SameClientRequestToken_ReturnsSameNodegroup(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	in := gpuNodegroup("gpu-od")
	in.ClientRequestToken = aws.String("token-1")
	first := createNodegroup(t, c, in)
	second := createNodegroup(t, c, in)
	if *first.NodegroupArn != *second.NodegroupArn {
		t.Fatalf("retry created a new node group: %s vs %s", *first.NodegroupArn, *second.NodegroupArn)
	}
}

// EKS API Reference: CreateNodegroup — ResourceNotFoundException for an unknown cluster.
func TestEKS_CreateNodegroup_UnknownCluster_ResourceNotFoundException(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	in := gpuNodegroup("gpu-od")
	in.ClusterName = aws.String("prod")
	_, err := eksClient(sim, "us-east-1").CreateNodegroup(ctxT(t), in)
	wantAPIError(t, err, "ResourceNotFoundException", "No cluster found for name: prod.")
}

// EKS User Guide "Customizing managed nodes with launch templates": the launch template is
// resolved in EC2 and EKS reports its id, name and resolved version number.
func TestEKS_CreateNodegroup_WithLaunchTemplate_ResolvesVersion(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c, e := eksClient(sim, "us-east-1"), ec2Client(sim, "us-east-1")
	lt := createLaunchTemplate(t, e, "gpu-lt", &ec2types.RequestLaunchTemplateData{InstanceType: ec2types.InstanceTypeG5Xlarge})
	in := gpuNodegroup("gpu-lt")
	in.InstanceTypes = nil
	in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Name: aws.String("gpu-lt"), Version: aws.String("$Latest")}
	ng := activeNodegroup(t, c, in)
	if ng.LaunchTemplate == nil || *ng.LaunchTemplate.Id != *lt.LaunchTemplateId || *ng.LaunchTemplate.Version != "1" || *ng.LaunchTemplate.Name != "gpu-lt" {
		t.Fatalf("launchTemplate = %+v", ng.LaunchTemplate)
	}
	if len(ng.InstanceTypes) != 0 || ng.DiskSize != nil {
		t.Errorf("instance types / disk must come from the template: %v %v", ng.InstanceTypes, ng.DiskSize)
	}
}

// EKS User Guide "Customizing managed nodes with launch templates" — conflicting settings.
func TestEKS_CreateNodegroup_LaunchTemplateConflicts(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c, e := eksClient(sim, "us-east-1"), ec2Client(sim, "us-east-1")
	lt := createLaunchTemplate(t, e, "gpu-lt", &ec2types.RequestLaunchTemplateData{InstanceType: ec2types.InstanceTypeG5Xlarge, ImageId: aws.String("ami-0123456789abcdef0")})
	cases := []struct {
		name, code, substr string
		mod                func(*eks.CreateNodegroupInput)
	}{
		{"instance types in template and request", "InvalidRequestException", "Cannot specify instance types in launch template and API request",
			func(in *eks.CreateNodegroupInput) {
				in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Id: lt.LaunchTemplateId}
			}},
		{"id and name", "InvalidParameterException", "Either provide launch template ID or launch template name in the request.",
			func(in *eks.CreateNodegroupInput) {
				in.InstanceTypes = nil
				in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Id: lt.LaunchTemplateId, Name: aws.String("gpu-lt")}
			}},
		{"unknown template", "InvalidParameterException", "does not exist",
			func(in *eks.CreateNodegroupInput) {
				in.InstanceTypes = nil
				in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Name: aws.String("nope")}
			}},
		{"unknown version", "InvalidParameterException", "Launch template version 7 does not exist",
			func(in *eks.CreateNodegroupInput) {
				in.InstanceTypes = nil
				in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Name: aws.String("gpu-lt"), Version: aws.String("7")}
			}},
		{"disk size with template", "InvalidParameterException", "Disk size must be specified within the launch template.",
			func(in *eks.CreateNodegroupInput) {
				in.InstanceTypes, in.DiskSize = nil, aws.Int32(100)
				in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Name: aws.String("gpu-lt")}
			}},
		{"AMI in template with managed AMI type", "InvalidParameterException", "AMI Type other than CUSTOM",
			func(in *eks.CreateNodegroupInput) {
				in.InstanceTypes, in.AmiType = nil, ekstypes.AMITypesAl2023X8664Nvidia
				in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Name: aws.String("gpu-lt")}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := gpuNodegroup("gpu-lt")
			tc.mod(in)
			_, err := c.CreateNodegroup(ctxT(t), in)
			wantAPIError(t, err, tc.code, tc.substr)
		})
	}
}

// EKS User Guide "Capacity Blocks for ML": capacityType CAPACITY_BLOCK with a launch template
// targeting the Capacity Block reservation.
func TestEKS_CreateNodegroup_CapacityBlock(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c, e := eksClient(sim, "us-east-1"), ec2Client(sim, "us-east-1")
	data := func(cr string) *ec2types.RequestLaunchTemplateData {
		return &ec2types.RequestLaunchTemplateData{
			InstanceType:          ec2types.InstanceTypeP548xlarge,
			InstanceMarketOptions: &ec2types.LaunchTemplateInstanceMarketOptionsRequest{MarketType: ec2types.MarketTypeCapacityBlock},
			CapacityReservationSpecification: &ec2types.LaunchTemplateCapacityReservationSpecificationRequest{
				CapacityReservationTarget: &ec2types.CapacityReservationTarget{CapacityReservationId: aws.String(cr)}},
		}
	}
	createLaunchTemplate(t, e, "cb-lt", data("cr-0cb0cb0cb0cb00001"))
	createLaunchTemplate(t, e, "odcr-lt", data("cr-0a1b2c3d4e5f60001"))
	in := gpuNodegroup("gpu-cb")
	in.InstanceTypes, in.Subnets, in.CapacityType = nil, []string{"subnet-0c1c1c1c1c1c1c1c1"}, ekstypes.CapacityTypesCapacityBlock
	in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Name: aws.String("cb-lt")}
	ng := activeNodegroup(t, c, in)
	if ng.CapacityType != ekstypes.CapacityTypesCapacityBlock {
		t.Fatalf("capacityType = %s", ng.CapacityType)
	}
	in.NodegroupName, in.LaunchTemplate = aws.String("gpu-odcr"), &ekstypes.LaunchTemplateSpecification{Name: aws.String("odcr-lt")}
	_, err := c.CreateNodegroup(ctxT(t), in)
	wantAPIError(t, err, "InvalidParameterException", "is not a Capacity Block")

	// The instance type belongs in the template, never in the request; the subnets in the block's zone.
	noType := data("cr-0cb0cb0cb0cb00001")
	noType.InstanceType = ""
	createLaunchTemplate(t, e, "cb-notype", noType)
	in.NodegroupName, in.LaunchTemplate = aws.String("gpu-cb2"), &ekstypes.LaunchTemplateSpecification{Name: aws.String("cb-notype")}
	_, err = c.CreateNodegroup(ctxT(t), in)
	wantAPIError(t, err, "InvalidParameterException", "a CapacityReservationTarget and an InstanceType")
	in.InstanceTypes = []string{"p5.48xlarge"}
	_, err = c.CreateNodegroup(ctxT(t), in)
	wantAPIError(t, err, "InvalidParameterException", "a CapacityReservationTarget and an InstanceType")
	in.InstanceTypes, in.LaunchTemplate = []string{"p5.48xlarge"}, &ekstypes.LaunchTemplateSpecification{Name: aws.String("cb-lt")}
	_, err = c.CreateNodegroup(ctxT(t), in)
	wantAPIError(t, err, "InvalidRequestException", "Cannot specify instance types in launch template and API request")
	in.InstanceTypes, in.Subnets = nil, []string{"subnet-0c1c1c1c1c1c1c1c1", "subnet-0a1a1a1a1a1a1a1a1"}
	_, err = c.CreateNodegroup(ctxT(t), in)
	wantAPIError(t, err, "InvalidParameterException", "Availability Zone of Capacity Block cr-0cb0cb0cb0cb00001 (us-east-1c), not us-east-1a")

	// No version update with nodes on the block; at its end EKS scales the node group to 0.
	_, err = c.UpdateNodegroupVersion(ctxT(t), &eks.UpdateNodegroupVersionInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-cb"), Version: aws.String("1.31")})
	wantAPIError(t, err, "InvalidRequestException", "set its desired size to 0")
	if err := sim.EndCapacityBlock("us-east-1", "cr-0cb0cb0cb0cb00001"); err != nil {
		t.Fatal(err)
	}
	if ng := describeNodegroup(t, c, "ml", "gpu-cb"); *ng.ScalingConfig.DesiredSize != 0 || *ng.ScalingConfig.MinSize != 0 {
		t.Fatalf("after the block's end: %+v, want size 0", ng.ScalingConfig)
	}
}

// EC2 launches into an ODCR only what matches it (instance type, zone) while it has room; an update
// that replaces the nodes needs room for its surge unless its strategy is MINIMAL.
func TestEKS_NodegroupOnCapacityReservation(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c, e := eksClient(sim, "us-east-1"), ec2Client(sim, "us-east-1")
	const odcr = "cr-0a1b2c3d4e5f60001" // p5.48xlarge in us-east-1a, 2 instances
	target := func(instanceType ec2types.InstanceType) *ec2types.RequestLaunchTemplateData {
		return &ec2types.RequestLaunchTemplateData{InstanceType: instanceType, CapacityReservationSpecification: &ec2types.LaunchTemplateCapacityReservationSpecificationRequest{
			CapacityReservationTarget: &ec2types.CapacityReservationTarget{CapacityReservationId: aws.String(odcr)}}}
	}
	lt := createLaunchTemplate(t, e, "odcr-lt", target(ec2types.InstanceTypeP548xlarge))
	createLaunchTemplate(t, e, "odcr-g5", target(ec2types.InstanceTypeG5Xlarge))
	on := func(name, template string, subnets ...string) *eks.CreateNodegroupInput {
		in := gpuNodegroup(name)
		in.InstanceTypes, in.Subnets = nil, subnets
		in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Name: aws.String(template)}
		return in
	}
	activeNodegroup(t, c, on("full", "odcr-lt", "subnet-0a1a1a1a1a1a1a1a1"))
	out, err := e.DescribeCapacityReservations(ctxT(t), &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{odcr}})
	if err != nil || aws.ToInt32(out.CapacityReservations[0].AvailableInstanceCount) != 0 {
		t.Fatalf("the node group's 2 instances use the ODCR up: %+v %v", out, err)
	}
	createNodegroup(t, c, on("more", "odcr-lt", "subnet-0a1a1a1a1a1a1a1a1"))
	if ng := waitSettled(t, c, "ml", "more"); ng.Status != ekstypes.NodegroupStatusDegraded || !strings.Contains(aws.ToString(ng.Health.Issues[0].Message), "ReservationCapacityExceeded") {
		t.Fatalf("a node group beyond the reservation = %+v", ng)
	}
	createNodegroup(t, c, on("wrongtype", "odcr-g5", "subnet-0a1a1a1a1a1a1a1a1"))
	if ng := waitSettled(t, c, "ml", "wrongtype"); ng.Status != ekstypes.NodegroupStatusCreateFailed || !strings.Contains(aws.ToString(ng.Health.Issues[0].Message), "does not match") {
		t.Fatalf("a node group of another instance type = %+v", ng)
	}
	createNodegroup(t, c, on("elsewhere", "odcr-lt", "subnet-0c1c1c1c1c1c1c1c1"))
	if ng := waitSettled(t, c, "ml", "elsewhere"); ng.Status != ekstypes.NodegroupStatusCreateFailed || !strings.Contains(aws.ToString(ng.Health.Issues[0].Message), "none of the node group's subnets") {
		t.Fatalf("a node group outside the reservation's zone = %+v", ng)
	}

	// A new template version rolls the nodes: DEFAULT needs surge room the ODCR does not have.
	if _, err := e.CreateLaunchTemplateVersion(ctxT(t), &ec2.CreateLaunchTemplateVersionInput{LaunchTemplateId: lt.LaunchTemplateId, SourceVersion: aws.String("1"),
		LaunchTemplateData: &ec2types.RequestLaunchTemplateData{UserData: aws.String("IyEvYmluL2Jhc2g=")}}); err != nil {
		t.Fatal(err)
	}
	roll := func() *ekstypes.Update {
		out, err := c.UpdateNodegroupVersion(ctxT(t), &eks.UpdateNodegroupVersionInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("full"),
			Version: aws.String("1.31"), LaunchTemplate: &ekstypes.LaunchTemplateSpecification{Id: lt.LaunchTemplateId, Version: aws.String("2")}})
		if err != nil {
			t.Fatal(err)
		}
		waitSettled(t, c, "ml", "full")
		du, err := c.DescribeUpdate(ctxT(t), &eks.DescribeUpdateInput{Name: aws.String("ml"), UpdateId: out.Update.Id, NodegroupName: aws.String("full")})
		if err != nil {
			t.Fatal(err)
		}
		return du.Update
	}
	if u := roll(); u.Status != ekstypes.UpdateStatusFailed || u.Errors[0].ErrorCode != ekstypes.ErrorCodeNodeCreationFailure {
		t.Fatalf("a DEFAULT rollout on a full ODCR = %+v", u)
	}
	if _, err := c.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("full"),
		UpdateConfig: &ekstypes.NodegroupUpdateConfig{MaxUnavailable: aws.Int32(1), UpdateStrategy: ekstypes.NodegroupUpdateStrategiesMinimal}}); err != nil {
		t.Fatal(err)
	}
	waitSettled(t, c, "ml", "full")
	if u := roll(); u.Status != ekstypes.UpdateStatusSuccessful {
		t.Fatalf("a MINIMAL rollout on a full ODCR = %+v", u)
	}
}

// A node group DEGRADED for a lasting reason stays DEGRADED through a successful update, until the
// cause goes away.
func TestEKS_PersistentDegradation(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	activeNodegroup(t, c, gpuNodegroup("gpu-od"))
	if err := sim.DegradeNodegroup("us-east-1", "ml", "gpu-od", HealthIssue{Code: "InsufficientFreeAddresses", Message: "One or more of the subnets has no free addresses."}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od"),
		Labels: &ekstypes.UpdateLabelsPayload{AddOrUpdateLabels: map[string]string{"team": "ml"}}}); err != nil {
		t.Fatal(err)
	}
	if ng := waitSettled(t, c, "ml", "gpu-od"); ng.Status != ekstypes.NodegroupStatusDegraded || ng.Labels["team"] != "ml" || ng.Health.Issues[0].Code != "InsufficientFreeAddresses" {
		t.Fatalf("after the update = %+v", ng)
	}
	if err := sim.RecoverNodegroup("us-east-1", "ml", "gpu-od"); err != nil {
		t.Fatal(err)
	}
	if ng := describeNodegroup(t, c, "ml", "gpu-od"); ng.Status != ekstypes.NodegroupStatusActive || len(ng.Health.Issues) != 0 {
		t.Fatalf("after recovery = %+v", ng)
	}
}

// EKS API Reference: UpdateNodegroupConfig — an Update of type ConfigUpdate, InProgress then
// Successful (DescribeUpdate); the node group is UPDATING, then ACTIVE with the new config.
func TestEKS_UpdateNodegroupConfig_UpdatingThenActive_ChangesApplied(t *testing.T) {
	t.Parallel()
	sim := newSim(t, observeTransitions)
	c := eksClient(sim, "us-east-1")
	in := gpuNodegroup("gpu-od")
	in.Labels["team"] = "ml"
	in.Taints = append(in.Taints, ekstypes.Taint{Key: aws.String("gpufleet.io/client"), Value: aws.String("acme"), Effect: ekstypes.TaintEffectNoSchedule})
	activeNodegroup(t, c, in)
	out, err := c.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{
		ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od"),
		Labels: &ekstypes.UpdateLabelsPayload{AddOrUpdateLabels: map[string]string{"gpufleet.io/workload": "training"}, RemoveLabels: []string{"team"}},
		Taints: &ekstypes.UpdateTaintsPayload{
			AddOrUpdateTaints: []ekstypes.Taint{{Key: aws.String("dedicated"), Value: aws.String("gpu"), Effect: ekstypes.TaintEffectNoExecute}},
			RemoveTaints:      []ekstypes.Taint{{Key: aws.String("gpufleet.io/client"), Effect: ekstypes.TaintEffectNoSchedule}},
		},
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(1), DesiredSize: aws.Int32(3)},
		UpdateConfig:  &ekstypes.NodegroupUpdateConfig{MaxUnavailablePercentage: aws.Int32(25)},
	})
	if err != nil {
		t.Fatal(err)
	}
	u := out.Update
	if u.Type != ekstypes.UpdateTypeConfigUpdate || u.Status != ekstypes.UpdateStatusInProgress || u.CreatedAt == nil {
		t.Fatalf("update = %+v", u)
	}
	params := map[ekstypes.UpdateParamType]string{}
	for _, p := range u.Params {
		params[p.Type] = aws.ToString(p.Value)
	}
	if params[ekstypes.UpdateParamTypeLabelsToAdd] != `{"gpufleet.io/workload":"training"}` || params[ekstypes.UpdateParamTypeLabelsToRemove] != `["team"]` ||
		params[ekstypes.UpdateParamTypeDesiredSize] != "3" || params[ekstypes.UpdateParamTypeMinSize] != "1" ||
		params[ekstypes.UpdateParamTypeMaxUnavailablePercentage] != "25" || params[ekstypes.UpdateParamTypeTaintsToAdd] == "" {
		t.Errorf("params = %v", params)
	}
	during := describeNodegroup(t, c, "ml", "gpu-od")
	if during.Status != ekstypes.NodegroupStatusUpdating || during.Labels["team"] != "ml" {
		t.Fatalf("during update: status %s labels %v (changes apply when the update completes)", during.Status, during.Labels)
	}
	if err := waitNodegroupActive(t, c, "ml", "gpu-od"); err != nil {
		t.Fatal(err)
	}
	du, err := c.DescribeUpdate(ctxT(t), &eks.DescribeUpdateInput{Name: aws.String("ml"), UpdateId: u.Id, NodegroupName: aws.String("gpu-od")})
	if err != nil || du.Update.Status != ekstypes.UpdateStatusSuccessful {
		t.Fatalf("DescribeUpdate = %+v, %v", du, err)
	}
	ng := describeNodegroup(t, c, "ml", "gpu-od")
	if ng.Labels["gpufleet.io/workload"] != "training" || ng.Labels["team"] != "" || ng.Labels["gpufleet.io/client"] != "acme" {
		t.Errorf("labels = %v", ng.Labels)
	}
	if len(ng.Taints) != 2 || *ng.Taints[1].Key != "dedicated" || ng.Taints[1].Effect != ekstypes.TaintEffectNoExecute {
		t.Errorf("taints = %+v", ng.Taints)
	}
	if *ng.ScalingConfig.MinSize != 1 || *ng.ScalingConfig.DesiredSize != 3 || *ng.ScalingConfig.MaxSize != 4 {
		t.Errorf("scaling = %+v", ng.ScalingConfig)
	}
	if aws.ToInt32(ng.UpdateConfig.MaxUnavailablePercentage) != 25 {
		t.Errorf("update config = %+v", ng.UpdateConfig)
	}
	if got := sim.Updates("us-east-1", "ml", "gpu-od"); len(got) != 1 || got[0].Status != "Successful" {
		t.Errorf("Updates accessor = %+v", got)
	}
}

// EKS API Reference: UpdateNodegroupConfig — validation of the merged scaling config, and
// ResourceInUseException while another update is in progress.
func TestEKS_UpdateNodegroupConfig_InvalidOrConcurrent(t *testing.T) {
	t.Parallel()
	sim := newSim(t, func(o *Options) { o.TransitionDelay = 2 * time.Second })
	c := eksClient(sim, "us-east-1")
	createNodegroup(t, c, gpuNodegroup("gpu-od"))
	_, err := c.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od"),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{DesiredSize: aws.Int32(3)}})
	wantAPIError(t, err, "ResourceInUseException", "currently in status CREATING")

	sim2 := newSim(t)
	c2 := eksClient(sim2, "us-east-1")
	activeNodegroup(t, c2, gpuNodegroup("gpu-od"))
	_, err = c2.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od"),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(3)}})
	wantAPIError(t, err, "InvalidParameterException", "Minimum capacity 3 can't be greater than desired size 2")
	_, err = c2.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od")})
	wantAPIError(t, err, "InvalidParameterException", "No changes needed")
	_, err = c2.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("nope"),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{DesiredSize: aws.Int32(1)}})
	wantAPIError(t, err, "ResourceNotFoundException", "No node group found for name: nope.")
}

// EKS API Reference: UpdateNodegroupVersion — a VersionUpdate to a new launch template version;
// without a release version the node group gets the latest AMI release of its Kubernetes version,
// launch template or not; no roll back of the Kubernetes version or the AMI release.
func TestEKS_UpdateNodegroupVersion_LaunchTemplateVersionAndRelease(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c, e := eksClient(sim, "us-east-1"), ec2Client(sim, "us-east-1")
	lt := createLaunchTemplate(t, e, "gpu-lt", &ec2types.RequestLaunchTemplateData{InstanceType: ec2types.InstanceTypeG5Xlarge})
	in := gpuNodegroup("gpu-lt")
	in.InstanceTypes = nil
	in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Id: lt.LaunchTemplateId, Version: aws.String("1")}
	if ng := activeNodegroup(t, c, in); *ng.Version != "1.31" || *ng.ReleaseVersion != "1.31.7-20250620" {
		t.Fatalf("created at %s %s, want the cluster's version and latest release", *ng.Version, *ng.ReleaseVersion)
	}
	if _, err := e.CreateLaunchTemplateVersion(ctxT(t), &ec2.CreateLaunchTemplateVersionInput{LaunchTemplateId: lt.LaunchTemplateId,
		SourceVersion: aws.String("1"), LaunchTemplateData: &ec2types.RequestLaunchTemplateData{UserData: aws.String("IyEvYmluL2Jhc2g=")}}); err != nil {
		t.Fatal(err)
	}
	if err := sim.PublishAMIRelease("us-east-1", "1.31", "1.31.9-20250801"); err != nil {
		t.Fatal(err)
	}
	out, err := c.UpdateNodegroupVersion(ctxT(t), &eks.UpdateNodegroupVersionInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-lt"),
		Version: aws.String("1.31"), LaunchTemplate: &ekstypes.LaunchTemplateSpecification{Id: lt.LaunchTemplateId, Version: aws.String("$Latest")}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Update.Type != ekstypes.UpdateTypeVersionUpdate {
		t.Fatalf("type = %s", out.Update.Type)
	}
	if err := waitNodegroupActive(t, c, "ml", "gpu-lt"); err != nil {
		t.Fatal(err)
	}
	if ng := describeNodegroup(t, c, "ml", "gpu-lt"); *ng.LaunchTemplate.Version != "2" || *ng.Version != "1.31" || *ng.ReleaseVersion != "1.31.9-20250801" {
		t.Fatalf("after a launch template update without a release: %+v version %s release %s, want the latest release", ng.LaunchTemplate, *ng.Version, *ng.ReleaseVersion)
	}
	_, err = c.UpdateNodegroupVersion(ctxT(t), &eks.UpdateNodegroupVersionInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-lt"),
		Version: aws.String("1.31"), ReleaseVersion: aws.String("1.31.7-20250620")})
	wantAPIError(t, err, "InvalidParameterException", "cannot roll back a node group from AMI release 1.31.9-20250801")
	_, err = c.UpdateNodegroupVersion(ctxT(t), &eks.UpdateNodegroupVersionInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-lt"), Version: aws.String("1.30")})
	wantAPIError(t, err, "InvalidParameterException", "cannot roll back a node group from Kubernetes 1.31")
	other := createLaunchTemplate(t, e, "other-lt", &ec2types.RequestLaunchTemplateData{InstanceType: ec2types.InstanceTypeG5Xlarge})
	_, err = c.UpdateNodegroupVersion(ctxT(t), &eks.UpdateNodegroupVersionInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-lt"),
		LaunchTemplate: &ekstypes.LaunchTemplateSpecification{Id: other.LaunchTemplateId}})
	wantAPIError(t, err, "InvalidParameterException", "cannot change the launch template")
	_, err = c.UpdateNodegroupVersion(ctxT(t), &eks.UpdateNodegroupVersionInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-lt"), Version: aws.String("1.33")})
	wantAPIError(t, err, "InvalidParameterException", "Requested Nodegroup version 1.33 is invalid")
}

// EKS takes a request with an instance type the region does not offer and fails the node group:
// CREATE_FAILED with Ec2InstanceTypeDoesNotExist (EKS API Reference: Issue).
func TestEKS_CreateNodegroup_UnknownInstanceTypeFails(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	in := gpuNodegroup("gpu-od")
	in.InstanceTypes = []string{"g5.xlarge", "g9.xlarge"}
	createNodegroup(t, c, in)
	ng := waitSettled(t, c, "ml", "gpu-od")
	if ng.Status != ekstypes.NodegroupStatusCreateFailed || ng.Health.Issues[0].Code != ekstypes.NodegroupIssueCodeEc2InstanceTypeDoesNotExist ||
		!strings.Contains(aws.ToString(ng.Health.Issues[0].Message), "[g9.xlarge]") {
		t.Fatalf("node group = %+v", ng)
	}
}

// EKS service quotas: at most 30 managed node groups per cluster (ResourceLimitExceededException),
// unless the seed raises the quota (the example seed does, to 100).
func TestEKS_CreateNodegroup_NodegroupQuota(t *testing.T) {
	t.Parallel()
	sim := newSim(t, func(o *Options) { o.Seed.AWS.Regions["us-east-1"].EKSQuotas = nil })
	c := eksClient(sim, "us-east-1")
	for i := range 30 {
		createNodegroup(t, c, gpuNodegroup(fmt.Sprintf("gpu-%02d", i)))
	}
	_, err := c.CreateNodegroup(ctxT(t), gpuNodegroup("gpu-30"))
	wantAPIError(t, err, "ResourceLimitExceededException", "limit of managed node groups per cluster (30)")
}

// Amazon Linux 2 AMIs end with Kubernetes 1.32: no AL2 node group on a 1.33 cluster.
func TestEKS_CreateNodegroup_NoAL2After132(t *testing.T) {
	t.Parallel()
	sim := newSim(t, func(o *Options) {
		o.Seed.AWS.Regions["us-east-1"].Clusters = append(o.Seed.AWS.Regions["us-east-1"].Clusters, EKSClusterSeed{Name: "new", Version: "1.33"})
	})
	c := eksClient(sim, "us-east-1")
	in := gpuNodegroup("gpu-od")
	in.ClusterName, in.AmiType = aws.String("new"), ekstypes.AMITypesAl2X8664Gpu
	_, err := c.CreateNodegroup(ctxT(t), in)
	wantAPIError(t, err, "InvalidParameterException", "AL2_x86_64_GPU is not supported for Kubernetes version 1.33")
}

// EKS API Reference: DescribeUpdate — ResourceNotFoundException for an unknown update id.
func TestEKS_DescribeUpdate_Unknown_ResourceNotFoundException(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	activeNodegroup(t, c, gpuNodegroup("gpu-od"))
	_, err := c.DescribeUpdate(ctxT(t), &eks.DescribeUpdateInput{Name: aws.String("ml"), UpdateId: aws.String("00000000-0000-4000-8000-000000000000"), NodegroupName: aws.String("gpu-od")})
	wantAPIError(t, err, "ResourceNotFoundException", "No update found for ID")
}

// EKS API Reference: DeleteNodegroup and ListNodegroups — DELETING, still listed, then gone, as
// observed by the SDK's NodegroupDeletedWaiter.
func TestEKS_DeleteNodegroup_DeletingThenGone_NodegroupDeletedWaiter(t *testing.T) {
	t.Parallel()
	sim := newSim(t, observeTransitions)
	c := eksClient(sim, "us-east-1")
	activeNodegroup(t, c, gpuNodegroup("gpu-od"))
	out, err := c.DeleteNodegroup(ctxT(t), &eks.DeleteNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od")})
	if err != nil || out.Nodegroup.Status != ekstypes.NodegroupStatusDeleting {
		t.Fatalf("delete: %+v %v", out, err)
	}
	list, err := c.ListNodegroups(ctxT(t), &eks.ListNodegroupsInput{ClusterName: aws.String("ml")})
	if err != nil || len(list.Nodegroups) != 1 {
		t.Fatalf("list while deleting: %v %v", list, err)
	}
	w := eks.NewNodegroupDeletedWaiter(c, func(o *eks.NodegroupDeletedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	})
	if err := w.Wait(ctxT(t), &eks.DescribeNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od")}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	_, err = c.DescribeNodegroup(ctxT(t), &eks.DescribeNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od")})
	wantAPIError(t, err, "ResourceNotFoundException", "No node group found for name: gpu-od.")
	_, err = c.DeleteNodegroup(ctxT(t), &eks.DeleteNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od")})
	wantAPIError(t, err, "ResourceNotFoundException", "")
}

// EKS API Reference: DeleteNodegroup — ResourceInUseException while the node group is CREATING.
func TestEKS_DeleteNodegroup_WhileCreating_ResourceInUseException(t *testing.T) {
	t.Parallel()
	sim := newSim(t, func(o *Options) { o.TransitionDelay = 5 * time.Second })
	c := eksClient(sim, "us-east-1")
	createNodegroup(t, c, gpuNodegroup("gpu-od"))
	_, err := c.DeleteNodegroup(ctxT(t), &eks.DeleteNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od")})
	wantAPIError(t, err, "ResourceInUseException", "CREATING")
}

// EKS API Reference: ListNodegroups — maxResults and nextToken, driven by the SDK paginator.
func TestEKS_ListNodegroups_Paginator(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	for _, name := range []string{"a", "b", "c"} {
		createNodegroup(t, c, gpuNodegroup(name))
	}
	p := eks.NewListNodegroupsPaginator(c, &eks.ListNodegroupsInput{ClusterName: aws.String("ml"), MaxResults: aws.Int32(2)})
	var names []string
	pages := 0
	for p.HasMorePages() {
		out, err := p.NextPage(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		pages++
		names = append(names, out.Nodegroups...)
	}
	if pages != 2 || strings.Join(names, ",") != "a,b,c" {
		t.Fatalf("pages %d names %v", pages, names)
	}
	_, err := c.ListNodegroups(ctxT(t), &eks.ListNodegroupsInput{ClusterName: aws.String("nope")})
	wantAPIError(t, err, "ResourceNotFoundException", "No cluster found for name: nope.")
}

// EKS API Reference: TagResource, UntagResource, ListTagsForResource — on node group and
// cluster ARNs; NotFoundException / BadRequestException for unknown or malformed ARNs.
func TestEKS_TagResource_UntagResource_ListTagsForResource(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	ng := activeNodegroup(t, c, gpuNodegroup("gpu-od"))
	for _, arn := range []string{*ng.NodegroupArn, "arn:aws:eks:us-east-1:123456789012:cluster/ml"} {
		if _, err := c.TagResource(ctxT(t), &eks.TagResourceInput{ResourceArn: aws.String(arn), Tags: map[string]string{"cost-center": "cc-1", "drop": "me"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.UntagResource(ctxT(t), &eks.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"drop"}}); err != nil {
			t.Fatal(err)
		}
		out, err := c.ListTagsForResource(ctxT(t), &eks.ListTagsForResourceInput{ResourceArn: aws.String(arn)})
		if err != nil || out.Tags["cost-center"] != "cc-1" || out.Tags["drop"] != "" {
			t.Fatalf("%s tags = %v %v", arn, out, err)
		}
	}
	if got := describeNodegroup(t, c, "ml", "gpu-od").Tags; got["cost-center"] != "cc-1" || got["gpufleet:client"] != "acme" {
		t.Errorf("node group tags = %v", got)
	}
	_, err := c.ListTagsForResource(ctxT(t), &eks.ListTagsForResourceInput{ResourceArn: aws.String("arn:aws:eks:us-east-1:123456789012:nodegroup/ml/nope/x")})
	wantAPIError(t, err, "NotFoundException", "")
	_, err = c.ListTagsForResource(ctxT(t), &eks.ListTagsForResourceInput{ResourceArn: aws.String("not-an-arn")})
	wantAPIError(t, err, "BadRequestException", "")
}

// One simulator serves several regions: the region comes from the SigV4 credential scope.
func TestEKS_RegionFromSigV4CredentialScope(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	eu := eksClient(sim, "eu-west-1")
	in := gpuNodegroup("gpu-eu")
	in.Subnets = []string{"subnet-0a2a2a2a2a2a2a2a2"}
	ng := createNodegroup(t, eu, in)
	if !strings.HasPrefix(*ng.NodegroupArn, "arn:aws:eks:eu-west-1:") {
		t.Fatalf("arn %s", *ng.NodegroupArn)
	}
	out, err := eksClient(sim, "us-east-1").ListNodegroups(ctxT(t), &eks.ListNodegroupsInput{ClusterName: aws.String("ml")})
	if err != nil || len(out.Nodegroups) != 0 {
		t.Fatalf("us-east-1 sees eu-west-1 node groups: %v %v", out, err)
	}
	if reqs := sim.RequestsFor("eks", "CreateNodegroup"); len(reqs) != 1 || reqs[0].Region != "eu-west-1" {
		t.Fatalf("request log = %+v", reqs)
	}
	_, err = eu.CreateNodegroup(ctxT(t), gpuNodegroup("gpu-eu-2")) // us-east-1 subnets
	wantAPIError(t, err, "InvalidParameterException", "The subnet ID 'subnet-0a1a1a1a1a1a1a1a1' does not exist")
}

// An operation cloudsim does not implement answers 404 UnknownOperationException, never 200.
func TestEKS_UnknownOperation_404UnknownOperationException(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	_, err := eksClient(sim, "us-east-1").DescribeAddon(ctxT(t), &eks.DescribeAddonInput{ClusterName: aws.String("ml"), AddonName: aws.String("vpc-cni")})
	wantAPIError(t, err, "UnknownOperationException", "")
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusNotFound {
		t.Fatalf("want 404, got %v", err)
	}
	if reqs := sim.RequestsFor("eks", "UnknownOperation"); len(reqs) != 1 {
		t.Fatalf("unknown operation not logged: %+v", sim.Requests())
	}
}
