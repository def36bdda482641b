# globex's L4 service of the quickstart as a GKE ComputeClass beside its node pool: GKE tries
# globex's L4 reservation, then on-demand VMs, then Spot VMs, creating node pools for the pods that
# select the class. make demo plans it offline (scripts/demo.sh writes gke_endpoint): the class is
# rendered, checked against the ComputeClass schema and judged by the policy bundle with no cluster;
# then applies it to a real API server that serves gpufleet's ComputeClass CRD.
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

# A kubernetes block reaches the cluster's API server otherwise than through GKE's GetCluster and
# Google credentials (make demo: a real API server on loopback, as its admin). Unset, GetCluster.
variable "kube_host" {
  description = "API server URL, or null to find the cluster through GKE."
  type        = string
  default     = null
}

variable "kube_files" {
  description = "PEM files of the API server's CA, the client certificate and its key (ca, cert, key)."
  type        = map(string)
  default     = null
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
  kubernetes {
    host                   = var.kube_host
    cluster_ca_certificate = var.kube_files == null ? null : file(var.kube_files.ca)
    client_certificate     = var.kube_files == null ? null : file(var.kube_files.cert)
    client_key             = var.kube_files == null ? null : file(var.kube_files.key)
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
