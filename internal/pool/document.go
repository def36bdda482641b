package pool

import (
	"maps"
	"slices"
)

// Document builds the policy document of the pool (DESIGN.md §4, policies/README.md): the same shape
// policies/gpufleet/documents.rego builds from plan JSON. d is nil when the derived values are not
// known yet; every value that is unknown is null, so no rule fires on it.
func Document(address string, s Spec, d *Derived) map[string]any {
	known := func(steps ...any) bool { return s.Known(P(steps...)) }
	val := func(ok bool, v any) any {
		if !ok {
			return nil
		}
		return v
	}
	derived := d != nil

	doc := map[string]any{
		"address":        address,
		"resource_type":  s.ResourceType,
		"cloud":          string(s.Cloud),
		"region":         val(known("region") && s.Region != "", s.Region),
		"zones":          val(known("zones") && s.Zones != nil, stringsAny(s.Zones)),
		"name":           val(known("name"), s.Name),
		"client":         val(known("client"), s.Client),
		"workload":       workloadDoc(s, known),
		"gpu":            gpuDoc(s, d),
		"instance_types": nil,
		"scaling": map[string]any{
			"min_size":     val(known("scaling", "min_size"), s.Scaling.Min),
			"max_size":     val(known("scaling", "max_size"), s.Scaling.Max),
			"desired_size": val(known("scaling", "desired_size"), s.Scaling.Desired),
		},
		"capacity": capacityDoc(s, known),
		"taints":   nil,
		"labels":   nil,
		"tags":     nil,
		"cost":     map[string]any{"hourly_usd": nil, "monthly_usd": nil},
		"waivers":  map[string]any{},
	}
	switch {
	case s.MachineType != "" && known("machine_type"):
		doc["instance_types"] = []any{s.MachineType}
	case s.InstanceTypes != nil && known("instance_types"):
		doc["instance_types"] = stringsAny(s.InstanceTypes)
	}
	if derived {
		taints := make([]any, len(d.Taints))
		for i, t := range d.Taints {
			taints[i] = map[string]any{"key": t.Key, "value": t.Value, "effect": t.Effect}
		}
		doc["taints"] = taints
		doc["labels"] = stringMapAny(d.Labels)
		doc["tags"] = stringMapAny(d.Tags)
		if d.PriceErr == nil && !d.CostUnknown {
			doc["cost"] = map[string]any{"hourly_usd": d.HourlyUSD, "monthly_usd": d.MonthlyUSD}
		}
	}
	if known("policy_waivers") {
		doc["waivers"] = stringMapAny(s.Waivers)
	}
	return doc
}

func workloadDoc(s Spec, known func(...any) bool) map[string]any {
	w := s.Workload
	out := map[string]any{"kind": nil, "environment": nil, "gpu_memory_gib": nil, "interruptible": nil,
		"precision": nil, "gpus_per_replica": nil, "replicas": nil, "kv_cache_gib": nil}
	if known("workload", "kind") {
		out["kind"] = w.Kind
	}
	if known("workload", "environment") {
		out["environment"] = w.Environment
	}
	if known("workload", "gpu_memory_gib") {
		out["gpu_memory_gib"] = w.GPUMemoryGiB
	}
	if known("workload", "interruptible") {
		out["interruptible"] = w.Interruptible
	}
	if known("workload", "precision") && w.Precision != "" {
		out["precision"] = w.Precision
	}
	if known("workload", "gpus_per_replica") && w.GPUsPerReplica != 0 {
		out["gpus_per_replica"] = w.GPUsPerReplica
	}
	if known("workload", "replicas") && w.Replicas != 0 {
		out["replicas"] = w.Replicas
	}
	if known("workload", "kv_cache_gib") && w.KVCacheGiB != 0 {
		out["kv_cache_gib"] = w.KVCacheGiB
	}
	return out
}

func gpuDoc(s Spec, d *Derived) map[string]any {
	out := map[string]any{
		"model": nil, "class": nil, "memory_gib": nil, "per_node": nil,
		"mig_profile": nil, "mig_config": nil, "slice_memory_gib": nil, "sharing": nil,
	}
	known := s.Known(P("gpu"))
	if m := s.GPU.MIG; m != nil && known {
		if m.Profile != "" {
			out["mig_profile"] = m.Profile
		}
		if m.Config != "" {
			out["mig_config"] = m.Config
		}
	}
	if sh := s.GPU.Sharing; sh != nil && known {
		out["sharing"] = map[string]any{"strategy": sh.Strategy, "replicas": sh.Replicas}
	}
	if d != nil {
		out["model"] = d.GPU.Name
		out["class"] = string(d.GPU.Class)
		out["memory_gib"] = d.GPU.MemoryGiB
		out["per_node"] = d.Node.GPUCount
		out["slice_memory_gib"] = d.SliceMemoryGiB
	}
	return out
}

func capacityDoc(s Spec, known func(...any) bool) map[string]any {
	c := s.Capacity
	out := map[string]any{"spot_percentage": nil, "on_demand_base": nil, "reservation": nil, "on_demand": nil, "spot": nil}
	if known("capacity", "spot_percentage") {
		out["spot_percentage"] = c.SpotPercentage
	}
	if known("capacity", "on_demand_base") {
		out["on_demand_base"] = c.OnDemandBase
	}
	if r := c.Reservation; r != nil && known("capacity", "reservation") {
		out["reservation"] = map[string]any{"type": r.Type, "id": emptyNil(r.ID), "name": emptyNil(r.Name), "project": emptyNil(r.Project)}
	}
	if known("scaling") && known("capacity", "spot_percentage") && known("capacity", "on_demand_base") {
		od, spot := SplitSizes(s.Scaling, c.OnDemandBase, c.SpotPercentage)
		out["on_demand"] = sizesDoc(od)
		out["spot"] = sizesDoc(spot)
	}
	return out
}

func sizesDoc(s Sizes) map[string]any {
	return map[string]any{"min": s.Min, "max": s.Max, "desired": s.Desired}
}

func emptyNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func stringsAny(in []string) []any {
	out := make([]any, len(in))
	for i, v := range slices.Clone(in) {
		out[i] = v
	}
	return out
}

func stringMapAny(in map[string]string) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range maps.All(in) {
		out[k] = v
	}
	return out
}
