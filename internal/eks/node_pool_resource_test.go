package eks_test

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
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

const trainingWorkload = `
  workload {
    kind           = "training"
    environment    = "staging"
    gpu_memory_gib = 20
    interruptible  = true
  }
`

const inferenceWorkload = `
  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 16
  }
`

const addr = "gpufleet_eks_node_pool.train"

func TestAccEKSNodePool_basic(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{{
			Config: providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(1, 2, 4)+`
  labels = { team = "ml" }
  tags   = { Project = "vision" }
`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
				// Derived values are known at plan time, so `terraform plan` shows them.
				plancheck.ExpectKnownValue(addr, tfjsonpath.New("gpu_model"), knownvalue.StringExact("L4")),
				plancheck.ExpectKnownValue(addr, tfjsonpath.New("effective_labels").AtMapKey("gpufleet.io/client"), knownvalue.StringExact("acme")),
				plancheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("name"), knownvalue.StringExact("train-od")),
				plancheck.ExpectKnownValue(addr, tfjsonpath.New("estimated_monthly_cost_usd"), knownvalue.NotNull()),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("ml:train")),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("region"), knownvalue.StringExact(testRegion)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpus_per_node"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpu_memory_gib"), knownvalue.Float64Exact(22.35)), // L4 as EC2 reports it: 22,888 MiB
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_taints"), knownvalue.SetExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{"key": knownvalue.StringExact("nvidia.com/gpu"), "value": knownvalue.StringExact("present"), "effect": knownvalue.StringExact("NO_SCHEDULE")}),
				})),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_tags"), knownvalue.MapExact(map[string]knownvalue.Check{
					"ManagedBy":         knownvalue.StringExact("terraform"),
					"Project":           knownvalue.StringExact("vision"),
					"gpufleet:client":   knownvalue.StringExact("acme"),
					"gpufleet:pool":     knownvalue.StringExact("train"),
					"gpufleet:workload": knownvalue.StringExact("inference"),
				})),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups"), knownvalue.ListSizeExact(1)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("ACTIVE")),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("capacity_type"), knownvalue.StringExact("ON_DEMAND")),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_plugin_config"), knownvalue.Null()),
			},
			Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
				return errors.Join(
					wantLabel(ng, "gpufleet.io/capacity-type", "on-demand"),
					wantLabel(ng, "gpufleet.io/workload", "inference"),
					wantLabel(ng, "team", "ml"),
					wantTag(ng, "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu", "1"),
					// The cluster autoscaler reads a managed node group's labels and taints from
					// DescribeNodegroup and only node-template/resources/* from its tags.
					noTagPrefix(ng, "k8s.io/cluster-autoscaler/node-template/label/"),
					noTagPrefix(ng, "k8s.io/cluster-autoscaler/node-template/taint/"),
					wantLabel(ng, "k8s.amazonaws.com/accelerator", "nvidia-l4"),
					wantInstanceTags(t, sim, ng, map[string]string{"gpufleet:client": "acme", "Project": "vision", "ManagedBy": "terraform"}),
				)
			}),
		}},
	})
}

func noTagPrefix(ng *ekstypes.Nodegroup, prefix string) error {
	for k := range ng.Tags {
		if strings.HasPrefix(k, prefix) {
			return fmt.Errorf("node group %s has tag %s, want no %s* tags", aws.ToString(ng.NodegroupName), k, prefix)
		}
	}
	return nil
}

func wantTag(ng *ekstypes.Nodegroup, key, value string) error {
	if got := ng.Tags[key]; got != value {
		return fmt.Errorf("node group %s tag %s = %q, want %q", aws.ToString(ng.NodegroupName), key, got, value)
	}
	return nil
}

