package catalog

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

// GKEProvisioningOf returns how Compute Engine sells a GKE machine type.
func GKEProvisioningOf(machineType string) GKEProvisioning {
	if p, ok := gkeProvisioningExceptions[machineType]; ok {
		return p
	}
	return GKEProvisioning{OnDemand: true, Spot: true, Reserved: true, Models: "on demand, Spot or a reservation"}
}
