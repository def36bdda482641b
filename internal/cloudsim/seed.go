package cloudsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"sort"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
)

// Seed is the static infrastructure a Sim starts from: the things the provider reads but never
// creates (clusters, subnets, capacity reservations, instance type and accelerator offerings).
// It is JSON; see the package documentation for the format and examples/cloudsim/seed.json for
// a complete example.
type Seed struct {
	AWS AWSSeed `json:"aws"`
	GCP GCPSeed `json:"gcp"`
}

// AWSSeed holds the AWS side of the seed, per region (e.g. "us-east-1").
type AWSSeed struct {
	Regions map[string]*AWSRegionSeed `json:"regions"`
	// Identities are the IAM principals STS knows, by access key (sts.go): an EKS token signed with
	// another key, or with the wrong secret, does not authenticate.
	Identities []IdentitySeed `json:"identities,omitempty"`
}

// AWSRegionSeed is what exists in one AWS region.
type AWSRegionSeed struct {
	Clusters             []EKSClusterSeed          `json:"clusters"`
	Subnets              []SubnetSeed              `json:"subnets"`
	CapacityReservations []CapacityReservationSeed `json:"capacity_reservations"`
	// InstanceTypeOfferings lists the instance types offered per availability zone
	// (e.g. "us-east-1a": ["g5.xlarge", "p5.48xlarge"]). A type is offered in the region when
	// it is offered in at least one of its zones (EC2 API Reference: DescribeInstanceTypeOfferings).
	InstanceTypeOfferings map[string][]string `json:"instance_type_offerings"`
	// EKSQuotas overrides the EKS service quotas of the region (default: AWS's defaults).
	EKSQuotas *EKSQuotas `json:"eks_quotas,omitempty"`
}

// EKSQuotas are the EKS service quotas cloudsim enforces; zero keeps AWS's default. Both are
// adjustable in real accounts (Service Quotas L-6D54EA21 and L-BD136A63).
type EKSQuotas struct {
	// NodegroupsPerCluster: "Managed node groups per cluster", default 30.
	NodegroupsPerCluster int `json:"nodegroups_per_cluster,omitempty"`
	// NodesPerNodegroup: "Nodes per managed node group", default 450; a node group's maxSize.
	NodesPerNodegroup int `json:"nodes_per_nodegroup,omitempty"`
}

// quotas returns the region's EKS quotas with AWS's defaults filled in (EKS User Guide, "Amazon EKS
// service quotas": managed node groups per cluster 30, nodes per managed node group 450).
func (r *AWSRegionSeed) quotas() EKSQuotas {
	q := EKSQuotas{NodegroupsPerCluster: 30, NodesPerNodegroup: 450}
	if r.EKSQuotas != nil {
		if r.EKSQuotas.NodegroupsPerCluster > 0 {
			q.NodegroupsPerCluster = r.EKSQuotas.NodegroupsPerCluster
		}
		if r.EKSQuotas.NodesPerNodegroup > 0 {
			q.NodesPerNodegroup = r.EKSQuotas.NodesPerNodegroup
		}
	}
	return q
}

// EKSClusterSeed describes an EKS cluster. Status defaults to ACTIVE; ReleaseVersion (the
// default AMI release version of new node groups) defaults to "<version>.0-20250101".
type EKSClusterSeed struct {
	Name           string            `json:"name"`
	Version        string            `json:"version"`
	Status         string            `json:"status,omitempty"`
	ReleaseVersion string            `json:"release_version,omitempty"`
	Tags           map[string]string `json:"tags,omitempty"`
	// Kubernetes is the cluster's API server, when a real one plays it (the tests' and the demo's
	// CRD-serving API server); DescribeCluster then returns its endpoint and CA.
	Kubernetes *KubernetesAPI `json:"kubernetes,omitempty"`
}

// KubernetesAPI is an API server DescribeCluster points at: its https URL and its CA certificate
// (PEM).
type KubernetesAPI struct {
	Endpoint string `json:"endpoint"`
	CAPEM    string `json:"ca_pem"`
}

