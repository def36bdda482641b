package recommend

import (
	"context"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// The cases of issue #22: answers that saved 90-95 % on paper and could not be deployed. Each test
// asks what the issue asked and checks that the answer is one a platform engineer would deploy.

func recommendOK(t *testing.T, req Request) Answer {
	t.Helper()
	a, err := Recommend(context.Background(), req, env(t, catalog.Pricing{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, cloud := range req.Clouds {
		best := a.Results[cloud].Best
		if best == nil {
			t.Fatalf("%s: no answer: %s", cloud, a.Results[cloud].Why)
		}
		if problems := best.Spec.Validate(); len(problems) > 0 {
			t.Fatalf("%s: %s is not a pool the resources accept: %v", cloud, best.Label(), problems)
		}
	}
	return a
}

var usEast = []string{"us-east-1", "us-east4", "us-central1"}

func TestRecommend_bf16LoRA7BNotOnT4(t *testing.T) {
	w := Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, Interruptible: true, ParametersBillion: 7, Precision: "bf16", Method: "lora"}
	a := recommendOK(t, Request{Workload: w, Clouds: both, Regions: usEast})
	for cloud, r := range a.Results {
		if g := r.Best.Node.GPU(); g.ComputeCapability < 8.0 {
			t.Errorf("%s: bf16 LoRA on %s (compute capability %g)", cloud, r.Best.Label(), g.ComputeCapability)
		}
	}
	// Without the precision check the cheapest answer is a T4 (13.08 GiB fits its 15.2 usable GiB).
	w.Precision = ""
	w.GPUMemoryGiB, w.ParametersBillion, w.Method = a.NeedGiB, 0, ""
	if b := recommendOK(t, Request{Workload: w, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}}).Results[catalog.AWS].Best; b.Node.GPUModel != "T4" {
		t.Errorf("without a precision the answer is %s, the test no longer shows what the precision check excludes", b.Label())
	}
}

func TestRecommend_fp8_8BNotOnT4(t *testing.T) {
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 8, Precision: "fp8"}
	a := recommendOK(t, Request{Workload: w, Clouds: both, Regions: usEast})
	for cloud, r := range a.Results {
		if g := r.Best.Node.GPU(); g.ComputeCapability < 8.9 {
			t.Errorf("%s: fp8 on %s (compute capability %g)", cloud, r.Best.Label(), g.ComputeCapability)
		}
	}
	_, err := Recommend(context.Background(), Request{Workload: w, Clouds: both, Regions: usEast, GPUModels: []string{"T4"}}, env(t, catalog.Pricing{}))
	if err == nil || !strings.Contains(err.Error(), "precision excluded") || !strings.Contains(err.Error(), "does not compute in fp8") {
		t.Errorf("fp8 on T4 only: %v", err)
	}
}

func TestRecommend_7Bfp16NotOn16GiBT4WithoutHeadroom(t *testing.T) {
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, ParametersBillion: 7, Precision: "fp16"}
	req := Request{Workload: w, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}}
	if b := recommendOK(t, req).Results[catalog.AWS].Best; b.Node.GPUModel == "T4" && b.GPUsPerReplica < 2 {
		t.Errorf("15.65 GiB on one 16 GiB T4: %s", b.Label())
	}
	// On T4s only, the replica is split over two T4s of a g4dn.12xlarge (tensor parallel).
	req.GPUModels = []string{"T4"}
	if b := recommendOK(t, req).Results[catalog.AWS].Best; b.GPUsPerReplica != 2 || b.Node.Name != "g4dn.12xlarge" {
		t.Errorf("on T4s: %s over %d GPUs", b.Label(), b.GPUsPerReplica)
	}
	// One T4 per replica: nothing fits, and the message says why, with the nearest option.
	req.Workload.GPUsPerReplica = 1
	_, err := Recommend(context.Background(), req, env(t, catalog.Pricing{}))
	if err == nil || !strings.Contains(err.Error(), "GPU memory excluded") || !strings.Contains(err.Error(), "15.65 GiB needed per replica, 1 x 16 GiB usable at 5 % headroom gives 15.2 GiB") ||
		!strings.Contains(err.Error(), "nearest: ") {
		t.Fatalf("7B fp16 on one T4: %v", err)
	}
	// At 0 % headroom the fit takes the old answer, one T4 per replica, but the bundle judges it
	// with its own headroom (thresholds.memory_headroom_percent, default 5) and denies it, as it
	// would deny the pool at plan time.
	zero := 0.0
	req.MemoryHeadroomPercent = &zero
	_, err = Recommend(context.Background(), req, env(t, catalog.Pricing{}))
	if err == nil || !strings.Contains(err.Error(), "denies every aws option") || !strings.Contains(err.Error(), "GF-RS-001") || !strings.Contains(err.Error(), "15.2 GiB of it is usable with 5 % kept free") {
		t.Errorf("at 0 %% headroom: %v", err)
	}
}

