package cloudsim

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// The rules of the second EKS audit (../shared/audits/eks-vs-real.md, S1-S6 and D5): cloudsim answers
// as EKS does, or, where EKS's answer is not documented, as the worse of the possible answers.

// S1: a node group created without an update config reports maxUnavailable 1 and the DEFAULT
// strategy; one created with a config but no strategy reports DEFAULT too.
func TestEKS_UpdateConfig_DefaultStrategyReported(t *testing.T) {
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	createNodegroup(t, c, gpuNodegroup("plain"))
	in := gpuNodegroup("percent")
	in.UpdateConfig = &ekstypes.NodegroupUpdateConfig{MaxUnavailablePercentage: aws.Int32(20)}
	createNodegroup(t, c, in)
	for name, want := range map[string]ekstypes.NodegroupUpdateConfig{
		"plain":   {MaxUnavailable: aws.Int32(1), UpdateStrategy: ekstypes.NodegroupUpdateStrategiesDefault},
		"percent": {MaxUnavailablePercentage: aws.Int32(20), UpdateStrategy: ekstypes.NodegroupUpdateStrategiesDefault},
	} {
		got := waitSettled(t, c, "ml", name).UpdateConfig
		if got == nil || aws.ToInt32(got.MaxUnavailable) != aws.ToInt32(want.MaxUnavailable) ||
			aws.ToInt32(got.MaxUnavailablePercentage) != aws.ToInt32(want.MaxUnavailablePercentage) || got.UpdateStrategy != want.UpdateStrategy {
			t.Errorf("%s: update config %+v, want %+v", name, got, want)
		}
	}
}

// D5/Q1: a taint sent without a value is echoed without one (null), one sent with "" with "".
func TestEKS_Taints_ValueEchoedAsSent(t *testing.T) {
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	in := gpuNodegroup("taints")
	in.Taints = append(in.Taints,
		ekstypes.Taint{Key: aws.String("dedicated"), Value: aws.String(""), Effect: ekstypes.TaintEffectNoSchedule},
		ekstypes.Taint{Key: aws.String("batch"), Effect: ekstypes.TaintEffectPreferNoSchedule})
	createNodegroup(t, c, in)
	ng := waitSettled(t, c, "ml", "taints")
	values := map[string]*string{}
	for _, taint := range ng.Taints {
		values[aws.ToString(taint.Key)] = taint.Value
	}
	if v := values["dedicated"]; v == nil || *v != "" {
		t.Errorf("dedicated: value %v, want \"\"", v)
	}
	if v, ok := values["batch"]; !ok || v != nil {
		t.Errorf("batch: value %v (present %t), want null", v, ok)
	}
}

// S4: a Bottlerocket node group gets a Bottlerocket release, and a requested one must be offered
// for its Kubernetes version (a release serves several versions); an Amazon Linux-looking release
// of another kind, or one of versions the node group does not run, is refused.
func TestEKS_BottlerocketRelease_ValidatedForVersion(t *testing.T) {
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	bottlerocket := func(name, release string) *eks.CreateNodegroupInput {
		in := gpuNodegroup(name)
		in.AmiType = ekstypes.AMITypesBottlerocketX8664Nvidia
		if release != "" {
			in.ReleaseVersion = aws.String(release)
		}
		return in
	}
	if got := aws.ToString(createNodegroup(t, c, bottlerocket("latest", "")).ReleaseVersion); got != "1.31.0-7f3e2a10" {
		t.Errorf("release without a request %s, want the newest for 1.31, 1.31.0-7f3e2a10", got)
	}
	if got := aws.ToString(createNodegroup(t, c, bottlerocket("digits", "1.29.0-31415926")).ReleaseVersion); got != "1.29.0-31415926" {
		t.Errorf("release %s, want 1.29.0-31415926 (a Bottlerocket release for 1.30-1.32)", got)
	}
	for _, release := range []string{"1.32.0-0b5d9c44", "1.31.7-20250620"} {
		_, err := c.CreateNodegroup(ctxT(t), bottlerocket("refused", release))
		wantAPIError(t, err, "InvalidParameterException", "not valid for kubernetes version 1.31")
	}
}

