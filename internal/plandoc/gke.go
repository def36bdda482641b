package plandoc

import (
	"fmt"
	"regexp"
	"strings"

	json "github.com/segmentio/encoding/json"
)

// gke is documents.build("google_container_node_pool", rc) (documents_gke.rego): a
// google_container_node_pool with an NVIDIA accelerator, or a machine type with fixed GPUs.
func (p *Plan) gke(rc *resourceChange, c change) (map[string]any, bool) {
	a, ok := rc.planned(c)
	if !ok {
		return nil, false
	}
	u := c.unknownOr()
	nc, isObj := get(a, map[string]any{}, "node_config", 0).(map[string]any)
	if !isObj || !isObject(u) {
		return nil, false // as in Rego, where object.get on a non-object is undefined
	}
	location := get(a, nil, "location")
	acc := obj(get(nc, nil, "guest_accelerator", 0))
	machineType := get(nc, nil, "machine_type")
	model, ok := gkeModel(acc, machineType)
	if !ok {
		return nil, false
	}
	perNode := gkeGPUs(acc, machineType)
	ncu := get(u, map[string]any{}, "node_config", 0)
	labels := gkeMap(nc, ncu, "labels")
	workload := conventionWorkload(labels)
	tags := gkeMap(nc, ncu, "resource_labels")
	var region any
	if l, ok := location.(string); ok {
		region = gcpRegion(l)
	}
	zones := p.gkeZones(a, u, location)
	zoneCount := gkeZoneCount(zones, location)
	scaling := gkeScaling(a, zoneCount)
	pct := 0.0
	if v, ok := at(nc, "spot"); ok && v == true {
		pct = 100
	} else if v, ok := at(nc, "preemptible"); ok && v == true {
		pct = 100
	}
	sides := allOrNothingSides(scaling, pct)
	price, _ := nodePriceGCP(machineType, model, perNode, region)
	assumptions := []any{}
	if zoneCount == float64(assumedZones) && len(arr(zones)) == 0 {
		assumptions = []any{fmt.Sprintf("the node counts per zone x %d zones: the pool's zones are not in the plan (nor its cluster's), and GKE spreads a regional pool over %d zones by default", assumedZones, assumedZones)}
	}
	var shapes any
	if mt, ok := machineType.(string); ok {
		shapes = []any{mt}
	}
	return map[string]any{
		"address":        rc.Address,
		"resource_type":  rc.Type,
		"cloud":          "gcp",
		"region":         region,
		"zones":          zones,
		"assumptions":    assumptions,
		"name":           get(a, nil, "name"),
		"labels":         labels,
		"tags":           tags,
		"client":         conventionClient(labels, tags),
		"workload":       workload,
		"unread_labels":  conventionUnread(labels),
		"waivers":        conventionWaivers(tags),
		"taints":         gkeTaints(a, u),
		"instance_types": shapes,
		"gpu":            gkeGPU(acc, model, perNode, u),
		"scaling":        scaling,
		"capacity": map[string]any{
			"spot_percentage": pct,
			"on_demand_base":  0.0,
			"reservation":     gkeReservation(get(nc, nil, "reservation_affinity", 0)),
			"on_demand":       sides[0],
			"spot":            sides[1],
		},
		"cost": sidesCost(price, sides[0], sides[1]),
	}, true
}

// assumedZones is documents._assumed_zones: GKE's default zone count for a regional pool.
const assumedZones = 3

// gkeMap is documents._gke_map: a map of node_config; {} when null, null while unknown.
func gkeMap(nc, ncu any, key string) any {
	v, ok := at(nc, key)
	if m, isMap := v.(map[string]any); ok && isMap {
		return m
	}
	if ok && v == nil {
		return map[string]any{}
	}
	if m, isMap := nc.(map[string]any); isMap && len(m) == 0 {
		return nil
	}
	if x, ok := at(ncu, key); ok && x == true {
		return nil
	}
	return map[string]any{}
}

// gkeModel is documents._gke_model; false when the pool has no GPU.
func gkeModel(acc map[string]any, machineType any) (any, bool) {
	if t, ok := acc["type"].(string); ok {
		if m, ok := catalogAt("gke_accelerators", t, "gpu_model"); ok {
			return m, true
		}
	}
	if mt, ok := machineType.(string); ok {
		if m, ok := catalogAt("gke_machine_types", mt, "gpu_model"); ok && isString(m) {
			return m, true
		}
	}
	if t, ok := acc["type"].(string); ok && strings.HasPrefix(t, "nvidia-") {
		if n, ok := acc["count"].(float64); ok && n > 0 {
			return nil, true
		}
	}
	if mt, ok := machineType.(string); ok && acceleratorOptimised.MatchString(mt) {
		return nil, true
	}
	return nil, false
}

