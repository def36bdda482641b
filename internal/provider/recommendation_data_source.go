package provider

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/recommend"
)

var (
	_ datasource.DataSource                     = &RecommendationDataSource{}
	_ datasource.DataSourceWithConfigure        = &RecommendationDataSource{}
	_ datasource.DataSourceWithConfigValidators = &RecommendationDataSource{}
)

// RecommendationDataSource right-sizes a workload: per cloud, the cheapest pool that fits and that
// the policy bundle would not deny.
type RecommendationDataSource struct {
	meta *conns.Meta
}

// NewRecommendationDataSource is the data source factory.
func NewRecommendationDataSource() datasource.DataSource { return &RecommendationDataSource{} }

type recommendationModel struct {
	Workload               *recommendationWorkloadModel `tfsdk:"workload"`
	Replicas               types.Int64                  `tfsdk:"replicas"`
	Clouds                 []types.String               `tfsdk:"clouds"`
	Regions                []types.String               `tfsdk:"regions"`
	Client                 types.String                 `tfsdk:"client"`
	MaxHourlyUSD           types.Float64                `tfsdk:"max_hourly_usd"`
	HoursPerMonth          types.Float64                `tfsdk:"hours_per_month"`
	GKEZones               types.Int64                  `tfsdk:"gke_zones"`
	MemoryHeadroom         types.Float64                `tfsdk:"memory_headroom_percent"`
	GPUModels              []types.String               `tfsdk:"gpu_models"`
	RequiredGPUMemoryGiB   types.Float64                `tfsdk:"required_gpu_memory_gib"`
	RequiredKVCacheGiB     types.Float64                `tfsdk:"required_kv_cache_gib"`
	Observed               *recommendationObservedModel `tfsdk:"observed"`
	Capacity               *recommendationCapacityModel `tfsdk:"capacity"`
	ObservedMonthlyUSD     types.Float64                `tfsdk:"observed_monthly_usd"`
	ObservedGPUEquivalents types.Float64                `tfsdk:"observed_gpu_equivalents"`
	AWS                    *recommendedPoolModel        `tfsdk:"aws"`
	GCP                    *recommendedPoolModel        `tfsdk:"gcp"`
}

type recommendationWorkloadModel struct {
	Kind                   types.String  `tfsdk:"kind"`
	Environment            types.String  `tfsdk:"environment"`
	Interruptible          types.Bool    `tfsdk:"interruptible"`
	GPUMemoryGiB           types.Float64 `tfsdk:"gpu_memory_gib"`
	ModelParametersBillion types.Float64 `tfsdk:"model_parameters_billion"`
	Precision              types.String  `tfsdk:"precision"`
	Method                 types.String  `tfsdk:"method"`
	TokensPerSecond        types.Float64 `tfsdk:"tokens_per_second"`
	GPUsPerReplica         types.Int64   `tfsdk:"gpus_per_replica"`
	Model                  types.String  `tfsdk:"model"`
	ContextLength          types.Int64   `tfsdk:"context_length"`
	ConcurrentSequences    types.Int64   `tfsdk:"concurrent_sequences"`
	KVCacheGiB             types.Float64 `tfsdk:"kv_cache_gib"`
}

// recommendationCapacityModel is what the team holds (issue #40, item 7).
type recommendationCapacityModel struct {
	Reservations []heldReservationModel `tfsdk:"reservation"`
	FlexStart    types.Bool             `tfsdk:"flex_start"`
	Overflow     types.Bool             `tfsdk:"overflow_to_on_demand"`
}

type heldReservationModel struct {
	ID             types.String  `tfsdk:"id"`
	Type           types.String  `tfsdk:"type"`
	Zone           types.String  `tfsdk:"zone"`
	NodeType       types.String  `tfsdk:"node_type"`
	Nodes          types.Int64   `tfsdk:"nodes"`
	Project        types.String  `tfsdk:"project"`
	HourlyPriceUSD types.Float64 `tfsdk:"hourly_price_usd"`
	GPU            types.String  `tfsdk:"gpu"`
	GPUs           types.Int64   `tfsdk:"gpus"`
	GPUsPerNode    types.Int64   `tfsdk:"gpus_per_node"`
	Start          types.String  `tfsdk:"start"`
	End            types.String  `tfsdk:"end"`
}

// rungModel is a rung of the answer's ladder.
type rungModel struct {
	CapacityType  types.String  `tfsdk:"capacity_type"`
	Nodes         types.Int64   `tfsdk:"nodes"`
	ReservationID types.String  `tfsdk:"reservation_id"`
	HourlyUSD     types.Float64 `tfsdk:"hourly_usd"`
	Start         types.String  `tfsdk:"start"`
	End           types.String  `tfsdk:"end"`
}

// answerReservationModel is the answer's reservation, in the attribute names of the pool
// resources' capacity.reservation blocks (EKS and Karpenter: id, type, hourly_price_usd; GKE and
// ComputeClass: type, name, project, zones), null where the answer uses none.
type answerReservationModel struct {
	ID             types.String  `tfsdk:"id"`
	Type           types.String  `tfsdk:"type"`
	HourlyPriceUSD types.Float64 `tfsdk:"hourly_price_usd"`
	Name           types.String  `tfsdk:"name"`
	Project        types.String  `tfsdk:"project"`
	Zones          types.List    `tfsdk:"zones"`
}

// answerNetworkModel is the inter-node network of a multi-node answer, in the attribute names of
// the pool resources' network blocks (gpufleet_eks_node_pool: efa, efa_interfaces,
// placement_strategy; gpufleet_gke_node_pool: gpu_direct, which it computes, and how many entries its
// additional_node_networks take), null where the answer needs none.
type answerNetworkModel struct {
	EFA                        types.Bool   `tfsdk:"efa"`
	EFAInterfaces              types.Int64  `tfsdk:"efa_interfaces"`
	PlacementStrategy          types.String `tfsdk:"placement_strategy"`
	GPUDirect                  types.String `tfsdk:"gpu_direct"`
	AdditionalNodeNetworkCount types.Int64  `tfsdk:"additional_node_network_count"`
}

type recommendedPoolModel struct {
	NodeType                       types.String            `tfsdk:"node_type"`
	Accelerator                    types.String            `tfsdk:"accelerator"`
	Region                         types.String            `tfsdk:"region"`
	InProviderRegion               types.Bool              `tfsdk:"in_provider_region"`
	GPUModel                       types.String            `tfsdk:"gpu_model"`
	GPUsPerNode                    types.Int64             `tfsdk:"gpus_per_node"`
	GPUMemoryGiB                   types.Float64           `tfsdk:"gpu_memory_gib"`
	GPUsPerReplica                 types.Int64             `tfsdk:"gpus_per_replica"`
	NodesPerReplica                types.Int64             `tfsdk:"nodes_per_replica"`
	InterNodeNetwork               types.String            `tfsdk:"inter_node_network"`
	NodeMemoryGiB                  types.Float64           `tfsdk:"node_memory_gib"`
	VCPUsPerNode                   types.Int64             `tfsdk:"vcpus_per_node"`
	MIGProfile                     types.String            `tfsdk:"mig_profile"`
	SharingReplicas                types.Int64             `tfsdk:"sharing_replicas"`
	ReplicasPerNode                types.Int64             `tfsdk:"replicas_per_node"`
	NodeCount                      types.Int64             `tfsdk:"node_count"`
	Zones                          types.Int64             `tfsdk:"zones"`
	NodesPerZone                   types.Int64             `tfsdk:"nodes_per_zone"`
	NodeLocations                  types.List              `tfsdk:"node_locations"`
	DecodeTokensPerSecond          types.Float64           `tfsdk:"decode_tokens_per_second"`
	SpotPercentage                 types.Int64             `tfsdk:"spot_percentage"`
	OnDemandBase                   types.Int64             `tfsdk:"on_demand_base"`
	GKECapacityLadder              types.List              `tfsdk:"gke_capacity_ladder"`
	MinSize                        types.Int64             `tfsdk:"min_size"`
	HourlyUSD                      types.Float64           `tfsdk:"hourly_usd"`
	OutOfPocketHourlyUSD           types.Float64           `tfsdk:"out_of_pocket_hourly_usd"`
	MonthlyUSD                     types.Float64           `tfsdk:"monthly_usd"`
	Ladder                         []rungModel             `tfsdk:"ladder"`
	AppliesTo                      types.List              `tfsdk:"applies_to"`
	Reservation                    *answerReservationModel `tfsdk:"reservation"`
	Network                        *answerNetworkModel     `tfsdk:"network"`
	FlexStart                      types.Bool              `tfsdk:"flex_start"`
	CommittedMonthlyUSD            types.Float64           `tfsdk:"committed_monthly_usd"`
	Commitment                     types.String            `tfsdk:"commitment"`
	NaiveNodeType                  types.String            `tfsdk:"naive_node_type"`
	NaiveMonthlyUSD                types.Float64           `tfsdk:"naive_monthly_usd"`
	SavingMonthlyUSD               types.Float64           `tfsdk:"saving_monthly_usd"`
	ObservedUtilizationMeanPercent types.Float64           `tfsdk:"observed_utilization_mean_percent"`
	RunnersUp                      []runnerUpModel         `tfsdk:"runners_up"`
}

