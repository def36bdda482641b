package metricstest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

// Front starts a plain-HTTP reverse proxy in front of the server, for tests that count, fail or
// inspect queries: handle sees each request first and, when it returns true, has answered it
// itself; otherwise the request goes on to Prometheus. It is closed when t ends.
//
// The request body (the Prometheus client POSTs its queries) is read whole before it is forwarded.
// net/http's server closes a request body that is still unread when the handler writes the
// answer's headers, and the transport's final read of it after copying Content-Length bytes then
// tears down the upstream connection mid-answer: the proxy logs "read error during body copy: use
// of closed network connection" and the client gets "unexpected EOF" (golang/go#40747; here about
// one run in 300 of TestUtilization_retriesServerErrors failed so before the body was buffered).
func (s *Server) Front(t testing.TB, handle func(http.ResponseWriter, *http.Request) bool) *httptest.Server {
	t.Helper()
	target, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if handle != nil && handle(w, r) {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front
}
