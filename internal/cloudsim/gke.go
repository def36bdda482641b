package cloudsim

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// The GKE service: google.container.v1.ClusterManager over gRPC (GKE API Reference, RPC
// reference for google.container.v1). Every RPC not implemented here is answered by the
// generated UnimplementedClusterManagerServer with codes.Unimplemented. This file holds the
// interceptor, names, reads and operations; node pool mutations are in gke_nodepools.go.

const containerAPIBase = "https://container.googleapis.com/v1/"

type gkeServer struct {
	containerpb.UnimplementedClusterManagerServer
	sim *Sim
}

// gkeOps are the implemented RPCs, mutating or not; faults apply only to these.
var gkeOps = map[string]bool{
	"GetCluster": false, "ListClusters": false, "ListNodePools": false, "GetNodePool": false,
	"GetOperation": false, "ListOperations": false,
	"CreateNodePool": true, "UpdateNodePool": true, "SetNodePoolSize": true,
	"SetNodePoolAutoscaling": true, "SetNodePoolManagement": true, "DeleteNodePool": true,
}

type failedKey struct{}

// gkeInterceptor applies IAM (iam.go) and faults, and records every call, implemented or not.
func (s *Sim) gkeInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	op := info.FullMethod[strings.LastIndex(info.FullMethod, "/")+1:]
	start := time.Now()
	var resp any
	var err error
	_, known := gkeOps[op]
	denied := s.authorizeGKE(op, req) // IAM answers before anything else
	switch {
	case denied != nil:
		err = denied
	case known:
		p := s.faults.pick("gke", op, gkeResource(req))
		if p.started {
			// The call reached GKE, which carries it out after the latency even when the caller
			// has given up meanwhile (gke_faults.go); the caller's answer is then lost.
			time.Sleep(p.latency)
			p.latency = 0
			if ctx.Err() != nil {
				_, _ = handler(context.WithValue(context.WithoutCancel(ctx), failedKey{}, p.failed), req)
			}
		}
		sleepCtx(ctx, p.latency)
		switch {
		case ctx.Err() != nil:
			// The caller's deadline passed, or it cancelled, before the call reached the service:
			// it is not served. gRPC propagates the deadline to the server and the call's context
			// ends with it (grpc.io/docs/guides/deadlines: "the server ... can stop work once the
			// deadline is exceeded"); GKE registers no operation for a request that never reached
			// it. (A call the service did start is AfterStart's lost answer.)
			err = status.FromContextError(ctx.Err()).Err()
		case p.err != nil && p.err.AfterStart:
			err = serveThenFail(context.WithValue(ctx, failedKey{}, p.failed), req, handler, p.err)
		case p.err != nil:
			err = gkeFaultError(p.err)
		default:
			resp, err = handler(context.WithValue(ctx, failedKey{}, p.failed), req)
		}
	default:
		resp, err = handler(ctx, req)
	}
	r := Request{Service: "gke", Operation: op, Region: gkeLocation(req), Params: protoParams(req), Time: start}
	if err != nil {
		r.Error = codeName(status.Code(err))
	}
	s.log.add(r)
	return resp, err
}

// gkeFaultError is the gRPC error an injected fault produces.
func gkeFaultError(f *Fault) error {
	c, msg := codes.Internal, "Internal error encountered."
	switch f.Kind {
	case Throttle:
		c, msg = codes.ResourceExhausted, "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'container.googleapis.com'."
	case Unavailable:
		c, msg = codes.Unavailable, "The service is currently unavailable."
	}
	if f.Code != "" {
		var parsed codes.Code
		if err := parsed.UnmarshalJSON([]byte(strconv.Quote(f.Code))); err == nil {
			c = parsed
		}
	}
	if f.Message != "" {
		msg = f.Message
	}
	return status.Error(c, msg)
}

