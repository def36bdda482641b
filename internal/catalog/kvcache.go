package catalog

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The KV cache of a served LLM: for every token of every sequence in flight, each attention layer
// keeps a key and a value vector per KV head. A serving engine (vLLM, TensorRT-LLM, SGLang) sizes
// its KV cache for the context length and the sequences it batches, on top of the weights, so a
// long-context or high-concurrency replica needs far more GPU memory than its weights:
//
//	KV bytes = 2 (K and V) × layers × KV heads × head size × bytes per element × tokens,
//	tokens   = context_length × concurrent_sequences.
//
// The elements are stored at the activation precision: 2 bytes (fp16/bf16) for every weight
// precision but fp32 (4 bytes) — vLLM's kv_cache_dtype "auto" (vLLM docs, "Quantized KV Cache",
// read 2026-11-28: "auto" uses the model's data type; weight-only AWQ/GPTQ models run fp16
// activations). An fp8 KV cache is an engine option gpufleet does not assume.
//
// The inference estimate's 1.2 overhead (memory.go) stays on the weights: it covers activations,
// the CUDA context and CUDA graphs, and a moderate KV cache, so weights × 1.2 + the KV cache errs
// on the side of more memory.

// KVModel is the attention shape of a model the catalog knows, from its published config.json
// (num_hidden_layers, num_key_value_heads, hidden_size / num_attention_heads or head_dim,
// max_position_embeddings).
type KVModel struct {
	Name              string
	ParametersBillion float64
	Layers            int
	KVHeads           int
	HeadDim           int
	MaxContext        int // tokens
}

// kvModels are the model families whose KV shape the catalog knows. Sources, read 2026-11-28:
//   - Llama 3.1 8B / 70B / 405B: meta-llama/Llama-3.1-*/config.json (as mirrored in
//     citsjtu2020/LLM-Prof sglang/Model_Config.md and oumi configs/recipes/llama3_1/README.md):
//     32 / 80 / 126 layers, 8 KV heads, head size 4096/32 = 8192/64 = 16384/128 = 128, 131 072
//     tokens; 8.03 / 70.6 / 405.9 B parameters (the model cards).
//   - Mistral 7B v0.3: mistralai/Mistral-7B-v0.3/config.json: 32 layers, 8 KV heads, 4096/32 = 128,
//     32 768 tokens, 7.25 B.
//   - Mixtral 8x7B: mistralai/Mixtral-8x7B-v0.1/config.json: 32 layers, 8 KV heads, 128, 32 768
//     tokens, 46.7 B (every expert's weights are resident).
//   - Qwen2.5 7B / 72B: Qwen/Qwen2.5-*/config.json: 28 layers, 4 KV heads (k_proj 512 = 4 × 128),
//     3584/28 = 128; 80 layers, 8 KV heads, 8192/64 = 128; 131 072 tokens with YaRN (the model
//     cards); 7.61 / 72.7 B.
var kvModels = []KVModel{
	{Name: "llama-3.1-8b", ParametersBillion: 8.03, Layers: 32, KVHeads: 8, HeadDim: 128, MaxContext: 131072},
	{Name: "llama-3.1-70b", ParametersBillion: 70.6, Layers: 80, KVHeads: 8, HeadDim: 128, MaxContext: 131072},
	{Name: "llama-3.1-405b", ParametersBillion: 405.9, Layers: 126, KVHeads: 8, HeadDim: 128, MaxContext: 131072},
	{Name: "mistral-7b-v0.3", ParametersBillion: 7.25, Layers: 32, KVHeads: 8, HeadDim: 128, MaxContext: 32768},
	{Name: "mixtral-8x7b", ParametersBillion: 46.7, Layers: 32, KVHeads: 8, HeadDim: 128, MaxContext: 32768},
	{Name: "qwen2.5-7b", ParametersBillion: 7.61, Layers: 28, KVHeads: 4, HeadDim: 128, MaxContext: 131072},
	{Name: "qwen2.5-72b", ParametersBillion: 72.7, Layers: 80, KVHeads: 8, HeadDim: 128, MaxContext: 131072},
}

// KVModels lists the models whose KV shape the catalog knows.
func KVModels() []KVModel { return slices.Clone(kvModels) }

// KVModelNames lists their names.
func KVModelNames() []string {
	out := make([]string, len(kvModels))
	for i, m := range kvModels {
		out[i] = m.Name
	}
	return out
}

// LookupKVModel finds a model by name (case-insensitive).
func LookupKVModel(name string) (KVModel, bool) {
	for _, m := range kvModels {
		if strings.EqualFold(m.Name, name) {
			return m, true
		}
	}
	return KVModel{}, false
}

