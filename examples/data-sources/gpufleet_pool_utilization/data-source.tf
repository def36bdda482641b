# The provider block names the query API that scrapes dcgm-exporter, e.g.:
#
# provider "gpufleet" {
#   metrics {
#     url  = "https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-0123456789abcdef"
#     kind = "amp"
#   }
# }

# What the pool's GPUs did over the last two weeks.
data "gpufleet_pool_utilization" "acme_train" {
  selector  = "{gpufleet_pool=\"acme-train\"}"
  window    = "14d"
  step      = "5m"
  node_type = "p5.4xlarge"
  region    = "us-east-1"
}

output "acme_train_utilization" {
  value = {
    gpus                   = data.gpufleet_pool_utilization.acme_train.gpus_max
    utilization_p95        = data.gpufleet_pool_utilization.acme_train.utilization_p95_percent
    memory_p99_gib         = data.gpufleet_pool_utilization.acme_train.memory_used_p99_gib
    idle_gpu_hours         = data.gpufleet_pool_utilization.acme_train.idle_gpu_hours
    idle_monthly_usd       = data.gpufleet_pool_utilization.acme_train.idle_monthly_usd
    hours_under_30_percent = data.gpufleet_pool_utilization.acme_train.hours_under_30_percent
  }
}