// codeName renders a gRPC code in its canonical form (RESOURCE_EXHAUSTED).
func codeName(c codes.Code) string {
	var b strings.Builder
	for i, r := range c.String() {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

func protoParams(req any) map[string]any {
	params := map[string]any{}
	if m, ok := req.(proto.Message); ok {
		if b, err := protojson.Marshal(m); err == nil {
			_ = json.Unmarshal(b, &params)
		}
	}
	return params
}

// gkeResource is the name a fault's Match is tested against: the node pool, else the cluster.
func gkeResource(req any) string {
	if r, ok := req.(*containerpb.CreateNodePoolRequest); ok {
		return r.GetNodePool().GetName()
	}
	for _, name := range resourceNames(req) {
		if _, after, ok := strings.Cut(name, "/nodePools/"); ok {
			return after
		}
	}
	if r, ok := req.(interface{ GetNodePoolId() string }); ok && r.GetNodePoolId() != "" {
		return r.GetNodePoolId()
	}
	for _, name := range resourceNames(req) {
		if _, after, ok := strings.Cut(name, "/clusters/"); ok {
			return strings.SplitN(after, "/", 2)[0]
		}
	}
	if r, ok := req.(interface{ GetClusterId() string }); ok {
		return r.GetClusterId()
	}
	return ""
}

func resourceNames(req any) []string {
	var out []string
	if r, ok := req.(interface{ GetName() string }); ok {
		out = append(out, r.GetName())
	}
	if r, ok := req.(interface{ GetParent() string }); ok {
		out = append(out, r.GetParent())
	}
	return out
}

// gkeLocation is the location named by a request, for the request log.
func gkeLocation(req any) string {
	for _, name := range resourceNames(req) {
		if _, after, ok := strings.Cut(name, "/locations/"); ok {
			return strings.SplitN(after, "/", 2)[0]
		}
	}
	if r, ok := req.(interface{ GetZone() string }); ok {
		return r.GetZone()
	}
	return ""
}

// clusterRef identifies a cluster: projects/{project}/locations/{location}/clusters/{cluster}.
type clusterRef struct{ project, location, cluster string }

func (r clusterRef) path() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", r.project, r.location, r.cluster)
}

func (r clusterRef) poolPath(pool string) string { return r.path() + "/nodePools/" + pool }

func (r clusterRef) opPath(op string) string {
	return fmt.Sprintf("projects/%s/locations/%s/operations/%s", r.project, r.location, op)
}

// splitName parses "projects/p/locations/l/<kind>/<id>[/<kind>/<id>]" ("zones" is accepted for
// "locations", as in the v1 API's deprecated zonal form).
func splitName(name string) map[string]string {
	parts := strings.Split(name, "/")
	out := map[string]string{}
	for i := 0; i+1 < len(parts); i += 2 {
		kind := parts[i]
		if kind == "zones" {
			kind = "locations"
		}
		out[kind] = parts[i+1]
	}
	return out
}

// parseClusterRef reads a cluster from a resource name, or from the deprecated project_id /
// zone / cluster_id fields.
func parseClusterRef(name, project, zone, cluster string) (clusterRef, error) {
	ref := clusterRef{project: project, location: zone, cluster: cluster}
	if name != "" {
		m := splitName(name)
		ref = clusterRef{project: m["projects"], location: m["locations"], cluster: m["clusters"]}
	}
	if ref.project == "" || ref.location == "" || ref.cluster == "" {
		return ref, invalidArg("Invalid resource name %q: expected projects/*/locations/*/clusters/*.", name)
	}
	return ref, nil
}

func parsePoolRef(name, project, zone, cluster, pool string) (clusterRef, string, error) {
	if name != "" {
		m := splitName(name)
		project, zone, cluster, pool = m["projects"], m["locations"], m["clusters"], m["nodePools"]
	}
	ref, err := parseClusterRef("", project, zone, cluster)
	if err != nil || pool == "" {
		return ref, "", invalidArg("Invalid resource name %q: expected projects/*/locations/*/clusters/*/nodePools/*.", name)
	}
	return ref, pool, nil
}

func notFound(path string) error {
	return status.Errorf(codes.NotFound, "Not found: %s.", path)
}

// do runs f with the world locked and advanced, persisting after a successful mutation.
func (g *gkeServer) do(mutating bool, f func(w *world, now time.Time) error) error {
	s := g.sim
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.w.advance(now)
	err := f(s.w, now)
	if mutating && err == nil {
		s.persistLocked()
	}
	return err
}

func (g *gkeServer) cluster(w *world, ref clusterRef) (*GKEClusterSeed, *GCPProjectSeed, error) {
	p := w.Seed.gcpProject(ref.project)
	if p == nil {
		return nil, nil, notFound(ref.path())
	}
	cl := p.cluster(ref.location, ref.cluster)
	if cl == nil {
		return nil, nil, notFound(ref.path())
	}
	return cl, p, nil
}

func (g *gkeServer) pool(w *world, ref clusterRef, name string) (*npRecord, *GKEClusterSeed, *GCPProjectSeed, error) {
	cl, p, err := g.cluster(w, ref)
	if err != nil {
		return nil, nil, nil, err
	}
	r := w.NodePools[ref.poolPath(name)]
	if r == nil {
		return nil, nil, nil, notFound(ref.poolPath(name))
	}
	return r, cl, p, nil
}

func gkeClusterStatus(cl *GKEClusterSeed) string { return firstNonEmpty(cl.Status, "RUNNING") }

// GKE API Reference: GetCluster.
func (g *gkeServer) GetCluster(_ context.Context, req *containerpb.GetClusterRequest) (*containerpb.Cluster, error) {
	ref, err := parseClusterRef(req.GetName(), req.GetProjectId(), req.GetZone(), req.GetClusterId())
	if err != nil {
		return nil, err
	}
	var out *containerpb.Cluster
	err = g.do(false, func(w *world, _ time.Time) error {
		cl, _, err := g.cluster(w, ref)
		if err != nil {
			return err
		}
		out = clusterProto(w, ref, cl)
		return nil
	})
	return out, err
}

// GKE API Reference: ListClusters ("-" as location lists every location).
func (g *gkeServer) ListClusters(_ context.Context, req *containerpb.ListClustersRequest) (*containerpb.ListClustersResponse, error) {
	m := splitName(req.GetParent())
	project, location := firstNonEmpty(m["projects"], req.GetProjectId()), firstNonEmpty(m["locations"], req.GetZone())
	out := &containerpb.ListClustersResponse{}
	err := g.do(false, func(w *world, _ time.Time) error {
		p := w.Seed.gcpProject(project)
		if p == nil {
			return notFound("projects/" + project)
		}
		for i := range p.Clusters {
			cl := &p.Clusters[i]
			if location == "-" || cl.Location == location {
				out.Clusters = append(out.Clusters, clusterProto(w, clusterRef{project, cl.Location, cl.Name}, cl))
			}
		}
		return nil
	})
	return out, err
}

func clusterProto(w *world, ref clusterRef, cl *GKEClusterSeed) *containerpb.Cluster {
	c := &containerpb.Cluster{
		Name: cl.Name, Location: cl.Location, Zone: cl.Location, Locations: cl.zones(),
		Status:               containerpb.Cluster_Status(containerpb.Cluster_Status_value[gkeClusterStatus(cl)]),
		CurrentMasterVersion: cl.Version, CurrentNodeVersion: cl.Version, InitialClusterVersion: cl.Version,
		SelfLink: containerAPIBase + ref.path(), Endpoint: "34.118.0.1", Network: "default", Subnetwork: "default",
		CreateTime: "2025-01-01T00:00:00+00:00", ResourceLabels: maps.Clone(cl.ResourceLabels),
		NetworkConfig: clusterNetworkConfig(cl),
	}
	if k := gkeClusterKubernetes(w, ref, cl); k != nil {
		// A real API server plays the cluster. GKE API Reference: Cluster.endpoint, "The IP address of
		// this cluster's master endpoint. The endpoint can be accessed from the internet at
		// https://username:password@endpoint/" (an address without scheme; here host:port), and
		// MasterAuth.cluster_ca_certificate, "Base64-encoded public certificate that is the root of
		// trust for the cluster".
		c.Endpoint = strings.TrimPrefix(k.Endpoint, "https://")
		c.MasterAuth = &containerpb.MasterAuth{ClusterCaCertificate: base64.StdEncoding.EncodeToString([]byte(k.CAPEM))}
	}
	for _, r := range poolsOf(w, ref) {
		c.NodePools = append(c.NodePools, proto.Clone(r.Pool).(*containerpb.NodePool))
	}
	return c
}

// gkeClusterKubernetes is the API server that plays a GKE cluster, if any: set at run time
// (SetGKEClusterKubernetes), else the seed's.
func gkeClusterKubernetes(w *world, ref clusterRef, cl *GKEClusterSeed) *KubernetesAPI {
	if k, ok := w.ClusterKubernetes[ref.path()]; ok {
		return k
	}
	return cl.Kubernetes
}

// SetGKEClusterKubernetes points a GKE cluster at a real API server: GetCluster returns its endpoint
// and CA from now on.
func (s *Sim) SetGKEClusterKubernetes(project, location, cluster string, api KubernetesAPI) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ref := clusterRef{project, location, cluster}
	p := s.w.Seed.gcpProject(project)
	if p == nil || p.cluster(location, cluster) == nil {
		return fmt.Errorf("%w: GKE cluster %s", ErrNotFound, ref.path())
	}
	if s.w.ClusterKubernetes == nil {
		s.w.ClusterKubernetes = map[string]*KubernetesAPI{}
	}
	s.w.ClusterKubernetes[ref.path()] = &api
	s.persistLocked()
	return nil
}

