package cloudsim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path"
	"strconv"
	"sync"
	"time"
)

// FaultKind says what an injected fault does.
type FaultKind string

// Fault kinds. The error a kind produces is the one the real service returns for it, so that
// the SDKs' retry logic treats it as it would in the cloud:
//
//   - Throttle: EKS 429 ThrottlingException; EC2 503 RequestLimitExceeded; GKE RESOURCE_EXHAUSTED;
//     Compute 429 rateLimitExceeded. The AWS SDK standard retryer retries both AWS codes
//     (aws/retry DefaultThrottleErrorCodes).
//   - ServerError: EKS 500 ServerException; EC2 500 InternalError; GKE INTERNAL; Compute 500
//     backendError.
//   - Unavailable: EKS 503 ServiceUnavailableException; EC2 503 Unavailable; GKE UNAVAILABLE
//     (retried by the GKE client's default call options for idempotent reads); Compute 503
//     backendError.
//   - CreateFailed: the call succeeds, but the object ends up failed after the transition
//     delay: EKS node group CREATE_FAILED (or, for UpdateNodegroupConfig/Version, the update
//     Failed and the node group DEGRADED; for DeleteNodegroup, DELETE_FAILED) with the fault's
//     HealthIssues; GKE node pool ERROR and
//     its operation DONE with an error (or, for UpdateNodePool, the operation fails and the
//     pool keeps its old configuration).
//   - Degraded (GKE CreateNodePool and UpdateNodePool): the call succeeds and so, in its error
//     field, does its operation, but the operation ends with the fault's HealthIssues in its
//     (deprecated, still filled) status_message, and the node pool is RUNNING_WITH_ERROR with
//     them in its status_message and conditions: a partial stockout, where some zones got nodes
//     and others did not. terraform-provider-google fails such an operation on its
//     status_message (container_operation.go) and such a pool on its status
//     (resource_container_node_pool.go, after create).
//   - Latency: the call is delayed by Latency, then served normally. On the AWS services, a caller
//     that gives up meanwhile (its timeout, an interrupt) ends the delay, and the call is served
//     all the same: it takes effect, and its answer is lost (see invokeAWS).
//   - Stuck (EKS CreateNodegroup, UpdateNodegroupConfig, UpdateNodegroupVersion, DeleteNodegroup):
//     the call succeeds, and the node group stays CREATING, UPDATING or DELETING for Latency
//     instead of the transition delay: an operation that outlasts the caller's timeout (see
//     eks_faults.go).
//
// On GKE, CreateFailed and Degraded also apply to SetNodePoolSize and SetNodePoolAutoscaling (a
// resize or new limits that cannot get VMs), and CreateFailed to DeleteNodePool (the node pool
// stays, RUNNING_WITH_ERROR); see gke_faults.go. AfterStart (GKE only) turns an error fault into a
// lost answer: the call takes effect, and the client gets the error anyway.
const (
	Throttle     FaultKind = "throttle"
	ServerError  FaultKind = "server_error"
	Unavailable  FaultKind = "unavailable"
	CreateFailed FaultKind = "create_failed"
	Degraded     FaultKind = "degraded"
	Latency      FaultKind = "latency"
	Stuck        FaultKind = "stuck"
)

