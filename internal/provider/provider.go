// Package provider is the gpufleet Terraform provider: its configuration, and the registration of
// the resources, data sources and functions that live in their own packages.
package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/eks"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/gke"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter"
)

var (
	_ provider.Provider                   = &GPUFleetProvider{}
	_ provider.ProviderWithValidateConfig = &GPUFleetProvider{}
	_ provider.ProviderWithFunctions      = &GPUFleetProvider{}
)

// GPUFleetProvider is the provider implementation.
type GPUFleetProvider struct {
	version string
}

// New returns the provider factory for providerserver.Serve and acceptance tests.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &GPUFleetProvider{version: version}
	}
}

func (p *GPUFleetProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "gpufleet"
	resp.Version = p.version
}

func (p *GPUFleetProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		eks.NewNodePoolResource,
		gke.NewNodePoolResource,
		karpenter.NewNodePoolResource,
		computeclass.NewComputeClassResource,
	}
}

func (p *GPUFleetProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewGPUCatalogDataSource,
		NewRecommendationDataSource,
		NewPoolUtilizationDataSource,
		karpenter.NewManifestsDataSource,
		computeclass.NewManifestDataSource,
	}
}

func (p *GPUFleetProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{
		NewMIGProfilesFunction,
		NewGPUMemoryRequiredFunction,
		NewSpotSplitFunction,
	}
}
