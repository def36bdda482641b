package recommend

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// ResourceTypes are the pool resources a recommendation plugs into (eks.ResourceType and
// gke.ResourceType; the provider's tests check they agree).
var ResourceTypes = map[catalog.Cloud]string{catalog.AWS: "gpufleet_eks_node_pool", catalog.GCP: "gpufleet_gke_node_pool"}

// AutoscalerResourceTypes are the autoscaler resources a recommendation plugs into
// (karpenter.ResourceType and computeclass's render.ResourceType; the provider's tests check they
// agree): they take every answer, the overflow rung and flex-start VMs included.
var AutoscalerResourceTypes = map[catalog.Cloud]string{catalog.AWS: "gpufleet_karpenter_node_pool", catalog.GCP: "gpufleet_gke_compute_class"}

// AppliesTo are the resources the option plugs into as is: the cloud's node pool resource and its
// autoscaler resource, or the autoscaler resource alone when the node pool would fail at plan or
// apply: an overflow rung (an EKS node group that targets a capacity reservation, a GKE node pool
// with a specific reservation launch nothing beyond it) or flex-start VMs (no node pool setting).
func (o Option) AppliesTo() []string {
	if o.Overflow || o.FlexStart {
		return []string{AutoscalerResourceTypes[o.Cloud]}
	}
	return []string{ResourceTypes[o.Cloud], AutoscalerResourceTypes[o.Cloud]}
}

// candidate is an option with what judging it needs.
type candidate struct {
	Option
	derived pool.Derived
}

// key identifies an option across regions, for runners-up.
func (o Option) key() string {
	id := ""
	if o.Reservation != nil {
		id = o.Reservation.ID
	}
	return fmt.Sprintf("%s|%s|%s|%d|%s", o.Node.Name, o.Node.Accelerator, o.MIGProfile, o.SharingReplicas, id)
}

// Label is how messages name the option: "g6.xlarge (L4) in us-east-1", "the MIG slice 1g.10gb of …".
func (o Option) Label() string {
	what := fmt.Sprintf("%s (%d x %s)", o.Node.Name, o.Node.GPUCount, o.Node.GPUModel)
	switch {
	case o.MIGProfile != "":
		what = fmt.Sprintf("MIG %s on %s", o.MIGProfile, what)
	case o.SharingReplicas > 0:
		what = fmt.Sprintf("%s shared by %d replicas per GPU", what, o.SharingReplicas)
	}
	if o.Reservation != nil {
		what += " on reservation " + o.Reservation.ID
	}
	return what + " in " + o.Region
}

// demand is one replica's memory: on the GPU, and its weights in host memory (0: the fit's estimate).
type demand struct {
	need, host float64
	kv         float64 // of need, the KV cache: in GPU memory only
}

// shape is one way to use a node type: whole GPUs, one MIG profile, or shared GPUs.
type shape struct {
	fit     catalog.FitShape
	mig     string
	sharing int
	memory  float64 // GPU memory of one GPU's unit: the GPU, or the MIG slice
}

// shapes lists the ways a node type's GPUs can hold replicas: whole GPUs, every MIG profile, and
// (outside production) GPUs shared by as many replicas as their memory holds.
func shapes(n catalog.NodeType, d demand, w Workload, replicas int, headroom float64) []shape {
	g := n.GPU()
	out := []shape{{fit: catalog.WholeGPUs(n), memory: g.MemoryGiB}}
	// Time-slicing gives replicas no isolation: never in production (GF-ISO-003).
	if w.Environment != pool.EnvProduction && w.GPUsPerReplica <= 1 {
		for per := min(int(g.MemoryGiB*(100-headroom)/100/d.need), maxSharingPerGPU, replicas); per >= 2; per-- {
			if s := catalog.SharedGPUs(n, per); catalog.FitWorkload(s, catalog.FitDemand{NeedGiB: d.need, HostGiB: d.host, KVCacheGiB: d.kv, Kind: w.Kind, HeadroomPercent: headroom}).Fits() {
				out = append(out, shape{fit: s, sharing: per, memory: g.MemoryGiB})
				break
			}
		}
	}
	for _, p := range g.MIGProfiles {
		// "+me" profiles hold one media-extension slice per GPU; a one-per-GPU profile as large as
		// the GPU (7g) is the whole GPU again.
		whole := p.MaxInstances == 1 && p.MemoryGiB >= g.MemoryGiB
		if !strings.Contains(p.Name, "+") && !whole {
			out = append(out, shape{fit: catalog.MIGSlices(n, p), mig: p.Name, memory: p.MemoryGiB})
		}
	}
	return out
}

