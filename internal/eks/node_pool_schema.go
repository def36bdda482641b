package eks

import (
	"context"
	"maps"
	"regexp"

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

var (
	roleARNPattern = regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]{1,512}$`)
	subnetPattern  = regexp.MustCompile(`^subnet-[0-9a-f]{8,17}$`)
	k8sVersion     = regexp.MustCompile(`^1\.[0-9]{2}$`)
	clusterPattern = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$`)
)

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
			MarkdownDescription: "AWS region of the pool, from the provider configuration.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
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
			MarkdownDescription: "Kubernetes version of the nodes, e.g. `1.31`. Defaults to the cluster's; changing it upgrades the node groups in place.",
			Optional:            true,
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			Validators:          []validator.String{stringvalidator.RegexMatches(k8sVersion, "must be a Kubernetes minor version such as 1.31")},
		},
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
				"in_sync":                 schema.BoolAttribute{Computed: true, MarkdownDescription: "`false` when the node group does not hold what the pool's configuration gives it: an apply failed part-way, it failed to create (`CREATE_FAILED`), or it was changed outside Terraform. The next plan updates the pool, and the apply brings the node group in line (a failed one is replaced)."},
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
			MarkdownDescription: "An EC2 capacity reservation (ODCR) or capacity block for the on-demand side, targeted through the launch template.",
			Attributes: map[string]schema.Attribute{
				"id":   schema.StringAttribute{MarkdownDescription: "Reservation id, `cr-…`.", Optional: true},
				"type": schema.StringAttribute{MarkdownDescription: "`capacity-reservation` or `capacity-block`.", Optional: true, Validators: []validator.String{stringvalidator.OneOf(pool.EKSReservation...)}},
			},
			PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
		}),
		"update_config": schema.SingleNestedBlock{
			MarkdownDescription: "How many nodes EKS may replace at once during updates.",
			Attributes: map[string]schema.Attribute{
				"max_unavailable":            schema.Int64Attribute{MarkdownDescription: "Nodes at once.", Optional: true, Validators: []validator.Int64{int64validator.Between(1, 100), int64validator.ConflictsWith(path.MatchRelative().AtParent().AtName("max_unavailable_percentage"))}},
				"max_unavailable_percentage": schema.Int64Attribute{MarkdownDescription: "Percentage of nodes at once.", Optional: true, Validators: []validator.Int64{int64validator.Between(1, 100)}},
			},
		},
	})
	resp.Schema = schema.Schema{
		MarkdownDescription: "A GPU node pool on an EKS cluster: up to two EKS managed node groups, `<name>-od` (on-demand, or " +
			"`CAPACITY_BLOCK` with a capacity block) and `<name>-spot` (spot over every instance type), each with a " +
			"provider-managed launch template that carries the per-client tags to instances, volumes and network interfaces. " +
			"gpufleet derives the GPU taint, client isolation taint, node labels (client, workload, MIG config, device-plugin " +
			"config), cluster-autoscaler node-template tags and a cost estimate, and checks the pool against the policy bundle " +
			"at plan time.",
		Attributes: attributes,
		Blocks:     blocks,
	}
}
