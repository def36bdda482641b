package recommend

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// ResourceTypes are the pool resources a recommendation plugs into (eks.ResourceType and
// gke.ResourceType; the provider's tests check they agree).
var ResourceTypes = map[catalog.Cloud]string{catalog.AWS: "gpufleet_eks_node_pool", catalog.GCP: "gpufleet_gke_node_pool"}

// candidate is an option with what judging it needs.
type candidate struct {
	Option
	derived pool.Derived
}

// key identifies an option across regions, for runners-up.
func (o Option) key() string {
	return fmt.Sprintf("%s|%s|%s|%d", o.Node.Name, o.Node.Accelerator, o.MIGProfile, o.SharingReplicas)
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
	return what + " in " + o.Region
}

// shape is one way to use a node type: whole GPUs, one MIG profile, or shared GPUs.
type shape struct {
	mig     string
	sharing int
	perGPU  int
	memory  float64
}

// shapes lists the ways a node type's GPUs can hold replicas needing need GiB.
func shapes(g catalog.GPUModel, need float64, w Workload, replicas int) []shape {
	var out []shape
	if g.MemoryGiB >= need {
		out = append(out, shape{perGPU: 1, memory: g.MemoryGiB})
		// Time-slicing gives replicas no isolation: never in production (GF-ISO-003).
		if per := min(int(g.MemoryGiB/need), maxSharingPerGPU, replicas); w.Environment != pool.EnvProduction && per >= 2 {
			out = append(out, shape{sharing: per, perGPU: per, memory: g.MemoryGiB})
		}
	}
	for _, p := range g.MIGProfiles {
		// "+me" profiles hold one media-extension slice per GPU; a one-per-GPU profile as large as
		// the GPU (7g) is the whole GPU again.
		whole := p.MaxInstances == 1 && p.MemoryGiB >= g.MemoryGiB
		if p.MemoryGiB >= need && !strings.Contains(p.Name, "+") && !whole {
			out = append(out, shape{mig: p.Name, perGPU: p.MaxInstances, memory: p.MemoryGiB})
		}
	}
	return out
}

// candidates builds, validates and prices every pool of a cloud in the regions that fits need,
// cheapest first.
func candidates(cloud catalog.Cloud, regions []string, need float64, req Request, env Env) []candidate {
	client := cmp.Or(req.Client, PlaceholderClient)
	var out []candidate
	for _, n := range catalog.NodeTypes(cloud) {
		for _, sh := range shapes(n.GPU(), need, req.Workload, req.Replicas) {
			if !fastEnough(req, n.GPU(), sh) {
				continue
			}
			perNode := n.GPUCount * sh.perGPU
			nodes := (req.Replicas + perNode - 1) / perNode
			spot, base, minSize := capacity(req.Workload, nodes)
			for _, region := range regions {
				o := Option{Cloud: cloud, Region: region, Node: n, MIGProfile: sh.mig, SharingReplicas: sh.sharing, ReplicaGiB: sh.memory,
					ReplicasPerNode: perNode, Nodes: nodes, SpotPercentage: spot, OnDemandBase: base, DecodeTokensPerSecond: decodeRate(req, n.GPU(), sh)}
				o.Spec = candidateSpec(o, req.Workload, client, need, minSize)
				if c, ok := price(o, env, req.HoursPerMonth); ok {
					out = append(out, c)
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.HourlyUSD, b.HourlyUSD), cmp.Compare(a.Nodes, b.Nodes),
			cmp.Compare(a.Node.Name, b.Node.Name), cmp.Compare(a.Region, b.Region), cmp.Compare(a.MIGProfile, b.MIGProfile))
	})
	return out
}

func candidateSpec(o Option, w Workload, client string, need float64, minSize int) pool.Spec {
	s := pool.Spec{
		Cloud:        o.Cloud,
		ResourceType: ResourceTypes[o.Cloud],
		Name:         candidatePoolName,
		Region:       o.Region,
		Client:       client,
		Workload:     pool.Workload{Kind: w.Kind, Environment: w.Environment, GPUMemoryGiB: need, Interruptible: w.Interruptible},
		Scaling:      pool.Sizes{Min: min(minSize, o.Nodes), Max: o.Nodes, Desired: o.Nodes},
		Capacity:     pool.Capacity{SpotPercentage: o.SpotPercentage, OnDemandBase: o.OnDemandBase},
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
func recommendCloud(ctx context.Context, cloud catalog.Cloud, regions []string, need float64, req Request, env Env) (*Result, error) {
	res := &Result{}
	all := candidates(cloud, regions, need, req, env)
	res.Naive = naive(all, env, req.HoursPerMonth)
	if len(all) == 0 {
		res.Why = fmt.Sprintf("no %s GPU or MIG slice in %s has %s GiB", cloud, strings.Join(regions, ", "), fmtGiB(need))
		res.Why, res.Argument = tooSlow(cloud, regions, need, req, env, res.Why)
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
			priced = append(priced, RunnerUp{Option: c.Option, Reason: fmt.Sprintf("costs %s/month more than %s", usd(c.MonthlyUSD-res.Best.MonthlyUSD), res.Best.Label())})
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
		if req.Workload.GPUMemoryGiB == 0 {
			argument = "workload.model_parameters_billion"
		}
		why = append(why, largestText(req.Clouds, regions))
	}
	return &catalog.ArgumentError{Argument: argument, Message: "nothing fits: " + strings.Join(why, "; ")}
}

// largestText names the GPU with the most memory in the regions, for an impossible memory need.
func largestText(clouds []catalog.Cloud, regions map[catalog.Cloud][]string) string {
	var best catalog.NodeType
	for _, cloud := range clouds {
		for _, n := range catalog.NodeTypes(cloud) {
			for _, r := range regions[cloud] {
				if _, ok := n.Price(r); ok && n.GPU().MemoryGiB > best.GPU().MemoryGiB {
					best = n
				}
			}
		}
	}
	if best.Name == "" {
		return "the catalog prices no GPU there"
	}
	return fmt.Sprintf("the most GPU memory there is %s GiB (%s on %s); lower the need, use a smaller precision, or allow more regions",
		fmtGiB(best.GPU().MemoryGiB), best.GPUModel, best.Name)
}

func usd(x float64) string    { return fmt.Sprintf("$%.2f", x) }
func fmtGiB(x float64) string { return fmt.Sprintf("%g", x) }
