package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"golang.org/x/oauth2"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics/metricstest"
)

// authFront is a proxy in front of the real Prometheus that records each request's authentication
// headers and body, then forwards it with the test server's own credentials.
func authFront(t *testing.T, srv *metricstest.Server) (*httptest.Server, func() []http.Header, func() []string) {
	var mu sync.Mutex
	var headers []http.Header
	var bodies []string
	front := srv.Front(t, func(_ http.ResponseWriter, r *http.Request) bool {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		headers, bodies = append(headers, r.Header.Clone()), append(bodies, string(body))
		mu.Unlock()
		r.Header.Del("Authorization")
		r.SetBasicAuth(metricstest.Username, metricstest.Password)
		return false
	})
	return front, func() []http.Header { mu.Lock(); defer mu.Unlock(); return headers },
		func() []string { mu.Lock(); defer mu.Unlock(); return bodies }
}

// kind "amp": every query is signed with SigV4 for service aps in the workspace's region, with the
// credentials of the AWS configuration given (the provider's chain), and its form body arrives whole.
func TestUtilization_AMPSignsWithSigV4(t *testing.T) {
	srv := metricstest.Shared(t)
	front, headers, bodies := authFront(t, srv)
	awsCfg := aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDGPUFLEET", "secret-key", "session-token")}
	c, err := metrics.New(context.Background(), metrics.Config{URL: front.URL, Kind: metrics.KindAMP,
		AWS: func(context.Context) (aws.Config, error) { return awsCfg, nil }})
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.Utilization(context.Background(), poolQuery(srv, "idle"))
	if err != nil || u.GPUsMax != 2 {
		t.Fatalf("%v, gpus %d", err, u.GPUsMax)
	}
	sig := regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=AKIDGPUFLEET/\d{8}/eu-west-1/aps/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*x-amz-date[a-z0-9;-]*, Signature=[0-9a-f]{64}$`)
	hs := headers()
	if len(hs) != 3 {
		t.Fatalf("%d requests, want one per metric", len(hs))
	}
	for i, h := range hs {
		if !sig.MatchString(h.Get("Authorization")) || h.Get("X-Amz-Security-Token") != "session-token" || h.Get("X-Amz-Date") == "" {
			t.Errorf("request %d: Authorization %q, token %q", i, h.Get("Authorization"), h.Get("X-Amz-Security-Token"))
		}
		if !strings.Contains(bodies()[i], "query=DCGM_FI_") {
			t.Errorf("request %d body %q", i, bodies()[i])
		}
	}
	if got := metrics.AMPRegion("aps-workspaces.ap-southeast-2.amazonaws.com"); got != "ap-southeast-2" {
		t.Errorf("AMPRegion = %q", got)
	}
}

// kind "gmp": every query carries the OAuth 2 access token of the credentials (ADC by default).
func TestUtilization_GMPSendsBearerToken(t *testing.T) {
	srv := metricstest.Shared(t)
	front, headers, _ := authFront(t, srv)
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.gpufleet", Expiry: time.Now().Add(time.Hour)})
	c, err := metrics.New(context.Background(), metrics.Config{URL: front.URL, Kind: metrics.KindGMP, TokenSource: ts})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Utilization(context.Background(), poolQuery(srv, "idle")); err != nil {
		t.Fatal(err)
	}
	for i, h := range headers() {
		if h.Get("Authorization") != "Bearer ya29.gpufleet" {
			t.Errorf("request %d: Authorization %q", i, h.Get("Authorization"))
		}
	}
}

// kind "prometheus" with a bearer token; and settings that cannot work are refused before any call.
func TestNew_config(t *testing.T) {
	srv := metricstest.Shared(t)
	front, headers, _ := authFront(t, srv)
	c, err := metrics.New(context.Background(), metrics.Config{URL: front.URL, BearerToken: "tok-123"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Utilization(context.Background(), poolQuery(srv, "idle")); err != nil {
		t.Fatal(err)
	}
	if h := headers(); len(h) == 0 || h[0].Get("Authorization") != "Bearer tok-123" {
		t.Errorf("headers %v", h)
	}
	for _, tc := range []struct {
		cfg   metrics.Config
		field string
	}{
		{metrics.Config{URL: "prometheus:9090"}, "url"},
		{metrics.Config{URL: "http://p:9090", Kind: "thanos"}, "kind"},
		{metrics.Config{URL: "http://p:9090", Kind: metrics.KindAMP, BearerToken: "x"}, "kind"},
		{metrics.Config{URL: "http://p:9090", Kind: metrics.KindAMP}, "kind"},
		{metrics.Config{URL: "http://p:9090", CAPEM: "not a certificate"}, "ca_pem"},
		{metrics.Config{URL: "http://p:9090", CAFile: "/nonexistent/ca.pem"}, "ca_file"},
		{metrics.Config{URL: "http://admin:s3cret@p:9090"}, "url"},
		{metrics.Config{URL: "p:9090?token=s3cret"}, "url"},
	} {
		_, err := metrics.New(context.Background(), tc.cfg)
		var ce *metrics.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("%+v: %v, want a %s error", tc.cfg, err, tc.field)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the error quotes the URL's secret: %v", err)
		}
	}
	// Query errors name the URL without its query, where a token may be.
	c, err = metrics.New(context.Background(), metrics.Config{URL: "http://127.0.0.1:1/prom?token=s3cret", Timeout: time.Second, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Utilization(context.Background(), poolQuery(srv, "idle")); err == nil || !strings.Contains(err.Error(), "at http://127.0.0.1:1/prom?…") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the error of an unreachable server: %v", err)
	}
}

// A secret is named as sent in clear only over plain http:// to another machine.
func TestConfig_cleartextSecret(t *testing.T) {
	for _, tc := range []struct {
		cfg  metrics.Config
		want string
	}{
		{metrics.Config{URL: "http://prometheus.monitoring:9090", BearerToken: "t"}, "bearer_token"},
		{metrics.Config{URL: "HTTP://10.0.3.7:9090/prom", Username: "u", Password: "p"}, "password"},
		{metrics.Config{URL: "https://prometheus.monitoring:9090", BearerToken: "t"}, ""},
		{metrics.Config{URL: "http://127.0.0.1:9090", BearerToken: "t"}, ""},
		{metrics.Config{URL: "http://[::1]:9090", Username: "u", Password: "p"}, ""},
		{metrics.Config{URL: "http://localhost:9090", BearerToken: "t"}, ""},
		{metrics.Config{URL: "http://prometheus.monitoring:9090"}, ""},
		{metrics.Config{URL: "http://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-1", Kind: metrics.KindAMP}, ""},
	} {
		if got := tc.cfg.CleartextSecret(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.cfg.URL, got, tc.want)
		}
	}
}
