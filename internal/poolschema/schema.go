package poolschema

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// maxPoolSize bounds every size: the APIs take 32-bit sizes (a larger number would wrap), and no pool
// holds more than GKE's 1 000 nodes per zone over four zones; each cloud's own limit is checked at
// plan (pool.NodeLimitsFor: the EKS node group quota, GKE's per-zone limit, else 1 000).
const maxPoolSize = catalog.MaxPoolSize

// Attributes are the cloud-neutral attributes of a pool resource, one definition for both clouds so
// that the docs say the same thing. sidesAttribute names the resource's list of cloud objects
// (node_groups, node_pools), which effective_labels refers to.
func Attributes(sidesAttribute string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"client": schema.StringAttribute{
			MarkdownDescription: "Who pays for the pool: drives the `gpufleet.io/client` label, the client tag, the client taint of `dedicated` clients and the client's data-residency rules. Lowercase letters, digits, `-` and `_`.",
			Required:            true,
			Validators:          []validator.String{stringvalidator.RegexMatches(pool.ClientIDPattern, "must be 1-63 lowercase letters, digits, '-' or '_', starting and ending with a letter or digit")},
		},
		"taints": schema.SetNestedAttribute{
			MarkdownDescription: "Extra Kubernetes taints. The GPU taint and the client taint are derived (see `effective_taints`). EKS takes keys of at most 63 characters, prefix included.",
			Optional:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"key":    schema.StringAttribute{Required: true, MarkdownDescription: "Taint key."},
				"value":  schema.StringAttribute{Optional: true, MarkdownDescription: "Taint value; `\"\"` and no value are the same taint, kept as written."},
				"effect": schema.StringAttribute{Required: true, MarkdownDescription: "`NO_SCHEDULE`, `NO_EXECUTE` or `PREFER_NO_SCHEDULE`.", Validators: []validator.String{stringvalidator.OneOf(pool.TaintEffects...)}},
			}},
			Validators: []validator.Set{setvalidator.SizeAtMost(48)},
		},
		"labels": schema.MapAttribute{
			MarkdownDescription: "Extra Kubernetes node labels. Labels under `gpufleet.io/` are derived (see `effective_labels`). Prefixes the clouds reserve are refused at plan: `kubernetes.io/` and `k8s.io/` (and their subdomains, such as `node-role.kubernetes.io/`) on both, `eks.amazonaws.com/` on EKS, `cloud.google.com/` on GKE. EKS takes keys of at most 63 characters, prefix included, and no empty values.",
			ElementType:         types.StringType,
			Optional:            true,
		},
		"tags": schema.MapAttribute{
			MarkdownDescription: "Extra tags, merged over the provider's `default_tags`. On EKS: AWS tags on the node groups, launch templates, the node groups' Auto Scaling groups, instances and volumes, changed in place (a tag change replaces no node); EKS takes 50 tags on a node group, and gpufleet adds to each node group its owner tag, the spot mix and the cluster autoscaler's resource tags (one, or one per MIG slice size under `mig_strategy = \"mixed\"`, and `nvidia.com/gpu`), and an instance takes 50, five of them EKS's own, so the plan fails when they do not fit. On GKE: resource labels on the node pools and their VMs and disks (keys and values of lowercase letters, digits, `_` and `-`, at most 64). Derived tags (`gpufleet:` on AWS, `gpufleet_` on GKE) are in `effective_tags`.",
			ElementType:         types.StringType,
			Optional:            true,
		},
		"policy_waivers": schema.MapAttribute{
			MarkdownDescription: "Waived policy rules: rule id (gpufleet's `GF-…` or a rule of your own) → reason (who, why, until when). A waived deny becomes a warning naming the waiver; a waiver of a rule that cannot be waived, or of a `GF-` id the bundle does not have, is a warning (GF-WAIVE-001).",
			ElementType:         types.StringType,
			Optional:            true,
			Validators:          []validator.Map{mapvalidator.KeysAre(stringvalidator.RegexMatches(pool.WaiverRulePattern, "must be a policy rule id such as GF-COST-002 or ACME-001"))},
		},
		"gpu_model": schema.StringAttribute{
			MarkdownDescription: "GPU model of the node type, e.g. `H100-80GB`.",
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
			MarkdownDescription: "Every label gpufleet gives the nodes except `gpufleet.io/capacity-type`, which each side adds (see `" + sidesAttribute + "`). After a refresh, the labels the cloud objects carry: a derived label changed outside Terraform (say `gpufleet.io/client`) shows here, and the next apply puts it back; `client` stays the one gpufleet tagged the pool's cloud objects with.",
			ElementType:         types.StringType,
			Computed:            true,
		},
		"effective_tags": schema.MapAttribute{
			MarkdownDescription: "Every tag (GKE: resource label) of the pool's cloud objects and instances: `default_tags`, `tags` and the derived client, pool, workload and cost-centre tags.",
			ElementType:         types.StringType,
			Computed:            true,
		},
		"device_plugin_config": schema.StringAttribute{
			MarkdownDescription: "NVIDIA device plugin config (YAML) for GPU sharing, to put in the device plugin's ConfigMap under the name in the `nvidia.com/device-plugin.config` label; null without sharing.",
			Computed:            true,
		},
		"estimated_hourly_cost_usd": schema.NumberAttribute{
			MarkdownDescription: "Estimated cost per hour at the desired size, spot share at the spot estimate, after the provider's pricing settings, rounded to 1/100 cent; null when the region has no price. An exact decimal, as Terraform keeps it in state, so sums of costs in a module's outputs are the same at every plan.",
			Computed:            true,
		},
		"estimated_monthly_cost_usd": schema.NumberAttribute{
			MarkdownDescription: "`estimated_hourly_cost_usd` × 730 hours, rounded to the cent (an exact decimal, as the hourly cost).",
			Computed:            true,
		},
		"policy_findings": schema.ListNestedAttribute{
			MarkdownDescription: "What the policy bundle found in the pool's configuration when a plan last created or changed the pool, deny findings first: rule id, severity (`deny` or `warn`: the rule's own, also under `policy.enforcement = \"warn\"`; a waived deny is a `warn` whose message names the waiver), attribute and message. A plan that leaves the pool as it is keeps them, so new policy data alone never shows as a change. Empty under `policy.enforcement = \"off\"`; unknown while a value the policy reads is. A module can fail on a deny (`lifecycle { postcondition { condition = !contains(self.policy_findings[*].severity, \"deny\") } }`) or report the findings per client.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"rule":      schema.StringAttribute{Computed: true, MarkdownDescription: "Rule id, e.g. `GF-ISO-003`."},
				"severity":  schema.StringAttribute{Computed: true, MarkdownDescription: "`deny` or `warn`."},
				"attribute": schema.StringAttribute{Computed: true, MarkdownDescription: "The pool attribute to change, e.g. `gpu.sharing.strategy`; empty when the finding is about the whole pool."},
				"message":   schema.StringAttribute{Computed: true, MarkdownDescription: "The finding as the plan shows it."},
			}},
		},
		"policy_document": schema.ObjectAttribute{
			MarkdownDescription: "The pool's policy document as the provider checks it at plan time: the input of the gpufleet policy bundle (see `policies/README.md`). conftest reads it from the plan JSON instead of rebuilding it, so CI and the provider judge the same facts; unknown while any input is.",
			Computed:            true,
			AttributeTypes:      PolicyDocumentType.AttrTypes,
		},
	}
}

