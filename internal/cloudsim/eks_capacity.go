package cloudsim

import (
	"fmt"
	"strconv"
	"time"
)

// Node groups on EC2 capacity reservations (ODCRs) and Capacity Blocks for ML: what EKS checks when
// the node group is created, and what EC2 does when its Auto Scaling group launches into the
// reservation. EKS itself validates little of it ("Amazon EKS clusters using managed node groups
// with Capacity Blocks don't perform any validations that instances launched actually join", EKS
// User Guide, capacity-blocks-mng): most mistakes show as launch failures, the health issue
// AsgInstanceLaunchFailures.

// crStateAt is a reservation's state at now: the seed's, else scheduled before its start date
// (a Capacity Block, or a future-dated On-Demand Capacity Reservation), expired after its end, else
// active (EC2 API Reference: CapacityReservation.State — assessing, scheduled, active, expired,
// delayed, payment-pending, ...). Audit eks-vs-real.md S6: future-dated ODCRs pass through
// assessing and scheduled, or delayed when EC2 cannot deliver on time (EC2 User Guide,
// "Future-dated Capacity Reservations"); a seed names assessing or delayed as its state.
func crStateAt(cr *CapacityReservationSeed, now time.Time) string {
	switch {
	case cr.State != "":
		return cr.State
	case cr.StartDate != nil && now.Before(*cr.StartDate):
		return "scheduled"
	case cr.EndDate != nil && !now.Before(*cr.EndDate):
		return "expired"
	}
	return "active"
}

// crNotStarted reports the states of a reservation whose capacity is not there yet: a Capacity Block
// before its start, a future-dated ODCR being assessed, scheduled or delayed.
func crNotStarted(state string) bool {
	return state == "scheduled" || state == "assessing" || state == "delayed" || state == "payment-pending"
}

func crTenancy(cr *CapacityReservationSeed) string { return firstNonEmpty(cr.Tenancy, "default") }

// reservationUse is how many instances the node groups targeting a reservation hold: their desired
// sizes (cloudsim launches a node group's desired size at once). skip leaves one node group out.
func (w *world) reservationUse(id, skip string) int {
	used := 0
	for key, r := range w.Nodegroups {
		if r.Reservation != id || key == skip || r.Nodegroup.Status == ngDeleting || r.Nodegroup.Status == ngCreateFailed {
			continue
		}
		if sc := r.Nodegroup.ScalingConfig; sc != nil && sc.DesiredSize != nil {
			used += int(*sc.DesiredSize)
		}
	}
	return used
}

// reservationFree is what a reservation has left for the node group key: its available instances
// less the ones other node groups hold.
func (w *world) reservationFree(cr *CapacityReservationSeed, key string) int {
	return min(cr.AvailableInstanceCount, cr.TotalInstanceCount) - w.reservationUse(cr.ID, key)
}

// reservationLaunch is what happens when a node group created on a reservation launches its
// instances (EC2 User Guide, "Use a Capacity Reservation": an instance launches into a reservation
// only with matching attributes — instance type, platform, Availability Zone, tenancy — while it has
// available capacity and is active; Capacity Blocks before their start: "the ASG won't be able to
// launch Amazon EC2 instances … ASG scaling activities will have launch errors", EKS User Guide,
// capacity-blocks-mng). fail ends the creation CREATE_FAILED; degrade leaves the node group with too
// few nodes (DEGRADED); notice is a health issue of an ACTIVE node group (a block not started yet).
func (w *world) reservationLaunch(key string, r *ngRecord, now time.Time) (fail, degrade, notice []HealthIssue) {
	cr := w.Seed.awsRegion(r.Region).capacityReservation(r.Reservation)
	desired := 0
	if sc := r.Nodegroup.ScalingConfig; sc != nil && sc.DesiredSize != nil {
		desired = int(*sc.DesiredSize)
	}
	launchFailure := func(format string, args ...any) []HealthIssue {
		return issuesOrDefault([]HealthIssue{{Code: "AsgInstanceLaunchFailures", Message: "Could not launch On-Demand Instances. " + fmt.Sprintf(format, args...) + " Launching EC2 instance failed."}}, HealthIssue{}, r.Nodegroup.Resources)
	}
	if cr == nil {
		return launchFailure("InvalidCapacityReservationId.NotFound - The capacity reservation ID '%s' does not exist.", r.Reservation), nil, nil
	}
	switch state := crStateAt(cr, now); {
	case state == "active":
	case crNotStarted(state):
		start := "its start"
		if cr.StartDate != nil {
			start = cr.StartDate.UTC().Format(time.RFC3339)
		}
		return nil, nil, launchFailure("ReservationCapacityExceeded - Capacity reservation %s is %s and has no capacity before %s.", cr.ID, state, start)
	default:
		return launchFailure("InvalidCapacityReservationId.Malformed - The capacity reservation %s is %s.", cr.ID, state), nil, nil
	}
	if crTenancy(cr) != "default" {
		// A node group's launch template sets no tenancy, so its instances are default-tenancy, and
		// an instance launches into a reservation only with matching tenancy (EC2 User Guide, "Use a
		// Capacity Reservation"). Audit eks-vs-real.md D15.
		return launchFailure("InvalidParameterValue - Capacity reservation %s is for %s tenancy instances; the node group launches default tenancy.", cr.ID, crTenancy(cr)), nil, nil
	}
	for _, t := range r.InstanceTypes {
		if t != cr.InstanceType {
			return launchFailure("InvalidParameterValue - The instance type %s does not match the instance type %s of capacity reservation %s.", t, cr.InstanceType, cr.ID), nil, nil
		}
	}
	inZone := 0
	for _, z := range r.Zones {
		if z == cr.AvailabilityZone {
			inZone++
		}
	}
	if desired == 0 {
		return nil, nil, nil
	}
	switch {
	case inZone == 0:
		return launchFailure("InvalidParameterValue - Capacity reservation %s is in %s, and none of the node group's subnets is.", cr.ID, cr.AvailabilityZone), nil, nil
	case inZone < len(r.Zones):
		degrade = launchFailure("InvalidParameterValue - Capacity reservation %s is in %s: launches in the node group's other Availability Zones fail.", cr.ID, cr.AvailabilityZone)
	}
	if free := w.reservationFree(cr, key); desired > free {
		degrade = launchFailure("ReservationCapacityExceeded - Capacity reservation %s has %d instances available; the node group wants %d.", cr.ID, max(free, 0), desired)
	}
	return nil, degrade, nil
}