// exclusion is a node shape the fit rejected, in the cheapest region that prices it.
type exclusion struct {
	Option
	fit catalog.Fit
	usd float64 // on-demand per hour for the nodes it would need, for "nearest"
}

// candidates builds, validates and prices every pool of a cloud in the regions that the fit
// accepts, cheapest first, and lists the shapes it rejects and why.
func candidates(cloud catalog.Cloud, regions []string, d demand, req Request, env Env) ([]candidate, []exclusion, int) {
	w := req.Workload
	client := cmp.Or(req.Client, PlaceholderClient)
	headroom := req.headroom()
	var out []candidate
	var excluded []exclusion
	filtered := 0
	for _, n := range catalog.NodeTypes(cloud) {
		if !allowedModel(req, n.GPUModel) {
			filtered++
			continue
		}
		for _, sh := range shapes(n, d, w, req.maxSharing(n.GPU(), req.Replicas), headroom) {
			limit := nodeLimit(cloud, req, env)
			fit := func(gpusPerReplica int) catalog.Fit {
				return req.carries(sh, catalog.FitWorkload(sh.fit, catalog.FitDemand{NeedGiB: d.need, HostGiB: d.host, KVCacheGiB: d.kv, Precision: w.Precision, Kind: w.Kind,
					Environment: w.Environment, GPUsPerReplica: gpusPerReplica, Replicas: req.Replicas, HeadroomPercent: headroom, MaxNodes: limit}))
			}
			f := tensorParallel(req, n, sh, fit(w.GPUsPerReplica), fit)
			gpus := max(min(f.GPUsPerReplica, n.GPUCount*f.NodesPerReplica), 1)
			nodes, zones := f.Nodes, 1
			spot, base, minSize := capacity(w, req.Replicas, nodes)
			rawNodes, rawBase, rawSpot := nodes, base, spot
			fitsApartFromSale := f.Fits() // a held reservation may sell what the cloud does not sell on demand
			flexStart := false
			if cloud == catalog.GCP {
				zones = req.gkeZones()
				nodes, base, spot = zonalSize(nodes, base, spot, zones)
				if f.Fits() && nodes > limit { // whole nodes in every zone took the pool over GKE's limit
					f.Problems = append(f.Problems, catalog.FitProblem{Constraint: catalog.ConstraintNodeLimit, Text: fmt.Sprintf(
						"%d nodes over %d zone(s) (the same number in each) are %d a zone, more than GKE's %d per node pool zone", nodes, zones, nodes/zones, catalog.GKENodesPerPoolZone)})
				}
				if p, ok := notSoldAs(n, nodes, base, spot); !ok {
					if req.FlexStart && catalog.GKEProvisioningOf(n.Name).FlexStart {
						flexStart = true
					} else {
						p.Text += heldTooSmall(req, n, regions, rawNodes, rawBase, rawSpot)
						f.Problems = append(f.Problems, p)
					}
				}
			}
			o := Option{Cloud: cloud, Node: n, MIGProfile: sh.mig, SharingReplicas: sh.sharing, ReplicaGiB: float64(gpus) * sh.memory,
				GPUsPerReplica: f.GPUsPerReplica, ReplicasPerNode: f.ReplicasPerNode, NodesPerReplica: f.NodesPerReplica,
				Nodes: nodes, Zones: zones, SpotPercentage: spot, OnDemandBase: base, FlexStart: flexStart}
			if f.NodesPerReplica > 1 {
				o.InterNode = n.InterNode
			}
			if !f.Fits() {
				if e, ok := cheapestRegion(o, f, regions); ok {
					excluded = append(excluded, e)
				}
				if !fitsApartFromSale || len(req.Reservations) == 0 {
					continue
				}
			}
			if o.DecodeTokensPerSecond = decodeRate(req, n.GPU(), sh, gpus); !fastEnough(req, o.DecodeTokensPerSecond) {
				continue
			}
			for _, region := range regions {
				o.Region = region
				if f.Fits() {
					if locations, ok := nodeLocations(o.Node, region, zones, cloud); ok {
						o.NodeLocations = locations
						o.Spec = candidateSpec(o, w, client, d, minSize, req.Replicas)
						o.Spec.NodeLimits = pool.NodeLimitsFor(o.Spec.ResourceType, pool.Environment{EKSMaxNodesPerNodeGroup: env.EKSMaxNodesPerNodeGroup})
						if c, ok := price(o, env, req.HoursPerMonth); ok {
							out = append(out, c)
						}
					}
				}
				for _, h := range req.held(n, region) {
					if c, ok := onReservation(o, h, rawNodes, rawBase, rawSpot, minSize, w, client, d, req, env); ok {
						out = append(out, c)
					}
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.OutOfPocketHourlyUSD, b.OutOfPocketHourlyUSD), cmp.Compare(a.HourlyUSD, b.HourlyUSD), cmp.Compare(a.Nodes, b.Nodes),
			cmp.Compare(a.Node.Name, b.Node.Name), cmp.Compare(a.Region, b.Region), cmp.Compare(a.MIGProfile, b.MIGProfile))
	})
	return out, excluded, filtered
}

