package eks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/hashicorp/terraform-plugin-framework/attr"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Checks that need facts only the cloud holds: the cluster's Kubernetes version, a reservation's
// zone, instance type, size and state, the subnets' zones. They read, never write: at plan, when the
// provider's credentials allow and the values are known (a plan must not fail because it cannot
// read, so a failed read there only defers the check), and always at apply, before anything is
// created, where a failed read is an error. What the configuration alone gets wrong fails at plan
// with no call at all (pool.Spec.Validate, the resource's validators), before these run.

// cloudFacts are what the checks read.
type cloudFacts struct {
	clusterVersion string                        // "" when not read
	reservation    *ec2types.CapacityReservation // nil when not read
	reservationErr error                         // the reservation does not exist
	subnetZones    map[string]string             // subnet id → availability zone
}

// readFacts reads what the checks need: the cluster's version (withCluster) and, for a pool on a
// reservation, the reservation and the subnets' zones.
func readFacts(ctx context.Context, c *clients, cluster string, s pool.Spec, subnets []string, withCluster bool) (cloudFacts, error) {
	var f cloudFacts
	if withCluster {
		out, err := c.eks.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(cluster)})
		if err != nil {
			return f, fmt.Errorf("reading EKS cluster %s (eks:DescribeCluster): %w", cluster, err)
		}
		if out.Cluster != nil {
			f.clusterVersion = aws.ToString(out.Cluster.Version)
		}
	}
	r := s.Capacity.Reservation
	if r == nil {
		return f, nil
	}
	out, err := c.ec2.DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{r.ID}})
	switch {
	case isReservationNotFound(err):
		f.reservationErr = err
	case err != nil:
		return f, fmt.Errorf("reading capacity reservation %s (ec2:DescribeCapacityReservations): %w", r.ID, err)
	case len(out.CapacityReservations) == 0:
		f.reservationErr = fmt.Errorf("no capacity reservation %s", r.ID)
	default:
		f.reservation = &out.CapacityReservations[0]
	}
	if len(subnets) > 0 {
		sn, err := c.ec2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: subnets})
		if err != nil {
			return f, fmt.Errorf("reading subnets %s (ec2:DescribeSubnets): %w", strings.Join(subnets, ", "), err)
		}
		f.subnetZones = map[string]string{}
		for _, s := range sn.Subnets {
			f.subnetZones[aws.ToString(s.SubnetId)] = aws.ToString(s.AvailabilityZone)
		}
	}
	return f, nil
}

func isReservationNotFound(err error) bool {
	code := apiErrorCode(err)
	return code == "InvalidCapacityReservationId.NotFound" || code == "InvalidCapacityReservationId.Malformed"
}

// checkProblem is one problem a check found, at the attribute to change; warn is a warning only.
type checkProblem struct {
	pool.Problem
	warn bool
}

// createProblems are the problems of creating node groups in this cluster: pinned and release, the
// pool's kubernetes_version and release_version when the configuration sets them.
func (f cloudFacts) createProblems(pinned, release, amiType string) []checkProblem {
	var out []checkProblem
	if f.clusterVersion == "" {
		return nil
	}
	if pinned != "" && pinned != f.clusterVersion {
		// EKS API Reference, CreateNodegroup: "You can only create a node group for your cluster that
		// is equal to the current Kubernetes version for the cluster".
		out = append(out, checkProblem{Problem: pool.Problem{Path: pool.P("kubernetes_version"), Summary: "Kubernetes version EKS does not create node groups at",
			Detail: fmt.Sprintf("kubernetes_version is %s, and EKS creates node groups only at the cluster's version, %s. Set kubernetes_version to %s (existing node groups of the pool are upgraded to it in place), or leave it unset so that the pool follows the cluster.", pinned, f.clusterVersion, f.clusterVersion)}})
	}
	version := pinned
	if version == "" {
		version = f.clusterVersion
	}
	if p := amiProblem(amiType, version); p != nil {
		out = append(out, checkProblem{Problem: *p})
	}
	if p := releaseProblem(amiType, release, version); p != nil {
		out = append(out, checkProblem{Problem: *p})
	}
	return out
}

