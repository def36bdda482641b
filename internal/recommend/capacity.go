package recommend

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Capacity the team holds (issue #40, item 7): reservations of a node type in a zone, which the
// recommendation uses before anything it would buy, and through which the machine types Compute
// Engine sells only reserved (A3 Ultra, A4: catalog.GKEProvisioningOf) are answered at all.
//
// A reservation is counted in nodes (instances or VMs) of one node type, as both clouds count it:
// an EC2 capacity reservation or capacity block is for a number of instances of one instance type
// in one Availability Zone (EC2 User Guide, "On-Demand Capacity Reservations", "Capacity Blocks for
// ML"); a Compute Engine reservation is for a number of VMs of one machine type in one zone
// (Compute Engine, "Reservations of Compute Engine zonal resources").
//
// The price of a reservation's nodes is already paid: an EC2 capacity reservation and a Compute
// Engine reservation bill their instances at the on-demand rate whether they run or not, and a
// capacity block is prepaid (its hourly_price_usd). So the answer's hourly_usd still counts them
// (at those prices: what the pool's nodes cost, as the pool resources estimate it), but options are
// ranked by what they cost beyond the held reservations (Option.OutOfPocketHourlyUSD): a held
// reservation that fits the workload is used first.
//
// How the reserved nodes sit in the pool, per cloud:
//   - AWS capacity reservation (ODCR): the pool's on-demand side targets it. Karpenter's reserved
//     NodePool launches on demand once the reservation is full (karpenter/render nodepool.go:
//     capacity types reserved and on-demand, "to prioritize ODCRs and fallback to on-demand
//     capacity", karpenter.sh/docs/tasks/odcrs, "Utilizing On-Demand Capacity Reservations and
//     Capacity Blocks", v1.15 docs, read 2026-11-28), but an EKS managed node group that targets it
//     does not: its launches beyond the free instances fail (cloudsim eks_capacity.go,
//     reservationLaunch, after the EC2 User Guide "Use a Capacity Reservation"). By default an
//     answer plugs into both, so an ODCR is used when it holds the whole on-demand side: the
//     ladder is reserved, then spot.
//   - AWS capacity block: prepaid instances with no fallback and no spot (pool validation), so a
//     block is used only when every node of the answer is in it.
//   - GCP: a specific reservation affinity, zonal, with no fallback within the node pool (pool
//     validation, GF-AS-005): used when the whole on-demand side is in it, with the pool in the
//     reservation's zone; the ComputeClass ladder puts the reservation rung first.
//
// The overflow rung (Request.Overflow, capacity.overflow_to_on_demand): the team's pool is an
// autoscaler object that falls back from a full reservation to on demand, a
// gpufleet_karpenter_node_pool (its reserved NodePool takes reserved and on-demand capacity) or a
// gpufleet_gke_compute_class (a reservation priority, then an on-demand one: GKE, "About custom
// ComputeClasses", priorities are tried in order). A reservation smaller than the on-demand side
// is then used too, and the ladder is reserved N, on-demand M, spot K. Such an answer applies to
// those resources only (Option.AppliesTo): the node pool resources' on-demand node group or node
// pool would launch nothing beyond the reservation. Never for a capacity block, which has no
// fallback; on GKE only for a machine type sold on demand, or as flex-start VMs when flex_start
// is accepted (the overflow rung is then flex_start).

// Flex-start (capacity.flex_start, GCP): Compute Engine sells A3 High with 1, 2 or 4 GPUs, A3 Ultra
// and A4 as flex-start VMs but not on demand (catalog.GKEProvisioningOf). A team that accepts them
// gets such a machine type with its on-demand side run as flex-start VMs: GKE's flex-start
// provisioning, powered by Dynamic Workload Scheduler, "for up to seven days", billed at Dynamic
// Workload Scheduler prices with "discounts (up to 53%)" on vCPUs and GPUs (GKE, "About flex-start
// provisioning mode", https://cloud.google.com/kubernetes-engine/docs/concepts/dws, read
// 2026-11-28). The catalog holds no flex-start price, so the answer prices those nodes at the
// on-demand list price: an upper bound. gpufleet_gke_node_pool has no flex-start setting, so such an
// answer plugs into gpufleet_gke_compute_class (a flex_start rung) only; the data source warns.

// ReservationTypes of an AWS reservation; a GCP reservation is consumed with a specific affinity.
var ReservationTypes = []string{pool.ReservationCapacityReservation, pool.ReservationCapacityBlock}

// Reservation is capacity the team holds.
type Reservation struct {
	// ID is the EC2 capacity reservation or block id (cr-…) or the Compute Engine reservation name.
	ID string
	// Type is pool.ReservationCapacityReservation (default) or pool.ReservationCapacityBlock on
	// AWS; "" on GCP (consumed with a specific affinity).
	Type string
	// Zone is the Availability Zone (us-east-1a) or Compute Engine zone (us-central1-a) it is in.
	Zone string
	// NodeType is the instance type or machine type it reserves.
	NodeType string
	// Nodes is how many instances (VMs) it holds: nodes, not GPUs.
	Nodes int
	// Project is the project of a shared Compute Engine reservation; "" for the cluster's.
	Project string
	// HourlyUSD is what a capacity block costs per instance-hour (required for blocks only).
	HourlyUSD float64
	// GPU and GPUs are the other form of a reservation, instead of NodeType and Nodes: GPUs GPUs
	// of the catalog's GPU model GPU in Zone (resolve). With an N1 NodeType, GPU and GPUsPerNode
	// name the GPUs attached to each VM.
	GPU         string
	GPUs        int
	GPUsPerNode int
	// Start and End are a capacity block's dates (RFC 3339), both or neither (checkDates): a block
	// not active at Request.Now is named in a warning, and one that has ended is not used.
	Start, End string

	start, end time.Time
	form       string // "gpus" when given as GPUs, "" as nodes
	index      int    // in capacity.reservation, for warnings
	cloud      catalog.Cloud
	region     string
	node       catalog.NodeType
}

// Rung is one rung of an answer's capacity ladder: nodes of one capacity type, in the order the
// autoscaler tries them. The capacity types are the resource's own words:
// gpufleet_karpenter_node_pool's NodePool capacity types on AWS (reserved, capacity-block,
// on-demand, spot) and gpufleet_gke_compute_class's rungs on GCP (reservation, on_demand,
// flex_start, spot).
type Rung struct {
	CapacityType string
	Nodes        int
	// ReservationID is the reservation the rung consumes ("" for others).
	ReservationID string
	HourlyUSD     float64 // the rung's nodes per hour
	// Start and End are the dates of a capacity block's rung, when the block was given them; zero
	// otherwise.
	Start, End time.Time
}

// Rung capacity types.
const (
	RungAWSReserved      = "reserved"
	RungAWSCapacityBlock = "capacity-block"
	RungAWSOnDemand      = "on-demand"
	RungAWSSpot          = "spot"
	RungGCPReservation   = "reservation"
	RungGCPOnDemand      = "on_demand"
	RungGCPFlexStart     = "flex_start"
	RungGCPSpot          = "spot"
)

var (
	gceReservationName  = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)
	awsAvailabilityZone = regexp.MustCompile(`^([a-z]{2}(-gov)?-[a-z]+-\d)[a-z]$`)
	gceZone             = regexp.MustCompile(`^([a-z]+-[a-z]+\d)-[a-z]$`)
)

