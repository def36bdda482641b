package eks

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	fwtypes "github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// Kubernetes versions and AMI releases of a pool's node groups. EKS creates node groups only at the
// cluster's version, never rolls a node group back to an earlier version or AMI release, and moves a
// node group updated without a release version to the latest release of its version (EKS API
// Reference: CreateNodegroup, UpdateNodegroupVersion). So gpufleet pins what it records: every update
// carries the node group's version and release, and only a configuration change moves them, forward.

// configuredVersions are kubernetes_version and release_version as the configuration sets them
// (null: the pool follows the cluster, and keeps the release it has).
type configuredVersions struct {
	kubernetes, release fwtypes.String
}

func (c configuredVersions) pinned() string {
	if c.kubernetes.IsUnknown() {
		return ""
	}
	return c.kubernetes.ValueString()
}

// pinnedRelease is release_version as configured, "" when unset or unknown.
func (c configuredVersions) pinnedRelease() string {
	if c.release.IsUnknown() {
		return ""
	}
	return c.release.ValueString()
}

// releaseAtPlan refuses, at plan, a configured release EKS would refuse: not a release of the AMI
// type, or an Amazon Linux release of another Kubernetes version than the node groups will run: the
// pinned version, else, for a pool that follows the cluster, the one state records (a new pool's is
// the cluster's, checked by planTimeChecks and at apply).
func releaseAtPlan(cfg configuredVersions, plan, state *nodePoolModel) []checkProblem {
	if plan.AMIType.IsUnknown() {
		return nil
	}
	version := cfg.pinned()
	if version == "" && cfg.kubernetes.IsNull() && state != nil {
		version = state.KubernetesVersion.ValueString()
	}
	if p := releaseProblem(plan.AMIType.ValueString(), cfg.pinnedRelease(), version); p != nil {
		return []checkProblem{{Problem: *p}}
	}
	return nil
}

// amiRelease is an EKS AMI release version. Amazon Linux's, "1.31.7-20250620", are the Kubernetes
// version with its patch and the build date (awslabs/amazon-eks-ami releases): a release is of one
// Kubernetes minor. Bottlerocket's, "1.30.0-ca9b9399", are Bottlerocket's own version and an 8-hex
// commit, and one release serves several Kubernetes versions (terraform-provider-aws PR #40903:
// 1.30.0-ca9b9399 for aws-k8s-1.29, 1.30 and 1.31). About 2 % of those commits are all digits, so the
// AMI type, not the text, says which kind a release is (audit eks-vs-real.md D14).
type amiRelease struct {
	bottlerocket        bool
	major, minor, patch int
	build               string // Amazon Linux: yyyymmdd; Bottlerocket: the commit
}

// bottlerocketAMI reports the Bottlerocket AMI types, whose releases are Bottlerocket's.
func bottlerocketAMI(amiType string) bool { return strings.HasPrefix(amiType, "BOTTLEROCKET_") }

var (
	alReleasePattern           = regexp.MustCompile(`^1\.([0-9]+)\.([0-9]+)-([0-9]{8})$`)
	bottlerocketReleasePattern = regexp.MustCompile(`^([0-9]+)\.([0-9]+)\.([0-9]+)-([0-9a-f]{8})$`)
)

// parseRelease reads a release of an AMI type; false when it is not one.
func parseRelease(amiType, s string) (amiRelease, bool) {
	if bottlerocketAMI(amiType) {
		m := bottlerocketReleasePattern.FindStringSubmatch(s)
		if m == nil {
			return amiRelease{}, false
		}
		major, _ := strconv.Atoi(m[1])
		minor, _ := strconv.Atoi(m[2])
		patch, _ := strconv.Atoi(m[3])
		return amiRelease{bottlerocket: true, major: major, minor: minor, patch: patch, build: m[4]}, true
	}
	m := alReleasePattern.FindStringSubmatch(s)
	if m == nil {
		return amiRelease{}, false
	}
	minor, _ := strconv.Atoi(m[1])
	patch, _ := strconv.Atoi(m[2])
	return amiRelease{major: 1, minor: minor, patch: patch, build: m[3]}, true
}

// before reports whether a is an earlier release than b: by version, then, for Amazon Linux, by
// build date. Two Bottlerocket builds of one version are not ordered.
func (a amiRelease) before(b amiRelease) bool {
	switch {
	case a.major != b.major:
		return a.major < b.major
	case a.minor != b.minor:
		return a.minor < b.minor
	case a.patch != b.patch:
		return a.patch < b.patch
	}
	return !a.bottlerocket && a.build < b.build
}

