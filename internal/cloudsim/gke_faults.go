package cloudsim

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
)

// GKE faults beyond the shared kinds (faults.go).
//
// AfterStart: a mutating call that GKE carries out, and whose answer the client never gets, as
// UNAVAILABLE (a dropped connection, a front end restarting) or DEADLINE_EXCEEDED do: the
// operation has started, and the client cannot tell that from a request that never arrived. A
// client that sends CreateNodePool again meets ALREADY_EXISTS for the node pool its first request
// is creating. terraform-provider-google retries node pool calls only on 400 failedPrecondition and
// 429 (retryWhileIncompatibleOperation, google/tpgresource/utils.go at e03b7622a2; audit N10 of
// ../shared/audits/gke-vs-real.md), so it never sends a create twice; gpufleet looks the node pool
// up by its ownership labels instead (internal/gke).
//
// AfterStart with Latency: the call reached GKE, which carries it out when the latency ends, after
// the caller gave up (its deadline passed, or it cancelled): the client gets DEADLINE_EXCEEDED or
// CANCELLED at once, and the operation and its node pool appear only later, so a look-up the client
// makes right after giving up finds nothing. Whether GKE stops a request whose deadline passes once
// it is running is not documented: gRPC propagates the deadline, and a server "can stop work once
// the deadline is exceeded" (grpc.io/docs/guides/deadlines), can, not must; a front end that has
// accepted a mutation may finish it. Latency without AfterStart is the other side (the request
// never reached the service, gke.go), so that clients are tested against both.
//
// CreateFailed and Degraded on SetNodePoolSize and SetNodePoolAutoscaling: a resize, or new limits
// that move the size, whose VMs GKE cannot get (a GPU stockout). Whether GKE then fails the
// SET_NODE_POOL_SIZE operation or ends it DONE with the node pool RUNNING_WITH_ERROR is not
// documented (audit N13, Part D Q10): CreateFailed is the first (the operation's error, the size
// unchanged, the node pool RUNNING_WITH_ERROR), Degraded the second (the new size taken, the node
// pool RUNNING_WITH_ERROR, the message in the operation's status_message), so that clients are
// tested against both. RUNNING_WITH_ERROR is "partially usable ... Customer may need to reissue a
// request or trigger a new update" (container v1 API, NodePool.Status).
//
// CreateFailed on DeleteNodePool: the DELETE_NODE_POOL operation fails and the node pool stays,
// RUNNING_WITH_ERROR, with its nodes.

// validateGKE checks what only GKE faults may carry.
func (f *Fault) validateGKE() error {
	if !f.AfterStart {
		return nil
	}
	if f.Service != "gke" {
		return fmt.Errorf("fault: after_start is implemented for gke only, not %q", f.Service)
	}
	switch f.Kind {
	case Throttle, ServerError, Unavailable, Latency:
		return nil
	}
	return fmt.Errorf("fault: after_start goes with an error kind (throttle, server_error, unavailable) or latency, not %q", f.Kind)
}

// serveThenFail runs the call and answers with the fault's error when the call itself succeeded
// (an error of its own is GKE's answer, as it would be).
func serveThenFail(ctx context.Context, req any, handler grpc.UnaryHandler, f *Fault) error {
	if _, err := handler(ctx, req); err != nil {
		return err
	}
	return gkeFaultError(f)
}
