package cloudsim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
)

// The IAM check: with an identity set (Options.IAM, Sim.SetIAM), every EKS, EC2 and EC2 Auto Scaling
// call signed with its access key is allowed only as far as its identity-based policy allows it, and
// refused with the error each service returns for it otherwise. It follows the IAM User Guide's
// evaluation logic for one identity-based policy ("Policy evaluation logic": an explicit Deny wins,
// then an Allow, else the implicit deny) and its element reference (Action, NotAction, Resource,
// NotResource, Condition with the string, ARN, Bool and Null operators, ...IfExists). A policy with an
// element or operator cloudsim does not evaluate is refused when it is set, never ignored. Calls
// signed with another key (a test's own reads) are not checked.
//
// Besides the call's own action, EKS authorizes the caller for what it does on the caller's behalf:
//   - iam:PassRole on the node role, with iam:PassedToService = eks.amazonaws.com, for CreateNodegroup
//     (EKS User Guide, "Amazon EKS node IAM role": the caller passes the role);
//   - ec2:RunInstances and ec2:CreateTags for CreateNodegroup and UpdateNodegroupVersion with a launch
//     template ("The IAM entity calling the CreateNodegroup or UpdateNodegroupVersion APIs must have
//     permissions for ec2:RunInstances and ec2:CreateTags", EKS User Guide, launch templates);
//   - iam:CreateServiceLinkedRole for eks-nodegroup.amazonaws.com, for the first node group of an
//     account that has no AWSServiceRoleForAmazonEKSNodegroup yet ("When you CreateNodegroup …
//     Amazon EKS creates the service-linked role for you", EKS User Guide, using-service-linked-roles-
//     eks-nodegroups; audit eks-vs-real.md D7). A fresh account (IAMIdentity.FreshAccount) has none
//     until a CreateNodegroup the caller may create it for succeeds. What EKS answers without that
//     permission is not documented (audit Q12); cloudsim answers AccessDeniedException naming it.
//
// The messages are AWS's ("User: <arn> is not authorized to perform: <action> on resource: <arn>
// because no identity-based policy allows the <action> action", IAM User Guide, "Troubleshoot access
// denied error messages"): EKS 403 AccessDeniedException, EC2 403 UnauthorizedOperation (with an
// encoded authorization failure message), Auto Scaling 403 AccessDenied.

// IAMIdentity is the identity whose calls cloudsim checks.
type IAMIdentity struct {
	// AccessKeyID is the key the identity signs with (the SigV4 credential's first field).
	AccessKeyID string
	// ARN names the identity in error messages; default arn:aws:iam::<account>:user/terraform.
	ARN string
	// Policy is its identity-based policy, an IAM policy document (JSON).
	Policy string
	// FreshAccount: the account has no EKS node group service-linked role yet.
	FreshAccount bool
}

// iamState is the check in force, and the account's service-linked role.
type iamState struct {
	mu       sync.Mutex
	identity *IAMIdentity
	policy   *iamPolicy
	slr      bool // AWSServiceRoleForAmazonEKSNodegroup exists
	denied   []string
}

// SetIAM checks the calls of an identity from now on; nil checks nothing.
func (s *Sim) SetIAM(id *IAMIdentity) error {
	var p *iamPolicy
	if id != nil {
		var err error
		if p, err = parsePolicy(id.Policy); err != nil {
			return err
		}
		if id.ARN == "" {
			c := *id
			c.ARN = "arn:aws:iam::" + AccountID + ":user/terraform"
			id = &c
		}
	}
	s.iam.mu.Lock()
	defer s.iam.mu.Unlock()
	s.iam.identity, s.iam.policy, s.iam.slr = id, p, id == nil || !id.FreshAccount
	return nil
}

// NodegroupServiceLinkedRoleExists reports whether the account has AWSServiceRoleForAmazonEKSNodegroup.
func (s *Sim) NodegroupServiceLinkedRoleExists() bool {
	s.iam.mu.Lock()
	defer s.iam.mu.Unlock()
	return s.iam.slr
}

