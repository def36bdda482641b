package gke_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// matrixRow is one failure of the fault matrix: a pool applied as before (none for a create), then
// the apply of after, which meets faults on the call the row is named after.
type matrixRow struct {
	name   string
	before string // the pool's body applied first, without faults; "" for none
	after  string // the body whose apply meets the faults; "" for the pool's destroy
	// prepare changes the world out of band before the faulty apply (a control plane upgrade).
	prepare func(*testing.T, *cloudsim.Sim)
	faults  []cloudsim.Fault
	// err are parts of the faulty apply's error; nil when the apply succeeds with a warning (a
	// create that leaves a failed side beside a running one) or the fault is absorbed.
	err []string
	// repair is what the next plan does; replaced says that the faulty apply replaces the pool on
	// purpose (a reservation change), so that a node pool healthy before may be gone.
	repair   plancheck.ResourceActionType
	replaced bool
	// machineType is the pool's machine type in after ("" for g2-standard-8).
	machineType string
}

// limits is a scaling block whose size the autoscaler owns.
func limits(minSize, maxSize int) string {
	return fmt.Sprintf("  scaling {\n    min_size = %d\n    max_size = %d\n  }\n", minSize, maxSize)
}

// Bodies of the pool infer in one zone (so that sizes are what they say): two sides, on-demand
// and spot, unless said otherwise.
func mixBody(pct int, scaling, extra string) string {
	return trainingWorkload + "  node_locations = [\"europe-west4-a\"]\n" + scaling + acctest.Capacity(pct, 0) + extra
}

var (
	autoscaledMix = mixBody(50, limits(2, 4), "") // infer-od 1..2, infer-spot 1..2
	enforced      = mixBody(50, "  scaling {\n    min_size = 0\n    desired_size = 2\n    max_size = 4\n  }\n", "")
	allOD         = mixBody(0, limits(2, 4), "")
)

// Faults as GKE answers them.
func refused(op, match string) cloudsim.Fault {
	return cloudsim.Fault{Service: "gke", Operation: op, Match: match, Kind: cloudsim.ServerError, Code: "PERMISSION_DENIED", Count: 1,
		Message: "Insufficient regional quota to satisfy request: resource \"NVIDIA_L4_GPUS\": request requires '2.0' and is short '1.0'."}
}

func invalid(op, match string) cloudsim.Fault {
	return cloudsim.Fault{Service: "gke", Operation: op, Match: match, Kind: cloudsim.ServerError, Code: "INVALID_ARGUMENT", Count: 1,
		Message: "Node pool update rejected by the admission controller."}
}

func stockout(op, match string) cloudsim.Fault {
	return cloudsim.Fault{Service: "gke", Operation: op, Match: match, Kind: cloudsim.CreateFailed, Count: 1}
}

func operationError(op, match string) cloudsim.Fault {
	return cloudsim.Fault{Service: "gke", Operation: op, Match: match, Kind: cloudsim.CreateFailed, Count: 1,
		HealthIssues: []cloudsim.HealthIssue{{Code: "UNKNOWN", Message: "Internal error while updating the instance groups."}}}
}

func leftInError(op, match string) cloudsim.Fault {
	return cloudsim.Fault{Service: "gke", Operation: op, Match: match, Kind: cloudsim.Degraded, Count: 1}
}

// updateRows are the rows of one UpdateNodePool field group: the change to the autoscaledMix pool
// that sends that group alone, refused, failed in its operation, and done but leaving the node
// pool RUNNING_WITH_ERROR.
func updateRows(group, extra string, prepare func(*testing.T, *cloudsim.Sim)) []matrixRow {
	after := autoscaledMix + extra
	if group == "locations" {
		after = strings.Replace(after, `node_locations = ["europe-west4-a"]`, `node_locations = ["europe-west4-a", "europe-west4-b"]`, 1)
	}
	machineType := ""
	if group == "machine_type" {
		machineType = "g2-standard-12"
	}
	rows := []matrixRow{
		{name: "UpdateNodePool/" + group + "/refused", before: autoscaledMix, after: after, prepare: prepare, faults: []cloudsim.Fault{invalid("UpdateNodePool", "infer-od")},
			err: []string{"infer-od", "UpdateNodePool", group, "InvalidArgument"}, repair: plancheck.ResourceActionUpdate},
		{name: "UpdateNodePool/" + group + "/operation-error", before: autoscaledMix, after: after, prepare: prepare, faults: []cloudsim.Fault{operationError("UpdateNodePool", "infer-od")},
			err: []string{"infer-od", "UpdateNodePool", group, "Internal error while updating"}, repair: plancheck.ResourceActionUpdate},
		{name: "UpdateNodePool/" + group + "/left-in-error", before: autoscaledMix, after: after, prepare: prepare, faults: []cloudsim.Fault{leftInError("UpdateNodePool", "infer-spot")},
			err: []string{"infer-spot", "UpdateNodePool", group, "RUNNING_WITH_ERROR"}, repair: plancheck.ResourceActionUpdate},
	}
	for i := range rows {
		rows[i].machineType = machineType
	}
	return rows
}

