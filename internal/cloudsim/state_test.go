package cloudsim

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// A restarted simulator on the same state file sees the same world: node groups, updates,
// launch templates, node pools and operations, including transitions still in progress.
func TestState_RestartFromStateFile_SameWorld(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	sim1 := newSim(t, func(o *Options) { o.StatePath = path })
	ec, e, g := eksClient(sim1, "us-east-1"), ec2Client(sim1, "us-east-1"), gkeClient(t, sim1)
	lt := createLaunchTemplate(t, e, "gpu-lt", gpuLaunchTemplateData())
	ng := activeNodegroup(t, ec, gpuNodegroup("gpu-od"))
	upd, err := ec.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od"),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{DesiredSize: aws.Int32(3)}})
	if err != nil {
		t.Fatal(err)
	}
	pool := runningPool(t, g, l4Pool("l4-od"))
	delOp := mustOp(t)(g.DeleteNodePool(ctxT(t), &containerpb.DeleteNodePoolRequest{Name: gkeParent + "/nodePools/l4-od"}))
	if err := sim1.Close(); err != nil {
		t.Fatal(err)
	}

	// No seed: the state file carries it.
	sim2, err := Start(Options{StatePath: path, TransitionDelay: testDelay})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim2.Close() })
	ec2c, e2, g2 := eksClient(sim2, "us-east-1"), ec2Client(sim2, "us-east-1"), gkeClient(t, sim2)
	if err := waitNodegroupActive(t, ec2c, "ml", "gpu-od"); err != nil {
		t.Fatal(err)
	}
	got := describeNodegroup(t, ec2c, "ml", "gpu-od")
	if *got.NodegroupArn != *ng.NodegroupArn || *got.ScalingConfig.DesiredSize != 3 {
		t.Fatalf("node group after restart = %+v", got)
	}
	du, err := ec2c.DescribeUpdate(ctxT(t), &eks.DescribeUpdateInput{Name: aws.String("ml"), UpdateId: upd.Update.Id, NodegroupName: aws.String("gpu-od")})
	if err != nil || du.Update.Status != ekstypes.UpdateStatusSuccessful {
		t.Fatalf("update after restart = %+v %v", du, err)
	}
	lts, err := e2.DescribeLaunchTemplateVersions(ctxT(t), &ec2.DescribeLaunchTemplateVersionsInput{LaunchTemplateId: lt.LaunchTemplateId})
	if err != nil || len(lts.LaunchTemplateVersions) != 1 || len(lts.LaunchTemplateVersions[0].LaunchTemplateData.TagSpecifications) != 2 {
		t.Fatalf("launch template after restart = %+v %v", lts, err)
	}
	op := waitOperation(t, g2, delOp)
	if op.GetOperationType() != containerpb.Operation_DELETE_NODE_POOL {
		t.Fatalf("operation after restart = %v", op)
	}
	if _, ok := sim2.NodePool("acme-ml", "us-central1", "ml", pool.GetName()); ok {
		t.Fatal("pool deletion did not complete after restart")
	}
	if ops := sim2.Operations("acme-ml"); len(ops) != 2 {
		t.Fatalf("operations after restart = %v", ops)
	}
}

// Transitions that fall due while the simulator is down are applied on the first access.
func TestState_TransitionDueDuringDowntime_AppliedOnRestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	sim1 := newSim(t, func(o *Options) { o.StatePath, o.TransitionDelay = path, 100*time.Millisecond })
	createNodegroup(t, eksClient(sim1, "us-east-1"), gpuNodegroup("gpu-od"))
	sim1.Close()
	time.Sleep(150 * time.Millisecond)
	sim2 := newSim(t, func(o *Options) { o.StatePath = path })
	if ng := describeNodegroup(t, eksClient(sim2, "us-east-1"), "ml", "gpu-od"); ng.Status != ekstypes.NodegroupStatusActive {
		t.Fatalf("status = %s", ng.Status)
	}
}

// The state file is rewritten after every mutating call, so a second process started while
// the first still runs sees its objects; read-only calls do not rewrite it.
func TestState_WrittenAfterEveryMutatingCall(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	sim := newSim(t, func(o *Options) { o.StatePath = path })
	lt := createLaunchTemplate(t, ec2Client(sim, "us-east-1"), "gpu-lt", &ec2types.RequestLaunchTemplateData{})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w world
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	if w.LaunchTemplates["us-east-1/"+*lt.LaunchTemplateId] == nil {
		t.Fatalf("state file lacks the launch template: %s", b)
	}
	before, _ := os.Stat(path)
	if _, err := ec2Client(sim, "us-east-1").DescribeLaunchTemplates(ctxT(t), &ec2.DescribeLaunchTemplatesInput{}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); !after.ModTime().Equal(before.ModTime()) {
		t.Error("a read-only call rewrote the state file")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// A corrupt state file fails Start instead of silently starting an empty world.
func TestState_CorruptFile_StartFails(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(Options{StatePath: path}); err == nil || !strings.Contains(err.Error(), "parse state") {
		t.Fatalf("want parse error, got %v", err)
	}
}