// Fault describes an injected failure. Service is "eks", "ec2", "autoscaling", "gke" or "compute"; Operation
// is an API operation name ("" for every operation of the service; Compute's is
// "instanceGroupManagers.get"). Match, when set, is a path.Match pattern on the resource named
// by the request: the node group / node pool name, the launch template name or id, the
// instance group manager name, else the cluster name.
//
// Count > 0 fires the fault exactly Count times, then removes it. Rate in (0,1] fires it with
// that probability (bounded by Count when both are set). With neither, it fires on every
// matching call until cleared.
type Fault struct {
	ID           string        `json:"id,omitempty"`
	Service      string        `json:"service"`
	Operation    string        `json:"operation,omitempty"`
	Kind         FaultKind     `json:"kind"`
	Count        int           `json:"count,omitempty"`
	Rate         float64       `json:"rate,omitempty"`
	Match        string        `json:"match,omitempty"`
	HealthIssues []HealthIssue `json:"health_issues,omitempty"`
	Latency      time.Duration `json:"-"`
	// Status overrides the HTTP status of an AWS error (e.g. 400 for an EC2 "Throttling" or
	// 503 for an EKS ServerError), Code the AWS error code or the gRPC code name
	// ("RESOURCE_EXHAUSTED"), Message the error message.
	Status  int    `json:"status,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// AfterStart (GKE, with Throttle, ServerError or Unavailable) serves the call and then answers
	// with the fault's error: the operation has started, and the client cannot tell (gke_faults.go).
	// With Latency, GKE serves the call when the latency ends even when the caller gave up before.
	AfterStart bool `json:"after_start,omitempty"`
	// Fired counts how often the fault has fired (read-only).
	Fired int `json:"fired"`
}

// MarshalJSON encodes Latency as a Go duration string.
func (f Fault) MarshalJSON() ([]byte, error) {
	type plain Fault
	out := struct {
		plain
		Latency string `json:"latency,omitempty"`
	}{plain: plain(f)}
	if f.Latency > 0 {
		out.Latency = f.Latency.String()
	}
	return json.Marshal(out)
}

// UnmarshalJSON accepts latency as a duration string ("250ms") or a number of milliseconds.
func (f *Fault) UnmarshalJSON(b []byte) error {
	type plain Fault
	var in struct {
		plain
		Latency json.RawMessage `json:"latency,omitempty"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*f = Fault(in.plain)
	if len(in.Latency) == 0 || string(in.Latency) == "null" {
		return nil
	}
	var text string
	if err := json.Unmarshal(in.Latency, &text); err == nil {
		d, err := time.ParseDuration(text)
		if err != nil {
			return fmt.Errorf("latency: %w", err)
		}
		f.Latency = d
		return nil
	}
	ms, err := strconv.ParseFloat(string(in.Latency), 64)
	if err != nil {
		return fmt.Errorf("latency: want a duration string or milliseconds")
	}
	f.Latency = time.Duration(ms * float64(time.Millisecond))
	return nil
}

func (f *Fault) validate() error {
	switch f.Service {
	case "eks", "ec2", "autoscaling", "gke", "compute":
	default:
		return fmt.Errorf("fault: service must be eks, ec2, autoscaling, gke or compute, got %q", f.Service)
	}
	switch f.Kind {
	case Throttle, ServerError, Unavailable, CreateFailed, Degraded:
	case Latency, Stuck:
		if f.Latency <= 0 {
			return fmt.Errorf("fault: %s fault needs a positive latency", f.Kind)
		}
	default:
		return fmt.Errorf("fault: unknown kind %q", f.Kind)
	}
	if f.Service == "eks" {
		for _, is := range f.HealthIssues {
			if !contains(nodegroupIssueCodes, is.Code) {
				return fmt.Errorf("fault: %q is no EKS node group health issue code (one of %v)", is.Code, nodegroupIssueCodes)
			}
		}
	}
	if err := f.validateGKE(); err != nil {
		return err
	}
	if f.Count < 0 || f.Rate < 0 || f.Rate > 1 {
		return fmt.Errorf("fault: count must be >= 0 and rate within [0,1]")
	}
	if f.Match != "" {
		if _, err := path.Match(f.Match, ""); err != nil {
			return fmt.Errorf("fault: bad match pattern: %w", err)
		}
	}
	return nil
}

// createFailedOps are the operations on which a CreateFailed fault applies; elsewhere it never
// matches (there is nothing asynchronous to fail).
var createFailedOps = map[string]bool{
	"eks/CreateNodegroup": true, "eks/UpdateNodegroupConfig": true, "eks/UpdateNodegroupVersion": true, "eks/DeleteNodegroup": true,
	"gke/CreateNodePool": true, "gke/UpdateNodePool": true, "gke/SetNodePoolSize": true,
	"gke/SetNodePoolAutoscaling": true, "gke/DeleteNodePool": true,
}

// degradedOps are the operations on which a Degraded fault applies.
var degradedOps = map[string]bool{
	"gke/CreateNodePool": true, "gke/UpdateNodePool": true, "gke/SetNodePoolSize": true, "gke/SetNodePoolAutoscaling": true,
}

// faultSet holds the active faults in injection order.
type faultSet struct {
	mu     sync.Mutex
	faults []*Fault
	next   int
	rng    *rand.Rand
}

func newFaultSet() *faultSet {
	return &faultSet{rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x5eed))}
}

func (fs *faultSet) add(f Fault) (string, error) {
	if err := f.validate(); err != nil {
		return "", err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.next++
	f.ID = "fault-" + strconv.Itoa(fs.next)
	f.Fired = 0
	fs.faults = append(fs.faults, &f)
	return f.ID, nil
}

func (fs *faultSet) remove(id string) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, f := range fs.faults {
		if f.ID == id {
			fs.faults = append(fs.faults[:i], fs.faults[i+1:]...)
			return true
		}
	}
	return false
}

