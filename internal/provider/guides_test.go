package provider_test

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// The guides quote what terraform and conftest print: every such quote is produced here, from the
// guide's own configuration blocks, by the real terraform against cloudsim (the example seed) and
// the pinned conftest, so a catalog or rule change that moves a figure fails here rather than
// misleading a reader.

// guide is one guide template: its fenced blocks in order, by language ("" for output).
type guide struct {
	name   string
	blocks []guideBlock
}

type guideBlock struct{ lang, text string }

var fence = regexp.MustCompile("(?s)```([a-z-]*)\n(.*?)```")

func readGuide(t *testing.T, name string) guide {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("../../templates/guides", name+".md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	g := guide{name: name}
	for _, m := range fence.FindAllStringSubmatch(string(raw), -1) {
		g.blocks = append(g.blocks, guideBlock{m[1], m[2]})
	}
	return g
}

// block is the first block of lang whose text starts with prefix (after leading blank lines).
func (g guide) block(t *testing.T, lang, prefix string) string {
	t.Helper()
	for _, b := range g.blocks {
		if b.lang == lang && strings.HasPrefix(strings.TrimLeft(b.text, "\n"), prefix) {
			return b.text
		}
	}
	t.Fatalf("guide %s has no %q block starting with %q", g.name, lang, prefix)
	return ""
}

// guideWorkspace is a directory with the guide's configuration as main.tf (its blocks joined in
// the order given, one blank line apart, as a reader saves them), and cloudsim's endpoints in
// override.tf: terraform merges the override into the guide's provider block, so main.tf's line
// numbers are the guide's.
type guideWorkspace struct {
	dir string
	env []string
}

func newGuideWorkspace(t *testing.T, sim *cloudsim.Sim, env []string, providerBlock string, blocks ...string) *guideWorkspace {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(strings.Join(blocks, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &guideWorkspace{dir: dir, env: env}
	if !strings.Contains(strings.Join(blocks, "\n"), "required_providers") { // the guide shows only the resources
		w.write(t, "versions.tf", "terraform {\n  required_providers {\n    gpufleet = { source = \"gpufleet/gpufleet\" }\n  }\n}\n")
	}
	w.override(t, sim, providerBlock, nil)
	return w
}

// override writes override.tf: the provider block's aws and gcp blocks with cloudsim's endpoints
// (an override replaces a nested block whole, so the guide's own settings are copied into it), and
// the attributes in set (aws.region = "us-east-1") over the guide's.
func (w *guideWorkspace) override(t *testing.T, sim *cloudsim.Sim, providerBlock string, set map[string]string) {
	t.Helper()
	file, diags := hclwrite.ParseConfig([]byte(providerBlock), "provider.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	provider := file.Body().FirstMatchingBlock("provider", []string{"gpufleet"})
	if provider == nil {
		t.Fatal("no provider \"gpufleet\" block")
	}
	e := sim.Endpoints()
	attr := func(body *hclwrite.Body, name string) string {
		if a := body.GetAttribute(name); a != nil {
			return strings.TrimSpace(string(a.Expr().BuildTokens(nil).Bytes()))
		}
		return ""
	}
	var out strings.Builder
	out.WriteString("provider \"gpufleet\" {\n")
	if aws := provider.Body().FirstMatchingBlock("aws", nil); aws != nil {
		region := attr(aws.Body(), "region")
		if r, ok := set["aws.region"]; ok {
			region = fmt.Sprintf("%q", r)
		}
		fmt.Fprintf(&out, "  aws {\n    region = %s\n    skip_credentials_validation = true\n    endpoints {\n      eks = %q\n      ec2 = %q\n      autoscaling = %q\n    }\n  }\n", region, e.EKS, e.EC2, e.AutoScaling)
	}
	if gcp := provider.Body().FirstMatchingBlock("gcp", nil); gcp != nil {
		fmt.Fprintf(&out, "  gcp {\n    project = %s\n    endpoint = %q\n    compute_endpoint = %q\n    insecure = true\n  }\n", attr(gcp.Body(), "project"), e.GKE, e.Compute)
	}
	out.WriteString("}\n")
	if err := os.WriteFile(filepath.Join(w.dir, "override.tf"), []byte(out.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (w *guideWorkspace) write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(w.dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// run runs a command in the workspace and returns its combined output and exit code.
func (w *guideWorkspace) run(t *testing.T, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = w.dir, w.env
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

var spaces = regexp.MustCompile(`\s+`)

func collapse(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

// quotesLines checks that every line of the guide's quote (an abridged plan: lines may be left out,
// "..." marks a cut) is a line of the output, in order, white space aside.
func quotesLines(t *testing.T, what, quote, output string) {
	t.Helper()
	lines := strings.Split(output, "\n")
	i := 0
	for _, q := range strings.Split(quote, "\n") {
		q = collapse(q)
		if q == "" || q == "..." {
			continue
		}
		for i < len(lines) && collapse(lines[i]) != q {
			i++
		}
		if i == len(lines) {
			t.Errorf("%s: the guide quotes %q, which the output does not print (in that order):\n%s", what, q, output)
			return
		}
		i++
	}
}

// quotesText checks that the guide's quote is in the output, white space aside (terraform wraps
// diagnostics to the terminal's width).
func quotesText(t *testing.T, what, quote, output string) {
	t.Helper()
	if !strings.Contains(collapse(output), collapse(quote)) {
		t.Errorf("%s: the guide quotes\n%s\nwhich the output does not print:\n%s", what, quote, output)
	}
}

// Getting started: the EKS pool's plan (costs, GPU, labels, tags, taints), the GF-COST-002 warning
// with its saving, the GF-DR-001 deny had aws.region been us-east-1, and conftest's output with its
// summary, from the guide's blocks (main.tf: the terraform, provider and two resource blocks, in
// the guide's order) and its policy data.
func TestAccGuide_gettingStarted(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	conftest := os.Getenv("GPUFLEET_CONFTEST")
	if conftest == "" {
		t.Skip("GPUFLEET_CONFTEST is not set (make test sets it to the pinned conftest)")
	}
	g := readGuide(t, "getting-started")
	provider := g.block(t, "terraform", "provider \"gpufleet\"")
	sim, env := seededCloudsim(t)
	w := newGuideWorkspace(t, sim, env, provider,
		g.block(t, "terraform", "terraform {"), provider,
		g.block(t, "terraform", "resource \"gpufleet_eks_node_pool\" \"serve\""),
		g.block(t, "terraform", "resource \"gpufleet_gke_node_pool\" \"tune\""))
	w.write(t, "policy-data.yaml", g.block(t, "yaml", "gpufleet:"))

	out, code := w.run(t, "terraform", "plan", "-no-color", "-out", "plan.out")
	if code != 0 {
		t.Fatalf("terraform plan: exit %d\n%s", code, out)
	}
	quotesLines(t, "the EKS pool's plan", g.block(t, "", "  # gpufleet_eks_node_pool.serve will be created"), out)
	quotesText(t, "the GF-COST-002 warning", g.block(t, "", "Warning: Policy GF-COST-002"), out)

	// conftest on the plan's JSON with the repository's bundle and the guide's policy data.
	show, code := w.run(t, "terraform", "show", "-json", "plan.out")
	if code != 0 {
		t.Fatalf("terraform show: exit %d\n%s", code, show)
	}
	w.write(t, "plan.json", show)
	policies, _ := filepath.Abs("../../policies")
	if err := os.Symlink(policies, filepath.Join(w.dir, "policies")); err != nil {
		t.Fatal(err)
	}
	out, code = w.run(t, conftest, "test", "--no-color", "--policy", "policies", "--data", "policy-data.yaml", "plan.json")
	if code != 0 {
		t.Fatalf("conftest: exit %d\n%s", code, out)
	}
	quotesLines(t, "conftest", g.block(t, "", "WARN - plan.json"), out)

	// The guide "Writing your own rules": its rules beside the bundle, on this plan.
	rules := readGuide(t, "writing-your-own-rules")
	if err := os.MkdirAll(filepath.Join(w.dir, "policy", "acme"), 0o700); err != nil {
		t.Fatal(err)
	}
	w.write(t, "policy/acme/acme.rego", rules.block(t, "rego", "package gpufleet.rules"))
	out, _ = w.run(t, conftest, "test", "--no-color", "--policy", "policies", "--policy", "policy/acme", "--data", "policy-data.yaml", "plan.json")
	quotesLines(t, "conftest with the guide's own rules", rules.block(t, "", "WARN - plan.json - main - ACME-002"), out)

	// The same configuration with aws.region = "us-east-1": acme may not run there.
	w.override(t, sim, provider, map[string]string{"aws.region": "us-east-1"})
	out, code = w.run(t, "terraform", "plan", "-no-color")
	if code == 0 {
		t.Fatalf("terraform plan in us-east-1 passed:\n%s", out)
	}
	quotesText(t, "the GF-DR-001 error", g.block(t, "", "Error: Policy GF-DR-001 denied this pool"), out)
}

// gkeProvider is a provider block for the GKE examples against the example seed's project.
const gkeProvider = `provider "gpufleet" {
  gcp {
    project = "acme-ml"
  }
}
`

// resourceBlock is the resource block of type and name in an HCL text, as written.
func resourceBlock(t *testing.T, text, typ, name string) string {
	t.Helper()
	file, diags := hclwrite.ParseConfig([]byte(text), "example.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	b := file.Body().FirstMatchingBlock("resource", []string{typ, name})
	if b == nil {
		t.Fatalf("no resource %s.%s", typ, name)
	}
	return string(b.BuildTokens(nil).Bytes())
}

// editBlock changes an HCL resource block: edit gets its body.
func editBlock(t *testing.T, block string, edit func(body *hclwrite.Body)) string {
	t.Helper()
	file, diags := hclwrite.ParseConfig([]byte(block), "block.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	edit(file.Body().Blocks()[0].Body())
	return string(hclwrite.Format(file.Bytes()))
}

// The GKE pools of A100 80GB slices (the resource page's and the MIG guide's) and the spot mixes
// guide's two-zone pool apply against cloudsim, whose zones offer what Compute Engine's do
// (TestAcceleratorZones_seedAgrees), and destroy. Before, each planned and then failed at apply:
// nvidia-a100-80gb is offered in europe-west4-a only, and the pools took the cluster's three zones
// (or two of them).
func TestAccGuide_gkePoolsApplyInTheirZones(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	example, err := os.ReadFile("../../examples/resources/gpufleet_gke_node_pool/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	pools := map[string]string{
		"resource page":    resourceBlock(t, string(example), "gpufleet_gke_node_pool", "tune"),
		"MIG guide":        readGuide(t, "mig-and-gpu-sharing").block(t, "terraform", "resource \"gpufleet_gke_node_pool\" \"tune\""),
		"spot mixes guide": readGuide(t, "spot-mixes").block(t, "terraform", "resource \"gpufleet_gke_node_pool\" \"tune\""),
	}
	for name, pool := range pools {
		t.Run(name, func(t *testing.T) {
			sim, env := seededCloudsim(t)
			w := newGuideWorkspace(t, sim, env, gkeProvider, gkeProvider, pool)
			if out, code := w.run(t, "terraform", "apply", "-auto-approve", "-no-color"); code != 0 {
				t.Fatalf("terraform apply: exit %d\n%s", code, out)
			}
			if out, code := w.run(t, "terraform", "destroy", "-auto-approve", "-no-color"); code != 0 {
				t.Fatalf("terraform destroy: exit %d\n%s", code, out)
			}
		})
	}
}

// The spot mixes guide's errors of GKE's per-zone sizes, from its pool: over europe-west4's three
// zones with min_size 1 and max_size 2, and with desired_size 3 over its two zones (all on-demand).
func TestAccGuide_spotMixesZoneErrors(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	g := readGuide(t, "spot-mixes")
	pool := g.block(t, "terraform", "resource \"gpufleet_gke_node_pool\" \"tune\"")
	sizes := func(minSize, maxSize int64, desired ...int64) func(*hclwrite.Body) {
		return func(b *hclwrite.Body) {
			b.RemoveBlock(b.FirstMatchingBlock("capacity", nil))
			s := b.FirstMatchingBlock("scaling", nil).Body()
			s.RemoveAttribute("desired_size")
			s.SetAttributeValue("min_size", cty.NumberIntVal(minSize))
			s.SetAttributeValue("max_size", cty.NumberIntVal(maxSize))
			if len(desired) > 0 {
				s.SetAttributeValue("desired_size", cty.NumberIntVal(desired[0]))
			}
		}
	}
	threeZones := func(b *hclwrite.Body) {
		sizes(1, 2)(b)
		b.SetAttributeValue("node_locations", cty.ListVal([]cty.Value{cty.StringVal("europe-west4-a"), cty.StringVal("europe-west4-b"), cty.StringVal("europe-west4-c")}))
	}
	for quote, edit := range map[string]func(*hclwrite.Body){
		"Error: Pool cannot start within max_size":          threeZones,
		"Error: Desired size does not split over the zones": sizes(0, 8, 3),
	} {
		t.Run(quote, func(t *testing.T) {
			sim, env := seededCloudsim(t)
			w := newGuideWorkspace(t, sim, env, gkeProvider, gkeProvider, editBlock(t, pool, edit))
			out, code := w.run(t, "terraform", "plan", "-no-color")
			if code == 0 {
				t.Fatalf("terraform plan passed:\n%s", out)
			}
			quotesLines(t, quote, g.block(t, "", quote), out)
		})
	}
}

// The MIG guide's device plugin config, from its EKS pool and output.
func TestAccGuide_migDevicePluginConfig(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	g := readGuide(t, "mig-and-gpu-sharing")
	provider := "provider \"gpufleet\" {\n  aws {\n    region = \"us-east-1\"\n  }\n}\n"
	sim, env := seededCloudsim(t)
	w := newGuideWorkspace(t, sim, env, provider, provider, g.block(t, "terraform", "resource \"gpufleet_eks_node_pool\" \"dev\""))
	out, code := w.run(t, "terraform", "plan", "-no-color")
	if code != 0 {
		t.Fatalf("terraform plan: exit %d\n%s", code, out)
	}
	quotesLines(t, "device_plugin", g.block(t, "", "  + device_plugin = {"), out)
}

// Offline testing: the guide's configuration, with cloudsim's endpoints, fails its apply with
// EKS's capacity health issue when the guide's create_failed fault is injected, as the guide
// quotes it.
func TestAccGuide_offlineTestingFault(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set")
	}
	g := readGuide(t, "offline-testing-with-cloudsim")
	config := g.block(t, "terraform", "terraform {")
	var fault string
	for _, b := range g.blocks {
		if _, rest, ok := strings.Cut(b.text, "-d '"); ok && strings.Contains(rest, `"create_failed"`) {
			fault, _, _ = strings.Cut(rest, "'")
		}
	}
	if fault == "" {
		t.Fatal("the guide has no create_failed fault")
	}
	sim, env := seededCloudsim(t)
	// The configuration reads the policy data at ../../policies from its directory (.tmp/offline).
	root := t.TempDir()
	policies, _ := filepath.Abs("../../policies")
	if err := os.Symlink(policies, filepath.Join(root, "policies")); err != nil {
		t.Fatal(err)
	}
	w := newGuideWorkspace(t, sim, env, config, config)
	offline := filepath.Join(root, ".tmp", "offline")
	if err := os.MkdirAll(filepath.Dir(offline), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(w.dir, offline); err != nil {
		t.Fatal(err)
	}
	w.dir = offline
	resp, err := http.Post(sim.Endpoints().Control+"/faults", "application/json", strings.NewReader(fault))
	if err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("injecting %s: %v %v", fault, resp, err)
	}
	resp.Body.Close()
	out, code := w.run(t, "terraform", "apply", "-auto-approve", "-no-color")
	if code == 0 {
		t.Fatalf("terraform apply passed with the fault:\n%s", out)
	}
	quotesLines(t, "the failed apply", g.block(t, "", "Error: waiting for EKS node group"), out)
	if out, code := w.run(t, "terraform", "destroy", "-auto-approve", "-no-color"); code != 0 {
		t.Fatalf("terraform destroy: exit %d\n%s", code, out)
	}
}
