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
	"os"
	"strings"
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

// gcp.credentials is a JSON key or the path of one; whatever else it is (a key in another
// encoding, JSON cut short), the error says so without quoting it, at plan and in the clients.
func TestCredentialsJSON_neverQuotesTheValue(t *testing.T) {
	const secret = "eyJ0eXBlIjoic2VydmljZV9hY2NvdW50IiwicHJpdmF0ZV9rZXkiOiJzM2NyZXQifQ"
	file := t.TempDir() + "/key.json"
	if err := os.WriteFile(file, []byte("\ufeff{\"type\": \"service_account\"}"), 0o600); err != nil {
		t.Fatal(err)
	}
	notJSON := t.TempDir() + "/key.txt"
	if err := os.WriteFile(notJSON, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		value, want string
	}{
		{secret, "neither a JSON key nor the path of a readable file (no such file)"},
		{strings.Repeat(secret, 10), "neither a JSON key nor the path of a readable file"},
		{`{"type": "service_account", "private_key": "` + secret, "not valid JSON"},
		{notJSON, "is not a JSON key"},
		{"\ufeff{\"type\": \"service_account\"}", ""},
		{file, ""},
	} {
		data, err := CredentialsJSON(tc.value)
		switch {
		case tc.want == "" && (err != nil || !json.Valid(data)):
			t.Errorf("%.20q: %v, %q", tc.value, err, data)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%.20q: %v, want %q", tc.value, err, tc.want)
		case err != nil && strings.Contains(err.Error(), secret[:16]):
			t.Errorf("the error quotes the credentials: %v", err)
		}
	}
	// The clients' errors too.
	m := &Meta{GCPSettings: GCPSettings{Credentials: secret}}
	if _, err := m.GoogleTokenSource(context.Background()); err == nil || strings.Contains(err.Error(), secret[:16]) {
		t.Errorf("token source: %v", err)
	}
	if _, err := m.gcpOptions(context.Background(), ""); err == nil || strings.Contains(err.Error(), secret[:16]) {
		t.Errorf("client options: %v", err)
	}
}
