package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

var _ validator.String = oneOfNearestValidator{}

// oneOfNearestValidator is stringvalidator.OneOf with the valid values listed nearest first, so a
// typo's error leads with what was meant.
type oneOfNearestValidator struct{ values []string }

// oneOfNearest accepts exactly one of values.
func oneOfNearest(values ...string) validator.String { return oneOfNearestValidator{values: values} }

func (v oneOfNearestValidator) Description(context.Context) string {
	return "value must be one of: " + strings.Join(v.values, ", ")
}

func (v oneOfNearestValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v oneOfNearestValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || slices.Contains(v.values, req.ConfigValue.ValueString()) {
		return
	}
	resp.Diagnostics.AddAttributeError(req.Path, "Invalid value", fmt.Sprintf("%s: %q is not valid; valid values, nearest first: %s",
		req.Path, req.ConfigValue.ValueString(), strings.Join(catalog.Nearest(req.ConfigValue.ValueString(), v.values), ", ")))
}
