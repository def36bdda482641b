package gke_test

// Acceptance tests of the second audit of gpufleet_gke_node_pool against the real GKE API
// (../shared/audits/gke-vs-real.md, Part A, issue #35 §2), each against the rule cloudsim holds.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	state "github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

// a100Pool is the pool infer on one A100 node in one zone, with the gpu block given.
func a100Pool(sim *cloudsim.Sim, gpu string) string {
	return providerConfig(sim, "") + poolConfig("infer", "a2-highgpu-1g", `
  workload {
    kind           = "development"
    environment    = "development"
    gpu_memory_gib = 1
  }
  node_locations = ["europe-west4-a"]
`+acctest.Scaling(0, 1, 2)+gpu)
}

func migBlock(profile string) string {
	return fmt.Sprintf("  gpu {\n    mig {\n      profile = %q\n    }\n  }\n", profile)
}

func wantPartition(size string) func(np *containerpb.NodePool) error {
	return func(np *containerpb.NodePool) error {
		if got := np.GetConfig().GetAccelerators()[0].GetGpuPartitionSize(); got != size {
			return fmt.Errorf("partition size %q, want %q", got, size)
		}
		return nil
	}
}

// Audit N4: GKE does not change a node pool's MIG partition size in place ("Accelerator
// gpu_partition_size … should not be updated", magic-modules PR #18493, tested against GKE): a
// change of gpu.mig, adding it or removing it, replaces the pool, as a change of GPUs does.
func TestAccGKENodePool_migChangeReplaces(t *testing.T) {
	sim := startSim(t)
	replace := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: a100Pool(sim, migBlock("1g.5gb")), Check: checkNodePool(t, sim, "infer-od", wantPartition("1g.5gb"))},
			{Config: a100Pool(sim, migBlock("2g.10gb")), ConfigPlanChecks: replace, Check: checkNodePool(t, sim, "infer-od", wantPartition("2g.10gb"))},
			{Config: a100Pool(sim, ""), ConfigPlanChecks: replace, Check: checkNodePool(t, sim, "infer-od", wantPartition(""))},
		},
	})
}

// Audit N15: GKE changes GPU sharing in place, but an accelerators update without sharing does not
// say that it is removed (an empty accelerators list is a no-op, PR #18493): removing gpu.sharing
// replaces the pool instead of sending an update GKE may ignore, and changing it is in place.
func TestAccGKENodePool_sharingRemovedReplaces(t *testing.T) {
	sim := startSim(t)
	sharing := func(strategy string) string {
		return fmt.Sprintf("  gpu {\n    sharing {\n      strategy = %q\n      replicas = 4\n    }\n  }\n", strategy)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: a100Pool(sim, sharing("time-slicing"))},
			{
				Config:           a100Pool(sim, sharing("mps")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}},
			},
			{
				Config:           a100Pool(sim, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)}},
				Check: checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error {
					if sc := np.GetConfig().GetAccelerators()[0].GetGpuSharingConfig(); sc != nil {
						return fmt.Errorf("GPU sharing %v left on the node pool", sc)
					}
					return nil
				}),
			},
		},
	})
}

// Audit N5: a zonal cluster with more node locations than its own zone (a multi-zonal cluster)
// gives a pool without node_locations all its zones: the plan does not size or price the pool on
// one zone that the apply then contradicts (Terraform's "inconsistent result after apply"); the
// start size and cost are unknown until the apply reads the cluster, and the apply starts a node
// per zone.
func TestAccGKENodePool_multiZonalCluster(t *testing.T) {
	sim := startSimWith(t, func(s *cloudsim.Seed) {
		p := s.GCP.Projects[testProject]
		p.Clusters = append(p.Clusters, cloudsim.GKEClusterSeed{Name: "zonal", Location: testZoneA, Version: "1.31.5-gke.1023000", Locations: []string{testZoneA, testZoneB}})
	})
	cfg := providerConfig(sim, "") + fmt.Sprintf(`
resource "gpufleet_gke_node_pool" "infer" {
  location     = %q
  cluster      = "zonal"
  name         = "infer"
  client       = "acme"
  machine_type = "g2-standard-8"
%s
}
`, testZoneA, inferenceWorkload+autoscaled(1, 4))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if nps := sim.NodePools(testProject, testZoneA, "zonal"); len(nps) > 0 {
				return fmt.Errorf("%d node pools left", len(nps))
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(addr, nodePoolAt(0, "desired_size")),
				plancheck.ExpectUnknownValue(addr, tfjsonpath.New("estimated_monthly_cost_usd")),
				plancheck.ExpectUnknownValue(addr, tfjsonpath.New("node_locations")),
			}},
			ConfigStateChecks: append(nodePoolCheck(0, "infer-od", false, 1, 2, 4),
				state.ExpectKnownValue(addr, tfjsonpath.New("node_locations"), knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(testZoneA), knownvalue.StringExact(testZoneB)})),
				state.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_usd"), knownvalue.Float64Exact(hourly(t, 2, 0)))),
		}},
	})
}

