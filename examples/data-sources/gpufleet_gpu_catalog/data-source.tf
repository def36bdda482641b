# The cheapest single-GPU AWS shapes with at least 20 GiB per GPU in eu-west-1.
data "gpufleet_gpu_catalog" "inference" {
  cloud              = "aws"
  region             = "eu-west-1"
  min_gpu_memory_gib = 20
  max_gpus_per_node  = 1
}

output "cheapest" {
  value = {
    instance_type = data.gpufleet_gpu_catalog.inference.node_types[0].name
    gpu           = data.gpufleet_gpu_catalog.inference.node_types[0].gpu_model
    hourly_usd    = data.gpufleet_gpu_catalog.inference.node_types[0].on_demand_hourly_usd
  }
}

# MIG-capable GKE shapes in any European region under $5 per node-hour, one row per region, with
# the source and date of each price.
data "gpufleet_gpu_catalog" "mig_eu" {
  cloud                    = "gcp"
  regions                  = ["europe-*"]
  mig_capable              = true
  max_on_demand_hourly_usd = 5
}

output "mig_eu" {
  value = [for n in data.gpufleet_gpu_catalog.mig_eu.node_types : "${n.name} in ${n.region}: $${n.on_demand_hourly_usd}/h (${n.price_source}, ${n.price_as_of})"]
}
