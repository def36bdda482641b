package cloudsim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// The rules of the second EKS audit (../shared/audits/eks-vs-real.md, S1-S6 and D5): cloudsim answers
// as EKS does, or, where EKS's answer is not documented, as the worse of the possible answers.

// S1: a node group created without an update config reports maxUnavailable 1 and the DEFAULT
// strategy; one created with a config but no strategy reports DEFAULT too.
func TestEKS_UpdateConfig_DefaultStrategyReported(t *testing.T) {
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	createNodegroup(t, c, gpuNodegroup("plain"))
	in := gpuNodegroup("percent")
	in.UpdateConfig = &ekstypes.NodegroupUpdateConfig{MaxUnavailablePercentage: aws.Int32(20)}
	createNodegroup(t, c, in)
	for name, want := range map[string]ekstypes.NodegroupUpdateConfig{
		"plain":   {MaxUnavailable: aws.Int32(1), UpdateStrategy: ekstypes.NodegroupUpdateStrategiesDefault},
		"percent": {MaxUnavailablePercentage: aws.Int32(20), UpdateStrategy: ekstypes.NodegroupUpdateStrategiesDefault},
	} {
		got := waitSettled(t, c, "ml", name).UpdateConfig
		if got == nil || aws.ToInt32(got.MaxUnavailable) != aws.ToInt32(want.MaxUnavailable) ||
			aws.ToInt32(got.MaxUnavailablePercentage) != aws.ToInt32(want.MaxUnavailablePercentage) || got.UpdateStrategy != want.UpdateStrategy {
			t.Errorf("%s: update config %+v, want %+v", name, got, want)
		}
	}
}

// D5/Q1: a taint sent without a value is echoed without one (null), one sent with "" with "".
func TestEKS_Taints_ValueEchoedAsSent(t *testing.T) {
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	in := gpuNodegroup("taints")
	in.Taints = append(in.Taints,
		ekstypes.Taint{Key: aws.String("dedicated"), Value: aws.String(""), Effect: ekstypes.TaintEffectNoSchedule},
		ekstypes.Taint{Key: aws.String("batch"), Effect: ekstypes.TaintEffectPreferNoSchedule})
	createNodegroup(t, c, in)
	ng := waitSettled(t, c, "ml", "taints")
	values := map[string]*string{}
	for _, taint := range ng.Taints {
		values[aws.ToString(taint.Key)] = taint.Value
	}
	if v := values["dedicated"]; v == nil || *v != "" {
		t.Errorf("dedicated: value %v, want \"\"", v)
	}
	if v, ok := values["batch"]; !ok || v != nil {
		t.Errorf("batch: value %v (present %t), want null", v, ok)
	}
}

// S4: a Bottlerocket node group gets a Bottlerocket release, and a requested one must be offered
// for its Kubernetes version (a release serves several versions); an Amazon Linux-looking release
// of another kind, or one of versions the node group does not run, is refused.
func TestEKS_BottlerocketRelease_ValidatedForVersion(t *testing.T) {
	sim := newSim(t)
	c := eksClient(sim, "us-east-1")
	bottlerocket := func(name, release string) *eks.CreateNodegroupInput {
		in := gpuNodegroup(name)
		in.AmiType = ekstypes.AMITypesBottlerocketX8664Nvidia
		if release != "" {
			in.ReleaseVersion = aws.String(release)
		}
		return in
	}
	if got := aws.ToString(createNodegroup(t, c, bottlerocket("latest", "")).ReleaseVersion); got != "1.31.0-7f3e2a10" {
		t.Errorf("release without a request %s, want the newest for 1.31, 1.31.0-7f3e2a10", got)
	}
	if got := aws.ToString(createNodegroup(t, c, bottlerocket("digits", "1.29.0-31415926")).ReleaseVersion); got != "1.29.0-31415926" {
		t.Errorf("release %s, want 1.29.0-31415926 (a Bottlerocket release for 1.30-1.32)", got)
	}
	for _, release := range []string{"1.32.0-0b5d9c44", "1.31.7-20250620"} {
		_, err := c.CreateNodegroup(ctxT(t), bottlerocket("refused", release))
		wantAPIError(t, err, "InvalidParameterException", "not valid for kubernetes version 1.31")
	}
}
