# What the bundle was given, decided in one place: the input documents and what each one is.
#
# - conftest test FILE gives one document, the file's JSON, as input (a JSON array file is split by
#   conftest itself, each element judged as its own input);
# - conftest test --combine FILE... gives every file at once, as an array of {"path", "contents"}
#   (conftest's parser.CombineConfigurations: one entry per file, or per element of a file that is
#   an array), one run over a repository's plans;
# - OPA servers (POST /v1/data/main) and opa eval give the input as it is.
#
# Each input document is a Terraform plan, a documents file of gpufleet-policy documents, Kubernetes
# objects (YAML manifests: NodePools, ComputeClasses and whatever else a GitOps directory holds), or
# something else, which GF-INPUT-001 names (kind below). main.rego judges every plan and documents
# file on its own, and the Kubernetes objects of the whole input together (a NodePool and its node
# class may be in two files of one --combine run), with the findings of a combined input naming the
# file they are about. An empty YAML document (a trailing ---, which conftest passes as null) is
# nothing to judge.
package gpufleet.inputs

# The input is conftest --combine's: a non-empty array whose every entry is a {path, contents}
# object. (An array of anything else is a single input that is not a plan.)
combined if {
	is_array(input)
	count(input) > 0

	# every entry has a string path (a string or an array has none) and contents, whatever they are
	# (null and false too); counted rather than `every`, which costs conftest's OPA twice as much.
	# (Passes over the whole input refer to input[i]: `some e in input` and then e.path costs a
	# conftest run several allocations more per entry.)
	count([1 | is_string(input[i].path); _ = input[i].contents]) == count(input)
}

# The name of a single input's file (conftest's data.conftest.file.name; "input" elsewhere).
default file_name := "input"

file_name := data.conftest.file.name

# What an input document is: "documents" (a documents file of the version this bundle reads),
# "manifests" (Kubernetes objects: one, a List, or an array of them), "plan" (the JSON of a
# Terraform plan of format 1.x), or "other" (not_judged says why). The only place that decides it.
kind(doc) := "documents" if {
	documents_file(doc)
} else := "manifests" if {
	manifests(doc)
} else := "other" if {
	why_not(doc)
} else := "plan"

# A documents file of the version this bundle reads (gpufleet-policy documents of the same release;
# plandoc.FormatVersion).
documents_file(doc) if {
	is_object(doc)
	doc.gpufleet_pool_documents.version == 1
}

# Kubernetes objects: an object with a string apiVersion and kind (a List too), or a non-empty array
# of them (and of the nulls of empty YAML documents): what conftest, OPA and opa eval are given for
# YAML manifests.
manifests(doc) if kube_object(doc)

manifests(doc) if {
	is_array(doc)
	count([o | some o in doc; kube_object(o)]) > 0
	every o in doc {
		_object_or_null(o)
	}
}

kube_object(o) if {
	is_string(o.apiVersion)
	is_string(o.kind)
}

_object_or_null(null)

_object_or_null(o) if kube_object(o)

# [path, document, kind] of every input document, each classified once (main, objects and
# not_judged read it), but for the Kubernetes objects of a combined input that no builder reads: a
# GitOps directory given to conftest --combine is thousands of documents, nearly all of them
# Deployments, Services, ConfigMaps... Those are passed over without a look of their own: the
# documents to classify are found by the few [kind, apiVersion] pairs of the whole input
# (_to_classify), and classified in the input's order (BenchmarkConftestManifests). An object of a
# builder's kind is Kubernetes objects without the calls of kind (a documents file is one whatever
# else it holds, so an object with gpufleet_pool_documents takes the long way).
classified := [[input[i].path, doc, _kind_of_entry(doc)] |
	some i in _to_classify
	doc := input[i].contents
] if combined

else := [[file_name, input, kind(input)]]

_kind_of_entry(doc) := "manifests" if {
	doc.kind in builder_kinds
	is_string(doc.apiVersion)
	not doc.gpufleet_pool_documents
} else := kind(doc)

# A single Kubernetes object of a kind no builder reads (a string apiVersion and kind, neither a
# builder's kind nor List, not a documents file): conftest without --combine on a GitOps directory
# gives each YAML document as an input of its own, nearly all of them Deployments, Services and
# ConfigMaps. kind would call it Kubernetes objects, none of which a builder reads: there is nothing
# to judge, and main's rules stop here before any other rule is evaluated (BenchmarkConftestManifests,
# separate).
passed_over if {
	is_string(input.kind)
	not input.kind in builder_kinds
	input.kind != "List"
	is_string(input.apiVersion)
	not input.gpufleet_pool_documents
}

# The kinds of Kubernetes object the builders read (documents_kube.rego).
builder_kinds := {"NodePool", "ComputeClass", "NodeOverlay", "EC2NodeClass", "NodeClass"}

