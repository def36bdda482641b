// Package recommend right-sizes a workload: per cloud, the cheapest GPU node pool that fits its
// memory need in the allowed regions and that the policy bundle would not deny. Every candidate is
// a real pool.Spec, validated, derived (so priced through the one pricing path, the provider's
// overrides and discount included) and judged on its pool.Document by the provider's policy
// engine: the answer plugs into a gpufleet_eks_node_pool or gpufleet_gke_node_pool unchanged.
// Pure: no cloud call.
package recommend

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// PlaceholderClient is the client of candidate pools when the request names none. Findings of
// GF-TAG-001, which judges the pool's client rather than its GPUs, are then not held against them.
const PlaceholderClient = "recommendation"

// Workload is the demand: the pool's workload block, with the memory need given or estimated
// from the model size.
type Workload struct {
	Kind          string
	Environment   string
	Interruptible bool
	GPUMemoryGiB  float64 // 0: estimate from the model
	// The model, when GPUMemoryGiB is 0.
	ParametersBillion float64
	Precision         string // also with GPUMemoryGiB: the GPU must compute in it
	Method            string
	// TokensPerSecond is the decode rate one replica must reach (0: no rate); see throughput.go.
	TokensPerSecond float64
	// GPUsPerReplica is the GPUs one replica spans, on one node; 0: the fit's default (inference:
	// the fewest GPUs of the node that hold it; otherwise 1). A training replica over a whole
	// multiple of a node's GPUs spans that many nodes (multi-node training), which only shapes
	// with an inter-node GPU network (EFA, GPUDirect: catalog.NodeType.InterNode) take.
	GPUsPerReplica int
	// The KV cache (kvcache.go): a model whose shape the catalog knows (catalog.KVModels; it also
	// gives ParametersBillion when neither it nor GPUMemoryGiB is set), the tokens of context per
	// sequence and the sequences in flight (0: 1), or the KV cache in GiB.
	Model               string
	ContextLength       int
	ConcurrentSequences int
	KVCacheGiB          float64
}

// Request is what the user asks.
type Request struct {
	Workload     Workload
	Replicas     int // replicas to place; 0 means 1
	Clouds       []catalog.Cloud
	Regions      []string // globs, as the policy data's allowed_regions
	Client       string   // "" for none
	MaxHourlyUSD float64  // 0 for no cap
	// HoursPerMonth is how many hours a month the pool runs (0: catalog.HoursPerMonth, 730): every
	// monthly figure of the answer is priced at it (see price.go).
	HoursPerMonth float64

	bytesPerToken float64 // what a decode step reads, when TokensPerSecond is set (throughput.go)
	// MemoryHeadroomPercent is the share of each GPU's or slice's memory kept free; nil: 5.
	MemoryHeadroomPercent *float64
	// GPUModels narrows the catalog to these GPU models (e.g. reserved H100s); empty: all.
	GPUModels []string
	// Observed is what the pool's GPUs did now; nil: size from the declared need (observed.go).
	Observed *Observed

	observed       *observedState
	observedAnswer *ObservedAnswer
	// GKEZones is how many zones a GCP answer's pool spans (0: one, or GKE's three of a regional
	// pool for production inference that spreads its replicas); zones.go.
	GKEZones int
	// Reservations are the reservations the team holds (capacity.go): used first, and the only way
	// the machine types Compute Engine sells only reserved are answered with on-demand nodes.
	Reservations []Reservation
	// FlexStart says the team accepts GKE flex-start VMs (capacity.go): a machine type Compute
	// Engine sells as flex-start but not on demand runs its on-demand side as flex-start VMs, in a
	// gpufleet_gke_compute_class.
	FlexStart bool
	// Overflow says the team's pool is an autoscaler object that falls back from a full
	// reservation to on demand (capacity.go): a held reservation smaller than the on-demand side
	// is used too, and the answer applies to gpufleet_karpenter_node_pool and
	// gpufleet_gke_compute_class only.
	Overflow bool
	// Now is the request's clock, against which capacity blocks' dates are judged (capacity.go);
	// zero: the time now. Tests set it.
	Now time.Time
	// AWSRegion is the region the provider creates EKS pools in (aws.region, else the SDK's
	// environment); "" when unknown. An AWS answer is in it when it has one (region.go).
	AWSRegion string
}

