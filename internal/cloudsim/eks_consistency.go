package cloudsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Read-after-write lag. EKS, like most AWS control planes, is eventually consistent: nothing in the
// EKS API Reference promises that a node group or an update is readable the moment
// CreateNodegroup or UpdateNodegroupConfig/Version returns, and terraform-provider-aws does not
// count on it: its node group waiters (internal/service/eks/node_group.go statusNodegroup,
// statusNodegroupUpdate) read "not found" as an empty state, which its StateChangeConf
// (internal/retry/state.go) retries up to NotFoundChecks (20) times before it fails. Whether EKS
// ever answers ResourceNotFoundException right after such a write is open (audit
// eks-vs-real.md, D9 and question Q5); a client that fails on the first not-found would fail a
// create that succeeded. With a lag set, a node group CreateNodegroup made is not found by
// DescribeNodegroup nor listed by ListNodegroups, and an update UpdateNodegroupConfig/Version
// started is not found by DescribeUpdate, until the lag has passed. Every other call sees them at
// once. Zero (the default) is read-after-write consistency.

// SetReadAfterWriteLag sets how long a new node group or update stays invisible to reads (0: none).
func (s *Sim) SetReadAfterWriteLag(d time.Duration) { s.eksLag.Store(int64(max(d, 0))) }

// ReadAfterWriteLag is the current read-after-write lag.
func (s *Sim) ReadAfterWriteLag() time.Duration { return time.Duration(s.eksLag.Load()) }

// visibleAfter is when an object written at now becomes readable; zero without a lag.
func (s *Sim) visibleAfter(now time.Time) time.Time {
	if lag := s.ReadAfterWriteLag(); lag > 0 {
		return now.Add(lag)
	}
	return time.Time{}
}

// invisible reports whether an object readable from visibleAt is not readable yet at now.
func invisible(visibleAt, now time.Time) bool { return !visibleAt.IsZero() && now.Before(visibleAt) }

// ctlReadAfterWriteLag serves PUT /eks/read-after-write-lag {"lag":"2s"} (also GET).
func (s *Sim) ctlReadAfterWriteLag(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		writeJSON(w, http.StatusOK, map[string]string{"lag": s.ReadAfterWriteLag().String()})
		return
	}
	var body struct {
		Lag string `json:"lag"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeCtlError(w, fmt.Errorf("body: %w", err))
		return
	}
	d, err := time.ParseDuration(body.Lag)
	if err != nil || d < 0 {
		writeCtlError(w, fmt.Errorf("lag: want a duration such as \"2s\", got %q", body.Lag))
		return
	}
	s.SetReadAfterWriteLag(d)
	w.WriteHeader(http.StatusNoContent)
}
