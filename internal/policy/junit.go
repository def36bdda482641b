package policy

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// conftest's -o junit reports a warning as a <failure> (its JUnit writer knows no other outcome
// for one) and names a test case after the first line of its message, which holds numbers that
// change from plan to plan. JUnit reads conftest's JSON results (conftest test -o json) and writes
// them as JUnit XML for CI test reports: one suite per file, one case per finding named
// "<rule> <address>", denies as <failure>, warnings as passing cases whose message is in
// <system-out>, so that a report fails where conftest fails and nowhere else.
func JUnit(conftestJSON io.Reader, w io.Writer) error {
	var files []struct {
		Filename  string          `json:"filename"`
		Namespace string          `json:"namespace"`
		Successes int             `json:"successes"`
		Failures  []conftestEntry `json:"failures"`
		Warnings  []conftestEntry `json:"warnings"`
	}
	if err := json.NewDecoder(conftestJSON).Decode(&files); err != nil {
		return fmt.Errorf("reading conftest's JSON results (conftest test -o json): %w", err)
	}
	type failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	type testCase struct {
		Name      string   `xml:"name,attr"`
		ClassName string   `xml:"classname,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		SystemOut string   `xml:"system-out,omitempty"`
	}
	type testSuite struct {
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Cases    []testCase `xml:"testcase"`
	}
	report := struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Suites   []testSuite `xml:"testsuite"`
	}{Name: "gpufleet"}
	for _, f := range files {
		suite := testSuite{Name: f.Filename}
		class := "conftest." + f.Namespace
		for _, e := range f.Failures {
			suite.Cases = append(suite.Cases, testCase{Name: e.name(), ClassName: class, Failure: &failure{Message: e.Message, Type: "deny", Text: e.Message}})
			suite.Failures++
		}
		for _, e := range f.Warnings {
			suite.Cases = append(suite.Cases, testCase{Name: e.name(), ClassName: class, SystemOut: "WARN " + e.Message})
		}
		if len(suite.Cases) == 0 {
			suite.Cases = append(suite.Cases, testCase{Name: "no findings", ClassName: class, SystemOut: fmt.Sprintf("%d checks passed", f.Successes)})
		}
		suite.Tests = len(suite.Cases)
		report.Tests += suite.Tests
		report.Failures += suite.Failures
		report.Suites = append(report.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(report); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

type conftestEntry struct {
	Message  string `json:"msg"`
	Metadata struct {
		Rule    string `json:"rule"`
		Address string `json:"address"`
	} `json:"metadata"`
}

// name is "<rule> <address>", "<rule>" for a plan-wide finding, and the message's first line for
// a result without a rule (a custom rule that returns a string).
func (e conftestEntry) name() string {
	if e.Metadata.Rule == "" {
		first, _, _ := strings.Cut(e.Message, "\n")
		return first
	}
	return strings.TrimSpace(e.Metadata.Rule + " " + e.Metadata.Address)
}