// wantInstanceTags checks that the launch template tags instances and volumes, which is what carries
// per-client cost allocation to EC2 billing, and has no network-interface tag specification: EKS's
// copy of the template drops it (audit D6).
func wantInstanceTags(t *testing.T, sim *cloudsim.Sim, ng *ekstypes.Nodegroup, want map[string]string) error {
	data, err := clients(t, sim).launchTemplateData(ng)
	if err != nil {
		return err
	}
	seen := map[ec2types.ResourceType]bool{}
	for _, ts := range data.TagSpecifications {
		seen[ts.ResourceType] = true
		got := map[string]string{}
		for _, tag := range ts.Tags {
			got[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
		}
		for k, v := range want {
			if got[k] != v {
				return fmt.Errorf("launch template tags for %s: %s = %q, want %q", ts.ResourceType, k, got[k], v)
			}
		}
	}
	for _, rt := range []ec2types.ResourceType{ec2types.ResourceTypeInstance, ec2types.ResourceTypeVolume} {
		if !seen[rt] {
			return fmt.Errorf("launch template has no tag specification for %s", rt)
		}
	}
	if seen[ec2types.ResourceTypeNetworkInterface] {
		return fmt.Errorf("launch template tags network interfaces, which EKS's copy of it drops: %+v", data.TagSpecifications)
	}
	return nil
}

// wantFleetTags checks what the node group's instances carry: every running instance and its
// volume have want's tags (a value "" is a tag they must not have), and so does its Auto Scaling
// group for the instances it launches next, when it carries any of them.
func wantFleetTags(t *testing.T, sim *cloudsim.Sim, name string, want map[string]string) error {
	instances := sim.Instances(testRegion, testCluster, name)
	if len(instances) == 0 {
		return fmt.Errorf("node group %s has no instances", name)
	}
	var errs []error
	has := func(what string, tags map[string]string) {
		for k, v := range want {
			if got, ok := tags[k]; got != v || (v == "" && ok) {
				errs = append(errs, fmt.Errorf("%s: tag %s = %q (present %t), want %q", what, k, got, ok, v))
			}
		}
	}
	for _, i := range instances {
		has("instance "+i.ID, i.Tags)
		has("volume "+i.Volume.ID, i.Volume.Tags)
	}
	g, _ := sim.AutoScalingGroupOf(testRegion, testCluster, name)
	group := map[string]string{}
	for k, tag := range g.Tags {
		if tag.PropagateAtLaunch {
			group[k] = tag.Value
		}
	}
	if slices.ContainsFunc(slices.Collect(maps.Keys(want)), func(k string) bool { _, ok := group[k]; return ok }) {
		has("Auto Scaling group "+g.Name, group)
	}
	return errors.Join(errs...)
}

// instanceIDs are a node group's instances, to tell a roll (every one replaced) from none.
func instanceIDs(sim *cloudsim.Sim, name string) []string {
	var ids []string
	for _, i := range sim.Instances(testRegion, testCluster, name) {
		ids = append(ids, i.ID)
	}
	slices.Sort(ids)
	return ids
}

// A tag change (a cost centre, a client tag) rolls no node: the Auto Scaling group propagates the new
// tags to the instances it launches, the running instances and their volumes are retagged, and the
// launch template keeps its version until a roll happens anyway. Instances launched later from the
// old template (the autoscaler scales up) carry its tags: refresh finds them out of step, and the
// next apply retags them, again without a roll.
func TestAccEKSNodePool_tagChangeRollsNothing(t *testing.T) {
	sim := startSim(t)
	var diags acctest.ApplyDiagnostics
	cfg := func(tags string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+`
  scaling {
    min_size = 2
    max_size = 4
  }
`+tags)
	}
	var ids []string
	var version string
	noRoll := func(*terraform.State) error {
		if requestCount(sim, "UpdateNodegroupVersion") > 0 || requestCount(sim, "CreateLaunchTemplateVersion") > 0 {
			return fmt.Errorf("the tag change rolled the nodes: %v", mutatingCalls(sim))
		}
		if got := instanceIDs(sim, "train-od"); !slices.Equal(got, ids) {
			return fmt.Errorf("instances %v, want the ones that ran, %v", got, ids)
		}
		ng, _ := sim.Nodegroup(testRegion, testCluster, "train-od")
		if ng.LaunchTemplate.Version != version {
			return fmt.Errorf("launch template version %s, want %s", ng.LaunchTemplate.Version, version)
		}
		return diags.ExpectNoPlanWarning("replaces every node")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: cfg("  tags = { Project = \"vision\" }\n"),
				Check: func(*terraform.State) error {
					ids = instanceIDs(sim, "train-od")
					ng, _ := sim.Nodegroup(testRegion, testCluster, "train-od")
					version = ng.LaunchTemplate.Version
					sim.ResetRequests()
					diags.Reset()
					return wantFleetTags(t, sim, "train-od", map[string]string{"Project": "vision", "gpufleet:client": "acme"})
				},
			},
			{
				Config:           cfg("  tags = { Project = \"llm\", Team = \"ml\" }\n"),
				ConfigPlanChecks: updateThenNothing(),
				Check: func(s *terraform.State) error {
					return errors.Join(noRoll(s), wantFleetTags(t, sim, "train-od", map[string]string{"Project": "llm", "Team": "ml"}),
						checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error { return wantTag(ng, "Project", "llm") })(s))
				},
			},
			{
				Config:           cfg("  tags = { Project = \"llm\" }\n"),
				ConfigPlanChecks: updateThenNothing(),
				Check: func(s *terraform.State) error {
					return errors.Join(noRoll(s), wantFleetTags(t, sim, "train-od", map[string]string{"Project": "llm", "Team": ""}))
				},
			},
			{
				// The autoscaler adds a node, launched from the template, which still tags Project =
				// vision: refresh finds it out of step, and the apply retags it.
				PreConfig: func() {
					if err := sim.ScaleNodegroup(testRegion, testCluster, "train-od", 3); err != nil {
						t.Fatal(err)
					}
					if err := wantFleetTags(t, sim, "train-od", map[string]string{"Project": "llm"}); err == nil {
						t.Fatal("the new instance carries the new tags already: the step proves nothing")
					}
					ids = instanceIDs(sim, "train-od")
				},
				Config:           cfg("  tags = { Project = \"llm\" }\n"),
				ConfigPlanChecks: updateThenNothing(),
				Check: func(s *terraform.State) error {
					return errors.Join(noRoll(s), wantFleetTags(t, sim, "train-od", map[string]string{"Project": "llm"}))
				},
			},
		},
	})
}

