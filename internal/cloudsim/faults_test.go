package cloudsim

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"google.golang.org/grpc/codes"
)

func inject(t *testing.T, sim *Sim, f Fault) string {
	t.Helper()
	id, err := sim.Inject(f)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func errorsOf(reqs []Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Error)
	}
	return out
}

// EKS API Reference: Common Errors — ThrottlingException (HTTP 429) is retried by the SDK's
// standard retryer; with fewer faults than attempts (3) the call succeeds.
func TestFaults_EKSThrottle429_RetriedToSuccessByStandardRetryer(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	inject(t, sim, Fault{Service: "eks", Operation: "DescribeCluster", Kind: Throttle, Count: 2})
	if _, err := eksClient(sim, "us-east-1").DescribeCluster(ctxT(t), &eks.DescribeClusterInput{Name: aws.String("ml")}); err != nil {
		t.Fatalf("throttled twice, then must succeed: %v", err)
	}
	got := errorsOf(sim.RequestsFor("eks", "DescribeCluster"))
	if len(got) != 3 || got[0] != "ThrottlingException" || got[1] != "ThrottlingException" || got[2] != "" {
		t.Fatalf("attempts = %q", got)
	}
	if len(sim.Faults()) != 0 {
		t.Fatalf("exhausted fault not removed: %+v", sim.Faults())
	}
}

// Exhausting the standard retryer's attempts surfaces the modeled ThrottlingException.
func TestFaults_EKSThrottle_ExhaustsRetries_ThrottlingException(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	inject(t, sim, Fault{Service: "eks", Operation: "CreateNodegroup", Kind: Throttle, Count: 5})
	_, err := eksClient(sim, "us-east-1").CreateNodegroup(ctxT(t), gpuNodegroup("gpu-od"))
	var te *ekstypes.ThrottlingException
	if !errors.As(err, &te) {
		t.Fatalf("want ThrottlingException, got %v", err)
	}
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusTooManyRequests {
		t.Fatalf("want 429, got %v", err)
	}
	if n := len(sim.RequestsFor("eks", "CreateNodegroup")); n != 3 {
		t.Fatalf("attempts = %d, want 3", n)
	}
	if len(sim.Nodegroups("", "")) != 0 {
		t.Fatal("a throttled call created a node group")
	}
}

// EKS 500 ServerException and 503 ServiceUnavailableException are retried (aws/retry
// DefaultRetryableHTTPStatusCodes); exhausted, they surface with their codes.
func TestFaults_EKSServerErrorAndUnavailable(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	inject(t, sim, Fault{Service: "eks", Operation: "ListClusters", Kind: ServerError, Count: 1})
	inject(t, sim, Fault{Service: "eks", Operation: "ListClusters", Kind: Unavailable, Count: 1})
	if _, err := c.ListClusters(ctxT(t), &eks.ListClustersInput{}); err != nil {
		t.Fatalf("500 then 503 then success expected: %v", err)
	}
	if got := errorsOf(sim.RequestsFor("eks", "ListClusters")); len(got) != 3 || got[0] != "ServerException" || got[1] != "ServiceUnavailableException" {
		t.Fatalf("attempts = %q", got)
	}
	inject(t, sim, Fault{Service: "eks", Operation: "ListClusters", Kind: Unavailable})
	_, err := c.ListClusters(ctxT(t), &eks.ListClustersInput{})
	var su *ekstypes.ServiceUnavailableException
	if !errors.As(err, &su) {
		t.Fatalf("want ServiceUnavailableException, got %v", err)
	}
}

