package gke

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/googleapis/gax-go/v2"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	compute "google.golang.org/api/compute/v1"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// The GKE pool's checks of what the cloud will make of it: at plan time with what the plan knows
// (planCheck), and again at apply, before any change, with what only the cloud knows then — the
// cluster's zones, the cluster's resource labels, the reservation (applyCheck).

// gkeVMLabels are the labels GKE puts on every node VM beside the node pool's resource labels (GKE
// "Automatically applied labels": goog-gke-node, goog-k8s-cluster-name, goog-k8s-cluster-location,
// goog-k8s-node-pool-name, goog-gke-node-pool-provisioning-model), and ownVMLabels gpufleet's
// records: the spot mix and the owner id. A VM carries at most maxResourceLabels labels, its cluster's resource labels
// included.
var gkeVMLabels = []string{"goog-gke-node", "goog-k8s-cluster-name", "goog-k8s-cluster-location", "goog-k8s-node-pool-name", "goog-gke-node-pool-provisioning-model"}

const ownVMLabels = 2 // gpufleet_spot_mix, gpufleet_owner

// addLocationProblems checks that node_locations are zones of the location's region.
func addLocationProblems(diags *diag.Diagnostics, m *nodePoolModel, s pool.Spec) {
	if m.Location.IsUnknown() || m.NodeLocations.IsUnknown() {
		return
	}
	for _, z := range s.Zones {
		if regionOf(z) != s.Region {
			diags.AddAttributeError(path.Root("node_locations"), "Node location outside the pool's region",
				fmt.Sprintf("node_locations: %q is not a zone of %s, the region of location %q.", z, s.Region, m.Location.ValueString()))
		}
	}
}

// addAcceleratorZoneProblem checks, for the pool's zones known at plan (node_locations, or the
// zone of a zonal location), that each offers the pool's GPU (catalog.GKEAcceleratorZones, from GCP's "GPU
// regions and zones"): GKE creates a node pool's nodes in every one of its zones, and
// CreateNodePool fails for a zone that does not offer the accelerator ("Accelerator type … is not
// available in zone …", a rule of cloudsim too). Zones the catalog does not cover are not judged.
func addAcceleratorZoneProblem(diags *diag.Diagnostics, m *nodePoolModel, s pool.Spec) {
	zones, attr := s.Zones, "node_locations"
	switch loc := m.Location.ValueString(); {
	case zonePattern.MatchString(loc) && slices.Equal(zones, []string{loc}):
		attr = "location" // a zonal pool in its location's zone
	case len(zones) == 0 && m.NodeLocations.IsNull() && !m.Location.IsUnknown() && zonePattern.MatchString(loc):
		// Without node_locations a zonal pool runs in the cluster's zones, which only the apply
		// reads (audit N5, applyCheck), and they always hold the cluster's own zone, its location:
		// "in a multi-zonal cluster … nodes are present in each of the primary zone and the node
		// locations" (terraform-provider-google, google_container_cluster node_locations).
		zones, attr = []string{loc}, "location"
	}
	addZoneAcceleratorProblem(diags, s, zones, attr, attr+":")
}

// addZoneAcceleratorProblem reports a zone of the pool that does not offer its GPU, at attr, the
// detail starting with what; zones are the pool's own at plan, or at apply the cluster's, where
// GKE puts a pool without node_locations.
func addZoneAcceleratorProblem(diags *diag.Diagnostics, s pool.Spec, zones []string, attr, what string) {
	node, problem, known := s.NodeType()
	if problem != nil || !known || len(zones) == 0 {
		return
	}
	if p := catalog.GKEAcceleratorZoneProblem(node.Accelerator, zones); p != "" {
		diags.AddAttributeError(path.Root(attr), "GPU not offered in a zone of the pool",
			fmt.Sprintf("%s the GPU of %s, %s, and GKE creates the pool's nodes in each of its zones. Set node_locations to zones that offer it.", what, node.Name, p))
	}
}

