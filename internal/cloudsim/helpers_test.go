package cloudsim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/smithy-go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const (
	testDelay   = 50 * time.Millisecond
	exampleSeed = "../../examples/cloudsim/seed.json"
	roleARN     = "arn:aws:iam::123456789012:role/eks-node"
	gkeParent   = "projects/acme-ml/locations/us-central1/clusters/ml"
)

// observeTransitions lengthens the transition delay for tests that assert an intermediate
// status (UPDATING, PROVISIONING, ...) with a separate call, so a slow machine cannot skip it.
func observeTransitions(o *Options) { o.TransitionDelay = 500 * time.Millisecond }

// newSim starts a simulator on the example seed with a short transition delay.
func newSim(t *testing.T, mods ...func(*Options)) *Sim {
	t.Helper()
	seed, err := LoadSeed(exampleSeed)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Seed: seed, TransitionDelay: testDelay}
	for _, m := range mods {
		m(&opts)
	}
	sim, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sim.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return sim
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func eksClient(sim *Sim, region string, optFns ...func(*eks.Options)) *eks.Client {
	fns := append([]func(*eks.Options){func(o *eks.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().EKS) }}, optFns...)
	return eks.NewFromConfig(AWSConfig(region, 0), fns...)
}

func ec2Client(sim *Sim, region string, optFns ...func(*ec2.Options)) *ec2.Client {
	fns := append([]func(*ec2.Options){func(o *ec2.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().EC2) }}, optFns...)
	return ec2.NewFromConfig(AWSConfig(region, 0), fns...)
}

func gkeClient(t *testing.T, sim *Sim) *container.ClusterManagerClient {
	t.Helper()
	c, err := container.NewClusterManagerClient(context.Background(), sim.GKEClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// gpuNodegroup is a valid CreateNodegroup request for the seeded us-east-1 cluster.
func gpuNodegroup(name string) *eks.CreateNodegroupInput {
	return &eks.CreateNodegroupInput{
		ClusterName:   aws.String("ml"),
		NodegroupName: aws.String(name),
		NodeRole:      aws.String(roleARN),
		Subnets:       []string{"subnet-0a1a1a1a1a1a1a1a1", "subnet-0b1b1b1b1b1b1b1b1"},
		InstanceTypes: []string{"g5.xlarge"},
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(4), DesiredSize: aws.Int32(2)},
		Labels:        map[string]string{"gpufleet.io/client": "acme"},
		Taints:        []ekstypes.Taint{{Key: aws.String("nvidia.com/gpu"), Value: aws.String("present"), Effect: ekstypes.TaintEffectNoSchedule}},
		Tags:          map[string]string{"gpufleet:client": "acme"},
	}
}

func createNodegroup(t *testing.T, c *eks.Client, in *eks.CreateNodegroupInput) *ekstypes.Nodegroup {
	t.Helper()
	out, err := c.CreateNodegroup(ctxT(t), in)
	if err != nil {
		t.Fatalf("CreateNodegroup: %v", err)
	}
	return out.Nodegroup
}

// waitNodegroupActive uses the SDK's own waiter, with short delays.
func waitNodegroupActive(t *testing.T, c *eks.Client, cluster, name string) error {
	t.Helper()
	w := eks.NewNodegroupActiveWaiter(c, func(o *eks.NodegroupActiveWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	})
	return w.Wait(ctxT(t), &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)}, 10*time.Second)
}

