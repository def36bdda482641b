package eks

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// answerMayBeLost tells a refusal (a 4xx answer: nothing was made) from a call that may have taken
// effect (a 5xx answer, or none: the context ended first), on the errors the SDK really returns.
func TestAnswerMayBeLost(t *testing.T) {
	sim, err := cloudsim.Start(cloudsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	conn := eks.NewFromConfig(cloudsim.AWSConfig("us-east-1", 0), func(o *eks.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().EKS) })
	describe := func(ctx context.Context) error {
		_, err := conn.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("train-od")})
		return err
	}
	for _, tc := range []struct {
		name    string
		fault   *cloudsim.Fault
		timeout time.Duration
		want    bool
	}{
		{name: "not found (404)", want: false},
		{name: "refused (400)", fault: &cloudsim.Fault{Kind: cloudsim.ServerError, Status: 400, Code: "InvalidParameterException", Message: "bad"}, want: false},
		{name: "denied (403)", fault: &cloudsim.Fault{Kind: cloudsim.ServerError, Status: 403, Code: "AccessDeniedException", Message: "denied"}, want: false},
		{name: "throttled (429)", fault: &cloudsim.Fault{Kind: cloudsim.Throttle}, want: false},
		{name: "throttled (503, as EC2 answers it)", fault: &cloudsim.Fault{Kind: cloudsim.ServerError, Status: 503, Code: "RequestLimitExceeded", Message: "Request limit exceeded."}, want: false},
		{name: "server error (500)", fault: &cloudsim.Fault{Kind: cloudsim.ServerError}, want: true},
		{name: "unavailable (503)", fault: &cloudsim.Fault{Kind: cloudsim.Unavailable}, want: true},
		{name: "context ended", fault: &cloudsim.Fault{Kind: cloudsim.Latency, Latency: time.Minute}, timeout: 200 * time.Millisecond, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim.ClearFaults()
			if tc.fault != nil {
				f := *tc.fault
				f.Service, f.Operation = "eks", "DescribeNodegroup"
				if _, err := sim.Inject(f); err != nil {
					t.Fatal(err)
				}
			}
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			err := describe(ctx)
			if err == nil {
				t.Fatal("the call succeeded")
			}
			if tc.timeout > 0 && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("want the context's end, got %v", err)
			}
			if got := answerMayBeLost(err); got != tc.want {
				t.Errorf("answerMayBeLost(%v) = %t, want %t", err, got, tc.want)
			}
		})
	}
}

// A call whose first attempt may have taken effect (500) and whose retry is refused (400): its
// error is the refusal, and with the attempts recorded it counts as possibly lost, not as a refusal.
func TestAttempts_refusalAfterAnAttemptThatMayHaveWorked(t *testing.T) {
	sim, err := cloudsim.Start(cloudsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	conn := eks.NewFromConfig(cloudsim.AWSConfig("us-east-1", 0), func(o *eks.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().EKS) })
	for _, f := range []cloudsim.Fault{
		{Service: "eks", Operation: "DescribeNodegroup", Kind: cloudsim.ServerError, Count: 1},
		{Service: "eks", Operation: "DescribeNodegroup", Kind: cloudsim.ServerError, Status: 400, Code: "InvalidParameterException", Message: "bad", Count: 1},
	} {
		if _, err := sim.Inject(f); err != nil {
			t.Fatal(err)
		}
	}
	var tries attempts
	_, err = conn.DescribeNodegroup(context.Background(), &eks.DescribeNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("train-od")}, tries.eksOption)
	if apiErrorCode(err) != "InvalidParameterException" || answerMayBeLost(err) {
		t.Fatalf("the call's own error %v: want the refusal, not possibly lost", err)
	}
	if !answerMayBeLost(tries.wrap(err)) || apiErrorCode(tries.wrap(err)) != "InvalidParameterException" {
		t.Errorf("with its attempts recorded, %v does not count as possibly lost", tries.wrap(err))
	}
	var first attempts
	if _, err := conn.DescribeNodegroup(context.Background(), &eks.DescribeNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("nope")}, first.eksOption); answerMayBeLost(first.wrap(err)) {
		t.Errorf("a plain not-found (%v) counts as possibly lost", err)
	}
}
