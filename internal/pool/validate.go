package pool

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

var (
	// ClientIDPattern keeps a client id usable as a Kubernetes label value, a GKE resource label value
	// and an AWS tag value at once.
	ClientIDPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?$`)
	// EKSNamePattern: EKS CreateNodegroup nodegroupName, less room for the "-spot" suffix.
	EKSNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,57}$`)
	// GKENamePattern: GKE node pool names (RFC 1035, at most 40 characters), less room for "-spot".
	GKENamePattern = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,33}[a-z0-9])?$`)
	// WaiverRulePattern matches policy rule ids: gpufleet's (GF-COST-002) and a team's own rules
	// (ACME-001), which policies/README.md asks to name outside GF-. A waiver of a GF- id the bundle
	// does not have is a policy warning (GF-WAIVE-001), not a plan error.
	WaiverRulePattern = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$`)

	k8sNamePattern = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)
	dnsSubdomain   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
	gkeLabelKey    = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)
	gkeLabelValue  = regexp.MustCompile(`^[a-z0-9_-]{0,63}$`)
	// EC2ReservationID is the shape of an EC2 capacity reservation or block id; the
	// recommendation checks its capacity.reservation inputs with it too.
	EC2ReservationID = regexp.MustCompile(`^cr-[0-9a-f]{8,17}$`)
)

const (
	maxSharingReplicas = 48 // GKE's maxSharedClientsPerGpu limit; the device plugin has none, keep one rule
	minWaiverReason    = 10
	// EKS takes label keys and values, and taint keys, of at most 63 characters with the prefix
	// counted, and no empty label values (EKS API Reference: CreateNodegroup, Taint); Kubernetes
	// itself allows a 253-character prefix and empty values.
	maxEKSKey = 63
	// maxLabelValue is the length of a Kubernetes label value (k8s.io/apimachinery validation:
	// LabelValueMaxLength), which every label gpufleet writes on nodes must keep (audit N11).
	maxLabelValue = 63
)

// Validate checks the spec against the catalog and the clouds' rules. Every problem names the
// attribute to change. Unknown values are skipped; they are checked again at apply.
func (s Spec) Validate() []Problem {
	v := validator{spec: s}
	v.name()
	v.client()
	v.workload()
	node, ok := v.nodeType()
	if ok {
		v.gpu(node)
		v.gpusPerReplica(node)
		v.gkeProvisioning()
	}
	v.scaling()
	v.nodeLimits()
	v.capacity()
	v.taints()
	v.labels()
	v.tags()
	v.waivers()
	return v.problems
}

type validator struct {
	spec     Spec
	problems []Problem
}

func (v *validator) add(p Path, summary, format string, args ...any) {
	v.problems = append(v.problems, Problem{Path: p, Summary: summary, Detail: fmt.Sprintf(format, args...)})
}

func (v *validator) known(p Path) bool { return v.spec.Known(p) }

// oneOf checks an enumerated value; "" means the attribute is missing from its block.
func (v *validator) oneOf(p Path, what, value string, allowed []string) {
	switch {
	case !v.known(p) || slices.Contains(allowed, value):
	case value == "":
		v.add(p, "Missing "+what, "set %s to one of %s.", p, strings.Join(allowed, ", "))
	default:
		v.add(p, "Invalid "+what, "%q is not one of %s.", value, strings.Join(allowed, ", "))
	}
}

func (v *validator) name() {
	p := P("name")
	if !v.known(p) {
		return
	}
	switch v.spec.Cloud {
	case catalog.AWS:
		if !EKSNamePattern.MatchString(v.spec.Name) {
			v.add(p, "Invalid node pool name", "%q must be 1-58 letters, digits, '-' or '_', starting with a letter or digit: EKS allows 63 characters and gpufleet appends %q or %q.", v.spec.Name, SuffixOnDemand, SuffixSpot)
		}
	case catalog.GCP:
		if !GKENamePattern.MatchString(v.spec.Name) {
			v.add(p, "Invalid node pool name", "%q must be 1-35 lowercase letters, digits or '-', starting with a letter and not ending with '-': GKE allows 40 characters and gpufleet appends %q or %q.", v.spec.Name, SuffixOnDemand, SuffixSpot)
		}
	}
}

func (v *validator) client() {
	p := P("client")
	if !v.known(p) {
		return
	}
	if !ClientIDPattern.MatchString(v.spec.Client) {
		v.add(p, "Invalid client id", "%q must be 1-63 lowercase letters, digits, '-' or '_', starting and ending with a letter or digit, so that it can be a Kubernetes label value, a GKE label value and an AWS tag value.", v.spec.Client)
	}
}

