// Package testproxy is the reverse proxy tests put in front of a real server (Prometheus, the
// Kubernetes API server) to count, fail, inspect or lose its requests.
package testproxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

// Start starts a proxy for t to the server at upstream, closed when t ends: over TLS when useTLS,
// reaching upstream through transport (nil: http.DefaultTransport). Each request goes to handle
// first, which has answered it when it returns true (it may forward it itself, with forward), and
// otherwise is forwarded.
func Start(t testing.TB, upstream string, transport http.RoundTripper, useTLS bool,
	handle func(w http.ResponseWriter, r *http.Request, forward http.Handler) bool) *httptest.Server {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = transport
	h := handler(rp, handle)
	srv := httptest.NewUnstartedServer(h)
	if useTLS {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv
}

// handler hands each request to handle first, and otherwise forwards it with rp.
//
// The request body is read whole before either sees it, and each gets a fresh reader of it. The
// clients under test send bodies (the Prometheus client POSTs its queries, client-go PATCHes its
// server-side applies), and net/http's server closes a request body still unread when the handler
// writes the answer's headers: the transport's final read of it, after copying Content-Length
// bytes, then tears down the upstream connection mid-answer. The proxy logs "read error during body
// copy: use of closed network connection" and the client gets "unexpected EOF", a failure no real
// server gives (golang/go#40747; it failed TestUtilization_retriesServerErrors in CI, one run in
// 300 here).
func handler(rp *httputil.ReverseProxy, handle func(http.ResponseWriter, *http.Request, http.Handler) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if handle != nil && handle(w, r, rp) {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(w, r)
	})
}
