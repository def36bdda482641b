package acctest

import (
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// Inject is a step's PreConfig that injects faults into sim, failing the test when one is refused.
func Inject(t testing.TB, sim *cloudsim.Sim, faults ...cloudsim.Fault) func() {
	return func() {
		t.Helper()
		for _, f := range faults {
			if _, err := sim.Inject(f); err != nil {
				t.Fatal(err)
			}
		}
	}
}
