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

# A custom warn rule whose result has no text: a deny too, never a warning that passes CI.
warn contains {"rule": "ACME-003", "attribute": "region", "message": "spelled message, not text"} if {
	startswith(input.region, "eu-")
}

# A well-formed custom warn rule stays a warning.
warn contains {"rule": "ACME-004", "attribute": "region", "text": "eu pools are reviewed monthly"} if {
	startswith(input.region, "eu-")
}
