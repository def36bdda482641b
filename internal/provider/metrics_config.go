package provider

import (
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics"
)

// metricsModel is the provider's metrics block: the Prometheus-compatible query API that scrapes
// dcgm-exporter, read by gpufleet_pool_utilization.
type metricsModel struct {
	URL            types.String `tfsdk:"url"`
	Kind           types.String `tfsdk:"kind"`
	BearerToken    types.String `tfsdk:"bearer_token"`
	Username       types.String `tfsdk:"username"`
	Password       types.String `tfsdk:"password"`
	CAFile         types.String `tfsdk:"ca_file"`
	CAPEM          types.String `tfsdk:"ca_pem"`
	TimeoutSeconds types.Int64  `tfsdk:"timeout_seconds"`
	MaxAttempts    types.Int64  `tfsdk:"max_attempts"`
}

func metricsBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "The Prometheus-compatible query API that scrapes NVIDIA's dcgm-exporter, read by `gpufleet_pool_utilization`. " +
			"Nothing is contacted until a data source reads it. See the guide *Right-sizing from utilisation*.",
		Attributes: map[string]schema.Attribute{
			"url": schema.StringAttribute{
				MarkdownDescription: "Base URL of the query API; `/api/v1/query_range` is appended. Prometheus: `http://prometheus.monitoring:9090`; " +
					"Amazon Managed Service for Prometheus: `https://aps-workspaces.<region>.amazonaws.com/workspaces/<workspace-id>`; " +
					"Google Cloud Managed Service for Prometheus: `https://monitoring.googleapis.com/v1/projects/<project>/location/global/prometheus`. Required in the block.",
				Optional:   true,
				Validators: []validator.String{kube.URL(endpointURLPattern, "must be an http(s) URL")},
			},
			"kind": schema.StringAttribute{
				MarkdownDescription: "The kind of endpoint and so its authentication: `prometheus` (default; optional bearer token or basic auth), " +
					"`amp` (Amazon Managed Service for Prometheus: requests signed with SigV4, service `aps`, with the provider's AWS credential chain and the region in the URL), " +
					"`gmp` (Google Cloud Managed Service for Prometheus: OAuth 2 with application default credentials, scope `monitoring.read`).",
				Optional:   true,
				Validators: []validator.String{oneOfNearest(metrics.KindPrometheus, metrics.KindAMP, metrics.KindGMP)},
			},
			"bearer_token": schema.StringAttribute{
				MarkdownDescription: "Bearer token sent as `Authorization: Bearer …` (kind `prometheus`). Sensitive; never logged. " +
					"Over a plain `http://` URL to another machine it travels in clear, and plan warns: use `https://`, or a loopback port-forward.",
				Optional:  true,
				Sensitive: true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1),
					stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("username"), path.MatchRelative().AtParent().AtName("password"))},
			},
			"username": schema.StringAttribute{
				MarkdownDescription: "Basic auth user name (kind `prometheus`).",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1), stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("password"))},
			},
			"password": schema.StringAttribute{
				MarkdownDescription: "Basic auth password (kind `prometheus`). Sensitive; never logged. Plan warns when a plain `http://` URL to another machine would carry it in clear.",
				Optional:            true,
				Sensitive:           true,
				Validators:          []validator.String{stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("username"))},
			},
			"ca_file": schema.StringAttribute{
				MarkdownDescription: "Path to the PEM CA certificate that signed the server's certificate.",
				Optional:            true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1),
					stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("ca_pem"))},
			},
			"ca_pem": schema.StringAttribute{
				MarkdownDescription: "The PEM CA certificate itself, instead of `ca_file`.",
				Optional:            true,
				Validators:          []validator.String{kube.PEMCertificates()},
			},
			"timeout_seconds": schema.Int64Attribute{
				MarkdownDescription: "Time limit of each query, also sent to the server as its `timeout`. Defaults to 30.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(1, 600)},
			},
			"max_attempts": schema.Int64Attribute{
				MarkdownDescription: "Attempts of a query that gets a server error (5xx) or 429, with exponential backoff from 250 ms. Defaults to 4. Other errors are not retried.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(1, 10)},
			},
		},
	}
}

// metricsConfig is the block as package metrics takes it.
func metricsConfig(m *metricsModel) *metrics.Config {
	return &metrics.Config{
		URL:         m.URL.ValueString(),
		Kind:        m.Kind.ValueString(),
		BearerToken: m.BearerToken.ValueString(),
		Username:    m.Username.ValueString(),
		Password:    m.Password.ValueString(),
		CAFile:      m.CAFile.ValueString(),
		CAPEM:       m.CAPEM.ValueString(),
		Timeout:     time.Duration(m.TimeoutSeconds.ValueInt64()) * time.Second,
		MaxAttempts: int(m.MaxAttempts.ValueInt64()),
	}
}
