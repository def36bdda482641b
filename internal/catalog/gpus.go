package catalog

import "strconv"

// The GPU models gpufleet knows.
//
// MemoryGiB is usable memory in GiB (2^30 bytes), as the cloud reports it (EC2 DescribeInstanceTypes
// GpuInfo.MemoryInfo.SizeInMiB / 1024), rounded down to 0.01 GiB: fit decisions (GF-RS-001, the
// recommendation) compare it with a need in GiB. Marketing sizes in decimal GB ("24 GB") stay labels
// in names such as "H100-80GB" and in MIG profile names.
//
// MIG tables follow NVIDIA's MIG User Guide, "Supported MIG Profiles": profile name, compute slices
// (the "Ng"), nominal memory (the "Ngb") and the number of instances of that profile one GPU holds.
// The "+me" profiles carry the media extensions (NVDEC/NVJPG/OFA); only one of them fits on a GPU.
// The "1g.<2x>gb" profiles pair one compute slice with two memory slices, so only four fit.
//
// BalancedMIG is the profile set of the "all-balanced" config shipped with NVIDIA mig-parted and the
// GPU Operator's MIG manager (config-default.yaml), which is what `mig.config=all-balanced` applies.
var gpuModels = withComputeCapability(capMIGMemory([]GPUModel{
	{Name: "T4", Architecture: "Turing", MemoryGiB: 16, Class: ClassInference, GKEAccelerator: "nvidia-tesla-t4"},
	{Name: "V100-16GB", Architecture: "Volta", MemoryGiB: 16, Class: ClassTraining, GKEAccelerator: "nvidia-tesla-v100"},
	// The 32 GB V100 is only on p3dn; GKE's nvidia-tesla-v100 is the 16 GB part.
	{Name: "V100-32GB", Architecture: "Volta", MemoryGiB: 32, Class: ClassTraining},
	{Name: "P100", Architecture: "Pascal", MemoryGiB: 16, Class: ClassTraining, GKEAccelerator: "nvidia-tesla-p100"},
	// Tesla P4: 8 GB GDDR5, an inference card; GKE attaches 1, 2 or 4 to N1 machines.
	{Name: "P4", Architecture: "Pascal", MemoryGiB: 8, Class: ClassInference, GKEAccelerator: "nvidia-tesla-p4"},
	// A10G and L4 are sold as "24 GB"; EC2 reports 22,888 MiB (g5, g6): 22.35 GiB.
	{Name: "A10G", Architecture: "Ampere", MemoryGiB: 22.35, Class: ClassInference},
	{Name: "L4", Architecture: "Ada Lovelace", MemoryGiB: 22.35, Class: ClassInference, GKEAccelerator: "nvidia-l4"},
	// L40S is sold as "48 GB"; EC2 reports 45,776 MiB (g6e): 44.70 GiB.
	{Name: "L40S", Architecture: "Ada Lovelace", MemoryGiB: 44.7, Class: ClassInference},
	{
		// A30 is GA100 silicon sold for mainstream inference; it supports MIG with four slices.
		Name: "A30", Architecture: "Ampere", MemoryGiB: 24, Class: ClassInference,
		MIGProfiles: []MIGProfile{
			{"1g.6gb", 1, 6, 4},
			{"1g.6gb+me", 1, 6, 1},
			{"2g.12gb", 2, 12, 2},
			{"2g.12gb+me", 2, 12, 1},
			{"4g.24gb", 4, 24, 1},
		},
		BalancedMIG: []string{"1g.6gb", "2g.12gb"},
	},
	{
		Name: "A100-40GB", Architecture: "Ampere", MemoryGiB: 40, Class: ClassTraining, GKEAccelerator: "nvidia-tesla-a100",
		MIGProfiles: sevenSliceProfiles(5, 10, 20, 40),
		BalancedMIG: []string{"1g.5gb", "2g.10gb", "3g.20gb"},
	},
	{
		Name: "A100-80GB", Architecture: "Ampere", MemoryGiB: 80, Class: ClassTraining, GKEAccelerator: "nvidia-a100-80gb",
		MIGProfiles: sevenSliceProfiles(10, 20, 40, 80),
		BalancedMIG: []string{"1g.10gb", "2g.20gb", "3g.40gb"},
	},
	{
		Name: "H100-80GB", Architecture: "Hopper", MemoryGiB: 80, Class: ClassTraining, GKEAccelerator: "nvidia-h100-80gb",
		MIGProfiles: sevenSliceProfiles(10, 20, 40, 80),
		BalancedMIG: []string{"1g.10gb", "2g.20gb", "3g.40gb"},
	},
	{
		// H100 NVL. No AWS or GKE node type carries it; it is here for its MIG table (other clouds, on-prem).
		Name: "H100-94GB", Architecture: "Hopper", MemoryGiB: 94, Class: ClassTraining,
		MIGProfiles: sevenSliceProfiles(12, 24, 47, 94),
		BalancedMIG: []string{"1g.12gb", "2g.24gb", "3g.47gb"},
	},
	{
		Name: "H200-141GB", Architecture: "Hopper", MemoryGiB: 141, Class: ClassTraining, GKEAccelerator: "nvidia-h200-141gb",
		MIGProfiles: sevenSliceProfiles(18, 35, 71, 141),
		BalancedMIG: []string{"1g.18gb", "2g.35gb", "3g.71gb"},
	},
	{
		// B200 is sold as "180 GB"; EC2 reports about 179 GiB per GPU (p6-b200). MIG profile names
		// keep NVIDIA's nominal sizes.
		Name: "B200", Architecture: "Blackwell", MemoryGiB: 179, Class: ClassTraining, GKEAccelerator: "nvidia-b200",
		MIGProfiles: sevenSliceProfiles(23, 45, 90, 180),
		BalancedMIG: []string{"1g.23gb", "2g.45gb", "3g.90gb"},
	},
}))

