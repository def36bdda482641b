package render

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// NodePools: one per capacity rung of the pool (pool.Spec.Sides: "<name>-od", on-demand, or
// reserved capacity with a reservation, and "<name>-spot"), limited to the rung's max_size share in
// nodes and in GPUs, weighted so that Karpenter fills the on-demand rung first. A rung's min_size
// share is a static NodePool of its own ("<rung>-min", spec.replicas), and the dynamic one is
// limited to the rest, so that the two never hold more than the rung's max.

// Weights of the dynamic NodePools: Karpenter tries NodePools by weight, highest first
// (karpenter.sh, "NodePools", spec.weight).
const (
	weightOnDemand = 100
	weightSpot     = 50
)

// Well-known labels (karpenter.sh, "Scheduling", well-known labels; AWS, "Create a Node Pool for
// EKS Auto Mode", supported labels: Auto Mode spells Karpenter's karpenter.k8s.aws/ labels
// eks.amazonaws.com/).
const (
	labelCapacityType    = "karpenter.sh/capacity-type"
	labelInstanceType    = "node.kubernetes.io/instance-type"
	labelNodePool        = "karpenter.sh/nodepool"
	labelReservationType = "karpenter.k8s.aws/capacity-reservation-type"
)

type rung struct {
	side          pool.Side
	capacityTypes []string
	capacity      string // for the summary and the notes
	weight        int
}

func (r *renderer) rungs() []rung {
	var out []rung
	res := r.spec.Capacity.Reservation
	for _, side := range r.derived.Sides {
		switch {
		case side.Spot():
			out = append(out, rung{side: side, capacityTypes: []string{"spot"}, capacity: "spot", weight: weightSpot})
		case side.CapacityType == pool.CapacityCapacityBlock:
			// A capacity block is reserved capacity only: no fallback to on-demand.
			out = append(out, rung{side: side, capacityTypes: []string{"reserved"}, capacity: "capacity-block", weight: weightOnDemand})
		case res != nil && res.Type == pool.ReservationCapacityReservation:
			// Reserved first, on-demand when the reservation is full: Karpenter prefers reserved
			// offerings within a NodePool (karpenter.sh, "NodePools", capacity type reserved;
			// the ReservedCapacity feature gate, beta and on since v1.3).
			out = append(out, rung{side: side, capacityTypes: []string{"reserved", "on-demand"}, capacity: "reserved", weight: weightOnDemand})
		default:
			out = append(out, rung{side: side, capacityTypes: []string{"on-demand"}, capacity: "on-demand", weight: weightOnDemand})
		}
	}
	return out
}

func (r *renderer) nodePools() []Object {
	var out []Object
	rungs := r.rungs()
	for _, rg := range rungs {
		if rg.side.Sizes.Min > 0 {
			out = append(out, r.nodePool(rg, rg.side.Name+"-min", rg.side.Sizes.Min, true))
		}
		if dynamic := rg.side.Sizes.Max - rg.side.Sizes.Min; dynamic > 0 {
			out = append(out, r.nodePool(rg, rg.side.Name, dynamic, false))
		}
	}
	r.scalingNotes(rungs)
	return out
}

// advertised is the GPU resource one node of the pool advertises and how many: nvidia.com/gpu,
// or under the GPU Operator's mixed MIG strategy with one slice size nvidia.com/mig-<profile>
// (NVIDIA GPU Operator docs, "GPU Operator with MIG": the mixed strategy exposes each MIG device
// type as nvidia.com/mig-<profile> and no nvidia.com/gpu).
func (r *renderer) advertised() (resource string, perNode int) {
	if m := r.spec.GPU.MIG; m != nil && m.Profile != "" && r.spec.GPU.Mixed() {
		return "nvidia.com/mig-" + m.Profile, r.advertisedGPUs()
	}
	return resourceGPU, r.advertisedGPUs()
}

// resourceGPU is the extended resource of whole (or shared, or single-strategy MIG) GPUs.
const resourceGPU = "nvidia.com/gpu"

// advertisedGPUs is how many GPU devices one node advertises: its GPUs, times the MIG slices of
// the profile each GPU is cut into, times the sharing replicas (the NodeOverlay's capacity).
func (r *renderer) advertisedGPUs() int {
	n := r.derived.Node.GPUCount
	if m := r.spec.GPU.MIG; m != nil && m.Config != pool.MIGConfigBalanced {
		if p, err := pool.SliceProfile(r.derived.GPU, *m); err == nil {
			n *= p.MaxInstances
		}
	}
	if sh := r.spec.GPU.Sharing; sh != nil {
		n *= sh.Replicas
	}
	return n
}