// onReservation is the option on the held reservation h, priced, when h can hold it (reserved): on
// GCP in the reservation's one zone, sized for one zone (unless gke_zones asks for more, which a
// zonal reservation cannot give), with a specific reservation affinity; on AWS targeting the
// capacity reservation or block (a block's node group starts empty and EKS sizes it to the block:
// pool validation of capacity blocks).
func onReservation(o Option, h Reservation, nodes, base, spot, minSize int, w Workload, client string, d demand, req Request, env Env) (candidate, bool) {
	if o.Cloud == catalog.GCP {
		if req.GKEZones > 1 {
			return candidate{}, false
		}
		o.Zones, o.Nodes, o.OnDemandBase, o.SpotPercentage = 1, nodes, base, spot
	}
	o.FlexStart = false // the reservation holds the on-demand side, or overflows (reserved)
	o, ok := reserved(o, h, req.Overflow, req.FlexStart)
	if !ok {
		return candidate{}, false
	}
	o.Spec = candidateSpec(o, w, client, d, minSize, req.Replicas)
	o.Spec.NodeLimits = pool.NodeLimitsFor(o.Spec.ResourceType, pool.Environment{EKSMaxNodesPerNodeGroup: env.EKSMaxNodesPerNodeGroup})
	o.Spec.Capacity.Reservation = reservationOf(o.Reservation)
	if h.Type == pool.ReservationCapacityBlock {
		o.Spec.Scaling.Min, o.Spec.Scaling.Desired, o.Spec.AutoscalerOwnsSize = 0, 0, true
	}
	return price(o, env, req.HoursPerMonth)
}

// nodeLimit is the most nodes a pool of the cloud holds (catalog.NodeLimit): on AWS the account's
// node group quota (the pool's on-demand side alone may be all of it), on GKE 1 000 in each zone
// the answer spans.
func nodeLimit(cloud catalog.Cloud, req Request, env Env) int {
	zones := 1
	if cloud == catalog.GCP {
		zones = req.gkeZones()
	}
	return catalog.NodeLimit(cloud, zones, env.EKSMaxNodesPerNodeGroup)
}

