package cloudsim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Kubernetes versions, AMI release versions and AMI types of EKS managed node groups: the rules
// EKS applies on CreateNodegroup and UpdateNodegroupVersion.

// amiReleaseKey keys World.AMIReleases: the latest AMI release EKS offers per region and Kubernetes
// version.
func amiReleaseKey(region, version string) string { return region + "/" + version }

// latestRelease is the latest AMI release version EKS offers for a Kubernetes version: one published
// with PublishAMIRelease, else the cluster seed's release for its own version, else
// "<version>.0-20250101".
func (w *world) latestRelease(region string, cl *EKSClusterSeed, version string) string {
	if r := w.AMIReleases[amiReleaseKey(region, version)]; r != "" {
		return r
	}
	if version == cl.Version {
		return clusterReleaseVersion(cl)
	}
	return version + ".0-20250101"
}

// PublishAMIRelease makes release the latest AMI release version EKS offers for a Kubernetes
// version in a region, as AWS does every few weeks (a new NVIDIA driver, kernel fixes): node groups
// created or updated afterwards without a release version get it.
func (s *Sim) PublishAMIRelease(region, version, release string) error {
	if _, ok := parseRelease(release); !ok || !strings.HasPrefix(release, version+".") {
		return fmt.Errorf("cloudsim: release %q is not an AMI release of Kubernetes %s (<version>.<patch>-<yyyymmdd>)", release, version)
	}
	return s.change(func(w *world, _ time.Time) error {
		w.AMIReleases[amiReleaseKey(region, version)] = release
		return nil
	})
}

// amiRelease is an EKS optimized AMI release version, "1.31.4-20250115": Kubernetes version with
// patch, and the build date (EKS AMI release notes, awslabs/amazon-eks-ami).
type amiRelease struct {
	minor, patch int
	date         string
}

func parseRelease(r string) (amiRelease, bool) {
	version, date, ok := strings.Cut(r, "-")
	parts := strings.Split(version, ".")
	if !ok || len(parts) != 3 || parts[0] != "1" || len(date) != 8 {
		return amiRelease{}, false
	}
	minor, err1 := strconv.Atoi(parts[1])
	patch, err2 := strconv.Atoi(parts[2])
	if _, err3 := strconv.Atoi(date); err1 != nil || err2 != nil || err3 != nil {
		return amiRelease{}, false
	}
	return amiRelease{minor: minor, patch: patch, date: date}, true
}

// older reports whether a is an earlier release than b.
func (a amiRelease) older(b amiRelease) bool {
	switch {
	case a.minor != b.minor:
		return a.minor < b.minor
	case a.patch != b.patch:
		return a.patch < b.patch
	}
	return a.date < b.date
}

// amiHasReleases reports AMI types whose release versions follow the Kubernetes version (Amazon
// Linux); Bottlerocket releases carry Bottlerocket's own version (bottlerocketReleaseFor), CUSTOM
// has none.
func amiHasReleases(amiType string) bool {
	return strings.HasPrefix(amiType, "AL2")
}

// createVersion checks the version of a new node group: EKS API Reference, CreateNodegroup — "You
// can only create a node group for your cluster that is equal to the current Kubernetes version for
// the cluster"; version: "By default, the Kubernetes version of the cluster is used, and this is the
// only accepted specified value."
func (v *eksValidator) createVersion(cl *EKSClusterSeed, requested string) *apiError {
	if requested == "" || requested == cl.Version {
		return nil
	}
	return v.invalid("Requested Nodegroup version %s is invalid. A node group can only be created at the cluster's Kubernetes version %s", requested, cl.Version)
}

// updateVersion checks the Kubernetes version an update moves a node group to: not newer than the
// cluster, at most three minor versions older (EKS User Guide: version skew of managed node groups),
// and never older than the node group's (EKS API Reference, UpdateNodegroupVersion: "You cannot roll
// back a node group to an earlier Kubernetes version or AMI version").
func (v *eksValidator) updateVersion(cl *EKSClusterSeed, current, requested string) *apiError {
	cm, ok1 := minorOf(cl.Version)
	rm, ok2 := minorOf(requested)
	if !ok1 || !ok2 || rm > cm || cm-rm > 3 {
		return v.invalid("Requested Nodegroup version %s is invalid. Allowed Nodegroup versions are %s - %s", requested, minorMinus(cl.Version, 3), cl.Version)
	}
	if cur, ok := minorOf(current); ok && rm < cur {
		return v.invalid("Requested Nodegroup version %s is invalid: you cannot roll back a node group from Kubernetes %s to an earlier version", requested, current)
	}
	return nil
}

