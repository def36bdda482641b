package cloudsim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

func ctl(t *testing.T, sim *Sim, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxT(t), method, sim.Endpoints().Control+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// POST /faults injects a fault that the real SDK then meets; GET /faults shows it firing;
// DELETE /faults/{id} and DELETE /faults remove faults.
func TestControl_FaultsOverHTTP(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	code, body := ctl(t, sim, "POST", "/faults", `{"service":"eks","operation":"DescribeCluster","kind":"throttle","count":5}`)
	if code != http.StatusCreated {
		t.Fatalf("POST /faults = %d %s", code, body)
	}
	var created struct{ ID string }
	_ = json.Unmarshal(body, &created)
	c := eksClient(sim, "us-east-1")
	if _, err := c.DescribeCluster(ctxT(t), &eks.DescribeClusterInput{Name: aws.String("ml")}); apiErrorCode(err) != "ThrottlingException" {
		t.Fatalf("want ThrottlingException, got %v", err)
	}
	_, body = ctl(t, sim, "GET", "/faults", "")
	var faults []Fault
	if err := json.Unmarshal(body, &faults); err != nil || len(faults) != 1 || faults[0].Fired != 3 || faults[0].ID != created.ID {
		t.Fatalf("GET /faults = %s", body)
	}
	if code, _ := ctl(t, sim, "DELETE", "/faults/"+created.ID, ""); code != http.StatusNoContent {
		t.Fatalf("DELETE /faults/{id} = %d", code)
	}
	if _, err := c.DescribeCluster(ctxT(t), &eks.DescribeClusterInput{Name: aws.String("ml")}); err != nil {
		t.Fatal(err)
	}
	ctl(t, sim, "POST", "/faults", `{"service":"gke","kind":"latency","latency":"5ms"}`)
	if code, _ := ctl(t, sim, "DELETE", "/faults", ""); code != http.StatusNoContent || len(sim.Faults()) != 0 {
		t.Fatalf("DELETE /faults left %v", sim.Faults())
	}
	if code, body := ctl(t, sim, "POST", "/faults", `{"service":"eks","kind":"boom"}`); code != http.StatusBadRequest {
		t.Fatalf("bad fault = %d %s", code, body)
	}
	if code, _ := ctl(t, sim, "DELETE", "/faults/fault-99", ""); code != http.StatusNotFound {
		t.Fatalf("unknown fault = %d", code)
	}
}

// GET /requests returns the request log, filtered; DELETE /requests empties it.
func TestControl_RequestLogOverHTTP(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	createNodegroup(t, eksClient(sim, "us-east-1"), gpuNodegroup("gpu-od"))
	_, body := ctl(t, sim, "GET", "/requests?service=eks&operation=CreateNodegroup", "")
	var reqs []Request
	if err := json.Unmarshal(body, &reqs); err != nil || len(reqs) != 1 || reqs[0].Params["nodegroupName"] != "gpu-od" {
		t.Fatalf("GET /requests = %s", body)
	}
	ctl(t, sim, "DELETE", "/requests", "")
	if len(sim.Requests()) != 0 {
		t.Fatal("DELETE /requests kept entries")
	}
}

// POST /oob/... changes the world out of band, as the SDK then observes.
func TestControl_OutOfBandOverHTTP(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c, g := eksClient(sim, "us-east-1"), gkeClient(t, sim)
	activeNodegroup(t, c, gpuNodegroup("gpu-od"))
	runningPool(t, g, l4Pool("l4-od"))
	for _, call := range []struct{ path, body string }{
		{"/oob/eks/scale-nodegroup", `{"region":"us-east-1","cluster":"ml","nodegroup":"gpu-od","desired_size":3}`},
		{"/oob/eks/set-nodegroup-label", `{"region":"us-east-1","cluster":"ml","nodegroup":"gpu-od","key":"drift","value":"yes"}`},
		{"/oob/eks/degrade-nodegroup", `{"region":"us-east-1","cluster":"ml","nodegroup":"gpu-od","health_issues":[{"code":"InstanceLimitExceeded","message":"limit"}]}`},
		{"/oob/eks/publish-ami-release", `{"region":"us-east-1","version":"1.31","release":"1.31.9-20250801"}`},
		{"/oob/eks/upgrade-cluster", `{"region":"us-east-1","cluster":"ml","version":"1.32","release":"1.32.1-20250801"}`},
		{"/oob/ec2/end-capacity-block", `{"region":"us-east-1","reservation":"cr-0cb0cb0cb0cb00001"}`},
		{"/oob/gke/set-node-pool-label", `{"project":"acme-ml","location":"us-central1","cluster":"ml","node_pool":"l4-od","key":"drift","value":"yes"}`},
		{"/oob/gke/scale-node-pool", `{"project":"acme-ml","location":"us-central1","cluster":"ml","node_pool":"l4-od","node_count":2}`},
	} {
		if code, body := ctl(t, sim, "POST", call.path, call.body); code != http.StatusNoContent {
			t.Fatalf("%s = %d %s", call.path, code, body)
		}
	}
	ng := describeNodegroup(t, c, "ml", "gpu-od")
	if *ng.ScalingConfig.DesiredSize != 3 || ng.Labels["drift"] != "yes" || ng.Status != ekstypes.NodegroupStatusDegraded || ng.Health.Issues[0].Code != "InstanceLimitExceeded" {
		t.Fatalf("node group = %+v", ng)
	}
	if code, body := ctl(t, sim, "POST", "/oob/eks/recover-nodegroup", `{"region":"us-east-1","cluster":"ml","nodegroup":"gpu-od"}`); code != http.StatusNoContent {
		t.Fatalf("recover-nodegroup = %d %s", code, body)
	}
	if ng := describeNodegroup(t, c, "ml", "gpu-od"); ng.Status != ekstypes.NodegroupStatusActive {
		t.Fatalf("after recover-nodegroup: %s", ng.Status)
	}
	if p := getPool(t, g, "l4-od"); p.GetConfig().GetLabels()["drift"] != "yes" {
		t.Fatalf("pool labels = %v", p.GetConfig().GetLabels())
	}
	// GKE's own operations: a blue-green upgrade started and ended, an auto-repair, a bad phase.
	for _, call := range []struct{ path, body string }{
		{"/oob/gke/blue-green-phase", `{"project":"acme-ml","location":"us-central1","cluster":"ml","node_pool":"l4-od","phase":"CREATING_GREEN_POOL"}`},
		{"/oob/gke/blue-green-phase", `{"project":"acme-ml","location":"us-central1","cluster":"ml","node_pool":"l4-od","phase":"PHASE_UNSPECIFIED"}`},
		{"/oob/gke/auto-repair-node-pool", `{"project":"acme-ml","location":"us-central1","cluster":"ml","node_pool":"l4-od","duration":"1ms"}`},
	} {
		if code, body := ctl(t, sim, "POST", call.path, call.body); code != http.StatusNoContent {
			t.Fatalf("%s = %d %s", call.path, code, body)
		}
	}
	if code, _ := ctl(t, sim, "POST", "/oob/gke/blue-green-phase", `{"project":"acme-ml","location":"us-central1","cluster":"ml","node_pool":"l4-od","phase":"SOON"}`); code != http.StatusBadRequest {
		t.Fatalf("bad phase = %d", code)
	}
	if code, _ := ctl(t, sim, "POST", "/oob/gke/auto-upgrade-node-pool", `{"project":"acme-ml","location":"us-central1","cluster":"ml","node_pool":"l4-od","duration":"soon"}`); code != http.StatusBadRequest {
		t.Fatalf("bad duration = %d", code)
	}
	code, body := ctl(t, sim, "GET", "/state", "")
	var state struct {
		Nodegroups []Nodegroup
		NodePools  []json.RawMessage `json:"node_pools"`
	}
	if err := json.Unmarshal(body, &state); code != 200 || err != nil || len(state.Nodegroups) != 1 || len(state.NodePools) != 1 || !bytes.Contains(state.NodePools[0], []byte(`"l4-od"`)) {
		t.Fatalf("GET /state = %d %s", code, body)
	}
	for _, call := range []struct{ path, body string }{
		{"/oob/eks/delete-nodegroup", `{"region":"us-east-1","cluster":"ml","nodegroup":"gpu-od"}`},
		{"/oob/gke/delete-node-pool", `{"project":"acme-ml","location":"us-central1","cluster":"ml","node_pool":"l4-od"}`},
	} {
		if code, _ := ctl(t, sim, "POST", call.path, call.body); code != http.StatusNoContent {
			t.Fatalf("%s = %d", call.path, code)
		}
		if code, _ := ctl(t, sim, "POST", call.path, call.body); code != http.StatusNotFound {
			t.Fatalf("%s twice = %d, want 404", call.path, code)
		}
	}
	if _, err := g.GetNodePool(ctxT(t), &containerpb.GetNodePoolRequest{Name: gkeParent + "/nodePools/l4-od"}); err == nil {
		t.Fatal("pool still there")
	}
	if code, _ := ctl(t, sim, "POST", "/oob/eks/scale-nodegroup", `not json`); code != http.StatusBadRequest {
		t.Fatalf("bad body = %d", code)
	}
	if code, body := ctl(t, sim, "GET", "/endpoints", ""); code != 200 || !strings.Contains(string(body), sim.Endpoints().GKE) {
		t.Fatalf("GET /endpoints = %s", body)
	}
}