func TestRecommend_fourLoadsNeedHostMemory(t *testing.T) {
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 14}
	a := recommendOK(t, Request{Workload: w, Replicas: 4, Clouds: []catalog.Cloud{catalog.GCP}, Regions: []string{"us-central1"}, GPUModels: []string{"T4"}})
	b := a.Results[catalog.GCP].Best
	perNode := min(b.ReplicasPerNode, 4)
	if host := float64(perNode)*catalog.HostGiBFor(14) + catalog.HostMemoryReserveGiB(catalog.GCP, b.Node.MemoryGiB); host > b.Node.MemoryGiB {
		t.Errorf("%s: %d replicas need %g GiB of host memory, the node has %g", b.Label(), perNode, host, b.Node.MemoryGiB)
	}
	if b.Node.Name == "n1-standard-4" && b.Node.GPUCount == 4 {
		t.Errorf("four 14 GiB loads on a 15 GiB node: %s", b.Label())
	}
}

func TestRecommend_7BFSDPOnOneNVLinkNode(t *testing.T) {
	w := Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, Interruptible: true, ParametersBillion: 7, Precision: "bf16", GPUsPerReplica: 4}
	a := recommendOK(t, Request{Workload: w, Clouds: both, Regions: usEast})
	for cloud, r := range a.Results {
		b := r.Best
		if !b.Node.NVLinked() || b.Node.GPUCount < 4 || b.GPUsPerReplica != 4 || b.Nodes != 1 {
			t.Errorf("%s: 7B FSDP over 4 GPUs on %s (interconnect %q, %d nodes)", cloud, b.Label(), b.Node.Interconnect, b.Nodes)
		}
		if b.Spec.Workload.GPUsPerReplica != 4 {
			t.Errorf("%s: pool workload.gpus_per_replica %d", cloud, b.Spec.Workload.GPUsPerReplica)
		}
	}
}

func TestRecommend_twoProductionReplicasOnTwoNodes(t *testing.T) {
	a := recommendOK(t, Request{Workload: serve7B, Replicas: 2, Clouds: both, Regions: usEast})
	for cloud, r := range a.Results {
		if b := r.Best; b.Nodes < 2 || b.Spec.Scaling.Min < 2 {
			t.Errorf("%s: two production replicas on %d node(s), min_size %d", cloud, b.Nodes, b.Spec.Scaling.Min)
		}
	}
}

func TestRecommend_70Bfp16InferenceTensorParallel(t *testing.T) {
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 70, Precision: "fp16"}
	a := recommendOK(t, Request{Workload: w, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}})
	b := a.Results[catalog.AWS].Best
	p6, _ := catalog.AWSInstanceType("p6-b200.48xlarge")
	price, _ := p6.Price("us-east-1")
	p6Monthly := price.OnDemandUSD * catalog.HoursPerMonth
	if b.GPUsPerReplica < 2 || b.MonthlyUSD > p6Monthly/4 {
		t.Errorf("70B fp16: %s over %d GPUs at $%.0f/month; the p6-b200 answer cost $%.0f", b.Label(), b.GPUsPerReplica, b.MonthlyUSD, p6Monthly)
	}
	t.Logf("70B fp16: %s, %d GPUs per replica, $%.2f/month (p6-b200.48xlarge: $%.2f)", b.Label(), b.GPUsPerReplica, b.MonthlyUSD, p6Monthly)
}

