package cloudsim

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// EKS managed node groups: CreateNodegroup, DescribeNodegroup, ListNodegroups, DeleteNodegroup,
// UpdateNodegroupConfig, UpdateNodegroupVersion, DescribeUpdate and their status transitions
// (EKS API Reference for each operation).

// eksCreateNodegroupInput is the CreateNodegroup request body (EKS API Reference: CreateNodegroup).
type eksCreateNodegroupInput struct {
	NodegroupName      string                 `json:"nodegroupName"`
	ScalingConfig      *ScalingConfig         `json:"scalingConfig"`
	DiskSize           *int32                 `json:"diskSize"`
	Subnets            []string               `json:"subnets"`
	InstanceTypes      []string               `json:"instanceTypes"`
	AmiType            string                 `json:"amiType"`
	RemoteAccess       *RemoteAccessConfig    `json:"remoteAccess"`
	NodeRole           string                 `json:"nodeRole"`
	Labels             map[string]string      `json:"labels"`
	Taints             []Taint                `json:"taints"`
	Tags               map[string]string      `json:"tags"`
	ClientRequestToken string                 `json:"clientRequestToken"`
	LaunchTemplate     *LaunchTemplateSpec    `json:"launchTemplate"`
	UpdateConfig       *NodegroupUpdateConfig `json:"updateConfig"`
	NodeRepairConfig   json.RawMessage        `json:"nodeRepairConfig"`
	CapacityType       string                 `json:"capacityType"`
	Version            string                 `json:"version"`
	ReleaseVersion     string                 `json:"releaseVersion"`
}

