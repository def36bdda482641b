package plandoc

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	json "github.com/segmentio/encoding/json"
)

// Pool is one pool document under its plan address, as documents.pools holds it, in JSON: the
// document a gpufleet pool carries (policy_document) as written, or the one built.
type Pool struct {
	Address  string
	Document json.RawMessage
	// File is the manifest file of a NodePool's or ComputeClass's document ("" for a plan's pools):
	// the documents file's files, which its findings name, as conftest --combine's do.
	File string
}

// Unjudged is a resource the bundle could not judge (documents.unjudged): [rule, address,
// attribute, text].
type Unjudged [4]string

// Documents are the pool documents of a plan and the resources it could not judge.
type Documents struct {
	Pools    []Pool
	Unjudged []Unjudged
}

// Build is documents.pools and documents.unjudged: one document per current GPU pool of the plan,
// in the plan's order. Resources are independent of each other once the plan-wide lookups are
// made, so they are decoded, built and encoded on every core.
func (p *Plan) Build() (Documents, error) {
	p.launchTemplateChanges()
	p.gkeClustersByName()
	p.awsRegionOfAllConfigurations()
	type result struct {
		pool     *Pool
		unjudged *Unjudged
		err      error
	}
	results := make([]result, len(p.changes))
	_ = forEach(len(p.changes), func(i int) error {
		pool, unjudged, err := p.build(&p.changes[i])
		results[i] = result{pool, unjudged, err}
		return nil
	})
	var d Documents
	for _, r := range results {
		if r.err != nil {
			return Documents{}, r.err
		}
		if r.pool != nil {
			d.Pools = append(d.Pools, *r.pool)
		}
		if r.unjudged != nil {
			d.Unjudged = append(d.Unjudged, *r.unjudged)
		}
	}
	if !p.kubeComplete {
		p.planKubeObjects()
	}
	kube, err := p.kubePools()
	if err != nil {
		return Documents{}, err
	}
	d.Pools = append(d.Pools, kube...)
	d.Unjudged = append(d.Unjudged, p.kubeUnjudged()...)
	return d, nil
}

// build is the document of one resource change (nil when it is not a GPU pool) and, for a node
// group the bundle cannot judge, why.
func (p *Plan) build(rc *resourceChange) (*Pool, *Unjudged, error) {
	var doc map[string]any
	var unjudged *Unjudged
	switch rc.Type {
	case "gpufleet_eks_node_pool", "gpufleet_gke_node_pool", "gpufleet_karpenter_node_pool", "gpufleet_gke_compute_class":
		if raw, ok := providedDocument(rc); ok {
			return &Pool{Address: rc.Address, Document: raw}, nil, nil
		}
		c, ok := rc.decodeChange()
		if !ok {
			return nil, nil, nil
		}
		cloud := "aws"
		if rc.Type == "gpufleet_gke_node_pool" || rc.Type == "gpufleet_gke_compute_class" {
			cloud = "gcp"
		}
		if rc.Type == "gpufleet_gke_compute_class" {
			c = ladderMix(c)
		}
		doc, _ = ours(rc, c, cloud)
	case "aws_eks_node_group", "google_container_node_pool":
		c, ok := rc.decodeChange()
		if !ok {
			return nil, nil, nil
		}
		build := p.eks
		if rc.Type == "google_container_node_pool" {
			build = p.gke
		}
		doc, _ = build(rc, c)
		if first, ok := at(c.after, "instance_types", 0); rc.Type == "aws_eks_node_group" && !truthy(first, ok) {
			if u, ok := p.eksUnjudged(rc, c); ok {
				unjudged = &u
			}
		}
	}
	if doc == nil {
		return nil, unjudged, nil
	}
	if f, ok := documentFit(doc); ok {
		doc["fit"] = f
	}
	raw, err := appendJSON(nil, doc)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the document of %s: %w", rc.Address, err)
	}
	return &Pool{Address: rc.Address, Document: raw}, unjudged, nil
}

