package conns

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/impersonate"
)

// googleTokens holds the provider's Google token source, made once.
type googleTokens struct {
	once sync.Once
	ts   oauth2.TokenSource
	err  error
}

// GoogleTokenSource is a source of OAuth 2.0 access tokens of the provider's Google credentials,
// scope cloud-platform: what a GKE cluster's API server accepts as bearer tokens (as `gcloud
// container clusters get-credentials` has kubectl send them). The credentials are the gcp block's
// (a key file's JSON or its path; its token_uri is honoured), an impersonated service account when
// set, or application default credentials. gcp.insecure, which only turns authentication to the
// Google APIs off, does not apply to clusters. Tokens are secret: never log them.
func (m *Meta) GoogleTokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	m.google.once.Do(func() { m.google.ts, m.google.err = m.newGoogleTokenSource(context.WithoutCancel(ctx)) })
	return m.google.ts, m.google.err
}

func (m *Meta) newGoogleTokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	s := m.GCPSettings
	if s.ImpersonateServiceAccount != "" {
		ts, err := impersonate.CredentialsTokenSource(ctx, impersonate.CredentialsConfig{
			TargetPrincipal: s.ImpersonateServiceAccount,
			Scopes:          []string{cloudPlatformScope},
		}, credentialOptions(s.Credentials)...)
		if err != nil {
			return nil, fmt.Errorf("impersonating %s: %w", s.ImpersonateServiceAccount, err)
		}
		return ts, nil
	}
	if s.Credentials == "" {
		ts, err := google.DefaultTokenSource(ctx, cloudPlatformScope)
		if err != nil {
			return nil, fmt.Errorf("finding Google application default credentials: %w", err)
		}
		return ts, nil
	}
	data := []byte(s.Credentials)
	if !strings.HasPrefix(strings.TrimSpace(s.Credentials), "{") {
		var err error
		if data, err = os.ReadFile(s.Credentials); err != nil {
			return nil, fmt.Errorf("reading gcp.credentials: %w", err)
		}
	}
	creds, err := google.CredentialsFromJSONWithType(ctx, data, google.CredentialsType(CredentialsType(data, "")), cloudPlatformScope)
	if err != nil {
		return nil, fmt.Errorf("reading gcp.credentials: %w", err)
	}
	return creds.TokenSource, nil
}
