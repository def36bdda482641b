package eks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// The fault matrix (issue #34): every mutating call gpufleet makes when it creates a pool, changes it
// (sizes, spot mix and side swap, labels and taints, tags, the launch template, the Kubernetes version, a pool on a
// reservation) and destroys it, broken in cloudsim the ways that call can break: refused (an IAM
// denial, which no retryer retries), failed later (CREATE_FAILED, an update Failed with the node
// group DEGRADED, DELETE_FAILED) or outlasting the timeout (stuck). Each row is named after the call
// it breaks, <call>/<change or side>/<how>. After the failed apply, every row asserts:
//
//   - the fault fired, and the apply failed, or succeeded with the warning it must give;
//   - no node group that ran before the apply was deleted or replaced, unless the change itself
//     deletes or replaces it;
//   - state, as terraform wrote it after the apply (the state file, before any refresh), holds what
//     cloudsim holds: each node group recorded with its ARN, status, sizes and launch template
//     version, no node group or launch template of the pool missing from it, the pool's tags those
//     of its first node group;
//   - the pool is tainted only where nothing of it runs (and then it is);
//   - the next plan is exactly the repair (the action, and which node groups keep their ARN and
//     which are replaced or created), and an apply without faults converges to an empty plan,
//     keeping what ran.
func TestAccEKSNodePool_faultMatrix(t *testing.T) {
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skipf("acceptance test: set %s=1", resource.EnvTfAcc) // before a simulator a row starts
	}
	// One set of credentials for every row, set here so that the rows can run in parallel.
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAGPUFLEETTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "gpufleet-test-secret")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	rows := faultMatrix()
	names := map[string]bool{}
	for _, row := range rows {
		if names[row.name] {
			t.Fatalf("two rows named %s", row.name)
		}
		names[row.name] = true
	}
	start := time.Now()
	var ran atomic.Int32
	t.Cleanup(func() {
		t.Logf("fault matrix: %d of %d rows in %s", ran.Load(), len(rows), time.Since(start).Round(time.Second))
	})
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			ran.Add(1)
			row.run(t)
		})
	}
}

// The README quotes how many rows the matrix has.
func TestFaultMatrix_rowsTheREADMEQuotes(t *testing.T) {
	acctest.ExpectREADMESays(t, fmt.Sprintf("`TestAccEKSNodePool_faultMatrix` (`make test`, %d rows)", len(faultMatrix())))
}

// matrixRow is one broken call.
type matrixRow struct {
	name string
	// before is the pool applied first, "" for a create; after the pool of the failing apply, ""
	// to destroy it.
	before, after string
	// prepare are faults of the first apply, which leaves the pool to repair.
	prepare []cloudsim.Fault
	// setup changes the cloud out of band before the failing apply (a cluster upgrade).
	setup func(*cloudsim.Sim) error
	// faults are injected before the failing apply, each to fire exactly once.
	faults func(*cloudsim.Sim) []cloudsim.Fault
	// err are parts of the apply's error; nil: the apply succeeds, with the warning warn.
	err, warn []string
	// tainted: the failed apply must leave the pool tainted (nothing of it runs).
	tainted bool
	// intended are the node groups the change itself deletes or replaces.
	intended []string
	// stuck: an operation outlasted the timeout; the repair runs once EKS has finished it.
	stuck bool
	// left checks what else the failed apply must leave (nil: nothing more to check).
	left   func(*cloudsim.Sim) error
	repair repairPlan
}

// repairPlan is what the plan after the failure must be: the pool's action, the node groups whose
// ARN it keeps (the cloud's) and those it creates or replaces (ARN unknown). order is the planned
// node groups' order when it is not train-od, train-spot (a pool of one side).
type repairPlan struct {
	action             plancheck.ResourceActionType
	keep, renew, order []string
}

const (
	od   = "train-od"
	spot = "train-spot"
	// matrixStuck is how long a stuck operation lasts, past matrixTimeout, the timeout of the rows
	// that break that way.
	matrixStuck   = 4 * time.Second
	matrixTimeout = "2s"
)

// Pools of the matrix. mix is the usual spot mix: base 1, 50 %, sizes 0/4/8: train-od 0/3/5 and
// train-spot 0/1/3.
func mix(extra string) string { return mixOf(4, 50, extra) }

func mixOf(desired, pct int, extra string) string {
	return poolConfig("train", `["g5.xlarge", "g5.2xlarge"]`, trainingWorkload+acctest.Scaling(0, desired, 8)+acctest.Capacity(pct, 1)+extra)
}

// swap is a pool whose every node is on one side: on demand (pct 0) or spot (pct 100), no
// on-demand base, so that a change of pct swaps one node group for the other.
func swap(pct int, extra string) string {
	return poolConfig("train", `["g5.xlarge", "g5.2xlarge"]`, trainingWorkload+acctest.Scaling(0, 4, 8)+acctest.Capacity(pct, 0)+extra)
}

// reserved is a pool on the test seed's on-demand capacity reservation: one node group, train-od.
// Moved to the capacity block (capacityBlockPool), it is replaced: another reservation.
func reserved(desired int, extra string) string { return reservedOn(odcrID, desired, extra) }

// reservedOn is reserved on another ODCR of the seed: moved there, the node group rolls onto it.
func reservedOn(id string, desired int, extra string) string {
	return inZoneA(poolConfig("train", `["p5.48xlarge"]`, trainingWorkload+acctest.Scaling(0, desired, 2)+fmt.Sprintf(`
  capacity {
    reservation {
      id   = %q
      type = "capacity-reservation"
    }
  }
`, id)+extra))
}

func timeouts(op string) string {
	return fmt.Sprintf("  timeouts {\n    %s = %q\n  }\n", op, matrixTimeout)
}

// A newer AMI release (publishRelease makes it exist): a roll, which also brings the launch
// template's tags up to date.
const newRelease = "  release_version = \"1.31.9-20250801\"\n"

func publishRelease(sim *cloudsim.Sim) error {
	return sim.PublishAMIRelease(testRegion, "1.31", "1.31.9-20250801")
}

// asgOf is the name pattern of a side's Auto Scaling group, for faults on the calls that name it.
func asgOf(side string) string { return "eks-" + side + "-*" }

