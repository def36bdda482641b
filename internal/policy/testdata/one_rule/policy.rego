# Benchmark baseline for BenchmarkConftestPlan: one trivial rule over resource_changes, so that the
# time conftest spends reading and parsing the plan is measured on its own.
package main

deny contains msg if {
	some rc in input.resource_changes
	rc.type == "gpufleet_eks_node_pool"
	not rc.change.after.client
	msg := sprintf("%s: no client", [rc.address])
}
