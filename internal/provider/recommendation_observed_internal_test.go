package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/recommend"
)

// The warnings where the observation and the declaration or the answer disagree: a declared need
// below the observed P99, and an observed peak above what a replica gets on the answer.
func TestRecommendationSetObserved_warnings(t *testing.T) {
	p5, _ := catalog.AWSInstanceType("p5.4xlarge")
	best := &recommend.Option{Node: p5, Nodes: 7, MIGProfile: "2g.20gb", ReplicaGiB: 20, MonthlyUSD: 35156.8}
	answer := recommend.Answer{Results: map[catalog.Cloud]*recommend.Result{catalog.AWS: {Best: best}},
		Observed: &recommend.ObservedAnswer{NeedGiB: 18, DeclaredGiB: 12, PeakGiB: 21, MonthlyUSD: 161494.25, GPUEquivalents: 3.6}}
	m := recommendationModel{AWS: &recommendedPoolModel{MonthlyUSD: types.Float64Value(35156.8), ObservedUtilizationMeanPercent: types.Float64Null()}}
	var diags diag.Diagnostics
	m.setObserved(answer, &diags)
	if got := m.AWS.SavingMonthlyUSD.ValueFloat64(); got != 126337.45 {
		t.Errorf("saving %v, want 126337.45", got)
	}
	if !m.AWS.ObservedUtilizationMeanPercent.IsNull() {
		t.Error("a mean utilisation without an observed mean")
	}
	var texts []string
	for _, d := range diags.Warnings() {
		texts = append(texts, d.Summary()+": "+d.Detail())
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"declares 12 GiB per replica, its GPUs used 18 GiB at P99", "a replica gets 20 GiB on MIG 2g.20gb", "peaked at 21 GiB"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings %q do not say %q", all, want)
		}
	}
	if diags.HasError() || len(texts) != 2 {
		t.Errorf("want exactly two warnings, got %q", all)
	}
}
