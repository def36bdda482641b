package kube_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/kubetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	kubetest.StopShared()
	os.Exit(code)
}

var nodePoolGVK = schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodePool"}

func nodePool(name, owner string, extraLabel map[string]any) map[string]any {
	labels := map[string]any{kube.LabelOwner: owner}
	for k, v := range extraLabel {
		labels[k] = v
	}
	return map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": name, "labels": labels},
		"spec": map[string]any{
			"limits":     map[string]any{"nodes": "4"},
			"disruption": map[string]any{"consolidateAfter": "5m", "consolidationPolicy": "WhenEmpty"},
			"template": map[string]any{"spec": map[string]any{
				"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
				"requirements": []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"on-demand"}}},
			}},
		},
	}
}

const (
	testKey    = "AKIAKUBETEST"
	testSecret = "kube-test-secret"
	testARN    = "arn:aws:iam::123456789012:user/gpufleet-ci"
)

// startSim is cloudsim with the cluster "ml" played by the test API server and one identity.
func startSim(t *testing.T, srv *kubetest.Server) *cloudsim.Sim {
	t.Helper()
	seed := &cloudsim.Seed{AWS: cloudsim.AWSSeed{
		Regions:    map[string]*cloudsim.AWSRegionSeed{"us-east-1": {Clusters: []cloudsim.EKSClusterSeed{{Name: "ml", Version: "1.33"}, {Name: "other", Version: "1.33"}}}},
		Identities: []cloudsim.IdentitySeed{{AccessKeyID: testKey, SecretAccessKey: testSecret, ARN: testARN}},
	}}
	sim, err := cloudsim.Start(cloudsim.Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	for _, c := range []string{"ml", "other"} {
		if err := sim.SetClusterKubernetes("us-east-1", c, cloudsim.KubernetesAPI{Endpoint: srv.URL, CAPEM: string(srv.CAPEM)}); err != nil {
			t.Fatal(err)
		}
	}
	return sim
}

func awsClients(sim *cloudsim.Sim, key, secret string) (*eks.Client, *sts.Client) {
	cfg := cloudsim.AWSConfig("us-east-1", 0)
	cfg.Credentials = credentials.NewStaticCredentialsProvider(key, secret, "")
	return eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().EKS) }),
		sts.NewFromConfig(cfg, func(o *sts.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().STS) })
}

// An EKS token made as `aws eks get-token` makes it authenticates at the cluster it was made for
// (the server's webhook checks it with STS as aws-iam-authenticator does), and only there and only
// with the right secret.
func TestEKSAccess(t *testing.T) {
	srv := kubetest.Shared(t)
	sim := startSim(t, srv)
	ctx := context.Background()
	eksClient, stsClient := awsClients(sim, testKey, testSecret)
	access, err := kube.EKSAccess(ctx, eksClient, stsClient, "ml")
	if err != nil {
		t.Fatal(err)
	}
	if access.Host != srv.URL {
		t.Fatalf("DescribeCluster endpoint %q, want %q", access.Host, srv.URL)
	}
	c, err := kube.NewClient(access, "gpufleet-test")
	if err != nil {
		t.Fatal(err)
	}
	before, _ := srv.Events()
	if _, err := c.Apply(ctx, nodePool("token-check", "x", nil), true); err != nil {
		t.Fatalf("a dry-run apply with the EKS token: %v", err)
	}
	after, _ := srv.Events()
	if len(after) != len(before)+1 || after[len(after)-1].User.Username != testARN {
		t.Fatalf("audit: want one more request by %s, got %+v", testARN, after[len(before):])
	}

	for name, mk := range map[string]func() (kube.Access, error){
		"wrong secret": func() (kube.Access, error) {
			e, s := awsClients(sim, testKey, "not-the-secret")
			return kube.EKSAccess(ctx, e, s, "ml")
		},
		"token of another cluster": func() (kube.Access, error) {
			return kube.EKSAccess(ctx, eksClient, stsClient, "other")
		},
	} {
		a, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		c, _ := kube.NewClient(a, "gpufleet-test")
		_, err = c.Apply(ctx, nodePool("token-check", "x", nil), true)
		if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("%s: want Unauthorized, got %v", name, err)
		}
	}
}

// Server-side apply as gpufleet, ownership, drift from the managed fields, delete.
func TestApplyManagedDelete(t *testing.T) {
	srv := kubetest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := srv.Admin()
	if err != nil {
		t.Fatal(err)
	}
	want := nodePool("managed-check", "owner-1", map[string]any{"team": "ml"})
	live, err := admin.Apply(ctx, want, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Delete(context.Background(), nodePoolGVK, "managed-check", "", 10*time.Millisecond) })
	if err := admin.CheckOwned(live, "owner-1"); err != nil {
		t.Fatal(err)
	}
	if err := admin.CheckOwned(live, "owner-2"); !kube.IsNotOwned(err) {
		t.Fatalf("another owner id: %v", err)
	}
	got, err := kube.Managed(live, kube.FieldManager)
	if err != nil {
		t.Fatal(err)
	}
	if kube.YAML(got) != kube.YAML(want) {
		t.Fatalf("managed view differs from what was applied:\n%s\nwant\n%s", kube.YAML(got), kube.YAML(want))
	}
	// A hand edit by another manager takes the field over: the managed view loses it.
	live.Object["spec"].(map[string]any)["limits"] = map[string]any{"nodes": "9"}
	unstructured.RemoveNestedField(live.Object, "metadata", "managedFields")
	edited, err := srv.UpdateAs(ctx, live, "kubectl-edit")
	if err != nil {
		t.Fatal(err)
	}
	drifted, err := kube.Managed(edited, kube.FieldManager)
	if err != nil {
		t.Fatal(err)
	}
	if kube.YAML(drifted) == kube.YAML(want) {
		t.Fatal("the managed view does not show the hand edit")
	}
	// Applying again takes the field back.
	again, err := admin.Apply(ctx, want, false)
	if err != nil {
		t.Fatal(err)
	}
	back, _ := kube.Managed(again, kube.FieldManager)
	if kube.YAML(back) != kube.YAML(want) {
		t.Fatalf("apply did not restore the field:\n%s", kube.YAML(back))
	}
	if err := admin.Delete(ctx, nodePoolGVK, "managed-check", string(again.GetUID()), 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Get(ctx, nodePoolGVK, "managed-check"); !kube.IsNotFound(err) {
		t.Fatalf("still there: %v", err)
	}
	if err := admin.Delete(ctx, nodePoolGVK, "managed-check", "", 10*time.Millisecond); err != nil {
		t.Fatalf("deleting what is gone: %v", err)
	}
}
