package gke

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

const (
	// labelSpotMix records the spot mix on each node pool's resource labels, so that import and
	// refresh can tell how the two node pools' sizes came about, and, on a node pool whose size is
	// enforced (autoscaling off, GKE keeps no limits), the side's limits (formatSpotMix). It is not
	// part of effective_tags.
	labelSpotMix = "gpufleet_spot_mix"
	// reservationKey is the reservation affinity key of a specific reservation (GKE API
	// Reference: ReservationAffinity).
	reservationKey = "compute.googleapis.com/reservation-name"
	// gkeLabelPrefix marks the node labels GKE adds itself (cloud.google.com/gke-accelerator, …).
	gkeLabelPrefix = "cloud.google.com/"
	// labelOwnDefaults lists, dot-separated, the pool's tags that repeat a default_tags value, so that
	// import keeps them in tags (GCP label keys hold no dots). Keys beyond a label value's 63
	// characters are not recorded: such tags then read back as default_tags on import.
	labelOwnDefaults = "gpufleet.io/own-default-tags"
	maxLabelValue    = 63
	// maxResourceLabels is how many labels a Compute Engine resource takes.
	maxResourceLabels = 64
)

// isDerivedResourceLabel tells the resource labels gpufleet or GKE set from the user's own.
func isDerivedResourceLabel(key string) bool {
	return strings.HasPrefix(key, "gpufleet_") || strings.HasPrefix(key, "goog-")
}

func isGKELabel(key string) bool { return strings.HasPrefix(key, gkeLabelPrefix) }

// sideConfig is everything one node pool of the pool is created or updated with.
type sideConfig struct {
	pool.Side
	AutoscalerOwnsSize bool
	Zones              []string
	NodePool           *containerpb.NodePool // as gpufleet asks for it, without sizes and version
}

// sideConfigs expands a pool into its node pools. zones are the node locations (the cluster's when
// node_locations is unset), needed to turn the pool's total sizes into GKE's per-zone counts;
// upgrade is the upgrade_settings block.
func sideConfigs(s pool.Spec, d pool.Derived, zones, ownDefaults []string, ownerID string, upgrade *upgradeSettingsModel) []sideConfig {
	var out []sideConfig
	for _, side := range d.Sides {
		labels := pool.SideLabels(d.Labels, side)
		if own := ownDefaultsLabel(ownDefaults); own != "" {
			labels[labelOwnDefaults] = own
		}
		resourceLabels := maps.Clone(d.Tags)
		resourceLabels[labelSpotMix] = formatSpotMix(s.Capacity, s.AutoscalerOwnsSize, side.Sizes)
		if ownerID != "" {
			resourceLabels[labelOwner] = ownerID
		}
		acc := &containerpb.AcceleratorConfig{
			AcceleratorCount: int64(d.Node.GPUCount),
			AcceleratorType:  d.Node.Accelerator,
			GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{
				GpuDriverVersion: containerpb.GPUDriverInstallationConfig_GPUDriverVersion(
					containerpb.GPUDriverInstallationConfig_GPUDriverVersion_value[driverVersion(s.GPU.DriverVersion)]).Enum(),
			},
		}
		if m := s.GPU.MIG; m != nil {
			acc.GpuPartitionSize = strings.TrimPrefix(m.ConfigName(), "all-")
		}
		if sh := s.GPU.Sharing; sh != nil {
			strategy := containerpb.GPUSharingConfig_TIME_SHARING
			if sh.Strategy == pool.SharingMPS {
				strategy = containerpb.GPUSharingConfig_MPS
			}
			acc.GpuSharingConfig = &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: int64(sh.Replicas), GpuSharingStrategy: strategy.Enum()}
		}
		np := &containerpb.NodePool{
			Name: side.Name,
			Config: &containerpb.NodeConfig{
				MachineType:    s.MachineType,
				Labels:         labels,
				ResourceLabels: resourceLabels,
				Taints:         gkeTaints(d.Taints),
				Accelerators:   []*containerpb.AcceleratorConfig{acc},
				Spot:           side.Spot(),
			},
			Locations:       slices.Clone(s.Zones),
			Autoscaling:     autoscaling(s, side),
			UpgradeSettings: upgradeSettings(upgrade, !side.Spot() && reserved(s)),
		}
		if !side.Spot() {
			if r := s.Capacity.Reservation; r != nil {
				np.Config.ReservationAffinity = reservationAffinity(r)
			}
		}
		out = append(out, sideConfig{Side: side, AutoscalerOwnsSize: s.AutoscalerOwnsSize, Zones: zones, NodePool: np})
	}
	return out
}

