output "pools" {
  description = "Every pool by <client>-<workload>: cloud, client, GPU model and count per node, the cloud objects behind it, taints, monthly cost estimate."
  value = { for k, p in local.pools : k => {
    cloud         = p.cloud
    client        = p.pool.client
    gpu_model     = p.pool.gpu_model
    gpus_per_node = p.pool.gpus_per_node
    sides         = [for s in p.sides : { name = s.name, capacity_type = s.capacity_type, desired_size = s.desired_size, max_size = s.max_size, status = s.status }]
    taints        = sort([for t in p.pool.effective_taints : "${t.key}=${t.value}:${t.effect}"])
    tags          = p.pool.effective_tags
    monthly_usd   = p.pool.estimated_monthly_cost_usd
  } }
}

output "monthly_cost_per_client" {
  description = "Estimated monthly cost of each client's pools, USD (desired or minimum sizes, spot share at spot prices, the provider's pricing)."
  value = { for client in keys(var.clients) : client => sum(concat([0], [
    for k, p in local.pools : coalesce(p.pool.estimated_monthly_cost_usd, 0) if p.pool.client == client
  ])) }
}

output "gpus_per_client" {
  description = "GPUs each client's pools run now (the cloud objects' current sizes)."
  value = { for client in keys(var.clients) : client => sum(concat([0], flatten([
    for k, p in local.pools : [for s in p.sides : s.desired_size * p.pool.gpus_per_node] if p.pool.client == client
  ]))) }
}

output "policy_findings" {
  description = "The policy's findings per pool, as \"<severity> <rule> at <attribute>\"."
  value       = { for k, p in local.pools : k => [for f in p.pool.policy_findings : "${f.severity} ${f.rule} at ${f.attribute}"] }
}
