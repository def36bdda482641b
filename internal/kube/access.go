package kube

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"golang.org/x/oauth2"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

var hostPattern = regexp.MustCompile(`^https://[^\s/]+(/.*)?$`)

// Access is how gpufleet reaches one cluster's API server. Token, ClientKey and the exec plugin's
// environment are secrets: never log them.
type Access struct {
	Host   string
	CAData []byte // PEM; empty means the system's roots
	// Token is a static bearer token; TokenSource makes fresh ones, each used for TokenTTL (an EKS
	// token lives 15 minutes); 0: TokenSource is asked for every request, as an OAuth 2.0 token
	// source that reuses its token until shortly before its own expiry wants.
	Token       string
	TokenSource func(context.Context) (string, error)
	TokenTTL    time.Duration
	ClientCert  []byte // PEM
	ClientKey   []byte // PEM
	Exec        *ExecConfig
	// Cluster names the cluster in messages, e.g. "EKS cluster ml".
	Cluster string
}

// ExecConfig is a client-go credential plugin (client.authentication.k8s.io), as a kubeconfig's
// users[].user.exec.
type ExecConfig struct {
	APIVersion string
	Command    string
	Args       []string
	Env        map[string]string
}

// RESTConfig is the client-go configuration of the access, with gpufleet's user agent.
func (a Access) RESTConfig(userAgent string) (*rest.Config, error) {
	if a.Host == "" {
		return nil, fmt.Errorf("no API server address for %s", a.Cluster)
	}
	cfg := &rest.Config{
		Host:      a.Host,
		UserAgent: userAgent,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   a.CAData,
			CertData: a.ClientCert,
			KeyData:  a.ClientKey,
		},
		BearerToken: a.Token,
		QPS:         20,
		Burst:       40,
		Timeout:     60 * time.Second,
	}
	if a.Exec != nil {
		ec := &clientcmdapi.ExecConfig{
			APIVersion:      a.Exec.APIVersion,
			Command:         a.Exec.Command,
			Args:            a.Exec.Args,
			InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
		}
		for k, v := range a.Exec.Env {
			ec.Env = append(ec.Env, clientcmdapi.ExecEnvVar{Name: k, Value: v})
		}
		cfg.ExecProvider = ec
	}
	if a.TokenSource != nil {
		src := &cachedToken{make: a.TokenSource, ttl: a.TokenTTL}
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return &bearerRoundTripper{next: rt, token: src} }
	}
	return cfg, nil
}

// EKS tokens. `aws eks get-token` (aws/aws-cli awscli/customizations/eks/get_token.py, read
// 2026-11-28) presigns an STS GetCallerIdentity GET request for 60 seconds (URL_TIMEOUT) with the
// header x-k8s-aws-id set to the cluster name and signed, and the token is "k8s-aws-v1." followed
// by the URL in unpadded URL-safe base64. The cluster's authenticator (aws-iam-authenticator) sends
// the request to STS to learn who signed it, and accepts tokens for 15 minutes after they are
// signed; the CLI gives them an expiry of 14 minutes, after which clients make a new one.
const (
	eksTokenPrefix  = "k8s-aws-v1."
	eksClusterIDHdr = "x-k8s-aws-id"
	eksTokenRefresh = 14 * time.Minute
)

// EKSToken makes a token for the EKS cluster named cluster from the STS client's credentials, as
// `aws eks get-token --cluster-name cluster` does.
func EKSToken(ctx context.Context, stsClient *sts.Client, cluster string) (string, error) {
	presigned, err := sts.NewPresignClient(stsClient).PresignGetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}, func(o *sts.PresignOptions) {
		o.ClientOptions = append(o.ClientOptions, func(so *sts.Options) {
			so.APIOptions = append(so.APIOptions,
				smithyhttp.SetHeaderValue(eksClusterIDHdr, cluster),
				smithyhttp.SetHeaderValue("X-Amz-Expires", "60"))
		})
	})
	if err != nil {
		return "", fmt.Errorf("presigning STS GetCallerIdentity for the EKS token: %w", err)
	}
	return eksTokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(presigned.URL)), nil
}

// ErrClusterNotFound marks a cluster the cloud does not have (any more): the objects that were in it
// went with it.
var ErrClusterNotFound = errors.New("cluster not found")