// kvApproxAnchors are the Llama 3.1 family's (parameters, layers × KV heads × head size) points the
// approximation for a model the catalog does not know interpolates between.
var kvApproxAnchors = [][2]float64{{8.03, 32 * 8 * 128}, {70.6, 80 * 8 * 128}, {405.9, 126 * 8 * 128}}

// kvElementsApprox is layers × KV heads × head size for a model of p billion parameters whose shape
// the catalog does not know: the Llama 3.1 family's (grouped-query attention with 8 KV heads of 128,
// the shape of every current open family above), interpolated log-linearly in the parameter count
// between 8B, 70B and 405B, extended with the last segment's slope above 405B, and the 8B's below
// 8B (small models have fewer layers or narrower heads, so this errs on the side of more memory;
// a model with full multi-head attention, e.g. Llama 2 7B, needs 4 times more: give kv_cache_gib).
func kvElementsApprox(p float64) float64 {
	a := kvApproxAnchors
	if p <= a[0][0] {
		return a[0][1]
	}
	i := 1
	for i < len(a)-1 && p > a[i][0] {
		i++
	}
	x0, y0, x1, y1 := math.Log(a[i-1][0]), math.Log(a[i-1][1]), math.Log(a[i][0]), math.Log(a[i][1])
	return math.Exp(y0 + (math.Log(p)-x0)*(y1-y0)/(x1-x0))
}

// KVCacheDemand is what the KV cache of one replica holds.
type KVCacheDemand struct {
	Model               string  // a KVModels name; "" for the approximation from ParametersBillion
	ParametersBillion   float64 // for the approximation
	Precision           string  // the weights' precision: fp32 keeps a 4-byte cache, every other 2
	ContextLength       int     // tokens per sequence
	ConcurrentSequences int     // sequences in flight at once; 0 means 1
}

// KVCacheEstimate is the KV cache of one replica.
type KVCacheEstimate struct {
	GiB           float64 // rounded up to 0.01 GiB
	BytesPerToken float64
	Approximate   bool // the model's shape is not in the catalog
	Formula       string
}

// KVBytesPerElement is the size of one cached key or value element for weights at a precision.
func KVBytesPerElement(precision string) float64 {
	if precision == "fp32" {
		return 4
	}
	return 2
}

// KVCache estimates the KV cache of one replica (see above). Bad input is an *ArgumentError.
func KVCache(d KVCacheDemand) (KVCacheEstimate, error) {
	if d.ContextLength < 1 {
		return KVCacheEstimate{}, &ArgumentError{Argument: "context_length", Message: fmt.Sprintf("must be 1 or more tokens, got %d", d.ContextLength)}
	}
	seqs := d.ConcurrentSequences
	if seqs == 0 {
		seqs = 1
	}
	if seqs < 1 {
		return KVCacheEstimate{}, &ArgumentError{Argument: "concurrent_sequences", Message: fmt.Sprintf("must be 1 or more, got %d", seqs)}
	}
	bytes := KVBytesPerElement(d.Precision)
	tokens := float64(d.ContextLength) * float64(seqs)
	var e KVCacheEstimate
	if d.Model != "" {
		m, ok := LookupKVModel(d.Model)
		if !ok {
			return KVCacheEstimate{}, argumentError("model", "model", d.Model, KVModelNames())
		}
		if d.ContextLength > m.MaxContext {
			return KVCacheEstimate{}, &ArgumentError{Argument: "context_length", Message: fmt.Sprintf(
				"%s takes at most %d tokens of context (max_position_embeddings of its config), got %d", m.Name, m.MaxContext, d.ContextLength)}
		}
		e.BytesPerToken = 2 * float64(m.Layers*m.KVHeads*m.HeadDim) * bytes
		e.Formula = fmt.Sprintf("2 × %d layers × %d KV heads × %d × %g bytes × %d tokens × %d sequences", m.Layers, m.KVHeads, m.HeadDim, bytes, d.ContextLength, seqs)
	} else {
		if !(d.ParametersBillion > 0) || math.IsInf(d.ParametersBillion, 0) {
			return KVCacheEstimate{}, &ArgumentError{Argument: "model_parameters_billion", Message: "the KV cache of a model the catalog does not know is approximated from its size: set model_parameters_billion, or model, or kv_cache_gib"}
		}
		el := math.Round(kvElementsApprox(d.ParametersBillion))
		e.BytesPerToken, e.Approximate = 2*el*bytes, true
		e.Formula = fmt.Sprintf("2 × %g (layers × KV heads × head size, approximated from %g B parameters) × %g bytes × %d tokens × %d sequences", el, d.ParametersBillion, bytes, d.ContextLength, seqs)
	}
	e.GiB = math.Ceil(math.Round(e.BytesPerToken*tokens/bytesPerGiB*1e6)/1e4) / 100
	e.Formula += fmt.Sprintf(" = %g GiB", e.GiB)
	return e, nil
}