// Blocks are the cloud-neutral blocks of a pool resource.
func Blocks(ctx context.Context) map[string]schema.Block {
	return map[string]schema.Block{
		"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
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
					MarkdownDescription: "GPU memory one replica needs, in GiB: on one GPU or MIG slice, or in all over its `gpus_per_replica` GPUs. " +
						"The policy bundle's GF-RS-001 denies a pool whose replica needs more than 95 % of it (`thresholds.memory_headroom_percent`).",
					Optional:   true,
					Validators: []validator.Float64{float64validator.AtLeast(0.1)},
				},
				"interruptible": schema.BoolAttribute{
					MarkdownDescription: "Whether the workload checkpoints and may run on spot. Defaults to `false`.",
					Optional:            true,
				},
				"precision": schema.StringAttribute{
					MarkdownDescription: "Precision the workload computes in: `" + strings.Join(catalog.Precisions(), "`, `") + "`. GF-RS-004 denies a GPU " +
						"without it (bf16 needs compute capability 8.0, fp8 8.9). Written as the node label `gpufleet.io/precision`.",
					Optional:   true,
					Validators: []validator.String{stringvalidator.OneOf(catalog.Precisions()...)},
				},
				"gpus_per_replica": schema.Int64Attribute{
					MarkdownDescription: "GPUs one replica spans on one node (tensor parallel, FSDP); default 1. GF-RS-001 denies more than a node has, " +
						"and training over several GPUs without NVLink. Written as the node label `gpufleet.io/gpus-per-replica`.",
					Optional:   true,
					Validators: []validator.Int64{int64validator.Between(1, 16)},
				},
				"replicas": schema.Int64Attribute{
					MarkdownDescription: "Replicas the pool runs at once. Production inference with two or more replicas on a pool of at most one node " +
						"gets GF-RS-005's warning; the host memory check counts the replicas a node runs. Written as the node label `gpufleet.io/replicas`.",
					Optional:   true,
					Validators: []validator.Int64{int64validator.AtLeast(1)},
				},
				"kv_cache_gib": schema.Float64Attribute{
					MarkdownDescription: "Of `gpu_memory_gib`, the GiB that are the serving engine's KV cache (`gpufleet_recommendation`'s `kv_cache_gib`, from `context_length` × `concurrent_sequences`). " +
						"The KV cache lives in GPU memory only, so the host-memory check (GF-RS-007) counts `gpu_memory_gib` − this as the weights a node loads. " +
						"0 or more and less than `gpu_memory_gib`. Written as the node label `gpufleet.io/kv-cache-gib`.",
					Optional:   true,
					Validators: []validator.Float64{float64validator.AtLeast(0)},
				},
			},
		},
		"scaling": schema.SingleNestedBlock{
			MarkdownDescription: "Pool size, split between the on-demand and spot sides by `capacity`. Required. " +
				"Without `desired_size` the pool starts at `min_size` and the cluster autoscaler owns its size: gpufleet never " +
				"scales it back (the sides' current sizes show in `node_groups` / `node_pools`). With `desired_size` every apply " +
				"enforces it, undoing the autoscaler's changes. Sizes go to the cloud APIs as 32-bit integers; gpufleet takes at most " +
				"the cloud's limit: on EKS each side's node group holds at most the \"Nodes per managed node group\" quota (default 450, the provider's " +
				"`aws.max_nodes_per_node_group`); on GKE each side's node pool holds at most 1000 nodes per zone; Karpenter and ComputeClass pools at most 1000.",
			Validators: []validator.Object{objectvalidator.IsRequired(), alsoRequires("min_size", "max_size")},
			Attributes: map[string]schema.Attribute{
				"min_size":     schema.Int64Attribute{MarkdownDescription: "Minimum nodes, 0 to 4000.", Optional: true, Validators: []validator.Int64{int64validator.Between(0, maxPoolSize)}},
				"max_size":     schema.Int64Attribute{MarkdownDescription: "Maximum nodes, 1 to 4000, within the cloud's limit (above).", Optional: true, Validators: []validator.Int64{int64validator.Between(1, maxPoolSize)}},
				"desired_size": schema.Int64Attribute{MarkdownDescription: "Desired nodes, enforced on every apply; leave it unset to let the cluster autoscaler own the size.", Optional: true, Validators: []validator.Int64{int64validator.Between(0, maxPoolSize)}},
			},
		},
	}
}

