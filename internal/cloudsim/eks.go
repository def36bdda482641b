package cloudsim

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The EKS service speaks restJson1 (EKS API Reference; the SDK's schemas in
// github.com/aws/aws-sdk-go-v2/service/eks/schemas give every path and member name used here).
// This file holds routing, errors, clusters and tags; node groups are in eks_nodegroups.go.

// eksRoute maps one HTTP method and path pattern to an operation.
type eksRoute struct {
	method   string
	segs     []string // "{label}" segments capture path labels
	op       string
	mutating bool
	h        awsHandler
}

func route(pattern, op string, mutating bool, h awsHandler) eksRoute {
	method, p, _ := strings.Cut(pattern, " ")
	return eksRoute{method: method, segs: strings.Split(strings.Trim(p, "/"), "/"), op: op, mutating: mutating, h: h}
}

// eksRoutes are the supported operations, with the HTTP bindings of the EKS API Reference.
var eksRoutes = []eksRoute{
	route("GET /clusters", "ListClusters", false, (*Sim).eksListClusters),
	route("GET /clusters/{name}", "DescribeCluster", false, (*Sim).eksDescribeCluster),
	route("POST /clusters/{clusterName}/node-groups", "CreateNodegroup", true, (*Sim).eksCreateNodegroup),
	route("GET /clusters/{clusterName}/node-groups", "ListNodegroups", false, (*Sim).eksListNodegroups),
	route("GET /clusters/{clusterName}/node-groups/{nodegroupName}", "DescribeNodegroup", false, (*Sim).eksDescribeNodegroup),
	route("DELETE /clusters/{clusterName}/node-groups/{nodegroupName}", "DeleteNodegroup", true, (*Sim).eksDeleteNodegroup),
	route("POST /clusters/{clusterName}/node-groups/{nodegroupName}/update-config", "UpdateNodegroupConfig", true, (*Sim).eksUpdateNodegroupConfig),
	route("POST /clusters/{clusterName}/node-groups/{nodegroupName}/update-version", "UpdateNodegroupVersion", true, (*Sim).eksUpdateNodegroupVersion),
	route("GET /clusters/{name}/updates/{updateId}", "DescribeUpdate", false, (*Sim).eksDescribeUpdate),
	route("POST /tags/{resourceArn}", "TagResource", true, (*Sim).eksTagResource),
	route("DELETE /tags/{resourceArn}", "UntagResource", true, (*Sim).eksUntagResource),
	route("GET /tags/{resourceArn}", "ListTagsForResource", false, (*Sim).eksListTagsForResource),
}

// matchEKSRoute finds the route for a request. Labels are matched on the escaped path and then
// unescaped, because a resource ARN label carries escaped "/" (%2F) characters.
func matchEKSRoute(method, escapedPath string) (*eksRoute, map[string]string) {
	segs := strings.Split(strings.Trim(escapedPath, "/"), "/")
	for i := range eksRoutes {
		rt := &eksRoutes[i]
		if rt.method != method || len(rt.segs) != len(segs) {
			continue
		}
		if labels, ok := matchSegments(rt.segs, segs); ok {
			return rt, labels
		}
	}
	return nil, nil
}

func matchSegments(pattern, segs []string) (map[string]string, bool) {
	labels := map[string]string{}
	for i, p := range pattern {
		if strings.HasPrefix(p, "{") {
			v, err := url.PathUnescape(segs[i])
			if err != nil || v == "" {
				return nil, false
			}
			labels[strings.Trim(p, "{}")] = v
			continue
		}
		if p != segs[i] {
			return nil, false
		}
	}
	return labels, true
}

func (s *Sim) serveEKS(w http.ResponseWriter, r *http.Request) {
	region := regionFromAuth(r.Header.Get("Authorization"))
	body, _ := io.ReadAll(r.Body)
	rt, labels := matchEKSRoute(r.Method, r.URL.EscapedPath())
	params := eksParams(body, labels, r.URL.Query())
	if rt == nil {
		// A REST path that matches no operation: AWS answers 404 UnknownOperationException,
		// never a silent 200.
		params["method"], params["path"] = r.Method, r.URL.Path
		s.log.add(Request{Service: "eks", Operation: "UnknownOperation", Region: region, Params: params,
			Time: time.Now(), Error: "UnknownOperationException"})
		writeEKS(w, nil, &apiError{status: 404, code: "UnknownOperationException", message: "Unknown operation " + r.Method + " " + r.URL.Path})
		return
	}
	c := &call{service: "eks", op: rt.op, region: region, labels: labels, query: r.URL.Query(), body: body, accessKey: accessKeyFromAuth(r.Header.Get("Authorization"))}
	out, aerr := s.invokeAWS(r.Context(), c, eksResource(params), params, rt.mutating, rt.h)
	writeEKS(w, out, aerr)
}

// eksParams merges the JSON body, the path labels and the query into the logged parameters.
func eksParams(body []byte, labels map[string]string, query url.Values) map[string]any {
	params := map[string]any{}
	if len(body) > 0 {
		_ = json.Unmarshal(body, &params)
	}
	for k, v := range labels {
		params[k] = v
	}
	for k, vs := range query {
		if len(vs) == 1 && k != "tagKeys" {
			params[k] = vs[0]
		} else {
			params[k] = append([]string(nil), vs...)
		}
	}
	return params
}

// eksResource is the name a fault's Match is tested against.
func eksResource(params map[string]any) string {
	for _, k := range []string{"nodegroupName", "clusterName", "name", "resourceArn"} {
		if v, ok := params[k].(string); ok && v != "" {
			return v
		}
	}
	return ""
}

func writeEKS(w http.ResponseWriter, out []byte, aerr *apiError) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-amzn-RequestId", newUUID())
	if aerr != nil {
		// restJson1 errors: the type in the X-Amzn-ErrorType header, the members (message,
		// clusterName, ...) in the body (smithy restJson1 protocol, error serialization).
		w.Header().Set("X-Amzn-ErrorType", aerr.code)
		body := map[string]string{"message": aerr.message}
		for k, v := range aerr.fields {
			body[k] = v
		}
		w.WriteHeader(aerr.status)
		_ = json.NewEncoder(w).Encode(body)
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// EKS errors (EKS API Reference: Common Errors and each operation's Errors section).
func eksNotFoundCluster(name string) *apiError {
	return &apiError{status: 404, code: "ResourceNotFoundException", message: "No cluster found for name: " + name + ".",
		fields: map[string]string{"clusterName": name}}
}

func eksNotFoundNodegroup(cluster, name string) *apiError {
	return &apiError{status: 404, code: "ResourceNotFoundException", message: "No node group found for name: " + name + ".",
		fields: map[string]string{"clusterName": cluster, "nodegroupName": name}}
}

func eksInvalidParameter(cluster, nodegroup, format string, args ...any) *apiError {
	fields := map[string]string{}
	if cluster != "" {
		fields["clusterName"] = cluster
	}
	if nodegroup != "" {
		fields["nodegroupName"] = nodegroup
	}
	return &apiError{status: 400, code: "InvalidParameterException", message: fmt.Sprintf(format, args...), fields: fields}
}

func eksInvalidRequest(cluster, nodegroup, format string, args ...any) *apiError {
	e := eksInvalidParameter(cluster, nodegroup, format, args...)
	e.code = "InvalidRequestException"
	return e
}

func eksInUse(cluster, nodegroup, format string, args ...any) *apiError {
	e := eksInvalidParameter(cluster, nodegroup, format, args...)
	e.status, e.code = 409, "ResourceInUseException"
	return e
}

func eksJSON(v any) ([]byte, *apiError) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &apiError{status: 500, code: "ServerException", message: err.Error()}
	}
	return b, nil
}

