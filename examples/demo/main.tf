# The offline demo (make demo): GPU pools for two clients on EKS and GKE against cloudsim, checked by
# the policy bundle at plan time, plus catalog look-ups. scripts/demo.sh passes the cloudsim endpoints.
terraform {
  required_providers {
    gpufleet = {
      source = "gpufleet/gpufleet"
    }
  }
}

variable "eks_endpoint" {
  type = string
}

variable "ec2_endpoint" {
  type = string
}

variable "gke_endpoint" {
  type = string
}

variable "compute_endpoint" {
  type = string
}

variable "train_spot_percentage" {
  description = "Share of the training pool above its on-demand base that runs on spot."
  type        = number
  default     = 70
}

variable "serve_sharing" {
  description = "Time-slice the serving GPUs (policy denies this in production)."
  type        = bool
  default     = false
}

provider "gpufleet" {
  # Tags both clouds take: AWS tags on EKS, resource labels (lowercase) on GKE.
  default_tags = { managed-by = "terraform", demo = "gpufleet" }
  aws {
    region                      = "us-east-1"
    skip_credentials_validation = true
    endpoints {
      eks = var.eks_endpoint
      ec2 = var.ec2_endpoint
    }
  }
  gcp {
    project          = "acme-ml"
    endpoint         = var.gke_endpoint
    compute_endpoint = var.compute_endpoint
    insecure         = true
  }
  pricing {
    discount_percent = 10
  }
  policy {
    data_files = ["${path.module}/policy-data.yaml"]
  }
}

# Training for acme: H100s split into 3g.40gb MIG slices, most nodes on spot.
resource "gpufleet_eks_node_pool" "train" {
  cluster_name   = "ml"
  name           = "acme-train"
  client         = "acme"
  node_role_arn  = "arn:aws:iam::123456789012:role/gpu-nodes"
  subnet_ids     = ["subnet-0a1a1a1a1a1a1a1a1", "subnet-0b1b1b1b1b1b1b1b1"]
  instance_types = ["p5.48xlarge"]

  workload {
    kind           = "training"
    environment    = "production"
    gpu_memory_gib = 35
    interruptible  = true
  }
  gpu {
    mig {
      profile = "3g.40gb"
    }
  }
  scaling {
    min_size     = 0
    desired_size = 4
    max_size     = 8
  }
  capacity {
    spot_percentage = var.train_spot_percentage
    on_demand_base  = 1
  }
  labels = { team = "research" }
}

# Serving for globex on L4 (the right size for a 16 GiB model), on-demand.
resource "gpufleet_eks_node_pool" "serve" {
  cluster_name   = "ml"
  name           = "globex-serve"
  client         = "globex"
  node_role_arn  = "arn:aws:iam::123456789012:role/gpu-nodes"
  subnet_ids     = ["subnet-0a1a1a1a1a1a1a1a1"]
  instance_types = ["g6.xlarge", "g6.2xlarge"]

  workload {
    kind           = "inference"
    environment    = "production"
    gpu_memory_gib = 16
  }
  dynamic "gpu" {
    for_each = var.serve_sharing ? [1] : []
    content {
      sharing {
        strategy = "time-slicing"
        replicas = 4
      }
    }
  }
  scaling {
    min_size     = 2
    desired_size = 2
    max_size     = 6
  }
}

# Staging inference for globex in Europe on GKE, sized by gpufleet_recommendation: a 7B model in
# fp16, four replicas; the cheapest GKE node that fits and that policy allows, with the autoscaler
# owning the size between one node and the nodes four replicas need.
data "gpufleet_recommendation" "serve_eu" {
  workload {
    kind                     = "inference"
    environment              = "staging"
    model_parameters_billion = 7
    precision                = "fp16"
  }
  replicas = 4
  clouds   = ["gcp"]
  regions  = ["europe-west4"]
  client   = "globex"
}

locals {
  eu = data.gpufleet_recommendation.serve_eu.gcp
}

resource "gpufleet_gke_node_pool" "serve_eu" {
  location       = local.eu.region
  cluster        = "ml"
  name           = "globex-serve-eu"
  client         = "globex"
  machine_type   = local.eu.node_type
  node_locations = ["${local.eu.region}-a"]

  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = data.gpufleet_recommendation.serve_eu.required_gpu_memory_gib
  }
  gpu {
    type  = local.eu.accelerator
    count = local.eu.gpus_per_node
    dynamic "mig" {
      for_each = local.eu.mig_profile == null ? [] : [local.eu.mig_profile]
      content {
        profile = mig.value
      }
    }
    dynamic "sharing" {
      for_each = local.eu.sharing_replicas == null ? [] : [local.eu.sharing_replicas]
      content {
        strategy = "time-slicing"
        replicas = sharing.value
      }
    }
  }
  scaling {
    min_size = max(local.eu.min_size, 1)
    max_size = max(local.eu.node_count, 1)
  }
}

data "gpufleet_gpu_catalog" "l4" {
  cloud     = "aws"
  region    = "us-east-1"
  gpu_model = "L4"
}

output "pools" {
  value = merge({
    for p in [gpufleet_eks_node_pool.train, gpufleet_eks_node_pool.serve] : p.name => {
      gpu         = "${p.gpus_per_node} x ${p.gpu_model}"
      sides       = [for ng in p.node_groups : "${ng.name} ${ng.capacity_type} ${ng.desired_size}/${ng.max_size} ${ng.status}"]
      monthly_usd = p.estimated_monthly_cost_usd
      taints      = [for t in p.effective_taints : "${t.key}=${t.value}:${t.effect}"]
    }
    }, {
    for p in [gpufleet_gke_node_pool.serve_eu] : p.name => {
      gpu         = "${p.gpus_per_node} x ${p.gpu_model}"
      sides       = [for np in p.node_pools : "${np.name} ${np.spot ? "SPOT" : "ON_DEMAND"} ${np.desired_size}/${np.max_size} ${np.status}"]
      monthly_usd = p.estimated_monthly_cost_usd
      taints      = [for t in p.effective_taints : "${t.key}=${t.value}:${t.effect}"]
    }
  })
}

output "h100_slices_for_35_gib" {
  value = [for p in provider::gpufleet::mig_profiles("H100-80GB") : p.name if p.memory_gib >= 35]
}

locals {
  pools = [
    { pool = gpufleet_eks_node_pool.train, cloud = "EKS", sides = gpufleet_eks_node_pool.train.node_groups },
    { pool = gpufleet_eks_node_pool.serve, cloud = "EKS", sides = gpufleet_eks_node_pool.serve.node_groups },
    { pool = gpufleet_gke_node_pool.serve_eu, cloud = "GKE", sides = gpufleet_gke_node_pool.serve_eu.node_pools },
  ]
  clients = distinct([for p in local.pools : p.pool.client])
}

# The summary make demo prints: every pool with its GPUs and cost, then the monthly cost per client.
output "summary" {
  value = join("\n", concat(
    [format("%-18s %-5s %-8s %-14s %12s", "pool", "cloud", "client", "GPUs now", "USD/month")],
    [for p in local.pools : format("%-18s %-5s %-8s %-14s %12.2f", p.pool.name, p.cloud, p.pool.client,
    "${sum([for s in p.sides : s.desired_size]) * p.pool.gpus_per_node} x ${p.pool.gpu_model}", p.pool.estimated_monthly_cost_usd)],
    [""],
    [for c in local.clients : format("%-42s %12.2f", "client ${c}, all pools", sum([for p in local.pools : p.pool.estimated_monthly_cost_usd if p.pool.client == c]))],
  ))
}
