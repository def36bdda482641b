# Karpenter node pools are imported by <cluster_name>:<name>; gpufleet finds the pool's objects by
# their labels and reads the configuration it recorded on the node class.
terraform import gpufleet_karpenter_node_pool.train ml:acme-train
