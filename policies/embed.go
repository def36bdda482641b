// Package policies embeds the gpufleet Rego bundle, so that the provider evaluates exactly the files
// conftest runs from this directory, and the JSON Schema of the policy data it validates data files
// against.
package policies

import "embed"

// Bundle holds main.rego and the gpufleet/ tree (tests included; the engine skips _test.rego).
//
//go:embed main.rego gpufleet
var Bundle embed.FS

// DataSchema is policy-data.schema.json, the JSON Schema (draft 2020-12) of the policy data.
//
//go:embed policy-data.schema.json
var DataSchema []byte
