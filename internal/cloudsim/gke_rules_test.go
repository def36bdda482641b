package cloudsim

import (
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
)

// The container v1 API on UpdateNodePoolRequest.locations: a location update in a standalone
// request; cloudsim refuses it combined with anything else, and any two field groups together.
func TestGKE_UpdateNodePool_OneFieldGroupPerRequest(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	runningPool(t, c, l4Pool("l4-od"))
	name := gkeParent + "/nodePools/l4-od"
	labels := &containerpb.NodeLabels{Labels: map[string]string{"gpufleet.io/client": "globex"}}
	_, err := c.UpdateNodePool(ctxT(t), &containerpb.UpdateNodePoolRequest{Name: name, Locations: []string{"us-central1-a", "us-central1-b"}, Labels: labels})
	wantCode(t, err, codes.InvalidArgument, "locations must be updated in a standalone request, not with labels")
	_, err = c.UpdateNodePool(ctxT(t), &containerpb.UpdateNodePoolRequest{Name: name, Labels: labels, Taints: &containerpb.NodeTaints{}})
	wantCode(t, err, codes.InvalidArgument, "update one field group per request, not labels, taints")
	_, err = c.UpdateNodePool(ctxT(t), &containerpb.UpdateNodePoolRequest{Name: name})
	wantCode(t, err, codes.InvalidArgument, "no field to update")
	p := updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-od", MachineType: "g2-standard-16", DiskSizeGb: 200})
	if p.GetConfig().GetMachineType() != "g2-standard-16" || p.GetConfig().GetDiskSizeGb() != 200 {
		t.Fatalf("machine type with disk = %v", p.GetConfig())
	}
	if p := updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-od", Locations: []string{"us-central1-a", "us-central1-b"}}); len(p.GetLocations()) != 2 {
		t.Fatalf("locations = %v", p.GetLocations())
	}
}

// UpdateNodePoolRequest.accelerators changes the driver and sharing in place; the accelerator
// type, count and partition size stay (magic-modules PR #18493, tested against GKE), and an entry
// without sharing keeps it (mergeAcceleratorUpdate).
func TestGKE_UpdateNodePool_AcceleratorSettingsInPlace(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	p := &containerpb.NodePool{Name: "a100", InitialNodeCount: 1, Locations: []string{"us-central1-a"}, Config: &containerpb.NodeConfig{MachineType: "a2-highgpu-1g",
		Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-tesla-a100", AcceleratorCount: 1, GpuPartitionSize: "1g.5gb"}}}}
	runningPool(t, c, p)
	shared := []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-tesla-a100", AcceleratorCount: 1, GpuPartitionSize: "1g.5gb",
		GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: containerpb.GPUDriverInstallationConfig_LATEST.Enum()},
		GpuSharingConfig:            &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: 2, GpuSharingStrategy: containerpb.GPUSharingConfig_MPS.Enum()}}}
	got := updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "a100", Accelerators: shared})
	if acc := got.GetConfig().GetAccelerators()[0]; acc.GetGpuPartitionSize() != "1g.5gb" || acc.GetGpuSharingConfig().GetGpuSharingStrategy() != containerpb.GPUSharingConfig_MPS ||
		acc.GetGpuDriverInstallationConfig().GetGpuDriverVersion() != containerpb.GPUDriverInstallationConfig_LATEST {
		t.Fatalf("accelerator = %v", acc)
	}
	got = updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "a100", Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-tesla-a100", AcceleratorCount: 1}}})
	if acc := got.GetConfig().GetAccelerators()[0]; acc.GetGpuSharingConfig().GetMaxSharedClientsPerGpu() != 2 || acc.GetGpuPartitionSize() != "1g.5gb" {
		t.Fatalf("accelerator after an entry without sharing = %v, want sharing and partitions kept", acc)
	}
	for _, tc := range []struct {
		acc  *containerpb.AcceleratorConfig
		want string
	}{
		{&containerpb.AcceleratorConfig{AcceleratorType: "nvidia-tesla-a100", AcceleratorCount: 2}, "Accelerator count: 1 should not be updated."},
		{&containerpb.AcceleratorConfig{AcceleratorType: "nvidia-a100-80gb", AcceleratorCount: 1}, "Accelerator type: nvidia-tesla-a100 should not be updated."},
		{&containerpb.AcceleratorConfig{AcceleratorType: "nvidia-tesla-a100", AcceleratorCount: 1, GpuPartitionSize: "2g.10gb"}, "Accelerator gpu_partition_size: 1g.5gb should not be updated."},
	} {
		_, err := c.UpdateNodePool(ctxT(t), &containerpb.UpdateNodePoolRequest{Name: gkeParent + "/nodePools/a100", Accelerators: []*containerpb.AcceleratorConfig{tc.acc}})
		wantCode(t, err, codes.InvalidArgument, tc.want)
	}
}