// EKS API Reference: CreateNodegroup.
func (s *Sim) eksCreateNodegroup(c *call) ([]byte, *apiError) {
	clusterName := c.labels["clusterName"]
	var in eksCreateNodegroupInput
	if aerr := decodeEKS(c.body, &in); aerr != nil {
		return nil, aerr
	}
	cl, aerr := s.eksCluster(c.region, clusterName)
	if aerr != nil {
		return nil, aerr
	}
	if st := clusterStatus(cl); st != "ACTIVE" {
		return nil, eksInvalidRequest(clusterName, in.NodegroupName, "Cluster '%s' is not in ACTIVE status (current status: %s)", clusterName, st)
	}
	// A retried request with the same clientRequestToken returns the node group it created
	// (EKS API Reference: CreateNodegroup — clientRequestToken, idempotency).
	key := ngKey(c.region, clusterName, in.NodegroupName)
	if r := s.w.Nodegroups[key]; r != nil && in.ClientRequestToken != "" && r.ClientToken == in.ClientRequestToken {
		return eksJSON(map[string]any{"nodegroup": r.Nodegroup})
	}
	v := &eksValidator{cluster: clusterName, nodegroup: in.NodegroupName, seed: s.w.Seed.awsRegion(c.region)}
	createsSLR, aerr := s.authorizeCreateNodegroup(c, in.NodeRole, in.LaunchTemplate != nil)
	if aerr != nil {
		return nil, aerr
	}
	lt, aerr := s.validateCreateNodegroup(c.region, cl, &in, v)
	if aerr != nil {
		return nil, aerr
	}
	release, aerr := s.releaseFor(c.region, cl, v, firstNonEmpty(in.AmiType, defaultAMIType(in.InstanceTypes, lt)), cl.Version, in.ReleaseVersion, "")
	if aerr != nil {
		return nil, aerr
	}
	in.ReleaseVersion = release
	if s.w.Nodegroups[key] != nil {
		return nil, eksInUse(clusterName, in.NodegroupName, "NodeGroup already exists with name %s and cluster name %s", in.NodegroupName, clusterName)
	}
	if n, quota := len(s.nodegroupsOf(c.region, clusterName)), v.seed.quotas().NodegroupsPerCluster; n >= quota {
		// EKS service quota "Managed node groups per cluster" (L-6D54EA21).
		return nil, &apiError{status: 400, code: "ResourceLimitExceededException",
			message: fmt.Sprintf("Cluster %s already has %d managed node groups, the limit of managed node groups per cluster (%d)", clusterName, n, quota),
			fields:  map[string]string{"clusterName": clusterName, "nodegroupName": in.NodegroupName}}
	}
	r := &ngRecord{Region: c.region, ClientToken: in.ClientRequestToken, VisibleAt: s.visibleAfter(c.now),
		Nodegroup: buildNodegroup(c.region, cl, &in, lt, c.now), Due: c.now.Add(s.transition(c))}
	r.InstanceTypes, r.Zones = cloneStrings(r.Nodegroup.InstanceTypes), v.zonesOf(in.Subnets)
	if lt != nil {
		r.Reservation = lt.capacityReservationID
		if lt.instanceType != "" {
			r.InstanceTypes = []string{lt.instanceType}
		}
	}
	switch unknown := v.unknownInstanceTypes(r.InstanceTypes); {
	case c.failed != nil:
		r.FailIssues = issuesOrDefault(c.failed.HealthIssues, IssueInsufficientCapacity, r.Nodegroup.Resources)
	case lt != nil && len(lt.warnings) > 0:
		r.FailIssues = launchTemplateIssues(lt.warnings, r.Nodegroup.Resources)
	case len(kubeletRejectedLabels(in.Labels)) > 0:
		r.FailIssues = labelIssues(kubeletRejectedLabels(in.Labels), r.Nodegroup.Resources)
	case len(unknown) > 0:
		// EKS takes the request and fails the node group (EKS API Reference: Issue, code
		// Ec2InstanceTypeDoesNotExist).
		r.FailIssues = issuesOrDefault([]HealthIssue{{Code: "Ec2InstanceTypeDoesNotExist",
			Message: "The following supplied instance types do not exist: [" + strings.Join(unknown, ", ") + "]"}}, HealthIssue{}, r.Nodegroup.Resources)
	}
	s.w.Nodegroups[key] = r
	if createsSLR {
		s.createdSLR()
	}
	s.w.createASG(key, r, c.now)
	if len(r.FailIssues) == 0 {
		r.FailIssues = s.w.tagLimitIssues(r)
	}
	if len(r.FailIssues) == 0 {
		r.FailIssues = s.w.networkLaunchIssues(r)
	}
	return eksJSON(map[string]any{"nodegroup": r.Nodegroup})
}

// buildNodegroup applies the defaults the EKS API Reference documents for CreateNodegroup:
// capacity type ON_DEMAND, the cluster's Kubernetes version and latest release version, a
// 20 GiB disk and t3.medium when neither the request nor the launch template set them.
func buildNodegroup(region string, cl *EKSClusterSeed, in *eksCreateNodegroupInput, lt *resolvedLT, now time.Time) Nodegroup {
	id := newUUID()
	ng := Nodegroup{
		NodegroupName:    in.NodegroupName,
		NodegroupArn:     fmt.Sprintf("arn:aws:eks:%s:%s:nodegroup/%s/%s/%s", region, AccountID, cl.Name, in.NodegroupName, id),
		ClusterName:      cl.Name,
		Version:          firstNonEmpty(in.Version, cl.Version),
		ReleaseVersion:   in.ReleaseVersion,
		CreatedAt:        epoch(now),
		ModifiedAt:       epoch(now),
		Status:           ngCreating,
		CapacityType:     firstNonEmpty(in.CapacityType, "ON_DEMAND"),
		ScalingConfig:    scalingWithDefaults(in.ScalingConfig),
		InstanceTypes:    cloneStrings(in.InstanceTypes),
		Subnets:          cloneStrings(in.Subnets),
		RemoteAccess:     in.RemoteAccess,
		NodeRole:         in.NodeRole,
		Labels:           cloneMap(in.Labels),
		Taints:           append([]Taint(nil), in.Taints...),
		Resources:        &NodegroupResources{AutoScalingGroups: []AutoScalingGroup{{Name: "eks-" + in.NodegroupName + "-" + id}}},
		DiskSize:         in.DiskSize,
		Health:           NodegroupHealth{Issues: []HealthIssue{}},
		NodeRepairConfig: in.NodeRepairConfig,
		Tags:             cloneMap(in.Tags),
	}
	ng.UpdateConfig = withDefaultStrategy(in.UpdateConfig)
	if lt == nil {
		if len(ng.InstanceTypes) == 0 {
			ng.InstanceTypes = []string{"t3.medium"}
		}
		if ng.DiskSize == nil {
			ng.DiskSize = ptr[int32](20)
		}
	} else {
		ng.LaunchTemplate = &LaunchTemplateSpec{ID: lt.id, Name: lt.name, Version: strconv.FormatInt(lt.version, 10)}
		if lt.instanceType == "" && len(ng.InstanceTypes) == 0 {
			ng.InstanceTypes = []string{"t3.medium"}
		}
	}
	ng.AmiType = in.AmiType
	if ng.AmiType == "" {
		ng.AmiType = defaultAMIType(ng.InstanceTypes, lt)
	}
	return ng
}