// cheapestRegion places an excluded shape in the region where its nodes cost least on-demand.
func cheapestRegion(o Option, f catalog.Fit, regions []string) (exclusion, bool) {
	best, found := exclusion{}, false
	for _, r := range regions {
		p, ok := o.Node.Price(r)
		if !ok {
			continue
		}
		usd := p.OnDemandUSD * float64(max(f.Nodes, 1))
		if !found || usd < best.usd {
			o.Region = r
			best, found = exclusion{Option: o, fit: f, usd: usd}, true
		}
	}
	return best, found
}

func candidateSpec(o Option, w Workload, client string, d demand, minSize, replicas int) pool.Spec {
	s := pool.Spec{
		Cloud:        o.Cloud,
		ResourceType: ResourceTypes[o.Cloud],
		Name:         candidatePoolName,
		Region:       o.Region,
		Client:       client,
		Workload: pool.Workload{Kind: w.Kind, Environment: w.Environment, GPUMemoryGiB: d.need, Interruptible: w.Interruptible,
			Precision: w.Precision, GPUsPerReplica: o.GPUsPerReplica, Replicas: replicas, KVCacheGiB: d.kv},
		Scaling:  pool.Sizes{Min: min(minSize, o.Nodes), Max: o.Nodes, Desired: o.Nodes},
		Capacity: pool.Capacity{SpotPercentage: o.SpotPercentage, OnDemandBase: o.OnDemandBase},
	}
	if o.MIGProfile != "" {
		s.GPU.MIG = &pool.MIG{Profile: o.MIGProfile}
	}
	if o.SharingReplicas > 0 {
		s.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: o.SharingReplicas}
	}
	switch o.Cloud {
	case catalog.AWS:
		s.InstanceTypes = []string{o.Node.Name}
	case catalog.GCP:
		s.MachineType, s.GPU.Type, s.GPU.Count = o.Node.Name, o.Node.Accelerator, o.Node.GPUCount
		s.Zones = slices.Clone(o.NodeLocations)
	}
	return s
}

// deny is the first deny the bundle reports on the candidate's pool document, nil when none. Without a
// client in the request, GF-TAG-001 (about the pool's client, not its GPUs) does not count.
func deny(ctx context.Context, c candidate, env Env, withClient bool) (*policy.Finding, error) {
	if env.Policy == nil {
		return nil, nil
	}
	doc := pool.Document(recommendationAddrs, c.Spec, &c.derived)
	findings, err := env.Policy.Evaluate(ctx, doc)
	if err != nil {
		return nil, err
	}
	for _, f := range findings {
		if f.Severity == policy.SeverityDeny && (withClient || f.Rule != "GF-TAG-001") {
			return &f, nil
		}
	}
	return nil, nil
}

