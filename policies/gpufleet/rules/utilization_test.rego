package gpufleet.rules.utilization_test

import data.gpufleet.findings
import data.gpufleet.fixtures as fx

observation(p95) := {
	"selector": `{gpufleet_pool="test"}`, "window": "14d", "step": "5m", "end_time": "2026-11-20T00:00:00Z",
	"utilization_p95_percent": p95, "idle_gpu_hours": 2688.04, "hourly_usd_per_gpu": 6.88, "idle_monthly_usd": 40251.7,
}

test_rs006_idle_pool_warns_with_hours_and_cost if {
	fs := fx.of(findings.warn, "GF-RS-006") with input as fx.doc
		with data.gpufleet.utilization.pools as {"test": observation(18.04)}
	count(fs) == 1
	some f in fs
	f.severity == "warn"
	f.attribute == "scaling.desired_size"
	f.msg == "GF-RS-006: gpufleet_eks_node_pool.test: observed P95 GPU utilisation 18 % over 14d to 2026-11-20T00:00:00Z is under the 30 % threshold: 2688 idle GPU-hours, about $40251.70 a month idle at $6.88 per GPU-hour; consolidate onto fewer GPUs, MIG slices or time-slicing (gpufleet_recommendation), or waive"
}

test_rs006_busy_or_unknown_or_other_pool_is_quiet if {
	count(fx.of(findings.warn, "GF-RS-006")) == 0 with input as fx.doc with data.gpufleet.utilization.pools as {"test": observation(30)}
	count(fx.of(findings.warn, "GF-RS-006")) == 0 with input as fx.doc with data.gpufleet.utilization.pools as {"test": observation(null)}
	count(fx.of(findings.warn, "GF-RS-006")) == 0 with input as fx.doc with data.gpufleet.utilization.pools as {"other": observation(5)}
	count(fx.of(findings.warn, "GF-RS-006")) == 0 with input as fx.doc
}

test_rs006_threshold_from_policy_data if {
	count(fx.of(findings.warn, "GF-RS-006")) == 1 with input as fx.doc
		with data.gpufleet.utilization.pools as {"test": observation(40)}
		with data.gpufleet.thresholds.low_utilization_percent as 50
}

test_rs006_without_price if {
	obs := object.remove(observation(5), ["hourly_usd_per_gpu", "idle_monthly_usd"])
	some f in fx.of(findings.warn, "GF-RS-006") with input as fx.doc with data.gpufleet.utilization.pools as {"test": obs}
	contains(f.msg, "their cost unknown")
}

test_rs006_waivable if {
	count(fx.of(findings.warn, "GF-RS-006")) == 0 with input as fx.pool({"waivers": {"GF-RS-006": "batch pool, busy at quarter end"}})
		with data.gpufleet.utilization.pools as {"test": observation(5)}
}
