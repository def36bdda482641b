package cloudsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/encoding/protojson"
)

// world is everything the simulator knows: the seed plus every object created through the APIs
// (or out of band). It is guarded by Sim.mu and persisted as one JSON document.
type world struct {
	Seed *Seed `json:"seed"`
	// EKS, keyed "region/cluster/nodegroup"; updates keyed by update id.
	Nodegroups map[string]*ngRecord  `json:"nodegroups"`
	Updates    map[string]*updRecord `json:"updates"`
	// ClusterTags holds EKS cluster tags changed through TagResource, keyed "region/cluster".
	ClusterTags map[string]map[string]string `json:"cluster_tags"`
	// ClusterKubernetes points EKS clusters at a real API server after the start (the seed's
	// kubernetes, replaced), keyed "region/cluster", and GKE clusters, keyed by their resource name
	// "projects/<project>/locations/<location>/clusters/<cluster>".
	ClusterKubernetes map[string]*KubernetesAPI `json:"cluster_kubernetes,omitempty"`
	// AMIReleases is the latest AMI release version per "region/<Kubernetes version>", where one was
	// published (PublishAMIRelease); see latestRelease.
	AMIReleases map[string]string `json:"ami_releases"`
	// EC2 launch templates, keyed "region/lt-id".
	LaunchTemplates map[string]*ltRecord `json:"launch_templates"`
	// EC2 placement groups, keyed "region/name" (ec2_placement.go).
	PlacementGroups map[string]*PlacementGroup `json:"placement_groups,omitempty"`
	// The node groups' Auto Scaling groups, keyed "region/name", and their instances, keyed
	// "region/i-id" (eks_fleet.go).
	ASGs      map[string]*asgRecord  `json:"asgs"`
	Instances map[string]*instRecord `json:"instances"`
	// GKE node pools and operations, keyed by their full resource names.
	NodePools  map[string]*npRecord `json:"node_pools"`
	Operations map[string]*opRecord `json:"operations"`
}

func newWorld(seed *Seed) *world {
	w := &world{}
	w.init(seed)
	w.installSeedPools()
	return w
}

// init fills nil maps (a state file may predate a map) and installs the seed.
func (w *world) init(seed *Seed) {
	if seed != nil {
		w.Seed = seed
	}
	if w.Seed == nil {
		w.Seed = &Seed{}
	}
	if w.Nodegroups == nil {
		w.Nodegroups = map[string]*ngRecord{}
	}
	if w.Updates == nil {
		w.Updates = map[string]*updRecord{}
	}
	if w.ClusterTags == nil {
		w.ClusterTags = map[string]map[string]string{}
	}
	if w.AMIReleases == nil {
		w.AMIReleases = map[string]string{}
	}
	if w.LaunchTemplates == nil {
		w.LaunchTemplates = map[string]*ltRecord{}
	}
	if w.PlacementGroups == nil {
		w.PlacementGroups = map[string]*PlacementGroup{}
	}
	if w.ASGs == nil {
		w.ASGs = map[string]*asgRecord{}
	}
	if w.Instances == nil {
		w.Instances = map[string]*instRecord{}
	}
	if w.NodePools == nil {
		w.NodePools = map[string]*npRecord{}
	}
	if w.Operations == nil {
		w.Operations = map[string]*opRecord{}
	}
}

// ngRecord is a stored node group plus its pending transition. While the node group is in a
// transitional status (CREATING, UPDATING, DELETING) Due says when it resolves; the resolution
// is applied lazily by advance on the next access.
type ngRecord struct {
	Region      string        `json:"region"`
	Nodegroup   Nodegroup     `json:"nodegroup"`
	Due         time.Time     `json:"due,omitempty"`
	FailIssues  []HealthIssue `json:"fail_issues,omitempty"` // non-empty: CREATING ends CREATE_FAILED
	UpdateID    string        `json:"update_id,omitempty"`   // the in-progress update
	ClientToken string        `json:"client_token,omitempty"`
	// Degraded are the health issues of a lasting cause (DegradeNodegroup: subnets out of addresses,
	// a deleted role) that keep the node group DEGRADED after any update, until RecoverNodegroup.
	Degraded []HealthIssue `json:"degraded,omitempty"`
	// Reservation is the capacity reservation the node group's launch template targets; InstanceTypes
	// and Zones are what its Auto Scaling group launches and where (see eks_capacity.go).
	Reservation   string   `json:"reservation,omitempty"`
	InstanceTypes []string `json:"instance_types,omitempty"`
	Zones         []string `json:"zones,omitempty"`
	// VisibleAt is when reads first see the new node group (eks_consistency.go); zero: at once.
	VisibleAt time.Time `json:"visible_at,omitempty"`
	// Generation counts the updates that rolled the node group's nodes; its instances of an earlier
	// one are replaced (eks_fleet.go).
	Generation int `json:"generation,omitempty"`
}