// comparable reports whether EKS's no-rollback rule orders a against b: Bottlerocket releases
// always (one line of versions), Amazon Linux releases within one Kubernetes minor.
func (a amiRelease) comparable(b amiRelease) bool {
	return a.bottlerocket == b.bottlerocket && (a.bottlerocket || a.minor == b.minor)
}

// releaseFits reports whether an AMI release can run a Kubernetes version: an Amazon Linux release
// only its own minor; a Bottlerocket release, as far as gpufleet can tell (EKS publishes no list of
// them), any.
func releaseFits(amiType, release, version string) bool {
	r, ok := parseRelease(amiType, release)
	if !ok || r.bottlerocket {
		return ok
	}
	m, ok := k8sMinor(version)
	return !ok || r.minor == m
}

// releaseProblem explains, at release_version, a release EKS would refuse for a node group of
// amiType running version ("" when unknown): not a release of the AMI type, or an Amazon Linux
// release of another Kubernetes version ("Requested release version 1.34.0 is not valid for
// kubernetes version 1.32", EKS's InvalidParameterException, cloudposse/terraform-aws-eks-node-group
// #209). Audit eks-vs-real.md D13: dropping such a pin silently left state and the nodes apart.
func releaseProblem(amiType, release, version string) *pool.Problem {
	if release == "" {
		return nil
	}
	at := func(format string, args ...any) *pool.Problem {
		return &pool.Problem{Path: pool.P("release_version"), Summary: "AMI release EKS would refuse", Detail: fmt.Sprintf(format, args...)}
	}
	if _, ok := parseRelease(amiType, release); !ok {
		if bottlerocketAMI(amiType) {
			return at("%q is not a Bottlerocket release of the form <version>-<commit>, e.g. 1.30.0-ca9b9399 (ami_type %s).", release, amiType)
		}
		return at("%q is not an EKS optimized AMI release of the form <Kubernetes version>.<patch>-<yyyymmdd>, e.g. 1.31.7-20250620 (ami_type %s).", release, amiType)
	}
	if version != "" && !releaseFits(amiType, release, version) {
		return at("%s is an AMI release of another Kubernetes version than the node groups run (%s): EKS refuses it (\"Requested release version %s is not valid for kubernetes version %s\"). Set a %s.<patch>-<date> release, or change kubernetes_version with it.", release, version, release, version, version)
	}
	return nil
}

// noRollback refuses, at plan, a configured version or release older than a node group runs: EKS
// "cannot roll back a node group to an earlier Kubernetes version or AMI version" (EKS API
// Reference: UpdateNodegroupVersion). The way back is a new pool.
func noRollback(ctx context.Context, cfg configuredVersions, state *nodePoolModel) []checkProblem {
	var out []checkProblem
	want, wantOK := k8sMinor(cfg.kubernetes.ValueString())
	release, releaseOK := parseRelease(state.AMIType.ValueString(), cfg.release.ValueString())
	for _, ng := range poolschema.ListOf[nodeGroupModel](ctx, state.NodeGroups) {
		have, ok := k8sMinor(ng.KubernetesVersion.ValueString())
		if wantOK && ok && want < have {
			out = append(out, checkProblem{Problem: pool.Problem{Path: pool.P("kubernetes_version"), Summary: "Kubernetes version lower than the nodes run",
				Detail: fmt.Sprintf("node group %s runs Kubernetes %s, and EKS cannot roll a node group back from %s to %s. Keep kubernetes_version at %s or above, or replace the pool (terraform apply -replace) to run %s.",
					ng.Name.ValueString(), ng.KubernetesVersion.ValueString(), ng.KubernetesVersion.ValueString(), cfg.kubernetes.ValueString(), ng.KubernetesVersion.ValueString(), cfg.kubernetes.ValueString())}})
		}
		current, ok := parseRelease(state.AMIType.ValueString(), ng.ReleaseVersion.ValueString())
		if releaseOK && ok && release.comparable(current) && release.before(current) {
			out = append(out, checkProblem{Problem: pool.Problem{Path: pool.P("release_version"), Summary: "AMI release older than the nodes run",
				Detail: fmt.Sprintf("node group %s runs AMI release %s, and EKS cannot roll a node group back to %s. Keep release_version at %s or later, or replace the pool (terraform apply -replace).",
					ng.Name.ValueString(), ng.ReleaseVersion.ValueString(), cfg.release.ValueString(), ng.ReleaseVersion.ValueString())}})
		}
	}
	return out
}

