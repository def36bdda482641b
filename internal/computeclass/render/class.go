// Package render turns a GPU pool (pool.Spec and its derived values) and a capacity ladder into a
// GKE ComputeClass (cloud.google.com/v1), the pod-side stanza that workloads need to use it, and
// the pool's policy document: one priority per rung, in the ladder's order. It also says, as
// problems at the attribute, what is wrong with a ladder (errors) and what a ComputeClass cannot
// carry (warnings), so that nothing is dropped silently. Pure functions, no I/O.
package render

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// ResourceType is the Terraform resource the class belongs to; the policy document names it.
const ResourceType = "gpufleet_gke_compute_class"

// Rungs of the capacity ladder, as the resource spells them.
const (
	RungReservation = "reservation" // a reservation: specific (named) or any matching one
	RungOnDemand    = "on_demand"   // standard VMs
	RungFlexStart   = "flex_start"  // flex-start VMs (Dynamic Workload Scheduler), for a limited run time
	RungSpot        = "spot"        // Spot VMs
)

// Rungs lists every rung, cheapest-to-obtain last as GKE's own examples order them.
var Rungs = []string{RungReservation, RungOnDemand, RungFlexStart, RungSpot}

// whenUnsatisfiable values (crd.YAML spec.whenUnsatisfiable).
const (
	DoNotScaleUp  = "DoNotScaleUp"
	ScaleUpAnyway = "ScaleUpAnyway"
)

// WhenUnsatisfiable lists the values of when_unsatisfiable.
var WhenUnsatisfiable = []string{DoNotScaleUp, ScaleUpAnyway}

// MaxRunDurationSeconds is the longest a flex-start VM runs: "up to seven days" (GKE, "About
// flex-start provisioning", https://cloud.google.com/kubernetes-engine/docs/concepts/dws, read
// 2026-11-28); it is also the default, as GoogleCloudPlatform/accelerated-platforms' ComputeClasses
// set it (platforms/gke/base/core/custom_compute_class, maxRunDurationSeconds: 604800).
const MaxRunDurationSeconds = 7 * 24 * 3600

var (
	// NamePattern: a ComputeClass's name is the value of the node label
	// cloud.google.com/compute-class, so a label value that is also a DNS label.
	NamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	zoneOf      = regexp.MustCompile(`^([a-z]+-[a-z]+[0-9]+)-[a-z]$`)
)

// reservedNames are ComputeClass names with a meaning of their own in GKE: "default" is the class of
// every workload that selects none (datreeio/CRDs-catalog cloud.google.com/computeclass_v1.json,
// ComputeClass description: "except ComputeClass with name default which will be used for
// workloads not specifying any preferences"); autopilot and autopilot-spot are GKE's built-in
// classes for Autopilot workloads in Standard clusters.
var reservedNames = map[string]string{
	"default":        "the class of every workload in the cluster that selects no class: its CPU-only pods would wait for GPU nodes",
	"autopilot":      "a ComputeClass GKE itself provides",
	"autopilot-spot": "a ComputeClass GKE itself provides",
}

// Class is what a ComputeClass adds to a pool: the ladder and the class's own settings. The
// reservation of a reservation rung is the pool's (pool.Spec.Capacity.Reservation, type specific or
// any).
type Class struct {
	Name   string
	Ladder []string
	// Zones are where the rungs other than a specific reservation's create nodes (every zone of
	// the cluster's region when empty); ReservationZones are the specific reservation's.
	Zones            []string
	ReservationZones []string
	FlexStart        FlexStartSettings
	// WhenUnsatisfiable is "" for DoNotScaleUp.
	WhenUnsatisfiable string
	// OptimizeRulePriority (active migration to better rungs) and ConsolidationDelayMinutes are
	// the user's, or nil / 0 for what suits the workload (Defaults).
	OptimizeRulePriority      *bool
	ConsolidationDelayMinutes int
	NodePoolAutoCreation      bool
	Description               string
}

// FlexStartSettings are the flex_start rung's; zero values mean the defaults.
type FlexStartSettings struct {
	MaxRunDurationSeconds        int
	NodeRecyclingLeadTimeSeconds int
}

// Has reports whether the ladder has the rung.
func (c Class) Has(rung string) bool { return slices.Contains(c.Ladder, rung) }

