package cloudsim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// The STS service: GetCallerIdentity only, which is what an EKS token is made of. The rules
// gpufleet depends on:
//
//   - STS answers GetCallerIdentity for the identity whose access key signed the request (AWS STS
//     API Reference: GetCallerIdentity), with the Query protocol's XML, or JSON when the request
//     accepts application/json (which aws-iam-authenticator asks for: kubernetes-sigs/
//     aws-iam-authenticator pkg/token/token.go, Verify, read 2026-11-28);
//   - a request signed with a key STS does not know is refused with 403 InvalidClientTokenId, and
//     one whose SigV4 signature does not match (another secret, another x-k8s-aws-id header than
//     the one signed, a changed parameter) with 403 SignatureDoesNotMatch (AWS STS API Reference:
//     Common Errors; AWS General Reference, "Signature Version 4 signing process");
//   - a presigned GetCallerIdentity URL is valid for 15 minutes after its X-Amz-Date whatever its
//     X-Amz-Expires ("presigned STS urls are valid for 15 minutes after timestamp in x-amz-date",
//     aws-iam-authenticator pkg/token/token.go, presignedURLExpiration).
//
// Identities come from the seed (aws.identities). Presigned (query-signed) requests are checked in
// full; requests signed in the Authorization header are answered for their access key, as the other
// services take them, without checking the signature.

// IdentitySeed is an IAM principal with an access key.
type IdentitySeed struct {
	AccessKeyID     string `json:"access_key_id"`
	SecretAccessKey string `json:"secret_access_key"`
	ARN             string `json:"arn"`
	UserID          string `json:"user_id,omitempty"`
}

const stsPresignValidity = 15 * time.Minute

func (s *Sim) serveSTS(w http.ResponseWriter, r *http.Request) {
	region := regionFromAuth(r.Header.Get("Authorization"))
	q := r.URL.Query()
	if cred := q.Get("X-Amz-Credential"); cred != "" {
		if parts := strings.Split(cred, "/"); len(parts) >= 3 {
			region = parts[2]
		}
	}
	if err := r.ParseForm(); err != nil {
		writeSTS(w, r, nil, &apiError{status: 400, code: "MalformedQueryString", message: err.Error()})
		return
	}
	action := r.Form.Get("Action")
	params := map[string]any{"Action": action}
	if action != "GetCallerIdentity" {
		aerr := &apiError{status: 400, code: "InvalidAction", message: fmt.Sprintf("Could not find operation %s for version %s", action, r.Form.Get("Version"))}
		s.log.add(Request{Service: "sts", Operation: firstNonEmpty(action, "UnknownOperation"), Region: region, Params: params, Time: time.Now(), Error: aerr.code})
		writeSTS(w, r, nil, aerr)
		return
	}
	c := &call{service: "sts", op: action, region: region}
	out, aerr := s.invokeAWS(r.Context(), c, "", params, false, func(s *Sim, c *call) ([]byte, *apiError) {
		id, aerr := s.stsCaller(r, c.now)
		if aerr != nil {
			return nil, aerr
		}
		return stsIdentityBody(r, id)
	})
	writeSTS(w, r, out, aerr)
}

// stsCaller authenticates the request: a presigned request by its signature, a header-signed one by
// its access key.
func (s *Sim) stsCaller(r *http.Request, now time.Time) (*IdentitySeed, *apiError) {
	q := r.URL.Query()
	invalidKey := &apiError{status: 403, code: "InvalidClientTokenId", message: "The security token included in the request is invalid."}
	if q.Get("X-Amz-Signature") == "" {
		key := accessKeyFromAuth(r.Header.Get("Authorization"))
		id := s.w.Seed.identity(key)
		if id == nil {
			return nil, invalidKey
		}
		return id, nil
	}
	cred := strings.Split(q.Get("X-Amz-Credential"), "/")
	if len(cred) != 5 {
		return nil, &apiError{status: 400, code: "AuthorizationQueryParametersError", message: "X-Amz-Credential must be <key>/<date>/<region>/sts/aws4_request"}
	}
	id := s.w.Seed.identity(cred[0])
	if id == nil {
		return nil, invalidKey
	}
	signed, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	if err != nil {
		return nil, &apiError{status: 400, code: "AuthorizationQueryParametersError", message: "X-Amz-Date must be in the ISO8601 basic format"}
	}
	if now.After(signed.Add(stsPresignValidity)) {
		return nil, &apiError{status: 403, code: "ExpiredToken", message: "Request has expired."}
	}
	if !presignedSignatureMatches(r, *id, cred[2], signed) {
		return nil, &apiError{status: 403, code: "SignatureDoesNotMatch", message: "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method."}
	}
	return id, nil
}