// EC2 API Reference: Error codes — RequestLimitExceeded (HTTP 503) and Throttling (HTTP 400)
// are throttling errors the standard retryer retries; InternalError (500) too.
func TestFaults_EC2ThrottleAndServerError_Retried(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := ec2Client(sim, "us-east-1")
	inject(t, sim, Fault{Service: "ec2", Operation: "DescribeSubnets", Kind: Throttle, Count: 1})
	inject(t, sim, Fault{Service: "ec2", Operation: "DescribeSubnets", Kind: Throttle, Count: 1, Status: 400, Code: "Throttling", Message: "Rate exceeded"})
	if _, err := c.DescribeSubnets(ctxT(t), &ec2.DescribeSubnetsInput{}); err != nil {
		t.Fatalf("throttled twice, then must succeed: %v", err)
	}
	if got := errorsOf(sim.RequestsFor("ec2", "DescribeSubnets")); len(got) != 3 || got[0] != "RequestLimitExceeded" || got[1] != "Throttling" {
		t.Fatalf("attempts = %q", got)
	}
	inject(t, sim, Fault{Service: "ec2", Operation: "DescribeCapacityReservations", Kind: ServerError})
	_, err := c.DescribeCapacityReservations(ctxT(t), &ec2.DescribeCapacityReservationsInput{})
	wantAPIError(t, err, "InternalError", "")
	if n := len(sim.RequestsFor("ec2", "DescribeCapacityReservations")); n != 3 {
		t.Fatalf("attempts = %d, want 3", n)
	}
}

// The GKE client retries UNAVAILABLE on idempotent reads (its default call options for
// GetNodePool/GetCluster/...), but not on CreateNodePool.
func TestFaults_GKEUnavailable_RetriedOnReadsNotOnCreate(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	inject(t, sim, Fault{Service: "gke", Operation: "GetCluster", Kind: Unavailable, Count: 2})
	if _, err := c.GetCluster(ctxT(t), &containerpb.GetClusterRequest{Name: gkeParent}); err != nil {
		t.Fatalf("GetCluster must be retried: %v", err)
	}
	if got := errorsOf(sim.RequestsFor("gke", "GetCluster")); len(got) != 3 || got[0] != "UNAVAILABLE" {
		t.Fatalf("attempts = %q", got)
	}
	inject(t, sim, Fault{Service: "gke", Operation: "CreateNodePool", Kind: Unavailable, Count: 1})
	_, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: l4Pool("l4-od")})
	wantCode(t, err, codes.Unavailable, "")
	if len(sim.NodePools("acme-ml", "us-central1", "ml")) != 0 {
		t.Fatal("a failed call created a pool")
	}
}

// GKE throttling is RESOURCE_EXHAUSTED; ServerError is INTERNAL; Code overrides the gRPC code.
func TestFaults_GKEThrottleServerErrorAndCodeOverride(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	inject(t, sim, Fault{Service: "gke", Operation: "ListNodePools", Kind: Throttle, Count: 1})
	_, err := c.ListNodePools(ctxT(t), &containerpb.ListNodePoolsRequest{Parent: gkeParent})
	wantCode(t, err, codes.ResourceExhausted, "Quota exceeded")
	inject(t, sim, Fault{Service: "gke", Operation: "ListNodePools", Kind: ServerError, Count: 1})
	_, err = c.ListNodePools(ctxT(t), &containerpb.ListNodePoolsRequest{Parent: gkeParent})
	wantCode(t, err, codes.Internal, "")
	inject(t, sim, Fault{Service: "gke", Operation: "ListNodePools", Kind: ServerError, Count: 1, Code: "PERMISSION_DENIED", Message: "denied"})
	_, err = c.ListNodePools(ctxT(t), &containerpb.ListNodePoolsRequest{Parent: gkeParent})
	wantCode(t, err, codes.PermissionDenied, "denied")
}

// CreateFailed on EKS: the node group goes CREATING → CREATE_FAILED with the named health
// issues (EKS API Reference: NodegroupHealth, Issue); the SDK waiter reports the failure.
// Match limits the fault to one node group.
func TestFaults_EKSCreateFailed_CreateFailedWithHealthIssues(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	inject(t, sim, Fault{Service: "eks", Operation: "CreateNodegroup", Kind: CreateFailed, Match: "*-spot", HealthIssues: []HealthIssue{IssueSpotCapacity}})
	spot := gpuNodegroup("gpu-spot")
	spot.CapacityType = ekstypes.CapacityTypesSpot
	createNodegroup(t, c, spot)
	activeNodegroup(t, c, gpuNodegroup("gpu-od"))
	if err := waitNodegroupActive(t, c, "ml", "gpu-spot"); err == nil {
		t.Fatal("NodegroupActiveWaiter must fail on CREATE_FAILED")
	}
	ng := describeNodegroup(t, c, "ml", "gpu-spot")
	if ng.Status != ekstypes.NodegroupStatusCreateFailed || len(ng.Health.Issues) != 1 {
		t.Fatalf("node group = %+v", ng)
	}
	is := ng.Health.Issues[0]
	if is.Code != "AsgInstanceLaunchFailures" || aws.ToString(is.Message) != IssueSpotCapacity.Message ||
		len(is.ResourceIds) != 1 || is.ResourceIds[0] != *ng.Resources.AutoScalingGroups[0].Name {
		t.Fatalf("issue = %+v", is)
	}
	// A CREATE_FAILED node group can be deleted.
	if _, err := c.DeleteNodegroup(ctxT(t), &eks.DeleteNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-spot")}); err != nil {
		t.Fatal(err)
	}
}

