package policy

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Data is the policy data (DESIGN.md §4): the same JSON/YAML files conftest reads with --data,
// whose top-level key is "gpufleet".
type Data struct {
	// Raw is the merged document, passed to OPA as data.
	Raw map[string]any
	// Registry is data.gpufleet.clients; nil when no file has clients.
	Registry pool.Registry
}

type dataFile struct {
	GPUFleet *struct {
		Clients    map[string]pool.Client `json:"clients"`
		Thresholds map[string]any         `json:"thresholds"`
	} `json:"gpufleet"`
}

// DataFileError names the file that could not be used.
type DataFileError struct {
	Index int
	Path  string
	Err   error
}

func (e *DataFileError) Error() string { return fmt.Sprintf("policy data file %q: %v", e.Path, e.Err) }
func (e *DataFileError) Unwrap() error { return e.Err }

// LoadData reads and merges policy data files in order; later files win on the same key.
func LoadData(paths []string) (Data, error) {
	out := Data{Raw: map[string]any{}}
	for i, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			return Data{}, &DataFileError{Index: i, Path: path, Err: err}
		}
		jsonDoc, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return Data{}, &DataFileError{Index: i, Path: path, Err: fmt.Errorf("not valid YAML or JSON: %w", err)}
		}
		var typed dataFile
		if err := json.Unmarshal(jsonDoc, &typed); err != nil {
			return Data{}, &DataFileError{Index: i, Path: path, Err: fmt.Errorf("does not match the policy data schema (policies/policy-data.schema.json): %w", err)}
		}
		if typed.GPUFleet == nil {
			return Data{}, &DataFileError{Index: i, Path: path, Err: fmt.Errorf(`has no top-level "gpufleet" key (see policies/examples/policy-data.yaml)`)}
		}
		if err := validateClients(typed.GPUFleet.Clients); err != nil {
			return Data{}, &DataFileError{Index: i, Path: path, Err: err}
		}
		var generic map[string]any
		if err := json.Unmarshal(jsonDoc, &generic); err != nil {
			return Data{}, &DataFileError{Index: i, Path: path, Err: err}
		}
		mergeInto(out.Raw, generic)
		if typed.GPUFleet.Clients != nil {
			if out.Registry == nil {
				out.Registry = pool.Registry{}
			}
			maps.Copy(out.Registry, typed.GPUFleet.Clients)
		}
	}
	return out, nil
}

func validateClients(clients map[string]pool.Client) error {
	for id, c := range clients {
		if !pool.ClientIDPattern.MatchString(id) {
			return fmt.Errorf("client id %q must be lowercase letters, digits, '-' or '_' (a label value)", id)
		}
		switch c.Isolation {
		case "", pool.IsolationDedicated, pool.IsolationMIG, pool.IsolationShared:
		default:
			return fmt.Errorf("clients.%s.isolation %q is not one of dedicated, mig, shared", id, c.Isolation)
		}
		if c.MonthlyBudgetUSD < 0 {
			return fmt.Errorf("clients.%s.monthly_budget_usd must not be negative", id)
		}
	}
	return nil
}

// mergeInto deep-merges src into dst: objects merge, anything else is replaced.
func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		if sub, ok := v.(map[string]any); ok {
			if existing, ok := dst[k].(map[string]any); ok {
				mergeInto(existing, sub)
				continue
			}
		}
		dst[k] = v
	}
}
