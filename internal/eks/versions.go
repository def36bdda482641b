package eks

import (
	"context"
	"fmt"
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

// amiRelease is an EKS optimized Amazon Linux AMI release, "1.31.7-20250620": the Kubernetes version
// with its patch, and the build date (awslabs/amazon-eks-ami releases). Bottlerocket's releases
// carry Bottlerocket's own version and are not compared.
type amiRelease struct {
	minor, patch int
	date         string
}

func parseRelease(s string) (amiRelease, bool) {
	k8s, date, ok := strings.Cut(s, "-")
	fields := strings.Split(k8s, ".")
	if !ok || len(fields) != 3 || fields[0] != "1" || len(date) != 8 {
		return amiRelease{}, false
	}
	minor, err1 := strconv.Atoi(fields[1])
	patch, err2 := strconv.Atoi(fields[2])
	_, err3 := strconv.Atoi(date)
	return amiRelease{minor, patch, date}, err1 == nil && err2 == nil && err3 == nil
}

func (a amiRelease) before(b amiRelease) bool {
	if a.minor != b.minor {
		return a.minor < b.minor
	}
	if a.patch != b.patch {
		return a.patch < b.patch
	}
	return a.date < b.date
}

// noRollback refuses, at plan, a configured version or release older than a node group runs: EKS
// "cannot roll back a node group to an earlier Kubernetes version or AMI version" (EKS API
// Reference: UpdateNodegroupVersion). The way back is a new pool.
func noRollback(ctx context.Context, cfg configuredVersions, state *nodePoolModel) []checkProblem {
	var out []checkProblem
	want, wantOK := k8sMinor(cfg.kubernetes.ValueString())
	release, releaseOK := parseRelease(cfg.release.ValueString())
	for _, ng := range poolschema.ListOf[nodeGroupModel](ctx, state.NodeGroups) {
		have, ok := k8sMinor(ng.KubernetesVersion.ValueString())
		if wantOK && ok && want < have {
			out = append(out, checkProblem{Problem: pool.Problem{Path: pool.P("kubernetes_version"), Summary: "Kubernetes version lower than the nodes run",
				Detail: fmt.Sprintf("node group %s runs Kubernetes %s, and EKS cannot roll a node group back from %s to %s. Keep kubernetes_version at %s or above, or replace the pool (terraform apply -replace) to run %s.",
					ng.Name.ValueString(), ng.KubernetesVersion.ValueString(), ng.KubernetesVersion.ValueString(), cfg.kubernetes.ValueString(), ng.KubernetesVersion.ValueString(), cfg.kubernetes.ValueString())}})
		}
		current, ok := parseRelease(ng.ReleaseVersion.ValueString())
		if releaseOK && ok && release.minor == current.minor && release.before(current) {
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
		case release != "" && releaseFits(release, have) && ng.ReleaseVersion.ValueString() != release:
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
// launch template version (the instances' tags), a new Kubernetes version or AMI release (EKS User
// Guide, launch-templates: "all nodes in the group are recycled"; managed-node-update-behavior).
func warnNodesReplaced(ctx context.Context, diags *diag.Diagnostics, plan, state *nodePoolModel) {
	var why []string
	if !plan.EffectiveTags.IsUnknown() && !plan.EffectiveTags.Equal(state.EffectiveTags) {
		why = append(why, "the instances' tags change (effective_tags), which is a new launch template version")
	}
	if plan.KubernetesVersion.IsUnknown() || !plan.KubernetesVersion.Equal(state.KubernetesVersion) {
		why = append(why, "the Kubernetes version changes")
	}
	if !plan.ReleaseVersion.IsUnknown() && !plan.ReleaseVersion.Equal(state.ReleaseVersion) && !state.ReleaseVersion.IsNull() {
		why = append(why, fmt.Sprintf("the AMI release changes to %s", plan.ReleaseVersion.ValueString()))
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
// cluster's version when the configuration pins one or the AMI type depends on it, the reservation.
// Reads that fail (no credentials at plan, no permission) defer the check to the apply.
func (r *NodePoolResource) planTimeChecks(ctx context.Context, plan *nodePoolModel, s pool.Spec, cfg configuredVersions) []checkProblem {
	withCluster := cfg.pinned() != "" || strings.HasPrefix(plan.AMIType.ValueString(), "AL2_")
	subnets := subnetsOf(plan)
	if (!withCluster && s.Capacity.Reservation == nil) || plan.ClusterName.IsUnknown() || plan.AMIType.IsUnknown() || cfg.kubernetes.IsUnknown() {
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
	out := facts.createProblems(cfg.pinned(), plan.AMIType.ValueString())
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