// An EKS fault reports health issues EKS has: there is no Ec2InsufficientSpotCapacity.
func TestFaults_EKSHealthIssueCodes(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	_, err := sim.Inject(Fault{Service: "eks", Operation: "CreateNodegroup", Kind: CreateFailed, HealthIssues: []HealthIssue{{Code: "Ec2InsufficientSpotCapacity"}}})
	if err == nil || !strings.Contains(err.Error(), "no EKS node group health issue code") {
		t.Fatalf("want the code refused, got %v", err)
	}
	if _, err := sim.Inject(Fault{Service: "eks", Operation: "CreateNodegroup", Kind: CreateFailed, HealthIssues: []HealthIssue{IssueSpotCapacity}}); err != nil {
		t.Fatal(err)
	}
}

// CreateFailed on an EKS update: the Update ends Failed with errors, the configuration is not
// applied and the node group is DEGRADED with the health issues.
func TestFaults_EKSUpdateFailed_UpdateFailedNodegroupDegraded(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	activeNodegroup(t, c, gpuNodegroup("gpu-od"))
	inject(t, sim, Fault{Service: "eks", Operation: "UpdateNodegroupConfig", Kind: CreateFailed, HealthIssues: []HealthIssue{IssueInsufficientCapacity}})
	out, err := c.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od"),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{DesiredSize: aws.Int32(4)}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	var ng *ekstypes.Nodegroup
	for ng = describeNodegroup(t, c, "ml", "gpu-od"); ng.Status == ekstypes.NodegroupStatusUpdating && time.Now().Before(deadline); ng = describeNodegroup(t, c, "ml", "gpu-od") {
		time.Sleep(10 * time.Millisecond)
	}
	if ng.Status != ekstypes.NodegroupStatusDegraded || *ng.ScalingConfig.DesiredSize != 2 || len(ng.Health.Issues) != 1 {
		t.Fatalf("node group = %+v", ng)
	}
	du, err := c.DescribeUpdate(ctxT(t), &eks.DescribeUpdateInput{Name: aws.String("ml"), UpdateId: out.Update.Id, NodegroupName: aws.String("gpu-od")})
	if err != nil || du.Update.Status != ekstypes.UpdateStatusFailed || len(du.Update.Errors) != 1 || du.Update.Errors[0].ErrorCode != ekstypes.ErrorCodeNodeCreationFailure ||
		!strings.HasPrefix(aws.ToString(du.Update.Errors[0].ErrorMessage), "AsgInstanceLaunchFailures: ") {
		t.Fatalf("update = %+v %v", du, err)
	}
}

// CreateFailed on GKE: how the real API reports a failed node pool create — the operation is
// DONE with an error (google.rpc.Status RESOURCE_EXHAUSTED for a stockout) and the pool is in
// ERROR with a status message and a GCE_STOCKOUT condition.
func TestFaults_GKECreateFailed_PoolErrorOperationError(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	inject(t, sim, Fault{Service: "gke", Operation: "CreateNodePool", Kind: CreateFailed})
	op := waitOperation(t, c, createPool(t, c, l4Pool("l4-spot")))
	if op.GetError().GetCode() != int32(codes.ResourceExhausted) || op.GetError().GetMessage() != IssueGCEStockout.Message || op.GetStatusMessage() == "" {
		t.Fatalf("operation = %v", op)
	}
	p := getPool(t, c, "l4-spot")
	if p.GetStatus() != containerpb.NodePool_ERROR || p.GetStatusMessage() != IssueGCEStockout.Message || len(p.GetConditions()) != 1 ||
		p.GetConditions()[0].GetCode() != containerpb.StatusCondition_GCE_STOCKOUT { //nolint:staticcheck // deprecated code still set by GKE
		t.Fatalf("pool = %v", p)
	}
	// A pool in ERROR can be deleted.
	waitOperation(t, c, mustOp(t)(c.DeleteNodePool(ctxT(t), &containerpb.DeleteNodePoolRequest{Name: gkeParent + "/nodePools/l4-spot"})))
}

