package recommend

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Right-sizing from what a pool's GPUs did (issue #23): Request.Observed carries the figures of the
// gpufleet_pool_utilization data source for the pool as it runs now, and the recommendation sizes
// from them instead of from the declared need:
//
//   - memory: one replica needs the observed P99 framebuffer used per device (a GPU, or a MIG
//     device for a pool cut into MIG slices: its devices are its replicas' units), times
//     workload.gpus_per_replica when a replica spans several GPUs, at least minObservedNeedGiB; the fit (catalog.FitWorkload) adds memory_headroom_percent as for any
//     need. A declared need (workload.gpu_memory_gib, or the model's estimate) is then only a
//     check: ObservedAnswer.DeclaredGiB, which the provider warns about when it is below P99. A
//     known model still gives the weights the host memory must hold.
//   - compute: the observed work is the devices × their compute share × the P95 utilisation, in
//     GPU-equivalents of the pool's GPU model (a MIG device's share is its compute slices over the
//     GPU's: 7, 4 on the A30, as internal/metrics weighs MIG devices in its means). Spread over the
//     replicas (default: one per device observed, or per gpus_per_replica devices), that is each replica's load, and the unit a
//     replica gets must carry it: whole GPUs carry gpus_per_replica, a MIG slice its share, a GPU
//     time-shared by k replicas 1/k. carries adds a "compute" problem to the fit of a shape that
//     does not, so a 1g slice (14.3 %) never takes a replica that keeps 18 % of an H100 busy; and
//     time-sharing is capped at floor(1 / load) replicas per GPU (still never in production,
//     GF-ISO-003). At P95 a replica may keep its unit 100 % busy: P95 is the margin.
//   - GPU model (issue #40, item 9): serving may move to another GPU model when the observed memory
//     and activity fit it. Decode, most of a serving GPU's work, is bound by memory bandwidth (the
//     throughput check's model, catalog/bandwidth.go), so an inference replica's load converts
//     between GPU models by their datasheet bandwidth: 18 % of an H100 (3 350 GB/s) is 18 × 3 350 /
//     300 = 201 % of an L4, which one L4 does not carry, while 5 % of an H100 is 55.8 % of an L4,
//     which it does. Every GPU model is then a candidate (gpu_models narrows them), and the
//     cheapest that carries the load wins. Training and batch work is compute-bound, for which the
//     catalog has no ratio between models: those stay on the observed model's node types, whole,
//     sliced or shared, and gpu_models, when given, must include it.
//   - cost: ObservedAnswer.MonthlyUSD is what the pool costs now over hours_per_month: node_count
//     nodes of node_type, or the GPUs observed (gpus_avg, the GPUs paid for on average, else
//     gpus_max; MIG devices count as 1 / the profile's instances per GPU), at hourly_usd_per_gpu
//     or node_type's on-demand price per GPU in region at the provider's pricing.
//
// Sizing takes the largest number of devices seen (gpus_max, else gpus_avg): the pool at its
// largest did the work.

// Observed is what a pool's GPUs did: the gpufleet_pool_utilization data source's outputs, and the
// pool's node type now.
type Observed struct {
	NodeType   string // EC2 instance type or GKE machine type of the pool now (required)
	Region     string // prices NodeType; "" when HourlyUSDPerGPU is given
	MIGProfile string // the pool's MIG profile now, "" for whole GPUs: its devices are slices

	GPUsAvg, GPUsMax float64 // devices reporting; 0 when not given (at least one is)
	NodeCount        int     // nodes now; 0: the cost follows the devices
	HourlyUSDPerGPU  float64 // 0: NodeType's on-demand price in Region / its GPUs

	UtilizationP95Percent  float64
	UtilizationMeanPercent *float64 // nil when not given
	MemoryUsedP99GiB       float64
	MemoryUsedMaxGiB       *float64 // nil when not given
}

// ObservedAnswer is what the recommendation made of Observed.
type ObservedAnswer struct {
	GPUModel string
	// GPUEquivalents is the work at P95 in GPUs of GPUModel; MeanGPUEquivalents at the mean (0
	// when the mean is not given).
	GPUEquivalents, MeanGPUEquivalents float64
	// LoadPerReplica is the share of one GPU of GPUModel one replica keeps busy at P95.
	LoadPerReplica float64
	meanKnown      bool
	Replicas       int
	NeedGiB        float64 // the memory need: observed P99, at least minObservedNeedGiB
	DeclaredGiB    float64 // the declared need (0 when none was declared)
	PeakGiB        float64 // memory_used_max_gib (0 when not given)
	MonthlyUSD     float64 // what the pool costs now, over hours_per_month
}

