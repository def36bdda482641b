package cloudsim

import (
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
)

// specificPool is a G2 node pool of n nodes in us-central1-a consuming reservation value.
func specificPool(name, value string, n int32) *containerpb.NodePool {
	p := l4Pool(name)
	p.InitialNodeCount = n
	p.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_SPECIFIC_RESERVATION, Key: reservationKey, Values: []string{value}}
	return p
}

// Reservations shared with the owner's organization are consumed by the organization's projects,
// and a reservation made with an accelerator type URL matches the node pool's accelerator name;
// reservations.get reports both as they were made (audit N7).
func TestGKE_Reservation_OrganizationSharedAndAcceleratorURL(t *testing.T) {
	t.Parallel()
	url := "projects/acme-shared/zones/us-central1-a/acceleratorTypes/nvidia-l4"
	sim := newSim(t, func(o *Options) {
		o.Seed.GCP.Projects["acme-ml"].Organization = "organizations/1"
		o.Seed.GCP.Projects["acme-shared"] = &GCPProjectSeed{Organization: "organizations/1", Reservations: []GCEReservationSeed{
			{Name: "org-l4", Zone: "us-central1-a", MachineType: "g2-standard-8", AcceleratorType: url, AcceleratorCount: 1, Count: 2, ShareType: "ORGANIZATION"},
		}}
		o.Seed.GCP.Projects["other-org"] = &GCPProjectSeed{Organization: "organizations/2", Reservations: []GCEReservationSeed{
			{Name: "their-l4", Zone: "us-central1-a", MachineType: "g2-standard-8", AcceleratorType: "nvidia-l4", AcceleratorCount: 1, Count: 2, ShareType: "ORGANIZATION"},
		}}
	})
	c, cs := gkeClient(t, sim), computeService(t, sim)
	runningPool(t, c, specificPool("org", "projects/acme-shared/reservations/org-l4", 1))
	_, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: specificPool("theirs", "projects/other-org/reservations/their-l4", 1)})
	wantCode(t, err, codes.InvalidArgument, `Reservation "their-l4" of project "other-org" is not shared with project "acme-ml"`)

	r, err := cs.Reservations.Get("acme-shared", "us-central1-a", "org-l4").Context(ctxT(t)).Do()
	if err != nil || r.ShareSettings.ShareType != "ORGANIZATION" || r.SpecificReservation.InstanceProperties.GuestAccelerators[0].AcceleratorType != url {
		t.Fatalf("reservation = %+v %v", r, err)
	}
}

// A node upgrade of a node pool that consumes a specific reservation needs room in it for the
// VMs its strategy adds: a surge node, or a green node for every node; without room the
// operation fails and the node pool keeps its nodes as they were.
func TestGKE_Upgrade_NeedsRoomInTheReservation(t *testing.T) {
	t.Parallel()
	sim := newSim(t, func(o *Options) {
		p := o.Seed.GCP.Projects["acme-ml"]
		p.Reservations = append(p.Reservations, GCEReservationSeed{Name: "l4-two", Zone: "us-central1-a", MachineType: "g2-standard-8", AcceleratorType: "nvidia-l4", AcceleratorCount: 1, Count: 2})
	})
	c := gkeClient(t, sim)
	full := runningPool(t, c, specificPool("full", "l4-two", 2))
	if u := full.GetUpgradeSettings(); u.GetMaxSurge() != 1 || u.GetStrategy() != containerpb.NodePoolUpdateStrategy_SURGE {
		t.Fatalf("default upgrade settings = %v, want GKE's surge 1", u)
	}
	driver := func(v containerpb.GPUDriverInstallationConfig_GPUDriverVersion) *containerpb.UpdateNodePoolRequest {
		return &containerpb.UpdateNodePoolRequest{Name: "full", Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-l4", AcceleratorCount: 1,
			GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: v.Enum()}}}}
	}
	got := updatePool(t, c, driver(containerpb.GPUDriverInstallationConfig_DEFAULT))
	if got.GetStatus() != containerpb.NodePool_RUNNING_WITH_ERROR || !strings.Contains(got.GetStatusMessage(), `could not create the 1 extra node(s) a surge upgrade (max_surge 1) needs: reservation "l4-two" (2 VMs, 2 in use) has 0 unused`) ||
		got.GetConfig().GetAccelerators()[0].GetGpuDriverInstallationConfig().GetGpuDriverVersion() != containerpb.GPUDriverInstallationConfig_LATEST {
		t.Fatalf("node pool after a surge upgrade on a full reservation = %v %q %v", got.GetStatus(), got.GetStatusMessage(), got.GetConfig().GetAccelerators())
	}
	// Labels are applied without new nodes.
	if got := updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "full", Labels: &containerpb.NodeLabels{Labels: map[string]string{"team": "ml"}}}); got.GetStatus() != containerpb.NodePool_RUNNING {
		t.Fatalf("node pool after a label change = %v %q", got.GetStatus(), got.GetStatusMessage())
	}
	blueGreen := &containerpb.NodePool_UpgradeSettings{Strategy: containerpb.NodePoolUpdateStrategy_BLUE_GREEN.Enum(), BlueGreenSettings: &containerpb.BlueGreenSettings{}}
	updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "full", UpgradeSettings: blueGreen})
	if got := updatePool(t, c, driver(containerpb.GPUDriverInstallationConfig_DEFAULT)); !strings.Contains(got.GetStatusMessage(), "a blue-green upgrade (a green node for every node)") {
		t.Fatalf("node pool after a blue-green upgrade on a full reservation = %v %q", got.GetStatus(), got.GetStatusMessage())
	}
	noSurge := &containerpb.NodePool_UpgradeSettings{Strategy: containerpb.NodePoolUpdateStrategy_SURGE.Enum(), MaxUnavailable: 1}
	updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "full", UpgradeSettings: noSurge})
	got = updatePool(t, c, driver(containerpb.GPUDriverInstallationConfig_DEFAULT))
	if got.GetStatus() != containerpb.NodePool_RUNNING || got.GetConfig().GetAccelerators()[0].GetGpuDriverInstallationConfig().GetGpuDriverVersion() != containerpb.GPUDriverInstallationConfig_DEFAULT {
		t.Fatalf("node pool after an upgrade without surge = %v %q", got.GetStatus(), got.GetStatusMessage())
	}
}