// poolsOf returns a cluster's node pools sorted by name.
func poolsOf(w *world, ref clusterRef) []*npRecord {
	prefix := ref.path() + "/nodePools/"
	var out []*npRecord
	for _, key := range sortedKeys(w.NodePools) {
		if strings.HasPrefix(key, prefix) {
			out = append(out, w.NodePools[key])
		}
	}
	return out
}

// GKE API Reference: ListNodePools.
func (g *gkeServer) ListNodePools(_ context.Context, req *containerpb.ListNodePoolsRequest) (*containerpb.ListNodePoolsResponse, error) {
	ref, err := parseClusterRef(req.GetParent(), req.GetProjectId(), req.GetZone(), req.GetClusterId())
	if err != nil {
		return nil, err
	}
	out := &containerpb.ListNodePoolsResponse{}
	err = g.do(false, func(w *world, _ time.Time) error {
		if _, _, err := g.cluster(w, ref); err != nil {
			return err
		}
		for _, r := range poolsOf(w, ref) {
			out.NodePools = append(out.NodePools, proto.Clone(r.Pool).(*containerpb.NodePool))
		}
		return nil
	})
	return out, err
}

// GKE API Reference: GetNodePool.
func (g *gkeServer) GetNodePool(_ context.Context, req *containerpb.GetNodePoolRequest) (*containerpb.NodePool, error) {
	ref, name, err := parsePoolRef(req.GetName(), req.GetProjectId(), req.GetZone(), req.GetClusterId(), req.GetNodePoolId())
	if err != nil {
		return nil, err
	}
	var out *containerpb.NodePool
	err = g.do(false, func(w *world, _ time.Time) error {
		r, _, _, err := g.pool(w, ref, name)
		if err != nil {
			return err
		}
		out = proto.Clone(r.Pool).(*containerpb.NodePool)
		return nil
	})
	return out, err
}

