package plandoc

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

// The bundle's data.gpufleet.catalog, read once: the tables the Rego builders look prices and GPUs
// up in, with the same rounded values.
var policyCatalog = sync.OnceValue(func() map[string]any {
	tree, err := catalog.PolicyData()
	if err != nil {
		panic("plandoc: the catalog does not encode: " + err.Error()) // a bug in internal/catalog
	}
	return tree
})

func catalogAt(path ...any) (any, bool) { return at(policyCatalog(), path...) }

// gpuDocument is lib.gpu_document: the gpu part of a document for a whole GPU of the catalog,
// without MIG or sharing; nulls for a model the catalog does not know.
func gpuDocument(model, perNode any) map[string]any {
	var class, memory any
	if name, ok := model.(string); ok {
		if g, ok := catalogAt("gpus", name); ok {
			class, _ = at(g, "class")
			memory, _ = at(g, "memory_gib")
		}
	}
	return map[string]any{
		"model": model, "class": class, "memory_gib": memory, "per_node": perNode,
		"mig_profile": nil, "mig_config": nil, "slice_memory_gib": memory, "sharing": nil,
	}
}

// sliceMemory is lib.slice_memory.
func sliceMemory(model, profile, config any, migUnknown bool) any {
	name, _ := model.(string)
	if profile == nil && config == nil && !migUnknown {
		if m, ok := catalogAt("gpus", name, "memory_gib"); ok && isString(model) {
			return m
		}
	}
	if migUnknown {
		return nil
	}
	if p, ok := profile.(string); ok {
		if m, ok := catalogAt("gpus", name, "mig_profiles", p, "memory_gib"); ok && isString(model) {
			return m
		}
	}
	if config == "all-balanced" && isString(model) {
		if g, ok := catalogAt("gpus", name); ok {
			var smallest any
			for _, p := range arr(get(g, nil, "balanced_mig")) {
				ps, _ := p.(string)
				m, ok := at(g, "mig_profiles", ps, "memory_gib")
				if !ok {
					continue
				}
				if smallest == nil || less(m, smallest) {
					smallest = m
				}
			}
			if smallest != nil {
				return smallest
			}
		}
	}
	if c, ok := config.(string); ok && strings.HasPrefix(c, "all-") && isString(model) {
		if m, ok := catalogAt("gpus", name, "mig_profiles", c[len("all-"):], "memory_gib"); ok {
			return m
		}
	}
	return nil
}

func less(a, b any) bool {
	x, _ := a.(float64)
	y, _ := b.(float64)
	return x < y
}

// spotSplit is lib.spot_split: the on-demand and spot sides of min, max and desired sizes.
func spotSplit(scaling map[string]any, base, pct any) map[string]any {
	mn, mx, d := scaling["min_size"], scaling["max_size"], scaling["desired_size"]
	if pct == 0.0 && isNumber(base) && isNumber(mn) && isNumber(mx) && isNumber(d) {
		return map[string]any{"on_demand": side(mn, mx, d), "spot": noSide()}
	}
	if isNumber(mn) && isNumber(mx) && isNumber(d) && isNumber(base) && isNumber(pct) {
		b, p := base.(float64), pct.(float64)
		spot := func(size any) float64 { return math.Floor(math.Max(size.(float64)-b, 0) * p / 100) }
		sMin, sMax, sD := spot(mn), spot(mx), spot(d)
		return map[string]any{
			"on_demand": side(mn.(float64)-sMin, mx.(float64)-sMax, d.(float64)-sD),
			"spot":      side(sMin, sMax, sD),
		}
	}
	return map[string]any{"on_demand": nil, "spot": nil}
}

func side(mn, mx, d any) map[string]any { return map[string]any{"min": mn, "max": mx, "desired": d} }

func noSide() map[string]any { return side(0.0, 0.0, 0.0) }

