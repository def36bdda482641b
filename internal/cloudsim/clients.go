package cloudsim

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// AWSConfig returns an aws.Config for talking to the simulator: the region, static dummy
// credentials (requests are SigV4-signed; the simulator reads the region from the signature's
// scope and ignores the rest) and the SDK's standard retryer with its usual attempts and
// retryable errors, but a backoff capped at maxBackoff so retries against a local simulator
// stay fast (0 means 20ms). It reads no environment or shared config files. Point a service
// client at the simulator with BaseEndpoint:
//
//	cfg := cloudsim.AWSConfig("us-east-1", 0)
//	eksClient := eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().EKS) })
func AWSConfig(region string, maxBackoff time.Duration) aws.Config {
	if maxBackoff <= 0 {
		maxBackoff = 20 * time.Millisecond
	}
	return aws.Config{
		Region:      region,
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("AKIDCLOUDSIM", "cloudsim-secret", "")),
		Retryer: func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) { o.MaxBackoff = maxBackoff })
		},
	}
}

// GKEClientOptions returns the options that point container.NewClusterManagerClient at the
// simulator: its endpoint, no authentication and a plaintext gRPC connection.
func (s *Sim) GKEClientOptions() []option.ClientOption {
	return []option.ClientOption{
		option.WithEndpoint(s.endpoints.GKE),
		option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
	}
}

// ComputeClientOptions returns the options that point the google.golang.org/api/compute/v1
// client (compute.NewService) at the simulator's Compute endpoint, without authentication.
func (s *Sim) ComputeClientOptions() []option.ClientOption {
	return []option.ClientOption{option.WithEndpoint(s.endpoints.Compute), option.WithoutAuthentication()}
}
