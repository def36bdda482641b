package gke_test

import (
	"errors"
	"fmt"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

func nodePoolCheck(i int, name string, spot bool, minSize, desired, maxSize int64) []statecheck.StateCheck {
	np := tfjsonpath.New("node_pools").AtSliceIndex(i)
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(addr, np.AtMapKey("name"), knownvalue.StringExact(name)),
		statecheck.ExpectKnownValue(addr, np.AtMapKey("spot"), knownvalue.Bool(spot)),
		statecheck.ExpectKnownValue(addr, np.AtMapKey("capacity_type"), knownvalue.StringExact(map[bool]string{false: "ON_DEMAND", true: "SPOT"}[spot])),
		statecheck.ExpectKnownValue(addr, np.AtMapKey("min_size"), knownvalue.Int64Exact(minSize)),
		statecheck.ExpectKnownValue(addr, np.AtMapKey("desired_size"), knownvalue.Int64Exact(desired)),
		statecheck.ExpectKnownValue(addr, np.AtMapKey("max_size"), knownvalue.Int64Exact(maxSize)),
	}
}

// The spot mix moves 0 → 70 → 100 → 0 % in place: the spot node pool appears, the on-demand one
// goes and comes back, each with its share of the sizes and an empty plan after every apply.
func TestAccGKENodePool_spotMix(t *testing.T) {
	sim := startSim(t)
	cfg := func(pct int) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", trainingWorkload+acctest.Scaling(0, 4, 10)+acctest.Capacity(pct, 0)+
			"  node_locations = [\"europe-west4-a\"]\n")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(0), ConfigStateChecks: append(nodePoolCheck(0, "infer-od", false, 0, 4, 10),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools"), knownvalue.ListSizeExact(1)))},
			{
				Config: cfg(70),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: append(nodePoolCheck(0, "infer-od", false, 0, 2, 3), nodePoolCheck(1, "infer-spot", true, 0, 2, 7)...),
				Check: checkNodePool(t, sim, "infer-spot", func(np *containerpb.NodePool) error {
					errs := []error{wantLabel(np, "gpufleet.io/capacity-type", "spot"), wantNodeLabel(sim, testCluster, "infer-spot", "cloud.google.com/gke-spot", "true")}
					if !np.GetConfig().GetSpot() {
						errs = append(errs, fmt.Errorf("spot %t, want spot", np.GetConfig().GetSpot()))
					}
					errs = append(errs, wantEnforced(np, 0, 7))
					return errors.Join(errs...)
				}),
			},
			{Config: cfg(100), ConfigStateChecks: append(nodePoolCheck(0, "infer-spot", true, 0, 4, 10),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools"), knownvalue.ListSizeExact(1)))},
			{Config: cfg(0), ConfigStateChecks: append(nodePoolCheck(0, "infer-od", false, 0, 4, 10),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_pools"), knownvalue.ListSizeExact(1)))},
		},
	})
}

// Every accelerator GKE partitions gets its MIG partition size, with an empty plan after apply.
func TestAccGKENodePool_migPartitions(t *testing.T) {
	// A3 High 1g, A3 Ultra and A4 are sold as Spot (or flex-start, or reserved), not on demand.
	cases := []struct {
		machineType, accelerator, profile string
		spot                              bool
	}{
		{"a2-highgpu-1g", "nvidia-tesla-a100", "1g.5gb", false},
		{"a2-ultragpu-1g", "nvidia-a100-80gb", "2g.20gb", false},
		{"a3-highgpu-1g", "nvidia-h100-80gb", "1g.10gb", true},
		{"a3-megagpu-8g", "nvidia-h100-mega-80gb", "3g.40gb", false},
		{"a3-ultragpu-8g", "nvidia-h200-141gb", "1g.18gb", true},
		{"a4-highgpu-8g", "nvidia-b200", "1g.23gb", true},
	}
	for _, tc := range cases {
		t.Run(tc.accelerator, func(t *testing.T) {
			sim := startSim(t)
			side, capacity := "infer-od", ""
			if tc.spot {
				side, capacity = "infer-spot", acctest.Capacity(100, 0)
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy:             checkNothingLeft(t, sim),
				Steps: []resource.TestStep{{
					Config: providerConfig(sim, "") + poolConfig("infer", tc.machineType, `
  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 4
  }
  node_locations = ["`+gpuZone(t, tc.machineType)+`"]
  gpu {
    mig {
      profile = "`+tc.profile+`"
    }
  }
`+acctest.Scaling(0, 1, 2)+capacity),
					Check: checkNodePool(t, sim, side, func(np *containerpb.NodePool) error {
						acc := np.GetConfig().GetAccelerators()[0]
						if acc.GetAcceleratorType() != tc.accelerator || acc.GetGpuPartitionSize() != tc.profile {
							return fmt.Errorf("accelerator %s partition %q, want %s %q", acc.GetAcceleratorType(), acc.GetGpuPartitionSize(), tc.accelerator, tc.profile)
						}
						return wantNodeLabel(sim, testCluster, side, "cloud.google.com/gke-gpu-partition-size", tc.profile)
					}),
				}},
			})
		})
	}
}

