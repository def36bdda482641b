# GF-RS-006 (warn, waivable): a pool whose GPUs were observed mostly idle.
#
# The observation is data, not part of the plan: data.gpufleet.utilization.pools[<pool name>], the
# file `gpufleet-policy utilization --pool NAME` writes from dcgm-exporter series in Prometheus
# (internal/metrics, the same statistics as the gpufleet_pool_utilization data source). conftest
# reads it with --data; the provider reads the same file listed in policy.data_files. So the rule
# fires on the same pools with the same text in both places. It fires when the P95 of the per-step
# pool mean utilisation is under thresholds.low_utilization_percent (default 30); an unknown
# utilisation (null: no utilisation series) never fires.
package gpufleet.rules

import data.gpufleet.lib

bundle_warn contains {"rule": "GF-RS-006", "attribute": "scaling.desired_size", "text": text} if {
	observed := data.gpufleet.utilization.pools # a path without a key first: a miss costs far less
	obs := observed[input.name]
	p95 := obs.utilization_p95_percent
	is_number(p95)
	threshold := _low_utilization_percent
	p95 < threshold
	text := sprintf(
		"observed P95 GPU utilisation %v %% over %s to %s is under the %v %% threshold: %v idle GPU-hours, %s; consolidate onto fewer GPUs, MIG slices or time-slicing (gpufleet_recommendation), or waive",
		[_one_decimal(p95), obs.window, obs.end_time, threshold, _one_decimal(obs.idle_gpu_hours), _rs006_cost(obs)],
	)
}

_low_utilization_percent := t if {
	t := data.gpufleet.thresholds.low_utilization_percent
	is_number(t)
	t > 0
} else := 30

_rs006_cost(obs) := sprintf("about %s a month idle at %s per GPU-hour", [lib.usd(round(obs.idle_monthly_usd * 100) / 100), sprintf("$%v", [obs.hourly_usd_per_gpu])]) if {
	is_number(obs.idle_monthly_usd)
	is_number(obs.hourly_usd_per_gpu)
} else := "their cost unknown (no price per GPU-hour in the utilisation data)"

_one_decimal(x) := round(x * 10) / 10 if {
	is_number(x)
} else := "unknown"
