package eks_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// Bad input fails at plan time, at the attribute, before any call reaches the cloud.
func TestAccEKSNodePool_badInput(t *testing.T) {
	cases := []struct {
		name          string
		instanceTypes string
		body          string
		want          []string
	}{
		{"mig profile the GPU does not offer", `["p5.48xlarge"]`, "gpu {\n mig {\n profile = \"3g.20gb\"\n }\n}", []string{"gpu.mig.profile", "H100-80GB offers"}},
		{"mig on a GPU without mig", `["g5.xlarge"]`, "gpu {\n mig {\n profile = \"1g.10gb\"\n }\n}", []string{"gpu.mig", "A10G has no Multi-Instance GPU"}},
		{"instance types with different GPU models", `["g5.xlarge", "g6.xlarge"]`, ``, []string{`instance_types\[1\]`, "same GPU model"}},
		{"non-GPU instance type", `["m5.large"]`, ``, []string{`instance_types\[0\]`, "not an NVIDIA GPU instance type"}},
		{"non-NVIDIA AMI type", `["g5.xlarge"]`, `ami_type = "AL2023_x86_64_STANDARD"`, []string{"ami_type", "value must be one of"}},
		{"ARM AMI type with x86 GPU instance types", `["g5.xlarge", "g5.2xlarge"]`, `ami_type = "AL2023_ARM_64_NVIDIA"`, []string{"ami_type", "arm64 AMI type", "g5.xlarge", "x86_64", "AL2023_x86_64_NVIDIA"}},
		{"Bottlerocket ARM AMI type with x86 GPU instance types", `["p5.48xlarge"]`, `ami_type = "BOTTLEROCKET_ARM_64_NVIDIA"`, []string{"ami_type", "arm64 AMI type", "p5.48xlarge", "BOTTLEROCKET_x86_64_NVIDIA"}},
		{"spot share with a capacity block", `["p5.48xlarge"]`, fmt.Sprintf("capacity {\n spot_percentage = 50\n reservation {\n id = %q\n type = \"capacity-block\"\n }\n}", blockID), []string{"capacity.spot_percentage", "capacity block"}},
		{"min above max", `["g5.xlarge"]`, "", []string{"scaling.min_size", "greater than max_size"}},
		{"desired out of range", `["g5.xlarge"]`, "", []string{"scaling.desired_size", "between min_size"}},
		{"invalid taint effect", `["g5.xlarge"]`, `taints = [{ key = "team", effect = "NoSchedule" }]`, []string{"effect", "value must be one of"}},
		{"taint that duplicates a derived one", `["g5.xlarge"]`, `taints = [{ key = "nvidia.com/gpu", value = "present", effect = "NO_SCHEDULE" }]`, []string{"taints", `sets the "nvidia.com/gpu" taint itself`}},
		{"invalid client id", `["g5.xlarge"]`, `client = "Acme Corp"`, []string{"client", "lowercase letters"}},
		{"label key longer than EKS accepts", `["g5.xlarge"]`, `labels = { "scheduling.platform-team.example.com/preferred-maintenance-window-utc" = "night" }`, []string{"labels", "at most 63 characters"}},
		{"empty label value", `["g5.xlarge"]`, `labels = { team = "" }`, []string{"labels", "empty"}},
		{"taint key longer than EKS accepts", `["g5.xlarge"]`, `taints = [{ key = "scheduling.platform-team.example.com/preferred-maintenance-window-utc", effect = "NO_SCHEDULE" }]`, []string{"taints", "at most 63 characters"}},
		{"more tags than a node group takes", `["g5.xlarge"]`, "tags = {" + manyTags(46) + "}", []string{"tags", "at most 50"}},
		{"size that would wrap as an int32", `["g5.xlarge"]`, "", []string{"scaling.max_size", "must be between 1 and 4000"}},
		{"derived MIG label set by hand", `["p4d.24xlarge"]`, `labels = { "nvidia.com/mig.config" = "all-1g.5gb" }`, []string{"gpu.mig", "derives the \"nvidia.com/mig.config\" label"}},
		{"label under a prefix Kubernetes reserves", `["g5.xlarge"]`, `labels = { "node-role.kubernetes.io/gpu" = "true" }`, []string{"labels", "Kubernetes reserves"}},
		{"label under a prefix EKS reserves", `["g5.xlarge"]`, `labels = { "eks.amazonaws.com/compute-type" = "gpu" }`, []string{"labels", "EKS reserves"}},
		{"derived device plugin label set by hand", `["g5.xlarge"]`, `labels = { "nvidia.com/device-plugin.config" = "shared" }`, []string{"gpu.sharing", "derives the \"nvidia.com/device-plugin.config\" label"}},
		{"MPS on MIG slices", `["p5.48xlarge"]`, "gpu {\n mig {\n profile = \"3g.40gb\"\n }\n sharing {\n strategy = \"mps\"\n replicas = 2\n }\n}", []string{"gpu.sharing.strategy", "MPS", "MIG"}},
		{"sharing on a mixed MIG layout", `["p5.48xlarge"]`, "gpu {\n mig {\n config = \"all-balanced\"\n }\n sharing {\n strategy = \"time-slicing\"\n replicas = 2\n }\n}", []string{"gpu.sharing", "all-balanced", "mixed"}},
		{"MIG on Bottlerocket", `["p5.48xlarge"]`, "ami_type = \"BOTTLEROCKET_x86_64_NVIDIA\"\ngpu {\n mig {\n profile = \"3g.40gb\"\n }\n}", []string{"gpu.mig", "Bottlerocket", "AL2023_x86_64_NVIDIA"}},
		{"sharing on Bottlerocket", `["g5.xlarge"]`, "ami_type = \"BOTTLEROCKET_x86_64_NVIDIA\"\ngpu {\n sharing {\n strategy = \"time-slicing\"\n replicas = 2\n }\n}", []string{"gpu.sharing", "Bottlerocket"}},
		{"instance types of different sizes the autoscaler sizes", `["g5.xlarge", "g5.2xlarge"]`, "", []string{`instance_types\[1\]`, "g5.2xlarge", "8 vCPUs", "g5.xlarge", "4", "cluster autoscaler"}},
		{"an AMI type AWS no longer ships for the version", `["g5.xlarge"]`, "ami_type = \"AL2_x86_64_GPU\"\nkubernetes_version = \"1.33\"", []string{"ami_type", "AL2_x86_64_GPU", "1.32"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim := startSim(t)
			sizes := acctest.Scaling(0, 1, 2)
			switch tc.name {
			case "min above max":
				sizes = acctest.Scaling(3, 2, 2)
			case "desired out of range":
				sizes = acctest.Scaling(0, 5, 2)
			case "size that would wrap as an int32":
				sizes = "  scaling {\n    min_size = 0\n    max_size = 4294967298\n  }\n"
			case "instance types of different sizes the autoscaler sizes":
				sizes = "  scaling {\n    min_size = 0\n    max_size = 2\n  }\n"
			}
			body := inferenceWorkload + sizes + "  " + tc.body + "\n"
			cfg := providerConfig(sim, "") + poolConfig("train", tc.instanceTypes, body)
			if strings.HasPrefix(tc.body, "client") { // replace the default client
				cfg = strings.Replace(cfg, "client         = \"acme\"\n", "", 1)
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      cfg,
					ExpectError: acctest.ExpectErrorParts(tc.want...),
				}},
			})
			if n := requestCount(sim, ""); n != 0 {
				t.Fatalf("bad input reached the cloud: %d calls: %+v", n, sim.Requests())
			}
		})
	}
}

