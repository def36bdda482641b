package eks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// errNotFound marks a cloud object that does not exist (any more).
var errNotFound = errors.New("not found")

func isNotFound(err error) bool {
	if errors.Is(err, errNotFound) {
		return true
	}
	var rnf *types.ResourceNotFoundException
	if errors.As(err, &rnf) {
		return true
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode() {
		case "InvalidLaunchTemplateId.NotFound", "InvalidLaunchTemplateName.NotFoundException", "InvalidLaunchTemplateId.VersionNotFound", "InvalidPlacementGroup.Unknown":
			return true
		}
	}
	return false
}

// apiErrorCode is the AWS error code of err, "" when it is not an API error.
func apiErrorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

// isAccessDenied reports an IAM denial, as EKS (AccessDeniedException), EC2 (UnauthorizedOperation)
// and EC2 Auto Scaling (AccessDenied) answer one.
func isAccessDenied(err error) bool {
	switch apiErrorCode(err) {
	case "AccessDeniedException", "UnauthorizedOperation", "AccessDenied":
		return true
	}
	return false
}

func isAlreadyExists(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "InvalidLaunchTemplateName.AlreadyExistsException"
}

// findNodegroup returns the node group, or an error wrapping errNotFound.
func findNodegroup(ctx context.Context, conn *eks.Client, cluster, name string) (*types.Nodegroup, error) {
	out, err := conn.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)})
	if isNotFound(err) {
		return nil, fmt.Errorf("EKS node group (%s/%s): %w", cluster, name, errNotFound)
	}
	if err != nil {
		return nil, err
	}
	if out.Nodegroup == nil {
		return nil, fmt.Errorf("EKS node group (%s/%s): %w", cluster, name, errNotFound)
	}
	return out.Nodegroup, nil
}

// answerMayBeLost reports whether a call that failed with err may have taken effect all the same:
// its context ended (the timeout, an interrupt: terraform-plugin-go cancels the RPC's context) or
// its connection failed before the whole answer came, or the service failed (5xx) after it may have
// accepted the call. An answer with a 4xx status is a refusal, after which nothing was made, and
// so is throttling, which EC2 answers with 503 RequestLimitExceeded (aws/retry
// DefaultThrottleErrorCodes). A refusal after an earlier attempt of the same call that may have
// taken effect (attempts.wrap) may have been preceded by the effect.
func answerMayBeLost(err error) bool {
	if earlier := (*earlierAttemptError)(nil); errors.As(err, &earlier) {
		return true
	}
	if _, throttled := retry.DefaultThrottleErrorCodes[apiErrorCode(err)]; throttled {
		return false
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.Response != nil && re.Response.Response != nil {
		status := re.HTTPStatusCode()
		return status < 400 || status >= 500
	}
	return true
}

// attempts follows one create call through the SDK's retries: its error is the last attempt's
// alone, and an earlier attempt may have taken effect (a 500 after EC2 made the group, a dropped
// connection) before a later one was refused (throttled until the attempts ran out).
type attempts struct{ mayHaveWorked bool }

// record is an APIOptions entry that notes each attempt's outcome, inside the SDK's retry loop
// (after the Finalize step's "Retry" middleware, which runs the rest of the stack once per attempt).
func (a *attempts) record(stack *middleware.Stack) error {
	return stack.Finalize.Insert(middleware.FinalizeMiddlewareFunc("gpufleetAttempts",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleFinalize(ctx, in)
			if err == nil || answerMayBeLost(err) {
				a.mayHaveWorked = true
			}
			return out, md, err
		}), "Retry", middleware.After)
}

// ec2Option and eksOption add record to one call.
func (a *attempts) ec2Option(o *ec2.Options) { o.APIOptions = append(o.APIOptions, a.record) }
func (a *attempts) eksOption(o *eks.Options) { o.APIOptions = append(o.APIOptions, a.record) }

// wrap is the call's error, marked as possibly lost (answerMayBeLost) when its last answer is a
// refusal but an earlier attempt may have taken effect.
func (a *attempts) wrap(err error) error {
	if err != nil && a.mayHaveWorked && !answerMayBeLost(err) {
		return &earlierAttemptError{err}
	}
	return err
}

// earlierAttemptError is a call's refusal after an attempt that may have taken effect (attempts).
type earlierAttemptError struct{ error }

func (e *earlierAttemptError) Unwrap() error { return e.error }

// lostAnswerTimeout bounds the reads that look for what a create call made when its answer was lost.
const lostAnswerTimeout = 30 * time.Second