// checkReservations checks the held reservations and resolves their cloud, region and node type,
// and that flex_start is asked with GCP.
// Every problem names the argument, capacity.reservation[i].<attribute>.
func checkReservations(req *Request) error {
	if req.FlexStart && !slices.Contains(req.Clouds, catalog.GCP) {
		return &catalog.ArgumentError{Argument: "capacity.flex_start", Message: fmt.Sprintf("flex-start VMs are GKE's (Dynamic Workload Scheduler), and clouds is %s: add \"gcp\" to clouds or remove flex_start", joinClouds(req.Clouds))}
	}
	if req.Overflow && !slices.ContainsFunc(req.Reservations, func(r Reservation) bool { return r.Type != pool.ReservationCapacityBlock }) {
		return &catalog.ArgumentError{Argument: "capacity.overflow_to_on_demand", Message: "overflow applies to a capacity reservation or a Compute Engine reservation the answer may outgrow: add one (capacity.reservation; a capacity block has no fallback) or remove overflow_to_on_demand"}
	}
	for i := range req.Reservations {
		r := &req.Reservations[i]
		arg := func(a string) string { return fmt.Sprintf("capacity.reservation[%d].%s", i, a) }
		r.index = i
		if err := r.resolve(arg); err != nil {
			return err
		}
		if !slices.Contains(req.Clouds, r.cloud) {
			at := "node_type"
			if r.form == "gpus" { // the zone says the cloud
				at = "zone"
			}
			return &catalog.ArgumentError{Argument: arg(at), Message: fmt.Sprintf(
				"%s is a %s node type, and clouds is %s: add %q to clouds or remove the reservation", r.NodeType, r.cloud, joinClouds(req.Clouds), r.cloud)}
		}
		if err := r.checkCloud(arg); err != nil {
			return err
		}
		for j := range i {
			if o := req.Reservations[j]; o.ID == r.ID && o.cloud == r.cloud {
				return &catalog.ArgumentError{Argument: arg("id"), Message: fmt.Sprintf("%q is also capacity.reservation[%d]: list each reservation once", r.ID, j)}
			}
		}
	}
	return nil
}

