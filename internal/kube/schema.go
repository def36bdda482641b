package kube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// ConnectionModel is the kubernetes block of a resource that manages objects in a cluster: how to
// reach a cluster the cloud does not describe (or not the way gpufleet should reach it). Token,
// client_key and the exec plugin's env are secrets.
type ConnectionModel struct {
	Host                 types.String `tfsdk:"host"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	Token                types.String `tfsdk:"token"`
	ClientCertificate    types.String `tfsdk:"client_certificate"`
	ClientKey            types.String `tfsdk:"client_key"`
	Exec                 *ExecModel   `tfsdk:"exec"`
}

// ExecModel is the kubernetes block's exec block: a client-go credential plugin.
type ExecModel struct {
	APIVersion types.String `tfsdk:"api_version"`
	Command    types.String `tfsdk:"command"`
	Args       types.List   `tfsdk:"args"`
	Env        types.Map    `tfsdk:"env"`
}

// ConnectionBlock is the schema of the kubernetes block; about says what the cloud would give
// otherwise (e.g. "the EKS cluster's endpoint and a token from the provider's AWS credentials").
func ConnectionBlock(about string) schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "How to reach the cluster's API server, instead of " + about + ". The same settings as the `kubernetes` provider's; gpufleet reaches the cluster to refresh, apply and destroy, never to compute a plan. Secrets (`token`, `client_key`, the exec plugin's `env`) are sensitive and never logged.",
		Attributes: map[string]schema.Attribute{
			"host": schema.StringAttribute{
				MarkdownDescription: "API server URL, `https://…`. Required in the block.",
				Optional:            true,
				Validators:          []validator.String{URL(hostPattern, "must be an https:// URL")},
			},
			"cluster_ca_certificate": schema.StringAttribute{
				MarkdownDescription: "PEM of the certificate authority that signed the API server's certificate; the system's roots when unset.",
				Optional:            true,
				Validators:          []validator.String{PEMCertificates()},
			},
			"token": schema.StringAttribute{
				MarkdownDescription: "Bearer token. State keeps it, and refresh and destroy use the one in state (Terraform gives a resource nothing else then): a short-lived token, such as `aws_eks_cluster_auth`'s (15 minutes), has expired by the next plan, which then fails with 401 Unauthorized. For such clusters use `exec`, which runs at every call, or leave the block out and let gpufleet make tokens from the provider's credentials.",
				Optional:            true,
				Sensitive:           true,
				Validators:          []validator.String{stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("client_certificate"))},
			},
			"client_certificate": schema.StringAttribute{
				MarkdownDescription: "PEM of a client certificate; needs `client_key`.",
				Optional:            true,
				Validators: []validator.String{
					stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("client_key")),
					PEMCertificates(),
				},
			},
			"client_key": schema.StringAttribute{
				MarkdownDescription: "PEM of the client certificate's private key.",
				Optional:            true,
				Sensitive:           true,
				Validators: []validator.String{
					stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("client_certificate")),
					pemValidator{what: "private key", parse: parsePrivateKey},
				},
			},
		},
		Blocks: map[string]schema.Block{
			"exec": schema.SingleNestedBlock{
				MarkdownDescription: "A client-go credential plugin that prints an `ExecCredential`, e.g. `aws eks get-token` or `gke-gcloud-auth-plugin`. Not with `token` or `client_certificate`, which client-go would use instead of the plugin.",
				Validators: []validator.Object{objectvalidator.ConflictsWith(
					path.MatchRelative().AtParent().AtName("token"),
					path.MatchRelative().AtParent().AtName("client_certificate"),
				)},
				Attributes: map[string]schema.Attribute{
					"api_version": schema.StringAttribute{
						MarkdownDescription: "`client.authentication.k8s.io/v1` or `client.authentication.k8s.io/v1beta1`.",
						Optional:            true,
						Validators:          []validator.String{stringvalidator.OneOf("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")},
					},
					"command": schema.StringAttribute{MarkdownDescription: "The plugin's executable.", Optional: true},
					"args": schema.ListAttribute{
						MarkdownDescription: "Its arguments.",
						ElementType:         types.StringType,
						Optional:            true,
						Validators:          []validator.List{listvalidator.SizeAtMost(64)},
					},
					"env": schema.MapAttribute{
						MarkdownDescription: "Environment variables it gets besides gpufleet's own.",
						ElementType:         types.StringType,
						Optional:            true,
						Sensitive:           true,
					},
				},
			},
		},
	}
}

// Configured reports whether the block was written with a host (an empty block means none).
func (m *ConnectionModel) Configured() bool {
	return m != nil && !m.Host.IsNull()
}

