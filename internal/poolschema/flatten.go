package poolschema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Reading a pool back: the clouds hold the derived labels, taints and tags next to the user's, and
// these helpers separate the user's settings again, so that a refresh or an import round-trips.

// WorkloadFrom reads the workload block back from the node labels gpufleet wrote.
func WorkloadFrom(labels map[string]string, prior *WorkloadModel) *WorkloadModel {
	w := &WorkloadModel{
		Kind:          types.StringValue(labels[pool.LabelWorkload]),
		Environment:   types.StringValue(labels[pool.LabelEnvironment]),
		GPUMemoryGiB:  types.Float64Null(),
		Interruptible: types.BoolNull(),
	}
	var mem float64
	if _, err := fmt.Sscanf(labels[pool.LabelGPUMemory], "%g", &mem); err == nil {
		w.GPUMemoryGiB = types.Float64Value(mem)
	}
	w.Precision = types.StringNull()
	if p, ok := labels[pool.LabelPrecision]; ok {
		w.Precision = types.StringValue(p)
	}
	w.GPUsPerReplica, w.Replicas = intLabel(labels, pool.LabelGPUsPerReplica), intLabel(labels, pool.LabelReplicas)
	w.KVCacheGiB = types.Float64Null()
	var kv float64
	if _, err := fmt.Sscanf(labels[pool.LabelKVCache], "%g", &kv); err == nil {
		w.KVCacheGiB = types.Float64Value(kv)
	}
	interruptible := labels[pool.LabelInterruptible] == "true"
	// An unset interruptible reads back as false; keep it unset unless the cloud says true.
	if interruptible || (prior != nil && !prior.Interruptible.IsNull()) {
		w.Interruptible = types.BoolValue(interruptible)
	}
	return w
}

// intLabel is a label's integer value, null when the label is absent or not an integer.
func intLabel(labels map[string]string, key string) types.Int64 {
	var n int64
	if _, err := fmt.Sscanf(labels[key], "%d", &n); err != nil {
		return types.Int64Null()
	}
	return types.Int64Value(n)
}

// ClientFrom is the pool's client as gpufleet wrote it on the cloud objects it owns (tags: the
// client tag of a launch template or node pool's resource labels), not as a node label says: a hand
// change of the gpufleet.io/client label is drift to undo, not a new client. labels only stand in
// for objects written before gpufleet tagged the client.
func ClientFrom(tags map[string]string, tagKey string, labels map[string]string) types.String {
	if c, ok := tags[tagKey]; ok && c != "" {
		return types.StringValue(c)
	}
	return types.StringValue(labels[pool.LabelClient])
}

// UserLabels are the node labels less the ones gpufleet derives and the ones the cloud adds itself
// (cloudOwned); prior's spelling of none (see keepEmpty).
func UserLabels(labels map[string]string, prior types.Map, cloudOwned func(key string) bool) types.Map {
	out := map[string]string{}
	for k, v := range labels {
		if strings.HasPrefix(k, pool.LabelPrefix) || k == pool.LabelMIGConfig || k == pool.LabelDevicePlugin || cloudOwned(k) {
			continue
		}
		out[k] = v
	}
	return keepEmpty(mapOrNull(out), prior)
}

// UserTaints are the node taints less the derived GPU and client taints, null when none remain
// (or prior's empty set, see keepEmptySet). A taint without a value reads back as prior wrote it:
// `value = ""` and no value are the same taint to Kubernetes and the clouds, which answer either
// way, and state keeps the configuration's spelling, or every plan would show a change.
func UserTaints(taints []pool.Taint, prior types.Set) types.Set {
	var user []pool.Taint
	for _, t := range taints {
		if t.Key != pool.TaintGPU && t.Key != pool.TaintClient {
			user = append(user, t)
		}
	}
	if len(user) == 0 {
		return keepEmptySet(types.SetNull(types.ObjectType{AttrTypes: TaintAttrTypes}), prior)
	}
	SortTaints(user)
	emptyValue := map[string]bool{} // key and effect of prior's taints written with value = ""
	if !prior.IsNull() && !prior.IsUnknown() {
		for _, e := range prior.Elements() {
			o, ok := e.(types.Object)
			if !ok {
				continue
			}
			attrs := o.Attributes()
			if v, ok := attrs["value"].(types.String); ok && !v.IsNull() && !v.IsUnknown() && v.ValueString() == "" {
				emptyValue[taintID(attrs["key"], attrs["effect"])] = true
			}
		}
	}
	elems := make([]attr.Value, len(user))
	for i, t := range user {
		value := NullableString(t.Value)
		if t.Value == "" && emptyValue[taintID(types.StringValue(t.Key), types.StringValue(t.Effect))] {
			value = types.StringValue("")
		}
		elems[i] = types.ObjectValueMust(TaintAttrTypes, map[string]attr.Value{"key": types.StringValue(t.Key), "value": value, "effect": types.StringValue(t.Effect)})
	}
	return types.SetValueMust(types.ObjectType{AttrTypes: TaintAttrTypes}, elems)
}