// tagGroup tags a side's Auto Scaling group as an earlier tag change would have: Team = ml, for the
// instances it launches.
func tagGroup(side string) func(*cloudsim.Sim) error {
	return func(sim *cloudsim.Sim) error {
		g, ok := sim.AutoScalingGroupOf(testRegion, testCluster, side)
		if !ok {
			return fmt.Errorf("%s has no Auto Scaling group", side)
		}
		c := autoscaling.NewFromConfig(cloudsim.AWSConfig(testRegion, 0), func(o *autoscaling.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().AutoScaling) })
		_, err := c.CreateOrUpdateTags(context.Background(), &autoscaling.CreateOrUpdateTagsInput{Tags: []astypes.Tag{{
			ResourceId: aws.String(g.Name), ResourceType: aws.String("auto-scaling-group"), Key: aws.String("Team"), Value: aws.String("ml"), PropagateAtLaunch: aws.Bool(true)}}})
		return err
	}
}

const (
	costCenter = "  tags = { CostCenter = \"cc-42\" }\n"
	twoTags    = "  tags = { CostCenter = \"cc-42\", Team = \"ml\" }\n"
	labels     = "  labels = { team = \"ml\" }\n  taints = [{ key = \"team\", value = \"ml\", effect = \"NO_SCHEDULE\" }]\n"
)

// refused is an IAM denial of one call, as EKS (403 AccessDeniedException), EC2 (403
// UnauthorizedOperation) and EC2 Auto Scaling (403 AccessDenied) answer it: a client error no retryer
// retries.
func refused(service, op, match string) cloudsim.Fault {
	f := cloudsim.Fault{Service: service, Operation: op, Kind: cloudsim.ServerError, Count: 1, Match: match, Status: 403,
		Code: "AccessDeniedException", Message: "User: arn:aws:iam::123456789012:user/ci is not authorized to perform: eks:" + op}
	switch service {
	case "ec2":
		f.Code, f.Message = "UnauthorizedOperation", "You are not authorized to perform this operation. (ec2:"+op+")"
	case "autoscaling":
		f.Code, f.Message = "AccessDenied", "User: arn:aws:iam::123456789012:user/ci is not authorized to perform: autoscaling:"+op
	}
	return f
}

// failedLater lets the call succeed and fails what it started: CREATE_FAILED, an update Failed, or
// DELETE_FAILED.
func failedLater(op, match string, issue cloudsim.HealthIssue) cloudsim.Fault {
	return cloudsim.Fault{Service: "eks", Operation: op, Kind: cloudsim.CreateFailed, Count: 1, Match: match, HealthIssues: []cloudsim.HealthIssue{issue}}
}

// stuck keeps what the call started going for matrixStuck.
func stuck(op, match string) cloudsim.Fault {
	return cloudsim.Fault{Service: "eks", Operation: op, Kind: cloudsim.Stuck, Count: 1, Match: match, Latency: matrixStuck}
}

// ltOf is the id of a side's launch template, for faults on the calls that name it by id.
func ltOf(sim *cloudsim.Sim, side string) string {
	lt, _ := sim.LaunchTemplate(testRegion, "gpufleet."+testCluster+"."+side)
	return lt.ID
}

// arnMatch matches a node group's ARN, for faults on the calls that name it by ARN.
func arnMatch(side string) string {
	return "arn:aws:eks:*:*:nodegroup/" + testCluster + "/" + side + "/*"
}

func faults(f ...cloudsim.Fault) func(*cloudsim.Sim) []cloudsim.Fault {
	return func(*cloudsim.Sim) []cloudsim.Fault { return f }
}

var (
	issueASG      = cloudsim.HealthIssue{Code: "AutoScalingGroupInvalidConfiguration", Message: "The Auto Scaling group is misconfigured."}
	issueNodes    = cloudsim.HealthIssue{Code: "NodeCreationFailure", Message: "Instances failed to join the kubernetes cluster."}
	issueSGDelete = cloudsim.HealthIssue{Code: "Ec2SecurityGroupDeletionFailure", Message: "Could not delete the remote access security group."}
)

