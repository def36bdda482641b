package policy_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The plan shapes BenchmarkConftestPlan measures besides the plans of pools alone: a platform plan,
// where GPU pools are a few among many other resources, and a plan of official node groups and
// node pools whose planned objects are as small as the providers write them.

// platformGPUShare is the share of a platform plan's resources that are GPU node groups and pools.
const platformGPUShare = 100 // one in a hundred

// writePlatformPlan writes a plan of n resources shaped like a platform team's: tenants, each a
// for_each instance of one module, with IAM role policy attachments, security-group rules, S3
// buckets, helm releases, Google IAM members (testdata/platform_resources.json, by weight) and CPU
// node groups and node pools (aws_eks_node_group / google_container_node_pool on m6i / n2 machine
// types, without GPUs), 2 % each; and one resource in a hundred a GPU pool: official node groups and
// node pools from the committed fixtures (one in ten of them violating) and, when gpufleet is not
// nil, gpufleet pools as terraform planned them, a third each. Every resource is a create; the plan
// has planned_values and configuration (one block per resource block of the module) as terraform
// writes them.
func writePlatformPlan(path string, n int, gpufleet map[string]any) error {
	compliant, violating, goodPools, badPools, err := officialFixtures()
	if err != nil {
		return err
	}
	goodPools, badPools = slices.DeleteFunc(goodPools, cpuFixture), slices.DeleteFunc(badPools, cpuFixture)
	var ours []map[string]any
	if gpufleet != nil {
		ours, _ = planResources(gpufleet)
	}
	others, err := platformResources()
	if err != nil {
		return err
	}
	cpuGroup, cpuPool := cpuNodeGroup(goodPools), cpuNodePool(goodPools)
	// The other resources by weight, and the CPU node groups and pools, 2 % each.
	var mix []platformResource
	for _, r := range others {
		for range r.Weight * 96 / 100 {
			mix = append(mix, r)
		}
	}
	for range 2 {
		mix = append(mix, platformResource{Weight: 2, Change: cpuGroup, Config: configBlock(cpuGroup)}, platformResource{Weight: 2, Change: cpuPool, Config: configBlock(cpuPool)})
	}
	for len(mix) < 100 {
		mix = append(mix, others[0])
	}
	const perTenant = 400
	changes := make([]any, 0, n)
	modules := map[string][]any{} // module address -> planned values
	moduleConfigs := map[string]map[string]any{}
	rootConfigs := map[string]map[string]any{}
	var pools int
	for i := range n {
		tenant := fmt.Sprintf("t%03d", i/perTenant)
		var rc, cfg map[string]any
		switch i % platformGPUShare {
		case platformGPUShare / 2:
			k := pools
			pools++
			switch {
			case ours != nil && k%3 == 2:
				rc = deepCopy(ours[(k/3)%len(ours)])
			case k%10 == 0:
				rc = deepCopy(badPools[(k/10)%len(badPools)])
			default:
				rc = deepCopy(goodPools[k%len(goodPools)])
			}
			cfg = configFor(rc, compliant, violating, gpufleet)
		default:
			r := mix[(i*37)%len(mix)]
			rc, cfg = deepCopy(r.Change), r.Config
		}
		key := fmt.Sprintf("%s-%05d", rc["name"], i)
		if strings.HasPrefix(rc["type"].(string), "gpufleet_") { // gpufleet pools at the root, as a count/for_each of the root module
			rc["index"] = key
			rc["address"] = fmt.Sprintf("%s.%s[%q]", rc["type"], rc["name"], key)
			renamePlanned(rc, map[string]any{}, key)
			rootConfigs[rc["type"].(string)+"."+rc["name"].(string)] = cfg
			modules[""] = append(modules[""], plannedValue(rc))
			changes = append(changes, rc)
			continue
		}
		module := fmt.Sprintf("module.tenant[%q]", tenant)
		rc["module_address"] = module
		rc["index"] = key
		rc["address"] = fmt.Sprintf("%s.%s.%s[%q]", module, rc["type"], rc["name"], key)
		renamePlanned(rc, map[string]any{}, key)
		moduleConfigs[rc["type"].(string)+"."+rc["name"].(string)] = cfg
		modules[module] = append(modules[module], plannedValue(rc))
		changes = append(changes, rc)
	}
	plan := planSkeleton(compliant)
	plan["resource_changes"] = changes
	root := map[string]any{"resources": modules[""]}
	var children []any
	for _, m := range slices.Sorted(maps.Keys(modules)) {
		if m != "" {
			children = append(children, map[string]any{"address": m, "resources": modules[m]})
		}
	}
	root["child_modules"] = children
	plan["planned_values"] = map[string]any{"root_module": root}
	cfg := plan["configuration"].(map[string]any)
	cfgRoot := map[string]any{"resources": sortedConfigs(rootConfigs)}
	cfgRoot["module_calls"] = map[string]any{"tenant": map[string]any{
		"source":              "./modules/tenant",
		"for_each_expression": map[string]any{"references": []any{"var.tenants"}},
		"module":              map[string]any{"resources": sortedConfigs(moduleConfigs)},
	}}
	cfg["root_module"] = cfgRoot
	return writeJSON(path, plan)
}