// Audit N7: a reservation another project shares with its whole organization is consumed by the
// organization's projects, and a reservation made with an accelerator type URL
// (projects/…/acceleratorTypes/nvidia-l4, echoed so by reservations.get) reserves the pool's GPU.
func TestAccGKENodePool_reservationOrganizationAndURL(t *testing.T) {
	url := func(project string) string {
		return "projects/" + project + "/zones/" + testZoneA + "/acceleratorTypes/nvidia-l4"
	}
	for _, tc := range []struct{ name, reservation, project string }{
		{"organization", "l4-org", sharedProject},
		{"accelerator URL", "l4-url", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim := startSimWith(t, func(s *cloudsim.Seed) {
				own, shared := s.GCP.Projects[testProject], s.GCP.Projects[sharedProject]
				own.Organization, shared.Organization = "organizations/42", "organizations/42"
				shared.Reservations = append(shared.Reservations, cloudsim.GCEReservationSeed{Name: "l4-org", Zone: testZoneA, MachineType: "g2-standard-8",
					AcceleratorType: "nvidia-l4", AcceleratorCount: 1, Count: 4, ShareType: "ORGANIZATION"})
				own.Reservations = append(own.Reservations, cloudsim.GCEReservationSeed{Name: "l4-url", Zone: testZoneA, MachineType: "g2-standard-8",
					AcceleratorType: url(testProject), AcceleratorCount: 1, Count: 4})
			})
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				CheckDestroy:             checkNothingLeft(t, sim),
				Steps: []resource.TestStep{{
					Config: providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 1, 2)+
						"  node_locations = [\"europe-west4-a\"]\n"+reservationBlock(tc.reservation, tc.project)),
					Check: checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error {
						if np.GetStatus() != containerpb.NodePool_RUNNING || np.GetConfig().GetReservationAffinity().GetConsumeReservationType() != containerpb.ReservationAffinity_SPECIFIC_RESERVATION {
							return fmt.Errorf("node pool %s, affinity %v", np.GetStatus(), np.GetConfig().GetReservationAffinity())
						}
						return nil
					}),
				}},
			})
		})
	}
}

// reservedFour is the pool infer: four on-demand G2 nodes in the zone of the test reservation,
// whose four VMs they take, and extra.
func reservedFour(sim *cloudsim.Sim, extra string) string {
	return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 4, 4)+
		"  node_locations = [\"europe-west4-a\"]\n"+reservationBlock(reservation, "")+extra)
}

