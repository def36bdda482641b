package eks

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	fwtypes "github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// The network block: inter-node GPU networking for multi-node training (issue #40, item 8). EFA
// interfaces go on the sides' launch templates, one per network card: card 0 device 0 "efa" (EFA
// with ENA: the primary interface cannot be EFA-only), every further card device 1 "efa-only" (EC2
// User Guide, "Maximize network bandwidth on accelerated computing instances with EFA", read
// 2026-11-28: "For the primary network interface (network card index 0, device index 0), create an
// EFA (EFA with ENA) interface … For each additional network interface, use the next unused network
// card index, device index 1, and either an EFA (EFA with ENA) or EFA-only network interface").
// The interfaces name no subnet and no security group: EKS places a managed node group's instances
// in its subnets and, for a launch template without security groups, gives them the cluster
// security group (EKS User Guide, "Customizing managed nodes with launch templates"; that this holds
// for the interfaces a template lists is assumed: the guide speaks of the template's security
// groups).
//
// A placement group keeps the nodes close (a cluster placement group: one Availability Zone, EC2
// User Guide "Placement strategies"): one gpufleet creates and owns (placement_strategy; tagged
// gpufleet:owner = <cluster>/<pool>/placement-group/<owner id>, deleted with the pool, never when
// the tag is not the pool's), or an existing one by name (placement_group_name; never changed or
// deleted).

// networkModel is the network block.
type networkModel struct {
	EFA                fwtypes.Bool   `tfsdk:"efa"`
	EFAInterfaces      fwtypes.Int64  `tfsdk:"efa_interfaces"`
	PlacementStrategy  fwtypes.String `tfsdk:"placement_strategy"`
	PlacementGroupName fwtypes.String `tfsdk:"placement_group_name"`
	PlacementGroup     fwtypes.String `tfsdk:"placement_group"`
}

// placementGroupOwnerName is the node group part of a placement group's owner tag.
const placementGroupOwnerName = "placement-group"

// placementStrategyCluster is the one strategy gpufleet creates: nodes of one replica close together.
const placementStrategyCluster = "cluster"

func networkBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Inter-node GPU networking for training whose replicas span several nodes (`workload.gpus_per_replica` a multiple of the node's GPUs): " +
			"Elastic Fabric Adapter interfaces on the nodes' network cards and a placement group, both through the sides' launch templates. " +
			"Checked at plan: EFA only on instance types that support it (p4d, p4de, p5, p5e, p5en, p6-b200, g6e from 8xlarge, g5/g6 from 8xlarge, p3dn …), " +
			"and a cluster placement group only with one subnet (its instances share one Availability Zone). A change of `efa` or `efa_interfaces` is a new launch template version, which rolls the nodes.",
		Attributes: map[string]schema.Attribute{
			"efa": schema.BoolAttribute{
				MarkdownDescription: "EFA interfaces on the nodes: `efa` (EFA with ENA) on network card 0 as the primary interface, `efa-only` on each further card (device index 1), as the EC2 User Guide recommends for instance types with several network cards. Default `false`.",
				Optional:            true,
			},
			"efa_interfaces": schema.Int64Attribute{
				MarkdownDescription: "How many network cards get an EFA interface; default all the instance types have (p5.48xlarge 32, p5en 16, p6-b200 8, p4d 4; with several instance types, the fewest of them). At most the cards of every instance type. Needs `efa = true`.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1), int64validator.AlsoRequires(path.MatchRelative().AtParent().AtName("efa"))},
			},
			"placement_strategy": schema.StringAttribute{
				MarkdownDescription: "`cluster`: gpufleet creates a cluster placement group `gpufleet-<cluster_name>-<name>` for the pool, tagged `gpufleet:owner`, and deletes it with the pool (only if the tag is still the pool's). Needs a single subnet in `subnet_ids`. Changing it replaces the pool.",
				Optional:            true,
				Validators: []validator.String{stringvalidator.OneOf(placementStrategyCluster),
					stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("placement_group_name"))},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"placement_group_name": schema.StringAttribute{
				MarkdownDescription: "An existing placement group for the nodes, which gpufleet never changes or deletes. Checked before anything is created (`ec2:DescribePlacementGroups`): it exists, and a cluster group is used with one subnet only. Changing it replaces the pool.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthBetween(1, 255)},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"placement_group": schema.StringAttribute{
				MarkdownDescription: "The placement group the nodes launch in: the one gpufleet created, or `placement_group_name`; null without one.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

// plannedPlacementGroup is network.placement_group as a plan knows it: the group gpufleet will
// create, the one named, or none; unknown while the names it comes from are.
func plannedPlacementGroup(m *nodePoolModel) fwtypes.String {
	n := m.Network
	switch {
	case n.PlacementStrategy.IsUnknown() || n.PlacementGroupName.IsUnknown():
		return fwtypes.StringUnknown()
	case n.PlacementStrategy.ValueString() == placementStrategyCluster:
		if !knownString(m.ClusterName) || !knownString(m.Name) {
			return fwtypes.StringUnknown()
		}
		return fwtypes.StringValue(ownedPlacementGroupName(m.ClusterName.ValueString(), m.Name.ValueString()))
	case !n.PlacementGroupName.IsNull():
		return n.PlacementGroupName
	}
	return fwtypes.StringNull()
}

// efaChanges reports whether a plan changes the EFA interfaces of a pool in state: a new launch
// template version, which rolls the nodes. (Another placement group replaces the pool.)
func efaChanges(plan, state *nodePoolModel) bool {
	efa := func(m *nodePoolModel) (bool, fwtypes.Int64) {
		if m.Network == nil {
			return false, fwtypes.Int64Null()
		}
		return m.Network.EFA.ValueBool(), m.Network.EFAInterfaces
	}
	on, n := efa(plan)
	wasOn, was := efa(state)
	return on != wasOn || on && !n.Equal(was)
}

// ownedPlacementGroupName is the name of the placement group gpufleet creates for a pool.
func ownedPlacementGroupName(cluster, name string) string { return "gpufleet-" + cluster + "-" + name }

// sideNetwork is what a side's launch template carries of the network block.
type sideNetwork struct {
	EFAInterfaces  int
	PlacementGroup string
}

// networkOf is the sides' network: the EFA interfaces (efa_interfaces, else the fewest network cards
// of the instance types) and the placement group.
func (m *nodePoolModel) networkOf(instanceTypes []string) sideNetwork {
	n := m.Network
	if n == nil {
		return sideNetwork{}
	}
	var out sideNetwork
	switch {
	case n.PlacementStrategy.ValueString() == placementStrategyCluster:
		out.PlacementGroup = ownedPlacementGroupName(m.ClusterName.ValueString(), m.Name.ValueString())
	case knownString(n.PlacementGroupName):
		out.PlacementGroup = n.PlacementGroupName.ValueString()
	}
	if !n.EFA.ValueBool() {
		return out
	}
	if !n.EFAInterfaces.IsNull() && !n.EFAInterfaces.IsUnknown() {
		out.EFAInterfaces = int(n.EFAInterfaces.ValueInt64())
		return out
	}
	out.EFAInterfaces = fewestEFACards(instanceTypes)
	return out
}

// fewestEFACards is the fewest network cards (one EFA each) of instance types that all support EFA;
// 0 when one does not.
func fewestEFACards(instanceTypes []string) int {
	fewest := 0
	for _, it := range instanceTypes {
		n, ok := catalog.AWSInstanceType(it)
		if !ok || !n.MultiNode() {
			return 0
		}
		if fewest == 0 || n.InterNodeNICs < fewest {
			fewest = n.InterNodeNICs
		}
	}
	return fewest
}

// efaInterfaces is the launch template's network interfaces for n EFA interfaces.
func efaInterfaces(n int) []ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest {
	out := make([]ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest, n)
	for i := range n {
		out[i] = ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest{
			NetworkCardIndex: aws.Int32(int32(i)), DeviceIndex: aws.Int32(1), InterfaceType: aws.String("efa-only")}
		if i == 0 {
			out[i].DeviceIndex, out[i].InterfaceType = aws.Int32(0), aws.String("efa")
		}
	}
	return out
}

// networkOfTemplate reads a launch template version's EFA interfaces and placement group back.
func networkOfTemplate(data *ec2types.ResponseLaunchTemplateData) sideNetwork {
	var out sideNetwork
	if data == nil {
		return out
	}
	for _, ni := range data.NetworkInterfaces {
		if t := aws.ToString(ni.InterfaceType); t == "efa" || t == "efa-only" {
			out.EFAInterfaces++
		}
	}
	if data.Placement != nil {
		out.PlacementGroup = aws.ToString(data.Placement.GroupName)
	}
	return out
}

// warnReplicaWithoutEFA warns when the workload's replicas span nodes (workload.gpus_per_replica a
// multiple of the instance type's GPUs) and the pool gives its nodes no EFA: NCCL between them would
// fall back to TCP over the primary interface.
func warnReplicaWithoutEFA(diags *diag.Diagnostics, m *nodePoolModel, s pool.Spec) {
	if len(s.InstanceTypes) == 0 || (m.Network != nil && (m.Network.EFA.ValueBool() || m.Network.EFA.IsUnknown())) {
		return
	}
	node, ok := catalog.AWSInstanceType(s.InstanceTypes[0])
	if g := s.Workload.GPUsPerReplica; !ok || !node.MultiNode() || !catalog.SpansNodes(s.Workload.Kind, g, node.GPUCount) {
		return
	}
	diags.AddAttributeWarning(path.Root("network"), "Replicas span nodes without EFA",
		fmt.Sprintf("workload.gpus_per_replica = %d spans %d %s nodes, and the pool gives them no EFA interfaces: NCCL between them would run over TCP. Add network { efa = true } (and a placement_strategy) for the %d network card(s) of %s.",
			s.Workload.GPUsPerReplica, s.Workload.GPUsPerReplica/node.GPUCount, node.Name, node.InterNodeNICs, node.Name))
}

// networkFromTemplate is the network block a launch template version holds, for a pool read without
// one (import): EFA on (efa_interfaces only when not every card of the instance types has one), and
// the placement group: gpufleet's own name as placement_strategy "cluster", another as
// placement_group_name. nil when the template has neither.
func networkFromTemplate(m *nodePoolModel, data *ec2types.ResponseLaunchTemplateData, instanceTypes []string) *networkModel {
	got := networkOfTemplate(data)
	if got == (sideNetwork{}) {
		return nil
	}
	n := &networkModel{EFA: fwtypes.BoolNull(), EFAInterfaces: fwtypes.Int64Null(), PlacementStrategy: fwtypes.StringNull(),
		PlacementGroupName: fwtypes.StringNull(), PlacementGroup: poolschema.NullableString(got.PlacementGroup)}
	if got.EFAInterfaces > 0 {
		n.EFA = fwtypes.BoolValue(true)
		if got.EFAInterfaces != fewestEFACards(instanceTypes) {
			n.EFAInterfaces = fwtypes.Int64Value(int64(got.EFAInterfaces))
		}
	}
	switch got.PlacementGroup {
	case "":
	case ownedPlacementGroupName(m.ClusterName.ValueString(), m.Name.ValueString()):
		n.PlacementStrategy = fwtypes.StringValue(placementStrategyCluster)
	default:
		n.PlacementGroupName = fwtypes.StringValue(got.PlacementGroup)
	}
	return n
}

// networkValidator fails at plan, at the attribute, on what no node of the pool would launch with:
// EFA on an instance type without it, more EFA interfaces than an instance type has network cards,
// a cluster placement group gpufleet creates over several subnets.
type networkValidator struct{}

func (networkValidator) Description(context.Context) string {
	return "EFA only on instance types that support it and on the network cards they have; a cluster placement group with one subnet"
}

func (v networkValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (networkValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var n *networkModel
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("network"), &n)...)
	if resp.Diagnostics.HasError() || n == nil {
		return
	}
	// instance_types may be unknown, or hold unknown elements (a recommendation's node_type, which
	// validation sees before the data source is read): those are checked at plan, once known.
	var listed fwtypes.List
	var subnets fwtypes.Set
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("instance_types"), &listed)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("subnet_ids"), &subnets)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var types []string
	for _, e := range listed.Elements() {
		if s, ok := e.(fwtypes.String); ok && !s.IsUnknown() && !s.IsNull() {
			types = append(types, s.ValueString())
		}
	}
	if n.EFA.ValueBool() {
		for _, it := range types {
			node, ok := catalog.AWSInstanceType(it)
			switch {
			case !ok:
			case !node.MultiNode():
				resp.Diagnostics.AddAttributeError(path.Root("network").AtName("efa"), "EFA not supported",
					fmt.Sprintf("network.efa: %s does not support Elastic Fabric Adapter (EC2 User Guide, \"Elastic Fabric Adapter\", supported instance types); choose instance types with EFA, e.g. %s, or drop network.efa.",
						it, strings.Join(efaTypesOf(node.GPUModel), ", ")))
			case !n.EFAInterfaces.IsNull() && !n.EFAInterfaces.IsUnknown() && int(n.EFAInterfaces.ValueInt64()) > node.InterNodeNICs:
				resp.Diagnostics.AddAttributeError(path.Root("network").AtName("efa_interfaces"), "More EFA interfaces than network cards",
					fmt.Sprintf("network.efa_interfaces: %d, but %s has %d network card(s), one EFA interface each; set at most %d, or leave it unset for all of them.",
						n.EFAInterfaces.ValueInt64(), it, node.InterNodeNICs, node.InterNodeNICs))
			}
		}
	}
	if n.PlacementStrategy.ValueString() == placementStrategyCluster && !subnets.IsUnknown() && len(subnets.Elements()) > 1 {
		resp.Diagnostics.AddAttributeError(path.Root("subnet_ids"), "Cluster placement group over several subnets",
			fmt.Sprintf("subnet_ids: a cluster placement group holds instances of one Availability Zone (EC2 User Guide, \"Placement strategies\"), and the pool has %d subnets, which EKS spreads the nodes over; give one subnet, or drop network.placement_strategy.",
				len(subnets.Elements())))
	}
}

