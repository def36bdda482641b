# EKS node pools are imported by <cluster_name>:<name>, read in the provider's region ...
terraform import gpufleet_eks_node_pool.train ml:acme-train

# ... or by <cluster_name>:<name>@<region> for a pool in another region.
terraform import gpufleet_eks_node_pool.train_eu ml:acme-train@eu-west-1