func (v *validator) workload() {
	w := v.spec.Workload
	v.oneOf(P("workload", "kind"), "workload kind", w.Kind, Kinds)
	v.oneOf(P("workload", "environment"), "workload environment", w.Environment, Environments)
	switch p := P("workload", "gpu_memory_gib"); {
	case !v.known(p):
	case w.GPUMemoryGiB == 0:
		v.add(p, "Missing GPU memory need", "set workload.gpu_memory_gib to the GPU memory one replica needs, in GiB.")
	case w.GPUMemoryGiB < 0:
		v.add(p, "Invalid GPU memory need", "%g GiB: the GPU memory one replica needs must be greater than 0.", w.GPUMemoryGiB)
	case len(gpuMemoryLabel(w.GPUMemoryGiB)) > maxLabelValue:
		v.add(p, "GPU memory need too large", "%g GiB: gpufleet writes it in full in the %s node label, whose value takes at most %d characters (this one %d), and the cloud would refuse the node pool.",
			w.GPUMemoryGiB, LabelGPUMemory, maxLabelValue, len(gpuMemoryLabel(w.GPUMemoryGiB)))
	}
	if w.Precision != "" {
		v.oneOf(P("workload", "precision"), "precision", w.Precision, catalog.Precisions())
	}
	if p := P("workload", "gpus_per_replica"); v.known(p) && w.GPUsPerReplica < 0 {
		v.add(p, "Invalid GPUs per replica", "%d: a replica spans 1 or more GPUs.", w.GPUsPerReplica)
	}
	if p := P("workload", "replicas"); v.known(p) && w.Replicas < 0 {
		v.add(p, "Invalid replicas", "%d: a pool holds 1 or more replicas.", w.Replicas)
	}
	switch p := P("workload", "kv_cache_gib"); {
	case !v.known(p) || w.KVCacheGiB == 0:
	case w.KVCacheGiB < 0:
		v.add(p, "Invalid KV cache", "%g GiB: the KV cache of one replica is 0 GiB or more.", w.KVCacheGiB)
	case v.known(P("workload", "gpu_memory_gib")) && w.GPUMemoryGiB > 0 && w.KVCacheGiB >= w.GPUMemoryGiB:
		v.add(p, "Invalid KV cache", "%g GiB is not less than workload.gpu_memory_gib (%g GiB): kv_cache_gib is the share of the replica's GPU memory need that is KV cache, so gpu_memory_gib includes it (weights + overhead + KV cache).", w.KVCacheGiB, w.GPUMemoryGiB)
	}
}

// nodeType resolves and checks the instance/machine types; ok is false when they are unknown or bad.
func (v *validator) nodeType() (catalog.NodeType, bool) {
	node, problem, known := v.spec.NodeType()
	if problem != nil {
		v.problems = append(v.problems, *problem)
	}
	return node, known && problem == nil
}

// gpusPerReplica rejects a replica over more GPUs than a node has (catalog.FitWorkload), whatever
// the policy enforcement: its GPUs must be on one node, except a training replica over whole nodes
// (catalog.SpansNodes) of a node type with an inter-node GPU network (EFA, GPUDirect).
func (v *validator) gpusPerReplica(node catalog.NodeType) {
	p := P("workload", "gpus_per_replica")
	n := v.spec.Workload.GPUsPerReplica
	if !v.known(p) || n <= node.GPUCount {
		return
	}
	switch {
	case catalog.SpansNodes(v.spec.Workload.Kind, n, node.GPUCount) && node.MultiNode():
	case catalog.SpansNodes(v.spec.Workload.Kind, n, node.GPUCount):
		v.add(p, "Replica over nodes without an inter-node GPU network", "%d GPUs per replica span %d %s nodes of %d %s GPUs, and %s has no inter-node GPU network (%s): "+
			"NCCL between its nodes would run over plain TCP. Choose a node type with one, or keep a replica on one node (at most %d GPUs).",
			n, n/node.GPUCount, node.Name, node.GPUCount, node.GPUModel, node.Name, catalog.InterNodeNamesFor(node.Cloud), node.GPUCount)
	default:
		v.add(p, "Replica larger than a node", "%d GPUs per replica, but a %s node has %d %s GPU(s): a replica's GPUs must be on one node "+
			"(or, for training, on whole nodes with an inter-node GPU network: a multiple of %d); choose a node type with at least %d GPUs or lower workload.gpus_per_replica.",
			n, node.Name, node.GPUCount, node.GPUModel, node.GPUCount, n)
	}
}

