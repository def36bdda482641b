package cloudsim

import (
	"strconv"
	"strings"
)

// A small, deliberately independent table of GKE GPU facts. The simulator must not share the
// provider's catalog: it exists to catch the provider's mistakes. Sources: GKE documentation
// "About GPUs in GKE" (accelerator-optimized machine types and their fixed GPUs), Compute Engine
// "GPU machine types" (N1 + GPU counts and vCPU limits) and GKE "Running multi-instance GPUs"
// (gpu_partition_size values per accelerator).

// fixedGPU is the GPU set an accelerator-optimized machine type always carries.
type fixedGPU struct {
	accelerator string
	count       int64
}

// fixedGPUMachines maps accelerator-optimized machine types to their attached GPUs (Compute
// Engine: A4, A3, A2 and G2 machine series).
var fixedGPUMachines = map[string]fixedGPU{
	"a2-highgpu-1g":  {"nvidia-tesla-a100", 1},
	"a2-highgpu-2g":  {"nvidia-tesla-a100", 2},
	"a2-highgpu-4g":  {"nvidia-tesla-a100", 4},
	"a2-highgpu-8g":  {"nvidia-tesla-a100", 8},
	"a2-megagpu-16g": {"nvidia-tesla-a100", 16},
	"a2-ultragpu-1g": {"nvidia-a100-80gb", 1},
	"a2-ultragpu-2g": {"nvidia-a100-80gb", 2},
	"a2-ultragpu-4g": {"nvidia-a100-80gb", 4},
	"a2-ultragpu-8g": {"nvidia-a100-80gb", 8},
	"a3-highgpu-1g":  {"nvidia-h100-80gb", 1},
	"a3-highgpu-2g":  {"nvidia-h100-80gb", 2},
	"a3-highgpu-4g":  {"nvidia-h100-80gb", 4},
	"a3-highgpu-8g":  {"nvidia-h100-80gb", 8},
	"a3-edgegpu-8g":  {"nvidia-h100-80gb", 8},
	"a3-megagpu-8g":  {"nvidia-h100-mega-80gb", 8},
	"a3-ultragpu-8g": {"nvidia-h200-141gb", 8},
	"a4-highgpu-8g":  {"nvidia-b200", 8},
	"g2-standard-4":  {"nvidia-l4", 1},
	"g2-standard-8":  {"nvidia-l4", 1},
	"g2-standard-12": {"nvidia-l4", 1},
	"g2-standard-16": {"nvidia-l4", 1},
	"g2-standard-32": {"nvidia-l4", 1},
	"g2-standard-24": {"nvidia-l4", 2},
	"g2-standard-48": {"nvidia-l4", 4},
	"g2-standard-96": {"nvidia-l4", 8},
}

// n1GPUs lists the GPUs attachable to N1 machine types: for each allowed GPU count, the largest
// N1 vCPU count it supports (Compute Engine: "N1 machine series — GPUs").
var n1GPUs = map[string]map[int64]int{
	"nvidia-tesla-t4":   {1: 48, 2: 48, 4: 96},
	"nvidia-tesla-v100": {1: 12, 2: 24, 4: 48, 8: 96},
	"nvidia-tesla-p100": {1: 16, 2: 32, 4: 64},
	"nvidia-tesla-p4":   {1: 24, 2: 48, 4: 96},
}

// migPartitions are the gpu_partition_size values GKE accepts per accelerator (GKE "Running
// multi-instance GPUs — partition sizes").
var migPartitions = map[string][]string{
	"nvidia-tesla-a100":     {"1g.5gb", "2g.10gb", "3g.20gb", "7g.40gb"},
	"nvidia-a100-80gb":      {"1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb"},
	"nvidia-h100-80gb":      {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "7g.80gb"},
	"nvidia-h100-mega-80gb": {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "7g.80gb"},
	"nvidia-h200-141gb":     {"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"},
	"nvidia-b200":           {"1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"},
}

// notOnDemand lists the machine types Compute Engine does not sell as standard VMs without a
// reservation, with what it sells them as: A3 High with 1, 2 or 4 GPUs only as Spot VMs or with
// flex-start ("Accelerator-optimized machine family", https://cloud.google.com/compute/docs/accelerator-optimized-machines),
// A3 Ultra and A4 from reservations, flex-start or Spot ("Consumption options",
// https://cloud.google.com/ai-hypercomputer/docs/consumption-models). Read 2026-11-25.
var notOnDemand = map[string]struct {
	reservable bool
	models     string
}{
	"a3-highgpu-1g":  {false, "Spot VMs or flex-start"},
	"a3-highgpu-2g":  {false, "Spot VMs or flex-start"},
	"a3-highgpu-4g":  {false, "Spot VMs or flex-start"},
	"a3-ultragpu-8g": {true, "reservations, flex-start or Spot VMs"},
	"a4-highgpu-8g":  {true, "reservations, flex-start or Spot VMs"},
}

// n1VCPUs returns the vCPU count of an N1 machine type (n1-standard-8 → 8, n1-custom-8-30720 → 8).
func n1VCPUs(machineType string) (int, bool) {
	parts := strings.Split(machineType, "-")
	if len(parts) < 3 || parts[0] != "n1" {
		return 0, false
	}
	n, err := strconv.Atoi(parts[2])
	return n, err == nil
}
