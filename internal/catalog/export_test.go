package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRegoExportIsCurrent is the drift check CI relies on: the committed policy data must be exactly
// what the catalog renders today; and the fit shortcuts' table bodies likewise.
func TestRegoExportIsCurrent(t *testing.T) {
	for path, export := range map[string]func() ([]byte, error){RegoExportPath: RegoExport, FitShortcutsPath: FitShortcutsExport} {
		want, err := export()
		if err != nil {
			t.Fatal(err)
		}
		stale := path + " is stale: run go generate ./internal/catalog"
		got, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
		if err != nil {
			t.Fatalf("%s\n(%v)", stale, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s\n%s", stale, firstDifference(got, want))
		}
	}
}

// firstDifference names the first line where the committed file and the fresh export differ.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			col := 0
			for col < min(len(gl), len(wl)) && gl[col] == wl[col] {
				col++
			}
			from := max(col-60, 0)
			return fmt.Sprintf("first difference at line %d, column %d:\n  committed: …%.120s\n  generated: …%.120s",
				i+1, col+1, gl[min(from, len(gl)):], wl[min(from, len(wl)):])
		}
	}
	return ""
}

// exportedRules splits the export into its header and rules (blocks separated by a blank line, each
// "# doc" lines then "name := value", or a table by key: "name[key] := json.unmarshal(entry) if …"
// and then the block "_name := {key: `entry`, …}" of its JSON texts, keyed one or two levels deep)
// and decodes each value, which also proves every value and entry is a JSON literal.
func exportedRules(t *testing.T) (header string, rules map[string]any) {
	t.Helper()
	out, err := RegoExport()
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(out), "\n\n")
	rules = map[string]any{}
	byKey := map[string]int{} // table -> its levels of keys
	rawString := regexp.MustCompile("`[^`]*`")
	for _, block := range blocks[1:] {
		for strings.HasPrefix(block, "#") {
			_, block, _ = strings.Cut(block, "\n")
		}
		name, value, ok := strings.Cut(block, " := ")
		if !ok {
			t.Fatalf("block is not a rule:\n%s", block)
		}
		if table, keys, ok := strings.Cut(name, "["); ok {
			want := map[int]string{1: fmt.Sprintf("json.unmarshal(entry) if some %s, entry in _%s", strings.TrimSuffix(keys, "]"), table)}[strings.Count(keys, "[")+1]
			if levels := strings.Count(keys, "[") + 1; levels == 2 {
				k := strings.Split(strings.Trim(keys, "]"), "][")
				want = fmt.Sprintf("json.unmarshal(entry) if {\n\tsome %s, entries in _%s\n\tsome %s, entry in entries\n}", k[0], table, k[1])
			}
			if strings.TrimRight(value, "\n") != want {
				t.Fatalf("rule %s: %q, want %q", name, value, want)
			}
			byKey[table] = strings.Count(keys, "[") + 1
			continue
		}
		if table, ok := strings.CutPrefix(name, "_"); ok {
			levels, ok := byKey[table]
			if !ok {
				t.Fatalf("the JSON texts _%s come before their table's rule or without one", table)
			}
			// The entries are raw strings: as JSON strings, the block is a JSON object of them.
			asJSON := rawString.ReplaceAllStringFunc(value, func(s string) string {
				q, _ := json.Marshal(strings.Trim(s, "`"))
				return string(q)
			})
			var texts map[string]any
			if err := json.Unmarshal([]byte(asJSON), &texts); err != nil {
				t.Fatalf("the JSON texts of %s: %v", table, err)
			}
			rules[table] = decodeEntries(t, table, texts, levels)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(value), &v); err != nil {
			t.Fatalf("rule %s is not a JSON literal: %v", name, err)
		}
		rules[name] = v
	}
	for table := range byKey {
		if _, ok := rules[table]; !ok {
			t.Errorf("table %s has no JSON texts", table)
		}
	}
	return blocks[0] + "\n", rules
}

// decodeEntries decodes the JSON texts of a table by key, levels deep.
func decodeEntries(t *testing.T, table string, texts map[string]any, levels int) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, v := range texts {
		if levels > 1 {
			inner, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%s[%s] is not an object of JSON texts", table, k)
			}
			out[k] = decodeEntries(t, table+"["+k+"]", inner, levels-1)
			continue
		}
		text, ok := v.(string)
		if !ok {
			t.Fatalf("%s[%s] is not a JSON text", table, k)
		}
		var entry any
		if err := json.Unmarshal([]byte(text), &entry); err != nil {
			t.Fatalf("%s[%s] is not a JSON literal: %v", table, k, err)
		}
		out[k] = entry
	}
	return out
}

