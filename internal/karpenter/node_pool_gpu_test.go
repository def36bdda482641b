package karpenter_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
)

// MIG: the GPU Operator's label on the nodes, and a NodeOverlay that makes Karpenter count the
// slices (8 H100s cut into 2 3g.40gb slices each: 16 nvidia.com/gpu per node), with GPU limits in
// the same unit.
func TestAccKarpenterNodePool_mig(t *testing.T) {
	e := newEnv(t)
	cfg := e.provider("") + poolHCL("mig", `["p5.48xlarge"]`, `  workload {
    kind           = "inference"
    environment    = "staging"
    gpu_memory_gib = 30
  }
  gpu {
    mig {
      profile = "3g.40gb"
    }
  }
`+scaling(0, 2))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("mig"),
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("gpufleet_karpenter_node_pool.mig", tfjsonpath.New("manifests"), knownvalue.StringRegexp(regexp.MustCompile(`kind: NodeOverlay`))),
			}},
			Check: check(func() error {
				np, ov := e.get(t, nodePoolGVK, "mig-od"), e.get(t, nodeOverlayGVK, "mig")
				if got := nested(np, "spec", "template", "metadata", "labels", "nvidia.com/mig.config"); got != "all-3g.40gb" {
					return fmt.Errorf("mig.config label %v", got)
				}
				if got := nested(ov, "spec", "capacity", "nvidia.com/gpu"); got != "16" {
					return fmt.Errorf("overlay capacity %v, want 16", got)
				}
				if got := nested(np, "spec", "limits", "nvidia.com/gpu"); got != "32" {
					return fmt.Errorf("GPU limit %v, want 32 (2 nodes of 16 slices)", got)
				}
				if got := fmt.Sprint(nested(ov, "spec", "requirements")); !strings.Contains(got, "karpenter.sh/nodepool") || !strings.Contains(got, "mig-od") {
					return fmt.Errorf("overlay requirements %s", got)
				}
				return nil
			}),
		}},
	})
}

// Time-slicing: the device plugin label and config, and a NodeOverlay of replicas × GPUs; the plan
// warns that NodeOverlay needs Karpenter's alpha feature gate. A spot mix over a base: one NodePool
// per rung, limits from the split of max_size, on-demand first; the plan says how the mix maps.
func TestAccKarpenterNodePool_timeSlicingSpotMix(t *testing.T) {
	e := newEnv(t)
	cfg := e.provider("") + poolHCL("ts", `["g6.xlarge"]`, `  workload {
    kind           = "inference"
    environment    = "development"
    gpu_memory_gib = 4
    interruptible  = true
  }
  gpu {
    sharing {
      strategy = "time-slicing"
      replicas = 4
    }
  }
`+scaling(0, 8)+acctest.Capacity(75, 0))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("ts"),
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("gpufleet_karpenter_node_pool.ts", tfjsonpath.New("device_plugin_config"), knownvalue.StringRegexp(regexp.MustCompile(`replicas: 4`))),
			},
			Check: check(func() error {
				od, spot, ov := e.get(t, nodePoolGVK, "ts-od"), e.get(t, nodePoolGVK, "ts-spot"), e.get(t, nodeOverlayGVK, "ts")
				if got := fmt.Sprintf("%v/%v %v/%v", nested(od, "spec", "limits", "nodes"), nested(od, "spec", "weight"), nested(spot, "spec", "limits", "nodes"), nested(spot, "spec", "weight")); got != "2/100 6/50" {
					return fmt.Errorf("od and spot limits/weights %s, want 2/100 6/50", got)
				}
				if got := nested(ov, "spec", "capacity", "nvidia.com/gpu"); got != "4" {
					return fmt.Errorf("overlay capacity %v", got)
				}
				if got := nested(spot, "spec", "template", "metadata", "labels", "nvidia.com/device-plugin.config"); got != "gpufleet-time-slicing-4" {
					return fmt.Errorf("device plugin label %v", got)
				}
				if got := nested(spot, "spec", "disruption", "consolidationPolicy"); got != "WhenEmptyOrUnderutilized" {
					return fmt.Errorf("an interruptible pool's consolidation %v", got)
				}
				return nil
			}),
		}},
	})
}

