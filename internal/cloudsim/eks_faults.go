package cloudsim

import "time"

// Faults of EKS node group operations beyond an error answer (faults.go): a Stuck fault keeps the
// node group in its transitional status longer than a caller waits, and a CreateFailed fault on
// DeleteNodegroup ends the deletion DELETE_FAILED.

// stuckOps are the operations on which a Stuck fault applies: those that start a node group
// transition.
var stuckOps = map[string]bool{
	"eks/CreateNodegroup": true, "eks/UpdateNodegroupConfig": true, "eks/UpdateNodegroupVersion": true, "eks/DeleteNodegroup": true,
}

// transition is how long the transition a call starts lasts: a Stuck fault's latency, else the
// transition delay.
func (s *Sim) transition(c *call) time.Duration {
	if c.stuck > 0 {
		return c.stuck
	}
	return s.opts.TransitionDelay
}

// issueDeleteFailed is how EKS reports a node group it could not delete when a CreateFailed fault on
// DeleteNodegroup names no issue (EKS API Reference: Issue, code Ec2SecurityGroupDeletionFailure;
// the node group ends DELETE_FAILED, aws-sdk-go-v2 service/eks NodegroupStatusDeleteFailed, on
// which the SDK's NodegroupDeleted waiter fails).
var issueDeleteFailed = HealthIssue{
	Code:    "Ec2SecurityGroupDeletionFailure",
	Message: "Could not delete the remote access security group of the node group. Remove any dependencies from the security group.",
}
