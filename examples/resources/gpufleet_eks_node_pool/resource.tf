# A training pool of H100 nodes for client "acme": MIG-partitioned into 3g.40gb slices, 70 % of the
# nodes above one on-demand node on spot, with per-client tags on every instance and volume.
resource "gpufleet_eks_node_pool" "train" {
  cluster_name   = "ml"
  name           = "acme-train"
  client         = "acme"
  node_role_arn  = "arn:aws:iam::123456789012:role/gpu-nodes"
  subnet_ids     = ["subnet-0a1a1a1a1a1a1a1a1", "subnet-0b2b2b2b2b2b2b2b2"]
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
    desired_size = 2
    max_size     = 8
  }

  capacity {
    spot_percentage = 70
    on_demand_base  = 1
  }

  taints = [{ key = "team", value = "research", effect = "NO_SCHEDULE" }]
  labels = { team = "research" }
  tags   = { Project = "llm-pretraining" }
}

# An inference pool on L4 with a capacity reservation for its on-demand nodes.
resource "gpufleet_eks_node_pool" "serve" {
  cluster_name   = "ml"
  name           = "acme-serve"
  client         = "acme"
  node_role_arn  = "arn:aws:iam::123456789012:role/gpu-nodes"
  subnet_ids     = ["subnet-0a1a1a1a1a1a1a1a1"]
  instance_types = ["g6.xlarge"]

  workload {
    kind           = "inference"
    environment    = "production"
    gpu_memory_gib = 16
  }

  scaling {
    min_size     = 2
    desired_size = 2
    max_size     = 4
  }

  capacity {
    reservation {
      id   = "cr-0a1b2c3d4e5f60718"
      type = "capacity-reservation"
    }
  }
}

output "monthly_cost" {
  value = gpufleet_eks_node_pool.train.estimated_monthly_cost_usd
}