func faultMatrix() []matrixRow {
	update := func(keep ...string) repairPlan { return repairPlan{action: plancheck.ResourceActionUpdate, keep: keep} }
	updateRenew := func(keep, renew string) repairPlan {
		return repairPlan{action: plancheck.ResourceActionUpdate, keep: []string{keep}, renew: []string{renew}}
	}
	nothing := repairPlan{action: plancheck.ResourceActionNoop}
	sizes, tagged := mixOf(6, 50, ""), mix(costCenter)
	efaNet := "    efa                = true\n    placement_strategy = \"cluster\""
	noGroup := func(sim *cloudsim.Sim) error {
		if tags := placementGroupTags(sim, ownedPG); tags != nil {
			return fmt.Errorf("placement group %s left behind: %v", ownedPG, tags)
		}
		return nil
	}
	return []matrixRow{
		// Multi-node training (issue #40, item 8): the placement group comes first and goes again
		// when nothing of the pool comes to exist; an EFA change is a new template version.
		{name: "CreatePlacementGroup/efa/refused", after: efaPool(efaNet),
			faults: faults(refused("ec2", "CreatePlacementGroup", "")),
			err:    []string{"creating EKS node pool", "creating placement group " + ownedPG, "UnauthorizedOperation"}, left: noGroup,
			repair: repairPlan{action: plancheck.ResourceActionCreate, renew: []string{od}}},
		{name: "CreateNodegroup/efa/refused", after: efaPool(efaNet),
			faults: faults(refused("eks", "CreateNodegroup", od)),
			err:    []string{"creating EKS node group", od, "AccessDeniedException"}, left: noGroup,
			repair: repairPlan{action: plancheck.ResourceActionCreate, renew: []string{od}}},
		{name: "CreateLaunchTemplateVersion/efa-interfaces/refused", before: efaPool(efaNet), after: efaPool(efaNet + "\n    efa_interfaces     = 2"),
			faults: faults(refused("ec2", "CreateLaunchTemplateVersion", "")),
			err:    []string{"updating EKS node group", od, "UnauthorizedOperation"},
			repair: update(od)},
		// Create: two node groups, train-od first.
		{name: "CreateLaunchTemplate/od/refused", after: mix(""),
			faults: faults(refused("ec2", "CreateLaunchTemplate", "gpufleet.ml.train-od")),
			err:    []string{"creating EKS node group", od, "UnauthorizedOperation"},
			repair: repairPlan{action: plancheck.ResourceActionCreate, renew: []string{od, spot}}},
		{name: "CreateLaunchTemplate/spot/refused", after: mix(""),
			faults: faults(refused("ec2", "CreateLaunchTemplate", "gpufleet.ml.train-spot")),
			warn:   []string{spot, "not created", "UnauthorizedOperation", od, "next apply creates only " + spot},
			repair: updateRenew(od, spot)},
		{name: "CreateNodegroup/od/refused", after: mix(""),
			faults: faults(refused("eks", "CreateNodegroup", od)),
			err:    []string{"creating EKS node group", od, "AccessDeniedException"},
			repair: repairPlan{action: plancheck.ResourceActionCreate, renew: []string{od, spot}}},
		{name: "CreateNodegroup/spot/refused", after: mix(""),
			faults: faults(refused("eks", "CreateNodegroup", spot)),
			warn:   []string{spot, "not created", "AccessDeniedException", od, "next apply creates only " + spot},
			repair: updateRenew(od, spot)},
		{name: "DeleteLaunchTemplate/spot-cleanup/refused", after: mix(""),
			faults: faults(refused("eks", "CreateNodegroup", spot), refused("ec2", "DeleteLaunchTemplate", "")),
			warn:   []string{spot, "AccessDeniedException", "deleting its launch template", "UnauthorizedOperation", "next apply creates only " + spot},
			repair: updateRenew(od, spot)},
		{name: "CreateNodegroup/od/create-failed", after: mix(""),
			faults: faults(failedLater("CreateNodegroup", od, cloudsim.IssueInsufficientCapacity)),
			warn:   []string{od, "CREATE_FAILED", "AsgInstanceLaunchFailures", spot, "next apply replaces only " + od},
			repair: updateRenew(spot, od)},
		{name: "CreateNodegroup/spot/create-failed", after: mix(""),
			faults: faults(failedLater("CreateNodegroup", spot, cloudsim.IssueSpotCapacity)),
			warn:   []string{spot, "CREATE_FAILED", "AsgInstanceLaunchFailures", "no Spot capacity", od, "next apply replaces only " + spot},
			repair: updateRenew(od, spot)},
		{name: "CreateNodegroup/both/create-failed", after: mix(""),
			faults: faults(cloudsim.Fault{Service: "eks", Operation: "CreateNodegroup", Kind: cloudsim.CreateFailed, Count: 2, Match: "train-*",
				HealthIssues: []cloudsim.HealthIssue{cloudsim.IssueInsufficientCapacity}}),
			err: []string{od, "CREATE_FAILED", "AsgInstanceLaunchFailures"}, tainted: true,
			repair: repairPlan{action: plancheck.ResourceActionDestroyBeforeCreate}},
		{name: "CreateNodegroup/spot/timeout", after: mix(timeouts("create")), stuck: true,
			faults: faults(stuck("CreateNodegroup", spot)),
			warn:   []string{spot, "not ACTIVE yet", "CREATING", od, "replaces only " + spot},
			repair: nothing},
		{name: "CreateNodegroup/od/timeout", after: mix(timeouts("create")), stuck: true,
			faults: faults(stuck("CreateNodegroup", od)),
			warn:   []string{od, "not ACTIVE yet", "CREATING", spot, "replaces only " + od},
			repair: nothing},
		// Nothing runs yet when the create times out, but nothing failed either: a node group still
		// creating may run by the next apply, which a tainted pool would destroy (GKE audit N17b), so
		// the create warns and the pool is not tainted.
		{name: "CreateNodegroup/single/timeout", after: swap(0, timeouts("create")), stuck: true,
			faults: faults(stuck("CreateNodegroup", od)),
			warn:   []string{od, "not ACTIVE yet", "CREATING", "still creating", "does not taint", "replaces only " + od},
			repair: nothing},
		{name: "CreateNodegroup/both/timeout", after: mix(timeouts("create")), stuck: true,
			faults: faults(cloudsim.Fault{Service: "eks", Operation: "CreateNodegroup", Kind: cloudsim.Stuck, Count: 2, Match: "train-*", Latency: matrixStuck}),
			warn:   []string{od, "not ACTIVE yet", "CREATING", od + " and " + spot, "still creating", "does not taint"},
			repair: nothing},

		// Sizes: UpdateNodegroupConfig on each node group.
		{name: "UpdateNodegroupConfig/sizes/refused", before: mix(""), after: sizes,
			faults: faults(refused("eks", "UpdateNodegroupConfig", od)),
			err:    []string{"updating EKS node group", od, "AccessDeniedException"},
			repair: update(od, spot)},
		{name: "UpdateNodegroupConfig/sizes/failed-update", before: mix(""), after: sizes,
			faults: faults(failedLater("UpdateNodegroupConfig", spot, issueASG)),
			err:    []string{"updating EKS node group", spot, "Failed", "AutoScalingGroupInvalidConfiguration"},
			repair: update(od, spot)},
		{name: "UpdateNodegroupConfig/sizes/timeout", before: mix(""), after: mixOf(6, 50, timeouts("update")), stuck: true,
			faults: faults(stuck("UpdateNodegroupConfig", spot)),
			err:    []string{"updating EKS node group", spot, "(timed out|deadline exceeded)"},
			repair: nothing},

		// Labels and taints: UpdateNodegroupConfig.
		{name: "UpdateNodegroupConfig/labels-taints/refused", before: mix(""), after: mix(labels),
			faults: faults(refused("eks", "UpdateNodegroupConfig", spot)),
			err:    []string{"updating EKS node group", spot, "AccessDeniedException"},
			repair: update(od, spot)},
		{name: "UpdateNodegroupConfig/labels-taints/failed-update", before: mix(""), after: mix(labels),
			faults: faults(failedLater("UpdateNodegroupConfig", od, issueASG)),
			err:    []string{"updating EKS node group", od, "Failed"},
			repair: update(od, spot)},

		// Tags, which roll nothing: the launch template's own tags (CreateTags, DeleteTags), the
		// Auto Scaling group's (CreateOrUpdateTags, DeleteTags), the running instances' and volumes'
		// (CreateTags, DeleteTags), and last the node group's (TagResource, UntagResource).
		{name: "CreateTags/tags/refused", before: mix(""), after: tagged,
			faults: func(sim *cloudsim.Sim) []cloudsim.Fault {
				return []cloudsim.Fault{refused("ec2", "CreateTags", ltOf(sim, od))}
			},
			err:    []string{"updating EKS node group", od, "CreateTags", "UnauthorizedOperation"},
			repair: update(od, spot)},
		{name: "DeleteTags/tags/refused", before: mix(twoTags), after: tagged,
			faults: func(sim *cloudsim.Sim) []cloudsim.Fault {
				return []cloudsim.Fault{refused("ec2", "DeleteTags", ltOf(sim, spot))}
			},
			err:    []string{"updating EKS node group", spot, "DeleteTags", "UnauthorizedOperation"},
			repair: update(od, spot)},
		{name: "CreateOrUpdateTags/auto-scaling-group/refused", before: mix(""), after: tagged,
			faults: faults(refused("autoscaling", "CreateOrUpdateTags", asgOf(od))),
			err:    []string{"updating EKS node group", od, "autoscaling:CreateOrUpdateTags", "AccessDenied"},
			repair: update(od, spot)},
		{name: "DeleteTags/auto-scaling-group/refused", before: mix(twoTags), after: tagged, setup: tagGroup(spot),
			faults: faults(refused("autoscaling", "DeleteTags", asgOf(spot))),
			err:    []string{"updating EKS node group", spot, "autoscaling:DeleteTags", "AccessDenied"},
			repair: update(od, spot)},
		{name: "CreateTags/instances/refused", before: mix(""), after: tagged,
			faults: faults(refused("ec2", "CreateTags", "i-*")),
			err:    []string{"updating EKS node group", od, "tagging instances and volumes", "UnauthorizedOperation"},
			repair: update(od, spot)},
		{name: "DeleteTags/instances/refused", before: mix(twoTags), after: tagged,
			faults: faults(refused("ec2", "DeleteTags", "i-*")),
			err:    []string{"updating EKS node group", od, "removing tags from instances and volumes", "UnauthorizedOperation"},
			repair: update(od, spot)},
		{name: "TagResource/tags/refused", before: mix(""), after: tagged,
			faults: faults(refused("eks", "TagResource", arnMatch(spot))),
			err:    []string{"updating EKS node group", spot, "TagResource", "AccessDeniedException"},
			repair: update(od, spot)},
		{name: "UntagResource/tags/refused", before: mix(twoTags), after: tagged,
			faults: faults(refused("eks", "UntagResource", arnMatch(od))),
			err:    []string{"updating EKS node group", od, "UntagResource", "AccessDeniedException"},
			repair: update(od, spot)},

		// The launch template: a roll (a newer AMI release) with a tag change gets a new version of
		// it, with the pool's tags, and the node group rolls to it.
		{name: "CreateLaunchTemplateVersion/launch-template/refused", before: mix(""), after: mix(newRelease + costCenter), setup: publishRelease,
			faults: func(sim *cloudsim.Sim) []cloudsim.Fault {
				return []cloudsim.Fault{refused("ec2", "CreateLaunchTemplateVersion", ltOf(sim, spot))}
			},
			err:    []string{"updating EKS node group", spot, "UnauthorizedOperation"},
			repair: update(od, spot)},
		{name: "ModifyLaunchTemplate/launch-template/refused", before: mix(""), after: mix(newRelease + costCenter), setup: publishRelease,
			faults: func(sim *cloudsim.Sim) []cloudsim.Fault {
				return []cloudsim.Fault{refused("ec2", "ModifyLaunchTemplate", ltOf(sim, od))}
			},
			err:    []string{"updating EKS node group", od, "UnauthorizedOperation"},
			repair: update(od, spot)},
		{name: "UpdateNodegroupVersion/launch-template/refused", before: mix(""), after: mix(newRelease + costCenter), setup: publishRelease,
			faults: faults(refused("eks", "UpdateNodegroupVersion", spot)),
			err:    []string{"updating EKS node group", spot, "UpdateNodegroupVersion", "AccessDeniedException"},
			repair: update(od, spot)},
		{name: "UpdateNodegroupVersion/launch-template/failed-update", before: mix(""), after: mix(newRelease + costCenter), setup: publishRelease,
			faults: faults(failedLater("UpdateNodegroupVersion", od, issueNodes)),
			err:    []string{"updating EKS node group", od, "Failed", "NodeCreationFailure"},
			repair: update(od, spot)},
		{name: "UpdateNodegroupVersion/launch-template/timeout", before: mix(""), after: mix(newRelease + costCenter + timeouts("update")), setup: publishRelease, stuck: true,
			faults: faults(stuck("UpdateNodegroupVersion", spot)),
			err:    []string{"updating EKS node group", spot, "(timed out|deadline exceeded)"},
			repair: update(od, spot)}, // the node group's own tags follow once the roll is done

		// The Kubernetes version: UpdateNodegroupVersion after the cluster's upgrade.
		{name: "UpdateNodegroupVersion/version/refused", before: mix(`  kubernetes_version = "1.31"` + "\n"), after: mix(`  kubernetes_version = "1.32"` + "\n"),
			setup:  upgradeCluster,
			faults: faults(refused("eks", "UpdateNodegroupVersion", od)),
			err:    []string{"updating EKS node group", od, "AccessDeniedException"},
			repair: update(od, spot)},
		{name: "UpdateNodegroupVersion/version/failed-update", before: mix(`  kubernetes_version = "1.31"` + "\n"), after: mix(`  kubernetes_version = "1.32"` + "\n"),
			setup:  upgradeCluster,
			faults: faults(failedLater("UpdateNodegroupVersion", spot, issueNodes)),
			err:    []string{"updating EKS node group", spot, "Failed", "NodeCreationFailure"},
			repair: update(od, spot)},

		// The spot mix: a spot node group added (its launch template and node group created, the
		// on-demand one resized) or removed (deleted, with its launch template).
		{name: "UpdateNodegroupConfig/spot-mix/refused", before: mixOf(4, 0, ""), after: mix(""),
			faults: faults(refused("eks", "UpdateNodegroupConfig", od)),
			err:    []string{"updating EKS node group", od, "AccessDeniedException"},
			repair: update(od, spot)},
		{name: "CreateLaunchTemplate/spot-mix/refused", before: mixOf(4, 0, ""), after: mix(""),
			faults: faults(refused("ec2", "CreateLaunchTemplate", "gpufleet.ml.train-spot")),
			err:    []string{"creating EKS node group", spot, "UnauthorizedOperation"},
			repair: updateRenew(od, spot)},
		{name: "CreateNodegroup/spot-mix/refused", before: mixOf(4, 0, ""), after: mix(""),
			faults: faults(refused("eks", "CreateNodegroup", spot)),
			err:    []string{"creating EKS node group", spot, "AccessDeniedException"},
			repair: updateRenew(od, spot)},
		{name: "CreateNodegroup/spot-mix/create-failed", before: mixOf(4, 0, ""), after: mix(""),
			faults: faults(failedLater("CreateNodegroup", spot, cloudsim.IssueSpotCapacity)),
			err:    []string{spot, "CREATE_FAILED", "AsgInstanceLaunchFailures", "keeping EKS node group", od, "runs 4 nodes"},
			repair: updateRenew(od, spot)},
		// The other way: a spot-only pool given an on-demand base and share. The spot node group
		// keeps its nodes until the on-demand one runs.
		{name: "CreateNodegroup/spot-mix-on-demand/create-failed", before: swap(100, ""), after: mix(""),
			faults: faults(failedLater("CreateNodegroup", od, cloudsim.IssueInsufficientCapacity)),
			err:    []string{od, "CREATE_FAILED", "keeping EKS node group", spot, "runs 4 nodes"},
			repair: updateRenew(spot, od)},
		{name: "CreateNodegroup/spot-mix-on-demand/refused", before: swap(100, ""), after: mix(""),
			faults: faults(refused("eks", "CreateNodegroup", od)),
			err:    []string{"creating EKS node group", od, "AccessDeniedException", "keeping EKS node group", spot},
			repair: updateRenew(spot, od)},
		{name: "DeleteNodegroup/spot-mix/refused", before: mix(""), after: mixOf(4, 0, ""), intended: []string{spot},
			faults: faults(refused("eks", "DeleteNodegroup", spot)),
			err:    []string{"deleting EKS node groups", spot, "AccessDeniedException"},
			repair: update(od)},
		{name: "DeleteNodegroup/spot-mix/delete-failed", before: mix(""), after: mixOf(4, 0, ""), intended: []string{spot},
			faults: faults(failedLater("DeleteNodegroup", spot, issueSGDelete)),
			err:    []string{"deleting EKS node groups", spot, "DELETE_FAILED", "Ec2SecurityGroupDeletionFailure"},
			repair: update(od)},
		{name: "DeleteNodegroup/spot-mix/timeout", before: mix(""), after: mixOf(4, 0, timeouts("update")), intended: []string{spot}, stuck: true,
			faults: faults(stuck("DeleteNodegroup", spot)),
			err:    []string{"deleting EKS node groups", spot, "(timed out|deadline exceeded)"},
			repair: update(od)}, // the node group is gone by then; its launch template is not
		{name: "DeleteLaunchTemplate/spot-mix/refused", before: mix(""), after: mixOf(4, 0, ""), intended: []string{spot},
			faults: func(sim *cloudsim.Sim) []cloudsim.Fault {
				return []cloudsim.Fault{refused("ec2", "DeleteLaunchTemplate", ltOf(sim, spot))}
			},
			err:    []string{"deleting EKS node groups", spot, "UnauthorizedOperation"},
			repair: update(od)},

		// A side swap: the spot mix moves every node to the other capacity type, so one node group
		// replaces the other. The one that goes is deleted only once the one that replaces it is
		// ACTIVE (the GKE audit's N1, which the EKS pool had too): a spot stockout, a refusal or a
		// create that outlasts the apply leaves the running side where it is, and the next apply
		// deletes it once its replacement runs.
		{name: "CreateNodegroup/side-swap/create-failed", before: swap(0, ""), after: swap(100, ""),
			faults: faults(failedLater("CreateNodegroup", spot, cloudsim.IssueSpotCapacity)),
			err:    []string{spot, "CREATE_FAILED", "no Spot capacity", od + " kept", "not ACTIVE"},
			repair: repairPlan{action: plancheck.ResourceActionUpdate, renew: []string{spot}, order: []string{spot}}},
		{name: "CreateNodegroup/side-swap/refused", before: swap(0, ""), after: swap(100, ""),
			faults: faults(refused("eks", "CreateNodegroup", spot)),
			err:    []string{"creating EKS node group", spot, "AccessDeniedException", od + " kept"},
			repair: repairPlan{action: plancheck.ResourceActionUpdate, renew: []string{spot}, order: []string{spot}}},
		{name: "CreateNodegroup/side-swap/timeout", before: swap(0, ""), after: swap(100, timeouts("update")), stuck: true,
			faults: faults(stuck("CreateNodegroup", spot)),
			err:    []string{spot, "(timed out|deadline exceeded)", od + " kept"},
			repair: repairPlan{action: plancheck.ResourceActionUpdate, keep: []string{spot}, order: []string{spot}}},
		{name: "CreateNodegroup/side-swap-back/create-failed", before: swap(100, ""), after: swap(0, ""),
			faults: faults(failedLater("CreateNodegroup", od, cloudsim.IssueInsufficientCapacity)),
			err:    []string{od, "CREATE_FAILED", spot + " kept", "not ACTIVE"},
			repair: repairPlan{action: plancheck.ResourceActionUpdate, renew: []string{od}, order: []string{od}}},

		// The repair of a node group that failed to create: deleted (DeleteNodegroup), then created
		// again; the other node group stays.
		{name: "DeleteNodegroup/repair/refused", before: mix(""), after: mix(""),
			prepare: []cloudsim.Fault{failedLater("CreateNodegroup", spot, cloudsim.IssueSpotCapacity)},
			faults:  faults(refused("eks", "DeleteNodegroup", spot)),
			err:     []string{"replacing EKS node group", spot, "AccessDeniedException"},
			repair:  updateRenew(od, spot)},
		{name: "CreateNodegroup/repair/create-failed", before: mix(""), after: mix(""),
			prepare: []cloudsim.Fault{failedLater("CreateNodegroup", spot, cloudsim.IssueSpotCapacity)},
			faults:  faults(failedLater("CreateNodegroup", spot, cloudsim.IssueSpotCapacity)),
			err:     []string{spot, "CREATE_FAILED", "AsgInstanceLaunchFailures"},
			repair:  updateRenew(od, spot)},

		// A pool on a capacity reservation: its node group rolls with MINIMAL, and another
		// reservation replaces the pool.
		{name: "UpdateNodegroupConfig/reservation/refused", before: reserved(1, ""), after: reserved(2, ""),
			faults: faults(refused("eks", "UpdateNodegroupConfig", od)),
			err:    []string{"updating EKS node group", od, "AccessDeniedException"},
			repair: update(od)},
		{name: "UpdateNodegroupVersion/reservation/failed-update", before: reserved(1, ""), after: reserved(1, newRelease), setup: publishRelease,
			faults: faults(failedLater("UpdateNodegroupVersion", od, issueNodes)),
			err:    []string{"updating EKS node group", od, "Failed", "NodeCreationFailure"},
			repair: update(od)},
		// Another ODCR: a new launch template version that targets it, and a roll onto it.
		{name: "UpdateNodegroupVersion/reservation-moved/refused", before: reserved(1, ""), after: reservedOn(secondODCR, 1, ""),
			faults: faults(refused("eks", "UpdateNodegroupVersion", od)),
			err:    []string{"updating EKS node group", od, "UpdateNodegroupVersion", "AccessDeniedException"},
			repair: update(od)},
		{name: "DeleteNodegroup/reservation-replaced/refused", before: reserved(1, ""), after: capacityBlockPool(), intended: []string{od},
			faults: faults(refused("eks", "DeleteNodegroup", od)),
			err:    []string{"deleting EKS node pool", od, "AccessDeniedException"},
			repair: repairPlan{action: plancheck.ResourceActionDestroyBeforeCreate}},

		// Destroy: both node groups are deleted, then their launch templates.
		{name: "DeleteNodegroup/od/refused", before: mix(""), intended: []string{od, spot},
			faults: faults(refused("eks", "DeleteNodegroup", od)),
			err:    []string{"deleting EKS node pool", od, "AccessDeniedException"},
			repair: repairPlan{action: plancheck.ResourceActionDestroy}},
		{name: "DeleteNodegroup/spot/delete-failed", before: mix(""), intended: []string{od, spot},
			faults: faults(failedLater("DeleteNodegroup", spot, issueSGDelete)),
			err:    []string{"deleting EKS node pool", spot, "DELETE_FAILED", "Ec2SecurityGroupDeletionFailure"},
			repair: repairPlan{action: plancheck.ResourceActionDestroy}},
		{name: "DeleteNodegroup/spot/timeout", before: mix(timeouts("delete")), intended: []string{od, spot}, stuck: true,
			faults: faults(stuck("DeleteNodegroup", spot)),
			err:    []string{"deleting EKS node pool", spot, "(timed out|deadline exceeded)"},
			repair: repairPlan{action: plancheck.ResourceActionDestroy}}, // its launch template is left
		{name: "DeleteLaunchTemplate/od/refused", before: mix(""), intended: []string{od, spot},
			faults: func(sim *cloudsim.Sim) []cloudsim.Fault {
				return []cloudsim.Fault{refused("ec2", "DeleteLaunchTemplate", ltOf(sim, od))}
			},
			err:    []string{"deleting EKS node pool", od, "UnauthorizedOperation"},
			repair: repairPlan{action: plancheck.ResourceActionDestroy}},
		// Destroy of a multi-node training pool (issue #40, item 8): its node group and launch
		// template go, then the placement group it owns. Refused, the pool stays in state holding only
		// the group (no node group), and the next destroy deletes it.
		{name: "DeletePlacementGroup/efa/refused", before: efaPool(efaNet), intended: []string{od},
			faults: faults(refused("ec2", "DeletePlacementGroup", "")),
			err:    []string{"deleting placement group " + ownedPG, "UnauthorizedOperation"},
			left: func(sim *cloudsim.Sim) error {
				if tags := placementGroupTags(sim, ownedPG); tags == nil {
					return fmt.Errorf("placement group %s is gone, but its delete was refused", ownedPG)
				}
				return nil
			},
			repair: repairPlan{action: plancheck.ResourceActionDestroy}},
	}
}

