package provider_test

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics/metricstest"
)

// near accepts a number within 1e-4 of want: the data source rounds to 4 decimals.
type near float64

func (n near) CheckValue(v any) error {
	got, ok := v.(interface{ Float64() (float64, error) })
	if !ok {
		return fmt.Errorf("expected a number, got %T", v)
	}
	f, err := got.Float64()
	if err != nil {
		return err
	}
	if math.Abs(f-float64(n)) > 1.5e-4 {
		return fmt.Errorf("expected %v, got %v", float64(n), f)
	}
	return nil
}

func (n near) String() string { return fmt.Sprint(float64(n)) }

// literalParts is acctest.ExpectErrorParts of literal text.
func literalParts(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = regexp.QuoteMeta(p)
	}
	return acctest.ExpectErrorParts(quoted...)
}

func metricsProvider(srv *metricstest.Server, extra string) string {
	return fmt.Sprintf(`
provider "gpufleet" {
  metrics {
    url      = %q
    username = %q
    password = %q
    %s
  }
}
`, srv.URL, metricstest.Username, metricstest.Password, extra)
}

// expectPool checks every output of data.gpufleet_pool_utilization.<name> against the figures
// computed from the fixture pool directly.
func expectPool(name string, devices []metricstest.Device, steps int, price float64) []statecheck.StateCheck {
	e := metricstest.Want(devices, steps)
	addr := "data.gpufleet_pool_utilization." + name
	check := func(attr string, c knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), c)
	}
	return []statecheck.StateCheck{
		check("gpus_min", knownvalue.Int64Exact(int64(e.GPUsMin))),
		check("gpus_max", knownvalue.Int64Exact(int64(e.GPUsMax))),
		check("gpus_avg", near(e.GPUsAvg)),
		check("hours_observed", near(e.HoursObserved)),
		check("utilization_mean_percent", near(e.Mean)),
		check("utilization_p95_percent", near(e.P95)),
		check("hours_under_10_percent", near(e.Under10)),
		check("hours_under_30_percent", near(e.Under30)),
		check("idle_gpu_hours", near(e.Idle)),
		check("idle_monthly_usd", near(e.Idle*730/e.HoursObserved*price)),
		check("memory_used_p95_gib", near(e.MemP95)),
		check("memory_used_p99_gib", near(e.MemP99)),
		check("memory_used_max_gib", near(e.MemMax)),
	}
}

// The fixture pools through terraform, the provider's metrics block (with basic auth) and the real
// Prometheus: every output matches the figures computed from the fixtures.
func TestAccPoolUtilizationDataSource_fixturePools(t *testing.T) {
	srv := metricstest.Shared(t)
	pools := metricstest.Pools()
	steps := int(14 * 24 * time.Hour / (5 * time.Minute))
	config := metricsProvider(srv, "")
	var checks []statecheck.StateCheck
	for _, name := range []string{"steady", "idle", "bursty", "mig", "shrink"} {
		config += fmt.Sprintf(`
data "gpufleet_pool_utilization" %q {
  selector           = "{gpufleet_pool=\"%s\"}"
  end_time           = %q
  hourly_usd_per_gpu = 4.123456
}
`, name, name, srv.End.Format(time.RFC3339))
		checks = append(checks, expectPool(name, pools[name], steps, 4.123456)...)
	}
	checks = append(checks,
		statecheck.ExpectKnownValue("data.gpufleet_pool_utilization.steady", tfjsonpath.New("devices"), knownvalue.Int64Exact(4)),
		// A configured price is kept as written, not rounded like the computed figures.
		statecheck.ExpectKnownValue("data.gpufleet_pool_utilization.steady", tfjsonpath.New("hourly_usd_per_gpu"), knownvalue.Float64Exact(4.123456)),
		statecheck.ExpectKnownValue("data.gpufleet_pool_utilization.mig", tfjsonpath.New("mig_devices"), knownvalue.Int64Exact(4)),
		statecheck.ExpectKnownValue("data.gpufleet_pool_utilization.shrink", tfjsonpath.New("devices"), knownvalue.Int64Exact(3)),
	)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps:                    []resource.TestStep{{Config: config, ConfigStateChecks: checks}},
	})
}

// Series that report only NaN (the real Prometheus serves them as dcgm-exporter exported them):
// the figures are null, never NaN, and the read succeeds with a warning. Before, the provider
// panicked on types.Float64Value(NaN) (gpus_avg was 0/0).
func TestAccPoolUtilizationDataSource_onlyNaNSamples(t *testing.T) {
	srv := metricstest.Shared(t)
	addr := "data.gpufleet_pool_utilization.nan"
	check := func(attr string, c knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), c)
	}
	var checks []statecheck.StateCheck
	for _, attr := range []string{"utilization_mean_percent", "utilization_p95_percent", "hours_under_10_percent", "hours_under_30_percent",
		"idle_gpu_hours", "idle_monthly_usd", "memory_used_p95_gib", "memory_used_p99_gib", "memory_used_max_gib"} {
		checks = append(checks, check(attr, knownvalue.Null()))
	}
	checks = append(checks, check("devices", knownvalue.Int64Exact(2)), check("gpus_avg", knownvalue.Float64Exact(0)),
		check("gpus_max", knownvalue.Int64Exact(0)), check("hours_observed", knownvalue.Float64Exact(0)))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: metricsProvider(srv, "") + fmt.Sprintf(`
data "gpufleet_pool_utilization" "nan" {
  selector           = "{gpufleet_pool=\"nan\"}"
  end_time           = %q
  hourly_usd_per_gpu = 4
}
`, srv.End.Format(time.RFC3339)),
			ConfigStateChecks: checks,
		}},
	})
}

