package cloudsim

import (
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
)

// Every call is recorded with its decoded parameters, so tests can assert what was sent.
func TestRequestLog_RecordsDecodedParameters(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	createNodegroup(t, eksClient(sim, "us-east-1"), gpuNodegroup("gpu-od"))
	e := ec2Client(sim, "us-east-1")
	if _, err := e.CreateLaunchTemplate(ctxT(t), &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String("gpu-lt"), LaunchTemplateData: gpuLaunchTemplateData()}); err != nil {
		t.Fatal(err)
	}
	createPool(t, gkeClient(t, sim), l4Pool("l4-od"))

	ng := sim.RequestsFor("eks", "CreateNodegroup")[0]
	sc, _ := ng.Params["scalingConfig"].(map[string]any)
	if ng.Params["clusterName"] != "ml" || ng.Params["nodegroupName"] != "gpu-od" || sc["maxSize"] != float64(4) || ng.Region != "us-east-1" || ng.Time.IsZero() {
		t.Errorf("eks params = %+v", ng)
	}
	lt := sim.RequestsFor("ec2", "CreateLaunchTemplate")[0]
	if treeString(lt.Params, "LaunchTemplateData.TagSpecification.1.Tag.1.Key") != "gpufleet:client" || treeString(lt.Params, "LaunchTemplateName") != "gpu-lt" {
		t.Errorf("ec2 params = %+v", lt.Params)
	}
	np := sim.RequestsFor("gke", "CreateNodePool")[0]
	pool, _ := np.Params["nodePool"].(map[string]any)
	cfg, _ := pool["config"].(map[string]any)
	if np.Params["parent"] != gkeParent || cfg["machineType"] != "g2-standard-8" || np.Region != "us-central1" {
		t.Errorf("gke params = %+v", np.Params)
	}
	if n := len(sim.Requests()); n != 3 {
		t.Errorf("requests = %d, want 3", n)
	}
	sim.ResetRequests()
	if len(sim.Requests()) != 0 {
		t.Error("ResetRequests kept entries")
	}
}

// Input the SDK rejects client-side never reaches the cloud: the log stays empty.
func TestRequestLog_BadInputProducesNoCall(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	if _, err := eksClient(sim, "us-east-1").CreateNodegroup(ctxT(t), &eks.CreateNodegroupInput{ClusterName: aws.String("ml")}); err == nil {
		t.Fatal("missing required members accepted")
	}
	if _, err := gkeClient(t, sim).GetNodePool(ctxT(t), &containerpb.GetNodePoolRequest{Name: "not-a-name"}); err == nil {
		t.Fatal("bad name accepted")
	}
	if got := sim.RequestsFor("eks", ""); len(got) != 0 {
		t.Fatalf("eks requests = %+v", got)
	}
	if got := sim.RequestsFor("gke", "GetNodePool"); len(got) != 1 || got[0].Error != "INVALID_ARGUMENT" {
		t.Fatalf("a call that reached the server is logged with its error: %+v", got)
	}
}
