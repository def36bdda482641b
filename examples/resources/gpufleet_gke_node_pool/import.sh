# GKE node pools are imported by <project>/<location>/<cluster>/<name>.
terraform import gpufleet_gke_node_pool.serve ml-platform/europe-west4/ml/globex-serve
