package eks

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

const (
	// tagSpotMix records the spot mix on each node group, so that import and refresh can tell how
	// the two node groups' sizes came about. It is not part of effective_tags.
	tagSpotMix = "gpufleet:spot-mix"
	// The cluster autoscaler's node-template tags. For an EKS managed node group it reads labels and
	// taints from DescribeNodegroup, and from the node group's tags only node-template/resources/*
	// (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/aws_manager.go:
	// getManagedNodegroupLabels, getManagedNodegroupTaints, extractAllocatableResourcesFromTags); the
	// auto-discovery tags (enabled, <cluster>) it reads from the Auto Scaling group, which EKS tags
	// itself. So a node group carries only the resources it advertises beyond its instance type's
	// GPUs: MIG slices, shared replicas.
	autoscalerPrefix         = "k8s.io/cluster-autoscaler/"
	autoscalerResourcePrefix = autoscalerPrefix + "node-template/resources/"
)

// maxNodegroupTags is how many tags EKS takes on a node group (EKS API Reference: TagResource).
const maxNodegroupTags = 50

// eksInstanceTags is how many tags EKS's Auto Scaling group adds to every instance of a node group,
// which count against the instance's 50 (EC2 User Guide, "Tag restrictions": aws: tags do not):
// eks:cluster-name, eks:nodegroup-name, k8s.io/cluster-autoscaler/enabled,
// k8s.io/cluster-autoscaler/<cluster> and kubernetes.io/cluster/<cluster>. EKS documents no list
// (audit eks-vs-real.md D12, Q11); these are the ones its groups are seen with
// (aws/containers-roadmap#608 and the workarounds there), and a launch over the limit fails the
// node group, so gpufleet counts all five.
const eksInstanceTags = 5

// maxInstanceTags is how many tags an EC2 instance takes.
const maxInstanceTags = 50

// nodegroupTagsProblem explains a node group, or its instances, that would carry more tags than EKS
// or EC2 takes: besides the pool's effective tags, a node group carries the owner tag, the spot mix
// and the cluster autoscaler's resource tags, and an instance EKS's own. "" when everything fits.
func nodegroupTagsProblem(s pool.Spec, d pool.Derived) string {
	if n := len(d.Tags) + eksInstanceTags; n > maxInstanceTags {
		return fmt.Sprintf("the node groups' instances would carry %d tags, and EC2 takes at most %d: the pool's %d effective tags (default_tags, tags and the derived gpufleet: tags) and the %d that EKS's Auto Scaling group adds to every instance (eks:cluster-name, eks:nodegroup-name, kubernetes.io/cluster/<cluster> and the cluster autoscaler's discovery tags). A launch over the limit fails. Remove tags.",
			n, maxInstanceTags, len(d.Tags), eksInstanceTags)
	}
	for _, cfg := range sideConfigs(poolOwner{}, s, d) {
		if n := len(cfg.Tags); n > maxNodegroupTags {
			return fmt.Sprintf("node group %s would carry %d tags, and EKS takes at most %d: the pool's %d effective tags (default_tags, tags and the derived gpufleet: tags) and %d that gpufleet adds (the owner tag, the spot mix and the cluster autoscaler's resources). Remove tags.",
				cfg.Name, n, maxNodegroupTags, len(d.Tags), n-len(d.Tags))
		}
	}
	return ""
}

// nodegroupTagsCheck is the plan-time check of the tag limit, at the tags attribute.
func nodegroupTagsCheck(s pool.Spec, d pool.Derived, diags *diag.Diagnostics) {
	if problem := nodegroupTagsProblem(s, d); problem != "" {
		diags.AddAttributeError(path.Root("tags"), "Too many tags for an EKS node group or its instances", problem)
	}
}

