package conns

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
		return impersonated(ctx, s)
	}
	if s.Credentials == "" {
		ts, err := google.DefaultTokenSource(ctx, cloudPlatformScope)
		if err != nil {
			return nil, fmt.Errorf("finding Google application default credentials: %w", err)
		}
		return ts, nil
	}
	data, err := CredentialsJSON(s.Credentials)
	if err != nil {
		return nil, err
	}
	creds, err := google.CredentialsFromJSONWithType(ctx, data, google.CredentialsType(CredentialsType(data)), cloudPlatformScope)
	if err != nil {
		return nil, fmt.Errorf("reading gcp.credentials: %w", err)
	}
	return creds.TokenSource, nil
}

// CredentialsJSON is the gcp.credentials setting as JSON: the value itself when it is a JSON object,
// else the file it names. Its errors never quote the value: one that is neither JSON nor a path
// may be the key itself in another encoding (base64, a byte-order mark before the brace), and a
// path cannot be told apart from it.
func CredentialsJSON(value string) ([]byte, error) {
	trimmed := strings.TrimSpace(strings.TrimPrefix(value, "\ufeff"))
	if strings.HasPrefix(trimmed, "{") {
		if !json.Valid([]byte(trimmed)) {
			return nil, errors.New("gcp.credentials starts as a JSON key does but is not valid JSON")
		}
		return []byte(trimmed), nil
	}
	data, err := os.ReadFile(value)
	if err != nil {
		why := "not readable"
		switch {
		case errors.Is(err, fs.ErrNotExist):
			why = "no such file"
		case errors.Is(err, fs.ErrPermission):
			why = "permission denied"
		}
		return nil, fmt.Errorf("gcp.credentials is neither a JSON key nor the path of a readable file (%s); a key in another encoding must be decoded first (base64decode())", why)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if !json.Valid(data) {
		return nil, errors.New("the file gcp.credentials names is not a JSON key")
	}
	return data, nil
}

// impersonated is a token source of the service account the gcp block impersonates, with its
// credentials (or application default credentials) as the base.
func impersonated(ctx context.Context, s GCPSettings) (oauth2.TokenSource, error) {
	base, err := credentialOptions(s.Credentials)
	if err != nil {
		return nil, err
	}
	ts, err := impersonate.CredentialsTokenSource(ctx, impersonate.CredentialsConfig{
		TargetPrincipal: s.ImpersonateServiceAccount,
		Scopes:          []string{cloudPlatformScope},
	}, base...)
	if err != nil {
		return nil, fmt.Errorf("impersonating %s: %w", s.ImpersonateServiceAccount, err)
	}
	return ts, nil
}
