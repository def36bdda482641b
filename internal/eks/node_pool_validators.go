package eks

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	fwtypes "github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

var _ resource.ResourceWithConfigValidators = &NodePoolResource{}

// ConfigValidators are the checks across attributes that the schema's validators cannot make.
func (r *NodePoolResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{launchTemplateNameValidator{}}
}

// launchTemplateNameValidator fails at plan time, at name, when a side's launch template name
// would exceed EC2's limit; otherwise CreateLaunchTemplate would reject it half-way through an apply.
type launchTemplateNameValidator struct{}

func (launchTemplateNameValidator) Description(context.Context) string {
	return fmt.Sprintf("the launch template names gpufleet.<cluster_name>.<name>-spot fit EC2's %d characters", maxLaunchTemplateName)
}

func (v launchTemplateNameValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (launchTemplateNameValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cluster, name fwtypes.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("cluster_name"), &cluster)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	if resp.Diagnostics.HasError() || !knownString(cluster) || !knownString(name) {
		return
	}
	longest := launchTemplateName(cluster.ValueString(), name.ValueString()+pool.SuffixSpot)
	if n := len(longest); n > maxLaunchTemplateName {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Launch template name too long",
			fmt.Sprintf("name: the pool's launch templates are named gpufleet.<cluster_name>.<node group>, and %q is %d characters, over EC2's %d. Shorten name or cluster_name by %d characters.",
				longest, n, maxLaunchTemplateName, n-maxLaunchTemplateName))
	}
}
