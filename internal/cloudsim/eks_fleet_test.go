package cloudsim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// taggedTemplate is launch template data with instance, volume and network interface tags.
func taggedTemplate(instance, volume map[string]string) *ec2types.RequestLaunchTemplateData {
	spec := func(rt ec2types.ResourceType, tags map[string]string) ec2types.LaunchTemplateTagSpecificationRequest {
		out := ec2types.LaunchTemplateTagSpecificationRequest{ResourceType: rt}
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			out.Tags = append(out.Tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
		}
		return out
	}
	return &ec2types.RequestLaunchTemplateData{TagSpecifications: []ec2types.LaunchTemplateTagSpecificationRequest{
		spec(ec2types.ResourceTypeInstance, instance), spec(ec2types.ResourceTypeVolume, volume),
		spec(ec2types.ResourceTypeNetworkInterface, instance)}}
}

func onTemplate(name, template string) *eks.CreateNodegroupInput {
	in := gpuNodegroup(name)
	in.LaunchTemplate = &ekstypes.LaunchTemplateSpecification{Name: aws.String(template)}
	return in
}

func tagsOfEC2(tags []ec2types.Tag) map[string]string {
	out := map[string]string{}
	for _, t := range tags {
		out[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return out
}

// fleetOf reads a node group's Auto Scaling group, instances and volumes through the real SDKs.
func fleetOf(t *testing.T, sim *Sim, ng *ekstypes.Nodegroup) (astypes.AutoScalingGroup, []ec2types.Instance, map[string]map[string]string) {
	t.Helper()
	as, e := autoscalingClient(sim, "us-east-1"), ec2Client(sim, "us-east-1")
	name := ng.Resources.AutoScalingGroups[0].Name
	out, err := as.DescribeAutoScalingGroups(ctxT(t), &autoscaling.DescribeAutoScalingGroupsInput{AutoScalingGroupNames: []string{aws.ToString(name)}})
	if err != nil || len(out.AutoScalingGroups) != 1 {
		t.Fatalf("DescribeAutoScalingGroups %s: %+v, %v", aws.ToString(name), out, err)
	}
	g := out.AutoScalingGroups[0]
	var ids []string
	for _, i := range g.Instances {
		ids = append(ids, aws.ToString(i.InstanceId))
	}
	if len(ids) == 0 {
		return g, nil, nil
	}
	di, err := e.DescribeInstances(ctxT(t), &ec2.DescribeInstancesInput{InstanceIds: ids})
	if err != nil {
		t.Fatal(err)
	}
	var instances []ec2types.Instance
	var volumeIDs []string
	for _, r := range di.Reservations {
		for _, i := range r.Instances {
			instances = append(instances, i)
			volumeIDs = append(volumeIDs, aws.ToString(i.BlockDeviceMappings[0].Ebs.VolumeId))
		}
	}
	dv, err := e.DescribeVolumes(ctxT(t), &ec2.DescribeVolumesInput{VolumeIds: volumeIDs})
	if err != nil {
		t.Fatal(err)
	}
	volumes := map[string]map[string]string{}
	for _, v := range dv.Volumes {
		volumes[aws.ToString(v.Attachments[0].InstanceId)] = tagsOfEC2(v.Tags)
	}
	return g, instances, volumes
}

// A node group's Auto Scaling group carries EKS's tags; its instances (its desired size) get those
// and the launch template's instance tags, their volumes only the template's volume tags.
func TestEKS_Fleet_InstancesTaggedAtLaunch(t *testing.T) {
	sim := newSim(t)
	c, e := eksClient(sim, "us-east-1"), ec2Client(sim, "us-east-1")
	createLaunchTemplate(t, e, "tagged", taggedTemplate(map[string]string{"client": "acme", "cost": "cc-1"}, map[string]string{"client": "acme"}))
	ng := activeNodegroup(t, c, onTemplate("gpu", "tagged"))
	g, instances, volumes := fleetOf(t, sim, ng)
	asgTags := map[string]string{}
	for _, tag := range g.Tags {
		asgTags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
		if !aws.ToBool(tag.PropagateAtLaunch) {
			t.Errorf("EKS's tag %s does not propagate", aws.ToString(tag.Key))
		}
	}
	if want := map[string]string{"eks:cluster-name": "ml", "eks:nodegroup-name": "gpu", "k8s.io/cluster-autoscaler/enabled": "true",
		"k8s.io/cluster-autoscaler/ml": "owned", "kubernetes.io/cluster/ml": "owned"}; !maps.Equal(asgTags, want) {
		t.Errorf("Auto Scaling group tags %v, want EKS's %v", asgTags, want)
	}
	if len(instances) != 2 || aws.ToInt32(g.DesiredCapacity) != 2 {
		t.Fatalf("%d instances, desired %d, want 2", len(instances), aws.ToInt32(g.DesiredCapacity))
	}
	for _, i := range instances {
		tags := tagsOfEC2(i.Tags)
		if tags["client"] != "acme" || tags["cost"] != "cc-1" || tags["eks:nodegroup-name"] != "gpu" || tags["aws:autoscaling:groupName"] != aws.ToString(g.AutoScalingGroupName) {
			t.Errorf("instance %s tags %v", aws.ToString(i.InstanceId), tags)
		}
		if v := volumes[aws.ToString(i.InstanceId)]; !maps.Equal(v, map[string]string{"client": "acme"}) {
			t.Errorf("volume of %s tags %v, want the template's volume tags only", aws.ToString(i.InstanceId), v)
		}
	}
}

// Tags written on the Auto Scaling group with propagate-at-launch reach instances launched later,
// not running ones; where the launch template names the same key its value wins (cloudsim's answer
// to an undocumented precedence); a volume never gets the group's. ec2:CreateTags and DeleteTags
// tag running instances and volumes. A roll replaces every instance, from the new template version.
func TestEKS_Fleet_TagPropagationAndRoll(t *testing.T) {
	sim := newSim(t)
	c, e, as := eksClient(sim, "us-east-1"), ec2Client(sim, "us-east-1"), autoscalingClient(sim, "us-east-1")
	lt := createLaunchTemplate(t, e, "tagged", taggedTemplate(map[string]string{"client": "acme", "cost": "cc-1"}, map[string]string{"cost": "cc-1"}))
	in := onTemplate("gpu", "tagged")
	in.ScalingConfig.DesiredSize = aws.Int32(1)
	ng := activeNodegroup(t, c, in)
	group := ng.Resources.AutoScalingGroups[0].Name
	tag := func(key, value string) astypes.Tag {
		return astypes.Tag{ResourceId: group, ResourceType: aws.String("auto-scaling-group"), Key: aws.String(key), Value: aws.String(value), PropagateAtLaunch: aws.Bool(true)}
	}
	if _, err := as.CreateOrUpdateTags(ctxT(t), &autoscaling.CreateOrUpdateTagsInput{Tags: []astypes.Tag{tag("team", "ml"), tag("cost", "cc-2")}}); err != nil {
		t.Fatal(err)
	}
	_, before, _ := fleetOf(t, sim, ng)
	if tags := tagsOfEC2(before[0].Tags); tags["team"] != "" {
		t.Errorf("a running instance got the group's new tag: %v", tags)
	}
	if _, err := c.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu"),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{DesiredSize: aws.Int32(2)}}); err != nil {
		t.Fatal(err)
	}
	waitSettled(t, c, "ml", "gpu")
	_, after, volumes := fleetOf(t, sim, ng)
	if len(after) != 2 {
		t.Fatalf("%d instances after scaling to 2", len(after))
	}
	launched := after[1]
	if aws.ToString(launched.InstanceId) == aws.ToString(before[0].InstanceId) {
		launched = after[0]
	}
	if tags := tagsOfEC2(launched.Tags); tags["team"] != "ml" || tags["cost"] != "cc-1" {
		t.Errorf("a new instance: tags %v, want team=ml from the group and cost=cc-1 from the launch template", tags)
	}
	if v := volumes[aws.ToString(launched.InstanceId)]; !maps.Equal(v, map[string]string{"cost": "cc-1"}) {
		t.Errorf("a new instance's volume: tags %v, want the launch template's only", v)
	}

	ids := []string{aws.ToString(launched.InstanceId), aws.ToString(launched.BlockDeviceMappings[0].Ebs.VolumeId)}
	if _, err := e.CreateTags(ctxT(t), &ec2.CreateTagsInput{Resources: ids, Tags: []ec2types.Tag{{Key: aws.String("cost"), Value: aws.String("cc-2")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DeleteTags(ctxT(t), &ec2.DeleteTagsInput{Resources: ids[:1], Tags: []ec2types.Tag{{Key: aws.String("team")}}}); err != nil {
		t.Fatal(err)
	}
	_, after, volumes = fleetOf(t, sim, ng)
	for _, i := range after {
		if aws.ToString(i.InstanceId) != ids[0] {
			continue
		}
		if tags := tagsOfEC2(i.Tags); tags["cost"] != "cc-2" || tags["team"] != "" || volumes[ids[0]]["cost"] != "cc-2" {
			t.Errorf("after CreateTags and DeleteTags: instance %v, volume %v", tags, volumes[ids[0]])
		}
	}

	// A roll: a new template version with new tags.
	v2, err := e.CreateLaunchTemplateVersion(ctxT(t), &ec2.CreateLaunchTemplateVersionInput{LaunchTemplateId: lt.LaunchTemplateId,
		LaunchTemplateData: taggedTemplate(map[string]string{"client": "acme", "cost": "cc-3"}, map[string]string{"cost": "cc-3"})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateNodegroupVersion(ctxT(t), &eks.UpdateNodegroupVersionInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu"),
		LaunchTemplate: &ekstypes.LaunchTemplateSpecification{Id: lt.LaunchTemplateId, Version: aws.String(fmt.Sprint(aws.ToInt64(v2.LaunchTemplateVersion.VersionNumber)))}}); err != nil {
		t.Fatal(err)
	}
	waitSettled(t, c, "ml", "gpu")
	_, rolled, volumes := fleetOf(t, sim, ng)
	for _, i := range rolled {
		if slices.ContainsFunc(after, func(o ec2types.Instance) bool { return aws.ToString(o.InstanceId) == aws.ToString(i.InstanceId) }) {
			t.Errorf("instance %s survived the roll", aws.ToString(i.InstanceId))
		}
		if tags := tagsOfEC2(i.Tags); tags["cost"] != "cc-3" || volumes[aws.ToString(i.InstanceId)]["cost"] != "cc-3" {
			t.Errorf("a rolled instance: %v, volume %v", tags, volumes[aws.ToString(i.InstanceId)])
		}
	}

	if _, err := c.DeleteNodegroup(ctxT(t), &eks.DeleteNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu")}); err != nil {
		t.Fatal(err)
	}
	if err := eks.NewNodegroupDeletedWaiter(c, func(o *eks.NodegroupDeletedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	}).
		Wait(ctxT(t), &eks.DescribeNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu")}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	out, err := as.DescribeAutoScalingGroups(ctxT(t), &autoscaling.DescribeAutoScalingGroupsInput{AutoScalingGroupNames: []string{aws.ToString(group)}})
	if err != nil || len(out.AutoScalingGroups) != 0 || len(sim.Instances("us-east-1", "ml", "gpu")) != 0 {
		t.Errorf("after the node group went: groups %+v (%v)", out, err)
	}
	_, err = e.DescribeInstances(ctxT(t), &ec2.DescribeInstancesInput{InstanceIds: ids[:1]})
	wantAPIError(t, err, "InvalidInstanceID.NotFound", ids[0])
}

// An instance takes 50 tags that are not aws: ones: a node group whose launch template and Auto
// Scaling group would give its instances more ends CREATE_FAILED (audit D12).
func TestEKS_Fleet_InstanceTagLimit(t *testing.T) {
	sim := newSim(t)
	c, e := eksClient(sim, "us-east-1"), ec2Client(sim, "us-east-1")
	many := map[string]string{}
	for i := range 46 {
		many[fmt.Sprintf("t%02d", i)] = "v"
	}
	createLaunchTemplate(t, e, "many", taggedTemplate(many, nil))
	createNodegroup(t, c, onTemplate("gpu", "many"))
	if ng := waitSettled(t, c, "ml", "gpu"); ng.Status != ekstypes.NodegroupStatusCreateFailed || !strings.Contains(aws.ToString(ng.Health.Issues[0].Message), "TagLimitExceeded") {
		t.Errorf("46 template tags + EKS's 5: %s %+v", ng.Status, ng.Health)
	}
	delete(many, "t45")
	createLaunchTemplate(t, e, "fits", taggedTemplate(many, nil))
	activeNodegroup(t, c, onTemplate("fits", "fits"))
}

// The Auto Scaling API checks what it is given: an unknown group, a reserved key.
func TestAutoScaling_Errors(t *testing.T) {
	sim := newSim(t)
	as := autoscalingClient(sim, "us-east-1")
	_, err := as.CreateOrUpdateTags(ctxT(t), &autoscaling.CreateOrUpdateTagsInput{Tags: []astypes.Tag{{ResourceId: aws.String("nope"),
		ResourceType: aws.String("auto-scaling-group"), Key: aws.String("k"), Value: aws.String("v")}}})
	wantAPIError(t, err, "ValidationError", "nope")
	_, err = as.DescribeAutoScalingInstances(ctxT(t), &autoscaling.DescribeAutoScalingInstancesInput{})
	wantAPIError(t, err, "InvalidAction", "DescribeAutoScalingInstances")
}