// addZoneSplitProblem checks that an enforced desired size splits evenly over the zones: GKE sizes
// a node pool per zone. At plan time when node_locations are set, else at apply with the cluster's.
func addZoneSplitProblem(diags *diag.Diagnostics, s pool.Spec, d pool.Derived, zones []string) {
	if s.AutoscalerOwnsSize || len(zones) == 0 {
		return
	}
	for _, side := range d.Sides {
		if !pool.SplitsOverZones(side.Sizes.Desired, len(zones)) {
			diags.AddAttributeError(path.Root("scaling").AtName("desired_size"), "Desired size does not split over the zones",
				fmt.Sprintf("scaling.desired_size: GKE sizes node pools per zone: node pool %s would have %d nodes over %d zones (%s). Choose a desired size (and spot mix) whose sides are multiples of the zone count, or leave desired_size unset and let the autoscaler size the pool.", side.Name, side.Sizes.Desired, len(zones), strings.Join(zones, ", ")))
			return
		}
	}
}

// addZoneStartProblem checks that a pool whose size the autoscaler owns can start within max_size:
// GKE creates min_size rounded up to the same number of nodes in every zone (initial_node_count is
// per zone), which max_size must hold.
func addZoneStartProblem(diags *diag.Diagnostics, s pool.Spec, d pool.Derived, zones []string) {
	if !s.AutoscalerOwnsSize || len(zones) == 0 {
		return
	}
	for _, side := range d.Sides {
		if start := pool.ZonalSize(side.Sizes.Min, len(zones)); start > side.Sizes.Max {
			diags.AddAttributeError(path.Root("scaling").AtName("min_size"), "Pool cannot start within max_size",
				fmt.Sprintf("scaling.min_size: GKE sizes node pools per zone and starts node pool %s at its min_size %d rounded up to a whole node per zone: %d nodes over %d zones (%s), more than its max_size %d. Raise max_size to at least %d, set min_size to 0 or a multiple of %d, or use fewer zones (node_locations).",
					side.Name, side.Sizes.Min, start, len(zones), strings.Join(zones, ", "), side.Sizes.Max, start, len(zones)))
			return
		}
	}
}

// addReservationZoneProblem: Compute Engine reservations are zonal, and a VM consumes a specific
// reservation only in the reservation's zone ("Consuming reserved zonal resources": node pools of a
// specific reservation in its zone), so such a pool has exactly one zone. clusterZones says the
// zones are the cluster's, known only at apply.
func addReservationZoneProblem(diags *diag.Diagnostics, s pool.Spec, zones []string, clusterZones bool) {
	r := s.Capacity.Reservation
	if r == nil || r.Type != pool.ReservationSpecific || len(zones) <= 1 {
		return
	}
	whose := "node_locations are"
	if clusterZones {
		whose = "node_locations are unset, so the pool takes its cluster's zones,"
	}
	diags.AddAttributeError(path.Root("node_locations"), "Specific reservation over several zones",
		fmt.Sprintf("node_locations: %s %s; a specific reservation is zonal and consumed only by nodes in its own zone: set node_locations to the one zone of reservation %q.", whose, strings.Join(zones, ", "), r.Name))
}

// addLabelBudgetProblem checks the labels a node VM carries: the pool's effective tags,
// gpufleet's spot-mix label, GKE's own and the cluster's resource labels (known at apply; nil at
// plan), at most maxResourceLabels.
func addLabelBudgetProblem(diags *diag.Diagnostics, d pool.Derived, clusterName string, clusterLabels map[string]string) {
	labels := maps.Clone(d.Tags)
	for _, k := range gkeVMLabels {
		labels[k] = ""
	}
	fromCluster := 0
	for k := range clusterLabels {
		if _, dup := labels[k]; !dup {
			fromCluster++
		}
	}
	n := len(labels) + ownVMLabels + fromCluster
	if n <= maxResourceLabels {
		return
	}
	detail := fmt.Sprintf("each node VM would carry %d labels, and Compute Engine takes at most %d: the pool's %d effective tags (default_tags, tags and the derived gpufleet_ labels), gpufleet's spot-mix and owner labels and GKE's own %d (%s)",
		n, maxResourceLabels, len(d.Tags), len(gkeVMLabels), strings.Join(gkeVMLabels, ", "))
	if fromCluster > 0 {
		detail += fmt.Sprintf(", and the %d resource labels of cluster %s", fromCluster, clusterName)
	}
	diags.AddAttributeError(path.Root("tags"), "Too many labels for a GKE node VM", detail+". Remove tags.")
}