// Each in-place change is an update, never a replacement, and lands in EKS.
func TestAccEKSNodePool_update(t *testing.T) {
	sim := startSim(t)
	base := func(body string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g5.xlarge", "g5.2xlarge"]`, trainingWorkload+body)
	}
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: base(acctest.Scaling(1, 1, 3))},
			{
				Config:           base(acctest.Scaling(1, 2, 5)),
				ConfigPlanChecks: update,
				Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
					if d := aws.ToInt32(ng.ScalingConfig.DesiredSize); d != 2 {
						return fmt.Errorf("desired size %d, want 2", d)
					}
					return nil
				}),
			},
			{
				Config:           base(acctest.Scaling(1, 2, 5) + `  labels = { team = "ml" }` + "\n" + `  taints = [{ key = "team", value = "ml", effect = "NO_EXECUTE" }]`),
				ConfigPlanChecks: update,
				Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
					if !slices.ContainsFunc(ng.Taints, func(tt ekstypes.Taint) bool {
						return aws.ToString(tt.Key) == "team" && tt.Effect == ekstypes.TaintEffectNoExecute
					}) {
						return fmt.Errorf("taint team:NO_EXECUTE missing: %v", ng.Taints)
					}
					return wantLabel(ng, "team", "ml")
				}),
			},
			{
				// Labels and taints removed again; tags reach the instances and their volumes (no
				// new launch template version: no roll).
				Config:           base(acctest.Scaling(1, 2, 5) + `  tags = { Project = "llm" }`),
				ConfigPlanChecks: update,
				Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
					return errors.Join(noLabel(ng, "team"), wantTag(ng, "Project", "llm"),
						wantFleetTags(t, sim, "train-od", map[string]string{"Project": "llm"}))
				}),
			},
			{
				Config: base(acctest.Scaling(1, 2, 5) + `  tags = { Project = "llm" }` + "\n  kubernetes_version = \"1.31\"\n" + `
  update_config {
    max_unavailable_percentage = 25
    update_strategy            = "MINIMAL"
  }
  gpu {
    sharing {
      strategy = "time-slicing"
      replicas = 4
    }
  }
  # Four 20 GiB replicas time-sharing one 22.35 GiB A10G do not fit (GF-RS-001 since issue #22);
  # this step is about the update path, so the deny is waived.
  policy_waivers = { "GF-RS-001" = "update-path test, four replicas share one GPU" }
`),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_plugin_config"), knownvalue.StringRegexp(regexp.MustCompile(`timeSlicing:[\s\S]*replicas: 4`))),
				},
				Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
					if uc := ng.UpdateConfig; uc == nil || uc.UpdateStrategy != ekstypes.NodegroupUpdateStrategiesMinimal || aws.ToInt32(uc.MaxUnavailablePercentage) != 25 {
						return fmt.Errorf("update config %+v, want MINIMAL at 25 %%", ng.UpdateConfig)
					}
					return wantLabel(ng, "nvidia.com/device-plugin.config", "gpufleet-time-slicing-4")
				}),
			},
		},
	})
}

