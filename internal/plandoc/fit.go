package plandoc

import (
	"math"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// documentFit is the fit a documents file carries in a pool document (its "fit" member): lib.doc_fit
// of the document, computed with catalog.FitWorkload (the function lib.fit mirrors, TestFitParity)
// at the catalog's default memory headroom, which it names; for a pool that fits, only that it fits
// and the headroom (what the rules read). GF-RS-001, GF-RS-004 and GF-RS-007 read it instead of
// computing the fit in Rego, and OPA's rule index passes over a pool that fits ("fits": true)
// without entering their bodies: on a plan's documents GF-RS-001 and GF-RS-007 were about a
// quarter of the evaluation. The rules compute the fit themselves when a document has none;
// documents.pools drops the fits when the policy data sets another headroom.
//
// false when lib.doc_fit is undefined (an unknown model, GPU count, slice memory or memory need),
// and wherever Go's arithmetic could part from OPA's (a GPU count, replica count or time-sharing
// replica count that is not a whole number, a negative memory need, a precision the catalog does
// not name): the document then carries no fit and the rules compute it, as they always did.
func documentFit(doc map[string]any) (map[string]any, bool) {
	cloud, _ := doc["cloud"].(string)
	gpuDoc, _ := doc["gpu"].(map[string]any)
	work, _ := doc["workload"].(map[string]any)
	if (cloud != "aws" && cloud != "gcp") || gpuDoc == nil || work == nil {
		return nil, false
	}
	model, ok := gpuDoc["model"].(string)
	if !ok {
		return nil, false
	}
	if _, known := catalogAt("gpus", model); !known { // exactly as the bundle's catalog names it
		return nil, false
	}
	g, ok := catalog.GPU(model)
	if !ok {
		return nil, false
	}
	perNode, ok := wholeNumber(gpuDoc["per_node"], 1)
	if !ok {
		return nil, false
	}
	unit, ok := gpuDoc["slice_memory_gib"].(float64)
	if !ok {
		return nil, false
	}
	need, ok := work["gpu_memory_gib"].(float64)
	if !ok || need < 0 {
		return nil, false
	}
	shape := catalog.FitShape{Cloud: catalog.Cloud(cloud), GPU: g, GPUs: perNode, UnitGiB: unit, UnitsPerGPU: 1}
	sharing, shared := gpuDoc["sharing"].(map[string]any)
	if _, isNumber := sharing["replicas"].(float64); isNumber { // lib._doc_units
		if shape.UnitsPerGPU, ok = wholeNumber(sharing["replicas"], 1); !ok {
			return nil, false
		}
	} else if p, isString := gpuDoc["mig_profile"].(string); isString {
		if n, found := catalogAt("gpus", model, "mig_profiles", p, "max_instances"); found {
			if shape.UnitsPerGPU, ok = wholeNumber(n, 1); !ok {
				return nil, false
			}
		}
	}
	shape.Shared = shared
	shape.Partitioned = shared || gpuDoc["mig_profile"] != nil || gpuDoc["mig_config"] != nil
	// lib.doc_node: a node type the catalog does not know puts no limit (its inter-node network is
	// taken as there, "unknown", so that no replica over nodes fails on it).
	shape.NodeMemoryGiB, shape.VCPUs, shape.InterNode = 1e9, 1e9, "unknown"
	if n, found := documentNode(cloud, doc["instance_types"]); found {
		memory, mok := n["memory_gib"].(float64)
		vcpus, vok := wholeNumber(n["vcpu"], 0)
		if !mok || !vok {
			return nil, false
		}
		shape.NodeMemoryGiB, shape.VCPUs = memory, vcpus
		shape.InterNode, _ = n["internode"].(string)
		if !sameInterNode(cloud, doc["instance_types"], shape.InterNode) { // lib._doc_internode
			shape.InterNode = ""
		}
		if perNode >= 2 {
			shape.Interconnect, _ = n["interconnect"].(string)
		}
	} else if perNode >= 2 {
		shape.Interconnect = modelInterconnect(cloud, model, perNode) // lib._doc_interconnect
	}
	d := catalog.FitDemand{NeedGiB: need, HeadroomPercent: catalog.DefaultMemoryHeadroomPercent}
	var strs bool
	if d.Kind, strs = stringOrEmpty(work["kind"]); !strs {
		return nil, false
	}
	if d.Environment, strs = stringOrEmpty(work["environment"]); !strs {
		return nil, false
	}
	if p, isString := work["precision"].(string); isString {
		if _, known := catalog.MinComputeCapability[p]; !known {
			return nil, false
		}
		d.Precision = p
	}
	if kv, isNumber := work["kv_cache_gib"].(float64); isNumber { // fit._fit_kv_gib
		d.KVCacheGiB = kv
	}
	for field, into := range map[string]*int{"gpus_per_replica": &d.GPUsPerReplica, "replicas": &d.Replicas} {
		if _, isNumber := work[field].(float64); isNumber {
			if *into, ok = wholeNumber(work[field], 0); !ok {
				return nil, false
			}
		}
	}
	f := catalog.FitWorkload(shape, d)
	if f.Fits() { // all the rules read of a fit without a problem (a tenth of the file's size less)
		return map[string]any{"fits": true, "headroom_percent": d.HeadroomPercent}, true
	}
	problems := make([]any, 0, len(f.Problems))
	for _, c := range f.Constraints() {
		problems = append(problems, c)
	}
	return map[string]any{
		"fits":              false,
		"headroom_percent":  d.HeadroomPercent,
		"gpus_per_replica":  float64(f.GPUsPerReplica),
		"nodes_per_replica": float64(f.NodesPerReplica),
		"replicas_per_node": float64(f.ReplicasPerNode),
		"usable_gib":        f.UsableGiB,
		"host_need_gib":     f.HostNeedGiB,
		"nodes":             float64(f.Nodes),
		"problems":          problems,
	}, true
}

// sameInterNode reports whether every node type of a document that the catalog knows has the
// inter-node GPU network internode (lib._doc_internode): a Karpenter NodePool or a ComputeClass that
// admits a shape without it, or with another, can put a replica's nodes there.
func sameInterNode(cloud string, types any, internode string) bool {
	list, _ := types.([]any)
	for _, t := range list {
		name, ok := t.(string)
		if !ok {
			continue
		}
		n, found := catalogAt(nodeTable(cloud), name)
		if !found {
			continue
		}
		m, _ := n.(map[string]any)
		if got, _ := m["internode"].(string); got != internode {
			return false
		}
	}
	return true
}

// modelInterconnect is lib._model_interconnect: the GPU link of every catalog node type of the
// cloud with gpus GPUs of model, when they all have the same one; "" (none: PCIe) otherwise. What a
// node the catalog does not name has (a ComputeClass priority of a machine family and a GPU).
func modelInterconnect(cloud, model string, gpus int) string {
	nodes, _ := catalogAt(nodeTable(cloud))
	links := map[any]bool{}
	for _, n := range obj(nodes) {
		m, _ := n.(map[string]any)
		if m["gpu_model"] != model || m["gpu_count"] != float64(gpus) {
			continue
		}
		links[m["interconnect"]] = true
	}
	if len(links) != 1 {
		return ""
	}
	for link := range links {
		s, _ := link.(string)
		return s
	}
	return ""
}

// nodeTable is the catalog table of a cloud's node types (lib._catalog_node, lib._catalog_nodes).
func nodeTable(cloud string) string {
	if cloud == "gcp" {
		return "gke_machine_types"
	}
	return "aws_instance_types"
}

// documentNode is lib.doc_node's catalog entry for the document's first instance or machine type.
func documentNode(cloud string, types any) (map[string]any, bool) {
	name, ok := at(types, 0)
	if !ok {
		return nil, false
	}
	s, ok := name.(string)
	if !ok {
		return nil, false
	}
	n, ok := catalogAt(nodeTable(cloud), s)
	if !ok {
		return nil, false
	}
	m, ok := n.(map[string]any)
	return m, ok
}

// wholeNumber is v as an int when it is a whole number of at least least.
func wholeNumber(v any, least int) (int, bool) {
	x, ok := v.(float64)
	if !ok || x != math.Trunc(x) || x < float64(least) || x > 1e9 {
		return 0, false
	}
	return int(x), true
}

// stringOrEmpty is a string as it is and null as "" (FitDemand's unknown); false for anything else.
func stringOrEmpty(v any) (string, bool) {
	if v == nil {
		return "", true
	}
	s, ok := v.(string)
	return s, ok
}