// sideConfig is everything one node group of the pool is created or updated with.
type sideConfig struct {
	pool.Side
	AutoscalerOwnsSize bool // keep the node group's desired size within Sizes.Min..Max instead of Sizes.Desired
	InstanceTypes      []string
	Labels             map[string]string
	Taints             []pool.Taint
	Tags               map[string]string // node group tags: effective tags, spot mix, autoscaler templates
	InstanceTags       map[string]string // launch template tag specifications: effective tags
	Reservation        *pool.Reservation // only on the on-demand side
	// InstanceType goes into the launch template, not CreateNodegroup: a capacity block's (EKS User
	// Guide, capacity-blocks-mng: the template sets InstanceType; the API request then takes no
	// instanceTypes, EKS API Reference: CreateNodegroup). "" for other sides.
	InstanceType string
	// Network is the EFA interfaces and placement group of the network block (network.go).
	Network sideNetwork
	// OwnDefaultTags lists the pool's tags that repeat a default_tags value (see tagOwnDefaultTags).
	OwnDefaultTags string
	// PinnedVersion and PinnedRelease are kubernetes_version and release_version when the
	// configuration sets them ("" when the pool follows the cluster and keeps its release);
	// CreateRelease is the release a new node group of the side is created with ("" for the latest).
	PinnedVersion, PinnedRelease, CreateRelease string
}

// instanceTypes are the instance types the side's instances launch as.
func (c sideConfig) instanceTypes() []string {
	if c.InstanceType != "" {
		return []string{c.InstanceType}
	}
	return c.InstanceTypes
}

// sideConfigs expands a pool into its node groups.
func sideConfigs(owner poolOwner, s pool.Spec, d pool.Derived) []sideConfig {
	var out []sideConfig
	for _, side := range d.Sides {
		labels := pool.SideLabels(d.Labels, side)
		tags := maps.Clone(d.Tags)
		tags[tagOwner] = owner.side(side.Name).value()
		tags[tagSpotMix] = formatSpotMix(s.Capacity)
		for resource, n := range advertisedResources(s, d) {
			tags[autoscalerResourcePrefix+resource] = strconv.Itoa(n)
		}
		cfg := sideConfig{Side: side, AutoscalerOwnsSize: s.AutoscalerOwnsSize, InstanceTypes: s.InstanceTypes, Labels: labels, Taints: d.Taints, Tags: tags, InstanceTags: d.Tags}
		if !side.Spot() {
			cfg.Reservation = s.Capacity.Reservation
		}
		if side.CapacityType == pool.CapacityCapacityBlock {
			cfg.InstanceType, cfg.InstanceTypes = s.InstanceTypes[0], nil
		}
		out = append(out, cfg)
	}
	return out
}

// advertisedResources is what the NVIDIA device plugin advertises on one node, by resource name, as
// the cluster autoscaler's node-template resource tags say it. Under the GPU Operator's single MIG
// strategy: nvidia.com/gpu for the GPUs, or their MIG slices, times the sharing replicas. Under the
// mixed strategy (pool.MIGStrategyMixed; all-balanced needs it) each slice size is
// nvidia.com/mig-<profile> (all-balanced: two of the smallest and one of each larger per GPU, the
// GPU Operator's all-balanced, gpu-operator assets/state-mig-manager/0400_configmap.yaml), and
// nvidia.com/gpu is 0: the autoscaler takes a node's GPU count from its instance type and only
// overrides resources its tags name (kubernetes/autoscaler cloudprovider/aws/aws_manager.go), so
// without it the template would offer whole GPUs the node never advertises (audit eks-vs-real.md D3).
func advertisedResources(s pool.Spec, d pool.Derived) map[string]int {
	m := s.GPU.MIG
	switch {
	case m != nil && m.Config == pool.MIGConfigBalanced && len(d.GPU.BalancedMIG) > 0:
		out := map[string]int{"nvidia.com/gpu": 0}
		for i, profile := range d.GPU.BalancedMIG {
			n := 1
			if i == 0 {
				n = 2
			}
			out["nvidia.com/mig-"+profile] = n * d.Node.GPUCount
		}
		return out
	case m != nil && s.GPU.Mixed():
		p, _ := pool.SliceProfile(d.GPU, *m)
		return map[string]int{"nvidia.com/gpu": 0, "nvidia.com/mig-" + p.Name: d.Node.GPUCount * p.MaxInstances}
	}
	perGPU := 1
	if m != nil {
		p, _ := pool.SliceProfile(d.GPU, *m)
		perGPU = p.MaxInstances
	}
	if sh := s.GPU.Sharing; sh != nil {
		perGPU *= sh.Replicas
	}
	return map[string]int{"nvidia.com/gpu": d.Node.GPUCount * perGPU}
}

