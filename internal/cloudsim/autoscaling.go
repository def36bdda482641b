package cloudsim

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The EC2 Auto Scaling service, for the Auto Scaling groups of EKS node groups (eks_fleet.go). It
// speaks the awsQuery protocol (smithy aws.protocols#awsQuery; Amazon EC2 Auto Scaling API Reference,
// "Making API requests"): form-encoded Action=...&Version=2011-01-01 with lists as
// "Member.member.N", responses in the 2011-01-01 namespace wrapped in <ActionResult> with
// <ResponseMetadata>, errors as <ErrorResponse><Error><Type>Sender</Type><Code>...</Code>. The
// operations are those a client tags a group with: DescribeAutoScalingGroups, CreateOrUpdateTags,
// DeleteTags and DescribeTags. Any other action answers 400 InvalidAction.

const autoscalingNamespace = "http://autoscaling.amazonaws.com/doc/2011-01-01/"

var autoscalingOps = map[string]ec2Op{
	"DescribeAutoScalingGroups": {false, (*Sim).asDescribeAutoScalingGroups},
	"CreateOrUpdateTags":        {true, (*Sim).asCreateOrUpdateTags},
	"DeleteTags":                {true, (*Sim).asDeleteTags},
	"DescribeTags":              {false, (*Sim).asDescribeTags},
}

func (s *Sim) serveAutoScaling(w http.ResponseWriter, r *http.Request) {
	region := regionFromAuth(r.Header.Get("Authorization"))
	if err := r.ParseForm(); err != nil {
		writeAutoScaling(w, nil, &apiError{status: 400, code: "MalformedQueryString", message: err.Error()})
		return
	}
	action := r.Form.Get("Action")
	tree := parseQueryTree(r.Form)
	op, ok := autoscalingOps[action]
	if !ok {
		aerr := &apiError{status: 400, code: "InvalidAction", message: fmt.Sprintf("The action %s is not valid for this web service.", action)}
		s.log.add(Request{Service: "autoscaling", Operation: firstNonEmpty(action, "UnknownOperation"), Region: region, Params: tree, Time: time.Now(), Error: aerr.code})
		writeAutoScaling(w, nil, aerr)
		return
	}
	c := &call{service: "autoscaling", op: action, region: region, form: tree, accessKey: accessKeyFromAuth(r.Header.Get("Authorization"))}
	out, aerr := s.invokeAWS(r.Context(), c, autoscalingResource(tree), tree, op.mutating, op.h)
	writeAutoScaling(w, out, aerr)
}

// autoscalingResource is the name a fault's Match is tested against: the group the call names.
func autoscalingResource(tree map[string]any) string {
	for _, k := range []string{"AutoScalingGroupNames.member.1", "Tags.member.1.ResourceId"} {
		if v := treeString(tree, k); v != "" {
			return v
		}
	}
	return ""
}

// queryErrorXML is the error body of the awsQuery services (STS, EC2 Auto Scaling): an
// ErrorResponse in the service's namespace, a Sender error with its code and message.
func queryErrorXML(namespace string, aerr *apiError) []byte {
	var b xmlBuilder
	b.WriteString(`<ErrorResponse xmlns="` + namespace + `">`)
	b.open("Error")
	b.leaf("Type", "Sender")
	b.leaf("Code", aerr.code)
	b.leaf("Message", aerr.message)
	b.close("Error")
	b.leaf("RequestId", newUUID())
	b.WriteString("</ErrorResponse>")
	return []byte(b.String())
}

