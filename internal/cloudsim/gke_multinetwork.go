package cloudsim

import (
	"slices"

	"cloud.google.com/go/container/apiv1/containerpb"
)

// GKE multi-networking: a node pool's additional node networks (NodeNetworkConfig.
// additional_node_network_configs, one more network interface of every node per entry), which
// GPUDirect-TCPX (a3-highgpu-8g), GPUDirect-TCPXO (a3-megagpu-8g) and GPUDirect-RDMA
// (a3-ultragpu-8g, a4-highgpu-8g) use for their GPU NICs. Rules, with their sources (read
// 2026-11-28):
//
//   - Only on a cluster with multi-networking, which needs GKE Dataplane V2: GKE "Maximize GPU
//     network bandwidth in Standard mode clusters" (cloud.google.com/kubernetes-engine/docs/how-to/
//     gpu-bandwidth-gpudirect-tcpx) creates the cluster with --enable-dataplane-v2
//     --enable-multi-networking before node pools with --additional-node-network; so does
//     dranet.dev "GKE with NVIDIA DRA and DraNet" for A4. The container v1 API has the setting as
//     NetworkConfig.enable_multi_networking (cloud.google.com/go/container v1.56.0). GKE's error
//     text for a node pool on a cluster without it is not quoted by any source read: cloudsim's
//     wording is its own, and its code INVALID_ARGUMENT, as GKE answers a node pool it cannot create
//     as asked (assumed: FAILED_PRECONDITION, which clients retry, would be the other candidate).
//   - Set only when the node pool is created: google_container_node_pool's schema (schemaNodePool,
//     as GoogleCloudPlatform/terraform-google-conversion v7 carries terraform-provider-google's
//     resource_container_node_pool.go) marks network_config.additional_node_network_configs and its
//     network and subnetwork ForceNew; gcloud container node-pools update has no
//     --additional-node-network. cloudsim refuses an UpdateNodePool that
//     carries them.
//   - Each network and subnetwork exists in the project (the cluster's region).
//   - One interface per VPC network (Compute Engine "Multiple network interfaces": each interface
//     of a VM is in a different VPC network), except a network with an RDMA (RoCE) profile, whose
//     subnets take one RDMA NIC each (the GKE A4 / A3 Ultra setup puts 8 RDMA subnets in one RoCE
//     network: dranet.dev, above; "-vpc-roce" network profile).
//   - At most as many interfaces as the machine type has NICs: the GPUDirect machine types have
//     their primary NIC (two gVNICs on A3 Ultra and A4) and their GPU NICs (A3 High 4, A3 Mega 8,
//     A3 Ultra and A4 8 RDMA: GKE page above, "secondary NICs (up to eight on A3 Mega machine types
//     and up to four on A3 High machine types)"; Cluster Toolkit v1.44.1 release, "8 NVIDIA H200
//     GPUs each with dedicated CX-7 networking with RDMA support via RoCE"); other machine types
//     up to 8 interfaces (Compute Engine's maximum for VMs of 8 vCPUs and more; smaller VMs have
//     fewer, which cloudsim does not model).

// maxNetworkInterfaces is the number of network interfaces of the GPUDirect machine types.
var maxNetworkInterfaces = map[string]int{
	"a3-highgpu-8g":  1 + 4,
	"a3-megagpu-8g":  1 + 8,
	"a3-ultragpu-8g": 2 + 8,
	"a4-highgpu-8g":  2 + 8,
}

// defaultMaxNetworkInterfaces is Compute Engine's maximum for other machine types of 8 vCPUs or more.
const defaultMaxNetworkInterfaces = 8

// clusterNetworkConfig is the cluster's NetworkConfig as GetCluster reports it.
func clusterNetworkConfig(cl *GKEClusterSeed) *containerpb.NetworkConfig {
	nc := &containerpb.NetworkConfig{Network: "projects/-/global/networks/default", Subnetwork: "default"}
	if cl.MultiNetworking {
		nc.EnableMultiNetworking = true
		nc.DatapathProvider = containerpb.DatapathProvider_ADVANCED_DATAPATH
	}
	return nc
}

// validateAdditionalNodeNetworks checks a node pool's additional node networks against its
// cluster, its project's networks and its machine type.
func validateAdditionalNodeNetworks(pool *containerpb.NodePool, cl *GKEClusterSeed, project *GCPProjectSeed) error {
	extra := pool.GetNetworkConfig().GetAdditionalNodeNetworkConfigs()
	if len(extra) == 0 {
		return nil
	}
	if !cl.MultiNetworking {
		return invalidArg("Node pool %q sets additional_node_network_configs, but multi-networking is not enabled on cluster %q: create the cluster with enable_multi_networking and GKE Dataplane V2.", pool.GetName(), cl.Name)
	}
	machine := pool.GetConfig().GetMachineType()
	limit, ok := maxNetworkInterfaces[machine]
	if !ok {
		limit = defaultMaxNetworkInterfaces
	}
	if 1+len(extra) > limit {
		return invalidArg("Invalid value for field 'node_pool.network_config.additional_node_network_configs': %d additional networks; machine type %s has at most %d network interfaces, the primary one included.", len(extra), machine, limit)
	}
	var used []string
	for i, n := range extra {
		subnets, exists := project.Networks[n.GetNetwork()]
		switch {
		case n.GetNetwork() == "" || n.GetSubnetwork() == "":
			return invalidArg("Invalid value for field 'node_pool.network_config.additional_node_network_configs[%d]': network and subnetwork are required.", i)
		case n.GetNetwork() == "default":
			return invalidArg("Invalid value for field 'node_pool.network_config.additional_node_network_configs[%d].network': the cluster's network %q is the node's primary network already.", i, n.GetNetwork())
		case !exists:
			return invalidArg("Invalid value for field 'node_pool.network_config.additional_node_network_configs[%d].network': network %q was not found.", i, n.GetNetwork())
		case !slices.Contains(subnets, n.GetSubnetwork()):
			return invalidArg("Invalid value for field 'node_pool.network_config.additional_node_network_configs[%d].subnetwork': subnetwork %q was not found in network %q.", i, n.GetSubnetwork(), n.GetNetwork())
		case slices.Contains(used, n.GetNetwork()) && !slices.Contains(project.RDMANetworks, n.GetNetwork()):
			return invalidArg("Invalid value for field 'node_pool.network_config.additional_node_network_configs[%d].network': network %q has an interface of the node already; each network interface must be in a different VPC network.", i, n.GetNetwork())
		case slices.ContainsFunc(extra[:i], func(o *containerpb.AdditionalNodeNetworkConfig) bool {
			return o.GetSubnetwork() == n.GetSubnetwork() && o.GetNetwork() == n.GetNetwork()
		}):
			return invalidArg("Invalid value for field 'node_pool.network_config.additional_node_network_configs[%d].subnetwork': subnetwork %q is given twice.", i, n.GetSubnetwork())
		}
		used = append(used, n.GetNetwork())
	}
	return nil
}

// checkNodeNetworkUpdate refuses an update of the additional node networks, which are set when a
// node pool is created only (see above).
func checkNodeNetworkUpdate(nc *containerpb.NodeNetworkConfig) error {
	if len(nc.GetAdditionalNodeNetworkConfigs()) > 0 {
		return invalidArg("Invalid UpdateNodePoolRequest: node_network_config.additional_node_network_configs cannot be updated; it is set when the node pool is created.")
	}
	return nil
}