// asgRecord is a node group's Auto Scaling group.
type asgRecord struct {
	Region string       `json:"region"`
	Group  ScalingGroup `json:"group"`
}

// instRecord is an instance of a node group.
type instRecord struct {
	Region   string   `json:"region"`
	Instance Instance `json:"instance"`
}

// updRecord is a stored EKS update and the change it applies when it succeeds.
type updRecord struct {
	Region      string        `json:"region"`
	Cluster     string        `json:"cluster"`
	Nodegroup   string        `json:"nodegroup"`
	Update      Update        `json:"update"`
	Change      ngChange      `json:"change"`
	FailIssues  []HealthIssue `json:"fail_issues,omitempty"` // non-empty: the update fails
	ClientToken string        `json:"client_token,omitempty"`
	VisibleAt   time.Time     `json:"visible_at,omitempty"` // see ngRecord.VisibleAt
}

// ltRecord is a stored launch template.
type ltRecord struct {
	Region         string         `json:"region"`
	LaunchTemplate LaunchTemplate `json:"launch_template"`
	ClientToken    string         `json:"client_token,omitempty"`
}

// npRecord is a stored GKE node pool plus its pending transition. Pending is the pool as it
// will be once the running operation succeeds (GKE applies an update when its operation ends).
type npRecord struct {
	Project    string
	Location   string
	Cluster    string
	Pool       *containerpb.NodePool
	Due        time.Time
	Operation  string                      // the running operation, if any
	Pending    *containerpb.NodePool       // applied at Due when the operation succeeds
	NextStatus containerpb.NodePool_Status // status at Due; STATUS_UNSPECIFIED deletes the pool
	FailIssues []HealthIssue
	NodeCount  int32 // current nodes per zone (instance group target size)
	// PendingNodeCount is the size a running SetNodePoolSize operation sets, at Due.
	PendingNodeCount *int32
	// GPUTaint says that GKE taints the pool's GPU nodes with nvidia.com/gpu (see settlePool).
	GPUTaint bool
	// Degraded says that the running operation ends RUNNING_WITH_ERROR with FailIssues, having
	// taken effect (a Degraded fault).
	Degraded bool
	// BlueGreen is a blue-green upgrade in progress (SetBlueGreenPhase).
	BlueGreen *blueGreen
	// CreationID and CreatedAt tell a node pool from one created again under its name
	// (Sim.NodePoolCreation); cloudsim's own, as the GKE API reports neither.
	CreationID string
	CreatedAt  time.Time
}

// blueGreen is a node pool's blue-green upgrade: the blue (old) and green (new) instance groups
// that NodePool.instance_group_urls lists together while it runs, and whether the blue ones are
// already deleted (their URLs still listed, stale).
type blueGreen struct {
	Phase       string   `json:"phase"`
	Blue        []string `json:"blue"`
	Green       []string `json:"green"`
	BlueDeleted bool     `json:"blue_deleted,omitempty"`
}

// opRecord is a stored GKE operation; at Due it becomes DONE, failed with FailCode and
// FailMessage when FailCode is set.
type opRecord struct {
	Project     string
	Location    string
	Cluster     string
	Op          *containerpb.Operation
	Due         time.Time
	FailCode    int32
	FailMessage string
	// StatusOnly: a failure reported in status_message alone, without error (a Degraded fault).
	StatusOnly bool
}

// npRecordJSON and opRecordJSON persist the protobuf fields with protojson, the only encoding
// that round-trips every proto field faithfully.
type npRecordJSON struct {
	Project    string          `json:"project"`
	Location   string          `json:"location"`
	Cluster    string          `json:"cluster"`
	Pool       json.RawMessage `json:"pool"`
	Due        time.Time       `json:"due,omitempty"`
	Operation  string          `json:"operation,omitempty"`
	Pending    json.RawMessage `json:"pending,omitempty"`
	NextStatus string          `json:"next_status,omitempty"`
	FailIssues []HealthIssue   `json:"fail_issues,omitempty"`
	NodeCount  int32           `json:"node_count"`
	PendingNC  *int32          `json:"pending_node_count,omitempty"`
	GPUTaint   bool            `json:"gpu_taint,omitempty"`
	Degraded   bool            `json:"degraded,omitempty"`
	BlueGreen  *blueGreen      `json:"blue_green,omitempty"`
}