// DeniedActions are the actions the IAM check refused, in order.
func (s *Sim) DeniedActions() []string {
	s.iam.mu.Lock()
	defer s.iam.mu.Unlock()
	return slices.Clone(s.iam.denied)
}

// iamRequest is one action on one resource, with the request's condition keys.
type iamRequest struct {
	action, resource string
	context          map[string]string
}

// authorize checks requests of the call's caller; nil when they are allowed or nobody is checked.
func (s *Sim) authorize(c *call, reqs ...iamRequest) *apiError {
	s.iam.mu.Lock()
	defer s.iam.mu.Unlock()
	id := s.iam.identity
	if id == nil || c.accessKey != id.AccessKeyID {
		return nil
	}
	for _, r := range reqs {
		ctx := map[string]string{"aws:RequestedRegion": c.region}
		for k, v := range r.context {
			ctx[k] = v
		}
		allowed, explicit := s.iam.policy.allows(r.action, r.resource, ctx)
		if allowed {
			continue
		}
		s.iam.denied = append(s.iam.denied, r.action)
		why := "because no identity-based policy allows the " + r.action + " action"
		if explicit {
			why = "with an explicit deny in an identity-based policy"
		}
		msg := fmt.Sprintf("User: %s is not authorized to perform: %s on resource: %s %s", id.ARN, r.action, r.resource, why)
		switch c.service {
		case "ec2":
			encoded := base64.StdEncoding.EncodeToString([]byte(`{"allowed":false,"explicitDeny":` + fmt.Sprint(explicit) + `,"action":"` + r.action + `"}`))
			return &apiError{status: 403, code: "UnauthorizedOperation", message: "You are not authorized to perform this operation. " + msg + ". Encoded authorization failure message: " + encoded}
		case "autoscaling":
			return &apiError{status: 403, code: "AccessDenied", message: msg}
		}
		return &apiError{status: 403, code: "AccessDeniedException", message: msg}
	}
	return nil
}

// nodegroupSLR is the service-linked role EKS makes for managed node groups.
const nodegroupSLR = "arn:aws:iam::" + AccountID + ":role/aws-service-role/eks-nodegroup.amazonaws.com/AWSServiceRoleForAmazonEKSNodegroup"

// authorizeCreateNodegroup checks what CreateNodegroup does for the caller (see above) and reports
// whether it creates the service-linked role.
func (s *Sim) authorizeCreateNodegroup(c *call, nodeRole string, launchTemplate bool) (createsSLR bool, aerr *apiError) {
	reqs := []iamRequest{{action: "iam:PassRole", resource: nodeRole, context: map[string]string{"iam:PassedToService": "eks.amazonaws.com"}}}
	if launchTemplate {
		reqs = append(reqs, s.launchTemplateActions(c)...)
	}
	s.iam.mu.Lock()
	createsSLR = !s.iam.slr
	s.iam.mu.Unlock()
	if createsSLR {
		reqs = append(reqs, iamRequest{action: "iam:CreateServiceLinkedRole", resource: nodegroupSLR, context: map[string]string{"iam:AWSServiceName": "eks-nodegroup.amazonaws.com"}})
	}
	return createsSLR, s.authorize(c, reqs...)
}

// launchTemplateActions are what EKS requires of the caller of a node group call with a template.
func (s *Sim) launchTemplateActions(c *call) []iamRequest {
	return []iamRequest{
		{action: "ec2:RunInstances", resource: fmt.Sprintf("arn:aws:ec2:%s:%s:instance/*", c.region, AccountID)},
		{action: "ec2:CreateTags", resource: fmt.Sprintf("arn:aws:ec2:%s:%s:instance/*", c.region, AccountID)},
	}
}

// createdSLR records the service-linked role a successful CreateNodegroup made.
func (s *Sim) createdSLR() {
	s.iam.mu.Lock()
	defer s.iam.mu.Unlock()
	s.iam.slr = true
}

