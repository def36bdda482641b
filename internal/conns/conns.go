// Package conns holds what the provider's Configure hands to every resource and data source: cloud
// clients, built lazily on first use, and the settings that shape derived values (default tags,
// pricing, the client registry, the policy engine). Building clients lazily means a configuration
// that only uses GKE never needs AWS credentials, and `terraform validate` needs none at all.
package conns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	container "cloud.google.com/go/container/apiv1"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	compute "google.golang.org/api/compute/v1"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/endpoint"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// DefaultMaxAttempts is the AWS SDK retryer's attempt count unless aws.max_retries says otherwise.
// The SDK's own default of 3 gives up too soon for infrastructure work: a long apply makes hundreds
// of calls (waiters poll), and the Terraform AWS provider settles on 25 for the same reason.
const DefaultMaxAttempts = 25

// AWSSettings is the provider's aws block.
type AWSSettings struct {
	Region                    string
	Profile                   string
	SharedConfigFiles         []string
	AssumeRoleARN             string
	AssumeRoleSessionName     string
	AssumeRoleExternalID      string
	EKSEndpoint               string
	EC2Endpoint               string
	AutoScalingEndpoint       string
	STSEndpoint               string
	SkipCredentialsValidation bool
	// MaxAttempts is the SDK retryer's attempt count (0 = DefaultMaxAttempts).
	MaxAttempts int
}

// PollInterval is how often waiters poll: the SDK waiters' defaults (30 s and up) against AWS, but
// quickly against an EKS endpoint on this machine (cloudsim, localstack), which answers in
// milliseconds and would otherwise stretch every apply by minutes.
func (s AWSSettings) PollInterval() time.Duration {
	if s.EKSEndpoint != "" && endpoint.IsLoopback(s.EKSEndpoint) {
		return 100 * time.Millisecond
	}
	return 0
}

// RegionHint is the region as configured, without loading the SDK's configuration (which may call
// out for credentials): the provider block, then the environment. "" when only a profile knows.
func (s AWSSettings) RegionHint() string {
	for _, r := range []string{s.Region, os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION")} {
		if r != "" {
			return r
		}
	}
	return ""
}

// GCPSettings is the provider's gcp block. Credentials is secret: never log it.
type GCPSettings struct {
	Project                   string
	Credentials               string
	ImpersonateServiceAccount string
	Endpoint                  string
	ComputeEndpoint           string
	Insecure                  bool
}

// Meta is the provider data every resource and data source receives.
type Meta struct {
	AWSSettings AWSSettings
	GCPSettings GCPSettings
	Pool        pool.Environment
	UserAgent   string
	// Policy evaluates pool documents at plan time; nil when enforcement is "off".
	Policy      *policy.Engine
	Enforcement string
	// Metrics is the provider's metrics block (nil without one); see MetricsClient.
	Metrics *metrics.Config

	awsOnce sync.Once
	awsCfg  aws.Config
	awsErr  error

	gkeOnce sync.Once
	gke     *container.ClusterManagerClient
	gkeErr  error

	computeOnce sync.Once
	compute     *compute.Service
	computeErr  error

	awsClients sync.Map // "<service>/<region>" → *eks.Client, *ec2.Client or *autoscaling.Client
	google     googleTokens

	shown sync.Map
}

// Once reports whether key is seen for the first time in this provider process (terraform runs one
// per operation): plan-wide notices are shown once per plan, not once per pool.
func (m *Meta) Once(key string) bool {
	_, seen := m.shown.LoadOrStore(key, true)
	return !seen
}

// AWSConfig loads the AWS configuration once, through the SDK's standard chain (environment, shared
// config and credentials files, SSO, web identity, IMDS), then assumes the role when one is set.
func (m *Meta) AWSConfig(ctx context.Context) (aws.Config, error) {
	m.awsOnce.Do(func() { m.awsCfg, m.awsErr = m.loadAWS(ctx) })
	return m.awsCfg, m.awsErr
}