func (v *validator) gpu(node catalog.NodeType) {
	g := v.spec.GPU
	gpu := node.GPU()
	if g.MIG != nil && v.known(P("gpu", "mig")) {
		v.mig(g.MIG, gpu)
		if v.spec.Cloud == catalog.GCP {
			v.gkePartition(g.MIG, node)
		}
	}
	if g.Sharing != nil && v.known(P("gpu", "sharing")) {
		v.oneOf(P("gpu", "sharing", "strategy"), "GPU sharing strategy", g.Sharing.Strategy, SharingKinds)
		if g.Sharing.Replicas == 0 {
			v.add(P("gpu", "sharing", "replicas"), "Missing GPU sharing replicas", "set gpu.sharing.replicas: how many replicas share one GPU, 2 to %d.", maxSharingReplicas)
		} else if g.Sharing.Replicas < 2 || g.Sharing.Replicas > maxSharingReplicas {
			v.add(P("gpu", "sharing", "replicas"), "Invalid GPU sharing replicas", "%d: a shared GPU serves 2 to %d replicas.", g.Sharing.Replicas, maxSharingReplicas)
		}
		switch {
		case v.spec.Cloud == catalog.AWS && g.Sharing.Strategy == SharingMPS && g.MIG != nil:
			// NVIDIA k8s-device-plugin README, "With CUDA MPS": "Sharing with MPS is currently not
			// supported on devices with MIG enabled"; the plugin fails and the node advertises no GPU.
			v.add(P("gpu", "sharing", "strategy"), "MPS on MIG slices", "the NVIDIA device plugin does not share MIG devices with MPS (its nodes would advertise no nvidia.com/gpu); use strategy \"time-slicing\" on MIG slices, or drop gpu.mig.")
		case v.spec.Cloud == catalog.AWS && g.MIG != nil && g.MIG.Config == MIGConfigBalanced:
			v.add(P("gpu", "sharing"), "Sharing on a mixed MIG layout", "all-balanced puts slices of several sizes on each GPU, which the device plugin advertises only with the mixed MIG strategy, as nvidia.com/mig-<profile>; gpufleet's sharing config shares nvidia.com/gpu under the single strategy. Use gpu.mig.profile (one size) with sharing, or all-balanced without it.")
		case v.spec.Cloud == catalog.AWS && g.MIG != nil && g.Mixed():
			v.add(P("gpu", "sharing"), "Sharing MIG slices under the mixed strategy", "mig_strategy is \"mixed\": the device plugin advertises the slices as nvidia.com/mig-<profile>, and gpufleet's sharing config shares nvidia.com/gpu, as the single strategy advertises slices. Share MIG slices in a cluster whose GPU Operator runs the single strategy (mig_strategy = \"single\"), or share whole GPUs.")
		}
	}
	if v.spec.Cloud == catalog.AWS && g.MIG != nil && g.MIG.Config == MIGConfigBalanced && !g.Mixed() && v.known(P("gpu", "mig")) {
		v.add(P("gpu", "mig", "config"), "all-balanced needs the mixed MIG strategy",
			"all-balanced puts slices of several sizes on each GPU, which the NVIDIA device plugin refuses under the single MIG strategy (the node advertises nothing), and the GPU Operator's mig.strategy is one for the whole cluster: it overrides a node's own device plugin config. Install the operator with mig.strategy=mixed and set mig_strategy = \"mixed\" on the cluster's pools, or use gpu.mig.profile (one size).")
	}
}

