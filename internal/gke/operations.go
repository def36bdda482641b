package gke

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/googleapis/gax-go/v2"
	compute "google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// errNotFound marks a cloud object that does not exist (any more).
var errNotFound = errors.New("not found")

func isNotFound(err error) bool {
	if errors.Is(err, errNotFound) || status.Code(err) == codes.NotFound {
		return true
	}
	var gerr *googleapi.Error
	return errors.As(err, &gerr) && gerr.Code == 404
}

// clusterRef names a cluster in the GKE API's resource-name form.
type clusterRef struct{ project, location, cluster string }

func (c clusterRef) name() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", c.project, c.location, c.cluster)
}

func (c clusterRef) poolName(pool string) string { return c.name() + "/nodePools/" + pool }

func (c clusterRef) String() string { return c.project + "/" + c.location + "/" + c.cluster }

// mutationRetry retries what GKE answers while another operation runs on the node pool (FAILED_
// PRECONDITION "Operation ... is currently upgrading ... Please wait and try again once it is
// done."), when too many run at once or requests are throttled
// (RESOURCE_EXHAUSTED), and UNAVAILABLE, with gax's jittered exponential backoff until the
// context's deadline (the resource's timeout). ABORTED (an etag mismatch) is not: the request must
// be built again from a fresh read (updateSide). An update, resize or delete sent again after an
// UNAVAILABLE that did start meets the running operation (FAILED_PRECONDITION, retried) and then
// finds its change made, or the node pool gone (success); CreateNodePool is different (createRetry).
func mutationRetry() gax.CallOption {
	return gax.WithRetry(func() gax.Retryer {
		return gax.OnCodes([]codes.Code{codes.FailedPrecondition, codes.ResourceExhausted, codes.Unavailable},
			gax.Backoff{Initial: 200 * time.Millisecond, Max: 30 * time.Second, Multiplier: 2})
	})
}

// createRetry retries CreateNodePool where GKE refused it before it started: FAILED_PRECONDITION
// (another operation runs) and RESOURCE_EXHAUSTED (throttled). UNAVAILABLE does not say whether
// the create started: createNodePool looks the node pool up before it sends the create again.
func createRetry() gax.CallOption {
	return gax.WithRetry(func() gax.Retryer {
		return gax.OnCodes([]codes.Code{codes.FailedPrecondition, codes.ResourceExhausted},
			gax.Backoff{Initial: 200 * time.Millisecond, Max: 30 * time.Second, Multiplier: 2})
	})
}

// readRetry retries reads on throttling and UNAVAILABLE.
func readRetry() gax.CallOption {
	return gax.WithRetry(func() gax.Retryer {
		return gax.OnCodes([]codes.Code{codes.ResourceExhausted, codes.Unavailable},
			gax.Backoff{Initial: 200 * time.Millisecond, Max: 10 * time.Second, Multiplier: 2})
	})
}

// computeRetry retries Compute Engine reads on throttling and server errors; the REST client does
// not retry by itself.
func computeRetry() gax.CallOption {
	return gax.WithRetry(func() gax.Retryer {
		return gax.OnHTTPCodes(gax.Backoff{Initial: 200 * time.Millisecond, Max: 10 * time.Second, Multiplier: 2},
			http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout)
	})
}

// poolLocks serialises this provider process's operations on one node pool, as
// terraform-provider-google's per-node-pool lock does (resource_container_node_pool.go). GKE runs
// operations on different node pools of a cluster side by side (concurrent node pool mutations,
// terraform-provider-google changelog 6748) and answers FAILED_PRECONDITION to a second operation
// on a node pool whose operation runs; operations started elsewhere (another terraform run, the
// console, GKE's own auto-upgrades and repairs) are handled by mutationRetry. A lock is a channel
// of one slot, so that waiting for it ends with the context (the resource's timeout, or Terraform
// cancelling the apply).
var poolLocks sync.Map // node pool resource name → chan struct{}

func lockPool(ctx context.Context, name string) (unlock func(), err error) {
	v, _ := poolLocks.LoadOrStore(name, make(chan struct{}, 1))
	slot := v.(chan struct{})
	select {
	case slot <- struct{}{}:
		return func() { <-slot }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for this provider's other operation on node pool %s: %w", name, ctx.Err())
	}
}

// mutate starts one operation on a node pool under the node pool's lock and waits for it to
// finish.
func mutate(ctx context.Context, conn *container.ClusterManagerClient, c clusterRef, pool string, poll time.Duration,
	start func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error)) error {
	unlock, err := lockPool(ctx, c.poolName(pool))
	if err != nil {
		return err
	}
	defer unlock()
	op, err := start(ctx, mutationRetry())
	if err != nil {
		return err
	}
	return waitOperation(ctx, conn, c, op, poll)
}