// autoscaling is a side's NodePoolAutoscaling. GKE's cluster autoscaler resizes every node pool
// that has autoscaling on, within its limits ("Cluster autoscaler"), and terraform-provider-google
// says of a fixed node_count that it "should not be used alongside autoscaling": a pool whose size
// gpufleet enforces (desired_size) has autoscaling off, so that neither undoes the other's resizes
// apply after apply (audit N14); GKE then keeps no limits (cloudsim's normalizeAutoscaling), and
// the pool's are in state. Without desired_size the autoscaler owns the size within the side's
// limits, in total over the zones; spot capacity comes and goes per zone, so a spot side lets the
// autoscaler take it where it is (location policy ANY), an on-demand side balances its zones.
func autoscaling(s pool.Spec, side pool.Side) *containerpb.NodePoolAutoscaling {
	if !s.AutoscalerOwnsSize {
		return &containerpb.NodePoolAutoscaling{Enabled: false}
	}
	a := &containerpb.NodePoolAutoscaling{
		Enabled:           true,
		TotalMinNodeCount: int32(side.Sizes.Min),
		TotalMaxNodeCount: int32(side.Sizes.Max),
		LocationPolicy:    containerpb.NodePoolAutoscaling_BALANCED,
	}
	if side.Spot() {
		a.LocationPolicy = containerpb.NodePoolAutoscaling_ANY
	}
	return a
}

// ownDefaultsLabel is the value of the labelOwnDefaults node label: the keys, dot-joined, within
// a label value's 63 characters. A Kubernetes label value begins and ends with a letter or digit
// (GKE refuses the node pool otherwise, audit N11); tag keys begin with a letter but may end in
// '-' or '_', so a value that would end so ends in ".0" instead, which no tag key can be (they
// begin with a letter) and ownDefaultsOf drops.
func ownDefaultsLabel(keys []string) string {
	v := poolschema.JoinWithin(keys, ".", maxLabelValue)
	if v == "" || isAlphanumeric(v[len(v)-1]) {
		return v
	}
	v = poolschema.JoinWithin(keys, ".", maxLabelValue-len(ownDefaultsEnd))
	if v == "" || isAlphanumeric(v[len(v)-1]) {
		return v
	}
	return v + ownDefaultsEnd
}

// ownDefaultsEnd ends a labelOwnDefaults value whose last key ends in '-' or '_'.
const ownDefaultsEnd = ".0"

func isAlphanumeric(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// driverOf is an accelerator's driver setting as gpu.driver_version says it. A node pool created
// before GKE 1.30 has none (GKE fills DEFAULT only in node pools created on 1.30 or later,
// GoogleCloudPlatform/magic-modules PR #11152), which the API reads as
// GPU_DRIVER_VERSION_UNSPECIFIED: "Default value is to not install any GPU driver" (container v1
// API, GPUDriverInstallationConfig). That is what INSTALLATION_DISABLED does on the nodes ("Disable
// GPU driver auto installation and needs manual installation"): the user installs the driver (the
// NVIDIA installer DaemonSet, the GPU Operator). So it reads, and compares, as INSTALLATION_DISABLED:
// import gives a value the schema takes, and a configuration that says INSTALLATION_DISABLED sends
// no accelerator update, which would recreate every node (audit N2).
func driverOf(acc *containerpb.AcceleratorConfig) string {
	v := acc.GetGpuDriverInstallationConfig().GetGpuDriverVersion()
	if v == containerpb.GPUDriverInstallationConfig_GPU_DRIVER_VERSION_UNSPECIFIED {
		return DriverDisabled
	}
	return v.String()
}

func driverVersion(v string) string {
	if v == "" {
		return DriverDefault
	}
	return v
}

func reservationAffinity(r *pool.Reservation) *containerpb.ReservationAffinity {
	switch r.Type {
	case pool.ReservationSpecific:
		value := r.Name
		if r.Project != "" {
			value = "projects/" + r.Project + "/reservations/" + r.Name
		}
		return &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_SPECIFIC_RESERVATION, Key: reservationKey, Values: []string{value}}
	case pool.ReservationAny:
		return &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_ANY_RESERVATION}
	}
	return &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
}

