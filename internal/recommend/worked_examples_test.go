package recommend

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// workedExamplesGuide is the guide whose worked examples TestRecommend_workedExamplesInTheGuide
// checks, row by row.
const workedExamplesGuide = "templates/guides/right-sizing.md.tmpl"

// workedExamples are the cases of issue #22 as the guide shows them: what is asked, and the answer
// on AWS in us-east-1 and GKE in us-central1.
var workedExamples = []struct {
	name string
	req  Request
}{
	{"7B LoRA fine-tuning in bf16", Request{Workload: Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, ParametersBillion: 7, Precision: "bf16", Method: "lora"}}},
	{"8B inference in fp8", Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, ParametersBillion: 8, Precision: "fp8"}}},
	{"7B fp16 inference on T4s only", Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, ParametersBillion: 7, Precision: "fp16"}, GPUModels: []string{"T4"}}},
	{"four 14 GiB replicas on T4s only", Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 14}, Replicas: 4, GPUModels: []string{"T4"}}},
	{"7B full training (FSDP) over 4 GPUs", Request{Workload: Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, ParametersBillion: 7, Precision: "bf16", GPUsPerReplica: 4}}},
	{"7B fp16, two production replicas", Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 7, Precision: "fp16"}, Replicas: 2}},
	{"70B fp16 inference", Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 70, Precision: "fp16"}}},
	{"175B fp16 inference", Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 175, Precision: "fp16"}}},
	{"1 500 replicas of 12 GiB", Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 12}, Replicas: 1500}},
	// Issue #40: the KV cache.
	{"Llama 3.1 8B bf16 at 128k context", Request{Workload: serve8B128k}},
	{"Llama 3.1 70B fp8, 32 sequences of 8k", Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, Model: "llama-3.1-70b", Precision: "fp8", ContextLength: 8192, ConcurrentSequences: 32}}},
	// Issue #40: quantisation by architecture.
	{"8B AWQ inference", Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 8, Precision: "awq"}}},
	{"8B GPTQ inference on V100s only", Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 8, Precision: "gptq"}, GPUModels: []string{"V100-16GB"}}},
	{"405B fp4 inference", Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 405, Precision: "fp4"}}},
	// Issue #40: multi-node training, only on shapes with EFA or GPUDirect between nodes.
	{"70B full training (FSDP) over 16 GPUs", Request{Workload: Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, ParametersBillion: 70, Precision: "bf16", GPUsPerReplica: 16}}},
}

// workedExampleRow is the guide's table row for an answer.
func workedExampleRow(name string, a Answer) string {
	cell := func(cloud catalog.Cloud) string {
		r := a.Results[cloud]
		if r.Best == nil {
			return "nothing fits"
		}
		b := r.Best
		what := fmt.Sprintf("%d x %s", b.Nodes, b.Node.Name)
		if b.Node.Accelerator != "" && b.Node.Family == "n1" {
			what += fmt.Sprintf(" + %d x %s", b.Node.GPUCount, b.Node.Accelerator)
		}
		switch {
		case b.MIGProfile != "":
			what += ", MIG " + b.MIGProfile
		case b.SharingReplicas > 0:
			what += fmt.Sprintf(", %d replicas per GPU", b.SharingReplicas)
		case b.NodesPerReplica > 1:
			what += fmt.Sprintf(", %d x %s per replica over %d nodes (%s)", b.GPUsPerReplica, b.Node.GPUModel, b.NodesPerReplica, catalog.InterNodeName(b.InterNode))
		case b.GPUsPerReplica > 1:
			what += fmt.Sprintf(", %d x %s per replica", b.GPUsPerReplica, b.Node.GPUModel)
		default:
			what += ", " + b.Node.GPUModel
		}
		return fmt.Sprintf("%s, $%.2f/month", what, b.MonthlyUSD)
	}
	return fmt.Sprintf("| %s | %s GiB | %s | %s |", name, fmtGiB(a.NeedGiB), cell(catalog.AWS), cell(catalog.GCP))
}

// Every worked example of the right-sizing guide is what the recommendation answers today: a
// change of the fit or of a price that changes an answer fails here, with the row to write.
func TestRecommend_workedExamplesInTheGuide(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", workedExamplesGuide))
	if err != nil {
		t.Fatal(err)
	}
	e := env(t, catalog.Pricing{})
	for _, ex := range workedExamples {
		req := ex.req
		req.Clouds, req.Regions = both, []string{"us-east-1", "us-central1"}
		a, err := Recommend(context.Background(), req, e)
		if err != nil {
			t.Fatalf("%s: %v", ex.name, err)
		}
		if row := workedExampleRow(ex.name, a); !strings.Contains(string(guide), row+"\n") {
			t.Errorf("%s: the guide lacks the row\n%s", workedExamplesGuide, row)
		}
	}
	// The residency example: acme may only run in the EU.
	_, err = Recommend(context.Background(), Request{Workload: prodSmall, Clouds: both, Regions: []string{"us-*"}, Client: "acme"}, e)
	if err == nil || !strings.Contains(string(guide), err.Error()) {
		t.Errorf("%s lacks the residency message\n%v", workedExamplesGuide, err)
	}
}

// The naive 70B answer the guide compares with: one p6-b200.48xlarge in us-east-1, on-demand.
func TestRecommend_workedExamplesNaive70B(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", workedExamplesGuide))
	if err != nil {
		t.Fatal(err)
	}
	p6, _ := catalog.AWSInstanceType("p6-b200.48xlarge")
	price, _ := p6.Price("us-east-1")
	if want := fmt.Sprintf("$%.2f/month", price.OnDemandUSD*catalog.HoursPerMonth); !strings.Contains(string(guide), want) {
		t.Errorf("the guide does not name the p6-b200.48xlarge's %s", want)
	}
}

// The right-sizing guide quotes the error for client acme (eu-*, europe-*) asking for us-*.
func TestRecommend_residencyErrorInTheGuide(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", workedExamplesGuide))
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 14}, Clouds: both, Regions: []string{"us-*"}, Client: "acme"}
	_, err = Recommend(context.Background(), req, env(t, catalog.Pricing{}))
	if err == nil || !strings.Contains(string(guide), "```\n"+err.Error()+"\n```") {
		t.Errorf("%s does not quote the error %v", workedExamplesGuide, err)
	}
}
