# One gpufleet pool per client workload, on EKS or GKE. The provider derives taints, labels, tags
# and cost, and checks every pool against the policy bundle at plan time; this module refuses, in
# addition, any pool the policy denies, also while the provider runs with
# policy { enforcement = "warn" } (a postcondition on policy_findings).
locals {
  workloads = merge([for client, c in var.clients : {
    for name, w in c.workloads : "${client}-${name}" => merge(w, { client = client })
  }]...)
  eks_workloads = { for k, w in local.workloads : k => w if w.cloud == "aws" }
  gke_workloads = { for k, w in local.workloads : k => w if w.cloud == "gcp" }
}

resource "gpufleet_eks_node_pool" "this" {
  for_each = local.eks_workloads

  cluster_name   = var.eks.cluster_name
  name           = each.key
  client         = each.value.client
  node_role_arn  = var.eks.node_role_arn
  subnet_ids     = var.eks.subnet_ids
  instance_types = [each.value.node_type]
  labels         = each.value.labels
  tags           = each.value.tags
  policy_waivers = each.value.policy_waivers

  workload {
    kind           = each.value.kind
    environment    = each.value.environment
    gpu_memory_gib = each.value.gpu_memory_gib
    interruptible  = each.value.interruptible
  }
  gpu {
    dynamic "mig" {
      for_each = each.value.mig_profile == null ? [] : [each.value.mig_profile]
      content {
        profile = mig.value
      }
    }
    dynamic "sharing" {
      for_each = each.value.sharing_replicas == null ? [] : [each.value.sharing_replicas]
      content {
        strategy = "time-slicing"
        replicas = sharing.value
      }
    }
  }
  scaling {
    min_size     = each.value.min_size
    max_size     = each.value.max_size
    desired_size = each.value.desired_size
  }
  capacity {
    spot_percentage = each.value.spot_percentage
    on_demand_base  = each.value.on_demand_base
    dynamic "reservation" {
      for_each = each.value.reservation == null ? [] : [each.value.reservation]
      content {
        type = reservation.value.type
        id   = reservation.value.id
      }
    }
  }

  lifecycle {
    precondition {
      condition     = var.eks != null
      error_message = "Workload ${each.key} runs on EKS (cloud = \"aws\"): set var.eks."
    }
    postcondition {
      condition     = !contains(self.policy_findings[*].severity, "deny")
      error_message = "The policy denies pool ${each.key} of client ${self.client}: ${join("; ", [for f in self.policy_findings : "${f.rule} at ${f.attribute}" if f.severity == "deny"])}."
    }
  }
}

resource "gpufleet_gke_node_pool" "this" {
  for_each = local.gke_workloads

  location       = var.gke.location
  cluster        = var.gke.cluster
  node_locations = var.gke.node_locations
  name           = each.key
  client         = each.value.client
  machine_type   = each.value.node_type
  labels         = each.value.labels
  tags           = each.value.tags
  policy_waivers = each.value.policy_waivers

  workload {
    kind           = each.value.kind
    environment    = each.value.environment
    gpu_memory_gib = each.value.gpu_memory_gib
    interruptible  = each.value.interruptible
  }
  gpu {
    type  = each.value.gpu_type
    count = each.value.gpu_count
    dynamic "mig" {
      for_each = each.value.mig_profile == null ? [] : [each.value.mig_profile]
      content {
        profile = mig.value
      }
    }
    dynamic "sharing" {
      for_each = each.value.sharing_replicas == null ? [] : [each.value.sharing_replicas]
      content {
        strategy = "time-slicing"
        replicas = sharing.value
      }
    }
  }
  scaling {
    min_size     = each.value.min_size
    max_size     = each.value.max_size
    desired_size = each.value.desired_size
  }
  capacity {
    spot_percentage = each.value.spot_percentage
    on_demand_base  = each.value.on_demand_base
    dynamic "reservation" {
      for_each = each.value.reservation == null ? [] : [each.value.reservation]
      content {
        type    = reservation.value.type
        name    = reservation.value.name
        project = reservation.value.project
      }
    }
  }

  lifecycle {
    precondition {
      condition     = var.gke != null
      error_message = "Workload ${each.key} runs on GKE (cloud = \"gcp\"): set var.gke."
    }
    postcondition {
      condition     = !contains(self.policy_findings[*].severity, "deny")
      error_message = "The policy denies pool ${each.key} of client ${self.client}: ${join("; ", [for f in self.policy_findings : "${f.rule} at ${f.attribute}" if f.severity == "deny"])}."
    }
  }
}

locals {
  pools = merge(
    { for k, p in gpufleet_eks_node_pool.this : k => { cloud = "aws", pool = p, sides = p.node_groups } },
    { for k, p in gpufleet_gke_node_pool.this : k => { cloud = "gcp", pool = p, sides = p.node_pools } },
  )
}