func formatSpotMix(c pool.Capacity) string {
	return fmt.Sprintf("spot_percentage=%d,on_demand_base=%d", c.SpotPercentage, c.OnDemandBase)
}

func parseSpotMix(v string) (pct, base int, ok bool) {
	_, err := fmt.Sscanf(v, "spot_percentage=%d,on_demand_base=%d", &pct, &base)
	return pct, base, err == nil
}

// launchTemplateName is deterministic, so that a create can find a template of ours left over from
// an earlier attempt. The '.' cannot occur in EKS cluster or node group names
// ([0-9A-Za-z][A-Za-z0-9-_]*), so no two cluster and node group pairs share a name (with '-',
// cluster ml-a with node group b-od and cluster ml with node group a-b-od did).
func launchTemplateName(cluster, nodegroup string) string {
	return "gpufleet." + cluster + "." + nodegroup
}

// legacyLaunchTemplateName is the name earlier versions gave the template; see ownsLaunchTemplate.
func legacyLaunchTemplateName(cluster, nodegroup string) string {
	return "gpufleet-" + cluster + "-" + nodegroup
}

// maxLaunchTemplateName is EC2's limit (EC2 API Reference: CreateLaunchTemplate, LaunchTemplateName).
const maxLaunchTemplateName = 128

// tagOwnDefaultTags, on the launch template, lists (comma-separated; tag keys cannot contain commas)
// the keys of the pool's tags that repeat a default_tags value. The node group's tags cannot tell
// such a tag from the default, and import needs to know which of the two the configuration says.
const tagOwnDefaultTags = "gpufleet:own-default-tags"

// maxTagValue is EC2's and EKS's limit on a tag value.
const maxTagValue = 256

// templateTags are the launch template's own tags: the pool's, so cost allocation sees the template
// too, the owner tag, and the pool's tags that repeat defaults.
func (o sideOwner) templateTags(cfg sideConfig) map[string]string {
	tags := maps.Clone(cfg.InstanceTags)
	tags[tagOwner] = o.value()
	if cfg.OwnDefaultTags != "" {
		tags[tagOwnDefaultTags] = cfg.OwnDefaultTags
	}
	return tags
}

// syncLaunchTemplateTags gives a template exactly the tags want: its own tags follow the pool's as
// its versions' tag specifications do.
func syncLaunchTemplateTags(ctx context.Context, conn *ec2.Client, lt *ec2types.LaunchTemplate, want map[string]string) error {
	id := aws.ToString(lt.LaunchTemplateId)
	current := tagMap(lt.Tags)
	var remove []ec2types.Tag
	for _, k := range slices.Sorted(maps.Keys(current)) {
		if _, ok := want[k]; !ok {
			remove = append(remove, ec2types.Tag{Key: aws.String(k)})
		}
	}
	add := map[string]string{}
	for k, v := range want {
		if cur, ok := current[k]; !ok || cur != v {
			add[k] = v
		}
	}
	if len(remove) > 0 {
		if _, err := conn.DeleteTags(ctx, &ec2.DeleteTagsInput{Resources: []string{id}, Tags: remove}); err != nil {
			return fmt.Errorf("DeleteTags on launch template %s: %w", id, err)
		}
	}
	if len(add) > 0 {
		if _, err := conn.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{id}, Tags: ec2Tags(add)}); err != nil {
			return fmt.Errorf("CreateTags on launch template %s: %w", id, err)
		}
	}
	return nil
}

// nodegroupOnlyTag is a tag gpufleet puts on node groups besides the pool's effective tags.
func nodegroupOnlyTag(key string) bool {
	return key == tagSpotMix || key == tagOwner || strings.HasPrefix(key, autoscalerPrefix)
}

