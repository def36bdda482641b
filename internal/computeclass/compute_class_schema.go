package computeclass

import (
	"context"
	"maps"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/gke"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

var (
	machineTypeShape = regexp.MustCompile(`^[a-z][a-z0-9]*-[a-z0-9-]+$`)
	acceleratorShape = regexp.MustCompile(`^nvidia-[a-z0-9-]+$`)
	reservationName  = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)
	projectPattern   = regexp.MustCompile(`^[a-z][a-z0-9-]{4,28}[a-z0-9]$`)
	locationPattern  = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]+(-[a-z])?$`)
	zoneShape        = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]+-[a-z]$`)
)

// classAttributes are the attributes a ComputeClass has wherever it is rendered (the resource and
// the render-only data source); the resource adds the cluster's.
func classAttributes() map[string]schema.Attribute {
	attributes := poolschema.Attributes("manifests")
	maps.Copy(attributes, map[string]schema.Attribute{
		"name": schema.StringAttribute{
			MarkdownDescription: "Name of the ComputeClass, which workloads select with the node selector `cloud.google.com/compute-class` (see `pod_spec`): 1-63 lowercase letters, digits or `-`. Not `default` (the class of every workload that names none) nor a class GKE provides (`autopilot`, `autopilot-spot`).",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.RegexMatches(render.NamePattern, "must be 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit")},
		},
		"location": schema.StringAttribute{
			MarkdownDescription: "Location of the cluster: a region (`us-central1`) or a zone (`us-central1-a`). Its region prices the class and is judged by the residency rules.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.RegexMatches(locationPattern, "must be a GCP region such as us-central1 or a zone such as us-central1-a")},
		},
		"region": schema.StringAttribute{
			MarkdownDescription: "Region of the class: `location`, or the region of a zonal `location`.",
			Computed:            true,
		},
		"machine_type": schema.StringAttribute{
			MarkdownDescription: "Compute Engine machine type of every rung: an accelerator-optimized type that brings its own GPUs (`g2-standard-24`, `a2-highgpu-1g`, `a3-highgpu-8g`, …) or an N1 type with `gpu.type` and `gpu.count`. A rung of a provisioning model the type is not sold as is refused at plan (A3 High with 1, 2 or 4 GPUs: Spot and flex-start only; A3 Ultra and A4: Spot, flex-start and reservations; N1: no flex-start).",
			Required:            true,
			Validators:          []validator.String{stringvalidator.RegexMatches(machineTypeShape, "must be a Compute Engine machine type such as g2-standard-8")},
		},
		"zones": schema.SetAttribute{
			MarkdownDescription: "Zones where the rungs create nodes (`priorities[].location.zones`), within the cluster's region; unset, any zone of the cluster. A `specific` reservation's rung uses the reservation's zones (`capacity.reservation.zones`) instead.",
			ElementType:         types.StringType,
			Optional:            true,
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(stringvalidator.RegexMatches(zoneShape, "must be a zone such as us-central1-a")),
			},
		},
		"when_unsatisfiable": schema.StringAttribute{
			MarkdownDescription: "What GKE does when no rung can be satisfied: `DoNotScaleUp` (default: pods stay Pending) or `ScaleUpAnyway` (nodes of the cluster's default configuration, without GPUs: a plan warning on a GPU class).",
			Optional:            true,
			Computed:            true,
			Default:             stringdefault.StaticString(render.DoNotScaleUp),
			Validators:          []validator.String{stringvalidator.OneOf(render.WhenUnsatisfiable...)},
		},
		"active_migration": schema.BoolAttribute{
			MarkdownDescription: "Whether GKE moves workloads back to a better rung when it has capacity again (`activeMigration.optimizeRulePriority`), by evicting them. Defaults to `true`, except for training and batch work that is not `workload.interruptible`, which an eviction would set back to its start.",
			Optional:            true,
			Computed:            true,
		},
		"consolidation_delay_minutes": schema.Int64Attribute{
			MarkdownDescription: "Minutes a node stays unneeded before GKE removes it (`autoscalingPolicy.consolidationDelayMinutes`), 1 to 1440. Defaults by workload kind: 30 for training (GPUs are the hardest to get back), 15 for inference (the next peak needs the nodes), 10 for batch (GKE's default), 5 for development (idle GPUs are the largest waste).",
			Optional:            true,
			Computed:            true,
			Validators:          []validator.Int64{int64validator.Between(1, 1440)},
		},
		"node_pool_auto_creation": schema.BoolAttribute{
			MarkdownDescription: "Whether GKE creates node pools for the class (`nodePoolAutoCreation.enabled`, GKE 1.33.3-gke.1136000 and later; on older clusters node auto-provisioning must be on). Defaults to `true`.",
			Optional:            true,
			Computed:            true,
			Default:             booldefault.StaticBool(true),
		},
		"description": schema.StringAttribute{
			MarkdownDescription: "Free text about when to use the class (`spec.description`).",
			Optional:            true,
		},
		"manifests": schema.StringAttribute{
			MarkdownDescription: "The ComputeClass as YAML, as gpufleet applies it (for review, and for GitOps repositories); unknown while a value it needs is.",
			Computed:            true,
		},
		"pod_spec": schema.SingleNestedAttribute{
			MarkdownDescription: "What a workload's pod template needs to run on the class: the node selector (the class, the accelerator, and the MIG partition size and GPU sharing, which GKE reads from the pods, not the class), tolerations of every taint of the class's nodes, labels that carry the client to GKE cost allocation, and the annotation that keeps the cluster autoscaler from evicting work that does not checkpoint. Use it with `yamlencode` or in a `kubernetes_deployment`.",
			Computed:            true,
			Attributes: map[string]schema.Attribute{
				"node_selector": schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Pod `nodeSelector`."},
				"tolerations": schema.ListNestedAttribute{
					Computed:            true,
					MarkdownDescription: "Pod `tolerations`.",
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"key":      schema.StringAttribute{Computed: true, MarkdownDescription: "Taint key."},
						"operator": schema.StringAttribute{Computed: true, MarkdownDescription: "`Equal` or `Exists`."},
						"value":    schema.StringAttribute{Computed: true, MarkdownDescription: "Taint value (null with `Exists`)."},
						"effect":   schema.StringAttribute{Computed: true, MarkdownDescription: "`NoSchedule`, `PreferNoSchedule` or `NoExecute`."},
					}},
				},
				"labels":      schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Pod labels: `gpufleet.io/client` and `gpufleet.io/workload`."},
				"annotations": schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Pod annotations: `cluster-autoscaler.kubernetes.io/safe-to-evict = \"false\"` for work that is not interruptible on a class without active migration (by default training and batch work that is not interruptible; inference and development migrate by default), so that consolidation does not evict it; null otherwise."},
			},
		},
	})
	return attributes
}

