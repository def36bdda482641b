package recommend

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// acmeTrain is seed 002's pool (and the utilisation guide's worked example): 20 H100s on twenty
// p5.4xlarge nodes in us-east-1 at 18 % P95, 18 GiB P99 framebuffer used.
func acmeTrain() *Observed {
	return &Observed{NodeType: "p5.4xlarge", Region: "us-east-1", GPUsAvg: 20, GPUsMax: 20,
		UtilizationP95Percent: 18, UtilizationMeanPercent: ptr(18.0), MemoryUsedP99GiB: 18, MemoryUsedMaxGiB: ptr(19.0)}
}

var trainProd = Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction}

func gpusOf(o *Option) int { return o.Nodes * o.Node.GPUCount }

func TestRecommend_observed20H100At18PercentOn7GPUsWithMIG(t *testing.T) {
	a := recommendOK(t, Request{Workload: trainProd, Clouds: both, Regions: []string{"us-east-1", "us-central1"}, Observed: acmeTrain()})
	o := a.Observed
	node, _ := catalog.AWSInstanceType("p5.4xlarge")
	price, _ := node.Price("us-east-1")
	if want := math.Round(20*price.OnDemandUSD*730*100) / 100; o == nil || o.MonthlyUSD != want {
		t.Fatalf("observed monthly %+v, want %.2f (20 x p5.4xlarge at $%v/h)", o, want, price.OnDemandUSD)
	}
	if math.Abs(o.GPUEquivalents-3.6) > 1e-9 || o.Replicas != 20 || o.NeedGiB != 18 || o.GPUModel != "H100-80GB" {
		t.Errorf("observed %+v, want 3.6 GPU-equivalents over 20 replicas, 18 GiB on H100-80GB", *o)
	}
	for cloud, r := range a.Results {
		b := r.Best
		// 18 GiB and 18 % of an H100: 1g slices (14.3 %) are too small, 2g.20gb (28.6 %) carries it,
		// three to a GPU: ceil(20 / 3) = 7 GPUs (GKE's on-demand H100 nodes come in eights).
		if b.MIGProfile != "2g.20gb" || b.Node.GPUModel != "H100-80GB" || gpusOf(b) < 7 || gpusOf(b) > 8 {
			t.Errorf("%s: %s x %d nodes (%d GPUs), want 2g.20gb slices on 7-8 H100s", cloud, b.Label(), b.Nodes, gpusOf(b))
		}
		// On the pool's own cloud, under half of what it costs now; on the other, still a saving.
		if limit := map[catalog.Cloud]float64{catalog.AWS: o.MonthlyUSD / 2, catalog.GCP: o.MonthlyUSD}[cloud]; b.MonthlyUSD >= limit {
			t.Errorf("%s: %s costs %.2f a month, not under %.2f (the pool costs %.2f now)", cloud, b.Label(), b.MonthlyUSD, limit, o.MonthlyUSD)
		}
		for _, ru := range r.RunnersUp {
			if strings.HasPrefix(ru.MIGProfile, "1g.") {
				t.Errorf("%s: runner-up %s cannot carry 18 %% of an H100", cloud, ru.Label())
			}
		}
	}
	if b := a.Results[catalog.AWS].Best; b.Node.Name != "p5.4xlarge" || b.Nodes != 7 {
		t.Errorf("aws: %s x %d, want 7 x p5.4xlarge", b.Label(), b.Nodes)
	}
}

