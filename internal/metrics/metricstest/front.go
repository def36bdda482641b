package metricstest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/testproxy"
)

// Front starts a plain-HTTP reverse proxy in front of the server, for tests that count, fail or
// inspect queries: handle sees each request first and, when it returns true, has answered it
// itself; otherwise the request goes on to Prometheus. It is closed when t ends.
func (s *Server) Front(t testing.TB, handle func(http.ResponseWriter, *http.Request) bool) *httptest.Server {
	t.Helper()
	return testproxy.Start(t, s.URL, nil, false, func(w http.ResponseWriter, r *http.Request, _ http.Handler) bool {
		return handle(w, r)
	})
}
