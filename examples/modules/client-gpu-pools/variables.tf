variable "clients" {
  description = <<-EOT
    The agency's clients, each with its GPU workloads: one pool per workload, named
    <client>-<workload>, on EKS (cloud = "aws") or GKE (cloud = "gcp"). node_type is the EC2
    instance type or the GKE machine type; gpu_type and gpu_count only for GKE N1 machine types.
    Without desired_size the cluster autoscaler owns the size between min_size and max_size.
    reservation is the pool's capacity.reservation block: on EKS { type = "capacity-reservation"
    or "capacity-block", id = "cr-…" }, on GKE { type = "specific", "any" or "none", name, project }.
    Pool names must be unique: client "acme" with workload "eu-train" and client "acme-eu" with
    workload "train" would both be pool acme-eu-train, and are refused.
  EOT
  type = map(object({
    workloads = map(object({
      cloud            = string
      kind             = string
      environment      = string
      gpu_memory_gib   = number
      interruptible    = optional(bool, false)
      node_type        = string
      gpu_type         = optional(string)
      gpu_count        = optional(number)
      mig_profile      = optional(string)
      sharing_replicas = optional(number)
      min_size         = number
      max_size         = number
      desired_size     = optional(number)
      spot_percentage  = optional(number, 0)
      on_demand_base   = optional(number, 0)
      labels           = optional(map(string), {})
      tags             = optional(map(string), {})
      policy_waivers   = optional(map(string), {})
      reservation = optional(object({
        type    = string
        id      = optional(string)
        name    = optional(string)
        project = optional(string)
      }))
    }))
  }))

  # Pools are keyed and named <client>-<workload>: two workloads of that name would be one map
  # entry, and one client's running pool would silently become the other's.
  validation {
    condition = alltrue([for name, owners in {
      for p in flatten([for c, client in var.clients : [for w, _ in client.workloads : { name = "${c}-${w}", owner = "client ${jsonencode(c)} workload ${jsonencode(w)}" }]]) : p.name => p.owner...
    } : length(owners) == 1])
    error_message = "Two workloads would be the same pool: ${join("; ", [for name, owners in {
      for p in flatten([for c, client in var.clients : [for w, _ in client.workloads : { name = "${c}-${w}", owner = "client ${jsonencode(c)} workload ${jsonencode(w)}" }]]) : p.name => p.owner...
    } : "${name} is both ${join(" and ", owners)}" if length(owners) > 1])}. Rename one of the workloads."
  }
  validation {
    condition     = alltrue(flatten([for c, client in var.clients : [for w, wl in client.workloads : contains(["aws", "gcp"], wl.cloud)]]))
    error_message = "Every workload's cloud is \"aws\" (an EKS pool) or \"gcp\" (a GKE pool)."
  }
  validation {
    condition     = alltrue(flatten([for c, client in var.clients : [for w, wl in client.workloads : wl.min_size <= wl.max_size && (wl.desired_size == null ? true : wl.desired_size >= wl.min_size && wl.desired_size <= wl.max_size)]]))
    error_message = "Every workload needs min_size <= desired_size <= max_size."
  }
  validation {
    condition     = alltrue(flatten([for c, client in var.clients : [for w, wl in client.workloads : wl.mig_profile == null || wl.sharing_replicas == null || wl.cloud == "gcp"]]))
    error_message = "On EKS a workload takes a MIG profile or GPU sharing, not both (the GPU Operator's labels): pick one, or run it on GKE."
  }
}

variable "eks" {
  description = "The EKS cluster of the workloads with cloud = \"aws\"; null when there are none."
  type = object({
    cluster_name  = string
    node_role_arn = string
    subnet_ids    = list(string)
  })
  default = null
}

variable "gke" {
  description = "The GKE cluster of the workloads with cloud = \"gcp\"; null when there are none. node_locations defaults to the cluster's zones."
  type = object({
    location       = string
    cluster        = string
    node_locations = optional(list(string))
  })
  default = null
}
