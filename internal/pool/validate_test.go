package pool

import (
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

func eksSpec() Spec {
	return Spec{
		Cloud:         catalog.AWS,
		ResourceType:  "gpufleet_eks_node_pool",
		Name:          "train",
		Region:        "us-east-1",
		Client:        "acme",
		Workload:      Workload{Kind: KindTraining, Environment: EnvProduction, GPUMemoryGiB: 60, Interruptible: true},
		InstanceTypes: []string{"p5.48xlarge"},
		Scaling:       Sizes{Min: 0, Max: 8, Desired: 2},
		Capacity:      Capacity{SpotPercentage: 70, OnDemandBase: 1},
	}
}

func gkeSpec() Spec {
	return Spec{
		Cloud:        catalog.GCP,
		ResourceType: "gpufleet_gke_node_pool",
		Name:         "infer",
		Region:       "us-central1",
		Client:       "acme",
		Workload:     Workload{Kind: KindInference, Environment: EnvProduction, GPUMemoryGiB: 16},
		MachineType:  "g2-standard-8",
		Scaling:      Sizes{Min: 1, Max: 4, Desired: 2},
	}
}

func TestValidate_valid(t *testing.T) {
	valid := map[string]Spec{
		"eks basic": eksSpec(),
		"gke basic": gkeSpec(),
		"eks training replica over two nodes with EFA": func() Spec {
			s := eksSpec()
			s.Workload.GPUsPerReplica, s.Workload.GPUMemoryGiB = 16, 1100
			return s
		}(),
		"eks mig profile": func() Spec {
			s := eksSpec()
			s.GPU.MIG = &MIG{Profile: "3g.40gb"}
			return s
		}(),
		"eks mig balanced under the mixed strategy": func() Spec {
			s := eksSpec()
			s.GPU.MIG, s.GPU.MIGStrategy = &MIG{Config: MIGConfigBalanced}, MIGStrategyMixed
			return s
		}(),
		"eks mig profile under the mixed strategy": func() Spec {
			s := eksSpec()
			s.GPU.MIG, s.GPU.MIGStrategy = &MIG{Profile: "3g.40gb"}, MIGStrategyMixed
			return s
		}(),
		"eks capacity block sized by the autoscaler, at its price": func() Spec {
			s := eksSpec()
			s.InstanceTypes = []string{"p5.48xlarge"}
			s.Scaling, s.AutoscalerOwnsSize = Sizes{Min: 0, Max: 2}, true
			s.Capacity = Capacity{Reservation: &Reservation{Type: ReservationCapacityBlock, ID: "cr-0123456789abcdef0", HourlyUSD: 31.464}}
			return s
		}(),
		"eks instance types of different sizes at an enforced size": func() Spec {
			s := eksSpec()
			s.InstanceTypes = []string{"g5.xlarge", "g5.2xlarge"}
			return s
		}(),
		"waivers of a gpufleet rule and of a team's own rule": func() Spec {
			s := eksSpec()
			s.Waivers = map[string]string{"GF-COST-002": "benchmark until 2026-12-31", "ACME-001": "approved by the platform team"}
			return s
		}(),
		"eks spot diversification, same GPU": func() Spec {
			s := eksSpec()
			s.InstanceTypes = []string{"g5.xlarge", "g5.2xlarge", "g5.4xlarge"}
			return s
		}(),
		"eks odcr": func() Spec {
			s := eksSpec()
			s.Capacity = Capacity{Reservation: &Reservation{Type: ReservationCapacityReservation, ID: "cr-0123456789abcdef0"}}
			return s
		}(),
		"gke n1 with T4": func() Spec {
			s := gkeSpec()
			s.MachineType, s.GPU.Type, s.GPU.Count = "n1-standard-8", "nvidia-tesla-t4", 1
			return s
		}(),
		"gke specific reservation": func() Spec {
			s := gkeSpec()
			s.Capacity.Reservation = &Reservation{Type: ReservationSpecific, Name: "l4-pool"}
			return s
		}(),
		"unknown values are skipped": func() Spec {
			s := eksSpec()
			s.InstanceTypes = nil
			s.Client = ""
			s.Scaling.Desired = 100
			s.Unknown = map[string]bool{"instance_types": true, "client": true, "scaling.desired_size": true}
			return s
		}(),
		"extra taints and labels": func() Spec {
			s := eksSpec()
			s.Taints = []Taint{{Key: "team", Value: "ml", Effect: EffectNoSchedule}}
			s.Labels = map[string]string{"team": "ml", "example.com/tier": "gold"}
			s.Tags = map[string]string{"Owner": "ml-platform"}
			s.Waivers = map[string]string{"GF-COST-002": "one-off benchmark, ends 2026-12-31"}
			return s
		}(),
	}
	for name, s := range valid {
		t.Run(name, func(t *testing.T) {
			if problems := s.Validate(); len(problems) != 0 {
				t.Fatalf("want no problems, got %v", problems)
			}
		})
	}
}

func TestValidate_problemsNameTheAttribute(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Spec)
		path   string
		detail string
	}{
		{"mig profile the GPU does not offer", func(s *Spec) { s.GPU.MIG = &MIG{Profile: "3g.20gb"} }, "gpu.mig.profile", "H100-80GB offers"},
		{"mig on a GPU without mig", func(s *Spec) { s.InstanceTypes = []string{"g5.xlarge"}; s.GPU.MIG = &MIG{Profile: "1g.10gb"} }, "gpu.mig", "A10G has no Multi-Instance GPU"},
		{"mig profile and config", func(s *Spec) { s.GPU.MIG = &MIG{Profile: "3g.40gb", Config: MIGConfigBalanced} }, "gpu.mig", "not both"},
		{"mig config unknown", func(s *Spec) { s.GPU.MIG = &MIG{Config: "all-9g.99gb"} }, "gpu.mig.config", "not \"9g.99gb\""},
		{"instance types with different GPU models", func(s *Spec) { s.InstanceTypes = []string{"g5.xlarge", "g6.xlarge"} }, "instance_types[1]", "same GPU model"},
		{"non-GPU instance type", func(s *Spec) { s.InstanceTypes = []string{"m5.large"} }, "instance_types[0]", "not an NVIDIA GPU instance type"},
		{"no instance types", func(s *Spec) { s.InstanceTypes = nil }, "instance_types", "at least one"},
		{"replica over more GPUs than a node", func(s *Spec) { s.Workload.GPUsPerReplica = 12 }, "workload.gpus_per_replica", "a p5.48xlarge node has 8 H100-80GB GPU(s)"},
		{"inference replica over two nodes", func(s *Spec) { s.Workload.Kind, s.Workload.GPUsPerReplica = KindInference, 16 }, "workload.gpus_per_replica", "must be on one node"},
		{"training replica over nodes without EFA", func(s *Spec) { s.InstanceTypes, s.Workload.GPUsPerReplica = []string{"p3.16xlarge"}, 16 },
			"workload.gpus_per_replica", "p3.16xlarge has no inter-node GPU network (EFA)"},
		{"unknown precision", func(s *Spec) { s.Workload.Precision = "fp2" }, "workload.precision", "fp4"},
		{"kv cache not less than the need", func(s *Spec) { s.Workload.KVCacheGiB = 60 }, "workload.kv_cache_gib", "gpu_memory_gib includes it"},
		{"negative kv cache", func(s *Spec) { s.Workload.KVCacheGiB = -1 }, "workload.kv_cache_gib", "0 GiB or more"},
		{"spot share with a capacity block", func(s *Spec) {
			s.InstanceTypes = []string{"p5.48xlarge"}
			s.Capacity.Reservation = &Reservation{Type: ReservationCapacityBlock, ID: "cr-0123456789abcdef0"}
		}, "capacity.spot_percentage", "capacity block"},
		{"capacity block without its price", func(s *Spec) {
			s.InstanceTypes, s.Capacity = []string{"p5.48xlarge"}, Capacity{Reservation: &Reservation{Type: ReservationCapacityBlock, ID: "cr-0123456789abcdef0"}}
		}, "capacity.reservation.hourly_price_usd", "prepaid"},
		{"capacity block with an enforced size", func(s *Spec) {
			s.InstanceTypes = []string{"p5.48xlarge"}
			s.Capacity = Capacity{Reservation: &Reservation{Type: ReservationCapacityBlock, ID: "cr-0123456789abcdef0", HourlyUSD: 30}}
		}, "scaling.desired_size", "scales the node group of a capacity block to 0"},
		{"capacity block with a minimum size", func(s *Spec) {
			s.InstanceTypes, s.AutoscalerOwnsSize = []string{"p5.48xlarge"}, true
			s.Scaling = Sizes{Min: 1, Max: 2, Desired: 1}
			s.Capacity = Capacity{Reservation: &Reservation{Type: ReservationCapacityBlock, ID: "cr-0123456789abcdef0", HourlyUSD: 30}}
		}, "scaling.min_size", "set min_size to 0"},
		{"price on a capacity reservation", func(s *Spec) {
			s.InstanceTypes = []string{"p5.48xlarge"}
			s.Capacity = Capacity{Reservation: &Reservation{Type: ReservationCapacityReservation, ID: "cr-0123456789abcdef0", HourlyUSD: 30}}
		}, "capacity.reservation.hourly_price_usd", "only a capacity block"},
		{"MPS on MIG on EKS", func(s *Spec) {
			s.GPU.MIG, s.GPU.Sharing = &MIG{Profile: "3g.40gb"}, &Sharing{Strategy: SharingMPS, Replicas: 2}
		}, "gpu.sharing.strategy", "does not share MIG devices with MPS"},
		{"sharing on all-balanced on EKS", func(s *Spec) {
			s.GPU.MIG, s.GPU.Sharing, s.GPU.MIGStrategy = &MIG{Config: MIGConfigBalanced}, &Sharing{Strategy: SharingTimeSlicing, Replicas: 2}, MIGStrategyMixed
		}, "gpu.sharing", "mixed MIG strategy"},
		{"all-balanced under the single strategy on EKS", func(s *Spec) { s.GPU.MIG = &MIG{Config: MIGConfigBalanced} }, "gpu.mig.config", "set mig_strategy = \"mixed\""},
		{"shared slices under the mixed strategy on EKS", func(s *Spec) {
			s.GPU.MIG, s.GPU.Sharing, s.GPU.MIGStrategy = &MIG{Profile: "3g.40gb"}, &Sharing{Strategy: SharingTimeSlicing, Replicas: 2}, MIGStrategyMixed
		}, "gpu.sharing", "nvidia.com/mig-<profile>"},
		{"instance types of different sizes the autoscaler sizes", func(s *Spec) {
			s.InstanceTypes, s.AutoscalerOwnsSize = []string{"g5.xlarge", "g5.2xlarge"}, true
		}, "instance_types[1]", "8 vCPUs"},
		{"the accelerator label set by hand", func(s *Spec) { s.Labels = map[string]string{"k8s.amazonaws.com/accelerator": "nvidia-h100"} }, "labels.k8s.amazonaws.com/accelerator", "GPU model itself"},
		{"bad reservation id", func(s *Spec) {
			s.Capacity = Capacity{Reservation: &Reservation{Type: ReservationCapacityReservation, ID: "res-1"}}
		}, "capacity.reservation.id", "cr-"},
		{"min > max", func(s *Spec) { s.Scaling = Sizes{Min: 5, Max: 2, Desired: 2} }, "scaling.min_size", "greater than max_size"},
		{"desired above max", func(s *Spec) { s.Scaling = Sizes{Min: 0, Max: 2, Desired: 3} }, "scaling.desired_size", "between"},
		{"max 0", func(s *Spec) { s.Scaling = Sizes{} }, "scaling.max_size", "1 or more"},
		{"spot over 100", func(s *Spec) { s.Capacity.SpotPercentage = 101 }, "capacity.spot_percentage", "between 0 and 100"},
		{"negative base", func(s *Spec) { s.Capacity.OnDemandBase = -1 }, "capacity.on_demand_base", "0 or more"},
		{"invalid taint effect", func(s *Spec) { s.Taints = []Taint{{Key: "team", Value: "ml", Effect: "NoSchedule"}} }, "taints[0].effect", "not one of NO_SCHEDULE"},
		{"taint that duplicates the GPU taint", func(s *Spec) { s.Taints = []Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: EffectNoSchedule}} }, "taints[0].key", "sets the \"nvidia.com/gpu\" taint itself"},
		{"taint that duplicates the client taint", func(s *Spec) {
			s.Taints = []Taint{{Key: "gpufleet.io/client", Value: "acme", Effect: EffectNoSchedule}}
		}, "taints[0].key", "itself"},
		{"duplicate taint", func(s *Spec) {
			s.Taints = []Taint{{Key: "a", Effect: EffectNoSchedule}, {Key: "a", Value: "b", Effect: EffectNoSchedule}}
		}, "taints[1]", "listed twice"},
		{"invalid client id", func(s *Spec) { s.Client = "Acme Corp" }, "client", "lowercase"},
		{"client id too long", func(s *Spec) { s.Client = strings.Repeat("a", 64) }, "client", "1-63"},
		{"invalid workload kind", func(s *Spec) { s.Workload.Kind = "serving" }, "workload.kind", "training, inference"},
		{"missing memory need", func(s *Spec) { s.Workload.GPUMemoryGiB = 0 }, "workload.gpu_memory_gib", "set workload.gpu_memory_gib"},
		{"negative memory need", func(s *Spec) { s.Workload.GPUMemoryGiB = -4 }, "workload.gpu_memory_gib", "greater than 0"},
		{"missing workload kind", func(s *Spec) { s.Workload.Kind = "" }, "workload.kind", "set workload.kind to one of"},
		{"missing environment", func(s *Spec) { s.Workload.Environment = "" }, "workload.environment", "set workload.environment"},
		{"missing sharing strategy", func(s *Spec) { s.GPU.Sharing = &Sharing{Replicas: 2} }, "gpu.sharing.strategy", "set gpu.sharing.strategy"},
		{"missing sharing replicas", func(s *Spec) { s.GPU.Sharing = &Sharing{Strategy: SharingMPS} }, "gpu.sharing.replicas", "set gpu.sharing.replicas"},
		{"missing reservation id", func(s *Spec) {
			s.Capacity = Capacity{Reservation: &Reservation{Type: ReservationCapacityReservation}}
		}, "capacity.reservation.id", "set capacity.reservation.id"},
		{"sharing replicas", func(s *Spec) { s.GPU.Sharing = &Sharing{Strategy: SharingMPS, Replicas: 1} }, "gpu.sharing.replicas", "2 to 48"},
		{"sharing strategy", func(s *Spec) { s.GPU.Sharing = &Sharing{Strategy: "vgpu", Replicas: 2} }, "gpu.sharing.strategy", "time-slicing, mps"},
		{"reserved label", func(s *Spec) { s.Labels = map[string]string{"gpufleet.io/client": "other"} }, "labels.gpufleet.io/client", "derived"},
		{"bad label key", func(s *Spec) { s.Labels = map[string]string{"-bad": "x"} }, "labels.-bad", "qualified name"},
		{"label key longer than EKS takes", func(s *Spec) { s.Labels = map[string]string{longKey: "x"} }, "labels." + longKey, "at most 63 characters, prefix included"},
		{"empty label value on EKS", func(s *Spec) { s.Labels = map[string]string{"team": ""} }, "labels.team", "empty label values"},
		{"taint key longer than EKS takes", func(s *Spec) { s.Taints = []Taint{{Key: longKey, Effect: EffectNoSchedule}} }, "taints[0].key", "at most 63 characters, prefix included"},
		{"reserved tag", func(s *Spec) { s.Tags = map[string]string{"gpufleet:client": "other"} }, "tags.gpufleet:client", "derived"},
		{"aws tag prefix", func(s *Spec) { s.Tags = map[string]string{"aws:foo": "x"} }, "tags.aws:foo", "aws:"},
		{"eks name too long for the suffix", func(s *Spec) { s.Name = strings.Repeat("n", 59) }, "name", "1-58"},
		{"waiver without reason", func(s *Spec) { s.Waivers = map[string]string{"GF-COST-002": "ok"} }, "policy_waivers.GF-COST-002", "reason"},
		{"waiver for an unknown rule", func(s *Spec) { s.Waivers = map[string]string{"cost 2": "benchmark until 2026-12-31"} }, "policy_waivers.cost 2", "rule id"},
		{"kubernetes.io label", func(s *Spec) { s.Labels = map[string]string{"node-role.kubernetes.io/gpu": "true"} }, "labels.node-role.kubernetes.io/gpu", "Kubernetes reserves"},
		{"k8s.io label", func(s *Spec) { s.Labels = map[string]string{"k8s.io/team": "ml"} }, "labels.k8s.io/team", "Kubernetes reserves"},
		{"eks.amazonaws.com label", func(s *Spec) { s.Labels = map[string]string{"eks.amazonaws.com/nodegroup": "x"} }, "labels.eks.amazonaws.com/nodegroup", "EKS reserves"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := eksSpec()
			tc.mutate(&s)
			requireProblem(t, s.Validate(), tc.path, tc.detail)
		})
	}
}

