# An L4 inference class on GKE: GKE tries any matching reservation, then on-demand VMs, then
# flex-start VMs, then Spot VMs, creating node pools as pods that select the class wait.
resource "gpufleet_gke_compute_class" "serve" {
  location     = "us-central1"
  cluster      = "ml"
  name         = "globex-l4-serve"
  client       = "globex"
  machine_type = "g2-standard-24"
  zones        = ["us-central1-a", "us-central1-b"]

  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 20
  }
  scaling {
    min_size = 0
    max_size = 6
  }
  gpu {
    driver_version = "LATEST"
  }
  capacity {
    ladder = ["reservation", "on_demand", "flex_start", "spot"]
    reservation {
      type = "any"
    }
  }
}

# What the workload's pod template adds to run on the class.
output "serve_pod_spec" {
  value = gpufleet_gke_compute_class.serve.pod_spec
}
