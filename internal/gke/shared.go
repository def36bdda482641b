package gke

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
)

// What the resources of a GKE cluster share: gpufleet_gke_node_pool and gpufleet_gke_compute_class.

// GPUModel is a GKE pool's gpu block: the shared MIG and sharing blocks plus GKE's accelerator
// settings.
type GPUModel = gpuModel

// RegionOf is the region of a GKE location: the location itself, or a zone's region.
func RegionOf(location string) string { return regionOf(location) }

// DriverVersions are GKE's driver installation settings.
func DriverVersions() []string { return append([]string(nil), driverVersions...) }

// ClusterAttributes are the id and project of a resource in a GKE cluster.
func ClusterAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "`<project>/<location>/<cluster>/<name>`, also the import id.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"project": schema.StringAttribute{
			MarkdownDescription: "Google Cloud project of the cluster. Defaults to the provider's `gcp.project`.",
			Optional:            true,
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{stringvalidator.RegexMatches(projectPattern, "must be a Google Cloud project id: 6-30 lowercase letters, digits or hyphens, starting with a letter")},
		},
	}
}

// ImportClusterID imports a resource of a GKE cluster by <project>/<location>/<cluster>/<name>;
// example is an id to show.
func ImportClusterID(ctx context.Context, resourceType, example string, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	parts := strings.Split(req.ID, "/")
	if len(parts) != 4 || slices.Contains(parts, "") {
		resp.Diagnostics.AddError("Invalid import id", fmt.Sprintf("%q: import %s as <project>/<location>/<cluster>/<name>, e.g. %s.", req.ID, resourceType, example))
		return
	}
	for i, name := range []string{"project", "location", "cluster", "name"} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), parts[i])...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}

// PlanProject fills in a planned project: the configuration's, else the state's (when there is a
// state, prior gives its project), else the provider's gcp.project; false, with an error at
// project, when there is none. what names the resource in the message ("the pool").
func PlanProject(planned *types.String, hasState bool, prior func() types.String, meta *conns.Meta, what string, diags *diag.Diagnostics) bool {
	if !planned.IsUnknown() && !planned.IsNull() {
		return true
	}
	switch {
	case hasState && !prior().IsNull():
		*planned = prior()
	case meta.GCPSettings.Project != "":
		*planned = types.StringValue(meta.GCPSettings.Project)
	default:
		diags.AddAttributeError(path.Root("project"), "Missing project", "set project on "+what+" or gcp.project in the provider block.")
		return false
	}
	return true
}