// Audit N8: a node pool that takes every VM of its reservation rolls its nodes without surge
// (GKE's default, max surge 1, needs a VM the reservation does not have: the upgrade never gets
// it): gpufleet's default there is max_surge 0, max_unavailable 1; upgrade_settings sets the
// strategy, surge or blue-green, in an update call of its own, sent before the rollouts it governs.
func TestAccGKENodePool_upgradeSettings(t *testing.T) {
	sim := startSim(t)
	wantUpgrade := func(strategy containerpb.NodePoolUpdateStrategy, surge, unavailable int32) func(np *containerpb.NodePool) error {
		return func(np *containerpb.NodePool) error {
			u := np.GetUpgradeSettings()
			if u.GetStrategy() != strategy || u.GetMaxSurge() != surge || u.GetMaxUnavailable() != unavailable {
				return fmt.Errorf("upgrade settings %v, want %s surge %d unavailable %d", u, strategy, surge, unavailable)
			}
			return nil
		}
	}
	driver := func(v string) string { return fmt.Sprintf("  gpu {\n    driver_version = %q\n  }\n", v) }
	var diags acctest.ApplyDiagnostics
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: reservedFour(sim, ""), Check: checkNodePool(t, sim, "infer-od", wantUpgrade(containerpb.NodePoolUpdateStrategy_SURGE, 0, 1))},
			{
				// The driver change recreates the four nodes within the reservation.
				Config: reservedFour(sim, driver("LATEST")),
				Check: checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error {
					if v := np.GetConfig().GetAccelerators()[0].GetGpuDriverInstallationConfig().GetGpuDriverVersion(); v != containerpb.GPUDriverInstallationConfig_LATEST || np.GetStatus() != containerpb.NodePool_RUNNING {
						return fmt.Errorf("node pool %s with driver %s, want RUNNING with LATEST", np.GetStatus(), v)
					}
					return nil
				}),
			},
			{
				Config: reservedFour(sim, driver("LATEST")+"  upgrade_settings {\n    strategy        = \"SURGE\"\n    max_surge       = 0\n    max_unavailable = 2\n  }\n"),
				Check:  checkNodePool(t, sim, "infer-od", wantUpgrade(containerpb.NodePoolUpdateStrategy_SURGE, 0, 2)),
			},
			{
				// Blue-green needs a second set of nodes, which the reservation does not have: the plan
				// warns, and the rollout fails with GKE's answer.
				PreConfig: diags.Reset,
				Config:    reservedFour(sim, driver("DEFAULT")+"  upgrade_settings {\n    strategy = \"BLUE_GREEN\"\n  }\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					planWarning{&diags, []string{"needs room in the reservation", reservation, "as many unused VMs as the on-demand node pool has nodes"}},
				}},
				ExpectError: acctest.ExpectErrorParts("infer-od", `UpdateNodePool \(accelerators\)`, "blue-green upgrade", reservation),
			},
			{
				Config: providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 2, 4)+acctest.Capacity(50, 0)+
					"  node_locations = [\"europe-west4-a\"]\n  upgrade_settings {\n    strategy                = \"BLUE_GREEN\"\n    node_pool_soak_duration = \"600s\"\n    batch_node_count        = 1\n  }\n"),
				Check: checkNodePool(t, sim, "infer-spot", func(np *containerpb.NodePool) error {
					bg := np.GetUpgradeSettings().GetBlueGreenSettings()
					if bg.GetNodePoolSoakDuration().AsDuration().Seconds() != 600 || bg.GetStandardRolloutPolicy().GetBatchNodeCount() != 1 {
						return fmt.Errorf("blue-green settings %v", bg)
					}
					return wantUpgrade(containerpb.NodePoolUpdateStrategy_BLUE_GREEN, 0, 0)(np)
				}),
			},
		},
	})
}

// Audit N9: ANY_RESERVATION falls back to standard VMs, which A3 Ultra and A4 are not sold as: an
// on-demand side of such a machine type must name its reservation (specific), a plan error at the
// attribute before any call.
func TestAccGKENodePool_anyReservationOnReservationOnlyType(t *testing.T) {
	sim := startSim(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: providerConfig(sim, "") + poolConfig("infer", "a3-ultragpu-8g", trainingWorkload+acctest.Scaling(0, 1, 2)+
				"  node_locations = [\"europe-west4-a\"]\n  capacity {\n    reservation {\n      type = \"any\"\n    }\n  }\n"),
			ExpectError: acctest.ExpectErrorParts("capacity.reservation", `"any"`, "a3-ultragpu-8g", "specific"),
		}},
	})
	if n := requestCount(sim, ""); n != 0 {
		t.Fatalf("%d calls for a pool the plan refuses", n)
	}
}

