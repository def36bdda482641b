package cloudsim

import (
	"maps"
	"strings"
)

// maxResourceTags is how many tags an EC2 resource takes (EC2 User Guide: "Tag restrictions").
const maxResourceTags = 50

// EC2 API Reference: CreateTags — adds or overwrites tags on resources: launch templates (lt-…), and
// node group instances (i-…) and their volumes (vol-…), the taggable resources cloudsim stores. Every
// resource must exist and stay within 50 tags (aws: ones not counted), or nothing changes.
func (s *Sim) ec2CreateTags(c *call) ([]byte, *apiError) {
	targets, aerr := s.tagTargets(c)
	if aerr != nil {
		return nil, aerr
	}
	add := map[string]string{}
	for _, t := range treeList(c.form, "Tag") {
		tm, _ := t.(map[string]any)
		key := treeString(tm, "Key")
		if key == "" {
			return nil, ec2Missing("Tag.Key")
		}
		if strings.HasPrefix(strings.ToLower(key), "aws:") {
			return nil, ec2Invalid("Tag keys starting with 'aws:' are reserved for internal use")
		}
		add[key] = treeString(tm, "Value")
	}
	if len(add) == 0 {
		return nil, ec2Missing("Tag")
	}
	for _, tags := range targets {
		merged := maps.Clone(*tags)
		if merged == nil {
			merged = map[string]string{}
		}
		maps.Copy(merged, add)
		if userTagCount(merged) > maxResourceTags {
			return nil, ec2Err(400, "TagLimitExceeded", "The maximum number of Tags for a resource has been reached.")
		}
	}
	for _, tags := range targets {
		if *tags == nil {
			*tags = map[string]string{}
		}
		maps.Copy(*tags, add)
	}
	return tagsResponse("CreateTags"), nil
}

// EC2 API Reference: DeleteTags — a tag given with a value (even "") is deleted only when it has
// that value, one given without a value whatever its value; no tags at all deletes every tag.
func (s *Sim) ec2DeleteTags(c *call) ([]byte, *apiError) {
	targets, aerr := s.tagTargets(c)
	if aerr != nil {
		return nil, aerr
	}
	tags := treeList(c.form, "Tag")
	for _, target := range targets {
		if len(tags) == 0 {
			*target = nil
			continue
		}
		for _, t := range tags {
			tm, _ := t.(map[string]any)
			key := treeString(tm, "Key")
			if v, ok := tm["Value"]; ok && v != (*target)[key] {
				continue
			}
			delete(*target, key)
		}
		if len(*target) == 0 {
			*target = nil
		}
	}
	return tagsResponse("DeleteTags"), nil
}

// tagTargets resolves ResourceId.N to the tags of each resource: InvalidLaunchTemplateId.NotFound,
// InvalidInstanceID.NotFound or InvalidVolume.NotFound for one that does not exist, InvalidID for an
// id of a kind cloudsim does not store.
func (s *Sim) tagTargets(c *call) ([]*map[string]string, *apiError) {
	ids := treeStrings(c.form, "ResourceId")
	if len(ids) == 0 {
		return nil, ec2Missing("ResourceId")
	}
	var out []*map[string]string
	for _, id := range ids {
		switch {
		case ltIDRE.MatchString(id):
			r := s.w.launchTemplate(c.region, id, "")
			if r == nil {
				return nil, ec2Err(400, "InvalidLaunchTemplateId.NotFound", "The specified launch template, with template ID %s, does not exist.", id)
			}
			out = append(out, &r.LaunchTemplate.Tags)
		case instanceIDRE.MatchString(id):
			i := s.w.instanceByID(c.region, id)
			if i == nil {
				return nil, ec2Err(400, "InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", id)
			}
			out = append(out, &i.Instance.Tags)
		case volumeIDRE.MatchString(id):
			i := s.w.instanceOfVolume(c.region, id)
			if i == nil {
				return nil, ec2Err(400, "InvalidVolume.NotFound", "The volume '%s' does not exist.", id)
			}
			out = append(out, &i.Instance.Volume.Tags)
		default:
			return nil, ec2Err(400, "InvalidID", "The ID '%s' is not valid", id)
		}
	}
	return out, nil
}

func tagsResponse(action string) []byte {
	return ec2Envelope(action, func(b *xmlBuilder) { b.leaf("return", "true") })
}
