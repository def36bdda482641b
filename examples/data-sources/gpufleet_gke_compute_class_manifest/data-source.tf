# An L4 inference class for a GitOps repository: the ComputeClass YAML to commit, validated against
# the ComputeClass schema and judged by the policy bundle at plan time, with no cluster.
data "gpufleet_gke_compute_class_manifest" "serve" {
  name         = "globex-l4-serve"
  location     = "us-central1"
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
  capacity {
    ladder = ["reservation", "on_demand", "flex_start", "spot"]
    reservation {
      type = "any"
    }
  }
}

# The YAML to commit, e.g. with the hashicorp/local provider's local_file.
output "compute_class_yaml" {
  value = data.gpufleet_gke_compute_class_manifest.serve.manifests
}

# What the workload's pod template adds to run on the class.
output "pod_spec" {
  value = data.gpufleet_gke_compute_class_manifest.serve.pod_spec
}