// lostAnswerReads is how many reads look for it, lostAnswerDelay apart, while they find nothing: the
// call may still be on its way to the service when the client gives up on it, and a service need not
// show a write at once (audit eks-vs-real.md D9; cloudsim's read-after-write lag). Five reads three
// seconds apart against AWS: an interrupted create that made nothing takes some 12 s longer to fail.
const lostAnswerReads = 5

// lostAnswerDelay is the time between those reads: the poll interval against a simulator.
func lostAnswerDelay(poll time.Duration) time.Duration {
	if poll > 0 {
		return poll
	}
	return 3 * time.Second
}

// findAfterFailedCreate looks, with find, for what a create call that failed with createErr may
// have made all the same; find answers an error wrapping errNotFound when there is nothing (yet).
// After a refusal (a 4xx answer) it reads once: nothing is on its way. After an answer that may
// have been lost (answerMayBeLost) it reads up to lostAnswerReads times while it finds nothing. The
// reads run without the caller's cancellation, whose context has often ended (that is how the
// answer was lost), within lostAnswerTimeout.
func findAfterFailedCreate[T any](ctx context.Context, createErr error, poll time.Duration, find func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lostAnswerTimeout)
	defer cancel()
	reads := 1
	if answerMayBeLost(createErr) {
		reads = lostAnswerReads
	}
	for i := 1; ; i++ {
		got, err := find(ctx)
		if !isNotFound(err) || i >= reads {
			return got, err
		}
		t := time.NewTimer(lostAnswerDelay(poll))
		select {
		case <-ctx.Done():
			t.Stop()
			return got, err
		case <-t.C:
		}
	}
}

// waitNodegroupActive waits for a node group being created with the SDK's NodegroupActive waiter,
// pending only while CREATING, as terraform-provider-aws's waitNodegroupCreated does: the SDK's own
// rule retries on every status but ACTIVE and CREATE_FAILED, so a DEGRADED node group would wait out
// the timeout. On failure it describes the node group once more to report its health issues.
func waitNodegroupActive(ctx context.Context, conn *eks.Client, cluster, name string, timeout, poll time.Duration) (*types.Nodegroup, error) {
	in := &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)}
	out, err := eks.NewNodegroupActiveWaiter(conn, func(o *eks.NodegroupActiveWaiterOptions) {
		setDelays(&o.MinDelay, &o.MaxDelay, poll)
		o.Retryable = tolerateNotFound(creatingRetryable)
	}).WaitForOutput(ctx, in, timeout)
	if err == nil {
		return out.Nodegroup, nil
	}
	ng, findErr := findNodegroup(context.WithoutCancel(ctx), conn, cluster, name)
	if findErr != nil {
		return nil, fmt.Errorf("%w (and describing it afterwards: %w)", err, findErr)
	}
	if ng.Status != types.NodegroupStatusActive && ng.Status != types.NodegroupStatusCreating {
		return ng, fmt.Errorf("status %s: %s", ng.Status, healthIssues(ng))
	}
	if strings.Contains(err.Error(), "exceeded max wait time") {
		return ng, fmt.Errorf("timed out after %s waiting for status ACTIVE (last status %s)", timeout, ng.Status)
	}
	return ng, err
}

// creatingRetryable is the NodegroupActive waiter's rule for a node group being created: done when
// ACTIVE, pending while CREATING, failed on any other status.
func creatingRetryable(_ context.Context, _ *eks.DescribeNodegroupInput, out *eks.DescribeNodegroupOutput, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	var status types.NodegroupStatus
	if out.Nodegroup != nil {
		status = out.Nodegroup.Status
	}
	switch status {
	case types.NodegroupStatusActive:
		return false, nil
	case types.NodegroupStatusCreating:
		return true, nil
	}
	return false, fmt.Errorf("node group status %s", status)
}

