package poolschema

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
)

// DataSource is what every render-only pool data source gets from the provider; they embed it.
type DataSource struct {
	Meta *conns.Meta
}

func (d *DataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	meta, err := conns.FromProviderData(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected provider data", err.Error())
		return
	}
	d.Meta = meta
}

// Configured reports whether the provider configured the data source, with an error otherwise.
func (d *DataSource) Configured(diags *diag.Diagnostics) bool {
	if d.Meta == nil {
		diags.AddError("Provider not configured", "the gpufleet provider was not configured before the data source was read")
		return false
	}
	return true
}