// decodeEKS decodes a request body; a malformed body is a SerializationException, as for any
// restJson1 service.
func decodeEKS(body []byte, v any) *apiError {
	if len(body) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &apiError{status: 400, code: "SerializationException", message: err.Error()}
	}
	return nil
}

func ngKey(region, cluster, name string) string { return region + "/" + cluster + "/" + name }

func clusterARN(region, name string) string {
	return fmt.Sprintf("arn:aws:eks:%s:%s:cluster/%s", region, AccountID, name)
}

// eksCluster returns the seeded cluster, or ResourceNotFoundException.
func (s *Sim) eksCluster(region, name string) (*EKSClusterSeed, *apiError) {
	c := s.w.Seed.awsRegion(region).cluster(name)
	if c == nil {
		return nil, eksNotFoundCluster(name)
	}
	return c, nil
}

func clusterStatus(c *EKSClusterSeed) string {
	if c.Status == "" {
		return "ACTIVE"
	}
	return c.Status
}

func clusterReleaseVersion(c *EKSClusterSeed) string {
	if c.ReleaseVersion != "" {
		return c.ReleaseVersion
	}
	return c.Version + ".0-20250101"
}

// EKS API Reference: DescribeCluster.
func (s *Sim) eksDescribeCluster(c *call) ([]byte, *apiError) {
	cl, aerr := s.eksCluster(c.region, c.labels["name"])
	if aerr != nil {
		return nil, aerr
	}
	return eksJSON(map[string]any{"cluster": s.clusterJSON(c.region, cl)})
}