# The indexes of a combined input's entries that are not Kubernetes objects of a kind no builder
# reads (an object with a string apiVersion, a string kind that is not a builder's kind nor List,
# and not a documents file). Five passes over the input whatever its size, each one lookup per
# entry: the distinct kinds, the index OPA builds for the comprehension of _entries_by_kind (then one
# lookup per kind), the distinct apiVersions, the count of entries that have one, and the documents
# files. The entries of an apiVersion that is not a string, and those without a kind or an
# apiVersion, are looked for only when there are some.
_to_classify := ((_of_kinds | _of_api_versions) | _without_kind_or_api_version) | _documents_files

_entries_by_kind := {k: [j | input[j].contents.kind == k] | some k in {k | k := input[_].contents.kind}}

_of_kinds := {i |
	some k, entries in _entries_by_kind
	_kind_to_classify(k)
	some i in entries
}

_kind_to_classify(k) if k in builder_kinds

_kind_to_classify("List")

_kind_to_classify(k) if not is_string(k)

_of_api_versions := {i |
	some v in {v | v := input[_].contents.apiVersion}
	not is_string(v)
	input[i].contents.apiVersion == v
}

default _without_kind_or_api_version := set()

_without_kind_or_api_version := {i | some i, e in input; not _has_kind_and_api_version(e.contents)} if {
	not _all_have_kind_and_api_version
}

_all_have_kind_and_api_version if {
	sum([count(entries) | some entries in _entries_by_kind]) == count(input)
	count([1 | _ = input[_].contents.apiVersion]) == count(input)
}

_has_kind_and_api_version(doc) if {
	_ = doc.kind # whatever its value (false too)
	_ = doc.apiVersion
}

_documents_files := {i | input[i].contents.gpufleet_pool_documents.version == 1}

# [path, object] of every Kubernetes object of the input, a List's items as objects of their own.
objects := [[path, o] |
	some [path, doc, "manifests"] in classified
	some o in _objects_of(doc)
]

# The objects of a document of Kubernetes objects: most often the one object it is (decided by one
# comparison: a document of manifests that has a kind is an object), else a List's items or the
# objects of an array (and of the Lists in it).
_objects_of(doc) := [doc] if {
	doc.kind != "List"
} else := [o | some item in doc; some o in _list_items(item)] if {
	is_array(doc)
} else := _list_items(doc)

_list_items(o) := [i | some i in o.items; kube_object(i)] if {
	o.kind == "List"
	is_array(o.items)
} else := [o] if kube_object(o)

else := []

# [path, why] of every input document that is not a plan nor a documents file nor Kubernetes
# objects: each is one GF-INPUT-001 failure. An empty YAML document (null from a .yaml or .yml file,
# or from standard input, where conftest gives YAML streams) is not judged.
not_judged := [[path, why] |
	some [path, doc, "other"] in classified
	not _empty_yaml(path, doc)
	why := why_not(doc)
]

_empty_yaml(path, null) if regex.match(`(\.ya?ml|^-)$`, path)

# Why a document is not the JSON of a Terraform plan of a format this bundle knows (1.x), nor a
# documents file of the version it reads; undefined for either. gpufleet-policy documents refuses
# the same inputs with the same words (internal/plandoc's Read, TestRead_sameAsTheBundle).
why_not(doc) := sprintf("the input is a JSON %s, not the JSON object of a Terraform plan", [type_name(doc)]) if {
	not is_object(doc)
} else := why if {
	not is_object(object.get(doc, "gpufleet_pool_documents", null))
	why := _not_a_plan(doc)
} else := sprintf("the pool documents were written by a gpufleet-policy whose documents (version %v) this bundle does not read (version 1); write them with the gpufleet-policy of the bundle's release, or run conftest on the plan's JSON itself", [doc.gpufleet_pool_documents.version]) if {
	not documents_file(doc)
}

_not_a_plan(doc) := "the input is Terraform state (terraform show -json without a plan file), not a plan" if {
	is_object(doc.values)
} else := "the input has no format_version: it is not the JSON of a Terraform plan" if {
	not is_string(object.get(doc, "format_version", null))
} else := sprintf("the plan's format_version %q is not one this bundle knows (1.x)", [doc.format_version]) if {
	not startswith(doc.format_version, "1.")
} else := "the input has no planned_values or resource_changes: it is not the JSON of a Terraform plan" if {
	not is_object(object.get(doc, "planned_values", null))
	not is_array(object.get(doc, "resource_changes", null))
}

# A finding of one file of a combined input: its message names the file after the rule id
# ("<rule>: <path>: <address>: …"), and "file" holds it. GF-DATA-001, about the policy data rather
# than a file, is said once for the whole run.
in_file(f, path) := f if {
	f.rule == "GF-DATA-001"
} else := object.union(f, {
	"msg": concat("", [f.rule, ": ", path, ": ", trim_prefix(f.msg, concat("", [f.rule, ": "]))]),
	"file": path,
})
