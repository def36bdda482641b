package eks

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// A tag change never rolls the nodes. The pool's tags reach its instances through three carriers:
//
//   - the launch template's tag specifications, for the instances and volumes a node group launches
//     (EKS copies the template when it creates or rolls the node group; a new template version
//     reaches instances only through UpdateNodegroupVersion, which replaces every node: EKS User
//     Guide, launch-templates, "all nodes in the group are recycled");
//   - the node group's Auto Scaling group, whose tags with PropagateAtLaunch reach every instance it
//     launches from then on, but no volume (EC2 Auto Scaling User Guide, "Tag Auto Scaling groups and
//     instances": "Tags are not propagated to Amazon EBS volumes"). Tagging a managed node group's
//     group directly is what aws/containers-roadmap#608 and its workarounds do, and
//     terraform-aws-modules/terraform-aws-eks does for the cluster autoscaler's tags;
//   - ec2:CreateTags and ec2:DeleteTags on the running instances and their volumes.
//
// On a tag change gpufleet writes the Auto Scaling group (propagate-at-launch) first, so that every
// instance launched from then on gets the new tags, then lists the group's instances and retags
// them and their volumes, then the node group itself, whose tags record the pool's (a change that
// failed half-way is planned again). The launch template keeps its tags until a roll happens
// anyway (a new Kubernetes version or AMI release), which then gets a template version with the
// pool's tags.
//
// Two things are not documented, and gpufleet takes the safe side of each: which value an instance
// gets when the template and the group name the same key, and the volumes of instances launched
// after a tag change, which only the template tags. Refresh therefore reads the group, its instances
// and their volumes (autoscaling:DescribeAutoScalingGroups, ec2:DescribeInstances,
// ec2:DescribeVolumes), and a node group any of them disagrees with is not in sync: the next plan
// shows an update, and the apply retags what is stale, without a roll.

// fleet is a node group's Auto Scaling group and its instances and their volumes, as EC2 holds them.
type fleet struct {
	group     *astypes.AutoScalingGroup
	instances []ec2types.Instance
	volumes   map[string]ec2types.Volume // by volume id
}

// asgName is a node group's Auto Scaling group, "" before EKS has made it.
func asgName(ng *types.Nodegroup) string {
	if r := ng.Resources; r != nil && len(r.AutoScalingGroups) > 0 {
		return aws.ToString(r.AutoScalingGroups[0].Name)
	}
	return ""
}

// readFleets reads the fleets of node groups, by node group name: one call per kind of object for all
// of them. A node group whose group EKS has not made (yet) has none.
func readFleets(ctx context.Context, c *clients, ngs []*types.Nodegroup) (map[string]*fleet, error) {
	byGroup := map[string]string{} // Auto Scaling group → node group
	for _, ng := range ngs {
		if name := asgName(ng); name != "" {
			byGroup[name] = aws.ToString(ng.NodegroupName)
		}
	}
	out := map[string]*fleet{}
	if len(byGroup) == 0 {
		return out, nil
	}
	groups := slices.Sorted(maps.Keys(byGroup))
	p := autoscaling.NewDescribeAutoScalingGroupsPaginator(c.autoscaling, &autoscaling.DescribeAutoScalingGroupsInput{AutoScalingGroupNames: groups})
	var instanceIDs []string
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading the node groups' Auto Scaling groups %s (autoscaling:DescribeAutoScalingGroups): %w", strings.Join(groups, ", "), err)
		}
		for i := range page.AutoScalingGroups {
			g := &page.AutoScalingGroups[i]
			out[byGroup[aws.ToString(g.AutoScalingGroupName)]] = &fleet{group: g, volumes: map[string]ec2types.Volume{}}
			for _, inst := range g.Instances {
				instanceIDs = append(instanceIDs, aws.ToString(inst.InstanceId))
			}
		}
	}
	if len(instanceIDs) == 0 {
		return out, nil
	}
	// By filter, not by id: an instance the group has just let go is left out, not an error.
	var volumeIDs []string
	for _, ids := range slices.Collect(slices.Chunk(instanceIDs, maxFilterValues)) {
		ip := ec2.NewDescribeInstancesPaginator(c.ec2, &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{
			{Name: aws.String("instance-id"), Values: ids},
			{Name: aws.String("instance-state-name"), Values: []string{"pending", "running", "stopping", "stopped"}},
		}})
		for ip.HasMorePages() {
			page, err := ip.NextPage(ctx)
			if err != nil {
				return nil, fmt.Errorf("reading the node groups' instances (ec2:DescribeInstances): %w", err)
			}
			for _, r := range page.Reservations {
				for _, inst := range r.Instances {
					f := fleetOfInstance(out, inst)
					if f == nil {
						continue
					}
					f.instances = append(f.instances, inst)
					for _, bdm := range inst.BlockDeviceMappings {
						if bdm.Ebs != nil && bdm.Ebs.VolumeId != nil {
							volumeIDs = append(volumeIDs, aws.ToString(bdm.Ebs.VolumeId))
						}
					}
				}
			}
		}
	}
	for _, ids := range slices.Collect(slices.Chunk(volumeIDs, maxFilterValues)) {
		vp := ec2.NewDescribeVolumesPaginator(c.ec2, &ec2.DescribeVolumesInput{Filters: []ec2types.Filter{{Name: aws.String("volume-id"), Values: ids}}})
		for vp.HasMorePages() {
			page, err := vp.NextPage(ctx)
			if err != nil {
				return nil, fmt.Errorf("reading the node groups' volumes (ec2:DescribeVolumes): %w", err)
			}
			for _, v := range page.Volumes {
				for _, a := range v.Attachments {
					if f := fleetOfInstanceID(out, aws.ToString(a.InstanceId)); f != nil {
						f.volumes[aws.ToString(v.VolumeId)] = v
					}
				}
			}
		}
	}
	return out, nil
}

