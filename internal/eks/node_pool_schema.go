package eks

import (
	"context"
	"maps"
	"regexp"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// NVIDIA AMI types of EKS managed node groups (EKS API Reference: Nodegroup.amiType).
var nvidiaAMITypes = []string{
	"AL2023_x86_64_NVIDIA",
	"AL2023_ARM_64_NVIDIA",
	"AL2_x86_64_GPU",
	"BOTTLEROCKET_x86_64_NVIDIA",
	"BOTTLEROCKET_ARM_64_NVIDIA",
}

const defaultAMIType = "AL2023_x86_64_NVIDIA"

// updateStrategies of a node group's update config (EKS API Reference: NodegroupUpdateConfig).
var updateStrategies = []string{string(ekstypes.NodegroupUpdateStrategiesDefault), string(ekstypes.NodegroupUpdateStrategiesMinimal)}

var (
	roleARNPattern = regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]{1,512}$`)
	subnetPattern  = regexp.MustCompile(`^subnet-[0-9a-f]{8,17}$`)
	k8sVersion     = regexp.MustCompile(`^1\.[0-9]{2}$`)
	clusterPattern = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$`)
)

// regionPattern is an AWS region name, as the Terraform AWS provider checks one in import ids
// (internal/provider/framework/region.go).
const regionPattern = `[a-z]{2}(?:-[a-z]+)+-\d{1,2}`

