# The objects gpufleet_karpenter_node_pool would apply, as YAML for a GitOps repository: rendered and
# validated against Karpenter 1.14's CRDs (the long-term support line) without reaching a cluster.
data "gpufleet_karpenter_manifests" "notebooks" {
  cluster_name      = "ml"
  name              = "acme-notebooks"
  client            = "acme"
  karpenter_version = "1.14"
  node_role         = "KarpenterNodeRole-ml"
  instance_types    = ["g6.xlarge", "g6.2xlarge"]

  subnet_selector         = [{ tags = { "karpenter.sh/discovery" = "ml" } }]
  security_group_selector = [{ tags = { "karpenter.sh/discovery" = "ml" } }]

  workload {
    kind           = "development"
    environment    = "development"
    gpu_memory_gib = 4
    interruptible  = true
  }

  gpu {
    sharing {
      strategy = "time-slicing"
      replicas = 4
    }
  }

  scaling {
    min_size = 0
    max_size = 4
  }

  capacity {
    spot_percentage = 100
  }
}

output "notebook_manifests" {
  value = data.gpufleet_karpenter_manifests.notebooks.manifests
}
