package poolschema

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// PlanCheck is a resource's own plan-time check of a derived pool (a cloud limit that only the
// derived values show); it reports into diags.
type PlanCheck func(pool.Spec, pool.Derived, *diag.Diagnostics)

// Plan is the plan-time core both pool resources run in ModifyPlan: it validates the spec, derives
// every computed value into m, and checks the pool's policy document. It never calls a cloud, so bad
// input fails here with no API call. derived is nil while a value it needs is unknown, and also when
// the plan has errors (then ok is false and the resource stops). unchanged says the plan leaves the
// pool as it is: policy then only warns, so it never blocks destroying the pool or an unrelated apply.
func Plan(ctx context.Context, meta *conns.Meta, spec pool.Spec, m *Model, unchanged bool, check PlanCheck, diags *diag.Diagnostics) (derived *pool.Derived, ok bool) {
	return PlanWith(ctx, meta, spec, m, unchanged, Hooks{Check: check}, diags)
}

// Hooks are how a resource whose pool is not one node pool (an autoscaler object) validates and
// derives it, for PlanWith; nil functions are pool.Spec.Validate and pool.Derive.
type Hooks struct {
	Validate func(pool.Spec) []pool.Problem
	Derive   func(pool.Spec, pool.Environment) (pool.Derived, error)
	Check    PlanCheck
}

// PlanWith is Plan with the resource's own validation and derivation.
func PlanWith(ctx context.Context, meta *conns.Meta, spec pool.Spec, m *Model, unchanged bool, h Hooks, diags *diag.Diagnostics) (derived *pool.Derived, ok bool) {
	if skipPlanWork {
		m.SetDerivedUnknown()
		m.PolicyFindings = types.ListUnknown(FindingType)
		return nil, true
	}
	validate, derive, check := (pool.Spec).Validate, pool.Derive, h.Check
	if h.Validate != nil {
		validate = h.Validate
	}
	if h.Derive != nil {
		derive = h.Derive
	}
	spec.NodeLimits = pool.NodeLimitsFor(spec.ResourceType, meta.Pool)
	AddProblems(diags, validate(spec))
	if diags.HasError() {
		return nil, false
	}
	if spec.AllKnown() {
		d, err := derive(spec, meta.Pool)
		if err != nil {
			diags.AddError("Deriving the pool", err.Error())
			return nil, false
		}
		if check != nil {
			check(spec, d, diags)
			if diags.HasError() {
				return nil, false
			}
		}
		derived = &d
	}
	// One document for the policy_document attribute and the evaluation.
	doc := pool.Document(documentAddress(spec), spec, derived)
	if derived != nil {
		m.SetDerived(*derived, doc)
		if derived.PriceErr != nil {
			diags.AddAttributeWarning(path.Root("estimated_hourly_cost_usd"), "No cost estimate", derived.PriceErr.Error())
		}
	} else {
		m.SetDerivedUnknown()
	}
	findings := evaluatePolicy(ctx, meta, doc, unchanged, diags)
	if !unchanged { // an unchanged pool keeps its state's findings (PlanOf planned it from its state)
		m.PolicyFindings = types.ListUnknown(FindingType)
		if derived != nil {
			m.PolicyFindings = FindingsValue(findings)
		}
	}
	return derived, !diags.HasError()
}

// FindingsValue is the policy_findings value of a pool's findings: the pool's own (not the
// plan-wide ones, which are about the policy data), denies first, in the engine's order otherwise.
func FindingsValue(findings []policy.Finding) types.List {
	own := make([]attr.Value, 0, len(findings))
	for _, severity := range []string{policy.SeverityDeny, policy.SeverityWarn} {
		for _, f := range findings {
			if f.Address == "" || f.Severity != severity {
				continue
			}
			own = append(own, types.ObjectValueMust(FindingType.AttrTypes, map[string]attr.Value{
				"rule": types.StringValue(f.Rule), "severity": types.StringValue(f.Severity),
				"attribute": types.StringValue(f.Attribute), "message": types.StringValue(f.Msg),
			}))
		}
	}
	return types.ListValueMust(FindingType, own)
}

// evaluatePolicy reports the pool's findings as diagnostics and returns them; an unchanged pool's
// denies are warnings.
func evaluatePolicy(ctx context.Context, meta *conns.Meta, doc map[string]any, unchanged bool, diags *diag.Diagnostics) []policy.Finding {
	if meta.Enforcement == policy.EnforceOff || meta.Policy == nil {
		if meta.Once("policy-off") {
			diags.AddWarning("Policy is off", "policy.enforcement = \"off\": gpufleet pools are not checked against the policy bundle in this plan.")
		}
		return nil
	}
	findings, err := meta.Policy.Evaluate(ctx, doc)
	if err != nil {
		diags.AddError("Evaluating policy", err.Error())
		return nil
	}
	if unchanged {
		for i, f := range findings {
			if f.Severity == policy.SeverityDeny {
				findings[i].Severity = policy.SeverityWarn
				findings[i].Msg += " (This plan does not change the pool, so this is a warning; a plan that creates or changes the pool is denied until it complies.)"
			}
		}
	}
	policy.AddDiagnostics(diags, findings, meta.Enforcement, meta.Once)
	return findings
}