func (v *validator) mig(m *MIG, gpu catalog.GPUModel) {
	base := P("gpu", "mig")
	if !gpu.MIGCapable() {
		v.add(base, "MIG not supported", "%s has no Multi-Instance GPU support; MIG needs one of %s.", gpu.Name, strings.Join(migCapableGPUs(), ", "))
		return
	}
	switch {
	case m.Profile != "" && m.Config != "":
		v.add(base, "Conflicting MIG settings", "set either gpu.mig.profile or gpu.mig.config, not both.")
	case m.Profile == "" && m.Config == "":
		v.add(base, "Missing MIG setting", "set gpu.mig.profile (e.g. %q) or gpu.mig.config (e.g. \"all-balanced\").", gpu.MIGProfiles[0].Name)
	case m.Profile != "":
		if _, ok := gpu.MIGProfile(m.Profile); !ok {
			v.add(P("gpu", "mig", "profile"), "Unknown MIG profile", "%s offers %s, not %q.", gpu.Name, strings.Join(gpu.MIGProfileNames(), ", "), m.Profile)
		}
	default:
		if _, err := SliceProfile(gpu, *m); err != nil {
			v.add(P("gpu", "mig", "config"), "Unknown MIG config", "%s", err)
			return
		}
		if v.spec.Cloud == catalog.GCP && m.Config == MIGConfigBalanced {
			v.add(P("gpu", "mig", "config"), "MIG config not supported on GKE", "GKE partitions every GPU of a node pool into one profile size (gpu_partition_size): use gpu.mig.profile, or config \"all-<profile>\".")
		}
	}
}

// gkePartition checks the MIG profile against the partition sizes GKE offers, which are fewer than
// NVIDIA's profiles (no 4g on A100, no +me profiles).
func (v *validator) gkePartition(m *MIG, node catalog.NodeType) {
	sizes := catalog.GKEPartitionSizes(node.Accelerator)
	if len(sizes) == 0 || m.Config != "" && m.Profile == "" && !strings.HasPrefix(m.Config, "all-") {
		return // reported by mig() already: no MIG on this GPU, or a config GKE cannot take
	}
	profile := strings.TrimPrefix(m.ConfigName(), "all-")
	at := P("gpu", "mig", "profile")
	if m.Profile == "" {
		at = P("gpu", "mig", "config")
	}
	if _, known := node.GPU().MIGProfile(profile); known && !slices.Contains(sizes, profile) {
		v.add(at, "MIG partition size not offered by GKE", "GKE partitions %s into %s, not %q.", node.Accelerator, strings.Join(sizes, ", "), profile)
	}
}

func migCapableGPUs() []string {
	var names []string
	for _, g := range catalog.GPUs() {
		if g.MIGCapable() {
			names = append(names, g.Name)
		}
	}
	return names
}

func (v *validator) scaling() {
	s := v.spec.Scaling
	known := v.known(P("scaling", "min_size")) && v.known(P("scaling", "max_size")) && v.known(P("scaling", "desired_size"))
	if v.known(P("scaling", "min_size")) && s.Min < 0 {
		v.add(P("scaling", "min_size"), "Invalid scaling", "min_size %d must be 0 or more.", s.Min)
	}
	if v.known(P("scaling", "max_size")) && s.Max < 1 {
		v.add(P("scaling", "max_size"), "Invalid scaling", "max_size %d must be 1 or more.", s.Max)
	}
	if !known {
		return
	}
	if s.Min > s.Max {
		v.add(P("scaling", "min_size"), "Invalid scaling", "min_size %d is greater than max_size %d.", s.Min, s.Max)
	} else if !v.spec.AutoscalerOwnsSize && (s.Desired < s.Min || s.Desired > s.Max) {
		v.add(P("scaling", "desired_size"), "Invalid scaling", "desired_size %d must be between min_size %d and max_size %d.", s.Desired, s.Min, s.Max)
	}
}

// nodeLimits checks each side's max_size against the cloud's limits (catalog/limits.go): the EKS
// node group quota per side, GKE's nodes per node pool zone, else gpufleet's MaxPoolNodes per pool.
func (v *validator) nodeLimits() {
	s := v.spec
	if !v.known(P("scaling", "max_size")) || !v.known(P("capacity", "spot_percentage")) || !v.known(P("capacity", "on_demand_base")) || s.Scaling.Max < 1 {
		return
	}
	l := s.NodeLimits
	if l.PerSide == 0 && l.PerZone == 0 {
		if s.Scaling.Max > catalog.MaxPoolNodes {
			v.add(P("scaling", "max_size"), "Pool too large", "max_size %d: a pool holds at most %d nodes.", s.Scaling.Max, catalog.MaxPoolNodes)
		}
		return
	}
	od, spot := SplitSizes(s.Scaling, s.Capacity.OnDemandBase, s.Capacity.SpotPercentage)
	zones := len(s.Zones)
	if zones == 0 {
		zones = DefaultZoneCount(s.Cloud, s.Region)
	}
	for _, side := range []struct {
		name string
		max  int
	}{{"on-demand", od.Max}, {"spot", spot.Max}} {
		switch {
		case l.PerSide > 0 && side.max > l.PerSide:
			v.add(P("scaling", "max_size"), "Node group quota exceeded",
				"max_size %d makes the %s node group %d nodes, over the EKS service quota \"Nodes per managed node group\" of %d (%s; default %d, adjustable in Service Quotas, code L-BD136A63). Lower max_size, split the pool, or raise the quota and the setting.",
				s.Scaling.Max, side.name, side.max, l.PerSide, cmp.Or(l.Setting, "the quota"), catalog.EKSNodesPerNodeGroupDefault)
			return
		case l.PerZone > 0 && PerZone(side.max, zones) > l.PerZone:
			v.add(P("scaling", "max_size"), "Node pool zone limit exceeded",
				"max_size %d makes the %s node pool %d nodes in each of its %d zone(s), over GKE's %d nodes per node pool per zone. Lower max_size or spread the pool over more zones (node_locations).",
				s.Scaling.Max, side.name, PerZone(side.max, zones), zones, l.PerZone)
			return
		}
	}
}

