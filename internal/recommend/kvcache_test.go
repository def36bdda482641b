package recommend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

var serve8B128k = Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, Model: "llama-3.1-8b", Precision: "bf16", ContextLength: 131072}

// A 128k-context 8B replica needs its 16 GiB KV cache on top of 17.95 GiB: 33.95 GiB, which no L4
// (21.23 GiB usable) holds. Without the KV cache the answer was an L4.
func TestRecommend_kvCache128kContext8BIsNotOnAnL4(t *testing.T) {
	e := env(t, catalog.Pricing{})
	short := serve8B128k
	short.ContextLength = 0
	a, err := Recommend(context.Background(), Request{Workload: short, Clouds: both, Regions: []string{"us-east-1", "us-central1"}}, e)
	if err != nil {
		t.Fatal(err)
	}
	if g := a.Results[catalog.AWS].Best.Node.GPUModel; g != "L4" {
		t.Fatalf("8B without context: %s, the test's premise is an L4", g)
	}
	a, err = Recommend(context.Background(), Request{Workload: serve8B128k, Clouds: both, Regions: []string{"us-east-1", "us-central1"}}, e)
	if err != nil {
		t.Fatal(err)
	}
	if a.NeedGiB != 33.95 || a.KVCacheGiB != 16 || a.HostGiB != 14.96 {
		t.Errorf("need %g GiB (KV %g, host %g), want 33.95 (16, 14.96)", a.NeedGiB, a.KVCacheGiB, a.HostGiB)
	}
	for _, cloud := range both {
		b := a.Results[cloud].Best
		if b == nil {
			t.Fatalf("%s: nothing fits: %s", cloud, a.Results[cloud].Why)
		}
		if b.ReplicaGiB*0.95 < 33.95 {
			t.Errorf("%s: %s gives a replica %g GiB", cloud, b.Label(), b.ReplicaGiB)
		}
		// The pool it plugs into carries the KV share, so the bundle and the pool resources count
		// only the weights in host memory.
		if w := b.Spec.Workload; w.GPUMemoryGiB != 33.95 || w.KVCacheGiB != 16 {
			t.Errorf("%s: pool workload %+v", cloud, w)
		}
	}
}

// An explicit kv_cache_gib adds to gpu_memory_gib the same way.
func TestRecommend_kvCacheGiBAddsToTheDeclaredNeed(t *testing.T) {
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 18, KVCacheGiB: 10}
	a, err := Recommend(context.Background(), Request{Workload: w, Clouds: both, Regions: []string{"us-east-1"}}, env(t, catalog.Pricing{}))
	if err != nil {
		t.Fatal(err)
	}
	if a.NeedGiB != 28 || a.KVCacheGiB != 10 || a.Results[catalog.AWS].Best.Spec.Workload.KVCacheGiB != 10 {
		t.Errorf("need %g, KV %g", a.NeedGiB, a.KVCacheGiB)
	}
}

func TestRecommend_kvCacheBadInputsNameTheArgument(t *testing.T) {
	infer := Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, ParametersBillion: 8, Precision: "bf16"}
	with := func(f func(*Workload)) Workload { w := infer; f(&w); return w }
	for name, tc := range map[string]struct {
		w        Workload
		argument string
		text     string
	}{
		"training with a context":       {with(func(w *Workload) { w.Kind = pool.KindTraining; w.ContextLength = 4096 }), "workload.context_length", "training workload has none"},
		"training with a KV cache":      {with(func(w *Workload) { w.Kind = pool.KindTraining; w.KVCacheGiB = 4 }), "workload.kv_cache_gib", "training workload has none"},
		"both KV inputs":                {with(func(w *Workload) { w.ContextLength = 4096; w.KVCacheGiB = 4 }), "workload.kv_cache_gib", "not both"},
		"sequences without context":     {with(func(w *Workload) { w.ConcurrentSequences = 8 }), "workload.concurrent_sequences", "needs context_length"},
		"unknown model":                 {with(func(w *Workload) { w.Model = "llama-8b"; w.ContextLength = 4096 }), "workload.model", "llama-3.1-8b"},
		"context beyond the window":     {with(func(w *Workload) { w.Model = "mixtral-8x7b"; w.ContextLength = 100000 }), "workload.context_length", "at most 32768"},
		"context on a bare memory need": {Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 20, ContextLength: 4096}, "workload.model", "attention shape"},
		"negative KV cache":             {with(func(w *Workload) { w.KVCacheGiB = -3 }), "workload.kv_cache_gib", "0 GiB or more"},
		"sequences with an explicit KV": {with(func(w *Workload) { w.KVCacheGiB = 3; w.ConcurrentSequences = 2 }), "workload.concurrent_sequences", "only applies with context_length"},
	} {
		_, err := Recommend(context.Background(), Request{Workload: tc.w, Clouds: both, Regions: []string{"us-east-1"}}, Env{})
		var ae *catalog.ArgumentError
		if !errors.As(err, &ae) || ae.Argument != tc.argument || !strings.Contains(ae.Message, tc.text) {
			t.Errorf("%s: %v, want %s: ...%s...", name, err, tc.argument, tc.text)
		}
	}
}

// The right-sizing guide quotes the KV-cache estimates of its worked examples as the recommendation
// computes them.
func TestRecommend_kvCacheFormulasInTheGuide(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", workedExamplesGuide))
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range workedExamples {
		if ex.req.Workload.ContextLength == 0 {
			continue
		}
		req := ex.req
		req.Clouds, req.Regions = both, []string{"us-east-1"}
		a, err := Recommend(context.Background(), req, Env{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(guide), "```\n"+a.KVCache.Formula+"\n```") {
			t.Errorf("%s: the guide does not quote\n%s", ex.name, a.KVCache.Formula)
		}
	}
	if !strings.Contains(string(guide), "on top of 17.95 GiB for its bf16 weights: 33.95 GiB") {
		t.Error("the guide does not give the 8B's need")
	}
}

// Issue #40, item 2: AWQ does not run on Volta, so an AWQ model on V100s only fails at plan at
// workload.precision, while the same model in GPTQ gets a V100 (the guide's worked examples).
func TestRecommend_awqIsNotOnVolta(t *testing.T) {
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 8, Precision: "awq"}
	_, err := Recommend(context.Background(), Request{Workload: w, Clouds: both, Regions: []string{"us-east-1", "us-central1"}, GPUModels: []string{"V100-16GB"}}, env(t, catalog.Pricing{}))
	var ae *catalog.ArgumentError
	if !errors.As(err, &ae) || ae.Argument != "workload.precision" || !strings.Contains(ae.Message, "does not compute in awq, which needs compute capability 7.5") {
		t.Errorf("got %v", err)
	}
}
