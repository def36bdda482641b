# The quickstart: an AI agency runs GPU pools for two clients on two clouds, declares them once and
# has every plan checked by the gpufleet policy bundle.
#
#   acme   fine-tunes models on EKS: H100s split into 3g.40gb MIG slices (two jobs per GPU), most
#          nodes on spot (the jobs checkpoint), kept apart from other clients' pods (the policy
#          data makes acme "dedicated", so the pool gets acme's client taint).
#          Its notebooks share T4s, time-sliced.
#   globex serves a 3B model in staging on GKE in Europe, on the pool gpufleet_recommendation picks
#          for six replicas (L4, time-sliced), consuming globex's L4 reservation.
#
# make demo runs it offline against cloudsim (scripts/demo.sh writes the endpoints into
# cloudsim.auto.tfvars); against real clouds, drop the endpoint settings.
terraform {
  required_version = ">= 1.8"
  required_providers {
    gpufleet = {
      source = "gpufleet/gpufleet"
    }
  }
}

variable "eks_endpoint" {
  description = "EKS API endpoint (cloudsim's)."
  type        = string
}

variable "ec2_endpoint" {
  description = "EC2 API endpoint (cloudsim's)."
  type        = string
}

variable "autoscaling_endpoint" {
  description = "EC2 Auto Scaling API endpoint (cloudsim's)."
  type        = string
}

variable "gke_endpoint" {
  description = "GKE API endpoint, host:port (cloudsim's)."
  type        = string
}

variable "compute_endpoint" {
  description = "Compute Engine API endpoint (cloudsim's)."
  type        = string
}

variable "acme_spot_percentage" {
  description = "Share of acme's training nodes above the on-demand base that run on spot."
  type        = number
  default     = 70
}

provider "gpufleet" {
  # Tags both clouds take: AWS tags on EKS, resource labels (lower case) on GKE.
  default_tags = { managed-by = "terraform", agency = "quickstart" }
  aws {
    region                      = "us-east-1"
    skip_credentials_validation = true
    endpoints {
      eks         = var.eks_endpoint
      ec2         = var.ec2_endpoint
      autoscaling = var.autoscaling_endpoint
    }
  }
  gcp {
    project          = "acme-ml"
    endpoint         = var.gke_endpoint
    compute_endpoint = var.compute_endpoint
    insecure         = true
  }
  pricing {
    discount_percent = 10 # the agency's negotiated rate, applied to every estimate
  }
  policy {
    enforcement = "deny"
    data_files  = ["${path.module}/policy-data.yaml"]
  }
}

# acme: fine-tuning on H100 MIG slices, one node always on-demand, the rest mostly on spot.
resource "gpufleet_eks_node_pool" "acme_train" {
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
    spot_percentage = var.acme_spot_percentage
    on_demand_base  = 1
  }
  labels = { team = "research" }
}

# acme's notebooks: small models on time-sliced T4s, scaled from zero by the cluster autoscaler.
# The policy warns that a notebook's share of a T4 (half of it, 8 GiB) is more than four times what
# one notebook needs (GF-RS-002) and names the cheapest option that fits; the team keeps it for
# now, knowingly.
resource "gpufleet_eks_node_pool" "acme_notebooks" {
  cluster_name   = "ml"
  name           = "acme-notebooks"
  client         = "acme"
  node_role_arn  = "arn:aws:iam::123456789012:role/gpu-nodes"
  subnet_ids     = ["subnet-0a1a1a1a1a1a1a1a1"]
  instance_types = ["g4dn.xlarge"]

  workload {
    kind           = "development"
    environment    = "development"
    gpu_memory_gib = 1.5
  }
  gpu {
    sharing {
      strategy = "time-slicing"
      replicas = 2
    }
  }
  scaling {
    min_size = 0
    max_size = 3
  }
}

# globex: what to run six replicas of a 3B fp16 model on, in staging, where globex may run
# (its allowed regions narrow the regions asked); the cheapest pool the policy allows.
data "gpufleet_recommendation" "globex_serve" {
  workload {
    kind                     = "inference"
    environment              = "staging"
    model_parameters_billion = 3
    precision                = "fp16"
  }
  replicas   = 6
  clouds     = ["gcp"]
  regions    = ["europe-west4"]
  client     = "globex"
  gpu_models = ["L4"] # globex reserved L4s
}