func (s *Sim) clusterJSON(region string, cl *EKSClusterSeed) map[string]any {
	sum := sha256.Sum256([]byte(region + "/" + cl.Name))
	id := strings.ToUpper(hex.EncodeToString(sum[:16]))
	rs := s.w.Seed.awsRegion(region)
	subnets, vpc := []string{}, ""
	for _, sn := range rs.Subnets {
		subnets = append(subnets, sn.ID)
		vpc = sn.VpcID
	}
	endpoint := fmt.Sprintf("https://%s.gr7.%s.eks.amazonaws.com", id, region)
	ca := base64.StdEncoding.EncodeToString([]byte("cloudsim-ca-" + id))
	if k := s.clusterKubernetes(region, cl); k != nil {
		// A real API server plays the cluster: DescribeCluster gives its endpoint and the base64 of
		// its CA certificate's PEM, as EKS gives certificateAuthority.data (EKS API Reference:
		// Certificate — "the Base64-encoded certificate data required to communicate with your
		// cluster").
		endpoint, ca = k.Endpoint, base64.StdEncoding.EncodeToString([]byte(k.CAPEM))
	}
	return map[string]any{
		"name":            cl.Name,
		"arn":             clusterARN(region, cl.Name),
		"createdAt":       epoch(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)),
		"version":         cl.Version,
		"endpoint":        endpoint,
		"roleArn":         fmt.Sprintf("arn:aws:iam::%s:role/eks-cluster-%s", AccountID, cl.Name),
		"status":          clusterStatus(cl),
		"platformVersion": "eks.1",
		"tags":            s.clusterTags(region, cl),
		"id":              strings.ToLower(id[:8]) + "-" + strings.ToLower(id[8:12]),
		"resourcesVpcConfig": map[string]any{
			"subnetIds": subnets, "vpcId": vpc, "endpointPublicAccess": true, "endpointPrivateAccess": false,
		},
		"kubernetesNetworkConfig": map[string]any{"serviceIpv4Cidr": "10.100.0.0/16", "ipFamily": "ipv4"},
		"certificateAuthority":    map[string]any{"data": ca},
		"health":                  map[string]any{"issues": []any{}},
	}
}

// clusterKubernetes is the API server that plays the cluster, if any: set at run time
// (SetClusterKubernetes), else the seed's.
func (s *Sim) clusterKubernetes(region string, cl *EKSClusterSeed) *KubernetesAPI {
	if k, ok := s.w.ClusterKubernetes[region+"/"+cl.Name]; ok {
		return k
	}
	return cl.Kubernetes
}

// SetClusterKubernetes points an EKS cluster at a real API server: DescribeCluster returns its
// endpoint and CA from now on.
func (s *Sim) SetClusterKubernetes(region, cluster string, api KubernetesAPI) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w.Seed.awsRegion(region).cluster(cluster) == nil {
		return fmt.Errorf("%w: EKS cluster %s in %s", ErrNotFound, cluster, region)
	}
	if s.w.ClusterKubernetes == nil {
		s.w.ClusterKubernetes = map[string]*KubernetesAPI{}
	}
	s.w.ClusterKubernetes[region+"/"+cluster] = &api
	s.persistLocked()
	return nil
}

func (s *Sim) clusterTags(region string, cl *EKSClusterSeed) map[string]string {
	if t, ok := s.w.ClusterTags[region+"/"+cl.Name]; ok {
		return cloneMap(t)
	}
	if cl.Tags == nil {
		return map[string]string{}
	}
	return cloneMap(cl.Tags)
}

// EKS API Reference: ListClusters (maxResults 1–100, nextToken).
func (s *Sim) eksListClusters(c *call) ([]byte, *apiError) {
	var names []string
	for _, cl := range s.w.Seed.awsRegion(c.region).Clusters {
		names = append(names, cl.Name)
	}
	sort.Strings(names)
	pageNames, next, aerr := paginate(names, c.query, "", "")
	if aerr != nil {
		return nil, aerr
	}
	return eksJSON(map[string]any{"clusters": pageNames, "nextToken": nilIfEmpty(next)})
}

