package cloudsim

import (
	"context"
	"testing"
	"time"

	"github.com/googleapis/gax-go/v2"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
)

// AfterStart: CreateNodePool answered UNAVAILABLE although the create started (audit N10). The
// node pool is there, PROVISIONING, and a second create of it is ALREADY_EXISTS.
func TestGKEFaults_UnavailableAfterStart_CreateStarted(t *testing.T) {
	t.Parallel()
	sim := newSim(t, observeTransitions)
	c := gkeClient(t, sim)
	inject(t, sim, Fault{Service: "gke", Operation: "CreateNodePool", Kind: Unavailable, AfterStart: true, Count: 1})
	_, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: l4Pool("l4-od")})
	wantCode(t, err, codes.Unavailable, "")
	if p := getPool(t, c, "l4-od"); p.GetStatus() != containerpb.NodePool_PROVISIONING {
		t.Fatalf("the create did not start: %v", p)
	}
	_, err = c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: l4Pool("l4-od")})
	wantCode(t, err, codes.AlreadyExists, "l4-od")
	if got := errorsOf(sim.RequestsFor("gke", "CreateNodePool")); len(got) != 2 || got[0] != "UNAVAILABLE" || got[1] != "ALREADY_EXISTS" {
		t.Fatalf("requests = %q", got)
	}
	// A call that fails on its own answers with its own error.
	inject(t, sim, Fault{Service: "gke", Operation: "CreateNodePool", Kind: Unavailable, AfterStart: true, Count: 1})
	bad := l4Pool("Bad")
	_, err = c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: bad})
	wantCode(t, err, codes.InvalidArgument, "node_pool.name")
	for _, f := range []Fault{
		{Service: "eks", Operation: "CreateNodegroup", Kind: Unavailable, AfterStart: true},
		{Service: "gke", Operation: "CreateNodePool", Kind: CreateFailed, AfterStart: true},
	} {
		if _, err := sim.Inject(f); err == nil {
			t.Errorf("fault %+v accepted", f)
		}
	}
}

// AfterStart with Latency: the create reached GKE and is carried out after the caller gave up. The
// caller gets DEADLINE_EXCEEDED at its deadline and finds no node pool right after; the node pool
// appears when the latency ends. Without AfterStart the same call is never served.
func TestGKEFaults_LatencyAfterStart_ServedAfterTheCallerGaveUp(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	create := func(name string) error {
		ctx, cancel := context.WithTimeout(ctxT(t), 200*time.Millisecond)
		defer cancel()
		_, err := c.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: l4Pool(name)}, gax.WithRetry(nil))
		return err
	}
	inject(t, sim, Fault{Service: "gke", Operation: "CreateNodePool", Match: "late-od", Kind: Latency, Latency: time.Second, AfterStart: true, Count: 1})
	inject(t, sim, Fault{Service: "gke", Operation: "CreateNodePool", Match: "never-od", Kind: Latency, Latency: time.Second, Count: 1})
	wantCode(t, create("late-od"), codes.DeadlineExceeded, "")
	wantCode(t, create("never-od"), codes.DeadlineExceeded, "")
	for _, name := range []string{"late-od", "never-od"} {
		if _, ok := sim.NodePool("acme-ml", "us-central1", "ml", name); ok {
			t.Fatalf("%s exists right after the caller gave up", name)
		}
	}
	time.Sleep(1500 * time.Millisecond)
	if _, ok := sim.NodePool("acme-ml", "us-central1", "ml", "late-od"); !ok {
		t.Fatal("late-od, whose create reached GKE, never appeared")
	}
	if _, ok := sim.NodePool("acme-ml", "us-central1", "ml", "never-od"); ok {
		t.Fatal("never-od, whose create never reached GKE, appeared")
	}
}

