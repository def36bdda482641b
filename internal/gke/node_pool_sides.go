package gke

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/googleapis/gax-go/v2"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// What an apply does to a pool's node pools (its sides), so that a failure never costs what runs:
// a side that comes is created and found healthy before a side that goes is deleted; a side GKE
// leaves in ERROR is deleted and created again by the next apply, one RUNNING_WITH_ERROR gets the
// settings that differ, or else its size, sent again; refresh marks every side that is not what
// the pool gives it (in_sync), so that the next plan shows the repair.

// running reports whether a node pool has nodes that serve: RUNNING, or RUNNING_WITH_ERROR
// ("partially usable", container v1 API, NodePool.Status).
func running(st containerpb.NodePool_Status) bool {
	return st == containerpb.NodePool_RUNNING || st == containerpb.NodePool_RUNNING_WITH_ERROR
}

// failed reports a status an apply must repair: ERROR ("may be unusable") or RUNNING_WITH_ERROR
// ("Customer may need to reissue a request or trigger a new update"). PROVISIONING, RECONCILING
// and STOPPING are on their way somewhere.
func failed(st string) bool {
	return st == containerpb.NodePool_ERROR.String() || st == containerpb.NodePool_RUNNING_WITH_ERROR.String()
}

// ownSides finds the node pools of the pool's two side names: the pool's own, by name, and an
// error for a name the pool needs (wanted) that another pool or tool holds: the apply stops there,
// before any change. A foreign node pool of a side the pool does not need is left out.
func ownSides(ctx context.Context, c *clients, cluster clusterRef, o owner, wanted []string) (map[string]*containerpb.NodePool, error) {
	own := map[string]*containerpb.NodePool{}
	for _, suffix := range []string{pool.SuffixOnDemand, pool.SuffixSpot} {
		name := o.pool + suffix
		np, err := findNodePool(ctx, c.gke, cluster, name)
		switch {
		case isNotFound(err):
			continue
		case err != nil:
			return nil, err
		case o.owns(np):
			own[name] = np
		case slices.Contains(wanted, name):
			return nil, o.notOwned(cluster, np)
		default:
			tflog.Info(ctx, "ignoring a node pool of a side's name that is not the pool's", map[string]any{"node_pool": name})
		}
	}
	return own, nil
}

// createSide creates one node pool with its initial size per zone (GKE's initial_node_count is per
// zone: the plan's total, rounded up), and fails when GKE leaves it in error. version is the
// configured one; "" lets GKE create it at the control plane's version (NodePool.version: "If
// unspecified, it defaults as described here", GKE versioning: a new node pool gets the control
// plane's version), never at an explicit patch state recorded from another side, which the cluster
// may no longer accept (audit N6).
func createSide(ctx context.Context, c *clients, cluster clusterRef, o owner, cfg sideConfig, version string) error {
	np := proto.Clone(cfg.NodePool).(*containerpb.NodePool)
	np.InitialNodeCount = int32(pool.PerZone(cfg.Sizes.Desired, len(cfg.Zones)))
	np.Version = version
	if err := createNodePool(ctx, c, cluster, o, np); err != nil {
		return withPoolHealth(ctx, c, cluster, cfg.Name, err)
	}
	created, err := findNodePool(ctx, c.gke, cluster, cfg.Name)
	if err != nil {
		return err
	}
	if err := poolHealth(created); err != nil {
		return err
	}
	tflog.Info(ctx, "created GKE node pool", map[string]any{"cluster": cluster.String(), "node_pool": cfg.Name, "spot": cfg.Spot()})
	return nil
}

