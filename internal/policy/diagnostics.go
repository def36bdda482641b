package policy

import (
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// Enforcement modes of the provider's policy block.
const (
	EnforceDeny = "deny"
	EnforceWarn = "warn"
	EnforceOff  = "off"
)

// RuleInactiveRegistry is the bundle's one warning that client-registry rules are inactive.
const RuleInactiveRegistry = "GF-DATA-001"

// AddDiagnostics turns findings into plan diagnostics at their attributes: deny findings are errors
// under "deny" enforcement and warnings under "warn". once reports whether a plan-wide finding (one
// without an address) has not been shown yet in this provider process, so it is shown once per plan.
func AddDiagnostics(diags *diag.Diagnostics, findings []Finding, enforcement string, once func(key string) bool) {
	for _, f := range findings {
		if f.Address == "" && !once("finding:"+f.Rule) {
			continue
		}
		summary := "Policy " + f.Rule
		if f.Severity == SeverityDeny && enforcement != EnforceWarn {
			summary += " denied this pool"
			addAt(diags, f.Attribute, summary, f.Msg, true)
			continue
		}
		if f.Severity == SeverityDeny {
			summary += " (deny, downgraded by policy.enforcement = \"warn\")"
		}
		addAt(diags, f.Attribute, summary, f.Msg, false)
	}
}

func addAt(diags *diag.Diagnostics, attribute, summary, detail string, isError bool) {
	p, ok := AttributePath(attribute)
	switch {
	case !ok && isError:
		diags.AddError(summary, detail)
	case !ok:
		diags.AddWarning(summary, detail)
	case isError:
		diags.AddAttributeError(p, summary, detail)
	default:
		diags.AddAttributeWarning(p, summary, detail)
	}
}

// AttributePath turns a finding's attribute ("capacity.spot_percentage", "taints[0].key") into a
// framework path; ok is false when there is none.
func AttributePath(attribute string) (path.Path, bool) {
	if attribute == "" {
		return path.Empty(), false
	}
	var p path.Path
	for i, part := range strings.Split(attribute, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name == "" {
			return path.Empty(), false
		}
		if i == 0 {
			p = path.Root(name)
		} else {
			p = p.AtName(name)
		}
		for rest != "" {
			idx, after, found := strings.Cut(rest, "]")
			n, err := strconv.Atoi(idx)
			if !found || err != nil {
				return path.Empty(), false
			}
			p = p.AtListIndex(n)
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return p, true
}
