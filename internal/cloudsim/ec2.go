package cloudsim

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The EC2 service: launch templates (stored) here, the read-only views of the seed (capacity
// reservations, instance type offerings, subnets) in ec2_describe.go. EC2 API Reference for
// each action.

// LaunchTemplate is a stored EC2 launch template (EC2 API Reference: LaunchTemplate).
type LaunchTemplate struct {
	ID             string                  `json:"id"`
	Name           string                  `json:"name"`
	CreateTime     time.Time               `json:"create_time"`
	CreatedBy      string                  `json:"created_by"`
	DefaultVersion int64                   `json:"default_version"`
	LatestVersion  int64                   `json:"latest_version"`
	Tags           map[string]string       `json:"tags,omitempty"` // from TagSpecification resource type launch-template
	Versions       []LaunchTemplateVersion `json:"versions"`
}

// LaunchTemplateVersion is one version of a launch template. Data is the LaunchTemplateData
// exactly as sent, as a tree keyed by the Query member names (e.g. Data["TagSpecification"] is
// a list of {"ResourceType", "Tag": [{"Key", "Value"}]}).
type LaunchTemplateVersion struct {
	VersionNumber int64          `json:"version_number"`
	Description   string         `json:"description,omitempty"`
	CreateTime    time.Time      `json:"create_time"`
	Data          map[string]any `json:"data"`
	// Warnings are the problems EC2 found in Data: it creates the version anyway and returns them
	// (see validateLaunchTemplateData); instances never launch from it.
	Warnings []string `json:"warnings,omitempty"`
}

// Get returns the string at a dotted path of the version's data, list indices 1-based as on the
// wire: v.Get("InstanceMarketOptions.MarketType"), v.Get("TagSpecification.1.Tag.2.Value").
func (v LaunchTemplateVersion) Get(path string) string { return treeString(v.Data, path) }

// version resolves a version spec: "" or "$Default" → default, "$Latest" → latest, else a number.
func (lt *LaunchTemplate) version(spec string) *LaunchTemplateVersion {
	var n int64
	switch spec {
	case "", "$Default":
		n = lt.DefaultVersion
	case "$Latest":
		n = lt.LatestVersion
	default:
		v, err := strconv.ParseInt(spec, 10, 64)
		if err != nil {
			return nil
		}
		n = v
	}
	for i := range lt.Versions {
		if lt.Versions[i].VersionNumber == n {
			return &lt.Versions[i]
		}
	}
	return nil
}

func (lt *LaunchTemplate) clone() LaunchTemplate {
	var c LaunchTemplate
	mustRoundTrip(lt, &c)
	return c
}

// launchTemplate finds a template by id or name in a region.
func (w *world) launchTemplate(region, id, name string) *ltRecord {
	if id != "" {
		return w.LaunchTemplates[region+"/"+id]
	}
	for _, key := range sortedKeys(w.LaunchTemplates) {
		if r := w.LaunchTemplates[key]; r.Region == region && r.LaunchTemplate.Name == name {
			return r
		}
	}
	return nil
}

// ec2Op is one supported EC2 action.
type ec2Op struct {
	mutating bool
	h        awsHandler
}

var ec2Ops = map[string]ec2Op{
	"CreateLaunchTemplate":           {true, (*Sim).ec2CreateLaunchTemplate},
	"CreateLaunchTemplateVersion":    {true, (*Sim).ec2CreateLaunchTemplateVersion},
	"ModifyLaunchTemplate":           {true, (*Sim).ec2ModifyLaunchTemplate},
	"DescribeLaunchTemplates":        {false, (*Sim).ec2DescribeLaunchTemplates},
	"DescribeLaunchTemplateVersions": {false, (*Sim).ec2DescribeLaunchTemplateVersions},
	"DeleteLaunchTemplate":           {true, (*Sim).ec2DeleteLaunchTemplate},
	"CreatePlacementGroup":           {true, (*Sim).ec2CreatePlacementGroup},
	"DescribePlacementGroups":        {false, (*Sim).ec2DescribePlacementGroups},
	"DeletePlacementGroup":           {true, (*Sim).ec2DeletePlacementGroup},
	"CreateTags":                     {true, (*Sim).ec2CreateTags},
	"DeleteTags":                     {true, (*Sim).ec2DeleteTags},
	"DescribeCapacityReservations":   {false, (*Sim).ec2DescribeCapacityReservations},
	"DescribeInstanceTypeOfferings":  {false, (*Sim).ec2DescribeInstanceTypeOfferings},
	"DescribeSubnets":                {false, (*Sim).ec2DescribeSubnets},
	"DescribeInstances":              {false, (*Sim).ec2DescribeInstances},
	"DescribeVolumes":                {false, (*Sim).ec2DescribeVolumes},
}

func (s *Sim) serveEC2(w http.ResponseWriter, r *http.Request) {
	region := regionFromAuth(r.Header.Get("Authorization"))
	if err := r.ParseForm(); err != nil {
		aerr := ec2Err(400, "MalformedQueryString", "%s", err.Error())
		s.log.add(Request{Service: "ec2", Operation: "UnknownOperation", Region: region, Params: map[string]any{},
			Time: time.Now(), Error: aerr.code})
		writeEC2(w, nil, aerr)
		return
	}
	action := r.Form.Get("Action")
	tree := parseQueryTree(r.Form)
	op, ok := ec2Ops[action]
	if !ok {
		// EC2 API Reference: Common client errors — InvalidAction, HTTP 400.
		aerr := ec2Err(400, "InvalidAction", "The action %s is not valid for this web service.", action)
		s.log.add(Request{Service: "ec2", Operation: firstNonEmpty(action, "UnknownOperation"), Region: region,
			Params: tree, Time: time.Now(), Error: aerr.code})
		writeEC2(w, nil, aerr)
		return
	}
	h := op.h
	if tree["DryRun"] == "true" {
		// EC2 API Reference: DryRun — "DryRunOperation" (HTTP 412) when the call would succeed.
		h = func(*Sim, *call) ([]byte, *apiError) {
			return nil, ec2Err(412, "DryRunOperation", "Request would have succeeded, but DryRun flag is set.")
		}
	}
	c := &call{service: "ec2", op: action, region: region, form: tree, accessKey: accessKeyFromAuth(r.Header.Get("Authorization"))}
	out, aerr := s.invokeAWS(r.Context(), c, ec2Resource(tree), tree, op.mutating, h)
	writeEC2(w, out, aerr)
}

// ec2Resource is the name a fault's Match is tested against.
func ec2Resource(tree map[string]any) string {
	for _, k := range []string{"LaunchTemplateName", "LaunchTemplateId", "LaunchTemplateName.1", "LaunchTemplateId.1", "ResourceId.1", "GroupName", "GroupName.1"} {
		if v := treeString(tree, k); v != "" {
			return v
		}
	}
	return ""
}

func writeEC2(w http.ResponseWriter, out []byte, aerr *apiError) {
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	if aerr != nil {
		w.WriteHeader(aerr.status)
		_, _ = w.Write(ec2ErrorDocument(aerr.code, aerr.message))
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

func ec2Err(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

func ec2Invalid(format string, args ...any) *apiError {
	return ec2Err(400, "InvalidParameterValue", format, args...)
}

func ec2Missing(param string) *apiError {
	return ec2Err(400, "MissingParameter", "The request must contain the parameter %s", param)
}

// EC2 API Reference: CreateLaunchTemplate — LaunchTemplateName: 3–128 characters, letters,
// numbers and ( ) . - / _.
var ltNameRE = regexp.MustCompile(`^[a-zA-Z0-9().\-/_]{3,128}$`)

var ltIDRE = regexp.MustCompile(`^lt-[0-9a-f]{17}$`)

// EC2 API Reference: CreateLaunchTemplate.
func (s *Sim) ec2CreateLaunchTemplate(c *call) ([]byte, *apiError) {
	name := treeString(c.form, "LaunchTemplateName")
	if name == "" {
		return nil, ec2Missing("LaunchTemplateName")
	}
	if !ltNameRE.MatchString(name) {
		return nil, ec2Err(400, "InvalidLaunchTemplateName.MalformedException",
			"A launch template name must be between 3 and 128 characters, and may contain letters, numbers, and the following characters: - ( ) . / _.")
	}
	token := treeString(c.form, "ClientToken")
	if existing := s.w.launchTemplate(c.region, "", name); existing != nil {
		if token != "" && existing.ClientToken == token {
			return ltResponse("CreateLaunchTemplate", &existing.LaunchTemplate), nil
		}
		return nil, ec2Err(400, "InvalidLaunchTemplateName.AlreadyExistsException", "Launch template name already in use.")
	}
	data := launchTemplateData(c.form)
	warnings, aerr := s.validateLaunchTemplateData(c.region, data)
	if aerr != nil {
		return nil, aerr
	}
	tags, aerr := launchTemplateTags(c.form)
	if aerr != nil {
		return nil, aerr
	}
	lt := LaunchTemplate{ID: "lt-" + randomHex(17), Name: name, CreateTime: c.now.UTC().Truncate(time.Millisecond),
		CreatedBy: "arn:aws:iam::" + AccountID + ":root", DefaultVersion: 1, LatestVersion: 1, Tags: tags,
		Versions: []LaunchTemplateVersion{{VersionNumber: 1, Description: treeString(c.form, "VersionDescription"),
			CreateTime: c.now.UTC().Truncate(time.Millisecond), Data: data, Warnings: warnings}}}
	s.w.LaunchTemplates[c.region+"/"+lt.ID] = &ltRecord{Region: c.region, LaunchTemplate: lt, ClientToken: token}
	return ec2Envelope("CreateLaunchTemplate", func(b *xmlBuilder) {
		writeLaunchTemplate(b, "launchTemplate", &lt)
		writeWarning(b, warnings)
	}), nil
}

// writeWarning writes a ValidationWarning (EC2 API Reference: CreateLaunchTemplate — Warning: "If
// the launch template contains parameters or parameter combinations that are not valid, an error
// code and an error message are returned for each issue that's found").
func writeWarning(b *xmlBuilder, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	b.open("warning")
	b.open("errorSet")
	for _, w := range warnings {
		code, msg, _ := strings.Cut(w, ": ")
		b.open("item")
		b.leaf("code", code)
		b.leaf("message", msg)
		b.close("item")
	}
	b.close("errorSet")
	b.close("warning")
}

// launchTemplateData returns the request's LaunchTemplateData. An empty structure has no
// members on the wire, so a missing LaunchTemplateData is an empty one (the SDK already
// enforces that the member is present).
func launchTemplateData(form map[string]any) map[string]any {
	data := map[string]any{}
	if in, ok := form["LaunchTemplateData"].(map[string]any); ok {
		mustRoundTrip(in, &data) // a copy: the request tree is also the request log's
	}
	return data
}

// launchTemplateTags reads the CreateLaunchTemplate TagSpecification for the launch template
// itself (resource type launch-template).
func launchTemplateTags(form map[string]any) (map[string]string, *apiError) {
	return creationTags(form, "launch-template")
}

// creationTags reads a creating call's TagSpecification, which may only tag the created resource.
func creationTags(form map[string]any, resourceType string) (map[string]string, *apiError) {
	var tags map[string]string
	for _, item := range treeList(form, "TagSpecification") {
		spec, _ := item.(map[string]any)
		if rt := treeString(spec, "ResourceType"); rt != resourceType {
			return nil, ec2Invalid("'%s' is not a valid taggable resource type for this operation.", rt)
		}
		for _, t := range treeList(spec, "Tag") {
			tm, _ := t.(map[string]any)
			if tags == nil {
				tags = map[string]string{}
			}
			tags[treeString(tm, "Key")] = treeString(tm, "Value")
		}
	}
	return tags, nil
}

// instanceTagResourceTypes are the resource types a launch template's TagSpecification may tag
// (EC2 API Reference: LaunchTemplateTagSpecificationRequest).
var instanceTagResourceTypes = []string{"instance", "volume", "network-interface", "spot-instances-request"}

// validateLaunchTemplateData checks LaunchTemplateData. The request fails only on what the API
// itself rejects (a resource type it cannot tag, malformed user data, an enum value it does not
// know); EC2 creates the template despite data that would not launch an instance and returns the
// problems as warnings, "<code>: <message>" (EC2 API Reference: CreateLaunchTemplate and
// CreateLaunchTemplateVersion — Warning). They show when something launches from it.
func (s *Sim) validateLaunchTemplateData(region string, data map[string]any) (warnings []string, aerr *apiError) {
	for _, item := range treeList(data, "TagSpecification") {
		spec, _ := item.(map[string]any)
		if rt := treeString(spec, "ResourceType"); !contains(instanceTagResourceTypes, rt) {
			return nil, ec2Invalid("'%s' is not a valid taggable resource type for this operation.", rt)
		}
	}
	if ud := treeString(data, "UserData"); ud != "" {
		if _, err := base64.StdEncoding.DecodeString(ud); err != nil {
			return nil, ec2Err(400, "InvalidUserData.Malformed", "Invalid BASE64 encoding of user data.")
		}
	}
	if tok := treeString(data, "MetadataOptions.HttpTokens"); tok != "" && tok != "optional" && tok != "required" {
		return nil, ec2Invalid("Invalid value '%s' for MetadataOptions.HttpTokens.", tok)
	}
	if it := treeString(data, "InstanceType"); it != "" && !s.w.Seed.awsRegion(region).offeredInRegion(it) {
		warnings = append(warnings, "InvalidInstanceType: The instance type '"+it+"' is not supported in this region.")
	}
	if mt := treeString(data, "InstanceMarketOptions.MarketType"); mt != "" && mt != "spot" && mt != "capacity-block" {
		warnings = append(warnings, "InvalidParameterValue: Invalid value '"+mt+"' for InstanceMarketOptions.MarketType.")
	}
	if hop := treeString(data, "MetadataOptions.HttpPutResponseHopLimit"); hop != "" {
		if n, err := strconv.Atoi(hop); err != nil || n < 1 || n > 64 {
			warnings = append(warnings, "InvalidParameterValue: The HttpPutResponseHopLimit must be between 1 and 64.")
		}
	}
	network, aerr := s.launchTemplateNetworkProblems(region, data)
	if aerr != nil {
		return nil, aerr
	}
	warnings = append(warnings, network...)
	return warnings, nil
}

// lookupLaunchTemplate resolves LaunchTemplateId / LaunchTemplateName, with the real not-found
// errors: InvalidLaunchTemplateId.NotFound and InvalidLaunchTemplateName.NotFoundException.
func (s *Sim) lookupLaunchTemplate(region string, form map[string]any) (*ltRecord, *apiError) {
	id, name := treeString(form, "LaunchTemplateId"), treeString(form, "LaunchTemplateName")
	switch {
	case id == "" && name == "":
		return nil, ec2Missing("LaunchTemplateId or LaunchTemplateName")
	case id != "" && name != "":
		return nil, ec2Err(400, "InvalidParameterCombination", "Specify either the launch template ID or name, not both.")
	case id != "" && !ltIDRE.MatchString(id):
		return nil, ec2Err(400, "InvalidLaunchTemplateId.Malformed", "The specified ID for the launch template (%s) is not valid.", id)
	}
	r := s.w.launchTemplate(region, id, name)
	if r != nil {
		return r, nil
	}
	if id != "" {
		return nil, ec2Err(400, "InvalidLaunchTemplateId.NotFound", "The specified launch template, with template ID %s, does not exist.", id)
	}
	return nil, ec2Err(400, "InvalidLaunchTemplateName.NotFoundException", "The specified launch template, with template name %s, does not exist.", name)
}

func versionNotFound(lt *LaunchTemplate, spec string) *apiError {
	return ec2Err(400, "InvalidLaunchTemplateId.VersionNotFound",
		"Could not find the specified version %s for the launch template with ID %s.", spec, lt.ID)
}

// EC2 API Reference: CreateLaunchTemplateVersion — the new version starts from SourceVersion
// (when given) and LaunchTemplateData overrides its members; it becomes the latest version,
// the default version is unchanged.
func (s *Sim) ec2CreateLaunchTemplateVersion(c *call) ([]byte, *apiError) {
	r, aerr := s.lookupLaunchTemplate(c.region, c.form)
	if aerr != nil {
		return nil, aerr
	}
	lt := &r.LaunchTemplate
	data := launchTemplateData(c.form)
	if src := treeString(c.form, "SourceVersion"); src != "" {
		base := lt.version(src)
		if base == nil {
			return nil, versionNotFound(lt, src)
		}
		data = mergeData(base.Data, data)
	}
	warnings, aerr := s.validateLaunchTemplateData(c.region, data)
	if aerr != nil {
		return nil, aerr
	}
	lt.LatestVersion++
	v := LaunchTemplateVersion{VersionNumber: lt.LatestVersion, Description: treeString(c.form, "VersionDescription"),
		CreateTime: c.now.UTC().Truncate(time.Millisecond), Data: data, Warnings: warnings}
	lt.Versions = append(lt.Versions, v)
	return ec2Envelope("CreateLaunchTemplateVersion", func(b *xmlBuilder) {
		writeVersion(b, "launchTemplateVersion", lt, &v)
		writeWarning(b, warnings)
	}), nil
}

// mergeData overlays the top-level members of data on a copy of base.
func mergeData(base, data map[string]any) map[string]any {
	var out map[string]any
	mustRoundTrip(base, &out)
	for k, v := range data {
		out[k] = v
	}
	return out
}

// EC2 API Reference: ModifyLaunchTemplate (SetDefaultVersion).
func (s *Sim) ec2ModifyLaunchTemplate(c *call) ([]byte, *apiError) {
	r, aerr := s.lookupLaunchTemplate(c.region, c.form)
	if aerr != nil {
		return nil, aerr
	}
	lt := &r.LaunchTemplate
	if spec := treeString(c.form, "SetDefaultVersion"); spec != "" {
		v := lt.version(spec)
		if v == nil {
			return nil, versionNotFound(lt, spec)
		}
		lt.DefaultVersion = v.VersionNumber
	}
	return ltResponse("ModifyLaunchTemplate", lt), nil
}

// EC2 API Reference: DeleteLaunchTemplate.
func (s *Sim) ec2DeleteLaunchTemplate(c *call) ([]byte, *apiError) {
	r, aerr := s.lookupLaunchTemplate(c.region, c.form)
	if aerr != nil {
		return nil, aerr
	}
	delete(s.w.LaunchTemplates, c.region+"/"+r.LaunchTemplate.ID)
	return ltResponse("DeleteLaunchTemplate", &r.LaunchTemplate), nil
}

func ltResponse(action string, lt *LaunchTemplate) []byte {
	return ec2Envelope(action, func(b *xmlBuilder) { writeLaunchTemplate(b, "launchTemplate", lt) })
}

func writeLaunchTemplate(b *xmlBuilder, elem string, lt *LaunchTemplate) {
	b.open(elem)
	b.leaf("createTime", ec2Time(lt.CreateTime))
	b.leaf("createdBy", lt.CreatedBy)
	b.leaf("defaultVersionNumber", strconv.FormatInt(lt.DefaultVersion, 10))
	b.leaf("latestVersionNumber", strconv.FormatInt(lt.LatestVersion, 10))
	b.leaf("launchTemplateId", lt.ID)
	b.leaf("launchTemplateName", lt.Name)
	b.tagSet(lt.Tags)
	b.close(elem)
}

func writeVersion(b *xmlBuilder, elem string, lt *LaunchTemplate, v *LaunchTemplateVersion) {
	b.open(elem)
	b.leaf("createTime", ec2Time(v.CreateTime))
	b.leaf("createdBy", lt.CreatedBy)
	b.leaf("defaultVersion", strconv.FormatBool(v.VersionNumber == lt.DefaultVersion))
	writeTree(b, "", "LaunchTemplateData", v.Data)
	b.leaf("launchTemplateId", lt.ID)
	b.leaf("launchTemplateName", lt.Name)
	b.leafIf("versionDescription", v.Description)
	b.leaf("versionNumber", strconv.FormatInt(v.VersionNumber, 10))
	b.close(elem)
}

// EC2 API Reference: DescribeLaunchTemplates — by ids or names (an unknown one fails the whole
// call), or all templates, with filters launch-template-name, tag:<key> and tag-key.
func (s *Sim) ec2DescribeLaunchTemplates(c *call) ([]byte, *apiError) {
	lts, aerr := s.selectLaunchTemplates(c.region, c.form)
	if aerr != nil {
		return nil, aerr
	}
	filters := parseFilters(c.form)
	var matched []*LaunchTemplate
	for _, lt := range lts {
		ok, aerr := matchFilters(filters, func(name string) ([]string, bool) { return ltFilterValues(lt, name) })
		if aerr != nil {
			return nil, aerr
		}
		if ok {
			matched = append(matched, lt)
		}
	}
	start, end, next, aerr := ec2Page(c.form, len(matched), 1, 200)
	if aerr != nil {
		return nil, aerr
	}
	return ec2Envelope("DescribeLaunchTemplates", func(b *xmlBuilder) {
		b.open("launchTemplates")
		for _, lt := range matched[start:end] {
			writeLaunchTemplate(b, "item", lt)
		}
		b.close("launchTemplates")
		b.leafIf("nextToken", next)
	}), nil
}

func (s *Sim) selectLaunchTemplates(region string, form map[string]any) ([]*LaunchTemplate, *apiError) {
	ids, names := treeStrings(form, "LaunchTemplateId"), treeStrings(form, "LaunchTemplateName")
	var out []*LaunchTemplate
	for _, id := range ids {
		if !ltIDRE.MatchString(id) {
			return nil, ec2Err(400, "InvalidLaunchTemplateId.Malformed", "The specified ID for the launch template (%s) is not valid.", id)
		}
		r := s.w.launchTemplate(region, id, "")
		if r == nil {
			return nil, ec2Err(400, "InvalidLaunchTemplateId.NotFound", "The specified launch template, with template ID %s, does not exist.", id)
		}
		out = append(out, &r.LaunchTemplate)
	}
	for _, name := range names {
		r := s.w.launchTemplate(region, "", name)
		if r == nil {
			return nil, ec2Err(400, "InvalidLaunchTemplateName.NotFoundException", "At least one of the launch templates specified in the request does not exist.")
		}
		out = append(out, &r.LaunchTemplate)
	}
	if len(ids) > 0 || len(names) > 0 {
		return out, nil
	}
	for _, key := range sortedKeys(s.w.LaunchTemplates) {
		if r := s.w.LaunchTemplates[key]; r.Region == region {
			out = append(out, &r.LaunchTemplate)
		}
	}
	return out, nil
}

func ltFilterValues(lt *LaunchTemplate, name string) ([]string, bool) {
	switch name {
	case "launch-template-name":
		return []string{lt.Name}, true
	case "create-time":
		return []string{ec2Time(lt.CreateTime)}, true
	}
	return tagFilterValues(lt.Tags, name)
}

// EC2 API Reference: DescribeLaunchTemplateVersions — the versions of one template, by number,
// $Latest or $Default, or within MinVersion..MaxVersion; newest first.
func (s *Sim) ec2DescribeLaunchTemplateVersions(c *call) ([]byte, *apiError) {
	r, aerr := s.lookupLaunchTemplate(c.region, c.form)
	if aerr != nil {
		return nil, aerr
	}
	lt := &r.LaunchTemplate
	versions, aerr := selectVersions(lt, c.form)
	if aerr != nil {
		return nil, aerr
	}
	start, end, next, aerr := ec2Page(c.form, len(versions), 1, 200)
	if aerr != nil {
		return nil, aerr
	}
	return ec2Envelope("DescribeLaunchTemplateVersions", func(b *xmlBuilder) {
		b.open("launchTemplateVersionSet")
		for _, v := range versions[start:end] {
			writeVersion(b, "item", lt, v)
		}
		b.close("launchTemplateVersionSet")
		b.leafIf("nextToken", next)
	}), nil
}

func selectVersions(lt *LaunchTemplate, form map[string]any) ([]*LaunchTemplateVersion, *apiError) {
	var out []*LaunchTemplateVersion
	specs := treeStrings(form, "LaunchTemplateVersion")
	for _, spec := range specs {
		v := lt.version(spec)
		if v == nil {
			return nil, versionNotFound(lt, spec)
		}
		out = append(out, v)
	}
	if len(specs) == 0 {
		lo, hi := int64(1), lt.LatestVersion
		if m, err := strconv.ParseInt(treeString(form, "MinVersion"), 10, 64); err == nil {
			lo = m
		}
		if m, err := strconv.ParseInt(treeString(form, "MaxVersion"), 10, 64); err == nil {
			hi = m
		}
		for i := range lt.Versions {
			if v := &lt.Versions[i]; v.VersionNumber >= lo && v.VersionNumber <= hi {
				out = append(out, v)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].VersionNumber > out[j].VersionNumber })
	return out, nil
}