// A tag change on a pool pinned below the cluster's version (the cluster was upgraded since) moves
// nothing: it sends no UpdateNodegroupVersion at all (which, without a version, would move the node
// group to the cluster's), and the instances get the tags in place.
func TestAccEKSNodePool_pinnedVersionOnTagChange(t *testing.T) {
	sim := startSim(t)
	cfg := func(project string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+
			"  kubernetes_version = \"1.31\"\n  tags = { Project = \""+project+"\" }\n")
	}
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config: cfg("vision"),
			Check:  func(*terraform.State) error { return sim.UpgradeCluster(testRegion, testCluster, "1.32", "") },
		},
		resource.TestStep{
			PreConfig:        sim.ResetRequests,
			Config:           cfg("llm"),
			ConfigPlanChecks: updateThenNothing(),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("1.31")),
			},
			Check: func(*terraform.State) error {
				if n := requestCount(sim, "UpdateNodegroupVersion"); n > 0 {
					return fmt.Errorf("the tag change sent %d UpdateNodegroupVersion", n)
				}
				return checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
					if v := aws.ToString(ng.Version); v != "1.31" {
						return fmt.Errorf("node group version %s, want 1.31", v)
					}
					return wantFleetTags(t, sim, "train-od", map[string]string{"Project": "llm"})
				})(nil)
			},
		},
	))
}

// EKS cannot roll a node group back to an earlier Kubernetes version: lowering kubernetes_version is
// a plan-time error at the attribute, before any change.
func TestAccEKSNodePool_kubernetesVersionNoDowngrade(t *testing.T) {
	sim := startSim(t)
	cfg := func(version string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+"  kubernetes_version = \""+version+"\"\n")
	}
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{Config: cfg("1.31"), Check: func(*terraform.State) error { sim.ResetRequests(); return nil }},
		resource.TestStep{Config: cfg("1.30"), ExpectError: acctest.ExpectErrorParts("kubernetes_version", "cannot roll", "back from 1.31 to 1.30", "replace")},
		resource.TestStep{
			PreConfig: func() {
				if calls := mutatingCalls(sim); len(calls) > 0 {
					t.Fatalf("the downgrade reached the cloud: %v", calls)
				}
			},
			Config:           cfg("1.31"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		},
	))
}

