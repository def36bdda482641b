package kubetest

import (
	"bytes"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

// Proxy is a TLS reverse proxy in front of the server that loses answers: a request lose accepts
// is forwarded, done by the server, and its answer replaced by 504 Gateway Timeout, as a load
// balancer that timed out or a connection cut after the write answers. Clients reach it at URL,
// trusting CAPEM, with a bearer token (AddToken), which it passes on.
type Proxy struct {
	URL   string
	CAPEM []byte
}

// LossyProxy starts a Proxy for t.
func (s *Server) LossyProxy(t testing.TB, lose func(*http.Request) bool) *Proxy {
	t.Helper()
	upstream, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	roots, err := certPool(s.CAPEM)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(upstream)
	rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The body is read whole first: net/http's server closes an unread request body when the
		// answer's headers are written, and the transport's last read of it then cuts the upstream
		// connection mid-answer (golang/go#40747), an "unexpected EOF" no real API server gives.
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !lose(r) {
			rp.ServeHTTP(w, r)
			return
		}
		rp.ServeHTTP(httptest.NewRecorder(), r) // done upstream, the answer lost
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusGatewayTimeout)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the answer was lost on its way back","reason":"Timeout","code":504}`))
	}))
	t.Cleanup(srv.Close)
	return &Proxy{URL: srv.URL, CAPEM: pemOf(srv.Certificate().Raw)}
}
