package gke

import (
	"fmt"
	"regexp"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// How GKE rolls a node pool's nodes when a change recreates them (a machine type, GPU driver or
// sharing, or Kubernetes version change; GKE "Node upgrade strategies"). GKE's default for a new
// node pool is a surge upgrade of one extra node at a time (max_surge 1, max_unavailable 0), which
// needs a VM beyond the node pool's: on a reservation that the pool uses up, and on a GPU type in
// short supply, that VM never comes and the upgrade does not finish ("Ensure that for the strategy
// you choose, you have enough quota, resource availability, or reservation capacity to upgrade
// nodes using that strategy"; audit N8). gpufleet's default for a node pool that consumes a
// reservation is therefore max_surge 0, max_unavailable 1 (a node at a time is drained and
// recreated in its place); other node pools keep GKE's default.

// Upgrade strategies (NodePoolUpdateStrategy).
const (
	strategySurge     = "SURGE"
	strategyBlueGreen = "BLUE_GREEN"
)

func upgradeSettingsBlock() schema.SingleNestedBlock {
	blueGreenOnly := func(what string) string {
		return what + " With `strategy = \"BLUE_GREEN\"` only."
	}
	return schema.SingleNestedBlock{
		MarkdownDescription: "How GKE replaces the nodes of the pool's node pools when a change recreates them: a new `machine_type`, GPU driver or sharing (`gpu`), or `kubernetes_version` (node labels, taints, resource labels, sizes and zones change without new nodes). Each such change is a rollout of its own (GKE takes one field group per update call), so a plan that changes several recreates the nodes several times, and says so. Unset: a surge upgrade, one extra node at a time (GKE's default), except for the on-demand node pool of a pool that consumes a reservation, which rolls without extra nodes (`max_surge = 0`, `max_unavailable = 1`): a reservation the pool uses up has no room for a surge node, and the upgrade would never finish. Changed in place, in an update call of its own sent before any rollout.",
		Attributes: map[string]schema.Attribute{
			"strategy": schema.StringAttribute{
				MarkdownDescription: "`SURGE` (the default: nodes are recreated a few at a time, `max_surge` extra nodes first) or `BLUE_GREEN` (a whole new set of nodes next to the old ones, which are drained in batches and deleted after a soak time: twice the GPUs during the upgrade, and a reservation must hold both sets).",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(strategySurge, strategyBlueGreen)},
			},
			"max_surge": schema.Int64Attribute{
				MarkdownDescription: "Nodes GKE may add beyond the node pool's size during a surge upgrade. Default 1, or 0 on a reservation.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(0, 100)},
			},
			"max_unavailable": schema.Int64Attribute{
				MarkdownDescription: "Nodes that may be unavailable at once during a surge upgrade. Default 0, or 1 on a reservation. `max_surge` and `max_unavailable` cannot both be 0.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(0, 100)},
			},
			"node_pool_soak_duration": schema.StringAttribute{
				MarkdownDescription: blueGreenOnly("How long the old nodes are kept, drained, after the last batch, before they are deleted (a duration such as `\"3600s\"` or `\"1h\"`)."),
				Optional:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(durationPattern, "must be a duration such as 600s or 1h")},
			},
			"batch_node_count": schema.Int64Attribute{
				MarkdownDescription: blueGreenOnly("Old nodes drained per batch."),
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"batch_soak_duration": schema.StringAttribute{
				MarkdownDescription: blueGreenOnly("Wait after each drained batch (a duration such as `\"300s\"`)."),
				Optional:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(durationPattern, "must be a duration such as 600s or 1h")},
			},
		},
	}
}

// durationPattern is a duration as Go and GKE's JSON write them ("600s", "10m", "1h30m").
var durationPattern = regexp.MustCompile(`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`)