func healthIssues(ng *types.Nodegroup) string {
	if ng.Health == nil || len(ng.Health.Issues) == 0 {
		return "no health issues reported"
	}
	var parts []string
	for _, i := range ng.Health.Issues {
		part := string(i.Code) + ": " + aws.ToString(i.Message)
		if len(i.ResourceIds) > 0 {
			part += " (" + strings.Join(i.ResourceIds, ", ") + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
}

// notFoundChecks is how many ResourceNotFoundException answers in a row a waiter for a node group
// or update that was just written sits out before it believes them: terraform-provider-aws's
// StateChangeConf default (internal/retry/state.go, NotFoundChecks 20), which its node group
// waiters use (internal/service/eks/node_group.go: statusNodegroup and statusNodegroupUpdate read
// not-found as an empty state). EKS reads are not promised to see a write at once (audit
// eks-vs-real.md D9, Q5); failing on the first not-found would fail, and taint, a create that
// succeeded. At the waiters' polling this is minutes against EKS, bounded by the timeout.
const notFoundChecks = 20

// tolerateNotFound wraps a waiter's retry rule: up to notFoundChecks consecutive not-found answers
// are retried, the next one fails the wait; any other answer goes to rule.
func tolerateNotFound[In, Out any](rule func(context.Context, In, Out, error) (bool, error)) func(context.Context, In, Out, error) (bool, error) {
	missed := 0
	return func(ctx context.Context, in In, out Out, err error) (bool, error) {
		if err != nil && isNotFound(err) {
			missed++
			if missed <= notFoundChecks {
				return true, nil
			}
			return false, fmt.Errorf("still not found after %d reads: %w", missed, err)
		}
		missed = 0
		return rule(ctx, in, out, err)
	}
}

// waitNodegroupSettled waits while a node group is CREATING or UPDATING, the statuses in which EKS
// refuses to delete it (DeleteNodegroup: ResourceInUseException), with the SDK's NodegroupActive
// waiter under another rule: pending while CREATING or UPDATING, done on any other status or when
// the node group is gone. A create that timed out leaves a pool in state whose node group is still
// CREATING, and a destroy then must wait for the creation to end rather than fail.
func waitNodegroupSettled(ctx context.Context, conn *eks.Client, cluster, name string, timeout, poll time.Duration) error {
	in := &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)}
	err := eks.NewNodegroupActiveWaiter(conn, func(o *eks.NodegroupActiveWaiterOptions) {
		setDelays(&o.MinDelay, &o.MaxDelay, poll)
		o.Retryable = settlingRetryable
	}).Wait(ctx, in, timeout)
	if err == nil {
		return nil
	}
	ng, findErr := findNodegroup(context.WithoutCancel(ctx), conn, cluster, name)
	if findErr == nil && (strings.Contains(err.Error(), "exceeded max wait time") || ctx.Err() != nil) {
		return fmt.Errorf("timed out after %s waiting for the node group to leave status %s", timeout, ng.Status)
	}
	return err
}

// settlingRetryable is waitNodegroupSettled's rule: pending while CREATING or UPDATING, done on any
// other status and when the node group is not found.
func settlingRetryable(_ context.Context, _ *eks.DescribeNodegroupInput, out *eks.DescribeNodegroupOutput, err error) (bool, error) {
	if err != nil {
		if isNotFound(err) {
			return false, nil
		}
		return false, err
	}
	if out.Nodegroup == nil {
		return false, nil
	}
	switch out.Nodegroup.Status {
	case types.NodegroupStatusCreating, types.NodegroupStatusUpdating:
		return true, nil
	}
	return false, nil
}

// waitNodegroupDeleted waits with the SDK's NodegroupDeleted waiter, which fails on DELETE_FAILED.
// On failure it describes the node group once more to report its status and health issues.
func waitNodegroupDeleted(ctx context.Context, conn *eks.Client, cluster, name string, timeout, poll time.Duration) error {
	in := &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)}
	err := eks.NewNodegroupDeletedWaiter(conn, func(o *eks.NodegroupDeletedWaiterOptions) { setDelays(&o.MinDelay, &o.MaxDelay, poll) }).
		Wait(ctx, in, timeout)
	if err == nil {
		return nil
	}
	ng, findErr := findNodegroup(context.WithoutCancel(ctx), conn, cluster, name)
	switch {
	case isNotFound(findErr):
		return nil // gone after all
	case findErr == nil && ng.Status == types.NodegroupStatusDeleteFailed:
		return fmt.Errorf("status %s: %s", ng.Status, healthIssues(ng))
	case findErr == nil && (strings.Contains(err.Error(), "exceeded max wait time") || ctx.Err() != nil):
		return fmt.Errorf("timed out after %s waiting for the node group to be deleted (last status %s)", timeout, ng.Status)
	}
	return err
}