// launchTemplateData carries what EKS does not manage itself: tags for instances and volumes (so
// per-client cost allocation reaches EC2), the reservation target, and IMDSv2. No AMI or user data,
// and no instance type but a capacity block's: EKS sets those from the node group (EKS User Guide,
// "Customizing managed nodes with launch templates"). No network-interface tags: EKS's copy of the
// template drops them (aws/containers-roadmap#1496, terraform-provider-aws#32151; audit
// eks-vs-real.md D6), and the VPC CNI's secondary interfaces never see a template's.
func launchTemplateData(cfg sideConfig) *ec2types.RequestLaunchTemplateData {
	tags := ec2Tags(cfg.InstanceTags)
	data := &ec2types.RequestLaunchTemplateData{
		MetadataOptions: &ec2types.LaunchTemplateInstanceMetadataOptionsRequest{
			HttpTokens:              ec2types.LaunchTemplateHttpTokensStateRequired,
			HttpPutResponseHopLimit: aws.Int32(2), // pods reach IMDS through one extra hop
			HttpEndpoint:            ec2types.LaunchTemplateInstanceMetadataEndpointStateEnabled,
		},
		TagSpecifications: []ec2types.LaunchTemplateTagSpecificationRequest{
			{ResourceType: ec2types.ResourceTypeInstance, Tags: tags},
			{ResourceType: ec2types.ResourceTypeVolume, Tags: tags},
		},
	}
	if r := cfg.Reservation; r != nil {
		data.CapacityReservationSpecification = &ec2types.LaunchTemplateCapacityReservationSpecificationRequest{
			CapacityReservationTarget: &ec2types.CapacityReservationTarget{CapacityReservationId: aws.String(r.ID)},
		}
		if r.Type == pool.ReservationCapacityBlock {
			data.InstanceMarketOptions = &ec2types.LaunchTemplateInstanceMarketOptionsRequest{MarketType: ec2types.MarketTypeCapacityBlock}
		}
	}
	if cfg.InstanceType != "" {
		data.InstanceType = ec2types.InstanceType(cfg.InstanceType)
	}
	if cfg.Network.EFAInterfaces > 0 {
		data.NetworkInterfaces = efaInterfaces(cfg.Network.EFAInterfaces)
	}
	if cfg.Network.PlacementGroup != "" {
		data.Placement = &ec2types.LaunchTemplatePlacementRequest{GroupName: aws.String(cfg.Network.PlacementGroup)}
	}
	return data
}

func ec2Tags(m map[string]string) []ec2types.Tag {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tags := make([]ec2types.Tag, len(keys))
	for i, k := range keys {
		tags[i] = ec2types.Tag{Key: aws.String(k), Value: aws.String(m[k])}
	}
	return tags
}

// createLaunchTemplate creates the side's launch template and returns its id and version, and
// whether this call created it. A template of the same name that the side owns is left over from an
// earlier attempt (a cleanup that failed, a node group deleted outside terraform): it gets a new
// version instead. A template of the same name that the side does not own is an error, and stays as
// it is.
//
// A template EC2 made with warnings (warningError) is deleted again; when that deletion fails, it
// comes back with the error, its id and version set, as a lost answer's does.
//
// When CreateLaunchTemplate fails with an answer that may have been lost (answerMayBeLost: the create
// timeout or an interrupt ended the call after EC2 accepted it), the side's template is looked for
// by its name and owner tag (findLostLaunchTemplate). One found comes back with the error, its id
// and version set and created false: the caller records it as the side's, so that the next apply
// reuses it and destroy deletes it. Left out of state, it would carry an owner id no state holds (a
// new pool's), and the next apply would fail on it as another's.
func createLaunchTemplate(ctx context.Context, conn *ec2.Client, o sideOwner, cfg sideConfig, poll time.Duration) (id, version string, created bool, err error) {
	name := o.templateName()
	var tries attempts
	out, err := conn.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{
		LaunchTemplateName: aws.String(name),
		LaunchTemplateData: launchTemplateData(cfg),
		VersionDescription: aws.String("gpufleet " + cfg.Name),
		TagSpecifications: []ec2types.TagSpecification{
			{ResourceType: ec2types.ResourceTypeLaunchTemplate, Tags: ec2Tags(o.templateTags(cfg))},
		},
	}, tries.ec2Option)
	err = tries.wrap(err)
	if isAlreadyExists(err) {
		existing, findErr := findLaunchTemplateByName(ctx, conn, name)
		if findErr != nil {
			return "", "", false, fmt.Errorf("%w (and finding it: %w)", err, findErr)
		}
		if err := o.checkOwned(existing); err != nil {
			return "", "", false, err
		}
		if err := syncLaunchTemplateTags(ctx, conn, existing, o.templateTags(cfg)); err != nil {
			return "", "", false, err
		}
		id := aws.ToString(existing.LaunchTemplateId)
		version, err := createLaunchTemplateVersion(ctx, conn, id, cfg)
		return id, version, false, err
	}
	if err != nil {
		if lt, findErr := findLostLaunchTemplate(ctx, conn, o, err, poll); findErr == nil {
			id := aws.ToString(lt.LaunchTemplateId)
			return id, strconv.FormatInt(aws.ToInt64(lt.LatestVersionNumber), 10), false,
				fmt.Errorf("%w; EC2 made launch template %s all the same (found by its %s tag): state records it as the pool's, so that the next apply reuses it, or deletes it with a pool it replaces, rather than fail on it as another's", err, id, tagOwner)
		}
		return "", "", false, err
	}
	lt := out.LaunchTemplate
	id = aws.ToString(lt.LaunchTemplateId)
	version = strconv.FormatInt(aws.ToInt64(lt.LatestVersionNumber), 10)
	if err := warningError(out.Warning); err != nil {
		if _, delErr := conn.DeleteLaunchTemplate(context.WithoutCancel(ctx), &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: aws.String(id)}); delErr != nil && !isNotFound(delErr) {
			// The template stays: it comes back with the error, for the caller to record as the
			// side's. Left out of state, it would carry an owner id no state holds (a new pool's),
			// and the next apply would fail on it as another's.
			return id, version, false, fmt.Errorf("%w (and deleting launch template %s again: %w; state records it as the pool's, so that the next apply reuses it, or deletes it with a pool it replaces, and destroy deletes it)", err, id, delErr)
		}
		return "", "", false, err
	}
	return id, version, true, nil
}

