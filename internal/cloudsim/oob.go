package cloudsim

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/proto"
)

// Read accessors return deep copies of stored objects, with transitions applied, so tests can
// assert on them freely. Out-of-band helpers change the world behind the provider's back, as a
// colleague in the cloud console or an autoscaler would; they take effect at once.

// ErrNotFound is returned (wrapped) by the out-of-band helpers for an unknown object.
var ErrNotFound = errors.New("cloudsim: not found")

// view runs f with the world locked and advanced to now.
func (s *Sim) view(f func(w *world)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.advance(time.Now())
	f(s.w)
}

// change runs an out-of-band mutation and persists it.
func (s *Sim) change(f func(w *world, now time.Time) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.w.advance(now)
	if err := f(s.w, now); err != nil {
		return err
	}
	s.persistLocked()
	return nil
}

// Nodegroup returns a copy of an EKS node group.
func (s *Sim) Nodegroup(region, cluster, name string) (Nodegroup, bool) {
	var out Nodegroup
	var ok bool
	s.view(func(w *world) {
		if r := w.Nodegroups[ngKey(region, cluster, name)]; r != nil {
			out, ok = r.Nodegroup.clone(), true
		}
	})
	return out, ok
}

// Nodegroups returns copies of the node groups of a cluster ("" for every cluster of the region,
// region "" for every region), sorted by region, cluster and name.
func (s *Sim) Nodegroups(region, cluster string) []Nodegroup {
	out := []Nodegroup{}
	s.view(func(w *world) {
		for _, key := range sortedKeys(w.Nodegroups) {
			r := w.Nodegroups[key]
			if (region == "" || r.Region == region) && (cluster == "" || r.Nodegroup.ClusterName == cluster) {
				out = append(out, r.Nodegroup.clone())
			}
		}
	})
	return out
}

// Updates returns copies of the updates of a node group, oldest first.
func (s *Sim) Updates(region, cluster, nodegroup string) []Update {
	out := []Update{}
	s.view(func(w *world) {
		for _, id := range sortedKeys(w.Updates) {
			u := w.Updates[id]
			if u.Region == region && u.Cluster == cluster && u.Nodegroup == nodegroup {
				out = append(out, u.Update.clone())
			}
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt.Time) })
	return out
}

// LaunchTemplate returns a copy of a launch template, by id (lt-...) or name.
func (s *Sim) LaunchTemplate(region, idOrName string) (LaunchTemplate, bool) {
	var out LaunchTemplate
	var ok bool
	s.view(func(w *world) {
		r := w.launchTemplate(region, idOrName, "")
		if r == nil {
			r = w.launchTemplate(region, "", idOrName)
		}
		if r != nil {
			out, ok = r.LaunchTemplate.clone(), true
		}
	})
	return out, ok
}

// LaunchTemplates returns copies of a region's launch templates ("" for every region).
func (s *Sim) LaunchTemplates(region string) []LaunchTemplate {
	out := []LaunchTemplate{}
	s.view(func(w *world) {
		for _, key := range sortedKeys(w.LaunchTemplates) {
			if r := w.LaunchTemplates[key]; region == "" || r.Region == region {
				out = append(out, r.LaunchTemplate.clone())
			}
		}
	})
	return out
}

// NodePool returns a copy of a GKE node pool.
func (s *Sim) NodePool(project, location, cluster, name string) (*containerpb.NodePool, bool) {
	var out *containerpb.NodePool
	s.view(func(w *world) {
		if r := w.NodePools[clusterRef{project, location, cluster}.poolPath(name)]; r != nil {
			out = proto.Clone(r.Pool).(*containerpb.NodePool)
		}
	})
	return out, out != nil
}

// NodePools returns copies of a cluster's node pools, sorted by name.
func (s *Sim) NodePools(project, location, cluster string) []*containerpb.NodePool {
	out := []*containerpb.NodePool{}
	s.view(func(w *world) {
		for _, r := range poolsOf(w, clusterRef{project, location, cluster}) {
			out = append(out, proto.Clone(r.Pool).(*containerpb.NodePool))
		}
	})
	return out
}

// NodePoolNodeCount returns a node pool's current size per zone: its initial node count, then
// whatever SetNodePoolSize or ScaleNodePool set, within the autoscaling limits. GKE keeps this
// in the node pool's instance groups, not in the NodePool resource: clients read it as the
// targetSize of Compute's instanceGroupManagers.get (see Endpoints.Compute).
func (s *Sim) NodePoolNodeCount(project, location, cluster, name string) (int32, bool) {
	var n int32
	var ok bool
	s.view(func(w *world) {
		if r := w.NodePools[clusterRef{project, location, cluster}.poolPath(name)]; r != nil {
			n, ok = r.NodeCount, true
		}
	})
	return n, ok
}

