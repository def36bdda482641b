package recommend

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// env is the provider's environment with the example policy data (acme: eu, dedicated; globex: us,
// mig; initech: shared) and the embedded bundle.
func env(t *testing.T, pricing catalog.Pricing) Env {
	t.Helper()
	data, err := policy.LoadData([]string{filepath.Join("..", "..", "policies", "examples", "policy-data.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	e, err := policy.Shared(context.Background(), policy.Options{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return Env{Pricing: pricing, Registry: data.Registry, Policy: e}
}

var (
	both        = []catalog.Cloud{catalog.AWS, catalog.GCP}
	serve7B     = Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 7, Precision: "fp16"}
	trainSpot   = Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, GPUMemoryGiB: 60, Interruptible: true}
	serveSpot   = Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 20, Interruptible: true}
	devSmall    = Workload{Kind: pool.KindDevelopment, Environment: pool.EnvDevelopment, GPUMemoryGiB: 4}
	prodSmall   = Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 4}
	prodSmallPr = Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 4}
)

// Whatever is asked, every recommendation fits, is what the pool resources would build (valid spec),
// and the bundle does not deny it: the document of its pool is judged again here.
func TestRecommend_answersFitAndAreNotDenied(t *testing.T) {
	ctx := context.Background()
	e := env(t, catalog.Pricing{})
	requests := map[string]Request{
		"7B fp16 for globex (mig, us)":      {Workload: serve7B, Replicas: 8, Clouds: both, Regions: []string{"us-*"}, Client: "globex"},
		"7B fp16 for acme (dedicated, eu)":  {Workload: serve7B, Clouds: both, Regions: []string{"*"}, Client: "acme"},
		"interruptible training, no client": {Workload: trainSpot, Replicas: 4, Clouds: both, Regions: []string{"us-east*", "europe-west4"}},
		"interruptible production serving":  {Workload: serveSpot, Replicas: 3, Clouds: both, Regions: []string{"us-*"}, Client: "initech"},
		"development, many small replicas":  {Workload: devSmall, Replicas: 6, Clouds: both, Regions: []string{"eu-*", "europe-*"}, Client: "initech"},
		"production, many small replicas":   {Workload: prodSmallPr, Replicas: 6, Clouds: both, Regions: []string{"us-*"}, Client: "initech"},
	}
	for name, req := range requests {
		t.Run(name, func(t *testing.T) {
			a, err := Recommend(ctx, req, e)
			if err != nil {
				t.Fatal(err)
			}
			for _, cloud := range req.Clouds {
				best := a.Results[cloud].Best
				if best == nil {
					t.Fatalf("%s: no recommendation: %s", cloud, a.Results[cloud].Why)
				}
				if best.ReplicaGiB < a.NeedGiB {
					t.Errorf("%s: %s gives %g GiB, need %g", cloud, best.Label(), best.ReplicaGiB, a.NeedGiB)
				}
				if problems := best.Spec.Validate(); len(problems) > 0 {
					t.Errorf("%s: invalid pool: %v", cloud, problems)
				}
				d, err := pool.Derive(best.Spec, pool.Environment{Pricing: e.Pricing, Registry: e.Registry})
				if err != nil {
					t.Fatal(err)
				}
				findings, err := e.Policy.Evaluate(ctx, pool.Document("x", best.Spec, &d))
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range findings {
					if f.Severity == policy.SeverityDeny && (req.Client != "" || f.Rule != "GF-TAG-001") {
						t.Errorf("%s: %s is denied: %s", cloud, best.Label(), f.Msg)
					}
				}
				if best.Nodes*best.ReplicasPerNode < max(req.Replicas, 1) {
					t.Errorf("%s: %d nodes x %d replicas do not hold %d", cloud, best.Nodes, best.ReplicasPerNode, req.Replicas)
				}
				if req.Client == "globex" && best.MIGProfile == "" {
					t.Errorf("%s: globex needs MIG, got %s", cloud, best.Label())
				}
				if req.Workload.Environment == pool.EnvProduction && best.SharingReplicas != 0 {
					t.Errorf("%s: sharing in production: %s", cloud, best.Label())
				}
				for i, r := range a.Results[cloud].RunnersUp[1:] {
					if r.MonthlyUSD < a.Results[cloud].RunnersUp[i].MonthlyUSD {
						t.Errorf("%s: runners-up out of order at %d", cloud, i+1)
					}
				}
			}
		})
	}
}

