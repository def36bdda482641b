package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
)

// Configure turns the provider block into conns.Meta. No cloud is contacted here: clients are
// created on first use by the resources that need them.
func (p *GPUFleetProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	meta := &conns.Meta{UserAgent: "terraform-provider-gpufleet/" + p.version}
	if cfg.AWS != nil {
		meta.AWSSettings = awsSettings(ctx, cfg.AWS, resp)
		meta.Pool.EKSMaxNodesPerNodeGroup = int(cfg.AWS.MaxNodesPerNodeGroup.ValueInt64())
	}
	if cfg.GCP != nil {
		meta.GCPSettings = conns.GCPSettings{
			Project:                   cfg.GCP.Project.ValueString(),
			Credentials:               cfg.GCP.Credentials.ValueString(),
			ImpersonateServiceAccount: cfg.GCP.ImpersonateServiceAccount.ValueString(),
			Endpoint:                  cfg.GCP.Endpoint.ValueString(),
			ComputeEndpoint:           cfg.GCP.ComputeEndpoint.ValueString(),
			Insecure:                  cfg.GCP.Insecure.ValueBool(),
		}
	}
	if !cfg.DefaultTags.IsNull() {
		resp.Diagnostics.Append(cfg.DefaultTags.ElementsAs(ctx, &meta.Pool.DefaultTags, false)...)
	}
	if cfg.Metrics != nil {
		if cfg.Metrics.URL.IsNull() {
			attributeError(&resp.Diagnostics, path.Root("metrics").AtName("url"), "Missing metrics URL", "the metrics block needs the url of a Prometheus-compatible query API")
		}
		meta.Metrics = metricsConfig(cfg.Metrics)
	}
	if cfg.Pricing != nil {
		meta.Pool.Pricing = pricing(ctx, cfg.Pricing, resp)
	}
	var dataFiles, bundlePaths []string
	meta.Enforcement = policy.EnforceDeny
	if cfg.Policy != nil {
		if !cfg.Policy.DataFiles.IsNull() {
			resp.Diagnostics.Append(cfg.Policy.DataFiles.ElementsAs(ctx, &dataFiles, false)...)
		}
		if !cfg.Policy.BundlePaths.IsNull() {
			resp.Diagnostics.Append(cfg.Policy.BundlePaths.ElementsAs(ctx, &bundlePaths, false)...)
		}
		if !cfg.Policy.Enforcement.IsNull() {
			meta.Enforcement = cfg.Policy.Enforcement.ValueString()
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	data, err := policy.LoadData(dataFiles)
	if err != nil {
		dataFileErrors(&resp.Diagnostics, err)
		return
	}
	meta.Pool.Registry = data.Registry
	if meta.Enforcement != policy.EnforceOff {
		engine, err := policy.Shared(ctx, policy.Options{BundlePaths: bundlePaths, Data: data})
		if err != nil {
			attributeError(&resp.Diagnostics, path.Root("policy").AtName("bundle_paths"), "Unusable policy bundle", err.Error())
			return
		}
		meta.Policy = engine
	}

	tflog.Debug(ctx, "configured gpufleet provider", map[string]any{
		"aws_region":   meta.AWSSettings.Region,
		"gcp_project":  meta.GCPSettings.Project,
		"policy_files": len(dataFiles),
		"clients":      len(data.Registry),
	})
	resp.ResourceData = meta
	resp.DataSourceData = meta
}

func awsSettings(ctx context.Context, a *awsModel, resp *provider.ConfigureResponse) conns.AWSSettings {
	s := conns.AWSSettings{
		Region:                    a.Region.ValueString(),
		Profile:                   a.Profile.ValueString(),
		SkipCredentialsValidation: a.SkipCredentialsValidation.ValueBool(),
		MaxAttempts:               int(a.MaxRetries.ValueInt64()),
	}
	if !a.SharedConfigFiles.IsNull() {
		resp.Diagnostics.Append(a.SharedConfigFiles.ElementsAs(ctx, &s.SharedConfigFiles, false)...)
	}
	if r := a.AssumeRole; r != nil {
		s.AssumeRoleARN = r.RoleARN.ValueString()
		s.AssumeRoleSessionName = r.SessionName.ValueString()
		s.AssumeRoleExternalID = r.ExternalID.ValueString()
	}
	if e := a.Endpoints; e != nil {
		s.EKSEndpoint = e.EKS.ValueString()
		s.EC2Endpoint = e.EC2.ValueString()
		s.AutoScalingEndpoint = e.AutoScaling.ValueString()
		s.STSEndpoint = e.STS.ValueString()
	}
	return s
}

func pricing(ctx context.Context, m *pricingModel, resp *provider.ConfigureResponse) catalog.Pricing {
	out := catalog.Pricing{DiscountPercent: m.DiscountPercent.ValueFloat64()}
	if m.Overrides.IsNull() {
		return out
	}
	overrides := map[string]priceOverrideModel{}
	resp.Diagnostics.Append(m.Overrides.ElementsAs(ctx, &overrides, false)...)
	out.Overrides = make(map[string]catalog.Override, len(overrides))
	for name, o := range overrides {
		out.Overrides[name] = catalog.Override{OnDemandUSD: o.OnDemandHourlyUSD.ValueFloat64(), SpotUSD: o.SpotHourlyUSD.ValueFloat64()}
	}
	return out
}