// acceleratorOptimised are GKE's accelerator-optimised machine families (a2, a3, a4, a4x, g2, g4),
// whose machine types come with GPUs attached (not g1, the legacy shared-core family).
var acceleratorOptimised = regexp.MustCompile(`^(a[0-9]+x?|g[2-9])-`)

// gkeGPUs is documents._gke_gpus: GPUs per node.
func gkeGPUs(acc map[string]any, machineType any) any {
	if n, ok := acc["count"].(float64); ok && n > 0 {
		return n
	}
	if mt, ok := machineType.(string); ok {
		if n, ok := catalogAt("gke_machine_types", mt, "gpu_count"); ok && isNumber(n) && n.(float64) > 0 {
			return n
		}
	}
	return nil
}

// gkePartition is documents._gke_partition.
func gkePartition(acc map[string]any) any {
	if p, ok := acc["gpu_partition_size"].(string); ok && p != "" {
		return p
	}
	return nil
}

var gkeStrategies = map[string]string{"TIME_SHARING": "time-slicing", "MPS": "mps"}

// gkeSharing is documents._gke_sharing.
func gkeSharing(acc map[string]any) any {
	c, ok := at(acc, "gpu_sharing_config", 0)
	if !ok {
		return nil
	}
	s, _ := get(c, nil, "gpu_sharing_strategy").(string)
	strategy, ok := gkeStrategies[s]
	if !ok {
		return nil
	}
	return map[string]any{"strategy": strategy, "replicas": num(get(c, nil, "max_shared_clients_per_gpu"))}
}

// gkeGPU is documents._gke_gpu.
func gkeGPU(acc map[string]any, model, perNode any, u any) map[string]any {
	g := gpuDocument(model, perNode)
	sharing, hasSharing := at(acc, "gpu_sharing_config", 0)
	partitionUnknown, hasUnknown := at(u, "node_config", 0, "guest_accelerator", 0, "gpu_partition_size")
	if gkePartition(acc) == nil && !truthy(sharing, hasSharing) && !truthy(partitionUnknown, hasUnknown) {
		return g
	}
	profile := gkePartition(acc)
	g["mig_profile"] = profile
	g["slice_memory_gib"] = sliceMemory(model, profile, nil, hasUnknown && partitionUnknown == true)
	g["sharing"] = gkeSharing(acc)
	return g
}

// gkeReservation is documents._gke_reservation: reservation_affinity as a reservation.
func gkeReservation(r any) any {
	switch get(r, nil, "consume_reservation_type") {
	case "SPECIFIC_RESERVATION":
		values, _ := at(r, "values")
		var value any
		if list, ok := values.([]any); ok && len(list) > 0 {
			value = list[0]
		}
		if v, ok := value.(string); ok {
			parts := strings.Split(v, "/")
			var project any
			if len(parts) >= 4 && parts[0] == "projects" {
				project = parts[1]
			}
			return map[string]any{"type": "specific", "id": nil, "name": parts[len(parts)-1], "project": project}
		}
		return nil
	case "ANY_RESERVATION":
		return map[string]any{"type": "any", "id": nil, "name": nil, "project": nil}
	}
	return nil
}

// gcpRegion is lib.gcp_region: the region of a zone, or the location itself.
func gcpRegion(location string) string {
	if parts := strings.Split(location, "-"); len(parts) == 3 {
		return parts[0] + "-" + parts[1]
	}
	return location
}

func gcpIsZone(location string) bool { return len(strings.Split(location, "-")) == 3 }

// gkeZones is documents._gke_zones.
func (p *Plan) gkeZones(a map[string]any, u any, location any) any {
	if z, ok := a["node_locations"].([]any); ok && len(z) > 0 {
		return z
	}
	if l, ok := location.(string); ok && gcpIsZone(l) {
		return []any{l}
	}
	if z, ok := p.gkeClusterZones(a); ok {
		return z
	}
	if unknown(u, "node_locations") {
		return nil
	}
	return []any{}
}

