package provider_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// Published figures, through terraform (the formulas' own tests name the sources:
// internal/catalog/memory_test.go): 7B fp16 inference is 14 GB × 1.2 = 16.8 GB (Transformer Math
// 101); 7B full fine-tuning is 16 bytes/param = 112 GB (ZeRO); 65B QLoRA stays under 48 GB.
func TestAccGPUMemoryRequiredFunction_basic(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{{
			Config: `
output "inference" { value = provider::gpufleet::gpu_memory_required(7, "fp16", "inference") }
output "full" { value = provider::gpufleet::gpu_memory_required(7, "bf16", "training") }
output "full_explicit" { value = provider::gpufleet::gpu_memory_required(7, "bf16", "training", "full") }
output "lora" { value = provider::gpufleet::gpu_memory_required(7, "bf16", "training", "lora") }
output "qlora" { value = provider::gpufleet::gpu_memory_required(65, "int4", "training", "qlora") }
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("inference", knownvalue.Float64Exact(15.65)), // 16.8 GB
				statecheck.ExpectKnownOutputValue("full", knownvalue.Float64Exact(104.31)),     // 112 GB
				statecheck.ExpectKnownOutputValue("full_explicit", knownvalue.Float64Exact(104.31)),
				statecheck.ExpectKnownOutputValue("lora", knownvalue.Float64Exact(14.09)),  // 14 + 1.12 GB
				statecheck.ExpectKnownOutputValue("qlora", knownvalue.Float64Exact(40.92)), // 43.93 GB < 48 GB
			},
		}},
	})
}

func TestAccGPUMemoryRequiredFunction_badInput(t *testing.T) {
	testFunctionErrors(t, "gpu_memory_required", map[string]functionErrorCase{
		"zero parameters":    {`(0, "fp16", "inference")`, []string{"parameters_billion", "positive"}},
		"negative":           {`(-7, "fp16", "inference")`, []string{"parameters_billion", "positive"}},
		"unknown precision":  {`(7, "fp17", "inference")`, []string{"precision", `unknown precision "fp17"`, "nearest first: fp16"}},
		"unknown kind":       {`(7, "fp16", "serving")`, []string{"kind", `unknown kind "serving"`, "training, inference"}},
		"unknown method":     {`(7, "fp16", "training", "qlroa")`, []string{"method", `unknown training method "qlroa"`, "nearest first: qlora"}},
		"two methods":        {`(7, "fp16", "training", "lora", "qlora")`, []string{"method", "at most one"}},
		"qlora without int4": {`(7, "bf16", "training", "qlora")`, []string{"precision", `"int4"`}},
	})
}
