package karpenter

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// placeholderAttributes are the arguments whose unknown strings validation at plan can stand in
// for: they only name things in the cloud (the node role, instance profile, AMI alias, subnets,
// security groups, cluster), and the objects' shape does not depend on them.
var placeholderAttributes = map[string]bool{
	"node_role": true, "instance_profile": true, "ami_alias": true, "cluster_name": true,
	"subnet_selector": true, "security_group_selector": true,
}

// placeholder is the value an unknown string of placeholderAttributes takes for validation.
const placeholder = "gpufleet-known-at-apply"

// validateWithPlaceholders validates at plan the objects of a pool whose render settings are not
// all known yet: a node_role from an IAM role the same apply creates, selectors of new subnets.
// Without it every other setting went to the cluster unchecked on a first apply, and known bad
// input (disruption.consolidate_after = "5 minutes") was refused there, after the apply had
// started. The unknown strings of placeholderAttributes take a placeholder, the objects are rendered
// and validated against the CRDs as in a known plan, and only errors at other attributes are
// reported (an error the API server puts on no attribute's field, which AttributeOf gives to name,
// is not: a placeholder may cause it). Nothing is validated when another value is unknown (the
// pool's instance types, sizes or workload; a whole selector list): the objects' shape is not known.
func (r *NodePoolResource) validateWithPlaceholders(ctx context.Context, planned tfsdk.Plan, region types.String, old map[string]map[string]any, diags *diag.Diagnostics) {
	stoodFor := map[string]bool{}
	others := false
	raw, err := tftypes.Transform(planned.Raw, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		steps := p.Steps()
		if v.IsKnown() || len(steps) == 0 {
			return v, nil
		}
		name, ok := steps[0].(tftypes.AttributeName)
		if !ok || !placeholderAttributes[string(name)] || !v.Type().Is(tftypes.String) {
			others = others || ok && recorded(string(name))
			return v, nil
		}
		stoodFor[string(name)] = true
		return tftypes.NewValue(tftypes.String, placeholder), nil
	})
	if err != nil || others || len(stoodFor) == 0 {
		return
	}
	m := new(nodePoolModel)
	if d := (tfsdk.Plan{Schema: planned.Schema, Raw: raw}).Get(ctx, m); d.HasError() {
		return
	}
	m.Region = region
	spec, d := m.spec(ctx, &m.Model, m.Region)
	if d.HasError() || !spec.AllKnown() {
		return
	}
	set, d := m.settings(ctx, "{}")
	if d.HasError() {
		return
	}
	var scratch diag.Diagnostics
	derived, ok := poolschema.Derive(&r.Resource, spec, nil, &scratch)
	if !ok {
		return
	}
	names := make([]string, 0, len(stoodFor))
	for n := range stoodFor {
		names = append(names, n)
	}
	sort.Strings(names)
	keep := func(at pool.Path) bool {
		s := at.String()
		return s != "name" && !slices.ContainsFunc(names, func(n string) bool { return s == n || strings.HasPrefix(s, n+".") || strings.HasPrefix(s, n+"[") })
	}
	validateObjectsKeeping(ctx, set, render.Render(spec, derived, set), old, keep,
		"; "+strings.Join(names, ", ")+" known only at apply, checked then", diags)
}

// recorded reports whether an argument shapes the objects: an unknown value of it (not a
// placeholder attribute) leaves them unknown. Computed attributes (id, owner_id, manifests, …) are
// unknown in every plan of a change and shape nothing.
func recorded(name string) bool {
	return slices.Contains(recordedArguments, name) || name == "instance_types" || name == "mode" || name == "karpenter_version" || name == "mig_strategy" || name == "name"
}
