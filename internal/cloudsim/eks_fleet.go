package cloudsim

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"
)

// The instances of EKS managed node groups: each node group has an EC2 Auto Scaling group (named in
// Nodegroup.resources.autoScalingGroups) that launches its instances, each with a root volume, from
// the node group's launch template. cloudsim keeps them so that the tags an instance and its volume
// carry can be read (ec2:DescribeInstances, ec2:DescribeVolumes, autoscaling:DescribeAutoScalingGroups)
// and changed (ec2:CreateTags, autoscaling:CreateOrUpdateTags) as on AWS:
//
//   - The Auto Scaling group EKS makes carries EKS's own tags, propagated to the instances it
//     launches: eks:cluster-name, eks:nodegroup-name, k8s.io/cluster-autoscaler/enabled,
//     k8s.io/cluster-autoscaler/<cluster> and kubernetes.io/cluster/<cluster> (aws/containers-roadmap
//     #608 and the workarounds there, which read eks:nodegroup-name from the group and tag it with
//     propagate-at-launch; the auto-discovery tags the cluster autoscaler reads from the group,
//     kubernetes/autoscaler cloudprovider/aws/README.md). Which non-aws: tags EKS adds is not
//     documented (audit eks-vs-real.md D12/Q11); cloudsim adds these five, which count against an
//     instance's 50 tags.
//   - An instance gets the group's tags with PropagateAtLaunch and the instance tag specifications of
//     the launch template version it launches from (EC2 Auto Scaling User Guide, "Tag Auto Scaling
//     groups and instances"); where both name a key, which value wins is not documented, and
//     cloudsim gives the launch template's, the answer that keeps a tag changed only on the group
//     stale on new instances (the worse one for a client that relies on the group's).
//   - A volume gets only the launch template's volume tag specifications: "Tags are not propagated to
//     Amazon EBS volumes. To add tags to Amazon EBS volumes, specify the tags in a launch template"
//     (same guide).
//   - EKS launches from its own copy of the launch template, which drops network-interface tag
//     specifications (audit eks-vs-real.md S5/D6: aws/containers-roadmap#1496, terraform-provider-aws
//     #32151); cloudsim keeps no network interfaces, and reads only instance and volume ones.
//   - An instance takes at most 50 tags that are not aws: ones (EC2 User Guide, "Tag restrictions");
//     a launch that would give it more fails, and the node group ends CREATE_FAILED with
//     AsgInstanceLaunchFailures (audit D12).
//
// Instances follow the node group: its desired size once ACTIVE or DEGRADED, all of them replaced by
// an update that rolls the nodes (a new launch template version, Kubernetes version or AMI release),
// none left once the node group is gone.

// ASGTag is a tag of an Auto Scaling group.
type ASGTag struct {
	Key               string `json:"key"`
	Value             string `json:"value"`
	PropagateAtLaunch bool   `json:"propagate_at_launch"`
}

// ScalingGroup is an EKS node group's Auto Scaling group as cloudsim keeps it.
type ScalingGroup struct {
	Name      string            `json:"name"`
	Nodegroup string            `json:"nodegroup"` // the node group's key, region/cluster/name
	Created   time.Time         `json:"created"`
	Tags      map[string]ASGTag `json:"tags"`
}

// Instance is an EC2 instance of a node group, with its root volume.
type Instance struct {
	ID              string            `json:"id"`
	ASG             string            `json:"asg"`
	InstanceType    string            `json:"instance_type"`
	Zone            string            `json:"zone"`
	LaunchTime      time.Time         `json:"launch_time"`
	LaunchTemplate  string            `json:"launch_template,omitempty"`
	TemplateVersion string            `json:"template_version,omitempty"`
	Generation      int               `json:"generation"` // the node group's roll it was launched in
	Tags            map[string]string `json:"tags"`
	Volume          Volume            `json:"volume"`
}

// Volume is an instance's root EBS volume.
type Volume struct {
	ID   string            `json:"id"`
	Tags map[string]string `json:"tags"`
}

// eksASGTags are the tags EKS gives a node group's Auto Scaling group (see above).
func eksASGTags(cluster, nodegroup string) map[string]ASGTag {
	tags := map[string]ASGTag{}
	for k, v := range map[string]string{
		"eks:cluster-name":                     cluster,
		"eks:nodegroup-name":                   nodegroup,
		"k8s.io/cluster-autoscaler/enabled":    "true",
		"k8s.io/cluster-autoscaler/" + cluster: "owned",
		"kubernetes.io/cluster/" + cluster:     "owned",
	} {
		tags[k] = ASGTag{Key: k, Value: v, PropagateAtLaunch: true}
	}
	return tags
}