// Spot only for interruptible work; production inference keeps half its nodes, and at least one,
// on demand (GF-COST-001; mix.go). Production training on one node is all spot; on two or more
// nodes its first node stays on demand (on AWS, three p5.4xlarge with one on demand,
// $6.88 + 2 × $2.4581 on spot, beat one p5.48xlarge on spot at $19.6647).
func TestRecommend_spotMix(t *testing.T) {
	tests := []struct {
		w                   Workload
		spot, base, minSize int
		on                  map[catalog.Cloud][3]int // a cloud whose answer differs: spot, base, min
	}{
		{trainSpot, 100, 0, 0, map[catalog.Cloud][3]int{catalog.AWS: {100, 1, 0}}},
		// Three production replicas spread over at least two nodes (GF-RS-005); on spot, both of the
		// floor's nodes on demand (GF-COST-001) and half of the rest on spot.
		{serveSpot, 50, 2, 2, nil},
		{serve7B, 0, 0, 2, nil},
		{prodSmall, 0, 0, 0, nil},
	}
	for _, tt := range tests {
		a, err := Recommend(context.Background(), Request{Workload: tt.w, Replicas: 3, Clouds: both, Regions: []string{"us-*"}}, env(t, catalog.Pricing{}))
		if err != nil {
			t.Fatal(err)
		}
		for cloud, r := range a.Results {
			b := r.Best
			want := [3]int{tt.spot, tt.base, tt.minSize}
			if w, ok := tt.on[cloud]; ok {
				want = w
			}
			// GKE spreads production inference over three zones: its base is whole nodes per zone.
			if base := pool.ZonalSize(want[1], b.Zones); b.SpotPercentage != want[0] || b.OnDemandBase != base || b.Spec.Scaling.Min != want[2] {
				t.Errorf("%+v on %s: spot %d base %d min %d, want %d %d %d", tt.w, cloud, b.SpotPercentage, b.OnDemandBase, b.Spec.Scaling.Min, want[0], base, want[2])
			}
		}
	}
}

// A MIG-isolated client gets slices; the cheaper whole GPUs lose with the rule that denies them,
// and the naive choice is a whole training-class GPU on-demand.
func TestRecommend_runnersUpAndNaive(t *testing.T) {
	a, err := Recommend(context.Background(), Request{Workload: serve7B, Replicas: 8, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Client: "globex"}, env(t, catalog.Pricing{}))
	if err != nil {
		t.Fatal(err)
	}
	r := a.Results[catalog.AWS]
	if len(r.RunnersUp) == 0 || !strings.Contains(r.RunnersUp[0].Reason, "GF-ISO-004") || r.RunnersUp[0].MonthlyUSD >= r.Best.MonthlyUSD {
		t.Errorf("first runner-up %+v should be a cheaper whole GPU denied by GF-ISO-004", r.RunnersUp)
	}
	last := r.RunnersUp[len(r.RunnersUp)-1]
	if !strings.Contains(last.Reason, "more than") || last.MonthlyUSD < r.Best.MonthlyUSD {
		t.Errorf("last runner-up %+v should be a dearer allowed option", last)
	}
	if r.Naive == nil || r.Naive.Node.GPU().Class != catalog.ClassTraining || r.Naive.MIGProfile != "" || r.Naive.SpotPercentage != 0 {
		t.Fatalf("naive %+v", r.Naive)
	}
	if r.Naive.MonthlyUSD <= r.Best.MonthlyUSD {
		t.Errorf("naive %s $%g should cost more than %s $%g", r.Naive.Label(), r.Naive.MonthlyUSD, r.Best.Label(), r.Best.MonthlyUSD)
	}
}

// Prices come from the one pricing path: an override changes the answer, and monthly is hourly x 730.
func TestRecommend_pricingOverrides(t *testing.T) {
	req := Request{Workload: prodSmall, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}}
	a, err := Recommend(context.Background(), req, env(t, catalog.Pricing{}))
	if err != nil {
		t.Fatal(err)
	}
	list := a.Results[catalog.AWS].Best
	cheap := catalog.Pricing{Overrides: map[string]catalog.Override{"g6.xlarge": {OnDemandUSD: 0.10, SpotUSD: 0.05}}}
	a, err = Recommend(context.Background(), req, env(t, cheap))
	if err != nil {
		t.Fatal(err)
	}
	got := a.Results[catalog.AWS].Best
	if list.Node.Name == "g6.xlarge" || got.Node.Name != "g6.xlarge" || got.HourlyUSD != 0.10 {
		t.Errorf("list price pick %s; with g6.xlarge at $0.10/h got %s at $%g/h", list.Node.Name, got.Node.Name, got.HourlyUSD)
	}
	if got.MonthlyUSD != math.Round(0.10*catalog.HoursPerMonth*100)/100 {
		t.Errorf("monthly %g", got.MonthlyUSD)
	}
}