// manyTags is n HCL map entries t00 = "x", t01 = "x", ...
func manyTags(n int) string {
	entries := make([]string, n)
	for i := range entries {
		entries[i] = fmt.Sprintf("t%02d = %q", i, "x")
	}
	return strings.Join(entries, ", ")
}

// Throttling and 5xx are retried by the SDK's standard retryer: 50 pools under a 20 % throttling
// rate (terraform's default -parallelism=10) all apply, and the cloud holds exactly them.
func TestAccEKSNodePool_throttling(t *testing.T) {
	// 50 node groups in one cluster: over EKS's default quota of 30, raised as an account would.
	sim := startSimWith(t, func(r *cloudsim.AWSRegionSeed) { r.EKSQuotas = &cloudsim.EKSQuotas{NodegroupsPerCluster: 60} })
	for _, svc := range []string{"eks", "ec2"} {
		if _, err := sim.Inject(cloudsim.Fault{Service: svc, Kind: cloudsim.Throttle, Rate: 0.2}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sim.Inject(cloudsim.Fault{Service: "eks", Operation: "CreateNodegroup", Kind: cloudsim.ServerError, Count: 5}); err != nil {
		t.Fatal(err)
	}
	var cfg strings.Builder
	cfg.WriteString(providerConfig(sim, ""))
	for i := range 50 {
		cfg.WriteString(poolConfig(fmt.Sprintf("p%02d", i), `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config: cfg.String(),
			Check: func(s *terraform.State) error {
				names := clients(t, sim).nodegroupNames(t)
				if len(names) != 50 {
					return fmt.Errorf("cloud has %d node groups, want 50", len(names))
				}
				for i := range 50 {
					want := fmt.Sprintf("p%02d-od", i)
					if !slices.Contains(names, want) {
						return fmt.Errorf("node group %s missing", want)
					}
					if _, ok := s.RootModule().Resources[fmt.Sprintf("gpufleet_eks_node_pool.p%02d", i)]; !ok {
						return fmt.Errorf("pool p%02d missing from state", i)
					}
				}
				throttled := 0
				for _, f := range sim.Faults() {
					throttled += f.Fired
				}
				if throttled == 0 {
					return fmt.Errorf("no fault fired: the test proves nothing")
				}
				return nil
			},
		}},
	})
}

// CREATE_FAILED: the apply fails with the health issues, state records the node group that exists
// (tainted), and the next apply replaces it; nothing is orphaned.
func TestAccEKSNodePool_createFailed(t *testing.T) {
	sim := startSim(t)
	testFailedCreateReplaced(t, sim, poolConfig("train", `["p5.48xlarge"]`, trainingWorkload+acctest.Scaling(0, 1, 2)),
		[]cloudsim.Fault{{Service: "eks", Operation: "CreateNodegroup", Kind: cloudsim.CreateFailed, Count: 1,
			HealthIssues: []cloudsim.HealthIssue{{Code: "InsufficientFreeAddresses", Message: "One or more of the subnets does not have enough available IP addresses."}}}},
		"train-od", "CREATE_FAILED", "InsufficientFreeAddresses", "does not have enough available IP addresses")
}

// testFailedCreateReplaced applies pool (one on-demand side, train-od, sizes 0/1/2) with faults
// that fail the create with wantErr, then again: the tainted pool is replaced, and the cloud holds
// its one node group and one launch template.
func testFailedCreateReplaced(t *testing.T, sim *cloudsim.Sim, pool string, faults []cloudsim.Fault, wantErr ...string) {
	cfg := providerConfig(sim, "") + pool
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					for _, f := range faults {
						if _, err := sim.Inject(f); err != nil {
							t.Fatal(err)
						}
					}
				},
				Config:      cfg,
				ExpectError: acctest.ExpectErrorParts(wantErr...),
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: nodeGroupCheck(0, "train-od", "ON_DEMAND", 0, 1, 2),
				Check: func(*terraform.State) error {
					if lts := clients(t, sim).launchTemplateNames(t); !slices.Equal(lts, []string{"gpufleet.ml.train-od"}) {
						return fmt.Errorf("launch templates %v, want exactly the pool's one", lts)
					}
					return nil
				},
			},
		},
	})
}

// The second node group of a spot mix fails (insufficient spot capacity, audit D1): the pool is
// created with the healthy on-demand node group and a warning, not tainted; state records the failed
// spot node group as not in sync, and the next apply replaces only it. train-od keeps its ARN
// throughout: no call of the repair touches it.
func TestAccEKSNodePool_spotSideFails(t *testing.T) {
	sim := startSim(t)
	var diags acctest.ApplyDiagnostics
	cfg := providerConfig(sim, "") + poolConfig("train", `["g5.xlarge", "g5.2xlarge"]`, trainingWorkload+acctest.Scaling(0, 4, 8)+acctest.Capacity(50, 1))
	var od, failedSpot string // ARNs
	keptOD := func(when string) error {
		ng, ok := sim.Nodegroup(testRegion, testCluster, "train-od")
		switch {
		case !ok:
			return fmt.Errorf("%s: train-od is gone", when)
		case ng.NodegroupArn != od || ng.Status != "ACTIVE":
			return fmt.Errorf("%s: train-od is %s %s, want the ACTIVE %s", when, ng.NodegroupArn, ng.Status, od)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					_, err := sim.Inject(cloudsim.Fault{Service: "eks", Operation: "CreateNodegroup", Kind: cloudsim.CreateFailed, Count: 1, Match: "*-spot",
						HealthIssues: []cloudsim.HealthIssue{cloudsim.IssueSpotCapacity}})
					if err != nil {
						t.Fatal(err)
					}
				},
				Config:             cfg,
				ExpectNonEmptyPlan: true, // the repair
				// base 1, 50 %: desired 4 → 1 spot, max 8 → 3 spot.
				ConfigStateChecks: append(nodeGroupCheck(0, "train-od", "ON_DEMAND", 0, 3, 5),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("in_sync"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(1).AtMapKey("name"), knownvalue.StringExact("train-spot")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(1).AtMapKey("status"), knownvalue.StringExact("CREATE_FAILED")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(1).AtMapKey("in_sync"), knownvalue.Bool(false))),
				Check: func(s *terraform.State) error {
					if rs := s.RootModule().Resources[addr]; rs == nil || rs.Primary.Tainted {
						return fmt.Errorf("the pool is missing or tainted: %+v", rs)
					}
					ng, ok := sim.Nodegroup(testRegion, testCluster, "train-od")
					spot, ok2 := sim.Nodegroup(testRegion, testCluster, "train-spot")
					if !ok || !ok2 || ng.Status != "ACTIVE" || spot.Status != "CREATE_FAILED" {
						return fmt.Errorf("want an ACTIVE train-od and a CREATE_FAILED train-spot: %+v %+v", ng, spot)
					}
					od, failedSpot = ng.NodegroupArn, spot.NodegroupArn
					if got := s.RootModule().Resources[addr].Primary.Attributes["node_groups.0.arn"]; got != od {
						return fmt.Errorf("state records train-od as %s, the cloud holds %s", got, od)
					}
					return diags.ExpectWarning("train-spot", "CREATE_FAILED", "AsgInstanceLaunchFailures", "no Spot capacity",
						"train-od", "next apply replaces only train-spot")
				},
			},
			{
				PreConfig: func() {
					if err := keptOD("before the repair"); err != nil {
						t.Fatal(err)
					}
					sim.ResetRequests()
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("arn"), knownvalue.StringFunc(func(v string) error {
							if v != od {
								return fmt.Errorf("the plan gives train-od the ARN %s, want its own %s", v, od)
							}
							return nil
						})),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(1).AtMapKey("arn")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: append(nodeGroupCheck(0, "train-od", "ON_DEMAND", 0, 3, 5),
					nodeGroupCheck(1, "train-spot", "SPOT", 0, 1, 3)...),
				Check: func(*terraform.State) error {
					if err := keptOD("after the repair"); err != nil {
						return err
					}
					for _, r := range sim.Requests() {
						if r.Service == "eks" && (strings.HasPrefix(r.Operation, "Delete") || strings.HasPrefix(r.Operation, "Update") || r.Operation == "CreateNodegroup") {
							if name, _ := r.Params["nodegroupName"].(string); name == "train-od" {
								return fmt.Errorf("the repair called %s on train-od", r.Operation)
							}
						}
					}
					if spot, _ := sim.Nodegroup(testRegion, testCluster, "train-spot"); spot.NodegroupArn == failedSpot {
						return fmt.Errorf("the failed train-spot %s was kept, want a new one", failedSpot)
					}
					return nil
				},
			},
		},
	})
}

// Timeouts are honoured and reported with the status the pool was left in.
func TestAccEKSNodePool_timeout(t *testing.T) {
	sim := startSim(t)
	if _, err := sim.Inject(cloudsim.Fault{Service: "eks", Operation: "DescribeNodegroup", Kind: cloudsim.Latency, Latency: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+`
  timeouts {
    create = "1s"
  }
`),
				ExpectError: acctest.ExpectErrorParts("train-od", "timed out|deadline exceeded|context deadline"),
			},
			{
				PreConfig: sim.ClearFaults,
				Config:    providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("ACTIVE")),
				},
			},
		},
	})
}

// A destroy while a node group is still CREATING or UPDATING, as a create or an update that outlasted
// its timeout leaves it (the create warns and keeps the pool in state), waits for EKS to end the
// operation and then deletes the pool. EKS refuses DeleteNodegroup meanwhile
// (ResourceInUseException, as cloudsim answers), which failed the destroy before.
func TestAccEKSNodePool_destroyWhileBusy(t *testing.T) {
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skipf("acceptance test: set %s=1", resource.EnvTfAcc)
	}
	// How long the operation stays busy: past the 2 s timeout, and past the destroy's first
	// DeleteNodegroup, which follows the timed-out apply's refresh and plans (4.0 to 4.8 s after the
	// create on a loaded 2-core machine; with matrixStuck's 4 s the destroy sometimes came after the
	// operation had ended, and met nothing busy).
	const busyFor = 12 * time.Second
	pool := func(desired int, extra string) string {
		return poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, desired, 4)+extra)
	}
	for _, tc := range []struct {
		name, op, status string
		before, during   string // the pool before (none: the create is the busy one), and as the busy apply gives it
		warn, err        []string
	}{
		{name: "creating", op: "CreateNodegroup", status: "CREATING", during: pool(1, timeouts("create")),
			warn: []string{"train-od", "still creating", "does not taint"}},
		{name: "updating", op: "UpdateNodegroupConfig", status: "UPDATING", before: pool(1, ""), during: pool(2, timeouts("update")),
			err: []string{"updating EKS node group", "train-od", "(timed out|deadline exceeded)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim := startSim(t)
			var diags acctest.ApplyDiagnostics
			config := func(pool string) string { return providerConfig(sim, "") + pool }
			var steps []resource.TestStep
			if tc.before != "" {
				steps = append(steps, resource.TestStep{Config: config(tc.before)})
			}
			busy := resource.TestStep{
				PreConfig: func() {
					if _, err := sim.Inject(cloudsim.Fault{Service: "eks", Operation: tc.op, Kind: cloudsim.Stuck, Count: 1, Match: "train-od", Latency: busyFor}); err != nil {
						t.Fatal(err)
					}
					diags.Reset()
				},
				Config: config(tc.during),
			}
			if tc.err != nil {
				busy.ExpectError = acctest.ExpectErrorParts(tc.err...)
			} else {
				busy.Check = func(*terraform.State) error { return diags.ExpectWarning(tc.warn...) }
			}
			destroy := resource.TestStep{
				PreConfig: func() {
					if ng, ok := sim.Nodegroup(testRegion, testCluster, "train-od"); !ok || ng.Status != tc.status {
						t.Fatalf("train-od is %q when the destroy starts, want %s: the test proves nothing", ng.Status, tc.status)
					}
				},
				Config:  config(tc.during),
				Destroy: true,
				// In the step: a test case's CheckDestroy is skipped when its last step destroyed
				// everything (terraform-plugin-testing runs it only with a post-test destroy).
				Check: func(s *terraform.State) error {
					if n := requestCount(sim, "DeleteNodegroup"); n != 2 {
						return fmt.Errorf("DeleteNodegroup called %d times, want 2: refused while %s, then accepted", n, tc.status)
					}
					return checkNothingLeft(t, sim)(s)
				},
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: diags.ProviderFactories(),
				Steps:                    append(steps, busy, destroy),
			})
		})
	}
}

// Policy at plan time: a deny fails the plan at the attribute (no cloud call), a waiver turns it
// into a warning, enforcement = "warn" downgrades it.
func TestAccEKSNodePool_policy(t *testing.T) {
	sim := startSim(t)
	shared := acctest.SharingInProduction + acctest.Scaling(1, 1, 2)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: acctest.PolicySteps(t, addr, func() int { return requestCount(sim, "") }, func(providerExtra, poolExtra string) string {
			return providerConfig(sim, providerExtra) + poolConfig("train", `["g6.xlarge"]`, shared+poolExtra)
		}),
	})
}

// A failed update leaves state as the cloud holds it, so the next apply retries the change.
func TestAccEKSNodePool_updateFailed(t *testing.T) {
	sim := startSim(t)
	cfg := func(desired int) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(1, desired, 4))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(1)},
			{
				PreConfig: func() {
					if _, err := sim.Inject(cloudsim.Fault{Service: "eks", Operation: "UpdateNodegroupConfig", Kind: cloudsim.CreateFailed, Count: 1,
						HealthIssues: []cloudsim.HealthIssue{{Code: "AutoScalingGroupInvalidConfiguration", Message: "The Auto Scaling group is misconfigured."}}}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      cfg(3),
				ExpectError: acctest.ExpectErrorParts("updating EKS node group", "train-od", "Failed"),
			},
			{
				Config: cfg(3),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: nodeGroupCheck(0, "train-od", "ON_DEMAND", 1, 3, 4),
			},
		},
	})
}

// A side that ends CREATE_FAILED while an update adds it is not hidden: the next plan is an update
// (state shows the failed node group, not a healthy one), and the apply replaces it.
func TestAccEKSNodePool_failedSideReplaced(t *testing.T) {
	sim := startSim(t)
	cfg := func(pct int) string {
		return providerConfig(sim, "") + poolConfig("train", `["g5.xlarge"]`, trainingWorkload+acctest.Scaling(0, 2, 4)+acctest.Capacity(pct, 0))
	}
	var failed string
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{Config: cfg(0)},
		resource.TestStep{
			PreConfig: func() {
				if _, err := sim.Inject(cloudsim.Fault{Service: "eks", Operation: "CreateNodegroup", Kind: cloudsim.CreateFailed, Count: 1, Match: "*-spot",
					HealthIssues: []cloudsim.HealthIssue{cloudsim.IssueSpotCapacity}}); err != nil {
					t.Fatal(err)
				}
			},
			Config:      cfg(50),
			ExpectError: acctest.ExpectErrorParts("train-spot", "CREATE_FAILED", "AsgInstanceLaunchFailures"),
		},
		resource.TestStep{
			PreConfig: func() {
				ng, ok := sim.Nodegroup(testRegion, testCluster, "train-spot")
				if !ok || ng.Status != "CREATE_FAILED" {
					t.Fatalf("want a CREATE_FAILED train-spot before the repair: %+v", ng)
				}
				failed = ng.NodegroupArn
			},
			Config: cfg(50),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: append(nodeGroupCheck(0, "train-od", "ON_DEMAND", 0, 1, 2), nodeGroupCheck(1, "train-spot", "SPOT", 0, 1, 2)...),
			Check: checkNodegroup(t, sim, "train-spot", func(ng *ekstypes.Nodegroup) error {
				if aws.ToString(ng.NodegroupArn) == failed {
					return fmt.Errorf("the failed node group %s was kept, want a new one", failed)
				}
				return nil
			}),
		},
	))
}

// An update that fails on one side after the other side took the change leaves state as the cloud
// holds it: the next plan shows the side that missed the change, and the apply brings it in line.
func TestAccEKSNodePool_partialUpdateNotHidden(t *testing.T) {
	sim := startSim(t)
	cfg := func(labels string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g5.xlarge"]`, trainingWorkload+acctest.Scaling(0, 2, 4)+acctest.Capacity(50, 0)+labels)
	}
	withLabel := "  labels = { team = \"ml\" }\n"
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{Config: cfg("")},
		resource.TestStep{
			PreConfig: func() {
				if _, err := sim.Inject(cloudsim.Fault{Service: "eks", Operation: "UpdateNodegroupConfig", Kind: cloudsim.CreateFailed, Count: 1, Match: "*-spot",
					HealthIssues: []cloudsim.HealthIssue{{Code: "AutoScalingGroupInvalidConfiguration", Message: "The Auto Scaling group is misconfigured."}}}); err != nil {
					t.Fatal(err)
				}
			},
			Config:      cfg(withLabel),
			ExpectError: acctest.ExpectErrorParts("updating EKS node group", "train-spot", "Failed"),
		},
		resource.TestStep{
			Config: cfg(withLabel),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: checkNodegroup(t, sim, "train-spot", func(ng *ekstypes.Nodegroup) error { return wantLabel(ng, "team", "ml") }),
		},
	))
}

// A node group DEGRADED for a reason of its own (here its subnets ran out of addresses) does not
// hold an update up: the update is waited for until EKS reports it Successful, not until the node
// group is ACTIVE, which it will not be; the apply warns, and succeeds.
func TestAccEKSNodePool_degradedNodegroupDoesNotBlock(t *testing.T) {
	sim := startSim(t)
	cfg := func(labels string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+labels+"  timeouts {\n    update = \"20s\"\n  }\n")
	}
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config: cfg(""),
			Check: func(*terraform.State) error {
				return sim.DegradeNodegroup(testRegion, testCluster, "train-od", cloudsim.HealthIssue{Code: "InsufficientFreeAddresses", Message: "One or more of the subnets has no free IP addresses."})
			},
		},
		resource.TestStep{
			Config: cfg("  labels = { team = \"ml\" }\n"),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("DEGRADED")),
			},
			Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error { return wantLabel(ng, "team", "ml") }),
		},
	))
}

