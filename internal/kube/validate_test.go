package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/crds"
)

func nodePool(name string, mutate func(spec map[string]any)) map[string]any {
	spec := map[string]any{
		"template": map[string]any{"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
			"requirements": []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"on-demand"}}},
		}},
		"disruption": map[string]any{"consolidateAfter": "5m", "consolidationPolicy": "WhenEmpty"},
	}
	if mutate != nil {
		mutate(spec)
	}
	return map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": name}, "spec": spec}
}

func TestValidateNodePool(t *testing.T) {
	start := time.Now()
	s, err := SchemasFor(crds.Karpenter115)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("compiled %d kinds in %s", len(s.Kinds()), time.Since(start))
	ctx := context.Background()
	good, errs, err := s.Validate(ctx, nodePool("gpu", nil), nil)
	if err != nil || errs != nil {
		t.Fatalf("valid NodePool refused: %v %v", err, errs)
	}
	if good["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["expireAfter"] != "720h" {
		t.Errorf("expireAfter not defaulted: %v", good["spec"])
	}
	cases := map[string]struct {
		mutate func(map[string]any)
		want   string
	}{
		"unknown field": {func(s map[string]any) { s["bogus"] = 1 }, `unknown field "spec.bogus"`},
		"enum":          {func(s map[string]any) { s["disruption"].(map[string]any)["consolidationPolicy"] = "Never" }, "spec.disruption.consolidationPolicy"},
		"cel": {func(s map[string]any) {
			s["template"].(map[string]any)["spec"].(map[string]any)["requirements"] = []any{map[string]any{"key": "karpenter.sh/nodepool", "operator": "In", "values": []any{"x"}}}
		}, `label "karpenter.sh/nodepool" is restricted`},
		"weight on static": {func(s map[string]any) { s["replicas"] = 2; s["weight"] = 10 }, "'weight' is not supported on static NodePools"},
	}
	for name, c := range cases {
		_, errs, err := s.Validate(ctx, nodePool("gpu", c.mutate), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(FieldErrors(errs), c.want) {
			t.Errorf("%s: want %q in %v", name, c.want, errs)
		}
	}
	// A transition rule: replicas cannot be added to a dynamic NodePool.
	_, errs, err = s.Validate(ctx, nodePool("gpu", func(s map[string]any) { s["replicas"] = 1 }), nodePool("gpu", nil))
	if err != nil || !strings.Contains(FieldErrors(errs), "Cannot transition NodePool between static") {
		t.Errorf("transition rule not enforced: %v %v", err, errs)
	}
	start = time.Now()
	for i := 0; i < 200; i++ {
		if _, _, err := s.Validate(ctx, nodePool("gpu", nil), nil); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("200 validations in %s", time.Since(start))
}