// resolve finds the reservation's node type and cloud, in either form: node_type and nodes (an N1
// machine type also names its GPU, gpu and gpus_per_node, as a Compute Engine reservation of N1
// VMs names its guestAccelerators), or gpus of a gpu model in the zone, resolved to the one shape
// the zone's cloud sells that model as of which the GPUs are a whole number of nodes.
func (r *Reservation) resolve(arg func(string) string) error {
	bad := func(a, format string, args ...any) error {
		return &catalog.ArgumentError{Argument: arg(a), Message: fmt.Sprintf(format, args...)}
	}
	switch {
	case r.Nodes < 0:
		return bad("nodes", "must be 1 or more (the instances or VMs reserved, not GPUs), got %d", r.Nodes)
	case r.GPUs < 0:
		return bad("gpus", "must be 1 or more, got %d", r.GPUs)
	case r.GPUsPerNode < 0:
		return bad("gpus_per_node", "must be 1 or more, got %d", r.GPUsPerNode)
	case r.Nodes > 0 && r.GPUs > 0:
		return bad("gpus", "a reservation is given in one form: node_type and nodes, or gpu and gpus; not both nodes and gpus")
	case r.GPUs > 0:
		r.form = "gpus"
		return r.resolveGPUs(bad)
	case r.Nodes == 0:
		return bad("nodes", "must be 1 or more (the instances or VMs reserved, not GPUs), got 0; or give the reservation as gpus of a gpu model")
	case r.NodeType == "":
		return bad("node_type", "required with nodes: the instance type or machine type reserved (or give gpu and gpus instead of nodes)")
	}
	var names []string
	var n1 []catalog.NodeType
	for _, c := range []catalog.Cloud{catalog.AWS, catalog.GCP} {
		for _, n := range catalog.NodeTypes(c) {
			if !slices.Contains(names, n.Name) {
				names = append(names, n.Name)
			}
			switch {
			case n.Name != r.NodeType:
			case isN1(n):
				n1 = append(n1, n)
			case r.cloud == "":
				r.cloud, r.node = c, n
			}
		}
	}
	if len(n1) > 0 {
		return r.resolveN1(n1, bad)
	}
	switch {
	case r.cloud == "":
		return bad("node_type", "unknown node type %q: an EC2 GPU instance type or a GKE GPU machine type of the catalog; nearest: %s", r.NodeType, strings.Join(nearestFew(r.NodeType, names), ", "))
	case r.GPU != "" || r.GPUsPerNode != 0:
		a := "gpu"
		if r.GPU == "" {
			a = "gpus_per_node"
		}
		return bad(a, "%s brings its own GPUs (%d x %s): gpu and gpus_per_node name the GPUs attached to an N1 machine type only; remove them", r.NodeType, r.node.GPUCount, r.node.GPUModel)
	}
	return nil
}

// isN1 reports whether n is an N1 machine type with attached GPUs.
func isN1(n catalog.NodeType) bool {
	return n.Cloud == catalog.GCP && strings.HasPrefix(n.Name, "n1-")
}