// SubnetSeed describes a VPC subnet.
type SubnetSeed struct {
	ID                      string            `json:"id"`
	AvailabilityZone        string            `json:"availability_zone"`
	VpcID                   string            `json:"vpc_id"`
	CIDRBlock               string            `json:"cidr_block,omitempty"`
	AvailableIPAddressCount int               `json:"available_ip_address_count,omitempty"`
	Tags                    map[string]string `json:"tags,omitempty"`
}

// CapacityReservationSeed describes an On-Demand Capacity Reservation (reservation_type
// "default") or an EC2 Capacity Block for ML (reservation_type "capacity-block").
type CapacityReservationSeed struct {
	ID                     string            `json:"id"`
	InstanceType           string            `json:"instance_type"`
	AvailabilityZone       string            `json:"availability_zone"`
	TotalInstanceCount     int               `json:"total_instance_count"`
	AvailableInstanceCount int               `json:"available_instance_count"`
	State                  string            `json:"state,omitempty"`                   // default "active"
	ReservationType        string            `json:"reservation_type,omitempty"`        // default|capacity-block
	InstancePlatform       string            `json:"instance_platform,omitempty"`       // default "Linux/UNIX"
	InstanceMatchCriteria  string            `json:"instance_match_criteria,omitempty"` // open|targeted
	Tenancy                string            `json:"tenancy,omitempty"`                 // default|dedicated; default "default"
	StartDate              *time.Time        `json:"start_date,omitempty"`
	EndDate                *time.Time        `json:"end_date,omitempty"`
	Tags                   map[string]string `json:"tags,omitempty"`
}

// GCPSeed holds the Google Cloud side of the seed, per project id.
type GCPSeed struct {
	Projects map[string]*GCPProjectSeed `json:"projects"`
}

// GCPProjectSeed is what exists in one Google Cloud project.
type GCPProjectSeed struct {
	Clusters []GKEClusterSeed `json:"clusters"`
	// Accelerators lists the accelerator types available per zone
	// (e.g. "us-central1-a": ["nvidia-l4", "nvidia-tesla-t4"]).
	Accelerators map[string][]string `json:"accelerators"`
	// Reservations are Compute Engine reservations that node pools can consume through
	// reservation affinity SPECIFIC_RESERVATION.
	Reservations []GCEReservationSeed `json:"reservations,omitempty"`
	// Networks are the project's VPC networks and, per network, its subnetworks in the clusters'
	// region, which node pools name as additional node networks (gke_multinetwork.go).
	// RDMANetworks are those created with an RDMA (RoCE) network profile.
	Networks     map[string][]string `json:"networks,omitempty"`
	RDMANetworks []string            `json:"rdma_networks,omitempty"`
	// MachineTypes lists the machine types offered per zone (Compute Engine machineTypes.list of
	// the zone). A zone not listed offers every machine type; a listed zone only those.
	MachineTypes map[string][]string `json:"machine_types,omitempty"`
	// GPUQuota is the project's regional GPU quota: region → metric (NVIDIA_L4_GPUS,
	// PREEMPTIBLE_NVIDIA_L4_GPUS, …) → GPUs. A metric not listed is unlimited.
	GPUQuota map[string]map[string]int `json:"gpu_quota,omitempty"`
	// Organization is the organization the project belongs to: a reservation shared with the
	// ORGANIZATION is open to every project of the owner's organization.
	Organization string `json:"organization,omitempty"`
}

// GKEClusterSeed describes a GKE cluster. Location is a region or zone; Locations are the
// zones node pools may use (default: Location itself when it is a zone).
type GKEClusterSeed struct {
	Name      string   `json:"name"`
	Location  string   `json:"location"`
	Version   string   `json:"version"`
	Locations []string `json:"locations,omitempty"`
	Status    string   `json:"status,omitempty"` // default RUNNING
	// NodePools exist when the world is created (not when a state file is loaded), RUNNING,
	// such as the default-pool GKE creates with a cluster. Without them a cluster has no pools.
	NodePools []GKENodePoolSeed `json:"node_pools,omitempty"`
	// ValidNodeVersions are the node versions GKE offers the cluster (GetServerConfig's
	// validNodeVersions), against which versions and aliases resolve; default: cloudsim's list
	// (gke_versions.go) within the version skew policy of the cluster's version.
	ValidNodeVersions []string `json:"valid_node_versions,omitempty"`
	// ResourceLabels are the cluster's resource labels, which its nodes' VMs carry too.
	ResourceLabels map[string]string `json:"resource_labels,omitempty"`
	// RetiredNodeVersions are versions GKE no longer offers for new node pools or upgrades
	// (Sim.RetireGKENodeVersions); node pools that run one keep running it.
	RetiredNodeVersions []string `json:"retired_node_versions,omitempty"`
	// MultiNetworking is the cluster's enable_multi_networking (with GKE Dataplane V2, which GKE
	// requires of it): only then do node pools take additional node networks.
	MultiNetworking bool `json:"multi_networking,omitempty"`
	// Kubernetes is the cluster's API server, when a real one plays it (the tests' and the demo's
	// CRD-serving API server); GetCluster then returns its endpoint and CA.
	Kubernetes *KubernetesAPI `json:"kubernetes,omitempty"`
}