// allOrNothingSides is lib.all_or_nothing_sides: [on_demand, spot] of a pool whose nodes are all
// on-demand (pct 0) or all spot (100).
func allOrNothingSides(scaling map[string]any, pct any) [2]any {
	known := isNumber(scaling["min_size"]) && isNumber(scaling["max_size"]) && isNumber(scaling["desired_size"])
	switch {
	case pct == 0.0 && known:
		return [2]any{side(scaling["min_size"], scaling["max_size"], scaling["desired_size"]), noSide()}
	case pct == 100.0 && known:
		return [2]any{noSide(), side(scaling["min_size"], scaling["max_size"], scaling["desired_size"])}
	}
	s := spotSplit(scaling, 0.0, pct)
	return [2]any{s["on_demand"], s["spot"]}
}

// sidesCost is lib.sides_cost: the pool's cost at desired size, both null when the price or a
// size is unknown.
func sidesCost(price any, onDemand, spot any) map[string]any {
	od, ok1 := at(onDemand, "desired")
	sp, ok2 := at(spot, "desired")
	odUSD, ok3 := at(price, "on_demand_usd")
	spUSD, ok4 := at(price, "spot_usd")
	hours, _ := catalogAt("hours_per_month")
	if ok1 && ok2 && ok3 && ok4 && isNumber(od) && isNumber(sp) && isNumber(odUSD) && isNumber(spUSD) && isNumber(hours) {
		hourly := od.(float64)*odUSD.(float64) + sp.(float64)*spUSD.(float64)
		return map[string]any{"hourly_usd": hourly, "monthly_usd": hourly * hours.(float64)}
	}
	return map[string]any{"hourly_usd": nil, "monthly_usd": nil}
}

// nodePriceGCP is lib.node_price("gcp", …): per-node {on_demand_usd, spot_usd}; n1 machine types add count x
// the accelerator's per-GPU price.
func nodePriceGCP(shape, model, perNode, region any) (any, bool) {
	s, _ := shape.(string)
	r, _ := region.(string)
	machine, ok := catalogAt("gke_machine_types", s)
	if !ok || !isString(shape) || !isString(region) {
		return nil, false
	}
	if c, _ := at(machine, "gpu_count"); isNumber(c) && c.(float64) > 0 {
		return at(machine, "prices", r)
	}
	if c, _ := at(machine, "gpu_count"); c != 0.0 || !isNumber(perNode) {
		return nil, false
	}
	m, ok := at(machine, "prices", r)
	if !ok {
		return nil, false
	}
	name, _ := model.(string)
	accelerator, ok := catalogAt("gpus", name, "gke_accelerator")
	if !ok || !isString(model) || !isString(accelerator) {
		return nil, false
	}
	a, ok := catalogAt("gke_accelerators", accelerator.(string), "prices", r)
	if !ok {
		return nil, false
	}
	n := perNode.(float64)
	return map[string]any{
		"on_demand_usd": get(m, nil, "on_demand_usd").(float64) + n*get(a, nil, "on_demand_usd").(float64),
		"spot_usd":      get(m, nil, "spot_usd").(float64) + n*get(a, nil, "spot_usd").(float64),
	}, true
}

// reservation is documents.reservation: {type, id, name, project} of a reservation block, or null.
func reservation(r any) any {
	t, _ := at(r, "type")
	if !isString(t) {
		return nil
	}
	return map[string]any{
		"type": t, "id": str(get(r, nil, "id")), "name": str(get(r, nil, "name")), "project": str(get(r, nil, "project")),
	}
}

// ---------------------------------------------------------------------------------------------
// Taints
// ---------------------------------------------------------------------------------------------

var canonicalEffects = map[string]bool{"NO_SCHEDULE": true, "NO_EXECUTE": true, "PREFER_NO_SCHEDULE": true}

var effects = map[string]string{
	"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE", "PreferNoSchedule": "PREFER_NO_SCHEDULE",
	"NO_SCHEDULE": "NO_SCHEDULE", "NO_EXECUTE": "NO_EXECUTE", "PREFER_NO_SCHEDULE": "PREFER_NO_SCHEDULE",
}

