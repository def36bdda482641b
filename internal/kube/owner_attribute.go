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
