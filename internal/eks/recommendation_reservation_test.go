package eks_test

import (
	"fmt"
	"regexp"
	"testing"

	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// servingODCR is the team's On-Demand Capacity Reservation of five g6e.xlarge in us-east-1a.
const servingODCR = "cr-0123456789abcdef0"

// odcrSim is cloudsim with the team's ODCR of nodes g6e.xlarge in us-east-1a, all free.
func odcrSim(t *testing.T, nodes int) *cloudsim.Sim {
	return startSimWith(t, func(r *cloudsim.AWSRegionSeed) {
		r.CapacityReservations = append(r.CapacityReservations, cloudsim.CapacityReservationSeed{ID: servingODCR, InstanceType: "g6e.xlarge",
			AvailabilityZone: "us-east-1a", TotalInstanceCount: nodes, AvailableInstanceCount: nodes, InstanceMatchCriteria: "targeted"})
	})
}

// servingOnODCR is the recommendation for eight replicas of interruptible production serving with
// the team's ODCR of nodes g6e.xlarge (overflow: overflow_to_on_demand), and the pool serve
// configured from its aws answer as the right-sizing guide plugs it into gpufleet_eks_node_pool.
func servingOnODCR(sim *cloudsim.Sim, nodes int, overflow bool) string {
	return providerConfig(sim, "") + fmt.Sprintf(`
data "gpufleet_recommendation" "serve" {
  workload {
    kind           = "inference"
    environment    = "production"
    interruptible  = true
    gpu_memory_gib = 20
  }
  replicas = 8
  clouds   = ["aws"]
  regions  = [%[1]q]
  capacity {
    overflow_to_on_demand = %[4]t
    reservation {
      id        = %[2]q
      zone      = "us-east-1a"
      node_type = "g6e.xlarge"
      nodes     = %[3]d
    }
  }
}

locals {
  aws = data.gpufleet_recommendation.serve.aws
}
`, testRegion, servingODCR, nodes, overflow) + inZoneA(poolConfigAs("train", "serve", "[local.aws.node_type]", `
  workload {
    kind           = "inference"
    environment    = "production"
    interruptible  = true
    gpu_memory_gib = data.gpufleet_recommendation.serve.required_gpu_memory_gib
    replicas       = 8
  }
`+acctest.AnswerBlocks("aws", true, "id", "type", "hourly_price_usd")))
}

// Issue #40, item 7: eight replicas of interruptible production serving with the team's ODCR of five
// g6e.xlarge are answered on it (the five on-demand nodes reserved, three on spot), and the answer
// plugged into gpufleet_eks_node_pool (the reservation block from the answer) applies against
// cloudsim, whose node groups that target an ODCR fail their launches beyond its free instances
// (reservationLaunch): the on-demand node group is ACTIVE on the reservation, with no policy finding
// (the resource is at addr, the pool named serve).
func TestAccEKSNodePool_recommendationOnReservation(t *testing.T) {
	sim := odcrSim(t, 5)
	config := servingOnODCR(sim, 5, false)
	resource.Test(t, poolTest(t, sim, resource.TestStep{
		Config: config,
		ConfigStateChecks: append(nodeGroupCheck(0, "serve-od", "ON_DEMAND", 2, 5, 5),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(1).AtMapKey("capacity_type"), knownvalue.StringExact("SPOT"))),
		Check: checkNodegroup(t, sim, "serve-od", func(ng *ekstypes.Nodegroup) error {
			if ng.Health != nil && len(ng.Health.Issues) > 0 {
				return fmt.Errorf("health issues %+v", ng.Health.Issues)
			}
			data, err := clients(t, sim).launchTemplateData(ng)
			if err != nil {
				return err
			}
			return wantReservation(data, servingODCR, false)
		}),
	}))
}

