# globex's L4 service of the quickstart as a GKE ComputeClass beside its node pool: GKE tries
# globex's L4 reservation, then on-demand VMs, then Spot VMs, creating node pools for the pods that
# select the class. make demo plans it offline (scripts/demo.sh writes gke_endpoint): the class is
# rendered, checked against the ComputeClass schema and judged by the policy bundle with no cluster.
terraform {
  required_version = ">= 1.8"
  required_providers {
    gpufleet = {
      source = "gpufleet/gpufleet"
    }
  }
}

variable "gke_endpoint" {
  description = "GKE API endpoint, host:port (cloudsim's)."
  type        = string
}

provider "gpufleet" {
  gcp {
    project  = "acme-ml"
    endpoint = var.gke_endpoint
    insecure = true
  }
  policy {
    enforcement = "deny"
    data_files  = ["../quickstart/policy-data.yaml"]
  }
}

resource "gpufleet_gke_compute_class" "globex_serve" {
  location     = "europe-west4"
  cluster      = "ml"
  name         = "globex-l4-serve"
  client       = "globex"
  machine_type = "g2-standard-8"
  zones        = ["europe-west4-a", "europe-west4-b"]

  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 6.71
  }
  scaling {
    min_size = 0
    max_size = 4
  }
  capacity {
    ladder = ["reservation", "on_demand", "spot"]
    reservation {
      type  = "specific"
      name  = "globex-l4"
      zones = ["europe-west4-a"]
    }
  }
}

output "pod_spec" {
  value = gpufleet_gke_compute_class.globex_serve.pod_spec
}