// writeSmallOfficialPlan writes a plan of n official node groups and node pools (half each, one in
// ten violating, from the committed fixtures: about 2.2 KB a resource change, no prior_state) as
// for_each instances of the fixtures' resource blocks, so the configuration holds one block per
// fixture resource, not one per instance.
func writeSmallOfficialPlan(path string, n int) error {
	compliant, violating, good, bad, err := officialFixtures()
	if err != nil {
		return err
	}
	configs := map[string]map[string]any{}
	changes, planned := make([]any, n), make([]any, n)
	for i := range n {
		var rc map[string]any
		if i%10 == 0 {
			rc = deepCopy(bad[(i/10)%len(bad)])
		} else {
			rc = deepCopy(good[i%len(good)])
		}
		configs[rc["address"].(string)] = configFor(rc, compliant, violating, nil)
		key := fmt.Sprintf("%s-%05d", strings.ReplaceAll(rc["name"].(string), "_", "-"), i)
		rc["index"] = key
		rc["address"] = fmt.Sprintf("%s.%s[%q]", rc["type"], rc["name"], key)
		renamePlanned(rc, map[string]any{}, key)
		changes[i], planned[i] = rc, plannedValue(rc)
	}
	plan := planSkeleton(compliant)
	plan["resource_changes"] = changes
	plan["planned_values"] = map[string]any{"root_module": map[string]any{"resources": planned}}
	plan["configuration"].(map[string]any)["root_module"] = map[string]any{"resources": sortedConfigs(configs)}
	return writeJSON(path, plan)
}

type platformResource struct {
	Weight int            `json:"weight"`
	Change map[string]any `json:"change"`
	Config map[string]any `json:"config"`
}

