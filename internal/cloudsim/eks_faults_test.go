package cloudsim

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// A Stuck fault keeps a node group CREATING, UPDATING or DELETING for its latency instead of the
// transition delay, for the matching node group only; then the operation ends as usual.
func TestEKS_StuckFault(t *testing.T) {
	t.Parallel()
	const stuck = 2 * time.Second // long beside testDelay: the checks within it run on a loaded machine too
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	if _, err := sim.Inject(Fault{Service: "eks", Kind: Stuck}); err == nil {
		t.Fatal("a stuck fault without latency was accepted")
	}
	for _, op := range []string{"CreateNodegroup", "UpdateNodegroupConfig", "DeleteNodegroup"} {
		if _, err := sim.Inject(Fault{Service: "eks", Operation: op, Kind: Stuck, Latency: stuck, Count: 1, Match: "*-spot"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"gpu-od", "gpu-spot"} {
		createNodegroup(t, c, gpuNodegroup(name))
	}
	settle := func(what string, want map[string]ekstypes.NodegroupStatus) {
		t.Helper()
		time.Sleep(4 * testDelay)
		for name, status := range want {
			if got := describeNodegroup(t, c, "ml", name).Status; got != status {
				t.Fatalf("%s: %s is %s, want %s", what, name, got, status)
			}
		}
		time.Sleep(stuck)
	}
	settle("create", map[string]ekstypes.NodegroupStatus{"gpu-od": ekstypes.NodegroupStatusActive, "gpu-spot": ekstypes.NodegroupStatusCreating})
	for _, name := range []string{"gpu-od", "gpu-spot"} {
		if _, err := c.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String(name),
			ScalingConfig: &ekstypes.NodegroupScalingConfig{DesiredSize: aws.Int32(3)}}); err != nil {
			t.Fatal(err)
		}
	}
	settle("update", map[string]ekstypes.NodegroupStatus{"gpu-od": ekstypes.NodegroupStatusActive, "gpu-spot": ekstypes.NodegroupStatusUpdating})
	if ng := describeNodegroup(t, c, "ml", "gpu-spot"); ng.Status != ekstypes.NodegroupStatusActive || aws.ToInt32(ng.ScalingConfig.DesiredSize) != 3 {
		t.Fatalf("after the stuck update: %s, desired %d", ng.Status, aws.ToInt32(ng.ScalingConfig.DesiredSize))
	}
	if _, err := c.DeleteNodegroup(ctxT(t), &eks.DeleteNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-spot")}); err != nil {
		t.Fatal(err)
	}
	settle("delete", map[string]ekstypes.NodegroupStatus{"gpu-spot": ekstypes.NodegroupStatusDeleting})
	if _, ok := sim.Nodegroup("us-east-1", "ml", "gpu-spot"); ok {
		t.Fatal("gpu-spot still exists after its stuck deletion")
	}
}

// A CreateFailed fault on DeleteNodegroup ends the deletion DELETE_FAILED with the fault's health
// issues (Ec2SecurityGroupDeletionFailure when it names none); the SDK's NodegroupDeleted waiter
// fails on it; another DeleteNodegroup deletes the node group.
func TestEKS_DeleteNodegroup_DeleteFailed(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	activeNodegroup(t, c, gpuNodegroup("gpu-od"))
	if _, err := sim.Inject(Fault{Service: "eks", Operation: "DeleteNodegroup", Kind: CreateFailed, Count: 1}); err != nil {
		t.Fatal(err)
	}
	in := &eks.DeleteNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od")}
	if _, err := c.DeleteNodegroup(ctxT(t), in); err != nil {
		t.Fatal(err)
	}
	describe := &eks.DescribeNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od")}
	waiter := eks.NewNodegroupDeletedWaiter(c, func(o *eks.NodegroupDeletedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	})
	if err := waiter.Wait(ctxT(t), describe, 5*time.Second); err == nil {
		t.Fatal("the NodegroupDeleted waiter succeeded on a failed deletion")
	}
	ng := describeNodegroup(t, c, "ml", "gpu-od")
	if ng.Status != ekstypes.NodegroupStatusDeleteFailed || len(ng.Health.Issues) != 1 || ng.Health.Issues[0].Code != "Ec2SecurityGroupDeletionFailure" {
		t.Fatalf("after the failed deletion: %s %+v", ng.Status, ng.Health)
	}
	_, err := c.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od"),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{DesiredSize: aws.Int32(3)}})
	wantAPIError(t, err, "ResourceInUseException", "DELETE_FAILED")
	if _, err := c.DeleteNodegroup(ctxT(t), in); err != nil {
		t.Fatal(err)
	}
	if err := waiter.Wait(ctxT(t), describe, 5*time.Second); err != nil {
		t.Fatalf("deleting again: %v", err)
	}
}