func (v *validator) capacity() {
	c := v.spec.Capacity
	if v.known(P("capacity", "spot_percentage")) && (c.SpotPercentage < 0 || c.SpotPercentage > 100) {
		v.add(P("capacity", "spot_percentage"), "Invalid spot share", "%d must be between 0 and 100.", c.SpotPercentage)
	}
	if v.known(P("capacity", "on_demand_base")) && c.OnDemandBase < 0 {
		v.add(P("capacity", "on_demand_base"), "Invalid on-demand base", "%d must be 0 or more.", c.OnDemandBase)
	}
	r := c.Reservation
	if r == nil || !v.known(P("capacity", "reservation")) {
		return
	}
	switch v.spec.Cloud {
	case catalog.AWS:
		v.eksReservation(r, c)
	case catalog.GCP:
		v.gkeReservation(r)
	}
}

// SummaryNotSoldOnDemand is the summary of the problem of a GKE pool with on-demand nodes of a
// machine type Compute Engine does not sell on demand (gkeProvisioning): the recommendation sets it
// aside for an answer whose on-demand side runs flex-start VMs in a ComputeClass.
const SummaryNotSoldOnDemand = "Machine type not sold on demand"

// gkeProvisioning checks the on-demand side against how Compute Engine sells the machine type
// (catalog.GKEProvisioningOf): a type sold only as Spot, flex-start or reserved capacity has no
// on-demand side, unless that side consumes a reservation the type is sold on.
func (v *validator) gkeProvisioning() {
	if v.spec.Cloud != catalog.GCP || !v.known(P("capacity", "spot_percentage")) || !v.known(P("capacity", "on_demand_base")) ||
		!v.known(P("scaling", "max_size")) || !v.known(P("capacity", "reservation")) {
		return
	}
	sold := catalog.GKEProvisioningOf(v.spec.MachineType)
	c := v.spec.Capacity
	od, _ := SplitSizes(v.spec.Scaling, c.OnDemandBase, c.SpotPercentage)
	if sold.OnDemand || od.Max == 0 {
		return
	}
	if r := c.Reservation; sold.Reserved && r != nil && r.Type == ReservationAny {
		// ANY_RESERVATION is "Consume any reservation available" and otherwise standard VMs (container
		// v1 API, ReservationAffinity.Type), which this machine type is not sold as: without a
		// matching reservation the nodes fail to be created (audit N9). Only a specific reservation
		// says which capacity the nodes run on, and gpufleet checks it before any change.
		v.add(P("capacity", "reservation", "type"), "Any reservation on a machine type sold only reserved",
			"capacity.reservation: type \"any\" falls back to standard VMs when no reservation matches, and Compute Engine sells %s only as %s: name the reservation the on-demand nodes consume (type \"specific\" with its name), or set capacity.spot_percentage = 100 and on_demand_base = 0.",
			v.spec.MachineType, sold.Models)
		return
	}
	if r := c.Reservation; sold.Reserved && r != nil && r.Type == ReservationSpecific {
		return
	}
	fix := "set capacity.spot_percentage = 100 and on_demand_base = 0 (Spot VMs only)"
	if sold.Reserved {
		fix += ", or consume a reservation (capacity.reservation with type \"specific\")"
	}
	v.add(P("capacity", "spot_percentage"), SummaryNotSoldOnDemand,
		"Compute Engine sells %s only as %s, and this pool has an on-demand side of up to %d nodes (spot_percentage %d, on_demand_base %d): %s.",
		v.spec.MachineType, sold.Models, od.Max, c.SpotPercentage, c.OnDemandBase, fix)
}