func TestRecommend_badInput(t *testing.T) {
	tests := []struct {
		name     string
		req      Request
		argument string
		want     []string
	}{
		{"unknown precision", Request{Workload: Workload{Kind: "inference", Environment: "staging", ParametersBillion: 7, Precision: "fp17"}, Clouds: both, Regions: []string{"*"}},
			"workload.precision", []string{"nearest first: fp16"}},
		{"unknown method", Request{Workload: Workload{Kind: "training", Environment: "staging", ParametersBillion: 7, Precision: "bf16", Method: "dora"}, Clouds: both, Regions: []string{"*"}},
			"workload.method", []string{`"dora"`, "full", "lora", "qlora"}},
		{"zero parameters", Request{Workload: Workload{Kind: "inference", Environment: "staging", Precision: "fp16"}, Clouds: both, Regions: []string{"*"}},
			"workload.model_parameters_billion", []string{"positive"}},
		{"negative memory", Request{Workload: Workload{Kind: "inference", Environment: "staging", GPUMemoryGiB: -4}, Clouds: both, Regions: []string{"*"}},
			"workload.gpu_memory_gib", []string{"greater than 0"}},
		{"no regions", Request{Workload: prodSmall, Clouds: both}, "regions", []string{"at least one"}},
		{"glob matching nothing", Request{Workload: prodSmall, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-*", "europe-*"}},
			"regions[1]", []string{`"europe-*"`, "matches no region", "eu-"}},
		{"client not in the policy data", Request{Workload: prodSmall, Clouds: both, Regions: []string{"*"}, Client: "globx"},
			"client", []string{`"globx"`, "nearest first: globex"}},
		{"client's regions exclude all asked", Request{Workload: prodSmall, Clouds: both, Regions: []string{"us-*"}, Client: "acme"},
			"client", []string{"eu-*", "us-*"}},
		{"impossible memory", Request{Workload: Workload{Kind: "inference", Environment: "staging", GPUMemoryGiB: 5000}, Clouds: both, Regions: []string{"us-*"}},
			"workload.gpu_memory_gib", []string{"nothing fits", "5000 GiB", "most GPU memory on one node"}},
		{"impossible model", Request{Workload: Workload{Kind: "training", Environment: "staging", ParametersBillion: 70, Precision: "bf16"}, Clouds: both, Regions: []string{"us-*"}},
			"workload.model_parameters_billion", []string{"nothing fits"}},
		{"gpus_per_replica above the largest node", Request{Workload: Workload{Kind: "inference", Environment: "staging", GPUMemoryGiB: 40, GPUsPerReplica: 9}, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-*"}},
			"workload.gpus_per_replica", []string{"largest node of aws has 8 GPUs", "got 9"}},
		{"gpus_per_replica above the allowed models' nodes", Request{Workload: Workload{Kind: "inference", Environment: "staging", GPUMemoryGiB: 40, GPUsPerReplica: 16}, Clouds: both, Regions: []string{"us-*"}, GPUModels: []string{"L4"}},
			"workload.gpus_per_replica", []string{"has 8 GPUs", "L4"}},
		{"unknown gpu model", Request{Workload: prodSmall, Clouds: both, Regions: []string{"us-*"}, GPUModels: []string{"L4", "H100"}},
			"gpu_models[1]", []string{`"H100"`, "nearest first: H100-80GB"}},
		{"headroom above 50", Request{Workload: prodSmall, Clouds: both, Regions: []string{"us-*"}, MemoryHeadroomPercent: ptr(60.0)},
			"memory_headroom_percent", []string{"between 0 and 50", "60"}},
		{"unknown precision with a memory need", Request{Workload: Workload{Kind: "inference", Environment: "staging", GPUMemoryGiB: 4, Precision: "fp2"}, Clouds: both, Regions: []string{"*"}},
			"workload.precision", []string{`"fp2"`, "fp4"}},
		{"nothing the gpu models offer fits", Request{Workload: Workload{Kind: "inference", Environment: "staging", GPUMemoryGiB: 4, Precision: "bf16"}, Clouds: both, Regions: []string{"us-*"}, GPUModels: []string{"T4", "V100-16GB"}},
			"workload.precision", []string{"precision excluded", "does not compute in bf16", "gpu_models (T4, V100-16GB) excluded"}},
		{"price cap too low", Request{Workload: prodSmall, Clouds: both, Regions: []string{"us-*"}, MaxHourlyUSD: 0.01},
			"max_hourly_usd", []string{"over max_hourly_usd"}},
		{"policy denies everything", Request{Workload: Workload{Kind: "inference", Environment: "production", GPUMemoryGiB: 100}, Clouds: both, Regions: []string{"us-*"}, Client: "globex"},
			"client", []string{"policy bundle denies every aws option", "GF-ISO-004", "whole GPUs without MIG"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Recommend(context.Background(), tt.req, env(t, catalog.Pricing{}))
			var ae *catalog.ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("got %v, want an ArgumentError", err)
			}
			if ae.Argument != tt.argument {
				t.Errorf("argument %q, want %q (%v)", ae.Argument, tt.argument, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not contain %q", err, w)
				}
			}
		})
	}
}

// assertArgument checks that err is an ArgumentError naming argument, with the texts in its message.
func assertArgument(t *testing.T, err error, argument string, texts ...string) {
	t.Helper()
	var ae *catalog.ArgumentError
	if !errors.As(err, &ae) {
		t.Fatalf("got %v, want an ArgumentError", err)
	}
	if ae.Argument != argument {
		t.Errorf("argument %q, want %q (%v)", ae.Argument, argument, err)
	}
	for _, w := range texts {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not contain %q", err, w)
		}
	}
}

func ptr[T any](v T) *T { return &v }
