package cloudsim

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Validation mimicking the EKS API (EKS API Reference: CreateNodegroup, UpdateNodegroupConfig,
// UpdateNodegroupVersion and the data types they take). Messages are the ones EKS returns where
// they are known; the others follow the same style.

// eksValidator carries the context every EKS validation error names.
type eksValidator struct {
	cluster, nodegroup string
	seed               *AWSRegionSeed
}

func (v *eksValidator) invalid(format string, args ...any) *apiError {
	return eksInvalidParameter(v.cluster, v.nodegroup, format, args...)
}

// enumError is the AWS validation message for a value outside an enum.
func (v *eksValidator) enumError(member, value string, allowed []string) *apiError {
	return v.invalid("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]",
		value, member, strings.Join(allowed, ", "))
}

// EKS API Reference: CreateNodegroup — nodegroupName: 1–63 characters, starting with an
// alphanumeric character, then alphanumerics, hyphens and underscores.
var nodegroupNameRE = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9\-_]*$`)

func (v *eksValidator) name(name string) *apiError {
	if len(name) < 1 || len(name) > 63 || !nodegroupNameRE.MatchString(name) {
		return v.invalid("Nodegroup name %q is invalid: it must be 1-63 characters long, start with an alphanumeric character and contain only alphanumeric characters, hyphens and underscores", name)
	}
	return nil
}

var roleARNRE = regexp.MustCompile(`^arn:aws[a-z-]*:iam::\d{12}:role/.+$`)

func (v *eksValidator) nodeRole(arn string) *apiError {
	if !roleARNRE.MatchString(arn) {
		return v.invalid("Role ARN %s is not a valid IAM role ARN", arn)
	}
	return nil
}

// subnets checks the subnets exist in the region and returns their availability zones.
func (v *eksValidator) subnets(ids []string) ([]string, *apiError) {
	if len(ids) == 0 {
		return nil, v.invalid("Subnets are required")
	}
	var zones []string
	for _, id := range ids {
		sn := v.seed.subnet(id)
		if sn == nil {
			return nil, v.invalid("The subnet ID '%s' does not exist", id)
		}
		zones = append(zones, sn.AvailabilityZone)
	}
	return zones, nil
}

// EKS API Reference: NodegroupScalingConfig — minSize >= 0, maxSize >= 1, desiredSize >= 0 and
// minSize <= desiredSize <= maxSize.
func (v *eksValidator) scaling(sc *ScalingConfig) *apiError {
	minSize, maxSize, desired := *sc.MinSize, *sc.MaxSize, *sc.DesiredSize
	switch {
	case minSize < 0:
		return v.invalid("minSize can't be negative")
	case maxSize < 1:
		return v.invalid("maxSize can't be less than 1")
	case desired < 0:
		return v.invalid("desiredSize can't be negative")
	case minSize > maxSize:
		return v.invalid("Minimum capacity %d can't be greater than max size %d", minSize, maxSize)
	case minSize > desired:
		return v.invalid("Minimum capacity %d can't be greater than desired size %d", minSize, desired)
	case desired > maxSize:
		return v.invalid("desiredSize can't be greater than maxSize")
	case int(maxSize) > v.seed.quotas().NodesPerNodegroup:
		// EKS service quota "Nodes per managed node group" (L-BD136A63).
		return v.invalid("maxSize %d exceeds the limit of %d nodes per managed node group", maxSize, v.seed.quotas().NodesPerNodegroup)
	}
	return nil
}

var (
	capacityTypes = []string{"ON_DEMAND", "SPOT", "CAPACITY_BLOCK"}
	taintEffects  = []string{"NO_SCHEDULE", "NO_EXECUTE", "PREFER_NO_SCHEDULE"}
	amiTypes      = []string{"AL2_x86_64", "AL2_x86_64_GPU", "AL2_ARM_64", "CUSTOM", "BOTTLEROCKET_ARM_64",
		"BOTTLEROCKET_x86_64", "BOTTLEROCKET_ARM_64_FIPS", "BOTTLEROCKET_x86_64_FIPS", "BOTTLEROCKET_ARM_64_NVIDIA",
		"BOTTLEROCKET_x86_64_NVIDIA", "BOTTLEROCKET_ARM_64_NVIDIA_FIPS", "BOTTLEROCKET_x86_64_NVIDIA_FIPS",
		"WINDOWS_CORE_2019_x86_64", "WINDOWS_FULL_2019_x86_64", "WINDOWS_CORE_2022_x86_64", "WINDOWS_FULL_2022_x86_64",
		"WINDOWS_CORE_2025_x86_64", "WINDOWS_FULL_2025_x86_64", "AL2023_x86_64_STANDARD", "AL2023_ARM_64_STANDARD",
		"AL2023_x86_64_NEURON", "AL2023_x86_64_NVIDIA", "AL2023_ARM_64_NVIDIA"}
	updateStrategies = []string{"DEFAULT", "MINIMAL"}
)

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// EKS API Reference: Taint — at most 50 taints per node group; key 1–63 characters, value up
// to 63; effect NO_SCHEDULE | NO_EXECUTE | PREFER_NO_SCHEDULE.
func (v *eksValidator) taints(ts []Taint) *apiError {
	if len(ts) > 50 {
		return v.invalid("The number of taints (%d) exceeds the limit of 50 taints per node group", len(ts))
	}
	seen := map[string]bool{}
	for _, t := range ts {
		if err := v.taint(t); err != nil {
			return err
		}
		if seen[t.Key+":"+t.Effect] {
			return v.invalid("Duplicate taint with key %s and effect %s", t.Key, t.Effect)
		}
		seen[t.Key+":"+t.Effect] = true
	}
	return nil
}

func (v *eksValidator) taint(t Taint) *apiError {
	if !contains(taintEffects, t.Effect) {
		return v.invalid("Invalid taint effect: %s, must be one of these [NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE]", t.Effect)
	}
	if len(t.Key) < 1 || len(t.Key) > 63 {
		return v.invalid("Taint key %q is invalid: the key must be 1-63 characters long", t.Key)
	}
	if len(t.TaintValue()) > 63 {
		return v.invalid("Taint value %q is invalid: the value must be at most 63 characters long", t.TaintValue())
	}
	return nil
}

// k8sLabelValueRE is the Kubernetes label value syntax (k8s.io/apimachinery validation
// IsValidLabelValue), which EKS applies to node group labels: "Invalid value: …: field must consist of
// alphanumeric characters, '-', '_' or '.'" (aws-controllers-k8s/community#2208; EKS health issue code
// KubernetesLabelInvalid). A MIG profile such as 1g.10gb+me is no label value.
var k8sLabelValueRE = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)

// EKS API Reference: CreateNodegroup — labels: key 1–63 characters, value 1–63 characters, in the
// Kubernetes label syntax.
func (v *eksValidator) labels(ls map[string]string) *apiError {
	for _, k := range sortedKeys(ls) {
		if err := v.labelKey(k); err != nil {
			return err
		}
		if val := ls[k]; len(val) < 1 || len(val) > 63 {
			return v.invalid("Label value %q for key %s is invalid: the value must be 1-63 characters long", val, k)
		}
		if val := ls[k]; !k8sLabelValueRE.MatchString(val) {
			return v.invalid("Invalid value: %q: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (label %s)", val, k)
		}
	}
	return nil
}

// Kubernetes qualified names (k8s.io/apimachinery validation IsQualifiedName): an optional DNS
// subdomain prefix of at most 253 characters, then a name of at most 63.
var (
	qualifiedNameRE = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	dnsSubdomainRE  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// kubeletRejectedLabels are the label keys the EKS API takes (1-63 characters, no reserved prefix)
// but the nodes' kubelet refuses, not being Kubernetes qualified names. Audit eks-vs-real.md S3:
// EKS does not reject every invalid label up front; it has the node group health issue code
// KubernetesLabelInvalid (aws-sdk-go-v2 service/eks types.NodegroupIssueCode) for labels that fail
// later, when nodes register. Label values EKS checks at the request (validate labels, above, and
// aws-controllers-k8s/community#2208); keys cloudsim lets through to fail so.
func kubeletRejectedLabels(ls map[string]string) []string {
	var bad []string
	for _, k := range sortedKeys(ls) {
		prefix, name, hasPrefix := strings.Cut(k, "/")
		if !hasPrefix {
			prefix, name = "", k
		}
		if !qualifiedNameRE.MatchString(name) || (hasPrefix && (len(prefix) > 253 || !dnsSubdomainRE.MatchString(prefix))) {
			bad = append(bad, k)
		}
	}
	return bad
}

// labelIssues are the health issues of labels the kubelet refuses.
func labelIssues(bad []string, res *NodegroupResources) []HealthIssue {
	return issuesOrDefault([]HealthIssue{{Code: "KubernetesLabelInvalid",
		Message: "Nodes failed to register: invalid Kubernetes labels [" + strings.Join(bad, ", ") + "]: a label key must be a qualified name ([DNS subdomain prefix/]name)."}}, HealthIssue{}, res)
}

func (v *eksValidator) labelKey(k string) *apiError {
	if len(k) < 1 || len(k) > 63 {
		return v.invalid("Label key %q is invalid: the key must be 1-63 characters long", k)
	}
	// "The Managed Node Groups API currently rejects labels with prefixes containing
	// kubernetes.io/, k8s.io/, eks.amazonaws.com/" (kubernetes/cloud-provider-aws#242,
	// aws/containers-roadmap#1451).
	if hasLabelDomain(k, "kubernetes.io", "k8s.io", "eks.amazonaws.com") {
		return v.invalid("Label key %q is invalid: labels with prefixes containing kubernetes.io/, k8s.io/ or eks.amazonaws.com/ are not allowed", k)
	}
	return nil
}

// hasLabelDomain reports whether label key k's prefix is one of domains or a subdomain of one.
func hasLabelDomain(k string, domains ...string) bool {
	prefix, _, ok := strings.Cut(k, "/")
	if !ok {
		return false
	}
	for _, d := range domains {
		if prefix == d || strings.HasSuffix(prefix, "."+d) {
			return true
		}
	}
	return false
}

// validateTags checks EKS tag limits (EKS API Reference: TagResource — at most 50 tags, key
// 1–128 characters, value up to 256, the aws: prefix is reserved). It returns a message.
func validateTags(tags map[string]string) string {
	if len(tags) > 50 {
		return fmt.Sprintf("The number of tags (%d) exceeds the limit of 50", len(tags))
	}
	for _, k := range sortedKeys(tags) {
		switch {
		case len(k) < 1 || len(k) > 128:
			return fmt.Sprintf("Tag key %q must be 1-128 characters long", k)
		case strings.HasPrefix(strings.ToLower(k), "aws:"):
			return fmt.Sprintf("Tag key %q uses the reserved prefix aws:", k)
		case len(tags[k]) > 256:
			return fmt.Sprintf("Tag value for key %q must be at most 256 characters long", k)
		}
	}
	return ""
}

// EKS API Reference: NodegroupUpdateConfig — exactly one of maxUnavailable (1–100) and
// maxUnavailablePercentage (1–100); updateStrategy DEFAULT | MINIMAL.
func (v *eksValidator) updateConfig(uc *NodegroupUpdateConfig) *apiError {
	if uc == nil {
		return nil
	}
	if (uc.MaxUnavailable == nil) == (uc.MaxUnavailablePercentage == nil) && uc.UpdateStrategy == "" {
		return v.invalid("Exactly one of maxUnavailable and maxUnavailablePercentage must be specified")
	}
	if uc.MaxUnavailable != nil && uc.MaxUnavailablePercentage != nil {
		return v.invalid("Exactly one of maxUnavailable and maxUnavailablePercentage must be specified")
	}
	if m := uc.MaxUnavailable; m != nil && (*m < 1 || *m > 100) {
		return v.invalid("maxUnavailable must be between 1 and 100")
	}
	if m := uc.MaxUnavailablePercentage; m != nil && (*m < 1 || *m > 100) {
		return v.invalid("maxUnavailablePercentage must be between 1 and 100")
	}
	if uc.UpdateStrategy != "" && !contains(updateStrategies, uc.UpdateStrategy) {
		return v.enumError("updateConfig.updateStrategy", uc.UpdateStrategy, updateStrategies)
	}
	return nil
}

// instanceTypes checks the number of types (EKS API Reference: CreateNodegroup — instanceTypes, up
// to 20) and that each type the region offers is offered in at least one of the node group's
// availability zones. A type the region does not offer at all is not rejected here: EKS takes the
// request and the node group ends CREATE_FAILED with Ec2InstanceTypeDoesNotExist (see
// unknownInstanceTypes).
func (v *eksValidator) instanceTypes(types []string, zones []string) *apiError {
	if len(types) > 20 {
		return v.invalid("The number of instance types (%d) exceeds the limit of 20", len(types))
	}
	for _, t := range types {
		if v.seed.offeredInRegion(t) && !offeredInAny(v.seed, t, zones) {
			return v.invalid("Instance type %s is not offered in any of the requested availability zones [%s]", t, strings.Join(uniqSorted(zones), ", "))
		}
	}
	return nil
}

// unknownInstanceTypes are the types the region does not offer.
func (v *eksValidator) unknownInstanceTypes(types []string) []string {
	var unknown []string
	for _, t := range types {
		if !v.seed.offeredInRegion(t) {
			unknown = append(unknown, t)
		}
	}
	return unknown
}

// zonesOf are the availability zones of the (validated) subnets.
func (v *eksValidator) zonesOf(subnets []string) []string {
	var zones []string
	for _, id := range subnets {
		if sn := v.seed.subnet(id); sn != nil {
			zones = append(zones, sn.AvailabilityZone)
		}
	}
	return zones
}

func offeredInAny(seed *AWSRegionSeed, t string, zones []string) bool {
	for _, z := range zones {
		if seed.offeredInZone(t, z) {
			return true
		}
	}
	return false
}

func uniqSorted(in []string) []string {
	set := map[string]bool{}
	for _, v := range in {
		set[v] = true
	}
	return sortedKeys(set)
}

// isARMInstanceType reports Graviton instance types (m7g, c6gn, g5g, r8gd, ...): a "g" right
// after the generation digit.
func isARMInstanceType(t string) bool {
	family := instanceFamily(t)
	for i := 1; i < len(family); i++ {
		if family[i-1] >= '0' && family[i-1] <= '9' {
			return family[i] == 'g'
		}
	}
	return false
}

// amiArch checks the AMI type's architecture matches every instance type.
func (v *eksValidator) amiArch(ami string, types []string) *apiError {
	if ami == "" || ami == "CUSTOM" {
		return nil
	}
	arm := strings.Contains(ami, "ARM")
	for _, t := range types {
		if isARMInstanceType(t) != arm {
			return v.invalid("[%s] is not a valid instance type for requested amiType %s", t, ami)
		}
	}
	return nil
}

func minorOf(v string) (int, bool) {
	parts := strings.Split(v, ".")
	if len(parts) < 2 || parts[0] != "1" {
		return 0, false
	}
	n, err := strconv.Atoi(parts[1])
	return n, err == nil
}

func minorMinus(v string, d int) string {
	m, ok := minorOf(v)
	if !ok || m < d {
		return v
	}
	return "1." + strconv.Itoa(m-d)
}

// resolvedLT is a launch template referenced by a node group, resolved in the simulated EC2.
type resolvedLT struct {
	id, name                string
	version                 int64
	instanceType, imageID   string
	marketType              string
	capacityReservationID   string
	diskInTemplate, hasData bool
	warnings                []string // EC2's warnings on the version: nothing launches from it
}

// launchTemplate resolves an EKS LaunchTemplateSpecification against the EC2 side of the same
// simulator: id or name (not both), version a number, $Latest or $Default (default: the
// template's default version). EKS stores the resolved version number.
func (s *Sim) resolveLaunchTemplate(region string, spec *LaunchTemplateSpec, v *eksValidator) (*resolvedLT, *apiError) {
	if (spec.ID == "") == (spec.Name == "") {
		return nil, v.invalid("Either provide launch template ID or launch template name in the request.")
	}
	rec := s.w.launchTemplate(region, spec.ID, spec.Name)
	if rec == nil {
		return nil, v.invalid("The launch template %s does not exist", firstNonEmpty(spec.ID, spec.Name))
	}
	lt := &rec.LaunchTemplate
	ver := lt.version(spec.Version)
	if ver == nil {
		return nil, v.invalid("Launch template version %s does not exist for launch template %s", spec.Version, lt.ID)
	}
	data := ver.Data
	out := &resolvedLT{id: lt.ID, name: lt.Name, version: ver.VersionNumber, hasData: true,
		instanceType: treeString(data, "InstanceType"), imageID: treeString(data, "ImageId"),
		marketType:            treeString(data, "InstanceMarketOptions.MarketType"),
		capacityReservationID: treeString(data, "CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId")}
	out.diskInTemplate = treeValue(data, "BlockDeviceMapping") != nil
	out.warnings = ver.Warnings
	return out, nil
}

// validateCreateNodegroup runs every CreateNodegroup check and resolves the launch template.
func (s *Sim) validateCreateNodegroup(region string, cl *EKSClusterSeed, in *eksCreateNodegroupInput, v *eksValidator) (*resolvedLT, *apiError) {
	if err := v.name(in.NodegroupName); err != nil {
		return nil, err
	}
	if err := v.nodeRole(in.NodeRole); err != nil {
		return nil, err
	}
	zones, err := v.subnets(in.Subnets)
	if err != nil {
		return nil, err
	}
	checks := []func() *apiError{
		func() *apiError { return v.scaling(scalingWithDefaults(in.ScalingConfig)) },
		func() *apiError { return v.enum("capacityType", in.CapacityType, capacityTypes) },
		func() *apiError { return v.enum("amiType", in.AmiType, amiTypes) },
		func() *apiError { return v.labels(in.Labels) },
		func() *apiError { return v.taints(in.Taints) },
		func() *apiError { return v.tags(in.Tags) },
		func() *apiError { return v.updateConfig(in.UpdateConfig) },
		func() *apiError { return v.instanceTypes(in.InstanceTypes, zones) },
		func() *apiError { return v.createVersion(cl, in.Version) },
		func() *apiError { return v.amiForVersion(in.AmiType, cl.Version) },
		func() *apiError { return v.amiArch(in.AmiType, in.InstanceTypes) },
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return nil, err
		}
	}
	if in.LaunchTemplate == nil {
		if in.CapacityType == "CAPACITY_BLOCK" {
			return nil, v.invalid("Capacity type CAPACITY_BLOCK requires a launch template that targets a Capacity Block reservation")
		}
		return nil, nil
	}
	lt, err := s.resolveLaunchTemplate(region, in.LaunchTemplate, v)
	if err != nil {
		return nil, err
	}
	return lt, s.validateWithLaunchTemplate(region, in, lt, zones, v)
}

func (v *eksValidator) enum(member, value string, allowed []string) *apiError {
	if value != "" && !contains(allowed, value) {
		return v.enumError(member, value, allowed)
	}
	return nil
}

func (v *eksValidator) tags(tags map[string]string) *apiError {
	if msg := validateTags(tags); msg != "" {
		return v.invalid("%s", msg)
	}
	return nil
}

// validateWithLaunchTemplate applies the rules of the EKS User Guide "Customizing managed nodes
// with launch templates": instance type, disk size and remote access either in the template or
// in the request, a template AMI only with amiType CUSTOM (or unset), Capacity Blocks through
// the template.
func (s *Sim) validateWithLaunchTemplate(region string, in *eksCreateNodegroupInput, lt *resolvedLT, zones []string, v *eksValidator) *apiError {
	if lt.instanceType != "" && len(in.InstanceTypes) > 0 {
		return eksInvalidRequest(v.cluster, v.nodegroup, "Cannot specify instance types in launch template and API request")
	}
	if lt.instanceType != "" {
		if err := v.instanceTypes([]string{lt.instanceType}, zones); err != nil {
			return err
		}
	}
	if in.DiskSize != nil {
		return v.invalid("Disk size must be specified within the launch template.")
	}
	if in.RemoteAccess != nil {
		return v.invalid("Remote access configuration cannot be specified with a launch template.")
	}
	if lt.imageID != "" && in.AmiType != "" && in.AmiType != "CUSTOM" {
		return v.invalid("You cannot specify an AMI Type other than CUSTOM, when specifying an image id in your launch template.")
	}
	if in.CapacityType == "CAPACITY_BLOCK" {
		return s.validateCapacityBlock(region, lt, zones, v)
	}
	if lt.marketType == "capacity-block" {
		return v.invalid("Launch template %s requests market type capacity-block; use capacityType CAPACITY_BLOCK", lt.id)
	}
	return nil
}

// EKS User Guide, "Create a managed node group with Capacity Blocks for ML" (ml/capacity-blocks-mng):
// the launch template sets InstanceMarketOptions.MarketType capacity-block, targets the Capacity
// Block's reservation and sets InstanceType — "If the capacity type isn't set to "CAPACITY_BLOCK" or
// any of the other above required launch template values are missing, then the create request will
// be rejected" — so the request carries no instanceTypes (an instance type in the template and in
// the request is rejected, validateWithLaunchTemplate); and "make sure to only specify the subnet in
// the same Availability Zone as the capacity reservation".
func (s *Sim) validateCapacityBlock(region string, lt *resolvedLT, zones []string, v *eksValidator) *apiError {
	if lt.marketType != "capacity-block" || lt.capacityReservationID == "" || lt.instanceType == "" {
		return v.invalid("Capacity type CAPACITY_BLOCK requires a launch template with InstanceMarketOptions.MarketType capacity-block, a CapacityReservationTarget and an InstanceType")
	}
	cr := s.w.Seed.awsRegion(region).capacityReservation(lt.capacityReservationID)
	if cr == nil || cr.ReservationType != "capacity-block" {
		return v.invalid("Capacity reservation %s is not a Capacity Block", lt.capacityReservationID)
	}
	for _, z := range uniqSorted(zones) {
		if z != cr.AvailabilityZone {
			return v.invalid("Subnets must be in the Availability Zone of Capacity Block %s (%s), not %s", cr.ID, cr.AvailabilityZone, z)
		}
	}
	return nil
}

// configChange validates an UpdateNodegroupConfig request against the current node group and
// returns the change and the update params EKS reports (EKS API Reference: UpdateParam).
func configChange(ng Nodegroup, in *eksUpdateConfigInput, v *eksValidator) (ngChange, []UpdateParam, *apiError) {
	var ch ngChange
	var params []UpdateParam
	if in.Labels != nil {
		p, err := labelChange(in, v, &ch)
		if err != nil {
			return ch, nil, err
		}
		params = append(params, p...)
	}
	if in.Taints != nil {
		p, err := taintChange(ng, in, v, &ch)
		if err != nil {
			return ch, nil, err
		}
		params = append(params, p...)
	}
	if in.ScalingConfig != nil {
		p, err := scalingChange(ng, in.ScalingConfig, v, &ch)
		if err != nil {
			return ch, nil, err
		}
		params = append(params, p...)
	}
	if in.UpdateConfig != nil {
		if err := v.updateConfig(in.UpdateConfig); err != nil {
			return ch, nil, err
		}
		ch.UpdateConfig = in.UpdateConfig
		params = append(params, updateConfigParams(in.UpdateConfig)...)
	}
	if len(in.NodeRepairConfig) > 0 {
		ch.NodeRepairConfig = in.NodeRepairConfig
		params = append(params, UpdateParam{Type: "NodeRepairConfig", Value: string(in.NodeRepairConfig)})
	}
	if len(params) == 0 {
		return ch, nil, v.invalid("No changes needed")
	}
	return ch, params, nil
}

func labelChange(in *eksUpdateConfigInput, v *eksValidator, ch *ngChange) ([]UpdateParam, *apiError) {
	add, remove := in.Labels.AddOrUpdateLabels, in.Labels.RemoveLabels
	for _, k := range remove {
		if _, both := add[k]; both {
			return nil, v.invalid("The label key %s can't be both added and removed", k)
		}
		if err := v.labelKey(k); err != nil {
			return nil, err
		}
	}
	if err := v.labels(add); err != nil {
		return nil, err
	}
	ch.AddLabels, ch.RemoveLabels = add, remove
	var params []UpdateParam
	if len(add) > 0 {
		params = append(params, UpdateParam{Type: "LabelsToAdd", Value: jsonString(add)})
	}
	if len(remove) > 0 {
		params = append(params, UpdateParam{Type: "LabelsToRemove", Value: jsonString(remove)})
	}
	return params, nil
}

func taintChange(ng Nodegroup, in *eksUpdateConfigInput, v *eksValidator, ch *ngChange) ([]UpdateParam, *apiError) {
	add, remove := in.Taints.AddOrUpdateTaints, in.Taints.RemoveTaints
	if err := v.taints(add); err != nil {
		return nil, err
	}
	for _, t := range remove {
		if !contains(taintEffects, t.Effect) {
			return nil, v.taint(t)
		}
	}
	if err := v.taints(applyTaints(ng.Taints, add, remove)); err != nil {
		return nil, err
	}
	ch.AddTaints, ch.RemoveTaints = add, remove
	var params []UpdateParam
	if len(add) > 0 {
		params = append(params, UpdateParam{Type: "TaintsToAdd", Value: jsonString(add)})
	}
	if len(remove) > 0 {
		params = append(params, UpdateParam{Type: "TaintsToRemove", Value: jsonString(remove)})
	}
	return params, nil
}

// scalingChange merges the requested sizes over the current ones and validates the result.
func scalingChange(ng Nodegroup, req *ScalingConfig, v *eksValidator, ch *ngChange) ([]UpdateParam, *apiError) {
	cur := scalingWithDefaults(ng.ScalingConfig)
	next := &ScalingConfig{MinSize: ptr(*cur.MinSize), MaxSize: ptr(*cur.MaxSize), DesiredSize: ptr(*cur.DesiredSize)}
	var params []UpdateParam
	set := func(dst **int32, src *int32, typ string) {
		if src != nil {
			*dst = ptr(*src)
			params = append(params, UpdateParam{Type: typ, Value: strconv.Itoa(int(*src))})
		}
	}
	set(&next.MinSize, req.MinSize, "MinSize")
	set(&next.MaxSize, req.MaxSize, "MaxSize")
	set(&next.DesiredSize, req.DesiredSize, "DesiredSize")
	if err := v.scaling(next); err != nil {
		return nil, err
	}
	ch.Scaling = next
	return params, nil
}

func updateConfigParams(uc *NodegroupUpdateConfig) []UpdateParam {
	var params []UpdateParam
	if uc.MaxUnavailable != nil {
		params = append(params, UpdateParam{Type: "MaxUnavailable", Value: strconv.Itoa(int(*uc.MaxUnavailable))})
	}
	if uc.MaxUnavailablePercentage != nil {
		params = append(params, UpdateParam{Type: "MaxUnavailablePercentage", Value: strconv.Itoa(int(*uc.MaxUnavailablePercentage))})
	}
	if uc.UpdateStrategy != "" {
		params = append(params, UpdateParam{Type: "UpdateStrategy", Value: uc.UpdateStrategy})
	}
	return params
}

// versionChange validates an UpdateNodegroupVersion request (EKS API Reference:
// UpdateNodegroupVersion): the launch template must be the node group's own template (by id or
// name); without a version the node group moves to the cluster's ("If no version is specified, then
// the node group will be updated to match the cluster's current Kubernetes version"), never to an
// earlier one; without a release version it gets the latest AMI release of its version, with or
// without a launch template (unless its AMI is CUSTOM), so a launch template change alone upgrades
// the AMI too.
func (s *Sim) versionChange(region string, cl *EKSClusterSeed, ng Nodegroup, in *eksUpdateVersionInput) (ngChange, []UpdateParam, *apiError) {
	v := &eksValidator{cluster: cl.Name, nodegroup: ng.NodegroupName, seed: s.w.Seed.awsRegion(region)}
	var ch ngChange
	var params []UpdateParam
	if in.LaunchTemplate != nil {
		if ng.LaunchTemplate == nil {
			return ch, nil, v.invalid("A launch template can't be specified for a node group that was not created with one")
		}
		lt, err := s.resolveLaunchTemplate(region, in.LaunchTemplate, v)
		if err != nil {
			return ch, nil, err
		}
		if lt.id != ng.LaunchTemplate.ID {
			return ch, nil, v.invalid("You cannot change the launch template of a node group; it uses %s", ng.LaunchTemplate.ID)
		}
		ch.LaunchTemplate = &LaunchTemplateSpec{ID: lt.id, Name: lt.name, Version: strconv.FormatInt(lt.version, 10)}
		params = append(params, UpdateParam{Type: "LaunchTemplateName", Value: lt.name},
			UpdateParam{Type: "LaunchTemplateVersion", Value: ch.LaunchTemplate.Version})
	}
	version := firstNonEmpty(in.Version, cl.Version)
	if sc := ng.ScalingConfig; ng.CapacityType == "CAPACITY_BLOCK" && sc != nil && sc.DesiredSize != nil && *sc.DesiredSize > 0 {
		// EKS User Guide, capacity-blocks-mng: "When upgrading managed node groups with Capacity
		// Blocks, make sure that the desired size of the node group is set to 0." Audit
		// eks-vs-real.md S2/Q4: whether the API refuses such an update up front or the update fails
		// later is not documented; cloudsim refuses it at the request, the stricter of the two, so
		// that a client that does not check first fails at once in tests (gpufleet checks first).
		return ch, nil, eksInvalidRequest(cl.Name, ng.NodegroupName, "Nodegroup %s uses a Capacity Block: set its desired size to 0 before you update its version or launch template", ng.NodegroupName)
	}
	if err := v.updateVersion(cl, ng.Version, version); err != nil {
		return ch, nil, err
	}
	if err := v.amiForVersion(ng.AmiType, version); err != nil {
		return ch, nil, err
	}
	ch.Version = version
	params = append(params, UpdateParam{Type: "Version", Value: version})
	if ng.AmiType != "CUSTOM" {
		release, err := s.releaseFor(region, cl, v, ng.AmiType, version, in.ReleaseVersion, ng.ReleaseVersion)
		if err != nil {
			return ch, nil, err
		}
		ch.ReleaseVersion = release
		params = append(params, UpdateParam{Type: "ReleaseVersion", Value: release})
	}
	return ch, params, nil
}

func jsonString(v any) string {
	b, _ := json.Marshal(v) // maps marshal with sorted keys, so params are deterministic
	return string(b)
}