// resolveN1 picks the combination of an N1 machine type (combos: the catalog's, one per GPU model
// and count that attach to it, after Compute Engine's "GPU platforms" limits) that the
// reservation's gpu and gpus_per_node name.
func (r *Reservation) resolveN1(combos []catalog.NodeType, bad func(string, string, ...any) error) error {
	var models []string
	for _, n := range combos {
		if !slices.Contains(models, n.GPUModel) {
			models = append(models, n.GPUModel)
		}
	}
	if r.GPU == "" || r.GPUsPerNode == 0 {
		a := "gpu"
		if r.GPU != "" {
			a = "gpus_per_node"
		}
		return bad(a, "%s is an N1 machine type, and a Compute Engine reservation of N1 VMs names the GPUs attached to each (guestAccelerators: type and count): set gpu (%s) and gpus_per_node", r.NodeType, strings.Join(models, ", "))
	}
	var counts []string
	for _, n := range combos {
		if !strings.EqualFold(n.GPUModel, r.GPU) {
			continue
		}
		counts = append(counts, fmt.Sprint(n.GPUCount))
		if n.GPUCount == r.GPUsPerNode {
			r.cloud, r.node = catalog.GCP, n
			return nil
		}
	}
	if len(counts) == 0 {
		return bad("gpu", "%q does not attach to %s: N1 machine types take %s", r.GPU, r.NodeType, strings.Join(models, ", "))
	}
	return bad("gpus_per_node", "%s takes %s in counts %s per VM, not %d (Compute Engine limits an N1 machine's vCPUs and memory per GPU count)", r.NodeType, r.GPU, strings.Join(counts, ", "), r.GPUsPerNode)
}

// resolveGPUs resolves a reservation given as gpus of a gpu model in a zone to a node type and a
// number of nodes. A reservation is of one instance or machine type (EC2 capacity reservations,
// Compute Engine reservations), and the pool consumes it only with that type (an EKS node group's
// instance type must be the reservation's; a specific reservation affinity takes only VMs of its
// machine type), so the shape is never guessed: it is resolved when exactly one shape the zone's
// cloud sells the model as there holds the GPUs in whole nodes, and otherwise the error lists the
// candidates, to be given as node_type and nodes.
func (r *Reservation) resolveGPUs(bad func(string, string, ...any) error) error {
	switch {
	case r.GPU == "":
		return bad("gpu", "required with gpus: the GPU model reserved, as gpufleet_gpu_catalog names it (e.g. H100-80GB)")
	case r.NodeType != "":
		return bad("node_type", "a reservation is given in one form: node_type and nodes, or gpu and gpus; with gpus, leave node_type unset (or give nodes instead of gpus)")
	case r.GPUsPerNode != 0:
		return bad("gpus_per_node", "only with an N1 node_type and nodes; with gpus, the node type is resolved from the GPU model")
	}
	g, ok := catalog.GPU(r.GPU)
	if !ok {
		var names []string
		for _, g := range catalog.GPUs() {
			names = append(names, g.Name)
		}
		return bad("gpu", "unknown GPU model %q; GPU models, nearest first: %s", r.GPU, strings.Join(nearestFew(r.GPU, names), ", "))
	}
	var region string
	if m := awsAvailabilityZone.FindStringSubmatch(r.Zone); m != nil {
		r.cloud, region = catalog.AWS, m[1]
	} else if m := gceZone.FindStringSubmatch(r.Zone); m != nil {
		r.cloud, region = catalog.GCP, m[1]
	} else {
		return bad("zone", "%q is not an Availability Zone (us-east-1a) or Compute Engine zone (us-central1-a) name", r.Zone)
	}
	var sold, whole []catalog.NodeType
	for _, n := range catalog.NodeTypes(r.cloud) {
		if n.GPUModel != g.Name {
			continue
		}
		if _, ok := n.Price(region); !ok || r.cloud == catalog.GCP && catalog.GKEAcceleratorZoneProblem(n.Accelerator, []string{r.Zone}) != "" {
			continue
		}
		sold = append(sold, n)
		if r.GPUs%n.GPUCount == 0 {
			whole = append(whole, n)
		}
	}
	shape := func(n catalog.NodeType, nodes bool) string {
		s := fmt.Sprintf("%s (%d GPU", n.Name, n.GPUCount)
		if isN1(n) {
			s = fmt.Sprintf("%s with gpus_per_node %d (%d GPU", n.Name, n.GPUCount, n.GPUCount)
		}
		if n.GPUCount > 1 {
			s += "s"
		}
		if nodes {
			return fmt.Sprintf("%s each: nodes = %d)", s, r.GPUs/n.GPUCount)
		}
		return s + " each)"
	}
	list := func(ns []catalog.NodeType, nodes bool) string {
		var out []string
		for _, n := range ns {
			out = append(out, shape(n, nodes))
		}
		return strings.Join(out, ", ")
	}
	switch {
	case len(sold) == 0:
		return bad("gpu", "%s sells no node type with %s in %s (the catalog's prices and GPU zones)", r.cloud, g.Name, r.Zone)
	case len(whole) == 0:
		return bad("gpus", "%d GPUs of %s are not a whole number of nodes of any shape %s sells it as in %s: %s", r.GPUs, g.Name, r.cloud, r.Zone, list(sold, false))
	case len(whole) > 1:
		return bad("gpu", "%d GPUs of %s in %s may be a reservation of %s: a reservation is of one instance or machine type, which the pool must run to consume it, so give node_type and nodes (and for N1 gpu and gpus_per_node) instead of gpus", r.GPUs, g.Name, r.Zone, list(whole, true))
	}
	r.node, r.NodeType, r.Nodes = whole[0], whole[0].Name, r.GPUs/whole[0].GPUCount
	if isN1(r.node) {
		r.GPUsPerNode = r.node.GPUCount
	}
	return nil
}