// S6 and D15: a future-dated ODCR is scheduled before its start (assessing or delayed when the seed
// says so) and a node group on it is ACTIVE and launches nothing until then; a dedicated-tenancy one
// takes no node group instance (they are default tenancy).
func TestEKS_CapacityReservation_FutureDatedAndTenancy(t *testing.T) {
	start := time.Now().Add(48 * time.Hour).UTC()
	sim := newSim(t, func(o *Options) {
		rs := o.Seed.AWS.Regions["us-east-1"]
		rs.CapacityReservations = append(rs.CapacityReservations,
			CapacityReservationSeed{ID: "cr-0f0f0f0f0f0f00001", InstanceType: "p5.48xlarge", AvailabilityZone: "us-east-1a", TotalInstanceCount: 2, AvailableInstanceCount: 2, StartDate: &start},
			CapacityReservationSeed{ID: "cr-0f0f0f0f0f0f00002", InstanceType: "p5.48xlarge", AvailabilityZone: "us-east-1a", TotalInstanceCount: 2, AvailableInstanceCount: 2, State: "delayed", StartDate: &start},
			CapacityReservationSeed{ID: "cr-0f0f0f0f0f0f00003", InstanceType: "p5.48xlarge", AvailabilityZone: "us-east-1a", TotalInstanceCount: 2, AvailableInstanceCount: 2, Tenancy: "dedicated"})
	})
	c, e := eksClient(sim, "us-east-1"), ec2Client(sim, "us-east-1")
	out, err := e.DescribeCapacityReservations(ctxT(t), &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{"cr-0f0f0f0f0f0f00001", "cr-0f0f0f0f0f0f00002", "cr-0f0f0f0f0f0f00003"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		state   ec2types.CapacityReservationState
		tenancy ec2types.CapacityReservationTenancy
	}{{"scheduled", "default"}, {"delayed", "default"}, {"active", "dedicated"}} {
		if cr := out.CapacityReservations[i]; cr.State != want.state || cr.Tenancy != want.tenancy {
			t.Errorf("%s: %s %s, want %s %s", aws.ToString(cr.CapacityReservationId), cr.State, cr.Tenancy, want.state, want.tenancy)
		}
	}
	on := func(name, reservation string) *eks.CreateNodegroupInput {
		createLaunchTemplate(t, e, name, &ec2types.RequestLaunchTemplateData{InstanceType: ec2types.InstanceTypeP548xlarge,
			CapacityReservationSpecification: &ec2types.LaunchTemplateCapacityReservationSpecificationRequest{
				CapacityReservationTarget: &ec2types.CapacityReservationTarget{CapacityReservationId: aws.String(reservation)}}})
		in := gpuNodegroup(name)
		in.InstanceTypes, in.Subnets = nil, []string{"subnet-0a1a1a1a1a1a1a1a1"}
		in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Name: aws.String(name)}
		return in
	}
	createNodegroup(t, c, on("future", "cr-0f0f0f0f0f0f00001"))
	if ng := waitSettled(t, c, "ml", "future"); ng.Status != ekstypes.NodegroupStatusActive || len(ng.Health.Issues) == 0 ||
		!strings.Contains(aws.ToString(ng.Health.Issues[0].Message), "is scheduled and has no capacity before") {
		t.Errorf("a node group on a future-dated ODCR = %+v", ng)
	}
	createNodegroup(t, c, on("dedicated", "cr-0f0f0f0f0f0f00003"))
	if ng := waitSettled(t, c, "ml", "dedicated"); ng.Status != ekstypes.NodegroupStatusCreateFailed ||
		!strings.Contains(aws.ToString(ng.Health.Issues[0].Message), "dedicated tenancy") {
		t.Errorf("a node group on a dedicated-tenancy ODCR = %+v", ng)
	}
}

// S3: a label key that is no Kubernetes qualified name passes the EKS API and fails when nodes
// register: CREATE_FAILED, or an update Failed with the node group DEGRADED, KubernetesLabelInvalid.
func TestEKS_Labels_KubeletRejectedKeysFailLater(t *testing.T) {
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	in := gpuNodegroup("badkey")
	in.Labels["Team_Name/role"] = "ml"
	createNodegroup(t, c, in)
	if ng := waitSettled(t, c, "ml", "badkey"); ng.Status != ekstypes.NodegroupStatusCreateFailed || ng.Health.Issues[0].Code != ekstypes.NodegroupIssueCodeKubernetesLabelInvalid {
		t.Errorf("a node group with label key Team_Name/role = %s %+v", ng.Status, ng.Health)
	}
	activeNodegroup(t, c, gpuNodegroup("good"))
	out, err := c.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("good"),
		Labels: &ekstypes.UpdateLabelsPayload{AddOrUpdateLabels: map[string]string{"-bad": "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	ng := waitSettled(t, c, "ml", "good")
	du, err := c.DescribeUpdate(ctxT(t), &eks.DescribeUpdateInput{Name: aws.String("ml"), NodegroupName: aws.String("good"), UpdateId: out.Update.Id})
	if err != nil || du.Update.Status != ekstypes.UpdateStatusFailed || ng.Status != ekstypes.NodegroupStatusDegraded || ng.Labels["-bad"] != "" {
		t.Errorf("an update adding label key -bad: update %+v (%v), node group %s %v", du, err, ng.Status, ng.Labels)
	}
	_, err = c.CreateNodegroup(ctxT(t), func() *eks.CreateNodegroupInput {
		in := gpuNodegroup("badvalue")
		in.Labels["mig"] = "1g.10gb+me"
		return in
	}())
	wantAPIError(t, err, "InvalidParameterException", "a valid label must be")
}
