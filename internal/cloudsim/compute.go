package cloudsim

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
)

// The Compute Engine service, as far as GKE node pools need it: the GKE API does not report a
// node pool's current size, its managed instance groups do (NodePool.instance_group_urls), so
// clients read it with instanceGroupManagers.get (Compute Engine API Reference, REST v1:
// instanceGroupManagers.get). REST/JSON under /compute/v1/, as the google.golang.org/api
// compute client builds its URLs from its base path.

// computePathPrefix is where the Compute API lives on the simulator's Compute endpoint.
const computePathPrefix = "/compute/v1/"

const (
	opIGMGet         = "instanceGroupManagers.get"
	opReservationGet = "reservations.get"
)

// instanceGroupManager is the part of the Compute Engine InstanceGroupManager resource the
// simulator fills in.
type instanceGroupManager struct {
	Kind              string    `json:"kind"`
	ID                string    `json:"id"`
	CreationTimestamp string    `json:"creationTimestamp"`
	Name              string    `json:"name"`
	Zone              string    `json:"zone"`
	SelfLink          string    `json:"selfLink"`
	InstanceGroup     string    `json:"instanceGroup"`
	InstanceTemplate  string    `json:"instanceTemplate"`
	BaseInstanceName  string    `json:"baseInstanceName"`
	TargetSize        int32     `json:"targetSize"`
	Status            igmStatus `json:"status"`
}

type igmStatus struct {
	IsStable bool `json:"isStable"`
}

// serveCompute answers GET {base}projects/{project}/zones/{zone}/instanceGroupManagers/{name} and
// GET {base}projects/{project}/zones/{zone}/reservations/{name}; any other request is 404
// notFound, recorded as UnknownOperation.
func (s *Sim) serveCompute(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, computePathPrefix), "/")
	if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, computePathPrefix) || len(parts) != 6 ||
		parts[0] != "projects" || parts[2] != "zones" || (parts[4] != "instanceGroupManagers" && parts[4] != "reservations") {
		s.log.add(Request{Service: "compute", Operation: "UnknownOperation", Time: start, Error: "notFound",
			Params: map[string]any{"method": r.Method, "path": r.URL.Path}})
		writeCompute(w, nil, &apiError{status: 404, code: "notFound", message: "The requested URL " + r.URL.Path + " was not found on this server."})
		return
	}
	project, zone, kind, name := parts[1], parts[3], parts[4], parts[5]
	op, param := opIGMGet, "instanceGroupManager"
	if kind == "reservations" {
		op, param = opReservationGet, "reservation"
	}
	denied := s.authorizeCompute(op, strings.Join(parts, "/")) // IAM answers before anything else
	var p picked
	if denied == nil {
		p = s.faults.pick("compute", op, name)
		sleepCtx(r.Context(), p.latency)
	}
	var out any
	var cerr *apiError
	switch {
	case denied != nil:
		cerr = denied
	case p.err != nil:
		cerr = computeFaultError(p.err)
	case kind == "reservations":
		s.view(func(w *world) { out, cerr = w.reservationResource(project, zone, name) })
	default:
		s.view(func(w *world) { out, cerr = w.instanceGroupManager(project, zone, name) })
	}
	req := Request{Service: "compute", Operation: op, Region: zone, Time: start,
		Params: map[string]any{"project": project, "zone": zone, param: name}}
	if cerr != nil {
		req.Error = cerr.code
	}
	s.log.add(req)
	writeCompute(w, out, cerr)
}

// instanceGroupManager finds the node pool that owns a managed instance group; its target size
// is the pool's node count per zone. During a blue-green upgrade the green groups are as large as
// the blue ones, and blue groups already deleted are not found although the pool still lists them.
func (w *world) instanceGroupManager(project, zone, name string) (*instanceGroupManager, *apiError) {
	path := "projects/" + project + "/zones/" + zone + "/instanceGroupManagers/" + name
	for _, key := range sortedKeys(w.NodePools) {
		r := w.NodePools[key]
		for _, u := range r.Pool.GetInstanceGroupUrls() {
			if u != computeAPIBase+path {
				continue
			}
			if bg := r.BlueGreen; bg != nil && bg.BlueDeleted && contains(bg.Blue, u) {
				break
			}
			return igmResource(project, zone, name, r), nil
		}
	}
	return nil, &apiError{status: 404, code: "notFound", message: "The resource '" + path + "' was not found"}
}

// reservation is the part of the Compute Engine Reservation resource the simulator fills in
// (Compute Engine API Reference, REST v1: reservations.get; int64 fields are JSON strings).
type reservation struct {
	Kind                        string              `json:"kind"`
	ID                          string              `json:"id"`
	Name                        string              `json:"name"`
	Zone                        string              `json:"zone"`
	SelfLink                    string              `json:"selfLink"`
	Status                      string              `json:"status"`
	SpecificReservationRequired bool                `json:"specificReservationRequired"`
	SpecificReservation         specificReservation `json:"specificReservation"`
	ShareSettings               shareSettings       `json:"shareSettings"`
}