// EKSAccess is the access to an EKS cluster: its endpoint and certificate authority from
// DescribeCluster, and tokens made from the STS client's credentials.
func EKSAccess(ctx context.Context, eksClient *eks.Client, stsClient *sts.Client, cluster string) (Access, error) {
	out, err := eksClient.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String(cluster)})
	if err != nil {
		var nf *ekstypes.ResourceNotFoundException
		if errors.As(err, &nf) {
			return Access{}, fmt.Errorf("EKS cluster %q: %w (%w)", cluster, ErrClusterNotFound, err)
		}
		return Access{}, fmt.Errorf("describing EKS cluster %q: %w", cluster, err)
	}
	c := out.Cluster
	if c == nil {
		return Access{}, fmt.Errorf("describing EKS cluster %q: the answer has no cluster", cluster)
	}
	if aws.ToString(c.Endpoint) == "" {
		return Access{}, fmt.Errorf("EKS cluster %q has no API server endpoint yet (status %v)", cluster, c.Status)
	}
	a := Access{Host: aws.ToString(c.Endpoint), Cluster: "EKS cluster " + cluster}
	if c.CertificateAuthority != nil && aws.ToString(c.CertificateAuthority.Data) != "" {
		ca, err := base64.StdEncoding.DecodeString(aws.ToString(c.CertificateAuthority.Data))
		if err != nil {
			return Access{}, fmt.Errorf("EKS cluster %q: certificate authority data is not base64: %w", cluster, err)
		}
		a.CAData = ca
	}
	a.TokenSource = func(ctx context.Context) (string, error) { return EKSToken(ctx, stsClient, cluster) }
	a.TokenTTL = eksTokenRefresh
	return a, nil
}

// GKECluster is what GKEAccess needs of a GKE cluster (container.v1 Cluster: endpoint and
// masterAuth.clusterCaCertificate), so that the GKE client stays the caller's.
type GKECluster struct {
	Name, Endpoint, CACertificateBase64 string
}

// GKEAccess is the access to a GKE cluster: its endpoint (https://<endpoint>) and certificate
// authority (base64 PEM) from GetCluster, and OAuth 2.0 access tokens of the provider's Google
// credentials (scope cloud-platform), which GKE's API server accepts as bearer tokens.
func GKEAccess(c GKECluster, tokens oauth2.TokenSource) (Access, error) {
	if c.Endpoint == "" {
		return Access{}, fmt.Errorf("GKE cluster %q has no endpoint yet", c.Name)
	}
	a := Access{Host: c.Endpoint, Cluster: "GKE cluster " + c.Name}
	if !strings.HasPrefix(a.Host, "https://") && !strings.HasPrefix(a.Host, "http://") {
		a.Host = "https://" + a.Host
	}
	if c.CACertificateBase64 != "" {
		ca, err := base64.StdEncoding.DecodeString(c.CACertificateBase64)
		if err != nil {
			return Access{}, fmt.Errorf("GKE cluster %q: CA certificate is not base64: %w", c.Name, err)
		}
		a.CAData = ca
	}
	// The Google token source reuses a token until shortly before it expires (oauth2's
	// ReuseTokenSource): asked at every request, never a token past its own expiry.
	tokens = oauth2.ReuseTokenSource(nil, tokens)
	a.TokenSource = func(context.Context) (string, error) {
		t, err := tokens.Token()
		if err != nil {
			return "", fmt.Errorf("getting a Google access token: %w", err)
		}
		return t.AccessToken, nil
	}
	return a, nil
}

// cachedToken makes a token on first use and again once it is ttl old.
type cachedToken struct {
	make func(context.Context) (string, error)
	ttl  time.Duration

	mu    sync.Mutex
	token string
	at    time.Time
}

func (c *cachedToken) get(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" && time.Since(c.at) < c.ttl {
		return c.token, nil
	}
	t, err := c.make(ctx)
	if err != nil {
		return "", err
	}
	c.token, c.at = t, time.Now()
	return t, nil
}

type bearerRoundTripper struct {
	next  http.RoundTripper
	token *cachedToken
}

func (b *bearerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return b.next.RoundTrip(req)
	}
	t, err := b.token.get(req.Context())
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+t)
	return b.next.RoundTrip(req)
}
