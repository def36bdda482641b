package catalog

// How a node's GPUs reach the GPUs of other nodes. A training replica larger than one node (data,
// tensor or pipeline parallel over several nodes) exchanges gradients and activations between nodes
// every step through NCCL; over the node's ordinary TCP network that runs at a few GB/s, two orders
// of magnitude below the GPU fabrics the clouds offer for it. Those fabrics are:
const (
	// NetworkEFA is AWS Elastic Fabric Adapter: OS-bypass interfaces (InterfaceType "efa" or
	// "efa-only") on the instance's network cards, used by NCCL through the aws-ofi-nccl plugin.
	NetworkEFA = "efa"
	// NetworkGPUDirectTCPX is Google Cloud GPUDirect-TCPX (A3 High): four extra gVNIC networks
	// whose traffic goes from GPU memory to the NIC without the CPU.
	NetworkGPUDirectTCPX = "gpudirect-tcpx"
	// NetworkGPUDirectTCPXO is GPUDirect-TCPXO (A3 Mega): eight extra GPU networks, the offloaded TCPX.
	NetworkGPUDirectTCPXO = "gpudirect-tcpxo"
	// NetworkGPUDirectRDMA is GPUDirect-RDMA over RoCE (A3 Ultra, A4): eight RDMA NICs, one per GPU.
	NetworkGPUDirectRDMA = "gpudirect-rdma"
)

// InterNodeNetworks are the values NodeType.InterNode takes (other than ""), in the order answers
// and messages list them.
var InterNodeNetworks = []string{NetworkEFA, NetworkGPUDirectTCPX, NetworkGPUDirectTCPXO, NetworkGPUDirectRDMA}

// awsEFA is, per EC2 GPU instance type the catalog knows, the number of network cards, which is the
// number of EFA interfaces it takes (one per card; EC2 DescribeInstanceTypes NetworkInfo
// MaximumNetworkCards and EfaInfo.MaximumEfaInterfaces). A type missing here does not support EFA.
// Sources, read 2026-11-28:
//   - EC2 User Guide "Elastic Fabric Adapter", "Supported instance types" (awsdocs/amazon-ec2-user-guide,
//     doc_source/efa.md): accelerated computing g4dn.8xlarge, g4dn.12xlarge, g4dn.metal, g5.48xlarge,
//     p3dn.24xlarge, p4d.24xlarge; "p4d.24xlarge … support up to four EFAs. All other supported
//     instance types support only one EFA per instance" (of that list).
//   - EC2 User Guide "Maximize network bandwidth on accelerated computing instances with EFA"
//     (docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html): "P5 and P5e instances
//     support up to 32 network cards"; "G6e instances support up to four network cards".
//   - meta-pytorch/torchx specs/named_resources_aws.py (PRs #995, #1098): p5e.48xlarge 32 EFA devices,
//     p5en.48xlarge 16 (EFAv3, 3,200 Gbps over 16 cards of 200 Gbps).
//
// Assumptions, stated because the pages above list only part of them (EC2 instance type
// specifications, "Network specifications", as remembered, not re-read): p4de.24xlarge has p4d's 4
// cards; p6-b200.48xlarge 8 cards (8 × 400 Gbps EFAv4); g6e.24xlarge 2 cards and g6e.8xlarge to
// g6e.16xlarge 1; the g5, g6 and gr6 sizes from 8xlarge up and g4dn.16xlarge one EFA each. p5.4xlarge
// (one H100) is left without EFA: a one-GPU node is no building block for a multi-node replica.
var awsEFA = map[string]int{
	"g4dn.8xlarge": 1, "g4dn.12xlarge": 1, "g4dn.16xlarge": 1, "g4dn.metal": 1,
	"g5.8xlarge": 1, "g5.12xlarge": 1, "g5.16xlarge": 1, "g5.24xlarge": 1, "g5.48xlarge": 1,
	"g6.8xlarge": 1, "g6.12xlarge": 1, "g6.16xlarge": 1, "g6.24xlarge": 1, "g6.48xlarge": 1,
	"gr6.8xlarge": 1,
	"g6e.8xlarge": 1, "g6e.12xlarge": 1, "g6e.16xlarge": 1, "g6e.24xlarge": 2, "g6e.48xlarge": 4,
	"p3dn.24xlarge": 1,
	"p4d.24xlarge":  4, "p4de.24xlarge": 4,
	"p5.48xlarge": 32, "p5e.48xlarge": 32, "p5en.48xlarge": 16,
	"p6-b200.48xlarge": 8,
}