// releaseFor checks a requested AMI release version for a node group of amiType that will run
// version, and returns the release it gets: the requested one, or the latest for the version (EKS
// API Reference, CreateNodegroup and UpdateNodegroupVersion — releaseVersion: "By default, the latest
// available AMI version for the node group's current Kubernetes version is used"). A release is of
// its Kubernetes version, published, and, for an update that keeps the version, not older than the
// node group's (no rollback).
func (s *Sim) releaseFor(region string, cl *EKSClusterSeed, v *eksValidator, amiType, version, requested, current string) (string, *apiError) {
	if strings.HasPrefix(amiType, "BOTTLEROCKET_") {
		return bottlerocketReleaseFor(v, version, requested, current)
	}
	latest := s.w.latestRelease(region, cl, version)
	if requested == "" || !amiHasReleases(amiType) {
		return firstNonEmpty(requested, latest), nil
	}
	r, ok := parseRelease(requested)
	l, _ := parseRelease(latest)
	if !ok || !strings.HasPrefix(requested, version+".") || l.older(r) {
		return "", v.invalid("Requested release version %s is not valid for Kubernetes version %s: the latest is %s", requested, version, latest)
	}
	if c, ok := parseRelease(current); ok && c.minor == r.minor && r.older(c) {
		return "", v.invalid("Requested release version %s is invalid: you cannot roll back a node group from AMI release %s to an earlier one", requested, current)
	}
	return requested, nil
}

// al2LastMinor is the last Kubernetes minor version with Amazon Linux 2 EKS AMIs: "Kubernetes
// version 1.32 is the last version for which Amazon EKS will release AL2 AMIs" (EKS User Guide,
// Kubernetes 1.32 release notes; awsdocs/amazon-eks-user-guide#868; the AL2 AMIs reached end of
// support on 2025-11-26, awslabs/amazon-eks-ami#2545).
const al2LastMinor = 32

// amiForVersion rejects an AMI type EKS publishes no AMI of for the version.
func (v *eksValidator) amiForVersion(amiType, version string) *apiError {
	if m, ok := minorOf(version); ok && strings.HasPrefix(amiType, "AL2_") && m > al2LastMinor {
		return v.invalid("AMI type %s is not supported for Kubernetes version %s: Amazon Linux 2 AMIs are released up to Kubernetes 1.%d; use AL2023 or Bottlerocket", amiType, version, al2LastMinor)
	}
	return nil
}

// bottlerocketReleases are the Bottlerocket releases cloudsim offers and the Kubernetes versions
// each serves. A Bottlerocket release version is Bottlerocket's own version and an 8-hex commit, and
// one release serves several Kubernetes versions: 1.30.0-ca9b9399 for 1.29, 1.30 and 1.31
// (terraform-provider-aws PR #40903). The others are cloudsim's, in that form; 1.29.0-31415926 has an
// all-digit commit, as about 2 % of them do, and reads like an Amazon Linux release of Kubernetes 1.29
// (audit eks-vs-real.md D14). Newest last.
var bottlerocketReleases = []struct {
	release  string
	versions []string
}{
	{"1.29.0-31415926", []string{"1.30", "1.31", "1.32"}},
	{"1.30.0-ca9b9399", []string{"1.29", "1.30", "1.31"}},
	{"1.31.0-7f3e2a10", []string{"1.31", "1.32", "1.33"}},
	{"1.32.0-0b5d9c44", []string{"1.32", "1.33", "1.34"}},
}

// bottlerocketReleaseFor checks a Bottlerocket release for a node group running version: one EKS
// offers for that version (audit eks-vs-real.md S4: EKS refuses a release not valid for the version,
// "Requested release version ... is not valid for kubernetes version ...", the error of
// cloudposse/terraform-aws-eks-node-group#209), never older than the node group's (no rollback,
// EKS API Reference: UpdateNodegroupVersion). Without one, the newest for the version.
func bottlerocketReleaseFor(v *eksValidator, version, requested, current string) (string, *apiError) {
	var offered []string
	for _, r := range bottlerocketReleases {
		if contains(r.versions, version) {
			offered = append(offered, r.release)
		}
	}
	if len(offered) == 0 {
		return "", v.invalid("No Bottlerocket release is available for Kubernetes version %s", version)
	}
	if requested == "" {
		return offered[len(offered)-1], nil
	}
	if !contains(offered, requested) {
		return "", v.invalid("Requested release version %s is not valid for kubernetes version %s", requested, version)
	}
	if c, ok := bottlerocketVersion(current); ok {
		if r, _ := bottlerocketVersion(requested); r < c {
			return "", v.invalid("Requested release version %s is invalid: you cannot roll back a node group from AMI release %s to an earlier one", requested, current)
		}
	}
	return requested, nil
}

// bottlerocketVersion orders a Bottlerocket release by its version: major, minor and patch.
func bottlerocketVersion(release string) (int, bool) {
	ver, _, ok := strings.Cut(release, "-")
	parts := strings.Split(ver, ".")
	if !ok || len(parts) != 3 {
		return 0, false
	}
	n := 0
	for _, p := range parts {
		d, err := strconv.Atoi(p)
		if err != nil {
			return 0, false
		}
		n = n*1000 + d
	}
	return n, true
}