func (r *renderer) nodePool(rg rung, name string, nodes int, static bool) Object {
	spec := map[string]any{
		"disruption": r.disruption(rg),
		"template": map[string]any{
			"metadata": map[string]any{"labels": anyMap(pool.SideLabels(r.derived.Labels, rg.side))},
			"spec":     r.nodeClaimTemplate(rg, static),
		},
	}
	if static {
		// Only limits.nodes, and no weight, on a static NodePool (the NodePool CRD's rules).
		spec["replicas"] = int64(nodes)
		spec["limits"] = map[string]any{"nodes": strconv.Itoa(nodes)}
	} else {
		spec["weight"] = int64(rg.weight)
		resource, perNode := r.advertised()
		spec["limits"] = map[string]any{"nodes": strconv.Itoa(nodes), resource: strconv.Itoa(nodes * perNode)}
	}
	r.summaries = append(r.summaries, NodePoolSummary{Name: name, CapacityType: rg.capacity, Weight: map[bool]int{false: rg.weight, true: 0}[static], Nodes: nodes, Static: static})
	obj := map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": r.metadata(name), "spec": spec}
	return Object{Manifest: obj, Origins: []Origin{
		{Field: "metadata", Attr: pool.P("name")},
		{Field: "spec.limits", Attr: pool.P("scaling", "max_size")},
		{Field: "spec.replicas", Attr: pool.P("scaling", "min_size")},
		{Field: "spec", Attr: pool.P("scaling", "min_size"), Exact: true}, // static/dynamic and weight rules
		{Field: "spec.weight", Attr: pool.P("capacity", "spot_percentage")},
		{Field: "spec.disruption", Attr: pool.P("disruption")},
		{Field: "spec.disruption.consolidationPolicy", Attr: pool.P("disruption", "consolidation_policy")},
		{Field: "spec.disruption.consolidateAfter", Attr: pool.P("disruption", "consolidate_after")},
		{Field: "spec.disruption.budgets", Attr: pool.P("disruption", "budgets")},
		{Field: "spec.template.metadata.labels", Attr: pool.P("labels")},
		{Field: "spec.template.spec.taints", Attr: pool.P("taints")},
		{Field: "spec.template.spec.requirements", Attr: pool.P("instance_types")},
		{Field: "spec.template.spec.expireAfter", Attr: pool.P("disruption", "expire_after")},
		{Field: "spec.template.spec.terminationGracePeriod", Attr: pool.P("disruption", "termination_grace_period")},
		{Field: "spec.template.spec.nodeClassRef", Attr: pool.P("mode")},
	}}
}

func (r *renderer) nodeClaimTemplate(rg rung, static bool) map[string]any {
	ref := map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": NodeClassName(r.spec)}
	if r.autoMode() {
		ref = map[string]any{"group": "eks.amazonaws.com", "kind": "NodeClass", "name": NodeClassName(r.spec)}
	}
	spec := map[string]any{
		"nodeClassRef": ref,
		"requirements": r.requirements(rg),
		"expireAfter":  r.expireAfter(static),
	}
	if t := r.set.Disruption.TerminationGracePeriod; t != "" {
		spec["terminationGracePeriod"] = t
	}
	if taints := r.taints(); len(taints) > 0 {
		spec["taints"] = taints
	}
	return spec
}

