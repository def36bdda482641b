package cloudsim

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

const stsTestARN = "arn:aws:iam::123456789012:user/platform"

func startSTSSim(t *testing.T) *Sim {
	t.Helper()
	seed := &Seed{AWS: AWSSeed{
		Regions:    map[string]*AWSRegionSeed{"us-east-1": {Clusters: []EKSClusterSeed{{Name: "ml", Version: "1.31"}}}},
		Identities: []IdentitySeed{{AccessKeyID: "AKIASTSTEST", SecretAccessKey: "right-secret", ARN: stsTestARN}},
	}}
	sim, err := Start(Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	return sim
}

// presign makes a presigned GetCallerIdentity URL as an EKS token carries it, signed with
// key/secret for header x-k8s-aws-id: cluster.
func presign(t *testing.T, sim *Sim, key, secret, cluster string) string {
	t.Helper()
	client := sts.New(sts.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(sim.Endpoints().STS),
		Credentials: credentials.NewStaticCredentialsProvider(key, secret, ""),
	})
	req, err := sts.NewPresignClient(client).PresignGetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{}, func(o *sts.PresignOptions) {
		o.ClientOptions = append(o.ClientOptions, func(so *sts.Options) {
			so.APIOptions = append(so.APIOptions, smithyhttp.SetHeaderValue("x-k8s-aws-id", cluster), smithyhttp.SetHeaderValue("X-Amz-Expires", "60"))
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return req.URL
}

// getIdentity sends a presigned URL as aws-iam-authenticator does: GET, with the cluster header,
// accepting JSON.
func getIdentity(t *testing.T, url, cluster string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("x-k8s-aws-id", cluster)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestSTSPresignedGetCallerIdentity(t *testing.T) {
	sim := startSTSSim(t)
	status, body := getIdentity(t, presign(t, sim, "AKIASTSTEST", "right-secret", "ml"), "ml")
	if status != 200 {
		t.Fatalf("valid token refused: %d %s", status, body)
	}
	var out struct {
		GetCallerIdentityResponse struct {
			GetCallerIdentityResult struct{ Arn, Account string }
		}
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || out.GetCallerIdentityResponse.GetCallerIdentityResult.Arn != stsTestARN {
		t.Fatalf("identity: %v %s", err, body)
	}
	for name, c := range map[string]struct {
		url, cluster, code string
	}{
		"wrong secret":        {presign(t, sim, "AKIASTSTEST", "wrong-secret", "ml"), "ml", "SignatureDoesNotMatch"},
		"unknown key":         {presign(t, sim, "AKIANOBODY", "right-secret", "ml"), "ml", "InvalidClientTokenId"},
		"another cluster":     {presign(t, sim, "AKIASTSTEST", "right-secret", "ml"), "other", "SignatureDoesNotMatch"},
		"a parameter changed": {strings.Replace(presign(t, sim, "AKIASTSTEST", "right-secret", "ml"), "Version=2011-06-15", "Version=2011-06-16", 1), "ml", "SignatureDoesNotMatch"},
	} {
		status, body := getIdentity(t, c.url, c.cluster)
		if status != 403 && status != 400 || !strings.Contains(body, c.code) {
			t.Errorf("%s: want %s, got %d %s", name, c.code, status, body)
		}
	}
}

// A presigned GetCallerIdentity is good for 15 minutes after its X-Amz-Date, whatever X-Amz-Expires says.
func TestSTSPresignedExpiry(t *testing.T) {
	sim := startSTSSim(t)
	url := presign(t, sim, "AKIASTSTEST", "right-secret", "ml")
	now := time.Now()
	sim.mu.Lock()
	signed, _ := time.Parse("20060102T150405Z", strings.SplitN(strings.SplitN(url, "X-Amz-Date=", 2)[1], "&", 2)[0])
	sim.mu.Unlock()
	if now.Sub(signed) > time.Minute {
		t.Fatalf("signed at %s", signed)
	}
	id, aerr := sim.stsCallerAt(url, "ml", signed.Add(14*time.Minute))
	if aerr != nil || id.ARN != stsTestARN {
		t.Fatalf("14 minutes after signing: %v", aerr)
	}
	if _, aerr := sim.stsCallerAt(url, "ml", signed.Add(16*time.Minute)); aerr == nil || aerr.code != "ExpiredToken" {
		t.Fatalf("16 minutes after signing: %v", aerr)
	}
}

// stsCallerAt authenticates a presigned URL as STS would at time now.
func (s *Sim) stsCallerAt(rawURL, cluster string, now time.Time) (*IdentitySeed, *apiError) {
	req, _ := http.NewRequest(http.MethodGet, rawURL, nil)
	req.Header.Set("x-k8s-aws-id", cluster)
	req.Host = req.URL.Host
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stsCaller(req, now)
}
