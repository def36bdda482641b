package recommend

import (
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// The spot mix a recommendation proposes (capacity.spot_percentage, capacity.on_demand_base and
// scaling.min_size), by workload:
//
//   - not interruptible: all on-demand (spot 0 %); production inference keeps min_size 1, or 2 when
//     its two or more replicas must spread over two nodes (catalog.SpreadsReplicas, GF-RS-005);
//   - interruptible production inference: on_demand_base 1 and spot_percentage 50, min_size 1. At
//     every size the autoscaler picks, at least half the nodes (and never fewer than one) stay on
//     demand, so a reclaim wave, which takes a spot pool's nodes at once, leaves half the serving
//     capacity up; the floor max(1, min_size) is on demand, as GF-COST-001 requires (base 2 when
//     the replicas spread over two nodes);
//   - interruptible production training or batch on two or more nodes: on_demand_base 1, spot 100 %.
//     The job's first node (torchrun's rendezvous and rank 0, which writes the checkpoints) stays
//     on demand, so a reclaim costs the workers a restart from the last checkpoint, not the job.
//     On one node there is nothing to keep: spot 100 %, base 0;
//   - any other interruptible work (staging, development): all spot above a base of 0.
//
// On GKE the base is whole nodes per zone and serving's 50 % drops to the largest percentage at
// which both sides split over the answer's zones (zonalSize), so the pool needs no extra node.
//
// The recommendation sizes pools at desired = max = node_count, so the split is the pool's own
// (pool.SplitSizes): spot = floor(max(nodes − base, 0) × percentage / 100).
const (
	servingSpotPercentage = 50
	trainingFloorMinNodes = 2
)

// capacity is the spot mix and floor of a pool of nodes holding replicas for the workload.
func capacity(w Workload, replicas, nodes int) (spotPercentage, onDemandBase, minSize int) {
	production := w.Environment == pool.EnvProduction
	serving := production && w.Kind == pool.KindInference
	if serving {
		minSize = 1
		if catalog.SpreadsReplicas(w.Kind, w.Environment, replicas) {
			minSize = 2
		}
	}
	switch {
	case !w.Interruptible:
		return 0, 0, minSize
	case serving:
		return servingSpotPercentage, minSize, minSize
	case production && nodes >= trainingFloorMinNodes:
		return 100, 1, minSize
	default:
		return 100, 0, minSize
	}
}