// surgeFails reports why an update that replaces every node of a node group on a reservation cannot
// get its new nodes, "" when it can. The default strategy launches new nodes first, up to "twice the
// number of Availability Zones … [or] the maximum unavailable", whichever is larger (EKS User Guide,
// managed-node-update-behavior, scale-up phase), and a reservation has only its free instances for
// them; a capacity shortage there ends the update with NodeCreationFailure. The MINIMAL strategy
// "terminates the old instances before launching the new instances" (EKS API Reference,
// NodegroupUpdateConfig.updateStrategy) and needs none.
func (w *world) surgeFails(key string, r *ngRecord) string {
	cr := w.Seed.awsRegion(r.Region).capacityReservation(r.Reservation)
	uc := r.Nodegroup.UpdateConfig
	sc := r.Nodegroup.ScalingConfig
	if cr == nil || sc == nil || sc.DesiredSize == nil || *sc.DesiredSize == 0 || (uc != nil && uc.UpdateStrategy == "MINIMAL") {
		return ""
	}
	surge := 2 * len(uniqSorted(r.Zones))
	if uc != nil && uc.MaxUnavailable != nil {
		surge = max(surge, int(*uc.MaxUnavailable))
	}
	// The node group's own instances stay in the reservation until the new ones have joined.
	if free := w.reservationFree(cr, key) - int(*sc.DesiredSize); free < surge {
		return "Capacity reservation " + cr.ID + " has " + strconv.Itoa(max(free, 0)) + " instances free and the update needs " + strconv.Itoa(surge) +
			" new nodes before it terminates old ones (update strategy DEFAULT); use the MINIMAL update strategy, or free capacity"
	}
	return ""
}

// blockScaleDownLead is how long before a Capacity Block ends EKS scales its node groups to 0: "Amazon
// EC2 starts shutting down the instances 30 minutes before reservation end time. As a result, Amazon
// EKS will setup a scheduled scale down on the node group 40 minutes prior to their reservation end"
// (EKS User Guide, capacity-blocks-mng: the scheduled action "Amazon EKS Node Group Capacity Scaledown
// Before Reservation End").
const blockScaleDownLead = 40 * time.Minute

// scaleDownBeforeBlockEnd runs EKS's scheduled scale-down of a node group on a Capacity Block: from
// 40 minutes before the block's end, its size (desired and minimum) is 0.
func (w *world) scaleDownBeforeBlockEnd(r *ngRecord, now time.Time) {
	sc := r.Nodegroup.ScalingConfig
	if r.Nodegroup.CapacityType != "CAPACITY_BLOCK" || r.Reservation == "" || sc == nil || sc.DesiredSize == nil || sc.MinSize == nil {
		return
	}
	cr := w.Seed.awsRegion(r.Region).capacityReservation(r.Reservation)
	if cr == nil || cr.EndDate == nil || now.Before(cr.EndDate.Add(-blockScaleDownLead)) || (*sc.DesiredSize == 0 && *sc.MinSize == 0) {
		return
	}
	sc.DesiredSize, sc.MinSize = ptr[int32](0), ptr[int32](0)
}

// EndCapacityBlock moves a Capacity Block's end to now, as if its time were up: EKS's scheduled
// scale-down has run on the node groups on it (their size is 0), and it is expired.
func (s *Sim) EndCapacityBlock(region, id string) error {
	return s.change(func(w *world, now time.Time) error {
		cr := w.Seed.awsRegion(region).capacityReservation(id)
		if cr == nil || crType(cr) != "capacity-block" {
			return fmt.Errorf("%w: Capacity Block %s in %s", ErrNotFound, id, region)
		}
		end := now.Add(-time.Second)
		cr.EndDate = &end
		for _, key := range sortedKeys(w.Nodegroups) {
			w.scaleDownBeforeBlockEnd(w.Nodegroups[key], now)
		}
		return nil
	})
}
