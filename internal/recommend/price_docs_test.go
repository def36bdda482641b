package recommend

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// The worked examples of the guide "What a recommendation costs", computed by the code they describe.
// A changed price, rate or rule fails here until the guide says the new number.
func TestPriceGuideNumbers(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "recommendation-pricing.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	guide := string(raw)
	says := func(what string, numbers ...string) {
		t.Helper()
		for _, n := range numbers {
			if !strings.Contains(guide, n) {
				t.Errorf("%s: the guide does not say %q", what, n)
			}
		}
	}
	e := Env{Pricing: catalog.Pricing{}}

	// Hours and commitments: 4 x g6e.xlarge on demand in us-east-1.
	g6e, _ := catalog.AWSInstanceType("g6e.xlarge")
	train := Workload{Kind: pool.KindTraining, Environment: pool.EnvStaging, GPUMemoryGiB: 30}
	o := Option{Cloud: catalog.AWS, Region: "us-east-1", Node: g6e, ReplicaGiB: g6e.GPU().MemoryGiB, ReplicasPerNode: 1, Nodes: 4}
	o.Spec = candidateSpec(o, train, PlaceholderClient, demand{need: 30}, 0, 4)
	full, ok := price(o, e, 730)
	part, ok2 := price(o, e, 292)
	if !ok || !ok2 {
		t.Fatal("4 x g6e.xlarge is not priced")
	}
	rate, _, _, _ := e.Pricing.Committed(g6e, "us-east-1")
	says("hours_per_month", fmt.Sprintf("**$%g/h**", full.HourlyUSD), "**"+dollars(full.MonthlyUSD)+"**", "**"+dollars(part.MonthlyUSD)+"**")
	says("commitment", fmt.Sprintf("$%g/h a node", rate), "**"+dollars(full.CommittedMonthlyUSD)+"**", "would still\nbill "+dollars(full.CommittedMonthlyUSD))
	if part.Commitment != "" || full.Commitment == "" {
		t.Errorf("commitment at 292 h %q, at 730 h %q", part.Commitment, full.Commitment)
	}

	// On-demand per region: the published Tokyo price of g5.xlarge, against the regional factor.
	g5, _ := catalog.AWSInstanceType("g5.xlarge")
	tokyo, _ := g5.Price("ap-northeast-1")
	says("on-demand per region", fmt.Sprintf("**$%g/h** there", tokyo.OnDemandUSD))
	if !strings.Contains(tokyo.Source, "ec2instances.info") {
		t.Errorf("g5.xlarge ap-northeast-1: %q, the guide says it is the published price", tokyo.Source)
	}
	g2x4, _ := catalog.GKENodeType("g2-standard-4", "", 0)
	virginia, _ := g2x4.Price("us-east4")
	a3, _ := catalog.GKENodeType("a3-highgpu-8g", "", 0)
	netherlands, _ := a3.Price("europe-west4")
	says("on-demand per region", fmt.Sprintf("**$%g/h** in\nus-east4", virginia.OnDemandUSD), fmt.Sprintf("**$%g/h** in europe-west4", netherlands.OnDemandUSD))

	// Spot per region.
	g2, _ := catalog.GKENodeType("g2-standard-4", "", 0)
	west, _ := g2.Price("us-west1")
	p5, _ := catalog.AWSInstanceType("p5.48xlarge")
	east, _ := p5.Price("us-east-1")
	mega, _ := catalog.GKENodeType("a3-megagpu-8g", "", 0)
	megaCentral, _ := mega.Price("us-central1")
	says("spot", fmt.Sprintf("**$%g/h** on demand and **$%g/h** on spot in us-west1", west.OnDemandUSD, west.SpotUSD),
		fmt.Sprintf("**$%g/h** and **$%g/h** on spot in us-east-1", east.OnDemandUSD, east.SpotUSD),
		fmt.Sprintf("**$%g/h** and **$%g/h** on spot there", megaCentral.OnDemandUSD, megaCentral.SpotUSD))
	if !strings.Contains(megaCentral.Source, "so the one for us-east4") {
		t.Errorf("a3-megagpu-8g us-central1: %q, the guide says it takes us-east4's figure", megaCentral.Source)
	}

	// Spot mix with a floor: 12 x g6.xlarge, interruptible production inference.
	g6, _ := catalog.AWSInstanceType("g6.xlarge")
	serve := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 20, Interruptible: true}
	spotPct, base, minSize := capacity(serve, 12, 12)
	m := Option{Cloud: catalog.AWS, Region: "us-east-1", Node: g6, ReplicaGiB: g6.GPU().MemoryGiB, ReplicasPerNode: 1, Nodes: 12, SpotPercentage: spotPct, OnDemandBase: base}
	m.Spec = candidateSpec(m, serve, PlaceholderClient, demand{need: 20}, minSize, 12)
	mix, ok := price(m, e, 730)
	if !ok {
		t.Fatal("12 x g6.xlarge is not priced")
	}
	od, spot := pool.SplitSizes(m.Spec.Scaling, base, spotPct)
	says("mix", fmt.Sprintf("**%d on demand and %d on spot**", od.Desired, spot.Desired), fmt.Sprintf("**$%g/h**", mix.HourlyUSD),
		"**"+dollars(mix.MonthlyUSD)+"**", "**"+dollars(mix.CommittedMonthlyUSD)+"**")

	// Decode estimates.
	gpu := func(name string) catalog.GPUModel { g, _ := catalog.GPU(name); return g }
	decode := func(name string, gpus int, share, params float64) string {
		b, _ := catalog.WeightBytes(params, "fp16")
		r, err := catalog.DecodeTokensPerSecond(catalog.DecodeShape{GPU: gpu(name), GPUsPerReplica: gpus, Share: share}, b)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("**%.1f**", r)
	}
	says("decode", decode("L4", 1, 1, 7), decode("A10G", 1, 1, 7), decode("L40S", 1, 1, 7), decode("A100-80GB", 1, 1, 7),
		decode("H100-80GB", 1, 1, 7), decode("A100-80GB", 1, 0.5, 7), decode("H100-80GB", 4, 1, 70))
}

// dollars writes an amount as the guide does: $5,434.12.
func dollars(x float64) string {
	s := fmt.Sprintf("%.2f", x)
	whole, cents, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return "$" + b.String() + "." + cents
}