// amiProblem refuses an AMI type AWS publishes no AMI of for a Kubernetes version: Amazon Linux 2
// after 1.32 ("Kubernetes version 1.32 is the last version for which Amazon EKS will release Amazon
// Linux 2 (AL2) AMIs", EKS User Guide, Kubernetes versions; awsdocs/amazon-eks-user-guide#868).
func amiProblem(amiType, version string) *pool.Problem {
	m, ok := k8sMinor(version)
	if !strings.HasPrefix(amiType, "AL2_") || !ok || m <= al2LastMinor {
		return nil
	}
	return &pool.Problem{Path: pool.P("ami_type"), Summary: "No Amazon Linux 2 AMI for this Kubernetes version",
		Detail: fmt.Sprintf("%s: EKS publishes Amazon Linux 2 AMIs up to Kubernetes 1.%d (and they reached end of support on 2025-11-26), and this pool's node groups run %s. Use AL2023_x86_64_NVIDIA or BOTTLEROCKET_x86_64_NVIDIA.", amiType, al2LastMinor, version)}
}

// al2LastMinor is the last Kubernetes minor version with Amazon Linux 2 EKS AMIs.
const al2LastMinor = 32

// k8sMinor is the minor of a Kubernetes version "1.NN".
func k8sMinor(v string) (int, bool) {
	rest, ok := strings.CutPrefix(v, "1.")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

// reservationProblems checks the pool's sides against its reservation (EC2 User Guide, "Use a
// Capacity Reservation": an instance launches into a reservation only with matching attributes —
// instance type, platform, Availability Zone — while it has capacity and is active; EKS User Guide,
// capacity-blocks-mng: "make sure to only specify the subnet in the same Availability Zone as the
// capacity reservation").
func (f cloudFacts) reservationProblems(s pool.Spec, subnets []string) []checkProblem {
	r := s.Capacity.Reservation
	if r == nil {
		return nil
	}
	at := func(warn bool, summary string, path pool.Path, format string, args ...any) checkProblem {
		return checkProblem{Problem: pool.Problem{Path: path, Summary: summary, Detail: fmt.Sprintf(format, args...)}, warn: warn}
	}
	if f.reservationErr != nil {
		return []checkProblem{at(false, "No such capacity reservation", pool.P("capacity", "reservation", "id"),
			"capacity reservation %s does not exist in this region and account: %v", r.ID, f.reservationErr)}
	}
	cr := f.reservation
	if cr == nil {
		return nil
	}
	var out []checkProblem
	zone := aws.ToString(cr.AvailabilityZone)
	isBlock := cr.ReservationType == ec2types.CapacityReservationTypeCapacityBlock
	if isBlock != (r.Type == pool.ReservationCapacityBlock) {
		actual := pool.ReservationCapacityReservation
		if isBlock {
			actual = pool.ReservationCapacityBlock
		}
		out = append(out, at(false, "Reservation of another type", pool.P("capacity", "reservation", "type"),
			"%s is a %s, not a %s: set type = %q. A capacity block takes capacity type CAPACITY_BLOCK and its own launch template settings; an on-demand capacity reservation neither.", r.ID, actual, r.Type, actual))
	}
	active := cr.State == ec2types.CapacityReservationStateActive
	switch state := cr.State; {
	case active:
	case isBlock && (state == ec2types.CapacityReservationStateScheduled || state == ec2types.CapacityReservationStatePaymentPending):
		out = append(out, at(true, "Capacity block not started", pool.P("capacity", "reservation", "id"),
			"capacity block %s starts at %s: until then its node group launches no instance (EKS User Guide, capacity-blocks-mng).", r.ID, startOf(cr)))
	case !isBlock && (state == ec2types.CapacityReservationStateScheduled || state == ec2types.CapacityReservationStateAssessing || state == ec2types.CapacityReservationStateDelayed):
		// A future-dated On-Demand Capacity Reservation is assessed, then scheduled (or delayed,
		// when EC2 cannot deliver it on time) until its start (EC2 User Guide, "Future-dated
		// Capacity Reservations"; ec2 types.CapacityReservationState). Accepted with a warning, as a
		// capacity block before its start (audit eks-vs-real.md D10): the node group exists and
		// launches once the capacity is there.
		detail := "capacity reservation %s is a future-dated reservation, %s, starting %s: until it is active its node group launches no instance."
		if state == ec2types.CapacityReservationStateDelayed {
			detail += " EC2 has delayed its delivery: the start date may move."
		}
		out = append(out, at(true, "Capacity reservation not started", pool.P("capacity", "reservation", "id"), detail, r.ID, state, startOf(cr)))
	default:
		out = append(out, at(false, "Reservation not usable", pool.P("capacity", "reservation", "id"),
			"capacity reservation %s is %s: no instance launches into it.", r.ID, state))
	}
	if t := cr.Tenancy; t != "" && t != ec2types.CapacityReservationTenancyDefault {
		// An instance launches into a reservation only with matching attributes, tenancy included
		// (EC2 User Guide, "Use a Capacity Reservation"), and the node group's launch template sets
		// none: its instances are default-tenancy (audit eks-vs-real.md D15).
		out = append(out, at(false, "Reservation of another tenancy", pool.P("capacity", "reservation", "id"),
			"capacity reservation %s is for %s tenancy instances, and EKS node groups launch default tenancy: no node would launch into it. Use a default-tenancy reservation.", r.ID, t))
	}
	if len(s.InstanceTypes) > 0 && aws.ToString(cr.InstanceType) != s.InstanceTypes[0] {
		out = append(out, at(false, "Instance type of another reservation", pool.P("instance_types"),
			"capacity reservation %s is for %s, not %s: list its instance type.", r.ID, aws.ToString(cr.InstanceType), s.InstanceTypes[0]))
	}
	if !strings.HasPrefix(string(cr.InstancePlatform), "Linux/UNIX") {
		out = append(out, at(false, "Reservation for another platform", pool.P("capacity", "reservation", "id"),
			"capacity reservation %s is for %s instances; EKS's NVIDIA AMIs launch Linux/UNIX instances.", r.ID, cr.InstancePlatform))
	}
	for _, id := range subnets {
		if z, ok := f.subnetZones[id]; ok && z != zone {
			out = append(out, at(false, "Subnet outside the reservation's zone", pool.P("subnet_ids"),
				"%s is in %s, and capacity reservation %s is in %s: instances launch into a reservation only in its Availability Zone, so list only subnets of %s.", id, z, r.ID, zone, zone))
		}
	}
	for _, side := range s.Sides() {
		if side.Spot() {
			continue
		}
		total, available := int(aws.ToInt32(cr.TotalInstanceCount)), int(aws.ToInt32(cr.AvailableInstanceCount))
		switch {
		case side.Sizes.Max > total:
			out = append(out, at(false, "More nodes than the reservation holds", pool.P("scaling", "max_size"),
				"capacity reservation %s holds %d instances, and the pool's %s node group may grow to %d, which could never launch: lower max_size (or the on-demand share) to %d.", r.ID, total, side.Name, side.Sizes.Max, total))
		case !active || isBlock:
			// Not started: nothing is available yet, and nothing launches before it is. A capacity
			// block is the pool's alone and starts at 0 (validate.go).
		case side.Sizes.Desired > available:
			// A launch takes only the reservation's free instances (EC2 User Guide, "Use a Capacity
			// Reservation"): other instances hold the rest, and the node group would come up
			// DEGRADED with launch failures (audit eks-vs-real.md D15).
			out = append(out, at(false, "More nodes than the reservation has free", pool.P("scaling", "desired_size"),
				"capacity reservation %s has %d of its %d instances free (others run in it), and the pool's %s node group starts %d nodes: the rest would fail to launch. Start at %d or fewer, or free the reservation.", r.ID, available, total, side.Name, side.Sizes.Desired, available))
		case side.Sizes.Max > available:
			out = append(out, at(true, "Reservation partly in use", pool.P("scaling", "max_size"),
				"capacity reservation %s has %d of its %d instances free (others run in it): the pool's %s node group grows past %d nodes only as they are released; until then those launches fail.", r.ID, available, total, side.Name, available))
		}
	}
	return out
}

// startOf is a reservation's start date, as the checks print it.
func startOf(cr *ec2types.CapacityReservation) string {
	if cr.StartDate == nil {
		return "(no start date given)"
	}
	return aws.ToTime(cr.StartDate).UTC().Format("2006-01-02 15:04 MST")
}

// joinProblems turns check problems into one error, for an apply; warnings are left out.
func joinProblems(problems []checkProblem) error {
	var errs []error
	for _, p := range problems {
		if !p.warn {
			errs = append(errs, fmt.Errorf("%s: %s", p.Path, p.Detail))
		}
	}
	return errors.Join(errs...)
}

// subnetsOf is the model's subnets, nil while any is unknown.
func subnetsOf(m *nodePoolModel) []string {
	if m.SubnetIDs.IsUnknown() || slices.ContainsFunc(m.SubnetIDs.Elements(), func(v attr.Value) bool { return v.IsUnknown() }) {
		return nil
	}
	return setStrings(m.SubnetIDs)
}