// MeanUtilizationPercent is the observed mean work on the GPUs an option pays for (every GPU of its
// nodes); ok is false when the mean was not observed.
func (a ObservedAnswer) MeanUtilizationPercent(o Option) (float64, bool) {
	gpus := float64(o.Nodes * o.Node.GPUCount)
	if !a.meanKnown || gpus == 0 {
		return 0, false
	}
	return a.MeanGPUEquivalents / gpus * 100, true
}

// PeakAbove reports the memory one replica physically gets on an option (its whole GPUs, its MIG
// slice, or its share of a time-shared GPU) when the observed peak is above it.
func (a ObservedAnswer) PeakAbove(o Option) (float64, bool) {
	unit := o.ReplicaGiB
	if o.SharingReplicas > 0 {
		unit /= float64(o.SharingReplicas)
	}
	return unit, a.PeakGiB > unit
}

// minObservedNeedGiB is the need of a pool that used (almost) no GPU memory: the smallest
// workload.gpu_memory_gib a pool accepts.
const minObservedNeedGiB = 0.01

// constraintCompute is the fit problem carries adds: the unit does not carry a replica's load.
const constraintCompute = "compute"

// observedState is Observed checked and derived, carried on the request for the candidates.
type observedState struct {
	gpu   catalog.GPUModel
	load  float64 // per replica, in GPUs of gpu
	model string
}

// observedArg names an attribute of the observed input.
func observedArg(name string) string { return "observed." + name }

// demandOf is one replica's memory need and host weights: from the workload, or from Observed,
// which then also sets the replicas and the GPU model (see above). It runs before any other check.
func demandOf(req *Request, pricing catalog.Pricing) (need, host float64, err error) {
	o := req.Observed
	if o == nil {
		return memoryNeed(req.Workload)
	}
	var declared float64
	if req.Workload.GPUMemoryGiB != 0 || req.Workload.ParametersBillion != 0 {
		if declared, host, err = memoryNeed(req.Workload); err != nil {
			return 0, 0, err
		}
	}
	node, g, share, err := checkObserved(*o)
	if err != nil {
		return 0, 0, err
	}
	acrossModels := req.Workload.Kind == pool.KindInference && catalog.MemoryBandwidthGBps(g) > 0
	if !acrossModels {
		if len(req.GPUModels) > 0 && !allowedModel(*req, g.Name) {
			return 0, 0, &catalog.ArgumentError{Argument: "gpu_models", Message: fmt.Sprintf(
				"the observed pool runs %s (observed.node_type %s): utilisation measured on it sizes only %s for %s work (only serving converts between GPU models, by memory bandwidth), so gpu_models must include it or be left out",
				g.Name, node.Name, g.Name, req.Workload.Kind)}
		}
		req.GPUModels = []string{g.Name}
	}
	devices := o.GPUsMax
	if devices == 0 {
		devices = o.GPUsAvg
	}
	perReplica := max(req.Workload.GPUsPerReplica, 1) // a replica over g GPUs uses g devices
	if req.Replicas == 0 {
		req.Replicas = int(math.Ceil(devices/float64(perReplica) - 1e-9))
	}
	if req.Replicas < 1 {
		return 0, 0, &catalog.ArgumentError{Argument: "replicas", Message: fmt.Sprintf("must be 1 or more, got %d", req.Replicas)}
	}
	a := &ObservedAnswer{GPUModel: g.Name, Replicas: req.Replicas, DeclaredGiB: declared,
		NeedGiB:        max(o.MemoryUsedP99GiB*float64(perReplica), minObservedNeedGiB),
		GPUEquivalents: devices * share * o.UtilizationP95Percent / 100}
	if o.MemoryUsedMaxGiB != nil {
		a.PeakGiB = *o.MemoryUsedMaxGiB
	}
	if o.UtilizationMeanPercent != nil {
		a.meanKnown = true
		a.MeanGPUEquivalents = devices * share * *o.UtilizationMeanPercent / 100
	}
	a.LoadPerReplica = a.GPUEquivalents / float64(req.Replicas)
	if a.MonthlyUSD, err = observedMonthly(*o, node, devices, req, pricing); err != nil {
		return 0, 0, err
	}
	req.observed = &observedState{gpu: g, load: a.LoadPerReplica, model: g.Name}
	req.observedAnswer = a
	return a.NeedGiB, host, nil
}

