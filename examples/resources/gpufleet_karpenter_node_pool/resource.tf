# A training pool of H100 nodes for client "acme" under self-managed Karpenter: MIG-partitioned into
# 3g.40gb slices (a NodeOverlay makes Karpenter count 16 slices per node), 70 % of the nodes above
# one on-demand node on spot, per-client tags on every instance and volume. The plan validates the
# EC2NodeClass, NodePools and NodeOverlay against Karpenter 1.15's CRDs, without the cluster.
resource "gpufleet_karpenter_node_pool" "train" {
  cluster_name   = "ml"
  name           = "acme-train"
  client         = "acme"
  node_role      = "KarpenterNodeRole-ml"
  instance_types = ["p5.48xlarge"]
  ami_alias      = "al2023@v20251120"

  subnet_selector         = [{ tags = { "karpenter.sh/discovery" = "ml" } }]
  security_group_selector = [{ tags = { "karpenter.sh/discovery" = "ml" } }]

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
    min_size = 0
    max_size = 8
  }

  capacity {
    spot_percentage = 70
    on_demand_base  = 1
  }

  taints = [{ key = "team", value = "research", effect = "NO_SCHEDULE" }]
  labels = { "example.com/team" = "research" }
  tags   = { Project = "llm-pretraining" }
}

# An inference pool under EKS Auto Mode on L40S, two nodes always up (a static NodePool), its
# on-demand nodes on a capacity reservation first.
resource "gpufleet_karpenter_node_pool" "serve" {
  cluster_name   = "ml"
  name           = "acme-serve"
  client         = "acme"
  mode           = "auto_mode"
  node_role      = "AmazonEKSAutoNodeRole"
  instance_types = ["g6e.2xlarge"]

  subnet_selector         = [{ id = "subnet-0a1a1a1a1a1a1a1a1" }, { id = "subnet-0b2b2b2b2b2b2b2b2" }]
  security_group_selector = [{ id = "sg-0123456789abcdef0" }]

  workload {
    kind           = "inference"
    environment    = "production"
    gpu_memory_gib = 30
    replicas       = 2
  }

  scaling {
    min_size = 2
    max_size = 6
  }

  capacity {
    reservation {
      id   = "cr-0a1b2c3d4e5f60718"
      type = "capacity-reservation"
    }
  }

  disruption {
    consolidation_policy = "WhenEmpty"
    consolidate_after    = "1h"
    budgets              = [{ nodes = "1" }]
  }
}