// providedDocument is the policy_document a gpufleet pool carries, when it is known (an object),
// as written: it is passed on without being decoded.
func providedDocument(rc *resourceChange) (json.RawMessage, bool) {
	var after struct {
		PolicyDocument json.RawMessage `json:"policy_document"`
	}
	if !isJSONObject(rc.Change.After) || json.Unmarshal(rc.Change.After, &after) != nil || !isJSONObject(after.PolicyDocument) {
		return nil, false
	}
	return after.PolicyDocument, true
}

// ---------------------------------------------------------------------------------------------
// gpufleet_eks_node_pool / gpufleet_gke_node_pool / gpufleet_gke_compute_class whose document is
// unknown at plan time
// ---------------------------------------------------------------------------------------------

// ours is documents.ours.
func ours(rc *resourceChange, c change, cloud string) (map[string]any, bool) {
	a, ok := rc.planned(c)
	if !ok {
		return nil, false
	}
	u := c.unknownOr()
	if !isObject(u) {
		return nil, false // object.get(u, ...) on a non-object is undefined in Rego, and so is the document
	}
	model := get(a, nil, "gpu_model")
	profile := get(a, nil, "gpu", "mig", "profile")
	config := get(a, nil, "gpu", "mig", "config")
	scaling := map[string]any{
		"min_size":     get(a, nil, "scaling", "min_size"),
		"max_size":     get(a, nil, "scaling", "max_size"),
		"desired_size": get(a, nil, "scaling", "desired_size"),
	}
	pct := get(a, nil, "capacity", "spot_percentage")
	base := get(a, nil, "capacity", "on_demand_base")
	sides := spotSplit(scaling, base, pct)
	var class any
	if name, ok := model.(string); ok {
		class, _ = catalogAt("gpus", name, "class")
	}
	shapes := get(a, nil, "instance_types")
	if cloud == "gcp" {
		shapes = nil
		if mt, ok := a["machine_type"].(string); ok {
			shapes = []any{mt}
		}
	}
	return map[string]any{
		"address":       rc.Address,
		"resource_type": rc.Type,
		"cloud":         cloud,
		"region":        get(a, nil, "region"),
		"zones":         get(a, nil, "zones"),
		"name":          get(a, nil, "name"),
		"client":        get(a, nil, "client"),
		"workload": map[string]any{
			"kind":             get(a, nil, "workload", "kind"),
			"environment":      get(a, nil, "workload", "environment"),
			"gpu_memory_gib":   get(a, nil, "workload", "gpu_memory_gib"),
			"interruptible":    get(a, nil, "workload", "interruptible"),
			"precision":        get(a, nil, "workload", "precision"),
			"gpus_per_replica": get(a, nil, "workload", "gpus_per_replica"),
			"replicas":         get(a, nil, "workload", "replicas"),
			"kv_cache_gib":     get(a, nil, "workload", "kv_cache_gib"),
		},
		"gpu": map[string]any{
			"model":            model,
			"class":            class,
			"memory_gib":       get(a, nil, "gpu_memory_gib"),
			"per_node":         get(a, nil, "gpus_per_node"),
			"mig_profile":      profile,
			"mig_config":       config,
			"slice_memory_gib": sliceMemory(model, profile, config, migUnknown(get(u, get(u, false, "gpu"), "gpu", "mig"))),
			"sharing":          get(a, nil, "gpu", "sharing"),
		},
		"instance_types": shapes,
		"scaling":        scaling,
		"capacity": map[string]any{
			"spot_percentage": pct,
			"on_demand_base":  base,
			"reservation":     reservation(get(a, nil, "capacity", "reservation")),
			"on_demand":       sides["on_demand"],
			"spot":            sides["spot"],
		},
		"taints": get(a, nil, "effective_taints"),
		"labels": get(a, nil, "effective_labels"),
		"tags":   get(a, nil, "effective_tags"),
		"cost": map[string]any{
			"hourly_usd":  get(a, nil, "estimated_hourly_cost_usd"),
			"monthly_usd": get(a, nil, "estimated_monthly_cost_usd"),
		},
		"waivers": obj(get(a, nil, "policy_waivers")),
	}, true
}

