package metrics_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics/metricstest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	metricstest.StopShared()
	os.Exit(code)
}

func client(t *testing.T, srv *metricstest.Server, mutate func(*metrics.Config)) *metrics.Client {
	t.Helper()
	cfg := metrics.Config{URL: srv.URL, Username: metricstest.Username, Password: metricstest.Password, Timeout: 10 * time.Second}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := metrics.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func poolQuery(srv *metricstest.Server, pool string) metrics.Query {
	return metrics.Query{Selector: `{gpufleet_pool="` + pool + `"}`, Window: 14 * 24 * time.Hour, Step: 5 * time.Minute, End: srv.End}
}

// Every fixture pool, through the real server: the figures match those computed from the fixture.
func TestUtilization_realPrometheus(t *testing.T) {
	srv := metricstest.Shared(t)
	c := client(t, srv, nil)
	q0 := poolQuery(srv, "")
	for name, devices := range metricstest.Pools() {
		t.Run(name, func(t *testing.T) {
			q := poolQuery(srv, name)
			u, err := c.Utilization(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			want := metricstest.Want(devices, q0.Points())
			got := metricstest.Expected{GPUsMin: u.GPUsMin, GPUsMax: u.GPUsMax, GPUsAvg: u.GPUsAvg, Mean: u.UtilizationMeanPercent, P95: u.UtilizationP95Percent,
				Under10: u.HoursUnder10Percent, Under30: u.HoursUnder30Percent, Idle: u.IdleGPUHours, MemP95: u.MemoryUsedP95GiB, MemP99: u.MemoryUsedP99GiB,
				MemMax: u.MemoryUsedMaxGiB, HoursObserved: u.HoursObserved}
			if !u.UtilizationKnown || !u.MemoryKnown || !closeTo(got, want) {
				t.Errorf("got  %+v\nwant %+v\n(known: utilisation %v memory %v; warnings %q)", got, want, u.UtilizationKnown, u.MemoryKnown, u.Warnings)
			}
			if len(u.Warnings) != 0 {
				t.Errorf("warnings %q", u.Warnings)
			}
		})
	}
}

func closeTo(a, b metricstest.Expected) bool {
	av, bv := a.Values(), b.Values()
	for i := range av {
		if math.Abs(av[i]-bv[i]) > 1e-6*math.Max(1, math.Abs(bv[i])) {
			return false
		}
	}
	return true
}

// Bad input against the real server (and, for "not Prometheus", a web server that is not one).
func TestUtilization_errors(t *testing.T) {
	srv := metricstest.Shared(t)
	notProm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body>Grafana</body></html>"))
	}))
	defer notProm.Close()
	// Port 1 on loopback: nothing listens there (a closed test server's port may be taken again).
	const closedURL = "http://127.0.0.1:1"

	cases := map[string]struct {
		cfg      func(*metrics.Config)
		selector string
		arg      string
		want     string
	}{
		"wrong password": {func(c *metrics.Config) { c.Password = "nope" }, `{gpufleet_pool="idle"}`, "auth", "refused the credentials (client error: 401)"},
		"unreachable":    {func(c *metrics.Config) { c.URL = closedURL }, `{gpufleet_pool="idle"}`, "url", "cannot reach the server"},
		"not prometheus": {func(c *metrics.Config) { c.URL = notProm.URL }, `{gpufleet_pool="idle"}`, "url", "not a Prometheus query API response"},
		"bad matcher":    {nil, `{gpufleet_pool=~"("}`, "selector", "the server rejected the query"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			q := poolQuery(srv, "")
			q.Selector = tc.selector
			_, err := client(t, srv, tc.cfg).Utilization(context.Background(), q)
			var qe *metrics.QueryError
			if !errors.As(err, &qe) || qe.Arg != tc.arg || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v (%T), want %s error with %q", err, err, tc.arg, tc.want)
			}
			if strings.Contains(err.Error(), metricstest.Password) {
				t.Error("the error shows the password")
			}
		})
	}
	t.Run("selector matching nothing", func(t *testing.T) {
		_, err := client(t, srv, nil).Utilization(context.Background(), poolQuery(srv, "nobody"))
		var none *metrics.ErrNoSeries
		if !errors.As(err, &none) {
			t.Fatalf("err = %v", err)
		}
	})
}

// 5xx answers are retried; the query succeeds once the server recovers, and gives up after
// MaxAttempts naming the server error.
func TestUtilization_retriesServerErrors(t *testing.T) {
	srv := metricstest.Shared(t)
	var calls, failFirst atomic.Int32
	front := srv.Front(t, func(w http.ResponseWriter, _ *http.Request) bool {
		if calls.Add(1) <= failFirst.Load() {
			http.Error(w, "upstream overloaded", http.StatusServiceUnavailable)
			return true
		}
		return false
	})

	failFirst.Store(2)
	u, err := client(t, srv, func(c *metrics.Config) { c.URL = front.URL }).Utilization(context.Background(), poolQuery(srv, "idle"))
	if err != nil || u.GPUsMax != 2 || calls.Load() != 2+3 {
		t.Fatalf("after two 503s: %v, gpus %d, %d calls (want 5: two failures, then three metrics)", err, u.GPUsMax, calls.Load())
	}
	calls.Store(0)
	failFirst.Store(100)
	_, err = client(t, srv, func(c *metrics.Config) { c.URL = front.URL; c.MaxAttempts = 3 }).Utilization(context.Background(), poolQuery(srv, "idle"))
	if err == nil || !strings.Contains(err.Error(), "server error after 3 attempts") || calls.Load() != 3 {
		t.Fatalf("err = %v after %d calls", err, calls.Load())
	}
}