// Time-sharing and MPS (also on MIG partitions: "About GPUs in GKE" lists multi-instance GPUs with
// NVIDIA MPS) through gpu_sharing_config; sharing changes in place.
func TestAccGKENodePool_sharing(t *testing.T) {
	sim := startSim(t)
	cfg := func(gpu string) string { return a100Pool(sim, gpu) }
	sharing := func(strategy, mig string) string {
		return fmt.Sprintf("  gpu {\n%s    sharing {\n      strategy = %q\n      replicas = 4\n    }\n  }\n", mig, strategy)
	}
	wantSharing := func(strategy containerpb.GPUSharingConfig_GPUSharingStrategy) func(np *containerpb.NodePool) error {
		return func(np *containerpb.NodePool) error {
			sc := np.GetConfig().GetAccelerators()[0].GetGpuSharingConfig()
			if sc.GetGpuSharingStrategy() != strategy || sc.GetMaxSharedClientsPerGpu() != 4 {
				return fmt.Errorf("sharing %v, want %s × 4", sc, strategy)
			}
			return nil
		}
	}
	mig := func(profile string) string { return fmt.Sprintf("    mig {\n      profile = %q\n    }\n", profile) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(sharing("time-slicing", "")), Check: checkNodePool(t, sim, "infer-od", wantSharing(containerpb.GPUSharingConfig_TIME_SHARING))},
			{
				Config: cfg(sharing("mps", "")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: checkNodePool(t, sim, "infer-od", wantSharing(containerpb.GPUSharingConfig_MPS)),
			},
			{
				// Sharing on MIG partitions: the partitions replace the pool (TestAccGKENodePool_migChangeReplaces),
				// the strategy then changes in place.
				Config: cfg(sharing("time-slicing", mig("1g.5gb"))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: checkNodePool(t, sim, "infer-od", wantSharing(containerpb.GPUSharingConfig_TIME_SHARING)),
			},
			{
				Config: cfg(sharing("mps", mig("1g.5gb"))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error {
					if acc := np.GetConfig().GetAccelerators()[0]; acc.GetGpuPartitionSize() != "1g.5gb" || acc.GetGpuSharingConfig().GetGpuSharingStrategy() != containerpb.GPUSharingConfig_MPS {
						return fmt.Errorf("accelerator %v, want 1g.5gb partitions shared with MPS", acc)
					}
					return nil
				}),
			},
		},
	})
}

// Reservation affinity on the on-demand node pool, for each type; changing it replaces that node
// pool.
func TestAccGKENodePool_reservations(t *testing.T) {
	sim := startSim(t)
	cfg := func(reservation string) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 1, 2)+
			"  node_locations = [\"europe-west4-a\"]\n  capacity {\n    reservation {\n"+reservation+"    }\n  }\n")
	}
	want := func(typ containerpb.ReservationAffinity_Type, values ...string) func(np *containerpb.NodePool) error {
		return func(np *containerpb.NodePool) error {
			ra := np.GetConfig().GetReservationAffinity()
			if ra.GetConsumeReservationType() != typ || fmt.Sprint(ra.GetValues()) != fmt.Sprint(values) {
				return fmt.Errorf("reservation affinity %v, want %s %v", ra, typ, values)
			}
			return nil
		}
	}
	// The on-demand node pool is deleted and created again within an update (audit N17).
	replaced := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(`      type = "specific"` + "\n" + `      name = "` + reservation + `"` + "\n"), Check: checkNodePool(t, sim, "infer-od", want(containerpb.ReservationAffinity_SPECIFIC_RESERVATION, reservation))},
			{
				Config:           cfg(`      type = "specific"` + "\n" + `      name = "` + reservation + `"` + "\n" + `      project = "` + testProject + `"` + "\n"),
				ConfigPlanChecks: replaced,
				Check:            checkNodePool(t, sim, "infer-od", want(containerpb.ReservationAffinity_SPECIFIC_RESERVATION, "projects/"+testProject+"/reservations/"+reservation)),
			},
			{Config: cfg(`      type = "any"` + "\n"), ConfigPlanChecks: replaced, Check: checkNodePool(t, sim, "infer-od", want(containerpb.ReservationAffinity_ANY_RESERVATION))},
			{Config: cfg(`      type = "none"` + "\n"), ConfigPlanChecks: replaced, Check: checkNodePool(t, sim, "infer-od", want(containerpb.ReservationAffinity_NO_RESERVATION))},
		},
	})
}