// Reservations: an ODCR rung takes reserved capacity and falls back to on-demand; a capacity block
// rung takes only the block's reserved capacity; the node class selects the reservation.
func TestAccKarpenterNodePool_reservations(t *testing.T) {
	e := newEnv(t)
	training := `  workload {
    kind           = "training"
    environment    = "production"
    gpu_memory_gib = 60
  }
`
	cfg := e.provider("") +
		poolHCL("odcr", `["p5.48xlarge"]`, training+scaling(0, 4)+"  capacity {\n    reservation {\n      id = \"cr-0a1b2c3d4e5f60718\"\n      type = \"capacity-reservation\"\n    }\n  }\n") +
		poolHCL("block", `["p5.48xlarge"]`, training+scaling(0, 2)+"  capacity {\n    reservation {\n      id = \"cr-0b1c2d3e4f5a60719\"\n      type = \"capacity-block\"\n      hourly_price_usd = 31.46\n    }\n  }\n")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("odcr", "block"),
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("gpufleet_karpenter_node_pool.block", tfjsonpath.New("estimated_monthly_cost_usd"), knownvalue.Float64Exact(45931.6)),
			},
			Check: check(func() error {
				if got := requirement(e.get(t, nodePoolGVK, "odcr-od"), "karpenter.sh/capacity-type"); got != "In reserved,on-demand" {
					return fmt.Errorf("ODCR capacity types %s", got)
				}
				block := e.get(t, nodePoolGVK, "block-od")
				if got := requirement(block, "karpenter.sh/capacity-type") + "; " + requirement(block, "karpenter.k8s.aws/capacity-reservation-type"); got != "In reserved; In capacity-block" {
					return fmt.Errorf("capacity block requirements %s", got)
				}
				if got := fmt.Sprint(nested(e.get(t, ec2NodeClassGVK, "block"), "spec", "capacityReservationSelectorTerms")); got != "[map[id:cr-0b1c2d3e4f5a60719]]" {
					return fmt.Errorf("reservation selector %s", got)
				}
				// Non-interruptible training: no consolidation of busy nodes, no expiry, no drift.
				if got := fmt.Sprintf("%v %v %v", nested(block, "spec", "disruption", "consolidationPolicy"), nested(block, "spec", "template", "spec", "expireAfter"), nested(block, "spec", "disruption", "budgets")); got != "WhenEmpty Never [map[nodes:0 reasons:[Drifted]] map[nodes:10%]]" {
					return fmt.Errorf("disruption %s", got)
				}
				return nil
			}),
		}},
	})
}

// EKS Auto Mode: its NodeClass and NodePools with Auto Mode's labels, static capacity for min_size.
func TestAccKarpenterNodePool_autoMode(t *testing.T) {
	e := newEnv(t)
	cfg := e.provider("") + poolHCL("auto", `["g6e.xlarge"]`, inference+scaling(1, 3)+"  mode = \"auto_mode\"\n")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             e.gone("auto"),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: check(func() error {
					nc := e.get(t, nodeClassGVK, "auto")
					if nc == nil || nested(nc, "spec", "role") != "KarpenterNodeRole-ml" {
						return fmt.Errorf("Auto Mode NodeClass %v", nc)
					}
					static, dynamic := e.get(t, nodePoolGVK, "auto-od-min"), e.get(t, nodePoolGVK, "auto-od")
					if nested(static, "spec", "replicas") != int64(1) || nested(dynamic, "spec", "limits", "nodes") != "2" {
						return fmt.Errorf("static replicas %v, dynamic limit %v", nested(static, "spec", "replicas"), nested(dynamic, "spec", "limits", "nodes"))
					}
					if got := requirement(dynamic, "eks.amazonaws.com/instance-gpu-name"); got != "In l40s" {
						return fmt.Errorf("Auto Mode GPU requirement %q", got)
					}
					if got := nested(dynamic, "spec", "template", "spec", "nodeClassRef", "group"); got != "eks.amazonaws.com" {
						return fmt.Errorf("nodeClassRef group %v", got)
					}
					return nil
				}),
			},
			{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{
				// Auto Mode's NodeClass role is immutable (a CEL transition rule, oldSelf): the plan
				// validates the update against the object state holds and refuses it at node_role.
				Config:      strings.Replace(cfg, `"KarpenterNodeRole-ml"`, `"AutoModeNodeRole-ml"`, 1),
				PlanOnly:    true,
				ExpectError: acctest.ExpectErrorParts("node_role", "NodeClass auto", "immutable field changed"),
			},
			{
				// Another mode replaces the pool: a NodePool's nodeClassRef.group is immutable.
				Config: strings.Replace(cfg, `mode = "auto_mode"`, `mode = "karpenter"`, 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpufleet_karpenter_node_pool.auto", plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: check(func() error {
					if e.get(t, nodeClassGVK, "auto") != nil || e.get(t, ec2NodeClassGVK, "auto") == nil {
						return fmt.Errorf("the replacement left the Auto Mode NodeClass or made no EC2NodeClass")
					}
					return nil
				}),
			},
		},
	})
}
