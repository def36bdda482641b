package cloudsim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc"
)

// AccountID is the AWS account every simulated resource belongs to.
const AccountID = "123456789012"

// defaultRegion is used for AWS requests that carry no SigV4 credential scope.
const defaultRegion = "us-east-1"

// Options configures a Sim.
type Options struct {
	// Seed is the static infrastructure. When nil, the seed stored in the state file is used,
	// else an empty world.
	Seed *Seed
	// StatePath, when set, is loaded at start and rewritten atomically after every mutating
	// call and at Close, so separate processes (terraform runs) see the same world.
	StatePath string
	// TransitionDelay is how long transitional statuses last (CREATING, UPDATING, DELETING,
	// PROVISIONING, RECONCILING, STOPPING, operations RUNNING). Zero resolves them on the next
	// read.
	TransitionDelay time.Duration
	// Addr is the listen address, "127.0.0.1:0" by default: every service gets a free port.
	// With a fixed port p, EKS listens on p, EC2 on p+1, GKE on p+2, control on p+3,
	// Compute on p+4, STS on p+5 and EC2 Auto Scaling on p+6.
	Addr string
	// Logf, when set, receives diagnostic messages (e.g. failures to write the state file).
	Logf func(format string, args ...any)
	// ReadAfterWriteLag keeps new EKS node groups and updates unreadable for that long (see
	// eks_consistency.go); Sim.SetReadAfterWriteLag changes it.
	ReadAfterWriteLag time.Duration
	// IAM, when set, checks the calls of one identity against its policy (iam.go); Sim.SetIAM
	// changes it.
	IAM *IAMIdentity
	// GCPPermissions, when not nil, are the only IAM permissions the GKE and Compute Engine
	// callers hold: a call that needs another is refused (gcp_iam.go); Sim.SetGCPPermissions changes
	// them.
	GCPPermissions []string
}

// Endpoints are the addresses of the simulated services.
type Endpoints struct {
	EKS     string `json:"eks"`     // http://127.0.0.1:port, for eks.Options.BaseEndpoint
	EC2     string `json:"ec2"`     // http://127.0.0.1:port, for ec2.Options.BaseEndpoint
	GKE     string `json:"gke"`     // 127.0.0.1:port, for option.WithEndpoint (plaintext gRPC)
	Control string `json:"control"` // http://127.0.0.1:port, the control API
	// Compute is the Compute Engine API's base path, http://127.0.0.1:port/compute/v1/, for
	// option.WithEndpoint with google.golang.org/api/compute/v1 (see ComputeClientOptions).
	Compute string `json:"compute"`
	STS     string `json:"sts"` // http://127.0.0.1:port, for sts.Options.BaseEndpoint
	// AutoScaling is http://127.0.0.1:port, for autoscaling.Options.BaseEndpoint: the Auto
	// Scaling groups of EKS node groups (autoscaling.go).
	AutoScaling string `json:"autoscaling"`
}

// Sim is a running simulator. All methods are safe for concurrent use.
type Sim struct {
	opts   Options
	mu     sync.Mutex // guards w and gcpPermissions
	w      *world
	faults *faultSet
	log    *requestLog
	eksLag atomic.Int64 // read-after-write lag, eks_consistency.go
	iam    iamState     // the IAM check, iam.go
	// gcpPermissions are the GKE and Compute Engine caller's permissions (gcp_iam.go); nil allows
	// every call.
	gcpPermissions []string

	httpServers []*http.Server
	grpcServer  *grpc.Server
	endpoints   Endpoints
	closeOnce   sync.Once
	closeErr    error
}