// checkCloud checks what depends on the reservation's cloud: its id, type, zone and price.
func (r *Reservation) checkCloud(arg func(string) string) error {
	bad := func(a, format string, args ...any) error {
		return &catalog.ArgumentError{Argument: arg(a), Message: fmt.Sprintf(format, args...)}
	}
	switch r.cloud {
	case catalog.AWS:
		r.Type = cmpOr(r.Type, pool.ReservationCapacityReservation)
		m := awsAvailabilityZone.FindStringSubmatch(r.Zone)
		switch {
		case !slices.Contains(ReservationTypes, r.Type):
			return bad("type", "an EC2 reservation is %q or %q, got %q", ReservationTypes[0], ReservationTypes[1], r.Type)
		case !pool.EC2ReservationID.MatchString(r.ID):
			return bad("id", "%q is not an EC2 capacity reservation id (cr- followed by 8 to 17 hex digits)", r.ID)
		case r.Project != "":
			return bad("project", "only a Compute Engine reservation has a project; %s is an EC2 instance type", r.NodeType)
		case m == nil:
			return bad("zone", "%q is not an Availability Zone name such as us-east-1a", r.Zone)
		case r.Type == pool.ReservationCapacityBlock && (r.HourlyUSD <= 0 || math.IsNaN(r.HourlyUSD)):
			return bad("hourly_price_usd", "a capacity block is prepaid at the price it was bought at, which no EC2 API returns afterwards: set the price per instance-hour (the upfront fee ÷ instances ÷ hours)")
		case r.Type != pool.ReservationCapacityBlock && r.HourlyUSD != 0:
			return bad("hourly_price_usd", "only a capacity block takes a price; a capacity reservation bills at the on-demand price (the provider's pricing.overrides for a negotiated one)")
		case r.Type != pool.ReservationCapacityBlock && (r.Start != "" || r.End != ""):
			return bad(r.dateArgument(), "only a capacity block has dates; a capacity reservation (%s) has no fixed start or end here", r.Type)
		}
		if err := r.checkDates(bad); err != nil {
			return err
		}
		r.region = m[1]
	case catalog.GCP:
		m := gceZone.FindStringSubmatch(r.Zone)
		switch {
		case r.Type != "":
			return bad("type", "a Compute Engine reservation is consumed by name (a specific reservation affinity): leave type unset, got %q", r.Type)
		case !gceReservationName.MatchString(r.ID):
			return bad("id", "%q is not a Compute Engine reservation name (lowercase letters, digits and hyphens, at most 63, starting with a letter)", r.ID)
		case r.HourlyUSD != 0:
			return bad("hourly_price_usd", "only an EC2 capacity block takes a price; a Compute Engine reservation bills at the machine type's on-demand price (the provider's pricing.overrides for another)")
		case r.Start != "" || r.End != "":
			return bad(r.dateArgument(), "only an EC2 capacity block has dates here; a Compute Engine reservation is consumed while it exists")
		case m == nil:
			return bad("zone", "%q is not a Compute Engine zone name such as us-central1-a", r.Zone)
		}
		r.region = m[1]
		if p := catalog.GKEAcceleratorZoneProblem(r.node.Accelerator, []string{r.Zone}); p != "" {
			return bad("zone", "%s has no %s: %s", r.Zone, r.NodeType, p)
		}
	}
	if !slices.Contains(catalog.Regions(r.cloud), r.region) {
		return bad("zone", "%s is in %s, a %s region the catalog does not price", r.Zone, r.region, r.cloud)
	}
	if _, ok := r.node.Price(r.region); !ok {
		return bad("zone", "%s is not offered in %s (the catalog has no price for it there)", r.NodeType, r.region)
	}
	return nil
}