// recommendCloud walks the candidates cheapest first: the first the bundle does not deny wins; the
// cheaper ones it denies and the next few it does not are the runners-up.
func recommendCloud(ctx context.Context, cloud catalog.Cloud, regions []string, d demand, req Request, env Env) (*Result, error) {
	res := &Result{}
	all, excluded, filtered := candidates(cloud, regions, d, req, env)
	res.Naive = naive(all, env, req.HoursPerMonth)
	if len(all) == 0 {
		res.Why, res.Argument = noFit(cloud, regions, d, req, excluded, filtered)
		if why, arg := tooSlow(cloud, regions, d, req, env); arg != "" {
			res.Why, res.Argument = why, arg
		}
		return res, nil
	}
	var denied, priced []RunnerUp
	seen := map[string]bool{}
	var firstDeny *policy.Finding
	var overCap *candidate
	for i := range all {
		c := all[i]
		if req.MaxHourlyUSD > 0 && c.HourlyUSD > req.MaxHourlyUSD {
			if overCap == nil {
				overCap = &c
			}
			continue
		}
		if res.Best != nil && (seen[c.key()] || len(priced) == maxPricedRunnersUp) {
			continue
		}
		f, err := deny(ctx, c, env, req.Client != "")
		if err != nil {
			return nil, err
		}
		switch {
		case f != nil && res.Best == nil:
			firstDeny = cmp.Or(firstDeny, f)
			if !seen[c.key()] && len(denied) < maxDeniedRunnersUp {
				text := strings.TrimPrefix(f.Msg, f.Rule+": "+recommendationAddrs+": ")
				denied = append(denied, RunnerUp{Option: c.Option, Reason: fmt.Sprintf("denied by the policy bundle, %s: %s", f.Rule, text)})
			}
			seen[c.key()] = true
		case f != nil:
		case res.Best == nil:
			best := c.Option
			res.Best = &best
			seen[c.key()] = true
		default:
			more := monthly(c.OutOfPocketHourlyUSD, req.HoursPerMonth) - monthly(res.Best.OutOfPocketHourlyUSD, req.HoursPerMonth)
			priced = append(priced, RunnerUp{Option: c.Option, Reason: fmt.Sprintf("costs %s/month more than %s", usd(more), res.Best.Label())})
			seen[c.key()] = true
		}
	}
	res.RunnersUp = slices.Concat(denied, priced)
	switch {
	case res.Best != nil:
	case firstDeny != nil:
		res.Why = fmt.Sprintf("the policy bundle denies every %s option that fits within the limits, e.g. %s", cloud, firstDeny.Msg)
		res.Argument = "workload"
		if req.Client != "" {
			res.Argument = "client"
		}
	case overCap != nil:
		res.Why = fmt.Sprintf("the cheapest %s option that fits, %s, costs %s/h, over max_hourly_usd %s/h", cloud, overCap.Label(), usd(overCap.HourlyUSD), usd(req.MaxHourlyUSD))
		res.Argument = "max_hourly_usd"
	}
	return res, nil
}

// naive is what a team without right-sizing runs: the smallest training-class GPU that fits, whole
// and on-demand, cheapest of those.
func naive(all []candidate, env Env, hours float64) *Option {
	var best *Option
	for _, c := range all {
		g := c.Node.GPU()
		if g.Class != catalog.ClassTraining || c.MIGProfile != "" || c.SharingReplicas != 0 {
			continue
		}
		o := c.Option
		o.SpotPercentage, o.OnDemandBase = 0, 0
		o.Spec.Capacity = pool.Capacity{}
		o.Reservation, o.FlexStart = nil, false // what the team would buy on demand
		p, ok := price(o, env, hours)
		if !ok {
			continue
		}
		if best == nil || cmp.Or(cmp.Compare(g.MemoryGiB, best.Node.GPU().MemoryGiB), cmp.Compare(p.Node.GPUCount, best.Node.GPUCount), cmp.Compare(p.HourlyUSD, best.HourlyUSD)) < 0 {
			best = &p.Option
		}
	}
	return best
}

// impossible is the error when no cloud has an answer, naming the argument to change.
func impossible(a Answer, req Request, regions map[catalog.Cloud][]string) error {
	var why []string
	argument := ""
	for _, cloud := range req.Clouds {
		r := a.Results[cloud]
		if r.Best != nil {
			return nil
		}
		why = append(why, r.Why)
		if argument == "max_hourly_usd" || r.Argument == "" {
			continue // a price cap, or no GPU that fits at all, is the first thing to change
		}
		argument = r.Argument
	}
	if argument == "" {
		argument = "workload.gpu_memory_gib"
		switch {
		case req.Observed != nil:
			argument = observedArg("memory_used_p99_gib")
		case req.Workload.GPUMemoryGiB == 0:
			argument = "workload.model_parameters_billion"
		}
		why = append(why, largestText(req, regions))
	}
	return &catalog.ArgumentError{Argument: argument, Message: "nothing fits: " + strings.Join(why, "; ")}
}

