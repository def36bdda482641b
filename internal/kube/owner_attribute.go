package kube

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
)

// OwnerIDAttribute is the owner_id attribute of a resource that manages objects in a cluster: the
// id written in LabelOwner when it creates them, kept across plans; what says whose objects.
func OwnerIDAttribute(what string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Random id made when the resource is created, written as the label `" + LabelOwner + "` of " + what + ": gpufleet changes and deletes only objects that carry it, never one of the same name that another state or a person made.",
		Computed:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// ClusterIdentityAttribute is the cluster_identity attribute of a resource that manages objects in
// a cluster: ClusterIdentity of the cluster its objects were written to, recorded at apply, so that
// an apply whose access reaches another cluster stops before any write (SameCluster).
func ClusterIdentityAttribute(kind string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Identity of the cluster the objects were written to: the uid of the " + kind + " CustomResourceDefinition there, which no other cluster has. An apply whose `kubernetes` block (or cluster) now reaches a cluster of another identity stops before it writes anything, instead of writing the objects there and leaving the old ones running in the old cluster: replace the resource to move it. Null when the CRD could not be read (no `get` on it).",
		Computed:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}