// withDefaultStrategy is a node group's update config as EKS reports it: maxUnavailable 1 when none
// was given, and the DEFAULT strategy when none was named. Audit eks-vs-real.md S1: EKS reports
// updateStrategy DEFAULT for a node group created without one (terraform-aws-modules/terraform-aws-eks
// #3625, "diff from "DEFAULT" to null" on every plan once terraform-provider-aws 6.28 read the field
// back; aws-sdk-go-v2 service/eks types.NodegroupUpdateConfig.UpdateStrategy: "The default strategy
// ... launches the new instances first").
func withDefaultStrategy(in *NodegroupUpdateConfig) *NodegroupUpdateConfig {
	out := &NodegroupUpdateConfig{MaxUnavailable: ptr[int32](1), UpdateStrategy: "DEFAULT"}
	if in == nil {
		return out
	}
	if in.MaxUnavailable != nil || in.MaxUnavailablePercentage != nil {
		out.MaxUnavailable, out.MaxUnavailablePercentage = in.MaxUnavailable, in.MaxUnavailablePercentage
	}
	if in.UpdateStrategy != "" {
		out.UpdateStrategy = in.UpdateStrategy
	}
	return out
}

// scalingWithDefaults fills the EKS defaults for an omitted scaling config (min 1, max 2,
// desired 2) and desiredSize defaults to minSize when only the bounds are given.
func scalingWithDefaults(in *ScalingConfig) *ScalingConfig {
	out := &ScalingConfig{MinSize: ptr[int32](1), MaxSize: ptr[int32](2), DesiredSize: ptr[int32](2)}
	if in == nil {
		return out
	}
	if in.MinSize != nil {
		out.MinSize = ptr(*in.MinSize)
	}
	if in.MaxSize != nil {
		out.MaxSize = ptr(*in.MaxSize)
	}
	out.DesiredSize = ptr(*out.MinSize)
	if in.DesiredSize != nil {
		out.DesiredSize = ptr(*in.DesiredSize)
	}
	return out
}

// gpuFamilies are the x86 NVIDIA instance families, for which EKS picks an NVIDIA AMI type.
var gpuFamilies = map[string]bool{"g4dn": true, "g5": true, "g6": true, "g6e": true, "gr6": true, "p3": true,
	"p3dn": true, "p4d": true, "p4de": true, "p5": true, "p5e": true, "p5en": true, "p6-b200": true}

func defaultAMIType(instanceTypes []string, lt *resolvedLT) string {
	if lt != nil && lt.imageID != "" {
		return "CUSTOM"
	}
	if lt != nil && lt.instanceType != "" {
		instanceTypes = append(instanceTypes, lt.instanceType)
	}
	for _, t := range instanceTypes {
		if gpuFamilies[instanceFamily(t)] {
			return "AL2023_x86_64_NVIDIA"
		}
	}
	return "AL2023_x86_64_STANDARD"
}