// checkNoRunningOp rejects an operation on a node pool while another one runs on that node pool
// (its own, or one GKE started: an auto-upgrade, an auto-repair, a blue-green upgrade). Operations
// on different node pools of a cluster run side by side, as GKE has allowed since concurrent node
// pool mutations rolled out in December 2022 (terraform-provider-google changelog 6748, "Added
// support for concurrent node pool mutations on a cluster"; it takes a lock per node pool,
// resource_container_node_pool.go). The error is GKE's (FAILED_PRECONDITION, "Operation ... is
// currently ... Please wait and try again once it is done.", hashicorp/terraform-provider-google
// issues #3650 and #10366).
func (g *gkeServer) checkNoRunningOp(w *world, ref clusterRef, pool string) error {
	r := w.NodePools[ref.poolPath(pool)]
	if r == nil || r.Operation == "" {
		return nil
	}
	op := w.Operations[ref.opPath(r.Operation)]
	if op == nil || op.Op.GetStatus() != containerpb.Operation_RUNNING {
		return nil
	}
	return status.Errorf(codes.FailedPrecondition, "Operation %s is currently %s node pool %s. Please wait and try again once it is done.",
		op.Op.GetName(), operationVerb(op.Op.GetOperationType()), pool)
}

func operationVerb(t containerpb.Operation_Type) string {
	switch t {
	case containerpb.Operation_CREATE_NODE_POOL:
		return "creating"
	case containerpb.Operation_DELETE_NODE_POOL:
		return "deleting"
	case containerpb.Operation_AUTO_REPAIR_NODES:
		return "repairing"
	case containerpb.Operation_SET_NODE_POOL_SIZE:
		return "resizing"
	}
	return "upgrading"
}