type runnerUpModel struct {
	NodeType        types.String  `tfsdk:"node_type"`
	Region          types.String  `tfsdk:"region"`
	MIGProfile      types.String  `tfsdk:"mig_profile"`
	SharingReplicas types.Int64   `tfsdk:"sharing_replicas"`
	MonthlyUSD      types.Float64 `tfsdk:"monthly_usd"`
	Reason          types.String  `tfsdk:"reason"`
}

func (d *RecommendationDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_recommendation"
}

func (d *RecommendationDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Right-sizes a workload: for each cloud asked, the cheapest GPU node pool that fits its memory need in the allowed regions " +
			"and that the policy bundle would not deny. Every candidate is built as the pool resources build it (validated, priced at the provider's " +
			"`pricing` overrides and discount, over `hours_per_month`) and judged on its policy document by the provider's policy engine, so the answer plugs into " +
			"`gpufleet_eks_node_pool` (`instance_types`, `gpu.mig.profile`, `capacity`) and `gpufleet_gke_node_pool` (`machine_type`, `gpu.type`, `gpu.count`) unchanged. " +
			"Spot is used only for interruptible work, with a floor on demand where the workload needs one: production inference keeps half its nodes and at least one on demand (`on_demand_base = 1`, `spot_percentage = 50`; two, and `min_size` 2, when it has two or more replicas to spread over nodes), production training or batch on two or more nodes keeps its first node on demand (`on_demand_base = 1`, `spot_percentage = 100`), other interruptible work runs all on spot; GPU sharing " +
			"(time-slicing) is never recommended in production. Without `client`, GF-TAG-001 (about the pool's client) is not held against candidates. " +
			"With `observed` (the outputs of `gpufleet_pool_utilization`), it sizes from what the pool's GPUs did: P99 memory, and the P95 work consolidated onto fewer GPUs, MIG slices or shared GPUs that carry it; `observed_monthly_usd` and each answer's `saving_monthly_usd` compare it with the pool now. " +
			"With `capacity`, reservations the team holds (EC2 capacity reservations and blocks, Compute Engine reservations) are used first, and flex-start VMs accepted on GKE; each answer has a priced `ladder` (reserved, on demand, spot) and a `reservation` that assign to `gpufleet_karpenter_node_pool` and `gpufleet_gke_compute_class` (and the node pool resources) as is, and says which resources it applies to (`applies_to`: with `capacity.overflow_to_on_demand`, a reservation smaller than the on-demand side is used too, the rest overflowing to on demand, for the autoscaler resources only); reservations may be given in nodes of a node type or in GPUs of a model, and capacity blocks with their dates: guide \"Right-sizing\", \"Reservations and the ladder\". " +
			"No cloud is called. The price model (hours, spot per region, commitments, spot mixes) and the throughput check, with sources and worked examples: guide \"What a recommendation costs\".\n\n" + "With `model_parameters_billion`, the memory need is estimated like `provider::gpufleet::gpu_memory_required`. " + memoryEstimateDescription +
			"\n\n" + fitDescription + "\n\n" + observedDescription,
		Attributes: map[string]schema.Attribute{
			"replicas": schema.Int64Attribute{
				MarkdownDescription: "How many replicas the pool must hold at once (default 1): the node count is `ceil(replicas / replicas_per_node)`, and MIG slices or shared GPUs pay off when several replicas share a node.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"clouds": schema.ListAttribute{
				MarkdownDescription: "Clouds to recommend for: `aws`, `gcp` or both.",
				Required:            true,
				ElementType:         types.StringType,
				Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues(),
					listvalidator.ValueStringsAre(oneOfNearest(string(catalog.AWS), string(catalog.GCP)))},
			},
			"regions": schema.ListAttribute{
				MarkdownDescription: "Regions or globs, as the policy data's `allowed_regions` spells them (`eu-*`, `europe-*`, `us-east-1`); each must match a region the catalog prices for the clouds asked.",
				Required:            true,
				ElementType:         types.StringType,
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"client": schema.StringAttribute{
				MarkdownDescription: "A client of the policy data (`policy.data_files`): its `allowed_regions` narrow `regions`, and its `isolation` and the other rules judge every candidate as that client's pool.",
				Optional:            true,
			},
			"memory_headroom_percent": schema.Float64Attribute{
				MarkdownDescription: "Share of each GPU's (or MIG slice's) memory kept free: a replica fits when its need is at most (100 − this) % of the memory of its GPUs. Default 5; 0 to 50. The policy bundle judges candidates with its own headroom (`thresholds.memory_headroom_percent` of the policy data, default 5), so an answer below it is denied by GF-RS-001.",
				Optional:            true,
				Validators:          []validator.Float64{float64validator.Between(0, 50)},
			},
			"gpu_models": schema.ListAttribute{
				MarkdownDescription: "Only node types with these GPU models, e.g. `[\"H100-80GB\"]` for reserved H100s (names as `gpufleet_gpu_catalog` gives them).",
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues(), listvalidator.ValueStringsAre(oneOfNearest(gpuModelNames()...))},
			},
			"max_hourly_usd": schema.Float64Attribute{
				MarkdownDescription: "Only pools that cost at most this much per hour in all (every node, at the spot mix).",
				Optional:            true,
				Validators:          []validator.Float64{float64validator.AtLeast(0.0001)},
			},
			"hours_per_month": schema.Float64Attribute{
				MarkdownDescription: "Hours a month the pool runs, 1 to 744 (default 730, i.e. 365 × 24 / 12, the clouds' calculators' month): `monthly_usd`, `naive_monthly_usd` and the runners-up's `monthly_usd` are `hourly_usd` × these hours, so a training pool that runs 40 % of the month is priced at 292 h. The pool resources' `estimated_monthly_cost_usd` stays at 730 h (a pool declares capacity, not how long it runs).",
				Optional:            true,
				Validators:          []validator.Float64{float64validator.Between(1, 744)},
			},
			"gke_zones": schema.Int64Attribute{
				MarkdownDescription: "Zones the GKE pool spans, 1 to 4. GKE sizes node pools per zone, so the `gcp` answer's every side (on-demand and spot) is a whole number of nodes in each zone and its price counts every zone's nodes. Default: 1, except production inference whose replicas spread over nodes, which gets 3 zones, as GKE gives a regional pool by default. The answer's `zones`, `nodes_per_zone` and `node_locations` say what it was sized for: give the pool `location` = `region` and `node_locations` = the answer's.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(1, 4)},
			},
			"observed": observedAttribute(),
			"required_gpu_memory_gib": schema.Float64Attribute{
				MarkdownDescription: "The GPU memory one replica needs: `observed.memory_used_p99_gib` when `observed` is given, else `workload.gpu_memory_gib` or the estimate from the model, plus the KV cache (`required_kv_cache_gib`). Use it as the pool's `workload.gpu_memory_gib`.",
				Computed:            true,
			},
			"required_kv_cache_gib": schema.Float64Attribute{
				MarkdownDescription: "Of `required_gpu_memory_gib`, the KV cache of one replica: `workload.kv_cache_gib`, or the estimate from `workload.context_length` × `concurrent_sequences`; 0 without either, and with `observed` (the measured memory holds it). Use it as the pool's `workload.kv_cache_gib`, so that the host-memory check counts only the weights.",
				Computed:            true,
			},
			"aws": schema.SingleNestedAttribute{
				MarkdownDescription: "The recommended `gpufleet_eks_node_pool`; null when `aws` was not asked or nothing fits there.",
				Computed:            true,
				Attributes:          recommendedPoolAttributes("EC2 instance type: the pool's `instance_types`."),
			},
			"gcp": schema.SingleNestedAttribute{
				MarkdownDescription: "The recommended `gpufleet_gke_node_pool`; null when `gcp` was not asked or nothing fits there.",
				Computed:            true,
				Attributes:          recommendedPoolAttributes("GKE machine type: the pool's `machine_type`."),
			},
		},
		Blocks: map[string]schema.Block{
			"capacity": capacityInputBlock(),
			"workload": schema.SingleNestedBlock{
				MarkdownDescription: "The workload, as the pool's `workload` block declares it, with the memory need given (`gpu_memory_gib`) or estimated from the model (`model_parameters_billion`, `precision`, and `method` for training).",
				Validators:          []validator.Object{objectvalidator.IsRequired()},
				Attributes: map[string]schema.Attribute{
					"kind": schema.StringAttribute{
						MarkdownDescription: "`" + strings.Join(pool.Kinds, "`, `") + "`. Only `training` counts gradients and optimizer state in the estimate.",
						Required:            true,
						Validators:          []validator.String{oneOfNearest(pool.Kinds...)},
					},
					"environment": schema.StringAttribute{
						MarkdownDescription: "`" + strings.Join(pool.Environments, "`, `") + "`.",
						Required:            true,
						Validators:          []validator.String{oneOfNearest(pool.Environments...)},
					},
					"interruptible": schema.BoolAttribute{
						MarkdownDescription: "The workload checkpoints and may run on spot (default `false`).",
						Optional:            true,
					},
					"gpu_memory_gib": schema.Float64Attribute{
						MarkdownDescription: "GPU memory one replica needs, GiB. One of this and `model_parameters_billion`, or neither when `observed` is given (its `memory_used_p99_gib` then sizes; a declared need is a check).",
						Optional:            true,
						Validators: []validator.Float64{float64validator.AtLeast(0.01),
							float64validator.ConflictsWith(path.MatchRelative().AtParent().AtName("model_parameters_billion"))},
					},
					"model_parameters_billion": schema.Float64Attribute{
						MarkdownDescription: "Model size in billions of parameters, with `precision`.",
						Optional:            true,
						Validators: []validator.Float64{float64validator.AtLeast(0.001),
							float64validator.AlsoRequires(path.MatchRelative().AtParent().AtName("precision"))},
					},
					"precision": schema.StringAttribute{
						MarkdownDescription: "Precision of the weights and the compute: `" + strings.Join(catalog.Precisions(), "`, `") + "`. Required with `model_parameters_billion`; " +
							"with `gpu_memory_gib` it only excludes GPUs that do not compute in it (bf16 needs compute capability 8.0, fp8 8.9).",
						Optional:   true,
						Validators: []validator.String{oneOfNearest(catalog.Precisions()...)},
					},
					"gpus_per_replica": schema.Int64Attribute{
						MarkdownDescription: "GPUs one replica spans, all on one node (tensor parallel, FSDP). Default: for inference the fewest GPUs of a node " +
							"(1, 2, 4, 8 or 16) whose memory holds the replica; otherwise 1. Training over more than one GPU needs NVLink-linked GPUs. " +
							"At least 1, and at most the GPUs of the largest node of the clouds asked, except for training: a replica over a whole multiple of a node's GPUs " +
							"spans that many nodes (multi-node training), and only shapes with an inter-node GPU network (EFA, GPUDirect) answer it (`nodes_per_replica`, `inter_node_network`).",
						Optional:   true,
						Validators: []validator.Int64{int64validator.AtLeast(1)},
					},
					"tokens_per_second": schema.Float64Attribute{
						MarkdownDescription: "Inference only: the decode rate one replica must reach, tokens per second for one stream. Checked with the decode estimate `catalog.DecodeTokensPerSecond`: the peak memory bandwidth of the replica's GPU (NVIDIA datasheets: T4 320 GB/s, L4 300, A10G 600, L40S 864, V100 900, A100 40GB 1,555, A100 80GB 2,039, H100 3,350, H200 4,800, B200 8,000), times its share (a MIG slice: its memory share; time-slicing: 1/replicas per GPU), times 0.6 (the bandwidth utilisation tuned serving reaches at batch 1), over the bytes a token reads: the weights at `precision` (`model_parameters_billion` × bytes per parameter), or the whole `gpu_memory_gib` when the model is not given. " +
							"An answer must meet the rate as well as the memory: slower GPUs, slices and shared GPUs drop out. The estimate is for one stream; batching serves more streams per replica at nearly the same rate each.",
						Optional:   true,
						Validators: []validator.Float64{float64validator.AtLeast(0.001)},
					},
					"model": schema.StringAttribute{
						MarkdownDescription: "A model whose attention shape the catalog knows, for the KV-cache estimate: `" + strings.Join(catalog.KVModelNames(), "`, `") + "` (layers, KV heads and head size from each model's published `config.json`). " +
							"Sets `model_parameters_billion` to the model's when neither it nor `gpu_memory_gib` is given. Needs `precision`.",
						Optional: true,
						Validators: []validator.String{oneOfNearest(catalog.KVModelNames()...),
							stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("precision"))},
					},
					"context_length": schema.Int64Attribute{
						MarkdownDescription: "Inference only: tokens of context one sequence holds (prompt + output), for the KV-cache estimate: " +
							"2 (K and V) × layers × KV heads × head size × 2 bytes (4 for fp32 weights) × `context_length` × `concurrent_sequences`, added to the weights' estimate. " +
							"The shape is the `model`'s; without `model` it is approximated from `model_parameters_billion` (the Llama 3.1 family's shape, interpolated by size: see the right-sizing guide). At most the model's context window.",
						Optional: true,
						Validators: []validator.Int64{int64validator.AtLeast(1),
							int64validator.ConflictsWith(path.MatchRelative().AtParent().AtName("kv_cache_gib"))},
					},
					"concurrent_sequences": schema.Int64Attribute{
						MarkdownDescription: "Inference only: sequences one replica serves at once (the serving engine's batch, e.g. vLLM's `max_num_seqs` in use); default 1. With `context_length`.",
						Optional:            true,
						Validators: []validator.Int64{int64validator.AtLeast(1),
							int64validator.AlsoRequires(path.MatchRelative().AtParent().AtName("context_length"))},
					},
					"kv_cache_gib": schema.Float64Attribute{
						MarkdownDescription: "Inference only: the KV cache one replica needs, GiB, added to the weights' estimate or `gpu_memory_gib`, when you know it (e.g. from the serving engine's logs) rather than `context_length`.",
						Optional:            true,
						Validators:          []validator.Float64{float64validator.AtLeast(0)},
					},
					"method": schema.StringAttribute{
						MarkdownDescription: "Training only: `full` (default), `lora` or `qlora` (precision `int4`).",
						Optional:            true,
						Validators: []validator.String{oneOfNearest(catalog.TrainingMethods...),
							stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("model_parameters_billion"))},
					},
				},
			},
		},
	}
	for name, a := range observedOutputs() {
		resp.Schema.Attributes[name] = a
	}
}