// Audit N11: a provider default_tags key may end in '-' or '_'; a pool that repeats it in tags
// records it in the gpufleet.io/own-default-tags node label, whose value must still be a valid
// Kubernetes label value (GKE refuses the node pool otherwise), and import reads it back.
func TestAccGKENodePool_ownDefaultTagsLabelValue(t *testing.T) {
	sim := startSim(t)
	e := sim.Endpoints()
	cfg := fmt.Sprintf(`
provider "gpufleet" {
  default_tags = { managed-by = "terraform", "team-" = "ml", cost_ = "x" }
  gcp {
    project          = %q
    endpoint         = %q
    compute_endpoint = %q
    insecure         = true
  }
}
`, testProject, e.GKE, e.Compute) + poolConfig("infer", "g2-standard-8", inferenceWorkload+acctest.Scaling(0, 1, 2)+
		"  node_locations = [\"europe-west4-a\"]\n  tags = { \"team-\" = \"ml\", cost_ = \"x\" }\n")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error {
					v := np.GetConfig().GetLabels()["gpufleet.io/own-default-tags"]
					if v == "" || strings.HasSuffix(v, "-") || strings.HasSuffix(v, "_") {
						return fmt.Errorf("own-default-tags label %q", v)
					}
					return nil
				}),
			},
			{
				Config:                  cfg,
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           fmt.Sprintf("%s/%s/%s/infer", testProject, testLocation, testCluster),
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "policy_waivers", "policy_document.waivers"},
			},
		},
	})
}

// Audit N14: GKE's cluster autoscaler resizes every node pool with autoscaling on, so a size
// gpufleet enforces (desired_size) is one GKE's autoscaler must not move: its node pools have
// autoscaling off, and nothing resizes them behind the pool's back (no diff on the next plan, no
// resize back). Without desired_size the autoscaler owns the size again, within the limits.
func TestAccGKENodePool_enforcedSizeAutoscalerOff(t *testing.T) {
	sim := startSim(t)
	cfg := func(scaling string) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", inferenceWorkload+scaling+"  node_locations = [\"europe-west4-a\"]\n")
	}
	autoscaler := func(enabled bool) func(*terraform.State) error {
		return func(*terraform.State) error {
			np, _ := sim.NodePool(testProject, testLocation, testCluster, "infer-od")
			if a := np.GetAutoscaling(); a.GetEnabled() != enabled {
				return fmt.Errorf("node pool autoscaling %v, want enabled %t", a, enabled)
			}
			// What GKE's autoscaler does to the node pool next.
			err := sim.ClusterAutoscale(testProject, testLocation, testCluster, "infer-od", 3)
			if enabled != (err == nil) {
				return fmt.Errorf("the cluster autoscaler on a node pool with autoscaling %t: %w", enabled, err)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(acctest.Scaling(0, 2, 4)), ConfigStateChecks: nodePoolCheck(0, "infer-od", false, 0, 2, 4), Check: autoscaler(false)},
			{Config: cfg(acctest.Scaling(0, 2, 4)), PlanOnly: true},
			{Config: cfg(autoscaled(0, 4)), ConfigStateChecks: nodePoolCheck(0, "infer-od", false, 0, 2, 4), Check: autoscaler(true)},
			{Config: cfg(autoscaled(0, 4)), PlanOnly: true},
			{Config: cfg(acctest.Scaling(1, 2, 4)), ConfigStateChecks: nodePoolCheck(0, "infer-od", false, 1, 2, 4), Check: autoscaler(false)},
		},
	})
}

