package pool

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// Derived taint keys and label keys.
const (
	TaintGPU    = "nvidia.com/gpu"
	TaintClient = "gpufleet.io/client"

	LabelPrefix        = "gpufleet.io/"
	LabelClient        = "gpufleet.io/client"
	LabelWorkload      = "gpufleet.io/workload"
	LabelEnvironment   = "gpufleet.io/environment"
	LabelGPUMemory     = "gpufleet.io/gpu-memory-gib"
	LabelInterruptible = "gpufleet.io/interruptible"
	// The fit (workload.precision, gpus_per_replica, replicas): written only when set, and read by
	// the bundle on official resources too (GF-RS-001, GF-RS-004, GF-RS-005).
	LabelPrecision      = "gpufleet.io/precision"
	LabelGPUsPerReplica = "gpufleet.io/gpus-per-replica"
	LabelReplicas       = "gpufleet.io/replicas"
	LabelKVCache        = "gpufleet.io/kv-cache-gib"
	LabelCapacityType   = "gpufleet.io/capacity-type"
	LabelMIGConfig      = "nvidia.com/mig.config"
	LabelDevicePlugin   = "nvidia.com/device-plugin.config"
	// LabelAccelerator tells the cluster autoscaler on AWS that a node has GPUs, so that it waits
	// for the device plugin to advertise them instead of adding more nodes meanwhile (kubernetes/
	// autoscaler cluster-autoscaler/cloudprovider/aws/README.md, "Special note on GPU instances";
	// the value is free, gpufleet writes the GPU model: nvidia-h100-80gb).
	LabelAccelerator = "k8s.amazonaws.com/accelerator"

	// DevicePluginMIGMixed names the device plugin config of EKS nodes with a mixed MIG layout
	// (all-balanced): the mixed MIG strategy, which advertises each slice size as its own resource.
	DevicePluginMIGMixed = "gpufleet-mig-mixed"
)

var derivedTaintKeys = []string{TaintGPU, TaintClient}

// TagKeys are the derived tag keys of a cloud: AWS tags allow "gpufleet:client", GKE resource labels
// allow only lowercase letters, digits, '_' and '-', so GKE gets "gpufleet_client".
type TagKeys struct {
	prefix                             string
	Client, Pool, Workload, CostCenter string
}

func tagKeys(cloud catalog.Cloud) TagKeys {
	if cloud == catalog.GCP {
		return TagKeys{prefix: "gpufleet_", Client: "gpufleet_client", Pool: "gpufleet_pool", Workload: "gpufleet_workload", CostCenter: "gpufleet_cost-center"}
	}
	return TagKeys{prefix: "gpufleet:", Client: "gpufleet:client", Pool: "gpufleet:pool", Workload: "gpufleet:workload", CostCenter: "gpufleet:cost-center"}
}

// TagKeysFor returns the derived tag keys of a cloud.
func TagKeysFor(cloud catalog.Cloud) TagKeys { return tagKeys(cloud) }

// Environment is what Derive needs besides the spec: provider-level settings and the policy data.
type Environment struct {
	DefaultTags map[string]string
	Pricing     catalog.Pricing
	Registry    Registry // nil without policy data
	// EKSMaxNodesPerNodeGroup is the account's "Nodes per managed node group" quota (the provider's
	// aws.max_nodes_per_node_group; 0: catalog.EKSNodesPerNodeGroupDefault).
	EKSMaxNodesPerNodeGroup int
}

// NodeLimitsFor are the limits of the cloud objects behind a pool resource (catalog/limits.go): the
// EKS node group quota for each side of a gpufleet_eks_node_pool, GKE's nodes per zone for each
// side of a gpufleet_gke_node_pool; none (gpufleet's MaxPoolNodes) for autoscaler objects.
func NodeLimitsFor(resourceType string, env Environment) NodeLimits {
	switch resourceType {
	case "gpufleet_eks_node_pool":
		setting := "the provider's aws.max_nodes_per_node_group"
		if env.EKSMaxNodesPerNodeGroup == 0 {
			setting = "the default of aws.max_nodes_per_node_group"
		}
		return NodeLimits{PerSide: catalog.NodeLimit(catalog.AWS, 1, env.EKSMaxNodesPerNodeGroup), Setting: setting}
	case "gpufleet_gke_node_pool":
		return NodeLimits{PerZone: catalog.GKENodesPerPoolZone}
	}
	return NodeLimits{}
}

