package catalog

import (
	"errors"
	"strings"
	"testing"
)

// Llama 3.1 8B keeps 2 × 32 layers × 8 KV heads × 128 × 2 bytes = 128 KiB per token: its full
// 131 072-token context is 16 GiB of KV cache for one sequence, on top of 16 GB of bf16 weights.
func TestKVCache_llama31_8BAt128kTokensIs16GiB(t *testing.T) {
	e, err := KVCache(KVCacheDemand{Model: "llama-3.1-8b", Precision: "bf16", ContextLength: 131072})
	if err != nil {
		t.Fatal(err)
	}
	if e.GiB != 16 || e.BytesPerToken != 131072 || e.Approximate {
		t.Errorf("got %+v, want 16 GiB at 131072 bytes per token", e)
	}
	// 32 sequences of 8k on Llama 3.1 70B: 320 KiB per token × 262 144 tokens = 80 GiB.
	e, err = KVCache(KVCacheDemand{Model: "LLAMA-3.1-70B", Precision: "fp8", ContextLength: 8192, ConcurrentSequences: 32})
	if err != nil || e.GiB != 80 {
		t.Errorf("70B, 32 x 8k: got %+v, %v; want 80 GiB", e, err)
	}
	// fp32 weights keep a 4-byte cache.
	e, _ = KVCache(KVCacheDemand{Model: "qwen2.5-7b", Precision: "fp32", ContextLength: 1000})
	if want := 2.0 * 28 * 4 * 128 * 4; e.BytesPerToken != want {
		t.Errorf("qwen2.5-7b fp32: %g bytes per token, want %g", e.BytesPerToken, want)
	}
}

// Every model of the catalog has a plausible shape: its KV per token is between Qwen2.5 7B's
// (the narrowest) and Llama 3.1 405B's, and its size and context are set.
func TestKVCache_modelsOfTheCatalogHaveTheirShape(t *testing.T) {
	for _, m := range KVModels() {
		el := m.Layers * m.KVHeads * m.HeadDim
		if el < 28*4*128 || el > 126*8*128 || m.ParametersBillion <= 0 || m.MaxContext < 8192 {
			t.Errorf("%+v", m)
		}
	}
}

// For a model the catalog does not know, the approximation is the Llama 3.1 family's shape at its
// sizes, grows with the size in between, and never falls below the 8B's.
func TestKVCache_approximationFollowsTheLlamaFamily(t *testing.T) {
	for _, a := range kvApproxAnchors {
		if got := kvElementsApprox(a[0]); got < a[1]-1e-6 || got > a[1]+1e-6 {
			t.Errorf("%g B: %g, want %g", a[0], got, a[1])
		}
	}
	prev := 0.0
	for _, p := range []float64{0.5, 3, 8.03, 13, 34, 70.6, 120, 405.9, 1000} {
		got := kvElementsApprox(p)
		if got < prev || got < 32768 {
			t.Errorf("%g B: %g after %g", p, got, prev)
		}
		prev = got
	}
	e, err := KVCache(KVCacheDemand{ParametersBillion: 13, Precision: "fp16", ContextLength: 4096})
	if err != nil || !e.Approximate || !strings.Contains(e.Formula, "approximated from 13 B parameters") {
		t.Errorf("13B approximation: %+v, %v", e, err)
	}
}

func TestKVCache_badInputsNameTheArgument(t *testing.T) {
	for name, tc := range map[string]struct {
		d        KVCacheDemand
		argument string
		text     string
	}{
		"no context":             {KVCacheDemand{Model: "llama-3.1-8b"}, "context_length", "1 or more"},
		"negative sequences":     {KVCacheDemand{Model: "llama-3.1-8b", ContextLength: 10, ConcurrentSequences: -2}, "concurrent_sequences", "1 or more"},
		"unknown model":          {KVCacheDemand{Model: "llama-3-8b", ContextLength: 10}, "model", "llama-3.1-8b"},
		"beyond the window":      {KVCacheDemand{Model: "mistral-7b-v0.3", ContextLength: 65536}, "context_length", "at most 32768"},
		"neither model nor size": {KVCacheDemand{ContextLength: 10}, "model_parameters_billion", "kv_cache_gib"},
	} {
		_, err := KVCache(tc.d)
		var ae *ArgumentError
		if !errors.As(err, &ae) || ae.Argument != tc.argument || !strings.Contains(ae.Message, tc.text) {
			t.Errorf("%s: %v, want %s: ...%s...", name, err, tc.argument, tc.text)
		}
	}
}

// The KV cache is GPU memory only: the fit counts the weights of a replica in host memory, not its
// cache. 8B bf16 at 128k tokens needs 33.95 GiB of GPU memory, of which 16 GiB KV cache: a node
// loads (33.95 − 16) / 1.2 = 14.96 GiB of weights per replica, not 28.3.
func TestFitWorkload_kvCacheIsNotInHostMemory(t *testing.T) {
	n, _ := AWSInstanceType("g6e.xlarge")
	with := FitWorkload(WholeGPUs(n), FitDemand{NeedGiB: 33.95, KVCacheGiB: 16, Kind: "inference", HeadroomPercent: 5, Replicas: 1})
	without := FitWorkload(WholeGPUs(n), FitDemand{NeedGiB: 33.95, Kind: "inference", HeadroomPercent: 5, Replicas: 1})
	if want := roundUp2(14.96 + HostMemoryReserveGiB(AWS, n.MemoryGiB)); with.HostNeedGiB != want {
		t.Errorf("host need with the KV cache: %g GiB, want %g", with.HostNeedGiB, want)
	}
	if without.HostNeedGiB <= with.HostNeedGiB {
		t.Errorf("host need without the KV share %g should exceed %g", without.HostNeedGiB, with.HostNeedGiB)
	}
}