func (v *validator) eksReservation(r *Reservation, c Capacity) {
	v.oneOf(P("capacity", "reservation", "type"), "reservation type", r.Type, EKSReservation)
	if r.ID == "" {
		v.add(P("capacity", "reservation", "id"), "Missing reservation id", "set capacity.reservation.id to the capacity reservation or capacity block id (cr-…).")
	} else if !EC2ReservationID.MatchString(r.ID) {
		v.add(P("capacity", "reservation", "id"), "Invalid reservation id", "%q is not an EC2 capacity reservation id (cr- followed by 8 to 17 hex digits).", r.ID)
	}
	if r.Type == ReservationCapacityBlock && c.SpotPercentage > 0 && v.known(P("capacity", "spot_percentage")) {
		v.add(P("capacity", "spot_percentage"), "Spot with a capacity block", "a capacity block is prepaid on-demand capacity (capacity type CAPACITY_BLOCK): set spot_percentage to 0, not %d.", c.SpotPercentage)
	}
	if len(v.spec.InstanceTypes) > 1 && v.known(P("instance_types")) {
		v.add(P("instance_types"), "Several instance types with a reservation", "a capacity reservation is for one instance type: list only the reserved type, not %d.", len(v.spec.InstanceTypes))
	}
	price := P("capacity", "reservation", "hourly_price_usd")
	switch {
	case r.Type == ReservationCapacityBlock && r.HourlyUSD <= 0:
		v.add(price, "Missing capacity block price", "a capacity block is prepaid for all its instances at the price it was bought at, which no EC2 API returns afterwards: set capacity.reservation.hourly_price_usd to the price per instance-hour (the upfront fee ÷ instances ÷ hours), so that the cost estimate is the block's.")
	case r.Type == ReservationCapacityReservation && r.HourlyUSD != 0:
		v.add(price, "Price on a capacity reservation", "only a capacity block takes hourly_price_usd; an on-demand capacity reservation bills at the on-demand price (pricing.overrides for a negotiated one).")
	}
	if r.Type == ReservationCapacityBlock {
		v.capacityBlockSizes()
	}
}

// capacityBlockSizes keeps gpufleet from fighting EKS over a capacity block's size: EKS scales the
// node group to 0 forty minutes before the block ends ("Amazon EKS Node Group Capacity Scaledown
// Before Reservation End", EKS User Guide, capacity-blocks-mng), and asks for desired size 0 before
// any version update; an enforced desired or minimum size would raise it again onto an expired block.
func (v *validator) capacityBlockSizes() {
	s := v.spec.Scaling
	if !v.spec.AutoscalerOwnsSize && v.known(P("scaling", "desired_size")) {
		v.add(P("scaling", "desired_size"), "Enforced size on a capacity block", "EKS scales the node group of a capacity block to 0 before the block ends (and needs it at 0 to update it); an enforced desired_size would raise it again. Leave desired_size unset and let the cluster autoscaler (or `aws eks update-nodegroup-config` when the block starts) size the node group.")
	}
	if s.Min != 0 && v.known(P("scaling", "min_size")) {
		v.add(P("scaling", "min_size"), "Minimum size on a capacity block", "EKS scales the node group of a capacity block to 0 before the block ends; set min_size to 0, not %d.", s.Min)
	}
}

func (v *validator) gkeReservation(r *Reservation) {
	if !slices.Contains(GKEReservation, r.Type) {
		v.oneOf(P("capacity", "reservation", "type"), "reservation type", r.Type, GKEReservation)
		return
	}
	if r.Type == ReservationSpecific && r.Name == "" {
		v.add(P("capacity", "reservation", "name"), "Missing reservation name", "a \"specific\" reservation affinity names the reservation to consume.")
	}
	if r.Type != ReservationSpecific && (r.Name != "" || r.Project != "") {
		v.add(P("capacity", "reservation", "name"), "Reservation name not allowed", "only a \"specific\" reservation affinity takes a name and project, not %q.", r.Type)
	}
	// The reservation is the on-demand node pool's: Spot VMs cannot consume reservations (Compute
	// Engine "Consume reservations", Limitations), so a spot share runs beside the reserved
	// on-demand nodes, as on EKS. A pool without an on-demand side has nothing to consume it with.
	if od, _ := SplitSizes(v.spec.Scaling, v.spec.Capacity.OnDemandBase, v.spec.Capacity.SpotPercentage); r.Type != ReservationNone && od.Max == 0 &&
		v.known(P("capacity", "spot_percentage")) && v.known(P("capacity", "on_demand_base")) && v.known(P("scaling", "max_size")) {
		v.add(P("capacity", "spot_percentage"), "Spot only with a reservation", "Spot VMs cannot consume reservations, and this pool has no on-demand nodes to consume it (spot_percentage %d, on_demand_base %d): lower spot_percentage or raise on_demand_base, or set the reservation type to \"none\".", v.spec.Capacity.SpotPercentage, v.spec.Capacity.OnDemandBase)
	}
}