func (m *Meta) loadAWS(ctx context.Context) (aws.Config, error) {
	s := m.AWSSettings
	var opts []func(*config.LoadOptions) error
	if s.Region != "" {
		opts = append(opts, config.WithRegion(s.Region))
	}
	if s.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(s.Profile))
	}
	if len(s.SharedConfigFiles) > 0 {
		opts = append(opts, config.WithSharedConfigFiles(s.SharedConfigFiles))
	}
	attempts := s.MaxAttempts
	if attempts == 0 {
		attempts = DefaultMaxAttempts
	}
	opts = append(opts, config.WithRetryer(func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = attempts
			// The client-side retry quota would turn a burst of throttling across many parallel
			// pools into "retry quota exceeded" failures; backoff alone paces the retries.
			o.RateLimiter = ratelimit.None
		})
	}))
	if m.UserAgent != "" {
		opts = append(opts, config.WithAppID(m.UserAgent))
	}
	// The context of the first caller may end with its request; credentials refresh later on.
	cfg, err := config.LoadDefaultConfig(context.WithoutCancel(ctx), opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("loading AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return aws.Config{}, errors.New("no AWS region: set aws.region in the provider block, or AWS_REGION / a profile region")
	}
	if s.AssumeRoleARN != "" {
		stsClient := sts.NewFromConfig(cfg, m.stsOptions)
		cfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(stsClient, s.AssumeRoleARN, func(o *stscreds.AssumeRoleOptions) {
			if s.AssumeRoleSessionName != "" {
				o.RoleSessionName = s.AssumeRoleSessionName
			}
			if s.AssumeRoleExternalID != "" {
				o.ExternalID = aws.String(s.AssumeRoleExternalID)
			}
		}))
	}
	if !s.SkipCredentialsValidation {
		if _, err := sts.NewFromConfig(cfg, m.stsOptions).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err != nil {
			return aws.Config{}, fmt.Errorf("validating AWS credentials with STS GetCallerIdentity (set aws.skip_credentials_validation to skip): %w", err)
		}
	}
	return cfg, nil
}

func (m *Meta) stsOptions(o *sts.Options) {
	if m.AWSSettings.STSEndpoint != "" {
		o.BaseEndpoint = aws.String(m.AWSSettings.STSEndpoint)
	}
}

// EKS returns an EKS client in the provider's region, honouring the endpoint override.
func (m *Meta) EKS(ctx context.Context) (*eks.Client, error) { return m.EKSIn(ctx, "") }

// EC2 returns an EC2 client in the provider's region, honouring the endpoint override.
func (m *Meta) EC2(ctx context.Context) (*ec2.Client, error) { return m.EC2In(ctx, "") }

// EKSIn returns an EKS client in region ("" for the provider's), built once per region: a pool
// lives in the region its state records, whatever the provider's region is today.
func (m *Meta) EKSIn(ctx context.Context, region string) (*eks.Client, error) {
	return awsClient(ctx, m, "eks", region, func(cfg aws.Config) *eks.Client {
		return eks.NewFromConfig(cfg, func(o *eks.Options) {
			if m.AWSSettings.EKSEndpoint != "" {
				o.BaseEndpoint = aws.String(m.AWSSettings.EKSEndpoint)
			}
		})
	})
}

// EC2In returns an EC2 client in region ("" for the provider's), built once per region.
func (m *Meta) EC2In(ctx context.Context, region string) (*ec2.Client, error) {
	return awsClient(ctx, m, "ec2", region, func(cfg aws.Config) *ec2.Client {
		return ec2.NewFromConfig(cfg, func(o *ec2.Options) {
			if m.AWSSettings.EC2Endpoint != "" {
				o.BaseEndpoint = aws.String(m.AWSSettings.EC2Endpoint)
			}
		})
	})
}

// AutoScalingIn returns an EC2 Auto Scaling client in region ("" for the provider's), built once per
// region. Endpoint overrides must name it when they name EKS or EC2 on this machine (a simulator):
// a client that fell back to the real service from a simulated world would reach AWS.
func (m *Meta) AutoScalingIn(ctx context.Context, region string) (*autoscaling.Client, error) {
	s := m.AWSSettings
	if s.AutoScalingEndpoint == "" && (endpoint.IsLoopback(s.EKSEndpoint) || endpoint.IsLoopback(s.EC2Endpoint)) {
		return nil, errors.New("aws.endpoints names a local EKS or EC2 endpoint (a simulator such as cloudsim) but no autoscaling endpoint: set aws.endpoints.autoscaling too (cloudsim prints AUTOSCALING_ENDPOINT), or the EC2 Auto Scaling calls would go to AWS")
	}
	return awsClient(ctx, m, "autoscaling", region, func(cfg aws.Config) *autoscaling.Client {
		return autoscaling.NewFromConfig(cfg, func(o *autoscaling.Options) {
			if s.AutoScalingEndpoint != "" {
				o.BaseEndpoint = aws.String(s.AutoScalingEndpoint)
			}
		})
	})
}

// AWSRegion is the provider's region: aws.region, else the SDK's (environment, profile).
func (m *Meta) AWSRegion(ctx context.Context) (string, error) {
	cfg, err := m.AWSConfig(ctx)
	return cfg.Region, err
}

// STS returns an STS client, honouring the endpoint override: EKS tokens are presigned
// GetCallerIdentity requests of it.
func (m *Meta) STS(ctx context.Context) (*sts.Client, error) {
	cfg, err := m.AWSConfig(ctx)
	if err != nil {
		return nil, err
	}
	return sts.NewFromConfig(cfg, m.stsOptions), nil
}