// Validate checks the class against the pool's machine type and reservation; every problem names
// the attribute to change. The pool's own problems are pool.Spec.Validate's.
func Validate(s pool.Spec, c Class) []pool.Problem {
	v := &validator{spec: s, class: c}
	v.name()
	v.ladder()
	v.reservation()
	v.provisioning()
	v.flexStart()
	v.zones()
	v.driver()
	return v.problems
}

type validator struct {
	spec     pool.Spec
	class    Class
	problems []pool.Problem
}

func (v *validator) add(p pool.Path, summary, format string, args ...any) {
	v.problems = append(v.problems, pool.Problem{Path: p, Summary: summary, Detail: fmt.Sprintf(format, args...)})
}

func (v *validator) known(steps ...any) bool { return v.spec.Known(pool.P(steps...)) }

func (v *validator) name() {
	n := v.class.Name
	if !v.known("name") {
		return
	}
	if !NamePattern.MatchString(n) {
		v.add(pool.P("name"), "Invalid ComputeClass name", "%q must be 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit: it is the value of the node label cloud.google.com/compute-class.", n)
	} else if why, ok := reservedNames[n]; ok {
		v.add(pool.P("name"), "Reserved ComputeClass name", "%q is %s; choose another name.", n, why)
	}
}

func (v *validator) ladder() {
	if !v.known("capacity", "ladder") {
		return
	}
	at := pool.P("capacity", "ladder")
	if len(v.class.Ladder) == 0 {
		v.add(at, "Empty capacity ladder", "list the rungs GKE tries, in order: %s.", strings.Join(Rungs, ", "))
		return
	}
	seen := map[string]bool{}
	for i, r := range v.class.Ladder {
		switch {
		case !slices.Contains(Rungs, r):
			v.add(pool.P("capacity", "ladder", i), "Unknown rung", "%q is not one of %s.", r, strings.Join(Rungs, ", "))
		case seen[r]:
			v.add(pool.P("capacity", "ladder", i), "Rung listed twice", "%q is already rung %d; a ComputeClass tries each configuration once.", r, slices.Index(v.class.Ladder, r)+1)
		}
		seen[r] = true
	}
}

func (v *validator) reservation() {
	if !v.known("capacity", "reservation") || !v.known("capacity", "ladder") {
		return
	}
	r := v.spec.Capacity.Reservation
	hasRung := v.class.Has(RungReservation)
	switch {
	case r == nil && hasRung:
		v.add(pool.P("capacity", "reservation"), "Missing reservation", "the ladder has a %q rung: add a capacity.reservation block (type \"specific\" with its name, or \"any\").", RungReservation)
		return
	case r == nil:
		return
	case !hasRung:
		v.add(pool.P("capacity", "ladder"), "Reservation without a rung", "capacity.reservation is set but the ladder has no %q rung: add it where GKE should try the reservation (usually first).", RungReservation)
	}
	switch r.Type {
	case pool.ReservationSpecific:
		if r.Name == "" {
			v.add(pool.P("capacity", "reservation", "name"), "Missing reservation name", "a \"specific\" reservation names the reservation to consume.")
		}
	case pool.ReservationAny:
		if r.Name != "" || r.Project != "" || len(v.class.ReservationZones) > 0 {
			v.add(pool.P("capacity", "reservation", "name"), "Reservation name not allowed", "an \"any\" reservation consumes any matching reservation (AnyBestEffort); only \"specific\" takes a name, project and zones.")
		}
	default:
		v.add(pool.P("capacity", "reservation", "type"), "Invalid reservation type", "%q: a reservation rung consumes a \"specific\" reservation or \"any\" matching one; to consume none, leave the rung out.", r.Type)
	}
}

// provisioning checks each rung against how Compute Engine sells the machine type
// (catalog.GKEProvisioningOf): a rung of a model the type is not sold as never gets a node.
func (v *validator) provisioning() {
	if !v.known("machine_type") || !v.known("capacity", "ladder") {
		return
	}
	sold := catalog.GKEProvisioningOf(v.spec.MachineType)
	for i, r := range v.class.Ladder {
		ok := true
		switch r {
		case RungReservation:
			ok = sold.Reserved
		case RungOnDemand:
			ok = sold.OnDemand
		case RungFlexStart:
			ok = sold.FlexStart
		case RungSpot:
			ok = sold.Spot
		}
		if !ok {
			v.add(pool.P("capacity", "ladder", i), "Rung the machine type is not sold as", "Compute Engine sells %s only as %s, so the %q rung would never get a node; remove it.", v.spec.MachineType, sold.Models, r)
		}
	}
}

