package karpenter_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/kubetest"
)

func TestMain(m *testing.M) {
	code := acctest.Main(m)
	kubetest.StopShared()
	os.Exit(code)
}

const (
	testRegion  = "us-east-1"
	otherRegion = "us-west-2"
	testCluster = "ml"
	testKey     = "AKIAKARPENTERTEST"
	testSecret  = "karpenter-test-secret"
	testARN     = "arn:aws:iam::123456789012:user/terraform-ci"
)

var (
	nodePoolGVK     = schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodePool"}
	ec2NodeClassGVK = schema.GroupVersionKind{Group: "karpenter.k8s.aws", Version: "v1", Kind: "EC2NodeClass"}
	nodeClassGVK    = schema.GroupVersionKind{Group: "eks.amazonaws.com", Version: "v1", Kind: "NodeClass"}
	nodeOverlayGVK  = schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1alpha1", Kind: "NodeOverlay"}
)

// env is one test's world: the shared API server playing EKS cluster "ml", and its own cloudsim
// (EKS DescribeCluster points at the server; STS checks the tokens), the AWS SDK's credential chain
// on the identity cloudsim knows.
type env struct {
	srv   *kubetest.Server
	sim   *cloudsim.Sim
	admin *kube.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, nil)
}

// newEnvWith is newEnv with more regions, each holding an EKS cluster "ml" that its own API server
// plays.
func newEnvWith(t *testing.T, more map[string]*kubetest.Server) *env {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance tests run with TF_ACC=1")
	}
	srv := kubetest.Shared(t)
	regions := map[string]*cloudsim.AWSRegionSeed{testRegion: clusterSeed(srv)}
	for region, s := range more {
		regions[region] = clusterSeed(s)
	}
	seed := &cloudsim.Seed{AWS: cloudsim.AWSSeed{
		Regions:    regions,
		Identities: []cloudsim.IdentitySeed{{AccessKeyID: testKey, SecretAccessKey: testSecret, ARN: testARN}},
	}}
	sim, err := cloudsim.Start(cloudsim.Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	t.Setenv("AWS_ACCESS_KEY_ID", testKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testSecret)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	admin, err := srv.Admin()
	if err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, sim: sim, admin: admin}
}

// clusterSeed is a region whose EKS cluster "ml" the server plays.
func clusterSeed(s *kubetest.Server) *cloudsim.AWSRegionSeed {
	return &cloudsim.AWSRegionSeed{Clusters: []cloudsim.EKSClusterSeed{{Name: testCluster, Version: "1.33",
		Kubernetes: &cloudsim.KubernetesAPI{Endpoint: s.URL, CAPEM: string(s.CAPEM)}}}}
}

// provider is the provider block pointing gpufleet at cloudsim's EKS and STS.
func (e *env) provider(extra string) string { return e.providerIn(testRegion, extra) }

// providerIn is the provider block in region.
func (e *env) providerIn(region, extra string) string {
	ep := e.sim.Endpoints()
	return fmt.Sprintf(`
provider "gpufleet" {
  default_tags = { ManagedBy = "terraform" }
  aws {
    region                      = %q
    skip_credentials_validation = true
    endpoints {
      eks = %q
      sts = %q
    }
  }
%s
}
`, region, ep.EKS, ep.STS, extra)
}

// tokenBlock is a kubernetes block reaching host, trusting caPEM, with a bearer token.
func tokenBlock(host string, caPEM []byte, token string) string {
	return fmt.Sprintf("  kubernetes {\n    host = %q\n    cluster_ca_certificate = <<EOT\n%sEOT\n    token = %q\n  }\n", host, caPEM, token)
}

// foreignNodePool is a spot NodePool of the given name that another tool made (no owner label).
func foreignNodePool(name string) map[string]any {
	return map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": name, "labels": map[string]any{"team": "platform"}},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
			"requirements": []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"spot"}}},
		}}},
	}
}

// pool renders one gpufleet_karpenter_node_pool named name with body (blocks and arguments beyond
// the cluster and network ones).
func poolHCL(name, instanceTypes, body string) string {
	return fmt.Sprintf(`
resource "gpufleet_karpenter_node_pool" %[1]q {
  cluster_name = %[2]q
  name         = %[1]q
  node_role    = "KarpenterNodeRole-ml"
  client       = "acme"
  instance_types = %[3]s
  subnet_selector         = [{ tags = { "karpenter.sh/discovery" = "ml" } }]
  security_group_selector = [{ id = "sg-0123456789abcdef0" }]
%[4]s}
`, name, testCluster, instanceTypes, body)
}

