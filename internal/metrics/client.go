package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	promconfig "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"golang.org/x/oauth2"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/endpoint"
)

// Kinds of query endpoint.
const (
	KindPrometheus = "prometheus" // Prometheus, Thanos, Mimir, VictoriaMetrics …: bearer / basic auth
	KindAMP        = "amp"        // Amazon Managed Service for Prometheus: SigV4, service "aps"
	KindGMP        = "gmp"        // Google Cloud Managed Service for Prometheus: OAuth 2 (ADC)
)

// Defaults of Config.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultMaxAttempts = 4
)

// Config is an endpoint and its authentication. BearerToken and Password are secrets: never log them.
type Config struct {
	// URL is the query API's base, to which /api/v1/query_range is appended: e.g.
	// http://prometheus:9090, https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-…,
	// https://monitoring.googleapis.com/v1/projects/PROJECT/location/global/prometheus.
	URL  string
	Kind string
	// Plain Prometheus authentication.
	BearerToken        string
	Username, Password string
	// CAFile / CAPEM: the CA that signed the server's certificate (any kind).
	CAFile, CAPEM string
	// Timeout bounds each query (sent to the server too); MaxAttempts bounds attempts of a query
	// that gets a 5xx or 429.
	Timeout     time.Duration
	MaxAttempts int
	// AWS gives the credentials (and the region unless the URL names one) for KindAMP.
	AWS func(context.Context) (aws.Config, error)
	// TokenSource overrides application default credentials for KindGMP.
	TokenSource oauth2.TokenSource
}

// CleartextSecret names the secret cfg would send unencrypted, "bearer_token" or "password", when
// its URL is plain http:// to a host other than this machine (a sidecar or port-forward on
// loopback is fine); "" otherwise. Anyone on the path reads an Authorization header sent so, and a
// Prometheus token often reads every series of the cluster. Prometheus's own clients allow it, so
// callers warn rather than refuse: an in-cluster Service without TLS is a common setup.
func (cfg Config) CleartextSecret() string {
	u, err := url.Parse(cfg.URL)
	if err != nil || !strings.EqualFold(u.Scheme, "http") || u.Host == "" || endpoint.IsLoopback(u.Host) {
		return ""
	}
	switch {
	case cfg.BearerToken != "":
		return "bearer_token"
	case cfg.Password != "":
		return "password"
	}
	return ""
}

// Client queries one endpoint.
type Client struct {
	api     v1.API
	cfg     Config
	where   string // the URL as errors name it: without user information or query
	query   string // the URL's query, which may hold a token: never in an error
	backoff time.Duration
}

// ConfigError names the Config field that is wrong ("url", "bearer_token", "ca_file" …).
type ConfigError struct {
	Field string
	Err   error
}

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// New builds a client; it makes no request.
func New(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.Kind == "" {
		cfg.Kind = KindPrometheus
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	// Errors never quote the URL as given: it may carry a password or a token.
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &ConfigError{"url", errors.New("not an http(s) URL of a Prometheus query API")}
	}
	if u.User != nil {
		return nil, &ConfigError{"url", errors.New("the URL carries credentials (user:password@): give them as username and password, or bearer_token, which are secret")}
	}
	if cfg.Kind != KindPrometheus && cfg.Kind != KindAMP && cfg.Kind != KindGMP {
		return nil, &ConfigError{"kind", fmt.Errorf("kind %q is not one of prometheus, amp, gmp", cfg.Kind)}
	}
	if cfg.Kind != KindPrometheus && (cfg.BearerToken != "" || cfg.Username != "" || cfg.Password != "") {
		return nil, &ConfigError{"kind", fmt.Errorf("bearer_token, username and password are for kind \"prometheus\"; %q authenticates with its cloud's credentials", cfg.Kind)}
	}
	hc := promconfig.HTTPClientConfig{
		BearerToken: promconfig.Secret(cfg.BearerToken),
		TLSConfig:   promconfig.TLSConfig{CAFile: cfg.CAFile, CA: cfg.CAPEM},
	}
	if cfg.Username != "" || cfg.Password != "" {
		hc.BasicAuth = &promconfig.BasicAuth{Username: cfg.Username, Password: promconfig.Secret(cfg.Password)}
	}
	if err := hc.Validate(); err != nil {
		return nil, &ConfigError{"bearer_token", err}
	}
	rt, err := promconfig.NewRoundTripperFromConfigWithContext(ctx, hc, "gpufleet-metrics")
	if err != nil {
		field := "ca_file"
		if cfg.CAPEM != "" {
			field = "ca_pem"
		}
		return nil, &ConfigError{field, fmt.Errorf("TLS settings: %w", err)}
	}
	switch cfg.Kind {
	case KindPrometheus:
	case KindAMP:
		if cfg.AWS == nil {
			return nil, &ConfigError{"kind", errors.New(`kind "amp" needs AWS credentials, and none are configured`)}
		}
		rt = &sigV4Transport{next: rt, aws: cfg.AWS, region: AMPRegion(u.Host), signer: v4.NewSigner()}
	case KindGMP:
		ts := cfg.TokenSource
		if ts == nil {
			if ts, err = googleTokenSource(ctx); err != nil {
				return nil, &ConfigError{"kind", err}
			}
		}
		rt = &oauth2.Transport{Source: ts, Base: rt}
	}
	c, err := api.NewClient(api.Config{Address: cfg.URL, RoundTripper: rt})
	where := u.Scheme + "://" + u.Host + u.Path
	if u.RawQuery != "" {
		where += "?…"
	}
	if err != nil {
		return nil, &ConfigError{"url", err}
	}
	return &Client{api: v1.NewAPI(c), cfg: cfg, where: where, query: u.RawQuery, backoff: 250 * time.Millisecond}, nil
}