// Derived is everything gpufleet computes from a valid, fully known spec.
type Derived struct {
	Node           catalog.NodeType
	GPU            catalog.GPUModel
	SliceMemoryGiB float64 // memory one replica gets: the MIG slice or the whole GPU
	Taints         []Taint
	Labels         map[string]string // on every node of the pool
	Tags           map[string]string
	Sides          []Side
	// DevicePluginConfig is the NVIDIA device plugin config for GPU sharing ("" without sharing);
	// its name is in the nvidia.com/device-plugin.config label.
	DevicePluginConfig string
	HourlyUSD          float64
	MonthlyUSD         float64
	// PriceErr says why there is no cost estimate (no price row for the region), nil otherwise.
	PriceErr error
	// CostUnknown says that the cost is not known yet: the sides' starting sizes depend on zones
	// the cloud fills in at apply (Spec.StartSizeKnown). HourlyUSD and MonthlyUSD are 0 then.
	CostUnknown bool
}

// Derive computes the derived values. It expects s.Validate() to have returned no problems and every
// value to be known.
func Derive(s Spec, env Environment) (Derived, error) {
	node, problem, _ := s.NodeType()
	if problem != nil {
		return Derived{}, *problem
	}
	d := Derived{Node: node, GPU: node.GPU(), Sides: s.Sides()}
	d.SliceMemoryGiB = d.GPU.MemoryGiB
	if s.GPU.MIG != nil {
		p, err := SliceProfile(d.GPU, *s.GPU.MIG)
		if err != nil {
			return Derived{}, err
		}
		d.SliceMemoryGiB = p.MemoryGiB
	}
	client, registered := env.Registry.Lookup(s.Client)
	d.Taints = deriveTaints(s, registered && client.Isolation == IsolationDedicated)
	d.Labels = deriveLabels(s)
	if s.Cloud == catalog.AWS {
		d.Labels[LabelAccelerator] = AcceleratorLabel(d.GPU)
	}
	switch {
	case s.GPU.Sharing != nil:
		name, config := devicePluginConfig(*s.GPU.Sharing, s.GPU.MIG != nil)
		d.DevicePluginConfig = config
		if s.Cloud == catalog.AWS {
			d.Labels[LabelDevicePlugin] = name
		}
	case s.Cloud == catalog.AWS && s.GPU.MIG != nil && s.GPU.MIG.Config == MIGConfigBalanced:
		// Slices of several sizes on one GPU: the single strategy rejects the node ("more than one
		// MIG device type present on node", k8s-device-plugin internal/rm); the mixed one advertises
		// nvidia.com/mig-<profile> per size (NVIDIA GPU Operator, "GPU Operator with MIG").
		d.DevicePluginConfig = "version: v1\nflags:\n  migStrategy: mixed\n"
		d.Labels[LabelDevicePlugin] = DevicePluginMIGMixed
	}
	d.Tags = deriveTags(s, env.DefaultTags, client.CostCenter)
	d.HourlyUSD, d.PriceErr = hourlyCost(node, s.Region, d.Sides, env.Pricing)
	d.MonthlyUSD = round2(d.HourlyUSD * catalog.HoursPerMonth)
	if !s.StartSizeKnown() {
		d.HourlyUSD, d.MonthlyUSD, d.CostUnknown = 0, 0, true
	}
	return d, nil
}

func deriveTaints(s Spec, dedicated bool) []Taint {
	taints := []Taint{{Key: TaintGPU, Value: "present", Effect: EffectNoSchedule}}
	if dedicated {
		taints = append(taints, Taint{Key: TaintClient, Value: s.Client, Effect: EffectNoSchedule})
	}
	return append(taints, s.Taints...)
}

func deriveLabels(s Spec) map[string]string {
	labels := maps.Clone(s.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelClient] = s.Client
	labels[LabelWorkload] = s.Workload.Kind
	labels[LabelEnvironment] = s.Workload.Environment
	labels[LabelGPUMemory] = gpuMemoryLabel(s.Workload.GPUMemoryGiB)
	labels[LabelInterruptible] = strconv.FormatBool(s.Workload.Interruptible)
	if s.Workload.Precision != "" {
		labels[LabelPrecision] = s.Workload.Precision
	}
	if s.Workload.GPUsPerReplica != 0 {
		labels[LabelGPUsPerReplica] = strconv.Itoa(s.Workload.GPUsPerReplica)
	}
	if s.Workload.Replicas != 0 {
		labels[LabelReplicas] = strconv.Itoa(s.Workload.Replicas)
	}
	if s.Workload.KVCacheGiB != 0 {
		labels[LabelKVCache] = strconv.FormatFloat(s.Workload.KVCacheGiB, 'f', -1, 64)
	}
	if s.GPU.MIG != nil && s.Cloud == catalog.AWS {
		// GKE partitions through gpu_partition_size; on EKS the GPU Operator's MIG manager reads this label.
		labels[LabelMIGConfig] = MIGConfigLabel(s.GPU.MIG.ConfigName())
	}
	return labels
}