// planCheck is GKE's plan-time check of a derived pool: Compute Engine's label limit, provider
// default_tags GCP cannot take, and what the known zones mean for sizes and reservations.
func planCheck(s pool.Spec, d pool.Derived, diags *diag.Diagnostics) {
	addZoneSplitProblem(diags, s, d, s.Zones)
	addZoneStartProblem(diags, s, d, s.Zones)
	addReservationZoneProblem(diags, s, s.Zones, false)
	// The pool's own tags were validated for GCP; provider default_tags are checked for AWS when the
	// provider is configured, and become resource labels here: one GCP rejects is an error, never
	// dropped or mangled.
	for _, k := range slices.Sorted(maps.Keys(d.Tags)) {
		if _, own := s.Tags[k]; own || isDerivedResourceLabel(k) {
			continue
		}
		if problem := pool.TagProblem(catalog.GCP, k, d.Tags[k]); problem != "" {
			diags.AddAttributeError(path.Root("tags"), "Provider default tag GKE does not take",
				fmt.Sprintf("default_tags[%q] of the provider becomes a resource label of this GKE pool: %s Use default_tags that both clouds take (lowercase keys and values).", k, problem))
		}
	}
	addLabelBudgetProblem(diags, d, "", nil)
}

// applyCheck repeats the checks that need the cloud, before any change: the cluster's zones (for
// a pool without node_locations) and resource labels, and a specific reservation, read in its
// owner project and zone.
func applyCheck(ctx context.Context, c *clients, project string, s pool.Spec, d pool.Derived, cl cluster, clusterName string, zones []string, diags *diag.Diagnostics) {
	addZoneSplitProblem(diags, s, d, zones)
	addZoneStartProblem(diags, s, d, zones)
	addReservationZoneProblem(diags, s, zones, len(s.Zones) == 0)
	if len(s.Zones) == 0 {
		addZoneAcceleratorProblem(diags, s, zones, "node_locations", "node_locations are unset, so the pool's zones are cluster "+clusterName+"'s ("+strings.Join(zones, ", ")+"):")
	}
	addLabelBudgetProblem(diags, d, clusterName, cl.resourceLabels)
	if r := s.Capacity.Reservation; r != nil && r.Type == pool.ReservationSpecific && len(zones) == 1 && !diags.HasError() {
		reserved := 0 // the nodes of the on-demand side, which consumes the reservation
		for _, side := range d.Sides {
			if !side.Spot() {
				reserved = side.Sizes.Max
			}
		}
		if rsv, err := checkReservation(ctx, c.compute, project, zones[0], r, d.Node); err != nil {
			diags.AddAttributeError(path.Root("capacity").AtName("reservation"), "Reservation the pool cannot consume", err.Error())
		} else if err := checkReservationCount(rsv, r, reserved); err != nil {
			diags.AddAttributeError(path.Root("scaling").AtName("max_size"), "More nodes than the reservation holds", err.Error())
		}
	}
}

// checkReservation reads a specific reservation in its owner project and the pool's zone
// (Compute Engine reservations.get; reservations are zonal) and checks that the pool's nodes can
// consume it: the same machine type and GPUs ("Consume reservations": a VM consumes a reservation
// only when its properties match), and, for another project's reservation, shared with the pool's
// project ("Shared reservations"); it returns the reservation read.
func checkReservation(ctx context.Context, conn *compute.Service, project, zone string, r *pool.Reservation, node catalog.NodeType) (*compute.Reservation, error) {
	owner := project
	if r.Project != "" {
		owner = r.Project
	}
	rsv, err := findReservation(ctx, conn, owner, zone, r.Name)
	switch {
	case isNotFound(err):
		return nil, fmt.Errorf("capacity.reservation: reservation %q is not in zone %s of project %s; a specific reservation is consumed only in its own zone: set node_locations to the reservation's zone, or name the project that owns it", r.Name, zone, owner)
	case err != nil:
		return nil, fmt.Errorf("capacity.reservation: reading reservation %q in zone %s of project %s: %w", r.Name, zone, owner, err)
	}
	if owner != project && !sharedWith(rsv.ShareSettings, project) {
		return nil, fmt.Errorf("capacity.reservation: reservation %q of project %s is not shared with project %s: share it with the project (share settings) or use a reservation of the pool's own project", r.Name, owner, project)
	}
	props := rsv.SpecificReservation
	if props == nil || props.InstanceProperties == nil {
		return rsv, nil // a reservation of another kind: nothing to compare
	}
	if mt := props.InstanceProperties.MachineType; mt != node.Name {
		return nil, fmt.Errorf("capacity.reservation: reservation %q reserves %s VMs, and a VM consumes a reservation only with its exact machine type: the pool's machine_type %s cannot consume it", r.Name, mt, node.Name)
	}
	for _, acc := range props.InstanceProperties.GuestAccelerators {
		if acceleratorName(acc.AcceleratorType) != node.Accelerator || int(acc.AcceleratorCount) != node.GPUCount {
			return nil, fmt.Errorf("capacity.reservation: reservation %q reserves VMs with %d x %s, the pool's nodes have %d x %s", r.Name, acc.AcceleratorCount, acceleratorName(acc.AcceleratorType), node.GPUCount, node.Accelerator)
		}
	}
	return rsv, nil
}

