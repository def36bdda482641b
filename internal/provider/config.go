package provider

import (
	"context"
	"fmt"
	"os"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/endpoint"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

var (
	awsRegionPattern      = regexp.MustCompile(`^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]{1,2}$`)
	roleARNPattern        = regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]{1,512}$`)
	gcpProjectPattern     = regexp.MustCompile(`^[a-z][a-z0-9-]{4,28}[a-z0-9]$`)
	serviceAccountPattern = regexp.MustCompile(`^[a-z][a-z0-9-]{4,28}[a-z0-9]@[a-z0-9-]+\.iam\.gserviceaccount\.com$`)
	endpointURLPattern    = regexp.MustCompile(`^https?://[^\s/]+(/.*)?$`)
	hostPortPattern       = regexp.MustCompile(`^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}$`)
)

type providerModel struct {
	AWS         *awsModel     `tfsdk:"aws"`
	GCP         *gcpModel     `tfsdk:"gcp"`
	DefaultTags types.Map     `tfsdk:"default_tags"`
	Pricing     *pricingModel `tfsdk:"pricing"`
	Policy      *policyModel  `tfsdk:"policy"`
	Metrics     *metricsModel `tfsdk:"metrics"`
}

type awsModel struct {
	Region                    types.String     `tfsdk:"region"`
	Profile                   types.String     `tfsdk:"profile"`
	SharedConfigFiles         types.List       `tfsdk:"shared_config_files"`
	AssumeRole                *assumeRoleModel `tfsdk:"assume_role"`
	Endpoints                 *endpointsModel  `tfsdk:"endpoints"`
	SkipCredentialsValidation types.Bool       `tfsdk:"skip_credentials_validation"`
	MaxRetries                types.Int64      `tfsdk:"max_retries"`
	MaxNodesPerNodeGroup      types.Int64      `tfsdk:"max_nodes_per_node_group"`
}

type assumeRoleModel struct {
	RoleARN     types.String `tfsdk:"role_arn"`
	SessionName types.String `tfsdk:"session_name"`
	ExternalID  types.String `tfsdk:"external_id"`
}

type endpointsModel struct {
	EKS         types.String `tfsdk:"eks"`
	EC2         types.String `tfsdk:"ec2"`
	AutoScaling types.String `tfsdk:"autoscaling"`
	STS         types.String `tfsdk:"sts"`
}

type gcpModel struct {
	Project                   types.String `tfsdk:"project"`
	Credentials               types.String `tfsdk:"credentials"`
	ImpersonateServiceAccount types.String `tfsdk:"impersonate_service_account"`
	Endpoint                  types.String `tfsdk:"endpoint"`
	ComputeEndpoint           types.String `tfsdk:"compute_endpoint"`
	Insecure                  types.Bool   `tfsdk:"insecure"`
}

type pricingModel struct {
	DiscountPercent types.Float64 `tfsdk:"discount_percent"`
	Overrides       types.Map     `tfsdk:"overrides"`
}

type priceOverrideModel struct {
	OnDemandHourlyUSD types.Float64 `tfsdk:"on_demand_hourly_usd"`
	SpotHourlyUSD     types.Float64 `tfsdk:"spot_hourly_usd"`
}

type policyModel struct {
	Enforcement types.String `tfsdk:"enforcement"`
	BundlePaths types.List   `tfsdk:"bundle_paths"`
	DataFiles   types.List   `tfsdk:"data_files"`
}