// requirements constrain the rung to its capacity types and the pool's instance types, and state
// the GPU in Karpenter's own labels (instance GPU manufacturer, name, count and memory, and the
// families of the instance types, all of which the catalog knows to carry that GPU), so that the
// NodePool says what it is for even to a reader who does not know the instance types.
func (r *renderer) requirements(rg rung) []any {
	prefix := "karpenter.k8s.aws/"
	if r.autoMode() {
		prefix = "eks.amazonaws.com/"
	}
	var families []string
	for _, it := range r.spec.InstanceTypes {
		if n, ok := catalog.AWSInstanceType(it); ok {
			families = append(families, n.Family)
		}
	}
	in := func(key string, values ...string) any {
		return map[string]any{"key": key, "operator": "In", "values": anyStrings(values)}
	}
	reqs := []any{
		in(labelCapacityType, rg.capacityTypes...),
		in(labelInstanceType, r.spec.InstanceTypes...),
		in(prefix+"instance-family", sortedUnique(families)...),
		in(prefix+"instance-gpu-manufacturer", "nvidia"),
		in(prefix+"instance-gpu-name", gpuName(r.derived.GPU.Name)),
		in(prefix+"instance-gpu-count", strconv.Itoa(r.derived.Node.GPUCount)),
		// GPU memory is in MiB per GPU (EC2's GpuInfo MemoryInfo.SizeInMiB); one GPU holds what
		// a replica needs on it.
		map[string]any{"key": prefix + "instance-gpu-memory", "operator": "Gt", "values": []any{strconv.Itoa(r.memoryFloorMiB())}},
	}
	if rg.capacity == "capacity-block" && !r.autoMode() {
		reqs = append(reqs, in(labelReservationType, "capacity-block"))
	}
	return reqs
}

// memoryFloorMiB is one less than the GPU memory a replica needs on each of its GPUs, in MiB.
func (r *renderer) memoryFloorMiB() int {
	w := r.spec.Workload
	perGPU := w.GPUMemoryGiB
	if w.GPUsPerReplica > 1 {
		perGPU /= float64(w.GPUsPerReplica)
	}
	return int(math.Ceil(perGPU*1024)) - 1
}

var taintEffects = map[string]string{
	pool.EffectNoSchedule: "NoSchedule", pool.EffectNoExecute: "NoExecute", pool.EffectPreferNoSchedule: "PreferNoSchedule",
}

func (r *renderer) taints() []any {
	var out []any
	for _, t := range r.derived.Taints {
		m := map[string]any{"key": t.Key, "effect": taintEffects[t.Effect]}
		if t.Value != "" {
			m["value"] = t.Value
		}
		out = append(out, m)
	}
	return out
}

// scalingNotes say how the sizes map onto the NodePools where Karpenter cannot follow them exactly.
func (r *renderer) scalingNotes(rungs []rung) {
	s := r.spec
	if len(rungs) == 2 && s.Capacity.SpotPercentage > 0 && s.Capacity.SpotPercentage < 100 {
		od, spot := rungs[0], rungs[1]
		r.note(Warning, pool.P("capacity", "spot_percentage"), "Spot share as rung limits",
			"Karpenter cannot keep a percentage of a pool on spot: gpufleet limits %s to %d nodes and %s to %d (the split of max_size %d with on_demand_base %d and spot_percentage %d) and weights %s (%d) above %s (%d), so Karpenter fills on-demand first. "+
				"At max_size the mix is the split; below it the pool runs more on-demand nodes than the split (the cost estimate assumes the split), and when spot is short Karpenter adds no on-demand nodes beyond %d.",
			od.side.Name, od.side.Sizes.Max, spot.side.Name, spot.side.Sizes.Max, s.Scaling.Max, s.Capacity.OnDemandBase, s.Capacity.SpotPercentage,
			od.side.Name, od.weight, spot.side.Name, spot.weight, od.side.Sizes.Max)
	}
	if s.Scaling.Min > 0 && !r.autoMode() {
		r.note(Warning, pool.P("scaling", "min_size"), "min_size as static NodePools",
			"Karpenter has no minimum size: gpufleet keeps min_size %d as static NodePools (spec.replicas), an alpha feature of Karpenter %s: the controller needs --feature-gates StaticCapacity=true (FEATURE_GATES in the Helm chart), or they keep no node. "+
				"Their node limit is their replica count, so that the pool never exceeds max_size: replacing a drifted node then needs TerminateFirstDrift=true.",
			s.Scaling.Min, r.set.KarpenterVersion)
	}
}

// CapacityTypeOf is the summary capacity type of a NodePool name of the rendering, "" when unknown.
func (rd Rendering) CapacityTypeOf(name string) string {
	for _, np := range rd.NodePools {
		if np.Name == name {
			return np.CapacityType
		}
	}
	return ""
}

// String describes a NodePool for messages.
func (np NodePoolSummary) String() string {
	if np.Static {
		return fmt.Sprintf("%s (%s, static, %d nodes)", np.Name, np.CapacityType, np.Nodes)
	}
	return fmt.Sprintf("%s (%s, weight %d, up to %d nodes)", np.Name, np.CapacityType, np.Weight, np.Nodes)
}
