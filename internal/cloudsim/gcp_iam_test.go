package cloudsim

import (
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
)

// A caller with a set of permissions is refused every GKE and Compute Engine call they do not
// authorise, with the permission named, before the call has any effect; node pool calls need
// container.clusters.update on the cluster, reads container.clusters.get (GKE "API permissions").
func TestGKE_IAM_RefusesWhatThePermissionsLack(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	c, cs := gkeClient(t, sim), computeService(t, sim)
	pool := runningPool(t, c, l4Pool("l4-od"))

	sim.SetGCPPermissions([]string{"container.clusters.get", "container.operations.get", "container.nodePools.create", "container.nodePools.update"})
	getPool(t, c, "l4-od")
	_, err := c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: l4Pool("l4-spot")})
	wantCode(t, err, codes.PermissionDenied, `Required "container.clusters.update" permission(s) for "projects/acme-ml/locations/us-central1/clusters/ml".`)
	_, err = c.SetNodePoolSize(ctxT(t), &containerpb.SetNodePoolSizeRequest{Name: gkeParent + "/nodePools/l4-od", NodeCount: 2})
	wantCode(t, err, codes.PermissionDenied, `Required "container.clusters.update" permission(s) for "projects/acme-ml/locations/us-central1/clusters/ml".`)
	if _, ok := sim.NodePool("acme-ml", "us-central1", "ml", "l4-spot"); ok {
		t.Fatal("a refused CreateNodePool made the node pool")
	}
	_, err = getIGM(t, cs, pool.GetInstanceGroupUrls()[0])
	wantGoogleError(t, err, 403, "forbidden")
	if err == nil || !strings.Contains(err.Error(), "Required 'compute.instanceGroupManagers.get' permission") {
		t.Fatalf("error = %v", err)
	}

	sim.SetGCPPermissions([]string{"container.clusters.get", "container.clusters.update", "container.operations.get"})
	_, err = c.CreateNodePool(ctxT(t), &containerpb.CreateNodePoolRequest{Parent: gkeParent, NodePool: l4Pool("l4-spot")})
	wantCode(t, err, codes.PermissionDenied, `The user does not have access to service account "default" (permission "iam.serviceAccounts.actAs" on it is required)`)

	sim.SetGCPPermissions(append([]string{"iam.serviceAccounts.actAs", "compute.instanceGroupManagers.get"}, "container.clusters.get", "container.clusters.update", "container.operations.get"))
	runningPool(t, c, l4Pool("l4-spot"))
	if _, err := getIGM(t, cs, pool.GetInstanceGroupUrls()[0]); err != nil {
		t.Fatal(err)
	}
	sim.SetGCPPermissions(nil)
	if _, err := c.ListNodePools(ctxT(t), &containerpb.ListNodePoolsRequest{Parent: gkeParent}); err != nil {
		t.Fatal(err)
	}
	denied := 0
	for _, r := range sim.Requests() {
		if r.Error == "PERMISSION_DENIED" || r.Error == "forbidden" {
			denied++
		}
	}
	if denied != 4 {
		t.Fatalf("%d refused calls in the request log, want 4", denied)
	}
}

// Every GKE method cloudsim serves has the permissions Google documents for it: one left out of
// gkePermissions would be allowed under any role.
func TestGKE_IAM_EveryServedMethodHasAPermission(t *testing.T) {
	t.Parallel()
	for op := range gkeOps {
		if len(gkePermissions[op]) == 0 {
			t.Errorf("%s: no permission in gkePermissions", op)
		}
	}
	for _, op := range []string{opIGMGet, opReservationGet} {
		if computePermissions[op] == "" {
			t.Errorf("%s: no permission in computePermissions", op)
		}
	}
}