// callRequest is the action and resource of an API call itself.
func callRequest(c *call) iamRequest {
	r := iamRequest{action: c.service + ":" + c.op, resource: "*"}
	switch c.service {
	case "eks":
		cluster := firstNonEmpty(c.labels["clusterName"], c.labels["name"])
		switch {
		case c.labels["resourceArn"] != "":
			r.resource = c.labels["resourceArn"]
		case c.labels["nodegroupName"] != "":
			r.resource = fmt.Sprintf("arn:aws:eks:%s:%s:nodegroup/%s/%s/*", c.region, AccountID, cluster, c.labels["nodegroupName"])
		case cluster != "":
			r.resource = clusterARN(c.region, cluster)
		}
	case "ec2":
		if arn := ec2ResourceARN(c.region, firstNonEmpty(treeString(c.form, "LaunchTemplateId"), treeString(c.form, "ResourceId.1"))); arn != "" {
			r.resource = arn
		} else if name := treeString(c.form, "GroupName"); name != "" && strings.HasSuffix(c.op, "PlacementGroup") {
			// Service Authorization Reference, Amazon EC2: CreatePlacementGroup and DeletePlacementGroup
			// act on the placement-group resource, arn:aws:ec2:<region>:<account>:placement-group/<name>.
			r.resource = fmt.Sprintf("arn:aws:ec2:%s:%s:placement-group/%s", c.region, AccountID, name)
		} else if strings.HasPrefix(c.op, "Create") || strings.HasPrefix(c.op, "Modify") || strings.HasPrefix(c.op, "Delete") {
			r.resource = fmt.Sprintf("arn:aws:ec2:%s:%s:launch-template/*", c.region, AccountID)
		}
	case "autoscaling":
		if name := autoscalingResource(c.form); name != "" && !strings.HasPrefix(c.op, "Describe") {
			r.resource = autoScalingGroupARN(c.region, name)
		}
	}
	return r
}

// callRequests are the requests IAM authorizes for a call: one per resource it names. A tagging call
// names several (EC2 CreateTags and DeleteTags take up to 1000 ResourceId.N, instances and volumes
// alike; Auto Scaling CreateOrUpdateTags and DeleteTags a ResourceId per tag), and each is authorized
// on its own ARN, so that a policy scoped to one resource type (as kubernetes-sigs/aws-ebs-csi-driver
// docs/example-iam-policy.json scopes ec2:CreateTags to volume/*) refuses a call that also names
// another. That IAM checks every resource of one request, not the first, is the stricter reading; the
// Service Authorization Reference lists each of these types as a resource of the action.
func callRequests(c *call) []iamRequest {
	first := callRequest(c)
	var arns []string
	switch {
	case c.service == "ec2" && (c.op == "CreateTags" || c.op == "DeleteTags"):
		for _, id := range treeStrings(c.form, "ResourceId") {
			if arn := ec2ResourceARN(c.region, id); arn != "" {
				arns = append(arns, arn)
			}
		}
	case c.service == "autoscaling" && (c.op == "CreateOrUpdateTags" || c.op == "DeleteTags"):
		for _, t := range treeList(c.form, "Tags.member") {
			if m, ok := t.(map[string]any); ok {
				if name, _ := m["ResourceId"].(string); name != "" {
					arns = append(arns, autoScalingGroupARN(c.region, name))
				}
			}
		}
	}
	if c.service == "ec2" && (c.op == "CreateLaunchTemplate" || c.op == "CreatePlacementGroup") && len(treeList(c.form, "TagSpecification")) > 0 {
		// Tags on create: "If tags are specified in the resource-creating action, AWS performs
		// additional authorization" on the tagging action, with the CreateAction condition key (read in
		// the ECS and ELB guides' "Grant permission to tag resources on creation", docs.aws.amazon.com,
		// 2026-11-28; the EC2 User Guide's page of that name, not in the stored copies, describes the
		// same for ec2:CreateTags and ec2:CreateAction).
		return []iamRequest{first, {action: "ec2:CreateTags", resource: first.resource, context: map[string]string{"ec2:CreateAction": c.op}}}
	}
	if len(arns) == 0 {
		return []iamRequest{first}
	}
	reqs := make([]iamRequest, 0, len(arns))
	for _, arn := range slices.Compact(arns) {
		reqs = append(reqs, iamRequest{action: first.action, resource: arn})
	}
	return reqs
}

