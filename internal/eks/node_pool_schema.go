package eks

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
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
	resp.Schema = schema.Schema{
		MarkdownDescription: "A GPU node pool on an EKS cluster: up to two EKS managed node groups, `<name>-od` (on-demand, or " +
			"`CAPACITY_BLOCK` with a capacity block) and `<name>-spot` (spot over every instance type), each with a " +
			"provider-managed launch template that carries the per-client tags to instances, volumes and network interfaces. " +
			"gpufleet derives the GPU taint, client isolation taint, node labels (client, workload, MIG config, device-plugin " +
			"config), cluster-autoscaler node-template tags and a cost estimate, and checks the pool against the policy bundle " +
			"at plan time.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`<cluster_name>:<name>`, also the import id.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
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
			"client": schema.StringAttribute{
				MarkdownDescription: "Who pays for the pool: drives the `gpufleet.io/client` label, the `gpufleet:client` tag, the client taint of `dedicated` clients and the client's data-residency rules. Lowercase letters, digits, `-` and `_`.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(pool.ClientIDPattern, "must be 1-63 lowercase letters, digits, '-' or '_', starting and ending with a letter or digit")},
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
			"taints": schema.SetNestedAttribute{
				MarkdownDescription: "Extra Kubernetes taints. The GPU taint and the client taint are derived (see `effective_taints`). EKS takes keys of at most 63 characters, prefix included.",
				Optional:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key":    schema.StringAttribute{Required: true, MarkdownDescription: "Taint key."},
					"value":  schema.StringAttribute{Optional: true, MarkdownDescription: "Taint value."},
					"effect": schema.StringAttribute{Required: true, MarkdownDescription: "`NO_SCHEDULE`, `NO_EXECUTE` or `PREFER_NO_SCHEDULE`.", Validators: []validator.String{stringvalidator.OneOf(pool.TaintEffects...)}},
				}},
				Validators: []validator.Set{setvalidator.SizeAtMost(48)},
			},
			"labels": schema.MapAttribute{
				MarkdownDescription: "Extra Kubernetes node labels. Labels under `gpufleet.io/` are derived (see `effective_labels`). EKS takes keys of at most 63 characters, prefix included, and no empty values.",
				ElementType:         types.StringType,
				Optional:            true,
			},
			"tags": schema.MapAttribute{
				MarkdownDescription: "Extra tags, merged over the provider's `default_tags`, on the node groups, launch templates, instances, volumes and network interfaces. Tags under `gpufleet:` are derived (see `effective_tags`). EKS takes 50 tags on a node group, and gpufleet adds to each node group one cluster-autoscaler tag per node label and taint and 4 more; the plan fails when they do not fit.",
				ElementType:         types.StringType,
				Optional:            true,
			},
			"policy_waivers": schema.MapAttribute{
				MarkdownDescription: "Waived policy rules: rule id → reason (who, why, until when). A waived deny becomes a warning naming the waiver.",
				ElementType:         types.StringType,
				Optional:            true,
				Validators:          []validator.Map{mapvalidator.KeysAre(stringvalidator.RegexMatches(pool.WaiverRulePattern, "must be a rule id such as GF-COST-002"))},
			},
			"gpu_model": schema.StringAttribute{
				MarkdownDescription: "GPU model of the instance types, e.g. `H100-80GB`.",
				Computed:            true,
			},
			"gpus_per_node": schema.Int64Attribute{
				MarkdownDescription: "GPUs per node.",
				Computed:            true,
			},
			"gpu_memory_gib": schema.Float64Attribute{
				MarkdownDescription: "Memory of one GPU in GiB.",
				Computed:            true,
			},
			"effective_taints": schema.SetNestedAttribute{
				MarkdownDescription: "Every taint of the nodes: `nvidia.com/gpu=present:NO_SCHEDULE`, the client taint of `dedicated` clients, and `taints`.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key":    schema.StringAttribute{Computed: true, MarkdownDescription: "Taint key."},
					"value":  schema.StringAttribute{Computed: true, MarkdownDescription: "Taint value."},
					"effect": schema.StringAttribute{Computed: true, MarkdownDescription: "Taint effect."},
				}},
			},
			"effective_labels": schema.MapAttribute{
				MarkdownDescription: "Every label of the nodes except `gpufleet.io/capacity-type`, which each node group adds (see `node_groups`).",
				ElementType:         types.StringType,
				Computed:            true,
			},
			"effective_tags": schema.MapAttribute{
				MarkdownDescription: "Every tag of the pool's cloud objects and instances: `default_tags`, `tags` and the derived `gpufleet:` tags. Node groups also carry cluster-autoscaler node-template tags.",
				ElementType:         types.StringType,
				Computed:            true,
			},
			"device_plugin_config": schema.StringAttribute{
				MarkdownDescription: "NVIDIA device plugin config (YAML) for GPU sharing, to put in the device plugin's ConfigMap under the name in the `nvidia.com/device-plugin.config` label; null without sharing.",
				Computed:            true,
			},
			"estimated_hourly_cost_usd": schema.Float64Attribute{
				MarkdownDescription: "Estimated cost per hour at the desired size, spot share at the spot estimate, after the provider's pricing settings; null when the region has no price.",
				Computed:            true,
			},
			"estimated_monthly_cost_usd": schema.Float64Attribute{
				MarkdownDescription: "`estimated_hourly_cost_usd` × 730 hours.",
				Computed:            true,
			},
			"policy_document": schema.ObjectAttribute{
				MarkdownDescription: "The pool's policy document as the provider checks it at plan time: the input of the gpufleet policy bundle (see `policies/README.md`). conftest reads it from the plan JSON instead of rebuilding it, so CI and the provider judge the same facts; unknown while any input is.",
				Computed:            true,
				AttributeTypes:      policyDocumentType.AttrTypes,
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
				}},
			},
		},
		Blocks: map[string]schema.Block{
			"workload": schema.SingleNestedBlock{
				MarkdownDescription: "What runs on the pool; policy judges the pool against it. Required.",
				Validators:          []validator.Object{objectvalidator.IsRequired()},
				Attributes: map[string]schema.Attribute{
					"kind": schema.StringAttribute{
						MarkdownDescription: "`training`, `inference`, `development` or `batch`.",
						Optional:            true,
						Validators:          []validator.String{stringvalidator.OneOf(pool.Kinds...)},
					},
					"environment": schema.StringAttribute{
						MarkdownDescription: "`production`, `staging` or `development`.",
						Optional:            true,
						Validators:          []validator.String{stringvalidator.OneOf(pool.Environments...)},
					},
					"gpu_memory_gib": schema.Float64Attribute{
						MarkdownDescription: "GPU memory one replica needs on one GPU or MIG slice, in GiB.",
						Optional:            true,
						Validators:          []validator.Float64{float64validator.AtLeast(0.1)},
					},
					"interruptible": schema.BoolAttribute{
						MarkdownDescription: "Whether the workload checkpoints and may run on spot. Defaults to `false`.",
						Optional:            true,
					},
				},
			},
			"gpu": schema.SingleNestedBlock{
				MarkdownDescription: "GPU partitioning and sharing.",
				Blocks: map[string]schema.Block{
					"mig": schema.SingleNestedBlock{
						MarkdownDescription: "NVIDIA MIG: every GPU split into `profile` slices, or a GPU Operator `config` such as `all-balanced`. Applied by the GPU Operator's MIG manager through the `nvidia.com/mig.config` label.",
						Attributes: map[string]schema.Attribute{
							"profile": schema.StringAttribute{MarkdownDescription: "MIG profile, e.g. `3g.40gb` (see `provider::gpufleet::mig_profiles`).", Optional: true},
							"config":  schema.StringAttribute{MarkdownDescription: "MIG config: `all-balanced` or `all-<profile>`.", Optional: true},
						},
					},
					"sharing": schema.SingleNestedBlock{
						MarkdownDescription: "GPU sharing through the NVIDIA device plugin (see `device_plugin_config`). No memory or fault isolation: not for production.",
						Attributes: map[string]schema.Attribute{
							"strategy": schema.StringAttribute{MarkdownDescription: "`time-slicing` or `mps`.", Optional: true, Validators: []validator.String{stringvalidator.OneOf(pool.SharingKinds...)}},
							"replicas": schema.Int64Attribute{MarkdownDescription: "Replicas per GPU (or MIG slice), 2 to 48.", Optional: true, Validators: []validator.Int64{int64validator.Between(2, 48)}},
						},
					},
				},
			},
			"scaling": schema.SingleNestedBlock{
				MarkdownDescription: "Pool size, split between the on-demand and spot node groups by `capacity`. Required.",
				Validators:          []validator.Object{objectvalidator.IsRequired(), alsoRequires("min_size", "max_size", "desired_size")},
				Attributes: map[string]schema.Attribute{
					"min_size":     schema.Int64Attribute{MarkdownDescription: "Minimum nodes.", Optional: true, Validators: []validator.Int64{int64validator.AtLeast(0)}},
					"max_size":     schema.Int64Attribute{MarkdownDescription: "Maximum nodes.", Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)}},
					"desired_size": schema.Int64Attribute{MarkdownDescription: "Desired nodes.", Optional: true, Validators: []validator.Int64{int64validator.AtLeast(0)}},
				},
			},
			"capacity": schema.SingleNestedBlock{
				MarkdownDescription: "Spot/on-demand mix and reservations. With base `b` and percentage `p`, a size `s` has `floor(max(s-b,0)*p/100)` spot nodes.",
				Attributes: map[string]schema.Attribute{
					"spot_percentage": schema.Int64Attribute{MarkdownDescription: "Share of nodes above `on_demand_base` on spot, 0-100. Defaults to 0.", Optional: true, Computed: true, Default: int64default.StaticInt64(0), Validators: []validator.Int64{int64validator.Between(0, 100)}},
					"on_demand_base":  schema.Int64Attribute{MarkdownDescription: "Nodes that always run on-demand. Defaults to 0.", Optional: true, Computed: true, Default: int64default.StaticInt64(0), Validators: []validator.Int64{int64validator.AtLeast(0)}},
				},
				Blocks: map[string]schema.Block{
					"reservation": schema.SingleNestedBlock{
						MarkdownDescription: "An EC2 capacity reservation (ODCR) or capacity block for the on-demand side, targeted through the launch template.",
						Attributes: map[string]schema.Attribute{
							"id":   schema.StringAttribute{MarkdownDescription: "Reservation id, `cr-…`.", Optional: true},
							"type": schema.StringAttribute{MarkdownDescription: "`capacity-reservation` or `capacity-block`.", Optional: true, Validators: []validator.String{stringvalidator.OneOf(pool.EKSReservation...)}},
						},
						PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
					},
				},
			},
			"update_config": schema.SingleNestedBlock{
				MarkdownDescription: "How many nodes EKS may replace at once during updates.",
				Attributes: map[string]schema.Attribute{
					"max_unavailable":            schema.Int64Attribute{MarkdownDescription: "Nodes at once.", Optional: true, Validators: []validator.Int64{int64validator.Between(1, 100), int64validator.ConflictsWith(path.MatchRelative().AtParent().AtName("max_unavailable_percentage"))}},
					"max_unavailable_percentage": schema.Int64Attribute{MarkdownDescription: "Percentage of nodes at once.", Optional: true, Validators: []validator.Int64{int64validator.Between(1, 100)}},
				},
			},
			"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

// alsoRequires makes attributes of an optional block required once the block is present: the
// framework checks Required attributes of a single nested block even when the block is absent.
// It walks the whole configuration, so only scaling, where 0 is a valid size, uses it; the other
// blocks' missing values are reported by pool validation.
func alsoRequires(names ...string) validator.Object {
	exprs := make([]path.Expression, len(names))
	for i, n := range names {
		exprs[i] = path.MatchRelative().AtName(n)
	}
	return objectvalidator.AlsoRequires(exprs...)
}
