package eks_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// Real-AWS acceptance tests. They create real GPU node groups and cost money, so they run only when
// GPUFLEET_AWS_ACCEPTANCE=1 and the account's details are given (see README, "Real-cloud tests").
type awsTarget struct {
	region, cluster, roleARN, instanceType string
	subnets                                []string
}

func awsTargetFromEnv(t *testing.T) awsTarget {
	t.Helper()
	if os.Getenv("GPUFLEET_AWS_ACCEPTANCE") != "1" {
		t.Skip("real-AWS test: set GPUFLEET_AWS_ACCEPTANCE=1 and GPUFLEET_AWS_* (see README)")
	}
	target := awsTarget{
		region:       os.Getenv("GPUFLEET_AWS_REGION"),
		cluster:      os.Getenv("GPUFLEET_AWS_CLUSTER"),
		roleARN:      os.Getenv("GPUFLEET_AWS_NODE_ROLE_ARN"),
		instanceType: os.Getenv("GPUFLEET_AWS_INSTANCE_TYPE"),
	}
	if s := os.Getenv("GPUFLEET_AWS_SUBNET_IDS"); s != "" {
		target.subnets = strings.Split(s, ",")
	}
	if target.instanceType == "" {
		target.instanceType = "g6.xlarge"
	}
	if target.region == "" || target.cluster == "" || target.roleARN == "" || len(target.subnets) == 0 {
		t.Fatal("GPUFLEET_AWS_ACCEPTANCE=1 needs GPUFLEET_AWS_REGION, GPUFLEET_AWS_CLUSTER, GPUFLEET_AWS_NODE_ROLE_ARN and GPUFLEET_AWS_SUBNET_IDS")
	}
	if os.Getenv("AWS_ACCESS_KEY_ID") == "" && os.Getenv("AWS_PROFILE") == "" && os.Getenv("AWS_WEB_IDENTITY_TOKEN_FILE") == "" {
		t.Skip("real-AWS test: no AWS credentials in the environment")
	}
	return target
}

func (a awsTarget) config(pct, base, desired int) string {
	return fmt.Sprintf(`
provider "gpufleet" {
  default_tags = { ManagedBy = "gpufleet-acceptance" }
  aws {
    region = %q
  }
}

resource "gpufleet_eks_node_pool" "train" {
  cluster_name   = %q
  name           = "gpufleet-acc"
  client         = "acceptance"
  node_role_arn  = %q
  subnet_ids     = %s
  instance_types = [%q]
  workload {
    kind           = "training"
    environment    = "development"
    gpu_memory_gib = 16
    interruptible  = true
  }
  scaling {
    min_size     = 0
    desired_size = %d
    max_size     = 2
  }
  capacity {
    spot_percentage = %d
    on_demand_base  = %d
  }
}
`, a.region, a.cluster, a.roleARN, hclList(a.subnets), a.instanceType, desired, pct, base)
}

func hclList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = fmt.Sprintf("%q", strings.TrimSpace(s))
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

func TestAccEKSNodePoolAWS_basic(t *testing.T) {
	target := awsTargetFromEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps:                    acctest.RealCloudBasicSteps(addr, "node_groups", "ACTIVE", target.cluster+":gpufleet-acc", func(pct int) string { return target.config(pct, 0, 0) }),
	})
}

func TestAccEKSNodePoolAWS_spotMix(t *testing.T) {
	target := awsTargetFromEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps:                    acctest.RealCloudSpotMixSteps(addr, "node_groups", func(pct int) string { return target.config(pct, 0, 0) }),
	})
}
