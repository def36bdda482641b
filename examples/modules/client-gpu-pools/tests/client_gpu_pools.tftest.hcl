# terraform test against cloudsim (internal/provider's TestAccModule_clientGPUPools passes the
# endpoints): plans and applies pools for two clients on EKS and GKE, checks costs, taints and tags,
# and expects the module to refuse a pool the policy denies.

variables {
  eks = {
    cluster_name  = "ml"
    node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
    subnet_ids    = ["subnet-0a1a1a1a1a1a1a1a1", "subnet-0b1b1b1b1b1b1b1b1"]
  }
  gke = {
    location       = "europe-west4"
    cluster        = "ml"
    node_locations = ["europe-west4-a"]
  }
  clients = {
    acme = {
      workloads = {
        train = {
          cloud           = "aws"
          kind            = "training"
          environment     = "production"
          gpu_memory_gib  = 35
          interruptible   = true
          node_type       = "p5.48xlarge"
          mig_profile     = "3g.40gb"
          min_size        = 0
          desired_size    = 2
          max_size        = 4
          spot_percentage = 100
          on_demand_base  = 1
          tags            = { project = "llm-tuning" }
        }
      }
    }
    globex = {
      workloads = {
        serve = {
          cloud            = "gcp"
          kind             = "inference"
          environment      = "staging"
          gpu_memory_gib   = 6.71
          node_type        = "g2-standard-4"
          sharing_replicas = 2
          min_size         = 2
          max_size         = 4
        }
      }
    }
  }
}

provider "gpufleet" {
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
  policy {
    data_files = ["tests/policy-data.yaml"]
  }
}

# The same clouds with the policy only warning, as a team rolling gpufleet out might run it: the
# module's postcondition still refuses a denied pool.
provider "gpufleet" {
  alias = "warn_only"
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
  policy {
    enforcement = "warn"
    data_files  = ["tests/policy-data.yaml"]
  }
}

run "plan_both_clouds" {
  command = plan

  assert {
    condition     = output.pools["acme-train"].gpu_model == "H100-80GB" && output.pools["globex-serve"].gpu_model == "L4"
    error_message = "the pools do not run the GPUs their node types carry"
  }
  assert {
    condition     = contains(output.pools["acme-train"].taints, "gpufleet.io/client=acme:NO_SCHEDULE") && contains(output.pools["acme-train"].taints, "nvidia.com/gpu=present:NO_SCHEDULE")
    error_message = "acme is dedicated: its pool needs the GPU taint and its client taint"
  }
  assert {
    condition     = output.pools["globex-serve"].taints == tolist(["nvidia.com/gpu=present:NO_SCHEDULE"])
    error_message = "globex shares nodes: its pool has the GPU taint only"
  }
  assert {
    condition     = output.pools["acme-train"].tags["gpufleet:client"] == "acme" && output.pools["acme-train"].tags["gpufleet:cost-center"] == "cc-1001" && output.pools["acme-train"].tags["project"] == "llm-tuning"
    error_message = "acme's pool does not carry its client, cost-centre and own tags"
  }
  assert {
    condition     = output.pools["globex-serve"].tags["gpufleet_client"] == "globex" && output.pools["globex-serve"].tags["gpufleet_cost-center"] == "cc-2002"
    error_message = "globex's pool does not carry its client and cost-centre resource labels"
  }
  # 2 p5.48xlarge in us-east-1, one on-demand and one on spot, at the catalog's prices: $55.04/h
  # list and $19.6647/h spot (AWS's spot feed, internal/catalog/spot.go), x 730 h = $54,534.43.
  assert {
    condition     = output.monthly_cost_per_client["acme"] > 54500 && output.monthly_cost_per_client["acme"] < 54600
    error_message = "acme's monthly cost ${output.monthly_cost_per_client["acme"]} is not that of one on-demand and one spot p5.48xlarge"
  }
  assert {
    condition     = output.monthly_cost_per_client["globex"] > 800 && output.monthly_cost_per_client["globex"] < 1500
    error_message = "globex's monthly cost ${output.monthly_cost_per_client["globex"]} is not that of two g2-standard-4"
  }
  assert {
    condition     = output.policy_findings == { "acme-train" = [], "globex-serve" = [] }
    error_message = "the pools have policy findings: ${jsonencode(output.policy_findings)}"
  }
}

run "apply_both_clouds" {
  command = apply

  assert {
    condition     = [for s in output.pools["acme-train"].sides : "${s.name} ${s.capacity_type} ${s.desired_size} ${s.status}"] == ["acme-train-od ON_DEMAND 1 ACTIVE", "acme-train-spot SPOT 1 ACTIVE"]
    error_message = "acme's node groups are not one on-demand and one spot node, active: ${jsonencode(output.pools["acme-train"].sides)}"
  }
  assert {
    condition     = [for s in output.pools["globex-serve"].sides : "${s.name} ${s.capacity_type} ${s.desired_size} ${s.status}"] == ["globex-serve-od ON_DEMAND 2 RUNNING"]
    error_message = "globex's node pool is not running with two nodes: ${jsonencode(output.pools["globex-serve"].sides)}"
  }
  assert {
    condition     = output.gpus_per_client == { acme = 16, globex = 2 }
    error_message = "GPUs per client are ${jsonencode(output.gpus_per_client)}, want 16 H100s for acme and 2 L4s for globex"
  }
  assert {
    condition     = output.monthly_cost_per_client["acme"] == gpufleet_eks_node_pool.this["acme-train"].estimated_monthly_cost_usd
    error_message = "the cost per client is not the sum of the client's pools"
  }
}

# Promoting globex's time-shared pool to production: GF-ISO-003 denies GPU sharing in production.
# Under enforcement "warn" the provider lets the plan through, and the module's postcondition fails.
run "policy_deny_is_refused" {
  command = plan
  providers = {
    gpufleet = gpufleet.warn_only
  }

  variables {
    clients = {
      globex = {
        workloads = {
          serve = {
            cloud            = "gcp"
            kind             = "inference"
            environment      = "production"
            gpu_memory_gib   = 6.71
            node_type        = "g2-standard-4"
            sharing_replicas = 2
            min_size         = 2
            max_size         = 4
          }
        }
      }
    }
  }

  expect_failures = [gpufleet_gke_node_pool.this["globex-serve"]]
}

# Bad input the module itself refuses, before any provider call.
run "bad_sizes_are_refused" {
  command = plan

  variables {
    clients = {
      acme = {
        workloads = {
          train = {
            cloud          = "aws"
            kind           = "training"
            environment    = "staging"
            gpu_memory_gib = 20
            node_type      = "g6e.xlarge"
            min_size       = 3
            max_size       = 2
          }
        }
      }
    }
  }

  expect_failures = [var.clients]
}

# Client acme's workload eu-train and client acme-eu's workload train would both be the pool
# acme-eu-train: one map entry, one client's pool silently switched to the other client. The module
# refuses the clients before any provider call, naming both.
run "colliding_pool_names_are_refused" {
  command = plan

  variables {
    clients = {
      acme = {
        workloads = {
          eu-train = {
            cloud          = "aws"
            kind           = "training"
            environment    = "staging"
            gpu_memory_gib = 20
            node_type      = "g6e.xlarge"
            min_size       = 0
            max_size       = 2
          }
        }
      }
      acme-eu = {
        workloads = {
          train = {
            cloud          = "aws"
            kind           = "training"
            environment    = "staging"
            gpu_memory_gib = 20
            node_type      = "g6e.xlarge"
            min_size       = 0
            max_size       = 2
          }
        }
      }
    }
  }

  expect_failures = [var.clients]
}