// GKENodePoolSeed describes a node pool of a seeded cluster. GKE fills in the rest as on
// CreateNodePool (e2-medium, the cluster's version and zones, the fixed GPUs of
// accelerator-optimized machine types, GKE's own labels and taints).
type GKENodePoolSeed struct {
	Name             string   `json:"name"`
	MachineType      string   `json:"machine_type,omitempty"`
	NodeCount        int32    `json:"node_count,omitempty"` // per zone
	Locations        []string `json:"locations,omitempty"`
	AcceleratorType  string   `json:"accelerator_type,omitempty"`
	AcceleratorCount int64    `json:"accelerator_count,omitempty"`
	// Spot, Labels, ResourceLabels and TotalMin/MaxNodeCount (autoscaling) are the node pool's own
	// settings, for a node pool made by another tool (a google_container_node_pool to import).
	Spot              bool              `json:"spot,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	ResourceLabels    map[string]string `json:"resource_labels,omitempty"`
	TotalMinNodeCount int32             `json:"total_min_node_count,omitempty"`
	TotalMaxNodeCount int32             `json:"total_max_node_count,omitempty"`
	// CreatedVersion is the version the node pool was created at, before upgrades brought it to
	// the cluster's (default: the cluster's): created before 1.30, its accelerators have no driver
	// installation config (gke_own.go, fillDefaultDriver).
	CreatedVersion string `json:"created_version,omitempty"`
}

// GCEReservationSeed describes a Compute Engine reservation.
type GCEReservationSeed struct {
	Name        string `json:"name"`
	Zone        string `json:"zone"`
	MachineType string `json:"machine_type"`
	// AcceleratorType is the reserved GPU as the reservation was made with it: a name
	// (nvidia-l4) or "The full or partial URL of the accelerator type"
	// (projects/P/zones/Z/acceleratorTypes/nvidia-l4), which reservations.get echoes as given
	// (terraform-provider-google, resource_compute_reservation.go; audit N7).
	AcceleratorType  string `json:"accelerator_type,omitempty"`
	AcceleratorCount int    `json:"accelerator_count,omitempty"`
	Count            int    `json:"count"`
	// ShareWith lists the consumer projects of a shared reservation (Compute Engine
	// Reservation.shareSettings.projectMap); other projects cannot consume it.
	ShareWith []string `json:"share_with,omitempty"`
	// ShareType is the reservation's shareSettings.shareType: LOCAL (the default, or
	// SPECIFIC_PROJECTS with ShareWith) or ORGANIZATION ("Shared-reservation is open to entire
	// Organization", Compute Engine API, ShareSettings.ShareType).
	ShareType string `json:"share_type,omitempty"`
}

// Reservation share types (Compute Engine API, ShareSettings.ShareType).
const (
	shareLocal            = "LOCAL"
	shareSpecificProjects = "SPECIFIC_PROJECTS"
	shareOrganization     = "ORGANIZATION"
)

// shareType is the reservation's share type as reservations.get reports it.
func (r *GCEReservationSeed) shareType() string {
	switch {
	case r.ShareType != "":
		return r.ShareType
	case len(r.ShareWith) > 0:
		return shareSpecificProjects
	}
	return shareLocal
}

// sharedWith reports whether a consumer project may consume the reservation of project owner:
// its own, one shared with it by name, or one shared with the owner's organization when the
// consumer belongs to it too ("Shared reservations").
func (s *Seed) sharedWith(r *GCEReservationSeed, owner, consumer string) bool {
	switch r.shareType() {
	case shareSpecificProjects:
		return owner == consumer || contains(r.ShareWith, consumer)
	case shareOrganization:
		o, c := s.gcpProject(owner), s.gcpProject(consumer)
		return owner == consumer || o != nil && c != nil && o.Organization != "" && o.Organization == c.Organization
	}
	return owner == consumer
}

// acceleratorName is an accelerator type given as a name or a full or partial URL
// (…/acceleratorTypes/nvidia-l4): its name.
func acceleratorName(t string) string {
	if i := strings.LastIndex(t, "/acceleratorTypes/"); i >= 0 {
		return t[i+len("/acceleratorTypes/"):]
	}
	return t
}

// LoadSeed reads and validates a seed file.
func LoadSeed(path string) (*Seed, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cloudsim: read seed: %w", err)
	}
	return ParseSeed(b)
}

// ParseSeed decodes and validates a JSON seed. Unknown fields are rejected so that typos in
// a seed fail loudly instead of silently producing an emptier world.
func ParseSeed(b []byte) (*Seed, error) {
	var s Seed
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("cloudsim: parse seed: %w", err)
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

func (s *Seed) validate() error {
	for region, r := range s.AWS.Regions {
		if r == nil {
			return fmt.Errorf("cloudsim: seed: aws region %q is null", region)
		}
		for _, c := range r.Clusters {
			if c.Name == "" || c.Version == "" {
				return fmt.Errorf("cloudsim: seed: aws region %q: cluster needs name and version", region)
			}
		}
		for _, sn := range r.Subnets {
			if sn.ID == "" || sn.AvailabilityZone == "" {
				return fmt.Errorf("cloudsim: seed: aws region %q: subnet needs id and availability_zone", region)
			}
		}
		for _, cr := range r.CapacityReservations {
			if cr.ID == "" || cr.InstanceType == "" || cr.AvailabilityZone == "" {
				return fmt.Errorf("cloudsim: seed: aws region %q: capacity reservation needs id, instance_type and availability_zone", region)
			}
			if t := cr.ReservationType; t != "" && t != "default" && t != "capacity-block" {
				return fmt.Errorf("cloudsim: seed: capacity reservation %s: reservation_type must be default or capacity-block", cr.ID)
			}
		}
	}
	for project, p := range s.GCP.Projects {
		if p == nil {
			return fmt.Errorf("cloudsim: seed: gcp project %q is null", project)
		}
		for _, r := range p.Reservations {
			if t := r.shareType(); t != shareLocal && t != shareSpecificProjects && t != shareOrganization {
				return fmt.Errorf("cloudsim: seed: gcp reservation %s/%s: share_type must be LOCAL, SPECIFIC_PROJECTS or ORGANIZATION", project, r.Name)
			}
		}
		for _, c := range p.Clusters {
			if c.Name == "" || c.Location == "" || c.Version == "" {
				return fmt.Errorf("cloudsim: seed: gcp project %q: cluster needs name, location and version", project)
			}
			for _, np := range c.NodePools {
				if !poolNameRE.MatchString(np.Name) || np.NodeCount < 0 {
					return fmt.Errorf("cloudsim: seed: gcp cluster %s/%s: node pool %q needs a valid name and a non-negative node_count", c.Location, c.Name, np.Name)
				}
			}
		}
	}
	return nil
}

// awsRegion returns the seed of one region, or an empty one.
func (s *Seed) awsRegion(region string) *AWSRegionSeed {
	if s == nil || s.AWS.Regions[region] == nil {
		return &AWSRegionSeed{}
	}
	return s.AWS.Regions[region]
}

// gcpProject returns the seed of one project, or nil when the project is unknown.
func (s *Seed) gcpProject(project string) *GCPProjectSeed {
	if s == nil {
		return nil
	}
	return s.GCP.Projects[project]
}

func (r *AWSRegionSeed) cluster(name string) *EKSClusterSeed {
	for i := range r.Clusters {
		if r.Clusters[i].Name == name {
			return &r.Clusters[i]
		}
	}
	return nil
}

func (r *AWSRegionSeed) subnet(id string) *SubnetSeed {
	for i := range r.Subnets {
		if r.Subnets[i].ID == id {
			return &r.Subnets[i]
		}
	}
	return nil
}

func (r *AWSRegionSeed) capacityReservation(id string) *CapacityReservationSeed {
	for i := range r.CapacityReservations {
		if r.CapacityReservations[i].ID == id {
			return &r.CapacityReservations[i]
		}
	}
	return nil
}

// offeredInZone reports whether an instance type is offered in an availability zone.
func (r *AWSRegionSeed) offeredInZone(instanceType, zone string) bool {
	for _, t := range r.InstanceTypeOfferings[zone] {
		if t == instanceType {
			return true
		}
	}
	return false
}

// offeredInRegion reports whether an instance type is offered in any zone of the region.
func (r *AWSRegionSeed) offeredInRegion(instanceType string) bool {
	for zone := range r.InstanceTypeOfferings {
		if r.offeredInZone(instanceType, zone) {
			return true
		}
	}
	return false
}

// zones returns the region's zones that have offerings, sorted.
func (r *AWSRegionSeed) zones() []string {
	zs := make([]string, 0, len(r.InstanceTypeOfferings))
	for z := range r.InstanceTypeOfferings {
		zs = append(zs, z)
	}
	sort.Strings(zs)
	return zs
}

func (p *GCPProjectSeed) cluster(location, name string) *GKEClusterSeed {
	for i := range p.Clusters {
		if p.Clusters[i].Location == location && p.Clusters[i].Name == name {
			return &p.Clusters[i]
		}
	}
	return nil
}

func (p *GCPProjectSeed) acceleratorInZone(accel, zone string) bool {
	for _, a := range p.Accelerators[zone] {
		if a == accel {
			return true
		}
	}
	return false
}

func (p *GCPProjectSeed) reservation(name string) *GCEReservationSeed {
	for i := range p.Reservations {
		if p.Reservations[i].Name == name {
			return &p.Reservations[i]
		}
	}
	return nil
}

// clusterLocations returns the zones node pools of a cluster may use.
func (c *GKEClusterSeed) zones() []string {
	if len(c.Locations) > 0 {
		return append([]string(nil), c.Locations...)
	}
	return []string{c.Location}
}

// installSeedPools stores the seeded node pools of a new world, RUNNING, with GKE's defaults
// and its own labels and taints (a GPU pool is tainted when its cluster has a non-GPU pool).
func (w *world) installSeedPools() {
	for _, project := range sortedKeys(w.Seed.GCP.Projects) {
		p := w.Seed.GCP.Projects[project]
		for i := range p.Clusters {
			cl := &p.Clusters[i]
			ref := clusterRef{project, cl.Location, cl.Name}
			for _, sp := range cl.NodePools {
				pool := &containerpb.NodePool{Name: sp.Name, InitialNodeCount: sp.NodeCount, Locations: cloneStrings(sp.Locations),
					Config: &containerpb.NodeConfig{MachineType: sp.MachineType, Spot: sp.Spot,
						Labels: maps.Clone(sp.Labels), ResourceLabels: maps.Clone(sp.ResourceLabels)}}
				if sp.AcceleratorType != "" {
					pool.Config.Accelerators = []*containerpb.AcceleratorConfig{{AcceleratorType: sp.AcceleratorType, AcceleratorCount: sp.AcceleratorCount}}
				}
				if sp.TotalMaxNodeCount > 0 {
					pool.Autoscaling = &containerpb.NodePoolAutoscaling{Enabled: true, TotalMinNodeCount: sp.TotalMinNodeCount,
						TotalMaxNodeCount: sp.TotalMaxNodeCount, LocationPolicy: containerpb.NodePoolAutoscaling_BALANCED}
				}
				applyPoolDefaults(pool, cl)
				fillDefaultDriver(pool.Config, firstNonEmpty(sp.CreatedVersion, pool.Version))
				w.addPool(ref, pool, containerpb.NodePool_RUNNING, false)
			}
			for _, r := range poolsOf(w, ref) {
				r.GPUTaint = isGPUPool(r.Pool) && w.hasNonGPUPool(ref, r.Pool.GetName())
				addGKEOwn(r.Pool.Config, r.GPUTaint)
			}
		}
	}
}
