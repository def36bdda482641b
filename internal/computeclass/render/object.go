package render

import "github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/crd"

// ComputeClass is the part of a cloud.google.com/v1 ComputeClass that gpufleet writes (the whole
// schema is crd.YAML). Fields GKE defaults (gpu.driverVersion, whenUnsatisfiable) are always
// written, so that what is read back equals what was applied.
type ComputeClass struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	Spec       Spec     `json:"spec"`
}

// Metadata is the object's name and the labels and annotations gpufleet sets.
type Metadata struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Spec is spec.
type Spec struct {
	Description          string             `json:"description,omitempty"`
	ActiveMigration      *ActiveMigration   `json:"activeMigration,omitempty"`
	AutoscalingPolicy    *AutoscalingPolicy `json:"autoscalingPolicy,omitempty"`
	NodePoolAutoCreation *Enabled           `json:"nodePoolAutoCreation,omitempty"`
	NodePoolConfig       *NodePoolConfig    `json:"nodePoolConfig,omitempty"`
	Priorities           []Priority         `json:"priorities"`
	WhenUnsatisfiable    string             `json:"whenUnsatisfiable"`
}

// ActiveMigration is spec.activeMigration.
type ActiveMigration struct {
	OptimizeRulePriority bool `json:"optimizeRulePriority"`
}

// AutoscalingPolicy is spec.autoscalingPolicy.
type AutoscalingPolicy struct {
	ConsolidationDelayMinutes int `json:"consolidationDelayMinutes,omitempty"`
}

// Enabled is an object whose only field is enabled (nodePoolAutoCreation, flexStart).
type Enabled struct {
	Enabled bool `json:"enabled"`
}

// NodePoolConfig is spec.nodePoolConfig: what every node of the class gets.
type NodePoolConfig struct {
	NodeLabels map[string]string `json:"nodeLabels,omitempty"`
	Taints     []Taint           `json:"taints,omitempty"`
}

// Taint is a node taint in the ComputeClass's spelling (effect NoSchedule, …).
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// Priority is one rung of the ladder: spec.priorities[i].
type Priority struct {
	MachineType           string            `json:"machineType,omitempty"`
	GPU                   *GPU              `json:"gpu,omitempty"`
	Spot                  *bool             `json:"spot,omitempty"`
	FlexStart             *FlexStart        `json:"flexStart,omitempty"`
	MaxRunDurationSeconds int               `json:"maxRunDurationSeconds,omitempty"`
	Reservations          *Reservations     `json:"reservations,omitempty"`
	Location              *Location         `json:"location,omitempty"`
	NodeLabels            map[string]string `json:"nodeLabels,omitempty"`
}

// GPU is priorities[].gpu.
type GPU struct {
	Type          string `json:"type"`
	Count         int    `json:"count"`
	DriverVersion string `json:"driverVersion"`
}

// FlexStart is priorities[].flexStart.
type FlexStart struct {
	Enabled       bool           `json:"enabled"`
	NodeRecycling *NodeRecycling `json:"nodeRecycling,omitempty"`
}

// NodeRecycling is priorities[].flexStart.nodeRecycling.
type NodeRecycling struct {
	LeadTimeSeconds int `json:"leadTimeSeconds"`
}

// Reservations is priorities[].reservations.
type Reservations struct {
	Affinity string                `json:"affinity"`
	Specific []SpecificReservation `json:"specific,omitempty"`
}

// SpecificReservation is one of priorities[].reservations.specific.
type SpecificReservation struct {
	Name    string   `json:"name"`
	Project string   `json:"project,omitempty"`
	Zones   []string `json:"zones,omitempty"`
}

// Location is priorities[].location.
type Location struct {
	Zones []string `json:"zones,omitempty"`
}

// newComputeClass starts an object of the kind.
func newComputeClass(name string) ComputeClass {
	return ComputeClass{APIVersion: crd.Group + "/" + crd.Version, Kind: crd.Kind, Metadata: Metadata{Name: name}}
}