func TestValidate_gkeProblems(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Spec)
		path   string
		detail string
	}{
		{"n1 without accelerator", func(s *Spec) { s.MachineType = "n1-standard-8" }, "machine_type", "name an accelerator"},
		{"accelerator the machine does not take", func(s *Spec) { s.GPU.Type, s.GPU.Count = "nvidia-tesla-t4", 1 }, "gpu.type", "does not take"},
		{"GPU count the machine does not take", func(s *Spec) { s.GPU.Type, s.GPU.Count = "nvidia-l4", 3 }, "gpu.count", "comes with 1"},
		{"GPU count an N1 machine does not take", func(s *Spec) { s.MachineType, s.GPU.Type, s.GPU.Count = "n1-standard-8", "nvidia-tesla-t4", 3 }, "gpu.count", "in counts"},
		{"not a GPU machine type", func(s *Spec) { s.MachineType = "e2-standard-4" }, "machine_type", "not a GKE GPU machine type"},
		{"balanced MIG on GKE", func(s *Spec) { s.MachineType = "a2-highgpu-1g"; s.GPU.MIG = &MIG{Config: MIGConfigBalanced} }, "gpu.mig.config", "one profile size"},
		{"specific reservation without name", func(s *Spec) { s.Capacity.Reservation = &Reservation{Type: ReservationSpecific} }, "capacity.reservation.name", "names the reservation"},
		{"any reservation with a name", func(s *Spec) { s.Capacity.Reservation = &Reservation{Type: ReservationAny, Name: "x"} }, "capacity.reservation.name", "only a \"specific\""},
		{"spot only with a reservation", func(s *Spec) {
			s.Capacity = Capacity{SpotPercentage: 100, Reservation: &Reservation{Type: ReservationAny}}
		}, "capacity.spot_percentage", "cannot consume reservations"},
		{"gke name", func(s *Spec) { s.Name = "Infer" }, "name", "lowercase"},
		{"gke tag key", func(s *Spec) { s.Tags = map[string]string{"Owner": "x"} }, "tags.Owner", "GKE resource label key"},
		{"gke reserved tag", func(s *Spec) { s.Tags = map[string]string{"gpufleet_client": "x"} }, "tags.gpufleet_client", "derived"},
		{"kubernetes.io label on GKE", func(s *Spec) { s.Labels = map[string]string{"node-role.kubernetes.io/gpu": "true"} }, "labels.node-role.kubernetes.io/gpu", "Kubernetes reserves"},
		{"cloud.google.com label", func(s *Spec) { s.Labels = map[string]string{"cloud.google.com/compute-class": "gpu"} }, "labels.cloud.google.com/compute-class", "GKE manages"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := gkeSpec()
			tc.mutate(&s)
			requireProblem(t, s.Validate(), tc.path, tc.detail)
		})
	}
}