func (p *GPUFleetProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Declare GPU node pools on AWS EKS and Google GKE — GPU model, MIG partitioning, GPU sharing, " +
			"spot/on-demand mix, reservations, taints and per-client tags — and check every plan against right-sizing, " +
			"isolation, data-residency and cost policy. Cloud clients are created on first use: a configuration that only " +
			"uses GKE needs no AWS credentials, and `terraform validate` needs none at all.",
		Attributes: map[string]schema.Attribute{
			"default_tags": schema.MapAttribute{
				MarkdownDescription: "Tags merged under every pool's `tags` (a pool's own tags win). On EKS they reach the node groups, launch templates, instances and volumes; on GKE they become resource labels, so keys must follow GKE label rules there.",
				ElementType:         types.StringType,
				Optional:            true,
				Validators: []validator.Map{
					mapvalidator.KeysAre(stringvalidator.LengthBetween(1, 128)),
					mapvalidator.ValueStringsAre(stringvalidator.LengthAtMost(256)),
				},
			},
		},
		Blocks: map[string]schema.Block{
			"aws":     awsBlock(),
			"gcp":     gcpBlock(),
			"pricing": pricingBlock(),
			"policy":  policyBlock(),
			"metrics": metricsBlock(),
		},
	}
}

func awsBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "AWS settings for `gpufleet_eks_node_pool`. Credentials come from the AWS SDK's standard chain: environment variables, shared config and credentials files (including SSO and `credential_process`), web identity, and the EC2/ECS instance role.",
		Attributes: map[string]schema.Attribute{
			"region": schema.StringAttribute{
				MarkdownDescription: "AWS region of the EKS clusters, e.g. `us-east-1`. Defaults to `AWS_REGION` or the profile's region.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(awsRegionPattern, "must be an AWS region such as us-east-1 or eu-west-1")},
			},
			"profile": schema.StringAttribute{
				MarkdownDescription: "Named profile of the shared config files.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"shared_config_files": schema.ListAttribute{
				MarkdownDescription: "Shared config files to read instead of `~/.aws/config`.",
				ElementType:         types.StringType,
				Optional:            true,
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"skip_credentials_validation": schema.BoolAttribute{
				MarkdownDescription: "Skip the STS `GetCallerIdentity` call that checks the credentials on first use. Defaults to `false`.",
				Optional:            true,
			},
			"max_nodes_per_node_group": schema.Int64Attribute{
				MarkdownDescription: "The account's EKS service quota \"Nodes per managed node group\" (quota code L-BD136A63): default 450, adjustable in Service Quotas. " +
					"`gpufleet_eks_node_pool` fails at plan when a side's node group (on-demand or spot) would exceed it (`scaling.max_size`), and `gpufleet_recommendation` sizes AWS answers within it. " +
					"Set it to the raised quota when AWS has raised it for the account.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, catalog.MaxPoolSize)},
			},
			"max_retries": schema.Int64Attribute{
				MarkdownDescription: "Maximum attempts of the AWS SDK's standard retryer for throttling and server errors. Defaults to 25, as in the Terraform AWS provider: waiters poll, and a long apply makes hundreds of calls.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
		},
		Blocks: map[string]schema.Block{
			"assume_role": schema.SingleNestedBlock{
				MarkdownDescription: "Role to assume with STS `AssumeRole` on top of the base credentials.",
				Attributes: map[string]schema.Attribute{
					"role_arn": schema.StringAttribute{
						MarkdownDescription: "ARN of the IAM role, e.g. `arn:aws:iam::123456789012:role/gpufleet`.",
						Optional:            true,
						Validators:          []validator.String{stringvalidator.RegexMatches(roleARNPattern, "must be an IAM role ARN such as arn:aws:iam::123456789012:role/name")},
					},
					"session_name": schema.StringAttribute{
						MarkdownDescription: "Session name of the assumed role (2-64 characters).",
						Optional:            true,
						Validators:          []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^[\w+=,.@-]{2,64}$`), "must be 2-64 letters, digits or +=,.@_-")},
					},
					"external_id": schema.StringAttribute{
						MarkdownDescription: "External ID the role's trust policy requires.",
						Optional:            true,
						Sensitive:           true,
						Validators:          []validator.String{stringvalidator.LengthBetween(2, 1224)},
					},
				},
			},
			"endpoints": schema.SingleNestedBlock{
				MarkdownDescription: "Custom service endpoints, e.g. a VPC endpoint or the offline `cloudsim`.",
				Attributes: map[string]schema.Attribute{
					"eks":         endpointURLAttribute("EKS"),
					"ec2":         endpointURLAttribute("EC2"),
					"autoscaling": endpointURLAttribute("EC2 Auto Scaling"),
					"sts":         endpointURLAttribute("STS"),
				},
			},
		},
	}
}

func endpointURLAttribute(service string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: fmt.Sprintf("%s endpoint URL, e.g. `https://%s.us-east-1.amazonaws.com`.", service, map[string]string{"EKS": "eks", "EC2": "ec2", "EC2 Auto Scaling": "autoscaling", "STS": "sts"}[service]),
		Optional:            true,
		Validators:          []validator.String{kube.URL(endpointURLPattern, "must be an http(s) URL")},
	}
}

func gcpBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Google Cloud settings for `gpufleet_gke_node_pool`. Uses application default credentials unless `credentials` is set.",
		Attributes: map[string]schema.Attribute{
			"project": schema.StringAttribute{
				MarkdownDescription: "Default project of GKE node pools.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(gcpProjectPattern, "must be a Google Cloud project id: 6-30 lowercase letters, digits or hyphens, starting with a letter")},
			},
			"credentials": schema.StringAttribute{
				MarkdownDescription: "A service account key or other credentials JSON, or the path to one. Sensitive; never logged.",
				Optional:            true,
				Sensitive:           true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"impersonate_service_account": schema.StringAttribute{
				MarkdownDescription: "Service account to impersonate, e.g. `gpufleet@my-project.iam.gserviceaccount.com`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(serviceAccountPattern, "must be a service account email such as name@project.iam.gserviceaccount.com")},
			},
			"endpoint": schema.StringAttribute{
				MarkdownDescription: "GKE API endpoint as `host:port`, e.g. the offline `cloudsim`. Defaults to `container.googleapis.com:443`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.RegexMatches(hostPortPattern, "must be host:port")},
			},
			"compute_endpoint": schema.StringAttribute{
				MarkdownDescription: "Compute Engine API base URL, e.g. the offline `cloudsim`'s. Defaults to `https://compute.googleapis.com/compute/v1/`. gpufleet reads the node pools' instance group sizes there.",
				Optional:            true,
				Validators:          []validator.String{kube.URL(endpointURLPattern, "must be an http(s) URL")},
			},
			"insecure": schema.BoolAttribute{
				MarkdownDescription: "Talk to `endpoint` and `compute_endpoint` without credentials, plaintext. Only allowed with loopback endpoints (tests and the demo); the plan of a `gpufleet_gke_node_pool` fails unless `compute_endpoint` is on loopback too.",
				Optional:            true,
			},
		},
	}
}

func pricingBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Negotiated rates for the cost estimates and cost policy.",
		Attributes: map[string]schema.Attribute{
			"discount_percent": schema.Float64Attribute{
				MarkdownDescription: "Discount on catalog on-demand prices (enterprise discount, savings plan, committed use), 0 to 99. Spot prices are market prices and are not discounted.",
				Optional:            true,
				Validators:          []validator.Float64{float64validator.Between(0, 99)},
			},
			"overrides": schema.MapNestedAttribute{
				MarkdownDescription: "Hourly prices per node by instance or machine type, e.g. `{ \"p5.48xlarge\" = { on_demand_hourly_usd = 55 } }`. An override is taken as the negotiated rate: `discount_percent` does not apply to it.",
				Optional:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"on_demand_hourly_usd": schema.Float64Attribute{
							MarkdownDescription: "On-demand price of one node-hour in USD.",
							Required:            true,
							Validators:          []validator.Float64{float64validator.AtLeast(0)},
						},
						"spot_hourly_usd": schema.Float64Attribute{
							MarkdownDescription: "Spot price of one node-hour in USD. Defaults to the catalog's spot/on-demand ratio applied to `on_demand_hourly_usd`.",
							Optional:            true,
							Validators:          []validator.Float64{float64validator.AtLeast(0)},
						},
					},
				},
			},
		},
	}
}

func policyBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Plan-time policy: every gpufleet pool is checked against the embedded Rego bundle (the same one `conftest` runs in CI) plus `bundle_paths`.",
		Attributes: map[string]schema.Attribute{
			"enforcement": schema.StringAttribute{
				MarkdownDescription: "`deny` (default): deny findings fail the plan; `warn`: they become warnings; `off`: no evaluation, and every plan warns that policy is off.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(policy.EnforceDeny, policy.EnforceWarn, policy.EnforceOff)},
			},
			"bundle_paths": schema.ListAttribute{
				MarkdownDescription: "Directories of extra Rego v1 policies, loaded beside the embedded bundle.",
				ElementType:         types.StringType,
				Optional:            true,
				Validators:          []validator.List{listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"data_files": schema.ListAttribute{
				MarkdownDescription: "Policy data files (YAML or JSON, top-level key `gpufleet`): the client registry (cost centre, allowed regions, isolation, budget) and thresholds. The same files `conftest --data` reads.",
				ElementType:         types.StringType,
				Optional:            true,
				Validators:          []validator.List{listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
		},
	}
}

// ValidateConfig checks what single-attribute validators cannot: combinations, and files that must
// be readable. It runs at validate and plan, before any cloud call.
func (p *GPUFleetProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if g := cfg.GCP; g != nil && g.Insecure.ValueBool() && !g.Endpoint.IsUnknown() {
		if !endpoint.IsLoopback(g.Endpoint.ValueString()) {
			attributeError(&resp.Diagnostics, path.Root("gcp").AtName("insecure"), "Insecure GKE connection to a non-loopback endpoint",
				fmt.Sprintf("gcp.insecure sends unauthenticated plaintext gRPC and is only allowed with a loopback endpoint (127.0.0.1, ::1 or localhost), not %q.", g.Endpoint.ValueString()))
		}
	}
	if g := cfg.GCP; g != nil && !g.Credentials.IsNull() && !g.Credentials.IsUnknown() && !g.Insecure.ValueBool() {
		if _, err := conns.CredentialsJSON(g.Credentials.ValueString()); err != nil {
			attributeError(&resp.Diagnostics, path.Root("gcp").AtName("credentials"), "Unreadable credentials", err.Error())
		}
	}
	if g := cfg.GCP; g != nil && !g.Credentials.IsNull() && !g.Credentials.IsUnknown() && g.Insecure.ValueBool() {
		attributeError(&resp.Diagnostics, path.Root("gcp").AtName("credentials"), "Credentials with an insecure connection",
			"gcp.credentials would be sent over plaintext: remove it or turn gcp.insecure off.")
	}
	if mt := cfg.Metrics; mt != nil && (mt.Kind.ValueString() == metrics.KindAMP || mt.Kind.ValueString() == metrics.KindGMP) {
		// at plan, before any cloud call (kind "amp" loads the AWS credentials when the client is made)
		for _, a := range []struct {
			name  string
			value types.String
		}{{"bearer_token", mt.BearerToken}, {"username", mt.Username}, {"password", mt.Password}} {
			if !a.value.IsNull() {
				attributeError(&resp.Diagnostics, path.Root("metrics").AtName(a.name), "Credentials for another kind",
					fmt.Sprintf("metrics.%s is for kind \"prometheus\"; %q authenticates with its cloud's credentials.", a.name, mt.Kind.ValueString()))
			}
		}
	}
	if mt := cfg.Metrics; mt != nil && !mt.URL.IsUnknown() && !mt.BearerToken.IsUnknown() && !mt.Password.IsUnknown() {
		if secret := metricsConfig(mt).CleartextSecret(); secret != "" {
			resp.Diagnostics.AddAttributeWarning(path.Root("metrics").AtName("url"), "Credentials sent unencrypted",
				fmt.Sprintf("metrics.url is plain http:// to a host other than this machine, so metrics.%s is sent in clear on every query: anyone on the path can read it. Use https:// (with ca_file or ca_pem for a private CA), or reach the server on a loopback port-forward.", secret))
		}
	}
	if a := cfg.AWS; a != nil && a.AssumeRole != nil && a.AssumeRole.RoleARN.IsNull() {
		attributeError(&resp.Diagnostics, path.Root("aws").AtName("assume_role").AtName("role_arn"), "Missing role ARN", "an assume_role block needs role_arn.")
	}
	if !cfg.DefaultTags.IsNull() && !cfg.DefaultTags.IsUnknown() {
		tags := map[string]string{}
		resp.Diagnostics.Append(cfg.DefaultTags.ElementsAs(ctx, &tags, false)...)
		for k, v := range tags {
			if problem := pool.TagProblem(catalog.AWS, k, v); problem != "" {
				attributeError(&resp.Diagnostics, path.Root("default_tags").AtMapKey(k), "Invalid default tag", problem)
			}
		}
	}
	if cfg.Pricing != nil {
		validatePriceOverrides(cfg.Pricing, resp)
	}
	if cfg.Policy != nil {
		validatePolicyFiles(ctx, cfg.Policy, resp)
	}
}

func validatePriceOverrides(pricing *pricingModel, resp *provider.ValidateConfigResponse) {
	if pricing.Overrides.IsNull() || pricing.Overrides.IsUnknown() {
		return
	}
	for name := range pricing.Overrides.Elements() {
		if catalog.IsNodeTypeName(name) {
			continue
		}
		resp.Diagnostics.AddAttributeWarning(path.Root("pricing").AtName("overrides").AtMapKey(name), "Price override for an unknown type",
			fmt.Sprintf("pricing.overrides: %q is not a GPU instance or machine type in gpufleet's catalog; the override is kept but no pool can use it.", name))
	}
}

func validatePolicyFiles(ctx context.Context, pol *policyModel, resp *provider.ValidateConfigResponse) {
	if files, ok := knownStrings(ctx, pol.DataFiles, resp); ok {
		if _, err := policy.LoadData(files); err != nil {
			dataFileErrors(&resp.Diagnostics, err)
		}
	}
	if dirs, ok := knownStrings(ctx, pol.BundlePaths, resp); ok {
		for i, dir := range dirs {
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				detail := fmt.Sprintf("%q is not a readable directory", dir)
				if err != nil {
					detail = err.Error()
				}
				attributeError(&resp.Diagnostics, path.Root("policy").AtName("bundle_paths").AtListIndex(i), "Unusable policy bundle path", detail)
			}
		}
	}
}

// knownStrings returns the list's values when the list and all its values are known.
func knownStrings(ctx context.Context, l types.List, resp *provider.ValidateConfigResponse) ([]string, bool) {
	if l.IsNull() || l.IsUnknown() {
		return nil, false
	}
	for _, e := range l.Elements() {
		if e.IsUnknown() {
			return nil, false
		}
	}
	var out []string
	resp.Diagnostics.Append(l.ElementsAs(ctx, &out, false)...)
	return out, !resp.Diagnostics.HasError()
}

// attributeError adds an error at the attribute and names it in the text too: terraform shows
// provider-block diagnostics with the source line only, not the attribute path.
// dataFileErrors reports an error of policy.LoadData at policy.data_files[i]: one diagnostic per
// problem of each unusable file.
func dataFileErrors(diags *diag.Diagnostics, err error) {
	fileErrs := policy.DataFileErrors(err)
	if len(fileErrs) == 0 {
		attributeError(diags, path.Root("policy").AtName("data_files"), "Unusable policy data file", err.Error())
	}
	for _, fe := range fileErrs {
		summary := "Unusable policy data file"
		if len(fe.Problems) > 0 {
			summary = "Invalid policy data"
		}
		for _, line := range fe.Lines() {
			attributeError(diags, path.Root("policy").AtName("data_files").AtListIndex(fe.Index), summary, line)
		}
	}
}

func attributeError(diags *diag.Diagnostics, at path.Path, summary, detail string) {
	diags.AddAttributeError(at, summary, at.String()+": "+detail)
}
