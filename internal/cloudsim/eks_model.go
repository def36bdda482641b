package cloudsim

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// The types in this file are the stored EKS objects. Their JSON encoding is the EKS restJson1
// wire encoding (EKS API Reference: Data Types — Nodegroup, Update, Taint, ...), so the same
// value is served to SDK clients, written to the state file and returned by read accessors.

// EpochTime is a time that encodes as fractional epoch seconds, the restJson1 default
// timestamp format the EKS SDK deserializer expects.
type EpochTime struct{ time.Time }

// MarshalJSON encodes the time as epoch seconds with millisecond precision.
func (t EpochTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	secs := float64(t.UnixMilli()) / 1000
	return []byte(strconv.FormatFloat(secs, 'f', -1, 64)), nil
}

// UnmarshalJSON decodes epoch seconds.
func (t *EpochTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	sec, frac := math.Modf(f)
	t.Time = time.Unix(int64(sec), int64(math.Round(frac*1e3))*int64(time.Millisecond)).UTC()
	return nil
}

func epoch(t time.Time) EpochTime { return EpochTime{t.UTC().Truncate(time.Millisecond)} }

// Nodegroup is an EKS managed node group (EKS API Reference: Nodegroup).
type Nodegroup struct {
	NodegroupName    string                 `json:"nodegroupName"`
	NodegroupArn     string                 `json:"nodegroupArn"`
	ClusterName      string                 `json:"clusterName"`
	Version          string                 `json:"version,omitempty"`
	ReleaseVersion   string                 `json:"releaseVersion,omitempty"`
	CreatedAt        EpochTime              `json:"createdAt"`
	ModifiedAt       EpochTime              `json:"modifiedAt"`
	Status           string                 `json:"status"`
	CapacityType     string                 `json:"capacityType,omitempty"`
	ScalingConfig    *ScalingConfig         `json:"scalingConfig,omitempty"`
	InstanceTypes    []string               `json:"instanceTypes,omitempty"`
	Subnets          []string               `json:"subnets,omitempty"`
	RemoteAccess     *RemoteAccessConfig    `json:"remoteAccess,omitempty"`
	AmiType          string                 `json:"amiType,omitempty"`
	NodeRole         string                 `json:"nodeRole,omitempty"`
	Labels           map[string]string      `json:"labels,omitempty"`
	Taints           []Taint                `json:"taints,omitempty"`
	Resources        *NodegroupResources    `json:"resources,omitempty"`
	DiskSize         *int32                 `json:"diskSize,omitempty"`
	Health           NodegroupHealth        `json:"health"`
	UpdateConfig     *NodegroupUpdateConfig `json:"updateConfig,omitempty"`
	NodeRepairConfig json.RawMessage        `json:"nodeRepairConfig,omitempty"`
	LaunchTemplate   *LaunchTemplateSpec    `json:"launchTemplate,omitempty"`
	Tags             map[string]string      `json:"tags,omitempty"`
}

// ScalingConfig is EKS NodegroupScalingConfig.
type ScalingConfig struct {
	MinSize     *int32 `json:"minSize,omitempty"`
	MaxSize     *int32 `json:"maxSize,omitempty"`
	DesiredSize *int32 `json:"desiredSize,omitempty"`
}

// RemoteAccessConfig is EKS RemoteAccessConfig.
type RemoteAccessConfig struct {
	Ec2SshKey            string   `json:"ec2SshKey,omitempty"`
	SourceSecurityGroups []string `json:"sourceSecurityGroups,omitempty"`
}

// Taint is an EKS Kubernetes taint; Effect is NO_SCHEDULE, NO_EXECUTE or PREFER_NO_SCHEDULE. Value
// is kept as sent: absent (nil) stays absent and "" stays "". Audit eks-vs-real.md D5/Q1: whether
// EKS echoes an omitted value as null or "" is not documented; the cluster autoscaler keeps a
// DescribeNodegroup taint only with a non-nil value (kubernetes/autoscaler
// cluster-autoscaler/cloudprovider/aws/aws_wrapper.go, getManagedNodegroupInfo: "taint.Key != nil
// && taint.Value != nil"), so cloudsim answers with the worse of the two, null.
type Taint struct {
	Key    string  `json:"key,omitempty"`
	Value  *string `json:"value,omitempty"`
	Effect string  `json:"effect,omitempty"`
}

// TaintValue is a taint's value, "" when it has none.
func (t Taint) TaintValue() string {
	if t.Value == nil {
		return ""
	}
	return *t.Value
}

// NodegroupResources lists the Auto Scaling groups backing a node group.
type NodegroupResources struct {
	AutoScalingGroups         []AutoScalingGroup `json:"autoScalingGroups,omitempty"`
	RemoteAccessSecurityGroup string             `json:"remoteAccessSecurityGroup,omitempty"`
}

// AutoScalingGroup names one Auto Scaling group.
type AutoScalingGroup struct {
	Name string `json:"name"`
}

// NodegroupHealth carries the health issues of a node group. Issues is always encoded, as the
// real API does, so clients see an empty list rather than a missing field.
type NodegroupHealth struct {
	Issues []HealthIssue `json:"issues"`
}

// HealthIssue is an EKS node group health issue (EKS API Reference: Issue). For GKE faults the
// Code names a StatusCondition code such as GCE_STOCKOUT.
type HealthIssue struct {
	Code        string   `json:"code"`
	Message     string   `json:"message,omitempty"`
	ResourceIDs []string `json:"resourceIds,omitempty"`
}

