package cloudsim

import (
	"encoding/base64"
	"encoding/xml"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The EC2 Query protocol (EC2 API Reference: "Making requests — Query requests"; smithy
// aws.protocols#ec2Query): requests are form-encoded Action=...&Version=... with dotted member
// paths and 1-based list indices ("LaunchTemplateData.TagSpecification.1.Tag.1.Key"); responses
// are XML in the 2016-11-15 namespace, lists as <xxxSet><item>...</item></xxxSet>.

const ec2Namespace = "http://ec2.amazonaws.com/doc/2016-11-15/"

// parseQueryTree turns form values into a tree of map[string]any (structures), []any (lists,
// from numeric path segments) and string leaves. Action and Version are left out.
func parseQueryTree(form url.Values) map[string]any {
	root := map[string]any{}
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "Action" || k == "Version" {
			continue
		}
		insertPath(root, strings.Split(k, "."), form.Get(k))
	}
	return listify(root).(map[string]any)
}

func insertPath(node map[string]any, path []string, value string) {
	for i, seg := range path {
		if i == len(path)-1 {
			node[seg] = value
			return
		}
		child, ok := node[seg].(map[string]any)
		if !ok {
			child = map[string]any{}
			node[seg] = child
		}
		node = child
	}
}

// listify converts maps whose keys are all list indices into lists ordered by index.
func listify(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for k, c := range m {
		m[k] = listify(c)
	}
	if len(m) == 0 {
		return m
	}
	idx := make([]int, 0, len(m))
	for k := range m {
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 {
			return m
		}
		idx = append(idx, n)
	}
	sort.Ints(idx)
	list := make([]any, 0, len(idx))
	for _, n := range idx {
		list = append(list, m[strconv.Itoa(n)])
	}
	return list
}

// treeValue looks up a dotted path in a request tree; numeric segments are 1-based list
// indices, as on the wire.
func treeValue(tree map[string]any, path string) any {
	var cur any = tree
	for _, seg := range strings.Split(path, ".") {
		switch node := cur.(type) {
		case map[string]any:
			cur = node[seg]
		case []any:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 1 || n > len(node) {
				return nil
			}
			cur = node[n-1]
		default:
			return nil
		}
	}
	return cur
}

// treeString returns the string at a path, or "".
func treeString(tree map[string]any, path string) string {
	s, _ := treeValue(tree, path).(string)
	return s
}

// treeList returns the list at a path (a single value counts as a one-element list).
func treeList(tree map[string]any, path string) []any {
	switch v := treeValue(tree, path).(type) {
	case []any:
		return v
	case nil:
		return nil
	default:
		return []any{v}
	}
}

// treeStrings returns the strings of a list of scalars ("SubnetId.1", "SubnetId.2").
func treeStrings(tree map[string]any, path string) []string {
	var out []string
	for _, v := range treeList(tree, path) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// ec2Filter is one Filter.N entry.
type ec2Filter struct {
	name   string
	values []string
}

func parseFilters(tree map[string]any) []ec2Filter {
	var fs []ec2Filter
	for _, item := range treeList(tree, "Filter") {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		f := ec2Filter{name: treeString(m, "Name")}
		f.values = treeStrings(m, "Value")
		fs = append(fs, f)
	}
	return fs
}

// xmlBuilder writes the small, fixed XML documents of the EC2 responses.
type xmlBuilder struct{ strings.Builder }

func (b *xmlBuilder) open(name string)  { b.WriteString("<" + name + ">") }
func (b *xmlBuilder) close(name string) { b.WriteString("</" + name + ">") }

func (b *xmlBuilder) leaf(name, value string) {
	b.open(name)
	_ = xml.EscapeText(b, []byte(value))
	b.close(name)
}

func (b *xmlBuilder) leafIf(name, value string) {
	if value != "" {
		b.leaf(name, value)
	}
}

func (b *xmlBuilder) tagSet(tags map[string]string) {
	b.open("tagSet")
	for _, k := range sortedKeys(tags) {
		b.open("item")
		b.leaf("key", k)
		b.leaf("value", tags[k])
		b.close("item")
	}
	b.close("tagSet")
}

// ec2Time is the EC2 XML timestamp format (ISO 8601 with milliseconds, UTC).
func ec2Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// ec2Envelope wraps a response body: <ActionResponse xmlns=...><requestId/>...</ActionResponse>.
func ec2Envelope(action string, body func(b *xmlBuilder)) []byte {
	var b xmlBuilder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString("<" + action + `Response xmlns="` + ec2Namespace + `">`)
	b.leaf("requestId", newUUID())
	body(&b)
	b.close(action + "Response")
	return []byte(b.String())
}

// ec2ErrorDocument is the EC2 error response (EC2 API Reference: Error codes — "Error response").
func ec2ErrorDocument(code, message string) []byte {
	var b xmlBuilder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.open("Response")
	b.open("Errors")
	b.open("Error")
	b.leaf("Code", code)
	b.leaf("Message", message)
	b.close("Error")
	b.close("Errors")
	b.leaf("RequestID", newUUID())
	b.close("Response")
	return []byte(b.String())
}

// listResponseNames are the request list members whose response element is not the generic
// <lowerCamel(name)Set><item>: the list element name and the item element name (EC2 API
// Reference: ResponseLaunchTemplateData, LaunchTemplateInstanceNetworkInterfaceSpecification).
var listResponseNames = map[string][2]string{
	"LicenseSpecification":             {"licenseSet", "item"},
	"NetworkInterface.SecurityGroupId": {"groupSet", "groupId"},
}

// writeTree renders request-shaped launch template data in the response shape: member names
// lowerCamelCased, lists as <nameSet><item>..</item></nameSet>.
func writeTree(b *xmlBuilder, parent, key string, v any) {
	switch node := v.(type) {
	case string:
		b.leaf(lowerFirst(key), node)
	case map[string]any:
		b.open(lowerFirst(key))
		for _, k := range sortedKeys(node) {
			writeTree(b, key, k, node[k])
		}
		b.close(lowerFirst(key))
	case []any:
		names, ok := listResponseNames[parent+"."+key]
		if !ok {
			names, ok = listResponseNames[key]
		}
		if !ok {
			names = [2]string{lowerFirst(key) + "Set", "item"}
		}
		b.open(names[0])
		for _, item := range node {
			writeItem(b, key, names[1], item)
		}
		b.close(names[0])
	}
}

func writeItem(b *xmlBuilder, key, itemName string, item any) {
	switch it := item.(type) {
	case string:
		b.leaf(itemName, it)
	case map[string]any:
		b.open(itemName)
		for _, k := range sortedKeys(it) {
			writeTree(b, key, k, it[k])
		}
		b.close(itemName)
	}
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

// matchFilters applies EC2 filters: every filter must match, a filter matches when any of its
// values (with * and ? wildcards) matches any of the resource's values. An unknown filter name
// is InvalidParameterValue, as in the real API.
func matchFilters(filters []ec2Filter, values func(name string) ([]string, bool)) (bool, *apiError) {
	for _, f := range filters {
		have, known := values(f.name)
		if !known {
			return false, ec2Invalid("The filter '%s' is invalid", f.name)
		}
		if !anyMatch(f.values, have) {
			return false, nil
		}
	}
	return true, nil
}

func anyMatch(patterns, values []string) bool {
	for _, p := range patterns {
		for _, v := range values {
			if ok, _ := path.Match(p, v); ok || p == v {
				return true
			}
		}
	}
	return false
}

// ec2Page pages n results with MaxResults (within [lo, hi]) and an opaque NextToken.
func ec2Page(form map[string]any, n, lo, hi int) (start, end int, next string, aerr *apiError) {
	limit := n
	if v := treeString(form, "MaxResults"); v != "" {
		m, err := strconv.Atoi(v)
		if err != nil || m < lo || m > hi {
			return 0, 0, "", ec2Invalid("Value ( %s ) for parameter maxResults is invalid. Parameter must be between %d and %d.", v, lo, hi)
		}
		limit = m
	}
	if t := treeString(form, "NextToken"); t != "" {
		b, err := base64.RawURLEncoding.DecodeString(t)
		m, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || m < 0 || m > n {
			return 0, 0, "", ec2Err(400, "InvalidNextToken", "The token '%s' is invalid.", t)
		}
		start = m
	}
	end = min(start+limit, n)
	if end < n {
		next = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))
	}
	return start, end, next, nil
}