// Versions resolve as the container v1 API says: "1.X" to the highest valid patch, "1.X.Y" to the
// highest gke.N of it; the node pool reports the explicit version.
func TestGKE_NodeVersion_AliasesResolve(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	for alias, want := range map[string]string{"1.31": "1.31.6-gke.1020000", "1.30": "1.30.12-gke.1086000", "1.31.5": "1.31.5-gke.1023000", "": "1.31.6-gke.1020000"} {
		p := l4Pool("v" + strings.ReplaceAll(alias, ".", "-"))
		p.Version = alias
		if got := runningPool(t, c, p).GetVersion(); got != want {
			t.Errorf("version %q resolved to %q, want %q", alias, got, want)
		}
	}
	if got := updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "v1-30", NodeVersion: "1.31.4"}).GetVersion(); got != "1.31.4-gke.1183000" {
		t.Errorf("update to 1.31.4 resolved to %q", got)
	}
	if got := updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "v1-30", NodeVersion: "latest"}).GetVersion(); got != "1.31.6-gke.1020000" {
		t.Errorf("update to latest resolved to %q", got)
	}
}

// GKE's own operations hold the node pool like any other: an auto-upgrade moves the version, an
// auto-repair changes nothing; calls on the node pool meanwhile fail FAILED_PRECONDITION.
func TestGKE_AutoUpgradeAndAutoRepair_HoldTheNodePool(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	p := l4Pool("l4-od")
	p.Version = "1.30"
	runningPool(t, c, p)
	// Windows of 1.5 s: the request that must land within one runs on a loaded machine too.
	const window = 1500 * time.Millisecond
	if err := sim.AutoUpgradeNodePool("acme-ml", "us-central1", "ml", "l4-od", "1.31", window); err != nil {
		t.Fatal(err)
	}
	_, err := c.SetNodePoolSize(ctxT(t), &containerpb.SetNodePoolSizeRequest{Name: gkeParent + "/nodePools/l4-od", NodeCount: 2})
	wantCode(t, err, codes.FailedPrecondition, "is currently upgrading node pool l4-od. Please wait and try again once it is done.")
	time.Sleep(window + 100*time.Millisecond)
	if got := getPool(t, c, "l4-od"); got.GetVersion() != "1.31.6-gke.1020000" || got.GetStatus() != containerpb.NodePool_RUNNING {
		t.Fatalf("after auto-upgrade: %s %s", got.GetVersion(), got.GetStatus())
	}
	if err := sim.AutoRepairNodePool("acme-ml", "us-central1", "ml", "l4-od", window); err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateNodePool(ctxT(t), &containerpb.UpdateNodePoolRequest{Name: gkeParent + "/nodePools/l4-od", Labels: &containerpb.NodeLabels{}})
	wantCode(t, err, codes.FailedPrecondition, "is currently repairing node pool l4-od")
	ops := sim.Operations("acme-ml")
	if last := ops[len(ops)-1]; last.GetOperationType() != containerpb.Operation_AUTO_REPAIR_NODES {
		t.Fatalf("last operation = %v", last)
	}
}

