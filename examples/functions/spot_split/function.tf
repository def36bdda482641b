# 12 nodes, 4 always on-demand, the rest on spot: { on_demand = 4, spot = 8 }.
output "training_split" {
  value = provider::gpufleet::spot_split(12, 4, 100)
}
