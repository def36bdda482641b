package cloudsim

import (
	"slices"
	"strconv"
	"strings"
)

// GKE node versions. A node pool's version is always an explicit GKE version ("1.31.5-gke.1023000");
// requests may name it by alias, which GKE resolves (container v1 API, UpdateNodePoolRequest.
// node_version and NodePool.version, cluster_service.pb.go of cloud.google.com/go/container
// v1.56.0):
//
//   - "latest": the highest valid version; "-": the control plane's version;
//   - "1.X.Y": the highest valid gke.N patch of 1.X.Y;
//   - "1.X": the highest valid patch version of 1.X;
//   - "1.X.Y-gke.N": that version.
//
// The node pool then reports the explicit version it resolved to, never the alias.

// defaultNodeVersions stand in for GetServerConfig's validNodeVersions when a cluster's seed names
// none: a few patches of each minor version, in the form of GKE's release notes.
var defaultNodeVersions = []string{
	"1.33.2-gke.1240000", "1.33.1-gke.1584000",
	"1.32.6-gke.1125000", "1.32.4-gke.1415000",
	"1.31.9-gke.1044000", "1.31.6-gke.1020000", "1.31.5-gke.1023000", "1.31.4-gke.1183000",
	"1.30.12-gke.1086000", "1.30.9-gke.1009000",
	"1.29.15-gke.1218000", "1.29.12-gke.1120000",
	"1.28.15-gke.1503000",
}

// gkeVersion is a parsed version; missing parts are -1.
type gkeVersion struct{ major, minor, patch, gke int }

func parseGKEVersion(v string) (gkeVersion, bool) {
	out := gkeVersion{-1, -1, -1, -1}
	base, gke, hasGKE := strings.Cut(v, "-gke.")
	parts := strings.Split(base, ".")
	if len(parts) < 2 || len(parts) > 3 || hasGKE && len(parts) != 3 {
		return out, false
	}
	nums := []*int{&out.major, &out.minor, &out.patch}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, false
		}
		*nums[i] = n
	}
	if hasGKE {
		n, err := strconv.Atoi(gke)
		if err != nil || n < 0 {
			return out, false
		}
		out.gke = n
	}
	return out, true
}

func (a gkeVersion) less(b gkeVersion) bool {
	for _, d := range [][2]int{{a.major, b.major}, {a.minor, b.minor}, {a.patch, b.patch}, {a.gke, b.gke}} {
		if d[0] != d[1] {
			return d[0] < d[1]
		}
	}
	return false
}

// validNodeVersions are the versions a cluster's node pools may run, highest first: the seed's,
// else the defaults no newer than the control plane and at most two minor versions older (GKE
// version skew policy), less the retired ones, and the control plane's own. GKE offers each patch
// for a few months only ("GKE versioning and support": versions become unavailable for new node
// pools and upgrades), so an explicit patch a node pool was created at leaves this list in time
// (Sim.RetireGKENodeVersions; audit N6).
func (c *GKEClusterSeed) validNodeVersions() []string {
	list := c.ValidNodeVersions
	if len(list) == 0 {
		cp, ok := parseGKEVersion(c.Version)
		for _, v := range defaultNodeVersions {
			pv, _ := parseGKEVersion(v)
			if ok && pv.major == cp.major && pv.minor <= cp.minor && cp.minor-pv.minor <= 2 && (pv.minor < cp.minor || !cp.less(pv)) {
				list = append(list, v)
			}
		}
	}
	list = slices.DeleteFunc(slices.Clone(list), func(v string) bool { return slices.Contains(c.RetiredNodeVersions, v) })
	if !slices.Contains(list, c.Version) {
		list = append([]string{c.Version}, list...)
	}
	out := slices.Clone(list)
	slices.SortStableFunc(out, func(a, b string) int {
		pa, _ := parseGKEVersion(a)
		pb, _ := parseGKEVersion(b)
		switch {
		case pb.less(pa):
			return -1
		case pa.less(pb):
			return 1
		}
		return 0
	})
	return out
}

// resolveNodeVersion turns a requested node version into the explicit version GKE runs; "" is the
// control plane's version, as for a new node pool without one.
func (c *GKEClusterSeed) resolveNodeVersion(v string) (string, error) {
	valid := c.validNodeVersions()
	switch {
	case v == "" || v == "-":
		return c.Version, nil
	case v == "latest":
		return valid[0], nil
	case slices.Contains(valid, v):
		return v, nil
	}
	want, ok := parseGKEVersion(v)
	if ok && want.gke < 0 {
		for _, cand := range valid { // highest first
			pv, _ := parseGKEVersion(cand)
			if pv.major == want.major && pv.minor == want.minor && (want.patch < 0 || pv.patch == want.patch) {
				return cand, nil
			}
		}
	}
	return "", invalidArg("Invalid value for field 'node_pool.version': %q. Version %q is not a valid node version for this cluster; valid versions are [%s].", v, v, strings.Join(valid, ", "))
}
