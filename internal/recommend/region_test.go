package recommend

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Issue #40, item 6: an EKS answer is in the region the provider creates the pool in, at that
// region's prices: two production replicas of a 7B fp16 model with the provider in eu-west-1 are
// two g6.xlarge there ($1316.04/month), not the cheaper us-east-1 pair ($1175.01) that would need
// a cluster in us-east-1. When the provider's region has no answer (nothing fits there, or it is
// not asked), the answer is the cheapest elsewhere and says it needs a cluster there.
func TestRecommend_eksAnswerInTheProviderRegion(t *testing.T) {
	e := env(t, catalog.Pricing{})
	aws := []catalog.Cloud{catalog.AWS}
	ask := func(w Workload, regions []string, home string) *Result {
		t.Helper()
		a, err := Recommend(context.Background(), Request{Workload: w, Replicas: 2, Clouds: aws, Regions: regions, AWSRegion: home}, e)
		if err != nil {
			t.Fatal(err)
		}
		return a.Results[catalog.AWS]
	}
	anywhere := ask(serve7B, []string{"*"}, "")
	home := ask(serve7B, []string{"*"}, "eu-west-1")
	if b := home.Best; b.Region != "eu-west-1" || home.Elsewhere != "" || anywhere.Best.Region == "eu-west-1" || b.MonthlyUSD <= anywhere.Best.MonthlyUSD {
		t.Errorf("provider in eu-west-1: %s at $%.2f (%q); without it %s at $%.2f", b.Label(), b.MonthlyUSD, home.Elsewhere, anywhere.Best.Label(), anywhere.Best.MonthlyUSD)
	}
	p, _ := home.Best.Node.Price("eu-west-1")
	if want := p.OnDemandUSD * float64(home.Best.Nodes); !near(home.Best.HourlyUSD, want) {
		t.Errorf("priced at $%g/h, want eu-west-1's $%g", home.Best.HourlyUSD, want)
	}
	guideHas(t, fmt.Sprintf("are %d x %s there, $%.2f/month, not the %s pair at $%.2f", home.Best.Nodes, home.Best.Node.Name, home.Best.MonthlyUSD, anywhere.Best.Region, anywhere.Best.MonthlyUSD))

	fp4 := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 405, Precision: "fp4"}
	for name, tc := range map[string]struct {
		res  *Result
		want []string
	}{
		"nothing fits there": {ask(fp4, []string{"*"}, "eu-west-1"), []string{"no aws option fits the request in the provider's region eu-west-1", `needs an EKS cluster there (the pool's region = "us-east-1")`}},
		"not asked":          {ask(serve7B, []string{"us-*"}, "eu-west-1"), []string{"the provider's region eu-west-1 is not among the regions asked and allowed (us-east-1, us-east-2, us-west-2)", "the answer runs in us-east-1"}},
		"not priced":         {ask(serve7B, []string{"us-east-1"}, "sa-east-1"), []string{"the catalog prices no GPU instance in the provider's region sa-east-1"}},
	} {
		if tc.res.Best == nil {
			t.Errorf("%s: no answer: %s", name, tc.res.Why)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(tc.res.Elsewhere, w) {
				t.Errorf("%s: %q lacks %q", name, tc.res.Elsewhere, w)
			}
		}
	}
}