func instanceFamily(t string) string {
	family, _, _ := strings.Cut(t, ".")
	return family
}

// issuesOrDefault returns the fault's health issues (or a default one) with the node group's
// Auto Scaling group as resource id when none is given, as EKS reports launch failures.
func issuesOrDefault(issues []HealthIssue, def HealthIssue, res *NodegroupResources) []HealthIssue {
	if len(issues) == 0 {
		issues = []HealthIssue{def}
	}
	out := make([]HealthIssue, len(issues))
	for i, is := range issues {
		out[i] = HealthIssue{Code: is.Code, Message: is.Message, ResourceIDs: cloneStrings(is.ResourceIDs)}
		if len(out[i].ResourceIDs) == 0 && res != nil && len(res.AutoScalingGroups) > 0 {
			out[i].ResourceIDs = []string{res.AutoScalingGroups[0].Name}
		}
	}
	return out
}

// eksNodegroup returns a stored node group, or ResourceNotFoundException.
func (s *Sim) eksNodegroup(region, cluster, name string) (*ngRecord, *apiError) {
	if _, aerr := s.eksCluster(region, cluster); aerr != nil {
		return nil, aerr
	}
	r := s.w.Nodegroups[ngKey(region, cluster, name)]
	if r == nil {
		return nil, eksNotFoundNodegroup(cluster, name)
	}
	return r, nil
}

// EKS API Reference: DescribeNodegroup. A node group within its read-after-write lag is not found.
func (s *Sim) eksDescribeNodegroup(c *call) ([]byte, *apiError) {
	r, aerr := s.eksNodegroup(c.region, c.labels["clusterName"], c.labels["nodegroupName"])
	if aerr != nil {
		return nil, aerr
	}
	if invisible(r.VisibleAt, c.now) {
		return nil, eksNotFoundNodegroup(c.labels["clusterName"], c.labels["nodegroupName"])
	}
	return eksJSON(map[string]any{"nodegroup": r.Nodegroup})
}

// nodegroupsOf are the names of a cluster's node groups, sorted, those being deleted included.
func (s *Sim) nodegroupsOf(region, cluster string) []string {
	prefix := ngKey(region, cluster, "")
	var names []string
	for key, r := range s.w.Nodegroups {
		if strings.HasPrefix(key, prefix) {
			names = append(names, r.Nodegroup.NodegroupName)
		}
	}
	sort.Strings(names)
	return names
}

// EKS API Reference: ListNodegroups. Node groups being deleted are listed until they are gone, new
// ones once their read-after-write lag has passed.
func (s *Sim) eksListNodegroups(c *call) ([]byte, *apiError) {
	cluster := c.labels["clusterName"]
	if _, aerr := s.eksCluster(c.region, cluster); aerr != nil {
		return nil, aerr
	}
	var names []string
	for _, name := range s.nodegroupsOf(c.region, cluster) {
		if !invisible(s.w.Nodegroups[ngKey(c.region, cluster, name)].VisibleAt, c.now) {
			names = append(names, name)
		}
	}
	pageNames, next, aerr := paginate(names, c.query, cluster, "")
	if aerr != nil {
		return nil, aerr
	}
	return eksJSON(map[string]any{"nodegroups": pageNames, "nextToken": nilIfEmpty(next)})
}