// NodegroupUpdateConfig is EKS NodegroupUpdateConfig.
type NodegroupUpdateConfig struct {
	MaxUnavailable           *int32 `json:"maxUnavailable,omitempty"`
	MaxUnavailablePercentage *int32 `json:"maxUnavailablePercentage,omitempty"`
	UpdateStrategy           string `json:"updateStrategy,omitempty"`
}

// LaunchTemplateSpec is EKS LaunchTemplateSpecification.
type LaunchTemplateSpec struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
	ID      string `json:"id,omitempty"`
}

// Update is an EKS update (EKS API Reference: Update).
type Update struct {
	ID        string        `json:"id"`
	Status    string        `json:"status"`
	Type      string        `json:"type"`
	Params    []UpdateParam `json:"params"`
	CreatedAt EpochTime     `json:"createdAt"`
	Errors    []ErrorDetail `json:"errors"`
}

// UpdateParam is one changed parameter of an update; Value is a string (JSON for maps/lists).
type UpdateParam struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// ErrorDetail describes why an update failed (EKS API Reference: ErrorDetail).
type ErrorDetail struct {
	ErrorCode    string   `json:"errorCode,omitempty"`
	ErrorMessage string   `json:"errorMessage,omitempty"`
	ResourceIDs  []string `json:"resourceIds,omitempty"`
}

// EKS status and enum values used below (EKS API Reference: Nodegroup.status, Update.status).
const (
	ngCreating     = "CREATING"
	ngActive       = "ACTIVE"
	ngUpdating     = "UPDATING"
	ngDeleting     = "DELETING"
	ngCreateFailed = "CREATE_FAILED"
	ngDeleteFailed = "DELETE_FAILED"
	ngDegraded     = "DEGRADED"

	updInProgress = "InProgress"
	updSuccessful = "Successful"
	updFailed     = "Failed"
)

// nodegroupIssueCodes are the health issue codes EKS reports on node groups (EKS API Reference:
// Issue.code; aws-sdk-go-v2 service/eks types NodegroupIssueCode). There is no
// "Ec2InsufficientSpotCapacity": a Spot shortage is AsgInstanceLaunchFailures (IssueSpotCapacity).
var nodegroupIssueCodes = []string{"AutoScalingGroupNotFound", "AutoScalingGroupInvalidConfiguration", "Ec2SecurityGroupNotFound",
	"Ec2SecurityGroupDeletionFailure", "Ec2LaunchTemplateNotFound", "Ec2LaunchTemplateVersionMismatch", "Ec2SubnetNotFound",
	"Ec2SubnetInvalidConfiguration", "IamInstanceProfileNotFound", "Ec2SubnetMissingIpv6Assignment", "IamLimitExceeded",
	"IamNodeRoleNotFound", "NodeCreationFailure", "AsgInstanceLaunchFailures", "InstanceLimitExceeded", "InsufficientFreeAddresses",
	"AccessDenied", "InternalFailure", "ClusterUnreachable", "AmiIdNotFound", "AutoScalingGroupOptInRequired",
	"AutoScalingGroupRateLimitExceeded", "Ec2LaunchTemplateDeletionFailure", "Ec2LaunchTemplateInvalidConfiguration",
	"Ec2LaunchTemplateMaxLimitExceeded", "Ec2SubnetListTooLong", "IamThrottling", "NodeTerminationFailure", "PodEvictionFailure",
	"SourceEc2LaunchTemplateNotFound", "LimitExceeded", "Unknown", "AutoScalingGroupInstanceRefreshActive", "KubernetesLabelInvalid",
	"Ec2LaunchTemplateVersionMaxLimitExceeded", "Ec2InstanceTypeDoesNotExist"}

// updateErrorCodes are the codes of a failed update's errors (EKS API Reference: ErrorDetail.errorCode).
var updateErrorCodes = []string{"SubnetNotFound", "SecurityGroupNotFound", "EniLimitReached", "IpNotAvailable", "AccessDenied",
	"OperationNotPermitted", "VpcIdNotFound", "Unknown", "NodeCreationFailure", "PodEvictionFailure", "InsufficientFreeAddresses",
	"ClusterUnreachable", "InsufficientNumberOfReplicas", "ConfigurationConflict", "AdmissionRequestDenied",
	"UnsupportedAddonModification", "K8sResourceNotFound"}

// updateErrorCode is the update error code a health issue code maps to: itself where both enums
// have it, NodeCreationFailure for instances that could not be launched, else Unknown.
func updateErrorCode(issueCode string) string {
	switch {
	case contains(updateErrorCodes, issueCode):
		return issueCode
	case issueCode == "AsgInstanceLaunchFailures" || issueCode == "InstanceLimitExceeded":
		return "NodeCreationFailure"
	}
	return "Unknown"
}

// clone returns a deep copy, so that callers can never mutate stored state.
func (n *Nodegroup) clone() Nodegroup {
	var c Nodegroup
	mustRoundTrip(n, &c)
	return c
}

func (u *Update) clone() Update {
	var c Update
	mustRoundTrip(u, &c)
	return c
}

// mustRoundTrip deep-copies plain JSON-shaped values through encoding/json.
func mustRoundTrip(in, out any) {
	b, err := json.Marshal(in)
	if err != nil {
		panic("cloudsim: marshal: " + err.Error())
	}
	if err := json.Unmarshal(b, out); err != nil {
		panic("cloudsim: unmarshal: " + err.Error())
	}
}
