//go:build gpufleet_bench_novalidation

package karpenter

// skipValidation: this provider, built for `make bench` only, renders the objects at plan without
// validating them against the CRDs, so that the benchmark can tell the validation's cost from the
// rest of a plan.
const skipValidation = true
