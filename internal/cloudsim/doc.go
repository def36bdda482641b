// Package cloudsim is an offline cloud for tests and the demo: loopback servers that speak the
// real wire protocols of the AWS EKS API (restJson1), the AWS EC2 API (ec2Query/XML), the AWS EC2
// Auto Scaling API (awsQuery/XML), the GKE API (google.container.v1 gRPC) and the part of the
// Compute Engine API (REST/JSON v1) that reports node pool sizes, so the unchanged aws-sdk-go-v2,
// cloud.google.com/go/container and google.golang.org/api/compute/v1 clients talk to it through
// endpoint overrides only.
//
// It keeps state, moves objects through the real status transitions (node groups CREATING →
// ACTIVE, UPDATING → ACTIVE, DELETING → gone; node pools PROVISIONING → RUNNING, RECONCILING →
// RUNNING, STOPPING → gone; operations RUNNING → DONE), validates requests the way the real
// APIs do and injects faults on request. It is a test double: where a behaviour mimics the
// cloud, the code cites the API reference it follows.
//
// # Go API
//
//	seed, err := cloudsim.LoadSeed("examples/cloudsim/seed.json")
//	sim, err := cloudsim.Start(cloudsim.Options{Seed: seed, TransitionDelay: 50 * time.Millisecond})
//	defer sim.Close()
//	ep := sim.Endpoints() // EKS, EC2, AutoScaling: "http://127.0.0.1:port"; GKE: "127.0.0.1:port";
//	                      // Control; Compute: "http://127.0.0.1:port/compute/v1/"
//
//	cfg := cloudsim.AWSConfig("us-east-1", 0) // static credentials, fast standard retryer
//	eksc := eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(ep.EKS) })
//	ec2c := ec2.NewFromConfig(cfg, func(o *ec2.Options) { o.BaseEndpoint = aws.String(ep.EC2) })
//	gke, err := container.NewClusterManagerClient(ctx, sim.GKEClientOptions()...)
//	gce, err := compute.NewService(ctx, sim.ComputeClientOptions()...)
//
//	sim.Inject(cloudsim.Fault{Service: "eks", Operation: "CreateNodegroup", Kind: cloudsim.Throttle, Count: 2})
//	sim.RequestsFor("eks", "CreateNodegroup") // what the provider sent
//	sim.Nodegroup("us-east-1", "ml", "gpu-od")  // copy of the stored object
//	sim.ScaleNodegroup("us-east-1", "ml", "gpu-od", 3) // out-of-band change
//
// The region of an AWS call comes from the SigV4 credential scope of its Authorization header
// (signatures are not verified), so one simulator serves every region of the seed. All
// resources belong to account 123456789012 and carry ARNs in the real formats. Status
// transitions are time based and applied lazily on access; there are no background goroutines.
//
// # Operations
//
// EKS: DescribeCluster, ListClusters, CreateNodegroup, DescribeNodegroup, ListNodegroups,
// UpdateNodegroupConfig, UpdateNodegroupVersion, DescribeUpdate, DeleteNodegroup, TagResource,
// UntagResource, ListTagsForResource. Any other path answers 404 UnknownOperationException.
//
// EC2: CreateLaunchTemplate, CreateLaunchTemplateVersion, ModifyLaunchTemplate,
// DescribeLaunchTemplates, DescribeLaunchTemplateVersions, DeleteLaunchTemplate, CreateTags and
// DeleteTags (on launch templates, instances and volumes), DescribeInstances, DescribeVolumes,
// DescribeCapacityReservations, DescribeInstanceTypeOfferings, DescribeSubnets. Any other action
// answers 400 InvalidAction. DryRun=true answers 412 DryRunOperation.
//
// EC2 Auto Scaling: DescribeAutoScalingGroups, CreateOrUpdateTags, DeleteTags, DescribeTags, on the
// Auto Scaling group each EKS node group has. Any other action answers 400 InvalidAction. A node
// group's instances (its desired size once ACTIVE, each with a root volume) launch with the group's
// propagate-at-launch tags and the launch template's instance and volume tags, the template's value
// winning a key both name (undocumented on AWS); EKS's five tags on the group count against an
// instance's 50; an update that rolls the nodes replaces them all (eks_fleet.go, autoscaling.go).
//
// The EKS and EC2 rules gpufleet depends on are cloudsim's, each with its source in a comment
// (eks_validate.go, eks_versions.go, eks_capacity.go): node groups only at the cluster's Kubernetes
// version, no roll back of a version or AMI release, the latest release for an update that names
// none (a launch template change upgrades the AMI), no Amazon Linux 2 after 1.32; Kubernetes label
// values; capacity blocks (instance type in the launch template and not in the request, subnets in
// the block's zone, no version update at a desired size above 0, the scale-down to 0 forty
// minutes before the block ends); launches into reservations only of their instance type and zone,
// within their free instances (else CREATE_FAILED or DEGRADED with AsgInstanceLaunchFailures); the
// surge of a DEFAULT rollout, which fails NodeCreationFailure on a full reservation (MINIMAL needs
// none); an instance type the region lacks as CREATE_FAILED Ec2InstanceTypeDoesNotExist; launch
// template data EC2 warns about (created, with Warning, and Ec2LaunchTemplateInvalidConfiguration
// on the node group); EKS health issue codes only; and the quotas of 30 node groups per cluster and
// 450 nodes per node group (the seed's eks_quotas raises them).
//
// GKE: GetCluster, ListClusters, ListNodePools, CreateNodePool, GetNodePool, UpdateNodePool,
// SetNodePoolSize, SetNodePoolAutoscaling, SetNodePoolManagement, DeleteNodePool, GetOperation,
// ListOperations. Any other RPC answers UNIMPLEMENTED. Operations on different node pools of a
// cluster run side by side (GKE's concurrent node pool mutations); a second operation on a node
// pool while one runs on it fails FAILED_PRECONDITION "Operation ... is currently ... node pool
// ... Please wait and try again once it is done." Each rule of the real API that gpufleet relies
// on is a rule here, with a comment naming its source: one field group per UpdateNodePool and
// locations always alone (gke_rules.go); versions and their aliases resolved to explicit GKE
// versions (gke_versions.go); accelerator driver, partition size and sharing changed in place,
// type and count not; GPU quota checked at the request (PERMISSION_DENIED "Insufficient regional
// quota"); machine types per zone; specific reservations looked up in their owner project, shared
// with the consumer, consumed only in their zone and with their machine shape; the 64 labels of a
// node's VM (the node pool's, the cluster's and GKE's own); sizes taken as asked, even beyond the
// autoscaling limits (a regional pool of initial_node_count 1 over three zones has three nodes).
// Out-of-band helpers start what GKE does by itself: AutoUpgradeNodePool, AutoRepairNodePool and
// SetBlueGreenPhase (gke_upgrades.go).
//
// Like GKE, node pools gain what they did not ask for (see gke_own.go): gpu_driver_installation_config
// DEFAULT when none was given; every pool the resource label goog-gke-node-pool-provisioning-model
// (on-demand, spot); GPU pools of a cluster that has a non-GPU pool the taint
// nvidia.com/gpu=present:NO_SCHEDULE. GKE's own Kubernetes labels (cloud.google.com/gke-accelerator,
// gke-gpu-driver-version, gke-gpu-partition-size, gke-gpu-sharing-strategy,
// gke-max-shared-clients-per-gpu, gke-spot, gke-nodepool) are on the nodes, not in config.labels
// (Sim.NodeLabels). Updates of labels, taints and resource labels replace the user's set and keep
// GKE's own.
//
// Compute: instanceGroupManagers.get, for the instance groups in NodePool.instance_group_urls;
// targetSize is the pool's node count per zone (initial_node_count, SetNodePoolSize,
// ScaleNodePool); during a blue-green upgrade the blue and green groups, the blue ones 404 once
// deleted. reservations.get, for the seeded reservations in their zone. Anything else answers 404
// notFound.
//
// # Seed
//
// The seed (JSON, unknown fields rejected) holds what the provider reads but never creates:
//
//	{
//	  "aws": {"regions": {"us-east-1": {
//	    "clusters": [{"name": "ml", "version": "1.31", "status": "ACTIVE", "release_version": "1.31.7-20250620", "tags": {}}],
//	    "subnets": [{"id": "subnet-0a1", "availability_zone": "us-east-1a", "vpc_id": "vpc-1", "cidr_block": "10.0.0.0/19", "tags": {}}],
//	    "capacity_reservations": [{"id": "cr-0a1b2c3d4e5f60001", "instance_type": "p5.48xlarge",
//	      "availability_zone": "us-east-1a", "total_instance_count": 2, "available_instance_count": 2,
//	      "state": "active", "reservation_type": "default|capacity-block", "instance_platform": "Linux/UNIX",
//	      "instance_match_criteria": "open|targeted", "start_date": "RFC 3339", "end_date": "RFC 3339", "tags": {}}],
//	    "instance_type_offerings": {"us-east-1a": ["g5.xlarge", "p5.48xlarge"]},
//	    "eks_quotas": {"nodegroups_per_cluster": 30, "nodes_per_nodegroup": 450}}}},
//	  "gcp": {"projects": {"acme-ml": {
//	    "clusters": [{"name": "ml", "location": "us-central1", "version": "1.31.6-gke.1020000",
//	      "locations": ["us-central1-a", "us-central1-b"], "status": "RUNNING",
//	      "node_pools": [{"name": "default-pool", "machine_type": "e2-standard-4", "node_count": 1,
//	        "locations": ["us-central1-a"], "accelerator_type": "", "accelerator_count": 0}]}],
//	    "accelerators": {"us-central1-a": ["nvidia-l4", "nvidia-tesla-t4"]},
//	    "reservations": [{"name": "h100-reservation", "zone": "us-central1-a", "machine_type": "a3-highgpu-8g",
//	      "accelerator_type": "nvidia-h100-80gb", "accelerator_count": 8, "count": 2, "share_with": ["other-project"],
//	      "share_type": "SPECIFIC_PROJECTS|ORGANIZATION|LOCAL"}],
//	    "organization": "organizations/42",
//	    "machine_types": {"us-central1-f": ["e2-standard-4", "n1-standard-8"]},
//	    "gpu_quota": {"us-central1": {"NVIDIA_L4_GPUS": 16, "PREEMPTIBLE_NVIDIA_L4_GPUS": 64}}}}}
//	}
//
// A cluster may also name "valid_node_versions" (default: a built-in list within the version skew
// of its version), "retired_node_versions" (no longer offered), "resource_labels", and "kubernetes"
// ({"endpoint", "ca_pem"}: a real API server that plays the cluster, whose address and CA GetCluster
// returns as endpoint and masterAuth.clusterCaCertificate). A seeded node pool may also name "spot",
// "labels", "resource_labels", "total_min_node_count", "total_max_node_count" and "created_version"
// (created before 1.30: no GPU driver setting).
//
// Instance types are offered in a region when listed for one of its zones; an EKS node group with
// a type the region does not offer fails (CREATE_FAILED), and at least one subnet zone must offer
// each offered type. GKE accelerators must
// be listed for every zone the node pool uses (its locations, else all cluster locations).
// Seeded node pools exist, RUNNING, when the world is created from the seed (not when a state
// file is loaded); without them a cluster has no node pools.
// examples/cloudsim/seed.json is a complete example.
//
// # IAM
//
// Options.IAM (or Sim.SetIAM) names one identity, by the access key it signs with, and its
// identity-based policy (a JSON policy document): every EKS, EC2 and EC2 Auto Scaling call it signs is
// allowed only as the policy allows it, and refused otherwise with the service's own error (EKS 403
// AccessDeniedException, EC2 403 UnauthorizedOperation, Auto Scaling 403 AccessDenied), whose
// message names the action. CreateNodegroup also needs iam:PassRole on the node role, ec2:RunInstances
// and ec2:CreateTags with a launch template (as UpdateNodegroupVersion does), and, in a fresh account
// (IAMIdentity.FreshAccount), iam:CreateServiceLinkedRole for the node group service-linked role
// (iam.go). A tagging call (EC2 CreateTags and DeleteTags, Auto Scaling CreateOrUpdateTags and
// DeleteTags) is authorized on each resource it names, and a CreateLaunchTemplate with tags also needs
// ec2:CreateTags (condition key ec2:CreateAction). Calls signed with another key are not checked.
// The command takes the policy from a file (-aws-policy, -aws-access-key, -aws-fresh-account).
//
// # Faults
//
// A Fault names a service (eks, ec2, autoscaling, gke, compute), an operation ("" for all) and a Kind:
// Throttle, ServerError, Unavailable, CreateFailed, Degraded, Latency or Stuck; Count fires it exactly n times,
// Rate with a probability, Match restricts it to a resource name (path.Match pattern). Errors
// are the ones the real services return, so the SDK retryers behave as in the cloud (see
// FaultKind). CreateFailed lets the call succeed and fails the object after the transition
// delay, with the fault's HealthIssues (IssueSpotCapacity, IssueInsufficientCapacity,
// IssueGCEStockout are ready-made); on DeleteNodegroup it ends the deletion DELETE_FAILED.
// Degraded (GKE) lets the operation succeed with the issues in its status_message only and leaves
// the node pool RUNNING_WITH_ERROR (a partial stockout); on GKE both also apply to SetNodePoolSize
// and SetNodePoolAutoscaling, and CreateFailed to DeleteNodePool. AfterStart (GKE) serves the call
// and answers with the fault's error anyway: a lost answer to an operation that started
// (gke_faults.go); with Latency, the call is served when the latency ends even after the caller
// gave up (without AfterStart, a call whose caller gave up is never served). Stuck (EKS
// CreateNodegroup, UpdateNodegroupConfig, UpdateNodegroupVersion, DeleteNodegroup) keeps the node
// group CREATING, UPDATING or DELETING for the fault's latency: an operation that outlasts a
// caller's timeout.
//
// A reservation's "accelerator_type" may be a URL (projects/P/zones/Z/acceleratorTypes/nvidia-l4),
// which reservations.get returns as given; "share_type" ORGANIZATION shares it with every project
// of the same "organization".
//
// # IAM
//
// Options.GCPPermissions (or Sim.SetGCPPermissions, or the -gcp-permissions flag) limits the GKE
// and Compute Engine caller to a set of IAM permissions: a call whose permission is not in it is
// refused before it has any effect (PERMISSION_DENIED `Required "container.clusters.update"
// permission(s) for "projects/…/clusters/…"`, Compute's 403 forbidden). The permission of each
// method is GKE's "API permissions" table (iam.go). Sim.ClusterAutoscale resizes a node pool as
// GKE's cluster autoscaler does: only with autoscaling on, within its limits.
//
// Options.ReadAfterWriteLag (or Sim.SetReadAfterWriteLag, or the control endpoint) makes EKS
// eventually consistent: a node group CreateNodegroup made, and an update UpdateNodegroupConfig or
// UpdateNodegroupVersion started, are not found by DescribeNodegroup, ListNodegroups and
// DescribeUpdate until the lag has passed (eks_consistency.go).
//
// # State file
//
// With Options.StatePath the world (seed, node groups, updates, launch templates, node pools,
// operations, pending transitions) is loaded at start and rewritten atomically after every
// mutating call, out-of-band change and Close, so separate processes share one world.
//
// # Control endpoint
//
// HTTP/JSON on Endpoints().Control:
//
//	GET    /healthz                        {"status":"ok"}
//	GET    /endpoints                      the Endpoints
//	GET    /faults                         active faults, with how often each fired
//	POST   /faults                         body: a Fault ({"service":"eks","operation":"CreateNodegroup",
//	                                       "kind":"throttle","count":2,"latency":"250ms",...}); 201 {"id":...}
//	DELETE /faults                         remove all faults
//	DELETE /faults/{id}                    remove one fault
//	GET    /requests?service=&operation=   the request log
//	DELETE /requests                       empty the request log
//	GET    /state                          node groups, launch templates and node pools
//	GET    /eks/read-after-write-lag       {"lag":"0s"}
//	PUT    /eks/read-after-write-lag       {"lag":"2s"}: new node groups and updates unreadable that long (204)
//	POST   /eks/cluster-kubernetes         {"region","cluster","endpoint","ca_pem"}: DescribeCluster's
//	                                       endpoint and CA become the API server's (a real one)
//	POST   /gke/cluster-kubernetes         {"project","location","cluster","endpoint","ca_pem"}: GetCluster's
//	                                       endpoint and CA become the API server's (a real one)
//	POST   /oob/eks/delete-nodegroup       {"region","cluster","nodegroup"}
//	POST   /oob/eks/scale-nodegroup        {"region","cluster","nodegroup","desired_size"}
//	POST   /oob/eks/set-nodegroup-label    {"region","cluster","nodegroup","key","value"}
//	POST   /oob/eks/degrade-nodegroup      {"region","cluster","nodegroup","health_issues":[{"code","message"}]} (lasts until recovered)
//	POST   /oob/eks/recover-nodegroup      {"region","cluster","nodegroup"}
//	POST   /oob/eks/upgrade-cluster        {"region","cluster","version","release"}
//	POST   /oob/eks/publish-ami-release    {"region","version","release"}
//	POST   /oob/ec2/end-capacity-block     {"region","reservation"}
//	POST   /oob/gke/delete-node-pool       {"project","location","cluster","node_pool"}
//	POST   /oob/gke/scale-node-pool        {"project","location","cluster","node_pool","node_count"}
//	POST   /oob/gke/set-node-pool-label    {"project","location","cluster","node_pool","key","value"}
//	POST   /oob/gke/auto-upgrade-node-pool {"project","location","cluster","node_pool","version","duration"}
//	POST   /oob/gke/auto-repair-node-pool  {"project","location","cluster","node_pool","duration"}
//	POST   /oob/gke/blue-green-phase       {"project","location","cluster","node_pool","phase"}
//	POST   /oob/gke/upgrade-control-plane  {"project","location","cluster","version"}
//	POST   /oob/gke/retire-node-versions   {"project","location","cluster","versions":[...]}
//
// Out-of-band routes answer 204, 400 for bad input and 404 for unknown objects.
//
// # Runnable form
//
// cmd/cloudsim runs the simulator as a process for `make demo`:
//
//	go run ./internal/cloudsim/cmd/cloudsim -seed examples/cloudsim/seed.json -state /tmp/cloudsim.json -delay 2s
//
// It prints EKS_ENDPOINT=..., EC2_ENDPOINT=..., GKE_ENDPOINT=..., CONTROL_ENDPOINT=...,
// COMPUTE_ENDPOINT=... and AUTOSCALING_ENDPOINT=... (also
// to -env-file) and shuts down cleanly on SIGINT/SIGTERM, writing the state file.
package cloudsim
