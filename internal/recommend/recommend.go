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
	"sort"
	"strings"

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
	Precision         string
	Method            string
	// TokensPerSecond is the decode rate one replica must reach (0: no rate); see throughput.go.
	TokensPerSecond float64
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
}

// Env is what the provider is configured with.
type Env struct {
	Pricing  catalog.Pricing
	Registry pool.Registry
	Policy   *policy.Engine // nil: enforcement is off, candidates are not judged
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
	ReplicasPerNode int
	// DecodeTokensPerSecond is one replica's decode estimate (throughput.go); 0 without a rate.
	DecodeTokensPerSecond float64
	Nodes                 int
	SpotPercentage        int
	OnDemandBase          int
	HourlyUSD             float64
	MonthlyUSD            float64
	// CommittedMonthlyUSD is MonthlyUSD with the on-demand nodes under Commitment (price.go); 0 and
	// "" when no commitment applies or it would cost more.
	CommittedMonthlyUSD float64
	Commitment          string
	Spec                pool.Spec
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
}

// Answer is the recommendation for every cloud asked.
type Answer struct {
	NeedGiB float64
	Results map[catalog.Cloud]*Result
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
	need, err := memoryNeed(req.Workload)
	if err != nil {
		return Answer{}, err
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
	regions, err := allowedRegions(req, env.Registry)
	if err != nil {
		return Answer{}, err
	}
	answer := Answer{NeedGiB: need, Results: map[catalog.Cloud]*Result{}}
	for _, cloud := range req.Clouds {
		res, err := recommendCloud(ctx, cloud, regions[cloud], need, req, env)
		if err != nil {
			return Answer{}, err
		}
		answer.Results[cloud] = res
	}
	return answer, impossible(answer, req, regions)
}

// memoryNeed is the GPU memory one replica needs: given, or estimated from the model.
func memoryNeed(w Workload) (float64, error) {
	if w.GPUMemoryGiB != 0 {
		if w.GPUMemoryGiB < 0 || math.IsNaN(w.GPUMemoryGiB) {
			return 0, &catalog.ArgumentError{Argument: "workload.gpu_memory_gib", Message: fmt.Sprintf("must be greater than 0 GiB, got %g", w.GPUMemoryGiB)}
		}
		return w.GPUMemoryGiB, nil
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
		return 0, &catalog.ArgumentError{Argument: "workload." + arg, Message: ae.Message}
	}
	return e.GiB, err
}

// allowedRegions is, per cloud, the catalog's regions that a glob of req.Regions matches and the
// client's allowed_regions allow.
func allowedRegions(req Request, registry pool.Registry) (map[catalog.Cloud][]string, error) {
	if len(req.Regions) == 0 {
		return nil, &catalog.ArgumentError{Argument: "regions", Message: "list at least one region or glob, e.g. \"us-east-1\" or \"eu-*\""}
	}
	var known []string
	for _, cloud := range req.Clouds {
		known = append(known, catalog.Regions(cloud)...)
	}
	asked, err := catalog.CompileRegionGlobs("regions", req.Regions, known)
	if err != nil {
		return nil, err
	}
	allowed := func(string) bool { return true }
	if req.Client != "" {
		c, ok := registry.Lookup(req.Client)
		if !ok {
			return nil, &catalog.ArgumentError{Argument: "client", Message: unknownClient(req.Client, registry)}
		}
		if len(c.AllowedRegions) > 0 {
			globs, err := catalog.CompileRegionGlobs("client", c.AllowedRegions, nil)
			if err != nil {
				return nil, err
			}
			allowed = globs.Match
		}
	}
	out := map[catalog.Cloud][]string{}
	var total int
	for _, cloud := range req.Clouds {
		for _, r := range catalog.Regions(cloud) {
			if asked.Match(r) && allowed(r) {
				out[cloud] = append(out[cloud], r)
				total++
			}
		}
	}
	if total == 0 {
		c, _ := registry.Lookup(req.Client)
		return nil, &catalog.ArgumentError{Argument: "client", Message: fmt.Sprintf("client %q may only run in %s, and regions %s match none of those regions",
			req.Client, strings.Join(c.AllowedRegions, ", "), strings.Join(req.Regions, ", "))}
	}
	return out, nil
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