// Refresh derives the computed values of a pool read back from the cloud. A pool changed outside
// Terraform may not derive (an instance type gpufleet does not know): it keeps its prior values.
// effective_tags and effective_labels are the tags and node labels the cloud objects carry
// (effectiveTags, effectiveLabels), not ones derived again from what was read: a label changed
// outside Terraform must not show as a tag change, and a derived label changed outside Terraform
// (gpufleet.io/client) shows as what it is, drift of effective_labels that the next apply undoes.
func Refresh(ctx context.Context, meta *conns.Meta, spec pool.Spec, m *Model, effectiveTags, effectiveLabels map[string]string) {
	d, err := pool.Derive(spec, meta.Pool)
	if err != nil {
		tflog.Warn(ctx, "node pool read from the cloud does not derive", map[string]any{"error": err.Error()})
		return
	}
	m.SetDerived(d, pool.Document(documentAddress(spec), spec, &d))
	m.EffectiveTags = StringMapValue(effectiveTags)
	m.EffectiveLabels = StringMapValue(effectiveLabels)
}

// documentAddress names the pool in policy messages; the provider does not know the resource's
// terraform address (conftest replaces it with the plan's).
func documentAddress(s pool.Spec) string { return fmt.Sprintf("%s[%s]", s.ResourceType, s.Name) }

// SetDerived fills the computed attributes from the derived values and the pool's policy document.
func (m *Model) SetDerived(d pool.Derived, doc map[string]any) {
	m.GPUModel = types.StringValue(d.GPU.Name)
	m.GPUsPerNode = types.Int64Value(int64(d.Node.GPUCount))
	m.GPUMemoryGiB = types.Float64Value(d.GPU.MemoryGiB)
	m.EffectiveTaints = TaintSet(d.Taints)
	m.EffectiveLabels = StringMapValue(d.Labels)
	m.EffectiveTags = StringMapValue(d.Tags)
	m.DevicePluginConfig = NullableString(d.DevicePluginConfig)
	m.EstimatedHourlyCostUSD, m.EstimatedMonthlyCostUSD = types.NumberNull(), types.NumberNull()
	switch {
	case d.CostUnknown:
		m.EstimatedHourlyCostUSD, m.EstimatedMonthlyCostUSD = types.NumberUnknown(), types.NumberUnknown()
	case d.PriceErr == nil:
		// Rounded where they are computed (pool.Derive: the hour to 1/100 cent, the month to the
		// cent), and handed to Terraform as those decimals: what it reads back from state.
		m.EstimatedHourlyCostUSD = types.NumberValue(Decimal(d.HourlyUSD))
		m.EstimatedMonthlyCostUSD = types.NumberValue(Decimal(d.MonthlyUSD))
	}
	// The document only holds values derived above: a conversion error is a programming error
	// that the acceptance tests catch, and leaves the attribute null.
	m.PolicyDocument, _ = DocumentValue(doc)
}

// SetDerivedUnknown marks every computed attribute unknown, while a value it needs is.
func (m *Model) SetDerivedUnknown() {
	m.GPUModel = types.StringUnknown()
	m.GPUsPerNode = types.Int64Unknown()
	m.GPUMemoryGiB = types.Float64Unknown()
	m.EffectiveTaints = types.SetUnknown(types.ObjectType{AttrTypes: TaintAttrTypes})
	m.EffectiveLabels = types.MapUnknown(types.StringType)
	m.EffectiveTags = types.MapUnknown(types.StringType)
	m.DevicePluginConfig = types.StringUnknown()
	m.EstimatedHourlyCostUSD = types.NumberUnknown()
	m.EstimatedMonthlyCostUSD = types.NumberUnknown()
	m.PolicyDocument = types.ObjectUnknown(PolicyDocumentType.AttrTypes)
}

// MarkDocumentUnknown marks one top-level field of policy_document unknown: a value the cloud only
// fills in at apply (the zones of a GKE pool without node_locations). The plan's evaluation judged
// the field as null, which no rule fires on.
func (m *Model) MarkDocumentUnknown(field string) {
	if m.PolicyDocument.IsNull() || m.PolicyDocument.IsUnknown() {
		return
	}
	attrs := maps.Clone(m.PolicyDocument.Attributes())
	attrs[field] = unknownOf(PolicyDocumentType.AttrTypes[field])
	m.PolicyDocument = types.ObjectValueMust(PolicyDocumentType.AttrTypes, attrs)
}

func unknownOf(t attr.Type) attr.Value {
	v, _ := t.ValueFromTerraform(context.Background(), tftypes.NewValue(t.TerraformType(context.Background()), tftypes.UnknownValue))
	return v
}