func upgradeCluster(sim *cloudsim.Sim) error {
	return sim.UpgradeCluster(testRegion, testCluster, "1.32", "")
}

// run runs one row: the pool before (if any), the failing apply, the repair, then destroy.
func (row matrixRow) run(t *testing.T) {
	sim, err := cloudsim.Start(cloudsim.Options{Seed: testSeed(t), TransitionDelay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	var diags acctest.ApplyDiagnostics
	work := t.TempDir()
	config := func(pool string) string { return providerConfig(sim, "") + pool }
	ran := map[string]string{}     // running node groups before the failing apply: name → ARN
	ranDesired := map[string]int{} // their desired sizes
	kept := map[string]string{}    // node groups the repair keeps, as the failed apply left them (settled)
	var steps []resource.TestStep
	if row.before != "" {
		steps = append(steps, resource.TestStep{
			PreConfig: func() {
				for _, f := range row.prepare {
					if _, err := sim.Inject(f); err != nil {
						t.Fatal(err)
					}
				}
			},
			Config:             config(row.before),
			ExpectNonEmptyPlan: len(row.prepare) > 0,
			Check: func(*terraform.State) error {
				maps.Copy(ran, runningNodegroups(sim))
				maps.Copy(ranDesired, desiredSizes(sim))
				return nil
			},
		})
	}
	afterFailure := func() error {
		if left := sim.Faults(); len(left) > 0 {
			return fmt.Errorf("faults that never fired: the row proves nothing: %+v", left)
		}
		if row.err == nil {
			if err := diags.ExpectWarning(row.warn...); err != nil {
				return err
			}
		}
		st, err := readPoolState(work)
		if err != nil {
			return err
		}
		running := runningNodegroups(sim)
		var errs []error
		desired := desiredSizes(sim)
		for name, arn := range ran {
			if !slices.Contains(row.intended, name) && running[name] != arn {
				errs = append(errs, fmt.Errorf("%s ran as %s before the apply; now %q", name, arn, running[name]))
			}
			// A failed apply costs no running node: a side whose share was to move to a side that
			// failed keeps its size.
			if !slices.Contains(row.intended, name) && desired[name] < ranDesired[name] {
				errs = append(errs, fmt.Errorf("%s ran %d nodes before the failed apply; now %d", name, ranDesired[name], desired[name]))
			}
		}
		if st.exists && st.tainted != row.tainted {
			errs = append(errs, fmt.Errorf("tainted %t, want %t (node groups running: %v)", st.tainted, row.tainted, slices.Sorted(maps.Keys(running))))
		}
		if st.tainted && len(running) > 0 {
			errs = append(errs, fmt.Errorf("tainted while %v run", slices.Sorted(maps.Keys(running))))
		}
		errs = append(errs, st.matches(sim))
		if row.left != nil {
			errs = append(errs, row.left(sim))
		}
		return errors.Join(errs...)
	}
	failing := resource.TestStep{
		PreConfig: func() {
			if row.setup != nil {
				if err := row.setup(sim); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range row.faults(sim) {
				if _, err := sim.Inject(f); err != nil {
					t.Fatal(err)
				}
			}
			diags.Reset()
		},
		Config: config(row.after),
	}
	if row.err != nil {
		failing.ExpectError = acctest.ExpectErrorParts(row.err...)
	} else {
		failing.ExpectNonEmptyPlan = row.repair.action != plancheck.ResourceActionNoop
		failing.Check = func(*terraform.State) error { return afterFailure() }
	}
	repair := resource.TestStep{
		PreConfig: func() {
			if row.err != nil {
				if err := afterFailure(); err != nil {
					t.Fatalf("after the failed apply: %v", err)
				}
			}
			if row.stuck {
				waitSettled(t, sim)
			}
			// Once what outlasted the apply has ended: a side still creating then runs now.
			running := runningNodegroups(sim)
			for _, name := range row.repair.keep {
				if kept[name] = running[name]; kept[name] == "" {
					t.Fatalf("%s, which the repair keeps, does not run: %v", name, sim.Nodegroups(testRegion, testCluster))
				}
			}
			sim.ClearFaults()
		},
		Config: config(row.after),
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply:             row.repair.checks(sim),
			PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
		},
		Check: func(*terraform.State) error {
			var errs []error
			running := runningNodegroups(sim)
			for name, arn := range kept {
				if running[name] != arn {
					errs = append(errs, fmt.Errorf("the repair replaced %s (%s, now %q)", name, arn, running[name]))
				}
			}
			for _, ng := range sim.Nodegroups(testRegion, testCluster) {
				if ng.Status != "ACTIVE" {
					errs = append(errs, fmt.Errorf("after the repair %s is %s", ng.NodegroupName, ng.Status))
				}
			}
			st, err := readPoolState(work)
			if err != nil {
				return err
			}
			for _, ng := range st.attrs.NodeGroups {
				if ng.InSync == nil || !*ng.InSync {
					errs = append(errs, fmt.Errorf("after the repair %s is not in sync", ng.Name))
				}
			}
			return errors.Join(append(errs, st.matches(sim))...)
		},
	}
	steps = append(steps, failing, repair)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		WorkingDir:               work,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps:                    steps,
	})
}