type specificReservation struct {
	Count              string                `json:"count"`
	InUseCount         string                `json:"inUseCount"`
	InstanceProperties reservationProperties `json:"instanceProperties"`
}

type reservationProperties struct {
	MachineType       string                   `json:"machineType"`
	GuestAccelerators []reservationAccelerator `json:"guestAccelerators,omitempty"`
}

type reservationAccelerator struct {
	AcceleratorType  string `json:"acceleratorType"`
	AcceleratorCount int    `json:"acceleratorCount"`
}

type shareSettings struct {
	ShareType  string                       `json:"shareType"`
	ProjectMap map[string]map[string]string `json:"projectMap,omitempty"`
}

// reservationResource answers reservations.get: the seeded reservation of the project in the
// zone (reservations are zonal: another zone's answer is 404).
func (w *world) reservationResource(project, zone, name string) (*reservation, *apiError) {
	path := "projects/" + project + "/zones/" + zone + "/reservations/" + name
	var rsv *GCEReservationSeed
	if p := w.Seed.gcpProject(project); p != nil {
		rsv = p.reservation(name)
	}
	if rsv == nil || rsv.Zone != zone {
		return nil, &apiError{status: 404, code: "notFound", message: "The resource '" + path + "' was not found"}
	}
	h := fnv.New64a()
	h.Write([]byte(path))
	out := &reservation{Kind: "compute#reservation", ID: strconv.FormatUint(h.Sum64(), 10), Name: name,
		Zone: computeAPIBase + "projects/" + project + "/zones/" + zone, SelfLink: computeAPIBase + path, Status: "READY",
		SpecificReservation: specificReservation{Count: strconv.Itoa(rsv.Count), InUseCount: "0",
			InstanceProperties: reservationProperties{MachineType: rsv.MachineType}},
		ShareSettings: shareSettings{ShareType: "LOCAL"}}
	if rsv.AcceleratorType != "" {
		out.SpecificReservation.InstanceProperties.GuestAccelerators = []reservationAccelerator{{AcceleratorType: rsv.AcceleratorType, AcceleratorCount: rsv.AcceleratorCount}}
	}
	switch rsv.shareType() {
	case shareSpecificProjects:
		out.ShareSettings = shareSettings{ShareType: shareSpecificProjects, ProjectMap: map[string]map[string]string{}}
		for _, p := range rsv.ShareWith {
			out.ShareSettings.ProjectMap[p] = map[string]string{"projectId": p}
		}
	case shareOrganization:
		out.ShareSettings = shareSettings{ShareType: shareOrganization}
	}
	return out, nil
}

func igmResource(project, zone, name string, r *npRecord) *instanceGroupManager {
	h := fnv.New64a()
	h.Write([]byte(project + "/" + zone + "/" + name))
	base := strings.TrimSuffix(name, "-grp")
	zoneURL := computeAPIBase + "projects/" + project + "/zones/" + zone
	transitional := r.Pool.GetStatus() == containerpb.NodePool_PROVISIONING ||
		r.Pool.GetStatus() == containerpb.NodePool_RECONCILING || r.Pool.GetStatus() == containerpb.NodePool_STOPPING
	return &instanceGroupManager{
		Kind: "compute#instanceGroupManager", ID: strconv.FormatUint(h.Sum64(), 10),
		CreationTimestamp: "2025-01-01T00:00:00.000-08:00",
		Name:              name, Zone: zoneURL, SelfLink: zoneURL + "/instanceGroupManagers/" + name,
		InstanceGroup:    zoneURL + "/instanceGroups/" + name,
		InstanceTemplate: computeAPIBase + "projects/" + project + "/global/instanceTemplates/" + base,
		BaseInstanceName: base, TargetSize: r.NodeCount, Status: igmStatus{IsStable: !transitional},
	}
}

// computeFaultError is the error an injected fault produces on the Compute API (Compute
// Engine API: rate limits answer 429 rateLimitExceeded; 5xx errors are backendError).
// The fault's Code overrides the reason.
func computeFaultError(f *Fault) *apiError {
	e := &apiError{status: 500, code: "backendError", message: "Internal error. Please try again or contact Google Support."}
	switch f.Kind {
	case Throttle:
		e = &apiError{status: 429, code: "rateLimitExceeded", message: "Rate Limit Exceeded"}
	case Unavailable:
		e = &apiError{status: 503, code: "backendError", message: "The service is currently unavailable."}
	}
	return e.withOverrides(f)
}

// writeCompute writes a resource, or a Google API error: the HTTP status, the message and the
// reason in errors[0] (Google JSON style guide, "error" object; googleapi.Error decodes it).
func writeCompute(w http.ResponseWriter, out any, cerr *apiError) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if cerr != nil {
		w.WriteHeader(cerr.status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"code": cerr.status, "message": cerr.message,
			"errors": []map[string]any{{"message": cerr.message, "domain": "global", "reason": cerr.code}},
		}})
		return
	}
	_ = json.NewEncoder(w).Encode(out)
}