// effect is lib.effect.
func effect(e any) any {
	if s, ok := e.(string); ok {
		if v, ok := effects[s]; ok {
			return v
		}
		return strings.ToUpper(s)
	}
	return nil
}

// taint is lib.taint; false for a taint without a key (the Rego head is undefined).
func taint(t any) (map[string]any, bool) {
	key, ok := at(t, "key")
	if !ok {
		return nil, false
	}
	v := get(t, "", "value")
	if !isString(v) {
		v = ""
	}
	return map[string]any{"key": key, "value": v, "effect": effect(get(t, nil, "effect"))}, true
}

// taintsAsWritten is the every-loop of _eks_taints and _gke_taints: the taints as terraform wrote
// them, when every effect is one the rules read as it is and every value a string.
func taintsAsWritten(ts any) bool {
	list, ok := ts.([]any)
	if !ok {
		return false // every over null or an object is undefined in Rego
	}
	for _, t := range list {
		e, _ := at(t, "effect")
		v, _ := at(t, "value")
		if s, ok := e.(string); !ok || !canonicalEffects[s] || !isString(v) {
			return false
		}
	}
	return true
}

// normalisedTaints is lib.taints over a list.
func normalisedTaints(list []any) []any {
	out := []any{}
	for _, t := range list {
		if n, ok := taint(t); ok {
			out = append(out, n)
		}
	}
	return out
}

// taintSet is [t | some t in {lib.taint(x) | ...}]: normalised, without duplicates, in the order
// OPA iterates a set of taint objects (by effect, then key, then value).
func taintSet(list []any) []any {
	seen := map[string]bool{}
	out := []map[string]any{}
	for _, t := range list {
		n, ok := taint(t)
		if !ok {
			continue
		}
		k := fmtKey(n["effect"]) + "\x00" + fmtKey(n["key"]) + "\x00" + fmtKey(n["value"])
		if !seen[k] {
			seen[k] = true
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		for _, f := range []string{"effect", "key", "value"} {
			if c := compareValues(out[i][f], out[j][f]); c != 0 {
				return c < 0
			}
		}
		return false
	})
	res := make([]any, len(out))
	for i, t := range out {
		res[i] = t
	}
	return res
}

func fmtKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "n"
	case string:
		return "s" + x
	case float64:
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return "b" + strconv.FormatBool(x)
	}
	return "?"
}

// compareValues orders scalars as OPA does: null < booleans < numbers < strings.
func compareValues(a, b any) int {
	rank := func(v any) int {
		switch v.(type) {
		case nil:
			return 0
		case bool:
			return 1
		case float64:
			return 2
		case string:
			return 3
		}
		return 4
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	case float64:
		y := b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case string:
		return strings.Compare(x, b.(string))
	}
	return 0
}

// ---------------------------------------------------------------------------------------------
// Conventions: client, workload, waivers and MIG from labels and tags
// ---------------------------------------------------------------------------------------------

// tag is lib.tag: "gpufleet:<name>", or "gpufleet_<name>" where keys cannot hold ":".
func tag(tags any, name string) (any, bool) {
	if v, ok := at(tags, "gpufleet:"+name); ok {
		return v, true
	}
	return at(tags, "gpufleet_"+name)
}

// conventionClient is documents.convention_client.
func conventionClient(labels, tags any) any {
	if c, ok := at(labels, "gpufleet.io/client"); ok {
		return c
	}
	if t, ok := tag(tags, "client"); ok {
		return t
	}
	if labels == nil || tags == nil {
		return nil
	}
	return ""
}