// checks are the plan checks of the repair.
func (r repairPlan) checks(sim *cloudsim.Sim) []plancheck.PlanCheck {
	if r.action == plancheck.ResourceActionNoop {
		return []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	}
	out := []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, r.action)}
	order := r.order
	if order == nil {
		order = []string{od, spot}
	}
	at := func(name string) tfjsonpath.Path {
		return tfjsonpath.New("node_groups").AtSliceIndex(slices.Index(order, name)).AtMapKey("arn")
	}
	for _, name := range r.keep {
		out = append(out, plancheck.ExpectKnownValue(addr, at(name), knownvalue.StringFunc(func(v string) error {
			if ng, ok := sim.Nodegroup(testRegion, testCluster, name); !ok || v != ng.NodegroupArn {
				return fmt.Errorf("the plan gives %s the ARN %s, want the one it has", name, v)
			}
			return nil
		})))
	}
	for _, name := range r.renew {
		out = append(out, plancheck.ExpectUnknownValue(addr, at(name)))
	}
	return out
}

// runningNodegroups are the pool's node groups that run (ACTIVE, DEGRADED, or UPDATING), by name.
func runningNodegroups(sim *cloudsim.Sim) map[string]string {
	out := map[string]string{}
	for _, ng := range sim.Nodegroups(testRegion, testCluster) {
		if ng.Status == "ACTIVE" || ng.Status == "DEGRADED" || ng.Status == "UPDATING" {
			out[ng.NodegroupName] = ng.NodegroupArn
		}
	}
	return out
}