// waitSettled describes a node group until it leaves CREATING and UPDATING.
func waitSettled(t *testing.T, c *eks.Client, cluster, name string) *ekstypes.Nodegroup {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ng := describeNodegroup(t, c, cluster, name)
		if (ng.Status != ekstypes.NodegroupStatusCreating && ng.Status != ekstypes.NodegroupStatusUpdating) || time.Now().After(deadline) {
			return ng
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func describeNodegroup(t *testing.T, c *eks.Client, cluster, name string) *ekstypes.Nodegroup {
	t.Helper()
	out, err := c.DescribeNodegroup(ctxT(t), &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeNodegroup: %v", err)
	}
	return out.Nodegroup
}

// activeNodegroup creates a node group and waits until it is ACTIVE.
func activeNodegroup(t *testing.T, c *eks.Client, in *eks.CreateNodegroupInput) *ekstypes.Nodegroup {
	t.Helper()
	createNodegroup(t, c, in)
	if err := waitNodegroupActive(t, c, *in.ClusterName, *in.NodegroupName); err != nil {
		t.Fatalf("waiting for ACTIVE: %v", err)
	}
	return describeNodegroup(t, c, *in.ClusterName, *in.NodegroupName)
}

// apiErrorCode returns the AWS error code of err ("" when it is not an API error).
func apiErrorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func wantAPIError(t *testing.T, err error, code, msgPart string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("want API error %s, got %v", code, err)
	}
	if ae.ErrorCode() != code {
		t.Fatalf("want error code %s, got %s: %s", code, ae.ErrorCode(), ae.ErrorMessage())
	}
	if !strings.Contains(ae.ErrorMessage(), msgPart) {
		t.Fatalf("error message %q does not contain %q", ae.ErrorMessage(), msgPart)
	}
}

func createLaunchTemplate(t *testing.T, c *ec2.Client, name string, data *ec2types.RequestLaunchTemplateData) *ec2types.LaunchTemplate {
	t.Helper()
	out, err := c.CreateLaunchTemplate(ctxT(t), &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String(name), LaunchTemplateData: data})
	if err != nil {
		t.Fatalf("CreateLaunchTemplate: %v", err)
	}
	return out.LaunchTemplate
}

// l4Pool is a valid node pool on the seeded us-central1 cluster.
func l4Pool(name string) *containerpb.NodePool {
	return &containerpb.NodePool{
		Name:             name,
		InitialNodeCount: 1,
		Locations:        []string{"us-central1-a"},
		Config: &containerpb.NodeConfig{
			MachineType: "g2-standard-8",
			Labels:      map[string]string{"gpufleet.io/client": "acme"},
			Taints:      []*containerpb.NodeTaint{{Key: "nvidia.com/gpu", Value: "present", Effect: containerpb.NodeTaint_NO_SCHEDULE}},
			Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-l4", AcceleratorCount: 1,
				GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: containerpb.GPUDriverInstallationConfig_LATEST.Enum()}}},
			ResourceLabels: map[string]string{"gpufleet-client": "acme"},
		},
	}
}

// waitOperation polls GetOperation until DONE, as GKE clients do.
func waitOperation(t *testing.T, c *container.ClusterManagerClient, op *containerpb.Operation) *containerpb.Operation {
	t.Helper()
	name := "projects/acme-ml/locations/" + op.GetLocation() + "/operations/" + op.GetName()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		got, err := c.GetOperation(ctxT(t), &containerpb.GetOperationRequest{Name: name})
		if err != nil {
			t.Fatalf("GetOperation: %v", err)
		}
		if got.GetStatus() == containerpb.Operation_DONE {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("operation %s not DONE in time", op.GetName())
	return nil
}

func createPool(t *testing.T, c *container.ClusterManagerClient, pool *containerpb.NodePool) *containerpb.Operation {
	t.Helper()
	op, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: pool})
	if err != nil {
		t.Fatalf("CreateNodePool: %v", err)
	}
	return op
}

func runningPool(t *testing.T, c *container.ClusterManagerClient, pool *containerpb.NodePool) *containerpb.NodePool {
	t.Helper()
	waitOperation(t, c, createPool(t, c, pool))
	return getPool(t, c, pool.GetName())
}

func getPool(t *testing.T, c *container.ClusterManagerClient, name string) *containerpb.NodePool {
	t.Helper()
	p, err := c.GetNodePool(ctxT(t), &containerpb.GetNodePoolRequest{Name: gkeParent + "/nodePools/" + name})
	if err != nil {
		t.Fatalf("GetNodePool: %v", err)
	}
	return p
}

func wantCode(t *testing.T, err error, code codes.Code, msgPart string) {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok || st.Code() != code {
		t.Fatalf("want gRPC %v, got %v", code, err)
	}
	if !strings.Contains(st.Message(), msgPart) {
		t.Fatalf("message %q does not contain %q", st.Message(), msgPart)
	}
}

func autoscalingClient(sim *Sim, region string) *autoscaling.Client {
	return autoscaling.NewFromConfig(AWSConfig(region, 0), func(o *autoscaling.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().AutoScaling) })
}