// Start starts the simulator's servers on loopback and returns once they accept connections.
func Start(opts Options) (*Sim, error) {
	w, err := initialWorld(opts)
	if err != nil {
		return nil, err
	}
	s := &Sim{opts: opts, w: w, faults: newFaultSet(), log: &requestLog{}}
	s.SetReadAfterWriteLag(opts.ReadAfterWriteLag)
	if err := s.SetIAM(opts.IAM); err != nil {
		return nil, err
	}
	s.SetGCPPermissions(opts.GCPPermissions)
	listeners, err := listen(opts.Addr, 7)
	if err != nil {
		return nil, err
	}
	s.endpoints = Endpoints{
		EKS:         "http://" + listeners[0].Addr().String(),
		EC2:         "http://" + listeners[1].Addr().String(),
		GKE:         listeners[2].Addr().String(),
		Control:     "http://" + listeners[3].Addr().String(),
		Compute:     "http://" + listeners[4].Addr().String() + computePathPrefix,
		STS:         "http://" + listeners[5].Addr().String(),
		AutoScaling: "http://" + listeners[6].Addr().String(),
	}
	s.serveHTTP(listeners[0], http.HandlerFunc(s.serveEKS))
	s.serveHTTP(listeners[1], http.HandlerFunc(s.serveEC2))
	s.serveHTTP(listeners[3], s.controlHandler())
	s.serveHTTP(listeners[4], http.HandlerFunc(s.serveCompute))
	s.serveHTTP(listeners[5], http.HandlerFunc(s.serveSTS))
	s.serveHTTP(listeners[6], http.HandlerFunc(s.serveAutoScaling))
	s.grpcServer = grpc.NewServer(grpc.UnaryInterceptor(s.gkeInterceptor))
	containerpb.RegisterClusterManagerServer(s.grpcServer, &gkeServer{sim: s})
	go s.grpcServer.Serve(listeners[2]) //nolint:errcheck // returns on Stop
	if opts.StatePath != "" {
		s.mu.Lock()
		err := saveWorld(opts.StatePath, s.w)
		s.mu.Unlock()
		if err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

func initialWorld(opts Options) (*world, error) {
	if opts.StatePath == "" {
		return newWorld(opts.Seed), nil
	}
	w, err := loadWorld(opts.StatePath)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return newWorld(opts.Seed), nil
	}
	w.init(opts.Seed)
	return w, nil
}

// listen opens n listeners on addr: all on free ports for port 0, else on consecutive ports.
func listen(addr string, n int) ([]net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("cloudsim: listen address %q: %w", addr, err)
	}
	base, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("cloudsim: listen port %q: %w", portText, err)
	}
	var ls []net.Listener
	for i := 0; i < n; i++ {
		port := 0
		if base != 0 {
			port = base + i
		}
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			for _, l := range ls {
				l.Close()
			}
			return nil, fmt.Errorf("cloudsim: listen: %w", err)
		}
		ls = append(ls, l)
	}
	return ls, nil
}

func (s *Sim) serveHTTP(l net.Listener, h http.Handler) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	s.httpServers = append(s.httpServers, srv)
	go srv.Serve(l) //nolint:errcheck // returns http.ErrServerClosed on Shutdown
}

// Endpoints returns the service addresses.
func (s *Sim) Endpoints() Endpoints { return s.endpoints }

