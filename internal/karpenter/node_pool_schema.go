package karpenter

import (
	"context"
	"maps"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

var (
	// namePattern: the pool's objects are Kubernetes names (DNS labels here, as the NodePool name
	// is also the value of the karpenter.sh/nodepool label, at most 63 characters), and the longest
	// is "<name>-spot-min".
	namePattern    = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,52}[a-z0-9])?$`)
	clusterPattern = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$`)
	// rolePattern: an IAM role name (IAM API Reference: CreateRole, RoleName), as EC2NodeClass and
	// Auto Mode's NodeClass take it in spec.role.
	rolePattern    = regexp.MustCompile(`^[\w+=,.@-]{1,64}$`)
	profilePattern = regexp.MustCompile(`^[\w+=,.@-]{1,128}$`)
)

// selector terms: a subnet, security group or (not here) reservation chosen by id, name or tags.
func selectorAttribute(what string, names bool) schema.ListNestedAttribute {
	attrs := map[string]schema.Attribute{
		"id":   schema.StringAttribute{MarkdownDescription: "The " + what + "'s id.", Optional: true},
		"tags": schema.MapAttribute{MarkdownDescription: "Tags the " + what + " carries; `*` matches any value.", ElementType: types.StringType, Optional: true},
	}
	if names {
		attrs["name"] = schema.StringAttribute{MarkdownDescription: "The security group's name (not its Name tag).", Optional: true}
	}
	return schema.ListNestedAttribute{
		MarkdownDescription: "How the node class selects " + what + "s: terms ORed, each by `id`" + map[bool]string{true: ", `name`", false: ""}[names] + " or `tags` (one of them per term).",
		Required:            true,
		NestedObject:        schema.NestedAttributeObject{Attributes: attrs},
		Validators:          []validator.List{listvalidator.SizeBetween(1, 30)},
	}
}

