// Package pool is the cloud-neutral GPU node pool: what a user declared (Spec), whether it is valid
// (Validate), and what gpufleet derives from it (Derive): the GPU behind the instance types, the spot
// mix split, taints, labels, tags and the cost estimate. The EKS and GKE resources translate their
// schemas to a Spec and the Derived values back to cloud requests; the policy document is built here
// too, so the provider and conftest judge the same facts. Pure functions, no I/O.
package pool

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// Workload kinds and environments, as the schema and the policy document spell them.
const (
	KindTraining    = "training"
	KindInference   = "inference"
	KindDevelopment = "development"
	KindBatch       = "batch"

	EnvProduction  = "production"
	EnvStaging     = "staging"
	EnvDevelopment = "development"

	SharingTimeSlicing = "time-slicing"
	SharingMPS         = "mps"

	EffectNoSchedule       = "NO_SCHEDULE"
	EffectNoExecute        = "NO_EXECUTE"
	EffectPreferNoSchedule = "PREFER_NO_SCHEDULE"

	// EKS reservations.
	ReservationCapacityReservation = "capacity-reservation"
	ReservationCapacityBlock       = "capacity-block"
	// GKE reservation affinity.
	ReservationSpecific = "specific"
	ReservationAny      = "any"
	ReservationNone     = "none"
)

var (
	Kinds          = []string{KindTraining, KindInference, KindDevelopment, KindBatch}
	Environments   = []string{EnvProduction, EnvStaging, EnvDevelopment}
	SharingKinds   = []string{SharingTimeSlicing, SharingMPS}
	TaintEffects   = []string{EffectNoSchedule, EffectNoExecute, EffectPreferNoSchedule}
	EKSReservation = []string{ReservationCapacityReservation, ReservationCapacityBlock}
	GKEReservation = []string{ReservationSpecific, ReservationAny, ReservationNone}
)

// Spec is one GPU node pool as declared. Strings left empty and pointers left nil mean "not set".
type Spec struct {
	Cloud        catalog.Cloud
	ResourceType string // gpufleet_eks_node_pool or gpufleet_gke_node_pool
	Name         string
	Region       string
	Zones        []string

	Client   string
	Workload Workload
	GPU      GPU

	InstanceTypes []string // EKS: EC2 instance types, first one is the on-demand type
	MachineType   string   // GKE

	Scaling Sizes
	// AutoscalerOwnsSize is true when desired_size is not set: the pool starts at min_size
	// (Scaling.Desired holds it) and later changes of the desired size are the autoscaler's, which
	// gpufleet never reverts.
	AutoscalerOwnsSize bool
	// Karpenter says that Karpenter (or EKS Auto Mode) provisions the pool: it picks an instance
	// type per launch for the pods it schedules, so instance types of different sizes are fine.
	Karpenter bool
	Capacity  Capacity
	// NodeLimits are the cloud's limits on the objects backing the pool (catalog.NodeLimit); zero
	// values: catalog.MaxPoolNodes for the whole pool.
	NodeLimits NodeLimits

	Taints  []Taint
	Labels  map[string]string
	Tags    map[string]string
	Waivers map[string]string

	// Unknown holds the attribute paths (Path.String()) whose values are not known yet at plan time.
	// Validation skips them; derived values that need them are not computed; the policy document
	// shows them as null.
	Unknown map[string]bool
}

// NodeLimits bound a pool's sides: PerSide nodes for each cloud object (EKS: the "Nodes per
// managed node group" quota), PerZone nodes in each zone of each (GKE: 1 000 per node pool zone).
type NodeLimits struct {
	PerSide int
	PerZone int
	// Setting names where PerSide comes from, for messages ("aws.max_nodes_per_node_group").
	Setting string
}

type Workload struct {
	Kind          string
	Environment   string
	GPUMemoryGiB  float64 // GPU memory one replica needs in all, over its GPUsPerReplica GPUs
	Interruptible bool
	// The fit (catalog.FitWorkload): "" / 0 when not set.
	Precision      string // weights and compute: fp32, fp16, bf16, fp8, int8, int4
	GPUsPerReplica int    // GPUs of one replica, on one node
	Replicas       int    // replicas the pool holds at once
	// KVCacheGiB is the share of GPUMemoryGiB that is the serving engine's KV cache: GPU memory
	// only, so the fit's host-memory estimate leaves it out (catalog/kvcache.go).
	KVCacheGiB float64
}

type GPU struct {
	MIG     *MIG
	Sharing *Sharing
	// MIGStrategy is EKS's: the NVIDIA GPU Operator's MIG strategy in the pool's cluster,
	// MIGStrategySingle ("" counts as it) or MIGStrategyMixed. The operator sets it for every node
	// of the cluster (see MIGStrategyMixed), so it decides which resources MIG nodes advertise.
	MIGStrategy string
	// GKE only: accelerator type, count per node (0 = the machine type's own) and driver installation.
	Type          string
	Count         int
	DriverVersion string
}

type MIG struct {
	Profile string // e.g. "3g.40gb"
	Config  string // e.g. "all-balanced" or "all-3g.40gb"
}

type Sharing struct {
	Strategy string
	Replicas int
}

type Sizes struct {
	Min, Max, Desired int
}

type Capacity struct {
	SpotPercentage int
	OnDemandBase   int
	Reservation    *Reservation
}

// Reservation is EKS's {id, type, hourly price} or GKE's {type, name, project}.
type Reservation struct {
	Type    string
	ID      string
	Name    string
	Project string
	// HourlyUSD is what an EKS capacity block costs per instance-hour: set when it is bought, not
	// readable from any EC2 API afterwards.
	HourlyUSD float64
}

type Taint struct {
	Key    string
	Value  string
	Effect string
}

// Known reports whether the value at path p (and so everything below it) is known.
func (s Spec) Known(p Path) bool {
	if len(s.Unknown) == 0 {
		return true
	}
	key := p.String()
	for u := range s.Unknown {
		if u == key || strings.HasPrefix(key, u+".") || strings.HasPrefix(key, u+"[") {
			return false
		}
	}
	return true
}

// AllKnown reports whether every value of the spec is known.
func (s Spec) AllKnown() bool { return len(s.Unknown) == 0 }

// Path is an attribute path in the resource schema: names and list indexes.
type Path []any

// P builds a Path from names (string) and list indexes (int).
func P(steps ...any) Path { return Path(steps) }

func (p Path) String() string {
	var b strings.Builder
	for i, step := range p {
		switch v := step.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(v) + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

// Problem is one validation error, at the attribute the user has to change.
type Problem struct {
	Path    Path
	Summary string
	Detail  string
}

func (p Problem) Error() string { return p.Path.String() + ": " + p.Summary + ": " + p.Detail }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