// largestText names the node with the most GPU memory in the regions (of the GPU models allowed),
// for an impossible memory need: a replica's GPUs are on one node.
func largestText(req Request, regions map[catalog.Cloud][]string) string {
	var best catalog.NodeType
	total := func(n catalog.NodeType) float64 { return float64(n.GPUCount) * n.GPU().MemoryGiB }
	for _, cloud := range req.Clouds {
		for _, n := range catalog.NodeTypes(cloud) {
			for _, r := range regions[cloud] {
				if _, ok := n.Price(r); ok && allowedModel(req, n.GPUModel) && total(n) > total(best) {
					best = n
				}
			}
		}
	}
	if best.Name == "" {
		return "the catalog prices no GPU there"
	}
	return fmt.Sprintf("the most GPU memory on one node there is %s GiB (%d x %s on %s, %s GiB usable at %g %% headroom); lower the need, use a smaller precision, or allow more regions",
		fmtGiB(total(best)), best.GPUCount, best.GPUModel, best.Name, fmtGiB(math.Floor(total(best)*(100-req.headroom()))/100), req.headroom())
}

func usd(x float64) string    { return fmt.Sprintf("$%.2f", x) }
func fmtGiB(x float64) string { return fmt.Sprintf("%g", x) }

// constraintArgument is the request argument to change when a constraint excludes everything.
var constraintArgument = map[string]string{
	catalog.ConstraintPrecision:      "workload.precision",
	catalog.ConstraintGPUsPerReplica: "workload.gpus_per_replica",
	catalog.ConstraintInterconnect:   "workload.gpus_per_replica",
	catalog.ConstraintInterNode:      "workload.gpus_per_replica",
	catalog.ConstraintNodeLimit:      "replicas",
	constraintCompute:                "replicas",
}

// constraintNames say in messages what excluded a shape.
var constraintNames = map[string]string{
	catalog.ConstraintPrecision:      "precision",
	catalog.ConstraintMemory:         "GPU memory",
	catalog.ConstraintGPUsPerReplica: "GPUs per replica",
	catalog.ConstraintInterconnect:   "NVLink",
	catalog.ConstraintInterNode:      "inter-node GPU network",
	catalog.ConstraintHostMemory:     "host memory",
	catalog.ConstraintVCPUs:          "vCPUs",
	catalog.ConstraintNodeLimit:      "node limit",
	constraintCompute:                "observed compute",
	constraintProvisioning:           "provisioning",
}

// constraintProvisioning is the fit problem of a machine type not sold as the pool would run it.
const constraintProvisioning = "provisioning"

// notSoldAs says when a GKE machine type is not sold the way the pool's mix runs it (issue #40, item
// 7): A3 High below 8 GPUs is sold only as Spot or flex-start, A3 Ultra and A4 only as Spot,
// flex-start or with a reservation (catalog.GKEProvisioningOf), so a pool with on-demand nodes on
// them fails at plan (pool validation). Without a reservation of it (capacity.reservation, which
// onReservation then uses), such a shape is excluded with that cause named, and never listed as a
// nearest option, which must be one the user could deploy.
func notSoldAs(n catalog.NodeType, nodes, base, spot int) (catalog.FitProblem, bool) {
	sold := catalog.GKEProvisioningOf(n.Name)
	od, _ := pool.SplitSizes(pool.Sizes{Min: nodes, Max: nodes, Desired: nodes}, base, spot)
	if sold.OnDemand || od.Max == 0 {
		return catalog.FitProblem{}, true
	}
	return catalog.FitProblem{Constraint: constraintProvisioning, Text: fmt.Sprintf(
		"Compute Engine sells %s only as %s, and the pool would run %d of its %d nodes on demand%s", n.Name, sold.Models, od.Max, nodes, soldFix(sold))}, false
}

