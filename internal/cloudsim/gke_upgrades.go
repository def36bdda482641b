package cloudsim

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/proto"
)

// What GKE does to node pools on its own, as out-of-band helpers: node auto-upgrades and
// auto-repairs, on by default (NodePool.management; auto-upgrade is mandatory on release channels,
// GKE "Auto-upgrading nodes", "Auto-repairing nodes"), and blue-green upgrades (GKE "Node pool
// upgrade strategies"). Each runs as an operation on the node pool, like any other, so calls on
// the node pool meanwhile fail FAILED_PRECONDITION (checkNoRunningOp) and GetOperation shows it.

// gkeStartedOperation starts an operation GKE runs by itself on a RUNNING node pool: the pool is
// RECONCILING until it ends, after d (the transition delay when 0), as next.
func (s *Sim) gkeStartedOperation(project, location, cluster, name string, typ containerpb.Operation_Type, d time.Duration,
	change func(next *containerpb.NodePool, cl *GKEClusterSeed) error) error {
	return s.change(func(w *world, now time.Time) error {
		r, _, err := w.poolOOB(project, location, cluster, name)
		if err != nil {
			return err
		}
		ref := clusterRef{project, location, cluster}
		cl := w.Seed.gcpProject(project).cluster(location, cluster)
		g := &gkeServer{sim: s}
		if err := g.checkNoRunningOp(w, ref, name); err != nil {
			return err
		}
		next := proto.Clone(r.Pool).(*containerpb.NodePool)
		if err := change(next, cl); err != nil {
			return err
		}
		if d == 0 {
			d = s.opts.TransitionDelay
		}
		op := g.startOperation(w, ref, typ, ref.poolPath(name), now, failure{})
		w.Operations[ref.opPath(op.Name)].Due = now.Add(d)
		r.Pending, r.NextStatus, r.Due, r.Operation = next, containerpb.NodePool_RUNNING, now.Add(d), op.Name
		r.Pool.Status = containerpb.NodePool_RECONCILING
		return nil
	})
}

// AutoUpgradeNodePool starts a node auto-upgrade of a GKE node pool to version (an alias GKE
// resolves, as for UpdateNodePool; "" for the control plane's), lasting d: an UPGRADE_NODES
// operation GKE starts by itself, after which the node pool reports the new version.
func (s *Sim) AutoUpgradeNodePool(project, location, cluster, name, version string, d time.Duration) error {
	return s.gkeStartedOperation(project, location, cluster, name, containerpb.Operation_UPGRADE_NODES, d,
		func(next *containerpb.NodePool, cl *GKEClusterSeed) error {
			v, err := cl.resolveNodeVersion(version)
			next.Version = v
			return err
		})
}

// AutoRepairNodePool starts a node auto-repair of a GKE node pool lasting d: an AUTO_REPAIR_NODES
// operation that recreates unhealthy nodes and leaves the configuration as it is.
func (s *Sim) AutoRepairNodePool(project, location, cluster, name string, d time.Duration) error {
	return s.gkeStartedOperation(project, location, cluster, name, containerpb.Operation_AUTO_REPAIR_NODES, d,
		func(*containerpb.NodePool, *GKEClusterSeed) error { return nil })
}

// SetBlueGreenPhase moves a GKE node pool's blue-green upgrade to phase, starting one when none
// runs (an UPGRADE_NODES operation that lasts until the phase is PHASE_UNSPECIFIED). While it runs,
// NodePool.instance_group_urls lists the blue and the green instance groups together ("During the
// node pool blue-green upgrade operation, the URLs contain both blue and green resources", container
// v1 API, NodePool.instance_group_urls) and NodePool.update_info.blue_green_info says which are
// which; the green groups are as large as the blue ones. From DELETING_BLUE_POOL on, the blue
// groups are gone while their URLs are still listed (instanceGroupManagers.get answers 404: the
// stale URLs terraform-provider-google skips, resource_container_node_pool.go, "The IGM URL is
// stale; don't include it"). PHASE_UNSPECIFIED ends the upgrade: only the green groups remain. An
// upgrade not ended so ends by itself blueGreenMaxDuration after it started (GKE's soak times are
// hours; the simulator's upgrades must not hold a node pool past a test).
const blueGreenMaxDuration = time.Minute