func writeAutoScaling(w http.ResponseWriter, out []byte, aerr *apiError) {
	w.Header().Set("Content-Type", "text/xml")
	if aerr != nil {
		w.WriteHeader(aerr.status)
		_, _ = w.Write(queryErrorXML(autoscalingNamespace, aerr))
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// asEnvelope wraps a response: <ActionResponse><ActionResult>...</ActionResult><ResponseMetadata>.
func asEnvelope(action string, result func(b *xmlBuilder)) []byte {
	var b xmlBuilder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString("<" + action + `Response xmlns="` + autoscalingNamespace + `">`)
	if result != nil {
		b.open(action + "Result")
		result(&b)
		b.close(action + "Result")
	}
	b.open("ResponseMetadata")
	b.leaf("RequestId", newUUID())
	b.close("ResponseMetadata")
	b.close(action + "Response")
	return []byte(b.String())
}

func asValidation(format string, args ...any) *apiError {
	return &apiError{status: 400, code: "ValidationError", message: fmt.Sprintf(format, args...)}
}

// Amazon EC2 Auto Scaling API Reference: DescribeAutoScalingGroups — by AutoScalingGroupNames
// (unknown names are left out, not an error), filters tag-key, tag-value, tag:<key>; MaxRecords
// 1-100.
func (s *Sim) asDescribeAutoScalingGroups(c *call) ([]byte, *apiError) {
	names := treeStrings(c.form, "AutoScalingGroupNames.member")
	var groups []*asgRecord
	for _, key := range sortedKeys(s.w.ASGs) {
		g := s.w.ASGs[key]
		if g.Region == c.region && (len(names) == 0 || contains(names, g.Group.Name)) {
			groups = append(groups, g)
		}
	}
	var matched []*asgRecord
	for _, g := range groups {
		ok, aerr := matchAutoScalingFilters(c.form, func(name string) ([]string, bool) { return asgFilterValues(&g.Group, name) })
		if aerr != nil {
			return nil, aerr
		}
		if ok {
			matched = append(matched, g)
		}
	}
	start, end, next, aerr := asPage(c.form, len(matched))
	if aerr != nil {
		return nil, aerr
	}
	return asEnvelope("DescribeAutoScalingGroups", func(b *xmlBuilder) {
		b.open("AutoScalingGroups")
		for _, g := range matched[start:end] {
			s.writeASG(b, g)
		}
		b.close("AutoScalingGroups")
		b.leafIf("NextToken", next)
	}), nil
}

func asgFilterValues(g *ScalingGroup, name string) ([]string, bool) {
	tags := map[string]string{}
	for k, t := range g.Tags {
		tags[k] = t.Value
	}
	if name == "tag-value" {
		var values []string
		for _, k := range sortedKeys(tags) {
			values = append(values, tags[k])
		}
		return values, true
	}
	return tagFilterValues(tags, name)
}

// matchAutoScalingFilters applies Filters.member.N (Name, Values.member.M) as EC2 filters are.
func matchAutoScalingFilters(form map[string]any, values func(name string) ([]string, bool)) (bool, *apiError) {
	var filters []ec2Filter
	for _, item := range treeList(form, "Filters.member") {
		m, _ := item.(map[string]any)
		filters = append(filters, ec2Filter{name: treeString(m, "Name"), values: treeStrings(m, "Values.member")})
	}
	ok, aerr := matchFilters(filters, values)
	if aerr != nil {
		return false, asValidation("%s", aerr.message)
	}
	return ok, nil
}

// asPage pages n results with MaxRecords (1-100, default 50) and NextToken.
func asPage(form map[string]any, n int) (start, end int, next string, aerr *apiError) {
	limited := map[string]any{"MaxResults": firstNonEmpty(treeString(form, "MaxRecords"), "50"), "NextToken": treeString(form, "NextToken")}
	start, end, next, aerr = ec2Page(limited, n, 1, 100)
	if aerr != nil {
		return 0, 0, "", asValidation("%s", aerr.message)
	}
	return start, end, next, nil
}

func (s *Sim) writeASG(b *xmlBuilder, g *asgRecord) {
	r := s.w.Nodegroups[g.Group.Nodegroup]
	minSize, maxSize, desired := 0, 0, 0
	var zones, subnets []string
	if r != nil {
		if sc := r.Nodegroup.ScalingConfig; sc != nil {
			minSize, maxSize, desired = int(deref32(sc.MinSize)), int(deref32(sc.MaxSize)), int(deref32(sc.DesiredSize))
		}
		zones, subnets = uniqSorted(r.Zones), r.Nodegroup.Subnets
	}
	b.open("member")
	b.leaf("AutoScalingGroupName", g.Group.Name)
	b.leaf("AutoScalingGroupARN", fmt.Sprintf("arn:aws:autoscaling:%s:%s:autoScalingGroup:%s:autoScalingGroupName/%s", g.Region, AccountID, newUUID(), g.Group.Name))
	b.leaf("MinSize", strconv.Itoa(minSize))
	b.leaf("MaxSize", strconv.Itoa(maxSize))
	b.leaf("DesiredCapacity", strconv.Itoa(desired))
	b.leaf("DefaultCooldown", "300")
	b.open("AvailabilityZones")
	for _, z := range zones {
		b.leaf("member", z)
	}
	b.close("AvailabilityZones")
	b.leaf("HealthCheckType", "EC2")
	b.leaf("HealthCheckGracePeriod", "15")
	b.leaf("CreatedTime", ec2Time(g.Group.Created))
	b.leaf("VPCZoneIdentifier", strings.Join(subnets, ","))
	b.open("Instances")
	for _, i := range s.w.instancesOf(g.Region, g.Group.Name) {
		b.open("member")
		b.leaf("InstanceId", i.Instance.ID)
		b.leaf("InstanceType", i.Instance.InstanceType)
		b.leaf("AvailabilityZone", i.Instance.Zone)
		b.leaf("LifecycleState", "InService")
		b.leaf("HealthStatus", "Healthy")
		b.leaf("ProtectedFromScaleIn", "false")
		b.close("member")
	}
	b.close("Instances")
	b.open("Tags")
	for _, k := range sortedKeys(g.Group.Tags) {
		writeASGTag(b, g.Group.Name, g.Group.Tags[k])
	}
	b.close("Tags")
	b.leaf("ServiceLinkedRoleARN", "arn:aws:iam::"+AccountID+":role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling")
	b.close("member")
}

func writeASGTag(b *xmlBuilder, group string, t ASGTag) {
	b.open("member")
	b.leaf("ResourceId", group)
	b.leaf("ResourceType", "auto-scaling-group")
	b.leaf("Key", t.Key)
	b.leaf("Value", t.Value)
	b.leaf("PropagateAtLaunch", strconv.FormatBool(t.PropagateAtLaunch))
	b.close("member")
}

func deref32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// asgTagRequest is one Tags.member.N of CreateOrUpdateTags or DeleteTags.
type asgTagRequest struct {
	group *asgRecord
	tag   ASGTag
	value bool // a Value was given (DeleteTags deletes a tag only when its value matches)
}

// asgTags reads Tags.member.N: each names an existing group of the region (ResourceType
// auto-scaling-group), a key of 1-128 characters not starting with aws:, and a value of at most 256
// (Amazon EC2 Auto Scaling API Reference: Tag).
func (s *Sim) asgTags(c *call) ([]asgTagRequest, *apiError) {
	items := treeList(c.form, "Tags.member")
	if len(items) == 0 {
		return nil, asValidation("1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null")
	}
	var out []asgTagRequest
	for _, item := range items {
		m, _ := item.(map[string]any)
		name, key := treeString(m, "ResourceId"), treeString(m, "Key")
		if rt := treeString(m, "ResourceType"); rt != "auto-scaling-group" {
			return nil, asValidation("Invalid resource type %q: the only supported value is auto-scaling-group", rt)
		}
		g := s.w.ASGs[asgKey(c.region, name)]
		if g == nil {
			return nil, asValidation("AutoScalingGroup name not found - no such group: %s", name)
		}
		switch {
		case len(key) < 1 || len(key) > 128:
			return nil, asValidation("Tag key %q must be 1-128 characters long", key)
		case strings.HasPrefix(strings.ToLower(key), "aws:"):
			return nil, asValidation("Tag keys starting with 'aws:' are reserved for internal use")
		case len(treeString(m, "Value")) > 256:
			return nil, asValidation("Tag value for key %q must be at most 256 characters long", key)
		}
		_, hasValue := m["Value"]
		out = append(out, asgTagRequest{group: g, tag: ASGTag{Key: key, Value: treeString(m, "Value"), PropagateAtLaunch: treeString(m, "PropagateAtLaunch") == "true"}, value: hasValue})
	}
	return out, nil
}

// Amazon EC2 Auto Scaling API Reference: CreateOrUpdateTags — "When you specify a tag with a key
// that already exists, the operation overwrites the previous tag definition"; a group takes at most
// 50 tags (LimitExceeded), and then nothing changes.
func (s *Sim) asCreateOrUpdateTags(c *call) ([]byte, *apiError) {
	reqs, aerr := s.asgTags(c)
	if aerr != nil {
		return nil, aerr
	}
	after := map[*asgRecord]map[string]ASGTag{}
	for _, r := range reqs {
		tags, ok := after[r.group]
		if !ok {
			tags = map[string]ASGTag{}
			for k, t := range r.group.Group.Tags {
				tags[k] = t
			}
			after[r.group] = tags
		}
		tags[r.tag.Key] = r.tag
	}
	for g, tags := range after {
		if len(tags) > maxResourceTags {
			return nil, &apiError{status: 400, code: "LimitExceeded", message: fmt.Sprintf("The Auto Scaling group %s would have %d tags; at most %d are allowed.", g.Group.Name, len(tags), maxResourceTags)}
		}
	}
	for g, tags := range after {
		g.Group.Tags = tags
	}
	return asEnvelope("CreateOrUpdateTags", nil), nil
}

// Amazon EC2 Auto Scaling API Reference: DeleteTags — deletes the named tags (one given with a value
// only while it has that value).
func (s *Sim) asDeleteTags(c *call) ([]byte, *apiError) {
	reqs, aerr := s.asgTags(c)
	if aerr != nil {
		return nil, aerr
	}
	for _, r := range reqs {
		if cur, ok := r.group.Group.Tags[r.tag.Key]; ok && (!r.value || cur.Value == r.tag.Value) {
			delete(r.group.Group.Tags, r.tag.Key)
		}
	}
	return asEnvelope("DeleteTags", nil), nil
}

// Amazon EC2 Auto Scaling API Reference: DescribeTags — the tags of the region's groups, filters
// auto-scaling-group, key, value and propagate-at-launch.
func (s *Sim) asDescribeTags(c *call) ([]byte, *apiError) {
	type groupTag struct {
		group string
		tag   ASGTag
	}
	var matched []groupTag
	for _, key := range sortedKeys(s.w.ASGs) {
		g := s.w.ASGs[key]
		if g.Region != c.region {
			continue
		}
		for _, k := range sortedKeys(g.Group.Tags) {
			t := g.Group.Tags[k]
			ok, aerr := matchAutoScalingFilters(c.form, func(name string) ([]string, bool) {
				switch name {
				case "auto-scaling-group":
					return []string{g.Group.Name}, true
				case "key":
					return []string{t.Key}, true
				case "value":
					return []string{t.Value}, true
				case "propagate-at-launch":
					return []string{strconv.FormatBool(t.PropagateAtLaunch)}, true
				}
				return nil, false
			})
			if aerr != nil {
				return nil, aerr
			}
			if ok {
				matched = append(matched, groupTag{g.Group.Name, t})
			}
		}
	}
	start, end, next, aerr := asPage(c.form, len(matched))
	if aerr != nil {
		return nil, aerr
	}
	return asEnvelope("DescribeTags", func(b *xmlBuilder) {
		b.open("Tags")
		for _, gt := range matched[start:end] {
			writeASGTag(b, gt.group, gt.tag)
		}
		b.close("Tags")
		b.leafIf("NextToken", next)
	}), nil
}