// createNodePool sends CreateNodePool and waits for its operation. An answer that does not say
// whether the create started (UNAVAILABLE, DEADLINE_EXCEEDED) or one that says the node pool exists
// (ALREADY_EXISTS, to a create sent again) is not answered by sending it again blindly: the node
// pool is looked up, and when it is there with the pool's owner label, this create started it and
// its creation is awaited; when it is not there, the create is sent again; when another's is there,
// that is the error. terraform-provider-google retries node pool calls only on 400
// failedPrecondition and 429 (retryWhileIncompatibleOperation, tpgresource/utils.go; audit N10).
func createNodePool(ctx context.Context, c *clients, cluster clusterRef, o owner, np *containerpb.NodePool) error {
	unlock, err := lockPool(ctx, cluster.poolName(np.GetName()))
	if err != nil {
		return err
	}
	defer unlock()
	backoff := gax.Backoff{Initial: 500 * time.Millisecond, Max: 30 * time.Second, Multiplier: 2}
	for {
		op, err := c.gke.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: cluster.name(), NodePool: np}, createRetry())
		if err == nil {
			werr := waitOperation(ctx, c.gke, cluster, op, c.poll)
			if status.Code(werr) == codes.PermissionDenied {
				// The caller may not follow operations (a role without container.operations.get):
				// the create runs all the same, so wait for the node pool itself (GetNodePool,
				// container.clusters.get) and report the refusal with what the node pool became,
				// rather than a node pool still provisioning, which would fail the create and
				// have Terraform taint the pool while its nodes come up.
				if serr := waitNodePoolSettled(ctx, c, cluster, np.GetName()); serr != nil {
					return fmt.Errorf("%w (and waiting for the node pool instead: %w)", werr, serr)
				}
			}
			return werr
		}
		switch status.Code(err) {
		case codes.Unavailable, codes.DeadlineExceeded, codes.AlreadyExists:
		default:
			return err
		}
		existing, ferr := findNodePool(ctx, c.gke, cluster, np.GetName())
		switch {
		case isNotFound(ferr):
			if status.Code(err) == codes.AlreadyExists {
				err = fmt.Errorf("%w (and the node pool is gone again)", err)
			}
			tflog.Warn(ctx, "CreateNodePool failed before the create started; sending it again", map[string]any{"node_pool": np.GetName(), "error": err.Error()})
			if serr := gax.Sleep(ctx, backoff.Pause()); serr != nil {
				return fmt.Errorf("%w (while waiting to send it again: %w)", err, serr)
			}
			continue
		case ferr != nil:
			return fmt.Errorf("%w (and looking the node pool up: %w)", err, ferr)
		case !o.owns(existing):
			return fmt.Errorf("%w: %w", err, o.notOwned(cluster, existing))
		}
		tflog.Warn(ctx, "CreateNodePool answered with an error, and the node pool is there with this pool's owner label: waiting for its creation instead of sending it again",
			map[string]any{"node_pool": np.GetName(), "error": err.Error()})
		return waitNodePoolSettled(ctx, c, cluster, np.GetName())
	}
}

// waitNodePoolSettled polls a node pool until its creation (or an operation on it) has ended.
func waitNodePoolSettled(ctx context.Context, c *clients, cluster clusterRef, name string) error {
	for {
		np, err := findNodePool(ctx, c.gke, cluster, name)
		if err != nil {
			return err
		}
		switch np.GetStatus() {
		case containerpb.NodePool_PROVISIONING, containerpb.NodePool_RECONCILING:
		default:
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out waiting for node pool %s (last status %s): %w", name, np.GetStatus(), ctx.Err())
		case <-time.After(c.poll):
		}
	}
}

// deleteSide deletes one of the pool's node pools; one already gone is fine.
func deleteSide(ctx context.Context, c *clients, cluster clusterRef, name string) error {
	err := mutate(ctx, c.gke, cluster, name, c.poll, func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error) {
		return c.gke.DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: cluster.poolName(name)}, opts...)
	})
	if err != nil && !isNotFound(err) {
		return withPoolHealth(ctx, c, cluster, name, fmt.Errorf("%s: %w", name, err))
	}
	return nil
}