// Specific reservations: looked up in their owner project, shared with the consumer, consumed
// only in their zone and with their machine shape.
func TestGKE_CreateNodePool_SpecificReservationRules(t *testing.T) {
	t.Parallel()
	sim := newSim(t, func(o *Options) {
		o.Seed.GCP.Projects["acme-shared"] = &GCPProjectSeed{Reservations: []GCEReservationSeed{
			{Name: "shared-h100", Zone: "us-central1-a", MachineType: "a3-highgpu-8g", AcceleratorType: "nvidia-h100-80gb", AcceleratorCount: 8, Count: 2, ShareWith: []string{"acme-ml"}},
			{Name: "private-h100", Zone: "us-central1-a", MachineType: "a3-highgpu-8g", AcceleratorType: "nvidia-h100-80gb", AcceleratorCount: 8, Count: 2},
		}}
	})
	c, cs := gkeClient(t, sim), computeService(t, sim)
	h100 := func(name, reservation string, zones ...string) *containerpb.NodePool {
		return &containerpb.NodePool{Name: name, InitialNodeCount: 1, Locations: zones, Config: &containerpb.NodeConfig{MachineType: "a3-highgpu-8g",
			ReservationAffinity: &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_SPECIFIC_RESERVATION, Key: reservationKey, Values: []string{reservation}}}}
	}
	create := func(p *containerpb.NodePool) error {
		_, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: p})
		return err
	}
	wantCode(t, create(h100("two-zones", "h100-reservation", "us-central1-a", "us-central1-b")), codes.InvalidArgument,
		`"us-central1-b". Reservation "h100-reservation" is in zone "us-central1-a"`)
	other := h100("other-shape", "h100-reservation", "us-central1-a")
	other.Config.MachineType = "a2-highgpu-1g"
	wantCode(t, create(other), codes.InvalidArgument, `Reservation "h100-reservation" reserves "a3-highgpu-8g"`)
	wantCode(t, create(h100("private", "projects/acme-shared/reservations/private-h100", "us-central1-a")), codes.InvalidArgument,
		`Reservation "private-h100" of project "acme-shared" is not shared with project "acme-ml"`)
	wantCode(t, create(h100("wrong-owner", "projects/acme-ml/reservations/shared-h100", "us-central1-a")), codes.NotFound, `Reservation "shared-h100" not found in project "acme-ml"`)
	runningPool(t, c, h100("shared", "projects/acme-shared/reservations/shared-h100", "us-central1-a"))

	// Compute Engine reservations.get: zonal, in the owner project.
	r, err := cs.Reservations.Get("acme-shared", "us-central1-a", "shared-h100").Context(ctxT(t)).Do()
	if err != nil || r.SpecificReservation.InstanceProperties.MachineType != "a3-highgpu-8g" || r.SpecificReservation.Count != 2 ||
		r.ShareSettings.ShareType != "SPECIFIC_PROJECTS" || r.ShareSettings.ProjectMap["acme-ml"].ProjectId != "acme-ml" ||
		r.SpecificReservation.InstanceProperties.GuestAccelerators[0].AcceleratorCount != 8 {
		t.Fatalf("reservation = %+v %v", r, err)
	}
	_, err = cs.Reservations.Get("acme-shared", "us-central1-b", "shared-h100").Context(ctxT(t)).Do()
	wantGoogleError(t, err, 404, "notFound")
}

