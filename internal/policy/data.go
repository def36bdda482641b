package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
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
	GPUFleet struct {
		Clients map[string]pool.Client `json:"clients"`
	} `json:"gpufleet"`
}

// DataFileError names the file that could not be used: either Err (unreadable, not YAML or JSON)
// or the file's Problems with policies/policy-data.schema.json.
type DataFileError struct {
	Index    int
	Path     string
	Err      error
	Problems []DataProblem
}

// DataProblem is one violation of the policy data schema.
type DataProblem struct {
	// Key is the path of the offending key in the file, such as gpufleet.clients.acme.cost_centre.
	Key string
	// Text says what is wrong and what is allowed.
	Text string
}

// Lines are the error's messages, one per problem, each naming the file.
func (e *DataFileError) Lines() []string {
	prefix := fmt.Sprintf("policy data file %q: ", e.Path)
	if len(e.Problems) == 0 {
		return []string{prefix + e.Err.Error()}
	}
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = prefix + p.Key + ": " + p.Text
	}
	return lines
}

func (e *DataFileError) Error() string { return strings.Join(e.Lines(), "\n") }
func (e *DataFileError) Unwrap() error { return e.Err }

// DataFileErrors returns the DataFileErrors in an error of LoadData, in file order.
func DataFileErrors(err error) []*DataFileError {
	var out []*DataFileError
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			out = append(out, DataFileErrors(e)...)
		}
	} else if fe := (*DataFileError)(nil); errors.As(err, &fe) {
		out = append(out, fe)
	}
	return out
}

// LoadData reads, validates against policies/policy-data.schema.json and merges policy data
// files in order, as OPA (conftest --data) merges data files: objects merge key by key, and a key
// that two files set to a value that is not an object on both sides (a threshold, a client's
// allowed_regions) is an error of the later file, where conftest fails with "merge error". So a
// client split over two files is one client with the fields of both, never the last file's alone
// (which could drop its allowed_regions). Every file is checked: the error joins a *DataFileError
// per unusable file (see DataFileErrors).
func LoadData(paths []string) (Data, error) {
	out := Data{Raw: map[string]any{}}
	var errs []error
	setBy := map[string]string{} // key path -> the file that set it
	for i, path := range paths {
		jsonDoc, problems, err := readDataFile(path)
		if err != nil || len(problems) > 0 {
			errs = append(errs, &DataFileError{Index: i, Path: path, Err: err, Problems: problems})
			continue
		}
		var generic map[string]any
		if err := json.Unmarshal(jsonDoc, &generic); err != nil {
			errs = append(errs, &DataFileError{Index: i, Path: path, Err: err})
			continue
		}
		if conflicts := mergeData(out.Raw, generic, "", path, setBy); len(conflicts) > 0 {
			errs = append(errs, &DataFileError{Index: i, Path: path, Problems: conflicts})
		}
	}
	if len(errs) > 0 {
		return Data{}, errors.Join(errs...)
	}
	// The registry is read from the merged data, the same data the rules read.
	merged, err := json.Marshal(out.Raw)
	if err != nil {
		return Data{}, err
	}
	var typed dataFile
	if err := json.Unmarshal(merged, &typed); err != nil {
		return Data{}, err
	}
	if typed.GPUFleet.Clients != nil {
		out.Registry = pool.Registry{}
		maps.Copy(out.Registry, typed.GPUFleet.Clients)
	}
	return out, nil
}

// readDataFile returns the file as JSON and its problems with the policy data schema.
func readDataFile(path string) ([]byte, []DataProblem, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	duplicates, err := yamlStructure(raw)
	if err != nil || len(duplicates) > 0 {
		return nil, duplicates, err
	}
	jsonDoc, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("not valid YAML or JSON: %w", err)
	}
	problems, err := validateData(bytes.NewReader(jsonDoc))
	return jsonDoc, problems, err
}

// yamlStructure checks what the conversion to JSON would hide: a file of several YAML documents
// (all but the first would be dropped) and a key given twice in one mapping, such as a client
// listed twice (the last would win, and could loosen its residency), each a problem naming the key
// and both lines. JSON is YAML, so JSON files are checked the same way.
func yamlStructure(raw []byte) ([]DataProblem, error) {
	dec := yamlv3.NewDecoder(bytes.NewReader(raw))
	var docs []*yamlv3.Node
	for {
		var doc yamlv3.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not valid YAML or JSON: %w", err)
		}
		if !emptyDocument(&doc) { // such as after a final ---
			docs = append(docs, &doc)
		}
	}
	if len(docs) > 1 {
		return nil, fmt.Errorf("holds %d YAML documents (separated by ---), and only the first would be read: a policy data file is one document; merge them, or give each its own file", len(docs))
	}
	var problems []DataProblem
	var walk func(n *yamlv3.Node, path string)
	walk = func(n *yamlv3.Node, path string) {
		switch n.Kind {
		case yamlv3.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yamlv3.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i))
			}
		case yamlv3.MappingNode:
			seen := map[string]*yamlv3.Node{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				key := k.Value
				if path != "" {
					key = path + "." + k.Value
				}
				if first, ok := seen[k.Value]; ok {
					where := fmt.Sprintf("lines %d and %d", first.Line, k.Line)
					if first.Line == k.Line {
						where = fmt.Sprintf("line %d, columns %d and %d", k.Line, first.Column, k.Column)
					}
					problems = append(problems, DataProblem{Key: key, Text: fmt.Sprintf("given twice (%s), and only the last would be read: keep one", where)})
				} else {
					seen[k.Value] = k
				}
				walk(v, key)
			}
		}
	}
	if len(docs) == 1 {
		walk(docs[0], "")
	}
	return problems, nil
}

func emptyDocument(doc *yamlv3.Node) bool {
	return len(doc.Content) == 0 || len(doc.Content) == 1 && doc.Content[0].Kind == yamlv3.ScalarNode && doc.Content[0].Tag == "!!null" && doc.Content[0].Value == ""
}

// mergeData deep-merges src (the file at path) into dst as OPA merges data documents: objects merge,
// and a key already set by an earlier file where either side is not an object is a conflict, reported
// with the file that set it first (setBy, by key path).
func mergeData(dst, src map[string]any, prefix, path string, setBy map[string]string) []DataProblem {
	var conflicts []DataProblem
	for _, k := range slices.Sorted(maps.Keys(src)) {
		v := src[k]
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		existing, seen := dst[k]
		sub, isObj := v.(map[string]any)
		if seen {
			if old, ok := existing.(map[string]any); ok && isObj {
				conflicts = append(conflicts, mergeData(old, sub, key, path, setBy)...)
				continue
			}
			conflicts = append(conflicts, DataProblem{Key: key, Text: fmt.Sprintf("also set by policy data file %q: a key is set by one file only (conftest --data fails on the two with \"merge error\"); keep one", setBy[key])})
			continue
		}
		dst[k] = v
		markSet(setBy, key, v, path)
	}
	return conflicts
}

// markSet records path as the file that set key and every key below it.
func markSet(setBy map[string]string, key string, v any, path string) {
	setBy[key] = path
	if m, ok := v.(map[string]any); ok {
		for k, e := range m {
			markSet(setBy, key+"."+k, e, path)
		}
	}
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
