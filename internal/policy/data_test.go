package policy_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/policies"
)

// Every violation of policies/policy-data.schema.json is one message naming the file, the key
// path and what is allowed.
func TestLoadData_schemaViolations(t *testing.T) {
	const clientKeys = "allowed_regions, cost_center, isolation, monthly_budget_usd"
	cases := map[string]struct {
		data string
		want []string // after `policy data file "<file>": `
	}{
		"unknown client key": {
			"gpufleet:\n  clients:\n    acme: { cost_centre: cc-1 }\n",
			[]string{"gpufleet.clients.acme.cost_centre: unknown key; allowed: " + clientKeys},
		},
		"unknown key under gpufleet": {
			"gpufleet:\n  client: {}\n",
			[]string{"gpufleet.client: unknown key; allowed: clients, clusters, thresholds, utilization"},
		},
		"unknown top-level key": {
			"gpufleet: {}\nthresholds: { oversize_factor: 2 }\n",
			[]string{"thresholds: unknown key; allowed: gpufleet"},
		},
		"unknown threshold": {
			"gpufleet:\n  thresholds: { oversize: 2 }\n",
			[]string{"gpufleet.thresholds.oversize: unknown key; allowed: low_utilization_percent, memory_headroom_percent, oversize_factor"},
		},
		"empty allowed_regions": {
			"gpufleet:\n  clients:\n    acme: { allowed_regions: [] }\n",
			[]string{"gpufleet.clients.acme.allowed_regions: has 0 entries, needs at least 1 (omit the key instead of an empty list)"},
		},
		"allowed_regions not globs": {
			"gpufleet:\n  clients:\n    acme: { allowed_regions: [\"EU-*\", \"eu-*\", \"eu-*\", 3] }\n",
			[]string{
				`gpufleet.clients.acme.allowed_regions: lists "eu-*" twice (entries 1 and 2)`,
				`gpufleet.clients.acme.allowed_regions[0]: "EU-*" is not allowed: must be a region or zone glob: lower-case letters, digits, '-', and the wildcards '*' and '?', such as eu-*, europe-west4 or us-east-?`,
				"gpufleet.clients.acme.allowed_regions[3]: must be a string, not a number 3",
			},
		},
		"oversize_factor 1": {
			"gpufleet:\n  thresholds: { oversize_factor: 1 }\n",
			[]string{"gpufleet.thresholds.oversize_factor: 1 is too small: must be greater than 1"},
		},
		"oversize_factor 0.5": {
			"gpufleet:\n  thresholds: { oversize_factor: 0.5 }\n",
			[]string{"gpufleet.thresholds.oversize_factor: 0.5 is too small: must be greater than 1"},
		},
		"memory_headroom_percent 60": {
			"gpufleet:\n  thresholds: { memory_headroom_percent: 60 }\n",
			[]string{"gpufleet.thresholds.memory_headroom_percent: 60 is too large: must be at most 50"},
		},
		"oversize_factor a string": {
			"gpufleet:\n  thresholds: { oversize_factor: \"4\" }\n",
			[]string{`gpufleet.thresholds.oversize_factor: must be a number, not a string "4"`},
		},
		"wrong isolation": {
			"gpufleet:\n  clients:\n    acme: { isolation: private }\n",
			[]string{`gpufleet.clients.acme.isolation: "private" is not allowed; allowed: dedicated, mig, shared`},
		},
		"non-object client": {
			"gpufleet:\n  clients:\n    acme: dedicated\n",
			[]string{`gpufleet.clients.acme: must be an object with the keys ` + clientKeys + `, not a string "dedicated"`},
		},
		"empty clients": {
			"gpufleet:\n  clients:\n",
			[]string{"gpufleet.clients: must be an object, not empty (null)"},
		},
		"zero budget": {
			"gpufleet:\n  clients:\n    acme: { monthly_budget_usd: 0, cost_center: \"\" }\n",
			[]string{
				"gpufleet.clients.acme.cost_center: is 0 characters long, needs at least 1",
				"gpufleet.clients.acme.monthly_budget_usd: 0 is too small: must be greater than 0",
			},
		},
		"bad client id": {
			"gpufleet:\n  clients:\n    Acme: {}\n    a.b: {}\n",
			[]string{
				`gpufleet.clients.Acme: invalid key: must be a client id: 1 to 63 lower-case letters, digits, '-' and '_', starting and ending with a letter or digit (client ids end up in Kubernetes labels, GKE resource labels and AWS tags)`,
				`gpufleet.clients["a.b"]: invalid key: must be a client id: 1 to 63 lower-case letters, digits, '-' and '_', starting and ending with a letter or digit (client ids end up in Kubernetes labels, GKE resource labels and AWS tags)`,
			},
		},
		"no gpufleet key": {
			"clients: {}\n",
			[]string{"clients: unknown key; allowed: gpufleet", "gpufleet: required key missing"},
		},
		"not an object": {
			"- gpufleet\n",
			[]string{"(top level): must be an object with the keys gpufleet, not a list"},
		},
		"a client listed twice": {
			"gpufleet:\n  clients:\n    acme:\n      allowed_regions: [\"eu-*\"]\n    acme:\n      allowed_regions: [\"*\"]\n",
			[]string{"gpufleet.clients.acme: given twice (lines 3 and 5), and only the last would be read: keep one"},
		},
		"a key twice in JSON": {
			`{"gpufleet": {"clients": {"acme": {}, "acme": {"isolation": "shared"}}}}`,
			[]string{"gpufleet.clients.acme: given twice (line 1, columns 27 and 39), and only the last would be read: keep one"},
		},
		"two YAML documents": {
			"gpufleet:\n  clients:\n    acme: {}\n---\ngpufleet:\n  clients:\n    evil: {}\n",
			[]string{"holds 2 YAML documents (separated by ---), and only the first would be read: a policy data file is one document; merge them, or give each its own file"},
		},
		"all problems, not only the first": {
			"gpufleet:\n  clients:\n    acme: { cost_centre: cc-1, allowed_regions: [], isolation: private }\n    globex: { isolation: none }\n  thresholds: { oversize_factor: 1 }\n",
			[]string{
				"gpufleet.clients.acme.allowed_regions: has 0 entries, needs at least 1 (omit the key instead of an empty list)",
				"gpufleet.clients.acme.cost_centre: unknown key; allowed: " + clientKeys,
				`gpufleet.clients.acme.isolation: "private" is not allowed; allowed: dedicated, mig, shared`,
				`gpufleet.clients.globex.isolation: "none" is not allowed; allowed: dedicated, mig, shared`,
				"gpufleet.thresholds.oversize_factor: 1 is too small: must be greater than 1",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := acctest.WriteFile(t, "data.yaml", tc.data)
			_, err := policy.LoadData([]string{path})
			fileErrs := policy.DataFileErrors(err)
			if len(fileErrs) != 1 {
				t.Fatalf("want one DataFileError, got %v", err)
			}
			want := make([]string, len(tc.want))
			for i, w := range tc.want {
				want[i] = `policy data file "` + path + `": ` + w
			}
			if got := fileErrs[0].Lines(); !slices.Equal(got, want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if err.Error() != strings.Join(want, "\n") {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

func TestLoadData_validFiles(t *testing.T) {
	more := acctest.WriteFile(t, "more.json", `{"gpufleet": {"clients": {"hooli": {"allowed_regions": ["us-*"]}}}}`)
	data, err := policy.LoadData([]string{"../../policies/examples/policy-data.yaml", more})
	if err != nil {
		t.Fatal(err)
	}
	if got := data.Registry["globex"].Isolation; got != "mig" {
		t.Errorf("globex isolation = %q", got)
	}
	if got := data.Registry["hooli"].AllowedRegions; !slices.Equal(got, []string{"us-*"}) {
		t.Errorf("hooli allowed_regions = %v, want the second file's", got)
	}
	if got := data.Raw["gpufleet"].(map[string]any)["thresholds"]; got.(map[string]any)["oversize_factor"] != 4.0 {
		t.Errorf("thresholds = %v", got)
	}
}

// Files merge as OPA merges conftest's --data files: a client split over two files has the fields
// of both (the registry too, so its allowed_regions are never dropped), and a key two files set is
// an error of the later one, where conftest fails with "merge error".
func TestLoadData_filesMergeAsConftestMergesThem(t *testing.T) {
	regions := acctest.WriteFile(t, "regions.yaml", "gpufleet:\n  clients:\n    acme: { allowed_regions: [\"eu-*\"] }\n  thresholds: { oversize_factor: 4 }\n")
	isolation := acctest.WriteFile(t, "isolation.yaml", "gpufleet:\n  clients:\n    acme: { isolation: shared }\n")
	data, err := policy.LoadData([]string{regions, isolation})
	if err != nil {
		t.Fatal(err)
	}
	if acme := data.Registry["acme"]; !slices.Equal(acme.AllowedRegions, []string{"eu-*"}) || acme.Isolation != "shared" {
		t.Errorf("acme = %+v, want the fields of both files", acme)
	}
	again := acctest.WriteFile(t, "again.yaml", "gpufleet:\n  clients:\n    acme: { allowed_regions: [\"*\"] }\n  thresholds: { oversize_factor: 2 }\n")
	_, err = policy.LoadData([]string{regions, again})
	fileErrs := policy.DataFileErrors(err)
	if len(fileErrs) != 1 || fileErrs[0].Index != 1 {
		t.Fatalf("got %v", err)
	}
	want := []string{
		fmt.Sprintf(`policy data file %q: gpufleet.clients.acme.allowed_regions: also set by policy data file %q: a key is set by one file only (conftest --data fails on the two with "merge error"); keep one`, again, regions),
		fmt.Sprintf(`policy data file %q: gpufleet.thresholds.oversize_factor: also set by policy data file %q: a key is set by one file only (conftest --data fails on the two with "merge error"); keep one`, again, regions),
	}
	if got := fileErrs[0].Lines(); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The second file is the bad one: the error names it and its index, for policy.data_files[1].
func TestLoadData_secondFileBad(t *testing.T) {
	bad := acctest.WriteFile(t, "bad.yaml", "gpufleet:\n  clients:\n    acme: { cost_centre: cc-1 }\n")
	_, err := policy.LoadData([]string{"../../policies/examples/policy-data.yaml", bad})
	fileErrs := policy.DataFileErrors(err)
	if len(fileErrs) != 1 || fileErrs[0].Index != 1 || fileErrs[0].Path != bad {
		t.Fatalf("got %#v", fileErrs)
	}
	want := `policy data file "` + bad + `": gpufleet.clients.acme.cost_centre: unknown key; allowed: allowed_regions, cost_center, isolation, monthly_budget_usd`
	if err.Error() != want {
		t.Errorf("got %q\nwant %q", err.Error(), want)
	}
}

// Every file is checked, not just up to the first bad one.
func TestLoadData_everyBadFileReported(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	broken := acctest.WriteFile(t, "broken.yaml", "gpufleet: [unclosed")
	bad := acctest.WriteFile(t, "bad.yaml", "gpufleet:\n  thresholds: { oversize_factor: 0.5 }\n")
	_, err := policy.LoadData([]string{missing, "../../policies/examples/policy-data.yaml", broken, bad})
	var got []string
	for _, fe := range policy.DataFileErrors(err) {
		got = append(got, fe.Path)
	}
	if want := []string{missing, broken, bad}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v (%v)", got, want, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "no such file") || !strings.Contains(msg, "not valid YAML or JSON") {
		t.Errorf("got %q", msg)
	}
}

// The schema agrees with what reads the data: its client id pattern is the one the resources
// validate, every key it allows is read by the bundle's rules, and every policy-data key the rules
// read (data.gpufleet.<key>, data.gpufleet.thresholds.<key>, clients[<id>].<key>) is in it.
func TestDataSchema_agreesWithBundleAndResources(t *testing.T) {
	type object struct {
		Properties    map[string]json.RawMessage `json:"properties"`
		PropertyNames struct {
			Pattern string `json:"pattern"`
		} `json:"propertyNames"`
	}
	var schema struct {
		Properties struct {
			GPUFleet object `json:"gpufleet"`
		} `json:"properties"`
		Defs struct {
			Client, Thresholds object
		} `json:"$defs"`
	}
	if err := json.Unmarshal(policies.DataSchema, &schema); err != nil {
		t.Fatal(err)
	}
	gpufleet := schema.Properties.GPUFleet
	var clients object
	if err := json.Unmarshal(gpufleet.Properties["clients"], &clients); err != nil {
		t.Fatal(err)
	}
	if got, want := clients.PropertyNames.Pattern, pool.ClientIDPattern.String(); got != want {
		t.Errorf("schema client id pattern %s, resources validate %s", got, want)
	}

	var rego strings.Builder
	packages := map[string]bool{}
	err := fs.WalkDir(policies.Bundle, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".rego") || strings.HasSuffix(path, "_test.rego") {
			return err
		}
		src, err := fs.ReadFile(policies.Bundle, path)
		if m := regexp.MustCompile(`(?m)^package gpufleet\.(\w+)`).FindSubmatch(src); m != nil {
			packages[string(m[1])] = true
		}
		rego.Write(src)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	read := func(pattern string) []string {
		var keys []string
		for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(rego.String(), -1) {
			if !packages[m[1]] {
				keys = append(keys, m[1])
			}
		}
		slices.Sort(keys)
		return slices.Compact(keys)
	}
	allowed := func(o object) []string { return slices.Sorted(maps.Keys(o.Properties)) }
	for _, c := range []struct {
		what       string
		read, keys []string
	}{
		{"data.gpufleet", read(`data\.gpufleet\.(\w+)`), allowed(gpufleet)},
		{"data.gpufleet.thresholds", read(`data\.gpufleet\.thresholds\.(\w+)`), allowed(schema.Defs.Thresholds)},
		{"clients[_]", read(`clients\[[^\]]+\]\.(\w+)`), allowed(schema.Defs.Client)},
	} {
		for _, k := range c.read {
			if !slices.Contains(c.keys, k) {
				t.Errorf("the bundle reads %s.%s, which the schema does not allow (%v)", c.what, k, c.keys)
			}
		}
		for _, k := range c.keys {
			if !strings.Contains(rego.String(), "."+k) {
				t.Errorf("the schema allows %s.%s, which no rule reads", c.what, k)
			}
		}
	}
}

// The policy data reference (and policies/README.md) quote the messages of a file with a misspelt
// key and an isolation the schema does not allow: each line is what the check prints for it.
func TestLoadData_messagesTheDocsQuote(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "policy-data.yaml")
	if err := os.WriteFile(file, []byte("gpufleet:\n  clients:\n    acme:\n      cost_centre: cc-1001\n      isolation: private\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := policy.LoadData([]string{file})
	if err == nil {
		t.Fatal("the file is valid")
	}
	got := strings.ReplaceAll(err.Error(), file, "policy-data.yaml")
	for _, doc := range []string{"../../templates/guides/policy-data-reference.md.tmpl", "../../policies/README.md"} {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		quoted := 0
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(line, `policy data file "policy-data.yaml": gpufleet.clients.acme.`) && (strings.Contains(line, "cost_centre") || strings.Contains(line, `"private"`)) {
				quoted++
				if !strings.Contains(got, line) {
					t.Errorf("%s quotes %q; the check prints:\n%s", doc, line, got)
				}
			}
		}
		if quoted != 2 {
			t.Errorf("%s quotes %d of the two messages", doc, quoted)
		}
	}
}