func upgradeControlPlane(t *testing.T, sim *cloudsim.Sim) {
	if err := sim.UpgradeGKEControlPlane(testProject, testLocation, testCluster, "1.31.9-gke.1044000"); err != nil {
		t.Fatal(err)
	}
}

func matrixRows() []matrixRow {
	rows := []matrixRow{
		// Create.
		{name: "CreateNodePool/od/refused", after: autoscaledMix, faults: []cloudsim.Fault{refused("CreateNodePool", "infer-od")},
			err: []string{"infer-od", "Insufficient regional quota"}, repair: plancheck.ResourceActionCreate},
		{name: "CreateNodePool/spot/refused", after: autoscaledMix, faults: []cloudsim.Fault{refused("CreateNodePool", "infer-spot")},
			err: []string{"infer-spot", "Insufficient regional quota", "were deleted again"}, repair: plancheck.ResourceActionCreate},
		{name: "CreateNodePool/od/stockout", after: autoscaledMix, faults: []cloudsim.Fault{stockout("CreateNodePool", "infer-od")},
			repair: plancheck.ResourceActionUpdate},
		{name: "CreateNodePool/spot/stockout", after: autoscaledMix, faults: []cloudsim.Fault{stockout("CreateNodePool", "infer-spot")},
			repair: plancheck.ResourceActionUpdate},
		{name: "CreateNodePool/spot/operation-error", after: autoscaledMix, faults: []cloudsim.Fault{operationError("CreateNodePool", "infer-spot")},
			repair: plancheck.ResourceActionUpdate},
		{name: "CreateNodePool/od/left-in-error", after: autoscaledMix, faults: []cloudsim.Fault{leftInError("CreateNodePool", "infer-od")},
			repair: plancheck.ResourceActionUpdate},
		{name: "CreateNodePool/both/stockout", after: autoscaledMix, faults: []cloudsim.Fault{stockout("CreateNodePool", "infer-od"), stockout("CreateNodePool", "infer-spot")},
			err: []string{"infer-od", "infer-spot", "not have enough resources"}, repair: plancheck.ResourceActionDestroyBeforeCreate},
		{name: "CreateNodePool/od/unavailable-after-start", after: autoscaledMix,
			faults: []cloudsim.Fault{{Service: "gke", Operation: "CreateNodePool", Match: "infer-od", Kind: cloudsim.Unavailable, AfterStart: true, Count: 1}},
			repair: plancheck.ResourceActionNoop},
	}
	// Multi-node training (issue #40, item 8): both node pools carry the GPUDirect-TCPX networks;
	// the spot one refused, the on-demand one the create made goes again, and nothing is left.
	gpuDirect := strings.Replace(mixBody(50, limits(2, 4), gpuNetworks(1, 4)), "europe-west4-a", "europe-west4-b", 1) // H100 zone
	rows = append(rows,
		matrixRow{name: "CreateNodePool/gpudirect-spot/refused", after: gpuDirect, machineType: "a3-highgpu-8g",
			faults: []cloudsim.Fault{refused("CreateNodePool", "infer-spot")},
			err:    []string{"infer-spot", "Insufficient regional quota", "were deleted again"}, repair: plancheck.ResourceActionCreate},
		matrixRow{name: "CreateNodePool/gpudirect-od/stockout", after: gpuDirect, machineType: "a3-highgpu-8g",
			faults: []cloudsim.Fault{stockout("CreateNodePool", "infer-od")},
			repair: plancheck.ResourceActionUpdate},
	)
	// Update: each UpdateNodePool field group.
	rows = append(rows, updateRows("resource_labels", "  tags = { project = \"vision\" }\n", nil)...)
	rows = append(rows, updateRows("labels", "  labels = { team = \"ml\" }\n", nil)...)
	rows = append(rows, updateRows("taints", "  taints = [{ key = \"team\", value = \"ml\", effect = \"NO_SCHEDULE\" }]\n", nil)...)
	rows = append(rows, updateRows("machine_type", "", nil)...)
	rows = append(rows, updateRows("accelerators", "  gpu {\n    driver_version = \"LATEST\"\n  }\n", nil)...)
	rows = append(rows, updateRows("node_version", "  kubernetes_version = \"1.31.9\"\n", upgradeControlPlane)...)
	rows = append(rows, updateRows("locations", "", nil)...)
	rows = append(rows, updateRows("upgrade_settings", "  upgrade_settings {\n    max_surge = 2\n  }\n", nil)...)
	// Sizes, limits, the spot mix, the reservation, and the pool's destroy.
	bigger := strings.Replace(enforced, "desired_size = 2", "desired_size = 4", 1)
	wider := mixBody(50, limits(2, 6), "")
	allSpot := mixBody(100, limits(2, 4), "")
	reserved := mixBody(0, limits(2, 4), "  capacity {\n    reservation {\n      type = \"specific\"\n      name = \""+reservation+"\"\n    }\n  }\n")
	reserved = strings.Replace(reserved, acctest.Capacity(0, 0), "", 1)
	rows = append(rows,
		matrixRow{name: "SetNodePoolSize/refused", before: enforced, after: bigger, faults: []cloudsim.Fault{refused("SetNodePoolSize", "infer-od")},
			err: []string{"infer-od", "SetNodePoolSize", "Insufficient regional quota"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "SetNodePoolSize/stockout", before: enforced, after: bigger, faults: []cloudsim.Fault{stockout("SetNodePoolSize", "infer-spot")},
			err: []string{"infer-spot", "SetNodePoolSize", "not have enough resources"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "SetNodePoolSize/left-in-error", before: enforced, after: bigger, faults: []cloudsim.Fault{leftInError("SetNodePoolSize", "infer-od")},
			err: []string{"infer-od", "SetNodePoolSize", "RUNNING_WITH_ERROR"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "SetNodePoolAutoscaling/refused", before: autoscaledMix, after: wider, faults: []cloudsim.Fault{refused("SetNodePoolAutoscaling", "infer-od")},
			err: []string{"infer-od", "SetNodePoolAutoscaling", "Insufficient regional quota"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "SetNodePoolAutoscaling/operation-error", before: autoscaledMix, after: wider, faults: []cloudsim.Fault{operationError("SetNodePoolAutoscaling", "infer-spot")},
			err: []string{"infer-spot", "SetNodePoolAutoscaling", "Internal error while updating"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "SetNodePoolAutoscaling/left-in-error", before: autoscaledMix, after: wider, faults: []cloudsim.Fault{leftInError("SetNodePoolAutoscaling", "infer-od")},
			err: []string{"infer-od", "SetNodePoolAutoscaling", "RUNNING_WITH_ERROR"}, repair: plancheck.ResourceActionUpdate},
		// An enforced size turns GKE's autoscaling off (audit N14).
		matrixRow{name: "SetNodePoolAutoscaling/autoscaling-off/refused", before: autoscaledMix, after: enforced, faults: []cloudsim.Fault{refused("SetNodePoolAutoscaling", "infer-od")},
			err: []string{"infer-od", "SetNodePoolAutoscaling", "Insufficient regional quota"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "SetNodePoolAutoscaling/autoscaling-off/operation-error", before: autoscaledMix, after: enforced, faults: []cloudsim.Fault{operationError("SetNodePoolAutoscaling", "infer-spot")},
			err: []string{"infer-spot", "SetNodePoolAutoscaling", "Internal error while updating"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "CreateNodePool/spot-mix/refused", before: allOD, after: allSpot, faults: []cloudsim.Fault{refused("CreateNodePool", "infer-spot")},
			err: []string{"infer-spot", "Insufficient regional quota", "infer-od kept"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "CreateNodePool/spot-mix/stockout", before: allOD, after: allSpot, faults: []cloudsim.Fault{stockout("CreateNodePool", "infer-spot")},
			err: []string{"infer-spot", "ERROR", "infer-od kept"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "CreateNodePool/spot-mix/left-in-error", before: allOD, after: allSpot, faults: []cloudsim.Fault{leftInError("CreateNodePool", "infer-spot")},
			err: []string{"infer-spot", "RUNNING_WITH_ERROR", "infer-od kept"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "CreateNodePool/spot-added/stockout", before: allOD, after: autoscaledMix, faults: []cloudsim.Fault{stockout("CreateNodePool", "infer-spot")},
			err: []string{"infer-spot", "ERROR"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "DeleteNodePool/spot-mix/refused", before: allOD, after: allSpot, faults: []cloudsim.Fault{invalid("DeleteNodePool", "infer-od")},
			err: []string{"infer-od", "InvalidArgument"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "DeleteNodePool/spot-mix/operation-error", before: allOD, after: allSpot, faults: []cloudsim.Fault{operationError("DeleteNodePool", "infer-od")},
			err: []string{"infer-od", "Internal error while updating"}, repair: plancheck.ResourceActionUpdate},
		// A reservation change replaces the on-demand node pool alone, in the update (audit N17):
		// deleted, then created again under its name.
		matrixRow{name: "DeleteNodePool/reservation/refused", before: allOD, after: reserved, faults: []cloudsim.Fault{invalid("DeleteNodePool", "infer-od")},
			err: []string{"infer-od", "InvalidArgument"}, repair: plancheck.ResourceActionUpdate},
		matrixRow{name: "CreateNodePool/reservation/stockout", before: allOD, after: reserved, faults: []cloudsim.Fault{stockout("CreateNodePool", "infer-od")},
			err: []string{"infer-od", "not have enough resources"}, repair: plancheck.ResourceActionUpdate, replaced: true},
		matrixRow{name: "DeleteNodePool/destroy/refused", before: autoscaledMix, faults: []cloudsim.Fault{invalid("DeleteNodePool", "infer-od")},
			err: []string{"deleting GKE node pool", "infer-od", "InvalidArgument"}, repair: plancheck.ResourceActionDestroy},
		matrixRow{name: "DeleteNodePool/destroy/operation-error", before: autoscaledMix, faults: []cloudsim.Fault{operationError("DeleteNodePool", "infer-spot")},
			err: []string{"deleting GKE node pool", "infer-spot", "Internal error while updating"}, repair: plancheck.ResourceActionDestroy},
	)
	return rows
}

// matrixConfig is the test configuration with the pool's body, or without the pool.
func matrixConfig(sim *cloudsim.Sim, body, machineType string) string {
	if body == "" {
		return providerConfig(sim, "")
	}
	if machineType == "" {
		machineType = "g2-standard-8"
	}
	return providerConfig(sim, "") + poolConfig("infer", machineType, body)
}

// The fault matrix: for every mutating call of a create, an update (each UpdateNodePool field
// group, sizes, limits, the spot mix, the reservation) and the destroy, a failure in cloudsim —
// refused at the request, an operation that fails, one that leaves the node pool in error, a
// stockout — and then: no node pool that was healthy before the faulty apply is deleted or created
// again (creation ids); the state the faulty apply left is what the cloud holds (refresh finds no
// drift, and reads the simulator's node pools); the pool is tainted only when nothing of it runs;
// the next plan is the repair the row names; an apply without faults converges to an empty plan.
func TestAccGKENodePool_faultMatrix(t *testing.T) {
	rows := matrixRows()
	t.Logf("%d rows", len(rows))
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			sim := startSimWith(t, gpuDirectSeed(true)) // multi-networking, for the GPUDirect rows
			healthy := map[string]string{}              // node pool → creation id, RUNNING before the faulty apply
			var steps []resource.TestStep
			if row.before != "" {
				steps = append(steps, resource.TestStep{Config: matrixConfig(sim, row.before, "")})
			}
			faulty := resource.TestStep{
				PreConfig: func() {
					for _, np := range sim.NodePools(testProject, testLocation, testCluster) {
						if np.GetName() != "default-pool" && np.GetStatus() == containerpb.NodePool_RUNNING {
							healthy[np.GetName()] = creationID(sim, np.GetName())
						}
					}
					if row.prepare != nil {
						row.prepare(t, sim)
					}
					for _, f := range row.faults {
						if _, err := sim.Inject(f); err != nil {
							t.Fatal(err)
						}
					}
				},
				Config: matrixConfig(sim, row.after, row.machineType),
			}
			if row.err != nil {
				faulty.ExpectError = acctest.ExpectErrorParts(row.err...)
			} else {
				faulty.ExpectNonEmptyPlan = row.repair != plancheck.ResourceActionNoop
			}
			repair := resource.TestStep{
				PreConfig: func() {
					for _, f := range sim.Faults() {
						t.Fatalf("fault %s did not fire: %+v", f.ID, f)
					}
					if row.replaced || row.after == "" {
						return
					}
					for name, id := range healthy {
						if now := creationID(sim, name); now != id {
							t.Fatalf("node pool %s, healthy before the faulty apply, was deleted or created again (creation id %q, was %q)", name, now, id)
						}
					}
				},
				Config: matrixConfig(sim, row.after, row.machineType),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					stateIsCloud{sim: sim},
					plancheck.ExpectResourceAction(addr, row.repair),
					taintedOnlyWhenNothingRuns{sim: sim},
				}},
			}
			if row.after != "" {
				repair.ConfigPlanChecks.PreApply = append(repair.ConfigPlanChecks.PreApply, plancheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools"), knownvalue.ListSizeExact(len(wantedSides(row.after)))))
			}
			resource.ParallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy:             checkNothingLeft(t, sim),
				Steps:                    append(steps, faulty, repair),
			})
		})
	}
}

// wantedSides are the node pools a matrix body gives the pool.
func wantedSides(body string) []string {
	switch {
	case strings.Contains(body, acctest.Capacity(100, 0)):
		return []string{"infer-spot"}
	case strings.Contains(body, acctest.Capacity(50, 0)):
		return []string{"infer-od", "infer-spot"}
	}
	return []string{"infer-od"}
}

// stateIsCloud checks a plan made after a faulty apply: the refresh found the state that apply
// left to be what the cloud holds (no drift), and the refreshed node_pools are the simulator's node
// pools of the pool, with their statuses and sizes.
type stateIsCloud struct{ sim *cloudsim.Sim }

func (c stateIsCloud) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	var errs []error
	for _, d := range req.Plan.ResourceDrift {
		if d.Address == addr {
			errs = append(errs, fmt.Errorf("the state the faulty apply left is not the cloud's: refresh changed it from %v to %v", d.Change.Before, d.Change.After))
		}
	}
	var recorded []any
	if req.Plan.PriorState != nil && req.Plan.PriorState.Values != nil {
		for _, r := range req.Plan.PriorState.Values.RootModule.Resources {
			if r.Address == addr {
				recorded, _ = r.AttributeValues["node_pools"].([]any)
			}
		}
	}
	var inState []string
	for _, v := range recorded {
		np, _ := v.(map[string]any)
		name, _ := np["name"].(string)
		inState = append(inState, name)
		got, ok := c.sim.NodePool(testProject, testLocation, testCluster, name)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("state holds node pool %s, which does not exist", name))
		case np["status"] != got.GetStatus().String() || np["spot"] != got.GetConfig().GetSpot() || np["desired_size"] != float64(nodeCount(c.sim, name)):
			errs = append(errs, fmt.Errorf("state holds node pool %s as %v; the cloud has it %s, spot %t, %d nodes", name, np, got.GetStatus(), got.GetConfig().GetSpot(), nodeCount(c.sim, name)))
		}
	}
	slices.Sort(inState)
	if names := ourNodePools(c.sim); !slices.Equal(names, inState) {
		errs = append(errs, fmt.Errorf("the cloud holds node pools %v, state %v", names, inState))
	}
	resp.Error = errors.Join(errs...)
}

// taintedOnlyWhenNothingRuns checks that a plan replaces a tainted pool only when none of its node
// pools runs.
type taintedOnlyWhenNothingRuns struct{ sim *cloudsim.Sim }

func (c taintedOnlyWhenNothingRuns) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	if req.Plan.PriorState == nil || req.Plan.PriorState.Values == nil {
		return
	}
	for _, r := range req.Plan.PriorState.Values.RootModule.Resources {
		if r.Address != addr || !r.Tainted {
			continue
		}
		for _, np := range c.sim.NodePools(testProject, testLocation, testCluster) {
			if np.GetName() != "default-pool" && (np.GetStatus() == containerpb.NodePool_RUNNING || np.GetStatus() == containerpb.NodePool_RUNNING_WITH_ERROR) {
				resp.Error = fmt.Errorf("the pool is tainted while node pool %s runs (%s)", np.GetName(), np.GetStatus())
			}
		}
	}
}

// ourNodePools lists the test cluster's node pools other than the seeded default pool.
func ourNodePools(sim *cloudsim.Sim) []string {
	var names []string
	for _, np := range sim.NodePools(testProject, testLocation, testCluster) {
		if np.GetName() != "default-pool" {
			names = append(names, np.GetName())
		}
	}
	return names
}