// Validate reports what the block lacks, at its attributes; at plan.
func (m *ConnectionModel) Validate(at path.Path, diags *diag.Diagnostics) {
	if m == nil {
		return
	}
	if m.Host.IsNull() && (!m.Token.IsNull() || !m.ClientCertificate.IsNull() || m.Exec != nil || !m.ClusterCACertificate.IsNull()) {
		diags.AddAttributeError(at.AtName("host"), "Missing API server host", "the kubernetes block needs host, the API server's https:// URL.")
	}
	if cert, key := m.ClientCertificate, m.ClientKey; known(cert) && known(key) &&
		parseCertificates([]byte(cert.ValueString())) == nil && parsePrivateKey([]byte(key.ValueString())) == nil {
		// each parses (else its validator said so): they must be a pair, which client-go checks
		// only when it connects, at apply
		if _, err := tls.X509KeyPair([]byte(cert.ValueString()), []byte(key.ValueString())); err != nil {
			diags.AddAttributeError(at.AtName("client_key"), "Client key and certificate do not match",
				"client_key is not the private key of client_certificate ("+err.Error()+").")
		}
	}
	if e := m.Exec; e != nil && (e.Command.IsNull() || e.APIVersion.IsNull()) && !e.Command.IsUnknown() {
		diags.AddAttributeError(at.AtName("exec"), "Incomplete exec plugin", "the exec block needs command and api_version.")
	}
}

// Access is the block as an Access.
func (m *ConnectionModel) Access(ctx context.Context) (Access, diag.Diagnostics) {
	var diags diag.Diagnostics
	a := Access{
		Host:       m.Host.ValueString(),
		CAData:     []byte(m.ClusterCACertificate.ValueString()),
		Token:      m.Token.ValueString(),
		ClientCert: []byte(m.ClientCertificate.ValueString()),
		ClientKey:  []byte(m.ClientKey.ValueString()),
		Cluster:    "the cluster at " + m.Host.ValueString(),
	}
	if len(a.CAData) == 0 {
		a.CAData = nil
	}
	if len(a.ClientCert) == 0 {
		a.ClientCert, a.ClientKey = nil, nil
	}
	if e := m.Exec; e != nil {
		a.Exec = &ExecConfig{APIVersion: e.APIVersion.ValueString(), Command: e.Command.ValueString()}
		if !e.Args.IsNull() {
			diags.Append(e.Args.ElementsAs(ctx, &a.Exec.Args, false)...)
		}
		if !e.Env.IsNull() {
			diags.Append(e.Env.ElementsAs(ctx, &a.Exec.Env, false)...)
		}
	}
	return a, diags
}

// PEMCertificates is the validator of an attribute that holds PEM certificates (a CA bundle): each
// block must parse, at plan.
func PEMCertificates() validator.String {
	return pemValidator{what: "certificate", parse: parseCertificates}
}

// pemValidator checks at plan that a PEM value parses, so that a certificate or key pasted wrong is
// an error at its attribute rather than at apply, when the client is built. It never quotes the
// value (client_key is a secret).
type pemValidator struct {
	what  string
	parse func([]byte) error
}

var _ validator.String = pemValidator{}

func (v pemValidator) Description(context.Context) string {
	return "must be the PEM of a " + v.what
}

func (v pemValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v pemValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := v.parse([]byte(req.ConfigValue.ValueString())); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Not the PEM of a "+v.what, err.Error())
	}
}

// parseCertificates parses every PEM block of data as an X.509 certificate; there must be one.
func parseCertificates(data []byte) error {
	n := 0
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("a PEM block of type %q, where certificates (CERTIFICATE) are expected", block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Errorf("certificate %d: %w", n+1, err)
		}
		n++
	}
	if n == 0 {
		return errors.New("no PEM block (-----BEGIN CERTIFICATE-----) found")
	}
	return nil
}

// parsePrivateKey parses the first PEM block of data as a private key, as client-go's TLS
// configuration does (PKCS #1, PKCS #8 or SEC 1), without quoting any of it.
func parsePrivateKey(data []byte) error {
	var block *pem.Block
	for b, rest := pem.Decode(data); b != nil; b, rest = pem.Decode(rest) {
		if strings.HasSuffix(b.Type, "PRIVATE KEY") { // past openssl's EC PARAMETERS block
			block = b
			break
		}
	}
	if block == nil {
		return errors.New("no PEM block of a private key (-----BEGIN ... PRIVATE KEY-----) found")
	}
	if _, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		return nil
	}
	if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return nil
	}
	if _, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		return nil
	}
	return fmt.Errorf("the PEM block of type %q is not a PKCS #1, PKCS #8 or EC private key", block.Type)
}

// URL checks a URL attribute: it must match pattern (what says what it must be), and must not carry
// credentials before its host (https://user:password@host), which would be kept in state as
// written, in a non-sensitive attribute, and quoted in every error that names the URL. Its errors
// never quote the value, unlike the framework's regex validators.
func URL(pattern *regexp.Regexp, what string) validator.String {
	return urlValidator{pattern: pattern, what: what}
}

type urlValidator struct {
	pattern *regexp.Regexp
	what    string
}

func (v urlValidator) Description(context.Context) string {
	return v.what + ", without credentials (user:password@) before the host"
}

func (v urlValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v urlValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	switch value := req.ConfigValue.ValueString(); {
	case HasURLCredentials(value):
		resp.Diagnostics.AddAttributeError(req.Path, "Credentials in a URL",
			"the URL carries credentials (user:password@ before the host), which would be kept in state and quoted in errors; give them in the attributes made for them, which are sensitive.")
	case !v.pattern.MatchString(value):
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid URL", req.Path.String()+" "+v.what+".")
	}
}

// HasURLCredentials reports a URL with user information (user:password@) before its host.
func HasURLCredentials(raw string) bool {
	rest := raw
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return strings.Contains(rest, "@")
}

func known(v types.String) bool { return !v.IsNull() && !v.IsUnknown() }