// ladderMix is documents._ladder_mix: a ComputeClass's planned attributes with the spot share its
// ladder stands for (100 with a "spot" rung, else 0, null while the ladder is unknown) over no
// on-demand base, and its zones with a specific reservation's.
func ladderMix(c change) change {
	a, ok := c.after.(map[string]any)
	if !ok {
		return c
	}
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	capacity := map[string]any{}
	if m, ok := a["capacity"].(map[string]any); ok {
		for k, v := range m {
			capacity[k] = v
		}
	}
	var pct, base any
	if ladder, ok := capacity["ladder"].([]any); ok {
		pct, base = 0.0, 0.0
		for _, r := range ladder {
			if r == "spot" {
				pct = 100.0
			}
		}
	}
	capacity["spot_percentage"], capacity["on_demand_base"] = pct, base
	out["capacity"] = capacity
	if zones, ok := a["zones"].([]any); ok && len(zones) > 0 {
		extra, known := get(a, []any{}, "capacity", "reservation", "zones").([]any)
		if known {
			seen := map[string]bool{}
			var all []string
			for _, z := range append(append([]any(nil), zones...), extra...) {
				if s, ok := z.(string); ok && !seen[s] {
					seen[s] = true
					all = append(all, s)
				}
			}
			sort.Strings(all)
			merged := make([]any, len(all))
			for i, z := range all {
				merged[i] = z
			}
			out["zones"] = merged
		}
	}
	c.after = out
	return c
}

// migUnknown is documents._mig_unknown: true, or an object or array with a true leaf.
func migUnknown(u any) bool {
	switch c := u.(type) {
	case bool:
		return c
	case map[string]any:
		for _, v := range c {
			if v == true {
				return true
			}
		}
	case []any:
		for _, v := range c {
			if v == true {
				return true
			}
		}
	}
	return false
}

// ---------------------------------------------------------------------------------------------
// aws_eks_node_group (documents_eks.rego)
// ---------------------------------------------------------------------------------------------

var (
	gpuFamily = regexp.MustCompile(`^(p[0-9]|gr?[0-9])`)
	gpuAMI    = regexp.MustCompile(`NVIDIA|GPU`)
)

// eks is documents.build("aws_eks_node_group", rc).
func (p *Plan) eks(rc *resourceChange, c change) (map[string]any, bool) {
	a, ok := rc.planned(c)
	if !ok {
		return nil, false
	}
	u := c.unknownOr()
	types := p.eksTypes(rc, c, a)
	shape := eksShape(types)
	if !eksGPUPool(shape, types, get(a, nil, "ami_type")) {
		return nil, false
	}
	labels := eksMap(a, u, "labels")
	workload := conventionWorkload(labels)
	tags := eksTags(a, u)
	region := p.eksRegion(rc, a)
	s, isObj := get(a, map[string]any{}, "scaling_config", 0).(map[string]any)
	if !isObj {
		return nil, false // as in Rego, where object.get on a non-object block is undefined
	}
	scaling := eksScaling(s)
	capacityType := get(a, nil, "capacity_type")
	pct := 0.0
	if capacityType == "SPOT" {
		pct = 100
	}
	var res any
	if capacityType == "CAPACITY_BLOCK" {
		res = map[string]any{"type": "capacity-block", "id": nil, "name": nil, "project": nil}
	}
	sides := allOrNothingSides(scaling, pct)
	var price any
	if s, ok := shape.(string); ok {
		if r, ok := region.(string); ok {
			price = get(policyCatalog(), nil, "aws_instance_types", s, "prices", r)
		}
	}
	return map[string]any{
		"address":        rc.Address,
		"resource_type":  rc.Type,
		"cloud":          "aws",
		"region":         region,
		"zones":          nil,
		"name":           get(a, nil, "node_group_name"),
		"labels":         labels,
		"tags":           tags,
		"client":         conventionClient(labels, tags),
		"workload":       workload,
		"unread_labels":  conventionUnread(labels),
		"waivers":        conventionWaivers(tags),
		"taints":         eksTaints(a, u),
		"instance_types": types,
		"gpu":            eksGPU(shape, labels),
		"scaling":        scaling,
		"capacity": map[string]any{
			"spot_percentage": pct,
			"on_demand_base":  0.0,
			"reservation":     res,
			"on_demand":       sides[0],
			"spot":            sides[1],
		},
		"cost": sidesCost(price, sides[0], sides[1]),
	}, true
}