// longKey is a Kubernetes qualified name of 69 characters, more than EKS takes.
const longKey = "scheduling.platform-team.example.com/preferred-maintenance-window-utc"

// Each cloud reserves its own prefixes only; a domain that merely ends like one is the user's.
func TestValidate_reservedLabelPrefixesPerCloud(t *testing.T) {
	for _, s := range []Spec{eksSpec(), gkeSpec()} {
		s.Labels = map[string]string{"example.com/k8s.io": "x", "notkubernetes.io/team": "ml"}
		if s.Cloud == catalog.AWS {
			s.Labels["cloud.google.com/x"] = "y"
		} else {
			s.Labels["eks.amazonaws.com/x"] = "y"
		}
		if problems := s.Validate(); len(problems) != 0 {
			t.Errorf("%s: %v", s.Cloud, problems)
		}
	}
}

// EKS's key limits are EKS's: GKE takes any Kubernetes qualified name.
func TestValidate_gkeTakesLongKeys(t *testing.T) {
	s := gkeSpec()
	s.Labels = map[string]string{longKey: "x"}
	s.Taints = []Taint{{Key: longKey, Effect: EffectNoSchedule}}
	if problems := s.Validate(); len(problems) != 0 {
		t.Fatalf("GKE takes Kubernetes qualified names as label and taint keys: %v", problems)
	}
}

func requireProblem(t *testing.T, problems []Problem, path, detail string) {
	t.Helper()
	for _, p := range problems {
		if p.Path.String() == path && strings.Contains(p.Detail, detail) {
			return
		}
	}
	t.Fatalf("want a problem at %s containing %q, got %v", path, detail, problems)
}