func recommendedPoolAttributes(nodeType string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"node_type":   schema.StringAttribute{Computed: true, MarkdownDescription: nodeType},
		"accelerator": schema.StringAttribute{Computed: true, MarkdownDescription: "GKE accelerator type (`gpu.type`); null on AWS."},
		"region": schema.StringAttribute{Computed: true, MarkdownDescription: "Region of the pool, priced at its rates. EKS: the provider's region (`aws.region`, else `AWS_REGION` or `AWS_DEFAULT_REGION`) whenever it is among the `regions` asked and allowed and something fits there; " +
			"else the cheapest region asked, which needs an EKS cluster there (the pool's `region` argument; `in_provider_region` false and a warning say why). GKE: `location`, with `node_locations` pinned to one zone of it when `zones` is 1."},
		"in_provider_region": schema.BoolAttribute{Computed: true, MarkdownDescription: "EKS: whether `region` is the provider's region, where `gpufleet_eks_node_pool` creates the pool unless its `region` says otherwise; false when the provider's region had no answer (not asked, excluded by the client's residency, or nothing fits there), with a warning saying which. " +
			"Null on GKE, and when the provider's region is not known without loading the SDK's configuration (no `aws.region`, `AWS_REGION` or `AWS_DEFAULT_REGION`): the answer is then the cheapest of the regions asked."},
		"gpu_model":         schema.StringAttribute{Computed: true, MarkdownDescription: "GPU model, e.g. `L4`."},
		"gpus_per_node":     schema.Int64Attribute{Computed: true, MarkdownDescription: "GPUs per node (GKE: `gpu.count`)."},
		"gpu_memory_gib":    schema.Float64Attribute{Computed: true, MarkdownDescription: "GPU memory one replica gets, GiB: the MIG slice's, or its whole GPUs' (`gpus_per_replica` of them)."},
		"gpus_per_replica":  schema.Int64Attribute{Computed: true, MarkdownDescription: "GPUs one replica spans on one node: the pool's `workload.gpus_per_replica`."},
		"nodes_per_replica": schema.Int64Attribute{Computed: true, MarkdownDescription: "Nodes one replica spans: 1, or for a training replica over a whole multiple of a node's GPUs (`gpus_per_replica` / `gpus_per_node`) that many, whose GPUs reach each other over `inter_node_network`."},
		"inter_node_network": schema.StringAttribute{Computed: true, MarkdownDescription: "The network between the nodes of a replica that spans several (`nodes_per_replica` > 1): `" + strings.Join(catalog.InterNodeNetworks, "`, `") + "` " +
			"(EFA on EC2; GPUDirect-TCPX on A3 High, TCPXO on A3 Mega, RDMA on A3 Ultra and A4). Only shapes with one answer such a replica. The pool's nodes need it themselves: the pool's `network` block, which the answer's `network` fills (on GKE with the team's networks). Null when a replica is on one node."},
		"node_memory_gib":          schema.Float64Attribute{Computed: true, MarkdownDescription: "Host memory of one node, GiB: it holds the weights of every replica of the node plus the system reserve."},
		"vcpus_per_node":           schema.Int64Attribute{Computed: true, MarkdownDescription: "vCPUs of one node: at least one per replica it runs."},
		"mig_profile":              schema.StringAttribute{Computed: true, MarkdownDescription: "MIG profile for `gpu.mig.profile`; null for whole GPUs."},
		"sharing_replicas":         schema.Int64Attribute{Computed: true, MarkdownDescription: "Replicas per GPU with time-slicing (`gpu.sharing`); null without sharing, and never in production."},
		"replicas_per_node":        schema.Int64Attribute{Computed: true, MarkdownDescription: "Replicas one node holds."},
		"decode_tokens_per_second": schema.Float64Attribute{Computed: true, MarkdownDescription: "The decode estimate of one replica on this answer, tokens per second for one stream (see `workload.tokens_per_second`); null when `workload.tokens_per_second` is not set."},
		"node_count":               schema.Int64Attribute{Computed: true, MarkdownDescription: "Nodes for `replicas`: the pool's `desired_size` and `max_size`. On GKE, all the pool's nodes over its `zones`."},
		"zones":                    schema.Int64Attribute{Computed: true, MarkdownDescription: "Zones the pool spans (GKE; 1 on AWS): see `gke_zones`."},
		"nodes_per_zone":           schema.Int64Attribute{Computed: true, MarkdownDescription: "`node_count` / `zones`: the nodes GKE runs in each zone."},
		"node_locations": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "GKE: the `zones` zones the answer was sized for, each offering its GPU (the catalog's GPU zones, from GCP's \"GPU regions and zones\"): give them to the pool's `node_locations` as they are, so that the pool runs `nodes_per_zone` in each whatever zones the cluster has " +
			"(a regional cluster in us-central1 may span a, b, c and f, and a pool without `node_locations` takes all of them). A region with fewer zones offering the GPU than `zones` gives no answer there. Null on AWS, and on GKE when the catalog does not know the GPU's zones in the region (N1's T4, V100, P100 and P4; regions outside its list): then pin `zones` zones that offer the GPU yourself."},
		"spot_percentage":          schema.Int64Attribute{Computed: true, MarkdownDescription: "`capacity.spot_percentage`: 0 for work that is not interruptible; 50 for interruptible production inference (at least half the nodes on demand at every size; on GKE the largest share up to 50 at which both sides split evenly over the answer's `zones`, so that no node is added to round a side); else 100."},
		"on_demand_base":           schema.Int64Attribute{Computed: true, MarkdownDescription: "`capacity.on_demand_base`: for interruptible production inference its floor (`min_size`: 1, or 2 when its replicas spread over two nodes), and for interruptible production training or batch on two or more nodes (the first node, rank 0 and its checkpoints, stays on demand); else 0."},
		"gke_capacity_ladder":      schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "For a `gpufleet_gke_compute_class` of the answer (`capacity.ladder`), the cheapest rung first where the workload allows it, and only rungs the machine type is sold as: interruptible work `[\"spot\", \"flex_start\", \"on_demand\"]`; work that does not checkpoint, and production inference, `[\"on_demand\", \"flex_start\"]` (no spot: GF-COST-001, GF-COST-003). With a reservation of the team's (`capacity.reservation`) that the answer consumes, `reservation` comes first (its nodes are paid for), with the answer's `reservation` for the class's `capacity.reservation`. Null on AWS."},
		"min_size":                 schema.Int64Attribute{Computed: true, MarkdownDescription: "`scaling.min_size`: for production inference 1, or 2 with two or more replicas (spread over nodes); else 0."},
		"hourly_usd":               schema.Float64Attribute{Computed: true, MarkdownDescription: "Estimated cost of the pool per hour, at `node_count` nodes and the spot mix, at the provider's pricing."},
		"monthly_usd":              schema.Float64Attribute{Computed: true, MarkdownDescription: "`hourly_usd` × `hours_per_month` (default 730)."},
		"out_of_pocket_hourly_usd": schema.Float64Attribute{Computed: true, MarkdownDescription: "`hourly_usd` less the `ladder`'s reserved rung, which a held reservation (`capacity.reservation`) already pays for: an EC2 capacity reservation and a Compute Engine reservation bill their instances at the on-demand rate whether they run or not, a capacity block is prepaid. Answers are ranked by it, so that a reservation that fits the workload is used first. Equal to `hourly_usd` without a reservation."},
		"ladder": schema.ListNestedAttribute{
			Computed: true,
			MarkdownDescription: "The answer's capacity ladder, in the order the autoscaler tries it, priced: the reserved rung, then on demand, then spot. " +
				"`capacity_type` is the resource's own word: on AWS the capacity type of `gpufleet_karpenter_node_pool`'s NodePools (`reserved`, `capacity-block`, `on-demand`, `spot`), on GCP a rung of `gpufleet_gke_compute_class` (`reservation`, `on_demand`, `spot`). " +
				"A reservation is used when it holds the whole on-demand side, which the pool resources' on-demand node group or node pool consumes without falling back to on demand (an EKS node group that targets an EC2 capacity reservation launches nothing beyond it); a capacity block (no spot) only when it holds every node; a Compute Engine reservation (zonal, consumed by name) with the pool in its zone. When the reservation holds every node, none runs on spot. " +
				"With `capacity.overflow_to_on_demand`, a capacity reservation or Compute Engine reservation smaller than the on-demand side is used too, and the rest overflows to the next rung: reserved N, `on-demand` (GCP `on_demand`, or `flex_start` with `capacity.flex_start` on a machine type not sold on demand) M, spot K; such an answer applies to the autoscaler resources only (`applies_to`).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"capacity_type":  schema.StringAttribute{Computed: true, MarkdownDescription: "Capacity type (AWS) or rung (GCP)."},
				"nodes":          schema.Int64Attribute{Computed: true, MarkdownDescription: "Nodes on the rung at `node_count`."},
				"reservation_id": schema.StringAttribute{Computed: true, MarkdownDescription: "The reservation the rung consumes; null for others."},
				"hourly_usd":     schema.Float64Attribute{Computed: true, MarkdownDescription: "What the rung's nodes cost per hour: reserved nodes at the on-demand rate (a capacity block at its `hourly_price_usd`), on-demand and spot at the provider's pricing."},
				"start":          schema.StringAttribute{Computed: true, MarkdownDescription: "A capacity block's rung: the block's `start` (RFC 3339, UTC) when the reservation gave it; a block that has not started holds no instance until then (the data source warns). Null otherwise."},
				"end":            schema.StringAttribute{Computed: true, MarkdownDescription: "A capacity block's rung: the block's `end` (RFC 3339, UTC), when EC2 terminates its instances. Null otherwise."},
			}},
		},
		"applies_to": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "The resources the answer plugs into as is: `gpufleet_eks_node_pool` and `gpufleet_karpenter_node_pool` on AWS, `gpufleet_gke_node_pool` and `gpufleet_gke_compute_class` on GCP; " +
			"only the autoscaler resource (`gpufleet_karpenter_node_pool`, `gpufleet_gke_compute_class`) when the answer overflows a reservation (`capacity.overflow_to_on_demand`: a node group or node pool that consumes a reservation launches nothing beyond it) or runs flex-start VMs (`flex_start`)."},
		"flex_start": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the answer's on-demand side runs flex-start VMs (`capacity.flex_start`, for a machine type Compute Engine does not sell on demand): it is then for `gpufleet_gke_compute_class` (`capacity.ladder` = `gke_capacity_ladder`), not `gpufleet_gke_node_pool`, which has no flex-start setting and refuses on-demand nodes of the type at plan."},
		"reservation": schema.SingleNestedAttribute{
			Computed: true,
			MarkdownDescription: "The reservation the answer consumes, in the attribute names of the pool resources' `capacity.reservation` block, so that each assigns as is: `id`, `type` (`capacity-reservation` or `capacity-block`) and `hourly_price_usd` on AWS (`gpufleet_eks_node_pool`, `gpufleet_karpenter_node_pool`); `type` (`specific`), `name`, `project` and `zones` on GCP (`gpufleet_gke_node_pool` takes `type`, `name` and `project`; `gpufleet_gke_compute_class` also `zones`). " +
				"Never null: every attribute is null when the answer uses no reservation, which the resources read as no reservation.",
			Attributes: map[string]schema.Attribute{
				"id":               schema.StringAttribute{Computed: true, MarkdownDescription: "AWS: the capacity reservation or block id."},
				"type":             schema.StringAttribute{Computed: true, MarkdownDescription: "AWS: `capacity-reservation` or `capacity-block`; GCP: `specific`."},
				"hourly_price_usd": schema.Float64Attribute{Computed: true, MarkdownDescription: "AWS capacity block: its price per instance-hour."},
				"name":             schema.StringAttribute{Computed: true, MarkdownDescription: "GCP: the reservation's name."},
				"project":          schema.StringAttribute{Computed: true, MarkdownDescription: "GCP: the project of a shared reservation."},
				"zones":            schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "GCP: the reservation's zone."},
			},
		},
		"network": schema.SingleNestedAttribute{
			Computed: true,
			MarkdownDescription: "The inter-node network a multi-node answer (`nodes_per_replica` > 1) needs, in the attribute names of the pool resources' `network` block, so that each assigns as is. " +
				"AWS (`gpufleet_eks_node_pool`): `efa = true`, `efa_interfaces` (every network card of the instance type) and `placement_strategy = \"cluster\"` (a cluster placement group gpufleet creates and owns; the pool then needs one subnet, the answer's one zone). " +
				"GCP (`gpufleet_gke_node_pool`): `gpu_direct`, the stack its `network.gpu_direct` will show, and `additional_node_network_count`, how many entries `network.additional_node_networks` takes (the networks and subnetworks are the team's to name: 4 for GPUDirect-TCPX, 8 for TCPXO, 9 for RDMA). " +
				"Never null: every attribute is null when a replica is on one node (which needs no `network` block).",
			Attributes: map[string]schema.Attribute{
				"efa":                           schema.BoolAttribute{Computed: true, MarkdownDescription: "AWS: EFA interfaces on the nodes."},
				"efa_interfaces":                schema.Int64Attribute{Computed: true, MarkdownDescription: "AWS: network cards with an EFA interface: all the instance type has (p5.48xlarge 32, p5en 16, p6-b200 8, p4d 4)."},
				"placement_strategy":            schema.StringAttribute{Computed: true, MarkdownDescription: "AWS: `cluster`."},
				"gpu_direct":                    schema.StringAttribute{Computed: true, MarkdownDescription: "GCP: `gpudirect-tcpx`, `gpudirect-tcpxo` or `gpudirect-rdma`."},
				"additional_node_network_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "GCP: entries of the pool's `network.additional_node_networks`."},
			},
		},
		"committed_monthly_usd": schema.Float64Attribute{Computed: true, MarkdownDescription: "`monthly_usd` with the answer's on-demand nodes (its steady baseline) under `commitment`: those nodes at the committed rate for every hour of the month (max(730, `hours_per_month`)), since a commitment is billed whether used or not; spot nodes at the spot price as in `monthly_usd`. " +
			"The committed rate is the catalog's list price less the family's 1-year rate in the region (sources and dates in the recommendation-pricing guide), less the provider's `pricing.discount_percent` on top; a type with an `on_demand_hourly_usd` override gets no commitment (the override is the rate paid). Null when the answer has no on-demand node, the type is overridden, or the commitment would cost more than `monthly_usd` (a pool that runs too few hours)."},
		"commitment":                        schema.StringAttribute{Computed: true, MarkdownDescription: "The commitment `committed_monthly_usd` assumes: `1-year Standard Reserved Instance, no upfront` (AWS; the family's rate in the answer's region) or `1-year resource-based committed use discount (CUD)` (GCP); null with `committed_monthly_usd`."},
		"naive_node_type":                   schema.StringAttribute{Computed: true, MarkdownDescription: "What a team without right-sizing runs: the smallest training-class GPU that fits, whole and on-demand; null when none fits."},
		"naive_monthly_usd":                 schema.Float64Attribute{Computed: true, MarkdownDescription: "Monthly cost of `naive_node_type` for the same replicas, on-demand, over `hours_per_month`."},
		"saving_monthly_usd":                schema.Float64Attribute{Computed: true, MarkdownDescription: "`observed_monthly_usd` − `monthly_usd`: what the answer saves on the observed pool a month (negative when it costs more); null without `observed`."},
		"observed_utilization_mean_percent": schema.Float64Attribute{Computed: true, MarkdownDescription: "The observed mean work (`observed.utilization_mean_percent` × the devices' compute) on every GPU of this answer's nodes, percent: how busy the answer's GPUs would have been; null without `observed.utilization_mean_percent`."},
		"runners_up": schema.ListNestedAttribute{
			Computed:            true,
			MarkdownDescription: "Options that lost, cheapest first: cheaper ones the policy bundle denies (with the rule), then the next cheapest it allows.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"node_type":        schema.StringAttribute{Computed: true, MarkdownDescription: "Instance or machine type."},
				"region":           schema.StringAttribute{Computed: true, MarkdownDescription: "Region."},
				"mig_profile":      schema.StringAttribute{Computed: true, MarkdownDescription: "MIG profile; null for whole GPUs."},
				"sharing_replicas": schema.Int64Attribute{Computed: true, MarkdownDescription: "Replicas per GPU with time-slicing; null without sharing."},
				"monthly_usd":      schema.Float64Attribute{Computed: true, MarkdownDescription: "Estimated monthly cost over `hours_per_month`."},
				"reason":           schema.StringAttribute{Computed: true, MarkdownDescription: "Why it lost."},
			}},
		},
	}
}