func mustOp(t *testing.T) func(*containerpb.Operation, error) *containerpb.Operation {
	return func(op *containerpb.Operation, err error) *containerpb.Operation {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return op
	}
}

// CreateFailed on a GKE update: the operation fails, the pool keeps its configuration and is
// RUNNING_WITH_ERROR.
func TestFaults_GKEUpdateFailed_RunningWithError(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	runningPool(t, c, l4Pool("l4-od"))
	inject(t, sim, Fault{Service: "gke", Operation: "UpdateNodePool", Kind: CreateFailed, HealthIssues: []HealthIssue{{Code: "GCE_QUOTA_EXCEEDED", Message: "Quota 'NVIDIA_L4_GPUS' exceeded."}}})
	op := waitOperation(t, c, mustOp(t)(c.UpdateNodePool(ctxT(t), &containerpb.UpdateNodePoolRequest{Name: gkeParent + "/nodePools/l4-od",
		Labels: &containerpb.NodeLabels{Labels: map[string]string{"new": "label"}}})))
	if op.GetError() == nil {
		t.Fatalf("operation = %v", op)
	}
	p := getPool(t, c, "l4-od")
	if p.GetStatus() != containerpb.NodePool_RUNNING_WITH_ERROR || p.GetConfig().GetLabels()["new"] != "" || p.GetStatusMessage() != "Quota 'NVIDIA_L4_GPUS' exceeded." {
		t.Fatalf("pool = %v", p)
	}
}

// Latency delays the call, then serves it.
func TestFaults_Latency_DelaysCalls(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	inject(t, sim, Fault{Service: "eks", Operation: "DescribeCluster", Kind: Latency, Latency: 150 * time.Millisecond, Count: 1})
	inject(t, sim, Fault{Service: "gke", Kind: Latency, Latency: 150 * time.Millisecond, Count: 1})
	start := time.Now()
	if _, err := eksClient(sim, "us-east-1").DescribeCluster(ctxT(t), &eks.DescribeClusterInput{Name: aws.String("ml")}); err != nil {
		t.Fatal(err)
	}
	if _, err := gkeClient(t, sim).GetCluster(ctxT(t), &containerpb.GetClusterRequest{Name: gkeParent}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("two delayed calls took %v", d)
	}
}

// Rate fires a fault with a probability: with retries disabled, about half of 60 calls fail.
func TestFaults_Rate_FiresWithProbability(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	inject(t, sim, Fault{Service: "eks", Operation: "ListClusters", Kind: ServerError, Rate: 0.5})
	c := eksClient(sim, "us-east-1", func(o *eks.Options) { o.RetryMaxAttempts = 1 })
	failed := 0
	for i := 0; i < 60; i++ {
		if _, err := c.ListClusters(ctxT(t), &eks.ListClustersInput{}); err != nil {
			failed++
		}
	}
	if failed < 10 || failed > 50 {
		t.Fatalf("%d of 60 calls failed at rate 0.5", failed)
	}
	if f := sim.Faults(); len(f) != 1 || f[0].Fired != failed {
		t.Fatalf("fired count = %+v, failed %d", f, failed)
	}
}