// EKS API Reference: DeleteNodegroup. The node group turns DELETING and disappears after the
// transition delay; deleting it again meanwhile returns it unchanged. A CreateFailed fault ends
// the deletion DELETE_FAILED, from which another DeleteNodegroup starts again.
func (s *Sim) eksDeleteNodegroup(c *call) ([]byte, *apiError) {
	cluster, name := c.labels["clusterName"], c.labels["nodegroupName"]
	r, aerr := s.eksNodegroup(c.region, cluster, name)
	if aerr != nil {
		return nil, aerr
	}
	switch r.Nodegroup.Status {
	case ngCreating, ngUpdating:
		return nil, eksInUse(cluster, name, "Nodegroup %s is currently %s and cannot be deleted", name, r.Nodegroup.Status)
	case ngDeleting:
		return eksJSON(map[string]any{"nodegroup": r.Nodegroup})
	}
	r.Nodegroup.Status = ngDeleting
	r.Nodegroup.ModifiedAt = epoch(c.now)
	r.Due = c.now.Add(s.transition(c))
	r.FailIssues = nil
	if c.failed != nil {
		r.FailIssues = issuesOrDefault(c.failed.HealthIssues, issueDeleteFailed, r.Nodegroup.Resources)
	}
	return eksJSON(map[string]any{"nodegroup": r.Nodegroup})
}

// ngChange is what an update changes, applied when the update succeeds.
type ngChange struct {
	AddLabels        map[string]string      `json:"add_labels,omitempty"`
	RemoveLabels     []string               `json:"remove_labels,omitempty"`
	AddTaints        []Taint                `json:"add_taints,omitempty"`
	RemoveTaints     []Taint                `json:"remove_taints,omitempty"`
	Scaling          *ScalingConfig         `json:"scaling,omitempty"`
	UpdateConfig     *NodegroupUpdateConfig `json:"update_config,omitempty"`
	NodeRepairConfig json.RawMessage        `json:"node_repair_config,omitempty"`
	Version          string                 `json:"version,omitempty"`
	ReleaseVersion   string                 `json:"release_version,omitempty"`
	LaunchTemplate   *LaunchTemplateSpec    `json:"launch_template,omitempty"`
}

type eksUpdateConfigInput struct {
	Labels *struct {
		AddOrUpdateLabels map[string]string `json:"addOrUpdateLabels"`
		RemoveLabels      []string          `json:"removeLabels"`
	} `json:"labels"`
	Taints *struct {
		AddOrUpdateTaints []Taint `json:"addOrUpdateTaints"`
		RemoveTaints      []Taint `json:"removeTaints"`
	} `json:"taints"`
	ScalingConfig      *ScalingConfig         `json:"scalingConfig"`
	UpdateConfig       *NodegroupUpdateConfig `json:"updateConfig"`
	NodeRepairConfig   json.RawMessage        `json:"nodeRepairConfig"`
	ClientRequestToken string                 `json:"clientRequestToken"`
}

// EKS API Reference: UpdateNodegroupConfig. Returns an Update of type ConfigUpdate; the node
// group is UPDATING until the update is Successful, when the change takes effect.
func (s *Sim) eksUpdateNodegroupConfig(c *call) ([]byte, *apiError) {
	cluster, name := c.labels["clusterName"], c.labels["nodegroupName"]
	var in eksUpdateConfigInput
	r, done, aerr := s.nodegroupToUpdate(c, &in, &in.ClientRequestToken)
	if aerr != nil || done != nil {
		return done, aerr
	}
	v := &eksValidator{cluster: cluster, nodegroup: name, seed: s.w.Seed.awsRegion(c.region)}
	ch, params, aerr := configChange(r.Nodegroup, &in, v)
	if aerr != nil {
		return nil, aerr
	}
	return s.startUpdate(c, r, "ConfigUpdate", ch, params, in.ClientRequestToken)
}

type eksUpdateVersionInput struct {
	Version            string              `json:"version"`
	ReleaseVersion     string              `json:"releaseVersion"`
	LaunchTemplate     *LaunchTemplateSpec `json:"launchTemplate"`
	Force              bool                `json:"force"`
	ClientRequestToken string              `json:"clientRequestToken"`
}

