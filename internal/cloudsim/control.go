package cloudsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"

	"google.golang.org/protobuf/encoding/protojson"
)

// The control API: a small HTTP/JSON endpoint for the demo and scripts to inject faults, read
// the request log and change the world out of band. Routes are listed in the package doc.

func (s *Sim) controlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, map[string]string{"status": "ok"}) })
	mux.HandleFunc("GET /endpoints", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, s.Endpoints()) })
	mux.HandleFunc("GET /faults", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, s.Faults()) })
	mux.HandleFunc("POST /faults", s.ctlInjectFault)
	mux.HandleFunc("DELETE /faults", func(w http.ResponseWriter, _ *http.Request) { s.ClearFaults(); w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("DELETE /faults/{id}", s.ctlRemoveFault)
	mux.HandleFunc("GET /requests", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, s.RequestsFor(r.URL.Query().Get("service"), r.URL.Query().Get("operation")))
	})
	mux.HandleFunc("DELETE /requests", func(w http.ResponseWriter, _ *http.Request) { s.ResetRequests(); w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /state", s.ctlState)
	mux.HandleFunc("GET /eks/read-after-write-lag", s.ctlReadAfterWriteLag)
	mux.HandleFunc("PUT /eks/read-after-write-lag", s.ctlReadAfterWriteLag)
	mux.HandleFunc("POST /eks/cluster-kubernetes", func(w http.ResponseWriter, r *http.Request) {
		var b struct {
			Region  string `json:"region"`
			Cluster string `json:"cluster"`
			KubernetesAPI
		}
		if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
			writeCtlError(w, err)
			return
		}
		if err := s.SetClusterKubernetes(b.Region, b.Cluster, b.KubernetesAPI); err != nil {
			writeCtlError(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /gke/cluster-kubernetes", func(w http.ResponseWriter, r *http.Request) {
		var b struct {
			Project  string `json:"project"`
			Location string `json:"location"`
			Cluster  string `json:"cluster"`
			KubernetesAPI
		}
		if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
			writeCtlError(w, err)
			return
		}
		if err := s.SetGKEClusterKubernetes(b.Project, b.Location, b.Cluster, b.KubernetesAPI); err != nil {
			writeCtlError(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /oob/eks/delete-nodegroup", s.ctlOOB(func(b oobBody) error { return s.DeleteNodegroup(b.Region, b.Cluster, b.Nodegroup) }))
	mux.HandleFunc("POST /oob/eks/scale-nodegroup", s.ctlOOB(func(b oobBody) error {
		return s.ScaleNodegroup(b.Region, b.Cluster, b.Nodegroup, b.DesiredSize)
	}))
	mux.HandleFunc("POST /oob/eks/set-nodegroup-label", s.ctlOOB(func(b oobBody) error {
		return s.SetNodegroupLabel(b.Region, b.Cluster, b.Nodegroup, b.Key, b.Value)
	}))
	mux.HandleFunc("POST /oob/eks/degrade-nodegroup", s.ctlOOB(func(b oobBody) error {
		return s.DegradeNodegroup(b.Region, b.Cluster, b.Nodegroup, b.HealthIssues...)
	}))
	mux.HandleFunc("POST /oob/eks/recover-nodegroup", s.ctlOOB(func(b oobBody) error { return s.RecoverNodegroup(b.Region, b.Cluster, b.Nodegroup) }))
	mux.HandleFunc("POST /oob/eks/upgrade-cluster", s.ctlOOB(func(b oobBody) error { return s.UpgradeCluster(b.Region, b.Cluster, b.Version, b.Release) }))
	mux.HandleFunc("POST /oob/eks/publish-ami-release", s.ctlOOB(func(b oobBody) error { return s.PublishAMIRelease(b.Region, b.Version, b.Release) }))
	mux.HandleFunc("POST /oob/ec2/end-capacity-block", s.ctlOOB(func(b oobBody) error { return s.EndCapacityBlock(b.Region, b.Reservation) }))
	mux.HandleFunc("POST /oob/gke/delete-node-pool", s.ctlOOB(func(b oobBody) error {
		return s.DeleteNodePool(b.Project, b.Location, b.Cluster, b.NodePool)
	}))
	mux.HandleFunc("POST /oob/gke/scale-node-pool", s.ctlOOB(func(b oobBody) error {
		return s.ScaleNodePool(b.Project, b.Location, b.Cluster, b.NodePool, b.NodeCount)
	}))
	mux.HandleFunc("POST /oob/gke/set-node-pool-label", s.ctlOOB(func(b oobBody) error {
		return s.SetNodePoolLabel(b.Project, b.Location, b.Cluster, b.NodePool, b.Key, b.Value)
	}))
	mux.HandleFunc("POST /oob/gke/auto-upgrade-node-pool", s.ctlOOB(func(b oobBody) error {
		d, err := b.duration()
		if err != nil {
			return err
		}
		return s.AutoUpgradeNodePool(b.Project, b.Location, b.Cluster, b.NodePool, b.Version, d)
	}))
	mux.HandleFunc("POST /oob/gke/auto-repair-node-pool", s.ctlOOB(func(b oobBody) error {
		d, err := b.duration()
		if err != nil {
			return err
		}
		return s.AutoRepairNodePool(b.Project, b.Location, b.Cluster, b.NodePool, d)
	}))
	mux.HandleFunc("POST /oob/gke/upgrade-control-plane", s.ctlOOB(func(b oobBody) error {
		return s.UpgradeGKEControlPlane(b.Project, b.Location, b.Cluster, b.Version)
	}))
	mux.HandleFunc("POST /oob/gke/retire-node-versions", s.ctlOOB(func(b oobBody) error {
		return s.RetireGKENodeVersions(b.Project, b.Location, b.Cluster, b.Versions...)
	}))
	mux.HandleFunc("POST /oob/gke/blue-green-phase", s.ctlOOB(func(b oobBody) error {
		phase, ok := containerpb.NodePool_UpdateInfo_BlueGreenInfo_Phase_value[b.Phase]
		if !ok {
			return fmt.Errorf("phase: %q is not a blue-green phase (UPDATE_STARTED … DELETING_BLUE_POOL, PHASE_UNSPECIFIED to end)", b.Phase)
		}
		return s.SetBlueGreenPhase(b.Project, b.Location, b.Cluster, b.NodePool, containerpb.NodePool_UpdateInfo_BlueGreenInfo_Phase(phase))
	}))
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeCtlError(w http.ResponseWriter, err error) {
	status := http.StatusBadRequest
	if errors.Is(err, ErrNotFound) {
		status = http.StatusNotFound
	}
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

func (s *Sim) ctlInjectFault(w http.ResponseWriter, r *http.Request) {
	var f Fault
	if err := json.NewDecoder(r.Body).Decode(&f); err != nil {
		writeCtlError(w, fmt.Errorf("fault: %w", err))
		return
	}
	id, err := s.Inject(f)
	if err != nil {
		writeCtlError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": id})
}

func (s *Sim) ctlRemoveFault(w http.ResponseWriter, r *http.Request) {
	if !s.RemoveFault(r.PathValue("id")) {
		writeCtlError(w, fmt.Errorf("%w: fault %s", ErrNotFound, r.PathValue("id")))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ctlState dumps the objects the APIs created: node groups, launch templates and node pools
// (the latter as protojson), for the demo and for debugging.
func (s *Sim) ctlState(w http.ResponseWriter, _ *http.Request) {
	pools := []json.RawMessage{}
	s.view(func(wd *world) {
		for _, key := range sortedKeys(wd.NodePools) {
			if b, err := protojson.Marshal(wd.NodePools[key].Pool); err == nil {
				pools = append(pools, b)
			}
		}
	})
	writeJSON(w, 200, map[string]any{
		"nodegroups":       s.Nodegroups("", ""),
		"launch_templates": s.LaunchTemplates(""),
		"node_pools":       pools,
	})
}

// oobBody is the JSON body of the out-of-band routes.
type oobBody struct {
	Region       string        `json:"region"`
	Cluster      string        `json:"cluster"`
	Nodegroup    string        `json:"nodegroup"`
	DesiredSize  int32         `json:"desired_size"`
	HealthIssues []HealthIssue `json:"health_issues"`
	Project      string        `json:"project"`
	Location     string        `json:"location"`
	NodePool     string        `json:"node_pool"`
	NodeCount    int32         `json:"node_count"`
	Key          string        `json:"key"`
	Value        string        `json:"value"`
	Version      string        `json:"version"`
	Versions     []string      `json:"versions"`
	Duration     string        `json:"duration"`
	Phase        string        `json:"phase"`
	Release      string        `json:"release"`
	Reservation  string        `json:"reservation"`
}

// duration is the body's duration ("30s"), 0 when absent.
func (b oobBody) duration() (time.Duration, error) {
	if b.Duration == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(b.Duration)
	if err != nil {
		return 0, fmt.Errorf("duration: %w", err)
	}
	return d, nil
}

func (s *Sim) ctlOOB(f func(oobBody) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var b oobBody
		if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
			writeCtlError(w, fmt.Errorf("body: %w", err))
			return
		}
		if err := f(b); err != nil {
			writeCtlError(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}