// gkeClusterZones is documents._gke_cluster_zones: the node_locations of the pool's
// google_container_cluster in the plan, of the pool's location and project; none when the
// clusters that match disagree.
func (p *Plan) gkeClusterZones(a map[string]any) (any, bool) {
	cluster, ok := a["cluster"].(string)
	if !ok {
		return nil, false
	}
	parts := strings.Split(cluster, "/")
	location := gkeClusterPart(parts, "locations", get(a, nil, "location"))
	project := gkeClusterPart(parts, "projects", get(a, nil, "project"))
	var zones any
	seen := ""
	for _, c := range p.gkeClustersByName()[parts[len(parts)-1]] {
		if !gkeSame(get(c, nil, "location"), location) || !gkeSame(get(c, nil, "project"), project) {
			continue
		}
		z, ok := at(c, "node_locations")
		if n, isCountable := count(z); !ok || !isCountable || n == 0 {
			continue
		}
		key, _ := json.Marshal(z)
		if zones != nil && string(key) != seen {
			return nil, false
		}
		zones, seen = z, string(key)
	}
	return zones, zones != nil
}

// gkeClusterPart is documents._gke_cluster_part.
func gkeClusterPart(parts []string, key string, own any) any {
	i := map[string]int{"projects": 0, "locations": 2}[key]
	if len(parts) == 6 && parts[i] == key {
		return parts[i+1]
	}
	return own
}

// gkeSame is documents._gke_same: equal, or either not known.
func gkeSame(x, y any) bool {
	if !isString(x) || !isString(y) {
		return true
	}
	return x == y
}

// gkeClustersByName is documents._gke_clusters: the planned google_container_cluster objects by
// name, in the plan's order.
func (p *Plan) gkeClustersByName() map[string][]any {
	if p.gkeClusters == nil {
		p.gkeClusters = map[string][]any{}
		for i := range p.changes {
			rc := &p.changes[i]
			if rc.Type != "google_container_cluster" {
				continue
			}
			if c, ok := rc.decodeChange(); ok {
				if name, ok := get(c.after, nil, "name").(string); ok {
					p.gkeClusters[name] = append(p.gkeClusters[name], c.after)
				}
			}
		}
	}
	return p.gkeClusters
}

// gkeZoneCount is documents._zone_count: what per-zone node counts multiply by.
func gkeZoneCount(zones, location any) any {
	if z, ok := zones.([]any); ok && len(z) > 0 {
		return float64(len(z))
	}
	if l, ok := location.(string); ok && !gcpIsZone(l) {
		return float64(assumedZones)
	}
	return nil
}

// gkeScaling is documents._gke_scaling: sizes of the whole pool.
func gkeScaling(a map[string]any, zoneCount any) map[string]any {
	if auto, ok := at(a, "autoscaling", 0); ok && isObject(auto) {
		var limits [2]any
		if total, ok := at(auto, "total_max_node_count"); ok && isNumber(total) && total.(float64) > 0 {
			limits = [2]any{coalesce(num(get(auto, nil, "total_min_node_count")), 0.0), total}
		} else {
			limits = [2]any{perZone(get(auto, nil, "min_node_count"), zoneCount), perZone(get(auto, nil, "max_node_count"), zoneCount)}
		}
		desired := perZone(gkeNodeCount(a), zoneCount)
		if desired == nil {
			desired = limits[0]
		}
		return sizes(limits[0], limits[1], desired)
	}
	n := perZone(gkeNodeCount(a), zoneCount)
	return sizes(n, n, n)
}

func gkeNodeCount(a map[string]any) any {
	return coalesce(num(get(a, nil, "node_count")), num(get(a, nil, "initial_node_count")))
}

func perZone(n, zoneCount any) any {
	if isNumber(n) && isNumber(zoneCount) {
		return n.(float64) * zoneCount.(float64)
	}
	return nil
}

// sizes is documents.sizes.
func sizes(mn, mx, d any) map[string]any {
	return map[string]any{"min_size": num(mn), "max_size": num(mx), "desired_size": num(d)}
}

// gkeTaints is documents._gke_taints: the configured taints plus GKE's effective_taints.
func gkeTaints(a map[string]any, u any) any {
	if unknown(u, "node_config", 0, "taint") {
		return nil
	}
	ts, ok := at(a, "node_config", 0, "taint")
	effective, hasEffective := at(a, "node_config", 0, "effective_taints")
	if ok && !truthy(effective, hasEffective) && taintsAsWritten(ts) {
		return ts
	}
	return taintSet(append(append([]any{}, arr(get(a, nil, "node_config", 0, "taint"))...), arr(get(a, nil, "node_config", 0, "effective_taints"))...))
}