func asgKey(region, name string) string { return region + "/" + name }

// createASG makes the Auto Scaling group of a new node group.
func (w *world) createASG(key string, r *ngRecord, now time.Time) {
	res := r.Nodegroup.Resources
	if res == nil || len(res.AutoScalingGroups) == 0 {
		return
	}
	name := res.AutoScalingGroups[0].Name
	w.ASGs[asgKey(r.Region, name)] = &asgRecord{Region: r.Region, Group: ScalingGroup{Name: name, Nodegroup: key, Created: now.UTC(),
		Tags: eksASGTags(r.Nodegroup.ClusterName, r.Nodegroup.NodegroupName)}}
}

// asgOf is a node group's Auto Scaling group.
func (w *world) asgOf(r *ngRecord) *asgRecord {
	if res := r.Nodegroup.Resources; res != nil && len(res.AutoScalingGroups) > 0 {
		return w.ASGs[asgKey(r.Region, res.AutoScalingGroups[0].Name)]
	}
	return nil
}

// launchTags are the tags an instance of the node group and its volume get at launch, and the
// launch template version it launches from.
func (w *world) launchTags(r *ngRecord) (instance, volume map[string]string, template, version string) {
	instance, volume = map[string]string{}, map[string]string{}
	if g := w.asgOf(r); g != nil {
		for _, t := range g.Group.Tags {
			if t.PropagateAtLaunch {
				instance[t.Key] = t.Value
			}
		}
	}
	if spec := r.Nodegroup.LaunchTemplate; spec != nil {
		if lt := w.launchTemplate(r.Region, spec.ID, spec.Name); lt != nil {
			if v := lt.LaunchTemplate.version(spec.Version); v != nil {
				maps.Copy(instance, templateTags(v.Data, "instance"))
				maps.Copy(volume, templateTags(v.Data, "volume"))
				template, version = lt.LaunchTemplate.ID, strconv.FormatInt(v.VersionNumber, 10)
			}
		}
	}
	return instance, volume, template, version
}

// templateTags are a launch template version's tag specifications for one resource type.
func templateTags(data map[string]any, resourceType string) map[string]string {
	out := map[string]string{}
	for _, item := range treeList(data, "TagSpecification") {
		spec, _ := item.(map[string]any)
		if treeString(spec, "ResourceType") != resourceType {
			continue
		}
		for _, t := range treeList(spec, "Tag") {
			tm, _ := t.(map[string]any)
			out[treeString(tm, "Key")] = treeString(tm, "Value")
		}
	}
	return out
}

// userTagCount counts the tags that count against a resource's 50: those not starting with aws:.
func userTagCount(tags map[string]string) int {
	n := 0
	for k := range tags {
		if !strings.HasPrefix(strings.ToLower(k), "aws:") {
			n++
		}
	}
	return n
}

// tagLimitIssues are the health issues of a node group whose instances would carry too many tags;
// nil when they fit.
func (w *world) tagLimitIssues(r *ngRecord) []HealthIssue {
	instance, volume, _, _ := w.launchTags(r)
	for _, tags := range []map[string]string{instance, volume} {
		if n := userTagCount(tags); n > maxResourceTags {
			return issuesOrDefault([]HealthIssue{{Code: "AsgInstanceLaunchFailures", Message: fmt.Sprintf(
				"Could not launch On-Demand Instances. TagLimitExceeded - The instance would carry %d tags (the launch template's and the Auto Scaling group's); at most %d are allowed. Launching EC2 instance failed.", n, maxResourceTags)}},
				HealthIssue{}, r.Nodegroup.Resources)
		}
	}
	return nil
}