// Close stops the servers, letting in-flight calls finish (up to a few seconds), and writes the
// state file one last time.
func (s *Sim) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var errs []error
		for _, srv := range s.httpServers {
			if err := srv.Shutdown(ctx); err != nil {
				errs = append(errs, err)
			}
		}
		stopGRPC(ctx, s.grpcServer)
		if s.opts.StatePath != "" {
			s.mu.Lock()
			errs = append(errs, saveWorld(s.opts.StatePath, s.w))
			s.mu.Unlock()
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

func stopGRPC(ctx context.Context, g *grpc.Server) {
	if g == nil {
		return
	}
	done := make(chan struct{})
	go func() { g.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		g.Stop()
	}
}

// apiError is an AWS error response: HTTP status, error code, message and, for EKS, the extra
// members the modeled exception carries (clusterName, nodegroupName, ...).
type apiError struct {
	status  int
	code    string
	message string
	fields  map[string]string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

// call is one AWS API call being served.
type call struct {
	service string
	op      string
	region  string
	labels  map[string]string // EKS path labels
	query   url.Values
	body    []byte
	form    map[string]any // EC2 request tree
	// accessKey is the access key id the call was signed with (its SigV4 credential).
	accessKey string
	failed    *Fault        // CreateFailed fault to apply to the object created/updated
	stuck     time.Duration // a Stuck fault's transition, instead of the transition delay
	now       time.Time
}

// awsHandler serves one operation with the world locked and advanced to c.now; it returns the
// encoded response body.
type awsHandler func(s *Sim, c *call) ([]byte, *apiError)

// invokeAWS runs one AWS operation: faults first (latency, then an error fault that replaces
// the call), then the handler under the lock, then the request log.
func (s *Sim) invokeAWS(ctx context.Context, c *call, resource string, params map[string]any, mutating bool, h awsHandler) ([]byte, *apiError) {
	start := time.Now()
	if aerr := s.authorize(c, callRequests(c)...); aerr != nil {
		s.log.add(Request{Service: c.service, Operation: c.op, Region: c.region, Params: params, Time: start, Error: aerr.code})
		return nil, aerr
	}
	p := s.faults.pick(c.service, c.op, resource)
	// A Latency fault ends early when the caller gives up (ctx is the request's, which net/http
	// cancels when the client's connection closes), and the call is then served all the same: the
	// service had accepted it, and only the answer is lost. AWS services work so: a request whose
	// client timed out may still take effect, which is what the idempotency tokens of the create
	// calls are for (EKS API Reference, CreateNodegroup clientRequestToken; Amazon EC2 API Reference,
	// "Ensuring idempotency in Amazon EC2 API requests"). A client must look for what such a call made.
	sleepCtx(ctx, p.latency)
	var out []byte
	var aerr *apiError
	if p.err != nil {
		aerr = awsFaultError(c.service, p.err)
	} else {
		c.failed = p.failed
		if p.stuck != nil {
			c.stuck = p.stuck.Latency
		}
		out, aerr = s.locked(mutating, func() ([]byte, *apiError) { return h(s, c) }, &c.now)
	}
	req := Request{Service: c.service, Operation: c.op, Region: c.region, Params: params, Time: start}
	if aerr != nil {
		req.Error = aerr.code
	}
	s.log.add(req)
	return out, aerr
}

// locked runs f with the world locked and advanced to now, persisting afterwards when f was a
// successful mutation.
func (s *Sim) locked(mutating bool, f func() ([]byte, *apiError), now *time.Time) ([]byte, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*now = time.Now()
	s.w.advance(*now)
	out, aerr := f()
	if mutating && aerr == nil {
		s.persistLocked()
	}
	return out, aerr
}

// persistLocked writes the state file, if any. Failures are logged, not returned: the API call
// itself succeeded and the next mutation retries the write.
func (s *Sim) persistLocked() {
	if s.opts.StatePath == "" {
		return
	}
	if err := saveWorld(s.opts.StatePath, s.w); err != nil {
		s.logf("%v", err)
	}
}

func (s *Sim) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// awsFaultError is the error an injected fault produces on an AWS service.
func awsFaultError(service string, f *Fault) *apiError {
	e := &apiError{}
	switch {
	case service == "eks" && f.Kind == Throttle:
		// EKS API Reference: Common Errors — ThrottlingException, HTTP 429.
		e.status, e.code, e.message = 429, "ThrottlingException", "Rate exceeded"
	case service == "eks" && f.Kind == Unavailable:
		e.status, e.code, e.message = 503, "ServiceUnavailableException", "Service is unavailable. Please try again later."
	case service == "eks":
		e.status, e.code, e.message = 500, "ServerException", "An internal error occurred. Please try again."
	case service == "autoscaling" && f.Kind == Throttle:
		// awsQuery services answer throttling with HTTP 400 Throttling (aws/retry
		// DefaultThrottleErrorCodes lists it).
		e.status, e.code, e.message = 400, "Throttling", "Rate exceeded"
	case service == "autoscaling" && f.Kind == Unavailable:
		e.status, e.code, e.message = 503, "ServiceUnavailable", "Service is unavailable. Please try again later."
	case service == "autoscaling":
		e.status, e.code, e.message = 500, "InternalFailure", "An internal error occurred."
	case f.Kind == Throttle:
		// EC2 API Reference: Error codes — RequestLimitExceeded is returned with HTTP 503.
		e.status, e.code, e.message = 503, "RequestLimitExceeded", "Request limit exceeded."
	case f.Kind == Unavailable:
		e.status, e.code, e.message = 503, "Unavailable", "The server is overloaded and can't handle the request."
	default:
		e.status, e.code, e.message = 500, "InternalError", "An internal error has occurred."
	}
	return e.withOverrides(f)
}

// withOverrides applies a fault's Status, Code and Message to the error it produces.
func (e *apiError) withOverrides(f *Fault) *apiError {
	if f.Status != 0 {
		e.status = f.Status
	}
	if f.Code != "" {
		e.code = f.Code
	}
	if f.Message != "" {
		e.message = f.Message
	}
	return e
}

func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// regionFromAuth returns the region of a SigV4 Authorization header's credential scope
// ("AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/eks/aws4_request, ..."). The signature
// itself is not verified.
func regionFromAuth(h string) string {
	i := strings.Index(h, "Credential=")
	if i < 0 {
		return defaultRegion
	}
	scope := h[i+len("Credential="):]
	if j := strings.IndexAny(scope, ", "); j >= 0 {
		scope = scope[:j]
	}
	parts := strings.Split(scope, "/")
	if len(parts) < 5 || parts[2] == "" {
		return defaultRegion
	}
	return parts[2]
}

// accessKeyFromAuth returns the access key id of a SigV4 Authorization header's credential.
func accessKeyFromAuth(h string) string {
	i := strings.Index(h, "Credential=")
	if i < 0 {
		return ""
	}
	key, _, _ := strings.Cut(h[i+len("Credential="):], "/")
	return key
}

// randomHex returns n random hex digits.
func randomHex(n int) string {
	b := make([]byte, (n+1)/2)
	if _, err := rand.Read(b); err != nil {
		panic("cloudsim: crypto/rand: " + err.Error())
	}
	return hex.EncodeToString(b)[:n]
}

// newUUID returns a random RFC 4122 version 4 UUID.
func newUUID() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("cloudsim: crypto/rand: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func cloneStrings(in []string) []string {
	if in == nil {
		return nil
	}
	return append([]string{}, in...)
}

func cloneMap(in map[string]string) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
