package recommend

import (
	"context"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// 7B fp16 serving at 40 tokens/s per replica: the memory-only answer decodes slower than that; with
// the rate, every answer decodes at least 40 tokens/s (its estimate is the catalog's).
func TestRecommend_tokensPerSecondPicksAFasterGPU(t *testing.T) {
	e := env(t, catalog.Pricing{})
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, ParametersBillion: 7, Precision: "fp16"}
	req := Request{Workload: w, Replicas: 2, Clouds: both, Regions: []string{"us-east-1", "us-central1"}}
	memoryOnly, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	req.Workload.TokensPerSecond = 40
	fast, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	for _, cloud := range both {
		slow, b := memoryOnly.Results[cloud].Best, fast.Results[cloud].Best
		g := slow.Node.GPU()
		share := 1.0
		if slow.MIGProfile != "" {
			share = slow.ReplicaGiB / g.MemoryGiB
		} else if slow.SharingReplicas > 0 {
			share = 1 / float64(slow.SharingReplicas)
		}
		slowRate, _ := catalog.DecodeTokensPerSecond(catalog.DecodeShape{GPU: g, GPUsPerReplica: 1, Share: share}, 14e9)
		if slowRate >= 40 {
			t.Fatalf("%s: the memory-only answer %s already decodes %.1f tokens/s; the case proves nothing", cloud, slow.Label(), slowRate)
		}
		if b.DecodeTokensPerSecond < 40 || b.MonthlyUSD <= slow.MonthlyUSD {
			t.Errorf("%s: %s decodes %.1f tokens/s at $%g/month; want ≥ 40, dearer than %s ($%g)", cloud, b.Label(), b.DecodeTokensPerSecond, b.MonthlyUSD, slow.Label(), slow.MonthlyUSD)
		}
		for _, r := range fast.Results[cloud].RunnersUp {
			if r.DecodeTokensPerSecond < 40 {
				t.Errorf("%s: runner-up %s decodes %.1f tokens/s", cloud, r.Label(), r.DecodeTokensPerSecond)
			}
		}
	}
}

func TestRecommend_tokensPerSecondBadInput(t *testing.T) {
	e := env(t, catalog.Pricing{})
	serve := Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, ParametersBillion: 7, Precision: "fp16", TokensPerSecond: 10000}
	_, err := Recommend(context.Background(), Request{Workload: serve, Clouds: both, Regions: []string{"us-*"}}, e)
	assertArgument(t, err, "workload.tokens_per_second", "decodes 10000 tokens/s per replica", "the fastest that holds 15.65 GiB", "tokens/s (estimate")
	train := Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 20, TokensPerSecond: 10}
	_, err = Recommend(context.Background(), Request{Workload: train, Clouds: both, Regions: []string{"us-*"}}, e)
	assertArgument(t, err, "workload.tokens_per_second", "inference")
	serve.TokensPerSecond = -1
	_, err = Recommend(context.Background(), Request{Workload: serve, Clouds: both, Regions: []string{"us-*"}}, e)
	assertArgument(t, err, "workload.tokens_per_second", "greater than 0")
}