func eksScaling(s any) map[string]any {
	return map[string]any{
		"min_size":     get(s, nil, "min_size"),
		"max_size":     get(s, nil, "max_size"),
		"desired_size": get(s, nil, "desired_size"),
	}
}

// eksGPU is documents._eks_gpu: the catalog GPU of the node type, with MIG and sharing from the
// GPU Operator and device plugin labels.
func eksGPU(shape any, labels any) map[string]any {
	s, _ := shape.(string)
	l, isObj := labels.(map[string]any)
	_, hasMIG := l["nvidia.com/mig.config"]
	_, hasSharing := l["nvidia.com/device-plugin.config"]
	model, count := any(nil), any(nil)
	if t, ok := catalogAt("aws_instance_types", s); ok && isString(shape) {
		model, count = get(t, nil, "gpu_model"), get(t, nil, "gpu_count")
		if isObj && !truthy(l["nvidia.com/mig.config"], hasMIG) && !truthy(l["nvidia.com/device-plugin.config"], hasSharing) {
			return gpuDocument(model, count)
		}
	}
	migConfig := conventionMIGConfig(obj(labels))
	g := gpuDocument(model, count)
	g["mig_config"] = migConfig
	g["slice_memory_gib"] = sliceMemory(model, nil, migConfig, labels == nil)
	g["sharing"] = eksSharing(obj(labels))
	return g
}

// eksTypes is documents._eks_types: the node group's instance types, else its launch template's;
// null while a launch template's cannot be told.
func (p *Plan) eksTypes(rc *resourceChange, c change, a map[string]any) any {
	if t, ok := a["instance_types"]; ok {
		if n, ok := count(t); ok && n > 0 {
			return t
		}
	}
	if _, tmpl, ok := p.eksTemplate(rc, c, a); ok {
		if t, ok := at(tmpl.after, "instance_type"); ok && isString(t) {
			return []any{t}
		}
	}
	if hasLaunchTemplate(c, a) {
		return nil
	}
	if t, ok := a["instance_types"]; ok && isArray(t) {
		return t
	}
	return nil
}

// hasLaunchTemplate is documents._has_launch_template.
func hasLaunchTemplate(c change, a map[string]any) bool {
	return len(arr(get(a, nil, "launch_template")))+len(arr(get(c.afterUnknown, nil, "launch_template"))) > 0
}

// launchTemplate is the change of an aws_launch_template (documents._launch_templates).
type launchTemplate struct{ after, afterUnknown any }

// eksTemplate is documents._eks_template: the address and change of the node group's launch
// template, found through the configuration's references or, for a dynamic block, as the one
// aws_launch_template of the node group's module instance.
func (p *Plan) eksTemplate(rc *resourceChange, c change, a map[string]any) (string, launchTemplate, bool) {
	if !hasLaunchTemplate(c, a) {
		return "", launchTemplate{}, false
	}
	name, ok := rc.Name.(string)
	if !ok {
		return "", launchTemplate{}, false
	}
	resources := p.moduleResourcesOf(moduleKey(rc))
	cfg, ok := resources[rc.Type+"."+name]
	if !ok {
		cfg = map[string]any{}
	}
	templates := p.launchTemplateChanges()
	if expressions, ok := at(cfg, "expressions", "launch_template", 0); ok {
		for _, key := range []string{"id", "name"} {
			refs, _ := at(expressions, key, "references")
			var addresses []string
			for _, ref := range arr(refs) {
				if r, ok := ref.(string); ok {
					addresses = append(addresses, templateAddress(rc, r))
				}
			}
			if keyed, ok := keyedTemplate(rc, cfg, refs); ok {
				addresses = append(addresses, keyed)
			}
			for _, address := range addresses {
				if t, ok := templates[address]; ok {
					return address, t, true
				}
			}
		}
		return "", launchTemplate{}, false
	}
	if v, ok := at(cfg, "expressions", "launch_template"); ok && truthy(v, ok) {
		return "", launchTemplate{}, false // a launch_template expression that is not a block list
	}
	var names []string
	for _, r := range resources {
		if get(r, nil, "mode") == "managed" && get(r, nil, "type") == "aws_launch_template" {
			n, isStr := get(r, nil, "name").(string)
			if !isStr {
				return "", launchTemplate{}, false
			}
			names = append(names, n)
		}
	}
	if len(names) != 1 {
		return "", launchTemplate{}, false
	}
	for _, address := range moduleTemplateAddresses(rc, names[0]) {
		if t, ok := templates[address]; ok {
			return address, t, true
		}
	}
	return "", launchTemplate{}, false
}

