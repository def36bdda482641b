package conns

import (
	"context"
	"testing"
)

// Each region gets its own EKS and EC2 clients, built once and cached; "" is the provider's region.
// All of them carry the provider's endpoint overrides.
func TestAWSClientsPerRegion(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAGPUFLEETTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "gpufleet-test-secret")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	m := &Meta{AWSSettings: AWSSettings{Region: "us-east-1", SkipCredentialsValidation: true, EKSEndpoint: "http://127.0.0.1:1", EC2Endpoint: "http://127.0.0.1:2"}}
	ctx := context.Background()
	home, err := m.EKSIn(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := m.EKS(ctx)
	named, _ := m.EKSIn(ctx, "us-east-1")
	other, _ := m.EKSIn(ctx, "eu-west-1")
	if home != again || home != named {
		t.Error("the provider's region's EKS client is built more than once")
	}
	if other == home || other.Options().Region != "eu-west-1" || home.Options().Region != "us-east-1" {
		t.Errorf("regions: provider's %s, other %s", home.Options().Region, other.Options().Region)
	}
	if cached, _ := m.EKSIn(ctx, "eu-west-1"); cached != other {
		t.Error("the eu-west-1 EKS client is built more than once")
	}
	if *other.Options().BaseEndpoint != "http://127.0.0.1:1" {
		t.Errorf("EKS endpoint %v", other.Options().BaseEndpoint)
	}
	ec2Other, _ := m.EC2In(ctx, "eu-west-1")
	if ec2Other.Options().Region != "eu-west-1" || *ec2Other.Options().BaseEndpoint != "http://127.0.0.1:2" {
		t.Errorf("EC2 client: %s %v", ec2Other.Options().Region, ec2Other.Options().BaseEndpoint)
	}
	if region, err := m.AWSRegion(ctx); err != nil || region != "us-east-1" {
		t.Errorf("AWSRegion = %q, %v", region, err)
	}
	// A simulated EKS and EC2 without a simulated Auto Scaling: no client that would reach AWS.
	if _, err := m.AutoScalingIn(ctx, ""); err == nil {
		t.Error("an Auto Scaling client for AWS beside local EKS and EC2 endpoints")
	}
	m.AWSSettings.AutoScalingEndpoint = "http://127.0.0.1:3"
	as, err := m.AutoScalingIn(ctx, "eu-west-1")
	if err != nil || as.Options().Region != "eu-west-1" || *as.Options().BaseEndpoint != "http://127.0.0.1:3" {
		t.Errorf("Auto Scaling client: %v", err)
	}
}