// deleteOwnSides deletes the node pools of names that are the pool's (ownership.go); a foreign one
// of the name is left alone.
func deleteOwnSides(ctx context.Context, c *clients, cluster clusterRef, o owner, names []string) error {
	var errs []error
	for _, name := range names {
		np, err := findNodePool(ctx, c.gke, cluster, name)
		switch {
		case isNotFound(err):
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		case !o.owns(np):
			tflog.Info(ctx, "not deleting a node pool of a side's name that is not the pool's", map[string]any{"node_pool": name})
			continue
		}
		if err := deleteSide(ctx, c, cluster, name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// sideInSync reports whether a node pool of current size holds everything cfg gives it: a status
// that needs no repair, every UpdateNodePool field group, the autoscaling limits, and a size the
// apply would not change (an enforced desired size, or one within the limits the autoscaler owns).
func sideInSync(np *containerpb.NodePool, size int, cfg sideConfig, version string) bool {
	if failed(np.GetStatus().String()) || np.GetConfig().GetSpot() != cfg.Spot() || affinityChanged(np, cfg) {
		return false
	}
	for _, g := range updateGroups {
		if g.build(np, cfg, version) != nil {
			return false
		}
	}
	if autoscalingDiffers(np.GetAutoscaling(), cfg.NodePool.GetAutoscaling()) {
		return false
	}
	return size == targetSize(size, len(np.GetLocations()), cfg)
}

// autoscalingDiffers reports whether a node pool's autoscaling is not what gpufleet asks for: off
// (an enforced size, whose limits GKE does not keep), or on with the side's total limits and
// location policy.
func autoscalingDiffers(a, want *containerpb.NodePoolAutoscaling) bool {
	if !want.GetEnabled() {
		return a.GetEnabled()
	}
	return !a.GetEnabled() || a.GetTotalMinNodeCount() != want.GetTotalMinNodeCount() ||
		a.GetTotalMaxNodeCount() != want.GetTotalMaxNodeCount() || a.GetLocationPolicy() != want.GetLocationPolicy()
}

// affinityChanged reports whether a node pool consumes another reservation than cfg gives it.
// UpdateNodePoolRequest has no reservation affinity, so such a node pool is deleted and created
// again (Update); a reservation is the on-demand node pool's alone, so the pool's other node pool
// stays as it is (audit N17).
func affinityChanged(np *containerpb.NodePool, cfg sideConfig) bool {
	return reservationReplaces(reservationOf(np.GetConfig().GetReservationAffinity()), reservationOf(cfg.NodePool.GetConfig().GetReservationAffinity()))
}

// reservationReplaces reports whether a node pool that consumes got must be created again to
// consume want (nil: the configuration sets no reservation). A pool without a reservation block
// asks for nothing: what GKE reports for a node pool created without an affinity (no affinity,
// NO_RESERVATION, or ANY_RESERVATION, audit Part D Q3) is not a reason to delete its nodes; only a
// specific reservation it no longer names is. With a block, no affinity and NO_RESERVATION are
// the same.
func reservationReplaces(got, want *pool.Reservation) bool {
	if want == nil {
		return got != nil && got.Type == pool.ReservationSpecific
	}
	norm := func(r *pool.Reservation) pool.Reservation {
		if r == nil || r.Type == "" {
			return pool.Reservation{Type: pool.ReservationNone}
		}
		return pool.Reservation{Type: r.Type, Name: r.Name, Project: r.Project}
	}
	return norm(got) != norm(want)
}

// targetSize is the size an apply gives a node pool of current size over zones: an enforced
// desired size, or, when the autoscaler owns it, the current size moved into the limits (GKE leaves
// a size outside new limits for the autoscaler to move when it next acts, GKE "Cluster autoscaler";
// the plan promised it within them, so gpufleet moves it now).
func targetSize(current, zones int, cfg sideConfig) int {
	if cfg.AutoscalerOwnsSize {
		return pool.MoveIntoLimits(current, cfg.Sizes, zones)
	}
	return cfg.Sizes.Desired
}

// sidesNeedRepair reports node pools in state that are not what the pool's settings make: a side
// missing or one too many (an apply failed part-way, before or after deleting the side that goes),
// and node pools that need a repair or that refresh found out of line (in_sync false).
func sidesNeedRepair(ctx context.Context, l types.List, s pool.Spec) bool {
	return len(repairs(ctx, l, s.Sides())) > 0
}

// repairs says, per node pool, what the next apply repairs; empty when nothing.
func repairs(ctx context.Context, l types.List, want []pool.Side) []string {
	recorded := poolschema.ListOf[nodePoolSideModel](ctx, l)
	var out []string
	for _, w := range want {
		if !slices.ContainsFunc(recorded, func(np nodePoolSideModel) bool { return np.Name.ValueString() == w.Name }) {
			out = append(out, fmt.Sprintf("node pool %s does not exist: the apply creates it", w.Name))
		}
	}
	for _, np := range recorded {
		name, st := np.Name.ValueString(), np.Status.ValueString()
		switch {
		case !slices.ContainsFunc(want, func(w pool.Side) bool { return w.Name == name }):
			out = append(out, fmt.Sprintf("node pool %s is no longer one of the pool's sides: the apply deletes it once the pool's other node pools are healthy", name))
		case st == containerpb.NodePool_ERROR.String():
			out = append(out, fmt.Sprintf("node pool %s is ERROR: the apply deletes it and creates it again", name))
		case st == containerpb.NodePool_RUNNING_WITH_ERROR.String():
			out = append(out, fmt.Sprintf("node pool %s is RUNNING_WITH_ERROR: the apply sends the settings that differ again, or else its size", name))
		case !np.InSync.IsNull() && !np.InSync.IsUnknown() && !np.InSync.ValueBool():
			out = append(out, fmt.Sprintf("node pool %s is not what the pool's configuration gives it: the apply updates it", name))
		}
	}
	return out
}

// addRepairWarnings says in the plan what the apply repairs, beside the diff it shows.
func addRepairWarnings(ctx context.Context, diags *diag.Diagnostics, l types.List, want []pool.Side) {
	if r := repairs(ctx, l, want); len(r) > 0 {
		diags.AddWarning("The apply repairs the pool's node pools", strings.Join(r, ".\n")+".")
	}
}

// sidesChange reports whether the apply creates or deletes a node pool: a side that comes or goes,
// or one in ERROR that is created again.
func sidesChange(ctx context.Context, l types.List, want []pool.Side) bool {
	recorded := poolschema.ListOf[nodePoolSideModel](ctx, l)
	if len(recorded) != len(want) {
		return true
	}
	for _, w := range want {
		i := slices.IndexFunc(recorded, func(np nodePoolSideModel) bool { return np.Name.ValueString() == w.Name })
		if i < 0 || recorded[i].Status.ValueString() == containerpb.NodePool_ERROR.String() {
			return true
		}
	}
	return false
}