// Without the compute check, the same 18 GiB need picks 1g.20gb slices (four to an H100, 14.3 % of
// its compute each): what sizing by memory alone would do with this pool.
func TestRecommend_observedMemoryAloneWouldPick1gSlices(t *testing.T) {
	w := trainProd
	w.GPUMemoryGiB = 18
	b := recommendOK(t, Request{Workload: w, Replicas: 20, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, GPUModels: []string{"H100-80GB"}}).Results[catalog.AWS].Best
	if b.MIGProfile != "1g.20gb" {
		t.Fatalf("by memory alone the answer is %s, the test no longer shows what the compute check excludes", b.Label())
	}
	req := Request{observed: &observedState{load: 0.18, model: "H100-80GB"}}
	h100, _ := catalog.AWSInstanceType("p5.4xlarge")
	for _, p := range h100.GPU().MIGProfiles {
		f := req.carries(shape{fit: catalog.MIGSlices(h100, p), mig: p.Name}, catalog.Fit{GPUsPerReplica: 1})
		if want := p.ComputeSlices == 1; f.Has(constraintCompute) != want {
			t.Errorf("%s at 18 %%: compute problem %v, want %v (%s)", p.Name, f.Has(constraintCompute), want, f.Text())
		}
	}
	if f := req.carries(shape{fit: catalog.SharedGPUs(h100, 6), sharing: 6}, catalog.Fit{GPUsPerReplica: 1}); !f.Has(constraintCompute) {
		t.Error("6 replicas at 18 % time-sharing one H100 (108 %) are accepted")
	}
	if got := req.maxSharing(h100.GPU(), 48); got != 5 {
		t.Errorf("time-sharing at 18 %% per replica: %d per GPU, want 5", got)
	}
}

// Outside production time-slicing is allowed (GF-ISO-003 forbids it in production only): the
// same pool shares each H100 between at most floor(1 / 0.18) = 5 replicas, here 4 (memory: 80 / 4 =
// 20 GiB each, 19 usable at 5 % headroom, holds 18).
func TestRecommend_observedStagingTimeSlicesWithinCompute(t *testing.T) {
	w := trainProd
	w.Environment = pool.EnvStaging
	b := recommendOK(t, Request{Workload: w, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Observed: acmeTrain()}).Results[catalog.AWS].Best
	if b.SharingReplicas != 4 || gpusOf(b) != 5 {
		t.Errorf("staging: %s x %d nodes, want 5 H100s time-shared by 4", b.Label(), b.Nodes)
	}
}

// An idle pool (2 % P95, 4 GiB) kept on H100s (gpu_models) collapses onto the smallest slices:
// 1g.10gb, seven to an H100.
func TestRecommend_observedIdlePoolShrinks(t *testing.T) {
	o := &Observed{NodeType: "p5.48xlarge", Region: "us-east-1", GPUsMax: 16, UtilizationP95Percent: 2, MemoryUsedP99GiB: 4, NodeCount: 2}
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction}
	a := recommendOK(t, Request{Workload: w, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Observed: o, GPUModels: []string{"H100-80GB"}})
	b := a.Results[catalog.AWS].Best
	if b.MIGProfile != "1g.10gb" || gpusOf(b) > 4 {
		t.Errorf("idle: %s x %d nodes (%d GPUs), want 1g.10gb on at most 4 H100s", b.Label(), b.Nodes, gpusOf(b))
	}
	p5, _ := catalog.AWSInstanceType("p5.48xlarge")
	price, _ := p5.Price("us-east-1")
	if want := math.Round(2*price.OnDemandUSD*730*100) / 100; a.Observed.MonthlyUSD != want {
		t.Errorf("observed monthly %.2f, want node_count 2 x p5.48xlarge = %.2f", a.Observed.MonthlyUSD, want)
	}
}

// A busy pool must not shrink: at 95 % P95 no slice or shared GPU carries a replica, so 20 replicas
// keep 20 whole H100s.
func TestRecommend_observedBusyPoolKeepsItsGPUs(t *testing.T) {
	o := acmeTrain()
	o.UtilizationP95Percent, o.UtilizationMeanPercent = 95, ptr(80.0)
	for _, env := range []string{pool.EnvProduction, pool.EnvStaging} {
		w := trainProd
		w.Environment = env
		a := recommendOK(t, Request{Workload: w, Clouds: both, Regions: []string{"us-east-1", "us-central1"}, Observed: o})
		for cloud, r := range a.Results {
			if b := r.Best; b.MIGProfile != "" || b.SharingReplicas != 0 || gpusOf(b) < 20 {
				t.Errorf("%s %s: busy pool on %s x %d nodes (%d GPUs), want 20 whole H100s", env, cloud, b.Label(), b.Nodes, gpusOf(b))
			}
		}
	}
}