// addUpgradeSettingsProblems checks the block's combinations at plan time: the surge settings with
// a surge upgrade only, the blue-green ones with a blue-green upgrade only, and a surge upgrade
// that moves at least one node at a time ("(maxUnavailable + maxSurge) determines the level of
// parallelism", container v1 API, NodePool.UpgradeSettings). A strategy that needs VMs beyond the
// pool's on a specific reservation is a warning: the reservation must have them unused.
func addUpgradeSettingsProblems(diags *diag.Diagnostics, u *upgradeSettingsModel, s pool.Spec) {
	if u == nil {
		return
	}
	at := path.Root("upgrade_settings")
	blueGreen := u.Strategy.ValueString() == strategyBlueGreen
	for name, set := range map[string]bool{"max_surge": !u.MaxSurge.IsNull(), "max_unavailable": !u.MaxUnavailable.IsNull()} {
		if set && blueGreen {
			diags.AddAttributeError(at.AtName(name), "Surge setting with a blue-green upgrade",
				fmt.Sprintf("upgrade_settings.%s: only a SURGE upgrade takes it; a BLUE_GREEN upgrade creates a whole new set of nodes. Remove it, or set strategy = \"SURGE\".", name))
		}
	}
	for name, set := range map[string]bool{"node_pool_soak_duration": !u.NodePoolSoakDuration.IsNull(), "batch_node_count": !u.BatchNodeCount.IsNull(), "batch_soak_duration": !u.BatchSoakDuration.IsNull()} {
		if set && !blueGreen && !u.Strategy.IsUnknown() {
			diags.AddAttributeError(at.AtName(name), "Blue-green setting without a blue-green upgrade",
				fmt.Sprintf("upgrade_settings.%s: only a BLUE_GREEN upgrade takes it. Set strategy = \"BLUE_GREEN\", or remove it.", name))
		}
	}
	if !blueGreen && !u.MaxSurge.IsUnknown() && !u.MaxUnavailable.IsUnknown() {
		surge, unavailable := surgeDefaults(reserved(s))
		if !u.MaxSurge.IsNull() {
			surge = int32(u.MaxSurge.ValueInt64())
		}
		if !u.MaxUnavailable.IsNull() {
			unavailable = int32(u.MaxUnavailable.ValueInt64())
		}
		if surge == 0 && unavailable == 0 {
			diags.AddAttributeError(at.AtName("max_unavailable"), "Upgrade that moves no node",
				"upgrade_settings: max_surge and max_unavailable are both 0, so a surge upgrade could replace no node: raise one of them.")
		}
	}
	if r := s.Capacity.Reservation; r != nil && r.Type == pool.ReservationSpecific && (blueGreen || u.MaxSurge.ValueInt64() > 0) {
		need := fmt.Sprintf("%d unused VMs", u.MaxSurge.ValueInt64())
		if blueGreen {
			need = "as many unused VMs as the on-demand node pool has nodes"
		}
		diags.AddAttributeWarning(at, "Upgrade that needs room in the reservation",
			fmt.Sprintf("upgrade_settings: the on-demand node pool consumes only reservation %q, and this upgrade strategy adds nodes before it removes old ones: the reservation needs %s during every rollout, or the upgrade fails (GKE \"Node upgrade strategies\"). max_surge = 0 with max_unavailable = 1 needs none.", r.Name, need))
	}
}

// reserved reports whether the pool's on-demand node pool consumes a reservation.
func reserved(s pool.Spec) bool {
	r := s.Capacity.Reservation
	return r != nil && (r.Type == pool.ReservationSpecific || r.Type == pool.ReservationAny)
}

// surgeDefaults are max_surge and max_unavailable when upgrade_settings leaves them unset: none
// extra and one at a time for a node pool on a reservation, GKE's own default otherwise.
func surgeDefaults(onReservation bool) (surge, unavailable int32) {
	if onReservation {
		return 0, 1
	}
	return 1, 0
}

// upgradeSettings is a side's NodePool.UpgradeSettings; onReservation says that it consumes a
// reservation (the on-demand side of a reserved pool).
func upgradeSettings(u *upgradeSettingsModel, onReservation bool) *containerpb.NodePool_UpgradeSettings {
	surge, unavailable := surgeDefaults(onReservation)
	if u == nil {
		u = &upgradeSettingsModel{}
	}
	if u.Strategy.ValueString() == strategyBlueGreen {
		bg := &containerpb.BlueGreenSettings{}
		if d, ok := durationOf(u.NodePoolSoakDuration.ValueString()); ok {
			bg.NodePoolSoakDuration = d
		}
		if !u.BatchNodeCount.IsNull() || !u.BatchSoakDuration.IsNull() {
			policy := &containerpb.BlueGreenSettings_StandardRolloutPolicy{}
			if !u.BatchNodeCount.IsNull() {
				policy.UpdateBatchSize = &containerpb.BlueGreenSettings_StandardRolloutPolicy_BatchNodeCount{BatchNodeCount: int32(u.BatchNodeCount.ValueInt64())}
			}
			if d, ok := durationOf(u.BatchSoakDuration.ValueString()); ok {
				policy.BatchSoakDuration = d
			}
			bg.RolloutPolicy = &containerpb.BlueGreenSettings_StandardRolloutPolicy_{StandardRolloutPolicy: policy}
		}
		return &containerpb.NodePool_UpgradeSettings{Strategy: containerpb.NodePoolUpdateStrategy_BLUE_GREEN.Enum(), BlueGreenSettings: bg}
	}
	if !u.MaxSurge.IsNull() {
		surge = int32(u.MaxSurge.ValueInt64())
	}
	if !u.MaxUnavailable.IsNull() {
		unavailable = int32(u.MaxUnavailable.ValueInt64())
	}
	return &containerpb.NodePool_UpgradeSettings{Strategy: containerpb.NodePoolUpdateStrategy_SURGE.Enum(), MaxSurge: surge, MaxUnavailable: unavailable}
}