const inference = `  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 16
  }
`

func scaling(minSize, maxSize int) string {
	return fmt.Sprintf("  scaling {\n    min_size = %d\n    max_size = %d\n  }\n", minSize, maxSize)
}

// requests are the requests gpufleet (anyone but the tests' admin) sent the API server so far.
func (e *env) requests(t *testing.T) int {
	t.Helper()
	events, err := e.srv.Events()
	if err != nil {
		t.Fatal(err)
	}
	return len(events)
}

// get reads an object with the admin's access; nil when it does not exist.
func (e *env) get(t *testing.T, gvk schema.GroupVersionKind, name string) map[string]any {
	t.Helper()
	u, err := e.admin.Get(context.Background(), gvk, name)
	if kube.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return u.Object
}

// inClusters checks which clusters hold the NodePool name: the shared server's and other's.
func (e *env) inClusters(t *testing.T, other *kube.Client, name string) func(wantFirst, wantOther bool) error {
	return func(wantFirst, wantOther bool) error {
		first := e.get(t, nodePoolGVK, name) != nil
		_, err := other.Get(context.Background(), nodePoolGVK, name)
		if err != nil && !kube.IsNotFound(err) {
			return err
		}
		if inOther := err == nil; first != wantFirst || inOther != wantOther {
			return fmt.Errorf("NodePool %s in the first cluster: %t, in the other: %t; want %t and %t", name, first, inOther, wantFirst, wantOther)
		}
		return nil
	}
}

// gone checks that none of the pool's objects is left in the cluster after destroy.
func (e *env) gone(names ...string) func(*terraform.State) error {
	return func(*terraform.State) error {
		for _, n := range names {
			for _, gvk := range []schema.GroupVersionKind{nodePoolGVK, ec2NodeClassGVK, nodeClassGVK, nodeOverlayGVK} {
				for _, suffix := range []string{"", "-od", "-spot", "-od-min", "-spot-min"} {
					if _, err := e.admin.Get(context.Background(), gvk, n+suffix); err == nil {
						return fmt.Errorf("%s %s%s is still in the cluster", gvk.Kind, n, suffix)
					}
				}
			}
		}
		return nil
	}
}

// deleteObject deletes an object out of band.
func (e *env) deleteObject(t *testing.T, gvk schema.GroupVersionKind, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.admin.Delete(ctx, gvk, name, "", 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
}

// release removes an object's finalizers, as Karpenter does once a NodePool's nodes are drained:
// an object being deleted then goes.
func (e *env) release(gvk schema.GroupVersionKind, name string) error {
	u, err := e.admin.Get(context.Background(), gvk, name)
	if err != nil {
		return err
	}
	u.SetFinalizers(nil)
	_, err = e.srv.UpdateAs(context.Background(), u, "karpenter")
	return err
}

// expectNoCalls fails the test when anything since before (e.requests) reached the API server, or
// anything at all called AWS: what, plans or bad input, is judged without either.
func (e *env) expectNoCalls(t *testing.T, before int, what string) {
	t.Helper()
	if n := e.requests(t) - before; n != 0 {
		t.Fatalf("%s sent %d requests to the API server", what, n)
	}
	if calls := e.sim.Requests(); len(calls) != 0 {
		t.Fatalf("%s called AWS: %+v", what, calls)
	}
}

// nested reads a path of maps.
func nested(obj map[string]any, keys ...string) any {
	var cur any = obj
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// requirement is the values of a NodePool's requirement key, joined by commas.
func requirement(np map[string]any, key string) string {
	reqs, _ := nested(np, "spec", "template", "spec", "requirements").([]any)
	for _, r := range reqs {
		m, _ := r.(map[string]any)
		if m["key"] == key {
			var vs []string
			for _, v := range m["values"].([]any) {
				vs = append(vs, v.(string))
			}
			return m["operator"].(string) + " " + strings.Join(vs, ",")
		}
	}
	return ""
}

func regexpMust(s string) *regexp.Regexp { return regexp.MustCompile(s) }