var (
	templateResource = regexp.MustCompile(`^aws_launch_template\.[^.\[]+$`)
	eachValue        = regexp.MustCompile(`^each\.value(\.|$)`)
)

// keyedTemplate is documents._keyed_template: for a node group of for_each or count, the address of
// the launch template instance of its own key when the references say it takes that one
// (aws_launch_template.gpu[each.key].id, aws_launch_template.gpu[count.index].id, or each.value.id
// with for_each = aws_launch_template.gpu).
func keyedTemplate(rc *resourceChange, cfg any, refs any) (string, bool) {
	var index any
	if len(rc.Index) == 0 || json.Unmarshal(rc.Index, &index) != nil {
		return "", false
	}
	key, _ := json.Marshal(index)
	if base, ok := templateResourceRef(refs); ok {
		own := map[string]string{"string": "each.key", "number": "count.index"}[jsonType(index)]
		set := map[string]bool{}
		for _, r := range arr(refs) {
			set[fmt.Sprint(r)+"\x00"+jsonType(r)] = true
		}
		if own != "" && len(set) == 2 && set[base+"\x00string"] && set[own+"\x00string"] {
			return templateAddress(rc, base) + "[" + string(key) + "]", true
		}
		return "", false
	}
	forEach, _ := at(cfg, "for_each_expression", "references")
	list := arr(forEach)
	if _, isStr := index.(string); !isStr || len(list) != 1 || len(arr(refs)) == 0 {
		return "", false
	}
	base, ok := list[0].(string)
	if !ok || !templateResource.MatchString(base) {
		return "", false
	}
	for _, r := range arr(refs) {
		if s, ok := r.(string); !ok || !eachValue.MatchString(s) {
			return "", false
		}
	}
	return templateAddress(rc, base) + "[" + string(key) + "]", true
}

