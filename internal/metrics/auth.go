package metrics

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// AMPService is the SigV4 signing name of Amazon Managed Service for Prometheus
// (https://docs.aws.amazon.com/prometheus/latest/userguide/AMP-onboard-query-APIs.html).
const AMPService = "aps"

// GMPScope is the OAuth scope of Cloud Monitoring's Prometheus query API
// (https://cloud.google.com/stackdriver/docs/managed-prometheus/query-api-ui).
const GMPScope = "https://www.googleapis.com/auth/monitoring.read"

var ampHost = regexp.MustCompile(`^aps-workspaces(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?::\d+)?$`)

// AMPRegion is the region in an AMP workspace endpoint's host, "" when the host names none.
func AMPRegion(host string) string {
	if m := ampHost.FindStringSubmatch(host); m != nil {
		return m[1]
	}
	return ""
}

// sigV4Transport signs each request with SigV4 for AMP, with credentials from the provider's AWS
// credential chain (refreshed by its credentials cache).
type sigV4Transport struct {
	next   http.RoundTripper
	aws    func(context.Context) (aws.Config, error)
	region string
	signer *v4.Signer
}

func (t *sigV4Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	cfg, err := t.aws(ctx)
	if err != nil {
		return nil, fmt.Errorf("AWS credentials for Amazon Managed Prometheus: %w", err)
	}
	region := t.region
	if region == "" {
		region = cfg.Region
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("AWS credentials for Amazon Managed Prometheus: %w", err)
	}
	var body []byte
	if req.Body != nil {
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		_ = req.Body.Close()
	}
	r := req.Clone(ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	sum := sha256.Sum256(body)
	if err := t.signer.SignHTTP(ctx, creds, r, hex.EncodeToString(sum[:]), AMPService, region, time.Now()); err != nil {
		return nil, fmt.Errorf("signing the Amazon Managed Prometheus request: %w", err)
	}
	return t.next.RoundTrip(r)
}

// googleTokenSource is application default credentials with the monitoring read scope.
func googleTokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	ts, err := google.DefaultTokenSource(context.WithoutCancel(ctx), GMPScope)
	if err != nil {
		return nil, fmt.Errorf("application default credentials for Google Managed Prometheus: %w", err)
	}
	return ts, nil
}