// Capacity-block dates. EC2 sells a block for a duration asked "in 1-day increments up to 14 days,
// and in 7-day increments up to 182 days", but the block bought need not last exactly that: "All
// Capacity Blocks end at 11:30AM UTC", so an offering's duration is "slightly less" or "slightly
// greater" than asked (EC2 User Guide, "Find and purchase Capacity Blocks",
// docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-purchase.html, read 2026-11-28), one
// that starts at 04:55 lasts 6 h 35 min (EC2 API, CapacityBlockOffering.capacityBlockDurationHours),
// and extensions add 1-day or 7-day increments "up to 182 days (26 weeks) total" (EC2 User Guide,
// "Extend Capacity Blocks"). So the dates are checked for what holds of every block: the end after
// the start and at 11:30 UTC, and at most 182 days between them (plus the less than a day by which
// an offering may exceed what was asked); the 1-day and 7-day steps are the durations one asks for,
// not the dates a block has, and are not checked on them.
const (
	blockEndHourUTC, blockEndMinuteUTC = 11, 30
	maxBlockDays                       = 182
)

// dateArgument is the date attribute given, for an error about dates given where none go.
func (r *Reservation) dateArgument() string {
	if r.Start != "" {
		return "start"
	}
	return "end"
}

// checkDates parses and checks a capacity block's start and end (both or neither).
func (r *Reservation) checkDates(bad func(string, string, ...any) error) error {
	if r.Start == "" && r.End == "" {
		return nil
	}
	if r.Start == "" || r.End == "" {
		missing := "start"
		if r.End == "" {
			missing = "end"
		}
		return bad(missing, "a capacity block's dates go together: set both start and end (RFC 3339, as EC2 gives them: StartDate and EndDate of DescribeCapacityReservations), or neither")
	}
	var err error
	for _, d := range []struct {
		name  string
		value string
		into  *time.Time
	}{{"start", r.Start, &r.start}, {"end", r.End, &r.end}} {
		if *d.into, err = time.Parse(time.RFC3339, d.value); err != nil {
			return bad(d.name, "%q is not an RFC 3339 date and time such as 2026-12-01T11:30:00Z", d.value)
		}
	}
	end := r.end.UTC()
	switch {
	case !r.end.After(r.start):
		return bad("end", "%s is not after start %s", r.End, r.Start)
	case end.Hour() != blockEndHourUTC || end.Minute() != blockEndMinuteUTC || end.Second() != 0:
		return bad("end", "%s is %s UTC, and every EC2 capacity block ends at 11:30 UTC (EC2 User Guide, \"Find and purchase Capacity Blocks\"): give the block's end date as EC2 gives it", r.End, end.Format("15:04:05"))
	case r.end.Sub(r.start) >= (maxBlockDays+1)*24*time.Hour:
		return bad("end", "the block would last %.1f days: a capacity block lasts at most %d days (26 weeks), its extensions included", r.end.Sub(r.start).Hours()/24, maxBlockDays)
	}
	return nil
}

// blockDates sets aside the capacity blocks that have ended at now (their instances are terminated
// and nothing launches into them) and says so; a block that has not started is still used, and
// said when an answer uses it (scheduledBlock).
func blockDates(req *Request) []Warning {
	var out []Warning
	kept := req.Reservations[:0:0]
	for _, r := range req.Reservations {
		if !r.end.IsZero() && !req.now().Before(r.end) {
			out = append(out, Warning{Argument: fmt.Sprintf("capacity.reservation[%d].end", r.index), Summary: "Capacity block ended",
				Detail: fmt.Sprintf("capacity block %s ended at %s (now %s): EC2 terminated its instances and nothing launches into it, so no answer uses it. Remove it, or give the block that replaces it.",
					r.ID, r.end.UTC().Format(time.RFC3339), req.now().UTC().Format(time.RFC3339))})
			continue
		}
		kept = append(kept, r)
	}
	req.Reservations = kept
	return out
}