// numericLabel is lib.num_label's number: no leading zero ("040"), which OPA's to_number keeps as a
// literal that is not a JSON number.
var numericLabel = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.[0-9]+)?$`)

// numLabel is lib.num_label.
func numLabel(v any) any {
	s, ok := v.(string)
	if !ok || !numericLabel.MatchString(s) {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil
	}
	return f
}

var wholeLabel = regexp.MustCompile(`^(0|[1-9][0-9]*)$`) // not "02", which OPA keeps as that literal

var memoryQuantity = regexp.MustCompile(`^([0-9]+(\.[0-9]+)?)(Ki|Mi|Gi|Ti|k|M|G|T)$`)

// quantityBytes is lib._quantity_bytes: bytes per unit of the Kubernetes quantity suffixes.
var quantityBytes = map[string]float64{
	"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40,
}

// memoryGiB is lib.memory_gib: a number of GiB, or a Kubernetes quantity of bytes in GiB (bytes /
// 2^30: "40G" is 40*10^9 bytes, 37.252902984619140625 GiB); false for anything else.
func memoryGiB(v any) (float64, bool) {
	if n, ok := numLabel(v).(float64); ok {
		return n, true
	}
	s, _ := v.(string)
	m := memoryQuantity.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	return n * quantityBytes[m[3]] / (1 << 30), true
}

// The gpufleet.io/* convention labels (documents.convention_keys), in the order GF-DATA-004 names
// them.
const (
	labelWorkload        = "gpufleet.io/workload"
	labelEnvironment     = "gpufleet.io/environment"
	labelGPUMemory       = "gpufleet.io/gpu-memory-gib"
	labelInterruptible   = "gpufleet.io/interruptible"
	labelPrecision       = "gpufleet.io/precision"
	labelModelParameters = "gpufleet.io/model-parameters-billion"
	labelTrainingMethod  = "gpufleet.io/training-method"
	labelGPUsPerReplica  = "gpufleet.io/gpus-per-replica"
	labelReplicas        = "gpufleet.io/replicas"
	labelKVCache         = "gpufleet.io/kv-cache-gib"
)

var conventionKeys = []string{labelWorkload, labelEnvironment, labelGPUMemory, labelInterruptible, labelPrecision,
	labelModelParameters, labelTrainingMethod, labelGPUsPerReplica, labelReplicas, labelKVCache}

var conventionNames = map[string]map[string]any{
	labelWorkload:       {"training": "training", "inference": "inference", "development": "development", "batch": "batch"},
	labelEnvironment:    {"production": "production", "staging": "staging", "development": "development"},
	labelInterruptible:  {"true": true, "false": false},
	labelTrainingMethod: {"full": "full", "lora": "lora", "qlora": "qlora"},
}

// labelValue is documents.label_value: a convention label's value as the rules read it (names in
// any case, memory as GiB or a Kubernetes quantity, counts as numbers); false when it cannot be
// read.
func labelValue(key string, v any) (any, bool) {
	switch key {
	case labelWorkload, labelEnvironment, labelInterruptible, labelTrainingMethod:
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		x, ok := conventionNames[key][strings.ToLower(s)]
		return x, ok
	case labelPrecision:
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		p := strings.ToLower(s)
		if c, ok := catalogAt("fit_model", "min_compute_capability", p); !ok || !truthy(c, ok) {
			return nil, false
		}
		return p, true
	case labelGPUMemory, labelKVCache:
		n, ok := memoryGiB(v)
		return n, ok
	case labelModelParameters:
		n := numLabel(v)
		return n, n != nil
	case labelGPUsPerReplica, labelReplicas: // documents._whole_label: counted, a whole number
		s, ok := v.(string)
		if !ok || !wholeLabel.MatchString(s) {
			return nil, false
		}
		return numLabel(s), true
	}
	return nil, false
}

// label is documents._label: the value of label key in l, nil when absent or unreadable.
func label(l map[string]any, key string) any {
	if v, ok := l[key]; ok {
		if x, ok := labelValue(key, v); ok {
			return x
		}
	}
	return nil
}

// conventionWorkload is documents.convention_workload.
func conventionWorkload(labels any) map[string]any {
	l, ok := labels.(map[string]any)
	if !ok {
		return map[string]any{"kind": nil, "environment": nil, "gpu_memory_gib": nil, "interruptible": nil,
			"precision": nil, "gpus_per_replica": nil, "replicas": nil, "kv_cache_gib": nil}
	}
	return map[string]any{
		"kind":           label(l, labelWorkload),
		"environment":    label(l, labelEnvironment),
		"gpu_memory_gib": conventionMemory(l),
		"interruptible":  label(l, labelInterruptible),
		// GF-RS-001/004/005 on official resources: the precision, the GPUs of one replica and
		// the replicas the pool holds.
		"precision":        label(l, labelPrecision),
		"gpus_per_replica": label(l, labelGPUsPerReplica),
		"replicas":         label(l, labelReplicas),
		"kv_cache_gib":     label(l, labelKVCache),
	}
}

// conventionUnread is documents.convention_unread: [label, value] of the convention labels whose
// value cannot be read, in conventionKeys' order (GF-DATA-004); [] while the labels are unknown.
func conventionUnread(labels any) []any {
	out := []any{}
	l, _ := labels.(map[string]any)
	for _, key := range conventionKeys {
		if v, ok := l[key]; ok {
			if x, ok := labelValue(key, v); !ok || x == nil {
				out = append(out, []any{key, v})
			}
		}
	}
	return out
}

var memoryKinds = map[string]string{"training": "training", "inference": "inference", "development": "inference", "batch": "inference"}

// conventionMemory is documents.convention_memory: the gpufleet.io/gpu-memory-gib label, else (when
// it is absent) the estimate from the model labels (lib.memory_required_gib, the formulas of
// catalog.GPUMemoryRequired), else null.
func conventionMemory(l map[string]any) any {
	if v, ok := l[labelGPUMemory]; ok {
		if m, ok := memoryGiB(v); ok {
			return m
		}
		return nil // present but unreadable: the need is not guessed from the model labels
	}
	params, _ := label(l, labelModelParameters).(float64)
	workload, _ := label(l, labelWorkload).(string)
	kind, okKind := memoryKinds[workload]
	precision, okPrecision := label(l, labelPrecision).(string)
	method := ""
	if _, ok := l[labelTrainingMethod]; ok {
		// lib.memory_required_gib takes a method only for training, and only one it reads.
		m, isStr := label(l, labelTrainingMethod).(string)
		if !isStr || kind != "training" {
			return nil
		}
		method = m
	}
	if params <= 0 || !okKind || !okPrecision {
		return nil
	}
	e, err := catalog.GPUMemoryRequired(catalog.MemoryDemand{ParametersBillion: params, Precision: precision, Kind: kind, Method: method})
	if err != nil {
		return nil
	}
	return e.GiB
}

// conventionWaivers is documents.convention_waivers: tags gpufleet-waive-<rule id> whose value is
// the reason; of tags whose ids differ only in case, the first in key order.
func conventionWaivers(tags any) map[string]any {
	out := map[string]any{}
	first := map[string]string{}
	for k, v := range obj(tags) {
		if id, ok := strings.CutPrefix(k, "gpufleet-waive-"); ok {
			id = strings.ToUpper(id)
			if f, seen := first[id]; !seen || k < f {
				first[id], out[id] = k, v
			}
		}
	}
	return out
}

// conventionMIGConfig is documents.convention_mig_config.
func conventionMIGConfig(labels map[string]any) any {
	if v, ok := labels["nvidia.com/mig.config"].(string); ok && v != "all-disabled" {
		return v
	}
	return nil
}

// unknown is whether the value at path, or a block containing it, is unknown (true in
// after_unknown): the lookups documents._gke_zones and documents._gke_taints make of their
// after_unknown arguments.
func unknown(u any, path ...any) bool {
	if _, ok := at(u, path[0]); !ok {
		return false
	}
	for i := 1; i <= len(path); i++ {
		if v, ok := at(u, path[:i]...); ok && v == true {
			return true
		}
	}
	return false
}
