package gke

import (
	"context"
	"fmt"
	"regexp"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// The network block: the GPUDirect networks of a pool for multi-node training (issue #40, item 8),
// as the EKS pool's network block gives its nodes EFA. A GKE node of a GPUDirect machine type
// reaches the GPUs of other nodes over extra NICs, each in an additional node network of the node
// pool (NodePool.network_config.additional_node_network_configs {network, subnetwork}, container
// v1, cloud.google.com/go/container v1.56.0): GPUDirect-TCPX on a3-highgpu-8g over 4, TCPXO on
// a3-megagpu-8g over 8, GPUDirect-RDMA on a3-ultragpu-8g and a4-highgpu-8g over 9 (a second gVNIC
// and 8 RDMA NICs): catalog.GKEAdditionalNodeNetworks, with its sources. The networks are the
// team's (VPCs and subnets it creates, with firewall rules, as the GKE pages do): gpufleet names
// them on both node pools and never creates or deletes them. GKE sets them when a node pool is
// created only (google_container_node_pool: network_config.additional_node_network_configs is
// ForceNew; cloudsim's gke_multinetwork.go): a change replaces the pool. The cluster must
// have multi-networking (GKE Dataplane V2 and enable_multi_networking), checked at apply before any
// node pool is created.
//
// Not set: NodeConfig.gpu_direct_config (GPUDirectStrategy RDMA, "GPUDirect-RDMA on A3 Ultra, and
// A4 machine types"). The GKE and DraNet pages read create A4 and A3 Ultra node pools with the
// additional networks and no GPUDirect strategy; whether GKE needs it for RDMA is not settled by
// them, and gpufleet leaves it to GKE's default.

// networkModel is the network block.
type networkModel struct {
	AdditionalNodeNetworks types.List   `tfsdk:"additional_node_networks"`
	GPUDirect              types.String `tfsdk:"gpu_direct"`
}

// additionalNodeNetworkModel is one entry of network.additional_node_networks.
type additionalNodeNetworkModel struct {
	Network    types.String `tfsdk:"network"`
	Subnetwork types.String `tfsdk:"subnetwork"`
}

var additionalNodeNetworkAttrTypes = map[string]attr.Type{"network": types.StringType, "subnetwork": types.StringType}

// gcpResourceName is a Compute Engine network or subnetwork name (RFC 1035, 1-63 characters).
var gcpResourceName = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)

func networkBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "GPUDirect networks for training whose replicas span several nodes (`workload.gpus_per_replica` a multiple of the node's GPUs): " +
			"the node pools' additional node networks, one per extra NIC of the machine type: GPUDirect-TCPX on `a3-highgpu-8g` takes 4, " +
			"GPUDirect-TCPXO on `a3-megagpu-8g` 8, GPUDirect-RDMA on `a3-ultragpu-8g` and `a4-highgpu-8g` 9 (a second gVNIC network, then 8 RDMA subnetworks). " +
			"Checked at plan: only on those machine types, with exactly that many networks; at apply, before any node pool is created, the cluster must have multi-networking " +
			"(GKE Dataplane V2 and `enable_multi_networking`). The networks and their subnetworks are yours (gpufleet never creates or deletes them); " +
			"the GPUDirect plugins and NCCL settings of the workload's pods stay yours too.",
		Attributes: map[string]schema.Attribute{
			"additional_node_networks": schema.ListNestedAttribute{
				MarkdownDescription: "The additional node networks of every node, in the order of the node's extra interfaces: `network` (a VPC network name) and `subnetwork` (its subnetwork in the pool's region). " +
					"Each network once (one interface per VPC network), except an RDMA network whose subnetworks take one RDMA NIC each. GKE sets them only when a node pool is created: changing them replaces the pool.",
				Optional: true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"network": schema.StringAttribute{
						MarkdownDescription: "VPC network name.",
						Required:            true,
						Validators:          []validator.String{stringvalidator.RegexMatches(gcpResourceName, "must be a Compute Engine network name")},
					},
					"subnetwork": schema.StringAttribute{
						MarkdownDescription: "Subnetwork name, in the pool's region.",
						Required:            true,
						Validators:          []validator.String{stringvalidator.RegexMatches(gcpResourceName, "must be a Compute Engine subnetwork name")},
					},
				}},
				Validators:    []validator.List{listvalidator.SizeAtLeast(1)},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
			},
			"gpu_direct": schema.StringAttribute{
				MarkdownDescription: "The machine type's GPUDirect stack the networks serve: `gpudirect-tcpx`, `gpudirect-tcpxo` or `gpudirect-rdma`, as the recommendation's and the GPU catalog's `inter_node_network` say.",
				Computed:            true,
			},
		},
	}
}

// networks is the block's additional node networks (none without the block or with them unknown).
func (n *networkModel) networks(ctx context.Context) ([]additionalNodeNetworkModel, diag.Diagnostics) {
	if n == nil || n.AdditionalNodeNetworks.IsNull() || n.AdditionalNodeNetworks.IsUnknown() {
		return nil, nil
	}
	var out []additionalNodeNetworkModel
	diags := n.AdditionalNodeNetworks.ElementsAs(ctx, &out, false)
	return out, diags
}