// Upgrade settings: a surge upgrade moves at least one node at a time; blue-green batches are a
// positive share of the pool.
func TestGKE_UpgradeSettings_Validated(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	runningPool(t, c, l4Pool("l4-od"))
	for _, tc := range []struct {
		u    *containerpb.NodePool_UpgradeSettings
		want string
	}{
		{&containerpb.NodePool_UpgradeSettings{Strategy: containerpb.NodePoolUpdateStrategy_SURGE.Enum()}, "max_surge and max_unavailable cannot both be 0"},
		{&containerpb.NodePool_UpgradeSettings{Strategy: containerpb.NodePoolUpdateStrategy_BLUE_GREEN.Enum(), BlueGreenSettings: &containerpb.BlueGreenSettings{
			RolloutPolicy: &containerpb.BlueGreenSettings_StandardRolloutPolicy_{StandardRolloutPolicy: &containerpb.BlueGreenSettings_StandardRolloutPolicy{
				UpdateBatchSize: &containerpb.BlueGreenSettings_StandardRolloutPolicy_BatchPercentage{BatchPercentage: 1.5}}}}}, "batch_percentage 1.5 must be in (0, 1]"},
		{&containerpb.NodePool_UpgradeSettings{MaxSurge: 1, BlueGreenSettings: &containerpb.BlueGreenSettings{}}, "only with strategy BLUE_GREEN"},
	} {
		_, err := c.UpdateNodePool(ctxT(t), &containerpb.UpdateNodePoolRequest{Name: gkeParent + "/nodePools/l4-od", UpgradeSettings: tc.u})
		wantCode(t, err, codes.InvalidArgument, tc.want)
	}
}

// ANY_RESERVATION on a machine type sold only from reservations: without a reservation to consume
// in its zones the VMs fail and the node pool ends ERROR; with one it runs (audit N9).
func TestGKE_AnyReservation_ReservationOnlyMachineType(t *testing.T) {
	t.Parallel()
	sim := newSim(t, func(o *Options) {
		p := o.Seed.GCP.Projects["acme-ml"]
		for _, z := range []string{"us-central1-a", "us-central1-b"} {
			p.Accelerators[z] = append(p.Accelerators[z], "nvidia-h200-141gb")
		}
		p.Reservations = append(p.Reservations, GCEReservationSeed{Name: "h200", Zone: "us-central1-b", MachineType: "a3-ultragpu-8g", AcceleratorType: "nvidia-h200-141gb", AcceleratorCount: 8, Count: 2})
	})
	c := gkeClient(t, sim)
	h200 := func(name, zone string) *containerpb.NodePool {
		return &containerpb.NodePool{Name: name, InitialNodeCount: 1, Locations: []string{zone}, Config: &containerpb.NodeConfig{MachineType: "a3-ultragpu-8g",
			ReservationAffinity: &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_ANY_RESERVATION}}}
	}
	waitOperation(t, c, createPool(t, c, h200("no-reservation", "us-central1-a")))
	if got := getPool(t, c, "no-reservation"); got.GetStatus() != containerpb.NodePool_ERROR || !strings.Contains(got.GetStatusMessage(), "no reservation in zones us-central1-a matches machine type \"a3-ultragpu-8g\"") {
		t.Fatalf("node pool = %v %q", got.GetStatus(), got.GetStatusMessage())
	}
	if got := runningPool(t, c, h200("reserved", "us-central1-b")); got.GetStatus() != containerpb.NodePool_RUNNING {
		t.Fatalf("node pool with a reservation = %v %q", got.GetStatus(), got.GetStatusMessage())
	}
}