// Each driver version in place; unset is GKE's DEFAULT and never a diff.
func TestAccGKENodePool_driverVersions(t *testing.T) {
	sim := startSim(t)
	cfg := func(gpu string) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 1, 2)+"  node_locations = [\"europe-west4-a\"]\n"+gpu)
	}
	driver := func(v string) string { return fmt.Sprintf("  gpu {\n    driver_version = %q\n  }\n", v) }
	want := func(v containerpb.GPUDriverInstallationConfig_GPUDriverVersion) func(np *containerpb.NodePool) error {
		return func(np *containerpb.NodePool) error {
			if got := np.GetConfig().GetAccelerators()[0].GetGpuDriverInstallationConfig().GetGpuDriverVersion(); got != v {
				return fmt.Errorf("driver %s, want %s", got, v)
			}
			return nil
		}
	}
	inPlace := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(""), Check: checkNodePool(t, sim, "infer-od", want(containerpb.GPUDriverInstallationConfig_DEFAULT))},
			{Config: cfg(driver("DEFAULT")), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}},
			{Config: cfg(driver("LATEST")), ConfigPlanChecks: inPlace, Check: checkNodePool(t, sim, "infer-od", want(containerpb.GPUDriverInstallationConfig_LATEST))},
			{Config: cfg(driver("INSTALLATION_DISABLED")), ConfigPlanChecks: inPlace, Check: checkNodePool(t, sim, "infer-od", want(containerpb.GPUDriverInstallationConfig_INSTALLATION_DISABLED))},
		},
	})
}

// A machine type with other GPUs replaces the pool; one with the same GPUs changes in place.
func TestAccGKENodePool_replace(t *testing.T) {
	sim := startSim(t)
	cfg := func(machineType string) string {
		return providerConfig(sim, "") + poolConfig("infer", machineType, inferenceWorkload+acctest.Scaling(0, 1, 2)+"  node_locations = [\"europe-west4-a\"]\n")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg("g2-standard-8")},
			{
				Config: cfg("g2-standard-16"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error {
					if mt := np.GetConfig().GetMachineType(); mt != "g2-standard-16" {
						return fmt.Errorf("machine type %s", mt)
					}
					return nil
				}),
			},
			{
				Config: cfg("g2-standard-24"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpus_per_node"), knownvalue.Int64Exact(2))},
			},
		},
	})
}

// The nodes' Kubernetes version changes in place; a configured minor version keeps matching the
// patch GKE resolves it to.
func TestAccGKENodePool_kubernetesVersion(t *testing.T) {
	sim := startSim(t)
	cfg := func(version string) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 1, 2)+
			"  node_locations = [\"europe-west4-a\"]\n  kubernetes_version = \""+version+"\"\n")
	}
	want := func(version string) func(np *containerpb.NodePool) error {
		return func(np *containerpb.NodePool) error {
			if np.GetVersion() != version {
				return fmt.Errorf("node version %q, want %q", np.GetVersion(), version)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config:            cfg("1.30"),
				Check:             checkNodePool(t, sim, "infer-od", want("1.30.12-gke.1086000")),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("1.30"))},
			},
			{
				Config: cfg("1.31.5-gke.1023000"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: checkNodePool(t, sim, "infer-od", want("1.31.5-gke.1023000")),
			},
		},
	})
}
