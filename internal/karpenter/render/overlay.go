package render

import (
	"strconv"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// NodeOverlay. Karpenter sizes nodes for pending pods from each instance type's resources, where
// nvidia.com/gpu is the number of physical GPUs (karpenter-provider-aws: nvidiaGPUs). A node whose
// device plugin advertises more (time-slicing or MPS replicas, MIG slices under the single strategy;
// under the mixed one nvidia.com/mig-<profile> and no nvidia.com/gpu, see advertised)
// is then undercounted: Karpenter launches a node per GPU where one node serves several pods, or
// none at all for a pod that asks for more GPUs than the instance has (karpenter #729, aws #3376).
// A NodeOverlay (karpenter.sh/v1alpha1) replaces the instance types' capacity in Karpenter's
// scheduling simulation (kubernetes-sigs/karpenter v1.15.0 pkg/cloudprovider/types.go,
// ApplyCapacityOverlay: the overlay's values are assigned over the instance type's), here for the
// pool's NodePools only (requirement karpenter.sh/nodepool).

// OverlayWeight is the weight of gpufleet's NodeOverlays, the highest the CRD allows: Karpenter
// applies overlays highest weight first and keeps the capacity the first one set, so an overlay of
// weight 0 (unset) loses to any other overlay of the cluster that sets the same resource, and is
// not applied at all after an unweighted one named later in the alphabet, which makes it the
// conflicting one (sigs.k8s.io/karpenter v1.15.0 pkg/apis/v1alpha1/nodeoverlay.go OrderByWeight,
// pkg/controllers/nodeoverlay/store.go isCapacityUpdateConflicting). The pool's overlay selects the
// pool's NodePools alone, whose nodes' GPUs it describes.
const OverlayWeight = 10000

// NodeOverlayName is the name of the pool's NodeOverlay: the pool's name.
func NodeOverlayName(s pool.Spec) string { return s.Name }

func (r *renderer) nodeOverlay() (Object, bool) {
	m, sh := r.spec.GPU.MIG, r.spec.GPU.Sharing
	if r.autoMode() || (m == nil && sh == nil) {
		return Object{}, false
	}
	if m != nil && m.Config == pool.MIGConfigBalanced {
		// The mixed strategy advertises nvidia.com/mig-<profile> per slice size, which the catalog
		// has no per-GPU counts of for the all-balanced layout.
		r.note(Warning, pool.P("gpu", "mig", "config"), "No NodeOverlay for all-balanced",
			"the all-balanced layout advertises each slice size as its own resource (nvidia.com/mig-<profile>), which no instance type has in Karpenter's view: pods that request them do not make Karpenter add nodes (karpenter #729). gpufleet renders no NodeOverlay for it; use gpu.mig.profile (one size), or add the pool's nodes through min_size.")
		return Object{}, false
	}
	var names []string
	for _, np := range r.summaries {
		names = append(names, np.Name)
	}
	attr := pool.P("gpu", "sharing")
	if sh == nil {
		attr = pool.P("gpu", "mig")
	}
	resource, perNode := r.advertised()
	capacity := map[string]any{resource: strconv.Itoa(perNode)}
	if resource != resourceGPU {
		// The instance type's nvidia.com/gpu (its physical GPUs) is what a mixed node does not
		// advertise: zero it, so that Karpenter launches no node of the pool for a whole-GPU pod.
		capacity[resourceGPU] = "0"
	}
	obj := map[string]any{
		"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay",
		"metadata": r.metadata(NodeOverlayName(r.spec)),
		"spec": map[string]any{
			"requirements": []any{map[string]any{"key": labelNodePool, "operator": "In", "values": anyStrings(names)}},
			"capacity":     capacity,
			"weight":       int64(OverlayWeight),
		},
	}
	r.note(Warning, attr, "NodeOverlay is alpha",
		"gpufleet renders the NodeOverlay %s so that Karpenter counts %d %s per node of this pool; NodeOverlay is an alpha API of Karpenter %s, which acts on it only with --feature-gates NodeOverlay=true (FEATURE_GATES in the Helm chart).",
		NodeOverlayName(r.spec), perNode, resource, r.set.KarpenterVersion)
	return Object{Manifest: obj, Origins: []Origin{
		{Field: "metadata", Attr: pool.P("name")},
		{Field: "spec", Attr: attr},
		{Field: "spec.requirements", Attr: pool.P("name")},
	}}, true
}
