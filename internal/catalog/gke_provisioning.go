package catalog

import "strings"

// How Compute Engine sells the GKE machine types that are not sold on demand. Every other machine
// type of the catalog runs on demand, as Spot VMs and on reservations.
//
// Sources, read 2026-11-25: Compute Engine "Accelerator-optimized machine family"
// (https://cloud.google.com/compute/docs/accelerator-optimized-machines): the A3 High machine types
// with 1, 2 or 4 GPUs are available only as Spot VMs or with flex-start; AI Hypercomputer
// "Consumption options" (https://cloud.google.com/ai-hypercomputer/docs/consumption-models): A3
// Ultra and A4 capacity comes from reservations, flex-start or Spot. The exact wording could not be
// re-read offline (audit A.9); gpufleet takes the safe side and refuses on-demand capacity of them
// without a reservation, rather than planning capacity that cannot be bought.

// GKEProvisioning says which provisioning models run a machine type.
type GKEProvisioning struct {
	OnDemand  bool // standard VMs without a reservation
	Spot      bool
	FlexStart bool
	Reserved  bool // standard VMs consuming a reservation
	// Models names the models in words, for messages ("Spot or flex-start").
	Models string
}

var gkeProvisioningExceptions = map[string]GKEProvisioning{
	"a3-highgpu-1g":  {Spot: true, FlexStart: true, Models: "Spot or flex-start"},
	"a3-highgpu-2g":  {Spot: true, FlexStart: true, Models: "Spot or flex-start"},
	"a3-highgpu-4g":  {Spot: true, FlexStart: true, Models: "Spot or flex-start"},
	"a3-ultragpu-8g": {Spot: true, FlexStart: true, Reserved: true, Models: "Spot, flex-start or a reservation"},
	"a4-highgpu-8g":  {Spot: true, FlexStart: true, Reserved: true, Models: "Spot, flex-start or a reservation"},
}

// GKEProvisioningOf returns how Compute Engine sells a GKE machine type. Accelerator-optimized
// types (A2, A3, A4, G2) also run as flex-start VMs: GoogleCloudPlatform/accelerated-platforms'
// ComputeClasses give each of them a flex-start priority (platforms/gke/base/core/
// custom_compute_class, gpu/l4-24gb with g2-standard-24, gpu/a100-40gb with a2-highgpu-2g,
// gpu/h100-80gb with a3-highgpu-8g, read 2026-11-28). N1 types with attached GPUs are taken not
// to: no source read offline shows flex-start on N1 (the safe side refuses a flex-start rung that
// might never get a node).
func GKEProvisioningOf(machineType string) GKEProvisioning {
	if p, ok := gkeProvisioningExceptions[machineType]; ok {
		return p
	}
	if strings.HasPrefix(machineType, "n1-") {
		return GKEProvisioning{OnDemand: true, Spot: true, Reserved: true, Models: "on demand, Spot or a reservation"}
	}
	return GKEProvisioning{OnDemand: true, Spot: true, FlexStart: true, Reserved: true, Models: "on demand, Spot, flex-start or a reservation"}
}
