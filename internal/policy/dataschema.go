package policy

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/gpufleet/terraform-provider-gpufleet/policies"
)

// dataSchema is policies/policy-data.schema.json, compiled once, with its subschemas by location
// (a validation error names the subschema that failed; messages use its properties and
// description).
type dataSchema struct {
	root       *jsonschema.Schema
	byLocation map[string]*jsonschema.Schema
}

var compiledDataSchema = sync.OnceValues(func() (*dataSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(policies.DataSchema))
	if err != nil {
		return nil, err
	}
	const url = "policy-data.schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	root, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	s := &dataSchema{root: root, byLocation: map[string]*jsonschema.Schema{}}
	s.index(root)
	return s, nil
})

func (s *dataSchema) index(sch *jsonschema.Schema) {
	if sch == nil || s.byLocation[sch.Location] != nil {
		return
	}
	s.byLocation[sch.Location] = sch
	s.index(sch.Ref)
	s.index(sch.PropertyNames)
	s.index(sch.Items2020)
	if add, ok := sch.AdditionalProperties.(*jsonschema.Schema); ok {
		s.index(add)
	}
	for _, p := range sch.Properties {
		s.index(p)
	}
}

// validateData returns every violation of the policy data schema in a JSON document, sorted by
// key path.
func validateData(r io.Reader) ([]DataProblem, error) {
	schema, err := compiledDataSchema()
	if err != nil {
		return nil, fmt.Errorf("policies/policy-data.schema.json: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(r)
	if err != nil {
		return nil, err
	}
	err = schema.root.Validate(doc)
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return nil, err
	}
	var problems []DataProblem
	schema.collect(doc, verr, &problems)
	slices.SortFunc(problems, func(a, b DataProblem) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Text, b.Text))
	})
	return slices.Compact(problems), nil
}

// collect turns the leaves of the library's error tree into problems in the user's terms.
func (s *dataSchema) collect(doc any, verr *jsonschema.ValidationError, out *[]DataProblem) {
	if _, ok := verr.ErrorKind.(*kind.PropertyNames); !ok && len(verr.Causes) > 0 {
		for _, cause := range verr.Causes {
			s.collect(doc, cause, out)
		}
		return
	}
	sch := s.byLocation[verr.SchemaURL]
	at := verr.InstanceLocation
	value := valueAt(doc, at)
	add := func(loc []string, format string, args ...any) {
		*out = append(*out, DataProblem{Key: keyPath(doc, loc), Text: fmt.Sprintf(format, args...)})
	}
	switch k := verr.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		for _, key := range k.Properties {
			add(append(slices.Clip(at), key), "unknown key; allowed: %s", strings.Join(propertyNames(sch), ", "))
		}
	case *kind.Required:
		for _, key := range k.Missing {
			add(append(slices.Clip(at), key), "required key missing")
		}
	case *kind.PropertyNames:
		add(append(slices.Clip(at), k.Property), "invalid key: must be %s", description(s.byLocation[verr.SchemaURL], "a valid key"))
	case *kind.Type:
		add(at, "must be %s, not %s", wantedType(k.Want, sch), typeName(k.Got, value))
	case *kind.Enum:
		allowed := make([]string, len(k.Want))
		for i, w := range k.Want {
			allowed[i] = fmt.Sprint(w)
		}
		add(at, "%s is not allowed; allowed: %s", display(value), strings.Join(allowed, ", "))
	case *kind.Pattern:
		add(at, "%s is not allowed: must be %s", display(value), description(sch, "a string matching "+k.Want))
	case *kind.MinItems:
		add(at, "has %d entries, needs at least %d (omit the key instead of an empty list)", k.Got, k.Want)
	case *kind.UniqueItems:
		add(at, "lists %s twice (entries %d and %d)", display(valueAt(doc, append(slices.Clip(at), strconv.Itoa(k.Duplicates[0])))), k.Duplicates[0], k.Duplicates[1])
	case *kind.MinLength:
		add(at, "is %d characters long, needs at least %d", k.Got, k.Want)
	case *kind.MaxLength:
		add(at, "is %d characters long, at most %d allowed", k.Got, k.Want)
	case *kind.Minimum:
		add(at, "%s is too small: must be at least %s", display(value), ratString(k.Want))
	case *kind.ExclusiveMinimum:
		add(at, "%s is too small: must be greater than %s", display(value), ratString(k.Want))
	case *kind.Maximum:
		add(at, "%s is too large: must be at most %s", display(value), ratString(k.Want))
	default:
		add(at, "%s", verr.ErrorKind.LocalizedString(message.NewPrinter(language.English)))
	}
}

// propertyNames are the keys an object schema allows, sorted.
func propertyNames(sch *jsonschema.Schema) []string {
	if sch == nil {
		return nil
	}
	names := make([]string, 0, len(sch.Properties))
	for name := range sch.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func description(sch *jsonschema.Schema, fallback string) string {
	if sch == nil || sch.Description == "" {
		return fallback
	}
	return sch.Description
}

var typeNames = map[string]string{
	"object": "an object", "array": "a list", "string": "a string", "number": "a number",
	"integer": "an integer", "boolean": "true or false", "null": "null",
}

func wantedType(want []string, sch *jsonschema.Schema) string {
	names := make([]string, len(want))
	for i, w := range want {
		names[i] = cmp.Or(typeNames[w], w)
	}
	out := strings.Join(names, " or ")
	if keys := propertyNames(sch); len(keys) > 0 && slices.Equal(want, []string{"object"}) {
		out += " with the keys " + strings.Join(keys, ", ")
	}
	return out
}

func typeName(got string, value any) string {
	if got == "null" {
		return "empty (null)"
	}
	if got == "object" || got == "array" {
		return cmp.Or(typeNames[got], got)
	}
	return cmp.Or(typeNames[got], got) + " " + display(value)
}

// display renders a scalar value of the document as the user wrote it.
func display(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func valueAt(doc any, loc []string) any {
	for _, tok := range loc {
		switch v := doc.(type) {
		case map[string]any:
			doc = v[tok]
		case []any:
			i, _ := strconv.Atoi(tok)
			if i < 0 || i >= len(v) {
				return nil
			}
			doc = v[i]
		default:
			return nil
		}
	}
	return doc
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// keyPath renders an instance location as the user would name it: gpufleet.clients.acme.cost_center,
// allowed_regions[0], clients["a.b"].
func keyPath(doc any, loc []string) string {
	if len(loc) == 0 {
		return "(top level)"
	}
	var b strings.Builder
	for _, tok := range loc {
		switch doc.(type) {
		case []any:
			b.WriteString("[" + tok + "]")
		default:
			if !plainKey.MatchString(tok) {
				b.WriteString("[" + strconv.Quote(tok) + "]")
				break
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
		}
		doc = valueAt(doc, []string{tok})
	}
	return b.String()
}