// Operations returns copies of a project's GKE operations, oldest first.
func (s *Sim) Operations(project string) []*containerpb.Operation {
	out := []*containerpb.Operation{}
	s.view(func(w *world) {
		for _, key := range sortedKeys(w.Operations) {
			if r := w.Operations[key]; r.Project == project {
				out = append(out, proto.Clone(r.Op).(*containerpb.Operation))
			}
		}
	})
	return out
}

func (w *world) nodegroupOOB(region, cluster, name string) (*ngRecord, error) {
	r := w.Nodegroups[ngKey(region, cluster, name)]
	if r == nil {
		return nil, fmt.Errorf("%w: node group %s/%s in %s", ErrNotFound, cluster, name, region)
	}
	return r, nil
}

// DeleteNodegroup removes an EKS node group at once, as if someone deleted it in the console
// and the deletion had finished.
func (s *Sim) DeleteNodegroup(region, cluster, name string) error {
	return s.change(func(w *world, _ time.Time) error {
		if _, err := w.nodegroupOOB(region, cluster, name); err != nil {
			return err
		}
		delete(w.Nodegroups, ngKey(region, cluster, name))
		return nil
	})
}

// DeleteEKSCluster removes an EKS cluster at once, with its node groups, as if it were deleted
// outside Terraform (eksctl, the console) and the deletion had finished: DescribeCluster then
// answers ResourceNotFoundException.
func (s *Sim) DeleteEKSCluster(region, name string) error {
	return s.change(func(w *world, _ time.Time) error {
		r := w.Seed.awsRegion(region)
		i := slices.IndexFunc(r.Clusters, func(c EKSClusterSeed) bool { return c.Name == name })
		if i < 0 {
			return fmt.Errorf("%w: EKS cluster %s in %s", ErrNotFound, name, region)
		}
		r.Clusters = slices.Delete(r.Clusters, i, i+1)
		prefix := ngKey(region, name, "")
		maps.DeleteFunc(w.Nodegroups, func(k string, _ *ngRecord) bool { return strings.HasPrefix(k, prefix) })
		return nil
	})
}

// ScaleNodegroup sets an EKS node group's desired size, as the cluster autoscaler or a manual
// resize would. It must lie within the node group's min and max sizes.
func (s *Sim) ScaleNodegroup(region, cluster, name string, desired int32) error {
	return s.change(func(w *world, now time.Time) error {
		r, err := w.nodegroupOOB(region, cluster, name)
		if err != nil {
			return err
		}
		sc := scalingWithDefaults(r.Nodegroup.ScalingConfig)
		if desired < *sc.MinSize || desired > *sc.MaxSize {
			return fmt.Errorf("cloudsim: desired size %d outside [%d, %d]", desired, *sc.MinSize, *sc.MaxSize)
		}
		sc.DesiredSize = ptr(desired)
		r.Nodegroup.ScalingConfig, r.Nodegroup.ModifiedAt = sc, epoch(now)
		return nil
	})
}

// SetNodegroupLabel adds or changes a Kubernetes label of an EKS node group.
func (s *Sim) SetNodegroupLabel(region, cluster, name, key, value string) error {
	return s.change(func(w *world, now time.Time) error {
		r, err := w.nodegroupOOB(region, cluster, name)
		if err != nil {
			return err
		}
		r.Nodegroup.Labels = applyLabels(r.Nodegroup.Labels, map[string]string{key: value}, nil)
		r.Nodegroup.ModifiedAt = epoch(now)
		return nil
	})
}

// UpgradeCluster moves an EKS cluster's control plane to a Kubernetes version, as `aws eks
// update-cluster-version` does; its node groups keep theirs (EKS User Guide: a node group may run up
// to three minor versions behind the control plane) until they are updated. release, when given, is
// the latest AMI release of the new version.
func (s *Sim) UpgradeCluster(region, name, version, release string) error {
	return s.change(func(w *world, _ time.Time) error {
		cl := w.Seed.awsRegion(region).cluster(name)
		if cl == nil {
			return fmt.Errorf("%w: cluster %s in %s", ErrNotFound, name, region)
		}
		cur, _ := minorOf(cl.Version)
		next, ok := minorOf(version)
		if !ok || next != cur+1 {
			return fmt.Errorf("cloudsim: cluster %s is at %s and moves one minor version at a time, not to %s", name, cl.Version, version)
		}
		cl.Version, cl.ReleaseVersion = version, release
		return nil
	})
}