// presignedSignatureMatches signs the request again, with the identity's secret, the signed headers
// the request names and its own date, and compares the signatures.
func presignedSignatureMatches(r *http.Request, id IdentitySeed, region string, signed time.Time) bool {
	q := r.URL.Query()
	want := q.Get("X-Amz-Signature")
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	rest := url.Values{}
	for k, vs := range q {
		switch k {
		case "X-Amz-Signature", "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-SignedHeaders":
			continue
		}
		rest[k] = vs
	}
	u.RawQuery = rest.Encode()
	req, err := http.NewRequest(r.Method, u.String(), nil)
	if err != nil {
		return false
	}
	for _, h := range strings.Split(q.Get("X-Amz-SignedHeaders"), ";") {
		if h != "host" && h != "" {
			req.Header.Set(h, r.Header.Get(h))
		}
	}
	emptyHash := sha256.Sum256(nil)
	creds := aws.Credentials{AccessKeyID: id.AccessKeyID, SecretAccessKey: id.SecretAccessKey, SessionToken: q.Get("X-Amz-Security-Token")}
	presigned, _, err := v4.NewSigner().PresignHTTP(context.Background(), creds, req, hex.EncodeToString(emptyHash[:]), "sts", region, signed)
	if err != nil {
		return false
	}
	got, err := url.Parse(presigned)
	return err == nil && got.Query().Get("X-Amz-Signature") == want
}

func (s *Seed) identity(accessKey string) *IdentitySeed {
	for i := range s.AWS.Identities {
		if id := &s.AWS.Identities[i]; id.AccessKeyID == accessKey && accessKey != "" {
			return id
		}
	}
	return nil
}

func stsIdentityBody(r *http.Request, id *IdentitySeed) ([]byte, *apiError) {
	userID := id.UserID
	if userID == "" {
		userID = "AIDA" + strings.ToUpper(id.AccessKeyID[min(4, len(id.AccessKeyID)):])
	}
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		b, _ := json.Marshal(map[string]any{"GetCallerIdentityResponse": map[string]any{
			"GetCallerIdentityResult": map[string]string{"Account": AccountID, "Arn": id.ARN, "UserId": userID},
			"ResponseMetadata":        map[string]string{"RequestId": newUUID()},
		}})
		return b, nil
	}
	var b xmlBuilder
	b.WriteString(`<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">`)
	b.open("GetCallerIdentityResult")
	b.leaf("Arn", id.ARN)
	b.leaf("UserId", userID)
	b.leaf("Account", AccountID)
	b.close("GetCallerIdentityResult")
	b.open("ResponseMetadata")
	b.leaf("RequestId", newUUID())
	b.close("ResponseMetadata")
	b.WriteString("</GetCallerIdentityResponse>")
	return []byte(b.String()), nil
}

func writeSTS(w http.ResponseWriter, r *http.Request, out []byte, aerr *apiError) {
	jsonOut := strings.Contains(r.Header.Get("Accept"), "application/json")
	if aerr != nil {
		if jsonOut {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(aerr.status)
			b, _ := json.Marshal(map[string]any{"Error": map[string]string{"Type": "Sender", "Code": aerr.code, "Message": aerr.message}, "RequestId": newUUID()})
			_, _ = w.Write(b)
			return
		}
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(aerr.status)
		_, _ = w.Write(queryErrorXML("https://sts.amazonaws.com/doc/2011-06-15/", aerr))
		return
	}
	if jsonOut {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "text/xml")
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}