// efaTypesOf lists instance types of a GPU model that support EFA, for messages.
func efaTypesOf(gpu string) []string {
	var out []string
	for _, n := range catalog.NodeTypes(catalog.AWS) {
		if n.MultiNode() && (gpu == "" || n.GPUModel == gpu) {
			out = append(out, n.Name)
		}
	}
	if len(out) == 0 {
		return efaTypesOf("")
	}
	return out
}

// ensurePlacementGroup makes the pool's placement group ready before anything else is created: the
// group gpufleet owns is created with its owner tag (one of the name that is not the pool's is an
// error, untouched); an existing group named by placement_group_name must exist, and a cluster group
// needs one subnet. created reports whether this create made the group (to be deleted again if the
// create fails); with an error, that it may have (dropCreatedPlacementGroup deletes it, if it is
// there).
//
// CreatePlacementGroup takes no client token (EC2 API Reference: CreatePlacementGroup), so a call
// whose answer was lost is told from one that made nothing only by looking. Two ways:
//
//   - The SDK retries a call that failed with a 5xx answer or a broken connection (aws/retry,
//     DefaultRetryables), after which EC2 may have made the group: the retry meets it and answers
//     InvalidPlacementGroup.Duplicate. A group of the name with the pool's owner tag is that one:
//     the tag carries the pool's owner id, which Create has just made (no state holds it), so no
//     other call can have written it.
//   - The create timeout or an interrupt ends the call after EC2 accepted it, or the SDK gives up on
//     5xx answers: the group is looked for by name and owner tag (findAfterFailedCreate), and one
//     found is the pool's, with a warning on diags.
//
// Either way the group counts as created: Create records it in state with the pool, or deletes it
// again when nothing of the pool comes to exist. Counted as not created, it was orphaned, with an
// owner id no state holds, and the next apply (a new owner id) failed on it as another's.
func ensurePlacementGroup(ctx context.Context, c *clients, m *nodePoolModel, tags map[string]string, diags *diag.Diagnostics) (created bool, err error) {
	conn := c.ec2
	n := m.Network
	if n == nil {
		return false, nil
	}
	if name := n.PlacementGroupName.ValueString(); knownString(n.PlacementGroupName) {
		g, err := findPlacementGroup(ctx, conn, name)
		if err != nil {
			return false, fmt.Errorf("network.placement_group_name %q: %w", name, err)
		}
		if g.Strategy == ec2types.PlacementStrategyCluster && len(m.SubnetIDs.Elements()) > 1 {
			return false, fmt.Errorf("network.placement_group_name: %s is a cluster placement group, which holds instances of one Availability Zone, and the pool has %d subnets; give one subnet", name, len(m.SubnetIDs.Elements()))
		}
		n.PlacementGroup = fwtypes.StringValue(name)
		return false, nil
	}
	if n.PlacementStrategy.ValueString() != placementStrategyCluster {
		n.PlacementGroup = fwtypes.StringNull()
		return false, nil
	}
	o := m.owner().side(placementGroupOwnerName)
	name := ownedPlacementGroupName(m.ClusterName.ValueString(), m.Name.ValueString())
	all := map[string]string{tagOwner: o.value()}
	for k, v := range tags {
		all[k] = v
	}
	var tries attempts
	_, err = conn.CreatePlacementGroup(ctx, &ec2.CreatePlacementGroupInput{
		GroupName: aws.String(name), Strategy: ec2types.PlacementStrategyCluster,
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypePlacementGroup, Tags: ec2Tags(all)}},
	}, tries.ec2Option)
	err = tries.wrap(err)
	// findOwned finds the pool's group: a not-found error when there is none, a *notOwnedError
	// when the group of its name is not the pool's.
	findOwned := func(ctx context.Context) (*ec2types.PlacementGroup, error) {
		g, err := findPlacementGroup(ctx, conn, name)
		if err != nil {
			return nil, err
		}
		if v := tagMap(g.Tags)[tagOwner]; !o.ownerTagMatches(v) {
			return g, o.notOwned("placement group", aws.ToString(g.GroupId), name, tagMap(g.Tags))
		}
		return g, nil
	}
	switch {
	case err == nil:
	case apiErrorCode(err) == "InvalidPlacementGroup.Duplicate":
		if _, findErr := findOwned(ctx); findErr != nil {
			if isNotOwned(findErr) {
				return false, findErr
			}
			// Most likely the group this call's first attempt made: the caller deletes it if it
			// is the pool's, or records it (deleteOwnedPlacementGroup leaves another's alone).
			n.PlacementGroup = fwtypes.StringValue(name)
			return true, fmt.Errorf("%w (and finding it: %w)", err, findErr)
		}
		// The SDK's retry met the group its own first attempt made.
		tflog.Warn(ctx, "EC2 made the placement group, the answer to CreatePlacementGroup was lost and its retry met the group", map[string]any{"placement_group": name})
	case !answerMayBeLost(err):
		return false, fmt.Errorf("creating placement group %s: %w", name, err)
	default:
		_, findErr := findAfterFailedCreate(ctx, err, c.poll, findOwned)
		switch {
		case isNotFound(findErr):
			return false, fmt.Errorf("creating placement group %s: %w", name, err)
		case isNotOwned(findErr):
			return false, fmt.Errorf("creating placement group %s: %w; %w", name, err, findErr)
		case findErr != nil:
			// Whether EC2 made the group cannot be told: the caller deletes it if it is there, or
			// records it.
			n.PlacementGroup = fwtypes.StringValue(name)
			return true, fmt.Errorf("creating placement group %s: %w (and looking for whether EC2 made it all the same failed: %w)", name, err, findErr)
		}
		tflog.Warn(ctx, "EC2 made the placement group, the answer to CreatePlacementGroup was lost", map[string]any{"placement_group": name, "error": err.Error()})
		diags.AddWarning(fmt.Sprintf("Placement group %s created, its answer lost", name),
			fmt.Sprintf("CreatePlacementGroup failed (%v), but EC2 had made %s: gpufleet found it by its %s tag. It is the pool's: state records it with the pool, or, if nothing else of the pool comes to exist, gpufleet deletes it again, so that it is not orphaned.",
				err, name, tagOwner))
	}
	n.PlacementGroup = fwtypes.StringValue(name)
	return true, nil
}