func (v *validator) taints() {
	if !v.known(P("taints")) {
		return
	}
	seen := map[string]bool{}
	for i, t := range v.spec.Taints {
		switch {
		case !validK8sQualifiedName(t.Key):
			v.add(P("taints", i, "key"), "Invalid taint key", "%q is not a Kubernetes qualified name ([prefix/]name, name at most 63 characters).", t.Key)
		case v.spec.Cloud == catalog.AWS && len(t.Key) > maxEKSKey:
			v.add(P("taints", i, "key"), "Taint key too long for EKS", "%q has %d characters; EKS takes taint keys of at most %d characters, prefix included.", t.Key, len(t.Key), maxEKSKey)
		}
		if t.Value != "" && !k8sNamePattern.MatchString(t.Value) {
			v.add(P("taints", i, "value"), "Invalid taint value", "%q must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit.", t.Value)
		}
		if !slices.Contains(TaintEffects, t.Effect) {
			v.add(P("taints", i, "effect"), "Invalid taint effect", "%q is not one of %s.", t.Effect, strings.Join(TaintEffects, ", "))
		}
		if slices.Contains(derivedTaintKeys, t.Key) {
			v.add(P("taints", i, "key"), "Taint duplicates a derived taint", "gpufleet sets the %q taint itself (see effective_taints); remove it from taints.", t.Key)
		}
		id := t.Key + ":" + t.Effect
		if seen[id] {
			v.add(P("taints", i), "Duplicate taint", "taint %q with effect %s is listed twice.", t.Key, t.Effect)
		}
		seen[id] = true
	}
}

func (v *validator) labels() {
	if !v.known(P("labels")) {
		return
	}
	for _, k := range sortedKeys(v.spec.Labels) {
		p := P("labels", k)
		switch {
		case !validK8sQualifiedName(k):
			v.add(p, "Invalid label key", "%q is not a Kubernetes qualified name ([prefix/]name, name at most 63 characters).", k)
		case strings.HasPrefix(k, LabelPrefix):
			v.add(p, "Reserved label", "labels under %q are derived by gpufleet (see effective_labels); remove %q.", LabelPrefix, k)
		case k == LabelMIGConfig:
			v.add(P("gpu", "mig"), "Derived label set by hand", "gpufleet derives the %q label from gpu.mig; set gpu.mig instead of labels[%q].", k, k)
		case k == LabelDevicePlugin:
			v.add(P("gpu", "sharing"), "Derived label set by hand", "gpufleet derives the %q label from gpu.sharing; set gpu.sharing instead of labels[%q].", k, k)
		case k == LabelAccelerator && v.spec.Cloud == catalog.AWS:
			v.add(p, "Derived label set by hand", "gpufleet sets %q to the pool's GPU model itself (see effective_labels); remove it from labels.", k)
		case v.spec.Cloud == catalog.AWS && len(k) > maxEKSKey:
			v.add(p, "Label key too long for EKS", "%q has %d characters; EKS takes label keys of at most %d characters, prefix included.", k, len(k), maxEKSKey)
		default:
			if owner := reservedLabelOwner(v.spec.Cloud, k); owner != "" {
				v.add(p, "Reserved label prefix", "%q is under a prefix that %s: the API rejects the label at apply. Use a prefix of your own, such as example.com/.", k, owner)
			}
		}
		switch val := v.spec.Labels[k]; {
		case val == "" && v.spec.Cloud == catalog.AWS:
			v.add(p, "Empty label value", "EKS does not take empty label values; give %q a value or remove it.", k)
		case val != "" && !k8sNamePattern.MatchString(val):
			v.add(p, "Invalid label value", "%q must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit.", val)
		}
	}
}

func (v *validator) tags() {
	if !v.known(P("tags")) {
		return
	}
	for _, k := range sortedKeys(v.spec.Tags) {
		if problem := tagProblem(v.spec.Cloud, k, v.spec.Tags[k]); problem != "" {
			v.add(P("tags", k), "Invalid tag", "%s", problem)
		}
	}
}