locals {
  globex = data.gpufleet_recommendation.globex_serve.gcp
}

resource "gpufleet_gke_node_pool" "globex_serve" {
  location       = local.globex.region
  cluster        = "ml"
  name           = "globex-serve"
  client         = "globex"
  machine_type   = local.globex.node_type
  node_locations = ["${local.globex.region}-a"] # the zone of globex's reservation

  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = data.gpufleet_recommendation.globex_serve.required_gpu_memory_gib
  }
  gpu {
    type  = local.globex.accelerator
    count = local.globex.gpus_per_node
    dynamic "mig" {
      for_each = local.globex.mig_profile == null ? [] : [local.globex.mig_profile]
      content {
        profile = mig.value
      }
    }
    dynamic "sharing" {
      for_each = local.globex.sharing_replicas == null ? [] : [local.globex.sharing_replicas]
      content {
        strategy = "time-slicing"
        replicas = sharing.value
      }
    }
  }
  # The six replicas need node_count nodes; the cluster autoscaler owns the size above that.
  scaling {
    min_size = local.globex.node_count
    max_size = 2 * local.globex.node_count
  }
  capacity {
    reservation {
      type = "specific"
      name = "globex-l4"
    }
  }
}

locals {
  pools = [
    { pool = gpufleet_eks_node_pool.acme_train, cloud = "EKS", sides = gpufleet_eks_node_pool.acme_train.node_groups },
    { pool = gpufleet_eks_node_pool.acme_notebooks, cloud = "EKS", sides = gpufleet_eks_node_pool.acme_notebooks.node_groups },
    { pool = gpufleet_gke_node_pool.globex_serve, cloud = "GKE", sides = gpufleet_gke_node_pool.globex_serve.node_pools },
  ]
  clients = distinct([for p in local.pools : p.pool.client])
}

output "pools" {
  description = "Each pool: GPUs, its cloud objects (capacity type, size now/max, status), monthly cost and taints."
  value = { for p in local.pools : p.pool.name => {
    cloud       = p.cloud
    client      = p.pool.client
    gpu         = "${p.pool.gpus_per_node} x ${p.pool.gpu_model}"
    sides       = [for s in p.sides : "${s.name} ${s.capacity_type} ${s.desired_size}/${s.max_size} ${s.status}"]
    monthly_usd = p.pool.estimated_monthly_cost_usd
    taints      = sort([for t in p.pool.effective_taints : "${t.key}=${t.value}:${t.effect}"])
  } }
}

output "globex_recommendation" {
  description = "What gpufleet_recommendation chose for globex, and what the naive choice would cost."
  value = format("%s: %d x %s per node, %s replicas per GPU, %d node(s), $%.2f/month%s",
    local.globex.node_type, local.globex.gpus_per_node, local.globex.gpu_model,
    local.globex.sharing_replicas == null ? "1" : tostring(local.globex.sharing_replicas),
    local.globex.node_count, local.globex.monthly_usd,
    # gpu_models keeps to L4s, so there is no training-class "naive" choice to compare with.
  local.globex.naive_node_type == null ? "" : format(" (naive: %s at $%.2f/month)", local.globex.naive_node_type, local.globex.naive_monthly_usd))
}

# The table make demo prints: every pool with its GPUs now and its cost, then the cost per client.
output "summary" {
  description = "Pools, clouds, clients, GPUs now and monthly cost, then the monthly cost per client."
  value = join("\n", concat(
    [format("%-16s %-5s %-8s %-16s %12s", "pool", "cloud", "client", "GPUs now", "USD/month")],
    [for p in local.pools : format("%-16s %-5s %-8s %-16s %12.2f", p.pool.name, p.cloud, p.pool.client,
    "${sum([for s in p.sides : s.desired_size]) * p.pool.gpus_per_node} x ${p.pool.gpu_model}", p.pool.estimated_monthly_cost_usd)],
    [""],
    [for c in local.clients : format("%-48s %12.2f", "client ${c}, all pools", sum([for p in local.pools : p.pool.estimated_monthly_cost_usd if p.pool.client == c]))],
  ))
}
