package cloudsim

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
)

func computeService(t *testing.T, sim *Sim) *compute.Service {
	t.Helper()
	s, err := compute.NewService(context.Background(), sim.ComputeClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// getIGM reads the instance group manager behind an instance group URL, as the Google provider
// does for a node pool's current size.
func getIGM(t *testing.T, s *compute.Service, url string) (*compute.InstanceGroupManager, error) {
	t.Helper()
	m := splitName(strings.TrimPrefix(url, computeAPIBase))
	return s.InstanceGroupManagers.Get(m["projects"], m["locations"], m["instanceGroupManagers"]).Context(ctxT(t)).Do()
}

func wantTargetSizes(t *testing.T, s *compute.Service, pool *containerpb.NodePool, want int64) {
	t.Helper()
	for _, u := range pool.GetInstanceGroupUrls() {
		igm, err := getIGM(t, s, u)
		if err != nil {
			t.Fatalf("instanceGroupManagers.get %s: %v", u, err)
		}
		if igm.TargetSize != want {
			t.Errorf("%s targetSize = %d, want %d", igm.Name, igm.TargetSize, want)
		}
	}
}

func wantGoogleError(t *testing.T, err error, code int, reason string) {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != code || len(ge.Errors) != 1 || ge.Errors[0].Reason != reason {
		t.Fatalf("want googleapi.Error %d %s, got %#v", code, reason, err)
	}
}

// Compute Engine API Reference: instanceGroupManagers.get — a node pool's instance groups
// report its per-zone size as targetSize, after create, SetNodePoolSize and location changes;
// an unknown group is 404 notFound.
func TestCompute_InstanceGroupManagersGet_ReportsNodePoolSize(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c, cs := gkeClient(t, sim), computeService(t, sim)
	p := l4Pool("l4-two")
	p.Locations = []string{"us-central1-a", "us-central1-b"}
	pool := runningPool(t, c, p)
	if len(pool.GetInstanceGroupUrls()) != 2 {
		t.Fatalf("instance groups = %v", pool.GetInstanceGroupUrls())
	}
	wantTargetSizes(t, cs, pool, 1)
	u := pool.GetInstanceGroupUrls()[1]
	igm, err := getIGM(t, cs, u)
	if err != nil {
		t.Fatal(err)
	}
	name := u[strings.LastIndex(u, "/")+1:]
	if igm.Kind != "compute#instanceGroupManager" || igm.Name != name || igm.SelfLink != u ||
		igm.Zone != computeAPIBase+"projects/acme-ml/zones/us-central1-b" ||
		igm.InstanceGroup != computeAPIBase+"projects/acme-ml/zones/us-central1-b/instanceGroups/"+name ||
		igm.BaseInstanceName != strings.TrimSuffix(name, "-grp") || igm.Id == 0 || !igm.Status.IsStable {
		t.Fatalf("instance group manager = %+v", igm)
	}
	if reqs := sim.RequestsFor("compute", "instanceGroupManagers.get"); len(reqs) != 3 || reqs[2].Region != "us-central1-b" ||
		reqs[2].Params["instanceGroupManager"] != name || reqs[2].Error != "" {
		t.Fatalf("request log = %+v", reqs)
	}

	op, err := c.SetNodePoolSize(ctxT(t), &containerpb.SetNodePoolSizeRequest{Name: gkeParent + "/nodePools/l4-two", NodeCount: 3})
	if err != nil {
		t.Fatal(err)
	}
	waitOperation(t, c, op)
	wantTargetSizes(t, cs, pool, 3)
	if err := sim.ScaleNodePool("acme-ml", "us-central1", "ml", "l4-two", 2); err != nil {
		t.Fatal(err)
	}
	wantTargetSizes(t, cs, pool, 2)

	// A new zone gets its own instance group; the others stay.
	grown := updatePool(t, c, &containerpb.UpdateNodePoolRequest{Name: "l4-two", Locations: []string{"us-central1-a", "us-central1-b", "us-central1-c"}})
	if urls := grown.GetInstanceGroupUrls(); len(urls) != 3 || urls[0] != pool.GetInstanceGroupUrls()[0] || urls[1] != u ||
		!strings.Contains(urls[2], "/zones/us-central1-c/") || urls[2][len(urls[2])-12:] != u[len(u)-12:] {
		t.Fatalf("instance groups after adding a zone = %v", urls)
	}
	wantTargetSizes(t, cs, grown, 2)

	_, err = cs.InstanceGroupManagers.Get("acme-ml", "us-central1-a", "gke-ml-nope-grp").Context(ctxT(t)).Do()
	wantGoogleError(t, err, 404, "notFound")
	if !strings.Contains(err.Error(), "The resource 'projects/acme-ml/zones/us-central1-a/instanceGroupManagers/gke-ml-nope-grp' was not found") {
		t.Fatalf("error = %v", err)
	}
	resp, err := http.Get(sim.Endpoints().Compute + "projects/acme-ml/zones/us-central1-a/instances/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || len(sim.RequestsFor("compute", "UnknownOperation")) != 1 {
		t.Fatalf("unknown route = %d", resp.StatusCode)
	}
}

// GKE "Cluster autoscaler": sizes are what was asked for, even outside the autoscaling limits
// (the autoscaler moves them later): on create, on SetNodePoolSize and when limits or zones change.
// A regional pool of initial_node_count 1 over three zones has three nodes, whatever its maximum.
func TestCompute_TargetSize_AsRequested(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c, cs := gkeClient(t, sim), computeService(t, sim)
	p := l4Pool("l4-auto")
	p.Locations, p.InitialNodeCount = []string{"us-central1-a", "us-central1-b", "us-central1-c"}, 1
	p.Autoscaling = &containerpb.NodePoolAutoscaling{Enabled: true, TotalMinNodeCount: 1, TotalMaxNodeCount: 2}
	pool := runningPool(t, c, p)
	wantTargetSizes(t, cs, pool, 1) // 3 nodes over the pool's total maximum of 2
	op, err := c.SetNodePoolAutoscaling(ctxT(t), &containerpb.SetNodePoolAutoscalingRequest{Name: gkeParent + "/nodePools/l4-auto",
		Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, TotalMinNodeCount: 6, TotalMaxNodeCount: 9}})
	if err != nil {
		t.Fatal(err)
	}
	waitOperation(t, c, op)
	wantTargetSizes(t, cs, pool, 1)
	op, err = c.SetNodePoolSize(ctxT(t), &containerpb.SetNodePoolSizeRequest{Name: gkeParent + "/nodePools/l4-auto", NodeCount: 0})
	if err != nil {
		t.Fatal(err)
	}
	waitOperation(t, c, op)
	wantTargetSizes(t, cs, pool, 0)
}

// Faults apply to the Compute API as to the others: throttling is 429 rateLimitExceeded,
// unavailability 503 backendError, both recorded in the request log.
func TestCompute_Faults_ThrottleAndUnavailable(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c, cs := gkeClient(t, sim), computeService(t, sim)
	pool := runningPool(t, c, l4Pool("l4-od"))
	u := pool.GetInstanceGroupUrls()[0]
	for _, f := range []Fault{
		{Service: "compute", Operation: "instanceGroupManagers.get", Kind: Throttle, Count: 1},
		{Service: "compute", Kind: Unavailable, Count: 1, Match: "gke-ml-l4-od-*"},
	} {
		if _, err := sim.Inject(f); err != nil {
			t.Fatal(err)
		}
	}
	_, err := getIGM(t, cs, u)
	wantGoogleError(t, err, 429, "rateLimitExceeded")
	_, err = getIGM(t, cs, u)
	wantGoogleError(t, err, 503, "backendError")
	wantTargetSizes(t, cs, pool, 1)
	reqs := sim.RequestsFor("compute", "")
	if len(reqs) != 3 || reqs[0].Error != "rateLimitExceeded" || reqs[1].Error != "backendError" || reqs[2].Error != "" {
		t.Fatalf("request log = %+v", reqs)
	}
	if _, err := sim.Inject(Fault{Service: "compute", Kind: ServerError, Code: "internalError", Status: 500}); err != nil {
		t.Fatal(err)
	}
	_, err = getIGM(t, cs, u)
	wantGoogleError(t, err, 500, "internalError")
}