// tagProblem checks one tag against the cloud's rules; "" when valid.
func tagProblem(cloud catalog.Cloud, key, value string) string {
	reserved := tagKeys(cloud).prefix
	switch cloud {
	case catalog.GCP:
		if !gkeLabelKey.MatchString(key) {
			return fmt.Sprintf("GKE resource label key %q must start with a lowercase letter and hold at most 63 lowercase letters, digits, '_' or '-'.", key)
		}
		if !gkeLabelValue.MatchString(value) {
			return fmt.Sprintf("GKE resource label value %q (key %q) may hold at most 63 lowercase letters, digits, '_' or '-'.", value, key)
		}
	default:
		if key == "" || len(key) > 128 || strings.HasPrefix(strings.ToLower(key), "aws:") {
			return fmt.Sprintf("AWS tag key %q must be 1-128 characters and must not start with \"aws:\".", key)
		}
		if len(value) > 256 {
			return fmt.Sprintf("AWS tag value for %q is longer than 256 characters.", key)
		}
	}
	if strings.HasPrefix(key, reserved) {
		return fmt.Sprintf("tags starting with %q are derived by gpufleet (see effective_tags); remove %q.", reserved, key)
	}
	return ""
}

// TagProblem checks a provider-level default tag for a cloud; "" when valid.
func TagProblem(cloud catalog.Cloud, key, value string) string { return tagProblem(cloud, key, value) }

func (v *validator) waivers() {
	if !v.known(P("policy_waivers")) {
		return
	}
	for _, rule := range sortedKeys(v.spec.Waivers) {
		p := P("policy_waivers", rule)
		if !WaiverRulePattern.MatchString(rule) {
			v.add(p, "Invalid policy waiver", "%q is not a policy rule id such as \"GF-COST-002\" or a rule of your own such as \"ACME-001\".", rule)
		}
		if len(strings.TrimSpace(v.spec.Waivers[rule])) < minWaiverReason {
			v.add(p, "Policy waiver without a reason", "waiving %s needs a reason of at least %d characters (who decided, why, until when).", rule, minWaiverReason)
		}
	}
}

// reservedLabelPrefixes are the node-label prefixes (domains, and their subdomains) the clouds do
// not let a node pool set, by what owns them:
//   - kubernetes.io and k8s.io: the kubelet refuses to register a node with labels of these
//     domains outside a short allow-list ("unknown 'kubernetes.io' or 'k8s.io' labels specified
//     with --node-labels", kubernetes/kubernetes pkg/kubelet/apis/well_known_labels.go), and both
//     APIs reject them: EKS "rejects labels with prefixes containing kubernetes.io/, k8s.io/,
//     eks.amazonaws.com/" (kubernetes/cloud-provider-aws#242, aws/containers-roadmap#1451), GKE
//     answers "Applying kubernetes label is not allowed: node-role.kubernetes.io/..."
//     (hashicorp/terraform-provider-google#6003);
//   - eks.amazonaws.com on EKS (same sources);
//   - cloud.google.com on GKE: "Node labels with key "cloud.google.com/compute-class" are managed
//     by GKE or Kubernetes and must not be manually specified"
//     (hashicorp/terraform-provider-google#19677); GKE sets the others itself.
var reservedLabelPrefixes = map[catalog.Cloud][]struct{ domain, owner string }{
	catalog.AWS: {
		{"kubernetes.io", "Kubernetes reserves"},
		{"k8s.io", "Kubernetes reserves"},
		{"eks.amazonaws.com", "EKS reserves"},
	},
	catalog.GCP: {
		{"kubernetes.io", "Kubernetes reserves"},
		{"k8s.io", "Kubernetes reserves"},
		{"cloud.google.com", "GKE manages"},
	},
}

// reservedLabelOwner says who reserves the prefix of label key k on cloud ("" when nobody does).
func reservedLabelOwner(cloud catalog.Cloud, k string) string {
	prefix, _, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		return ""
	}
	for _, r := range reservedLabelPrefixes[cloud] {
		if prefix == r.domain || strings.HasSuffix(prefix, "."+r.domain) {
			return r.owner
		}
	}
	return ""
}

func validK8sQualifiedName(key string) bool {
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		return k8sNamePattern.MatchString(key)
	}
	return prefix != "" && dnsSubdomain.MatchString(prefix) && k8sNamePattern.MatchString(name)
}
