package acctest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/provider"
)

// ApplyDiagnostics records the diagnostics the provider returns from its applies (creates, updates
// and deletes), which terraform prints but the testing framework does not show a test: a warning
// that an apply succeeded with is checked through it. It records the warnings of plans apart
// (PlanWarnings, with those of the provider configuration's validation, which every plan runs), so
// that a test tells a plan's notice from an apply's.
type ApplyDiagnostics struct {
	mu    sync.Mutex
	diags []*tfprotov6.Diagnostic
	plans []*tfprotov6.Diagnostic
}

// ProviderFactories serves the provider in-process, as the package's ProviderFactories do, and
// records what its applies report.
func (d *ApplyDiagnostics) ProviderFactories() map[string]func() (tfprotov6.ProviderServer, error) {
	serve := providerserver.NewProtocol6WithError(provider.New("test")())
	return map[string]func() (tfprotov6.ProviderServer, error){
		"gpufleet": func() (tfprotov6.ProviderServer, error) {
			s, err := serve()
			if err != nil {
				return nil, err
			}
			return recordingServer{ProviderServer: s, rec: d}, nil
		},
	}
}

// Reset forgets what was recorded.
func (d *ApplyDiagnostics) Reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.diags, d.plans = nil, nil
}

// Warnings are the warnings recorded, each as "summary: detail".
func (d *ApplyDiagnostics) Warnings() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return warnings(d.diags)
}

// PlanWarnings are the warnings the provider's plans gave (terraform plans before each apply and
// again after it), each as "summary: detail".
func (d *ApplyDiagnostics) PlanWarnings() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return warnings(d.plans)
}

func warnings(diags []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, diag := range diags {
		if diag.Severity == tfprotov6.DiagnosticSeverityWarning {
			out = append(out, diag.Summary+": "+diag.Detail)
		}
	}
	return out
}

// ExpectWarning fails unless one recorded apply warning contains every part, in order (spaces match
// as ExpectErrorParts's do).
func (d *ApplyDiagnostics) ExpectWarning(parts ...string) error {
	return expectWarning("apply", d.Warnings(), parts)
}

// ExpectPlanWarning is ExpectWarning for the plans' warnings.
func (d *ApplyDiagnostics) ExpectPlanWarning(parts ...string) error {
	return expectWarning("plan", d.PlanWarnings(), parts)
}

// ExpectNoPlanWarning fails when a plan warned with every part, in order.
func (d *ApplyDiagnostics) ExpectNoPlanWarning(parts ...string) error {
	if err := d.ExpectPlanWarning(parts...); err == nil {
		return fmt.Errorf("a plan warned %q", parts)
	}
	return nil
}

func expectWarning(kind string, warnings, parts []string) error {
	re := ExpectErrorParts(parts...)
	for _, w := range warnings {
		if re.MatchString(w) {
			return nil
		}
	}
	return fmt.Errorf("no %s warning matches %q; the %ss warned:\n%s", kind, parts, kind, strings.Join(warnings, "\n"))
}

type recordingServer struct {
	tfprotov6.ProviderServer
	rec *ApplyDiagnostics
}

func (s recordingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	if resp != nil {
		s.rec.record(&s.rec.diags, resp.Diagnostics)
	}
	return resp, err
}

func (s recordingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		s.rec.record(&s.rec.plans, resp.Diagnostics)
	}
	return resp, err
}

func (s recordingServer) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateProviderConfig(ctx, req)
	if resp != nil {
		s.rec.record(&s.rec.plans, resp.Diagnostics)
	}
	return resp, err
}

func (d *ApplyDiagnostics) record(into *[]*tfprotov6.Diagnostic, diags []*tfprotov6.Diagnostic) {
	d.mu.Lock()
	defer d.mu.Unlock()
	*into = append(*into, diags...)
}