// ConfigValidators: the memory need is declared, estimated from the model, or observed.
func (d *RecommendationDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.AtLeastOneOf(
		path.MatchRoot("workload").AtName("gpu_memory_gib"), path.MatchRoot("workload").AtName("model_parameters_billion"),
		path.MatchRoot("workload").AtName("model"), path.MatchRoot("observed"))}
}

func (d *RecommendationDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	meta, err := conns.FromProviderData(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected provider data", err.Error())
		return
	}
	d.meta = meta
}

func (d *RecommendationDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m recommendationModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	env := recommend.Env{}
	if d.meta != nil {
		env = recommend.Env{Pricing: d.meta.Pool.Pricing, Registry: d.meta.Pool.Registry, Policy: d.meta.Policy, EKSMaxNodesPerNodeGroup: d.meta.Pool.EKSMaxNodesPerNodeGroup}
	}
	if env.Policy == nil {
		resp.Diagnostics.AddWarning("Recommendation not checked against policy",
			"policy.enforcement is \"off\": the recommendation fits and is priced, but the policy bundle did not judge it.")
	}
	rr := m.request()
	if d.meta != nil {
		rr.AWSRegion = d.meta.AWSSettings.RegionHint()
	}
	answer, err := recommend.Recommend(ctx, rr, env)
	if err != nil {
		addArgumentError(&resp.Diagnostics, "No recommendation", err)
		return
	}
	for _, w := range answer.Warnings {
		resp.Diagnostics.AddAttributeWarning(argumentPath(w.Argument), w.Summary, w.Detail)
	}
	m.RequiredGPUMemoryGiB = types.Float64Value(answer.NeedGiB)
	m.RequiredKVCacheGiB = types.Float64Value(answer.KVCacheGiB)
	m.AWS, m.GCP = nil, nil
	for cloud, res := range answer.Results {
		if res.Best == nil {
			resp.Diagnostics.AddWarning(fmt.Sprintf("No %s recommendation", cloud), res.Why)
			continue
		}
		if res.Elsewhere != "" {
			resp.Diagnostics.AddWarning("The aws answer is not in the provider's region", res.Elsewhere)
		}
		if res.Best.FlexStart {
			resp.Diagnostics.AddAttributeWarning(path.Root("capacity").AtName("flex_start"), "The gcp answer runs flex-start VMs",
				fmt.Sprintf("Compute Engine does not sell %s on demand, and the answer runs its on-demand side as flex-start VMs (priced here at the on-demand list price, an upper bound): configure a gpufleet_gke_compute_class with capacity.ladder = gke_capacity_ladder; a gpufleet_gke_node_pool cannot run flex-start VMs.", res.Best.Node.Name))
		}
		if b := res.Best; b.Overflow {
			resp.Diagnostics.AddAttributeWarning(path.Root("capacity").AtName("overflow_to_on_demand"), fmt.Sprintf("The %s answer overflows its reservation", cloud),
				fmt.Sprintf("Reservation %s holds %d nodes, fewer than the answer runs on demand, and the rest overflow to the ladder's next rung: the answer applies to %s only (applies_to); a %s would launch nothing beyond the reservation.",
					b.Reservation.ID, b.Reservation.Nodes, recommend.AutoscalerResourceTypes[cloud], recommend.ResourceTypes[cloud]))
		}
		out := recommendedPool(res, rr.AWSRegion)
		switch cloud {
		case catalog.AWS:
			m.AWS = out
		case catalog.GCP:
			m.GCP = out
		}
	}
	m.setObserved(answer, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (m recommendationModel) request() recommend.Request {
	w := m.Workload
	if w == nil { // objectvalidator.IsRequired reports it first
		w = &recommendationWorkloadModel{}
	}
	r := recommend.Request{
		Workload: recommend.Workload{
			Kind:              w.Kind.ValueString(),
			Environment:       w.Environment.ValueString(),
			Interruptible:     w.Interruptible.ValueBool(),
			GPUMemoryGiB:      w.GPUMemoryGiB.ValueFloat64(),
			ParametersBillion: w.ModelParametersBillion.ValueFloat64(),
			Precision:         w.Precision.ValueString(),
			Method:            w.Method.ValueString(),
			TokensPerSecond:   w.TokensPerSecond.ValueFloat64(),
			GPUsPerReplica:    int(w.GPUsPerReplica.ValueInt64()),

			Model:               w.Model.ValueString(),
			ContextLength:       int(w.ContextLength.ValueInt64()),
			ConcurrentSequences: int(w.ConcurrentSequences.ValueInt64()),
			KVCacheGiB:          w.KVCacheGiB.ValueFloat64(),
		},
		Replicas:      int(m.Replicas.ValueInt64()),
		Client:        m.Client.ValueString(),
		MaxHourlyUSD:  m.MaxHourlyUSD.ValueFloat64(),
		HoursPerMonth: m.HoursPerMonth.ValueFloat64(),
		Observed:      m.Observed.observed(),
		GKEZones:      int(m.GKEZones.ValueInt64()),
	}
	if m.Capacity != nil {
		r.FlexStart = m.Capacity.FlexStart.ValueBool()
		r.Overflow = m.Capacity.Overflow.ValueBool()
		for _, h := range m.Capacity.Reservations {
			r.Reservations = append(r.Reservations, recommend.Reservation{ID: h.ID.ValueString(), Type: h.Type.ValueString(), Zone: h.Zone.ValueString(),
				NodeType: h.NodeType.ValueString(), Nodes: int(h.Nodes.ValueInt64()), Project: h.Project.ValueString(), HourlyUSD: h.HourlyPriceUSD.ValueFloat64(),
				GPU: h.GPU.ValueString(), GPUs: int(h.GPUs.ValueInt64()), GPUsPerNode: int(h.GPUsPerNode.ValueInt64()), Start: h.Start.ValueString(), End: h.End.ValueString()})
		}
	}
	if !m.MemoryHeadroom.IsNull() {
		h := m.MemoryHeadroom.ValueFloat64()
		r.MemoryHeadroomPercent = &h
	}
	for _, g := range m.GPUModels {
		r.GPUModels = append(r.GPUModels, g.ValueString())
	}
	for _, c := range m.Clouds {
		r.Clouds = append(r.Clouds, catalog.Cloud(c.ValueString()))
	}
	for _, g := range m.Regions {
		r.Regions = append(r.Regions, g.ValueString())
	}
	return r
}

func recommendedPool(res *recommend.Result, awsRegion string) *recommendedPoolModel {
	b := res.Best
	out := &recommendedPoolModel{
		NodeType:                       types.StringValue(b.Node.Name),
		Accelerator:                    stringOrNull(b.Node.Accelerator),
		Region:                         types.StringValue(b.Region),
		InProviderRegion:               types.BoolNull(),
		GPUModel:                       types.StringValue(b.Node.GPUModel),
		GPUsPerNode:                    types.Int64Value(int64(b.Node.GPUCount)),
		GPUMemoryGiB:                   types.Float64Value(b.ReplicaGiB),
		GPUsPerReplica:                 types.Int64Value(int64(b.GPUsPerReplica)),
		NodesPerReplica:                types.Int64Value(int64(max(b.NodesPerReplica, 1))),
		InterNodeNetwork:               stringOrNull(b.InterNode),
		NodeMemoryGiB:                  types.Float64Value(b.Node.MemoryGiB),
		VCPUsPerNode:                   types.Int64Value(int64(b.Node.VCPU)),
		MIGProfile:                     stringOrNull(b.MIGProfile),
		SharingReplicas:                intOrNull(b.SharingReplicas),
		ReplicasPerNode:                types.Int64Value(int64(b.ReplicasPerNode)),
		NodeCount:                      types.Int64Value(int64(b.Nodes)),
		Zones:                          types.Int64Value(int64(max(b.Zones, 1))),
		NodesPerZone:                   types.Int64Value(int64(b.Nodes / max(b.Zones, 1))),
		NodeLocations:                  types.ListNull(types.StringType),
		DecodeTokensPerSecond:          types.Float64Null(),
		SpotPercentage:                 types.Int64Value(int64(b.SpotPercentage)),
		OnDemandBase:                   types.Int64Value(int64(b.OnDemandBase)),
		GKECapacityLadder:              types.ListNull(types.StringType),
		MinSize:                        types.Int64Value(int64(b.Spec.Scaling.Min)),
		HourlyUSD:                      types.Float64Value(b.HourlyUSD),
		OutOfPocketHourlyUSD:           types.Float64Value(b.OutOfPocketHourlyUSD),
		Ladder:                         make([]rungModel, 0, len(b.Ladder)),
		AppliesTo:                      types.ListValueMust(types.StringType, poolschema.StringValues(b.AppliesTo())),
		Reservation:                    answerReservation(b),
		Network:                        answerNetwork(b),
		FlexStart:                      types.BoolValue(b.FlexStart),
		MonthlyUSD:                     types.Float64Value(b.MonthlyUSD),
		CommittedMonthlyUSD:            types.Float64Null(),
		Commitment:                     stringOrNull(b.Commitment),
		NaiveNodeType:                  types.StringNull(),
		NaiveMonthlyUSD:                types.Float64Null(),
		SavingMonthlyUSD:               types.Float64Null(),
		ObservedUtilizationMeanPercent: types.Float64Null(),
		RunnersUp:                      make([]runnerUpModel, 0, len(res.RunnersUp)),
	}
	if b.Spec.Cloud == catalog.AWS && awsRegion != "" {
		out.InProviderRegion = types.BoolValue(res.Elsewhere == "")
	}
	if len(b.NodeLocations) > 0 {
		out.NodeLocations = types.ListValueMust(types.StringType, poolschema.StringValues(b.NodeLocations))
	}
	if b.Spec.Cloud == catalog.GCP {
		out.GKECapacityLadder = types.ListValueMust(types.StringType, poolschema.StringValues(render.RecommendedLadder(b.Spec)))
	}
	for _, r := range b.Ladder {
		out.Ladder = append(out.Ladder, rungModel{CapacityType: types.StringValue(r.CapacityType), Nodes: types.Int64Value(int64(r.Nodes)),
			ReservationID: stringOrNull(r.ReservationID), HourlyUSD: types.Float64Value(r.HourlyUSD), Start: timeOrNull(r.Start), End: timeOrNull(r.End)})
	}
	if b.DecodeTokensPerSecond > 0 {
		out.DecodeTokensPerSecond = types.Float64Value(math.Round(b.DecodeTokensPerSecond*10) / 10)
	}
	if b.Commitment != "" {
		out.CommittedMonthlyUSD = types.Float64Value(b.CommittedMonthlyUSD)
	}
	if n := res.Naive; n != nil {
		out.NaiveNodeType = types.StringValue(n.Node.Name)
		out.NaiveMonthlyUSD = types.Float64Value(n.MonthlyUSD)
	}
	for _, r := range res.RunnersUp {
		out.RunnersUp = append(out.RunnersUp, runnerUpModel{
			NodeType:        types.StringValue(r.Node.Name),
			Region:          types.StringValue(r.Region),
			MIGProfile:      stringOrNull(r.MIGProfile),
			SharingReplicas: intOrNull(r.SharingReplicas),
			MonthlyUSD:      types.Float64Value(r.MonthlyUSD),
			Reason:          types.StringValue(r.Reason),
		})
	}
	return out
}

// answerNetwork is the answer's network block (every attribute null when a replica is on one node):
// on AWS EFA on every network card of the instance type and a cluster placement group (its nodes in
// one Availability Zone, close together: EC2 User Guide "Placement strategies"; the answer's pool is
// in one zone); on GKE the machine type's GPUDirect stack and how many additional node networks it
// takes (the networks themselves are the team's).
func answerNetwork(b *recommend.Option) *answerNetworkModel {
	out := &answerNetworkModel{EFA: types.BoolNull(), EFAInterfaces: types.Int64Null(), PlacementStrategy: types.StringNull(),
		GPUDirect: types.StringNull(), AdditionalNodeNetworkCount: types.Int64Null()}
	if b.NodesPerReplica <= 1 || b.InterNode == "" {
		return out
	}
	switch b.Spec.Cloud {
	case catalog.AWS:
		out.EFA, out.EFAInterfaces = types.BoolValue(true), types.Int64Value(int64(b.Node.InterNodeNICs))
		out.PlacementStrategy = types.StringValue("cluster")
	case catalog.GCP:
		out.GPUDirect = types.StringValue(b.InterNode)
		out.AdditionalNodeNetworkCount = types.Int64Value(int64(catalog.GKEAdditionalNodeNetworks(b.Node.Name)))
	}
	return out
}

// answerReservation is the answer's reservation block (every attribute null without one).
func answerReservation(b *recommend.Option) *answerReservationModel {
	out := &answerReservationModel{ID: types.StringNull(), Type: types.StringNull(), HourlyPriceUSD: types.Float64Null(), Name: types.StringNull(),
		Project: types.StringNull(), Zones: types.ListNull(types.StringType)}
	r := b.Spec.Capacity.Reservation
	if r == nil {
		return out
	}
	out.Type = types.StringValue(r.Type)
	switch b.Spec.Cloud {
	case catalog.AWS:
		out.ID = types.StringValue(r.ID)
		if r.HourlyUSD > 0 {
			out.HourlyPriceUSD = types.Float64Value(r.HourlyUSD)
		}
	case catalog.GCP:
		out.Name, out.Project = types.StringValue(r.Name), stringOrNull(r.Project)
		out.Zones = types.ListValueMust(types.StringType, poolschema.StringValues(b.Spec.Zones))
	}
	return out
}

// capacityInputBlock is the capacity the team holds: reservations it would use first.
func capacityInputBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Capacity the team holds. Its reservations are used before anything the answer would buy (their nodes are paid for: see `out_of_pocket_hourly_usd`), and they are the only way to get an answer with on-demand nodes on the GKE machine types Compute Engine sells only reserved (A3 Ultra `a3-ultragpu-8g`, A4 `a4-highgpu-8g`), which are otherwise excluded with that cause named.",
		Attributes: map[string]schema.Attribute{
			"flex_start": schema.BoolAttribute{
				MarkdownDescription: "GKE only: the team accepts flex-start VMs (Dynamic Workload Scheduler, at most seven days per node). The GKE machine types Compute Engine sells as flex-start but not on demand (A3 High with 1, 2 or 4 GPUs, A3 Ultra, A4) are then answered with their on-demand side on flex-start VMs (the `ladder`'s `flex_start` rung; `flex_start` of the answer true), priced at the on-demand list price (an upper bound: flex-start is billed at Dynamic Workload Scheduler prices, discounted \"up to 53%\"). Such an answer is for `gpufleet_gke_compute_class`; `gpufleet_gke_node_pool` has no flex-start setting. A reservation of the machine type still comes first.",
				Optional:            true,
			},
			"overflow_to_on_demand": schema.BoolAttribute{
				MarkdownDescription: "The pool is an autoscaler object that falls back from a full reservation to on demand: a `gpufleet_karpenter_node_pool` (its reserved NodePool takes capacity types `reserved` and `on-demand`, which Karpenter documents as prioritising the reservation and falling back to on demand) or a `gpufleet_gke_compute_class` (a `reservation` rung, then `on_demand`). " +
					"A capacity reservation or Compute Engine reservation smaller than the answer's on-demand side is then used too: the `ladder` is reserved N, on-demand M, spot K, ranked by `out_of_pocket_hourly_usd` like any answer. Such an answer's `applies_to` names only the autoscaler resource, with a warning: an EKS node group that targets the reservation and a GKE node pool with a specific reservation launch nothing beyond it (without this setting every answer also applies to them). " +
					"Never for a capacity block (no fallback); on GKE only for a machine type sold on demand, or overflowing to flex-start VMs with `flex_start`. Needs a reservation other than a capacity block.",
				Optional: true,
			},
		},
		Blocks: map[string]schema.Block{
			"reservation": heldReservationBlock(),
		},
	}
}

