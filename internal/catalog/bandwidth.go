package catalog

import (
	"fmt"
	"math"
)

// LLM decode throughput: how many tokens per second one replica generates.
//
// Generating a token (decode) reads every weight of the model once, plus the sequence's KV cache;
// at small batch sizes the arithmetic is negligible next to that read, so decode is bound by GPU
// memory bandwidth (Databricks, "LLM Inference Performance Engineering: Best Practices", 2023:
// "the speed at which the model weights can be loaded from memory … dominates" and Model Bandwidth
// Utilization, MBU = achieved bandwidth ÷ peak bandwidth; NVIDIA, "Mastering LLM Techniques:
// Inference Optimization", 2023: decode is memory-bandwidth-bound). The estimate is tokens/s =
// bandwidth per GPU × share × GPUs per replica × DecodeEfficiency ÷ bytes per token, where:
//   - bandwidth: NVIDIA's datasheet peak for the GPU (memoryBandwidthGBps below), decimal GB/s;
//   - share: the part of each GPU's bandwidth the replica has: 1 for a whole GPU; a MIG slice its
//     memory share (NVIDIA MIG User Guide: each memory slice holds 1/8 of the memory with its own
//     memory controllers, so bandwidth scales with memory slices); 1/k when k replicas time-slice;
//   - GPUs per replica: tensor parallelism splits the weights, so each GPU reads its part at once;
//   - DecodeEfficiency 0.6: the MBU well-tuned serving stacks reach at batch 1 (Databricks 2023
//     measures about 60 % for 7B-class models on A100s, less as tensor parallelism spreads a
//     model over more GPUs; the estimate is a floor for one stream, not a benchmark);
//   - bytes per token: the weights at the serving precision (parameters × BytesPerParameter);
//     given only a memory need, that need in bytes (weights plus KV cache and overhead, an upper
//     bound of what a token reads, so the rate is conservative).
//
// The rate is one stream's; batching serves many streams at nearly the same per-step cost, so a
// replica's aggregate throughput is higher. tokens_per_second asks what one stream gets.
const DecodeEfficiency = 0.6

// memoryBandwidthGBps is each GPU's peak memory bandwidth, decimal GB/s, from NVIDIA's datasheets
// (as of 2026): T4 (320), Tesla P4 (192), Tesla P100 PCIe 16 GB (732), V100 SXM2 16/32 GB (900; p3
// and GKE's V100 are SXM2), A10 / A10G (600; AWS G5 page: "A10G Tensor Core GPU … 600 GB/s"), L4
// (300), L40S (864), A30 (933), A100 40 GB SXM4 (1,555), A100 80 GB SXM4 (2,039), H100 SXM5 (3,350),
// H100 NVL (3,900), H200 (4,800), B200 in HGX B200 (8,000 per GPU).
var memoryBandwidthGBps = map[string]float64{
	"T4":         320,
	"P4":         192,
	"P100":       732,
	"V100-16GB":  900,
	"V100-32GB":  900,
	"A10G":       600,
	"L4":         300,
	"L40S":       864,
	"A30":        933,
	"A100-40GB":  1555,
	"A100-80GB":  2039,
	"H100-80GB":  3350,
	"H100-94GB":  3900,
	"H200-141GB": 4800,
	"B200":       8000,
}

// MemoryBandwidthGBps is the GPU's peak memory bandwidth in decimal GB/s; 0 when unknown.
func MemoryBandwidthGBps(g GPUModel) float64 { return memoryBandwidthGBps[g.Name] }

// DecodeShape is what one replica decodes on: its GPU model, how many GPUs it spans (tensor
// parallel, 1 or more) and the share of each GPU's bandwidth it has (0 or 1 for whole GPUs).
type DecodeShape struct {
	GPU            GPUModel
	GPUsPerReplica int
	Share          float64
}

// DecodeTokensPerSecond is the decode estimate above for one replica reading bytesPerToken per
// token. The fit of a workload with a throughput need calls it to check a shape meets the rate.
func DecodeTokensPerSecond(s DecodeShape, bytesPerToken float64) (float64, error) {
	bw := MemoryBandwidthGBps(s.GPU)
	share := s.Share
	if share == 0 {
		share = 1
	}
	switch {
	case bw == 0:
		return 0, fmt.Errorf("no memory bandwidth for GPU %q in the catalog", s.GPU.Name)
	case s.GPUsPerReplica < 1 || share < 0 || share > 1 || math.IsNaN(share):
		return 0, fmt.Errorf("decode shape %d GPUs × share %g: want 1 or more GPUs and a share in (0, 1]", s.GPUsPerReplica, share)
	case !(bytesPerToken > 0):
		return 0, fmt.Errorf("bytes per token %g: want more than 0", bytesPerToken)
	}
	return bw * 1e9 * share * float64(s.GPUsPerReplica) * DecodeEfficiency / bytesPerToken, nil
}

// WeightBytes is what a model's weights take at a precision: parameters × BytesPerParameter, the
// bytes a decode step reads.
func WeightBytes(parametersBillion float64, precision string) (float64, error) {
	b, ok := BytesPerParameter[precision]
	if !ok {
		return 0, argumentError("precision", "precision", precision, Precisions())
	}
	if !(parametersBillion > 0) {
		return 0, &ArgumentError{Argument: "parameters_billion", Message: fmt.Sprintf("must be positive, got %g", parametersBillion)}
	}
	return parametersBillion * 1e9 * b, nil
}
