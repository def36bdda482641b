# A GPU pool as Karpenter declares it: acme's batch embeddings on L40S nodes in EKS cluster "ml",
# most of them on spot, two jobs per GPU (time-sliced, so a NodeOverlay makes Karpenter count two
# nvidia.com/gpu per GPU). gpufleet renders the EC2NodeClass, a NodePool per capacity rung and the
# NodeOverlay, validates them at plan against Karpenter 1.15's CRDs without the cluster, and
# applies them with server-side apply, reaching the cluster through EKS DescribeCluster and a token
# made from the AWS credentials.
#
# make demo runs it against cloudsim and a real CRD-serving API server (scripts/demo.sh writes the
# endpoints into cloudsim.auto.tfvars); against a real cluster, drop the endpoint settings.
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

variable "sts_endpoint" {
  description = "STS API endpoint (cloudsim's): EKS tokens are presigned STS requests."
  type        = string
}

provider "gpufleet" {
  default_tags = { managed-by = "terraform" }
  aws {
    region                      = "us-east-1"
    skip_credentials_validation = true
    endpoints {
      eks = var.eks_endpoint
      sts = var.sts_endpoint
    }
  }
  policy {
    data_files = ["${path.module}/../quickstart/policy-data.yaml"]
  }
}

resource "gpufleet_karpenter_node_pool" "acme_embed" {
  cluster_name   = "ml"
  name           = "acme-embed"
  client         = "acme"
  node_role      = "KarpenterNodeRole-ml"
  instance_types = ["g6e.xlarge", "g6e.2xlarge"]

  subnet_selector         = [{ tags = { "karpenter.sh/discovery" = "ml" } }]
  security_group_selector = [{ tags = { "karpenter.sh/discovery" = "ml" } }]

  workload {
    kind           = "batch"
    environment    = "staging"
    gpu_memory_gib = 18
    interruptible  = true
  }

  gpu {
    sharing {
      strategy = "time-slicing"
      replicas = 2
    }
  }

  scaling {
    min_size = 0
    max_size = 8
  }

  capacity {
    spot_percentage = 75
    on_demand_base  = 1
  }

  disruption {
    consolidate_after = "10m"
  }
}

output "node_pools" {
  description = "The NodePools: capacity rung, weight and node limit."
  value       = [for np in gpufleet_karpenter_node_pool.acme_embed.node_pools : "${np.name} ${np.capacity_type} weight ${np.weight} up to ${np.nodes} nodes"]
}