// GKE's 1000 nodes are per zone of a node pool; a disabled autoscaler keeps no limits, and only a
// node pool with autoscaling on is resized by the cluster autoscaler, within its limits (audit
// N14, N16).
func TestGKE_Autoscaling_LimitsAndTheClusterAutoscaler(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	two := l4Pool("l4-two")
	two.Locations = []string{"us-central1-a", "us-central1-b"}
	two.Autoscaling = &containerpb.NodePoolAutoscaling{Enabled: true, TotalMinNodeCount: 0, TotalMaxNodeCount: 1500}
	runningPool(t, c, two)
	autoscale := func(a *containerpb.NodePoolAutoscaling) error {
		op, err := c.SetNodePoolAutoscaling(ctxT(t), &containerpb.SetNodePoolAutoscalingRequest{Name: gkeParent + "/nodePools/l4-two", Autoscaling: a})
		if err == nil {
			waitOperation(t, c, op)
		}
		return err
	}
	wantCode(t, autoscale(&containerpb.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: 2001}), codes.InvalidArgument, "at most 1000 nodes per zone (2000 over its 2 zones)")
	wantCode(t, autoscale(&containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 1001}), codes.InvalidArgument, "'autoscaling.max_node_count': 1001")
	if err := sim.ClusterAutoscale("acme-ml", "us-central1", "ml", "l4-two", 4); err != nil {
		t.Fatal(err)
	}
	if n, _ := sim.NodePoolNodeCount("acme-ml", "us-central1", "ml", "l4-two"); n != 2 {
		t.Fatalf("nodes per zone after the autoscaler = %d, want 2", n)
	}
	if err := sim.ClusterAutoscale("acme-ml", "us-central1", "ml", "l4-two", 3); err == nil {
		t.Fatal("the autoscaler resized to 3 nodes over 2 zones")
	}
	if err := autoscale(&containerpb.NodePoolAutoscaling{Enabled: false, TotalMaxNodeCount: 8}); err != nil {
		t.Fatal(err)
	}
	if a := getPool(t, c, "l4-two").GetAutoscaling(); a.GetEnabled() || a.GetTotalMaxNodeCount() != 0 {
		t.Fatalf("disabled autoscaling = %v, want no limits", a)
	}
	if err := sim.ClusterAutoscale("acme-ml", "us-central1", "ml", "l4-two", 2); err == nil || !strings.Contains(err.Error(), "autoscaling off") {
		t.Fatalf("the autoscaler resized a node pool with autoscaling off: %v", err)
	}
}

// A new node pool that consumes a specific reservation gets only the reservation's unused VMs:
// the nodes beyond them fail (GCE_STOCKOUT) and the node pool is RUNNING_WITH_ERROR; nodes of
// other node pools on the reservation count against it (issue #40 item 7).
func TestGKE_SpecificReservation_NodesBeyondItFail(t *testing.T) {
	t.Parallel()
	sim := newSim(t, func(o *Options) {
		p := o.Seed.GCP.Projects["acme-ml"]
		p.Reservations = append(p.Reservations, GCEReservationSeed{Name: "l4-three", Zone: "us-central1-a", MachineType: "g2-standard-8", AcceleratorType: "nvidia-l4", AcceleratorCount: 1, Count: 3})
	})
	c := gkeClient(t, sim)
	if got := runningPool(t, c, specificPool("two", "l4-three", 2)); got.GetStatus() != containerpb.NodePool_RUNNING {
		t.Fatalf("2 nodes on a reservation of 3: %v %q", got.GetStatus(), got.GetStatusMessage())
	}
	got := runningPool(t, c, specificPool("more", "l4-three", 2))
	if got.GetStatus() != containerpb.NodePool_RUNNING_WITH_ERROR || !strings.Contains(got.GetStatusMessage(), `could not create 1 of its 2 node(s): reservation "l4-three" (3 VMs, 2 in use) has 1 unused`) {
		t.Fatalf("2 more nodes on a reservation with 1 unused: %v %q", got.GetStatus(), got.GetStatusMessage())
	}
}
