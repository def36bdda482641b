package bench

import "time"

// IdealApply is how long an apply of pools at parallelism would take if each API call took latency
// and nothing else took any time: one pool's calls one after another, ⌈pools/parallelism⌉ rounds
// of pools applied side by side.
func IdealApply(callsPerPool int, latency time.Duration, pools, parallelism int) time.Duration {
	rounds := (pools + parallelism - 1) / parallelism
	return time.Duration(callsPerPool*rounds) * latency
}