// GPU quota is checked at the request, as GKE does: PERMISSION_DENIED "Insufficient regional
// quota"; Spot VMs count against the PREEMPTIBLE_ metric.
func TestGKE_GPUQuota_AtRequest(t *testing.T) {
	t.Parallel()
	sim := newSim(t, func(o *Options) {
		o.Seed.GCP.Projects["acme-ml"].GPUQuota = map[string]map[string]int{"us-central1": {"NVIDIA_L4_GPUS": 2}}
	})
	c := gkeClient(t, sim)
	three := l4Pool("l4-three")
	three.Locations = []string{"us-central1-a", "us-central1-b", "us-central1-c"}
	_, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: three})
	wantCode(t, err, codes.PermissionDenied, `Insufficient regional quota to satisfy request: resource "NVIDIA_L4_GPUS": request requires '3.0' and is short '1.0'`)
	spot := l4Pool("l4-spot")
	spot.Locations, spot.Config.Spot = three.Locations, true
	runningPool(t, c, spot)
	runningPool(t, c, l4Pool("l4-one"))
	_, err = c.SetNodePoolSize(ctxT(t), &containerpb.SetNodePoolSizeRequest{Name: gkeParent + "/nodePools/l4-one", NodeCount: 3})
	wantCode(t, err, codes.PermissionDenied, "Insufficient regional quota")
	waitOperation(t, c, mustOp(t)(c.SetNodePoolSize(ctxT(t), &containerpb.SetNodePoolSizeRequest{Name: gkeParent + "/nodePools/l4-one", NodeCount: 2})))
}

// Machine types are offered per zone; a zone the seed lists offers only those.
func TestGKE_CreateNodePool_MachineTypeNotInZone(t *testing.T) {
	t.Parallel()
	sim := newSim(t, func(o *Options) {
		o.Seed.GCP.Projects["acme-ml"].MachineTypes = map[string][]string{"us-central1-b": {"e2-standard-4", "n1-standard-8"}}
	})
	c := gkeClient(t, sim)
	p := l4Pool("l4-b")
	p.Locations = []string{"us-central1-a", "us-central1-b"}
	_, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: p})
	wantCode(t, err, codes.InvalidArgument, `Machine type "g2-standard-8" is not available in zone "us-central1-b"`)
}

// VMs carry the node pool's resource labels, the cluster's and GKE's own, at most 64: a node pool
// over that is accepted and fails when its nodes are created.
func TestGKE_CreateNodePool_VMLabelBudget(t *testing.T) {
	t.Parallel()
	sim := newSim(t, func(o *Options) {
		labels := map[string]string{}
		for _, k := range strings.Fields("a b c d e f g h i j k l m n o p q r s t u v w x y z aa ab ac ad ae af ag ah ai aj ak al am an ao ap aq ar as at au av aw ax ay az ba bb bc bd be bf bg bh") {
			labels["cl-"+k] = "x"
		}
		o.Seed.GCP.Projects["acme-ml"].Clusters[0].ResourceLabels = labels // 60
	})
	c := gkeClient(t, sim)
	op := waitOperation(t, c, createPool(t, c, l4Pool("l4-od"))) // 60 + gpufleet-client + provisioning model + GKE's 4
	if op.GetError() == nil || !strings.Contains(op.GetError().GetMessage(), "'resource.labels'") {
		t.Fatalf("operation = %v", op)
	}
	if p := getPool(t, c, "l4-od"); p.GetStatus() != containerpb.NodePool_ERROR {
		t.Fatalf("pool = %v", p.GetStatus())
	}
	if cl, err := c.GetCluster(ctxT(t), &containerpb.GetClusterRequest{Name: gkeParent}); err != nil || len(cl.GetResourceLabels()) != 60 {
		t.Fatalf("cluster resource labels = %v %v", cl.GetResourceLabels(), err)
	}
}