// waitOperation polls GetOperation until the operation is DONE or ctx ends (the resource's
// timeout), and reports a failed operation: its google.rpc.Status error, or, as
// terraform-provider-google judges GKE operations (container_operation.go), a DONE operation with a
// status_message (deprecated in the v1 API, still filled; a partial stockout can end so).
func waitOperation(ctx context.Context, conn *container.ClusterManagerClient, c clusterRef, op *containerpb.Operation, poll time.Duration) error {
	name := fmt.Sprintf("projects/%s/locations/%s/operations/%s", c.project, c.location, op.GetName())
	for op.GetStatus() != containerpb.Operation_DONE {
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out waiting for operation %s (%s, last status %s): %w", op.GetName(), op.GetOperationType(), op.GetStatus(), ctx.Err())
		case <-time.After(poll):
		}
		next, err := conn.GetOperation(ctx, &containerpb.GetOperationRequest{Name: name}, readRetry())
		// The caller's deadline, which gRPC sends with the call: the service may answer
		// DEADLINE_EXCEEDED a moment before the caller's own context ends.
		if ctx.Err() != nil || status.Code(err) == codes.DeadlineExceeded {
			return fmt.Errorf("timed out waiting for operation %s (%s, last status %s): %w", op.GetName(), op.GetOperationType(), op.GetStatus(), cmp.Or(ctx.Err(), err))
		}
		if err != nil {
			return fmt.Errorf("polling operation %s: %w", op.GetName(), err)
		}
		op = next
	}
	if e := op.GetError(); e != nil && e.GetCode() != 0 {
		return fmt.Errorf("operation %s (%s) failed: %s: %s", op.GetName(), op.GetOperationType(), codes.Code(e.GetCode()), e.GetMessage())
	}
	//nolint:staticcheck // status_message is deprecated, and GKE still reports failures in it alone.
	if msg := op.GetStatusMessage(); msg != "" {
		return fmt.Errorf("operation %s (%s) ended with: %s", op.GetName(), op.GetOperationType(), msg)
	}
	return nil
}

// poolHealth reports a node pool that an operation left ERROR or RUNNING_WITH_ERROR (a stockout in
// some of its zones, VMs Compute Engine refused): capacity is missing, which the user must see.
// terraform-provider-google fails a create on these statuses too (resource_container_node_pool.go).
func poolHealth(np *containerpb.NodePool) error {
	switch st := np.GetStatus(); st {
	case containerpb.NodePool_ERROR, containerpb.NodePool_RUNNING_WITH_ERROR:
		msg := np.GetStatusMessage() //nolint:staticcheck // still GKE's summary of what went wrong
		for _, c := range np.GetConditions() {
			if m := c.GetMessage(); m != "" && !strings.Contains(msg, m) {
				msg = strings.TrimPrefix(msg+"; "+m, "; ")
			}
		}
		return fmt.Errorf("node pool %s is %s: %s", np.GetName(), st, msg)
	}
	return nil
}

// findNodePool returns a node pool, or an error wrapping errNotFound.
func findNodePool(ctx context.Context, conn *container.ClusterManagerClient, c clusterRef, name string) (*containerpb.NodePool, error) {
	np, err := conn.GetNodePool(ctx, &containerpb.GetNodePoolRequest{Name: c.poolName(name)}, readRetry())
	if isNotFound(err) {
		return nil, fmt.Errorf("GKE node pool (%s/%s): %w", c, name, errNotFound)
	}
	return np, err
}

// cluster is what a pool's apply needs to know of its cluster.
type cluster struct {
	zones          []string          // the zones of a node pool without node_locations
	resourceLabels map[string]string // labels its nodes' VMs carry too
	// multiNetworking: the cluster takes node pools with additional node networks
	// (NetworkConfig.enable_multi_networking, on GKE Dataplane V2).
	multiNetworking bool
}

// findCluster reads the pool's cluster.
func findCluster(ctx context.Context, conn *container.ClusterManagerClient, c clusterRef) (cluster, error) {
	cl, err := conn.GetCluster(ctx, &containerpb.GetClusterRequest{Name: c.name()}, readRetry())
	if err != nil {
		return cluster{}, err
	}
	return cluster{zones: cl.GetLocations(), resourceLabels: cl.GetResourceLabels(), multiNetworking: cl.GetNetworkConfig().GetEnableMultiNetworking()}, nil
}

// currentSize is a node pool's current node count: the target sizes of its instance group
// managers, which the GKE API does not report itself. A group that is gone (its URL still listed
// for a moment, as after a blue-green upgrade or a zone's removal) is skipped, as
// terraform-provider-google does ("The IGM URL is stale; don't include it",
// resource_container_node_pool.go). During a blue-green upgrade the list holds the blue and the
// green groups ("During the node pool blue-green upgrade operation, the URLs contain both blue and
// green resources", container v1 API, NodePool.instance_group_urls): the pool's size is the larger
// of the two, never their sum.
func currentSize(ctx context.Context, conn *compute.Service, np *containerpb.NodePool) (int, error) {
	sizes := map[string]int{}
	for _, url := range np.GetInstanceGroupUrls() {
		project, zone, name, ok := parseInstanceGroupURL(url)
		if !ok {
			return 0, fmt.Errorf("unexpected instance group URL %q", url)
		}
		var igm *compute.InstanceGroupManager
		err := gax.Invoke(ctx, func(ctx context.Context, _ gax.CallSettings) error {
			var err error
			igm, err = conn.InstanceGroupManagers.Get(project, zone, name).Context(ctx).Do()
			return err
		}, computeRetry())
		switch {
		case isNotFound(err):
			continue
		case err != nil:
			return 0, fmt.Errorf("reading instance group manager %s: %w", name, err)
		}
		sizes[url] = int(igm.TargetSize)
	}
	sum := func(urls []string) int {
		n := 0
		for _, u := range urls {
			n += sizes[u]
			delete(sizes, u)
		}
		return n
	}
	total := 0
	if bg := np.GetUpdateInfo().GetBlueGreenInfo(); bg != nil {
		total = max(sum(bg.GetBlueInstanceGroupUrls()), sum(bg.GetGreenInstanceGroupUrls()))
	}
	for _, n := range sizes {
		total += n
	}
	return total, nil
}

// parseInstanceGroupURL reads .../projects/P/zones/Z/instanceGroupManagers/N.
func parseInstanceGroupURL(url string) (project, zone, name string, ok bool) {
	parts := strings.Split(url, "/")
	for i := 0; i+5 < len(parts); i++ {
		if parts[i] == "projects" && parts[i+2] == "zones" && parts[i+4] == "instanceGroupManagers" {
			return parts[i+1], parts[i+3], parts[i+5], true
		}
	}
	return "", "", "", false
}
