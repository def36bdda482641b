package kube_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"golang.org/x/oauth2"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
)

// shortTokens hands out Google access tokens that expire in 5 s, as a metadata server does near a
// token's end of life.
type shortTokens struct {
	mu sync.Mutex
	n  int
}

func (s *shortTokens) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return &oauth2.Token{AccessToken: fmt.Sprintf("ya29.t%d", s.n), TokenType: "Bearer", Expiry: time.Now().Add(5 * time.Second)}, nil
}

type recordAuth struct{ got []string }

func (r *recordAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	r.got = append(r.got, req.Header.Get("Authorization"))
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Request: req}, nil
}

// A GKE cluster's requests carry a Google token that has not expired: the token source is asked at
// each request (it reuses its token until shortly before its own expiry), never a token kept for
// a fixed time past it, which the API server answers 401.
func TestGKEAccess_tokenNeverPastItsExpiry(t *testing.T) {
	access, err := kube.GKEAccess(kube.GKECluster{Name: "ml", Endpoint: "34.1.2.3"}, &shortTokens{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := access.RESTConfig("gpufleet-test")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordAuth{}
	rt := cfg.WrapTransport(rec)
	for range 2 {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "https://34.1.2.3/version", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	if len(rec.got) != 2 || rec.got[0] != "Bearer ya29.t1" || rec.got[1] != "Bearer ya29.t2" {
		t.Fatalf("Authorization headers %q: want a fresh token for the second request, the first expiring", rec.got)
	}
}

// A DescribeCluster answer without a cluster (a proxy's empty body) is an error naming the
// cluster, not a crash of the provider.
func TestEKSAccess_answerWithoutCluster(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")}
	eksClient := eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	stsClient := sts.NewFromConfig(cfg, func(o *sts.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	_, err := kube.EKSAccess(context.Background(), eksClient, stsClient, "ml")
	if err == nil || !strings.Contains(err.Error(), `"ml"`) || !strings.Contains(err.Error(), "no cluster") {
		t.Fatalf("want an error naming the cluster, got %v", err)
	}
}