// reconcileFleets makes each node group's instances what it runs: none before it is ACTIVE or
// after it failed or went, its desired size of the current roll while it is ACTIVE or DEGRADED.
// An UPDATING node group keeps its instances until the update ends.
func (w *world) reconcileFleets(now time.Time) {
	for _, key := range sortedKeys(w.ASGs) {
		g := w.ASGs[key]
		if r := w.Nodegroups[g.Group.Nodegroup]; r == nil {
			w.terminate(g.Region, func(*instRecord) bool { return true }, g.Group.Name)
			delete(w.ASGs, key)
		}
	}
	for _, key := range sortedKeys(w.Nodegroups) {
		r := w.Nodegroups[key]
		g := w.asgOf(r)
		if g == nil {
			continue
		}
		switch r.Nodegroup.Status {
		case ngActive, ngDegraded:
		case ngCreateFailed:
			w.terminate(r.Region, func(*instRecord) bool { return true }, g.Group.Name)
			continue
		default:
			continue
		}
		w.terminate(r.Region, func(i *instRecord) bool { return i.Instance.Generation != r.Generation }, g.Group.Name)
		running := w.instancesOf(r.Region, g.Group.Name)
		desired := 0
		if sc := r.Nodegroup.ScalingConfig; sc != nil && sc.DesiredSize != nil {
			desired = int(*sc.DesiredSize)
		}
		for n := len(running); n > desired; n-- {
			last := running[n-1]
			delete(w.Instances, last.Region+"/"+last.Instance.ID)
		}
		for n := len(running); n < desired; n++ {
			w.launch(r, g, now)
		}
	}
}

// launch starts one instance of a node group, in its Auto Scaling group.
func (w *world) launch(r *ngRecord, g *asgRecord, now time.Time) {
	instance, volume, template, version := w.launchTags(r)
	n := len(w.instancesOf(r.Region, g.Group.Name))
	it := firstNonEmpty(r.InstanceTypes...)
	zone := ""
	if len(r.Zones) > 0 {
		zone = r.Zones[n%len(r.Zones)]
	}
	id := "i-" + randomHex(17)
	// Tags EC2 Auto Scaling and EC2 add themselves; aws: tags count against no limit.
	instance["aws:autoscaling:groupName"] = g.Group.Name
	if template != "" {
		instance["aws:ec2launchtemplate:id"], instance["aws:ec2launchtemplate:version"] = template, version
	}
	w.Instances[r.Region+"/"+id] = &instRecord{Region: r.Region, Instance: Instance{ID: id, ASG: g.Group.Name, InstanceType: it, Zone: zone,
		LaunchTime: now.UTC().Truncate(time.Millisecond), LaunchTemplate: template, TemplateVersion: version, Generation: r.Generation,
		Tags: instance, Volume: Volume{ID: "vol-" + randomHex(17), Tags: volume}}}
}

// instancesOf are the instances of an Auto Scaling group, oldest first.
func (w *world) instancesOf(region, asg string) []*instRecord {
	var out []*instRecord
	for _, key := range sortedKeys(w.Instances) {
		if i := w.Instances[key]; i.Region == region && i.Instance.ASG == asg {
			out = append(out, i)
		}
	}
	for a := 1; a < len(out); a++ {
		for b := a; b > 0 && out[b].Instance.LaunchTime.Before(out[b-1].Instance.LaunchTime); b-- {
			out[b], out[b-1] = out[b-1], out[b]
		}
	}
	return out
}

// terminate removes the instances of an Auto Scaling group that match, with their volumes.
func (w *world) terminate(region string, match func(*instRecord) bool, asg string) {
	for _, i := range w.instancesOf(region, asg) {
		if match(i) {
			delete(w.Instances, region+"/"+i.Instance.ID)
		}
	}
}

// instanceByID and volumeByID find an instance by its id or by its volume's id.
func (w *world) instanceByID(region, id string) *instRecord { return w.Instances[region+"/"+id] }

func (w *world) instanceOfVolume(region, volumeID string) *instRecord {
	for _, key := range sortedKeys(w.Instances) {
		if i := w.Instances[key]; i.Region == region && i.Instance.Volume.ID == volumeID {
			return i
		}
	}
	return nil
}

// Instances returns copies of the instances of a node group, oldest first.
func (s *Sim) Instances(region, cluster, nodegroup string) []Instance {
	out := []Instance{}
	s.view(func(w *world) {
		r := w.Nodegroups[ngKey(region, cluster, nodegroup)]
		if r == nil {
			return
		}
		if g := w.asgOf(r); g != nil {
			for _, i := range w.instancesOf(region, g.Group.Name) {
				var c Instance
				mustRoundTrip(i.Instance, &c)
				out = append(out, c)
			}
		}
	})
	return out
}

// AutoScalingGroupOf returns a copy of a node group's Auto Scaling group.
func (s *Sim) AutoScalingGroupOf(region, cluster, nodegroup string) (ScalingGroup, bool) {
	var out ScalingGroup
	var ok bool
	s.view(func(w *world) {
		if r := w.Nodegroups[ngKey(region, cluster, nodegroup)]; r != nil {
			if g := w.asgOf(r); g != nil {
				mustRoundTrip(g.Group, &out)
				ok = true
			}
		}
	})
	return out, ok
}