func TestRecommend_175BGetsAnAnswer(t *testing.T) {
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, ParametersBillion: 175, Precision: "fp16"}
	a := recommendOK(t, Request{Workload: w, Clouds: both, Regions: usEast})
	for cloud, r := range a.Results {
		b := r.Best
		if float64(b.GPUsPerReplica)*b.Node.GPU().MemoryGiB*0.95 < a.NeedGiB {
			t.Errorf("%s: %s over %d GPUs does not hold %g GiB", cloud, b.Label(), b.GPUsPerReplica, a.NeedGiB)
		}
		t.Logf("175B fp16 on %s: %s, %d GPUs per replica, $%.2f/month", cloud, b.Label(), b.GPUsPerReplica, b.MonthlyUSD)
	}
}

func TestRecommend_1500ReplicasWithin1000Nodes(t *testing.T) {
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 12}
	a := recommendOK(t, Request{Workload: w, Replicas: 1500, Clouds: both, Regions: usEast})
	for cloud, r := range a.Results {
		if b := r.Best; b.Nodes > catalog.MaxPoolNodes || b.Nodes*b.ReplicasPerNode < 1500 {
			t.Errorf("%s: %s x %d nodes", cloud, b.Label(), b.Nodes)
		}
	}
}

func TestRecommend_residencyNoFitMessage(t *testing.T) {
	a, err := Recommend(context.Background(), Request{Workload: prodSmall, Clouds: both, Regions: []string{"us-*", "europe-west4"}, Client: "acme"}, env(t, catalog.Pricing{}))
	if err != nil {
		t.Fatal(err)
	}
	r := a.Results[catalog.AWS]
	if r.Best != nil || !strings.Contains(r.Why, `data residency excludes every aws region asked: client "acme" may only run in eu-*, europe-*`) ||
		!strings.Contains(r.Why, "us-east-1") || r.Argument != "client" {
		t.Errorf("aws: %+v", r)
	}
	if a.Results[catalog.GCP].Best == nil || a.Results[catalog.GCP].Best.Region != "europe-west4" {
		t.Errorf("gcp: %+v", a.Results[catalog.GCP])
	}
}

// Issue #40, item 7 (no-fit messages): a GKE machine type sold only as Spot, flex-start or with a
// reservation is excluded for a pool with on-demand nodes with that cause named, and the nearest
// options are ones the user could deploy: 405B in fp4 for production serving fits only the B200s
// of an a4-highgpu-8g, which is not sold on demand; on H200s and B200s only, the MIG slices of the
// a3-ultragpu-8g, which "failed only GPU memory" before, are not offered as nearest.
func TestRecommend_noFitNamesTheProvisioning(t *testing.T) {
	e := env(t, catalog.Pricing{})
	gcp := []catalog.Cloud{catalog.GCP}
	fp4 := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 405, Precision: "fp4"}
	_, err := Recommend(context.Background(), Request{Workload: fp4, Clouds: gcp, Regions: []string{"us-central1"}}, e)
	if err == nil || !strings.Contains(err.Error(), "provisioning excluded") ||
		!strings.Contains(err.Error(), "Compute Engine sells a4-highgpu-8g only as Spot, flex-start or a reservation, and the pool would run 1 of its 1 nodes on demand") {
		t.Errorf("405B fp4 on GKE: %v", err)
	}
	guideHas(t, "`Compute Engine sells a4-highgpu-8g only as Spot, flex-start or a reservation, and the pool would run 1 of its 1 nodes on demand")
	big := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 130}
	_, err = Recommend(context.Background(), Request{Workload: big, Clouds: gcp, Regions: []string{"us-central1"}, GPUModels: []string{"H200-141GB", "B200"}}, e)
	if err == nil || !strings.Contains(err.Error(), "provisioning excluded") {
		t.Fatalf("H200 and B200 only: %v", err)
	}
	if _, nearest, found := strings.Cut(err.Error(), "nearest:"); found && (strings.Contains(nearest, "a3-ultragpu-8g") || strings.Contains(nearest, "a4-highgpu-8g")) {
		t.Errorf("nearest options not sold on demand: %s", nearest)
	}
	// Interruptible work that may run all on Spot keeps them.
	fp4.Environment, fp4.Interruptible = pool.EnvStaging, true
	a, err := Recommend(context.Background(), Request{Workload: fp4, Clouds: gcp, Regions: []string{"us-central1"}}, e)
	if err != nil || a.Results[catalog.GCP].Best.Node.Name != "a4-highgpu-8g" {
		t.Errorf("interruptible staging fp4: %v %v", a.Results[catalog.GCP], err)
	}
}
