// Package policies embeds the gpufleet Rego bundle, so that the provider evaluates exactly the files
// conftest runs from this directory.
package policies

import "embed"

// Bundle holds main.rego and the gpufleet/ tree (tests included; the engine skips _test.rego).
//
//go:embed main.rego gpufleet
var Bundle embed.FS