// desiredSizes are the desired sizes of the running node groups, by name.
func desiredSizes(sim *cloudsim.Sim) map[string]int {
	out, running := map[string]int{}, runningNodegroups(sim)
	for _, ng := range sim.Nodegroups(testRegion, testCluster) {
		if _, ok := running[ng.NodegroupName]; ok && ng.ScalingConfig != nil && ng.ScalingConfig.DesiredSize != nil {
			out[ng.NodegroupName] = int(*ng.ScalingConfig.DesiredSize)
		}
	}
	return out
}

// waitSettled waits until no node group is CREATING, UPDATING or DELETING any more.
func waitSettled(t *testing.T, sim *cloudsim.Sim) {
	t.Helper()
	deadline := time.Now().Add(3 * matrixStuck)
	for time.Now().Before(deadline) {
		busy := slices.ContainsFunc(sim.Nodegroups(testRegion, testCluster), func(ng cloudsim.Nodegroup) bool { return transitional(ng.Status) })
		if !busy {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("node groups still busy after %s: %+v", 3*matrixStuck, sim.Nodegroups(testRegion, testCluster))
}

func transitional(status string) bool {
	return status == "CREATING" || status == "UPDATING" || status == "DELETING"
}

// poolState is gpufleet_eks_node_pool.train as terraform's state file holds it.
type poolState struct {
	exists, tainted bool
	attrs           struct {
		EffectiveTags map[string]string `json:"effective_tags"`
		NodeGroups    []struct {
			Name                  string  `json:"name"`
			ARN                   *string `json:"arn"`
			CapacityType          string  `json:"capacity_type"`
			MinSize               int32   `json:"min_size"`
			MaxSize               int32   `json:"max_size"`
			DesiredSize           int32   `json:"desired_size"`
			Status                *string `json:"status"`
			LaunchTemplateID      *string `json:"launch_template_id"`
			LaunchTemplateVersion *string `json:"launch_template_version"`
			InSync                *bool   `json:"in_sync"`
		} `json:"node_groups"`
		Network *struct {
			PlacementGroup *string `json:"placement_group"`
		} `json:"network"`
	}
}

// readPoolState reads the state file of the test case working in work.
func readPoolState(work string) (poolState, error) {
	var st poolState
	files, _ := filepath.Glob(filepath.Join(work, "work*", "terraform.tfstate"))
	if len(files) != 1 {
		return st, fmt.Errorf("state files in %s: %v", work, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return st, err
	}
	var doc struct {
		Resources []struct {
			Mode, Type, Name string
			Instances        []struct {
				Status     string          `json:"status"`
				Attributes json.RawMessage `json:"attributes"`
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return st, fmt.Errorf("state file: %w", err)
	}
	for _, r := range doc.Resources {
		if r.Mode != "managed" || r.Type+"."+r.Name != addr || len(r.Instances) == 0 {
			continue
		}
		st.exists, st.tainted = true, r.Instances[0].Status == "tainted"
		if err := json.Unmarshal(r.Instances[0].Attributes, &st.attrs); err != nil {
			return st, fmt.Errorf("state of %s: %w", addr, err)
		}
	}
	return st, nil
}

// matches reports where state and the cloud disagree: a node group recorded otherwise than the cloud
// holds it, one recorded without an ARN that exists, a node group or launch template of the pool
// that state does not record, or pool tags other than its first node group's.
func (st poolState) matches(sim *cloudsim.Sim) error {
	cloud := map[string]cloudsim.Nodegroup{}
	for _, ng := range sim.Nodegroups(testRegion, testCluster) {
		cloud[ng.NodegroupName] = ng
	}
	var errs []error
	recordedLTs := map[string]bool{}
	recordedNGs := map[string]bool{}
	firstTags := map[string]string(nil)
	for _, e := range st.attrs.NodeGroups {
		ng, ok := cloud[e.Name]
		if e.LaunchTemplateID != nil {
			recordedLTs[*e.LaunchTemplateID] = true
			if _, ok := sim.LaunchTemplate(testRegion, *e.LaunchTemplateID); !ok {
				errs = append(errs, fmt.Errorf("state records launch template %s of %s, which does not exist", *e.LaunchTemplateID, e.Name))
			}
		}
		if e.ARN == nil {
			if ok {
				errs = append(errs, fmt.Errorf("state records %s without a node group, and the cloud holds %s", e.Name, ng.NodegroupArn))
			}
			continue
		}
		if !ok || ng.NodegroupArn != *e.ARN {
			errs = append(errs, fmt.Errorf("state records %s as %s, the cloud holds %q", e.Name, *e.ARN, ng.NodegroupArn))
			continue
		}
		recordedNGs[e.Name] = true
		if firstTags == nil {
			firstTags = ng.Tags
		}
		sc := ng.ScalingConfig
		if e.CapacityType != ng.CapacityType || e.MinSize != *sc.MinSize || e.MaxSize != *sc.MaxSize || e.DesiredSize != *sc.DesiredSize {
			errs = append(errs, fmt.Errorf("state records %s as %s %d/%d/%d, the cloud holds %s %d/%d/%d", e.Name,
				e.CapacityType, e.MinSize, e.DesiredSize, e.MaxSize, ng.CapacityType, *sc.MinSize, *sc.DesiredSize, *sc.MaxSize))
		}
		if status := deref(e.Status); status != ng.Status && !transitional(status) {
			errs = append(errs, fmt.Errorf("state records %s as %s, the cloud holds it %s", e.Name, status, ng.Status))
		}
		if e.LaunchTemplateID != nil && (ng.LaunchTemplate == nil || ng.LaunchTemplate.ID != *e.LaunchTemplateID || ng.LaunchTemplate.Version != deref(e.LaunchTemplateVersion)) {
			errs = append(errs, fmt.Errorf("state records %s on launch template %s version %s, the cloud on %+v", e.Name, *e.LaunchTemplateID, deref(e.LaunchTemplateVersion), ng.LaunchTemplate))
		}
	}
	for name, ng := range cloud {
		if !recordedNGs[name] {
			errs = append(errs, fmt.Errorf("the cloud holds %s (%s, %s), which state does not record", name, ng.NodegroupArn, ng.Status))
		}
	}
	for _, lt := range sim.LaunchTemplates(testRegion) {
		if !recordedLTs[lt.ID] {
			errs = append(errs, fmt.Errorf("the cloud holds launch template %s (%s), which state does not record", lt.Name, lt.ID))
		}
	}
	// The placement group the pool owns exists exactly while state records it (issue #40, item 8).
	recordedPG := st.exists && st.attrs.Network != nil && deref(st.attrs.Network.PlacementGroup) == ownedPG
	if inCloud := placementGroupTags(sim, ownedPG) != nil; inCloud != recordedPG {
		errs = append(errs, fmt.Errorf("placement group %s in the cloud: %t; recorded in state: %t", ownedPG, inCloud, recordedPG))
	}
	if firstTags != nil {
		want := maps.Clone(firstTags)
		maps.DeleteFunc(want, func(k, _ string) bool {
			return k == "gpufleet:owner" || k == "gpufleet:spot-mix" || strings.HasPrefix(k, "k8s.io/cluster-autoscaler/")
		})
		if !maps.Equal(want, st.attrs.EffectiveTags) {
			errs = append(errs, fmt.Errorf("state's effective_tags %v, the first node group's tags %v", st.attrs.EffectiveTags, want))
		}
	}
	return errors.Join(errs...)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
