package bench

import "strings"

// utilizationSection is BenchmarkPoolUtilization's table (internal/metrics), when it ran.
func (r Results) utilizationSection(b *strings.Builder) {
	m, ok := r.Benchmarks["BenchmarkPoolUtilization"]
	if !ok {
		return
	}
	b.WriteString("\n## gpufleet_pool_utilization over 14 days\n\n`BenchmarkPoolUtilization`: what the data source's read does for one pool of 20 GPUs over 14 days at `5m` (4,032 steps) against the local Prometheus (`make test`'s fixtures), against the same range queries through prometheus/client_golang with nothing computed. Target: under 2 s, at most one query per metric.\n\n")
	table(b, []string{"queries per read", "raw queries s", "read s", "× raw queries"},
		[][]string{{num(m["queries"], 0), num(m["s-raw-queries"], 3), num(m["s-utilization"], 3), num(m["utilization/raw-queries"], 2)}})
}