// DegradeNodegroup marks an EKS node group DEGRADED with health issues (default: a Spot
// capacity shortage), as EKS does when instances can no longer be launched. The cause lasts: the
// node group stays DEGRADED through successful updates (a label or size change does not give a
// subnet free addresses or bring back a deleted role) until RecoverNodegroup.
func (s *Sim) DegradeNodegroup(region, cluster, name string, issues ...HealthIssue) error {
	return s.change(func(w *world, now time.Time) error {
		r, err := w.nodegroupOOB(region, cluster, name)
		if err != nil {
			return err
		}
		r.Degraded = issuesOrDefault(issues, IssueSpotCapacity, r.Nodegroup.Resources)
		r.Nodegroup.Status = ngDegraded
		r.Nodegroup.Health.Issues = cloneIssues(r.Degraded)
		r.Nodegroup.ModifiedAt = epoch(now)
		return nil
	})
}

// RecoverNodegroup ends what DegradeNodegroup began: the node group is ACTIVE again (once any update
// in progress ends) with no health issues.
func (s *Sim) RecoverNodegroup(region, cluster, name string) error {
	return s.change(func(w *world, now time.Time) error {
		r, err := w.nodegroupOOB(region, cluster, name)
		if err != nil {
			return err
		}
		r.Degraded = nil
		if r.Nodegroup.Status == ngDegraded {
			r.Nodegroup.Status, r.Nodegroup.Health.Issues = ngActive, []HealthIssue{}
			r.Nodegroup.ModifiedAt = epoch(now)
		}
		return nil
	})
}

func (w *world) poolOOB(project, location, cluster, name string) (*npRecord, string, error) {
	key := clusterRef{project, location, cluster}.poolPath(name)
	r := w.NodePools[key]
	if r == nil {
		return nil, "", fmt.Errorf("%w: node pool %s", ErrNotFound, key)
	}
	return r, key, nil
}

// DeleteNodePool removes a GKE node pool at once.
func (s *Sim) DeleteNodePool(project, location, cluster, name string) error {
	return s.change(func(w *world, _ time.Time) error {
		_, key, err := w.poolOOB(project, location, cluster, name)
		if err != nil {
			return err
		}
		delete(w.NodePools, key)
		return nil
	})
}

// DeleteGKECluster removes a GKE cluster at once, with its node pools, as if it were deleted
// outside Terraform: GetCluster then answers NOT_FOUND.
func (s *Sim) DeleteGKECluster(project, location, name string) error {
	return s.change(func(w *world, _ time.Time) error {
		p := w.Seed.gcpProject(project)
		if p == nil || p.cluster(location, name) == nil {
			return fmt.Errorf("%w: GKE cluster %s/%s/%s", ErrNotFound, project, location, name)
		}
		p.Clusters = slices.DeleteFunc(p.Clusters, func(c GKEClusterSeed) bool { return c.Location == location && c.Name == name })
		prefix := clusterRef{project, location, name}.poolPath("")
		maps.DeleteFunc(w.NodePools, func(k string, _ *npRecord) bool { return strings.HasPrefix(k, prefix) })
		return nil
	})
}

// ScaleNodePool sets a GKE node pool's size per zone, as the cluster autoscaler or a manual
// resize of its instance groups would (see NodePoolNodeCount).
func (s *Sim) ScaleNodePool(project, location, cluster, name string, nodeCount int32) error {
	if nodeCount < 0 {
		return fmt.Errorf("cloudsim: node count %d is negative", nodeCount)
	}
	return s.change(func(w *world, _ time.Time) error {
		r, _, err := w.poolOOB(project, location, cluster, name)
		if err != nil {
			return err
		}
		r.NodeCount = nodeCount
		return nil
	})
}

// SetNodePoolLabel adds or changes a Kubernetes label (node_config.labels) of a GKE node pool.
func (s *Sim) SetNodePoolLabel(project, location, cluster, name, key, value string) error {
	return s.change(func(w *world, _ time.Time) error {
		r, _, err := w.poolOOB(project, location, cluster, name)
		if err != nil {
			return err
		}
		for _, p := range []*containerpb.NodePool{r.Pool, r.Pending} {
			if p == nil {
				continue
			}
			if p.Config == nil {
				p.Config = &containerpb.NodeConfig{}
			}
			if p.Config.Labels == nil {
				p.Config.Labels = map[string]string{}
			}
			p.Config.Labels[key] = value
		}
		r.Pool.Etag = randomHex(16)
		return nil
	})
}
