package metrics_test

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/bench"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics/metricstest"
)

// BenchmarkPoolUtilization: what gpufleet_pool_utilization's Read does for one pool over 14 days at
// 5m (the fixture acme-train: 20 GPUs, 4,032 steps) against the local real Prometheus, against the
// floor measured in the same run: the same three range queries through prometheus/client_golang
// with nothing computed. Reports seconds of each (medians), the median ratio, and the queries one
// read makes (at most one per metric). GPUFLEET_BENCH_RUNS pairs (default 5).
func BenchmarkPoolUtilization(b *testing.B) {
	srv := metricstest.Shared(b)
	var queries atomic.Int64
	front := srv.Front(b, func(http.ResponseWriter, *http.Request) bool {
		queries.Add(1)
		return false
	})

	ctx := context.Background()
	client, err := metrics.New(ctx, metrics.Config{URL: front.URL, Username: metricstest.Username, Password: metricstest.Password})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := api.NewClient(api.Config{Address: front.URL, RoundTripper: basicAuth{http.DefaultTransport}})
	if err != nil {
		b.Fatal(err)
	}
	floorAPI := v1.NewAPI(raw)
	q := metrics.Query{Selector: `{gpufleet_pool="acme-train"}`, Window: 14 * 24 * time.Hour, Step: 5 * time.Minute, End: srv.End}
	start, end := q.Range()

	runs := 5
	if n, err := strconv.Atoi(os.Getenv("GPUFLEET_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	var withStats, floor []float64
	var perRead int64
	for range b.N {
		for range runs {
			t0 := time.Now()
			for _, m := range []string{metrics.MetricGPUUtil, metrics.MetricEngineActive, metrics.MetricFBUsed} {
				if _, _, _, err := floorAPI.QueryRange(ctx, q.Expr(m), v1.Range{Start: start, End: end, Step: q.Step}); err != nil {
					b.Fatal(err)
				}
			}
			floor = append(floor, time.Since(t0).Seconds())

			before := queries.Load()
			t0 = time.Now()
			u, err := client.Utilization(ctx, q)
			if err != nil || u.GPUsMax != 20 {
				b.Fatalf("%v (gpus %d)", err, u.GPUsMax)
			}
			withStats = append(withStats, time.Since(t0).Seconds())
			perRead = queries.Load() - before
		}
	}
	b.ReportMetric(bench.Median(withStats), "s-utilization")
	b.ReportMetric(bench.Median(floor), "s-raw-queries")
	b.ReportMetric(bench.MedianRatio(withStats, floor), "utilization/raw-queries")
	b.ReportMetric(float64(perRead), "queries")
}

type basicAuth struct{ next http.RoundTripper }

func (a basicAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.SetBasicAuth(metricstest.Username, metricstest.Password)
	return a.next.RoundTrip(r)
}