// findPlacementGroup finds a placement group by name; a not-found error when there is none.
func findPlacementGroup(ctx context.Context, conn *ec2.Client, name string) (*ec2types.PlacementGroup, error) {
	out, err := conn.DescribePlacementGroups(ctx, &ec2.DescribePlacementGroupsInput{GroupNames: []string{name}})
	if err != nil {
		return nil, err
	}
	if len(out.PlacementGroups) == 0 {
		return nil, fmt.Errorf("placement group %s: %w", name, errNotFound)
	}
	return &out.PlacementGroups[0], nil
}

// ownedPlacementGroupLeft reports whether the placement group gpufleet made for the pool exists.
func ownedPlacementGroupLeft(ctx context.Context, conn *ec2.Client, m *nodePoolModel) (bool, error) {
	n := m.Network
	if n == nil || n.PlacementStrategy.ValueString() != placementStrategyCluster || !knownString(n.PlacementGroup) {
		return false, nil
	}
	g, err := findPlacementGroup(ctx, conn, n.PlacementGroup.ValueString())
	if isNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return m.owner().side(placementGroupOwnerName).ownerTagMatches(tagMap(g.Tags)[tagOwner]), nil
}

// deleteOwnedPlacementGroup deletes the placement group gpufleet created for the pool, once it has
// confirmed the owner tag is the pool's. One already gone is fine; an existing group named by
// placement_group_name is never deleted.
func deleteOwnedPlacementGroup(ctx context.Context, conn *ec2.Client, m *nodePoolModel) error {
	n := m.Network
	if n == nil || n.PlacementStrategy.ValueString() != placementStrategyCluster || !knownString(n.PlacementGroup) {
		return nil
	}
	name := n.PlacementGroup.ValueString()
	g, err := findPlacementGroup(ctx, conn, name)
	if isNotFound(err) || apiErrorCode(err) == "InvalidPlacementGroup.Unknown" {
		return nil
	}
	if err != nil {
		return err
	}
	o := m.owner().side(placementGroupOwnerName)
	if v := tagMap(g.Tags)[tagOwner]; !o.ownerTagMatches(v) {
		return o.notOwned("placement group", aws.ToString(g.GroupId), name, tagMap(g.Tags))
	}
	_, err = conn.DeletePlacementGroup(ctx, &ec2.DeletePlacementGroupInput{GroupName: aws.String(name)})
	if err != nil && apiErrorCode(err) != "InvalidPlacementGroup.Unknown" {
		return fmt.Errorf("deleting placement group %s: %w", name, err)
	}
	return nil
}