// A launch template EC2 creates with warnings (data no instance launches from: here the capacity
// block's instance type, which the region no longer offers) fails the apply with EC2's warnings, and
// the template is deleted again.
func TestAccEKSNodePool_launchTemplateWarnings(t *testing.T) {
	sim := startSimWith(t, func(r *cloudsim.AWSRegionSeed) {
		for zone, types := range r.InstanceTypeOfferings {
			r.InstanceTypeOfferings[zone] = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "p5.48xlarge" })
		}
	})
	resource.Test(t, poolTest(t, sim, resource.TestStep{
		Config:      capacityBlock(sim),
		ExpectError: acctest.ExpectErrorParts("creating EKS node group", "train-od", "InvalidInstanceType", "p5.48xlarge"),
	}))
	if lts := clients(t, sim).launchTemplateNames(t); len(lts) > 0 {
		t.Fatalf("launch templates left after a failed create: %v", lts)
	}
}

// Read-after-write lag (audit D9): EKS may not yet find a node group or an update right after the
// call that made it. The create and the update wait through ResourceNotFoundException, as
// terraform-provider-aws's waiters do, instead of failing (and tainting) a create that succeeded.
func TestAccEKSNodePool_readAfterWriteLag(t *testing.T) {
	sim := startSim(t)
	sim.SetReadAfterWriteLag(time.Second)
	cfg := func(desired int) string {
		return providerConfig(sim, "") + poolConfig("train", `["g5.xlarge"]`, trainingWorkload+acctest.Scaling(0, desired, 4)+acctest.Capacity(50, 0))
	}
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config:            cfg(2),
			ConfigStateChecks: append(nodeGroupCheck(0, "train-od", "ON_DEMAND", 0, 1, 2), nodeGroupCheck(1, "train-spot", "SPOT", 0, 1, 2)...),
		},
		resource.TestStep{
			Config: cfg(4),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: append(nodeGroupCheck(0, "train-od", "ON_DEMAND", 0, 2, 2), nodeGroupCheck(1, "train-spot", "SPOT", 0, 2, 2)...),
			Check: func(*terraform.State) error {
				for _, op := range []string{"DescribeNodegroup", "DescribeUpdate"} {
					if !slices.ContainsFunc(sim.RequestsFor("eks", op), func(r cloudsim.Request) bool { return r.Error == "ResourceNotFoundException" }) {
						return fmt.Errorf("no %s answered ResourceNotFoundException: the lag was never met, the test proves nothing", op)
					}
				}
				return nil
			},
		},
	))
}