func (s *Sim) SetBlueGreenPhase(project, location, cluster, name string, phase containerpb.NodePool_UpdateInfo_BlueGreenInfo_Phase) error {
	return s.change(func(w *world, now time.Time) error {
		r, _, err := w.poolOOB(project, location, cluster, name)
		if err != nil {
			return err
		}
		ref := clusterRef{project, location, cluster}
		if r.BlueGreen == nil {
			if phase == containerpb.NodePool_UpdateInfo_BlueGreenInfo_PHASE_UNSPECIFIED {
				return fmt.Errorf("cloudsim: node pool %s has no blue-green upgrade to end", name)
			}
			if err := (&gkeServer{sim: s}).checkNoRunningOp(w, ref, name); err != nil {
				return err
			}
			op := (&gkeServer{sim: s}).startOperation(w, ref, containerpb.Operation_UPGRADE_NODES, ref.poolPath(name), now, failure{})
			w.Operations[ref.opPath(op.Name)].Due = now.Add(blueGreenMaxDuration)
			blue := slices.Clone(r.Pool.InstanceGroupUrls)
			r.BlueGreen = &blueGreen{Blue: blue, Green: instanceGroupURLs(ref, r.Pool, nil)}
			r.Operation, r.Due, r.NextStatus = op.Name, now.Add(blueGreenMaxDuration), containerpb.NodePool_RUNNING
			r.Pool.Status = containerpb.NodePool_RECONCILING
			r.Pool.InstanceGroupUrls = slices.Concat(blue, r.BlueGreen.Green)
		}
		bg := r.BlueGreen
		if phase == containerpb.NodePool_UpdateInfo_BlueGreenInfo_PHASE_UNSPECIFIED {
			endBlueGreen(r)
			r.Pool.Status, r.Operation, r.Due = containerpb.NodePool_RUNNING, "", time.Time{}
			for _, op := range w.Operations {
				if op.Op.GetStatus() == containerpb.Operation_RUNNING && op.Op.GetTargetLink() == containerAPIBase+ref.poolPath(name) {
					op.Due = now
					finishOperation(op)
				}
			}
			return nil
		}
		bg.Phase = phase.String()
		bg.BlueDeleted = phase >= containerpb.NodePool_UpdateInfo_BlueGreenInfo_DELETING_BLUE_POOL && phase != containerpb.NodePool_UpdateInfo_BlueGreenInfo_ROLLBACK_STARTED
		r.Pool.UpdateInfo = &containerpb.NodePool_UpdateInfo{BlueGreenInfo: &containerpb.NodePool_UpdateInfo_BlueGreenInfo{
			Phase: phase, BlueInstanceGroupUrls: slices.Clone(bg.Blue), GreenInstanceGroupUrls: slices.Clone(bg.Green), GreenPoolVersion: r.Pool.Version,
		}}
		return nil
	})
}

// NodeLabels returns the Kubernetes labels of a GKE node pool's nodes: the node pool's labels
// (config.labels) and those GKE puts on the nodes itself (cloud.google.com/gke-nodepool, the
// accelerator, driver, partition, sharing and spot labels), which the API does not report.
func (s *Sim) NodeLabels(project, location, cluster, name string) (map[string]string, bool) {
	var out map[string]string
	s.view(func(w *world) {
		if r := w.NodePools[clusterRef{project, location, cluster}.poolPath(name)]; r != nil {
			out = maps.Clone(r.Pool.GetConfig().GetLabels())
			out = mergeLabels(out, gkeOwnLabels(r.Pool.GetConfig()))
			out["cloud.google.com/gke-nodepool"] = name
		}
	})
	return out, out != nil
}

// endBlueGreen leaves a node pool with the green instance groups of its blue-green upgrade.
func endBlueGreen(r *npRecord) {
	if r.BlueGreen != nil {
		r.Pool.InstanceGroupUrls, r.Pool.UpdateInfo, r.BlueGreen = r.BlueGreen.Green, nil, nil
	}
}

// FailNodePool puts a node pool that has settled into ERROR by itself, with message as its status
// message, keeping its nodes and instance groups: what GKE reports when work it started on a
// running node pool fails (an auto-upgrade, a repair). The API says of ERROR only that "the node
// pool may be unusable. Details can be found in the statusMessage field" (container v1 API,
// NodePool.Status), not that its nodes are gone, and users report node pools in error whose nodes
// still run (kubernetes/kubernetes#39385: after a failed node pool upgrade, "an error on the cluster
// webpage" while seven of eight nodes kept running). The node pool stays ERROR until it is deleted
// or changed.
func (s *Sim) FailNodePool(project, location, cluster, name, message string) error {
	return s.change(func(w *world, _ time.Time) error {
		r, _, err := w.poolOOB(project, location, cluster, name)
		if err != nil {
			return err
		}
		if r.Operation != "" {
			return fmt.Errorf("cloudsim: node pool %s has an operation running; fail it once it settles", name)
		}
		r.Pool.Status, r.Pool.StatusMessage = containerpb.NodePool_ERROR, message
		r.Pool.Conditions = conditions([]HealthIssue{{Code: "UNKNOWN", Message: message}})
		r.Pool.Etag = randomHex(16)
		return nil
	})
}
