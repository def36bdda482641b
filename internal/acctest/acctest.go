// Package acctest is shared set-up for acceptance tests: the provider served in-process to the real
// terraform binary, and an environment that keeps terraform offline and its files in one place.
package acctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/provider"
)

// ProviderFactories serves the provider in-process to terraform.
var ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"gpufleet": providerserver.NewProtocol6WithError(provider.New("test")()),
}

// ApplyThenEmptyPlan applies a configuration, then plans it again and expects no change.
func ApplyThenEmptyPlan(config string, checkDestroy func(*terraform.State) error) resource.TestCase {
	return resource.TestCase{
		ProtoV6ProviderFactories: ProviderFactories,
		CheckDestroy:             checkDestroy,
		Steps: []resource.TestStep{
			{Config: config},
			{Config: config, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	}
}

// Main prepares the environment for a package's acceptance tests and runs them: a terraform CLI
// config that exists (the machine's TF_CLI_CONFIG_FILE may point nowhere), and TF_ACC_TEMP_DIR in a
// directory removed afterwards. Call it from TestMain.
func Main(m *testing.M) int {
	dir, err := os.MkdirTemp("", "gpufleet-acc-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if cfg := os.Getenv("TF_CLI_CONFIG_FILE"); cfg == "" || !exists(cfg) {
		cliConfig := filepath.Join(dir, "terraformrc")
		if err := os.WriteFile(cliConfig, []byte("# gpufleet acceptance tests: no plugin cache, no credentials\n"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.Setenv("TF_CLI_CONFIG_FILE", cliConfig)
	}
	if os.Getenv("TF_ACC_TEMP_DIR") == "" {
		work := filepath.Join(dir, "work")
		if err := os.MkdirAll(work, 0o700); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.Setenv("TF_ACC_TEMP_DIR", work)
	}
	os.Setenv("CHECKPOINT_DISABLE", "1")
	return m.Run()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// WriteFile writes content to a file in t's temp dir and returns its path.
func WriteFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// ExpectErrorParts matches an error that contains the regexp parts in order. Spaces in a part match
// any white space, as terraform wraps long diagnostics.
func ExpectErrorParts(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.ReplaceAll(p, " ", `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}

// DevOverrides builds the provider from this module into a temporary directory and returns the
// environment in which terraform runs that binary through dev_overrides, as `make demo` does: no
// registry and no init; built with buildTags when given (the benchmarks' gpufleet_bench_noplanwork).
func DevOverrides(tb testing.TB, buildTags ...string) []string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	build := exec.Command("go", "build", "-tags", strings.Join(buildTags, ","), "-o", filepath.Join(dir, "bin", "terraform-provider-gpufleet"), ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("building the provider: %v: %s", err, out)
	}
	rc := filepath.Join(dir, "terraformrc")
	config := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"gpufleet/gpufleet\" = %q\n  }\n  direct {}\n}\n", filepath.Join(dir, "bin"))
	if err := os.WriteFile(rc, []byte(config), 0o600); err != nil {
		tb.Fatal(err)
	}
	return append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		"AWS_ACCESS_KEY_ID=AKIADEVOVERRIDES", "AWS_SECRET_ACCESS_KEY=unused", "AWS_EC2_METADATA_DISABLED=true")
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if exists(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = parent
	}
}

// Terraform runs terraform in dir with env and returns its standard output.
func Terraform(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("terraform", append([]string{"-chdir=" + dir}, args...)...)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("terraform %s: %w: %s", strings.Join(args, " "), err, lastLines(stderr.String()+string(out), 2000))
	}
	return out, nil
}

func lastLines(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// ExpectREADMESays fails t unless the repository's README.md (read from a package two levels
// down, internal/<pkg>) says text, white space folded: a figure the README quotes from a test.
func ExpectREADMESays(t *testing.T, text string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(raw)), " "), text) {
		t.Errorf("README.md does not say %s", text)
	}
}

// ChangedAttributes are the names of the top-level attributes whose values differ between two
// values of a resource in a plan's JSON (a drift's before and after), sorted: what a test reports
// of a drift without printing the values, which may hold credentials.
func ChangedAttributes(before, after any) []string {
	b, _ := before.(map[string]any)
	a, _ := after.(map[string]any)
	var changed []string
	for k := range b {
		if fmt.Sprint(b[k]) != fmt.Sprint(a[k]) {
			changed = append(changed, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			changed = append(changed, k)
		}
	}
	slices.Sort(changed)
	return changed
}