// Env is what the provider is configured with.
type Env struct {
	Pricing  catalog.Pricing
	Registry pool.Registry
	Policy   *policy.Engine // nil: enforcement is off, candidates are not judged
	// EKSMaxNodesPerNodeGroup is the account's EKS "Nodes per managed node group" quota (0: the
	// default 450): an AWS answer's pool stays within it (catalog.NodeLimit).
	EKSMaxNodesPerNodeGroup int
}

// Option is one pool: a node type in a region, whole GPUs, MIG slices or shared GPUs, with its spot
// mix and size.
type Option struct {
	Cloud           catalog.Cloud
	Region          string
	Node            catalog.NodeType
	MIGProfile      string // "" for whole GPUs
	SharingReplicas int    // 0 without sharing
	ReplicaGiB      float64
	GPUsPerReplica  int
	ReplicasPerNode int
	// NodesPerReplica is 1, or the nodes one multi-node training replica spans; InterNode is then
	// the network between them (catalog.NetworkEFA …), "" for a replica on one node.
	NodesPerReplica int
	InterNode       string
	// DecodeTokensPerSecond is one replica's decode estimate (throughput.go); 0 without a rate.
	DecodeTokensPerSecond float64
	Nodes                 int
	// Zones is how many zones the pool spans, each with Nodes / Zones nodes (GKE; 1 on AWS).
	Zones int
	// NodeLocations are those zones, for the GKE pool's node_locations (zones.go); nil when the
	// catalog does not know which zones of the region offer the GPU, and on AWS.
	NodeLocations  []string
	SpotPercentage int
	OnDemandBase   int
	HourlyUSD      float64
	MonthlyUSD     float64
	// CommittedMonthlyUSD is MonthlyUSD with the on-demand nodes under Commitment (price.go); 0 and
	// "" when no commitment applies or it would cost more.
	CommittedMonthlyUSD float64
	Commitment          string
	// Reservation is the held reservation the option's reserved rung consumes (capacity.go); nil
	// when it uses none.
	Reservation *Reservation
	// FlexStart says that the option's on-demand side runs flex-start VMs (Request.FlexStart): it
	// plugs into gpufleet_gke_compute_class, not gpufleet_gke_node_pool.
	FlexStart bool
	// Overflow says that the reservation holds fewer nodes than the on-demand side, whose rest
	// runs on demand (Request.Overflow): the answer applies to the autoscaler resources only.
	Overflow bool
	// Ladder is the option's capacity ladder, priced: reserved, on-demand, spot (capacity.go).
	Ladder []Rung
	// OutOfPocketHourlyUSD is HourlyUSD less its reserved rung, already paid for: options are
	// ranked by it, so that a held reservation is used first.
	OutOfPocketHourlyUSD float64
	Spec                 pool.Spec
}

// RunnerUp is an option that lost, and why.
type RunnerUp struct {
	Option
	Reason string
}

// Result is the answer for one cloud; Best is nil when nothing fits there.
type Result struct {
	Best      *Option
	Naive     *Option // the smallest training-class GPU that fits, on-demand
	RunnersUp []RunnerUp
	// Why says why Best is nil, and Argument which request argument to change.
	Why      string
	Argument string
	// Elsewhere says why Best is not in Request.AWSRegion, the region the provider creates EKS
	// pools in, so that the pool needs a cluster in Best.Region; "" when it is there, or the
	// provider's region is unknown, or on GCP (region.go).
	Elsewhere string
}

// Answer is the recommendation for every cloud asked.
type Answer struct {
	NeedGiB float64
	// KVCacheGiB is the part of NeedGiB that is one replica's KV cache (0 without one).
	KVCacheGiB float64
	// KVCache is the estimate behind KVCacheGiB when it came from context_length; nil otherwise.
	KVCache *catalog.KVCacheEstimate
	// HostGiB is the host memory one replica's weights take (0: estimated from NeedGiB by the fit).
	HostGiB float64
	Results map[catalog.Cloud]*Result
	// Observed is what the recommendation made of Request.Observed; nil without it.
	Observed *ObservedAnswer
	// Warnings are what the answer asks the user to know about its inputs (a capacity block that
	// ended, or that an answer uses before it starts).
	Warnings []Warning
}