// findLostLaunchTemplate returns the side's template that a CreateLaunchTemplate call that failed
// with createErr made all the same, its answer lost; an error when there is none (one of the side's
// name that is not the side's is not it). EC2 reads are eventually consistent (EC2 API Reference,
// "Eventual consistency in the Amazon EC2 API"), so a template the call made may take a moment to be
// found: findAfterFailedCreate reads a few times. A refusal (a 4xx answer) made nothing, and is not
// looked into.
func findLostLaunchTemplate(ctx context.Context, conn *ec2.Client, o sideOwner, createErr error, poll time.Duration) (*ec2types.LaunchTemplate, error) {
	if !answerMayBeLost(createErr) {
		return nil, createErr
	}
	return findAfterFailedCreate(ctx, createErr, poll, func(ctx context.Context) (*ec2types.LaunchTemplate, error) {
		lt, err := findLaunchTemplateByName(ctx, conn, o.templateName())
		if err != nil {
			return nil, err
		}
		return lt, o.checkOwned(lt)
	})
}

// warningError turns the warnings EC2 returns with a launch template (version) into an error: EC2
// creates it despite data no instance launches from (EC2 API Reference, CreateLaunchTemplate —
// Warning), and the node group would fail on it only later.
func warningError(w *ec2types.ValidationWarning) error {
	if w == nil || len(w.Errors) == 0 {
		return nil
	}
	var msgs []string
	for _, e := range w.Errors {
		msgs = append(msgs, aws.ToString(e.Code)+": "+aws.ToString(e.Message))
	}
	return fmt.Errorf("EC2 took the launch template data with warnings, and no instance would launch from it: %s", strings.Join(msgs, "; "))
}

// createLaunchTemplateVersion adds a version with the side's current data and makes it the default.
func createLaunchTemplateVersion(ctx context.Context, conn *ec2.Client, id string, cfg sideConfig) (string, error) {
	out, err := conn.CreateLaunchTemplateVersion(ctx, &ec2.CreateLaunchTemplateVersionInput{
		LaunchTemplateId:   aws.String(id),
		LaunchTemplateData: launchTemplateData(cfg),
		VersionDescription: aws.String("gpufleet " + cfg.Name),
	})
	if err != nil {
		return "", err
	}
	if err := warningError(out.Warning); err != nil {
		return "", err
	}
	version := strconv.FormatInt(aws.ToInt64(out.LaunchTemplateVersion.VersionNumber), 10)
	if _, err := conn.ModifyLaunchTemplate(ctx, &ec2.ModifyLaunchTemplateInput{LaunchTemplateId: aws.String(id), DefaultVersion: aws.String(version)}); err != nil {
		return "", err
	}
	return version, nil
}