func durationOf(s string) (*durationpb.Duration, bool) {
	d, err := time.ParseDuration(s)
	if s == "" || err != nil {
		return nil, false
	}
	return durationpb.New(d), true
}

// upgradeSettingsDiffer reports whether a node pool's upgrade settings are not what gpufleet asks
// for: the strategy (unspecified is GKE's SURGE), the surge settings of a surge upgrade, and the
// blue-green settings gpufleet sets (GKE may fill in the others).
func upgradeSettingsDiffer(got, want *containerpb.NodePool_UpgradeSettings) bool {
	strategy := func(u *containerpb.NodePool_UpgradeSettings) containerpb.NodePoolUpdateStrategy {
		if s := u.GetStrategy(); s != containerpb.NodePoolUpdateStrategy_NODE_POOL_UPDATE_STRATEGY_UNSPECIFIED {
			return s
		}
		return containerpb.NodePoolUpdateStrategy_SURGE
	}
	if strategy(got) != strategy(want) {
		return true
	}
	if strategy(want) != containerpb.NodePoolUpdateStrategy_BLUE_GREEN {
		return got.GetMaxSurge() != want.GetMaxSurge() || got.GetMaxUnavailable() != want.GetMaxUnavailable()
	}
	g, w := got.GetBlueGreenSettings(), want.GetBlueGreenSettings()
	if d := w.GetNodePoolSoakDuration(); d != nil && g.GetNodePoolSoakDuration().AsDuration() != d.AsDuration() {
		return true
	}
	gp, wp := g.GetStandardRolloutPolicy(), w.GetStandardRolloutPolicy()
	if n := wp.GetBatchNodeCount(); n != 0 && gp.GetBatchNodeCount() != n {
		return true
	}
	if d := wp.GetBatchSoakDuration(); d != nil && gp.GetBatchSoakDuration().AsDuration() != d.AsDuration() {
		return true
	}
	return false
}

// upgradeSettingsFrom is the upgrade_settings block refresh keeps: the prior one as it is (a node
// pool whose settings differ from it is not in sync, and the next apply sets them again), or,
// without one (import, or a pool whose configuration sets none), the settings GKE reports for
// the node pool, unless they are what gpufleet sends without a block.
func upgradeSettingsFrom(got *containerpb.NodePool_UpgradeSettings, prior *upgradeSettingsModel, onReservation bool) *upgradeSettingsModel {
	if prior != nil || got == nil || !upgradeSettingsDiffer(got, upgradeSettings(nil, onReservation)) {
		return prior
	}
	m := &upgradeSettingsModel{Strategy: types.StringNull(), MaxSurge: types.Int64Null(), MaxUnavailable: types.Int64Null(),
		NodePoolSoakDuration: types.StringNull(), BatchNodeCount: types.Int64Null(), BatchSoakDuration: types.StringNull()}
	if got.GetStrategy() != containerpb.NodePoolUpdateStrategy_BLUE_GREEN {
		// What differs from the node pool's default only: the defaults differ between a reserved
		// on-demand node pool and the spot one.
		surge, unavailable := surgeDefaults(onReservation)
		if got.GetMaxSurge() != surge {
			m.MaxSurge = types.Int64Value(int64(got.GetMaxSurge()))
		}
		if got.GetMaxUnavailable() != unavailable {
			m.MaxUnavailable = types.Int64Value(int64(got.GetMaxUnavailable()))
		}
		return m
	}
	m.Strategy = types.StringValue(strategyBlueGreen)
	bg := got.GetBlueGreenSettings()
	if d := bg.GetNodePoolSoakDuration(); d != nil {
		m.NodePoolSoakDuration = types.StringValue(d.AsDuration().String())
	}
	if p := bg.GetStandardRolloutPolicy(); p != nil {
		if n := p.GetBatchNodeCount(); n != 0 {
			m.BatchNodeCount = types.Int64Value(int64(n))
		}
		if d := p.GetBatchSoakDuration(); d != nil {
			m.BatchSoakDuration = types.StringValue(d.AsDuration().String())
		}
	}
	return m
}
