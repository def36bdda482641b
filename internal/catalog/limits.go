package catalog

// The clouds' node limits as they are (issue #40, item 3).
//
//   - EKS: "Nodes per managed node group" is an adjustable Service Quota (quota code L-BD136A63),
//     default 450 (Amazon EKS User Guide, "View and manage Amazon EKS and Fargate service quotas",
//     https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html, as of 2026-11; audit
//     A12 in ../shared/audits/eks-vs-real.md; cloudsim's eks_validate.go enforces the seeded
//     quota). A gpufleet_eks_node_pool is backed by up to two managed node groups (its on-demand
//     and spot sides), each held to the quota: the provider setting aws.max_nodes_per_node_group
//     says what the account's quota is, default EKSNodesPerNodeGroupDefault.
//   - GKE: 1 000 nodes per node pool per zone (GKE "Quotas and limits", "Nodes per node pool zone",
//     https://cloud.google.com/kubernetes-engine/quotas, as of 2026-11; audit ../shared/audits/
//     gke-vs-real.md: "GKE's 1000 is per zone of a node pool"). A regional pool over three zones
//     holds 3 000 nodes.
//   - Every other pool (Karpenter, ComputeClass, which no cloud object sizes) keeps gpufleet's own
//     MaxPoolNodes.
const (
	EKSNodesPerNodeGroupDefault = 450
	GKENodesPerPoolZone         = 1000
	// MaxPoolSize is the largest size any pool attribute takes: four zones of a GCP region at
	// GKENodesPerPoolZone (us-central1 has a, b, c and f).
	MaxPoolSize = 4 * GKENodesPerPoolZone
)

// NodeLimit is how many nodes one pool of a cloud may hold: on AWS the node group quota (0: the
// default), on GKE the per-zone limit over its zones (0 zones: one).
func NodeLimit(cloud Cloud, zones, eksQuota int) int {
	if cloud == AWS {
		if eksQuota <= 0 {
			return EKSNodesPerNodeGroupDefault
		}
		return eksQuota
	}
	return GKENodesPerPoolZone * max(zones, 1)
}