// Without hourly_usd_per_gpu, idle GPU-hours are priced at node_type's on-demand price per GPU.
func TestAccPoolUtilizationDataSource_priceFromNodeType(t *testing.T) {
	srv := metricstest.Shared(t)
	p5, _ := catalog.AWSInstanceType("p5.48xlarge")
	row, _ := p5.Price("us-east-1")
	perGPU := roundTo4(row.OnDemandUSD / float64(p5.GPUCount))
	steps := int(7 * 24 * time.Hour / (5 * time.Minute))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: metricsProvider(srv, "timeout_seconds = 20") + fmt.Sprintf(`
data "gpufleet_pool_utilization" "idle" {
  selector  = "{gpufleet_pool=\"idle\"}"
  window    = "7d"
  end_time  = %q
  node_type = "p5.48xlarge"
  region    = "us-east-1"
}
`, srv.End.Format(time.RFC3339)),
			ConfigStateChecks: append(expectPool("idle", metricstest.Pools()["idle"], steps, perGPU),
				statecheck.ExpectKnownValue("data.gpufleet_pool_utilization.idle", tfjsonpath.New("hourly_usd_per_gpu"), near(perGPU))),
		}},
	})
}

// Bad input: a clear error naming the argument, for each of #23's cases.
func TestAccPoolUtilizationDataSource_badInput(t *testing.T) {
	srv := metricstest.Shared(t)
	notProm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html><body>Welcome to nginx!</body></html>"))
	}))
	defer notProm.Close()
	ds := func(body string) string {
		return "data \"gpufleet_pool_utilization\" \"p\" {\n" + body + "\n}\n"
	}
	pool := `selector = "{gpufleet_pool=\"steady\"}"`
	cases := map[string]struct {
		config string
		want   []string
	}{
		"unreachable url": {
			"provider \"gpufleet\" {\n metrics {\n url = \"http://127.0.0.1:1\"\n }\n}\n" + ds(pool), // nothing listens on port 1
			[]string{"Cannot query the metrics endpoint", "provider metrics.url", "cannot reach the server"},
		},
		"wrong password (401)": {
			fmt.Sprintf("provider \"gpufleet\" {\n metrics {\n url = %q\n username = \"gpufleet\"\n password = \"wrong\"\n }\n}\n", srv.URL) + ds(pool),
			[]string{"Metrics endpoint refused the credentials", "client error: 401", "bearer_token or username/password"},
		},
		"not prometheus": {
			"provider \"gpufleet\" {\n metrics {\n url = \"" + notProm.URL + "\"\n }\n}\n" + ds(pool),
			[]string{"Cannot query the metrics endpoint", "provider metrics.url", "not a Prometheus query API response"},
		},
		"selector matching nothing": {
			metricsProvider(srv, "") + ds(`selector = "{gpufleet_pool=\"nobody\"}"`),
			[]string{"No dcgm-exporter series", `selector: selector {gpufleet_pool="nobody"} matches no dcgm-exporter series`},
		},
		"window over 90 days": {
			metricsProvider(srv, "") + ds(pool+"\nwindow = \"91d\"\nstep = \"1h\""),
			[]string{"Invalid window", "window: window 91d is longer than the maximum of 90d"},
		},
		"too many points": {
			metricsProvider(srv, "") + ds(pool+"\nwindow = \"60d\"\nstep = \"1m\""),
			[]string{"Invalid step", "window 60d at step 1m would return 86400 points", "at least 8m"},
		},
		"bad selector": {
			metricsProvider(srv, "") + ds(`selector = "gpufleet_pool=steady"`),
			[]string{"Invalid selector", "must be label matchers in braces"},
		},
		"no metrics block": {
			ds(pool),
			[]string{"Unusable metrics configuration", "no metrics"},
		},
		"metrics block without url": {
			"provider \"gpufleet\" {\n metrics {\n username = \"u\"\n password = \"p\"\n }\n}\n" + ds(pool),
			[]string{"Missing metrics URL", "metrics.url: the metrics block needs the url"},
		},
		"amp without AWS credentials": {
			"provider \"gpufleet\" {\n aws {\n region = \"us-east-1\"\n endpoints {\n sts = \"http://127.0.0.1:1\"\n }\n }\n metrics {\n url = \"https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-1\"\n kind = \"amp\"\n }\n}\n" + ds(pool),
			[]string{"Unusable metrics configuration", `provider metrics.kind: kind "amp" signs queries with the provider's AWS credentials`},
		},
		"password without username": {
			fmt.Sprintf("provider \"gpufleet\" {\n metrics {\n url = %q\n password = \"x\"\n }\n}\n", srv.URL) + ds(pool),
			[]string{`"metrics.username" must be specified when "metrics.password"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps:                    []resource.TestStep{{Config: tc.config, ExpectError: literalParts(tc.want...)}},
			})
		})
	}
}
