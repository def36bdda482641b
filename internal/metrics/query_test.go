package metrics

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestQuery_bounds(t *testing.T) {
	day := 24 * time.Hour
	cases := []struct {
		window, step time.Duration
		kind         string
		want         string
	}{
		{14 * day, 5 * time.Minute, "", ""},
		{90 * day, 12 * time.Minute, "", ""},
		{91 * day, time.Hour, "window", "window 91d is longer than the maximum of 90d"},
		{90 * day, 5 * time.Minute, "step", "window 90d at step 5m would return 25920 points per series, more than the maximum of 11000: widen the step to at least 12m"},
		{day, 7 * time.Minute, "step", "not a whole number of steps"},
		{time.Hour, 2 * time.Hour, "step", "step 2h is longer than window 1h"},
		{0, time.Minute, "window", "window must be positive"},
	}
	for _, c := range cases {
		err := ValidateWindowStep(c.window, c.step)
		var we *WindowError
		var se *StepError
		switch {
		case c.kind == "" && err != nil:
			t.Errorf("%s/%s: %v", c.window, c.step, err)
		case c.kind == "window" && (!errors.As(err, &we) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s/%s: %v, want window error %q", c.window, c.step, err, c.want)
		case c.kind == "step" && (!errors.As(err, &se) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s/%s: %v, want step error %q", c.window, c.step, err, c.want)
		}
	}
}

func TestQuery_selectorAndRange(t *testing.T) {
	for _, bad := range []string{``, `gpufleet_pool="a"`, `{}`, `up{a="b"}`, `{__name__=~"DCGM.*"}`} {
		if err := ValidateSelector(bad); err == nil {
			t.Errorf("selector %q accepted", bad)
		}
	}
	q := Query{Selector: ` {gpufleet_pool="acme-train", namespace=~"gpu-.*"} `, Window: 14 * 24 * time.Hour, Step: 5 * time.Minute,
		End: time.Date(2026, 11, 20, 12, 3, 7, 0, time.UTC)}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := q.Expr(MetricGPUUtil); got != `DCGM_FI_DEV_GPU_UTIL{gpufleet_pool="acme-train", namespace=~"gpu-.*"}` {
		t.Errorf("expr %s", got)
	}
	start, end := q.Range()
	if !end.Equal(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)) || end.Sub(start) != q.Window-q.Step || q.Points() != 4032 {
		t.Errorf("range %s..%s, %d points", start, end, q.Points())
	}
	if d, err := ParseDuration("14d"); err != nil || d != 14*24*time.Hour {
		t.Errorf("14d = %v, %v", d, err)
	}
	if _, err := ParseDuration("two weeks"); err == nil {
		t.Error("bad duration accepted")
	}
}