// maxFilterValues is how many values gpufleet puts in one EC2 filter (EC2 API Reference: "You can
// specify up to 200 values per filter").
const maxFilterValues = 200

func fleetOfInstance(fleets map[string]*fleet, inst ec2types.Instance) *fleet {
	return fleetOfInstanceID(fleets, aws.ToString(inst.InstanceId))
}

func fleetOfInstanceID(fleets map[string]*fleet, id string) *fleet {
	for _, f := range fleets {
		if slices.ContainsFunc(f.group.Instances, func(i astypes.Instance) bool { return aws.ToString(i.InstanceId) == id }) {
			return f
		}
	}
	return nil
}

// readFleet reads one node group's fleet; nil when it has no Auto Scaling group yet.
func readFleet(ctx context.Context, c *clients, ng *types.Nodegroup) (*fleet, error) {
	fleets, err := readFleets(ctx, c, []*types.Nodegroup{ng})
	if err != nil {
		return nil, err
	}
	return fleets[aws.ToString(ng.NodegroupName)], nil
}

// templateInstanceTags are the instance tags of a launch template version.
func templateInstanceTags(v *ec2types.LaunchTemplateVersion) map[string]string {
	if v == nil || v.LaunchTemplateData == nil {
		return nil
	}
	for _, ts := range v.LaunchTemplateData.TagSpecifications {
		if ts.ResourceType == ec2types.ResourceTypeInstance {
			return tagMap(ts.Tags)
		}
	}
	return nil
}

// eksGroupTag reports the tags EKS puts on a node group's Auto Scaling group itself (eks:*,
// kubernetes.io/cluster/*, the cluster autoscaler's auto-discovery tags): gpufleet never removes them.
func eksGroupTag(key string) bool {
	return strings.HasPrefix(key, "eks:") || strings.HasPrefix(key, "kubernetes.io/cluster/") || strings.HasPrefix(key, autoscalerPrefix)
}

