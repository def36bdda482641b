# Benchmark baseline for BenchmarkConftestManifests: the policy a team runs on its manifests without
# gpufleet, one deny and one warn over every object, so that the time conftest spends reading and
# parsing the YAML files is measured with little more. It takes the input as conftest gives it: one
# object, a file's documents as an array, or --combine's [{path, contents}].
package main

_objects contains o if {
	is_object(input)
	o := input
}

_objects contains o if {
	some x in input
	is_object(x)
	not x.contents
	o := x
}

_objects contains o if {
	some f in input
	is_object(f.contents)
	o := f.contents
}

_objects contains o if {
	some f in input
	some o in f.contents
	is_object(o)
}

deny contains msg if {
	some o in _objects
	o.kind == "Deployment"
	some c in o.spec.template.spec.containers
	not c.resources.limits.memory
	msg := sprintf("Deployment/%s: container %s has no memory limit", [o.metadata.name, c.name])
}

warn contains msg if {
	some o in _objects
	not o.metadata.labels["app.kubernetes.io/part-of"]
	msg := sprintf("%s/%s: no label app.kubernetes.io/part-of", [o.kind, o.metadata.name])
}