// A pool cut into MIG slices, kept on H100s (gpu_models): its devices are slices, each 3/7 of an H100 in compute. 14 devices of
// 3g.40gb at 50 % are 3 GPU-equivalents, 21.4 % a replica: 2g.20gb slices carry it (15 GiB P99).
// The pool costs its devices / 2 per GPU = 7 GPUs now.
func TestRecommend_observedMIGPoolWeighsSlices(t *testing.T) {
	o := &Observed{NodeType: "p5.4xlarge", Region: "us-east-1", MIGProfile: "3g.40gb", GPUsMax: 14, UtilizationP95Percent: 50, MemoryUsedP99GiB: 15}
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction}
	a := recommendOK(t, Request{Workload: w, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Observed: o, GPUModels: []string{"H100-80GB"}})
	if math.Abs(a.Observed.GPUEquivalents-3) > 1e-9 || math.Abs(a.Observed.LoadPerReplica-3.0/14) > 1e-9 {
		t.Errorf("observed %+v, want 3 GPU-equivalents, 3/14 a replica", *a.Observed)
	}
	p5, _ := catalog.AWSInstanceType("p5.4xlarge")
	price, _ := p5.Price("us-east-1")
	if want := math.Round(7*price.OnDemandUSD*730*100) / 100; a.Observed.MonthlyUSD != want {
		t.Errorf("observed monthly %.2f, want 7 GPUs = %.2f", a.Observed.MonthlyUSD, want)
	}
	if b := a.Results[catalog.AWS].Best; b.MIGProfile != "2g.20gb" || gpusOf(b) != 5 {
		t.Errorf("%s x %d, want 2g.20gb on ceil(14 / 3) = 5 H100s", b.Label(), b.Nodes)
	}
}

// The declared need is a check: the observed P99 sizes, the declared need is reported beside it.
func TestRecommend_observedMemoryWinsOverTheDeclaredNeed(t *testing.T) {
	w := trainProd
	w.GPUMemoryGiB = 70
	a := recommendOK(t, Request{Workload: w, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Observed: acmeTrain()})
	if a.NeedGiB != 18 || a.Observed.DeclaredGiB != 70 || a.Results[catalog.AWS].Best.MIGProfile != "2g.20gb" {
		t.Errorf("need %g, declared %g, answer %s: want the observed 18 GiB to size, 70 declared", a.NeedGiB, a.Observed.DeclaredGiB, a.Results[catalog.AWS].Best.Label())
	}
	// hours_per_month prices the pool now as it prices the answer.
	a2 := recommendOK(t, Request{Workload: w, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Observed: acmeTrain(), HoursPerMonth: 365})
	if math.Abs(a2.Observed.MonthlyUSD-a.Observed.MonthlyUSD/2) > 0.01 {
		t.Errorf("at 365 h the pool costs %.2f, want half of %.2f", a2.Observed.MonthlyUSD, a.Observed.MonthlyUSD)
	}
}

// A given price per GPU-hour prices the GPUs paid for on average (gpus_avg).
func TestRecommend_observedPriceFromHourlyUSDPerGPU(t *testing.T) {
	o := acmeTrain()
	o.Region, o.HourlyUSDPerGPU, o.GPUsAvg = "", 10, 18.5
	a := recommendOK(t, Request{Workload: trainProd, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Observed: o})
	if a.Observed.MonthlyUSD != 18.5*10*730 || a.Observed.Replicas != 20 {
		t.Errorf("observed %+v, want 18.5 GPUs x $10 x 730 h, 20 replicas (gpus_max)", *a.Observed)
	}
}