// EKS API Reference: UpdateNodegroupVersion. Without a version the node group moves to the
// cluster's Kubernetes version; a launch template must be the node group's own one.
func (s *Sim) eksUpdateNodegroupVersion(c *call) ([]byte, *apiError) {
	cluster := c.labels["clusterName"]
	var in eksUpdateVersionInput
	r, done, aerr := s.nodegroupToUpdate(c, &in, &in.ClientRequestToken)
	if aerr != nil || done != nil {
		return done, aerr
	}
	if in.LaunchTemplate != nil {
		if aerr := s.authorize(c, s.launchTemplateActions(c)...); aerr != nil {
			return nil, aerr
		}
	}
	cl, _ := s.eksCluster(c.region, cluster)
	ch, params, aerr := s.versionChange(c.region, cl, r.Nodegroup, &in)
	if aerr != nil {
		return nil, aerr
	}
	return s.startUpdate(c, r, "VersionUpdate", ch, params, in.ClientRequestToken)
}

// updatable rejects updates while the node group is not ACTIVE or DEGRADED.
// nodegroupToUpdate decodes an Update* request into in and finds the node group it changes. A
// retry of an earlier request (the same clientRequestToken, read from token after decoding) gets
// that update back as done, as EKS answers idempotent retries.
func (s *Sim) nodegroupToUpdate(c *call, in any, token *string) (r *ngRecord, done []byte, aerr *apiError) {
	if aerr := decodeEKS(c.body, in); aerr != nil {
		return nil, nil, aerr
	}
	r, aerr = s.eksNodegroup(c.region, c.labels["clusterName"], c.labels["nodegroupName"])
	if aerr != nil {
		return nil, nil, aerr
	}
	if u := s.updateByToken(r, *token); u != nil {
		done, aerr = eksJSON(map[string]any{"update": u.Update})
		return nil, done, aerr
	}
	return r, nil, updatable(r)
}

func updatable(r *ngRecord) *apiError {
	switch r.Nodegroup.Status {
	case ngActive, ngDegraded:
		return nil
	}
	return eksInUse(r.Nodegroup.ClusterName, r.Nodegroup.NodegroupName,
		"Nodegroup %s cannot be updated as it is currently in status %s", r.Nodegroup.NodegroupName, r.Nodegroup.Status)
}

func (s *Sim) updateByToken(r *ngRecord, token string) *updRecord {
	if token == "" {
		return nil
	}
	for _, id := range sortedKeys(s.w.Updates) {
		u := s.w.Updates[id]
		if u.Region == r.Region && u.Cluster == r.Nodegroup.ClusterName && u.Nodegroup == r.Nodegroup.NodegroupName &&
			u.Update.ID != "" && u.ClientToken == token {
			return u
		}
	}
	return nil
}

func (s *Sim) startUpdate(c *call, r *ngRecord, typ string, ch ngChange, params []UpdateParam, token string) ([]byte, *apiError) {
	u := &updRecord{Region: c.region, Cluster: r.Nodegroup.ClusterName, Nodegroup: r.Nodegroup.NodegroupName, Change: ch, ClientToken: token,
		VisibleAt: s.visibleAfter(c.now), Update: Update{ID: newUUID(), Status: updInProgress, Type: typ, Params: params, CreatedAt: epoch(c.now), Errors: []ErrorDetail{}}}
	if c.failed != nil {
		u.FailIssues = issuesOrDefault(c.failed.HealthIssues, IssueInsufficientCapacity, r.Nodegroup.Resources)
	} else if bad := kubeletRejectedLabels(ch.AddLabels); len(bad) > 0 {
		u.FailIssues = labelIssues(bad, r.Nodegroup.Resources)
	} else if warnings := s.w.launchTemplateWarnings(c.region, ch.LaunchTemplate); len(warnings) > 0 {
		u.FailIssues = launchTemplateIssues(warnings, r.Nodegroup.Resources)
	} else if typ == "VersionUpdate" && ch.replacesNodes(r.Nodegroup) {
		if msg := s.w.surgeFails(ngKey(c.region, r.Nodegroup.ClusterName, r.Nodegroup.NodegroupName), r); msg != "" {
			u.FailIssues = issuesOrDefault([]HealthIssue{{Code: "NodeCreationFailure", Message: msg}}, HealthIssue{}, r.Nodegroup.Resources)
		}
	}
	s.w.Updates[u.Update.ID] = u
	r.UpdateID = u.Update.ID
	r.Nodegroup.Status = ngUpdating
	r.Nodegroup.ModifiedAt = epoch(c.now)
	r.Due = c.now.Add(s.transition(c))
	return eksJSON(map[string]any{"update": u.Update})
}