// Audit N17: a reservation is the on-demand node pool's alone (Spot VMs cannot consume one), so
// a reservation change replaces that node pool only: the spot side keeps running.
func TestAccGKENodePool_reservationChangeReplacesItsSideOnly(t *testing.T) {
	sim := startSim(t)
	cfg := func(reservation string) string {
		return providerConfig(sim, "") + poolConfig("infer", "g2-standard-8", trainingWorkload+autoscaled(2, 4)+
			"  node_locations = [\"europe-west4-a\"]\n  capacity {\n    spot_percentage = 50\n    on_demand_base  = 0\n"+reservation+"  }\n")
	}
	specific := "    reservation {\n      type = \"specific\"\n      name = \"" + reservation + "\"\n    }\n"
	var spotID, odID string
	ids := func(*terraform.State) error {
		spotID, odID = creationID(sim, "infer-spot"), creationID(sim, "infer-od")
		return nil
	}
	sameSpot := func(*terraform.State) error {
		var errs []error
		if now := creationID(sim, "infer-spot"); now != spotID {
			errs = append(errs, fmt.Errorf("the spot node pool was replaced (creation id %q, was %q)", now, spotID))
		}
		if now := creationID(sim, "infer-od"); now == odID {
			errs = append(errs, errors.New("the on-demand node pool was not replaced"))
		}
		return errors.Join(errs...)
	}
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}}
	var diags acctest.ApplyDiagnostics
	warned := func(*terraform.State) error {
		return diags.ExpectPlanWarning("replaces a node pool", "Node pool infer-od consumes another reservation", "spot node pool", "keeps running")
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg(""), Check: resource.ComposeTestCheckFunc(ids, checkNodePool(t, sim, "infer-spot", func(np *containerpb.NodePool) error {
				// The autoscaler takes spot capacity in whichever zone has it.
				if a := np.GetAutoscaling(); !a.GetEnabled() || a.GetLocationPolicy() != containerpb.NodePoolAutoscaling_ANY {
					return fmt.Errorf("spot node pool autoscaling %v, want on with location policy ANY", a)
				}
				return nil
			}))},
			{
				Config: cfg(specific), ConfigPlanChecks: update,
				Check: resource.ComposeTestCheckFunc(sameSpot, warned, checkNodePool(t, sim, "infer-od", func(np *containerpb.NodePool) error {
					if v := np.GetConfig().GetReservationAffinity().GetValues(); len(v) != 1 || v[0] != reservation {
						return fmt.Errorf("reservation affinity %v", np.GetConfig().GetReservationAffinity())
					}
					return nil
				}), ids),
			},
			{PreConfig: diags.Reset, Config: cfg(""), ConfigPlanChecks: update, Check: resource.ComposeTestCheckFunc(sameSpot, warned)},
		},
	})
}

// Audit N8: each change that recreates the nodes is a rollout of its own (one UpdateNodePool field
// group per call): a plan that makes two says so, with how many.
func TestAccGKENodePool_rolloutsWarned(t *testing.T) {
	sim := startSim(t)
	cfg := func(machineType, driver string) string {
		return providerConfig(sim, "") + poolConfig("infer", machineType, inferenceWorkload+acctest.Scaling(0, 1, 2)+
			"  node_locations = [\"europe-west4-a\"]\n  gpu {\n    driver_version = \""+driver+"\"\n  }\n")
	}
	var diags acctest.ApplyDiagnostics
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: diags.ProviderFactories(),
		CheckDestroy:             checkNothingLeft(t, sim),
		Steps: []resource.TestStep{
			{Config: cfg("g2-standard-8", "DEFAULT")},
			{
				PreConfig: diags.Reset,
				Config:    cfg("g2-standard-12", "LATEST"),
				Check: func(*terraform.State) error {
					if n := len(upgradeCalls(sim)); n != 2 {
						return fmt.Errorf("%d node-recreating UpdateNodePool calls, want 2", n)
					}
					return diags.ExpectPlanWarning("recreates the nodes more than once", "machine type, GPU driver or sharing", "2 times")
				},
			},
		},
	})
}

// upgradeCalls are the UpdateNodePool calls that recreate nodes (machine type, accelerators,
// version).
func upgradeCalls(sim *cloudsim.Sim) []cloudsim.Request {
	var out []cloudsim.Request
	for _, r := range sim.RequestsFor("gke", "UpdateNodePool") {
		for _, g := range updateGroups(r) {
			if g == "machineType" || g == "accelerators" || g == "nodeVersion" {
				out = append(out, r)
			}
		}
	}
	return out
}

// planWarning checks, once a plan is made, that the provider's plans warned with parts.
type planWarning struct {
	diags *acctest.ApplyDiagnostics
	parts []string
}

func (c planWarning) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = c.diags.ExpectPlanWarning(c.parts...)
}