// EKS creates node groups only at the cluster's Kubernetes version: a pool pinned to another one
// fails at plan (the cluster's version read with eks:DescribeCluster), before anything is created;
// so does an AMI type AWS ships no AMI of for the cluster's version (Amazon Linux 2 after 1.32).
func TestAccEKSNodePool_createAtClusterVersion(t *testing.T) {
	cases := []struct {
		name, cluster, body string
		want                []string
	}{
		{"pinned below the cluster", testCluster, "  kubernetes_version = \"1.30\"\n", []string{"kubernetes_version", "1.30", "only at the cluster's", "1.31"}},
		{"Amazon Linux 2 on 1.33", "new", "  ami_type = \"AL2_x86_64_GPU\"\n", []string{"ami_type", "AL2_x86_64_GPU", "1.32", "1.33"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim := startSim(t)
			cfg := strings.Replace(providerConfig(sim, "")+poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+tc.body),
				`cluster_name   = "ml"`, fmt.Sprintf("cluster_name   = %q", tc.cluster), 1)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps:                    []resource.TestStep{{Config: cfg, ExpectError: acctest.ExpectErrorParts(tc.want...)}},
			})
			if calls := mutatingCalls(sim); len(calls) > 0 {
				t.Fatalf("the pool reached the cloud: %v", calls)
			}
			if requestCount(sim, "DescribeCluster") == 0 {
				t.Fatal("the cluster's version was not read at plan")
			}
		})
	}
}

// After a cluster upgrade, a pool that follows the cluster (no kubernetes_version) and gains a side
// creates it at the cluster's version, the only one EKS takes, and reports the sides' versions; it
// never moves the new side back. Setting kubernetes_version to the cluster's upgrades the other.
func TestAccEKSNodePool_sidesOnDifferentVersions(t *testing.T) {
	sim := startSim(t)
	cfg := func(pct int, version string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g5.xlarge"]`, trainingWorkload+acctest.Scaling(0, 2, 4)+acctest.Capacity(pct, 0)+version)
	}
	version := func(i int, v string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(i).AtMapKey("kubernetes_version"), knownvalue.StringExact(v))
	}
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{Config: cfg(0, ""), Check: func(*terraform.State) error { return sim.UpgradeCluster(testRegion, testCluster, "1.32", "") }},
		resource.TestStep{
			Config:            cfg(50, ""),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{version(0, "1.31"), version(1, "1.32")},
		},
		resource.TestStep{
			Config:            cfg(50, "  kubernetes_version = \"1.32\"\n"),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{version(0, "1.32"), version(1, "1.32")},
		},
	))
}

// The AMI release is recorded and pinned: a change (here of tags) keeps the node groups on their
// release although AWS published a newer one; raising release_version upgrades them, as a planned
// change, and the roll brings the launch template's tags up to date with it.
func TestAccEKSNodePool_releaseVersionPinned(t *testing.T) {
	sim := startSim(t)
	cfg := func(project, release string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+
			"  tags = { Project = \""+project+"\" }\n"+release)
	}
	release := func(want string) func(*terraform.State) error { return wantRelease(t, sim, "train-od", want) }
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config: cfg("vision", ""),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("release_version"), knownvalue.StringExact("1.31.0-20250101")),
			},
			Check: func(s *terraform.State) error {
				return sim.PublishAMIRelease(testRegion, "1.31", "1.31.9-20250801")
			},
		},
		resource.TestStep{
			Config: cfg("llm", ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(addr, tfjsonpath.New("release_version"), knownvalue.StringExact("1.31.0-20250101")),
			}},
			Check: release("1.31.0-20250101"),
		},
		resource.TestStep{
			Config:           cfg("llm", "  release_version = \"1.31.9-20250801\"\n"),
			ConfigPlanChecks: updateThenNothing(),
			Check: func(s *terraform.State) error {
				return errors.Join(release("1.31.9-20250801")(s), checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
					return wantInstanceTags(t, sim, ng, map[string]string{"Project": "llm"})
				})(s))
			},
		},
		resource.TestStep{
			Config:      cfg("llm", "  release_version = \"1.31.0-20250101\"\n"),
			ExpectError: acctest.ExpectErrorParts("release_version", "cannot roll", "back"),
		},
	))
}