// computeCapabilities is each GPU's compute capability, from NVIDIA's "CUDA GPUs" page
// (developer.nvidia.com/cuda-gpus, "Compute Capability" tables, as of 2026-01): Tesla P100 6.0,
// Tesla P4 6.1, V100 7.0, T4 7.5, A100 and A30 8.0, A10G (GA102, the A10's chip) 8.6, L4 and L40S
// 8.9, H100 and H200 9.0, B200 10.0.
var computeCapabilities = map[string]float64{
	"T4": 7.5, "V100-16GB": 7.0, "V100-32GB": 7.0, "P100": 6.0, "P4": 6.1,
	"A10G": 8.6, "L4": 8.9, "L40S": 8.9, "A30": 8.0, "A100-40GB": 8.0, "A100-80GB": 8.0,
	"H100-80GB": 9.0, "H100-94GB": 9.0, "H200-141GB": 9.0, "B200": 10.0,
}

func withComputeCapability(models []GPUModel) []GPUModel {
	for i := range models {
		cc, ok := computeCapabilities[models[i].Name]
		if !ok {
			panic("catalog: no compute capability for " + models[i].Name)
		}
		models[i].ComputeCapability = cc
	}
	return models
}

// MinComputeCapability is the compute capability each precision needs on the GPU, as of 2026-01:
//   - fp32: every CUDA GPU; fp16: native half arithmetic from 5.3 (CUDA C++ Programming Guide,
//     "Arithmetic Instructions"; every GPU in the catalog has it);
//   - int8: 6.1, the __dp4a 8-bit dot product that int8 inference kernels (TensorRT) build on
//     (CUDA C++ Programming Guide, "Integer Intrinsics"): the P100 (6.0) has none;
//   - int4: 7.0, the oldest architecture vLLM runs GPTQ and bitsandbytes 4-bit kernels on (vLLM
//     docs, "Supported Hardware" for quantization: Volta = SM 7.0);
//   - bf16: 8.0, Ampere's tensor cores are the first with bfloat16 (NVIDIA A100 Tensor Core GPU
//     Architecture whitepaper, 2020); Turing and Volta have none, so "bf16 on a T4" does not run;
//   - fp8: 8.9, FP8 tensor cores come with Ada Lovelace and Hopper (NVIDIA Ada and Hopper
//     architecture whitepapers; vLLM "FP8 W8A8": compute capability >= 8.9).
//
// Weight-only quantisation and fp4, by the serving engines' hardware tables (issue #40, item 2):
//   - gptq: 7.0, GPTQ kernels run on Volta and newer (vLLM docs, "Supported Hardware" for
//     quantization, https://docs.vllm.ai/en/v0.11.2/features/quantization/, read 2026-11-28:
//     GPTQ ✅ on Volta, Turing, Ampere, Ada, Hopper);
//   - awq: 7.5, AWQ kernels from Turing (same table: AWQ ❌ Volta, ✅ Turing and newer; Volta is
//     SM 7.0, Turing SM 7.5);
//   - fp4: 10.0, FP4 (NVFP4) weights and activations need Blackwell's FP4 tensor cores (NVIDIA
//     Model Optimizer "Support Matrix", https://nvidia.github.io/Model-Optimizer/guides/0_support_matrix.html,
//     read 2026-11-28: "FP4 … GPUs: Blackwell and Later"; TensorRT-LLM "Quantization": FP4 on
//     Blackwell).
var MinComputeCapability = map[string]float64{
	"fp32": 0, "fp16": 5.3, "int8": 6.1, "int4": 7.0, "bf16": 8.0, "fp8": 8.9,
	"gptq": 7.0, "awq": 7.5, "fp4": 10.0,
}

