# Which MIG slice of an H100 fits a replica needing 18 GiB?
locals {
  fitting = [
    for p in provider::gpufleet::mig_profiles("H100-80GB") : p.name
    if p.memory_gib >= 18
  ]
}

output "smallest_fitting_profile" {
  value = local.fitting[0] # "1g.20gb"
}