// wantRelease checks the AMI release a node group runs.
func wantRelease(t *testing.T, sim *cloudsim.Sim, name, want string) func(*terraform.State) error {
	return checkNodegroup(t, sim, name, func(ng *ekstypes.Nodegroup) error {
		if got := aws.ToString(ng.ReleaseVersion); got != want {
			return fmt.Errorf("node group %s release %s, want %s", name, got, want)
		}
		return nil
	})
}

// A release_version EKS would refuse is a plan error at the attribute, before any change (audit
// D13): an Amazon Linux release of another Kubernetes version than the node groups run (a new pool's,
// the cluster's, read at plan; a pinned pool's, its kubernetes_version), or no release at all. gpufleet
// used to drop such a pin silently, and state and the nodes then disagreed on every refresh.
func TestAccEKSNodePool_releaseOfAnotherVersion(t *testing.T) {
	sim := startSim(t)
	cfg := func(extra string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+extra)
	}
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config:      cfg("  release_version = \"1.32.1-20250301\"\n"),
			PlanOnly:    true,
			ExpectError: acctest.ExpectErrorParts("release_version", "1.32.1-20250301", "another Kubernetes version", "1.31"),
		},
		resource.TestStep{Config: cfg("")},
		resource.TestStep{
			Config:      cfg("  kubernetes_version = \"1.31\"\n  release_version = \"1.30.4-20250301\"\n"),
			ExpectError: acctest.ExpectErrorParts("release_version", "1.30.4-20250301", "another Kubernetes version", "1.31"),
		},
		resource.TestStep{
			Config:      cfg("  release_version = \"1.32.1-20250301\"\n"),
			ExpectError: acctest.ExpectErrorParts("release_version", "another Kubernetes version", "change kubernetes_version with it"),
		},
		resource.TestStep{
			Config:      cfg("  release_version = \"latest\"\n"),
			ExpectError: acctest.ExpectErrorParts("release_version", "not an EKS optimized AMI release"),
		},
	))
}

// A Bottlerocket release is Bottlerocket's version and a commit, one release for several
// Kubernetes versions (audit D14). One whose commit is all digits, 1.29.0-31415926, reads like an
// Amazon Linux release of Kubernetes 1.29: on the 1.31 cluster it is created as pinned and plans no
// change after; raising it is an update, and going back to it is refused at plan, as EKS refuses a
// roll back.
func TestAccEKSNodePool_bottlerocketRelease(t *testing.T) {
	sim := startSim(t)
	cfg := func(release string) string {
		return providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+
			"  ami_type        = \"BOTTLEROCKET_x86_64_NVIDIA\"\n  release_version = \""+release+"\"\n")
	}
	release := func(want string) func(*terraform.State) error { return wantRelease(t, sim, "train-od", want) }
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config:            cfg("1.29.0-31415926"),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("release_version"), knownvalue.StringExact("1.29.0-31415926"))},
			Check:             release("1.29.0-31415926"),
		},
		resource.TestStep{
			Config: cfg("1.30.0-ca9b9399"),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: release("1.30.0-ca9b9399"),
		},
		resource.TestStep{
			Config:      cfg("1.29.0-31415926"),
			ExpectError: acctest.ExpectErrorParts("release_version", "cannot roll", "back"),
		},
	))
}