// reservationOf reads the reservation back from a node pool's affinity; nil when it has none.
func reservationOf(ra *containerpb.ReservationAffinity) *pool.Reservation {
	switch ra.GetConsumeReservationType() {
	case containerpb.ReservationAffinity_SPECIFIC_RESERVATION:
		r := &pool.Reservation{Type: pool.ReservationSpecific}
		if v := ra.GetValues(); len(v) > 0 {
			r.Name = v[0]
			if rest, ok := strings.CutPrefix(v[0], "projects/"); ok {
				r.Project, r.Name, _ = strings.Cut(rest, "/reservations/")
			}
		}
		return r
	case containerpb.ReservationAffinity_ANY_RESERVATION:
		return &pool.Reservation{Type: pool.ReservationAny}
	case containerpb.ReservationAffinity_NO_RESERVATION:
		return &pool.Reservation{Type: pool.ReservationNone}
	}
	return nil
}

func gkeTaints(taints []pool.Taint) []*containerpb.NodeTaint {
	out := make([]*containerpb.NodeTaint, len(taints))
	for i, t := range taints {
		out[i] = &containerpb.NodeTaint{Key: t.Key, Value: t.Value, Effect: containerpb.NodeTaint_Effect(containerpb.NodeTaint_Effect_value[t.Effect])}
	}
	return out
}

func poolTaints(taints []*containerpb.NodeTaint) []pool.Taint {
	out := make([]pool.Taint, len(taints))
	for i, t := range taints {
		out[i] = pool.Taint{Key: t.GetKey(), Value: t.GetValue(), Effect: t.GetEffect().String()}
	}
	poolschema.SortTaints(out)
	return out
}

// formatSpotMix is the labelSpotMix value of a side: the mix, and the side's limits when the pool
// enforces its size (audit N14: GKE's autoscaling is off then and holds none).
func formatSpotMix(c pool.Capacity, autoscaled bool, sizes pool.Sizes) string {
	v := fmt.Sprintf("pct%d_base%d", c.SpotPercentage, c.OnDemandBase)
	if !autoscaled {
		v += fmt.Sprintf("_min%d_max%d", sizes.Min, sizes.Max)
	}
	return v
}

// parseLimits reads a side's limits from its labelSpotMix value; ok is false when it has none.
func parseLimits(v string) (limits pool.Sizes, ok bool) {
	_, rest, found := strings.Cut(v, "_min")
	if !found {
		return pool.Sizes{}, false
	}
	_, err := fmt.Sscanf(rest, "%d_max%d", &limits.Min, &limits.Max)
	return limits, err == nil
}

func parseSpotMix(v string) (pct, base int, ok bool) {
	_, err := fmt.Sscanf(v, "pct%d_base%d", &pct, &base)
	return pct, base, err == nil
}

// userLabels are a node pool's node labels less the ones GKE adds itself.
func userLabels(np *containerpb.NodePool) map[string]string {
	labels := maps.Clone(np.GetConfig().GetLabels())
	maps.DeleteFunc(labels, func(k, _ string) bool { return isGKELabel(k) })
	return labels
}

// poolLabels are the node labels gpufleet gives every node of the pool: a node pool's labels less
// GKE's own, the side's capacity type and gpufleet's record of the pool's own default tags.
func poolLabels(np *containerpb.NodePool) map[string]string {
	labels := userLabels(np)
	delete(labels, pool.LabelCapacityType)
	delete(labels, labelOwnDefaults)
	return labels
}

// userResourceLabels are a node pool's resource labels less GKE's goog- ones.
func userResourceLabels(np *containerpb.NodePool) map[string]string {
	labels := maps.Clone(np.GetConfig().GetResourceLabels())
	maps.DeleteFunc(labels, func(k, _ string) bool { return strings.HasPrefix(k, "goog-") })
	return labels
}

// effectiveTagsOf are the resource labels a node pool carries for the pool: its user and derived
// ones, less gpufleet's records (the spot mix, the owner id).
func effectiveTagsOf(np *containerpb.NodePool) map[string]string {
	labels := userResourceLabels(np)
	delete(labels, labelSpotMix)
	delete(labels, labelOwner)
	return labels
}

// ownDefaultsOf reads back the pool's tags that repeat a default_tags value (ownDefaultsLabel).
func ownDefaultsOf(np *containerpb.NodePool) []string {
	if v := np.GetConfig().GetLabels()[labelOwnDefaults]; v != "" {
		return strings.Split(strings.TrimSuffix(v, ownDefaultsEnd), ".")
	}
	return nil
}