// A resize that cannot get its VMs (N13): CreateFailed fails the operation and keeps the size,
// Degraded takes the size and ends DONE with status_message; both leave RUNNING_WITH_ERROR, and
// the next successful operation clears it.
func TestGKEFaults_SetNodePoolSizeStockout(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	runningPool(t, c, l4Pool("l4-od"))
	resize := func(n int32) *containerpb.Operation {
		t.Helper()
		return waitOperation(t, c, mustOp(t)(c.SetNodePoolSize(ctxT(t), &containerpb.SetNodePoolSizeRequest{Name: gkeParent + "/nodePools/l4-od", NodeCount: n})))
	}
	count := func() int32 {
		n, _ := sim.NodePoolNodeCount("acme-ml", "us-central1", "ml", "l4-od")
		return n
	}
	inject(t, sim, Fault{Service: "gke", Operation: "SetNodePoolSize", Kind: CreateFailed, Count: 1})
	if op := resize(3); op.GetError().GetCode() != int32(codes.ResourceExhausted) {
		t.Fatalf("operation = %v", op)
	}
	if p := getPool(t, c, "l4-od"); p.GetStatus() != containerpb.NodePool_RUNNING_WITH_ERROR || count() != 1 {
		t.Fatalf("after a failed resize: %v, %d nodes per zone", p.GetStatus(), count())
	}
	inject(t, sim, Fault{Service: "gke", Operation: "SetNodePoolSize", Kind: Degraded, Count: 1})
	if op := resize(3); op.GetError() != nil || op.GetStatusMessage() != IssueGCEStockout.Message {
		t.Fatalf("operation = %v", op)
	}
	if p := getPool(t, c, "l4-od"); p.GetStatus() != containerpb.NodePool_RUNNING_WITH_ERROR || count() != 3 {
		t.Fatalf("after a degraded resize: %v, %d nodes per zone", p.GetStatus(), count())
	}
	resize(3)
	if p := getPool(t, c, "l4-od"); p.GetStatus() != containerpb.NodePool_RUNNING {
		t.Fatalf("a resize that succeeds leaves %v", p.GetStatus())
	}
	inject(t, sim, Fault{Service: "gke", Operation: "SetNodePoolAutoscaling", Kind: Degraded, Count: 1})
	waitOperation(t, c, mustOp(t)(c.SetNodePoolAutoscaling(ctxT(t), &containerpb.SetNodePoolAutoscalingRequest{Name: gkeParent + "/nodePools/l4-od",
		Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, TotalMinNodeCount: 4, TotalMaxNodeCount: 8}})))
	if p := getPool(t, c, "l4-od"); p.GetStatus() != containerpb.NodePool_RUNNING_WITH_ERROR || p.GetAutoscaling().GetTotalMinNodeCount() != 4 {
		t.Fatalf("after degraded new limits: %v", p)
	}
}

// A delete whose operation fails leaves the node pool, with its nodes, RUNNING_WITH_ERROR.
func TestGKEFaults_DeleteNodePoolFailed(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	runningPool(t, c, l4Pool("l4-od"))
	id, _, _ := sim.NodePoolCreation("acme-ml", "us-central1", "ml", "l4-od")
	inject(t, sim, Fault{Service: "gke", Operation: "DeleteNodePool", Kind: CreateFailed, Count: 1,
		HealthIssues: []HealthIssue{{Code: "UNKNOWN", Message: "Internal error while deleting the instance groups."}}})
	if op := waitOperation(t, c, mustOp(t)(c.DeleteNodePool(ctxT(t), &containerpb.DeleteNodePoolRequest{Name: gkeParent + "/nodePools/l4-od"}))); op.GetError() == nil {
		t.Fatalf("operation = %v", op)
	}
	if p := getPool(t, c, "l4-od"); p.GetStatus() != containerpb.NodePool_RUNNING_WITH_ERROR {
		t.Fatalf("pool = %v", p)
	}
	if again, _, _ := sim.NodePoolCreation("acme-ml", "us-central1", "ml", "l4-od"); again != id || id == "" {
		t.Fatalf("creation id %q, then %q", id, again)
	}
	waitOperation(t, c, mustOp(t)(c.DeleteNodePool(ctxT(t), &containerpb.DeleteNodePoolRequest{Name: gkeParent + "/nodePools/l4-od"})))
	runningPool(t, c, l4Pool("l4-od"))
	if again, _, _ := sim.NodePoolCreation("acme-ml", "us-central1", "ml", "l4-od"); again == id {
		t.Fatalf("a node pool created again kept creation id %q", id)
	}
}