// waitUpdateSuccessful waits for an EKS update. The SDK models the Successful/Failed/Cancelled
// states of DescribeUpdate once, in the CertificateAuthorityUpdateComplete waiter; node group
// updates report through the same DescribeUpdate states.
func waitUpdateSuccessful(ctx context.Context, conn *eks.Client, cluster, nodegroup, updateID string, timeout, poll time.Duration) error {
	in := &eks.DescribeUpdateInput{Name: aws.String(cluster), NodegroupName: aws.String(nodegroup), UpdateId: aws.String(updateID)}
	_, err := eks.NewCertificateAuthorityUpdateCompleteWaiter(conn, func(o *eks.CertificateAuthorityUpdateCompleteWaiterOptions) {
		setDelays(&o.MinDelay, &o.MaxDelay, poll)
		o.Retryable = tolerateNotFound(o.Retryable)
	}).WaitForOutput(ctx, in, timeout)
	if err == nil {
		return nil
	}
	out, descErr := conn.DescribeUpdate(context.WithoutCancel(ctx), in)
	if descErr != nil || out.Update == nil {
		return err
	}
	if out.Update.Status == types.UpdateStatusFailed || out.Update.Status == types.UpdateStatusCancelled {
		var msgs []string
		for _, e := range out.Update.Errors {
			msgs = append(msgs, string(e.ErrorCode)+": "+aws.ToString(e.ErrorMessage))
		}
		return fmt.Errorf("update %s %s: %s", updateID, out.Update.Status, strings.Join(msgs, "; "))
	}
	if strings.Contains(err.Error(), "exceeded max wait time") {
		return fmt.Errorf("timed out after %s waiting for update %s (last status %s)", timeout, updateID, out.Update.Status)
	}
	return err
}

// setDelays shortens the waiters' polling when the provider talks to a simulator (poll > 0).
func setDelays(minDelay, maxDelay *time.Duration, poll time.Duration) {
	if poll > 0 {
		*minDelay, *maxDelay = poll, 4*poll
	}
}

// findLaunchTemplateVersion returns one version of a launch template.
func findLaunchTemplateVersion(ctx context.Context, conn *ec2.Client, id, version string) (*ec2types.LaunchTemplateVersion, error) {
	out, err := conn.DescribeLaunchTemplateVersions(ctx, &ec2.DescribeLaunchTemplateVersionsInput{
		LaunchTemplateId: aws.String(id),
		Versions:         []string{version},
	})
	if isNotFound(err) {
		return nil, fmt.Errorf("launch template %s version %s: %w", id, version, errNotFound)
	}
	if err != nil {
		return nil, err
	}
	if len(out.LaunchTemplateVersions) == 0 {
		return nil, fmt.Errorf("launch template %s version %s: %w", id, version, errNotFound)
	}
	return &out.LaunchTemplateVersions[0], nil
}

// findLaunchTemplateByID returns a launch template with its tags, or an error wrapping errNotFound.
func findLaunchTemplateByID(ctx context.Context, conn *ec2.Client, id string) (*ec2types.LaunchTemplate, error) {
	out, err := conn.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{id}})
	if isNotFound(err) {
		return nil, fmt.Errorf("launch template %s: %w", id, errNotFound)
	}
	if err != nil {
		return nil, err
	}
	return oneLaunchTemplate(out, id)
}

// findLaunchTemplateByName returns the launch template of that name, or an error wrapping
// errNotFound. It filters by name rather than asking for the name, so that an absent template is
// an empty answer, not an error code to recognise.
func findLaunchTemplateByName(ctx context.Context, conn *ec2.Client, name string) (*ec2types.LaunchTemplate, error) {
	out, err := conn.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{
		Filters: []ec2types.Filter{{Name: aws.String("launch-template-name"), Values: []string{name}}},
	})
	if err != nil {
		return nil, err
	}
	return oneLaunchTemplate(out, name)
}

func oneLaunchTemplate(out *ec2.DescribeLaunchTemplatesOutput, what string) (*ec2types.LaunchTemplate, error) {
	if len(out.LaunchTemplates) == 0 {
		return nil, fmt.Errorf("launch template %s: %w", what, errNotFound)
	}
	return &out.LaunchTemplates[0], nil
}

// findOwnedLaunchTemplate returns the template with that id if the side owns it; an error wrapping
// errNotFound when it is gone, a *notOwnedError when it belongs to someone else.
func findOwnedLaunchTemplate(ctx context.Context, conn *ec2.Client, o sideOwner, id string) (*ec2types.LaunchTemplate, error) {
	lt, err := findLaunchTemplateByID(ctx, conn, id)
	if err != nil {
		return nil, err
	}
	if err := o.checkOwned(lt); err != nil {
		return nil, err
	}
	return lt, nil
}