// planNetwork fills network.gpu_direct and checks the block against the machine type at plan:
// additional node networks only on a GPUDirect machine type, exactly as many as it takes. Without
// them, training replicas that span nodes of a GPUDirect machine type get a warning.
func planNetwork(diags *diag.Diagnostics, m *nodePoolModel, s pool.Spec) {
	attr := path.Root("network").AtName("additional_node_networks")
	if m.Network != nil {
		m.Network.GPUDirect = types.StringUnknown()
	}
	if m.MachineType.IsUnknown() {
		return
	}
	machine := m.MachineType.ValueString()
	want, stack := catalog.GKEAdditionalNodeNetworks(machine), catalog.GKEGPUDirect(machine)
	node, problem, known := s.NodeType()
	if m.Network != nil {
		m.Network.GPUDirect = types.StringNull()
		if stack != "" {
			m.Network.GPUDirect = types.StringValue(stack)
		}
	}
	if m.Network == nil || m.Network.AdditionalNodeNetworks.IsNull() {
		if want > 0 && problem == nil && known && catalog.SpansNodes(s.Workload.Kind, s.Workload.GPUsPerReplica, node.GPUCount) {
			diags.AddAttributeWarning(path.Root("workload").AtName("gpus_per_replica"), "Replicas span nodes without GPUDirect networks",
				fmt.Sprintf("workload.gpus_per_replica = %d spans %d %s nodes, whose GPUs reach each other over %s with %d additional node networks; without them NCCL between the nodes runs over the primary network. Set network.additional_node_networks, or keep a replica on one node.",
					s.Workload.GPUsPerReplica, s.Workload.GPUsPerReplica/node.GPUCount, machine, catalog.InterNodeName(stack), want))
		}
		return
	}
	if m.Network.AdditionalNodeNetworks.IsUnknown() {
		return
	}
	got := len(m.Network.AdditionalNodeNetworks.Elements())
	switch {
	case want == 0:
		diags.AddAttributeError(attr, "GPUDirect networks on a machine type without GPUDirect",
			fmt.Sprintf("machine_type %s has no GPUDirect NICs, so its nodes take no additional node networks for GPU traffic. GPUDirect machine types: a3-highgpu-8g (GPUDirect-TCPX, 4 networks), a3-megagpu-8g (GPUDirect-TCPXO, 8), a3-ultragpu-8g and a4-highgpu-8g (GPUDirect-RDMA, 9). Remove the network block or choose one of them.", machine))
	case got != want:
		diags.AddAttributeError(attr, "Wrong number of GPUDirect networks",
			fmt.Sprintf("machine_type %s reaches other nodes' GPUs over %s through %d additional node networks%s; %d given.", machine, catalog.InterNodeName(stack), want, rdmaLayout(stack), got))
	}
}

// rdmaLayout says how GPUDirect-RDMA's networks are laid out, for messages.
func rdmaLayout(stack string) string {
	if stack == catalog.NetworkGPUDirectRDMA {
		return " (its second gVNIC's network, then one RDMA subnetwork per GPU)"
	}
	return " (one per GPU NIC)"
}

// nodeNetworkConfig is the node pools' NodeNetworkConfig: the additional node networks, or nil.
func nodeNetworkConfig(networks []additionalNodeNetworkModel) *containerpb.NodeNetworkConfig {
	if len(networks) == 0 {
		return nil
	}
	nc := &containerpb.NodeNetworkConfig{}
	for _, n := range networks {
		nc.AdditionalNodeNetworkConfigs = append(nc.AdditionalNodeNetworkConfigs,
			&containerpb.AdditionalNodeNetworkConfig{Network: n.Network.ValueString(), Subnetwork: n.Subnetwork.ValueString()})
	}
	return nc
}

// addMultiNetworkingProblem refuses, at apply before any change, additional node networks on a
// cluster without multi-networking, which GKE refuses node pool by node pool.
func addMultiNetworkingProblem(diags *diag.Diagnostics, networks []additionalNodeNetworkModel, cl cluster, clusterName string) {
	if len(networks) > 0 && !cl.multiNetworking {
		diags.AddAttributeError(path.Root("network").AtName("additional_node_networks"), "Cluster without multi-networking",
			fmt.Sprintf("cluster %s does not have multi-networking enabled, so GKE creates no node pool with additional node networks on it. Enable it on the cluster (GKE Dataplane V2 and enable_multi_networking; google_container_cluster: datapath_provider = \"ADVANCED_DATAPATH\", enable_multi_networking = true) or remove the network block. Nothing was created.", clusterName))
	}
}

// networkFrom reads the network block back from a node pool: its additional node networks; the
// block stays absent when the node pool has none and the prior had no block.
func networkFrom(np *containerpb.NodePool, prior *networkModel) *networkModel {
	extra := np.GetNetworkConfig().GetAdditionalNodeNetworkConfigs()
	if len(extra) == 0 {
		if prior == nil {
			return nil
		}
		return &networkModel{AdditionalNodeNetworks: types.ListNull(types.ObjectType{AttrTypes: additionalNodeNetworkAttrTypes}), GPUDirect: gpuDirectOf(np)}
	}
	var elems []attr.Value
	for _, n := range extra {
		elems = append(elems, types.ObjectValueMust(additionalNodeNetworkAttrTypes, map[string]attr.Value{
			"network": types.StringValue(n.GetNetwork()), "subnetwork": types.StringValue(n.GetSubnetwork())}))
	}
	return &networkModel{
		AdditionalNodeNetworks: types.ListValueMust(types.ObjectType{AttrTypes: additionalNodeNetworkAttrTypes}, elems),
		GPUDirect:              gpuDirectOf(np),
	}
}

// gpuDirectOf is the GPUDirect stack of a node pool's machine type (null without one).
func gpuDirectOf(np *containerpb.NodePool) types.String {
	if stack := catalog.GKEGPUDirect(np.GetConfig().GetMachineType()); stack != "" {
		return types.StringValue(stack)
	}
	return types.StringNull()
}
