package computeclass_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/crd"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/kubetest"
)

// The tests' world: cloudsim's GKE with the cluster ml in us-central1, whose Kubernetes API server is
// the tests' real one (kubetest), serving gpufleet's ComputeClass CRD. gpufleet reaches it as it
// reaches a GKE cluster: GetCluster for the endpoint and CA, and an access token of the provider's
// Google credentials, here a service account key whose token endpoint is the tests' own
// (googleOAuth), as application default credentials.
const (
	testProject  = "acme-ml"
	testLocation = "us-central1"
	testCluster  = "ml"
	// gkeUser is the API server's name for the holder of googleToken.
	gkeUser = "gpufleet@acme-ml.iam.gserviceaccount.com"
)

var (
	computeClassGVR = schema.GroupVersionResource{Group: crd.Group, Version: crd.Version, Resource: crd.Resource}
	crdOnce         sync.Once
)

// world is one test's cluster and cloud.
type world struct {
	srv   *kubetest.Server
	sim   *cloudsim.Sim
	admin dynamic.Interface
	oauth *googleOAuth
}

// newWorld starts cloudsim for one test, on the shared API server with the ComputeClass CRD, and
// makes the provider's Google credentials a key of the tests' token endpoint.
func newWorld(t *testing.T) *world {
	t.Helper()
	srv := kubetest.Shared(t)
	admin := adminOf(t, srv)
	var err error
	crdOnce.Do(func() { err = installCRD(admin) })
	if err != nil {
		t.Fatal(err)
	}
	seed := &cloudsim.Seed{GCP: cloudsim.GCPSeed{Projects: map[string]*cloudsim.GCPProjectSeed{testProject: {
		Clusters: []cloudsim.GKEClusterSeed{{
			Name: testCluster, Location: testLocation, Version: "1.33.5-gke.1201000", Locations: []string{"us-central1-a", "us-central1-b"},
			Kubernetes: &cloudsim.KubernetesAPI{Endpoint: srv.URL, CAPEM: string(srv.CAPEM)},
		}},
	}}}}
	sim, err := cloudsim.Start(cloudsim.Options{Seed: seed, TransitionDelay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	w := &world{srv: srv, sim: sim, admin: admin, oauth: newGoogleOAuth(t)}
	srv.AddToken(w.oauth.token, gkeUser)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", acctest.WriteFile(t, "key.json", w.oauth.keyJSON))
	return w
}

// adminOf is a dynamic client of the server with the admin's access.
func adminOf(t *testing.T, srv *kubetest.Server) dynamic.Interface {
	t.Helper()
	cfg, err := srv.AdminAccess().RESTConfig("gpufleet-test")
	if err != nil {
		t.Fatal(err)
	}
	admin, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return admin
}

// installCRD creates the ComputeClass CRD in the API server, as GKE has it in every cluster, and
// waits until it is served.
func installCRD(admin dynamic.Interface) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(crd.YAML, &u.Object); err != nil {
		return err
	}
	crds := admin.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := crds.Create(ctx, u, metav1.CreateOptions{}); err != nil && !strings.Contains(err.Error(), "already exists") {
		return err
	}
	for ctx.Err() == nil {
		live, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
		if err == nil {
			conditions, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
			for _, c := range conditions {
				if m, _ := c.(map[string]any); m["type"] == "Established" && m["status"] == "True" {
					return nil
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return ctx.Err()
}

// providerConfig points the provider at cloudsim's GKE; the cluster is reached through GetCluster.
func (w *world) providerConfig(extra string) string {
	return fmt.Sprintf(`
provider "gpufleet" {
  gcp {
    project  = %q
    endpoint = %q
    insecure = true
  }
%s
}
`, testProject, w.sim.Endpoints().GKE, extra)
}

// requests are the API server's requests from anyone but the tests' admin.
func (w *world) requests(t *testing.T) int {
	t.Helper()
	events, err := w.srv.Events()
	if err != nil {
		t.Fatal(err)
	}
	return len(events)
}

// live is the ComputeClass of the name in the cluster, nil when there is none.
func (w *world) live(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	u, err := w.admin.Resource(computeClassGVR).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		if strings.Contains(err.Error(), "not found") {
			return nil
		}
		t.Fatal(err)
	}
	return u
}

// googleOAuth is Google's OAuth 2.0 token endpoint for one service account key: it grants an access
// token, scope cloud-platform, for a JWT assertion signed with the key (RFC 7523, as
// golang.org/x/oauth2/jwt sends it for a service account key), and refuses anything else.
type googleOAuth struct {
	token   string
	keyJSON string
	grants  int
	mu      sync.Mutex
}

func newGoogleOAuth(t *testing.T) *googleOAuth {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	o := &googleOAuth{token: "ya29.gpufleet-test-" + t.Name()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
			return
		}
		if err := verifyAssertion(r.Form.Get("assertion"), &key.PublicKey, "http://"+r.Host+r.URL.Path); err != nil {
			http.Error(w, `{"error":"invalid_grant","error_description":"`+err.Error()+`"}`, http.StatusBadRequest)
			return
		}
		o.mu.Lock()
		o.grants++
		o.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": o.token, "token_type": "Bearer", "expires_in": 3600})
	}))
	t.Cleanup(srv.Close)
	der := x509.MarshalPKCS1PrivateKey(key)
	keyJSON, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": testProject, "private_key_id": "test-key-1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der})),
		"client_email": gkeUser, "client_id": "1", "token_uri": srv.URL + "/token",
	})
	o.keyJSON = string(keyJSON)
	return o
}

// verifyAssertion checks a service account's JWT: RS256 signed by the key, for the token endpoint,
// asking scope cloud-platform, not expired.
func verifyAssertion(assertion string, pub *rsa.PublicKey, aud string) error {
	parts := strings.Split(assertion, ".")
	if len(parts) != 3 {
		return fmt.Errorf("not a JWT")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return err
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest[:], sig); err != nil {
		return fmt.Errorf("bad signature")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return err
	}
	var claims struct {
		Iss, Scope, Aud string
		Exp             int64
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return err
	}
	switch {
	case claims.Iss != gkeUser:
		return fmt.Errorf("issuer %q", claims.Iss)
	case claims.Aud != aud:
		return fmt.Errorf("audience %q, want %q", claims.Aud, aud)
	case !strings.Contains(claims.Scope, "https://www.googleapis.com/auth/cloud-platform"):
		return fmt.Errorf("scope %q", claims.Scope)
	case claims.Exp < time.Now().Unix():
		return fmt.Errorf("expired")
	}
	return nil
}

// stateIs checks one attribute of addr in state: the path's first step is an attribute, the others
// map keys; want is a string, an int, a bool or a map of strings.
func stateIs(addr string, want any, path ...string) statecheck.StateCheck {
	p := tfjsonpath.New(path[0])
	for _, k := range path[1:] {
		p = p.AtMapKey(k)
	}
	var check knownvalue.Check
	switch v := want.(type) {
	case string:
		check = knownvalue.StringExact(v)
	case int:
		check = knownvalue.Int64Exact(int64(v))
	case bool:
		check = knownvalue.Bool(v)
	case map[string]string:
		m := map[string]knownvalue.Check{}
		for k, x := range v {
			m[k] = knownvalue.StringExact(x)
		}
		check = knownvalue.MapExact(m)
	default:
		panic(fmt.Sprintf("stateIs: %T", want))
	}
	return statecheck.ExpectKnownValue(addr, p, check)
}

// stateChecks is a step's ConfigStateChecks.
func stateChecks(checks ...statecheck.StateCheck) []statecheck.StateCheck { return checks }