// Out-of-band changes on EKS: delete, scale, label, degrade.
func TestFaults_OutOfBand_EKS(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	activeNodegroup(t, c, gpuNodegroup("gpu-od"))
	activeNodegroup(t, c, gpuNodegroup("gpu-gone"))
	if err := sim.ScaleNodegroup("us-east-1", "ml", "gpu-od", 4); err != nil {
		t.Fatal(err)
	}
	if err := sim.SetNodegroupLabel("us-east-1", "ml", "gpu-od", "drift", "yes"); err != nil {
		t.Fatal(err)
	}
	ng := describeNodegroup(t, c, "ml", "gpu-od")
	if *ng.ScalingConfig.DesiredSize != 4 || ng.Labels["drift"] != "yes" {
		t.Fatalf("node group = %+v", ng)
	}
	if err := sim.ScaleNodegroup("us-east-1", "ml", "gpu-od", 9); err == nil {
		t.Fatal("scaling above maxSize must fail")
	}
	if err := sim.DegradeNodegroup("us-east-1", "ml", "gpu-od"); err != nil {
		t.Fatal(err)
	}
	if ng := describeNodegroup(t, c, "ml", "gpu-od"); ng.Status != ekstypes.NodegroupStatusDegraded || ng.Health.Issues[0].Code != "AsgInstanceLaunchFailures" {
		t.Fatalf("degraded = %+v", ng)
	}
	if err := sim.DeleteNodegroup("us-east-1", "ml", "gpu-gone"); err != nil {
		t.Fatal(err)
	}
	_, err := c.DescribeNodegroup(ctxT(t), &eks.DescribeNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-gone")})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	if err := sim.DeleteNodegroup("us-east-1", "ml", "gpu-gone"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("want ErrNotFound, got %v", err)
	}
	// The cluster deleted outside Terraform: DescribeCluster and its node groups answer not found.
	if err := sim.DeleteEKSCluster("us-east-1", "ml"); err != nil {
		t.Fatal(err)
	}
	_, err = c.DescribeCluster(ctxT(t), &eks.DescribeClusterInput{Name: aws.String("ml")})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	_, err = c.DescribeNodegroup(ctxT(t), &eks.DescribeNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od")})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	if err := sim.DeleteEKSCluster("us-east-1", "ml"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("want ErrNotFound, got %v", err)
	}
}

// Out-of-band changes on GKE: label, resize, delete.
func TestFaults_OutOfBand_GKE(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c := gkeClient(t, sim)
	runningPool(t, c, l4Pool("l4-od"))
	if err := sim.SetNodePoolLabel("acme-ml", "us-central1", "ml", "l4-od", "drift", "yes"); err != nil {
		t.Fatal(err)
	}
	if err := sim.ScaleNodePool("acme-ml", "us-central1", "ml", "l4-od", 5); err != nil {
		t.Fatal(err)
	}
	if p := getPool(t, c, "l4-od"); p.GetConfig().GetLabels()["drift"] != "yes" {
		t.Fatalf("labels = %v", p.GetConfig().GetLabels())
	}
	if n, _ := sim.NodePoolNodeCount("acme-ml", "us-central1", "ml", "l4-od"); n != 5 {
		t.Fatalf("node count = %d", n)
	}
	if err := sim.DeleteNodePool("acme-ml", "us-central1", "ml", "l4-od"); err != nil {
		t.Fatal(err)
	}
	_, err := c.GetNodePool(ctxT(t), &containerpb.GetNodePoolRequest{Name: gkeParent + "/nodePools/l4-od"})
	wantCode(t, err, codes.NotFound, "")
	runningPool(t, c, l4Pool("l4-spot"))
	if err := sim.DeleteGKECluster("acme-ml", "us-central1", "ml"); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetCluster(ctxT(t), &containerpb.GetClusterRequest{Name: gkeParent})
	wantCode(t, err, codes.NotFound, "")
	if _, ok := sim.NodePool("acme-ml", "us-central1", "ml", "l4-spot"); ok {
		t.Fatal("the node pool outlived its cluster")
	}
}

// Bad faults are rejected.
func TestFaults_InvalidFaultRejected(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	for _, f := range []Fault{
		{Service: "s3", Kind: Throttle},
		{Service: "eks", Kind: "explode"},
		{Service: "eks", Kind: Latency},
		{Service: "eks", Kind: Throttle, Rate: 2},
		{Service: "eks", Kind: Throttle, Match: "["},
	} {
		if _, err := sim.Inject(f); err == nil {
			t.Errorf("fault %+v accepted", f)
		}
	}
}
