package kube_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
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
	ctx, admin := adminClient(t)
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

// ApplyOver writes only the object its caller checked: create-only where the name was free, else
// only over the object of the UID checked. Whatever took the name between the check and the write
// (another tool's object, another resource's, this resource's own, or nothing after a delete) is
// left exactly as it was (its resourceVersion unchanged), and the error says what happened: the
// race a Get-then-apply leaves open, closed by the server's preconditions.
func TestApplyOver_writesOnlyTheObjectChecked(t *testing.T) {
	ctx, admin := adminClient(t)
	put := func(name, owner string) *unstructured.Unstructured {
		t.Helper()
		obj := nodePool(name, owner, map[string]any{"team": "platform"})
		if owner == "" {
			delete(obj["metadata"].(map[string]any)["labels"].(map[string]any), kube.LabelOwner)
		}
		live, err := admin.Apply(ctx, obj, false)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = admin.Delete(context.Background(), nodePoolGVK, name, "", 10*time.Millisecond) })
		return live
	}
	remove := func(u *unstructured.Unstructured) {
		t.Helper()
		if err := admin.Delete(ctx, nodePoolGVK, u.GetName(), string(u.GetUID()), 10*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	untouched := func(before *unstructured.Unstructured) {
		t.Helper()
		now, err := admin.Get(ctx, nodePoolGVK, before.GetName())
		if err != nil {
			t.Fatal(err)
		}
		if now.GetUID() != before.GetUID() || now.GetResourceVersion() != before.GetResourceVersion() {
			t.Fatalf("%s was written: resourceVersion %s, was %s", before.GetName(), now.GetResourceVersion(), before.GetResourceVersion())
		}
	}
	mine := func(name string) map[string]any { return nodePool(name, "owner-1", map[string]any{"team": "ml"}) }

	// The name was free when checked; by the write it is another's.
	for _, c := range []struct{ name, owner string }{{"over-foreign", ""}, {"over-other-owner", "owner-2"}} {
		taken := put(c.name, c.owner)
		_, err := admin.ApplyOver(ctx, mine(c.name), "")
		if !kube.IsNotOwned(err) || !strings.Contains(err.Error(), "written nothing") {
			t.Errorf("%s: create-only over another's object: %v", c.name, err)
		}
		untouched(taken)
	}
	// ...or this resource's own (an earlier attempt): refused too, and said.
	own := put("over-own", "owner-1")
	if _, err := admin.ApplyOver(ctx, mine("over-own"), ""); err == nil || kube.IsNotOwned(err) || !strings.Contains(err.Error(), "appeared while gpufleet created it") {
		t.Errorf("create-only over an object of the same owner: %v", err)
	}
	untouched(own)

	// The object checked was deleted and its name taken by another's object.
	checked := put("over-replaced", "owner-1")
	remove(checked)
	intruder := put("over-replaced", "")
	if _, err := admin.ApplyOver(ctx, mine("over-replaced"), string(checked.GetUID())); !kube.IsNotOwned(err) {
		t.Errorf("over a replaced object: %v", err)
	}
	untouched(intruder)
	// ...or by another object of this resource's.
	checked = put("over-replaced-own", "owner-1")
	remove(checked)
	again := put("over-replaced-own", "owner-1")
	if _, err := admin.ApplyOver(ctx, mine("over-replaced-own"), string(checked.GetUID())); err == nil || !strings.Contains(err.Error(), "replaced by another of its name") {
		t.Errorf("over an object replaced by one of the same owner: %v", err)
	}
	untouched(again)
	// ...or deleted: nothing is created in its place.
	checked = put("over-deleted", "owner-1")
	remove(checked)
	if _, err := admin.ApplyOver(ctx, mine("over-deleted"), string(checked.GetUID())); err == nil || !strings.Contains(err.Error(), "was deleted while gpufleet applied it") {
		t.Errorf("over a deleted object: %v", err)
	}
	if _, err := admin.Get(ctx, nodePoolGVK, "over-deleted"); !kube.IsNotFound(err) {
		t.Errorf("the apply over a deleted object created one: %v", err)
	}

	// What was checked is written: a create where the name is free, then an update of that object.
	created, err := admin.ApplyOver(ctx, mine("over-free"), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Delete(context.Background(), nodePoolGVK, "over-free", "", 10*time.Millisecond) })
	changed := mine("over-free")
	changed["spec"].(map[string]any)["limits"] = map[string]any{"nodes": "8"}
	updated, err := admin.ApplyOver(ctx, changed, string(created.GetUID()))
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedString(updated.Object, "spec", "limits", "nodes"); got != "8" {
		t.Fatalf("the update was not written: limits.nodes %q", got)
	}
	if managed, _ := kube.Managed(updated, kube.FieldManager); kube.YAML(managed) != kube.YAML(changed) {
		t.Fatalf("the preconditions show in the managed view:\n%s", kube.YAML(managed))
	}
}