// startOperation records a RUNNING operation that completes after the transition delay.
func (g *gkeServer) startOperation(w *world, ref clusterRef, typ containerpb.Operation_Type, target string, now time.Time, fail failure) *containerpb.Operation {
	name := fmt.Sprintf("operation-%d-%s", now.UnixMilli(), randomHex(8))
	op := &containerpb.Operation{
		Name: name, Zone: ref.location, Location: ref.location, OperationType: typ,
		Status: containerpb.Operation_RUNNING, SelfLink: containerAPIBase + ref.opPath(name),
		TargetLink: containerAPIBase + target, StartTime: now.UTC().Format(time.RFC3339Nano),
	}
	r := &opRecord{Project: ref.project, Location: ref.location, Cluster: ref.cluster, Op: op,
		Due: now.Add(g.sim.opts.TransitionDelay)}
	if len(fail.issues) > 0 {
		r.FailCode, r.FailMessage, r.StatusOnly = int32(canonicalCode(fail.issues[0].Code)), issueMessage(fail.issues), fail.degraded
	}
	w.Operations[ref.opPath(name)] = r
	return proto.Clone(op).(*containerpb.Operation)
}

// finishOperation marks an operation DONE, with the google.rpc.Status error of a failed one
// (GKE API Reference: Operation.error, Operation.statusMessage). A degraded one (StatusOnly)
// carries its message in the deprecated status_message alone, which clients still get and
// terraform-provider-google judges operations by (container_operation.go).
func finishOperation(r *opRecord) {
	r.Op.Status = containerpb.Operation_DONE
	r.Op.EndTime = r.Due.UTC().Format(time.RFC3339Nano)
	if r.FailCode != 0 {
		if !r.StatusOnly {
			r.Op.Error = &statuspb.Status{Code: r.FailCode, Message: r.FailMessage}
		}
		r.Op.StatusMessage = r.FailMessage
	}
	r.Due = time.Time{}
}

// GKE API Reference: GetOperation.
func (g *gkeServer) GetOperation(_ context.Context, req *containerpb.GetOperationRequest) (*containerpb.Operation, error) {
	m := splitName(req.GetName())
	project := firstNonEmpty(m["projects"], req.GetProjectId())
	location := firstNonEmpty(m["locations"], req.GetZone())
	opName := firstNonEmpty(m["operations"], req.GetOperationId())
	if project == "" || location == "" || opName == "" {
		return nil, invalidArg("Invalid resource name %q: expected projects/*/locations/*/operations/*.", req.GetName())
	}
	path := clusterRef{project: project, location: location}.opPath(opName)
	var out *containerpb.Operation
	err := g.do(false, func(w *world, _ time.Time) error {
		r := w.Operations[path]
		if r == nil {
			return notFound(path)
		}
		out = proto.Clone(r.Op).(*containerpb.Operation)
		return nil
	})
	return out, err
}

// GKE API Reference: ListOperations ("-" as location lists every location), oldest first.
func (g *gkeServer) ListOperations(_ context.Context, req *containerpb.ListOperationsRequest) (*containerpb.ListOperationsResponse, error) {
	m := splitName(req.GetParent())
	project, location := firstNonEmpty(m["projects"], req.GetProjectId()), firstNonEmpty(m["locations"], req.GetZone())
	if project == "" || location == "" {
		return nil, invalidArg("Invalid parent %q: expected projects/*/locations/*.", req.GetParent())
	}
	out := &containerpb.ListOperationsResponse{}
	err := g.do(false, func(w *world, _ time.Time) error {
		for _, key := range sortedKeys(w.Operations) {
			r := w.Operations[key]
			if r.Project == project && (location == "-" || r.Location == location) {
				out.Operations = append(out.Operations, proto.Clone(r.Op).(*containerpb.Operation))
			}
		}
		return nil
	})
	return out, err
}