func (r *npRecord) MarshalJSON() ([]byte, error) {
	out := npRecordJSON{Project: r.Project, Location: r.Location, Cluster: r.Cluster, Due: r.Due,
		Operation: r.Operation, NextStatus: r.NextStatus.String(), FailIssues: r.FailIssues, NodeCount: r.NodeCount, PendingNC: r.PendingNodeCount,
		GPUTaint: r.GPUTaint, Degraded: r.Degraded, BlueGreen: r.BlueGreen}
	var err error
	if out.Pool, err = protojson.Marshal(r.Pool); err != nil {
		return nil, err
	}
	if r.Pending != nil {
		if out.Pending, err = protojson.Marshal(r.Pending); err != nil {
			return nil, err
		}
	}
	return json.Marshal(out)
}

func (r *npRecord) UnmarshalJSON(b []byte) error {
	var in npRecordJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = npRecord{Project: in.Project, Location: in.Location, Cluster: in.Cluster, Due: in.Due,
		Operation: in.Operation, FailIssues: in.FailIssues, NodeCount: in.NodeCount, PendingNodeCount: in.PendingNC, GPUTaint: in.GPUTaint,
		Degraded: in.Degraded, BlueGreen: in.BlueGreen,
		NextStatus: containerpb.NodePool_Status(containerpb.NodePool_Status_value[in.NextStatus])}
	r.Pool = &containerpb.NodePool{}
	if err := protojson.Unmarshal(in.Pool, r.Pool); err != nil {
		return err
	}
	if len(in.Pending) > 0 {
		r.Pending = &containerpb.NodePool{}
		return protojson.Unmarshal(in.Pending, r.Pending)
	}
	return nil
}

type opRecordJSON struct {
	Project  string          `json:"project"`
	Location string          `json:"location"`
	Cluster  string          `json:"cluster"`
	Op       json.RawMessage `json:"operation"`
	Due      time.Time       `json:"due,omitempty"`
	FailCode int32           `json:"fail_code,omitempty"`
	FailMsg  string          `json:"fail_message,omitempty"`
	Status   bool            `json:"status_only,omitempty"`
}

func (r *opRecord) MarshalJSON() ([]byte, error) {
	op, err := protojson.Marshal(r.Op)
	if err != nil {
		return nil, err
	}
	return json.Marshal(opRecordJSON{Project: r.Project, Location: r.Location, Cluster: r.Cluster, Op: op, Due: r.Due,
		FailCode: r.FailCode, FailMsg: r.FailMessage, Status: r.StatusOnly})
}

func (r *opRecord) UnmarshalJSON(b []byte) error {
	var in opRecordJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = opRecord{Project: in.Project, Location: in.Location, Cluster: in.Cluster, Due: in.Due,
		FailCode: in.FailCode, FailMessage: in.FailMsg, StatusOnly: in.Status, Op: &containerpb.Operation{}}
	return protojson.Unmarshal(in.Op, r.Op)
}

// advance applies every transition that is due. Transitions are time based and evaluated
// lazily on each access, so no background goroutine is needed and a restarted simulator
// catches up on transitions that fell due while it was down.
func (w *world) advance(now time.Time) {
	for _, id := range sortedKeys(w.Nodegroups) {
		if r := w.Nodegroups[id]; !r.Due.IsZero() && !now.Before(r.Due) {
			w.finishNodegroup(id, r)
		}
	}
	for _, id := range sortedKeys(w.Nodegroups) {
		if r := w.Nodegroups[id]; r != nil {
			w.scaleDownBeforeBlockEnd(r, now)
		}
	}
	w.reconcileFleets(now)
	for _, name := range sortedKeys(w.Operations) {
		if r := w.Operations[name]; !r.Due.IsZero() && !now.Before(r.Due) {
			finishOperation(r)
		}
	}
	for _, name := range sortedKeys(w.NodePools) {
		if r := w.NodePools[name]; !r.Due.IsZero() && !now.Before(r.Due) {
			w.finishNodePool(name, r)
		}
	}
}

// loadWorld reads a state file; a missing file yields an empty world.
func loadWorld(path string) (*world, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cloudsim: read state: %w", err)
	}
	var w world
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("cloudsim: parse state %s: %w", path, err)
	}
	return &w, nil
}

// saveWorld writes the state file atomically (temp file + rename in the same directory), so a
// crash or a concurrent reader never sees a half-written world.
func saveWorld(path string, w *world) error {
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return fmt.Errorf("cloudsim: encode state: %w", err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".cloudsim-state-*")
	if err != nil {
		return fmt.Errorf("cloudsim: write state: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("cloudsim: write state: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("cloudsim: write state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cloudsim: write state: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cloudsim: write state: %w", err)
	}
	return nil
}
