package cloudsim

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
)

const iamKey = "AKIAIAMCHECKED000001"

// signedAs is an AWS config for the simulator signed with an access key.
func signedAs(key string) aws.Config {
	cfg := AWSConfig("us-east-1", 0)
	cfg.Credentials = aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(key, "secret", ""))
	return cfg
}

const testPolicy = `{
  "Version": "2012-10-17",
  "Statement": [
    {"Effect": "Allow", "Action": ["eks:Describe*", "eks:CreateNodegroup", "eks:ListNodegroups"], "Resource": "*"},
    {"Effect": "Deny", "Action": "eks:ListNodegroups", "Resource": "arn:aws:eks:*:*:cluster/ml"},
    {"Effect": "Allow", "Action": "iam:PassRole", "Resource": "arn:aws:iam::123456789012:role/*",
     "Condition": {"StringEquals": {"iam:PassedToService": "eks.amazonaws.com"}}},
    {"Effect": "Allow", "Action": "ec2:DescribeSubnets", "Resource": "*"}
  ]
}`

// Calls of the checked identity are allowed only as its policy allows them, and refused with each
// service's own error naming the action; other keys are not checked; an explicit Deny wins.
func TestIAM_PolicyDecidesEachCall(t *testing.T) {
	sim := newSim(t, func(o *Options) { o.IAM = &IAMIdentity{AccessKeyID: iamKey, Policy: testPolicy} })
	cfg := signedAs(iamKey)
	c := eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().EKS) })
	e := ec2.NewFromConfig(cfg, func(o *ec2.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().EC2) })
	as := autoscaling.NewFromConfig(cfg, func(o *autoscaling.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().AutoScaling) })
	if _, err := c.DescribeCluster(ctxT(t), &eks.DescribeClusterInput{Name: aws.String("ml")}); err != nil {
		t.Fatalf("an allowed call: %v", err)
	}
	_, err := c.DeleteNodegroup(ctxT(t), &eks.DeleteNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("x")})
	wantAPIError(t, err, "AccessDeniedException", "is not authorized to perform: eks:DeleteNodegroup on resource: arn:aws:eks:us-east-1:123456789012:nodegroup/ml/x/* because no identity-based policy allows the eks:DeleteNodegroup action")
	_, err = c.ListNodegroups(ctxT(t), &eks.ListNodegroupsInput{ClusterName: aws.String("ml")})
	wantAPIError(t, err, "AccessDeniedException", "eks:ListNodegroups on resource: arn:aws:eks:us-east-1:123456789012:cluster/ml with an explicit deny")
	_, err = e.DescribeLaunchTemplates(ctxT(t), &ec2.DescribeLaunchTemplatesInput{})
	wantAPIError(t, err, "UnauthorizedOperation", "You are not authorized to perform this operation. User: arn:aws:iam::123456789012:user/terraform is not authorized to perform: ec2:DescribeLaunchTemplates")
	_, err = as.DescribeAutoScalingGroups(ctxT(t), &autoscaling.DescribeAutoScalingGroupsInput{})
	wantAPIError(t, err, "AccessDenied", "autoscaling:DescribeAutoScalingGroups")
	// Another key (a test's own client) is not checked.
	if _, err := eksClient(sim, "us-east-1").DeleteNodegroup(ctxT(t), &eks.DeleteNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("x")}); apiErrorCode(err) != "ResourceNotFoundException" {
		t.Fatalf("an unchecked key: %v", err)
	}
	if got := strings.Join(sim.DeniedActions(), " "); got != "eks:DeleteNodegroup eks:ListNodegroups ec2:DescribeLaunchTemplates autoscaling:DescribeAutoScalingGroups" {
		t.Fatalf("denied %s", got)
	}
}

// In a fresh account the first CreateNodegroup also needs iam:CreateServiceLinkedRole for
// eks-nodegroup.amazonaws.com (audit D7), and iam:PassRole on the node role for EKS; once the role
// exists, it is not needed again.
func TestIAM_CreateNodegroupNeedsServiceLinkedRoleInAFreshAccount(t *testing.T) {
	sim := newSim(t, func(o *Options) {
		o.IAM = &IAMIdentity{AccessKeyID: iamKey, Policy: testPolicy, FreshAccount: true}
	})
	c := eks.NewFromConfig(signedAs(iamKey), func(o *eks.Options) { o.BaseEndpoint = aws.String(sim.Endpoints().EKS) })
	_, err := c.CreateNodegroup(ctxT(t), gpuNodegroup("first"))
	wantAPIError(t, err, "AccessDeniedException", "iam:CreateServiceLinkedRole on resource: arn:aws:iam::123456789012:role/aws-service-role/eks-nodegroup.amazonaws.com/AWSServiceRoleForAmazonEKSNodegroup")
	if sim.NodegroupServiceLinkedRoleExists() {
		t.Fatal("a refused CreateNodegroup made the service-linked role")
	}
	withSLR := strings.Replace(testPolicy, `{"Effect": "Allow", "Action": "ec2:DescribeSubnets", "Resource": "*"}`,
		`{"Effect": "Allow", "Action": "ec2:DescribeSubnets", "Resource": "*"},
    {"Effect": "Allow", "Action": "iam:CreateServiceLinkedRole", "Resource": "*", "Condition": {"StringEquals": {"iam:AWSServiceName": "eks-nodegroup.amazonaws.com"}}}`, 1)
	if err := sim.SetIAM(&IAMIdentity{AccessKeyID: iamKey, Policy: withSLR, FreshAccount: true}); err != nil {
		t.Fatal(err)
	}
	createNodegroup(t, c, gpuNodegroup("first"))
	if !sim.NodegroupServiceLinkedRoleExists() {
		t.Fatal("the first node group did not make the service-linked role")
	}
	if err := sim.SetIAM(&IAMIdentity{AccessKeyID: iamKey, Policy: testPolicy}); err != nil {
		t.Fatal(err)
	}
	createNodegroup(t, c, gpuNodegroup("second"))
	in := gpuNodegroup("otherrole")
	in.NodeRole = aws.String("arn:aws:iam::210987654321:role/nodes")
	_, err = c.CreateNodegroup(ctxT(t), in)
	wantAPIError(t, err, "AccessDeniedException", "iam:PassRole on resource: arn:aws:iam::210987654321:role/nodes")
}

// A policy cloudsim cannot evaluate fully is refused, not half-applied.
func TestIAM_UnevaluablePolicyRefused(t *testing.T) {
	sim := newSim(t)
	for _, doc := range []string{
		`{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*", "Condition": {"DateGreaterThan": {"aws:CurrentTime": "2020-01-01T00:00:00Z"}}}]}`,
		`{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*", "Principal": "*"}]}`,
		`{"Version": "2008-10-17", "Statement": []}`,
	} {
		if err := sim.SetIAM(&IAMIdentity{AccessKeyID: iamKey, Policy: doc}); err == nil {
			t.Errorf("policy taken: %s", doc)
		}
	}
}
