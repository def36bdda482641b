# An inference pool on L4 for client "globex": four replicas share each GPU in staging, the
# on-demand nodes consume a reservation, and the cluster autoscaler owns the size between 1 and 6
# nodes (no desired_size), so gpufleet never scales it back.
resource "gpufleet_gke_node_pool" "serve" {
  project        = "ml-platform"
  location       = "europe-west4"
  cluster        = "ml"
  name           = "globex-serve"
  client         = "globex"
  machine_type   = "g2-standard-8"
  node_locations = ["europe-west4-a"]

  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 5
  }

  gpu {
    driver_version = "LATEST"
    sharing {
      strategy = "time-slicing"
      replicas = 4
    }
  }

  scaling {
    min_size = 1
    max_size = 6
  }

  capacity {
    reservation {
      type = "specific"
      name = "l4-reserved"
    }
  }

  labels = { team = "search" }
  tags   = { project = "semantic-search" }
}

# A fine-tuning pool of A100 80GB slices: every GPU partitioned into 3g.40gb, half of the nodes
# above one on-demand node on Spot VMs, in the one zone of europe-west4 that offers the A100 80GB.
resource "gpufleet_gke_node_pool" "tune" {
  location       = "europe-west4"
  cluster        = "ml"
  name           = "acme-tune"
  client         = "acme"
  machine_type   = "a2-ultragpu-1g"
  node_locations = ["europe-west4-a"]

  workload {
    kind           = "training"
    environment    = "production"
    gpu_memory_gib = 30
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
    spot_percentage = 50
    on_demand_base  = 1
  }
}

output "serve_monthly_cost" {
  value = gpufleet_gke_node_pool.serve.estimated_monthly_cost_usd
}
