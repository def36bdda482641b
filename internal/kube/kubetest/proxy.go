package kubetest

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/testproxy"
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
	return s.FaultyProxy(t, func(r *http.Request) Fault {
		if lose(r) {
			return Lose
		}
		return Pass
	})
}

// Fault is what a FaultyProxy does with a request.
type Fault int

const (
	// Pass forwards the request and returns its answer.
	Pass Fault = iota
	// Refuse answers 500 Internal Server Error without forwarding: nothing is done, as when an
	// admission webhook or etcd fails the request (the API server's InternalError status).
	Refuse
	// Lose forwards the request, which is done, and replaces its answer by 504 Gateway Timeout.
	Lose
)

// FaultyProxy starts a Proxy for t that does with each request what fault says.
func (s *Server) FaultyProxy(t testing.TB, fault func(*http.Request) Fault) *Proxy {
	t.Helper()
	return s.proxy(t, func(w http.ResponseWriter, r *http.Request, forward http.Handler) bool {
		f := fault(r)
		switch f {
		case Refuse:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Internal error occurred: failed calling webhook \"validation.example.com\": context deadline exceeded","reason":"InternalError","code":500}`))
		case Lose:
			forward.ServeHTTP(httptest.NewRecorder(), r) // done upstream, the answer lost
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusGatewayTimeout)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the answer was lost on its way back","reason":"Timeout","code":504}`))
		}
		return f != Pass
	})
}

// HookedProxy starts a Proxy for t that loses nothing but calls before with each request before
// forwarding it: what another client does at that moment, such as creating an object of the name
// gpufleet is about to write, after gpufleet checked it.
func (s *Server) HookedProxy(t testing.TB, before func(*http.Request)) *Proxy {
	t.Helper()
	return s.proxy(t, func(_ http.ResponseWriter, r *http.Request, _ http.Handler) bool {
		before(r)
		return false
	})
}

func (s *Server) proxy(t testing.TB, handle func(w http.ResponseWriter, r *http.Request, forward http.Handler) bool) *Proxy {
	t.Helper()
	roots, err := certPool(s.CAPEM)
	if err != nil {
		t.Fatal(err)
	}
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}
	srv := testproxy.Start(t, s.URL, transport, true, handle)
	return &Proxy{URL: srv.URL, CAPEM: pemOf(srv.Certificate().Raw)}
}
