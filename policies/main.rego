# conftest entry point (conftest's default namespace, main):
#
#   terraform show -json plan.out > plan.json
#   conftest test --policy policies --data policy-data.yaml plan.json
#
# deny -> failures, warn -> warnings. Results are objects; conftest prints their msg and keeps
# rule, address, attribute and severity as metadata (conftest --output json).
package main

deny contains f if {
	some f in data.gpufleet.findings.deny
}

warn contains f if {
	some f in data.gpufleet.findings.warn
}