// managedTags are the keys whose values gpufleet keeps in step on the fleet: the pool's tags as the
// side is to carry them (want), as its node group records them, and as its launch template version
// gives them; less those EKS owns.
func managedTags(ng *types.Nodegroup, v *ec2types.LaunchTemplateVersion, want map[string]string) []string {
	keys := map[string]bool{}
	for _, m := range []map[string]string{want, effectiveTagsOf(ng.Tags), templateInstanceTags(v)} {
		for k := range m {
			if !eksGroupTag(k) {
				keys[k] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(keys))
}

// drift is what is stale on a fleet: each resource id with the tags to write and the keys to remove.
type drift struct {
	groupPut    map[string]string
	groupDelete []string
	put         []string // instances and volumes missing a wanted tag or value
	remove      []string // instances and volumes with a managed key the pool no longer has
	removeKeys  []string
}

func (d drift) none() bool {
	return len(d.groupPut) == 0 && len(d.groupDelete) == 0 && len(d.put) == 0 && len(d.remove) == 0
}

// driftOf compares a fleet with want, on the managed keys. The group is in step when it propagates
// each of them as want has it, or carries none of them while the template gives want (a node group
// as created: its template tags what it launches).
func driftOf(f *fleet, managed []string, want, template map[string]string) drift {
	var d drift
	if f == nil {
		return d
	}
	group := map[string]astypes.TagDescription{}
	for _, t := range f.group.Tags {
		group[aws.ToString(t.Key)] = t
	}
	carries := slices.ContainsFunc(managed, func(k string) bool { _, ok := group[k]; return ok })
	if carries || !maps.Equal(template, want) {
		d.groupPut = map[string]string{}
		for k, v := range want {
			if t, ok := group[k]; !ok || aws.ToString(t.Value) != v || !aws.ToBool(t.PropagateAtLaunch) {
				d.groupPut[k] = v
			}
		}
		for _, k := range managed {
			if _, keep := want[k]; !keep {
				if _, ok := group[k]; ok {
					d.groupDelete = append(d.groupDelete, k)
				}
			}
		}
	}
	stale := map[string]bool{}
	check := func(id string, tags map[string]string) {
		for _, k := range managed {
			v, has := tags[k]
			w, wanted := want[k]
			switch {
			case wanted && (!has || v != w):
				d.put = append(d.put, id)
			case !wanted && has:
				d.remove, stale[k] = append(d.remove, id), true
			default:
				continue
			}
		}
	}
	for _, inst := range f.instances {
		check(aws.ToString(inst.InstanceId), tagMap(inst.Tags))
	}
	for _, id := range slices.Sorted(maps.Keys(f.volumes)) {
		check(id, tagMap(f.volumes[id].Tags))
	}
	d.put, d.remove, d.removeKeys = uniq(d.put), uniq(d.remove), slices.Sorted(maps.Keys(stale))
	return d
}

func uniq(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// syncGroupTags gives the Auto Scaling group the pool's tags, propagated to the instances it launches
// from now on, and removes the managed ones the pool no longer has.
func syncGroupTags(ctx context.Context, c *clients, f *fleet, d drift) error {
	name := aws.ToString(f.group.AutoScalingGroupName)
	if len(d.groupDelete) > 0 {
		var tags []astypes.Tag
		for _, k := range d.groupDelete {
			tags = append(tags, astypes.Tag{ResourceId: aws.String(name), ResourceType: aws.String("auto-scaling-group"), Key: aws.String(k)})
		}
		if _, err := c.autoscaling.DeleteTags(ctx, &autoscaling.DeleteTagsInput{Tags: tags}); err != nil {
			return fmt.Errorf("removing tags from Auto Scaling group %s (autoscaling:DeleteTags): %w", name, err)
		}
	}
	if len(d.groupPut) > 0 {
		var tags []astypes.Tag
		for _, k := range slices.Sorted(maps.Keys(d.groupPut)) {
			tags = append(tags, astypes.Tag{ResourceId: aws.String(name), ResourceType: aws.String("auto-scaling-group"), Key: aws.String(k),
				Value: aws.String(d.groupPut[k]), PropagateAtLaunch: aws.Bool(true)})
		}
		if _, err := c.autoscaling.CreateOrUpdateTags(ctx, &autoscaling.CreateOrUpdateTagsInput{Tags: tags}); err != nil {
			return fmt.Errorf("tagging Auto Scaling group %s (autoscaling:CreateOrUpdateTags): %w", name, err)
		}
	}
	return nil
}

// maxTagResources is how many resources gpufleet tags in one ec2:CreateTags or DeleteTags call.
const maxTagResources = 200

// syncResourceTags retags the running instances and volumes that are stale: the pool's tags on
// those missing any, its removed keys off those that still carry them.
func syncResourceTags(ctx context.Context, c *clients, d drift, want map[string]string) error {
	for _, ids := range slices.Collect(slices.Chunk(d.remove, maxTagResources)) {
		var tags []ec2types.Tag
		for _, k := range d.removeKeys {
			tags = append(tags, ec2types.Tag{Key: aws.String(k)})
		}
		if _, err := c.ec2.DeleteTags(ctx, &ec2.DeleteTagsInput{Resources: ids, Tags: tags}); err != nil {
			return fmt.Errorf("removing tags from instances and volumes %s (ec2:DeleteTags): %w", strings.Join(ids, ", "), err)
		}
	}
	for _, ids := range slices.Collect(slices.Chunk(d.put, maxTagResources)) {
		if _, err := c.ec2.CreateTags(ctx, &ec2.CreateTagsInput{Resources: ids, Tags: ec2Tags(want)}); err != nil {
			return fmt.Errorf("tagging instances and volumes %s (ec2:CreateTags): %w", strings.Join(ids, ", "), err)
		}
	}
	return nil
}

// fleetInSync reports whether a node group's fleet carries the side's tags: its group, its running
// instances and their volumes, on the managed keys.
func fleetInSync(ng *types.Nodegroup, v *ec2types.LaunchTemplateVersion, f *fleet, want map[string]string) bool {
	return driftOf(f, managedTags(ng, v, want), want, templateInstanceTags(v)).none()
}
