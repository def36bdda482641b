package kube_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/kubetest"
)

// The kubernetes block's PEM attributes are checked at plan; the error about a key never quotes it.
func TestPEMValidators(t *testing.T) {
	ctx := context.Background()
	block := kube.ConnectionBlock("the cloud's")
	const secret = "c2VjcmV0LWtleS1ieXRlcw=="
	for _, c := range []struct {
		attr, value, want string
	}{
		{"cluster_ca_certificate", "ca.crt", "no PEM block"},
		{"cluster_ca_certificate", "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n", `type "RSA PRIVATE KEY"`},
		{"client_certificate", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "certificate 1:"},
		{"client_key", "-----BEGIN PRIVATE KEY-----\n" + secret + "\n-----END PRIVATE KEY-----\n", "not a PKCS #1, PKCS #8 or EC private key"},
		{"client_key", secret, "no PEM block"},
	} {
		attr := block.Attributes[c.attr].(schema.StringAttribute)
		var diags diag.Diagnostics
		for _, v := range attr.Validators {
			if !isPEMCheck(ctx, v) {
				continue // the framework's, which need the whole configuration
			}
			resp := &validator.StringResponse{}
			v.ValidateString(ctx, validator.StringRequest{Path: path.Root(c.attr), ConfigValue: types.StringValue(c.value)}, resp)
			diags.Append(resp.Diagnostics...)
		}
		if !diags.HasError() {
			t.Errorf("%s = %q: no error", c.attr, c.value)
			continue
		}
		got := diags.Errors()[0].Summary() + ": " + diags.Errors()[0].Detail()
		if !strings.Contains(got, c.want) || strings.Contains(got, secret) {
			t.Errorf("%s: %q, want %q and never the value", c.attr, got, c.want)
		}
	}
	// What does parse passes.
	cert, key, err := kubetest.ClientCertificate("ci-bot")
	if err != nil {
		t.Fatal(err)
	}
	for attr, value := range map[string]string{"cluster_ca_certificate": string(cert), "client_certificate": string(cert), "client_key": string(key)} {
		for _, v := range block.Attributes[attr].(schema.StringAttribute).Validators {
			if !isPEMCheck(ctx, v) {
				continue
			}
			resp := &validator.StringResponse{}
			v.ValidateString(ctx, validator.StringRequest{Path: path.Root(attr), ConfigValue: types.StringValue(value)}, resp)
			if resp.Diagnostics.HasError() {
				t.Errorf("%s: %v", attr, resp.Diagnostics)
			}
		}
	}
}

// isPEMCheck reports gpufleet's PEM validator among an attribute's validators.
func isPEMCheck(ctx context.Context, v validator.String) bool {
	return strings.HasPrefix(v.Description(ctx), "must be the PEM of a")
}

// The kubernetes block's host must be an https URL without credentials before the host, which
// state would keep as written; neither error quotes the value.
func TestHostValidator(t *testing.T) {
	ctx := context.Background()
	attr := kube.ConnectionBlock("the cloud's").Attributes["host"].(schema.StringAttribute)
	for value, want := range map[string]string{
		"https://admin:s3cret@203.0.113.10":   "Credentials in a URL",
		"https://admin@203.0.113.10/k8s":      "Credentials in a URL",
		"http://203.0.113.10":                 "must be an https:// URL",
		"https://203.0.113.10/a@b":            "",
		"https://ABC.gr7.us-east-1.eks.aws":   "",
		"https://[::1]:6443/clusters/x?y=a@b": "",
	} {
		var diags diag.Diagnostics
		for _, v := range attr.Validators {
			resp := &validator.StringResponse{}
			v.ValidateString(ctx, validator.StringRequest{Path: path.Root("host"), ConfigValue: types.StringValue(value)}, resp)
			diags.Append(resp.Diagnostics...)
		}
		got := ""
		if diags.HasError() {
			got = diags.Errors()[0].Summary() + ": " + diags.Errors()[0].Detail()
		}
		if (want == "") != (got == "") || !strings.Contains(got, want) || strings.Contains(got, "s3cret") {
			t.Errorf("host %q: %q, want %q", value, got, want)
		}
	}
}

// A client certificate and a key that each parse but are not a pair fail the plan at client_key
// (client-go finds it only when it connects, at apply); a key after openssl's EC PARAMETERS block
// is a key.
func TestConnectionModel_keyPair(t *testing.T) {
	cert, key, err := kubetest.ClientCertificate("ci-bot")
	if err != nil {
		t.Fatal(err)
	}
	_, otherKey, err := kubetest.ClientCertificate("someone-else")
	if err != nil {
		t.Fatal(err)
	}
	withParams := "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n" + string(key)
	for name, tc := range map[string]struct {
		key  string
		want string
	}{
		"pair":                {string(key), ""},
		"after EC PARAMETERS": {withParams, ""},
		"not the pair":        {string(otherKey), "Client key and certificate do not match"},
	} {
		m := &kube.ConnectionModel{Host: types.StringValue("https://203.0.113.10"), ClientCertificate: types.StringValue(string(cert)), ClientKey: types.StringValue(tc.key)}
		var diags diag.Diagnostics
		m.Validate(path.Root("kubernetes"), &diags)
		got := ""
		if diags.HasError() {
			got = diags.Errors()[0].Summary()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
		attr := kube.ConnectionBlock("the cloud's").Attributes["client_key"].(schema.StringAttribute)
		for _, v := range attr.Validators {
			if !isPEMCheck(context.Background(), v) {
				continue
			}
			resp := &validator.StringResponse{}
			v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("client_key"), ConfigValue: types.StringValue(tc.key)}, resp)
			if resp.Diagnostics.HasError() {
				t.Errorf("%s: the key does not parse: %v", name, resp.Diagnostics)
			}
		}
	}
}