// versionsBehind are the node groups in state that do not run the Kubernetes version or AMI release
// the configuration pins, while the pool's recorded ones match it: an update that moved one node
// group and failed on the other (EKS keeps the failed one where it was). The next apply moves them
// too. A pool that follows the cluster (nothing pinned) lets each node group keep its own.
func versionsBehind(ctx context.Context, cfg configuredVersions, state *nodePoolModel) map[string]bool {
	version := cfg.pinned()
	release := ""
	if !cfg.release.IsUnknown() {
		release = cfg.release.ValueString()
	}
	out := map[string]bool{}
	for _, ng := range poolschema.ListOf[nodeGroupModel](ctx, state.NodeGroups) {
		if !knownString(ng.ARN) || !knownString(ng.KubernetesVersion) {
			continue
		}
		have := ng.KubernetesVersion.ValueString()
		switch {
		case version != "" && have != version:
			out[ng.Name.ValueString()] = true
		case release != "" && releaseFits(state.AMIType.ValueString(), release, have) && ng.ReleaseVersion.ValueString() != release:
			out[ng.Name.ValueString()] = true
		}
	}
	return out
}

// planReleaseVersion plans release_version: as configured; else the release in state while the
// Kubernetes version stays (gpufleet keeps it), unknown when the version moves (the latest of the new
// version) or for a new pool.
func planReleaseVersion(cfg configuredVersions, plan, state *nodePoolModel) {
	switch {
	case !cfg.release.IsNull():
		plan.ReleaseVersion = cfg.release
	case state != nil && !plan.KubernetesVersion.IsUnknown() && plan.KubernetesVersion.Equal(state.KubernetesVersion):
		plan.ReleaseVersion = state.ReleaseVersion
	default:
		plan.ReleaseVersion = fwtypes.StringUnknown()
	}
}

// warnNodesReplaced says in the plan which node groups the apply rolls, replacing every node: a new
// Kubernetes version or AMI release (EKS User Guide, launch-templates: "all nodes in the group are
// recycled"; managed-node-update-behavior). A tag change rolls nothing: it reaches the running
// instances and their volumes, and the Auto Scaling group, in place (fleet.go).
func warnNodesReplaced(ctx context.Context, diags *diag.Diagnostics, plan, state *nodePoolModel) {
	var why []string
	if plan.KubernetesVersion.IsUnknown() || !plan.KubernetesVersion.Equal(state.KubernetesVersion) {
		why = append(why, "the Kubernetes version changes")
	}
	if !plan.ReleaseVersion.IsUnknown() && !plan.ReleaseVersion.Equal(state.ReleaseVersion) && !state.ReleaseVersion.IsNull() {
		why = append(why, fmt.Sprintf("the AMI release changes to %s", plan.ReleaseVersion.ValueString()))
	}
	if efaChanges(plan, state) {
		why = append(why, "the EFA interfaces change (network)")
	}
	if len(why) == 0 {
		return
	}
	var names []string
	planned := poolschema.ListOf[nodeGroupModel](ctx, plan.NodeGroups)
	for _, ng := range poolschema.ListOf[nodeGroupModel](ctx, state.NodeGroups) {
		if knownString(ng.ARN) && slices.ContainsFunc(planned, func(p nodeGroupModel) bool { return p.Name.Equal(ng.Name) }) {
			names = append(names, ng.Name.ValueString())
		}
	}
	if len(names) == 0 {
		return
	}
	diags.AddWarning("The apply replaces every node of "+strings.Join(names, ", "),
		fmt.Sprintf("%s: EKS rolls the node groups, draining and terminating every node (update_config: update_strategy DEFAULT launches the new nodes first, MINIMAL terminates the old ones first; max_unavailable at a time).", upperFirst(strings.Join(why, "; "))))
}