// noFit says why no shape of a cloud fits: how many shapes each constraint excluded, with an
// example, and the nearest options (the cheapest that fail one constraint only). The argument is
// the one to change for the nearest option ("" for the memory need, which impossible names).
func noFit(cloud catalog.Cloud, regions []string, d demand, req Request, excluded []exclusion, filtered int) (why, argument string) {
	var parts []string
	if filtered > 0 {
		parts = append(parts, fmt.Sprintf("gpu_models (%s) excluded %d node types", strings.Join(req.GPUModels, ", "), filtered))
	}
	count := map[string]int{}
	example := map[string]exclusion{}
	var nearest []exclusion
	for _, e := range excluded {
		for _, c := range e.fit.Constraints() {
			// The example of a constraint is a shape it alone excludes when there is one (the real
			// cause, e.g. the one machine with the GPU not sold on demand), else the cheapest.
			ex, seen := example[c]
			alone, exAlone := len(e.fit.Problems) == 1, seen && len(ex.fit.Problems) == 1
			if !seen || alone && !exAlone || alone == exAlone && e.usd < ex.usd {
				example[c] = e
			}
			count[c]++
		}
		// Deployable once that one constraint is met: not a machine type the pool cannot buy, nor a
		// shape without the inter-node GPU network a replica over several nodes needs (no setting
		// gives a node type one).
		if len(e.fit.Problems) == 1 && !e.fit.Has(constraintProvisioning) && !e.fit.Has(catalog.ConstraintInterNode) {
			nearest = append(nearest, e)
		}
	}
	for _, c := range []string{catalog.ConstraintPrecision, catalog.ConstraintMemory, constraintCompute, catalog.ConstraintGPUsPerReplica, catalog.ConstraintInterconnect,
		catalog.ConstraintInterNode, catalog.ConstraintHostMemory, catalog.ConstraintVCPUs, catalog.ConstraintNodeLimit, constraintProvisioning} {
		if count[c] == 0 {
			continue
		}
		e := example[c]
		parts = append(parts, fmt.Sprintf("%s excluded %d shapes (e.g. %s: %s)", constraintNames[c], count[c], e.Label(), problemText(e.fit, c)))
	}
	if len(excluded) == 0 && filtered > 0 {
		argument = "gpu_models"
	}
	why = fmt.Sprintf("no %s node, MIG slice or shared GPU in %s fits %s GiB per replica: %s", cloud, strings.Join(regions, ", "), fmtGiB(d.need), strings.Join(parts, "; "))
	if count[catalog.ConstraintInterNode] > 0 { // a replica over several nodes: say first what it lacks
		why = fmt.Sprintf("no %s shape with %s in %s takes a training replica over %d GPUs across nodes (%s GiB): %s",
			cloud, catalog.InterNodeNamesFor(cloud), strings.Join(regions, ", "), req.Workload.GPUsPerReplica, fmtGiB(d.need), strings.Join(parts, "; "))
	}
	slices.SortStableFunc(nearest, func(a, b exclusion) int { return cmp.Compare(a.usd, b.usd) })
	if len(nearest) > 0 {
		var names []string
		for _, e := range nearest[:min(3, len(nearest))] {
			names = append(names, fmt.Sprintf("%s at %s/h fails only %s", e.Label(), usd(e.usd), constraintNames[e.fit.Problems[0].Constraint]))
		}
		why += "; nearest: " + strings.Join(names, ", ")
		argument = constraintArgument[nearest[0].fit.Problems[0].Constraint]
	}
	return why, argument
}

func problemText(f catalog.Fit, constraint string) string {
	for _, p := range f.Problems {
		if p.Constraint == constraint {
			return p.Text
		}
	}
	return ""
}

// soldFix is what makes a machine type not sold on demand usable, for notSoldAs.
func soldFix(sold catalog.GKEProvisioning) string {
	switch {
	case sold.Reserved && sold.FlexStart:
		return " without a reservation: add a capacity input (capacity.reservation) for a reservation of it that holds the on-demand nodes in one zone, or capacity.flex_start for flex-start VMs in a ComputeClass"
	case sold.Reserved:
		return " without a reservation: add a capacity input (capacity.reservation) for a reservation of it that holds the on-demand nodes in one zone"
	case sold.FlexStart:
		return ": add capacity.flex_start for flex-start VMs in a ComputeClass"
	}
	return ""
}