// Warning is a warning at a request argument.
type Warning struct {
	Argument, Summary, Detail string
}

const (
	maxDeniedRunnersUp  = 3
	maxPricedRunnersUp  = 3
	maxSharingPerGPU    = 48
	candidatePoolName   = "recommended"
	recommendationAddrs = "data.gpufleet_recommendation"
)

// Recommend answers a request. Bad input is a *catalog.ArgumentError naming the argument.
func Recommend(ctx context.Context, req Request, env Env) (Answer, error) {
	kv, kvEstimate, err := kvCacheOf(&req)
	if err != nil {
		return Answer{}, err
	}
	req.Workload.KVCacheGiB = kv
	need, host, err := demandOf(&req, env.Pricing)
	if err != nil {
		return Answer{}, err
	}
	if req.Observed != nil { // the observed memory already holds the KV cache the pool ran with
		kv, kvEstimate = 0, nil
	}
	if req.Replicas == 0 {
		req.Replicas = 1
	}
	if req.Replicas < 0 {
		return Answer{}, &catalog.ArgumentError{Argument: "replicas", Message: fmt.Sprintf("must be 1 or more, got %d", req.Replicas)}
	}
	if err := checkThroughput(&req, need); err != nil {
		return Answer{}, err
	}
	if err := checkHoursPerMonth(&req); err != nil {
		return Answer{}, err
	}
	if req.MaxHourlyUSD < 0 {
		return Answer{}, &catalog.ArgumentError{Argument: "max_hourly_usd", Message: fmt.Sprintf("must be greater than 0, got %g", req.MaxHourlyUSD)}
	}
	if err := checkGKEZones(req); err != nil {
		return Answer{}, err
	}
	if err := checkFitInputs(req); err != nil {
		return Answer{}, err
	}
	if err := checkReservations(&req); err != nil {
		return Answer{}, err
	}
	regions, asked, err := allowedRegions(req, env.Registry)
	if err != nil {
		return Answer{}, err
	}
	if err := checkReservationRegions(req, regions); err != nil {
		return Answer{}, err
	}
	answer := Answer{NeedGiB: need, KVCacheGiB: kv, KVCache: kvEstimate, HostGiB: host, Results: map[catalog.Cloud]*Result{}, Observed: req.observedAnswer}
	answer.Warnings = blockDates(&req)
	for _, cloud := range req.Clouds {
		var res *Result
		if len(regions[cloud]) == 0 {
			res = residencyExcludes(cloud, asked[cloud], req, env.Registry)
		} else if res, err = recommendIn(ctx, cloud, regions[cloud], demand{need: need, host: host, kv: kv}, req, env); err != nil {
			return Answer{}, err
		}
		answer.Results[cloud] = res
		if res.Best != nil {
			if why := scheduledBlock(req, res.Best); why != "" {
				answer.Warnings = append(answer.Warnings, Warning{Argument: fmt.Sprintf("capacity.reservation[%d].start", res.Best.Reservation.index), Summary: "Capacity block not started", Detail: why})
			}
		}
	}
	return answer, impossible(answer, req, regions)
}

// headroom is the memory headroom the request asks for, or the default.
func (r Request) headroom() float64 {
	if r.MemoryHeadroomPercent == nil {
		return catalog.DefaultMemoryHeadroomPercent
	}
	return *r.MemoryHeadroomPercent
}