// SupportsPrecision reports whether the GPU computes in a precision ("" supports everything).
func (g GPUModel) SupportsPrecision(precision string) bool {
	if precision == "" {
		return true
	}
	need, ok := MinComputeCapability[precision]
	return ok && g.ComputeCapability >= need
}

// capMIGMemory caps each MIG profile's memory at its GPU's usable memory: the profile name is
// NVIDIA's nominal size (B200's 7g.180gb), but no slice holds more than the whole GPU.
func capMIGMemory(models []GPUModel) []GPUModel {
	for i := range models {
		for j := range models[i].MIGProfiles {
			models[i].MIGProfiles[j].MemoryGiB = min(models[i].MIGProfiles[j].MemoryGiB, models[i].MemoryGiB)
		}
	}
	return models
}

// sevenSliceProfiles builds the MIG table shared by every seven-slice GPU (A100, H100, H200, B200).
// NVIDIA rounds the memory in profile names per part (H100 NVL: 1g.12gb but 1g.24gb; H200: 1g.18gb but
// 1g.35gb), so the four memory sizes are given rather than derived: one memory slice, the quarter-GPU
// size (1g double-memory and 2g profiles), the half-GPU size (3g and 4g) and the whole GPU (7g).
func sevenSliceProfiles(slice, quarter, half, full int) []MIGProfile {
	p := func(g, mem int, suffix string, maxInstances int) MIGProfile {
		return MIGProfile{
			Name:          strconv.Itoa(g) + "g." + strconv.Itoa(mem) + "gb" + suffix,
			ComputeSlices: g,
			MemoryGiB:     float64(mem),
			MaxInstances:  maxInstances,
		}
	}
	return []MIGProfile{
		p(1, slice, "", 7),
		p(1, slice, "+me", 1), // media extensions exist once per GPU
		p(1, quarter, "", 4),
		p(2, quarter, "", 3),
		p(3, half, "", 2),
		p(4, half, "", 1),
		p(7, full, "", 1),
	}
}

// gkeAcceleratorAliases are GKE accelerator types that name a GPU under a second name. A3 Mega
// machines carry H100s under their own accelerator type because of their different GPU networking.
var gkeAcceleratorAliases = map[string]string{
	"nvidia-h100-mega-80gb": "H100-80GB",
}
