package recommend

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// The KV cache (issue #40, item 1): a serving replica holds, besides its weights, the keys and
// values of every token of every sequence in flight (catalog.KVCache). With workload.context_length
// (and concurrent_sequences), or an explicit workload.kv_cache_gib, the need is the weights'
// estimate (or gpu_memory_gib) plus the KV cache; the fit then counts only the weights in host
// memory (catalog.FitDemand.KVCacheGiB), and the answer's pool carries kv_cache_gib so that the
// pool resources and the bundle judge it the same way.

// kvCacheOf works out one replica's KV cache for the request (0 without one) and, for a model the
// catalog knows, fills in its parameter count when the request gives none.
func kvCacheOf(req *Request) (float64, *catalog.KVCacheEstimate, error) {
	w := &req.Workload
	if w.Model != "" {
		m, ok := catalog.LookupKVModel(w.Model)
		if !ok {
			return 0, nil, &catalog.ArgumentError{Argument: "workload.model", Message: fmt.Sprintf(
				"unknown model %q; models whose KV-cache shape the catalog knows, nearest first: %s (for another model give model_parameters_billion, and kv_cache_gib or context_length for an approximation)",
				w.Model, strings.Join(catalog.Nearest(w.Model, catalog.KVModelNames()), ", "))}
		}
		if w.ParametersBillion == 0 && w.GPUMemoryGiB == 0 {
			w.ParametersBillion = m.ParametersBillion
		}
	}
	serving := w.ContextLength != 0 || w.ConcurrentSequences != 0 || w.KVCacheGiB != 0
	switch {
	case !serving:
		return 0, nil, nil
	case w.Kind == pool.KindTraining:
		arg := "workload.context_length"
		if w.KVCacheGiB != 0 {
			arg = "workload.kv_cache_gib"
		}
		return 0, nil, &catalog.ArgumentError{Argument: arg, Message: "is the KV cache of a serving engine; a training workload has none (remove it or set kind to inference)"}
	case math.IsNaN(w.KVCacheGiB) || w.KVCacheGiB < 0:
		return 0, nil, &catalog.ArgumentError{Argument: "workload.kv_cache_gib", Message: fmt.Sprintf("must be 0 GiB or more, got %g", w.KVCacheGiB)}
	case w.KVCacheGiB != 0 && w.ContextLength != 0:
		return 0, nil, &catalog.ArgumentError{Argument: "workload.kv_cache_gib", Message: "give the KV cache either as kv_cache_gib or as context_length (and concurrent_sequences), not both"}
	case w.KVCacheGiB != 0:
		if w.ConcurrentSequences != 0 {
			return 0, nil, &catalog.ArgumentError{Argument: "workload.concurrent_sequences", Message: "only applies with context_length; kv_cache_gib already counts every sequence"}
		}
		return w.KVCacheGiB, nil, nil
	case w.ContextLength == 0:
		return 0, nil, &catalog.ArgumentError{Argument: "workload.concurrent_sequences", Message: "needs context_length: the KV cache holds context_length tokens for each sequence"}
	case w.Model == "" && w.ParametersBillion == 0:
		return 0, nil, &catalog.ArgumentError{Argument: "workload.model", Message: fmt.Sprintf(
			"context_length needs the model's attention shape: set model (%s) or model_parameters_billion (approximated), or give kv_cache_gib instead",
			strings.Join(catalog.KVModelNames(), ", "))}
	}
	e, err := catalog.KVCache(catalog.KVCacheDemand{Model: w.Model, ParametersBillion: w.ParametersBillion, Precision: w.Precision,
		ContextLength: w.ContextLength, ConcurrentSequences: w.ConcurrentSequences})
	if ae := (*catalog.ArgumentError)(nil); errors.As(err, &ae) {
		return 0, nil, &catalog.ArgumentError{Argument: "workload." + ae.Argument, Message: ae.Message}
	}
	if err != nil {
		return 0, nil, err
	}
	return e.GiB, &e, nil
}
