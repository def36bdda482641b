package provider_test

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/metrics/metricstest"
)

func TestMain(m *testing.M) {
	code := acctest.Main(m)
	metricstest.StopShared() // the real Prometheus of the utilisation tests, if one started
	os.Exit(code)
}

const policyData = `
gpufleet:
  clients:
    acme:
      cost_center: cc-1001
      allowed_regions: ["us-*"]
      isolation: dedicated
      monthly_budget_usd: 50000
`

// A full provider block, configured by the real terraform binary; the catalog data source proves
// Configure ran (it prices at the configured discount) without touching any cloud: the endpoints
// point at closed loopback ports, and clients are only built on first use.
func TestAccProvider_configure(t *testing.T) {
	data := acctest.WriteFile(t, "policy-data.yaml", policyData)
	g6, _ := catalog.AWSInstanceType("g6.xlarge")
	list, _ := g6.Price("us-east-1")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
provider "gpufleet" {
  default_tags = { ManagedBy = "terraform" }
  aws {
    region                      = "us-east-1"
    profile                     = "does-not-need-to-exist"
    skip_credentials_validation = true
    max_retries                 = 5
    assume_role {
      role_arn     = "arn:aws:iam::123456789012:role/gpufleet"
      session_name = "gpufleet-test"
    }
    endpoints {
      eks         = "http://127.0.0.1:1"
      ec2         = "http://127.0.0.1:1"
      autoscaling = "http://127.0.0.1:1"
    }
  }
  gcp {
    project  = "acme-ml"
    endpoint = "127.0.0.1:1"
    insecure = true
  }
  pricing {
    discount_percent = 10
    overrides = { "p5.4xlarge" = { on_demand_hourly_usd = 5 } }
  }
  policy {
    enforcement = "warn"
    data_files  = [%q]
  }
}

data "gpufleet_gpu_catalog" "l4" {
  cloud     = "aws"
  region    = "us-east-1"
  gpu_model = "L4"
}

data "gpufleet_gpu_catalog" "p5" {
  cloud       = "aws"
  region      = "us-east-1"
  gpu_model   = "H100-80GB"
  mig_capable = true
}
`, data),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpufleet_gpu_catalog.l4", tfjsonpath.New("node_types").AtSliceIndex(0).AtMapKey("name"), knownvalue.StringExact("g6.xlarge")),
				statecheck.ExpectKnownValue("data.gpufleet_gpu_catalog.l4", tfjsonpath.New("node_types").AtSliceIndex(0).AtMapKey("on_demand_hourly_usd"),
					knownvalue.Float64Exact(roundTo4(list.OnDemandUSD*0.9))),
				statecheck.ExpectKnownValue("data.gpufleet_gpu_catalog.p5", tfjsonpath.New("node_types").AtSliceIndex(0).AtMapKey("on_demand_hourly_usd"), knownvalue.Float64Exact(5)),
			},
		}},
	})
}

// Bad provider configuration fails at validate/plan, naming the attribute, before any cloud call.
func TestAccProvider_badConfig(t *testing.T) {
	missing := t.TempDir() + "/nope.yaml"
	broken := acctest.WriteFile(t, "broken.yaml", "gpufleet: [unclosed")
	noRoot := acctest.WriteFile(t, "noroot.yaml", "clients: {}\n")
	badIsolation := acctest.WriteFile(t, "iso.yaml", "gpufleet:\n  clients:\n    acme: { isolation: private }\n")
	twiceListed := acctest.WriteFile(t, "twice.yaml", "gpufleet:\n  clients:\n    acme: { allowed_regions: [\"eu-*\"] }\n    acme: { allowed_regions: [\"*\"] }\n")
	twoDocuments := acctest.WriteFile(t, "two.yaml", "gpufleet: {}\n---\ngpufleet:\n  clients:\n    acme: {}\n")
	cases := map[string]struct {
		block string
		want  []string
	}{
		"unknown region format":                {"aws {\n region = \"useast1\"\n}", []string{"aws.region", "must be an AWS region"}},
		"insecure non-loopback":                {"gcp {\n endpoint = \"container.googleapis.com:443\"\n insecure = true\n}", []string{"gcp.insecure", "only allowed with a loopback endpoint"}},
		"negative discount":                    {"pricing {\n discount_percent = -5\n}", []string{"pricing.discount_percent", "must be between 0"}},
		"unreadable data file":                 {fmt.Sprintf("policy {\n data_files = [%q]\n}", missing), []string{`policy.data_files\[0\]`, "no such file"}},
		"broken data file":                     {fmt.Sprintf("policy {\n data_files = [%q]\n}", broken), []string{`policy.data_files\[0\]`, "not valid YAML or JSON"}},
		"data file without root key":           {fmt.Sprintf("policy {\n data_files = [%q]\n}", noRoot), []string{`policy.data_files\[0\]`, `gpufleet: required key missing`}},
		"data file bad isolation":              {fmt.Sprintf("policy {\n data_files = [%q]\n}", badIsolation), []string{`policy.data_files\[0\]`, `gpufleet.clients.acme.isolation: "private" is not allowed; allowed: dedicated, mig, shared`}},
		"data file with a client listed twice": {fmt.Sprintf("policy {\n data_files = [%q]\n}", twiceListed), []string{`policy.data_files\[0\]`, `gpufleet.clients.acme: given twice \(lines 3 and 4\)`}},
		"data file of two YAML documents":      {fmt.Sprintf("policy {\n data_files = [%q]\n}", twoDocuments), []string{`policy.data_files\[0\]`, `holds 2 YAML documents`}},
		"missing bundle directory":             {fmt.Sprintf("policy {\n bundle_paths = [%q]\n}", missing), []string{`policy.bundle_paths\[0\]`, "no such file"}},
		"bad enforcement":                      {"policy {\n enforcement = \"block\"\n}", []string{"policy.enforcement", "value must be one of"}},
		"bad role arn":                         {"aws {\n assume_role {\n role_arn = \"gpufleet\"\n }\n}", []string{"aws.assume_role.role_arn", "IAM role ARN"}},
		"bad endpoint url":                     {"aws {\n endpoints {\n eks = \"localhost:4566\"\n }\n}", []string{"aws.endpoints.eks", `http\(s\) URL`}},
		"bad gcp project":                      {"gcp {\n project = \"Acme\"\n}", []string{"gcp.project", "Google Cloud project id"}},
		"credentials over plaintext":           {"gcp {\n endpoint = \"127.0.0.1:9\"\n insecure = true\n credentials = \"{}\"\n}", []string{"gcp.credentials", "plaintext"}},
		"credentials neither JSON nor a file":  {"gcp {\n credentials = \"ZXlKMGVYQmxJam9p\"\n}", []string{"Unreadable credentials", "neither a JSON key nor the path of a readable file", "base64decode"}},
		"metrics ca_pem that does not parse":   {"metrics {\n url = \"http://prometheus:9090\"\n ca_pem = \"-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----\\n\"\n}", []string{"Not the PEM of a certificate", "ca_pem", "certificate 1:"}},
		"bearer token for amp":                 {"metrics {\n url = \"https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-1\"\n kind = \"amp\"\n bearer_token = \"t\"\n}", []string{"Credentials for another kind", "bearer_token", `is for kind "prometheus"; "amp" authenticates`}},
		"credentials in the metrics url":       {"metrics {\n url = \"http://admin:pw@prometheus:9090\"\n}", []string{"Credentials in a URL", "user:password@", "sensitive"}},
		"reserved default tag prefix":          {"default_tags = { \"aws:owner\" = \"x\" }", []string{`default_tags\["aws:owner"\]`, `must not start with "aws:"`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      "provider \"gpufleet\" {\n" + tc.block + "\n}\n" + `data "gpufleet_gpu_catalog" "any" { cloud = "aws" }`,
					ExpectError: acctest.ExpectErrorParts(tc.want...),
				}},
			})
		})
	}
}

// A metrics bearer token or password sent over plain http:// to another machine is warned about at
// plan (anyone on the path reads it), naming the attribute; https:// and a loopback port-forward
// are not.
func TestAccProvider_cleartextMetricsCredentials(t *testing.T) {
	cases := map[string]struct {
		block string
		want  string // "" for no warning
	}{
		"bearer token over http":      {"url = \"http://prometheus.monitoring:9090\"\n bearer_token = \"t0ken-s3cret\"", "metrics.bearer_token is sent in clear"},
		"password over http":          {"url = \"http://10.0.3.7:9090\"\n username = \"u\"\n password = \"pw-s3cret\"", "metrics.password is sent in clear"},
		"bearer token over https":     {"url = \"https://prometheus.monitoring:9090\"\n bearer_token = \"t0ken-s3cret\"", ""},
		"port-forward on loopback":    {"url = \"http://127.0.0.1:9090\"\n bearer_token = \"t0ken-s3cret\"", ""},
		"no credentials over http":    {"url = \"http://prometheus.monitoring:9090\"", ""},
		"port-forward with localhost": {"url = \"http://localhost:9090\"\n username = \"u\"\n password = \"pw-s3cret\"", ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var diags acctest.ApplyDiagnostics
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: diags.ProviderFactories(),
				Steps: []resource.TestStep{{
					Config: "provider \"gpufleet\" {\n metrics {\n " + tc.block + "\n }\n}\n" + `data "gpufleet_gpu_catalog" "any" { cloud = "aws" }`,
					Check: func(*terraform.State) error {
						if tc.want == "" {
							return diags.ExpectNoPlanWarning("Credentials sent unencrypted")
						}
						if slices.ContainsFunc(diags.PlanWarnings(), func(w string) bool { return strings.Contains(w, "s3cret") }) {
							return errors.New("the warning quotes the secret")
						}
						return diags.ExpectPlanWarning("Credentials sent unencrypted", tc.want, "Use https://")
					},
				}},
			})
		})
	}
}

// A policy data file that violates policies/policy-data.schema.json fails terraform plan with one
// error per problem at its policy.data_files index, naming the file and the key.
func TestAccProvider_invalidPolicyData(t *testing.T) {
	good := acctest.WriteFile(t, "good.yaml", policyData)
	bad := acctest.WriteFile(t, "bad.yaml", "gpufleet:\n  clients:\n    acme: { cost_centre: cc-1001, allowed_regions: [] }\n  thresholds: { oversize_factor: 1 }\n")
	file := regexp.QuoteMeta(fmt.Sprintf("policy data file %q: ", bad))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf("provider \"gpufleet\" {\n policy {\n data_files = [%q, %q]\n }\n}\n", good, bad) +
				`data "gpufleet_gpu_catalog" "any" { cloud = "aws" }`,
			ExpectError: acctest.ExpectErrorParts(
				`Invalid policy data`, `policy.data_files\[1\]: `+file+`gpufleet.clients.acme.allowed_regions: has 0 entries, needs at least 1`,
				`Invalid policy data`, `policy.data_files\[1\]: `+file+`gpufleet.clients.acme.cost_centre: unknown key; allowed: allowed_regions, cost_center, isolation, monthly_budget_usd`,
				`Invalid policy data`, `policy.data_files\[1\]: `+file+`gpufleet.thresholds.oversize_factor: 1 is too small: must be greater than 1`,
			),
		}},
	})
}

func TestAccGPUCatalogDataSource_filters(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpufleet_gpu_catalog" "big" {
  cloud              = "gcp"
  region             = "us-central1"
  min_gpu_memory_gib = 80
  max_gpus_per_node  = 1
}
data "gpufleet_gpu_catalog" "t4" {
  cloud     = "gcp"
  gpu_model = "T4"
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.gpufleet_gpu_catalog.big", tfjsonpath.New("node_types").AtSliceIndex(0).AtMapKey("name"), knownvalue.StringExact("a2-ultragpu-1g")),
				statecheck.ExpectKnownValue("data.gpufleet_gpu_catalog.big", tfjsonpath.New("node_types").AtSliceIndex(0).AtMapKey("mig_profiles").AtSliceIndex(0), knownvalue.StringExact("1g.10gb")),
				statecheck.ExpectKnownValue("data.gpufleet_gpu_catalog.t4", tfjsonpath.New("node_types").AtSliceIndex(0).AtMapKey("accelerator"), knownvalue.StringExact("nvidia-tesla-t4")),
				statecheck.ExpectKnownValue("data.gpufleet_gpu_catalog.t4", tfjsonpath.New("node_types").AtSliceIndex(0).AtMapKey("on_demand_hourly_usd"), knownvalue.Null()),
			},
		}},
	})
}

func TestAccMIGProfilesFunction_basic(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{
			{
				Config: `output "h100" { value = provider::gpufleet::mig_profiles("H100-80GB") }
output "l4" { value = provider::gpufleet::mig_profiles("L4") }`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValueAtPath("h100", tfjsonpath.New(4).AtMapKey("name"), knownvalue.StringExact("3g.40gb")),
					statecheck.ExpectKnownOutputValueAtPath("h100", tfjsonpath.New(4).AtMapKey("max_instances"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownOutputValue("l4", knownvalue.ListSizeExact(0)),
				},
			},
			{
				Config:      `output "x" { value = provider::gpufleet::mig_profiles("RTX-4090") }`,
				ExpectError: regexp.MustCompile(`unknown GPU model "RTX-4090"`),
			},
		},
	})
}

func roundTo4(f float64) float64 {
	return float64(int64(f*10000+0.5)) / 10000
}