// A Degraded fault: the operation is DONE without error, with the message in status_message;
// the node pool is RUNNING_WITH_ERROR (a partial stockout).
func TestFaults_GKEDegraded_StatusMessageOnly(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	inject(t, sim, Fault{Service: "gke", Operation: "CreateNodePool", Kind: Degraded})
	op := waitOperation(t, c, createPool(t, c, l4Pool("l4-od")))
	if op.GetError() != nil || op.GetStatusMessage() != IssueGCEStockout.Message {
		t.Fatalf("operation = %v", op)
	}
	if p := getPool(t, c, "l4-od"); p.GetStatus() != containerpb.NodePool_RUNNING_WITH_ERROR || p.GetStatusMessage() != IssueGCEStockout.Message ||
		len(p.GetConditions()) != 1 || p.GetConditions()[0].GetCode() != containerpb.StatusCondition_GCE_STOCKOUT {
		t.Fatalf("pool = %v", p)
	}
}

// A blue-green upgrade lists the blue and green instance groups together; the blue ones go stale
// (404) from DELETING_BLUE_POOL on; at the end only the green ones remain. Meanwhile the node pool
// takes no other operation.
func TestCompute_BlueGreenUpgrade_BothGroupsThenStale(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c, cs := gkeClient(t, sim), computeService(t, sim)
	p := l4Pool("l4-bg")
	p.Locations = []string{"us-central1-a", "us-central1-b"}
	blue := runningPool(t, c, p).GetInstanceGroupUrls()
	phase := func(ph containerpb.NodePool_UpdateInfo_BlueGreenInfo_Phase) *containerpb.NodePool {
		if err := sim.SetBlueGreenPhase("acme-ml", "us-central1", "ml", "l4-bg", ph); err != nil {
			t.Fatal(err)
		}
		return getPool(t, c, "l4-bg")
	}
	during := phase(containerpb.NodePool_UpdateInfo_BlueGreenInfo_CREATING_GREEN_POOL)
	info := during.GetUpdateInfo().GetBlueGreenInfo()
	if len(during.GetInstanceGroupUrls()) != 4 || len(info.GetGreenInstanceGroupUrls()) != 2 || info.GetBlueInstanceGroupUrls()[0] != blue[0] ||
		during.GetStatus() != containerpb.NodePool_RECONCILING {
		t.Fatalf("during = %v", during)
	}
	wantTargetSizes(t, cs, during, 1)
	_, err := c.SetNodePoolSize(ctxT(t), &containerpb.SetNodePoolSizeRequest{Name: gkeParent + "/nodePools/l4-bg", NodeCount: 2})
	wantCode(t, err, codes.FailedPrecondition, "is currently upgrading node pool l4-bg")
	phase(containerpb.NodePool_UpdateInfo_BlueGreenInfo_DELETING_BLUE_POOL)
	_, err = getIGM(t, cs, blue[0])
	wantGoogleError(t, err, 404, "notFound")
	done := phase(containerpb.NodePool_UpdateInfo_BlueGreenInfo_PHASE_UNSPECIFIED)
	if urls := done.GetInstanceGroupUrls(); len(urls) != 2 || urls[0] != info.GetGreenInstanceGroupUrls()[0] || done.GetStatus() != containerpb.NodePool_RUNNING || done.GetUpdateInfo() != nil {
		t.Fatalf("after = %v", done)
	}
	wantTargetSizes(t, cs, done, 1)
}

// Machine types Compute Engine sells only as Spot, flex-start or reserved capacity are refused as
// standard VMs; Spot, or a reservation where the type is sold on one, is fine.
func TestGKE_CreateNodePool_ProvisioningModels(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	h100 := func(name, machineType string, spot bool) *containerpb.NodePool {
		return &containerpb.NodePool{Name: name, InitialNodeCount: 1, Locations: []string{"us-central1-a"}, Config: &containerpb.NodeConfig{MachineType: machineType, Spot: spot}}
	}
	_, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: h100("h100-od", "a3-highgpu-1g", false)})
	wantCode(t, err, codes.InvalidArgument, `machine type "a3-highgpu-1g" is available only with Spot VMs or flex-start`)
	runningPool(t, c, h100("h100-spot", "a3-highgpu-1g", true))
}