// ec2ResourceARN is the ARN of a launch template, instance or volume id; "" for another id.
func ec2ResourceARN(region, id string) string {
	for prefix, typ := range map[string]string{"lt-": "launch-template", "i-": "instance", "vol-": "volume"} {
		if strings.HasPrefix(id, prefix) {
			return fmt.Sprintf("arn:aws:ec2:%s:%s:%s/%s", region, AccountID, typ, id)
		}
	}
	return ""
}

// autoScalingGroupARN is an Auto Scaling group's ARN, its id left as a wildcard.
func autoScalingGroupARN(region, name string) string {
	return fmt.Sprintf("arn:aws:autoscaling:%s:%s:autoScalingGroup:*:autoScalingGroupName/%s", region, AccountID, name)
}

// iamPolicy is a parsed identity-based policy.
type iamPolicy struct {
	statements []iamStatement
}

type iamStatement struct {
	deny                 bool
	actions, notActions  []string
	resources, notResour []string
	conditions           []iamCondition
}

type iamCondition struct {
	op       string // e.g. StringEquals
	ifExists bool
	key      string
	values   []string
}

// stringOrList reads an element that is a string or a list of strings.
func stringOrList(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("want a string or a list of strings, got %s", raw)
	}
	return many, nil
}

var conditionOps = []string{"StringEquals", "StringNotEquals", "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase", "StringLike",
	"StringNotLike", "ArnEquals", "ArnLike", "ArnNotEquals", "ArnNotLike", "Bool", "Null"}

// parsePolicy reads an IAM policy document; an element or operator it cannot evaluate is an error.
func parsePolicy(doc string) (*iamPolicy, error) {
	var in struct {
		Version   string          `json:"Version"`
		Statement json.RawMessage `json:"Statement"`
	}
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("cloudsim: IAM policy: %w", err)
	}
	if in.Version != "2012-10-17" {
		return nil, fmt.Errorf("cloudsim: IAM policy: Version %q, want 2012-10-17", in.Version)
	}
	type rawStatement struct {
		Sid         string                                `json:"Sid"`
		Effect      string                                `json:"Effect"`
		Action      json.RawMessage                       `json:"Action"`
		NotAction   json.RawMessage                       `json:"NotAction"`
		Resource    json.RawMessage                       `json:"Resource"`
		NotResource json.RawMessage                       `json:"NotResource"`
		Condition   map[string]map[string]json.RawMessage `json:"Condition"`
	}
	strict := func(raw json.RawMessage, v any) error {
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.DisallowUnknownFields() // Principal, NotPrincipal: not an identity-based policy's
		return d.Decode(v)
	}
	var raws []rawStatement
	if err := strict(in.Statement, &raws); err != nil {
		var one rawStatement
		if err := strict(in.Statement, &one); err != nil {
			return nil, fmt.Errorf("cloudsim: IAM policy: Statement: %w", err)
		}
		raws = []rawStatement{one}
	}
	p := &iamPolicy{}
	for i, r := range raws {
		at := fmt.Sprintf("cloudsim: IAM policy: statement %d (%s)", i, r.Sid)
		st := iamStatement{deny: r.Effect == "Deny"}
		if r.Effect != "Allow" && r.Effect != "Deny" {
			return nil, fmt.Errorf("%s: Effect %q", at, r.Effect)
		}
		var err error
		for _, f := range []struct {
			raw json.RawMessage
			out *[]string
		}{{r.Action, &st.actions}, {r.NotAction, &st.notActions}, {r.Resource, &st.resources}, {r.NotResource, &st.notResour}} {
			if *f.out, err = stringOrList(f.raw); err != nil {
				return nil, fmt.Errorf("%s: %w", at, err)
			}
		}
		if (len(st.actions) == 0) == (len(st.notActions) == 0) || (len(st.resources) == 0) == (len(st.notResour) == 0) {
			return nil, fmt.Errorf("%s: needs Action or NotAction, and Resource or NotResource", at)
		}
		for op, keys := range r.Condition {
			base, ifExists := strings.CutSuffix(op, "IfExists")
			if !slices.Contains(conditionOps, base) {
				return nil, fmt.Errorf("%s: condition operator %s is not one cloudsim evaluates (%s)", at, op, strings.Join(conditionOps, ", "))
			}
			for key, raw := range keys {
				values, err := stringOrList(raw)
				if err != nil {
					var b bool
					if json.Unmarshal(raw, &b) != nil {
						return nil, fmt.Errorf("%s: condition %s %s: %w", at, op, key, err)
					}
					values = []string{fmt.Sprint(b)}
				}
				st.conditions = append(st.conditions, iamCondition{op: base, ifExists: ifExists, key: key, values: values})
			}
		}
		p.statements = append(p.statements, st)
	}
	return p, nil
}