func (fs *faultSet) clear() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.faults = nil
}

func (fs *faultSet) list() []Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]Fault, 0, len(fs.faults))
	for _, f := range fs.faults {
		out = append(out, *f)
	}
	return out
}

// picked is what the faults decided for one call.
type picked struct {
	latency time.Duration
	started bool   // a Latency fault with AfterStart: the call is served after the latency whatever the caller does
	err     *Fault // Throttle, ServerError or Unavailable: answer with an error, do nothing
	failed  *Fault // CreateFailed or Degraded: do the call, fail the object later
	stuck   *Fault // Stuck: do the call, resolve the object after Latency
}

// pick consumes the faults that fire for one call. All matching latency faults add up; at most
// one error fault and one CreateFailed fault fire, the oldest first.
func (fs *faultSet) pick(service, op, resource string) picked {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var p picked
	kept := fs.faults[:0]
	for _, f := range fs.faults {
		if fs.fires(f, service, op, resource, p) {
			f.Fired++
			switch f.Kind {
			case Latency:
				p.latency += f.Latency
				p.started = p.started || f.AfterStart
			case CreateFailed, Degraded:
				p.failed = copyFault(f)
			case Stuck:
				p.stuck = copyFault(f)
			default:
				p.err = copyFault(f)
			}
			if f.Count > 0 && f.Fired >= f.Count {
				continue // exhausted: drop it
			}
		}
		kept = append(kept, f)
	}
	fs.faults = kept
	return p
}

func (fs *faultSet) fires(f *Fault, service, op, resource string, p picked) bool {
	if f.Service != service || (f.Operation != "" && f.Operation != op) {
		return false
	}
	if f.Match != "" {
		if ok, _ := path.Match(f.Match, resource); !ok {
			return false
		}
	}
	switch f.Kind {
	case CreateFailed:
		if !createFailedOps[service+"/"+op] || p.failed != nil {
			return false
		}
	case Degraded:
		if !degradedOps[service+"/"+op] || p.failed != nil {
			return false
		}
	case Stuck:
		if !stuckOps[service+"/"+op] || p.stuck != nil {
			return false
		}
	case Throttle, ServerError, Unavailable:
		if p.err != nil {
			return false
		}
	}
	if f.Rate > 0 && fs.rng.Float64() >= f.Rate {
		return false
	}
	return true
}

func copyFault(f *Fault) *Fault {
	c := *f
	c.HealthIssues = append([]HealthIssue(nil), f.HealthIssues...)
	return &c
}

// Inject adds a fault and returns its id.
func (s *Sim) Inject(f Fault) (string, error) { return s.faults.add(f) }

// RemoveFault removes one fault by id, reporting whether it existed.
func (s *Sim) RemoveFault(id string) bool { return s.faults.remove(id) }

// ClearFaults removes every fault.
func (s *Sim) ClearFaults() { s.faults.clear() }

// Faults lists the active faults with how often each has fired.
func (s *Sim) Faults() []Fault { return s.faults.list() }

// Ready-made health issues for the common capacity failures, as the clouds report them.
var (
	// IssueSpotCapacity is how EKS reports a Spot node group that cannot get capacity
	// (EKS API Reference: Issue — code AsgInstanceLaunchFailures; the message is EC2's
	// InsufficientInstanceCapacity for Spot).
	IssueSpotCapacity = HealthIssue{
		Code:    "AsgInstanceLaunchFailures",
		Message: "Could not launch Spot Instances. InsufficientInstanceCapacity - There is no Spot capacity available that matches your request. Launching EC2 instance failed.",
	}
	// IssueInsufficientCapacity is how EKS reports an On-Demand capacity shortage.
	IssueInsufficientCapacity = HealthIssue{
		Code:    "AsgInstanceLaunchFailures",
		Message: "Could not launch On-Demand Instances. InsufficientInstanceCapacity - We currently do not have sufficient capacity in the Availability Zone you requested. Launching EC2 instance failed.",
	}
	// IssueGCEStockout is how GKE reports a zone without capacity for the machine type
	// (GKE API Reference: StatusCondition.Code GCE_STOCKOUT).
	IssueGCEStockout = HealthIssue{
		Code:    "GCE_STOCKOUT",
		Message: "The zone does not have enough resources available to fulfill the request. Try a different zone, or try again later.",
	}
)