// classBlocks are the blocks of a ComputeClass, wherever it is rendered.
func classBlocks(ctx context.Context) map[string]schema.Block {
	blocks := poolschema.Blocks(ctx)
	maps.Copy(blocks, map[string]schema.Block{
		"gpu": schema.SingleNestedBlock{
			MarkdownDescription: "GPUs of the nodes (`priorities[].gpu` of every rung), partitioning and sharing. Accelerator-optimized machine types bring their GPUs; N1 machine types need `type` and `count`. MIG (`mig`) and sharing (`sharing`) are requested by the pods on GKE (see `pod_spec`), with a plan warning.",
			Attributes: map[string]schema.Attribute{
				"type": schema.StringAttribute{
					MarkdownDescription: "Accelerator type, e.g. `nvidia-l4`. Inferred from A2/A3/A4/G2 machine types; required for N1.",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.RegexMatches(acceleratorShape, "must be a GKE accelerator type such as nvidia-l4")},
				},
				"count": schema.Int64Attribute{
					MarkdownDescription: "GPUs per node. Defaults to the machine type's own; required for N1.",
					Optional:            true,
					Validators:          []validator.Int64{int64validator.Between(1, 16)},
				},
				"driver_version": schema.StringAttribute{
					MarkdownDescription: "NVIDIA driver GKE installs: `DEFAULT` or `LATEST` (`gpu.driverVersion` default or latest). A ComputeClass cannot leave the driver to you: `INSTALLATION_DISABLED` is refused at plan.",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.OneOf(gke.DriverVersions()...)},
				},
			},
			Blocks: poolschema.GPUBlocks(),
		},
		"capacity": schema.SingleNestedBlock{
			MarkdownDescription: "How GKE obtains the GPUs: the rungs it tries, in order (one ComputeClass priority each). Required.",
			Validators:          []validator.Object{objectvalidator.IsRequired()},
			Attributes: map[string]schema.Attribute{
				"ladder": schema.ListAttribute{
					MarkdownDescription: "Rungs in the order GKE tries them: `reservation` (the `reservation` block), `on_demand`, `flex_start` (flex-start VMs of the Dynamic Workload Scheduler, for at most `flex_start.max_run_duration_seconds`) and `spot`, each at most once. E.g. `[\"reservation\", \"on_demand\", \"flex_start\", \"spot\"]`, as Google's own GPU classes are; interruptible work can take spot first.",
					ElementType:         types.StringType,
					Optional:            true,
					Validators: []validator.List{
						listvalidator.SizeAtLeast(1),
						listvalidator.ValueStringsAre(stringvalidator.OneOf(render.Rungs...)),
					},
				},
			},
			Blocks: map[string]schema.Block{
				"reservation": schema.SingleNestedBlock{
					MarkdownDescription: "The reservation of the `reservation` rung. Spot VMs and flex-start VMs do not consume reservations, so their rungs never do.",
					Attributes: map[string]schema.Attribute{
						"type":    schema.StringAttribute{MarkdownDescription: "`specific` (only the named reservation: affinity `Specific`, no fallback within the rung) or `any` (any matching reservation, else on-demand: `AnyBestEffort`).", Optional: true, Validators: []validator.String{stringvalidator.OneOf(pool.ReservationSpecific, pool.ReservationAny)}},
						"name":    schema.StringAttribute{MarkdownDescription: "Reservation name, with `specific`.", Optional: true, Validators: []validator.String{stringvalidator.RegexMatches(reservationName, "must be a Compute Engine reservation name")}},
						"project": schema.StringAttribute{MarkdownDescription: "Project of a shared reservation, with `specific`. Defaults to the cluster's project.", Optional: true, Validators: []validator.String{stringvalidator.RegexMatches(projectPattern, "must be a Google Cloud project id")}},
						"zones": schema.SetAttribute{
							MarkdownDescription: "Zones where the `specific` reservation is consumed (`reservations.specific[].zones`); its rung takes no `zones` of the class.",
							ElementType:         types.StringType,
							Optional:            true,
							Validators: []validator.Set{
								setvalidator.SizeAtLeast(1),
								setvalidator.ValueStringsAre(stringvalidator.RegexMatches(zoneShape, "must be a zone such as us-central1-a")),
							},
						},
					},
				},
				"flex_start": schema.SingleNestedBlock{
					MarkdownDescription: "Settings of the `flex_start` rung.",
					Attributes: map[string]schema.Attribute{
						"max_run_duration_seconds": schema.Int64Attribute{
							MarkdownDescription: "How long a flex-start node may run (`maxRunDurationSeconds`), up to 7 days (604800, the default).",
							Optional:            true,
							Validators:          []validator.Int64{int64validator.Between(1, render.MaxRunDurationSeconds)},
						},
						"node_recycling_lead_time_seconds": schema.Int64Attribute{
							MarkdownDescription: "How long before a flex-start node's end GKE starts looking for its replacement (`flexStart.nodeRecycling.leadTimeSeconds`); unset, none is sought early.",
							Optional:            true,
							Validators:          []validator.Int64{int64validator.Between(1, render.MaxRunDurationSeconds)},
						},
					},
				},
			},
		},
	})
	return blocks
}