// findReservation reads a Compute Engine reservation (reservations.get; zonal), retried as the
// provider retries Compute Engine reads.
func findReservation(ctx context.Context, conn *compute.Service, owner, zone, name string) (*compute.Reservation, error) {
	var rsv *compute.Reservation
	err := gax.Invoke(ctx, func(ctx context.Context, _ gax.CallSettings) error {
		var err error
		rsv, err = conn.Reservations.Get(owner, zone, name).Context(ctx).Do()
		return err
	}, computeRetry())
	return rsv, err
}

// checkReservationCount checks that a specific reservation holds the nodes of the pool's
// on-demand side that consumes it: a VM of a specific reservation affinity is created only from
// that reservation ("Consume reserved zonal resources"), so the nodes beyond its count would never
// be created (cloudsim specificReservationFailure). The reservation's count is
// specificReservation.count (Compute Engine API, AllocationSpecificSKUReservation.Count: "the
// number of resources that are allocated"). An autoscaler object falls back to on demand past it;
// a node pool does not (issue #40 item 7, gpufleet_recommendation's overflow_to_on_demand).
func checkReservationCount(rsv *compute.Reservation, r *pool.Reservation, nodes int) error {
	if rsv.SpecificReservation == nil || rsv.SpecificReservation.Count == 0 {
		return nil // a reservation of another kind: nothing to count
	}
	if total := int(rsv.SpecificReservation.Count); nodes > total {
		return fmt.Errorf("scaling.max_size: reservation %q holds %d VMs, and the pool's on-demand side, which consumes only that reservation, may grow to %d nodes, which it could never create: lower max_size (or the on-demand share) to %d, or use a gpufleet_gke_compute_class, whose on_demand rung takes the rest", r.Name, total, nodes, total)
	}
	return nil
}

// sharedWith reports whether a reservation's share settings let project consume it: shared with it
// by name (SPECIFIC_PROJECTS and its projectMap), or with the owner's whole organization
// (ORGANIZATION: "Shared-reservation is open to entire Organization", Compute Engine API,
// ShareSettings.ShareType; audit N7). Whether the pool's project is in the owner's organization
// gpufleet cannot read with the permissions it asks for (resourcemanager): it takes an
// organization-shared reservation as consumable, and GKE refuses the node pool at the request if
// the projects are in different organizations, before anything is created.
func sharedWith(ss *compute.ShareSettings, project string) bool {
	if ss == nil {
		return false
	}
	switch ss.ShareType {
	case "ORGANIZATION":
		return true
	case "SPECIFIC_PROJECTS":
		_, ok := ss.ProjectMap[project]
		return ok
	}
	return false
}

// acceleratorName is an accelerator type given as a name or as "The full or partial URL of the
// accelerator type … 'projects/my-project/zones/us-central1-c/acceleratorTypes/nvidia-tesla-p100'",
// as a reservation may be made with it and reservations.get returns it
// (terraform-provider-google, resource_compute_reservation.go; audit N7): its name.
func acceleratorName(t string) string {
	if i := strings.LastIndex(t, "/acceleratorTypes/"); i >= 0 {
		return t[i+len("/acceleratorTypes/"):]
	}
	return t
}