func TestRecommend_observedBadInput(t *testing.T) {
	cases := map[string]struct {
		edit     func(*Observed, *Request)
		argument string
		text     string
	}{
		"unknown node type":        {func(o *Observed, _ *Request) { o.NodeType = "p9.huge" }, "observed.node_type", "neither an EC2"},
		"negative utilisation":     {func(o *Observed, _ *Request) { o.UtilizationP95Percent = -1 }, "observed.utilization_p95_percent", "between 0 and 100"},
		"utilisation over 100":     {func(o *Observed, _ *Request) { o.UtilizationMeanPercent = ptr(101.0) }, "observed.utilization_mean_percent", "between 0 and 100"},
		"memory above the GPU":     {func(o *Observed, _ *Request) { o.MemoryUsedP99GiB = 90 }, "observed.memory_used_p99_gib", "more than the 80 GiB of a H100-80GB"},
		"max above the slice":      {func(o *Observed, _ *Request) { o.MIGProfile, o.MemoryUsedMaxGiB = "2g.20gb", ptr(21.0) }, "observed.memory_used_max_gib", "more than the 20 GiB of the MIG slice 2g.20gb"},
		"max below P99":            {func(o *Observed, _ *Request) { o.MemoryUsedMaxGiB = ptr(10.0) }, "observed.memory_used_max_gib", "below memory_used_p99_gib"},
		"unknown MIG profile":      {func(o *Observed, _ *Request) { o.MIGProfile = "5g.50gb" }, "observed.mig_profile", "no MIG profile"},
		"no GPUs":                  {func(o *Observed, _ *Request) { o.GPUsAvg, o.GPUsMax = 0, 0 }, "observed.gpus_max", "set gpus_max or gpus_avg"},
		"average above max":        {func(o *Observed, _ *Request) { o.GPUsAvg = 21 }, "observed.gpus_avg", "more than gpus_max"},
		"no price":                 {func(o *Observed, _ *Request) { o.Region = "" }, "observed.region", "or hourly_usd_per_gpu"},
		"region without the type":  {func(o *Observed, _ *Request) { o.Region = "us-central1" }, "observed.region", "no price for p5.4xlarge in us-central1"},
		"another GPU model":        {func(_ *Observed, r *Request) { r.GPUModels = []string{"L4"} }, "gpu_models", "must include it"},
		"a replica over 16 GPUs":   {func(o *Observed, r *Request) { r.Replicas = 1; o.UtilizationP95Percent = 100 }, "replicas", "observed compute"},
		"negative node count":      {func(o *Observed, _ *Request) { o.NodeCount = -1 }, "observed.node_count", "1 or more"},
		"fractional maximum count": {func(o *Observed, _ *Request) { o.GPUsMax = 19.5 }, "observed.gpus_max", "whole number"},
	}
	e := env(t, catalog.Pricing{})
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			o := acmeTrain()
			req := Request{Workload: trainProd, Clouds: both, Regions: []string{"us-east-1", "us-central1"}, Observed: o}
			c.edit(o, &req)
			_, err := Recommend(context.Background(), req, e)
			var ae *catalog.ArgumentError
			if !errors.As(err, &ae) || ae.Argument != c.argument || !strings.Contains(ae.Message, c.text) {
				t.Fatalf("got %v, want an error at %s saying %q", err, c.argument, c.text)
			}
		})
	}
}

// A MIG slice carries the same share of its GPU's compute here as internal/metrics weighs a MIG
// device with in its means: slices / 7, on the A30 / 4.
func TestComputeShareIsMetricsMIGWeight(t *testing.T) {
	n := 0
	for _, g := range catalog.GPUs() {
		for _, p := range g.MIGProfiles {
			if got, want := computeShare(g, p), metrics.MIGWeight(p.Name, "NVIDIA "+g.Name); math.Abs(got-want) > 1e-12 {
				t.Errorf("%s %s: share %g, metrics weighs %g", g.Name, p.Name, got, want)
			}
			n++
		}
	}
	if n < 20 {
		t.Fatalf("only %d MIG profiles checked", n)
	}
}

