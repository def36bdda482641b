package gke

// What gpufleet_gke_compute_class shares with gpufleet_gke_node_pool.

// GPUModel is a GKE pool's gpu block: the shared MIG and sharing blocks plus GKE's accelerator
// settings.
type GPUModel = gpuModel

// RegionOf is the region of a GKE location: the location itself, or a zone's region.
func RegionOf(location string) string { return regionOf(location) }

// DriverVersions are GKE's driver installation settings.
func DriverVersions() []string { return append([]string(nil), driverVersions...) }
