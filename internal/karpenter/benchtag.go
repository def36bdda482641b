//go:build !gpufleet_bench_novalidation

package karpenter

// skipValidation is true only in the provider that `make bench` builds with the tag
// gpufleet_bench_novalidation, to measure what the in-process validation adds to a plan.
const skipValidation = false
