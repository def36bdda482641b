package cloudsim

import (
	"fmt"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
)

// multiNetworked gives the example seed's us-central1 cluster multi-networking, four GPU networks
// of one subnetwork each, and one RDMA network of eight subnetworks.
func multiNetworked(enabled bool) func(*Options) {
	return func(o *Options) {
		p := o.Seed.GCP.Projects["acme-ml"]
		for i := range p.Clusters {
			if p.Clusters[i].Location == "us-central1" {
				p.Clusters[i].MultiNetworking = enabled
			}
		}
		p.Networks = map[string][]string{"rdma-net": {}}
		for i := 1; i <= 4; i++ {
			p.Networks[fmt.Sprintf("gpu-net-%d", i)] = []string{fmt.Sprintf("gpu-sub-%d", i)}
		}
		for i := range 8 {
			p.Networks["rdma-net"] = append(p.Networks["rdma-net"], fmt.Sprintf("rdma-sub-%d", i))
		}
		p.RDMANetworks = []string{"rdma-net"}
		o.Seed.GCP.Projects["acme-ml"] = p
	}
}

func a3HighPool(name string, networks ...*containerpb.AdditionalNodeNetworkConfig) *containerpb.NodePool {
	return &containerpb.NodePool{Name: name, InitialNodeCount: 1, Locations: []string{"us-central1-a"},
		Config:        &containerpb.NodeConfig{MachineType: "a3-highgpu-8g"},
		NetworkConfig: &containerpb.NodeNetworkConfig{AdditionalNodeNetworkConfigs: networks}}
}

func gpuNets(n int) []*containerpb.AdditionalNodeNetworkConfig {
	var out []*containerpb.AdditionalNodeNetworkConfig
	for i := 1; i <= n; i++ {
		out = append(out, &containerpb.AdditionalNodeNetworkConfig{Network: fmt.Sprintf("gpu-net-%d", i), Subnetwork: fmt.Sprintf("gpu-sub-%d", i)})
	}
	return out
}

// GKE multi-networking (gke_multinetwork.go): additional node networks need a cluster with
// multi-networking (Dataplane V2), networks that exist, one interface per network but for RDMA
// networks, no more interfaces than the machine type has, and are never updated.
func TestGKE_AdditionalNodeNetworks(t *testing.T) {
	t.Parallel()
	t.Run("cluster without multi-networking", func(t *testing.T) {
		t.Parallel()
		c := gkeClient(t, newSim(t, multiNetworked(false)))
		_, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: a3HighPool("tcpx", gpuNets(4)...)})
		wantCode(t, err, codes.InvalidArgument, "multi-networking is not enabled on cluster \"ml\"")
		cl, err := c.GetCluster(ctxT(t), &containerpb.GetClusterRequest{Name: gkeParent})
		if err != nil || cl.GetNetworkConfig().GetEnableMultiNetworking() {
			t.Fatalf("GetCluster = %v, %v: want multi-networking off", cl.GetNetworkConfig(), err)
		}
	})
	c := gkeClient(t, newSim(t, multiNetworked(true)))
	cl, err := c.GetCluster(ctxT(t), &containerpb.GetClusterRequest{Name: gkeParent})
	if err != nil || !cl.GetNetworkConfig().GetEnableMultiNetworking() || cl.GetNetworkConfig().GetDatapathProvider() != containerpb.DatapathProvider_ADVANCED_DATAPATH {
		t.Fatalf("GetCluster = %v, %v: want multi-networking on Dataplane V2", cl.GetNetworkConfig(), err)
	}
	twice := gpuNets(2)
	twice[1].Network, twice[1].Subnetwork = "gpu-net-1", "gpu-sub-1"
	for _, tc := range []struct {
		name string
		pool *containerpb.NodePool
		want string
	}{
		{"too many for the machine type", a3HighPool("five", append(gpuNets(4), &containerpb.AdditionalNodeNetworkConfig{Network: "rdma-net", Subnetwork: "rdma-sub-0"})...),
			"5 additional networks; machine type a3-highgpu-8g has at most 5 network interfaces"},
		{"unknown network", a3HighPool("nonet", &containerpb.AdditionalNodeNetworkConfig{Network: "nope", Subnetwork: "gpu-sub-1"}), `network "nope" was not found`},
		{"unknown subnetwork", a3HighPool("nosub", &containerpb.AdditionalNodeNetworkConfig{Network: "gpu-net-1", Subnetwork: "gpu-sub-2"}), `subnetwork "gpu-sub-2" was not found in network "gpu-net-1"`},
		{"two interfaces in one network", a3HighPool("twice", twice...), `network "gpu-net-1" has an interface of the node already`},
		{"the primary network", a3HighPool("primary", &containerpb.AdditionalNodeNetworkConfig{Network: "default", Subnetwork: "default"}), `network "default" is the node's primary network already`},
	} {
		_, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: tc.pool})
		wantCode(t, err, codes.InvalidArgument, tc.want)
	}
	got := runningPool(t, c, a3HighPool("tcpx", gpuNets(4)...))
	if n := got.GetNetworkConfig().GetAdditionalNodeNetworkConfigs(); len(n) != 4 || n[3].GetNetwork() != "gpu-net-4" || n[3].GetSubnetwork() != "gpu-sub-4" {
		t.Fatalf("additional node networks = %v", n)
	}
	_, err = c.UpdateNodePool(ctxT(t), &containerpb.UpdateNodePoolRequest{Name: gkeParent + "/nodePools/tcpx",
		NodeNetworkConfig: &containerpb.NodeNetworkConfig{AdditionalNodeNetworkConfigs: gpuNets(3)}})
	wantCode(t, err, codes.InvalidArgument, "additional_node_network_configs cannot be updated")

	// A4: a gVNIC network and eight RDMA subnets of one RoCE network.
	rdma := []*containerpb.AdditionalNodeNetworkConfig{{Network: "gpu-net-1", Subnetwork: "gpu-sub-1"}}
	for i := range 8 {
		rdma = append(rdma, &containerpb.AdditionalNodeNetworkConfig{Network: "rdma-net", Subnetwork: fmt.Sprintf("rdma-sub-%d", i)})
	}
	a4 := &containerpb.NodePool{Name: "rdma", Locations: []string{"us-central1-b"}, Config: &containerpb.NodeConfig{MachineType: "a4-highgpu-8g", Spot: true},
		NetworkConfig: &containerpb.NodeNetworkConfig{AdditionalNodeNetworkConfigs: rdma}}
	if got := runningPool(t, c, a4); len(got.GetNetworkConfig().GetAdditionalNodeNetworkConfigs()) != 9 {
		t.Fatalf("A4 node networks = %v", got.GetNetworkConfig())
	}
}
