package computeclass

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// The guide's figures are the renderer's: the defaults by workload kind and flex-start's run time.
func TestGuide_figures(t *testing.T) {
	raw, err := os.ReadFile("../../templates/guides/gpu-capacity-on-gke-with-computeclasses.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(raw)
	row := regexp.MustCompile(`(?m)^\| (training|inference|batch|development) \| (.*) \| ([0-9]+) \|$`)
	rows := row.FindAllStringSubmatch(guide, -1)
	if len(rows) != 4 {
		t.Fatalf("%d rows of defaults in the guide, want 4", len(rows))
	}
	for _, r := range rows {
		for _, interruptible := range []bool{false, true} {
			d := render.Defaults(pool.Workload{Kind: r[1], Interruptible: interruptible})
			migrate := r[2] == "`true`" || r[2] == "`true` if `interruptible`, else `false`" && interruptible
			if d.OptimizeRulePriority != migrate || strconv.Itoa(d.ConsolidationDelayMinutes) != r[3] {
				t.Errorf("guide says %s (interruptible %t): %s, %s minutes; render.Defaults: %+v", r[1], interruptible, r[2], r[3], d)
			}
		}
	}
	if !strings.Contains(guide, "at most and by default "+strconv.Itoa(render.MaxRunDurationSeconds)+", seven days") {
		t.Errorf("the guide does not give flex-start's maximum run duration as %d", render.MaxRunDurationSeconds)
	}
}
