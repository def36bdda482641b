package cloudsim

import (
	"regexp"
	"strings"
)

// The EC2 views of node group instances (eks_fleet.go): DescribeInstances and DescribeVolumes (EC2
// API Reference for each action). Instances are running until their node group lets them go, when
// they are gone (cloudsim keeps no terminated instances).

var (
	instanceIDRE = regexp.MustCompile(`^i-[0-9a-f]{8,17}$`)
	volumeIDRE   = regexp.MustCompile(`^vol-[0-9a-f]{8,17}$`)
)

// EC2 API Reference: DescribeInstances — by InstanceId.N (InvalidInstanceID.NotFound for an unknown
// one, InvalidInstanceID.Malformed for a malformed one) and filters instance-id,
// instance-state-name, instance-type, availability-zone, tag:<key> and tag-key; MaxResults 5-1000.
// One reservation per instance.
func (s *Sim) ec2DescribeInstances(c *call) ([]byte, *apiError) {
	selected, aerr := s.selectInstances(c, "InstanceId", instanceIDRE, s.w.instanceByID,
		func(id string) *apiError { return ec2Err(400, "InvalidInstanceID.Malformed", "Invalid id: \"%s\"", id) },
		func(id string) *apiError {
			return ec2Err(400, "InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", id)
		})
	if aerr != nil {
		return nil, aerr
	}
	filters := parseFilters(c.form)
	var matched []*instRecord
	for _, i := range selected {
		ok, aerr := matchFilters(filters, func(name string) ([]string, bool) { return instanceFilterValues(&i.Instance, name) })
		if aerr != nil {
			return nil, aerr
		}
		if ok {
			matched = append(matched, i)
		}
	}
	start, end, next, aerr := ec2Page(c.form, len(matched), 5, 1000)
	if aerr != nil {
		return nil, aerr
	}
	return ec2Envelope("DescribeInstances", func(b *xmlBuilder) {
		b.open("reservationSet")
		for _, i := range matched[start:end] {
			writeInstance(b, &i.Instance)
		}
		b.close("reservationSet")
		b.leafIf("nextToken", next)
	}), nil
}

// selectInstances are the instances the request names by ids (member idParam, each found by find),
// else every instance of the region.
func (s *Sim) selectInstances(c *call, idParam string, valid *regexp.Regexp, find func(region, id string) *instRecord,
	malformed, notFound func(id string) *apiError) ([]*instRecord, *apiError) {
	var selected []*instRecord
	ids := treeStrings(c.form, idParam)
	for _, id := range ids {
		if !valid.MatchString(id) {
			return nil, malformed(id)
		}
		i := find(c.region, id)
		if i == nil {
			return nil, notFound(id)
		}
		selected = append(selected, i)
	}
	if len(ids) == 0 {
		for _, key := range sortedKeys(s.w.Instances) {
			if i := s.w.Instances[key]; i.Region == c.region {
				selected = append(selected, i)
			}
		}
	}
	return selected, nil
}

func instanceFilterValues(i *Instance, name string) ([]string, bool) {
	switch name {
	case "instance-id":
		return []string{i.ID}, true
	case "instance-state-name":
		return []string{"running"}, true
	case "instance-type":
		return []string{i.InstanceType}, true
	case "availability-zone":
		return []string{i.Zone}, true
	}
	return tagFilterValues(i.Tags, name)
}

// tagFilterValues serves the tag:<key> and tag-key filters.
func tagFilterValues(tags map[string]string, name string) ([]string, bool) {
	switch {
	case name == "tag-key":
		return sortedKeys(tags), true
	case strings.HasPrefix(name, "tag:"):
		if v, ok := tags[strings.TrimPrefix(name, "tag:")]; ok {
			return []string{v}, true
		}
		return nil, true
	}
	return nil, false
}

func writeInstance(b *xmlBuilder, i *Instance) {
	b.open("item")
	b.leaf("reservationId", "r-"+strings.TrimPrefix(i.ID, "i-"))
	b.leaf("ownerId", AccountID)
	b.open("instancesSet")
	b.open("item")
	b.leaf("instanceId", i.ID)
	b.open("instanceState")
	b.leaf("code", "16")
	b.leaf("name", "running")
	b.close("instanceState")
	b.leaf("instanceType", i.InstanceType)
	b.leaf("launchTime", ec2Time(i.LaunchTime))
	b.open("placement")
	b.leaf("availabilityZone", i.Zone)
	b.leaf("tenancy", "default")
	b.close("placement")
	b.leaf("rootDeviceName", "/dev/xvda")
	b.leaf("rootDeviceType", "ebs")
	b.open("blockDeviceMapping")
	b.open("item")
	b.leaf("deviceName", "/dev/xvda")
	b.open("ebs")
	b.leaf("volumeId", i.Volume.ID)
	b.leaf("status", "attached")
	b.leaf("attachTime", ec2Time(i.LaunchTime))
	b.leaf("deleteOnTermination", "true")
	b.close("ebs")
	b.close("item")
	b.close("blockDeviceMapping")
	b.tagSet(i.Tags)
	b.close("item")
	b.close("instancesSet")
	b.close("item")
}

// EC2 API Reference: DescribeVolumes — by VolumeId.N (InvalidVolume.NotFound for an unknown one) and
// filters volume-id, attachment.instance-id, tag:<key> and tag-key; MaxResults 5-500.
func (s *Sim) ec2DescribeVolumes(c *call) ([]byte, *apiError) {
	selected, aerr := s.selectInstances(c, "VolumeId", volumeIDRE, s.w.instanceOfVolume,
		func(id string) *apiError { return ec2Invalid("Invalid id: \"%s\" (expecting \"vol-...\")", id) },
		func(id string) *apiError {
			return ec2Err(400, "InvalidVolume.NotFound", "The volume '%s' does not exist.", id)
		})
	if aerr != nil {
		return nil, aerr
	}
	filters := parseFilters(c.form)
	var matched []*Instance
	for _, i := range selected {
		inst := &i.Instance
		ok, aerr := matchFilters(filters, func(name string) ([]string, bool) {
			switch name {
			case "volume-id":
				return []string{inst.Volume.ID}, true
			case "attachment.instance-id":
				return []string{inst.ID}, true
			}
			return tagFilterValues(inst.Volume.Tags, name)
		})
		if aerr != nil {
			return nil, aerr
		}
		if ok {
			matched = append(matched, inst)
		}
	}
	start, end, next, aerr := ec2Page(c.form, len(matched), 5, 500)
	if aerr != nil {
		return nil, aerr
	}
	return ec2Envelope("DescribeVolumes", func(b *xmlBuilder) {
		b.open("volumeSet")
		for _, i := range matched[start:end] {
			b.open("item")
			b.leaf("volumeId", i.Volume.ID)
			b.leaf("size", "100")
			b.leaf("availabilityZone", i.Zone)
			b.leaf("status", "in-use")
			b.leaf("createTime", ec2Time(i.LaunchTime))
			b.open("attachmentSet")
			b.open("item")
			b.leaf("volumeId", i.Volume.ID)
			b.leaf("instanceId", i.ID)
			b.leaf("device", "/dev/xvda")
			b.leaf("status", "attached")
			b.leaf("attachTime", ec2Time(i.LaunchTime))
			b.leaf("deleteOnTermination", "true")
			b.close("item")
			b.close("attachmentSet")
			b.leaf("volumeType", "gp3")
			b.leaf("encrypted", "false")
			b.tagSet(i.Volume.Tags)
			b.close("item")
		}
		b.close("volumeSet")
		b.leafIf("nextToken", next)
	}), nil
}