func TestRegoExportContent(t *testing.T) {
	a, _ := RegoExport()
	b, _ := RegoExport()
	if !bytes.Equal(a, b) {
		t.Fatal("RegoExport is not deterministic")
	}
	header, rules := exportedRules(t)
	if !strings.HasPrefix(header, "# Code generated by internal/catalog/gen; DO NOT EDIT.\n") || !strings.Contains(header, "\npackage gpufleet.catalog\n") {
		t.Errorf("header:\n%s", header)
	}
	for _, r := range []string{"gpus", "aws_instance_types", "gke_machine_types", "gke_accelerators", "hours_per_month"} {
		if _, ok := rules[r]; !ok {
			t.Errorf("rule %s missing", r)
		}
	}
	if rules["hours_per_month"] != float64(HoursPerMonth) {
		t.Errorf("hours_per_month = %v", rules["hours_per_month"])
	}

	get := func(path ...string) any {
		var v any = rules
		for _, p := range path {
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: %s is not in an object", path, p)
			}
			v = m[p]
		}
		return v
	}
	tests := []struct {
		path []string
		want any
	}{
		{[]string{"gpus", "H100-80GB", "mig_profiles", "1g.10gb", "max_instances"}, 7.0},
		{[]string{"gpus", "H200-141GB", "mig_profiles", "3g.71gb", "compute_slices"}, 3.0},
		{[]string{"gpus", "A30", "class"}, "inference"},
		{[]string{"gpus", "A10G", "gke_accelerator"}, nil},
		{[]string{"aws_instance_types", "p5.48xlarge", "gpu_count"}, 8.0},
		{[]string{"aws_instance_types", "p5.48xlarge", "family"}, "p5"},
		{[]string{"gke_machine_types", "a3-highgpu-8g", "accelerator"}, "nvidia-h100-80gb"},
		{[]string{"gke_machine_types", "n1-standard-8", "gpu_model"}, nil},
		{[]string{"gke_machine_types", "n1-standard-8", "gpu_count"}, 0.0},
		{[]string{"gke_machine_types", "n1-standard-8", "prices", "us-central1", "on_demand_usd"}, 0.38},
		{[]string{"gke_accelerators", "nvidia-tesla-t4", "gpu_model"}, "T4"},
		{[]string{"gke_accelerators", "nvidia-tesla-t4", "prices", "us-central1", "on_demand_usd"}, 0.35},
		{[]string{"gke_accelerators", "nvidia-h100-mega-80gb", "gpu_model"}, "H100-80GB"},
	}
	for _, tt := range tests {
		if got := get(tt.path...); got != tt.want {
			t.Errorf("%s = %v, want %v", strings.Join(tt.path, "."), got, tt.want)
		}
	}

	// Every node type and every price row is in the export with the catalog's numbers.
	for _, n := range NodeTypes(AWS) {
		for _, p := range n.Prices {
			if get("aws_instance_types", n.Name, "prices", p.Region, "on_demand_usd") != p.OnDemandUSD ||
				get("aws_instance_types", n.Name, "prices", p.Region, "spot_usd") != p.SpotUSD {
				t.Errorf("%s %s: export differs from catalog", n.Name, p.Region)
			}
		}
	}
	for _, n := range NodeTypes(GCP) {
		if n.Family == "n1" {
			counts, _ := get("gke_machine_types", n.Name, "attachable_accelerators", n.Accelerator).([]any)
			found := false
			for _, c := range counts {
				found = found || c == float64(n.GPUCount)
			}
			if !found {
				t.Errorf("%s: %d x %s not attachable in the export", n.Name, n.GPUCount, n.Accelerator)
			}
			continue
		}
		for _, p := range n.Prices {
			if get("gke_machine_types", n.Name, "prices", p.Region, "on_demand_usd") != p.OnDemandUSD {
				t.Errorf("%s %s: export differs from catalog", n.Name, p.Region)
			}
		}
	}
	if got, want := len(get("gpus").(map[string]any)), len(GPUs()); got != want {
		t.Errorf("%d GPUs exported, want %d", got, want)
	}
}
