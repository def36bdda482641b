# The offline demo (make demo): catalog look-ups and MIG planning with the provider served from bin/.
# Later steps of the demo add EKS and GKE pools against cloudsim.
terraform {
  required_providers {
    gpufleet = {
      source = "gpufleet/gpufleet"
    }
  }
}

provider "gpufleet" {
  pricing {
    discount_percent = 10
  }
}

variable "gpu_memory_gib" {
  description = "GPU memory one inference replica needs."
  type        = number
  default     = 20
}

data "gpufleet_gpu_catalog" "aws" {
  cloud              = "aws"
  region             = "us-east-1"
  min_gpu_memory_gib = var.gpu_memory_gib
  max_gpus_per_node  = 1
}

data "gpufleet_gpu_catalog" "gcp" {
  cloud              = "gcp"
  region             = "europe-west4"
  min_gpu_memory_gib = var.gpu_memory_gib
  max_gpus_per_node  = 1
}

locals {
  h100_slices = [
    for p in provider::gpufleet::mig_profiles("H100-80GB") : p
    if p.memory_gib >= var.gpu_memory_gib
  ]
}

output "cheapest_single_gpu" {
  description = "Cheapest single-GPU node per cloud that fits one replica (after the 10 % discount)."
  value = {
    aws = "${data.gpufleet_gpu_catalog.aws.node_types[0].name} (${data.gpufleet_gpu_catalog.aws.node_types[0].gpu_model}) $${data.gpufleet_gpu_catalog.aws.node_types[0].on_demand_hourly_usd}/h"
    gcp = "${data.gpufleet_gpu_catalog.gcp.node_types[0].name} (${data.gpufleet_gpu_catalog.gcp.node_types[0].gpu_model}) $${data.gpufleet_gpu_catalog.gcp.node_types[0].on_demand_hourly_usd}/h"
  }
}

output "h100_mig_slice" {
  description = "Smallest H100 MIG slice that fits, and how many replicas one H100 then serves."
  value       = "${local.h100_slices[0].name}: ${local.h100_slices[0].max_instances} replicas per GPU"
}
