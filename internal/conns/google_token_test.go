package conns

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
)

// A GKE cluster's access takes its tokens from the provider's Google credentials: a service
// account key's JWT is exchanged at its token URI for an access token, which the access sends as
// its bearer token.
func TestGoogleTokenSourceForGKEAccess(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: must(x509.MarshalPKCS8PrivateKey(key))})
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
			http.Error(w, "bad grant", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"ya29.gke-test","token_type":"Bearer","expires_in":3600}`))
	}))
	defer tokens.Close()
	creds, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "acme-ml", "private_key_id": "k1", "private_key": string(keyPEM),
		"client_email": "gpufleet@acme-ml.iam.gserviceaccount.com", "client_id": "1", "token_uri": tokens.URL,
	})
	m := &Meta{GCPSettings: GCPSettings{Credentials: string(creds)}}
	ts, err := m.GoogleTokenSource(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	access, err := kube.GKEAccess(kube.GKECluster{Name: "ml", Endpoint: "34.1.2.3", CACertificateBase64: "LS0tLQ=="}, ts)
	if err != nil {
		t.Fatal(err)
	}
	if access.Host != "https://34.1.2.3" {
		t.Errorf("host %q", access.Host)
	}
	token, err := access.TokenSource(context.Background())
	if err != nil || token != "ya29.gke-test" {
		t.Fatalf("token %q, %v", token, err)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
