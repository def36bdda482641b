package eks_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// BenchmarkTerraformPlan times `terraform plan` of N gpufleet_eks_node_pool resources (validation,
// derivation and policy evaluation of every pool, no cloud call) against a plan of N terraform_data
// resources, and reports the ratio. The provider binary runs through dev_overrides, as for users.
// Run with -benchtime=1x (make bench does).
func BenchmarkTerraformPlan(b *testing.B) {
	if _, err := exec.LookPath("terraform"); err != nil {
		b.Skip("terraform is not on PATH")
	}
	env := acctest.DevOverrides(b)
	dir := b.TempDir()
	const n = 200
	pools := writeConfig(b, filepath.Join(dir, "pools"), benchPools(n))
	baseline := writeConfig(b, filepath.Join(dir, "baseline"), benchTerraformData(n))
	// terraform_data is built in; the dev_overrides config needs no init for gpufleet either.
	if _, err := acctest.Terraform(baseline, env, "init", "-input=false", "-no-color"); err != nil {
		b.Fatal(err)
	}
	plan := func(chdir string) time.Duration {
		var best time.Duration
		for range 3 {
			start := time.Now()
			if _, err := acctest.Terraform(chdir, env, "plan", "-input=false", "-refresh=false", "-no-color"); err != nil {
				b.Fatal(err)
			}
			if d := time.Since(start); best == 0 || d < best {
				best = d
			}
		}
		return best
	}
	for b.Loop() {
		gpufleet, data := plan(pools), plan(baseline)
		b.ReportMetric(gpufleet.Seconds(), fmt.Sprintf("s-plan-%d-pools", n))
		b.ReportMetric(data.Seconds(), fmt.Sprintf("s-plan-%d-terraform_data", n))
		b.ReportMetric(float64(gpufleet)/float64(data), "pools/terraform_data")
		b.ReportMetric(float64(gpufleet-data)/n/float64(time.Millisecond), "ms-per-pool")
	}
}

func benchPools(n int) string {
	var b strings.Builder
	b.WriteString(`terraform {
  required_providers {
    gpufleet = { source = "gpufleet/gpufleet" }
  }
}
provider "gpufleet" {
  aws {
    region                      = "us-east-1"
    skip_credentials_validation = true
    endpoints {
      eks = "http://127.0.0.1:1"
      ec2 = "http://127.0.0.1:1"
    }
  }
}
`)
	for i := range n {
		b.WriteString(poolConfig(fmt.Sprintf("p%04d", i), `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(1, 2, 4)))
	}
	return b.String()
}

func benchTerraformData(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "resource \"terraform_data\" \"d%04d\" {\n  input = { client = \"acme\", size = %d }\n}\n", i, i)
	}
	return b.String()
}

func writeConfig(b *testing.B, dir, content string) string {
	b.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(content), 0o600); err != nil {
		b.Fatal(err)
	}
	return dir
}