// gkeGPUDirect is, per GKE machine type, its inter-node GPU network and the extra GPU NICs (additional
// node networks) it takes for it. Sources, read 2026-11-28:
//   - GKE "Maximize GPU network bandwidth with GPUDirect and multi-networking"
//     (cloud.google.com/kubernetes-engine/docs/how-to/gpu-bandwidth-gpudirect-tcpx): a3-highgpu-8g
//     with GPUDirect-TCPX over 4 additional networks, a3-megagpu-8g with GPUDirect-TCPXO over 8;
//   - GKE API container.v1beta1 GPUDirectConfig.GPUDirectStrategy: "RDMA: GPUDirect-RDMA on A3 Ultra,
//     and A4 machine types"; each has 8 RDMA NICs (one ConnectX-7 per GPU: Cluster Toolkit release
//     v1.44.1, "8 NVIDIA H200 GPUs each with dedicated CX-7 networking with RDMA support via RoCE").
//
// Only the 8-GPU A3 High takes TCPX: the smaller a3-highgpu sizes have no GPU NICs (assumption: the
// GKE page names a3-highgpu-8g only).
var gkeGPUDirect = map[string]struct {
	network string
	nics    int
}{
	"a3-highgpu-8g":  {NetworkGPUDirectTCPX, 4},
	"a3-megagpu-8g":  {NetworkGPUDirectTCPXO, 8},
	"a3-ultragpu-8g": {NetworkGPUDirectRDMA, 8},
	"a4-highgpu-8g":  {NetworkGPUDirectRDMA, 8},
}

// GKEAdditionalNodeNetworks is how many additional node networks (node pool
// network_config.additional_node_network_configs) a GKE node of a GPUDirect machine type takes for
// its inter-node network: one per GPU NIC for GPUDirect-TCPX (4) and TCPXO (8); for GPUDirect-RDMA
// its second gVNIC's network and one RDMA subnetwork per GPU (1 + 8). Sources, read 2026-11-28: GKE
// "Maximize GPU network bandwidth in Standard mode clusters" (kubernetes-engine/docs/how-to/
// gpu-bandwidth-gpudirect-tcpx: --additional-node-network once per GPU NIC, "up to eight on A3 Mega
// machine types and up to four on A3 High"); dranet.dev "GKE with NVIDIA DRA and DraNet" (an A4 node
// pool: a "VPC for the additional Google Titanium CPU NIC" and an RDMA VPC "with 8 subnets"); NVIDIA
// AI Cluster Runtime "GKE A4X (GB200) networking" (the same pattern on A4X: gvnic-1 and rdma-0 to
// rdma-3, one RDMA network per GPU). 0 for a machine type without GPUDirect.
func GKEAdditionalNodeNetworks(machineType string) int {
	g, ok := gkeGPUDirect[machineType]
	switch {
	case !ok:
		return 0
	case g.network == NetworkGPUDirectRDMA:
		return 1 + g.nics
	}
	return g.nics
}

// GKEGPUDirect is a GKE machine type's GPUDirect stack (NetworkGPUDirectTCPX, …; "" without one).
func GKEGPUDirect(machineType string) string {
	network, _ := gkeInterNode(machineType)
	return network
}

// awsInterNode is an EC2 instance type's inter-node network and its network cards ("" and 0 without EFA).
func awsInterNode(instanceType string) (string, int) {
	if n, ok := awsEFA[instanceType]; ok {
		return NetworkEFA, n
	}
	return "", 0
}

// gkeInterNode is a GKE machine type's inter-node network and its GPU NICs ("" and 0 without).
func gkeInterNode(machineType string) (string, int) {
	g, ok := gkeGPUDirect[machineType]
	if !ok {
		return "", 0
	}
	return g.network, g.nics
}

// InterNodeName is the human name of an inter-node network, for messages.
func InterNodeName(network string) string {
	switch network {
	case NetworkEFA:
		return "EFA"
	case NetworkGPUDirectTCPX:
		return "GPUDirect-TCPX"
	case NetworkGPUDirectTCPXO:
		return "GPUDirect-TCPXO"
	case NetworkGPUDirectRDMA:
		return "GPUDirect-RDMA"
	}
	return network
}

// InterNodeNamesFor lists the inter-node networks of a cloud by their human names ("EFA" on AWS,
// "GPUDirect-TCPX, GPUDirect-TCPXO or GPUDirect-RDMA" on Google Cloud), for no-fit messages.
func InterNodeNamesFor(cloud Cloud) string {
	if cloud == AWS {
		return "EFA"
	}
	return "GPUDirect-TCPX, GPUDirect-TCPXO or GPUDirect-RDMA"
}
