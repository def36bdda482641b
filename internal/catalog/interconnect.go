package catalog

// How a node's GPUs are linked to each other. A replica spread over several GPUs exchanges
// activations (tensor parallel) or gradients and shards (FSDP, ZeRO) between them every step; for
// training that needs NVLink, directly or through NVSwitch: PCIe is an order of magnitude slower.
const (
	InterconnectNVSwitch = "nvswitch" // every GPU reaches every other at full NVLink bandwidth
	InterconnectNVLink   = "nvlink"   // GPUs linked by NVLink point to point (hybrid cube mesh)
	InterconnectPCIe     = "pcie"     // GPUs only share the PCIe bus
)

// familyInterconnect is the interconnect of each family's multi-GPU shapes, as of 2026-01:
//   - AWS, "Amazon EC2 accelerated computing instances" and each family's product page: p3.8xlarge,
//     p3.16xlarge and p3dn.24xlarge link their V100s with NVLink; p4d/p4de (A100), p5/p5e/p5en
//     (H100, H200) and p6-b200 (B200) with NVSwitch (NVLink 3rd/4th/5th generation); g4dn, g5, g6,
//     gr6 and g6e multi-GPU sizes attach T4, A10G, L4 and L40S GPUs over PCIe only (those GPUs, as
//     AWS ships them, have no NVLink bridge).
//   - Google Cloud, Compute Engine "GPU machine types" (accelerator-optimized machine family): A2
//     (A100 40 GB and 80 GB) link their GPUs with NVLink, a2-megagpu-16g through NVSwitch; A3 (H100,
//     H200) and A4 (B200) through NVSwitch; G2 (L4) has no NVLink. N1 with attached T4/P4/P100/V100 GPUs
//     is taken as PCIe: Compute Engine does not promise an NVLink topology for attached GPUs.
var familyInterconnect = map[string]string{
	"p3": InterconnectNVLink, "p3dn": InterconnectNVLink,
	"p4d": InterconnectNVSwitch, "p4de": InterconnectNVSwitch,
	"p5": InterconnectNVSwitch, "p5e": InterconnectNVSwitch, "p5en": InterconnectNVSwitch,
	"p6-b200": InterconnectNVSwitch,
	"g4dn":    InterconnectPCIe, "g5": InterconnectPCIe, "g6": InterconnectPCIe, "gr6": InterconnectPCIe, "g6e": InterconnectPCIe,

	"a2-highgpu": InterconnectNVLink, "a2-ultragpu": InterconnectNVLink, "a2-megagpu": InterconnectNVSwitch,
	"a3-highgpu": InterconnectNVSwitch, "a3-megagpu": InterconnectNVSwitch, "a3-ultragpu": InterconnectNVSwitch,
	"a4-highgpu": InterconnectNVSwitch,
	"g2":         InterconnectPCIe, "n1": InterconnectPCIe,
}

// interconnectOf is the interconnect of a shape: "" with one GPU.
func interconnectOf(family string, gpus int) string {
	if gpus < 2 {
		return ""
	}
	ic, ok := familyInterconnect[family]
	if !ok {
		panic("catalog: no GPU interconnect for family " + family)
	}
	return ic
}