// QueryError is a failed query, with the argument to blame: "url" (unreachable, not a Prometheus
// API, or a server error that outlasted the retries), "auth" (401/403), "selector" (rejected by the
// server) or "timeout".
type QueryError struct {
	Arg    string
	Metric string
	Err    error
}

func (e *QueryError) Error() string { return e.Err.Error() }
func (e *QueryError) Unwrap() error { return e.Err }

// Fetch runs the pool's range queries: one per metric, at the query's step.
func (c *Client) Fetch(ctx context.Context, q Query) (Series, []string, error) {
	if err := q.Validate(); err != nil {
		return Series{}, nil, err
	}
	var s Series
	var warnings []string
	for _, m := range []struct {
		name string
		into *model.Matrix
	}{{MetricGPUUtil, &s.GPUUtil}, {MetricEngineActive, &s.EngineActive}, {MetricFBUsed, &s.FBUsed}} {
		mat, w, err := c.queryRange(ctx, q, m.name)
		if err != nil {
			return Series{}, nil, err
		}
		*m.into = mat
		warnings = append(warnings, w...)
	}
	return s, warnings, nil
}

// Utilization fetches and computes the pool's statistics; server warnings join Compute's.
func (c *Client) Utilization(ctx context.Context, q Query) (Utilization, error) {
	s, warnings, err := c.Fetch(ctx, q)
	if err != nil {
		return Utilization{}, err
	}
	u, err := Compute(q, s)
	u.Warnings = slices.Concat(warnings, u.Warnings)
	return u, err
}

func (c *Client) queryRange(ctx context.Context, q Query, metric string) (model.Matrix, []string, error) {
	start, end := q.Range()
	expr := q.Expr(metric)
	var lastErr error
	for attempt := range c.cfg.MaxAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(c.backoff << (attempt - 1)):
			}
		}
		qctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
		v, warnings, _, err := c.api.QueryRange(qctx, expr, v1.Range{Start: start, End: end, Step: q.Step}, v1.WithTimeout(c.cfg.Timeout))
		cancel()
		if err == nil {
			mat, ok := v.(model.Matrix)
			if !ok {
				return nil, nil, &QueryError{"url", metric, fmt.Errorf("querying %s at %s: the answer is a %s, not the matrix a Prometheus range query returns", expr, c.where, v.Type())}
			}
			return mat, warnings, nil
		}
		lastErr = err
		if !retryable(err) {
			break
		}
	}
	return nil, nil, c.redacted(c.classify(expr, metric, lastErr))
}

func retryable(err error) bool {
	var apiErr *v1.Error
	if errors.As(err, &apiErr) {
		return apiErr.Type == v1.ErrServer || apiErr.Type == v1.ErrTimeout || strings.Contains(apiErr.Msg, "429")
	}
	return false
}

// redacted is a query error without the URL's query, which the HTTP client's errors quote with the
// request's URL ("Post \"http://…?token=…\": …").
func (c *Client) redacted(err error) error {
	var qe *QueryError
	if c.query == "" || !errors.As(err, &qe) || !strings.Contains(qe.Err.Error(), c.query) {
		return err
	}
	return &QueryError{qe.Arg, qe.Metric, errors.New(strings.ReplaceAll(qe.Err.Error(), c.query, "…"))}
}

func (c *Client) classify(expr, metric string, err error) error {
	at := fmt.Sprintf("querying %s at %s", expr, c.where)
	var apiErr *v1.Error
	var netErr net.Error
	switch {
	case errors.As(err, &apiErr):
		switch {
		case strings.Contains(apiErr.Msg, "401") || strings.Contains(apiErr.Msg, "403"):
			return &QueryError{"auth", metric, fmt.Errorf("%s: the server refused the credentials (%s): check %s", at, apiErr.Msg, authHint(c.cfg.Kind))}
		case apiErr.Type == v1.ErrBadData:
			return &QueryError{"selector", metric, fmt.Errorf("%s: the server rejected the query: %s", at, apiErr.Msg)}
		case apiErr.Type == v1.ErrTimeout || apiErr.Type == v1.ErrCanceled:
			return &QueryError{"timeout", metric, fmt.Errorf("%s: timed out after %s (%s): widen the step, shorten the window or raise metrics.timeout", at, c.cfg.Timeout, apiErr.Msg)}
		case apiErr.Type == v1.ErrBadResponse:
			return &QueryError{"url", metric, fmt.Errorf("%s: the answer is not a Prometheus query API response (%s): is the URL the query API's base, e.g. http://prometheus:9090?", at, apiErr.Msg)}
		case apiErr.Type == v1.ErrServer:
			return &QueryError{"url", metric, fmt.Errorf("%s: server error after %d attempts: %s", at, c.cfg.MaxAttempts, apiErr.Msg)}
		case strings.Contains(apiErr.Msg, "404"):
			return &QueryError{"url", metric, fmt.Errorf("%s: %s: no Prometheus query API at this URL (the client appends /api/v1/query_range)", at, apiErr.Msg)}
		default:
			return &QueryError{"url", metric, fmt.Errorf("%s: %s %s", at, apiErr.Msg, firstLine(apiErr.Detail))}
		}
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return &QueryError{"timeout", metric, fmt.Errorf("%s: no answer within %s: %w", at, c.cfg.Timeout, err)}
	default:
		return &QueryError{"url", metric, fmt.Errorf("%s: cannot reach the server: %w", at, err)}
	}
}

func authHint(kind string) string {
	switch kind {
	case KindAMP:
		return "that the AWS credentials may call aps:QueryMetrics on the workspace"
	case KindGMP:
		return "that the application default credentials have roles/monitoring.viewer on the project"
	}
	return "bearer_token or username/password"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