// heldReservationBlock is a reservation the team holds.
func heldReservationBlock() schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: "A reservation: an EC2 On-Demand Capacity Reservation or capacity block, or a Compute Engine reservation, in one `zone`, of `nodes` instances of one `node_type`, or given as `gpus` GPUs of a `gpu` model (one form or the other). Checked at plan, each problem at its attribute: an unknown node type or GPU model, a node type of a cloud not asked, a zone that is not a zone name, or in a region the catalog does not price the type in, or (GCP) that does not offer its GPU, `nodes` below 1, both forms or neither, GPUs that no shape holds in whole nodes or that several shapes could hold, an N1 machine type without its `gpu` and `gpus_per_node` or with ones that do not attach to it, an id that is not an EC2 reservation id (`cr-…`) or a Compute Engine name, a capacity block without its price.",
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{MarkdownDescription: "The EC2 capacity reservation or block id (`cr-…`), or the Compute Engine reservation's name.", Required: true},
			"type": schema.StringAttribute{MarkdownDescription: "AWS only: `capacity-reservation` (default; an ODCR, billed at the on-demand rate: used when it holds the answer's whole on-demand side, or with `overflow_to_on_demand` when smaller) or `capacity-block` (prepaid: used only when it holds every node of the answer, with no spot). Unset on GCP, where the reservation is consumed by name (a `specific` affinity).",
				Optional: true, Validators: []validator.String{oneOfNearest(recommend.ReservationTypes...)}},
			"zone":      schema.StringAttribute{MarkdownDescription: "The Availability Zone (`us-east-1a`) or Compute Engine zone (`us-central1-b`) of the reservation; its region must be among `regions`. A GCP answer on the reservation runs in that zone (`node_locations`).", Required: true},
			"node_type": schema.StringAttribute{MarkdownDescription: "The EC2 instance type or GKE machine type reserved, e.g. `p5.48xlarge`, `a4-highgpu-8g`, `n1-standard-8` (with `gpu` and `gpus_per_node`: a reservation of N1 VMs names their attached GPUs). With `nodes`; unset with `gpus`.", Optional: true},
			"nodes":     schema.Int64Attribute{MarkdownDescription: "How many instances (VMs) the reservation holds: nodes, not GPUs. With `node_type`; or give `gpu` and `gpus` instead.", Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)}},
			"gpu": schema.StringAttribute{MarkdownDescription: "The GPU model reserved, as `gpufleet_gpu_catalog` names it (e.g. `H100-80GB`): with `gpus`, resolved to the one shape the zone's cloud sells the model as there that holds the GPUs in whole nodes (a reservation is of one instance or machine type, which the pool must run to consume it, so when several shapes could be it the plan fails listing them: give `node_type` and `nodes`); with an N1 `node_type`, the GPU attached to each VM (`T4`, `P4`, `V100-16GB`, `P100`).",
				Optional: true, Validators: []validator.String{oneOfNearest(gpuModelNames()...)}},
			"gpus":          schema.Int64Attribute{MarkdownDescription: "How many GPUs of `gpu` the reservation holds, instead of `node_type` and `nodes`: a whole number of nodes of the shape it resolves to.", Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)}},
			"start":         schema.StringAttribute{MarkdownDescription: "AWS capacity block only: when the block starts (RFC 3339, e.g. `2026-12-01T11:30:00Z`: the reservation's `StartDate`), with `end`. A block that has not started is still used, with a warning, and its `ladder` rung carries `start` and `end`.", Optional: true},
			"end":           schema.StringAttribute{MarkdownDescription: "AWS capacity block only: when the block ends (RFC 3339: its `EndDate`), with `start`. Checked at plan: after `start`, at 11:30 UTC (every capacity block ends then: EC2 User Guide, \"Find and purchase Capacity Blocks\"), and at most 182 days after it (26 weeks, extensions included; the 1-day and 7-day steps EC2 sells durations in are what one asks for, not the dates a block gets, which are not checked against them). A block that has ended is not used, with a warning.", Optional: true},
			"gpus_per_node": schema.Int64Attribute{MarkdownDescription: "With an N1 `node_type` only: the GPUs of `gpu` attached to each VM (the reservation's `guestAccelerators` count), in the counts Compute Engine allows for the machine type.", Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)}},
			"project":       schema.StringAttribute{MarkdownDescription: "GCP: the project of a shared reservation; unset for the cluster's.", Optional: true},
			"hourly_price_usd": schema.Float64Attribute{MarkdownDescription: "AWS capacity block only, and required there: its price per instance-hour (the upfront fee ÷ instances ÷ hours), which no EC2 API returns afterwards.",
				Optional: true, Validators: []validator.Float64{float64validator.AtLeast(0.0001)}},
		}},
	}
}

func stringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// timeOrNull is t in RFC 3339, UTC, or null when zero.
func timeOrNull(t time.Time) types.String {
	if t.IsZero() {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}

func intOrNull(n int) types.Int64 {
	if n == 0 {
		return types.Int64Null()
	}
	return types.Int64Value(int64(n))
}

// addArgumentError reports err at the argument a *catalog.ArgumentError names, else without a path.
func addArgumentError(diags *diag.Diagnostics, summary string, err error) {
	var ae *catalog.ArgumentError
	if errors.As(err, &ae) {
		attributeError(diags, argumentPath(ae.Argument), summary, ae.Message)
		return
	}
	diags.AddError(summary, err.Error())
}

var listIndex = regexp.MustCompile(`^(.+)\[(\d+)\]$`)

// argumentPath turns recommend's argument names ("workload.precision", "regions[1]") into paths.
func argumentPath(argument string) path.Path {
	var p path.Path
	for i, step := range strings.Split(argument, ".") {
		index := -1
		if m := listIndex.FindStringSubmatch(step); m != nil {
			step = m[1]
			index, _ = strconv.Atoi(m[2])
		}
		if i == 0 {
			p = path.Root(step)
		} else {
			p = p.AtName(step)
		}
		if index >= 0 {
			p = p.AtListIndex(index)
		}
	}
	return p
}

// fitDescription is how the recommendation decides that a workload fits a node: catalog.FitWorkload,
// which the pool resources' plan-time policy checks and the bundle's GF-RS rules share.
const fitDescription = "**The fit.** A candidate is a node type in a region with whole GPUs, one MIG profile, or (outside production) time-shared GPUs. " +
	"It fits when all of these hold (`catalog.FitWorkload`; the policy bundle's GF-RS-001, GF-RS-004 and GF-RS-007 judge pools with the same function, `lib.fit`, kept equal by a parity test):\n\n" +
	"- **precision**: the GPU computes in `workload.precision`: bf16 needs compute capability 8.0 (Ampere), fp8 8.9 (Ada, Hopper, Blackwell), int8 6.1, int4 7.0 " +
	"(compute capabilities from NVIDIA's CUDA GPUs page: T4 7.5, V100 7.0, P100 6.0, P4 6.1, A10G 8.6, L4 and L40S 8.9, A30 and A100 8.0, H100 and H200 9.0, B200 10.0);\n" +
	"- **memory with headroom**: the replica's need is at most (100 − `memory_headroom_percent`) % of the memory of its GPUs or MIG slice (time-shared GPUs split their memory between the replicas that share them);\n" +
	"- **GPUs per replica**: a replica's GPUs are on one node; inference replicas default to the fewest GPUs (1, 2, 4, 8, 16) of the node that hold them (tensor parallel); training over more than one GPU needs NVLink or NVSwitch " +
	"(p3.8xlarge and larger, p3dn, p4d, p4de, p5, p5e, p5en, p6-b200; a2, a3, a4 on GKE; not g4dn, g5, g6, g6e, g2 or n1 GPUs, which share PCIe);\n" +
	"- **host memory**: the node holds the weights of every replica it runs (the model's weights, or `gpu_memory_gib` / 1.2) plus a reserve: on EKS the AMI's 255 MiB + 11 MiB × 110 pods + 100 MiB eviction threshold (1.53 GiB); on GKE its tiers (25 % of the first 4 GiB, 20 % of the next 4, 10 % of the next 8, 6 % of the next 112, 2 % above, + 100 MiB);\n" +
	"- **vCPUs**: one per replica the node runs;\n" +
	"- **availability**: production inference with two or more replicas spreads over at least two nodes (`min_size` 2; GF-RS-005 warns on a pool of one node);\n" +
	"- **pool size**: on AWS at most the account's \"Nodes per managed node group\" quota (default 450, the provider's `aws.max_nodes_per_node_group`); on GKE at most 1000 nodes per node pool zone over the answer's `zones`: when the cheapest node would need more, a larger node wins.\n\n" +
	"When nothing fits, the warning (one cloud) or error (every cloud) says which constraint excluded how many shapes, with an example, and names the nearest options (the cheapest that fail one constraint only); " +
	"data residency (the client's `allowed_regions`) is named when it removes every region of a cloud. " +
	"The guide \"Right-sizing: how a workload fits a GPU node\" gives the sources of every number and worked examples (checked by a test)."
