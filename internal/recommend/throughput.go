package recommend

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Throughput: with workload.tokens_per_second, an option must also decode that fast per replica
// (catalog.DecodeTokensPerSecond: memory bandwidth of the replica's GPUs or slice over the bytes a
// token reads), not only hold the memory. A slower GPU, a MIG slice's share of one, or a GPU
// time-sliced between replicas drops out; a faster GPU (or, with the fit's multi-GPU replicas, more
// GPUs per replica) takes its place.

// checkThroughput validates the rate and works out the bytes a token reads: the weights at the
// precision when the model is given, else the whole memory need (an upper bound).
func checkThroughput(req *Request, need float64) error {
	w := req.Workload
	switch {
	case w.TokensPerSecond == 0:
		return nil
	case math.IsNaN(w.TokensPerSecond) || w.TokensPerSecond < 0:
		return &catalog.ArgumentError{Argument: "workload.tokens_per_second", Message: fmt.Sprintf("must be greater than 0, got %g", w.TokensPerSecond)}
	case w.Kind == pool.KindTraining:
		return &catalog.ArgumentError{Argument: "workload.tokens_per_second", Message: "is a decode rate for inference; a training workload has none (remove it or set kind to inference)"}
	}
	req.bytesPerToken = need * (1 << 30)
	if w.GPUMemoryGiB == 0 {
		b, err := catalog.WeightBytes(w.ParametersBillion, w.Precision)
		if err != nil {
			return err // memoryNeed has already accepted both
		}
		req.bytesPerToken = b
	}
	return nil
}

// decodeRate is one replica's decode estimate on a shape of node type n, the replica over gpus of
// its GPUs (tensor parallel), 0 without a rate asked.
func decodeRate(req Request, g catalog.GPUModel, sh shape, gpus int) float64 {
	if req.bytesPerToken == 0 {
		return 0
	}
	share := 1.0
	switch {
	case sh.mig != "":
		share = sh.memory / g.MemoryGiB
	case sh.sharing > 0:
		share = 1 / float64(sh.sharing)
	}
	rate, err := catalog.DecodeTokensPerSecond(catalog.DecodeShape{GPU: g, GPUsPerReplica: max(gpus, 1), Share: min(share, 1)}, req.bytesPerToken)
	if err != nil {
		return 0
	}
	return rate
}

// fastEnough reports whether a replica's decode rate meets the requested one (always, without one).
func fastEnough(req Request, rate float64) bool {
	return req.Workload.TokensPerSecond == 0 || rate >= req.Workload.TokensPerSecond
}

// tooSlow explains an empty candidate list when the rate, not the memory, emptied it: the fastest
// option that holds the memory and its rate, and the argument to change; "" and "" otherwise.
func tooSlow(cloud catalog.Cloud, regions []string, d demand, req Request, env Env) (string, string) {
	if req.Workload.TokensPerSecond == 0 {
		return "", ""
	}
	memoryOnly := req
	memoryOnly.Workload.TokensPerSecond = 0
	var fastest *candidate
	all, _, _ := candidates(cloud, regions, d, memoryOnly, env)
	for _, c := range all {
		if fastest == nil || c.DecodeTokensPerSecond > fastest.DecodeTokensPerSecond {
			fastest = &c
		}
	}
	if fastest == nil {
		return "", ""
	}
	return fmt.Sprintf("no %s option in %s decodes %g tokens/s per replica; the fastest that holds %s GiB, %s, decodes about %.1f tokens/s (estimate: memory bandwidth × %g ÷ bytes per token)",
		cloud, strings.Join(regions, ", "), req.Workload.TokensPerSecond, fmtGiB(d.need), fastest.Label(), fastest.DecodeTokensPerSecond, catalog.DecodeEfficiency), "workload.tokens_per_second"
}

// tensorParallel is the fit of a whole-GPU shape with as many GPUs per replica as the requested
// decode rate takes (issue #40, item 4): when the fewest GPUs that hold the memory decode too
// slowly and workload.gpus_per_replica is not given, the replica is split over 2, 4 or 8 GPUs of
// the node (tensor parallel degrees that divide the attention heads of the models served, as vLLM
// and TensorRT-LLM require), the first that meets the rate. Decode reads each GPU's part of the
// weights at once, so the rate grows with the GPUs (catalog.DecodeTokensPerSecond), and four L4s
// may meet a rate for less than the bigger GPU that would otherwise be the answer; the prices then
// decide. The fit is returned unchanged when no degree helps, or without a rate.
func tensorParallel(req Request, n catalog.NodeType, sh shape, f catalog.Fit, fit func(gpusPerReplica int) catalog.Fit) catalog.Fit {
	if req.bytesPerToken == 0 || req.Workload.GPUsPerReplica != 0 || sh.mig != "" || sh.sharing > 0 || !f.Fits() {
		return f
	}
	g := n.GPU()
	if fastEnough(req, decodeRate(req, g, sh, max(f.GPUsPerReplica, 1))) {
		return f
	}
	for tp := 2; tp <= n.GPUCount; tp *= 2 {
		if tp <= f.GPUsPerReplica {
			continue
		}
		if more := fit(tp); more.Fits() && fastEnough(req, decodeRate(req, g, sh, tp)) {
			return more
		}
	}
	return f
}