// adminClient is the shared test API server's admin client, with a context of a minute.
func adminClient(t *testing.T) (context.Context, *kube.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	admin, err := kubetest.Shared(t).Admin()
	if err != nil {
		t.Fatal(err)
	}
	return ctx, admin
}

// StartDelete after a DELETE that failed: the object is looked up, and a deletion the server did
// (its answer lost on the way back) counts as started, whether the object is gone or still being
// deleted (a finalizer holds it); a refused DELETE (nothing done) is an error, and the object is
// left as it was.
func TestStartDelete_answerLostOrRefused(t *testing.T) {
	srv := kubetest.Shared(t)
	ctx, admin := adminClient(t)
	srv.AddToken("kube-test-faulty-gateway", "ci")
	var fault atomic.Int32 // the kubetest.Fault of the next DELETE
	proxy := srv.FaultyProxy(t, func(r *http.Request) kubetest.Fault {
		if r.Method == http.MethodDelete {
			return kubetest.Fault(fault.Swap(int32(kubetest.Pass)))
		}
		return kubetest.Pass
	})
	c, err := kube.NewClient(kube.Access{Host: proxy.URL, CAData: proxy.CAPEM, Token: "kube-test-faulty-gateway", Cluster: "the test cluster"}, "gpufleet-test")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		finalizer bool
		fault     kubetest.Fault
		wantErr   bool
		wantGoing bool // the object still there, being deleted
	}{
		{"lost", false, kubetest.Lose, false, false},
		{"lost, held by a finalizer", true, kubetest.Lose, false, true},
		{"refused", false, kubetest.Refuse, true, false},
		{"refused, held by a finalizer", true, kubetest.Refuse, true, false},
	} {
		name := "start-delete-" + strings.NewReplacer(" ", "-", ",", "").Replace(tc.name)
		obj := nodePool(name, "owner-1", nil)
		if tc.finalizer {
			obj["metadata"].(map[string]any)["finalizers"] = []any{"gpufleet.io/test-hold"}
		}
		live, err := admin.Apply(ctx, obj, false)
		if err != nil {
			t.Fatal(err)
		}
		fault.Store(int32(tc.fault))
		err = c.StartDelete(ctx, nodePoolGVK, name, string(live.GetUID()))
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: StartDelete: %v", tc.name, err)
		}
		after, getErr := admin.Get(ctx, nodePoolGVK, name)
		switch {
		case tc.fault == kubetest.Refuse && (getErr != nil || after.GetDeletionTimestamp() != nil):
			t.Errorf("%s: the refused deletion touched the object (%v)", tc.name, getErr)
		case tc.wantGoing && (getErr != nil || after.GetDeletionTimestamp() == nil):
			t.Errorf("%s: the object is not being deleted (%v)", tc.name, getErr)
		case tc.fault == kubetest.Lose && !tc.wantGoing && !kube.IsNotFound(getErr):
			t.Errorf("%s: the object is still there (%v)", tc.name, getErr)
		}
		// clean up: release the finalizer, delete what is left
		if getErr == nil {
			unstructured.RemoveNestedField(after.Object, "metadata", "finalizers")
			unstructured.RemoveNestedField(after.Object, "metadata", "managedFields")
			if _, err := srv.UpdateAs(ctx, after, "test-cleanup"); err != nil {
				t.Fatal(err)
			}
			if err := admin.Delete(ctx, nodePoolGVK, name, "", 10*time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
	}
}
