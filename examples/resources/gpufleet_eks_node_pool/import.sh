# EKS node pools are imported by <cluster_name>:<name>.
terraform import gpufleet_eks_node_pool.train ml:acme-train