// checkFitInputs rejects fit inputs no pool could meet: a headroom outside 0–50 %, an unknown
// GPU model, a precision the catalog does not know, and GPUs per replica below 1 or above the
// largest node of the clouds asked (of the GPU models allowed), unless a training replica can span
// whole nodes of a shape with an inter-node GPU network.
func checkFitInputs(req Request) error {
	if h := req.headroom(); h < 0 || h > 50 || math.IsNaN(h) {
		return &catalog.ArgumentError{Argument: "memory_headroom_percent", Message: fmt.Sprintf("must be between 0 and 50, got %g", h)}
	}
	var names []string
	for _, g := range catalog.GPUs() {
		names = append(names, g.Name)
	}
	for i, m := range req.GPUModels {
		if _, ok := catalog.GPU(m); !ok {
			return &catalog.ArgumentError{Argument: fmt.Sprintf("gpu_models[%d]", i), Message: fmt.Sprintf(
				"unknown GPU model %q; GPU models, nearest first: %s", m, strings.Join(catalog.Nearest(m, names), ", "))}
		}
	}
	if p := req.Workload.Precision; p != "" {
		if _, ok := catalog.MinComputeCapability[p]; !ok {
			return &catalog.ArgumentError{Argument: "workload.precision", Message: fmt.Sprintf(
				"unknown precision %q; valid values, nearest first: %s", p, strings.Join(catalog.Nearest(p, catalog.Precisions()), ", "))}
		}
	}
	g := req.Workload.GPUsPerReplica
	if g < 0 {
		return &catalog.ArgumentError{Argument: "workload.gpus_per_replica", Message: fmt.Sprintf("must be 1 or more, got %d", g)}
	}
	if g > 0 {
		var largest catalog.NodeType
		for _, cloud := range req.Clouds {
			for _, n := range catalog.NodeTypes(cloud) {
				if allowedModel(req, n.GPUModel) && n.GPUCount > largest.GPUCount {
					largest = n
				}
			}
		}
		if g > largest.GPUCount && !spansSomeNodes(req, g) {
			training := ""
			if req.Workload.Kind == pool.KindTraining {
				training = fmt.Sprintf(" (a training replica may also span whole nodes with an inter-node GPU network: %s)", multiNodeSizes(req))
			}
			return &catalog.ArgumentError{Argument: "workload.gpus_per_replica", Message: fmt.Sprintf(
				"a replica's GPUs must be on one node, and the largest node of %s has %d GPUs (%s, %d x %s)%s; got %d",
				joinClouds(req.Clouds), largest.GPUCount, largest.Name, largest.GPUCount, largest.GPUModel, training, g)}
		}
	}
	return nil
}

// spansSomeNodes reports whether a replica over g GPUs can span whole nodes of some shape of the
// clouds asked (of the GPU models allowed) that has an inter-node GPU network.
func spansSomeNodes(req Request, g int) bool {
	for _, cloud := range req.Clouds {
		for _, n := range catalog.NodeTypes(cloud) {
			if allowedModel(req, n.GPUModel) && n.MultiNode() && catalog.SpansNodes(req.Workload.Kind, g, n.GPUCount) {
				return true
			}
		}
	}
	return false
}

