//go:build gpufleet_bench_noplanwork

package poolschema

// skipPlanWork: this provider, built for `make bench` only, plans every pool without validating,
// deriving or evaluating policy (the computed attributes stay unknown), so that the benchmark can
// tell gpufleet's plan-time work from the rest of a plan.
const skipPlanWork = true