func platformResources() ([]platformResource, error) {
	raw, err := os.ReadFile(filepath.Join("testdata", "platform_resources.json"))
	if err != nil {
		return nil, err
	}
	var f struct {
		Resources []platformResource `json:"resources"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	for _, r := range f.Resources {
		r.Change["address"] = fmt.Sprintf("%s.%s", r.Change["type"], r.Change["name"])
		r.Config["address"] = r.Change["address"]
	}
	return f.Resources, nil
}

// cpuNodeGroup is a fixture node group on a CPU instance type with the standard AMI, without GPU
// labels or taints.
func cpuNodeGroup(pools []map[string]any) map[string]any {
	for _, p := range pools {
		if p["type"] != "aws_eks_node_group" {
			continue
		}
		rc := deepCopy(p)
		rc["name"], rc["address"] = "cpu", "aws_eks_node_group.cpu"
		after := rc["change"].(map[string]any)["after"].(map[string]any)
		after["instance_types"] = []any{"m6i.2xlarge"}
		after["ami_type"] = "AL2023_x86_64_STANDARD"
		after["capacity_type"] = "ON_DEMAND"
		after["labels"] = map[string]any{"role": "system"}
		after["taint"] = []any{}
		unknown := rc["change"].(map[string]any)["after_unknown"].(map[string]any)
		unknown["taint"] = []any{}
		return rc
	}
	panic("no aws_eks_node_group fixture")
}

// cpuNodePool is a fixture node pool on an n2 machine type without accelerators, labels or taints.
func cpuNodePool(pools []map[string]any) map[string]any {
	for _, p := range pools {
		if p["type"] != "google_container_node_pool" {
			continue
		}
		rc := deepCopy(p)
		rc["name"], rc["address"] = "cpu", "google_container_node_pool.cpu"
		after := rc["change"].(map[string]any)["after"].(map[string]any)
		nc := after["node_config"].([]any)[0].(map[string]any)
		nc["machine_type"] = "n2-standard-8"
		nc["guest_accelerator"] = []any{}
		nc["labels"] = map[string]any{"role": "system"}
		nc["taint"] = []any{}
		unknown := rc["change"].(map[string]any)["after_unknown"].(map[string]any)["node_config"].([]any)[0].(map[string]any)
		unknown["guest_accelerator"] = []any{}
		unknown["taint"] = []any{}
		return rc
	}
	panic("no google_container_node_pool fixture")
}

// cpuFixture tells the fixtures' node groups and node pools without GPUs (a system node group, a
// default pool) from the GPU ones.
func cpuFixture(rc map[string]any) bool {
	after, _ := rc["change"].(map[string]any)["after"].(map[string]any)
	for _, t := range asSlice(after["instance_types"]) {
		if s, _ := t.(string); strings.HasPrefix(s, "p") || strings.HasPrefix(s, "g") {
			return false
		}
	}
	for _, nc := range asSlice(after["node_config"]) {
		if len(asSlice(nc.(map[string]any)["guest_accelerator"])) > 0 {
			return false
		}
		if mt, _ := nc.(map[string]any)["machine_type"].(string); strings.HasPrefix(mt, "a") || strings.HasPrefix(mt, "g2") {
			return false
		}
	}
	return rc["type"] == "aws_eks_node_group" || rc["type"] == "google_container_node_pool"
}

// configBlock is a configuration block for a resource change: its planned values as constants.
func configBlock(rc map[string]any) map[string]any {
	after, _ := rc["change"].(map[string]any)["after"].(map[string]any)
	expressions := map[string]any{}
	for k, v := range after {
		if v != nil {
			expressions[k] = map[string]any{"constant_value": v}
		}
	}
	provider := strings.SplitN(rc["type"].(string), "_", 2)[0]
	return map[string]any{"address": rc["address"], "mode": "managed", "type": rc["type"], "name": rc["name"],
		"provider_config_key": provider, "expressions": expressions, "schema_version": 0,
		"for_each_expression": map[string]any{"references": []any{"var.pools"}}}
}

// configFor is the configuration block of a fixture's resource change.
func configFor(rc map[string]any, plans ...map[string]any) map[string]any {
	for _, p := range plans {
		if p == nil {
			continue
		}
		if cfg, ok := configResources(p)[rc["address"].(string)]; ok {
			return deepCopy(cfg)
		}
	}
	return configBlock(rc)
}

func plannedValue(rc map[string]any) map[string]any {
	change := rc["change"].(map[string]any)
	pv := map[string]any{"address": rc["address"], "mode": rc["mode"], "type": rc["type"], "name": rc["name"],
		"provider_name": rc["provider_name"], "schema_version": 0, "values": change["after"], "sensitive_values": change["after_sensitive"]}
	if idx, ok := rc["index"]; ok {
		pv["index"] = idx
	}
	return pv
}

// planSkeleton is a plan's top level without its resources: format, versions, variables and the
// provider configurations.
func planSkeleton(from map[string]any) map[string]any {
	plan := deepCopy(from)
	cfg, _ := plan["configuration"].(map[string]any)
	providers, _ := cfg["provider_config"].(map[string]any)
	if providers == nil {
		providers = map[string]any{}
	}
	for _, name := range []string{"helm", "google"} {
		if _, ok := providers[name]; !ok {
			providers[name] = map[string]any{"name": name, "full_name": "registry.terraform.io/hashicorp/" + name}
		}
	}
	plan["configuration"] = map[string]any{"provider_config": providers}
	return plan
}

// sortedConfigs is configuration blocks in the order of their addresses.
func sortedConfigs(m map[string]map[string]any) []any {
	out := make([]any, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

func writeJSON(path string, v any) error {
	out, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o600)
}

// TestBenchPlans_shapes checks the benchmark's plan shapes: a platform plan is one GPU pool in a
// hundred resources among the other types, and the small official plan's resource changes are as
// small as the providers write them.
func TestBenchPlans_shapes(t *testing.T) {
	dir := t.TempDir()
	platform, small := filepath.Join(dir, "platform.json"), filepath.Join(dir, "small.json")
	if err := writePlatformPlan(platform, 2000, nil); err != nil {
		t.Fatal(err)
	}
	if err := writeSmallOfficialPlan(small, 1000); err != nil {
		t.Fatal(err)
	}
	read := func(path string) (plan struct {
		ResourceChanges []map[string]any `json:"resource_changes"`
	}, size int) {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &plan); err != nil {
			t.Fatal(err)
		}
		for _, rc := range plan.ResourceChanges {
			b, _ := json.Marshal(rc)
			size += len(b)
		}
		return plan, size
	}
	p, _ := read(platform)
	types := map[string]int{}
	gpu := 0
	for _, rc := range p.ResourceChanges {
		types[rc["type"].(string)]++
		if !cpuFixture(rc) && (rc["type"] == "aws_eks_node_group" || rc["type"] == "google_container_node_pool") {
			gpu++
		}
	}
	if len(p.ResourceChanges) != 2000 || gpu != 2000/platformGPUShare {
		t.Errorf("platform plan: %d resources, %d GPU pools, want 2000 and %d", len(p.ResourceChanges), gpu, 2000/platformGPUShare)
	}
	for _, typ := range []string{"aws_iam_role_policy_attachment", "aws_security_group_rule", "aws_s3_bucket", "helm_release", "google_project_iam_member"} {
		if types[typ] < 2000/20 {
			t.Errorf("platform plan: %d %s, want at least %d", types[typ], typ, 2000/20)
		}
	}
	if types["aws_eks_node_group"]-gpu/2 < 2000/100 || types["google_container_node_pool"]-gpu/2 < 2000/100 {
		t.Errorf("platform plan: CPU node groups and node pools missing: %v", types)
	}
	s, size := read(small)
	if per := size / len(s.ResourceChanges); per < 1800 || per > 3000 {
		t.Errorf("small official plan: %d bytes per resource change, want about 2.5 KB", per)
	}
}

// officialFixtures are the committed plans of compliant and violating official node groups and
// node pools, and their resource changes.
func officialFixtures() (compliant, violating map[string]any, good, bad []map[string]any, err error) {
	if compliant, err = fixturePlans("aws_eks_node_group_compliant.json", "google_container_node_pool_compliant.json"); err != nil {
		return nil, nil, nil, nil, err
	}
	if violating, err = fixturePlans("aws_eks_node_group_violating.json", "google_container_node_pool_violating.json"); err != nil {
		return nil, nil, nil, nil, err
	}
	good, _ = planResources(compliant)
	bad, _ = planResources(violating)
	return compliant, violating, good, bad, nil
}