func (r *NodePoolResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attributes := poolschema.Attributes("node_pools")
	tags := attributes["tags"].(schema.MapAttribute)
	tags.MarkdownDescription = "Extra tags, merged over the provider's `default_tags`: the node class's `spec.tags`, which Karpenter gives the instances, volumes and launch templates it makes. A change of them is a change of the node class that Karpenter counts as drift: it replaces every node of the pool, as the disruption budgets allow (karpenter-provider-aws v1.15.2, `EC2NodeClass.Hash`), and the plan warns of it. Derived tags (`gpufleet:`) are in `effective_tags`."
	attributes["tags"] = tags
	maps.Copy(attributes, map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "`<cluster_name>:<name>`, also the import id.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"owner_id": schema.StringAttribute{
			MarkdownDescription: "Random id gpufleet made when it created the pool, in the `" + kube.LabelOwner + "` label of every object it applies: gpufleet changes and deletes only objects with that label, so two pools of the same `cluster_name` and `name` (two states, `create_before_destroy`) never take each other's objects, and an object of the same name that someone else made is never adopted.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"cluster_identity": kube.ClusterIdentityAttribute("NodePool"),
		"cluster_name": schema.StringAttribute{
			MarkdownDescription: "Name of the EKS cluster. gpufleet reaches its API server through EKS `DescribeCluster` (endpoint and certificate authority) and a token made from the provider's AWS credentials as `aws eks get-token` makes it, unless a `kubernetes` block says otherwise; only at apply, never at plan.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.RegexMatches(clusterPattern, "must be an EKS cluster name: 1-100 letters, digits, '-' or '_'")},
		},
		"name": schema.StringAttribute{
			MarkdownDescription: "Name of the pool: of its node class and NodeOverlay, and the stem of its NodePools (`<name>-od`, `<name>-spot`, and `<name>-od-min`, `<name>-spot-min` for `min_size`). 1-54 lowercase letters, digits and `-`.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.RegexMatches(namePattern, "must be 1-54 lowercase letters, digits or '-', starting and ending with a letter or digit")},
		},
		"region": schema.StringAttribute{
			MarkdownDescription: "AWS region of the cluster, from the provider configuration (prices and policy). The pool lives in this region's cluster: refresh and destroy reach the cluster of the region state records, and a change of the provider's region replaces the pool (its objects are deleted from the old region's cluster, then created in the new one's). A pool reached through a `kubernetes` block stays in that cluster: a change of region is an update (its prices).",
			Computed:            true, // ModifyPlan plans it, and a replacement when it changes
		},
		"mode": schema.StringAttribute{
			MarkdownDescription: "`karpenter` (self-managed Karpenter: EC2NodeClass, NodePools, NodeOverlay) or `auto_mode` (EKS Auto Mode: its NodeClass and NodePools). Defaults to `karpenter`. Changing it replaces the pool: a NodePool's node class group is immutable.",
			Optional:            true,
			Computed:            true,
			Default:             stringdefault.StaticString(render.ModeKarpenter),
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.OneOf(render.Modes...)},
		},
		"mig_strategy": poolschema.MIGStrategyAttribute("the NodeOverlay advertises the slices as `nvidia.com/mig-<profile>` and `nvidia.com/gpu` as `0`, and the NodePools limit the slices"),
		"karpenter_version": schema.StringAttribute{
			MarkdownDescription: "The Karpenter release the cluster runs, whose CRDs the objects are validated against at plan: `1.14` (the long-term support line) or `1.15` (the latest). Defaults to `" + render.LatestKarpenter + "`. Not for `auto_mode`, which AWS runs.",
			Optional:            true,
			Validators:          []validator.String{stringvalidator.OneOf(render.KarpenterVersions...)},
		},
		"node_role": schema.StringAttribute{
			MarkdownDescription: "Name of the nodes' IAM role (the node class's `spec.role`). One of `node_role` and `instance_profile`.",
			Optional:            true,
			Validators: []validator.String{
				stringvalidator.RegexMatches(rolePattern, "must be an IAM role name (not its ARN)"),
				stringvalidator.ExactlyOneOf(path.MatchRoot("node_role"), path.MatchRoot("instance_profile")),
			},
		},
		"instance_profile": schema.StringAttribute{
			MarkdownDescription: "Name of an instance profile for the nodes instead of a role (`karpenter` mode only).",
			Optional:            true,
			Validators:          []validator.String{stringvalidator.RegexMatches(profilePattern, "must be an instance profile name")},
		},
		"subnet_selector":         selectorAttribute("subnet", false),
		"security_group_selector": selectorAttribute("security group", true),
		"ami_alias": schema.StringAttribute{
			MarkdownDescription: "AMI family and version of the nodes, e.g. `al2023@latest` or `bottlerocket@v1.40.0` (`karpenter` mode only; the EC2NodeClass's `amiSelectorTerms` alias; Karpenter picks the NVIDIA variant for GPU instance types). Defaults to `" + render.DefaultAMIAlias + "`; pin a version in production so that a new AMI does not drift every node.",
			Optional:            true,
		},
		"instance_types": schema.ListAttribute{
			MarkdownDescription: "EC2 GPU instance types the NodePools may launch, all with the same GPU model and count (the first one prices the pool). The NodePools also require Karpenter's GPU labels (GPU name, count, manufacturer and memory) and the types' families.",
			ElementType:         types.StringType,
			Required:            true,
			Validators:          []validator.List{listvalidator.SizeBetween(1, 20), listvalidator.UniqueValues()},
		},
		"manifests": schema.StringAttribute{
			MarkdownDescription: "Every object of the pool as YAML documents (node class, NodePools, NodeOverlay), for review and GitOps, without the `" + kube.LabelOwner + "` label gpufleet adds when it applies them. At plan, what the apply will write; after a refresh, the fields gpufleet applied as they are in the cluster (from the objects' managed fields), so that a change made by hand shows as a difference here and the next apply puts the fields back.",
			Computed:            true,
		},
		"objects": schema.ListNestedAttribute{
			MarkdownDescription: "The objects gpufleet manages for the pool, in the order it applies them.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"api_version": schema.StringAttribute{Computed: true, MarkdownDescription: "e.g. `karpenter.sh/v1`."},
				"kind":        schema.StringAttribute{Computed: true, MarkdownDescription: "e.g. `NodePool`."},
				"name":        schema.StringAttribute{Computed: true, MarkdownDescription: "Object name (cluster-scoped)."},
			}},
		},
		"node_pools": schema.ListNestedAttribute{
			MarkdownDescription: "The NodePools: one per capacity rung (`on-demand`, `reserved` with a capacity reservation, `capacity-block`, `spot`), limited to the rung's share of `max_size`, and a static one per rung for its share of `min_size`.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name":          schema.StringAttribute{Computed: true, MarkdownDescription: "NodePool name."},
				"capacity_type": schema.StringAttribute{Computed: true, MarkdownDescription: "`on-demand`, `reserved`, `capacity-block` or `spot`."},
				"weight":        schema.Int64Attribute{Computed: true, MarkdownDescription: "Karpenter's preference, highest first; 0 for a static NodePool."},
				"nodes":         schema.Int64Attribute{Computed: true, MarkdownDescription: "Node limit, or the node count of a static NodePool."},
				"static":        schema.BoolAttribute{Computed: true, MarkdownDescription: "A static NodePool (`spec.replicas`) that keeps `nodes` nodes."},
			}},
		},
	})
	blocks := poolschema.Blocks(ctx)
	maps.Copy(blocks, map[string]schema.Block{
		"gpu": schema.SingleNestedBlock{
			MarkdownDescription: "GPU partitioning and sharing (`karpenter` mode: through the NVIDIA GPU Operator's labels, and a NodeOverlay so that Karpenter counts the slices or replicas; not in `auto_mode`).",
			Blocks:              poolschema.GPUBlocks(),
		},
		"capacity": poolschema.CapacityBlock(schema.SingleNestedBlock{
			MarkdownDescription: "An EC2 capacity reservation (ODCR) or capacity block for the on-demand rung, selected by the node class's `capacityReservationSelectorTerms`: the rung takes `reserved` capacity (and on-demand when an ODCR is full; a capacity block has no fallback).",
			Attributes:          poolschema.EC2ReservationAttributes(", for the cost estimate."),
		}),
		"disruption": schema.SingleNestedBlock{
			MarkdownDescription: "How Karpenter may disrupt the pool's nodes. Unset values follow the workload: non-interruptible training and batch get `WhenEmpty` consolidation, no expiry and no replacement of drifted nodes that run pods; others get `WhenEmptyOrUnderutilized` after `5m`, expiry after `720h` and a budget of `10%`, but the on-demand NodePool of a pool with an `on_demand_base` beside a spot share gets `WhenEmpty` (Karpenter consolidates the priciest nodes first, which would leave the pool on spot alone, below its base), and the static NodePools that hold `min_size` get no expiry (Karpenter's expiry ignores budgets, and their nodes, made together, would all go at once; drift still replaces them within the budget). The plan warns when a value would disrupt a non-interruptible training or batch run, or consolidate the on-demand base.",
			Attributes: map[string]schema.Attribute{
				"consolidation_policy": schema.StringAttribute{MarkdownDescription: "`WhenEmpty`, `WhenEmptyOrUnderutilized` or `Balanced` (Karpenter 1.15).", Optional: true, Validators: []validator.String{stringvalidator.OneOf(render.ConsolidationPolicies...)}},
				"consolidate_after":    schema.StringAttribute{MarkdownDescription: "How long a node stays empty or underutilised before Karpenter consolidates it, e.g. `30m`, or `Never`.", Optional: true},
				"expire_after":         schema.StringAttribute{MarkdownDescription: "Node lifetime, e.g. `720h`, or `Never`.", Optional: true},
				"termination_grace_period": schema.StringAttribute{
					MarkdownDescription: "How long Karpenter waits for a disrupted node's pods before it deletes them, e.g. `24h`; unset, it waits for them.",
					Optional:            true,
				},
				"budgets": schema.ListNestedAttribute{
					MarkdownDescription: "Disruption budgets: at most `nodes` (a count or a percentage) disrupted at once, for `reasons` (`Underutilized`, `Empty`, `Drifted`, `Unhealthy`; all when unset), during `duration` from each cron `schedule`.",
					Optional:            true,
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"nodes":    schema.StringAttribute{Required: true, MarkdownDescription: "e.g. `0`, `2`, `10%`."},
						"reasons":  schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Disruption reasons the budget applies to.", Validators: []validator.List{listvalidator.ValueStringsAre(stringvalidator.OneOf(render.DisruptionReasons...))}},
						"schedule": schema.StringAttribute{Optional: true, MarkdownDescription: "Cron schedule the budget starts at, e.g. `0 9 * * mon-fri`."},
						"duration": schema.StringAttribute{Optional: true, MarkdownDescription: "How long it lasts from each start, e.g. `8h`."},
					}},
				},
			},
		},
		"kubernetes": kube.ConnectionBlock("the EKS cluster's endpoint and a token from the provider's AWS credentials"),
	})
	resp.Schema = schema.Schema{
		MarkdownDescription: "A GPU pool as Karpenter or EKS Auto Mode declares it: a node class (EC2NodeClass, or Auto Mode's NodeClass) with the pool's client tags, a NodePool per capacity rung (on-demand or reserved, spot; static NodePools for `min_size`) with the GPU's requirements, taints, labels, limits and disruption settings, and a NodeOverlay for shared or partitioned GPUs, applied to the cluster with server-side apply. " +
			"The objects are validated at plan in process against the CRDs of the Karpenter release, with the API server's own validation code: no cluster call. gpufleet derives the GPU and client taints, labels, tags and a cost estimate, and checks the pool against the policy bundle at plan time.",
		Attributes: attributes,
		Blocks:     blocks,
	}
}