// paginate pages a sorted list with maxResults (1–100, default 100) and an opaque nextToken.
func paginate(all []string, q url.Values, cluster, nodegroup string) ([]string, string, *apiError) {
	limit := 100
	if v := q.Get("maxResults"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return nil, "", eksInvalidParameter(cluster, nodegroup, "maxResults must be between 1 and 100")
		}
		limit = n
	}
	start := 0
	if t := q.Get("nextToken"); t != "" {
		b, err := base64.RawURLEncoding.DecodeString(t)
		n, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || n < 0 || n > len(all) {
			return nil, "", eksInvalidParameter(cluster, nodegroup, "The nextToken provided is invalid")
		}
		start = n
	}
	end := min(start+limit, len(all))
	next := ""
	if end < len(all) {
		next = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))
	}
	return append([]string{}, all[start:end]...), next, nil
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// eksARN is a parsed EKS resource ARN: a cluster or a node group.
type eksARN struct {
	region, cluster, nodegroup string
}

func parseEKSARN(arn string) (eksARN, bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "eks" {
		return eksARN{}, false
	}
	res := strings.Split(parts[5], "/")
	switch {
	case len(res) == 2 && res[0] == "cluster":
		return eksARN{region: parts[3], cluster: res[1]}, true
	case len(res) == 4 && res[0] == "nodegroup":
		return eksARN{region: parts[3], cluster: res[1], nodegroup: res[2]}, true
	}
	return eksARN{}, false
}

// tagTarget resolves a resource ARN to the tags it owns (EKS API Reference: TagResource —
// BadRequestException for a malformed ARN, NotFoundException for an unknown resource).
func (s *Sim) tagTarget(region, arn string) (get func() map[string]string, set func(map[string]string), aerr *apiError) {
	a, ok := parseEKSARN(arn)
	if !ok {
		return nil, nil, &apiError{status: 400, code: "BadRequestException", message: "Invalid resource ARN: " + arn}
	}
	notFound := &apiError{status: 404, code: "NotFoundException", message: "Resource " + arn + " was not found"}
	if a.region != region {
		return nil, nil, notFound
	}
	cl := s.w.Seed.awsRegion(region).cluster(a.cluster)
	if cl == nil {
		return nil, nil, notFound
	}
	if a.nodegroup == "" {
		return func() map[string]string { return s.clusterTags(region, cl) },
			func(t map[string]string) { s.w.ClusterTags[region+"/"+cl.Name] = t }, nil
	}
	r := s.w.Nodegroups[ngKey(region, a.cluster, a.nodegroup)]
	if r == nil || r.Nodegroup.NodegroupArn != arn {
		return nil, nil, notFound
	}
	return func() map[string]string { return cloneMap(r.Nodegroup.Tags) },
		func(t map[string]string) { r.Nodegroup.Tags = t }, nil
}

// EKS API Reference: TagResource.
func (s *Sim) eksTagResource(c *call) ([]byte, *apiError) {
	var in struct {
		Tags map[string]string `json:"tags"`
	}
	if aerr := decodeEKS(c.body, &in); aerr != nil {
		return nil, aerr
	}
	get, set, aerr := s.tagTarget(c.region, c.labels["resourceArn"])
	if aerr != nil {
		return nil, aerr
	}
	tags := get()
	if tags == nil {
		tags = map[string]string{}
	}
	for k, v := range in.Tags {
		tags[k] = v
	}
	if msg := validateTags(tags); msg != "" {
		return nil, &apiError{status: 400, code: "BadRequestException", message: msg}
	}
	set(tags)
	return eksJSON(map[string]any{})
}

// EKS API Reference: UntagResource (tagKeys as repeated query parameters).
func (s *Sim) eksUntagResource(c *call) ([]byte, *apiError) {
	get, set, aerr := s.tagTarget(c.region, c.labels["resourceArn"])
	if aerr != nil {
		return nil, aerr
	}
	tags := get()
	for _, k := range c.query["tagKeys"] {
		delete(tags, k)
	}
	set(tags)
	return eksJSON(map[string]any{})
}

// EKS API Reference: ListTagsForResource.
func (s *Sim) eksListTagsForResource(c *call) ([]byte, *apiError) {
	get, _, aerr := s.tagTarget(c.region, c.labels["resourceArn"])
	if aerr != nil {
		return nil, aerr
	}
	tags := get()
	if tags == nil {
		tags = map[string]string{}
	}
	return eksJSON(map[string]any{"tags": tags})
}