// warnReservationMoves says that an update moving the pool to another capacity reservation (or
// adding or removing one) rolls the on-demand node group onto it, and only that node group.
func warnReservationMoves(diags *diag.Diagnostics, plan, state *nodePoolModel, s pool.Spec) {
	if !reservationMoves(plan, state) {
		return
	}
	to := "no capacity reservation"
	if r := s.Capacity.Reservation; r != nil {
		to = "capacity reservation " + r.ID
	}
	od := plan.Name.ValueString() + pool.SuffixOnDemand
	diags.AddWarning("The apply replaces every node of "+od,
		fmt.Sprintf("The on-demand node group moves to %s: a new version of its launch template, onto which EKS rolls it, draining and terminating every node (update_config: update_strategy DEFAULT launches the new nodes first, MINIMAL terminates the old ones first). The spot node group, if any, stays as it is.", to))
}

// warnVersionsDiffer reports node groups of the pool on different Kubernetes versions or AMI
// releases: a side created after a cluster upgrade runs the cluster's version, the only one EKS
// creates node groups at, and gpufleet never moves a node group back.
func warnVersionsDiffer(ctx context.Context, diags *diag.Diagnostics, state *nodePoolModel) {
	ngs := poolschema.ListOf[nodeGroupModel](ctx, state.NodeGroups)
	var parts []string
	versions, releases := map[string]bool{}, map[string]bool{}
	for _, ng := range ngs {
		if !knownString(ng.KubernetesVersion) {
			continue
		}
		versions[ng.KubernetesVersion.ValueString()] = true
		releases[ng.ReleaseVersion.ValueString()] = true
		parts = append(parts, fmt.Sprintf("%s %s (AMI %s)", ng.Name.ValueString(), ng.KubernetesVersion.ValueString(), ng.ReleaseVersion.ValueString()))
	}
	if len(versions) > 1 || len(releases) > 1 {
		diags.AddWarning("The pool's node groups run different versions",
			"The node groups run "+strings.Join(parts, ", ")+". Set kubernetes_version (and release_version) to the newest to bring them together; EKS cannot move a node group back.")
	}
}

// addProblems reports check problems at their attributes.
func addProblems(diags *diag.Diagnostics, problems []checkProblem) {
	for _, p := range problems {
		if p.warn {
			diags.AddAttributeWarning(poolschema.ProblemPath(p.Path), p.Summary, p.Path.String()+": "+p.Detail)
			continue
		}
		poolschema.AddProblems(diags, []pool.Problem{p.Problem})
	}
}

// planTimeChecks reads, for a pool about to be created, the facts its creation depends on: the
// cluster's version when the configuration pins one or the AMI type depends on it, the reservation;
// for an update that moves the pool to another capacity reservation (creating false), the
// reservation alone. Reads that fail (no credentials at plan, no permission) defer the check to the
// apply.
func (r *NodePoolResource) planTimeChecks(ctx context.Context, plan *nodePoolModel, s pool.Spec, cfg configuredVersions, creating bool) []checkProblem {
	withCluster := creating && (cfg.pinned() != "" || strings.HasPrefix(plan.AMIType.ValueString(), "AL2_") || cfg.pinnedRelease() != "")
	subnets := subnetsOf(plan)
	if (!withCluster && s.Capacity.Reservation == nil) || plan.ClusterName.IsUnknown() || plan.AMIType.IsUnknown() || cfg.kubernetes.IsUnknown() || cfg.release.IsUnknown() {
		return nil
	}
	c, err := r.readOnlyClients(ctx, plan)
	if err != nil {
		tflog.Debug(ctx, "no AWS clients at plan: cloud checks wait for the apply", map[string]any{"error": err.Error()})
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, planReadTimeout)
	defer cancel()
	facts, err := readFacts(ctx, c, plan.ClusterName.ValueString(), s, subnets, withCluster)
	if err != nil {
		tflog.Info(ctx, "could not read the cloud at plan: the checks run at apply", map[string]any{"error": err.Error()})
		return nil
	}
	var out []checkProblem
	if creating {
		out = facts.createProblems(cfg.pinned(), cfg.pinnedRelease(), plan.AMIType.ValueString())
	}
	if subnets != nil {
		out = append(out, facts.reservationProblems(s, subnets)...)
	}
	return out
}

// planReadTimeout bounds the plan-time reads: a plan waits no longer for a check it can defer.
const planReadTimeout = 30 * time.Second

// readOnlyClients are the AWS clients for plan-time reads, in the planned region; an error, never a
// diagnostic, when they cannot be built.
func (r *NodePoolResource) readOnlyClients(ctx context.Context, plan *nodePoolModel) (*clients, error) {
	return r.clientsIn(ctx, recordedRegion(ctx, plan))
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