// scheduledBlock says when the answer's capacity block has not started at now: until then it
// holds no instance and a pool on it launches nothing.
func scheduledBlock(req Request, o *Option) string {
	h := o.Reservation
	if h == nil || h.start.IsZero() || !req.now().Before(h.start) {
		return ""
	}
	return fmt.Sprintf("the %s answer is on capacity block %s, which starts at %s, in %s (now %s), and ends at %s: until it starts it holds no instance and the pool's nodes on it cannot launch (its ladder rung carries start and end)",
		o.Cloud, h.ID, h.start.UTC().Format(time.RFC3339), untilText(h.start.Sub(req.now())), req.now().UTC().Format(time.RFC3339), h.end.UTC().Format(time.RFC3339))
}

// untilText is a duration as "2 d 19 h 30 min", to the minute.
func untilText(d time.Duration) string {
	m := int(d.Round(time.Minute) / time.Minute)
	return fmt.Sprintf("%d d %d h %d min", m/(24*60), m/60%24, m%60)
}

// now is the request's clock: Request.Now, else the time now.
func (r Request) now() time.Time {
	if r.Now.IsZero() {
		return time.Now()
	}
	return r.Now
}

// nearestFew are the three valid values nearest to value.
func nearestFew(value string, valid []string) []string {
	n := catalog.Nearest(value, valid)
	return n[:min(3, len(n))]
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// held are the reservations of node n in region.
func (r Request) held(n catalog.NodeType, region string) []Reservation {
	var out []Reservation
	for _, h := range r.Reservations {
		if h.node.Name == n.Name && h.node.Accelerator == n.Accelerator && h.node.GPUCount == n.GPUCount && h.region == region {
			out = append(out, h)
		}
	}
	return out
}

// reserved puts an option on the reservation h when the reservation can hold it (see above), and
// moves every node onto it when it holds them all; with overflow, a reservation smaller than the
// on-demand side takes what it holds and the rest runs on demand (or flex-start, when accepted on
// a machine type not sold on demand). ok is false when it cannot.
func reserved(o Option, h Reservation, overflow, flexStart bool) (Option, bool) {
	od, _ := pool.SplitSizes(pool.Sizes{Min: o.Nodes, Max: o.Nodes, Desired: o.Nodes}, o.OnDemandBase, o.SpotPercentage)
	if h.cloud == catalog.AWS && h.Type == pool.ReservationCapacityBlock {
		if o.Nodes > h.Nodes {
			return o, false
		}
		o.SpotPercentage, o.OnDemandBase = 0, 0
		o.Reservation = &h
		return o, true
	}
	if o.Nodes <= h.Nodes { // every node fits in the reservation: none on spot beside idle reserved nodes
		o.SpotPercentage, o.OnDemandBase, od.Max = 0, 0, o.Nodes
	}
	if od.Max == 0 || h.cloud == catalog.GCP && o.Zones != 1 {
		return o, false
	}
	if od.Max > h.Nodes {
		if !overflow {
			return o, false
		}
		if h.cloud == catalog.GCP {
			switch sold := catalog.GKEProvisioningOf(o.Node.Name); {
			case sold.OnDemand:
			case flexStart && sold.FlexStart:
				o.FlexStart = true
			default:
				return o, false
			}
		}
		o.Overflow = true
	}
	o.Reservation = &h
	if h.cloud == catalog.GCP {
		o.NodeLocations = []string{h.Zone}
	}
	return o, true
}

// reservationOf is the pool's reservation block for the option's held reservation.
func reservationOf(h *Reservation) *pool.Reservation {
	if h == nil {
		return nil
	}
	if h.cloud == catalog.AWS {
		return &pool.Reservation{Type: h.Type, ID: h.ID, HourlyUSD: h.HourlyUSD}
	}
	return &pool.Reservation{Type: pool.ReservationSpecific, Name: h.ID, Project: h.Project}
}

// ladder is the option's capacity ladder, priced: reserved nodes first, then on demand (none beside
// a reservation that holds the whole on-demand side; the overflow beyond one that does not), then
// spot.
func ladder(o Option, d pool.Derived, pricing catalog.Pricing) []Rung {
	onDemand, spot, err := pricing.Hourly(d.Node, o.Region)
	if err != nil {
		return nil
	}
	var odNodes, spotNodes int
	for _, s := range d.Sides {
		switch {
		case s.Spot():
			spotNodes += s.Sizes.Desired
		case s.CapacityType == pool.CapacityCapacityBlock: // prepaid for all its nodes (pool.Cost)
			odNodes += s.Sizes.Max
		default:
			odNodes += s.Sizes.Desired
		}
	}
	round := func(x float64) float64 { return math.Round(x*10000) / 10000 }
	var out []Rung
	reservedNodes := 0
	if h := o.Reservation; h != nil {
		reservedNodes = min(odNodes, h.Nodes)
		kind, rate := RungAWSReserved, onDemand
		switch {
		case h.cloud == catalog.GCP:
			kind = RungGCPReservation
		case h.Type == pool.ReservationCapacityBlock:
			kind, rate = RungAWSCapacityBlock, h.HourlyUSD
		}
		out = append(out, Rung{CapacityType: kind, Nodes: reservedNodes, ReservationID: h.ID, HourlyUSD: round(float64(reservedNodes) * rate), Start: h.start, End: h.end})
	}
	odKind, spotKind := RungAWSOnDemand, RungAWSSpot
	switch {
	case o.FlexStart:
		odKind, spotKind = RungGCPFlexStart, RungGCPSpot
	case o.Cloud == catalog.GCP:
		odKind, spotKind = RungGCPOnDemand, RungGCPSpot
	}
	if n := odNodes - reservedNodes; n > 0 {
		out = append(out, Rung{CapacityType: odKind, Nodes: n, HourlyUSD: round(float64(n) * onDemand)})
	}
	if spotNodes > 0 {
		out = append(out, Rung{CapacityType: spotKind, Nodes: spotNodes, HourlyUSD: round(float64(spotNodes) * spot)})
	}
	return out
}

// heldTooSmall says why the team's reservations of a machine type not sold on demand do not answer
// (reserved): they hold fewer nodes than the pool runs on demand in one zone, or the request asks
// for more zones than a zonal reservation has; "" without such a reservation in the regions.
func heldTooSmall(req Request, n catalog.NodeType, regions []string, nodes, base, spot int) string {
	od, _ := pool.SplitSizes(pool.Sizes{Min: nodes, Max: nodes, Desired: nodes}, base, spot)
	var why []string
	for _, r := range regions {
		for _, h := range req.held(n, r) {
			switch {
			case req.GKEZones > 1:
				why = append(why, fmt.Sprintf("reservation %s is in one zone (%s), and gke_zones is %d", h.ID, h.Zone, req.GKEZones))
			case od.Max > h.Nodes && !req.Overflow:
				why = append(why, fmt.Sprintf("reservation %s holds %d node(s), fewer than the %d the pool runs on demand", h.ID, h.Nodes, od.Max))
			case od.Max > h.Nodes:
				why = append(why, fmt.Sprintf("reservation %s holds %d node(s), fewer than the %d the pool runs on demand, and %s is not sold on demand to overflow to (capacity.flex_start overflows to flex-start VMs)", h.ID, h.Nodes, od.Max, n.Name))
			}
		}
	}
	if len(why) == 0 {
		return ""
	}
	return " (" + strings.Join(why, "; ") + ")"
}

// checkReservationRegions rejects a reservation outside the regions the request allows for its
// cloud (regions, and the client's allowed_regions): it could never be used.
func checkReservationRegions(req Request, regions map[catalog.Cloud][]string) error {
	for i, r := range req.Reservations {
		if !slices.Contains(regions[r.cloud], r.region) {
			return &catalog.ArgumentError{Argument: fmt.Sprintf("capacity.reservation[%d].zone", i), Message: fmt.Sprintf(
				"%s is in %s, which regions %s (and the client's allowed_regions) do not allow: the reservation could not be used", r.Zone, r.region, strings.Join(req.Regions, ", "))}
		}
	}
	return nil
}
