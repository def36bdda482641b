package provider_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	"github.com/zclconf/go-cty/cty"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

var terraformBlock = regexp.MustCompile("(?s)```(?:terraform|hcl)\n(.*?)```")

// Every provider "gpufleet" block the docs show (docs/index.md's example, the guides') plans an
// EKS and a GKE pool (the resources' own examples): a setting that one cloud refuses, such as
// default_tags keys that GKE resource labels cannot take, would fail every pool of that cloud. Only
// what a test must change is changed: endpoints point at closed loopback ports (planning calls no
// cloud), assume_role is dropped (it would need STS), policy runs as warnings with the example
// policy data (the examples show settings, not a compliant fleet; enforcement may be a variable the
// snippet does not declare), and custom rule directories the page's reader writes are left out.
func TestAccDocs_providerBlocksPlanOnBothClouds(t *testing.T) {
	data, err := filepath.Abs("../../policies/examples/policy-data.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var pools []byte
	for _, f := range []string{"../../examples/resources/gpufleet_eks_node_pool/resource.tf", "../../examples/resources/gpufleet_gke_node_pool/resource.tf"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pools = append(pools, raw...)
	}
	pages, _ := filepath.Glob("../../docs/*.md")
	guides, _ := filepath.Glob("../../docs/guides/*.md")
	found := 0
	for _, page := range append(pages, guides...) {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range terraformBlock.FindAllSubmatch(raw, -1) {
			file, diags := hclwrite.ParseConfig(m[1], page, hcl.InitialPos)
			if diags.HasErrors() {
				continue // a fragment (attributes of a resource), not a configuration
			}
			block := file.Body().FirstMatchingBlock("provider", []string{"gpufleet"})
			if block == nil {
				continue
			}
			found++
			provider := forTest(block, data)
			t.Run(fmt.Sprintf("%s#%d", strings.TrimPrefix(page, "../../"), i), func(t *testing.T) {
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: acctest.ProviderFactories,
					TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
					Steps: []resource.TestStep{{
						Config:             provider + "\n" + string(pools),
						PlanOnly:           true,
						ExpectNonEmptyPlan: true,
					}},
				})
			})
		}
	}
	if found < 2 {
		t.Fatalf("only %d provider blocks found in docs/ (index.md's example at least, and the getting-started guide's)", found)
	}
}

// forTest is the docs' provider block with what a test must change (see above).
func forTest(block *hclwrite.Block, data string) string {
	b := block.Body()
	aws := b.FirstMatchingBlock("aws", nil)
	if aws == nil {
		aws = b.AppendNewBlock("aws", nil)
	}
	if aws.Body().GetAttribute("region") == nil {
		aws.Body().SetAttributeValue("region", cty.StringVal("us-east-1"))
	}
	aws.Body().SetAttributeValue("skip_credentials_validation", cty.True)
	for _, name := range []string{"endpoints", "assume_role"} {
		if old := aws.Body().FirstMatchingBlock(name, nil); old != nil {
			aws.Body().RemoveBlock(old)
		}
	}
	endpoints := aws.Body().AppendNewBlock("endpoints", nil).Body()
	endpoints.SetAttributeValue("eks", cty.StringVal("http://127.0.0.1:1"))
	endpoints.SetAttributeValue("ec2", cty.StringVal("http://127.0.0.1:1"))
	gcp := b.FirstMatchingBlock("gcp", nil)
	if gcp == nil {
		gcp = b.AppendNewBlock("gcp", nil)
	}
	if gcp.Body().GetAttribute("project") == nil {
		gcp.Body().SetAttributeValue("project", cty.StringVal("ml-platform"))
	}
	gcp.Body().SetAttributeValue("endpoint", cty.StringVal("127.0.0.1:1"))
	gcp.Body().SetAttributeValue("compute_endpoint", cty.StringVal("http://127.0.0.1:1/compute/v1/"))
	gcp.Body().SetAttributeValue("insecure", cty.True)
	policy := b.FirstMatchingBlock("policy", nil)
	if policy == nil {
		policy = b.AppendNewBlock("policy", nil)
	}
	policy.Body().SetAttributeValue("enforcement", cty.StringVal("warn"))
	policy.Body().SetAttributeValue("data_files", cty.ListVal([]cty.Value{cty.StringVal(data)}))
	policy.Body().RemoveAttribute("bundle_paths")
	return string(hclwrite.Format(block.BuildTokens(nil).Bytes()))
}
