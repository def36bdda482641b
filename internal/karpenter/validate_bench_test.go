package karpenter

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
)

// BenchmarkValidateObjects is the in-process validation of one pool's objects (node class, two
// NodePools, a NodeOverlay), the CRDs compiled once before.
func BenchmarkValidateObjects(b *testing.B) {
	var c matrixCase
	for _, m := range matrix() {
		if m.name == "time_slicing/karpenter1.15" {
			c = m
		}
	}
	c.spec.Capacity.SpotPercentage = 50
	rd := c.render(b)
	if _, err := kube.SchemasFor(render.CRDSet(c.set.Mode, c.set.KarpenterVersion)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var diags diag.Diagnostics
		validateObjects(context.Background(), c.set, rd, nil, &diags)
		if diags.HasError() {
			b.Fatal(diags)
		}
	}
	b.ReportMetric(float64(len(rd.Objects)), "objects")
}