// multiNodeSizes says which GPU counts a multi-node training replica may take on the clouds asked:
// multiples of the GPUs of the shapes with an inter-node GPU network.
func multiNodeSizes(req Request) string {
	seen := map[string]bool{}
	var out []string
	for _, cloud := range req.Clouds {
		for _, n := range catalog.NodeTypes(cloud) {
			if !allowedModel(req, n.GPUModel) || !n.MultiNode() || n.GPUCount < 2 {
				continue
			}
			s := fmt.Sprintf("a multiple of %d on %s", n.GPUCount, n.Name)
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		return "none of the GPU models allowed has one"
	}
	return strings.Join(out, ", ")
}

// allowedModel reports whether gpu_models lets a GPU model in.
func allowedModel(req Request, model string) bool {
	if len(req.GPUModels) == 0 {
		return true
	}
	return slices.ContainsFunc(req.GPUModels, func(m string) bool { return strings.EqualFold(m, model) })
}

func joinClouds(clouds []catalog.Cloud) string {
	out := make([]string, len(clouds))
	for i, c := range clouds {
		out[i] = string(c)
	}
	return strings.Join(out, " and ")
}

// residencyExcludes is the answer for a cloud whose regions the client's allowed_regions all exclude.
func residencyExcludes(cloud catalog.Cloud, asked []string, req Request, registry pool.Registry) *Result {
	c, _ := registry.Lookup(req.Client)
	if len(asked) == 0 {
		return &Result{Argument: "regions", Why: fmt.Sprintf("regions %s match no %s region the catalog prices", strings.Join(req.Regions, ", "), cloud)}
	}
	return &Result{Argument: "client", Why: fmt.Sprintf(
		"data residency excludes every %s region asked: client %q may only run in %s, and the %s regions that regions %s match (%s) are outside it",
		cloud, req.Client, strings.Join(c.AllowedRegions, ", "), cloud, strings.Join(req.Regions, ", "), strings.Join(asked, ", "))}
}

// memoryNeed is the GPU memory one replica needs, given or estimated from the model, plus its KV
// cache (w.KVCacheGiB, kvcache.go), and the host memory its weights take when the model is known
// (0 otherwise: the fit estimates it).
func memoryNeed(w Workload) (need, host float64, err error) {
	if w.GPUMemoryGiB != 0 {
		if w.GPUMemoryGiB < 0 || math.IsNaN(w.GPUMemoryGiB) {
			return 0, 0, &catalog.ArgumentError{Argument: "workload.gpu_memory_gib", Message: fmt.Sprintf("must be greater than 0 GiB, got %g", w.GPUMemoryGiB)}
		}
		return addKV(w.GPUMemoryGiB, w.KVCacheGiB), 0, nil
	}
	kind := catalog.MemoryKindInference
	if w.Kind == pool.KindTraining {
		kind = catalog.MemoryKindTraining
	}
	e, err := catalog.GPUMemoryRequired(catalog.MemoryDemand{ParametersBillion: w.ParametersBillion, Precision: w.Precision, Kind: kind, Method: w.Method})
	if ae := (*catalog.ArgumentError)(nil); errors.As(err, &ae) {
		arg := ae.Argument
		if arg == "parameters_billion" {
			arg = "model_parameters_billion"
		}
		return 0, 0, &catalog.ArgumentError{Argument: "workload." + arg, Message: ae.Message}
	}
	if err != nil {
		return 0, 0, err
	}
	return addKV(e.GiB, w.KVCacheGiB), catalog.GBToGiB(e.WeightsGB), nil
}

// addKV adds the KV cache to a need, to 0.01 GiB.
func addKV(need, kv float64) float64 { return math.Round((need+kv)*100) / 100 }

// allowedRegions is, per cloud, the catalog's regions that a glob of req.Regions matches and the
// client's allowed_regions allow.
func allowedRegions(req Request, registry pool.Registry) (allowedByCloud, askedByCloud map[catalog.Cloud][]string, err error) {
	if len(req.Regions) == 0 {
		return nil, nil, &catalog.ArgumentError{Argument: "regions", Message: "list at least one region or glob, e.g. \"us-east-1\" or \"eu-*\""}
	}
	var known []string
	for _, cloud := range req.Clouds {
		known = append(known, catalog.Regions(cloud)...)
	}
	asked, err := catalog.CompileRegionGlobs("regions", req.Regions, known)
	if err != nil {
		return nil, nil, err
	}
	allowed := func(string) bool { return true }
	if req.Client != "" {
		c, ok := registry.Lookup(req.Client)
		if !ok {
			return nil, nil, &catalog.ArgumentError{Argument: "client", Message: unknownClient(req.Client, registry)}
		}
		if len(c.AllowedRegions) > 0 {
			globs, err := catalog.CompileRegionGlobs("client", c.AllowedRegions, nil)
			if err != nil {
				return nil, nil, err
			}
			allowed = globs.Match
		}
	}
	out, askedOut := map[catalog.Cloud][]string{}, map[catalog.Cloud][]string{}
	var total int
	for _, cloud := range req.Clouds {
		for _, r := range catalog.Regions(cloud) {
			if !asked.Match(r) {
				continue
			}
			askedOut[cloud] = append(askedOut[cloud], r)
			if allowed(r) {
				out[cloud] = append(out[cloud], r)
				total++
			}
		}
	}
	if total == 0 {
		c, _ := registry.Lookup(req.Client)
		return nil, nil, &catalog.ArgumentError{Argument: "client", Message: fmt.Sprintf("data residency: client %q may only run in %s, and regions %s match none of those regions",
			req.Client, strings.Join(c.AllowedRegions, ", "), strings.Join(req.Regions, ", "))}
	}
	return out, askedOut, nil
}

func unknownClient(client string, registry pool.Registry) string {
	if len(registry) == 0 {
		return fmt.Sprintf("client %q: the provider has no policy data with clients (policy.data_files); remove client or add the policy data", client)
	}
	ids := make([]string, 0, len(registry))
	for id := range registry {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return fmt.Sprintf("client %q is not in the policy data; clients, nearest first: %s", client, strings.Join(catalog.Nearest(client, ids), ", "))
}
