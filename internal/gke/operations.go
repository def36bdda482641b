package gke

import (
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

// mutationRetry retries what GKE answers while another operation runs on the cluster (FAILED_
// PRECONDITION "incompatible operation"), when too many run at once or requests are throttled
// (RESOURCE_EXHAUSTED), and UNAVAILABLE, with gax's jittered exponential backoff until the
// context's deadline (the resource's timeout). ABORTED (an etag mismatch) is not: the request must
// be built again from a fresh read (updateSide).
func mutationRetry() gax.CallOption {
	return gax.WithRetry(func() gax.Retryer {
		return gax.OnCodes([]codes.Code{codes.FailedPrecondition, codes.ResourceExhausted, codes.Unavailable},
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

// clusterLocks serialises this provider process's mutations of one cluster: GKE runs one node
// pool operation per cluster at a time and rejects the others, so waiting here is cheaper than
// many rejected calls; operations started elsewhere are handled by mutationRetry.
var clusterLocks sync.Map // cluster name → *sync.Mutex

func lockCluster(c clusterRef) func() {
	mu, _ := clusterLocks.LoadOrStore(c.name(), &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	return mu.(*sync.Mutex).Unlock
}

// mutate starts one node pool operation under the cluster lock and waits for it to finish.
func mutate(ctx context.Context, conn *container.ClusterManagerClient, c clusterRef, poll time.Duration,
	start func(ctx context.Context, opts ...gax.CallOption) (*containerpb.Operation, error)) error {
	unlock := lockCluster(c)
	defer unlock()
	op, err := start(ctx, mutationRetry())
	if err != nil {
		return err
	}
	return waitOperation(ctx, conn, c, op, poll)
}

// waitOperation polls GetOperation until the operation is DONE or ctx ends (the resource's
// timeout), and reports a failed operation's google.rpc.Status error.
func waitOperation(ctx context.Context, conn *container.ClusterManagerClient, c clusterRef, op *containerpb.Operation, poll time.Duration) error {
	name := fmt.Sprintf("projects/%s/locations/%s/operations/%s", c.project, c.location, op.GetName())
	for op.GetStatus() != containerpb.Operation_DONE {
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out waiting for operation %s (%s, last status %s): %w", op.GetName(), op.GetOperationType(), op.GetStatus(), ctx.Err())
		case <-time.After(poll):
		}
		next, err := conn.GetOperation(ctx, &containerpb.GetOperationRequest{Name: name}, readRetry())
		if ctx.Err() != nil {
			return fmt.Errorf("timed out waiting for operation %s (%s, last status %s): %w", op.GetName(), op.GetOperationType(), op.GetStatus(), ctx.Err())
		}
		if err != nil {
			return fmt.Errorf("polling operation %s: %w", op.GetName(), err)
		}
		op = next
	}
	if e := op.GetError(); e != nil && e.GetCode() != 0 {
		return fmt.Errorf("operation %s (%s) failed: %s: %s", op.GetName(), op.GetOperationType(), codes.Code(e.GetCode()), e.GetMessage())
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

// findClusterZones returns the zones a node pool without node_locations gets: the cluster's.
func findClusterZones(ctx context.Context, conn *container.ClusterManagerClient, c clusterRef) ([]string, error) {
	cl, err := conn.GetCluster(ctx, &containerpb.GetClusterRequest{Name: c.name()}, readRetry())
	if err != nil {
		return nil, err
	}
	return cl.GetLocations(), nil
}

// currentSize is a node pool's current node count: the target sizes of its instance group
// managers, which the GKE API does not report itself.
func currentSize(ctx context.Context, conn *compute.Service, np *containerpb.NodePool) (int, error) {
	total := 0
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
		if err != nil {
			return 0, fmt.Errorf("reading instance group manager %s: %w", name, err)
		}
		total += int(igm.TargetSize)
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
