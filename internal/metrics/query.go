// Package metrics reads what a GPU pool's GPUs actually did from a Prometheus-compatible query API
// that scrapes NVIDIA's dcgm-exporter: plain Prometheus, Amazon Managed Service for Prometheus
// (SigV4) and Google Cloud Managed Service for Prometheus (application default credentials). It
// builds one range query per metric, fetches them through prometheus/client_golang's API client,
// and reduces the samples to the pool statistics of issue #23 (Utilization).
package metrics

import (
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// dcgm-exporter metric names (https://github.com/NVIDIA/dcgm-exporter, default-counters.csv).
const (
	// MetricGPUUtil is GPU utilisation in percent (0-100). dcgm-exporter does not report it for MIG
	// devices.
	MetricGPUUtil = "DCGM_FI_DEV_GPU_UTIL"
	// MetricEngineActive is the graphics/compute engine's active ratio (0-1), a profiling metric
	// reported per GPU and per MIG device when the exporter's profiling counters are enabled.
	MetricEngineActive = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
	// MetricFBUsed is framebuffer memory used, in MiB.
	MetricFBUsed = "DCGM_FI_DEV_FB_USED"
)

// Bounds of a query.
const (
	// MaxPoints is the most steps a window may hold (window / step). It is Prometheus's own limit
	// of 11,000 points per series in a range query (web/api/v1: "exceeded maximum resolution of
	// 11,000 points per timeseries"), refused here first with a message naming window and step.
	MaxPoints = 11000
	// MaxWindow is the longest window: 90 days, beyond which most Prometheus retention has no data.
	MaxWindow = 90 * 24 * time.Hour
	// DefaultWindow and DefaultStep are the data source's and the CLI's defaults.
	DefaultWindow = "14d"
	DefaultStep   = "5m"
)

// Query is one pool's utilisation query: a PromQL series selector for its dcgm-exporter series, the
// window ending at End, and the step between samples.
type Query struct {
	Selector string
	Window   time.Duration
	Step     time.Duration
	End      time.Time
}

// ParseDuration parses a Prometheus duration such as "14d", "6h" or "5m".
func ParseDuration(s string) (time.Duration, error) {
	d, err := model.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 14d, 6h or 5m", s)
	}
	return time.Duration(d), nil
}

// WindowError and StepError name the argument a query refuses, so callers can point at it.
type (
	SelectorError struct{ msg string }
	WindowError   struct{ msg string }
	StepError     struct{ msg string }
)

func (e *SelectorError) Error() string { return e.msg }
func (e *WindowError) Error() string   { return e.msg }
func (e *StepError) Error() string     { return e.msg }

// ValidateSelector checks that s is a PromQL series selector of label matchers only,
// `{label="value", ...}`: the metric names are the package's own. The server parses the matchers.
func ValidateSelector(s string) error {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") || len(t) < 5 || !strings.ContainsAny(t, "=~") {
		return &SelectorError{fmt.Sprintf("selector %q must be label matchers in braces, e.g. {gpufleet_pool=\"acme-train\"}", s)}
	}
	if strings.Contains(t, "__name__") {
		return &SelectorError{fmt.Sprintf("selector %q must not match __name__: the dcgm-exporter metric names are chosen by gpufleet", s)}
	}
	return nil
}

// ValidateWindowStep checks the window and step bounds: a positive step no longer than the window,
// a window of at most MaxWindow, and at most MaxPoints steps.
func ValidateWindowStep(window, step time.Duration) error {
	switch {
	case window <= 0:
		return &WindowError{"window must be positive"}
	case window > MaxWindow:
		return &WindowError{fmt.Sprintf("window %s is longer than the maximum of 90d", dur(window))}
	case step < time.Second:
		return &StepError{fmt.Sprintf("step %s must be at least 1s", dur(step))}
	case step > window:
		return &StepError{fmt.Sprintf("step %s is longer than window %s", dur(step), dur(window))}
	case window%step != 0:
		return &StepError{fmt.Sprintf("window %s is not a whole number of steps of %s", dur(window), dur(step))}
	}
	if n := int64(window / step); n > MaxPoints {
		return &StepError{fmt.Sprintf("window %s at step %s would return %d points per series, more than the maximum of %d: widen the step to at least %s or shorten the window",
			dur(window), dur(step), n, MaxPoints, dur(minStep(window)))}
	}
	return nil
}

// dur formats d as users write it: whole days as "91d", else Prometheus's form ("5m", "1h30m").
func dur(d time.Duration) string {
	if day := 24 * time.Hour; d >= day && d%day == 0 {
		return fmt.Sprintf("%dd", d/day)
	}
	return model.Duration(d).String()
}

// minStep is the shortest whole-minute step that keeps window within MaxPoints.
func minStep(window time.Duration) time.Duration {
	s := (window + MaxPoints - 1) / MaxPoints
	return ((s + time.Minute - 1) / time.Minute) * time.Minute
}

// Validate checks every part of q.
func (q Query) Validate() error {
	if err := ValidateSelector(q.Selector); err != nil {
		return err
	}
	return ValidateWindowStep(q.Window, q.Step)
}

// Expr is the PromQL expression of one metric for the pool: the metric with the pool's matchers.
func (q Query) Expr(metric string) string {
	return metric + strings.TrimSpace(q.Selector)
}

// Range is the evaluation range: Window/Step points, the last at End truncated to a multiple of
// the step since the Unix epoch, each point standing for the step before it. Query frontends that
// align a range query with its step for caching (Cortex and Mimir's align_queries_with_step, as in
// grafana/mimir pkg/frontend/querymiddleware/step_align.go: start/step*step in Unix milliseconds;
// Thanos's --query-range.align-range-with-step) then evaluate at the same points. (Go's
// Time.Truncate counts from year 1, which differs for steps that do not divide its offset to 1970,
// such as 7m.) Compute matches samples of servers that still shift them to the nearest step.
func (q Query) Range() (start, end time.Time) {
	step := q.Step.Milliseconds()
	ms := q.End.UnixMilli()
	ms -= ((ms % step) + step) % step
	end = time.UnixMilli(ms).In(q.End.Location())
	return end.Add(-q.Window + q.Step), end
}

// Points is the number of steps in the window.
func (q Query) Points() int { return int(q.Window / q.Step) }
