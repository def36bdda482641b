package cloudsim

import (
	"maps"
	"strings"
)

// maxResourceTags is how many tags an EC2 resource takes (EC2 User Guide: "Tag restrictions").
const maxResourceTags = 50

// EC2 API Reference: CreateTags — adds or overwrites tags on resources. Launch templates (lt-…) are
// the only taggable resources cloudsim stores. Every resource must exist and stay within 50 tags,
// or nothing changes.
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
	for _, lt := range targets {
		merged := maps.Clone(lt.Tags)
		if merged == nil {
			merged = map[string]string{}
		}
		maps.Copy(merged, add)
		if len(merged) > maxResourceTags {
			return nil, ec2Err(400, "TagLimitExceeded", "The maximum number of Tags for a resource has been reached.")
		}
	}
	for _, lt := range targets {
		if lt.Tags == nil {
			lt.Tags = map[string]string{}
		}
		maps.Copy(lt.Tags, add)
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
	for _, lt := range targets {
		if len(tags) == 0 {
			lt.Tags = nil
			continue
		}
		for _, t := range tags {
			tm, _ := t.(map[string]any)
			key := treeString(tm, "Key")
			if v, ok := tm["Value"]; ok && v != lt.Tags[key] {
				continue
			}
			delete(lt.Tags, key)
		}
		if len(lt.Tags) == 0 {
			lt.Tags = nil
		}
	}
	return tagsResponse("DeleteTags"), nil
}

// tagTargets resolves ResourceId.N: InvalidLaunchTemplateId.NotFound for a launch template that
// does not exist, InvalidID for an id of a kind cloudsim does not store.
func (s *Sim) tagTargets(c *call) ([]*LaunchTemplate, *apiError) {
	ids := treeStrings(c.form, "ResourceId")
	if len(ids) == 0 {
		return nil, ec2Missing("ResourceId")
	}
	var out []*LaunchTemplate
	for _, id := range ids {
		if !ltIDRE.MatchString(id) {
			return nil, ec2Err(400, "InvalidID", "The ID '%s' is not valid", id)
		}
		r := s.w.launchTemplate(c.region, id, "")
		if r == nil {
			return nil, ec2Err(400, "InvalidLaunchTemplateId.NotFound", "The specified launch template, with template ID %s, does not exist.", id)
		}
		out = append(out, &r.LaunchTemplate)
	}
	return out, nil
}

func tagsResponse(action string) []byte {
	return ec2Envelope(action, func(b *xmlBuilder) { b.leaf("return", "true") })
}
