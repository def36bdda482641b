//go:build !gpufleet_bench_noplanwork

package poolschema

// skipPlanWork is true only in the provider that `make bench` builds with the tag
// gpufleet_bench_noplanwork, to measure what the plan costs without gpufleet's own plan-time work.
const skipPlanWork = false
