# Shared test fixtures: a catalog subset (values copied from the generated catalog, so tests do
# not move when prices are regenerated), a client registry and a compliant base pool document.
# Rules are tested through the provider path: `with input as fx.pool({...})`.
package gpufleet.fixtures

catalog := {
	"aws_instance_types": {
		"g4dn.xlarge": {"family": "g4dn", "gpu_count": 1, "gpu_model": "T4", "memory_gib": 16, "prices": {"eu-west-1": {"on_demand_usd": 0.5891, "spot_usd": 0.2062}, "us-east-1": {"on_demand_usd": 0.526, "spot_usd": 0.1841}}, "vcpu": 4},
		"g5.xlarge": {"family": "g5", "gpu_count": 1, "gpu_model": "A10G", "memory_gib": 16, "prices": {"eu-west-1": {"on_demand_usd": 1.1267, "spot_usd": 0.4507}, "us-east-1": {"on_demand_usd": 1.006, "spot_usd": 0.4024}}, "vcpu": 4},
		"g6.xlarge": {"family": "g6", "gpu_count": 1, "gpu_model": "L4", "memory_gib": 16, "prices": {"eu-west-1": {"on_demand_usd": 0.9014, "spot_usd": 0.3606}, "us-east-1": {"on_demand_usd": 0.8048, "spot_usd": 0.3219}}, "vcpu": 4},
		"p4d.24xlarge": {"family": "p4d", "gpu_count": 8, "gpu_model": "A100-40GB", "memory_gib": 1152, "prices": {"eu-west-1": {"on_demand_usd": 24.5952, "spot_usd": 11.0678}, "us-east-1": {"on_demand_usd": 21.96, "spot_usd": 9.882}}, "vcpu": 96},
		"p5.48xlarge": {"family": "p5", "gpu_count": 8, "gpu_model": "H100-80GB", "memory_gib": 2048, "prices": {"us-east-1": {"on_demand_usd": 55.04, "spot_usd": 30.272}}, "vcpu": 192},
	},
	"gke_accelerators": {
		"nvidia-h100-80gb": {"attach_counts": [], "gpu_model": "H100-80GB", "machine_types": ["a3-highgpu-1g"], "prices": {}},
		"nvidia-l4": {"attach_counts": [], "gpu_model": "L4", "machine_types": ["g2-standard-8"], "prices": {}},
		"nvidia-tesla-a100": {"attach_counts": [], "gpu_model": "A100-40GB", "machine_types": ["a2-highgpu-1g"], "prices": {}},
		"nvidia-tesla-t4": {"attach_counts": [1, 2, 4], "gpu_model": "T4", "machine_types": ["n1-standard-8"], "prices": {"europe-west4": {"on_demand_usd": 0.385, "spot_usd": 0.154}, "us-central1": {"on_demand_usd": 0.35, "spot_usd": 0.14}}},
	},
	"gke_machine_types": {
		"a2-highgpu-1g": {"accelerator": "nvidia-tesla-a100", "attachable_accelerators": {}, "family": "a2-highgpu", "gpu_count": 1, "gpu_model": "A100-40GB", "memory_gib": 85, "prices": {"europe-west4": {"on_demand_usd": 4.0407, "spot_usd": 1.2122}, "us-central1": {"on_demand_usd": 3.6734, "spot_usd": 1.102}}, "vcpu": 12},
		"a3-highgpu-1g": {"accelerator": "nvidia-h100-80gb", "attachable_accelerators": {}, "family": "a3-highgpu", "gpu_count": 1, "gpu_model": "H100-80GB", "memory_gib": 234, "prices": {"europe-west4": {"on_demand_usd": 12.1674, "spot_usd": 4.2586}, "us-central1": {"on_demand_usd": 11.0613, "spot_usd": 3.8715}}, "vcpu": 26},
		"g2-standard-8": {"accelerator": "nvidia-l4", "attachable_accelerators": {}, "family": "g2", "gpu_count": 1, "gpu_model": "L4", "memory_gib": 32, "prices": {"europe-west4": {"on_demand_usd": 0.939, "spot_usd": 0.3756}, "us-central1": {"on_demand_usd": 0.8536, "spot_usd": 0.3414}}, "vcpu": 8},
		"n1-standard-8": {"accelerator": null, "attachable_accelerators": {"nvidia-tesla-p100": [1, 2, 4], "nvidia-tesla-t4": [1, 2, 4], "nvidia-tesla-v100": [1, 2, 4, 8]}, "family": "n1", "gpu_count": 0, "gpu_model": null, "memory_gib": 30, "prices": {"europe-west4": {"on_demand_usd": 0.418, "spot_usd": 0.0878}, "us-central1": {"on_demand_usd": 0.38, "spot_usd": 0.0798}}, "vcpu": 8},
	},
	"gpus": {
		"A100-40GB": {"architecture": "Ampere", "balanced_mig": ["1g.5gb", "2g.10gb", "3g.20gb"], "class": "training", "gke_accelerator": "nvidia-tesla-a100", "memory_gib": 40, "mig_profiles": {"1g.10gb": {"compute_slices": 1, "max_instances": 4, "memory_gib": 10}, "1g.5gb": {"compute_slices": 1, "max_instances": 7, "memory_gib": 5}, "1g.5gb+me": {"compute_slices": 1, "max_instances": 1, "memory_gib": 5}, "2g.10gb": {"compute_slices": 2, "max_instances": 3, "memory_gib": 10}, "3g.20gb": {"compute_slices": 3, "max_instances": 2, "memory_gib": 20}, "4g.20gb": {"compute_slices": 4, "max_instances": 1, "memory_gib": 20}, "7g.40gb": {"compute_slices": 7, "max_instances": 1, "memory_gib": 40}}},
		"A10G": {"architecture": "Ampere", "balanced_mig": [], "class": "inference", "gke_accelerator": null, "memory_gib": 24, "mig_profiles": {}},
		"H100-80GB": {"architecture": "Hopper", "balanced_mig": ["1g.10gb", "2g.20gb", "3g.40gb"], "class": "training", "gke_accelerator": "nvidia-h100-80gb", "memory_gib": 80, "mig_profiles": {"1g.10gb": {"compute_slices": 1, "max_instances": 7, "memory_gib": 10}, "1g.10gb+me": {"compute_slices": 1, "max_instances": 1, "memory_gib": 10}, "1g.20gb": {"compute_slices": 1, "max_instances": 4, "memory_gib": 20}, "2g.20gb": {"compute_slices": 2, "max_instances": 3, "memory_gib": 20}, "3g.40gb": {"compute_slices": 3, "max_instances": 2, "memory_gib": 40}, "4g.40gb": {"compute_slices": 4, "max_instances": 1, "memory_gib": 40}, "7g.80gb": {"compute_slices": 7, "max_instances": 1, "memory_gib": 80}}},
		"L4": {"architecture": "Ada Lovelace", "balanced_mig": [], "class": "inference", "gke_accelerator": "nvidia-l4", "memory_gib": 24, "mig_profiles": {}},
		"T4": {"architecture": "Turing", "balanced_mig": [], "class": "inference", "gke_accelerator": "nvidia-tesla-t4", "memory_gib": 16, "mig_profiles": {}},
	},
	"hours_per_month": 730,
	# The fit's numbers, as generated (the suggestions count the memory headroom).
	"fit_model": data.gpufleet.catalog.fit_model,
	# What the generator writes for the subset above (catalog.replica_options, inference_gpu_options).
	"replica_options": {
		"aws": {
			"eu-west-1": [
				[0.4392, 5, "mig", "training", "the MIG slice 1g.5gb of A100-40GB on p4d.24xlarge", 3.0744, 8, 4.75],
				[0.7686, 10, "mig", "training", "the MIG slice 1g.10gb of A100-40GB on p4d.24xlarge", 3.0744, 8, 9.5],
				[0.5891, 16, "gpu", "inference", "g4dn.xlarge (T4, 16 GiB)", 0.5891, 7.5, 15.2],
				[1.5372, 20, "mig", "training", "the MIG slice 3g.20gb of A100-40GB on p4d.24xlarge", 3.0744, 8, 19],
				[0.9014, 24, "gpu", "inference", "g6.xlarge (L4, 24 GiB)", 0.9014, 8.9, 22.8],
				[3.0744, 40, "gpu", "training", "p4d.24xlarge (A100-40GB, 40 GiB)", 3.0744, 8, 38],
			],
			"us-east-1": [
				[0.3921428571428571, 5, "mig", "training", "the MIG slice 1g.5gb of A100-40GB on p4d.24xlarge", 2.745, 8, 4.75],
				[0.68625, 10, "mig", "training", "the MIG slice 1g.10gb of A100-40GB on p4d.24xlarge", 2.745, 8, 9.5],
				[0.526, 16, "gpu", "inference", "g4dn.xlarge (T4, 16 GiB)", 0.526, 7.5, 15.2],
				[1.3725, 20, "mig", "training", "the MIG slice 3g.20gb of A100-40GB on p4d.24xlarge", 2.745, 8, 19],
				[0.8048, 24, "gpu", "inference", "g6.xlarge (L4, 24 GiB)", 0.8048, 8.9, 22.8],
				[2.745, 40, "gpu", "training", "p4d.24xlarge (A100-40GB, 40 GiB)", 2.745, 8, 38],
				[6.88, 80, "gpu", "training", "p5.48xlarge (H100-80GB, 80 GiB)", 6.88, 9, 76],
			],
		},
		"gcp": {
			"europe-west4": [
				[0.5772428571428572, 5, "mig", "training", "the MIG slice 1g.5gb of A100-40GB on a2-highgpu-1g", 4.0407, 8, 4.75],
				[1.010175, 10, "mig", "training", "the MIG slice 1g.10gb of A100-40GB on a2-highgpu-1g", 4.0407, 8, 9.5],
				[0.803, 16, "gpu", "inference", "n1-standard-8 + 1 x nvidia-tesla-t4 (T4, 16 GiB)", 0.803, 7.5, 15.2],
				[2.02035, 20, "mig", "training", "the MIG slice 3g.20gb of A100-40GB on a2-highgpu-1g", 4.0407, 8, 19],
				[0.939, 24, "gpu", "inference", "g2-standard-8 (L4, 24 GiB)", 0.939, 8.9, 22.8],
				[4.0407, 40, "gpu", "training", "a2-highgpu-1g (A100-40GB, 40 GiB)", 4.0407, 8, 38],
				[12.1674, 80, "gpu", "training", "a3-highgpu-1g (H100-80GB, 80 GiB)", 12.1674, 9, 76],
			],
			"us-central1": [
				[0.5247714285714286, 5, "mig", "training", "the MIG slice 1g.5gb of A100-40GB on a2-highgpu-1g", 3.6734, 8, 4.75],
				[0.91835, 10, "mig", "training", "the MIG slice 1g.10gb of A100-40GB on a2-highgpu-1g", 3.6734, 8, 9.5],
				[0.73, 16, "gpu", "inference", "n1-standard-8 + 1 x nvidia-tesla-t4 (T4, 16 GiB)", 0.73, 7.5, 15.2],
				[1.8367, 20, "mig", "training", "the MIG slice 3g.20gb of A100-40GB on a2-highgpu-1g", 3.6734, 8, 19],
				[0.8536, 24, "gpu", "inference", "g2-standard-8 (L4, 24 GiB)", 0.8536, 8.9, 22.8],
				[3.6734, 40, "gpu", "training", "a2-highgpu-1g (A100-40GB, 40 GiB)", 3.6734, 8, 38],
				[11.0613, 80, "gpu", "training", "a3-highgpu-1g (H100-80GB, 80 GiB)", 11.0613, 9, 76],
			],
		},
	},
	"inference_gpu_options": {
		"aws": {
			"eu-west-1": [
				[0.5891, 16, "gpu", "inference", "g4dn.xlarge (T4, 16 GiB)", 0.5891, 7.5, 15.2],
				[0.9014, 24, "gpu", "inference", "g6.xlarge (L4, 24 GiB)", 0.9014, 8.9, 22.8],
			],
			"us-east-1": [
				[0.526, 16, "gpu", "inference", "g4dn.xlarge (T4, 16 GiB)", 0.526, 7.5, 15.2],
				[0.8048, 24, "gpu", "inference", "g6.xlarge (L4, 24 GiB)", 0.8048, 8.9, 22.8],
			],
		},
		"gcp": {
			"europe-west4": [
				[0.803, 16, "gpu", "inference", "n1-standard-8 + 1 x nvidia-tesla-t4 (T4, 16 GiB)", 0.803, 7.5, 15.2],
				[0.939, 24, "gpu", "inference", "g2-standard-8 (L4, 24 GiB)", 0.939, 8.9, 22.8],
			],
			"us-central1": [
				[0.73, 16, "gpu", "inference", "n1-standard-8 + 1 x nvidia-tesla-t4 (T4, 16 GiB)", 0.73, 7.5, 15.2],
				[0.8536, 24, "gpu", "inference", "g2-standard-8 (L4, 24 GiB)", 0.8536, 8.9, 22.8],
			],
		},
	},
}

