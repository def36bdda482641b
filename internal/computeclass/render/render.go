package render

import (
	"maps"
	"slices"
	"strconv"

	"sigs.k8s.io/yaml"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// LabelCapacityType values of each rung's nodes (the label pool.LabelCapacityType).
var capacityTypes = map[string]string{
	RungReservation: "reservation",
	RungOnDemand:    "on-demand",
	RungFlexStart:   "flex-start",
	RungSpot:        "spot",
}

// Rendered is a class rendered from a pool.
type Rendered struct {
	Object ComputeClass
	// YAML is Object as a manifest.
	YAML string
	// Pod is what a workload's pod template needs to run on the class's nodes.
	Pod Pod
}

// Settings are the class settings that suit a workload when the user sets none.
type Settings struct {
	OptimizeRulePriority      bool
	ConsolidationDelayMinutes int
}

// Defaults are the settings gpufleet chooses for a workload:
//   - active migration (activeMigration.optimizeRulePriority) moves workloads back to a better
//     rung when it has capacity again, by evicting them: on for inference, development and
//     interruptible work, off for training and batch work that does not checkpoint, which an
//     eviction would set back to its start;
//   - the consolidation delay (autoscalingPolicy.consolidationDelayMinutes, GKE's default 10) is
//     how long a node stays unneeded before it is removed: 30 minutes for training, whose GPUs
//     are the hardest to get back and whose jobs often follow one another; 15 for inference, so
//     that a dip in traffic does not give back nodes the next peak needs; 10 for batch (GKE's
//     default); 5 for development, whose idle GPUs are the largest waste.
func Defaults(w pool.Workload) Settings {
	s := Settings{OptimizeRulePriority: true}
	if !w.Interruptible && (w.Kind == pool.KindTraining || w.Kind == pool.KindBatch) {
		s.OptimizeRulePriority = false
	}
	s.ConsolidationDelayMinutes = map[string]int{pool.KindTraining: 30, pool.KindInference: 15, pool.KindBatch: 10, pool.KindDevelopment: 5}[w.Kind]
	if s.ConsolidationDelayMinutes == 0 {
		s.ConsolidationDelayMinutes = 10
	}
	return s
}

// Effective is the class's settings: the user's where set, else Defaults.
func (c Class) Effective(w pool.Workload) Settings {
	s := Defaults(w)
	if c.OptimizeRulePriority != nil {
		s.OptimizeRulePriority = *c.OptimizeRulePriority
	}
	if c.ConsolidationDelayMinutes != 0 {
		s.ConsolidationDelayMinutes = c.ConsolidationDelayMinutes
	}
	return s
}

// Render builds the ComputeClass of a valid pool and class (Validate returned no problems) with
// its derived values d; labels and annotations go to the object's metadata (the owner label).
func Render(s pool.Spec, d pool.Derived, c Class, labels, annotations map[string]string) (Rendered, error) {
	settings := c.Effective(s.Workload)
	obj := newComputeClass(c.Name)
	obj.Metadata.Labels = nonEmpty(labels)
	obj.Metadata.Annotations = nonEmpty(annotations)
	when := c.WhenUnsatisfiable
	if when == "" {
		when = DoNotScaleUp
	}
	obj.Spec = Spec{
		Description:          c.Description,
		ActiveMigration:      &ActiveMigration{OptimizeRulePriority: settings.OptimizeRulePriority},
		AutoscalingPolicy:    &AutoscalingPolicy{ConsolidationDelayMinutes: settings.ConsolidationDelayMinutes},
		NodePoolAutoCreation: &Enabled{Enabled: c.NodePoolAutoCreation},
		NodePoolConfig:       &NodePoolConfig{NodeLabels: nonEmpty(d.Labels), Taints: taints(d.Taints)},
		WhenUnsatisfiable:    when,
	}
	gpu := GPU{Type: d.Node.Accelerator, Count: d.Node.GPUCount, DriverVersion: driverVersion(s.GPU.DriverVersion)}
	for _, rung := range c.Ladder {
		obj.Spec.Priorities = append(obj.Spec.Priorities, priority(rung, s, c, gpu))
	}
	out, err := yaml.Marshal(obj)
	if err != nil {
		return Rendered{}, err
	}
	return Rendered{Object: obj, YAML: string(out), Pod: podStanza(s, d, c)}, nil
}

func priority(rung string, s pool.Spec, c Class, gpu GPU) Priority {
	g := gpu
	p := Priority{MachineType: s.MachineType, GPU: &g, NodeLabels: map[string]string{pool.LabelCapacityType: capacityTypes[rung]}}
	if len(c.Zones) > 0 {
		p.Location = &Location{Zones: slices.Clone(c.Zones)}
	}
	switch rung {
	case RungReservation:
		p.Spot = ptr(false)
		r := s.Capacity.Reservation
		if r.Type == pool.ReservationSpecific {
			p.Reservations = &Reservations{Affinity: "Specific", Specific: []SpecificReservation{{Name: r.Name, Project: r.Project, Zones: slices.Clone(c.ReservationZones)}}}
			p.Location = nil // the reservation's zones are its own (crd.YAML, rule on Specific priorities)
		} else {
			p.Reservations = &Reservations{Affinity: "AnyBestEffort"}
		}
	case RungOnDemand:
		p.Spot = ptr(false)
	case RungFlexStart:
		p.FlexStart = &FlexStart{Enabled: true}
		if lead := c.FlexStart.NodeRecyclingLeadTimeSeconds; lead != 0 {
			p.FlexStart.NodeRecycling = &NodeRecycling{LeadTimeSeconds: lead}
		}
		p.MaxRunDurationSeconds = c.FlexStart.maxRun()
	case RungSpot:
		p.Spot = ptr(true)
	}
	return p
}

// effects maps the pool's taint effects to Kubernetes'.
var effects = map[string]string{
	pool.EffectNoSchedule:       "NoSchedule",
	pool.EffectNoExecute:        "NoExecute",
	pool.EffectPreferNoSchedule: "PreferNoSchedule",
}

func taints(in []pool.Taint) []Taint {
	out := make([]Taint, len(in))
	for i, t := range in {
		out[i] = Taint{Key: t.Key, Value: t.Value, Effect: effects[t.Effect]}
	}
	return out
}

func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

func ptr[T any](v T) *T { return &v }

// itoa formats a count for a label value.
func itoa(n int) string { return strconv.Itoa(n) }