func (r *NodePoolResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attributes := poolschema.Attributes("node_groups")
	maps.Copy(attributes, map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "`<cluster_name>:<name>`, also the import id.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"owner_id": schema.StringAttribute{
			MarkdownDescription: "Random id gpufleet made when it created the pool, written into the `gpufleet:owner` tag (`<cluster_name>/<name>/<node group>/<owner_id>`) of its node groups and launch templates: gpufleet changes and deletes only objects with that tag, so two pools that declare the same `cluster_name` and `name` (two states, `create_before_destroy`) never take each other's. Null for pools created before owner ids existed.",
			Computed:            true,
		},
		"cluster_name": schema.StringAttribute{
			MarkdownDescription: "Name of the EKS cluster.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.RegexMatches(clusterPattern, "must be an EKS cluster name: 1-100 letters, digits, '-' or '_'")},
		},
		"name": schema.StringAttribute{
			MarkdownDescription: "Name of the pool. Its node groups are `<name>-od` and `<name>-spot`, so at most 58 characters.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.RegexMatches(pool.EKSNamePattern, "must be 1-58 letters, digits, '-' or '_', starting with a letter or digit")},
		},
		"region": schema.StringAttribute{
			MarkdownDescription: "AWS region of the pool. Unset, the provider's region when the pool is created (`aws.region`, else `AWS_REGION`, `AWS_DEFAULT_REGION` or the profile's). State records it, and the pool is read, updated and destroyed in that region whatever the provider's region on a later run, so a run under another `AWS_REGION` never loses it. Another region replaces the pool: changing `region`, or, while it is unset, planning under another provider region, shows a replacement (the pool destroyed in its recorded region and created in the new one). Import reads it from the import id (`<cluster_name>:<name>@<region>`), else the provider's region.",
			Optional:            true,
			Computed:            true,
			Validators:          []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^`+regionPattern+`$`), "must be an AWS region such as us-east-1")},
		},
		"node_role_arn": schema.StringAttribute{
			MarkdownDescription: "IAM role of the nodes.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.RegexMatches(roleARNPattern, "must be an IAM role ARN")},
		},
		"subnet_ids": schema.SetAttribute{
			MarkdownDescription: "Subnets of the nodes.",
			ElementType:         types.StringType,
			Required:            true,
			PlanModifiers:       []planmodifier.Set{setplanmodifier.RequiresReplace()},
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(stringvalidator.RegexMatches(subnetPattern, "must be a subnet id (subnet-…)")),
			},
		},
		"instance_types": schema.ListAttribute{
			MarkdownDescription: "EC2 GPU instance types, all with the same GPU model and count. The on-demand side prefers the first and falls back to the others; the spot side diversifies over all of them.",
			ElementType:         types.StringType,
			Required:            true,
			PlanModifiers:       []planmodifier.List{listplanmodifier.RequiresReplace()},
			Validators:          []validator.List{listvalidator.SizeBetween(1, 20), listvalidator.UniqueValues()},
		},
		"ami_type": schema.StringAttribute{
			MarkdownDescription: "EKS AMI type; NVIDIA AMI types only. Defaults to `" + defaultAMIType + "`.",
			Optional:            true,
			Computed:            true,
			Default:             stringdefault.StaticString(defaultAMIType),
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.OneOf(nvidiaAMITypes...)},
		},
		"kubernetes_version": schema.StringAttribute{
			MarkdownDescription: "Kubernetes version of the nodes, e.g. `1.31`. Unset, the pool follows the cluster: new node groups get the cluster's version (EKS creates node groups at no other), existing ones keep theirs, and state shows the first node group's. Set, it pins the node groups: raising it upgrades them in place; lowering it is a plan-time error (EKS cannot roll a node group back; replace the pool instead), and so is a new pool pinned to another version than the cluster's. `node_groups` show each node group's version, and the plan warns when they differ.",
			Optional:            true,
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			Validators:          []validator.String{stringvalidator.RegexMatches(k8sVersion, "must be a Kubernetes minor version such as 1.31")},
		},
		"release_version": schema.StringAttribute{
			MarkdownDescription: "EKS AMI release of the nodes, e.g. `1.31.7-20250620` (its NVIDIA driver and kernel). Unset, new node groups get the latest release of their Kubernetes version and keep it: gpufleet sends the recorded release with every update, so a launch template change (a tag change) never upgrades the AMI with it. Set it to a newer release to upgrade the nodes, a planned change; lowering it is a plan-time error (EKS cannot roll a node group back). A change of `kubernetes_version` moves an unset `release_version` to the latest release of the new version. An Amazon Linux release must be of the Kubernetes version the node groups run (`kubernetes_version`, else the pool's, or for a new pool the cluster's): another is a plan-time error, as EKS refuses it. With a `BOTTLEROCKET_*` `ami_type` releases are Bottlerocket's (`<Bottlerocket version>-<commit>`, e.g. `1.30.0-ca9b9399`), one release for several Kubernetes versions: gpufleet orders them by Bottlerocket version, and EKS refuses, at apply, one not offered for the Kubernetes version.",
			Optional:            true,
			Computed:            true,
			Validators:          []validator.String{stringvalidator.LengthBetween(1, 64)},
		},
		"mig_strategy": poolschema.MIGStrategyAttribute("the node groups' autoscaler tags say `0`"),
		"node_groups": schema.ListNestedAttribute{
			MarkdownDescription: "The EKS node groups behind the pool: on-demand (or capacity block) first, then spot.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name":                    schema.StringAttribute{Computed: true, MarkdownDescription: "Node group name."},
				"arn":                     schema.StringAttribute{Computed: true, MarkdownDescription: "Node group ARN."},
				"capacity_type":           schema.StringAttribute{Computed: true, MarkdownDescription: "`ON_DEMAND`, `SPOT` or `CAPACITY_BLOCK`."},
				"min_size":                schema.Int64Attribute{Computed: true, MarkdownDescription: "Minimum nodes."},
				"max_size":                schema.Int64Attribute{Computed: true, MarkdownDescription: "Maximum nodes."},
				"desired_size":            schema.Int64Attribute{Computed: true, MarkdownDescription: "Desired nodes."},
				"status":                  schema.StringAttribute{Computed: true, MarkdownDescription: "Node group status, e.g. `ACTIVE`."},
				"launch_template_id":      schema.StringAttribute{Computed: true, MarkdownDescription: "Provider-managed launch template."},
				"launch_template_version": schema.StringAttribute{Computed: true, MarkdownDescription: "Launch template version in use."},
				"kubernetes_version":      schema.StringAttribute{Computed: true, MarkdownDescription: "Kubernetes version the node group runs."},
				"release_version":         schema.StringAttribute{Computed: true, MarkdownDescription: "AMI release version the node group runs."},
				"in_sync":                 schema.BoolAttribute{Computed: true, MarkdownDescription: "`false` when the node group does not hold what the pool's configuration gives it: an apply failed part-way, it failed to create (`CREATE_FAILED`; without an `arn` when EKS refused to create it), or it was changed outside Terraform. The next plan updates the pool, and the apply brings the node group in line (a failed one is replaced, a missing one created) without touching the others."},
			}},
		},
	})
	blocks := poolschema.Blocks(ctx)
	maps.Copy(blocks, map[string]schema.Block{
		"gpu": schema.SingleNestedBlock{
			MarkdownDescription: "GPU partitioning and sharing.",
			Blocks:              poolschema.GPUBlocks(),
		},
		"capacity": poolschema.CapacityBlock(schema.SingleNestedBlock{
			MarkdownDescription: "An EC2 capacity reservation (ODCR) or capacity block for the on-demand side, targeted through the launch template. " +
				"Checked before anything is created: at plan with read-only calls (`ec2:DescribeCapacityReservations`, `ec2:DescribeSubnets`) when the credentials allow and the subnets are known, else at apply: the reservation exists, is of this type and active, is for `instance_types[0]` and default tenancy (the node groups' instances are), holds the on-demand side's `max_size`, has its starting size free (a warning when other instances leave less than `max_size` free), and every subnet is in its Availability Zone. A capacity block before its start, and a future-dated capacity reservation (`assessing`, `scheduled` or `delayed`), are accepted with a warning: the node group exists and launches once the capacity is there.",
			Attributes: poolschema.EC2ReservationAttributes(" (its upfront fee ÷ instances ÷ hours), which no EC2 API returns after the purchase. The cost estimate counts every instance of the block (`max_size`) at this price, running or not. Changing it changes only the estimate."),
			PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplaceIf(reservationChanged,
				"A capacity block put in or taken out replaces the pool (a node group cannot change capacity types); another capacity reservation, or one added or removed, rolls only the on-demand node group onto it.",
				"A capacity block put in or taken out replaces the pool (a node group cannot change capacity types); another capacity reservation, or one added or removed, rolls only the on-demand node group onto it (a new launch template version), and the spot node group stays as it is.")},
		}),
		"network": networkBlock(),
		"update_config": schema.SingleNestedBlock{
			MarkdownDescription: "How EKS replaces nodes when it rolls a node group (a new launch template version, Kubernetes version or AMI release).",
			Attributes: map[string]schema.Attribute{
				"max_unavailable":            schema.Int64Attribute{MarkdownDescription: "Nodes at once.", Optional: true, Validators: []validator.Int64{int64validator.Between(1, 100), int64validator.ConflictsWith(path.MatchRelative().AtParent().AtName("max_unavailable_percentage"))}},
				"max_unavailable_percentage": schema.Int64Attribute{MarkdownDescription: "Percentage of nodes at once.", Optional: true, Validators: []validator.Int64{int64validator.Between(1, 100)}},
				"update_strategy": schema.StringAttribute{
					MarkdownDescription: "`DEFAULT` launches new nodes before it drains old ones (up to twice the node group's Availability Zones, or `max_unavailable`, more nodes for the rollout); `MINIMAL` terminates old nodes first and needs no spare capacity, for GPUs that are scarce or costly. Unset: `MINIMAL` for the side on a capacity reservation or capacity block (there is no room to launch more), EKS's `DEFAULT` otherwise.",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.OneOf(updateStrategies...)},
				},
			},
		},
	})
	resp.Schema = schema.Schema{
		MarkdownDescription: "A GPU node pool on an EKS cluster: up to two EKS managed node groups, `<name>-od` (on-demand, or " +
			"`CAPACITY_BLOCK` with a capacity block) and `<name>-spot` (spot over every instance type), each with a " +
			"provider-managed launch template that carries the per-client tags to instances and volumes; a tag change reaches the running instances and volumes and the node groups' Auto Scaling groups in place, and replaces no node. " +
			"gpufleet derives the GPU taint, client isolation taint, node labels (client, workload, MIG config, device-plugin " +
			"config), cluster-autoscaler node-template tags and a cost estimate, and checks the pool against the policy bundle " +
			"at plan time.\n\nA failure never costs what is running: when one node group of a new pool fails to come up (`CREATE_FAILED` " +
			"for want of spot or GPU capacity, refused, or still creating at the timeout) while another runs, the create succeeds " +
			"with a warning naming the failed node group and its health issues, records it with `in_sync = false`, and the next " +
			"apply replaces (or creates) only that node group. So too when no node group runs yet but one is still creating at " +
			"the create timeout: it may run by the next apply. Only a create where no node group runs or is still creating fails, " +
			"and Terraform then taints the pool. An update that swaps one node group for the other (`spot_percentage` moved to 0 or 100 with no " +
			"`on_demand_base`) deletes the one that goes only once the one that replaces it is `ACTIVE`: refused, `CREATE_FAILED` " +
			"or still creating at the timeout, the update fails naming the node group it keeps running, and the next apply " +
			"deletes it once its replacement runs.",
		Attributes: attributes,
		Blocks:     blocks,
	}
}

// reservationChanged requires replacing the pool when a capacity block comes or goes: the
// on-demand node group's capacity type changes (CAPACITY_BLOCK), which no EKS update does, and a
// capacity block takes no spot side. Another capacity reservation, or one added or removed, is the
// on-demand node group's launch template alone (its capacity reservation target): the update rolls
// that node group onto a new template version, and the spot node group and its nodes stay (as the
// GKE pool replaces only its on-demand node pool, audit N17). Its price is only the estimate's.
func reservationChanged(ctx context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.PlanValue.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	block := func(v types.Object) bool {
		if v.IsNull() {
			return false
		}
		t, ok := v.Attributes()["type"].(types.String)
		return !ok || t.IsUnknown() || t.ValueString() == pool.ReservationCapacityBlock
	}
	resp.RequiresReplace = block(req.StateValue) || block(req.PlanValue)
	if resp.RequiresReplace && !req.StateValue.IsNull() && !req.PlanValue.IsNull() {
		// A capacity block kept, its price alone changed: the estimate's.
		before, after := req.StateValue.Attributes(), req.PlanValue.Attributes()
		resp.RequiresReplace = !before["id"].Equal(after["id"]) || !before["type"].Equal(after["type"])
	}
}
