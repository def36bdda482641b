package kube

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

// SameCluster on the answers an API server gives for the NodePool CRD: its uid (the same cluster
// or another), none (the CRD is not installed), or a refusal (no get on CRDs), which must not block
// an apply of a principal that may manage NodePools but not read CRDs: a warning says the check
// was skipped, and the recorded identity is kept.
func TestSameCluster(t *testing.T) {
	nodePool := schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodePool"}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "nodepools.karpenter.sh", "uid": "uid-here"},
	}}
	client := func(objects ...runtime.Object) *Client {
		dyn := fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
			map[schema.GroupVersionResource]string{crdResource: "CustomResourceDefinitionList"}, objects...)
		return &Client{dyn: dyn, cluster: "the cluster at https://203.0.113.10"}
	}
	forbidden := client()
	forbidden.dyn.(*fake.FakeDynamicClient).PrependReactor("get", "customresourcedefinitions", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(crdResource.GroupResource(), "nodepools.karpenter.sh", nil)
	})
	for _, tc := range []struct {
		name     string
		c        *Client
		recorded string
		want     string // the identity recorded after
		err      string
		warn     string
	}{
		{"create", client(crd), "", "uid-here", "", ""},
		{"same cluster", client(crd), "uid-here", "uid-here", "", ""},
		{"another cluster", client(crd), "uid-elsewhere", "uid-elsewhere", "Another cluster", ""},
		{"no CRD", client(), "uid-elsewhere", "uid-elsewhere", "", ""},
		{"forbidden", forbidden, "uid-elsewhere", "uid-elsewhere", "", "Cluster identity not checked"},
		{"forbidden, none recorded", forbidden, "", "", "", "Cluster identity not checked"},
	} {
		var diags diag.Diagnostics
		got := SameCluster(context.Background(), tc.c, nodePool, tc.recorded, &diags)
		errs, warns := "", ""
		for _, d := range diags.Errors() {
			errs += d.Summary()
		}
		for _, d := range diags.Warnings() {
			warns += d.Summary()
		}
		if got.ValueString() != tc.want || (tc.want == "" && !got.IsNull()) || !strings.Contains(errs, tc.err) || (tc.err == "") != (errs == "") ||
			!strings.Contains(warns, tc.warn) || (tc.warn == "") != (warns == "") {
			t.Errorf("%s: recorded %v, errors %q, warnings %q; want %q, %q, %q", tc.name, got, errs, warns, tc.want, tc.err, tc.warn)
		}
	}
}