// EKS API Reference: DescribeUpdate (nodegroupName as a query parameter for node group updates). An
// update within its read-after-write lag is not found.
func (s *Sim) eksDescribeUpdate(c *call) ([]byte, *apiError) {
	cluster, id := c.labels["name"], c.labels["updateId"]
	if _, aerr := s.eksCluster(c.region, cluster); aerr != nil {
		return nil, aerr
	}
	ngName := c.query.Get("nodegroupName")
	if ngName != "" && s.w.Nodegroups[ngKey(c.region, cluster, ngName)] == nil {
		return nil, eksNotFoundNodegroup(cluster, ngName)
	}
	u := s.w.Updates[id]
	if u == nil || u.Region != c.region || u.Cluster != cluster || u.Nodegroup != ngName || invisible(u.VisibleAt, c.now) {
		return nil, &apiError{status: 404, code: "ResourceNotFoundException", message: "No update found for ID: " + id + ".",
			fields: map[string]string{"clusterName": cluster}}
	}
	return eksJSON(map[string]any{"update": u.Update})
}

// finishNodegroup resolves a node group's transitional status once it is due.
func (w *world) finishNodegroup(key string, r *ngRecord) {
	ng := &r.Nodegroup
	switch ng.Status {
	case ngCreating:
		ng.Status = ngActive
		var degrade, notice []HealthIssue
		if len(r.FailIssues) == 0 && r.Reservation != "" {
			r.FailIssues, degrade, notice = w.reservationLaunch(key, r, r.Due)
		}
		switch {
		case len(r.FailIssues) > 0:
			ng.Status, ng.Health.Issues = ngCreateFailed, r.FailIssues
		case len(degrade) > 0:
			ng.Status, ng.Health.Issues = ngDegraded, degrade
		case len(notice) > 0:
			ng.Health.Issues = notice
		}
	case ngUpdating:
		w.finishUpdate(r)
	case ngDeleting:
		if len(r.FailIssues) > 0 {
			ng.Status, ng.Health.Issues = ngDeleteFailed, r.FailIssues
			break
		}
		delete(w.Nodegroups, key)
		for id, u := range w.Updates {
			if u.Region == r.Region && u.Cluster == ng.ClusterName && u.Nodegroup == ng.NodegroupName {
				delete(w.Updates, id)
			}
		}
		return
	}
	ng.ModifiedAt = epoch(r.Due)
	r.Due, r.FailIssues = time.Time{}, nil
}

// finishUpdate completes the node group's update: a successful one applies its change, a failed
// one leaves the configuration as it was and marks the node group DEGRADED with the issues.
func (w *world) finishUpdate(r *ngRecord) {
	ng := &r.Nodegroup
	ng.Status = ngActive
	u := w.Updates[r.UpdateID]
	r.UpdateID = ""
	if u == nil {
		return
	}
	if len(u.FailIssues) > 0 {
		u.Update.Status = updFailed
		for _, is := range u.FailIssues {
			u.Update.Errors = append(u.Update.Errors, ErrorDetail{ErrorCode: updateErrorCode(is.Code), ErrorMessage: is.Code + ": " + is.Message, ResourceIDs: is.ResourceIDs})
		}
		ng.Status, ng.Health.Issues = ngDegraded, u.FailIssues
		return
	}
	u.Update.Status = updSuccessful
	if u.Change.replacesNodes(*ng) {
		r.Generation++ // every node is replaced (eks_fleet.go)
	}
	u.Change.apply(ng)
	if len(r.Degraded) > 0 {
		// The update succeeded, but what degraded the node group has not gone away.
		ng.Status, ng.Health.Issues = ngDegraded, cloneIssues(r.Degraded)
	}
}