// checkObserved checks the observed figures against each other and the catalog, and returns the
// node type, its GPU and the compute share of one device (1, or the MIG slice's).
func checkObserved(o Observed) (catalog.NodeType, catalog.GPUModel, float64, error) {
	bad := func(arg, format string, args ...any) error {
		return &catalog.ArgumentError{Argument: observedArg(arg), Message: fmt.Sprintf(format, args...)}
	}
	node, ok := observedNodeType(o.NodeType)
	if !ok {
		return node, catalog.GPUModel{}, 0, bad("node_type", "%q is neither an EC2 GPU instance type nor a GKE GPU machine type with fixed GPUs the catalog knows", o.NodeType)
	}
	g := node.GPU()
	for _, p := range []struct {
		name string
		v    *float64
	}{{"utilization_p95_percent", &o.UtilizationP95Percent}, {"utilization_mean_percent", o.UtilizationMeanPercent}} {
		if p.v != nil && (math.IsNaN(*p.v) || *p.v < 0 || *p.v > 100) {
			return node, g, 0, bad(p.name, "must be between 0 and 100 %%, got %g", *p.v)
		}
	}
	switch {
	case o.GPUsAvg < 0 || math.IsNaN(o.GPUsAvg):
		return node, g, 0, bad("gpus_avg", "must be greater than 0, got %g", o.GPUsAvg)
	case o.GPUsMax < 0 || math.IsNaN(o.GPUsMax) || o.GPUsMax != math.Trunc(o.GPUsMax):
		return node, g, 0, bad("gpus_max", "must be a whole number greater than 0, got %g", o.GPUsMax)
	case o.GPUsAvg == 0 && o.GPUsMax == 0:
		return node, g, 0, bad("gpus_max", "set gpus_max or gpus_avg (the data source's outputs): the devices the pool ran, which did the observed work")
	case o.GPUsMax > 0 && o.GPUsAvg > o.GPUsMax:
		return node, g, 0, bad("gpus_avg", "%g is more than gpus_max %g", o.GPUsAvg, o.GPUsMax)
	case o.NodeCount < 0:
		return node, g, 0, bad("node_count", "must be 1 or more, got %d", o.NodeCount)
	case o.HourlyUSDPerGPU < 0 || math.IsNaN(o.HourlyUSDPerGPU):
		return node, g, 0, bad("hourly_usd_per_gpu", "must be greater than 0, got %g", o.HourlyUSDPerGPU)
	case o.HourlyUSDPerGPU == 0 && o.Region == "":
		return node, g, 0, bad("region", "set region (to price node_type) or hourly_usd_per_gpu: observed_monthly_usd is what the pool costs now")
	}
	share, unit, unitName := 1.0, g.MemoryGiB, "a "+g.Name
	if o.MIGProfile != "" {
		p, ok := g.MIGProfile(o.MIGProfile)
		if !ok {
			return node, g, 0, bad("mig_profile", "%s has no MIG profile %q; its profiles: %s", g.Name, o.MIGProfile, strings.Join(g.MIGProfileNames(), ", "))
		}
		share, unit, unitName = computeShare(g, p), p.MemoryGiB, "the MIG slice "+p.Name+" of a "+g.Name
	}
	for _, m := range []struct {
		name string
		v    *float64
	}{{"memory_used_p99_gib", &o.MemoryUsedP99GiB}, {"memory_used_max_gib", o.MemoryUsedMaxGiB}} {
		switch {
		case m.v == nil:
		case math.IsNaN(*m.v) || *m.v < 0:
			return node, g, 0, bad(m.name, "must be 0 GiB or more, got %g", *m.v)
		case *m.v > unit:
			return node, g, 0, bad(m.name, "%g GiB is more than the %g GiB of %s (observed.node_type %s): the figures are not this pool's, or node_type/mig_profile are not what it runs",
				*m.v, unit, unitName, node.Name)
		}
	}
	if o.MemoryUsedMaxGiB != nil && *o.MemoryUsedMaxGiB < o.MemoryUsedP99GiB {
		return node, g, 0, bad("memory_used_max_gib", "%g GiB is below memory_used_p99_gib %g GiB", *o.MemoryUsedMaxGiB, o.MemoryUsedP99GiB)
	}
	return node, g, share, nil
}

