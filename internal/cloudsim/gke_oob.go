package cloudsim

import (
	"fmt"
	"slices"
	"time"
)

// Out-of-band GKE changes that time brings: control plane upgrades and node versions that GKE no
// longer offers, and what tests need to tell node pools apart.

// UpgradeGKEControlPlane moves a cluster's control plane to version, as GKE's auto-upgrades (or a
// user) do: an explicit version, newer than the current one and at most one minor version on
// ("Upgrading a cluster": the control plane moves one minor version at a time). Node pools keep
// their versions.
func (s *Sim) UpgradeGKEControlPlane(project, location, cluster, version string) error {
	return s.change(func(w *world, _ time.Time) error {
		cl, err := w.clusterOOB(project, location, cluster)
		if err != nil {
			return err
		}
		cur, _ := parseGKEVersion(cl.Version)
		next, ok := parseGKEVersion(version)
		if !ok || next.gke < 0 || !cur.less(next) || next.major != cur.major || next.minor > cur.minor+1 {
			return fmt.Errorf("cloudsim: cluster %s is at %s and moves to a later explicit version at most one minor version on, not to %q", cluster, cl.Version, version)
		}
		cl.Version = version
		if len(cl.ValidNodeVersions) > 0 && !slices.Contains(cl.ValidNodeVersions, version) {
			cl.ValidNodeVersions = append([]string{version}, cl.ValidNodeVersions...)
		}
		return nil
	})
}

// RetireGKENodeVersions makes GKE stop offering node versions to a cluster's new node pools and
// upgrades (see validNodeVersions); the control plane's own version cannot be retired.
func (s *Sim) RetireGKENodeVersions(project, location, cluster string, versions ...string) error {
	return s.change(func(w *world, _ time.Time) error {
		cl, err := w.clusterOOB(project, location, cluster)
		if err != nil {
			return err
		}
		for _, v := range versions {
			if v == cl.Version {
				return fmt.Errorf("cloudsim: %s is the control plane's version of cluster %s; upgrade the control plane first", v, cluster)
			}
			if !slices.Contains(cl.RetiredNodeVersions, v) {
				cl.RetiredNodeVersions = append(cl.RetiredNodeVersions, v)
			}
		}
		return nil
	})
}

// NodePoolCreation returns the id and time cloudsim gave a node pool when it was created: a node
// pool deleted and created again under its name has new ones.
func (s *Sim) NodePoolCreation(project, location, cluster, name string) (id string, created time.Time, ok bool) {
	s.view(func(w *world) {
		if r := w.NodePools[clusterRef{project, location, cluster}.poolPath(name)]; r != nil {
			id, created, ok = r.CreationID, r.CreatedAt, true
		}
	})
	return id, created, ok
}

func (w *world) clusterOOB(project, location, cluster string) (*GKEClusterSeed, error) {
	if p := w.Seed.gcpProject(project); p != nil {
		if cl := p.cluster(location, cluster); cl != nil {
			return cl, nil
		}
	}
	return nil, fmt.Errorf("%w: cluster %s/%s/%s", ErrNotFound, project, location, cluster)
}
