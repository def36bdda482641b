package karpenter

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// The guide's figures and its quoted plan error are what the code gives.
func TestGuideKarpenterAndAutoMode(t *testing.T) {
	raw, err := os.ReadFile("../../docs/guides/karpenter-and-auto-mode.md")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(raw)
	mustSay := func(s string) {
		t.Helper()
		if !strings.Contains(strings.Join(strings.Fields(guide), " "), s) {
			t.Errorf("the guide no longer says %q", s)
		}
	}
	find := func(name string) matrixCase {
		for _, c := range matrix() {
			if c.name == name {
				return c
			}
		}
		t.Fatalf("no matrix case %s", name)
		return matrixCase{}
	}

	// "base 1 and 70 % of a max_size of 10 give 4 and 6"
	c := find("spot_mix/karpenter1.15")
	rd := c.render(t)
	if got := rd.NodePools; len(got) != 2 || got[0].Nodes != 4 || got[1].Nodes != 6 || got[0].Weight != 100 || got[1].Weight != 50 {
		t.Errorf("spot mix rungs %+v", got)
	}
	mustSay("base 1 and 70 % of a `max_size` of 10 give 4 and 6")
	mustSay("weights 100 (on-demand) and 50 (spot)")

	// "8 H100s cut into 3g.40gb slices advertise 16 nvidia.com/gpu per node"
	c = find("mig/karpenter1.15")
	rd = c.render(t)
	overlay := rd.Objects[len(rd.Objects)-1].Manifest
	if got := overlay["spec"].(map[string]any)["capacity"].(map[string]any)["nvidia.com/gpu"]; got != "16" {
		t.Errorf("MIG overlay capacity %v", got)
	}
	mustSay("8 H100s cut into 3g.40gb slices advertise 16 `nvidia.com/gpu` per node")

	// The defaults the guide gives.
	prot := find("protected_training/karpenter1.15").render(t).Objects[1].Manifest["spec"].(map[string]any)
	if got := prot["disruption"].(map[string]any)["consolidateAfter"]; got != render.ConsolidateAfterProtected || render.ConsolidateAfterProtected != "10m" {
		t.Errorf("protected consolidateAfter %v", got)
	}
	mustSay("`consolidationPolicy: WhenEmpty` after `10m`")
	mustSay("`WhenEmptyOrUnderutilized` after `5m`, `expireAfter: 720h`, a budget of `10%`")

	// The quoted plan error, for the demo's consolidate_after = "10 minutes".
	quote := regexp.MustCompile("(?s)```\nError: The NodePool would be refused\n\n(.*?)\n```").FindStringSubmatch(guide)
	if quote == nil {
		t.Fatal("the guide quotes no plan error")
	}
	s := baseSpec("acme-embed")
	s.Workload = pool.Workload{Kind: pool.KindBatch, Environment: pool.EnvStaging, GPUMemoryGiB: 18, Interruptible: true}
	s.InstanceTypes = []string{"g6e.xlarge"}
	set := baseSettings(render.ModeKarpenter, "")
	set.Disruption.ConsolidateAfter = "10 minutes"
	rd = matrixCase{name: "guide", spec: s, set: set}.render(t)
	var diags diag.Diagnostics
	validateObjects(context.Background(), set, rd, nil, &diags)
	if len(diags.Errors()) == 0 || diags.Errors()[0].Detail() != quote[1] {
		t.Errorf("the guide quotes\n%s\nthe plan says\n%v", quote[1], diags.Errors())
	}
}