// observedNodeType finds an EC2 instance type or a GKE machine type with fixed GPUs.
func observedNodeType(name string) (catalog.NodeType, bool) {
	if n, ok := catalog.AWSInstanceType(name); ok {
		return n, true
	}
	n, err := catalog.GKENodeType(name, "", 0)
	return n, err == nil
}

// computeShare is a MIG profile's share of its GPU's compute: its compute slices over the GPU's (the
// most any of its profiles has: 7, or 4 on the A30), the weight internal/metrics gives MIG devices.
func computeShare(g catalog.GPUModel, p catalog.MIGProfile) float64 {
	total := 0
	for _, q := range g.MIGProfiles {
		total = max(total, q.ComputeSlices)
	}
	return float64(p.ComputeSlices) / float64(total)
}

// observedMonthly is what the pool costs now over the request's hours: node_count nodes, or the GPUs
// the devices observed on average occupy, at the price per GPU-hour.
func observedMonthly(o Observed, node catalog.NodeType, devices float64, req *Request, pricing catalog.Pricing) (float64, error) {
	if err := checkHoursPerMonth(req); err != nil {
		return 0, err
	}
	perGPU := o.HourlyUSDPerGPU
	if perGPU == 0 {
		onDemand, _, err := pricing.Hourly(node, o.Region)
		if err != nil {
			return 0, &catalog.ArgumentError{Argument: observedArg("region"), Message: fmt.Sprintf("%s in %s: %s", node.Name, o.Region, err)}
		}
		perGPU = onDemand / float64(node.GPUCount)
	}
	gpus := float64(o.NodeCount * node.GPUCount)
	if o.NodeCount == 0 {
		if o.GPUsAvg > 0 {
			devices = o.GPUsAvg
		}
		gpus = devices
		if o.MIGProfile != "" {
			p, _ := node.GPU().MIGProfile(o.MIGProfile)
			gpus = devices / float64(p.MaxInstances)
		}
	}
	return monthly(perGPU*gpus, req.HoursPerMonth), nil
}

// loadOn is a replica's observed load in GPUs of g: as observed on the observed model, converted by
// memory bandwidth on another (serving only: demandOf keeps other work on the observed model).
func (r Request) loadOn(g catalog.GPUModel) float64 {
	if g.Name == r.observed.model {
		return r.observed.load
	}
	to := catalog.MemoryBandwidthGBps(g)
	if to == 0 {
		return math.Inf(1)
	}
	return r.observed.load * catalog.MemoryBandwidthGBps(r.observed.gpu) / to
}

// carries adds the compute problem to the fit of a shape whose unit does not carry a replica's
// observed load (nothing without Observed).
func (r Request) carries(sh shape, f catalog.Fit) catalog.Fit {
	if r.observed == nil || r.observed.load == 0 {
		return f
	}
	g := sh.fit.GPU
	load := r.loadOn(g)
	share, what := float64(max(f.GPUsPerReplica, 1)), fmt.Sprintf("%d whole %s", max(f.GPUsPerReplica, 1), g.Name)
	switch {
	case sh.mig != "":
		p, _ := sh.fit.GPU.MIGProfile(sh.mig)
		share = computeShare(sh.fit.GPU, p)
		what = fmt.Sprintf("the MIG slice %s", sh.mig)
	case sh.sharing > 0:
		share = 1 / float64(sh.sharing)
		what = fmt.Sprintf("a GPU time-shared by %d replicas", sh.sharing)
	}
	if load > share+1e-9 {
		observed := fmt.Sprintf("a replica keeps %.1f %% of a %s busy at P95 (observed)", r.observed.load*100, r.observed.model)
		if g.Name != r.observed.model {
			observed += fmt.Sprintf(", %.1f %% of a %s by memory bandwidth", load*100, g.Name)
		}
		f.Problems = append(f.Problems, catalog.FitProblem{Constraint: constraintCompute, Text: fmt.Sprintf("%s; %s carries %.1f %%", observed, what, share*100)})
	}
	return f
}

// maxSharing caps the replicas that may time-share one GPU: as many as its compute carries at the
// observed load per replica (limit otherwise).
func (r Request) maxSharing(g catalog.GPUModel, limit int) int {
	if r.observed == nil || r.observed.load == 0 {
		return limit
	}
	return min(limit, int(math.Floor(1/r.loadOn(g)+1e-9)))
}