// The answer's mean utilisation is the observed mean work over every GPU its nodes have, and a peak
// above what a replica physically gets on the answer is flagged (a time-shared GPU is split).
func TestObservedAnswer_meanUtilizationAndPeak(t *testing.T) {
	p5, _ := catalog.AWSInstanceType("p5.4xlarge")
	a := ObservedAnswer{MeanGPUEquivalents: 3.6, meanKnown: true, PeakGiB: 21}
	mig := Option{Node: p5, Nodes: 7, MIGProfile: "2g.20gb", ReplicaGiB: 20}
	if u, ok := a.MeanUtilizationPercent(mig); !ok || math.Abs(u-3.6/7*100) > 1e-9 {
		t.Errorf("mean on 7 GPUs: %g %v, want 51.4 %%", u, ok)
	}
	if unit, above := a.PeakAbove(mig); !above || unit != 20 {
		t.Errorf("a 21 GiB peak on 2g.20gb: unit %g above %v, want 20 and above", unit, above)
	}
	shared := Option{Node: p5, Nodes: 5, SharingReplicas: 4, ReplicaGiB: 80}
	if unit, above := a.PeakAbove(shared); !above || unit != 20 {
		t.Errorf("a 21 GiB peak on an H100 shared by 4: unit %g above %v, want 20 and above", unit, above)
	}
	if _, above := a.PeakAbove(Option{Node: p5, Nodes: 20, ReplicaGiB: 80}); above {
		t.Error("a 21 GiB peak does not fit a whole H100")
	}
	if _, ok := (ObservedAnswer{MeanGPUEquivalents: 0}).MeanUtilizationPercent(mig); ok {
		t.Error("a mean that was not observed is reported")
	}
}

// The table of the guide "Right-sizing from utilisation", section 6: what the recommendation answers
// for acme-train, computed here; the test fails with the row to write when the guide says otherwise.
func TestRecommend_observedGuideTable(t *testing.T) {
	guide, err := os.ReadFile("../../templates/guides/right-sizing-from-utilisation.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	o := acmeTrain()
	o.NodeCount = 20
	a := recommendOK(t, Request{Workload: trainProd, Clouds: both, Regions: []string{"us-east-1", "us-central1"}, Observed: o})
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	money := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	want := []string{
		fmt.Sprintf("(`observed_gpu_equivalents` = %s, `required_gpu_memory_gib` = %s)", num(a.Observed.GPUEquivalents), num(a.NeedGiB)),
		fmt.Sprintf("| now (`observed_monthly_usd`) | 20 × `p5.4xlarge` | 20 | %s | | 18 |", money(a.Observed.MonthlyUSD)),
	}
	for _, cloud := range both {
		b := a.Results[cloud].Best
		u, _ := a.Observed.MeanUtilizationPercent(*b)
		want = append(want, fmt.Sprintf("| `%s` | %d × `%s`, MIG `%s` | %d | %s | %s | %s |", cloud, b.Nodes, b.Node.Name, b.MIGProfile, gpusOf(b),
			money(b.MonthlyUSD), money(a.Observed.MonthlyUSD-b.MonthlyUSD), num(math.Round(u*10)/10)))
	}
	w := trainProd
	w.GPUMemoryGiB = 18
	memOnly := recommendOK(t, Request{Workload: w, Replicas: 20, Clouds: both, Regions: []string{"us-east-1", "us-central1"}, GPUModels: []string{"H100-80GB"}})
	want = append(want, fmt.Sprintf("the recommendation would pick **`%s`**", memOnly.Results[catalog.AWS].Best.MIGProfile))
	flat := strings.Join(strings.Fields(string(guide)), " ")
	for _, s := range want {
		if !strings.Contains(flat, strings.Join(strings.Fields(s), " ")) {
			t.Errorf("the guide does not say:\n%s", s)
		}
	}
}

// Tensor-parallel replicas over two GPUs: the need is two devices' P99, and the replicas are the
// devices / 2 (8 H100s at 60 %: 4 replicas of 2 x 50 GiB, 1.2 GPUs of work each, on whole GPUs).
func TestRecommend_observedReplicasOverSeveralGPUs(t *testing.T) {
	o := &Observed{NodeType: "p5.48xlarge", Region: "us-east-1", GPUsMax: 8, UtilizationP95Percent: 60, MemoryUsedP99GiB: 50}
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUsPerReplica: 2}
	a := recommendOK(t, Request{Workload: w, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Observed: o})
	if a.NeedGiB != 100 || a.Observed.Replicas != 4 || math.Abs(a.Observed.LoadPerReplica-1.2) > 1e-9 {
		t.Errorf("need %g, observed %+v: want 100 GiB, 4 replicas of 1.2 GPUs", a.NeedGiB, *a.Observed)
	}
	if b := a.Results[catalog.AWS].Best; b.GPUsPerReplica != 2 || b.MIGProfile != "" || gpusOf(b) < 8 {
		t.Errorf("%s x %d (%d GPUs, %d per replica), want whole H100s, 2 per replica, 8 in all", b.Label(), b.Nodes, gpusOf(b), b.GPUsPerReplica)
	}
}

