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

// decodeRate is one replica's decode estimate on a shape of node type n (0 without a rate asked).
func decodeRate(req Request, g catalog.GPUModel, sh shape) float64 {
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
	rate, err := catalog.DecodeTokensPerSecond(catalog.DecodeShape{GPU: g, GPUsPerReplica: 1, Share: min(share, 1)}, req.bytesPerToken)
	if err != nil {
		return 0
	}
	return rate
}

// fastEnough reports whether a shape meets the requested rate (always, without one).
func fastEnough(req Request, g catalog.GPUModel, sh shape) bool {
	return req.Workload.TokensPerSecond == 0 || decodeRate(req, g, sh) >= req.Workload.TokensPerSecond
}

// tooSlow explains an empty candidate list when the rate, not the memory, emptied it: the fastest
// option that holds the memory and its rate, and the argument to change. Otherwise why stands.
func tooSlow(cloud catalog.Cloud, regions []string, need float64, req Request, env Env, why string) (string, string) {
	if req.Workload.TokensPerSecond == 0 {
		return why, ""
	}
	memoryOnly := req
	memoryOnly.Workload.TokensPerSecond = 0
	var fastest *candidate
	for _, c := range candidates(cloud, regions, need, memoryOnly, env) {
		if fastest == nil || c.DecodeTokensPerSecond > fastest.DecodeTokensPerSecond {
			fastest = &c
		}
	}
	if fastest == nil {
		return why, ""
	}
	return fmt.Sprintf("no %s option in %s decodes %g tokens/s per replica; the fastest that holds %s GiB, %s, decodes about %.1f tokens/s (estimate: memory bandwidth × %g ÷ bytes per token)",
		cloud, strings.Join(regions, ", "), req.Workload.TokensPerSecond, fmtGiB(need), fastest.Label(), fastest.DecodeTokensPerSecond, catalog.DecodeEfficiency), "workload.tokens_per_second"
}