// templateResourceRef is documents._template_resource_ref: the one reference to a whole
// aws_launch_template resource among refs.
func templateResourceRef(refs any) (string, bool) {
	var found []string
	for _, r := range arr(refs) {
		if s, ok := r.(string); ok && templateResource.MatchString(s) {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// jsonType is OPA's type_name of a decoded JSON value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// templateAddress is documents._template_address.
func templateAddress(rc *resourceChange, ref string) string {
	if m, ok := rc.ModuleAddress.(string); ok {
		return m + "." + ref
	}
	return ref
}

// moduleTemplateAddresses is documents._module_template_addresses.
func moduleTemplateAddresses(rc *resourceChange, name string) []string {
	base := templateAddress(rc, "aws_launch_template."+name)
	var index any
	if len(rc.Index) > 0 && json.Unmarshal(rc.Index, &index) == nil && index != nil {
		key, _ := json.Marshal(index)
		return []string{base, base + "[" + string(key) + "]", base + "[0]"}
	}
	return []string{base, base + "[0]"}
}

// launchTemplateChanges is documents._launch_templates: the aws_launch_template changes with a
// planned object, by address.
func (p *Plan) launchTemplateChanges() map[string]launchTemplate {
	if p.launchTemplates == nil {
		p.launchTemplates = map[string]launchTemplate{}
		for i := range p.changes {
			rc := &p.changes[i]
			if rc.Type != "aws_launch_template" {
				continue
			}
			if c, ok := rc.decodeChange(); ok && isObject(c.after) {
				p.launchTemplates[rc.Address] = launchTemplate{c.after, c.unknownOr()}
			}
		}
	}
	return p.launchTemplates
}

// eksShape is documents._eks_shape: the first instance type the catalog knows, or null.
func eksShape(types any) any {
	list, _ := types.([]any)
	if len(list) > 0 {
		if s, ok := list[0].(string); ok {
			if _, ok := catalogAt("aws_instance_types", s); ok {
				return s
			}
		}
	}
	for _, t := range list {
		if s, ok := t.(string); ok {
			if _, ok := catalogAt("aws_instance_types", s); ok {
				return s
			}
		}
	}
	return nil
}

// eksGPUPool is documents._eks_gpu_pool.
func eksGPUPool(shape, types, ami any) bool {
	if shape != nil {
		return true
	}
	for _, t := range arr(types) {
		if s, ok := t.(string); ok && gpuFamily.MatchString(s) {
			return true
		}
	}
	if len(arr(types)) == 0 {
		if s, ok := ami.(string); ok && gpuAMI.MatchString(s) {
			return true
		}
	}
	return false
}

// eksTags is documents._eks_tags: tags_all when known, else tags.
func eksTags(a map[string]any, u any) any {
	if t, ok := a["tags_all"].(map[string]any); ok {
		if v, ok := at(u, "tags_all"); !ok || v != true {
			return t
		}
	}
	return eksMap(a, u, "tags")
}

// eksMap is documents._eks_map: {} when null, null while unknown.
func eksMap(a map[string]any, u any, key string) any {
	v, ok := a[key]
	if m, isMap := v.(map[string]any); ok && isMap {
		return m
	}
	if ok && v == nil {
		return map[string]any{}
	}
	if x, ok := at(u, key); ok && x == true {
		return nil
	}
	return map[string]any{}
}

// eksTaints is documents._eks_taints.
func eksTaints(a map[string]any, u any) any {
	if ts, ok := a["taint"]; ok && taintsAsWritten(ts) {
		return ts
	}
	if x, ok := at(u, "taint"); ok && x == true {
		return nil
	}
	return normalisedTaints(arr(get(a, nil, "taint")))
}

// eksSharing is documents._eks_sharing: GPU sharing from the device plugin config label.
func eksSharing(labels map[string]any) any {
	v, ok := labels["nvidia.com/device-plugin.config"].(string)
	if !ok || v == "" {
		return nil
	}
	strategy := "time-slicing"
	if strings.Contains(strings.ToLower(v), "mps") {
		strategy = "mps"
	}
	return map[string]any{"strategy": strategy, "replicas": nil}
}

// eksUnjudged is documents.eks_unjudged: a node group without instance types of its own whose
// launch template's instance type cannot be told; the text says what was missing.
func (p *Plan) eksUnjudged(rc *resourceChange, c change) (Unjudged, bool) {
	a, ok := rc.planned(c)
	if !ok || !hasLaunchTemplate(c, a) || p.eksTypes(rc, c, a) != nil {
		return Unjudged{}, false
	}
	consequence := "the gpufleet rules could not tell whether it is a GPU pool and did not judge it"
	if s, ok := get(a, nil, "ami_type").(string); ok && gpuAMI.MatchString(s) {
		consequence = fmt.Sprintf("the gpufleet rules judged it as a GPU pool of unknown GPU model (its ami_type is %s): the GPU memory, right-sizing and cost checks could not judge it", s)
	}
	text := fmt.Sprintf("the node group takes its instance type from a launch template, but %s, so %s; set instance_types on the node group, or plan the aws_launch_template with it", p.eksTemplateMissing(rc, c, a), consequence)
	return Unjudged{"GF-DATA-002", rc.Address, "launch_template", text}, true
}

// eksTemplateMissing is documents._eks_template_missing: what is missing, the template's instance
// type or the template itself.
func (p *Plan) eksTemplateMissing(rc *resourceChange, c change, a map[string]any) string {
	if address, t, ok := p.eksTemplate(rc, c, a); ok {
		if v, ok := at(t.afterUnknown, "instance_type"); ok && v == true {
			return fmt.Sprintf("the instance_type of its launch template %s is unknown until apply", address)
		}
		return fmt.Sprintf("its launch template %s sets no instance_type (and the node group's instance_types is empty)", address)
	}
	if cfg, ok := p.configResource(rc); ok {
		if expressions, ok := at(cfg, "expressions", "launch_template", 0); ok {
			for _, key := range []string{"id", "name"} {
				refs, _ := at(expressions, key, "references")
				base, ok := templateResourceRef(refs)
				if !ok {
					continue
				}
				if _, keyed := keyedTemplate(rc, cfg, refs); keyed {
					continue
				}
				var others []string
				strs := true // concat in Rego: a reference that is not a string drops this key
				for _, r := range arr(refs) {
					s, isStr := r.(string)
					if s != base && !strings.HasPrefix(s, base+".") {
						others = append(others, s)
						strs = strs && isStr
					}
				}
				if len(others) > 0 && strs {
					return fmt.Sprintf("the configuration picks its launch template among the instances of %s by %s (launch_template.%s), which the plan does not resolve", base, strings.Join(others, ", "), key)
				}
			}
			var refs []string
			for _, key := range []string{"id", "name"} {
				if e, ok := at(expressions, key); ok && isObject(e) {
					refs = append(refs, key+" = "+expressionText(rc, cfg, e))
				}
			}
			if len(refs) > 0 {
				return fmt.Sprintf("its launch template (%s in the configuration) is not in this plan", strings.Join(refs, ", "))
			}
		}
	}
	module := "the root module"
	if m, ok := rc.ModuleAddress.(string); ok {
		module = "its module " + m
	}
	return fmt.Sprintf("the plan's configuration does not say which template (a dynamic launch_template block, as terraform-aws-modules/eks writes it), and %s has no single aws_launch_template in this plan to take it from", module)
}

// expressionText is documents._expression_text.
func expressionText(rc *resourceChange, cfg, e any) string {
	refs, _ := at(e, "references")
	if keyed, ok := keyedTemplate(rc, cfg, refs); ok {
		return keyed
	}
	if r, ok := at(e, "references", 0); ok {
		if s, ok := r.(string); ok {
			return s
		}
	}
	if v, ok := at(e, "constant_value"); ok {
		if raw, err := json.Marshal(v); err == nil {
			return string(raw)
		}
	}
	return "an expression"
}

// ---------------------------------------------------------------------------------------------
// Regions: the resource's region argument, else its provider configuration's
// ---------------------------------------------------------------------------------------------

type regionResult struct {
	region any
	ok     bool
}

// eksRegion is documents._eks_region.
func (p *Plan) eksRegion(rc *resourceChange, a map[string]any) any {
	if r, ok := a["region"].(string); ok {
		return r
	}
	if u := p.awsRegionOfAllConfigurations(); u.ok {
		return u.region
	}
	if r, ok := p.providerRegion(rc, "aws"); ok {
		return r
	}
	return nil
}

// awsRegionOfAllConfigurations is documents._aws_uniform_region: the one region (or null) all aws
// provider configurations name, when there is a default aws configuration.
func (p *Plan) awsRegionOfAllConfigurations() regionResult {
	if p.awsUniformRegion != nil {
		return *p.awsUniformRegion
	}
	result := regionResult{}
	if truthy(at(p.providerConfig, "aws")) {
		regions := map[any]bool{}
		for _, cfg := range p.providerConfig {
			if get(cfg, nil, "name") == "aws" {
				regions[p.configRegion(cfg)] = true
			}
		}
		if len(regions) == 1 {
			for r := range regions {
				result = regionResult{region: r, ok: true}
			}
		}
	}
	p.awsUniformRegion = &result
	return result
}

func (p *Plan) configRegion(cfg any) any {
	e, _ := at(cfg, "expressions", "region")
	if r, ok := p.expressionValue(e); ok && isString(r) {
		return r
	}
	return nil
}

// expressionValue is documents._expression_value: a constant, or a root variable's value.
func (p *Plan) expressionValue(e any) (any, bool) {
	if v, ok := at(e, "constant_value"); ok {
		return v, true
	}
	ref, ok := at(e, "references", 0)
	s, isStr := ref.(string)
	if !ok || !isStr || !strings.HasPrefix(s, "var.") {
		return nil, false
	}
	return at(p.variables, strings.TrimPrefix(s, "var."), "value")
}

// providerRegion is documents.provider_region.
func (p *Plan) providerRegion(rc *resourceChange, name string) (any, bool) {
	cfg, ok := p.providerConfigOf(rc, name)
	if !ok {
		return nil, false
	}
	e, _ := at(cfg, "expressions", "region")
	r, ok := p.expressionValue(e)
	return r, ok && isString(r)
}

// providerConfigOf is documents._provider_config.
func (p *Plan) providerConfigOf(rc *resourceChange, name string) (any, bool) {
	if cfg, ok := p.configResource(rc); ok {
		if key, ok := at(cfg, "provider_config_key"); ok {
			if k, ok := key.(string); ok {
				if c, ok := p.providerConfig[k]; ok {
					return c, true
				}
			}
		}
	}
	c, ok := p.providerConfig[name]
	return c, ok
}

var instanceKeys = regexp.MustCompile(`\[[^\]]*\]`)

// configResource is documents._config_resource: the resource's configuration, found in its
// module's configuration by the module path of its address.
func (p *Plan) configResource(rc *resourceChange) (any, bool) {
	name, ok := rc.Name.(string)
	if !ok {
		return nil, false
	}
	r, ok := p.moduleResourcesOf(moduleKey(rc))[rc.Type+"."+name]
	return r, ok
}

// moduleKey is documents._module_key: the module address without instance keys.
func moduleKey(rc *resourceChange) string {
	if m, ok := rc.ModuleAddress.(string); ok {
		return instanceKeys.ReplaceAllString(m, "")
	}
	return ""
}

func (p *Plan) moduleResourcesOf(key string) map[string]any {
	p.modulesMu.Lock()
	defer p.modulesMu.Unlock()
	if r, ok := p.moduleResources[key]; ok {
		return r
	}
	if p.moduleResources == nil {
		p.moduleResources = map[string]map[string]any{}
		if len(p.rootModule) > 0 {
			_ = json.Unmarshal(p.rootModule, &p.rootModuleValue)
		}
	}
	module := p.rootModuleValue
	if key != "" {
		var path []any
		for i, name := range strings.Split(key, ".") {
			if i%2 == 1 {
				path = append(path, "module_calls", name, "module")
			}
		}
		module = get(p.rootModuleValue, map[string]any{}, path...)
	}
	out := map[string]any{}
	for _, r := range arr(get(module, []any{}, "resources")) {
		if address, ok := at(r, "address"); ok {
			if s, ok := address.(string); ok {
				out[s] = r
			}
		}
	}
	p.moduleResources[key] = out
	return out
}

// WriteFile writes the documents file conftest judges with the bundle in place of the plan:
//
//	{"gpufleet_pool_documents": {"version": 1, "plan_format_version": …, "terraform_version": …},
//	 "pools": [[address, document], …], "unjudged": [[rule, address, attribute, text], …],
//	 "files": {address: file, …}}
//
// documents.rego reads pools and unjudged as they are; files, written for manifests' pools only (of
// an address in two files the first in path order, as documents.kube_files takes), is what their
// findings name (documents.pool_files), as conftest --combine's on the manifests do. Documents are
// written one by one, so the file never exists twice in memory.
func (d Documents) WriteFile(w io.Writer, p *Plan) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	header, err := json.Marshal(map[string]any{
		"version": FormatVersion, "plan_format_version": p.FormatVersion, "terraform_version": p.TerraformVersion,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(bw, "{\"gpufleet_pool_documents\":%s,\n\"pools\":[", header)
	for i, pool := range d.Pools {
		address, _ := json.Marshal(pool.Address)
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(bw, "%s\n[%s,%s]", sep, address, pool.Document)
	}
	unjudged := d.Unjudged
	if unjudged == nil {
		unjudged = []Unjudged{}
	}
	u, err := json.Marshal(unjudged)
	if err != nil {
		return err
	}
	fmt.Fprintf(bw, "],\n\"unjudged\":%s", u)
	files := map[string]string{}
	for _, pool := range d.Pools {
		if f, ok := files[pool.Address]; pool.File != "" && (!ok || pool.File < f) {
			files[pool.Address] = pool.File
		}
	}
	if len(files) > 0 {
		f, err := json.Marshal(files)
		if err != nil {
			return err
		}
		fmt.Fprintf(bw, ",\n\"files\":%s", f)
	}
	fmt.Fprint(bw, "}\n")
	return bw.Flush()
}
