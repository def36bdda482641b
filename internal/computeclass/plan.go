// Package computeclass implements gpufleet_gke_compute_class, a GPU pool as a GKE ComputeClass
// (cloud.google.com/v1) managed in the cluster, and the render-only data source
// gpufleet_gke_compute_class_manifest: the schema, its translation to pool.Spec and a capacity
// ladder through the shared pool layer, and the plan-time core they share (validation, derivation,
// policy, rendering, and validation of the rendered object against the ComputeClass CRD, all in
// process, with no cluster call).
package computeclass

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/gke"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// configured says which optional settings the configuration sets; the others take the values that
// suit the workload (render.Defaults), shown in the plan.
type configured struct {
	activeMigration, consolidationDelay bool
}

// planClass is the plan-time core of the resource's ModifyPlan and the data source's Read: it
// validates the pool and its ladder, derives every computed value into m, checks the pool's policy
// document, renders the class and its pod stanza, and validates the rendered object against the
// ComputeClass CRD. It never calls a cluster or a cloud. The rendered class carries no ownership
// labels: the resource adds them when it applies it.
func planClass(ctx context.Context, meta *conns.Meta, m *classModel, cfg configured, unchanged bool, diags *diag.Diagnostics) {
	m.Region = types.StringUnknown()
	if !m.Location.IsUnknown() {
		m.Region = types.StringValue(gke.RegionOf(m.Location.ValueString()))
	}
	if !cfg.activeMigration {
		m.ActiveMigration = types.BoolNull()
	}
	if !cfg.consolidationDelay {
		m.ConsolidationDelayMinutes = types.Int64Null()
	}
	spec, class, ds := m.spec(ctx)
	diags.Append(ds...)
	if diags.HasError() {
		return
	}
	hooks := poolschema.Hooks{
		Validate: func(s pool.Spec) []pool.Problem { return append(render.ValidatePool(s), render.Validate(s, class)...) },
		Derive:   func(s pool.Spec, env pool.Environment) (pool.Derived, error) { return render.Derive(s, env, class) },
	}
	derived, ok := poolschema.PlanWith(ctx, meta, spec, &m.Model, unchanged, hooks, diags)
	if !ok {
		return
	}
	addWarnings(diags, render.Warnings(spec, class))
	if spec.Known(pool.P("workload")) {
		settings := class.Effective(spec.Workload)
		m.ActiveMigration = types.BoolValue(settings.OptimizeRulePriority)
		m.ConsolidationDelayMinutes = types.Int64Value(int64(settings.ConsolidationDelayMinutes))
	} else {
		m.ActiveMigration, m.ConsolidationDelayMinutes = unknownUnless(m.ActiveMigration, cfg.activeMigration), unknownInt(m.ConsolidationDelayMinutes, cfg.consolidationDelay)
	}
	if derived == nil {
		m.Manifests = types.StringUnknown()
		m.PodSpec = types.ObjectUnknown(podSpecAttrTypes)
		return
	}
	rendered, err := render.Render(spec, *derived, class, nil, nil)
	if err != nil {
		diags.AddError("Rendering the ComputeClass", err.Error())
		return
	}
	if !validateObject(ctx, rendered, diags) {
		return
	}
	m.Manifests = types.StringValue(rendered.YAML)
	m.PodSpec = podSpecValue(rendered.Pod)
}

func unknownUnless(v types.Bool, set bool) types.Bool {
	if set {
		return v
	}
	return types.BoolUnknown()
}

func unknownInt(v types.Int64, set bool) types.Int64 {
	if set {
		return v
	}
	return types.Int64Unknown()
}

// addWarnings reports what a class cannot carry at its attributes.
func addWarnings(diags *diag.Diagnostics, problems []pool.Problem) {
	for _, p := range problems {
		diags.AddAttributeWarning(poolschema.ProblemPath(p.Path), p.Summary, p.Path.String()+": "+p.Detail)
	}
}

// podSpecValue is the pod_spec attribute of a pod stanza.
func podSpecValue(p render.Pod) types.Object {
	tolerations := make([]attr.Value, len(p.Tolerations))
	for i, t := range p.Tolerations {
		tolerations[i] = types.ObjectValueMust(tolerationAttrTypes, map[string]attr.Value{
			"key": types.StringValue(t.Key), "operator": types.StringValue(t.Operator),
			"value": poolschema.NullableString(t.Value), "effect": types.StringValue(t.Effect),
		})
	}
	mapOrNull := func(m map[string]string) types.Map {
		if len(m) == 0 {
			return types.MapNull(types.StringType)
		}
		return poolschema.StringMapValue(m)
	}
	return types.ObjectValueMust(podSpecAttrTypes, map[string]attr.Value{
		"node_selector": mapOrNull(p.NodeSelector),
		"tolerations":   types.ListValueMust(types.ObjectType{AttrTypes: tolerationAttrTypes}, tolerations),
		"labels":        mapOrNull(p.Labels),
		"annotations":   mapOrNull(p.Annotations),
	})
}

// objectPaths maps the ComputeClass fields gpufleet renders to the attributes they come from, so
// that a CRD error is reported where the user can fix it.
var objectPaths = []struct {
	prefix string
	at     path.Path
}{
	{"metadata.name", path.Root("name")},
	{"metadata", path.Root("name")},
	{"spec.nodePoolConfig.taints", path.Root("taints")},
	{"spec.nodePoolConfig.nodeLabels", path.Root("labels")},
	{"spec.whenUnsatisfiable", path.Root("when_unsatisfiable")},
	{"spec.activeMigration", path.Root("active_migration")},
	{"spec.autoscalingPolicy", path.Root("consolidation_delay_minutes")},
	{"spec.nodePoolAutoCreation", path.Root("node_pool_auto_creation")},
	{"spec.description", path.Root("description")},
	{"spec.priorities", path.Root("capacity").AtName("ladder")},
}

// attributeOf is the attribute a field of the rendered object comes from.
func attributeOf(field string) path.Path {
	for _, p := range objectPaths {
		if len(field) >= len(p.prefix) && field[:len(p.prefix)] == p.prefix {
			return p.at
		}
	}
	return path.Root("capacity").AtName("ladder")
}

// reportFieldErrors reports the CRD's verdict on the rendered object at the attributes.
func reportFieldErrors(diags *diag.Diagnostics, errs []fieldError) {
	for _, e := range errs {
		diags.AddAttributeError(attributeOf(e.Field), "ComputeClass refused by its CRD",
			fmt.Sprintf("the rendered ComputeClass would be refused by the API server: %s: %s (see manifests; the CRD is gpufleet's reconstruction of GKE's, internal/computeclass/crd).", e.Field, e.Message))
	}
}