// Versions leave the valid set over time (audit N6): after a control plane upgrade and the
// retirement of the old patch, a node pool cannot be created at it, while the node pool that
// runs it keeps running it and can still be changed.
func TestGKEFaults_RetiredNodeVersion(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	old := l4Pool("l4-od")
	old.Version = "1.31.6-gke.1020000"
	runningPool(t, c, old)
	if err := sim.RetireGKENodeVersions("acme-ml", "us-central1", "ml", "1.31.6-gke.1020000"); err == nil {
		t.Fatal("the control plane's own version was retired")
	}
	if err := sim.UpgradeGKEControlPlane("acme-ml", "us-central1", "ml", "1.32.6-gke.1125000"); err != nil {
		t.Fatal(err)
	}
	if err := sim.RetireGKENodeVersions("acme-ml", "us-central1", "ml", "1.31.6-gke.1020000"); err != nil {
		t.Fatal(err)
	}
	again := l4Pool("l4-spot")
	again.Version = "1.31.6-gke.1020000"
	_, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: again})
	wantCode(t, err, codes.InvalidArgument, "not a valid node version")
	again.Version = ""
	if v := runningPool(t, c, again).GetVersion(); v != "1.32.6-gke.1125000" {
		t.Fatalf("a node pool without a version runs %s, want the control plane's", v)
	}
	updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-od", Labels: &containerpb.NodeLabels{Labels: map[string]string{"a": "b"}}})
	if p := getPool(t, c, "l4-od"); p.GetVersion() != "1.31.6-gke.1020000" || p.GetStatus() != containerpb.NodePool_RUNNING {
		t.Fatalf("the node pool on the retired version: %v %v", p.GetVersion(), p.GetStatus())
	}
	if err := sim.UpgradeGKEControlPlane("acme-ml", "us-central1", "ml", "1.34.1-gke.1000000"); err == nil {
		t.Fatal("the control plane skipped a minor version")
	}
}

// GKE fills the default driver only in node pools created on 1.30 or later (audit N2); one created
// earlier keeps none, through updates and upgrades.
func TestGKEFaults_DriverUnspecifiedBefore130(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	driverOf := func(name string) containerpb.GPUDriverInstallationConfig_GPUDriverVersion {
		return getPool(t, c, name).GetConfig().GetAccelerators()[0].GetGpuDriverInstallationConfig().GetGpuDriverVersion()
	}
	for version, want := range map[string]containerpb.GPUDriverInstallationConfig_GPUDriverVersion{
		"1.29": containerpb.GPUDriverInstallationConfig_GPU_DRIVER_VERSION_UNSPECIFIED,
		"1.30": containerpb.GPUDriverInstallationConfig_DEFAULT,
	} {
		p := l4Pool("l4-v" + version[2:])
		p.Version = version
		p.Config.Accelerators[0].GpuDriverInstallationConfig = nil
		runningPool(t, c, p)
		if got := driverOf(p.Name); got != want {
			t.Errorf("created at %s: driver %v, want %v", version, got, want)
		}
	}
	updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-v29", NodeVersion: "1.31"})
	updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-v29", Labels: &containerpb.NodeLabels{Labels: map[string]string{"a": "b"}}})
	if got := driverOf("l4-v29"); got != containerpb.GPUDriverInstallationConfig_GPU_DRIVER_VERSION_UNSPECIFIED {
		t.Errorf("after upgrades and updates: driver %v", got)
	}
}

// A seeded node pool may be one another tool made before GKE 1.30: its labels, spot, limits, and
// no driver setting.
func TestGKEFaults_SeedPoolCreatedBefore130(t *testing.T) {
	t.Parallel()
	sim := newSim(t, func(o *Options) {
		cl := &o.Seed.GCP.Projects["acme-ml"].Clusters[0]
		cl.NodePools = append(cl.NodePools, GKENodePoolSeed{Name: "tune-spot", MachineType: "g2-standard-8", NodeCount: 1, Locations: []string{"us-central1-a"},
			Spot: true, Labels: map[string]string{"team": "ml"}, ResourceLabels: map[string]string{"gpufleet_pool": "tune"},
			TotalMinNodeCount: 0, TotalMaxNodeCount: 4, CreatedVersion: "1.29.15-gke.1218000"})
	})
	p := getPool(t, gkeClient(t, sim), "tune-spot")
	acc := p.GetConfig().GetAccelerators()
	if len(acc) != 1 || acc[0].GetGpuDriverInstallationConfig() != nil || !p.GetConfig().GetSpot() || p.GetConfig().GetLabels()["team"] != "ml" ||
		p.GetConfig().GetResourceLabels()["gpufleet_pool"] != "tune" || p.GetAutoscaling().GetTotalMaxNodeCount() != 4 {
		t.Fatalf("seeded pool = %v", p)
	}
}