func (v *validator) flexStart() {
	f := v.class.FlexStart
	set := f.MaxRunDurationSeconds != 0 || f.NodeRecyclingLeadTimeSeconds != 0
	if !v.known("capacity", "flex_start") || !v.known("capacity", "ladder") {
		return
	}
	if set && !v.class.Has(RungFlexStart) {
		v.add(pool.P("capacity", "flex_start"), "Flex-start settings without a rung", "capacity.flex_start is set but the ladder has no %q rung.", RungFlexStart)
	}
	if d := f.MaxRunDurationSeconds; d < 0 || d > MaxRunDurationSeconds {
		v.add(pool.P("capacity", "flex_start", "max_run_duration_seconds"), "Invalid maximum run duration", "%d seconds: flex-start VMs run for 1 second to 7 days (%d seconds).", d, MaxRunDurationSeconds)
	}
	lead, run := f.NodeRecyclingLeadTimeSeconds, f.maxRun()
	if lead < 0 || lead != 0 && lead >= run {
		v.add(pool.P("capacity", "flex_start", "node_recycling_lead_time_seconds"), "Invalid node recycling lead time", "%d seconds: GKE starts looking for a replacement this long before a node's maximum run duration (%d seconds) ends, so it must be shorter than it.", lead, run)
	}
}

func (f FlexStartSettings) maxRun() int {
	if f.MaxRunDurationSeconds == 0 {
		return MaxRunDurationSeconds
	}
	return f.MaxRunDurationSeconds
}

func (v *validator) zones() {
	if !v.known("region") || v.spec.Region == "" {
		return
	}
	check := func(at pool.Path, zones []string) {
		if !v.spec.Known(at) {
			return
		}
		for _, z := range zones {
			if m := zoneOf.FindStringSubmatch(z); m == nil || m[1] != v.spec.Region {
				v.add(at, "Zone outside the cluster's region", "%q is not a zone of %s.", z, v.spec.Region)
			}
		}
	}
	check(pool.P("zones"), v.class.Zones)
	check(pool.P("capacity", "reservation", "zones"), v.class.ReservationZones)
}

// driver: a ComputeClass installs GKE's driver, default or latest (crd.YAML gpu.driverVersion).
func (v *validator) driver() {
	if d := v.spec.GPU.DriverVersion; v.known("gpu", "driver_version") && d != "" && driverVersion(d) == "" {
		v.add(pool.P("gpu", "driver_version"), "Driver version a ComputeClass cannot carry", "%q: a ComputeClass's nodes get GKE's driver, DEFAULT or LATEST (gpu.driverVersion default or latest); it cannot leave the driver to the GPU Operator.", d)
	}
}

// driverVersion maps the pool's driver version (the GKE node pool's spelling) to the class's; ""
// when the class cannot carry it.
func driverVersion(d string) string {
	switch d {
	case "", "DEFAULT":
		return "default"
	case "LATEST":
		return "latest"
	}
	return ""
}

// RecommendedLadder is the ladder gpufleet recommends for a pool (gpufleet_recommendation's
// gke_capacity_ladder): the cheapest rung first where the workload allows it, and only rungs the
// machine type is sold as. Interruptible work starts on Spot VMs, then flex-start VMs (discounted,
// for a limited run time), then on-demand VMs. Work that does not checkpoint, and production
// inference, whose floor must not sit on Spot (GF-COST-001), run on demand first, then flex-start,
// and take no spot rung (GF-COST-003). A pool that consumes a specific reservation (one the team
// holds: gpufleet_recommendation's capacity.reservation, issue #40 item 7) tries it first, since
// its nodes are paid for whether they run or not.
func RecommendedLadder(s pool.Spec) []string {
	ladder := []string{RungOnDemand, RungFlexStart}
	productionInference := s.Workload.Kind == pool.KindInference && s.Workload.Environment == pool.EnvProduction
	if s.Workload.Interruptible && !productionInference {
		ladder = []string{RungSpot, RungFlexStart, RungOnDemand}
	}
	if r := s.Capacity.Reservation; r != nil && r.Type == pool.ReservationSpecific {
		ladder = append([]string{RungReservation}, ladder...)
	}
	sold := catalog.GKEProvisioningOf(s.MachineType)
	return slices.DeleteFunc(ladder, func(r string) bool {
		return r == RungOnDemand && !sold.OnDemand || r == RungFlexStart && !sold.FlexStart || r == RungSpot && !sold.Spot
	})
}