// A pool that fills its capacity reservation rolls its nodes (a newer AMI release) with the MINIMAL
// update strategy, old nodes first: the DEFAULT strategy launches new nodes before it drains the old
// ones, into a reservation that has no room for them.
func TestAccEKSNodePool_reservationRollsWithoutSurge(t *testing.T) {
	sim := startSim(t)
	cfg := func(release string) string {
		return providerConfig(sim, "") + inZoneA(poolConfig("train", `["p5.48xlarge"]`, trainingWorkload+acctest.Scaling(0, 4, 4)+release+fmt.Sprintf(`
  policy_waivers = { "GF-COST-002" = "reserved capacity is prepaid, ends 2027-01-01" }
  capacity {
    reservation {
      id   = %q
      type = "capacity-reservation"
    }
  }
`, odcrID)))
	}
	resource.Test(t, poolTest(t, sim,
		resource.TestStep{
			Config: cfg(""),
			Check:  func(*terraform.State) error { return sim.PublishAMIRelease(testRegion, "1.31", "1.31.9-20250801") },
		},
		resource.TestStep{
			Config:           cfg("  release_version = \"1.31.9-20250801\"\n"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
				if ng.UpdateConfig == nil || ng.UpdateConfig.UpdateStrategy != ekstypes.NodegroupUpdateStrategiesMinimal {
					return fmt.Errorf("update config %+v, want MINIMAL on a reservation", ng.UpdateConfig)
				}
				if got := aws.ToString(ng.ReleaseVersion); got != "1.31.9-20250801" {
					return fmt.Errorf("release %s: the roll did not happen", got)
				}
				return nil
			}),
		},
	))
}