// GPUBlocks are the nested blocks of the gpu block that both clouds share.
func GPUBlocks() map[string]schema.Block {
	return map[string]schema.Block{
		"mig": schema.SingleNestedBlock{
			MarkdownDescription: "NVIDIA MIG: every GPU split into `profile` slices, or (EKS) a GPU Operator `config` such as `all-balanced`. On EKS the GPU Operator's MIG manager applies it through the `nvidia.com/mig.config` label; on GKE it is the node pool's `gpu_partition_size`.",
			Attributes: map[string]schema.Attribute{
				"profile": schema.StringAttribute{MarkdownDescription: "MIG profile, e.g. `3g.40gb` (see `provider::gpufleet::mig_profiles`).", Optional: true},
				"config":  schema.StringAttribute{MarkdownDescription: "MIG config: `all-balanced` or `all-<profile>`.", Optional: true},
			},
		},
		"sharing": schema.SingleNestedBlock{
			MarkdownDescription: "GPU sharing: on EKS through the NVIDIA device plugin (see `device_plugin_config`), on GKE through the node pool's GPU sharing config. No memory or fault isolation: not for production.",
			Attributes: map[string]schema.Attribute{
				"strategy": schema.StringAttribute{MarkdownDescription: "`time-slicing` or `mps`.", Optional: true, Validators: []validator.String{stringvalidator.OneOf(pool.SharingKinds...)}},
				"replicas": schema.Int64Attribute{MarkdownDescription: "Replicas per GPU (or MIG slice), 2 to 48.", Optional: true, Validators: []validator.Int64{int64validator.Between(2, 48)}},
			},
		},
	}
}

// CapacityBlock is the capacity block with the cloud's reservation block.
func CapacityBlock(reservation schema.SingleNestedBlock) schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Spot/on-demand mix and reservations. With base `b` and percentage `p`, a size `s` has `floor(max(s-b,0)*p/100)` spot nodes.",
		Attributes: map[string]schema.Attribute{
			"spot_percentage": schema.Int64Attribute{MarkdownDescription: "Share of nodes above `on_demand_base` on spot, 0-100. Defaults to 0.", Optional: true, Computed: true, Default: int64default.StaticInt64(0), Validators: []validator.Int64{int64validator.Between(0, 100)}},
			"on_demand_base":  schema.Int64Attribute{MarkdownDescription: "Nodes that always run on-demand, 0 to 4000. Defaults to 0.", Optional: true, Computed: true, Default: int64default.StaticInt64(0), Validators: []validator.Int64{int64validator.Between(0, maxPoolSize)}},
		},
		Blocks: map[string]schema.Block{"reservation": reservation},
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