func cloneIssues(issues []HealthIssue) []HealthIssue {
	out := make([]HealthIssue, len(issues))
	for i, is := range issues {
		out[i] = HealthIssue{Code: is.Code, Message: is.Message, ResourceIDs: cloneStrings(is.ResourceIDs)}
	}
	return out
}

// launchTemplateIssues is how EKS reports a launch template version EC2 created with warnings: no
// instance launches from it (EKS API Reference: Issue, code Ec2LaunchTemplateInvalidConfiguration).
func launchTemplateIssues(warnings []string, res *NodegroupResources) []HealthIssue {
	return issuesOrDefault([]HealthIssue{{Code: "Ec2LaunchTemplateInvalidConfiguration", Message: strings.Join(warnings, "; ")}}, HealthIssue{}, res)
}

// launchTemplateWarnings are EC2's warnings on the launch template version spec names.
func (w *world) launchTemplateWarnings(region string, spec *LaunchTemplateSpec) []string {
	if spec == nil {
		return nil
	}
	r := w.launchTemplate(region, spec.ID, spec.Name)
	if r == nil {
		return nil
	}
	if v := r.LaunchTemplate.version(spec.Version); v != nil {
		return v.Warnings
	}
	return nil
}

// replacesNodes reports a version update that rolls every node: a new launch template version,
// Kubernetes version or AMI release ("When you update your node group to a different version of
// your launch template, all nodes in the group are recycled", EKS User Guide, launch-templates).
func (ch *ngChange) replacesNodes(ng Nodegroup) bool {
	return (ch.LaunchTemplate != nil && ng.LaunchTemplate != nil && ch.LaunchTemplate.Version != ng.LaunchTemplate.Version) ||
		(ch.Version != "" && ch.Version != ng.Version) || (ch.ReleaseVersion != "" && ch.ReleaseVersion != ng.ReleaseVersion)
}

func (ch *ngChange) apply(ng *Nodegroup) {
	if len(ch.AddLabels) > 0 || len(ch.RemoveLabels) > 0 {
		ng.Labels = applyLabels(ng.Labels, ch.AddLabels, ch.RemoveLabels)
	}
	if len(ch.AddTaints) > 0 || len(ch.RemoveTaints) > 0 {
		ng.Taints = applyTaints(ng.Taints, ch.AddTaints, ch.RemoveTaints)
	}
	if ch.Scaling != nil {
		ng.ScalingConfig = ch.Scaling
	}
	if ch.UpdateConfig != nil {
		ng.UpdateConfig = withDefaultStrategy(ch.UpdateConfig)
	}
	if len(ch.NodeRepairConfig) > 0 {
		ng.NodeRepairConfig = ch.NodeRepairConfig
	}
	if ch.Version != "" {
		ng.Version = ch.Version
	}
	if ch.ReleaseVersion != "" {
		ng.ReleaseVersion = ch.ReleaseVersion
	}
	if ch.LaunchTemplate != nil {
		ng.LaunchTemplate = ch.LaunchTemplate
	}
	ng.Health.Issues = []HealthIssue{}
}

func applyLabels(cur, add map[string]string, remove []string) map[string]string {
	out := cloneMap(cur)
	if out == nil {
		out = map[string]string{}
	}
	for _, k := range remove {
		delete(out, k)
	}
	for k, v := range add {
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// applyTaints removes taints by key and effect, then adds or replaces by key and effect (a
// Kubernetes node holds at most one taint per key and effect).
func applyTaints(cur, add, remove []Taint) []Taint {
	var out []Taint
	for _, t := range cur {
		if !containsTaint(remove, t) && !containsTaint(add, t) {
			out = append(out, t)
		}
	}
	return append(out, add...)
}

func containsTaint(ts []Taint, t Taint) bool {
	for _, x := range ts {
		if x.Key == t.Key && x.Effect == t.Effect {
			return true
		}
	}
	return false
}