// Changes EKS cannot make in place replace the pool, and the old node groups and templates go.
func TestAccEKSNodePool_replace(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: providerConfig(sim, "") + poolConfig("train", `["g5.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2))},
			{
				Config: providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
				}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpu_model"), knownvalue.StringExact("L4"))},
				Check: func(*terraform.State) error {
					if lts := clients(t, sim).launchTemplateNames(t); len(lts) != 1 {
						return fmt.Errorf("want the new pool's one launch template, got %v", lts)
					}
					return nil
				},
			},
		},
	})
}

func TestAccEKSNodePool_import(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: providerConfig(sim, "") + poolConfig("train", `["p5.48xlarge"]`, trainingWorkload+acctest.Scaling(0, 3, 10)+acctest.Capacity(70, 1)+`
  gpu {
    mig { profile = "3g.40gb" }
  }
  labels = { team = "ml" }
  taints = [{ key = "team", value = "ml", effect = "NO_SCHEDULE" }]
  tags   = { Project = "llm" }
`)},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "ml:train",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "policy_waivers", "policy_document.waivers"},
			},
			{
				ResourceName:  addr,
				ImportState:   true,
				ImportStateId: "train",
				ExpectError:   regexp.MustCompile(`import gpufleet_eks_node_pool as <cluster_name>:<name>`),
			},
		},
	})
}

// A node group deleted outside terraform is planned for creation again. Its launch template is
// still there and recorded in state, so the pool stays in state and the update recreates the node
// group with it: nothing is orphaned.
func TestAccEKSNodePool_disappears(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(1, 1, 2))
	var template string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					ng, err := clients(t, sim).nodegroup("train-od")
					if err != nil {
						return err
					}
					template = aws.ToString(ng.LaunchTemplate.Id)
					return sim.DeleteNodegroup(testRegion, testCluster, "train-od")
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("node_groups").AtSliceIndex(0).AtMapKey("arn")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
					if id := aws.ToString(ng.LaunchTemplate.Id); id != template {
						return fmt.Errorf("node group recreated with launch template %s, want the pool's %s", id, template)
					}
					return nil
				}),
			},
		},
	})
}

// Out-of-band scaling and labels show as drift and the plan puts them back.
func TestAccEKSNodePool_drift(t *testing.T) {
	sim := startSim(t)
	cfg := providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(1, 1, 3))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					return errors.Join(
						sim.ScaleNodegroup(testRegion, testCluster, "train-od", 3),
						sim.SetNodegroupLabel(testRegion, testCluster, "train-od", "rogue", "yes"),
					)
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
					if d := aws.ToInt32(ng.ScalingConfig.DesiredSize); d != 1 {
						return fmt.Errorf("desired size %d, want 1 again", d)
					}
					return noLabel(ng, "rogue")
				}),
			},
		},
	})
}

// A memory need computed by a function (or another provider's, or a data source's float64 output)
// plans no change after apply: the float64 and the state's decimal are the same number to
// Terraform.
func TestAccEKSNodePool_computedMemoryNeed(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, acctest.ApplyThenEmptyPlan(providerConfig(sim, "")+poolConfig("train", `["g6.xlarge"]`, acctest.ComputedMemoryNeed+acctest.Scaling(1, 1, 2)), checkNothingLeft(t, sim)))
}

// labels = {}, tags = {} and taints = [] stay as written: no change after apply.
func TestAccEKSNodePool_emptyCollections(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, acctest.ApplyThenEmptyPlan(providerConfig(sim, "")+poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(1, 1, 2)+acctest.EmptyCollections), checkNothingLeft(t, sim)))
}

// Optional blocks written empty (gpu {}, mig {}, sharing {}, capacity {}, reservation {},
// update_config {}), as modules write them with dynamic blocks, mean "nothing here": they plan and
// apply as absent blocks do, and plan no change after apply.
func TestAccEKSNodePool_emptyBlocks(t *testing.T) {
	for i, blocks := range acctest.EmptyBlockSpellings {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			sim := startSim(t)
			cfg := providerConfig(sim, "") + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+blocks+"  update_config {}\n")
			resource.Test(t, acctest.ApplyThenEmptyPlan(cfg, checkNothingLeft(t, sim)))
		})
	}
}

// A taint with an empty value (value = "") reads back as written: no change after apply. EKS gets
// both taints with a value, "" (audit D5): the cluster autoscaler drops a DescribeNodegroup taint
// whose value is null from its scale-from-zero template, and cloudsim echoes an omitted value as null.
func TestAccEKSNodePool_emptyTaintValue(t *testing.T) {
	sim := startSim(t)
	tc := acctest.ApplyThenEmptyPlan(providerConfig(sim, "")+poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2)+acctest.EmptyTaintValue), checkNothingLeft(t, sim))
	tc.Steps[0].Check = checkNodegroup(t, sim, "train-od", func(ng *ekstypes.Nodegroup) error {
		var errs []error
		for _, taint := range ng.Taints {
			if taint.Value == nil {
				errs = append(errs, fmt.Errorf("taint %s:%s has no value: the cluster autoscaler ignores it", aws.ToString(taint.Key), taint.Effect))
			}
		}
		if len(ng.Taints) != 3 {
			errs = append(errs, fmt.Errorf("taints %d, want 3 (the GPU taint and two of the pool's)", len(ng.Taints)))
		}
		return errors.Join(errs...)
	})
	resource.Test(t, tc)
}

// A derived node label changed outside terraform (gpufleet.io/client) is drift to undo, not a new
// client: refresh keeps the client gpufleet wrote on the objects it owns, and apply puts the label
// back.
func TestAccEKSNodePool_derivedLabelDrift(t *testing.T) {
	sim := startSim(t)
	data := acctest.WriteFile(t, "policy-data.yaml", parityData)
	cfg := providerConfig(sim, fmt.Sprintf("  policy {\n    data_files = [%q]\n  }\n", data)) + poolConfig("train", `["g6.xlarge"]`, inferenceWorkload+acctest.Scaling(0, 1, 2))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: acctest.DerivedLabelDriftSteps(t, cfg, addr, "gpufleet:", func(key, value string) error {
			return sim.SetNodegroupLabel(testRegion, testCluster, "train-od", key, value)
		}, func() error {
			ng, err := clients(t, sim).nodegroup("train-od")
			if err != nil {
				return err
			}
			return wantLabel(ng, "gpufleet.io/client", "acme")
		}),
	})
}
