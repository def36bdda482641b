package gke

import (
	"context"
	"maps"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

var (
	projectPattern   = regexp.MustCompile(`^[a-z][a-z0-9-]{4,28}[a-z0-9]$`)
	clusterPattern   = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)
	locationPattern  = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]+(-[a-z])?$`)
	machineTypeShape = regexp.MustCompile(`^[a-z][a-z0-9]*-[a-z0-9-]+$`)
	k8sMinorOrPatch  = regexp.MustCompile(`^1\.[0-9]{2}(\.[0-9]+(-gke\.[0-9]+)?)?$`)
	acceleratorShape = regexp.MustCompile(`^nvidia-[a-z0-9-]+$`)
	reservationName  = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)
)

func (r *NodePoolResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attributes := poolschema.Attributes("node_pools")
	maps.Copy(attributes, ClusterAttributes())
	maps.Copy(attributes, map[string]schema.Attribute{
		"owner_id": schema.StringAttribute{
			MarkdownDescription: "Random id gpufleet made when it created the pool, written into the `gpufleet_owner` resource label of its node pools (beside `gpufleet_pool`, the pool's name): gpufleet changes and deletes only node pools with both, so two pools that declare the same `project`, `location`, `cluster` and `name` (two states or workspaces) never take each other's node pools; a node pool of a side's name that is not the pool's stops an apply that needs that side before any change, and is ignored otherwise. Import takes it from the node pools' labels. Null for pools created before owner ids existed, whose node pools count as theirs only when state records them (by their instance groups); such a pool gets an owner id on its next apply.",
			Computed:            true,
		},
		"location": schema.StringAttribute{
			MarkdownDescription: "Location of the cluster: a region (`europe-west4`) for a regional cluster, a zone (`europe-west4-a`) for a zonal one.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.RegexMatches(locationPattern, "must be a GCP region such as europe-west4 or a zone such as europe-west4-a")},
		},
		"region": schema.StringAttribute{
			MarkdownDescription: "Region of the pool: `location`, or the region of a zonal `location`.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"cluster": schema.StringAttribute{
			MarkdownDescription: "Name of the GKE cluster.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.RegexMatches(clusterPattern, "must be a GKE cluster name: 1-40 lowercase letters, digits or '-', starting with a letter")},
		},
		"name": schema.StringAttribute{
			MarkdownDescription: "Name of the pool. Its node pools are `<name>-od` and `<name>-spot`, so at most 35 characters (GKE takes 40).",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.RegexMatches(pool.GKENamePattern, "must be 1-35 lowercase letters, digits or '-', starting with a letter and not ending with '-'")},
		},
		"machine_type": schema.StringAttribute{
			MarkdownDescription: "Compute Engine machine type: an accelerator-optimized type that brings its own GPUs (`g2-standard-8`, `a2-highgpu-1g`, `a3-highgpu-8g`, …) or an N1 type with `gpu.type` and `gpu.count`. Changed in place while the GPUs stay the same; a change of GPU model or count replaces the pool. A3 High with 1, 2 or 4 GPUs is sold only as Spot (or flex-start), A3 Ultra and A4 only as Spot, flex-start or reserved capacity: their pools need `capacity.spot_percentage = 100`, or, for A3 Ultra and A4, a `capacity.reservation`.",
			Required:            true,
			Validators:          []validator.String{stringvalidator.RegexMatches(machineTypeShape, "must be a Compute Engine machine type such as g2-standard-8")},
		},
		"node_locations": schema.SetAttribute{
			MarkdownDescription: "Zones of the nodes, within the cluster's region. Defaults to the cluster's zones (a regional cluster's, or a zonal cluster's own zone and the others a multi-zonal cluster has), which are known only at apply: the plan then shows them, and the starting size and cost of a pool whose size the autoscaler owns, as unknown, never a single zone the apply contradicts. GKE sizes node pools per zone, so sizes split over these zones (see `scaling`). A pool with a `specific` reservation needs exactly one zone, the reservation's. Changed in place, in an update call of its own.",
			ElementType:         types.StringType,
			Optional:            true,
			Computed:            true,
			PlanModifiers:       []planmodifier.Set{setplanmodifier.UseStateForUnknown()},
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(stringvalidator.RegexMatches(zonePattern, "must be a zone such as europe-west4-a")),
			},
		},
		"kubernetes_version": schema.StringAttribute{
			MarkdownDescription: "Kubernetes version of the nodes: a minor version (`1.31`), a patch (`1.31.5`) or an explicit GKE version (`1.31.5-gke.1023000`). GKE resolves `1.31` and `1.31.5` to an explicit version (the highest valid patch), and node auto-upgrade moves nodes past the configured version: while the nodes run the configured version or a later one, the pool keeps the value as written and plans no change (never a downgrade). Raising it upgrades the node pools in place. Unset, node pools are created at the control plane's version (a side added later too, never at an older explicit patch GKE may no longer offer) and this shows the oldest version they run.",
			Optional:            true,
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			Validators:          []validator.String{stringvalidator.RegexMatches(k8sMinorOrPatch, "must be a GKE version such as 1.31 or 1.31.5-gke.1023000")},
		},
		"node_pools": schema.ListNestedAttribute{
			MarkdownDescription: "The GKE node pools behind the pool: on-demand first, then spot.",
			Computed:            true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name":                schema.StringAttribute{Computed: true, MarkdownDescription: "Node pool name."},
				"capacity_type":       schema.StringAttribute{Computed: true, MarkdownDescription: "`ON_DEMAND` or `SPOT`, as the EKS pool's `node_groups` say."},
				"spot":                schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the node pool runs Spot VMs (`capacity_type` is `SPOT`)."},
				"min_size":            schema.Int64Attribute{Computed: true, MarkdownDescription: "Minimum nodes over all zones: autoscaling `total_min_node_count`, or, with an enforced `desired_size` (autoscaling off, GKE keeps no limits), the pool's limit for this node pool."},
				"max_size":            schema.Int64Attribute{Computed: true, MarkdownDescription: "Maximum nodes over all zones: autoscaling `total_max_node_count`, or, with an enforced `desired_size`, the pool's limit for this node pool."},
				"desired_size":        schema.Int64Attribute{Computed: true, MarkdownDescription: "Current nodes over all zones (the instance groups' target sizes; during a blue-green upgrade the larger of the blue and the green groups). A new node pool starts at GKE's per-zone count times its zones: the enforced `desired_size`, or `min_size` rounded up to the same number of nodes in every zone; unknown in the plan while the zones are, and, in a new pool's plan, for the on-demand node pool of a spot mix that the cluster autoscaler sizes (`scaling.desired_size` unset: it may resize that node pool while the spot one is created)."},
				"status":              schema.StringAttribute{Computed: true, MarkdownDescription: "Node pool status, e.g. `RUNNING`. `NOT_CREATED` (no GKE status) marks a node pool that a create which timed out or was interrupted did not make: the pool is kept, not tainted, with the node pools that were made, and the next refresh and plan create the missing one beside them."},
				"instance_group_urls": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Instance group managers of the node pool, one per zone (during a blue-green upgrade the blue and the green ones). Known after the apply in the plan of a new node pool, of one whose zones change, and of any update of a pool with `upgrade_settings.strategy = \"BLUE_GREEN\"`, whose node recreations move the nodes to new groups."},
				"in_sync":             schema.BoolAttribute{Computed: true, MarkdownDescription: "`false` when the node pool is not what the pool's configuration gives it: GKE left it `ERROR` or `RUNNING_WITH_ERROR` (a GPU stockout, a failed operation), an apply failed part-way, or it was changed outside Terraform. The next plan updates the pool and the apply repairs the node pool: a node pool in `ERROR` is deleted and created again, one `RUNNING_WITH_ERROR` gets the settings that differ sent again, or else its size (the request GKE's status asks to reissue). Unknown in the plan of a new pool."},
			}},
		},
	})
	gpuBlocks := poolschema.GPUBlocks()
	blocks := poolschema.Blocks(ctx)
	maps.Copy(blocks, map[string]schema.Block{
		"gpu": schema.SingleNestedBlock{
			MarkdownDescription: "GPUs of the nodes, partitioning and sharing. Accelerator-optimized machine types bring their GPUs; N1 machine types need `type` and `count`. The driver and GPU sharing settings (`sharing`, time-slicing or MPS, also on MIG partitions) change in place, as `gcloud container node-pools update --accelerator` changes them, recreating the nodes; the GPU type or count, the MIG partition size (`mig`: changing, adding or removing it) and removing `sharing` replace the pool, as GKE changes none of them in place.",
			Attributes: map[string]schema.Attribute{
				"type": schema.StringAttribute{
					MarkdownDescription: "Accelerator type, e.g. `nvidia-l4` or `nvidia-tesla-t4`. Inferred from A2/A3/A4/G2 machine types; required for N1. Changing it replaces the pool.",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.RegexMatches(acceleratorShape, "must be a GKE accelerator type such as nvidia-l4")},
				},
				"count": schema.Int64Attribute{
					MarkdownDescription: "GPUs per node. Defaults to the machine type's own; required for N1. Changing it replaces the pool.",
					Optional:            true,
					Validators:          []validator.Int64{int64validator.Between(1, 16)},
				},
				"driver_version": schema.StringAttribute{
					MarkdownDescription: "NVIDIA driver GKE installs: `DEFAULT`, `LATEST` or `INSTALLATION_DISABLED` (you install it yourself, e.g. with the GPU Operator). Unset means `DEFAULT`, what GKE gives node pools created on 1.30 or later. A node pool created before GKE 1.30 has no driver setting (GKE installs no driver): import reads it as `INSTALLATION_DISABLED`, which means the same on the nodes, and a pool that says so plans no change. Changed in place (`gcloud container node-pools update --accelerator=…,gpu-driver-version=…`), which recreates the nodes.",
					Optional:            true,
					Validators:          []validator.String{stringvalidator.OneOf(driverVersions...)},
				},
			},
			Blocks: gpuBlocks,
		},
		"capacity": poolschema.CapacityBlock(schema.SingleNestedBlock{
			MarkdownDescription: "Reservation affinity of the on-demand node pool (Spot VMs cannot consume reservations; a spot share runs beside the reserved on-demand nodes). Changing it replaces the on-demand node pool only (GKE cannot change a node pool's reservation affinity in place): it is deleted and created again, and the spot node pool keeps running.",
			Attributes: map[string]schema.Attribute{
				"type":    schema.StringAttribute{MarkdownDescription: "`specific` (consume the named reservation only), `any` (any matching reservation, else standard VMs: not for machine types sold only through reservations, A3 Ultra and A4) or `none`.", Optional: true, Validators: []validator.String{stringvalidator.OneOf(pool.GKEReservation...)}},
				"name":    schema.StringAttribute{MarkdownDescription: "Reservation name, with `specific`.", Optional: true, Validators: []validator.String{stringvalidator.RegexMatches(reservationName, "must be a Compute Engine reservation name")}},
				"project": schema.StringAttribute{MarkdownDescription: "Project of a shared reservation, with `specific`: shared with the pool's project by name, or with the owner's whole organization. Defaults to the pool's project.", Optional: true, Validators: []validator.String{stringvalidator.RegexMatches(projectPattern, "must be a Google Cloud project id")}},
			},
		}),
		"upgrade_settings": upgradeSettingsBlock(),
		"network":          networkBlock(),
	})
	resp.Schema = schema.Schema{
		MarkdownDescription: "A GPU node pool on a GKE cluster: up to two GKE node pools, `<name>-od` (on-demand, optionally " +
			"consuming a reservation) and `<name>-spot` (Spot VMs), autoscaled within the pool's limits by GKE's cluster " +
			"autoscaler, or, with an enforced `scaling.desired_size`, kept at that size with GKE's autoscaling off (so that the " +
			"autoscaler and every apply never undo each other's resizes). gpufleet derives the GPU " +
			"taint, client isolation taint, node labels (client, workload, capacity type), resource labels that carry per-client " +
			"cost allocation to GCP billing, MIG partitioning and GPU sharing settings and a cost estimate, and checks the pool " +
			"against the policy bundle at plan time. GKE's own labels, taints and resource labels never show as a diff.",
		Attributes: attributes,
		Blocks:     blocks,
	}
}