// deleteOwnedLaunchTemplate deletes a template by id once it has confirmed that the side owns it.
// A template that is already gone is fine; one the side does not own is a *notOwnedError.
func deleteOwnedLaunchTemplate(ctx context.Context, conn *ec2.Client, o sideOwner, id string) error {
	if _, err := findOwnedLaunchTemplate(ctx, conn, o, id); err != nil {
		if isNotFound(err) {
			return nil
		}
		return err
	}
	_, err := conn.DeleteLaunchTemplate(ctx, &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: aws.String(id)})
	if err != nil && !isNotFound(err) {
		return err
	}
	return nil
}

// launchTemplateDiffers reports whether the template version in use lacks the side's current data,
// its tags aside (they reach the nodes without a new version, fleet.go): a new version, and a roll.
func launchTemplateDiffers(v *ec2types.LaunchTemplateVersion, cfg sideConfig) bool {
	if v == nil || v.LaunchTemplateData == nil {
		return true
	}
	data := v.LaunchTemplateData
	if string(data.InstanceType) != cfg.InstanceType || networkOfTemplate(data) != cfg.Network {
		return true
	}
	return reservationFromTemplate(data) != reservationKey(cfg.Reservation)
}

// templateTagsDiffer reports whether the template version in use tags instances otherwise than the
// side's tags: brought up to date by the next roll that happens anyway.
func templateTagsDiffer(v *ec2types.LaunchTemplateVersion, cfg sideConfig) bool {
	return !maps.Equal(templateInstanceTags(v), cfg.InstanceTags)
}

func tagMap(tags []ec2types.Tag) map[string]string {
	m := make(map[string]string, len(tags))
	for _, t := range tags {
		m[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return m
}

// reservationKey is a reservation target as a launch template holds it (its price is not there).
func reservationKey(r *pool.Reservation) string {
	if r == nil {
		return ""
	}
	return r.Type + "/" + r.ID
}

func reservationFromTemplate(data *ec2types.ResponseLaunchTemplateData) string {
	r := reservationOf(data)
	return reservationKey(r)
}

// reservationOf reads the reservation target back from a launch template version.
func reservationOf(data *ec2types.ResponseLaunchTemplateData) *pool.Reservation {
	if data == nil || data.CapacityReservationSpecification == nil || data.CapacityReservationSpecification.CapacityReservationTarget == nil {
		return nil
	}
	id := aws.ToString(data.CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId)
	if id == "" {
		return nil
	}
	typ := pool.ReservationCapacityReservation
	if data.InstanceMarketOptions != nil && data.InstanceMarketOptions.MarketType == ec2types.MarketTypeCapacityBlock {
		typ = pool.ReservationCapacityBlock
	}
	return &pool.Reservation{ID: id, Type: typ}
}

// eksTaints converts taints to the EKS API's type. Every taint carries a value, "" for a taint
// without one, as terraform-provider-aws sends them (internal/service/eks/node_group.go,
// expandTaints): the cluster autoscaler builds a node group's scale-from-zero template only from
// DescribeNodegroup taints whose value is not null (kubernetes/autoscaler
// cluster-autoscaler/cloudprovider/aws/aws_wrapper.go, getManagedNodegroupInfo), and whether EKS
// echoes an omitted value as "" is not documented (audit eks-vs-real.md D5, Q1).
func eksTaints(taints []pool.Taint) []types.Taint {
	out := make([]types.Taint, len(taints))
	for i, t := range taints {
		out[i] = types.Taint{Key: aws.String(t.Key), Value: aws.String(t.Value), Effect: types.TaintEffect(t.Effect)}
	}
	return out
}

func poolTaints(taints []types.Taint) []pool.Taint {
	out := make([]pool.Taint, len(taints))
	for i, t := range taints {
		out[i] = pool.Taint{Key: aws.ToString(t.Key), Value: aws.ToString(t.Value), Effect: string(t.Effect)}
	}
	poolschema.SortTaints(out)
	return out
}

// isDerivedTag reports the tags gpufleet puts on node groups itself: its own and the cluster
// autoscaler's, those earlier versions wrote included.
func isDerivedTag(cloudKey string) bool {
	return strings.HasPrefix(cloudKey, "gpufleet:") || strings.HasPrefix(cloudKey, autoscalerPrefix)
}
