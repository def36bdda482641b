package kubetest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The token webhook: the API server's delegated authentication sends every bearer token to it as
// a TokenReview (authentication.k8s.io/v1), as an EKS cluster's API server sends them to
// aws-iam-authenticator. It accepts:
//
//   - EKS tokens ("k8s-aws-v1." + a presigned STS GetCallerIdentity URL), verified as
//     aws-iam-authenticator's tokenVerifier.Verify does (kubernetes-sigs/aws-iam-authenticator
//     pkg/token/token.go, read 2026-11-28): the allowed query parameters only, action
//     GetCallerIdentity, the x-k8s-aws-id header signed, X-Amz-Expires between 0 and 900, an
//     X-Amz-Date of less than 15 minutes ago, then a GET of the URL with x-k8s-aws-id set to this
//     cluster's name (so a token made for another cluster fails STS's signature check) and
//     Accept: application/json; the ARN STS answers is the user. One difference: the STS the tokens
//     name is the tests' cloudsim, plain HTTP on loopback, where the authenticator wants https on
//     the partition's STS host names.
//   - static tokens the test registers (a kubernetes block's token).
//
// Every authenticated user is in group system:masters (an EKS access entry with
// AmazonEKSClusterAdminPolicy), which the delegating authorizer allows without asking anyone.

const (
	eksTokenPrefix = "k8s-aws-v1."
	clusterIDHdr   = "x-k8s-aws-id"
)

var authenticatorParams = map[string]bool{
	"action": true, "version": true, "x-amz-algorithm": true, "x-amz-credential": true, "x-amz-date": true,
	"x-amz-expires": true, "x-amz-security-token": true, "x-amz-signature": true, "x-amz-signedheaders": true,
}

type authenticator struct {
	cluster string
	client  *http.Client

	mu     sync.Mutex
	static map[string]string // token → user name
}

type tokenReview struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Token string `json:"token"`
	} `json:"spec"`
	Status struct {
		Authenticated bool   `json:"authenticated"`
		Error         string `json:"error,omitempty"`
		User          *struct {
			Username string   `json:"username"`
			UID      string   `json:"uid,omitempty"`
			Groups   []string `json:"groups"`
		} `json:"user,omitempty"`
	} `json:"status"`
}

func (a *authenticator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/tokenreviews") {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var tr tokenReview
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err := json.Unmarshal(body, &tr); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	user, err := a.authenticate(tr.Spec.Token)
	if err != nil {
		tr.Status.Error = err.Error()
	} else {
		tr.Status.Authenticated = true
		tr.Status.User = &struct {
			Username string   `json:"username"`
			UID      string   `json:"uid,omitempty"`
			Groups   []string `json:"groups"`
		}{Username: user, Groups: []string{"system:masters", "system:authenticated"}}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(tr)
}

func (a *authenticator) authenticate(token string) (string, error) {
	a.mu.Lock()
	user, ok := a.static[token]
	a.mu.Unlock()
	if ok {
		return user, nil
	}
	if !strings.HasPrefix(token, eksTokenPrefix) {
		return "", fmt.Errorf("unknown token")
	}
	return a.verifyEKS(token)
}

func (a *authenticator) verifyEKS(token string) (string, error) {
	if len(token) > 4096 {
		return "", fmt.Errorf("token is too large")
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(token, eksTokenPrefix))
	if err != nil {
		return "", err
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		return "", err
	}
	host, _, _ := net.SplitHostPort(u.Host)
	if u.Scheme != "http" || host != "127.0.0.1" || u.Path != "/" {
		return "", fmt.Errorf("unexpected STS URL %s://%s%s (the tests' STS is cloudsim on loopback)", u.Scheme, u.Host, u.Path)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return "", err
	}
	lower := url.Values{}
	for k, vs := range q {
		if !authenticatorParams[strings.ToLower(k)] {
			return "", fmt.Errorf("non-whitelisted query parameter %q", k)
		}
		if len(vs) != 1 {
			return "", fmt.Errorf("query parameter with multiple values not supported")
		}
		lower.Set(strings.ToLower(k), vs[0])
	}
	if lower.Get("action") != "GetCallerIdentity" {
		return "", fmt.Errorf("unexpected action parameter in pre-signed URL")
	}
	signed := false
	for _, h := range strings.Split(lower.Get("x-amz-signedheaders"), ";") {
		signed = signed || strings.EqualFold(h, clusterIDHdr)
	}
	if !signed {
		return "", fmt.Errorf("client did not sign the %s header in the pre-signed URL", clusterIDHdr)
	}
	if exp, err := strconv.Atoi(lower.Get("x-amz-expires")); err != nil || exp < 0 || exp > 900 {
		return "", fmt.Errorf("invalid X-Amz-Expires parameter in pre-signed URL")
	}
	date, err := time.Parse("20060102T150405Z", lower.Get("x-amz-date"))
	if err != nil {
		return "", fmt.Errorf("X-Amz-Date: %w", err)
	}
	if time.Now().After(date.Add(15 * time.Minute)) {
		return "", fmt.Errorf("X-Amz-Date parameter is expired (15 minute expiration) %s", date)
	}
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	req.Header.Set(clusterIDHdr, a.cluster)
	req.Header.Set("Accept", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("sts getCallerIdentity failed: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("sts getCallerIdentity failed: error from AWS (expected 200, got %d). Body: %s", resp.StatusCode, body)
	}
	var out struct {
		GetCallerIdentityResponse struct {
			GetCallerIdentityResult struct{ Arn string }
		}
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return "", err
	}
	arn := out.GetCallerIdentityResponse.GetCallerIdentityResult.Arn
	if arn == "" {
		return "", fmt.Errorf("sts getCallerIdentity returned no ARN")
	}
	return arn, nil
}