// Issue #40, item 7: two replicas of 8-GPU production training with the test seed's capacity block
// of two p5.48xlarge (started a day ago) are answered on the block, and the answer plugged into
// gpufleet_eks_node_pool as the right-sizing guide says (min_size from the answer, no desired_size:
// EKS sizes a block's node group) applies: a CAPACITY_BLOCK node group targeting the block, priced
// at the block's price for both nodes, with no policy finding.
func TestAccEKSNodePool_recommendationOnCapacityBlock(t *testing.T) {
	sim := startSim(t)
	config := providerConfig(sim, "") + fmt.Sprintf(`
data "gpufleet_recommendation" "train" {
  workload {
    kind             = "training"
    environment      = "production"
    interruptible    = true
    gpu_memory_gib   = 70
    gpus_per_replica = 8
  }
  replicas = 2
  clouds   = ["aws"]
  regions  = [%[1]q]
  capacity {
    reservation {
      id               = %[2]q
      type             = "capacity-block"
      zone             = "us-east-1a"
      node_type        = "p5.48xlarge"
      nodes            = 2
      hourly_price_usd = 31.464
    }
  }
}

locals {
  aws = data.gpufleet_recommendation.train.aws
}
`, testRegion, blockID) + inZoneA(poolConfig("train", "[local.aws.node_type]", `
  workload {
    kind             = "training"
    environment      = "production"
    interruptible    = true
    gpu_memory_gib   = data.gpufleet_recommendation.train.required_gpu_memory_gib
    gpus_per_replica = local.aws.gpus_per_replica
    replicas         = 2
  }
`+acctest.AnswerBlocks("aws", false, "id", "type", "hourly_price_usd")))
	resource.Test(t, poolTest(t, sim, resource.TestStep{
		Config: config,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("capacity_type"), knownvalue.StringExact("CAPACITY_BLOCK")),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups"), knownvalue.ListSizeExact(1)),
			// The answer's hourly_usd is the pool's estimate: both nodes at the block's price.
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_usd"), knownvalue.Float64Exact(62.928)),
			statecheck.ExpectKnownValue("data.gpufleet_recommendation.train", tfjsonpath.New("aws").AtMapKey("hourly_usd"), knownvalue.Float64Exact(62.928)),
		},
		Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
			data, err := clients(t, sim).launchTemplateData(ng)
			if err != nil {
				return err
			}
			return wantReservation(data, blockID, true)
		}),
	}))
}

// Issue #40, item 7: the EKS node-pool path with a reservation smaller than the answer's on-demand
// side. Without overflow_to_on_demand (the default) the ODCR of three g6e.xlarge is not used: the
// answer (g6.2xlarge, no reservation) applies to gpufleet_eks_node_pool (applies_to names it) and
// applies against cloudsim with no policy finding. With overflow_to_on_demand the answer is for
// gpufleet_karpenter_node_pool only, and plugged into the node pool anyway its plan fails at
// max_size, before any change: the node group could never launch beyond the reservation.
func TestAccEKSNodePool_recommendationReservationTooSmall(t *testing.T) {
	sim := odcrSim(t, 3)
	config := func(overflow bool) string { return servingOnODCR(sim, 3, overflow) }
	data := "data.gpufleet_recommendation.serve"
	resource.Test(t, poolTest(t, sim, resource.TestStep{
		Config: config(false),
		ConfigStateChecks: append(nodeGroupCheck(0, "serve-od", "ON_DEMAND", 2, 5, 5),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy_findings"), knownvalue.ListSizeExact(0)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("instance_types"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("g6.2xlarge")})),
			statecheck.ExpectKnownValue(data, tfjsonpath.New("aws").AtMapKey("reservation").AtMapKey("id"), knownvalue.Null()),
			statecheck.ExpectKnownValue(data, tfjsonpath.New("aws").AtMapKey("applies_to"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.StringExact("gpufleet_eks_node_pool"), knownvalue.StringExact("gpufleet_karpenter_node_pool")}))),
	}, resource.TestStep{
		Config:      config(true),
		ExpectError: regexp.MustCompile(`More nodes than the reservation holds`),
	}))
}
