package cloudsim

import (
	"fmt"
	"regexp"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Node pool validation mimicking the GKE API (GKE API Reference: projects.locations.clusters.
// nodePools — NodePool, NodeConfig, AcceleratorConfig, GPUSharingConfig, ReservationAffinity,
// NodeTaint, NodePoolAutoscaling). All failures are INVALID_ARGUMENT, like the real API's
// "Invalid value for field ..." errors.

func invalidArg(format string, args ...any) error {
	return status.Errorf(codes.InvalidArgument, format, args...)
}

// GKE API Reference: NodePool.name — lowercase letters, digits and hyphens, starting with a
// letter, not ending with a hyphen, at most 40 characters.
var poolNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)

// gkeZones returns the zones a node pool uses: its locations, else the cluster's.
func gkeZones(pool *containerpb.NodePool, cl *GKEClusterSeed) []string {
	if len(pool.GetLocations()) > 0 {
		return pool.GetLocations()
	}
	return cl.zones()
}

// validateNodePool checks a complete node pool (as created, or as it would be after an update) of
// a cluster in project consumer; seed holds the other projects (shared reservations).
func validateNodePool(pool *containerpb.NodePool, cl *GKEClusterSeed, project *GCPProjectSeed, consumer string, seed *Seed) error {
	if !poolNameRE.MatchString(pool.GetName()) {
		return invalidArg("Invalid value for field 'node_pool.name': %q. Name must start with a lowercase letter followed by up to 39 lowercase letters, numbers, or hyphens, and cannot end with a hyphen.", pool.GetName())
	}
	if pool.GetInitialNodeCount() < 0 {
		return invalidArg("Invalid value for field 'node_pool.initial_node_count': %d. Must be non-negative.", pool.GetInitialNodeCount())
	}
	checks := []func() error{
		func() error { return validateLocations(pool, cl) },
		func() error { return validateVersion(pool.GetVersion(), cl) },
		func() error { return validateAutoscaling(pool.GetAutoscaling(), len(gkeZones(pool, cl))) },
		func() error { return validateUpgradeSettings(pool.GetUpgradeSettings()) },
		func() error { return validateNodeConfig(pool.GetConfig(), gkeZones(pool, cl), project) },
		func() error { return validateReservationAffinity(pool.GetConfig(), gkeZones(pool, cl), consumer, seed) },
		func() error { return validateAdditionalNodeNetworks(pool, cl, project) },
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validateLocations: a node pool's zones are zones of the cluster's region; they need not be the
// cluster's own default node locations (GKE API Reference: NodePool.locations, "The list of Google
// Compute Engine zones in which the NodePool's nodes should be located"; gcloud container
// node-pools create --node-locations: any zones of the cluster's region; audit A.13).
func validateLocations(pool *containerpb.NodePool, cl *GKEClusterSeed) error {
	region := zoneRegion(cl.Location)
	for _, z := range pool.GetLocations() {
		if zoneRegion(z) != region || z == region {
			return invalidArg("Invalid value for field 'node_pool.locations': %q. Node pool locations must be zones of the cluster's region %s.", z, region)
		}
	}
	return nil
}

// zoneRegion is the region of a zone (europe-west4-a → europe-west4); a region is its own.
func zoneRegion(location string) string {
	if i := strings.LastIndex(location, "-"); i > 0 && len(location)-i == 2 {
		return location[:i]
	}
	return location
}

// validateVersion follows the GKE version skew policy: nodes no newer than the control plane
// and at most two minor versions older. Kubernetes itself lets a kubelet run three minor versions
// behind its API server since 1.28; GKE's own current skew table was not re-read (audit N16,
// unsure). cloudsim keeps two minors on purpose: the stricter side, as a client that creates node
// pools three minors behind would meet a refusal on a GKE that keeps two.
func validateVersion(v string, cl *GKEClusterSeed) error {
	if v == "" || v == cl.Version {
		return nil
	}
	cm, ok1 := minorOf(cl.Version)
	nm, ok2 := minorOf(v)
	if !ok1 || !ok2 || nm > cm || cm-nm > 2 {
		return invalidArg("Node version %q is not supported with master version %q: nodes may be at most two minor versions older than the control plane and never newer.", v, cl.Version)
	}
	return nil
}

// maxNodesPerZone is GKE's limit of nodes in one zone of a node pool (GKE "Quotas and limits":
// 1,000 nodes per node pool zone). The container v1 API sets no bound on the total limits
// (NodePoolAutoscaling: "There has to be enough quota to scale up the cluster"), so a node pool
// over z zones may autoscale to 1000·z nodes (audit N16: cloudsim capped totals at 1000 before).
const maxNodesPerZone = 1000

// GKE API Reference: NodePoolAutoscaling — per-zone (min/max) or total (total_min/total_max)
// limits, not both; 0 <= min <= max, max >= 1, at most maxNodesPerZone nodes per zone. Disabled
// autoscaling carries no limits (normalizeAutoscaling).
func validateAutoscaling(a *containerpb.NodePoolAutoscaling, zones int) error {
	if a == nil || !a.GetEnabled() {
		return nil
	}
	perZone := a.GetMinNodeCount() != 0 || a.GetMaxNodeCount() != 0
	total := a.GetTotalMinNodeCount() != 0 || a.GetTotalMaxNodeCount() != 0
	if perZone && total {
		return invalidArg("Invalid autoscaling configuration: per-zone limits (min_node_count/max_node_count) and total limits (total_min_node_count/total_max_node_count) cannot be combined.")
	}
	lo, hi, limit := a.GetMinNodeCount(), a.GetMaxNodeCount(), int32(maxNodesPerZone)
	field := "max_node_count"
	if total {
		lo, hi, field, limit = a.GetTotalMinNodeCount(), a.GetTotalMaxNodeCount(), "total_max_node_count", int32(maxNodesPerZone*max(zones, 1))
	}
	switch {
	case lo < 0:
		return invalidArg("Invalid autoscaling configuration: minimum node count %d must be non-negative.", lo)
	case hi < 1:
		return invalidArg("Invalid value for field 'autoscaling.%s': %d. Must be greater than zero.", field, hi)
	case lo > hi:
		return invalidArg("Invalid autoscaling configuration: minimum node count %d is greater than maximum node count %d.", lo, hi)
	case hi > limit:
		return invalidArg("Invalid value for field 'autoscaling.%s': %d. A node pool takes at most %d nodes per zone (%d over its %d zones).", field, hi, maxNodesPerZone, limit, max(zones, 1))
	}
	return nil
}

// normalizeAutoscaling is the autoscaling GKE keeps: with autoscaling disabled, none of its
// limits. The API does not say what a disabled NodePoolAutoscaling keeps of the limits it was sent
// with (terraform-provider-google reads an autoscaling block back only while it is enabled,
// resource_container_node_pool.go); cloudsim drops them, the side a client must survive: it cannot
// read a disabled node pool's limits back from GKE.
func normalizeAutoscaling(a *containerpb.NodePoolAutoscaling) *containerpb.NodePoolAutoscaling {
	if a == nil || a.GetEnabled() {
		return a
	}
	return &containerpb.NodePoolAutoscaling{}
}

// validateUpgradeSettings checks a node pool's upgrade settings (container v1 API,
// NodePool.UpgradeSettings, BlueGreenSettings): SURGE (the default) with max_surge and
// max_unavailable, which cannot both be 0, as "(maxUnavailable + maxSurge) determines the level of
// parallelism (how many nodes are being upgraded at the same time)" and an upgrade with none would
// never move (GKE "Surge upgrades"; gcloud refuses --max-surge-upgrade=0 with
// --max-unavailable-upgrade=0); BLUE_GREEN with its blue_green_settings, a batch of nodes or a
// percentage of the pool in (0, 1].
func validateUpgradeSettings(u *containerpb.NodePool_UpgradeSettings) error {
	if u == nil {
		return nil
	}
	if u.GetMaxSurge() < 0 || u.GetMaxUnavailable() < 0 {
		return invalidArg("Invalid value for field 'upgrade_settings': max_surge (%d) and max_unavailable (%d) must be non-negative.", u.GetMaxSurge(), u.GetMaxUnavailable())
	}
	switch u.GetStrategy() {
	case containerpb.NodePoolUpdateStrategy_BLUE_GREEN:
		if p := u.GetBlueGreenSettings().GetStandardRolloutPolicy(); p != nil {
			if pct := p.GetBatchPercentage(); p.GetUpdateBatchSize() != nil && p.GetBatchNodeCount() == 0 && (pct <= 0 || pct > 1) {
				return invalidArg("Invalid value for field 'upgrade_settings.blue_green_settings.standard_rollout_policy': batch_percentage %g must be in (0, 1], or give batch_node_count.", pct)
			}
			if p.GetBatchNodeCount() < 0 {
				return invalidArg("Invalid value for field 'upgrade_settings.blue_green_settings.standard_rollout_policy.batch_node_count': %d must be positive.", p.GetBatchNodeCount())
			}
		}
	case containerpb.NodePoolUpdateStrategy_SURGE, containerpb.NodePoolUpdateStrategy_NODE_POOL_UPDATE_STRATEGY_UNSPECIFIED:
		if u.GetBlueGreenSettings() != nil {
			return invalidArg("Invalid value for field 'upgrade_settings.blue_green_settings': only with strategy BLUE_GREEN.")
		}
		if u.GetMaxSurge() == 0 && u.GetMaxUnavailable() == 0 {
			return invalidArg("Invalid value for field 'upgrade_settings': max_surge and max_unavailable cannot both be 0.")
		}
	default:
		return invalidArg("Invalid value for field 'upgrade_settings.strategy': %s; must be SURGE or BLUE_GREEN.", u.GetStrategy())
	}
	return nil
}

func validateNodeConfig(cfg *containerpb.NodeConfig, zones []string, project *GCPProjectSeed) error {
	if cfg == nil {
		return nil
	}
	if cfg.GetSpot() && cfg.GetPreemptible() {
		// GKE API Reference: NodeConfig — spot and preemptible are alternatives.
		return invalidArg("Invalid node config: spot and preemptible cannot both be set; use spot.")
	}
	checks := []func() error{
		func() error { return validateAccelerators(cfg, zones, project) },
		func() error { return validateTaints(cfg.GetTaints()) },
		func() error { return validateK8sLabels(cfg.GetLabels()) },
		func() error { return validateResourceLabels(cfg.GetResourceLabels()) },
		func() error { return machineTypeInZones(cfg.GetMachineType(), zones, project) },
		func() error { return provisioningModel(cfg) },
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// provisioningModel refuses standard VMs of a machine type Compute Engine sells only otherwise
// (notOnDemand): Spot, or consuming a reservation where the type is sold on reservations. Real GKE
// accepts the request and the VMs fail to be created; cloudsim refuses at once, the safe side.
func provisioningModel(cfg *containerpb.NodeConfig) error {
	sold, limited := notOnDemand[cfg.GetMachineType()]
	if !limited || cfg.GetSpot() || cfg.GetPreemptible() {
		return nil
	}
	switch cfg.GetReservationAffinity().GetConsumeReservationType() {
	case containerpb.ReservationAffinity_SPECIFIC_RESERVATION, containerpb.ReservationAffinity_ANY_RESERVATION:
		if sold.reservable {
			return nil
		}
	}
	return invalidArg("Invalid node config: machine type %q is available only with %s, not as standard (on-demand) VMs.", cfg.GetMachineType(), sold.models)
}

// validateAccelerators checks accelerators against the machine type: accelerator-optimized
// types carry a fixed GPU set; N1 accepts T4/V100/P100/P4 in the allowed counts and vCPU
// limits; other machine types take no GPUs. The accelerator must exist in every node zone.
func validateAccelerators(cfg *containerpb.NodeConfig, zones []string, project *GCPProjectSeed) error {
	mt := cfg.GetMachineType()
	accs := cfg.GetAccelerators()
	if len(accs) > 1 {
		return invalidArg("Only one accelerator type may be attached to machine type %q.", mt)
	}
	fixed, isFixed := fixedGPUMachines[mt]
	if len(accs) == 0 {
		if isFixed {
			return acceleratorInZones(fixed.accelerator, zones, project)
		}
		return nil
	}
	acc := accs[0]
	var err error
	switch {
	case isFixed:
		err = checkFixedAccelerator(mt, fixed, acc)
	case strings.HasPrefix(mt, "n1-"):
		err = checkN1Accelerator(mt, acc)
	default:
		err = invalidArg("Machine type %q does not support accelerators; use an N1 machine type or an accelerator-optimized machine type (A2, A3, A4, G2).", mt)
	}
	if err != nil {
		return err
	}
	if err := acceleratorInZones(acc.GetAcceleratorType(), zones, project); err != nil {
		return err
	}
	if err := validatePartition(acc); err != nil {
		return err
	}
	return validateSharing(acc)
}

func checkFixedAccelerator(mt string, fixed fixedGPU, acc *containerpb.AcceleratorConfig) error {
	if acc.GetAcceleratorType() != fixed.accelerator {
		return invalidArg("Accelerator type %q is not supported for machine type %q; it comes with %d x %q.", acc.GetAcceleratorType(), mt, fixed.count, fixed.accelerator)
	}
	if acc.GetAcceleratorCount() != fixed.count {
		return invalidArg("Invalid accelerator count %d for machine type %q; it comes with %d x %q.", acc.GetAcceleratorCount(), mt, fixed.count, fixed.accelerator)
	}
	return nil
}

func checkN1Accelerator(mt string, acc *containerpb.AcceleratorConfig) error {
	counts, ok := n1GPUs[acc.GetAcceleratorType()]
	if !ok {
		return invalidArg("Accelerator type %q is not supported for machine type %q.", acc.GetAcceleratorType(), mt)
	}
	maxVCPU, ok := counts[acc.GetAcceleratorCount()]
	if !ok {
		return invalidArg("Invalid accelerator count %d for accelerator type %q; allowed counts are %s.", acc.GetAcceleratorCount(), acc.GetAcceleratorType(), countList(counts))
	}
	if vcpus, ok := n1VCPUs(mt); ok && vcpus > maxVCPU {
		return invalidArg("Machine type %q has %d vCPUs; %d x %q supports at most %d vCPUs.", mt, vcpus, acc.GetAcceleratorCount(), acc.GetAcceleratorType(), maxVCPU)
	}
	return nil
}

func countList(m map[int64]int) string {
	var parts []string
	for _, n := range []int64{1, 2, 4, 8, 16} {
		if _, ok := m[n]; ok {
			parts = append(parts, fmt.Sprint(n))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// acceleratorInZones: Compute Engine offers each GPU in some zones of a region only (Google Cloud,
// "GPU regions and zones", cloud.google.com/compute/docs/gpus/gpu-regions-zones), and GKE creates a
// node pool's nodes in every one of its zones, so CreateNodePool fails for a zone that does not
// offer the accelerator. The seed's "accelerators" say what each zone offers; the example world's
// agree with the catalog's per-zone table (catalog.GKEAcceleratorZones, from SkyPilot's GCP
// catalog, which lists machine types per zone; TestAcceleratorZones_seedAgrees), which the
// provider checks at plan when a pool's zones are known.
func acceleratorInZones(accel string, zones []string, project *GCPProjectSeed) error {
	for _, z := range zones {
		if !project.acceleratorInZone(accel, z) {
			return invalidArg("Accelerator type %q is not available in zone %q.", accel, z)
		}
	}
	return nil
}

// GKE "Running multi-instance GPUs": gpu_partition_size must be a MIG profile GKE supports for
// the accelerator.
func validatePartition(acc *containerpb.AcceleratorConfig) error {
	size := acc.GetGpuPartitionSize()
	if size == "" {
		return nil
	}
	allowed, ok := migPartitions[acc.GetAcceleratorType()]
	if !ok {
		return invalidArg("GPU partitioning is not supported for accelerator type %q.", acc.GetAcceleratorType())
	}
	if !contains(allowed, size) {
		return invalidArg("Invalid value for field 'accelerator.gpu_partition_size': %q. Supported partition sizes for %q are [%s].", size, acc.GetAcceleratorType(), strings.Join(allowed, ", "))
	}
	return nil
}

// GKE "GPU sharing — time-sharing and NVIDIA MPS": max_shared_clients_per_gpu from 2 to 48.
// Either strategy may run on MIG partitions: "About GPUs in GKE"
// (https://cloud.google.com/kubernetes-engine/docs/concepts/gpus) lists time-sharing,
// multi-instance GPUs, and multi-instance GPUs with NVIDIA MPS among GKE's GPU sharing features.
func validateSharing(acc *containerpb.AcceleratorConfig) error {
	sc := acc.GetGpuSharingConfig()
	if sc == nil {
		return nil
	}
	strategy := sc.GetGpuSharingStrategy()
	switch strategy {
	case containerpb.GPUSharingConfig_TIME_SHARING, containerpb.GPUSharingConfig_MPS,
		containerpb.GPUSharingConfig_GPU_SHARING_STRATEGY_UNSPECIFIED:
	default:
		return invalidArg("Invalid GPU sharing strategy %q; must be TIME_SHARING or MPS.", strategy)
	}
	if n := sc.GetMaxSharedClientsPerGpu(); n < 2 || n > 48 {
		return invalidArg("Invalid value for field 'gpu_sharing_config.max_shared_clients_per_gpu': %d. Must be between 2 and 48.", n)
	}
	return nil
}

// Kubernetes qualified names (labels and taint keys): optional DNS-subdomain prefix and "/",
// then a name of at most 63 characters.
var (
	k8sNameRE   = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)
	dnsPrefixRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

func validQualifiedName(k string) bool {
	prefix, name, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		name, prefix = prefix, ""
	}
	if hasPrefix && (len(prefix) == 0 || len(prefix) > 253 || !dnsPrefixRE.MatchString(prefix)) {
		return false
	}
	return len(name) <= 63 && k8sNameRE.MatchString(name)
}

func validLabelValue(v string) bool {
	return v == "" || (len(v) <= 63 && k8sNameRE.MatchString(v))
}

// GKE API Reference: NodeTaint — effect NO_SCHEDULE | PREFER_NO_SCHEDULE | NO_EXECUTE; one taint
// per key and effect; GKE manages the nvidia.com/gpu taint, so at most one may be given.
func validateTaints(taints []*containerpb.NodeTaint) error {
	seen := map[string]bool{}
	gpuTaints := 0
	for _, t := range taints {
		if t.GetEffect() == containerpb.NodeTaint_EFFECT_UNSPECIFIED {
			return invalidArg("Invalid value for field 'node_config.taints': taint %q has no effect; must be NO_SCHEDULE, PREFER_NO_SCHEDULE or NO_EXECUTE.", t.GetKey())
		}
		if !validQualifiedName(t.GetKey()) || !validLabelValue(t.GetValue()) {
			return invalidArg("Invalid value for field 'node_config.taints': %q=%q is not a valid Kubernetes taint.", t.GetKey(), t.GetValue())
		}
		k := t.GetKey() + ":" + t.GetEffect().String()
		if seen[k] {
			return invalidArg("Invalid value for field 'node_config.taints': duplicate taint with key %q and effect %s.", t.GetKey(), t.GetEffect())
		}
		seen[k] = true
		if t.GetKey() == "nvidia.com/gpu" {
			gpuTaints++
		}
	}
	if gpuTaints > 1 {
		return invalidArg("Invalid value for field 'node_config.taints': only one taint with key \"nvidia.com/gpu\" is allowed.")
	}
	return nil
}

func validateK8sLabels(labels map[string]string) error {
	for _, k := range sortedKeys(labels) {
		if !validQualifiedName(k) || !validLabelValue(labels[k]) {
			return invalidArg("Invalid value for field 'node_config.labels': %q=%q is not a valid Kubernetes label.", k, labels[k])
		}
		// "Error 400: Applying kubernetes label is not allowed: node-role.kubernetes.io/..."
		// (hashicorp/terraform-provider-google#6003, bitpoke/stack#86).
		if hasLabelDomain(k, "kubernetes.io", "k8s.io") {
			return invalidArg("Applying kubernetes label is not allowed: %s", k)
		}
		// "Node labels with key "cloud.google.com/compute-class" are managed by GKE or Kubernetes
		// and must not be manually specified." (hashicorp/terraform-provider-google#19677)
		if hasLabelDomain(k, "cloud.google.com") {
			return invalidArg("Node labels with key %q are managed by GKE or Kubernetes and must not be manually specified.", k)
		}
	}
	return nil
}

// Compute Engine labels (GKE resource_labels): at most 64; keys start with a lowercase letter
// and hold lowercase letters, digits, underscores and dashes (1–63); values the same, 0–63.
var (
	gceLabelKeyRE   = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)
	gceLabelValueRE = regexp.MustCompile(`^[a-z0-9_-]{0,63}$`)
)

func validateResourceLabels(labels map[string]string) error {
	if len(labels) > 64 {
		return invalidArg("Invalid value for field 'node_config.resource_labels': at most 64 labels are allowed, got %d.", len(labels))
	}
	for _, k := range sortedKeys(labels) {
		if !gceLabelKeyRE.MatchString(k) || !gceLabelValueRE.MatchString(labels[k]) {
			return invalidArg("Invalid value for field 'node_config.resource_labels': %q=%q. Label keys must start with a lowercase letter and can only contain lowercase letters, numeric characters, underscores and dashes; values can only contain lowercase letters, numeric characters, underscores and dashes.", k, labels[k])
		}
	}
	return nil
}

const reservationKey = "compute.googleapis.com/reservation-name"

// GKE API Reference: ReservationAffinity — key and values only with SPECIFIC_RESERVATION, where
// the key is compute.googleapis.com/reservation-name and the values name existing reservations
// ("name" in the node pool's project, or "projects/<owner>/reservations/<name>" for a shared
// reservation, looked up in its owner project). Spot VMs cannot consume reservations.
//
// Compute Engine reservations are zonal, and a VM consumes one only when its machine type and
// GPUs are the reservation's ("Reservations of Compute Engine zonal resources", "Consume
// reservations"; GKE "Consuming reserved zonal resources" places node pools of a specific
// reservation in the reservation's zone); a shared reservation only for the projects it is shared
// with ("Shared reservations"). GKE's answer to a mismatch is not documented: cloudsim refuses the
// request, the safe side for a test (audit A.5).
func validateReservationAffinity(cfg *containerpb.NodeConfig, zones []string, consumer string, seed *Seed) error {
	ra := cfg.GetReservationAffinity()
	if ra == nil {
		return nil
	}
	switch ra.GetConsumeReservationType() {
	case containerpb.ReservationAffinity_NO_RESERVATION, containerpb.ReservationAffinity_ANY_RESERVATION:
		if ra.GetKey() != "" || len(ra.GetValues()) > 0 {
			return invalidArg("Invalid value for field 'reservation_affinity': key and values may only be set with SPECIFIC_RESERVATION.")
		}
		return nil
	case containerpb.ReservationAffinity_SPECIFIC_RESERVATION:
	default:
		return invalidArg("Invalid value for field 'reservation_affinity.consume_reservation_type': must be NO_RESERVATION, ANY_RESERVATION or SPECIFIC_RESERVATION.")
	}
	if ra.GetKey() != reservationKey || len(ra.GetValues()) == 0 {
		return invalidArg("Invalid value for field 'reservation_affinity': SPECIFIC_RESERVATION requires key %q and at least one reservation name.", reservationKey)
	}
	if cfg.GetSpot() || cfg.GetPreemptible() {
		return invalidArg("Invalid value for field 'reservation_affinity': Spot and preemptible VMs cannot consume reservations.")
	}
	for _, v := range ra.GetValues() {
		if err := checkReservation(cfg, zones, consumer, seed, v); err != nil {
			return err
		}
	}
	return nil
}

func checkReservation(cfg *containerpb.NodeConfig, zones []string, consumer string, seed *Seed, value string) error {
	owner, name := consumer, value
	if rest, ok := strings.CutPrefix(value, "projects/"); ok {
		owner, name, _ = strings.Cut(rest, "/reservations/")
	}
	var rsv *GCEReservationSeed
	if p := seed.gcpProject(owner); p != nil {
		rsv = p.reservation(name)
	}
	if rsv == nil {
		return status.Errorf(codes.NotFound, "Reservation %q not found in project %q.", name, owner)
	}
	if !seed.sharedWith(rsv, owner, consumer) {
		// INVALID_ARGUMENT, not FAILED_PRECONDITION: GKE clients retry the latter (another operation
		// running), and nothing changes by waiting here.
		return invalidArg("Reservation %q of project %q is not shared with project %q.", name, owner, consumer)
	}
	for _, z := range zones {
		if z != rsv.Zone {
			return invalidArg("Invalid value for field 'node_pool.locations': %q. Reservation %q is in zone %q; a specific reservation is consumed only by nodes in its zone.", z, value, rsv.Zone)
		}
	}
	if cfg.GetMachineType() != rsv.MachineType {
		return invalidArg("Invalid value for field 'node_config.machine_type': %q. Reservation %q reserves %q; a VM consumes a reservation only with its exact machine type.", cfg.GetMachineType(), value, rsv.MachineType)
	}
	if rsv.AcceleratorType != "" {
		accs := cfg.GetAccelerators()
		if len(accs) != 1 || accs[0].GetAcceleratorType() != acceleratorName(rsv.AcceleratorType) || accs[0].GetAcceleratorCount() != int64(rsv.AcceleratorCount) {
			return invalidArg("Invalid value for field 'node_config.accelerators': reservation %q reserves %d x %q per VM.", value, rsv.AcceleratorCount, rsv.AcceleratorType)
		}
	}
	return nil
}