// taintID identifies a taint by key and effect, as Kubernetes does.
func taintID(key, effect attr.Value) string {
	k, _ := key.(types.String)
	e, _ := effect.(types.String)
	return k.ValueString() + ":" + e.ValueString()
}

// UserTags are the cloud object's tags less derived ones (derived) and less provider default_tags
// the pool did not set itself: the pool sets a tag that repeats a default when prior state says so,
// or when the cloud objects record it among ownDefaults (import has no prior state).
func UserTags(cloud, defaults map[string]string, prior types.Map, ownDefaults []string, derived func(key string) bool) types.Map {
	priorTags := map[string]string{}
	if !prior.IsNull() && !prior.IsUnknown() {
		for k, v := range prior.Elements() {
			if s, ok := v.(types.String); ok {
				priorTags[k] = s.ValueString()
			}
		}
	}
	out := map[string]string{}
	for k, v := range cloud {
		if derived(k) {
			continue
		}
		if dv, isDefault := defaults[k]; isDefault && dv == v {
			if _, own := priorTags[k]; !own && !slices.Contains(ownDefaults, k) {
				continue
			}
		}
		out[k] = v
	}
	return keepEmpty(mapOrNull(out), prior)
}

// keepEmpty is prior where the cloud holds none (read is null) and prior is an empty map:
// `labels = {}` and no labels argument both mean none, and state keeps the one the configuration
// wrote, or every plan would show a change. keepEmptySet does the same for sets.
func keepEmpty(read, prior types.Map) types.Map {
	if read.IsNull() && !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
		return prior
	}
	return read
}

func keepEmptySet(read, prior types.Set) types.Set {
	if read.IsNull() && !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
		return prior
	}
	return read
}

// ScalingFrom is the pool's size: the sum of its sides' sizes. A desired size that the pool left to
// the autoscaler stays unset, so the autoscaler's changes are not drift; an import (no prior
// scaling) reads the current size, which a configuration that sets desired_size matches.
func ScalingFrom(sides []pool.Sizes, prior *ScalingModel) *ScalingModel {
	var total pool.Sizes
	for _, s := range sides {
		total.Min += s.Min
		total.Max += s.Max
		total.Desired += s.Desired
	}
	m := &ScalingModel{MinSize: types.Int64Value(int64(total.Min)), MaxSize: types.Int64Value(int64(total.Max)), DesiredSize: types.Int64Null()}
	if prior == nil || !prior.DesiredSize.IsNull() {
		m.DesiredSize = types.Int64Value(int64(total.Desired))
	}
	return m
}

// KeptDesired is a side's desired size when the autoscaler owns it: the current size, moved into
// the side's new limits.
func KeptDesired(current int, limits pool.Sizes) int {
	return min(max(current, limits.Min), limits.Max)
}

// CapacityMixFrom reads the spot mix back: as recorded on the cloud objects (recorded), else as the
// prior state had it, else 100 % spot when the only side is a spot side. isSet is false when the
// capacity block would say nothing (no spot, no base) and was absent before.
func CapacityMixFrom(pct, base int, recorded bool, prior *CapacityMix, onlySpot bool) (mix CapacityMix, isSet bool) {
	switch {
	case recorded:
	case prior != nil:
		pct, base = int(prior.SpotPercentage.ValueInt64()), int(prior.OnDemandBase.ValueInt64())
	case onlySpot:
		pct = 100
	}
	mix = CapacityMix{SpotPercentage: types.Int64Value(int64(pct)), OnDemandBase: types.Int64Value(int64(base))}
	return mix, prior != nil || pct != 0 || base != 0
}

// OwnDefaultTags are the keys of the pool's tags that repeat a provider default_tags value: the
// cloud objects record them, so that a read without prior state (import) keeps them in tags.
func OwnDefaultTags(tags, defaults map[string]string) []string {
	var keys []string
	for k, v := range tags {
		if dv, ok := defaults[k]; ok && dv == v {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// JoinWithin joins keys with sep, keeping as many as fit in limit characters (a tag or label value's
// limit); the keys that do not fit are left out.
func JoinWithin(keys []string, sep string, limit int) string {
	var b strings.Builder
	for _, k := range keys {
		if b.Len() > 0 && b.Len()+len(sep)+len(k) > limit || b.Len()+len(k) > limit {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(k)
	}
	return b.String()
}
