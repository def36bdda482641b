# A custom rule with a malformed result (a string, not lib.finding): conftest must report it as a
# deny naming the rule (GF-RULE-001), as the provider stops the plan on it. Used by
# TestConftest_malformedCustomRule.
package gpufleet.rules

deny contains "ACME-001: no GPU pools in ap-*" if {
	startswith(input.region, "eu-")
}

deny contains {"rule": "ACME-002", "attribute": "region"} if {
	startswith(input.region, "eu-")
}
