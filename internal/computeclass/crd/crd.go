// Package crd holds the ComputeClass (cloud.google.com/v1) CustomResourceDefinition that gpufleet
// wrote, since Google publishes none: from the schema dumped from live GKE clusters in
// datreeio/CRDs-catalog (two GKE generations compared) and Google's ComputeClass reference, each
// field marked with its sources in computeclasses.cloud.google.com.yaml, plus the reference's
// prose rules as CEL where they can be. The provider validates rendered ComputeClasses against it
// at plan time, in process; the tests' API server serves it.
package crd

import _ "embed"

// YAML is the CRD manifest.
//
//go:embed computeclasses.cloud.google.com.yaml
var YAML []byte

// The ComputeClass API.
const (
	Group    = "cloud.google.com"
	Version  = "v1"
	Kind     = "ComputeClass"
	Resource = "computeclasses"
	Name     = Resource + "." + Group // the CRD's name
)