// awsClient returns the cached client of service in region, building it with build from the
// provider's configuration in that region (same credentials, retryer and endpoint overrides).
func awsClient[C any](ctx context.Context, m *Meta, service, region string, build func(aws.Config) *C) (*C, error) {
	cfg, err := m.AWSConfig(ctx)
	if err != nil {
		return nil, err
	}
	if region == "" {
		region = cfg.Region
	}
	key := service + "/" + region
	if c, ok := m.awsClients.Load(key); ok {
		return c.(*C), nil
	}
	cfg = cfg.Copy()
	cfg.Region = region
	c, _ := m.awsClients.LoadOrStore(key, build(cfg))
	return c.(*C), nil
}

// GKE returns the GKE cluster manager client, built once: application default credentials unless
// credentials are given, an impersonated service account when set, plaintext only to loopback.
func (m *Meta) GKE(ctx context.Context) (*container.ClusterManagerClient, error) {
	m.gkeOnce.Do(func() { m.gke, m.gkeErr = m.newGKE(ctx) })
	return m.gke, m.gkeErr
}

func (m *Meta) newGKE(ctx context.Context) (*container.ClusterManagerClient, error) {
	opts, err := m.gcpOptions(ctx, m.GCPSettings.Endpoint, option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil {
		return nil, err
	}
	c, err := container.NewClusterManagerClient(context.WithoutCancel(ctx), opts...)
	if err != nil {
		return nil, fmt.Errorf("creating the GKE client: %w", err)
	}
	return c, nil
}

// Compute returns the Compute Engine client, built once with the same credentials as GKE: node
// pools' current sizes live in their instance group managers, which the GKE API does not report.
func (m *Meta) Compute(ctx context.Context) (*compute.Service, error) {
	m.computeOnce.Do(func() {
		opts, err := m.gcpOptions(ctx, m.GCPSettings.ComputeEndpoint)
		if err != nil {
			m.computeErr = err
			return
		}
		m.compute, m.computeErr = compute.NewService(context.WithoutCancel(ctx), opts...)
		if m.computeErr != nil {
			m.computeErr = fmt.Errorf("creating the Compute Engine client: %w", m.computeErr)
		}
	})
	return m.compute, m.computeErr
}

// gcpOptions are the client options of one Google API: its endpoint, and credentials unless
// gcp.insecure (then insecureOpts, e.g. a plaintext gRPC dial).
func (m *Meta) gcpOptions(ctx context.Context, address string, insecureOpts ...option.ClientOption) ([]option.ClientOption, error) {
	s := m.GCPSettings
	var opts []option.ClientOption
	if address != "" {
		opts = append(opts, option.WithEndpoint(address))
	}
	switch {
	case s.Insecure:
		if !endpoint.IsLoopback(address) {
			return nil, fmt.Errorf("gcp.insecure is only allowed with loopback endpoints, not %q", address)
		}
		opts = append(opts, option.WithoutAuthentication())
		opts = append(opts, insecureOpts...)
	case s.ImpersonateServiceAccount != "":
		ts, err := impersonated(context.WithoutCancel(ctx), s)
		if err != nil {
			return nil, err
		}
		opts = append(opts, option.WithTokenSource(ts))
	default:
		creds, err := credentialOptions(s.Credentials)
		if err != nil {
			return nil, err
		}
		opts = append(opts, creds...)
	}
	if m.UserAgent != "" {
		opts = append(opts, option.WithUserAgent(m.UserAgent))
	}
	return opts, nil
}

const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// credentialOptions turns the gcp.credentials setting (a key file's JSON or its path) into client
// options; none means application default credentials. The file is read here (CredentialsJSON),
// not by the client library, whose errors quote the path: the value may be a secret.
func credentialOptions(credentials string) ([]option.ClientOption, error) {
	if credentials == "" {
		return nil, nil
	}
	data, err := CredentialsJSON(credentials)
	if err != nil {
		return nil, err
	}
	return []option.ClientOption{option.WithAuthCredentialsJSON(CredentialsType(data), data)}, nil
}

// CredentialsType reads the "type" of a Google credentials JSON.
func CredentialsType(data []byte) option.CredentialsType {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(data, &head) != nil || head.Type == "" {
		return option.ServiceAccount
	}
	return option.CredentialsType(head.Type)
}

// Close releases the GKE connection, if one was made.
func (m *Meta) Close() error {
	if m.gke != nil {
		return m.gke.Close()
	}
	return nil
}

// FromProviderData extracts the Meta in a resource's or data source's Configure. It returns nil
// before the provider is configured (e.g. during validate): callers then skip cloud work.
func FromProviderData(providerData any) (*Meta, error) {
	if providerData == nil {
		return nil, nil
	}
	meta, ok := providerData.(*Meta)
	if !ok {
		return nil, fmt.Errorf("expected *conns.Meta, got %T: please report this issue to the provider developers", providerData)
	}
	return meta, nil
}