clients := {
	"acme": {"cost_center": "cc-1001", "allowed_regions": ["eu-*", "europe-*"], "isolation": "dedicated", "monthly_budget_usd": 50000},
	"globex": {"cost_center": "cc-2002", "allowed_regions": ["us-*"], "isolation": "mig", "monthly_budget_usd": 20000},
	"initech": {"cost_center": "cc-3003", "allowed_regions": ["us-*", "eu-*", "europe-*"], "isolation": "shared", "monthly_budget_usd": 100000},
}

# A compliant pool: acme (dedicated, EU only) inference on one L4 in eu-west-1.
doc := {
	"address": "gpufleet_eks_node_pool.test",
	"resource_type": "gpufleet_eks_node_pool",
	"cloud": "aws",
	"region": "eu-west-1",
	"zones": ["eu-west-1a"],
	"name": "test",
	"client": "acme",
	"workload": {"kind": "inference", "environment": "staging", "gpu_memory_gib": 13, "interruptible": false},
	"gpu": {
		"model": "L4", "class": "inference", "memory_gib": 24, "per_node": 1,
		"mig_profile": null, "mig_config": null, "slice_memory_gib": 24, "sharing": null,
	},
	"instance_types": ["g6.xlarge"],
	"scaling": {"min_size": 1, "max_size": 2, "desired_size": 1},
	"capacity": {
		"spot_percentage": 0, "on_demand_base": 1, "reservation": null,
		"on_demand": {"min": 1, "max": 2, "desired": 1}, "spot": {"min": 0, "max": 0, "desired": 0},
	},
	"taints": [
		{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"},
		{"key": "gpufleet.io/client", "value": "acme", "effect": "NO_SCHEDULE"},
	],
	"labels": {
		"gpufleet.io/client": "acme", "gpufleet.io/workload": "inference",
		"gpufleet.io/environment": "staging", "gpufleet.io/capacity-type": "on-demand",
	},
	"tags": {"gpufleet:client": "acme", "gpufleet:pool": "test", "gpufleet:workload": "inference", "gpufleet:cost-center": "cc-1001"},
	"cost": {"hourly_usd": 0.9014, "monthly_usd": 658.02},
	"waivers": {},
}

# The base document with a (recursively merged) patch.
pool(patch) := object.union(doc, patch)

# Rule ids of a set of findings.
rules(findings) := {f.rule | some f in findings}

# The findings of one rule.
of(findings, rule) := {f | some f in findings; f.rule == rule}