// gpuMemoryLabel is the LabelGPUMemory value of a GPU memory need: the number in full, without an
// exponent ('e' and '+' are no label value characters), at most maxLabelValue characters for the
// needs Validate accepts.
func gpuMemoryLabel(gib float64) string {
	return strconv.FormatFloat(gib, 'f', -1, 64)
}

// MIGConfigLabel is the GPU Operator's name of a MIG config, the nvidia.com/mig.config label value:
// a "+me" profile (media extensions) is ".me" there (all-1g.10gb+me → all-1g.10gb.me; NVIDIA
// gpu-operator assets/state-mig-manager/0400_configmap.yaml), as '+' is no Kubernetes label value.
func MIGConfigLabel(config string) string {
	return strings.ReplaceAll(config, "+", ".")
}

// MIGConfigFromLabel reads a nvidia.com/mig.config label back as gpufleet spells the config.
func MIGConfigFromLabel(label string) string {
	if base, ok := strings.CutSuffix(label, ".me"); ok {
		return base + "+me"
	}
	return label
}

// AcceleratorLabel is the k8s.amazonaws.com/accelerator value of a GPU model: nvidia-h100-80gb.
func AcceleratorLabel(g catalog.GPUModel) string {
	return "nvidia-" + strings.ToLower(g.Name)
}

// SideLabels are the labels of one side's nodes: the pool's labels plus the capacity type.
func SideLabels(poolLabels map[string]string, side Side) map[string]string {
	labels := maps.Clone(poolLabels)
	labels[LabelCapacityType] = capacityLabel(side.CapacityType)
	return labels
}

func capacityLabel(capacityType string) string {
	switch capacityType {
	case CapacitySpot:
		return "spot"
	case CapacityCapacityBlock:
		return "capacity-block"
	}
	return "on-demand"
}

func deriveTags(s Spec, defaults map[string]string, costCenter string) map[string]string {
	keys := tagKeys(s.Cloud)
	tags := maps.Clone(defaults)
	if tags == nil {
		tags = map[string]string{}
	}
	maps.Copy(tags, s.Tags)
	tags[keys.Client] = s.Client
	tags[keys.Pool] = s.Name
	tags[keys.Workload] = s.Workload.Kind
	if costCenter != "" {
		tags[keys.CostCenter] = costCenter
	}
	return tags
}

// devicePluginConfig renders the NVIDIA k8s-device-plugin sharing config (version v1), named after
// the strategy and replica count so identical pools share one ConfigMap entry.
func devicePluginConfig(sh Sharing, mig bool) (name, config string) {
	key := "timeSlicing"
	if sh.Strategy == SharingMPS {
		key = "mps"
	}
	name = fmt.Sprintf("gpufleet-%s-%d", sh.Strategy, sh.Replicas)
	flags := ""
	if mig {
		// With MIG the slices are advertised as nvidia.com/gpu ("single" strategy), so sharing applies to them.
		flags = "flags:\n  migStrategy: single\n"
	}
	config = fmt.Sprintf("version: v1\n%ssharing:\n  %s:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: %d\n", flags, key, sh.Replicas)
	return name, config
}

func hourlyCost(node catalog.NodeType, region string, sides []Side, pricing catalog.Pricing) (float64, error) {
	total, err := Cost(node, region, sides, pricing, 1)
	return round4(total), err
}

// Cost is what the sides' nodes at their desired sizes cost over hours: on-demand sides at the
// on-demand price, spot sides at the spot price, at the pricing's overrides and discount; a
// capacity block side all its nodes (its max size) at the block's price. Not
// rounded. The pools' estimates are Cost over 1 hour (estimated_hourly_cost_usd, rounded to 4
// decimals) times catalog.HoursPerMonth; the month length is the caller's to choose.
func Cost(node catalog.NodeType, region string, sides []Side, pricing catalog.Pricing, hours float64) (float64, error) {
	onDemand, spot, err := pricing.Hourly(node, region)
	if err != nil {
		return 0, err
	}
	var total float64
	for _, side := range sides {
		if side.CapacityType == CapacityCapacityBlock {
			// A capacity block is prepaid for all its instances, whether they run or not, at the
			// price it was bought at (EC2 User Guide, "Capacity Blocks for ML" pricing).
			total += float64(side.Sizes.Max) * side.BlockHourlyUSD * hours
			continue
		}
		price := onDemand
		if side.Spot() {
			price = spot
		}
		total += float64(side.Sizes.Desired) * price * hours
	}
	return total, nil
}

// Cost is what the pool costs over hours at its desired size (see the function Cost).
func (s Spec) Cost(pricing catalog.Pricing, hours float64) (float64, error) {
	node, problem, _ := s.NodeType()
	if problem != nil {
		return 0, *problem
	}
	return Cost(node, s.Region, s.Sides(), pricing, hours)
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }
func round4(f float64) float64 { return math.Round(f*10000) / 10000 }
