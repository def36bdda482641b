package acctest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// HCL snippets of the shared pool blocks, as the pool resources' tests write them.

// Scaling is a scaling block with every size set.
func Scaling(minSize, desired, maxSize int) string {
	return fmt.Sprintf("  scaling {\n    min_size = %d\n    desired_size = %d\n    max_size = %d\n  }\n", minSize, desired, maxSize)
}

// Capacity is a capacity block with a spot mix.
func Capacity(pct, base int) string {
	return fmt.Sprintf("  capacity {\n    spot_percentage = %d\n    on_demand_base = %d\n  }\n", pct, base)
}

// ComputedMemoryNeed is a workload block whose memory need is a float64 computed by the provider
// (6.71 GiB for a 3B fp16 model): its binary value differs from the decimal one state's JSON holds,
// which Terraform takes as equal and so must the pool (no update on the next plan).
const ComputedMemoryNeed = `  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = provider::gpufleet::gpu_memory_required(3, "fp16", "inference")
  }
`

// EmptyCollections writes none as an empty map or set, which state must keep as written: the cloud
// cannot tell it from an absent argument.
const EmptyCollections = "  labels = {}\n  tags = {}\n  taints = []\n"

// EmptyTaintValue is a taint written with an empty value (Kubernetes' `dedicated:NoSchedule`) next to
// one without a value: state keeps each as written, so the next plan is empty.
const EmptyTaintValue = `  taints = [
    { key = "dedicated", value = "", effect = "NO_SCHEDULE" },
    { key = "batch-only", effect = "PREFER_NO_SCHEDULE" },
  ]
`

// EmptyBlockSpellings are the ways a configuration (a module's dynamic blocks above all) says
// "nothing here" with optional blocks written empty: each must plan no change after apply. The
// first spells the blocks empty at the top, the second one level down.
var EmptyBlockSpellings = []string{
	"  gpu {}\n  capacity {}\n",
	"  gpu {\n    mig {}\n    sharing {}\n  }\n  capacity {\n    reservation {}\n  }\n",
}

// SharedBlocks renders the cloud-neutral part of a pool spec: workload, scaling, capacity mix, GPU
// sharing and waivers.
func SharedBlocks(s pool.Spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  workload {\n    kind = %q\n    environment = %q\n    gpu_memory_gib = %g\n    interruptible = %t\n",
		s.Workload.Kind, s.Workload.Environment, s.Workload.GPUMemoryGiB, s.Workload.Interruptible)
	if w := s.Workload; w.Precision != "" {
		fmt.Fprintf(&b, "    precision = %q\n", w.Precision)
	}
	if w := s.Workload; w.GPUsPerReplica != 0 {
		fmt.Fprintf(&b, "    gpus_per_replica = %d\n", w.GPUsPerReplica)
	}
	if w := s.Workload; w.Replicas != 0 {
		fmt.Fprintf(&b, "    replicas = %d\n", w.Replicas)
	}
	b.WriteString("  }\n")
	b.WriteString(Scaling(s.Scaling.Min, s.Scaling.Desired, s.Scaling.Max))
	b.WriteString(Capacity(s.Capacity.SpotPercentage, s.Capacity.OnDemandBase))
	if sh := s.GPU.Sharing; sh != nil {
		fmt.Fprintf(&b, "  gpu {\n    sharing {\n      strategy = %q\n      replicas = %d\n    }\n  }\n", sh.Strategy, sh.Replicas)
	}
	for rule, reason := range s.Waivers {
		fmt.Fprintf(&b, "  policy_waivers = { %q = %q }\n", rule, reason)
	}
	return b.String()
}

// StateAttribute is one flatmap attribute of a resource in state ("labels.team").
func StateAttribute(s *terraform.State, addr, key string) string {
	return s.RootModule().Resources[addr].Primary.Attributes[key]
}

// FencedBlock is the first fenced code block of language lang (```lang) after marker in the file
// at path (a guide), for tests that run what a guide prints.
func FencedBlock(t testing.TB, path, marker, lang string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, found := strings.Cut(string(b), marker)
	_, block, opened := strings.Cut(rest, "```"+lang+"\n")
	code, _, closed := strings.Cut(block, "```")
	if !found || !opened || !closed {
		t.Fatalf("%s has no ```%s block after %q", path, lang, marker)
	}
	return code
}

// AnswerBlocks are a pool's scaling and capacity blocks taken from a gpufleet_recommendation answer
// in local.<answer>, as the right-sizing guide wires them (issue #40, item 7): min_size, max_size
// (and desired_size when desired) from the answer's sizes, the spot mix, and the reservation block's
// attributes (EKS and Karpenter: id, type, hourly_price_usd; GKE: type, name, project) from the
// answer's reservation, all null when it uses none.
func AnswerBlocks(answer string, desired bool, reservation ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  scaling {\n    min_size = local.%[1]s.min_size\n    max_size = local.%[1]s.node_count\n", answer)
	if desired {
		fmt.Fprintf(&b, "    desired_size = local.%s.node_count\n", answer)
	}
	fmt.Fprintf(&b, "  }\n  capacity {\n    spot_percentage = local.%[1]s.spot_percentage\n    on_demand_base  = local.%[1]s.on_demand_base\n    reservation {\n", answer)
	for _, a := range reservation {
		fmt.Fprintf(&b, "      %s = local.%s.reservation.%s\n", a, answer, a)
	}
	b.WriteString("    }\n  }\n")
	return b.String()
}

// MultiNodeTrainingAnswer is a gpufleet_recommendation "train" for 70B trained in full (1100 GiB)
// with replicas over 16 GPUs, two 8-GPU nodes (issue #40, item 8), on cloud ("aws" or "gcp") in
// region, and its answer in local.<cloud>; the pool's workload block for it is
// MultiNodeTrainingWorkload.
func MultiNodeTrainingAnswer(cloud, region string) string {
	return fmt.Sprintf(`
data "gpufleet_recommendation" "train" {
  workload {
    kind             = "training"
    environment      = "staging"
    interruptible    = true
    gpu_memory_gib   = 1100
    gpus_per_replica = 16
  }
  clouds  = [%[1]q]
  regions = [%[2]q]
}

locals {
  %[1]s = data.gpufleet_recommendation.train.%[1]s
}
`, cloud, region)
}

// MultiNodeTrainingWorkload is the workload block of a pool for MultiNodeTrainingAnswer's answer
// in local.<cloud>.
func MultiNodeTrainingWorkload(cloud string) string {
	return fmt.Sprintf(`
  workload {
    kind             = "training"
    environment      = "staging"
    interruptible    = true
    gpu_memory_gib   = data.gpufleet_recommendation.train.required_gpu_memory_gib
    gpus_per_replica = local.%s.gpus_per_replica
  }
`, cloud)
}
