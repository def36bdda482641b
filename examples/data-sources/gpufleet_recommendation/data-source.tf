# Serve a 7B-parameter model in fp16, eight replicas, for client "globex", whose policy data allows
# only US regions and requires MIG isolation. The aws answer is in the provider's region (aws.region)
# whenever something fits there; else in_provider_region is false and the pool's region below names
# the region it needs a cluster in. On GCP any us-central region will do.
data "gpufleet_recommendation" "serve" {
  workload {
    kind                     = "inference"
    environment              = "production"
    model_parameters_billion = 7
    precision                = "fp16"
  }
  replicas = 8
  clouds   = ["aws", "gcp"]
  regions  = ["us-east-1", "us-central*"]
  client   = "globex"
}

locals {
  need = data.gpufleet_recommendation.serve.required_gpu_memory_gib
  aws  = data.gpufleet_recommendation.serve.aws
  gcp  = data.gpufleet_recommendation.serve.gcp
}

# The recommendation plugs straight into the pool resources.
resource "gpufleet_eks_node_pool" "serve" {
  cluster_name   = "ml"
  name           = "globex-serve"
  client         = "globex"
  region         = local.aws.region
  node_role_arn  = "arn:aws:iam::123456789012:role/gpu-nodes"
  subnet_ids     = ["subnet-0a1a1a1a1a1a1a1a1"]
  instance_types = [local.aws.node_type]

  workload {
    kind             = "inference"
    environment      = "production"
    gpu_memory_gib   = local.need
    precision        = "fp16"
    gpus_per_replica = local.aws.gpus_per_replica
    replicas         = 8
  }

  dynamic "gpu" {
    for_each = local.aws.mig_profile == null ? [] : [local.aws.mig_profile]
    content {
      mig {
        profile = gpu.value
      }
    }
  }

  scaling {
    min_size     = local.aws.min_size
    desired_size = local.aws.node_count
    max_size     = local.aws.node_count
  }

  capacity {
    spot_percentage = local.aws.spot_percentage
    on_demand_base  = local.aws.on_demand_base
  }
}

# GKE sizes node pools per zone. Production inference spreads its replicas over three zones, and
# the answer is sized for them: node_count is local.gcp.nodes_per_zone in each of the zones it
# names in node_locations (zones that offer its GPU), priced for all of them. Give the pool those
# zones, so that it runs as sized on a cluster of three zones or four (us-central1 has a, b, c, f).
resource "gpufleet_gke_node_pool" "serve" {
  project        = "ml-platform"
  location       = local.gcp.region
  node_locations = local.gcp.node_locations
  cluster        = "ml"
  name           = "globex-serve"
  client         = "globex"
  machine_type   = local.gcp.node_type

  workload {
    kind             = "inference"
    environment      = "production"
    gpu_memory_gib   = local.need
    precision        = "fp16"
    gpus_per_replica = local.gcp.gpus_per_replica
    replicas         = 8
  }

  gpu {
    type  = local.gcp.accelerator
    count = local.gcp.gpus_per_node
    dynamic "mig" {
      for_each = local.gcp.mig_profile == null ? [] : [local.gcp.mig_profile]
      content {
        profile = mig.value
      }
    }
  }

  scaling {
    min_size     = local.gcp.min_size
    desired_size = local.gcp.node_count
    max_size     = local.gcp.node_count
  }

  capacity {
    spot_percentage = local.gcp.spot_percentage
    on_demand_base  = local.gcp.on_demand_base
  }
}

output "monthly_saving_usd" {
  value = local.aws.naive_monthly_usd - local.aws.monthly_usd
}