// Issue #40, item 9: serving consolidates onto another GPU model when the observed memory and
// activity fit it, the load converted by memory bandwidth (decode's bound): the idle pool above
// (16 H100s at 2 %, 4 GiB) is 16 g4dn.xlarge, a T4 each at 2 × 3 350 / 320 = 20.9 %, for less than
// 1g.10gb slices of H100s; 14 replicas at 3/14 of an H100 (15 GiB) get an L40S each (83.1 %), and
// no L4 (239.3 %), which the fit says. Training stays on the observed model.
func TestRecommend_observedMovesToAnotherGPUModel(t *testing.T) {
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction}
	aws := []catalog.Cloud{catalog.AWS}
	idle := &Observed{NodeType: "p5.48xlarge", Region: "us-east-1", GPUsMax: 16, UtilizationP95Percent: 2, MemoryUsedP99GiB: 4, NodeCount: 2}
	moved := recommendOK(t, Request{Workload: w, Clouds: aws, Regions: []string{"us-east-1"}, Observed: idle}).Results[catalog.AWS].Best
	kept := recommendOK(t, Request{Workload: w, Clouds: aws, Regions: []string{"us-east-1"}, Observed: idle, GPUModels: []string{"H100-80GB"}}).Results[catalog.AWS].Best
	if moved.Node.Name != "g4dn.xlarge" || moved.Nodes != 16 || moved.MonthlyUSD >= kept.MonthlyUSD {
		t.Errorf("idle: %s x %d at $%.2f; on H100s %s x %d at $%.2f", moved.Label(), moved.Nodes, moved.MonthlyUSD, kept.Label(), kept.Nodes, kept.MonthlyUSD)
	}
	guide, err := os.ReadFile("../../templates/guides/right-sizing-from-utilisation.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	load := 0.02 * catalog.MemoryBandwidthGBps(kept.Node.GPU()) / catalog.MemoryBandwidthGBps(moved.Node.GPU()) * 100
	if want := fmt.Sprintf("16 H100s at 2 %% and 4 GiB is %d %s, a %s each at %.1f %%, where on H100s alone it would take %s\n  slices", moved.Nodes, moved.Node.Name, moved.Node.GPUModel, load, kept.MIGProfile); !strings.Contains(string(guide), want) {
		t.Errorf("the utilisation guide does not say %q", want)
	}
	mig := &Observed{NodeType: "p5.4xlarge", Region: "us-east-1", MIGProfile: "3g.40gb", GPUsMax: 14, UtilizationP95Percent: 50, MemoryUsedP99GiB: 15}
	req := Request{Workload: w, Clouds: aws, Regions: []string{"us-east-1"}, Observed: mig}
	if b := recommendOK(t, req).Results[catalog.AWS].Best; b.Node.GPUModel != "L40S" || b.Nodes != 14 || b.MIGProfile != "" {
		t.Errorf("3/14 of an H100: %s x %d, want 14 L40S", b.Label(), b.Nodes)
	}
	req.GPUModels = []string{"L4"}
	_, err = Recommend(context.Background(), req, env(t, catalog.Pricing{}))
	if err == nil || !strings.Contains(err.Error(), "21.4 % of a H100-80GB busy at P95 (observed), 239.3 % of a L4 by memory bandwidth") {
		t.Errorf("L4 only: %v", err)
	}
	train := acmeTrain()
	if b := recommendOK(t, Request{Workload: trainProd, Clouds: aws, Regions: []string{"us-east-1"}, Observed: train}).Results[catalog.AWS].Best; b.Node.GPUModel != "H100-80GB" {
		t.Errorf("training moved to %s", b.Label())
	}
}
