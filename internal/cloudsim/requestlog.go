package cloudsim

import (
	"sync"
	"time"
)

// Request is one API call received by the simulator, recorded before validation so that tests
// can assert both what the provider sent and that bad input produced no call at all.
type Request struct {
	Service   string `json:"service"`          // "eks", "ec2", "autoscaling", "gke" or "compute"
	Operation string `json:"operation"`        // API operation name, e.g. "CreateNodegroup"
	Region    string `json:"region,omitempty"` // AWS region from the SigV4 scope; GKE location; Compute zone
	// Params holds the decoded request: for EKS the JSON body merged with path labels and query
	// parameters (e.g. clusterName, nodegroupName); for EC2 the Query form as a tree
	// ("LaunchTemplateData" → {"TagSpecification": [{"ResourceType": ...}]}), lists 1-based in
	// the wire but 0-based here; for GKE the request message as protojson (camelCase names,
	// int64 as strings).
	Params map[string]any `json:"params"`
	Time   time.Time      `json:"time"`
	// Error is the error code returned (AWS error code or gRPC code name), empty on success.
	Error string `json:"error,omitempty"`
}

// requestLog is an append-only, process-safe log of requests.
type requestLog struct {
	mu   sync.Mutex
	reqs []Request
}

func (l *requestLog) add(r Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, r)
}

func (l *requestLog) list(service, operation string) []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []Request{}
	for _, r := range l.reqs {
		if (service == "" || r.Service == service) && (operation == "" || r.Operation == operation) {
			// Params are deep-copied: callers may modify what they get, and the EC2 request
			// tree is shared with the stored launch template data.
			var params map[string]any
			mustRoundTrip(r.Params, &params)
			r.Params = params
			out = append(out, r)
		}
	}
	return out
}

func (l *requestLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = nil
}

// Requests returns every request received so far, oldest first.
func (s *Sim) Requests() []Request { return s.log.list("", "") }

// RequestsFor returns the requests for one service and operation ("" matches any).
func (s *Sim) RequestsFor(service, operation string) []Request {
	return s.log.list(service, operation)
}

// ResetRequests empties the request log.
func (s *Sim) ResetRequests() { s.log.reset() }