// allows evaluates the policy: allowed, and whether a Deny statement refused it.
func (p *iamPolicy) allows(action, resource string, ctx map[string]string) (allowed, explicitDeny bool) {
	for _, st := range p.statements {
		if !st.matches(action, resource, ctx) {
			continue
		}
		if st.deny {
			return false, true
		}
		allowed = true
	}
	return allowed, false
}

func (st iamStatement) matches(action, resource string, ctx map[string]string) bool {
	actionMatch := func(patterns []string) bool {
		return slices.ContainsFunc(patterns, func(p string) bool { return globMatch(strings.ToLower(p), strings.ToLower(action)) })
	}
	resourceMatch := func(patterns []string) bool {
		return slices.ContainsFunc(patterns, func(p string) bool { return globMatch(p, resource) })
	}
	if (len(st.actions) > 0 && !actionMatch(st.actions)) || (len(st.notActions) > 0 && actionMatch(st.notActions)) {
		return false
	}
	if (len(st.resources) > 0 && !resourceMatch(st.resources)) || (len(st.notResour) > 0 && resourceMatch(st.notResour)) {
		return false
	}
	for _, c := range st.conditions {
		if !c.holds(ctx) {
			return false
		}
	}
	return true
}

// holds evaluates one condition key: any of its values matches (IAM User Guide, "Creating a condition
// with multiple keys or values": OR within a key); a missing key fails all but Null and ...IfExists.
func (c iamCondition) holds(ctx map[string]string) bool {
	v, ok := ctx[c.key]
	if c.op == "Null" {
		return slices.Contains(c.values, fmt.Sprint(!ok))
	}
	if !ok {
		return c.ifExists
	}
	negated := strings.Contains(c.op, "Not")
	matched := slices.ContainsFunc(c.values, func(want string) bool {
		switch c.op {
		case "StringEquals", "StringNotEquals", "ArnEquals", "ArnNotEquals", "Bool":
			return v == want
		case "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase":
			return strings.EqualFold(v, want)
		}
		return globMatch(want, v) // the Like operators
	})
	return matched != negated
}

// globMatch matches IAM's wildcards, * (any run, / included) and ?.
func globMatch(pattern, s string) bool {
	// path.Match's * stops at /, which IAM's does not: match segment by segment on a copy without /.
	const sep = "\x00"
	ok, err := path.Match(strings.ReplaceAll(pattern, "/", sep), strings.ReplaceAll(s, "/", sep))
	return err == nil && ok
}
