// Package karpenter implements gpufleet_karpenter_node_pool, a GPU pool as self-managed Karpenter or
// EKS Auto Mode declares it, and its render-only data source: schema ⇄ pool.Spec ⇄ the objects of
// package render, validated at plan in process (package kube) and applied to the cluster with
// server-side apply.
package karpenter

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// ResourceType is the resource's type name.
const ResourceType = render.ResourceType

var (
	_ resource.Resource                = &NodePoolResource{}
	_ resource.ResourceWithConfigure   = &NodePoolResource{}
	_ resource.ResourceWithModifyPlan  = &NodePoolResource{}
	_ resource.ResourceWithImportState = &NodePoolResource{}
)

// NodePoolResource is gpufleet_karpenter_node_pool.
type NodePoolResource struct {
	poolschema.Resource
}

// NewNodePoolResource is the resource factory.
func NewNodePoolResource() resource.Resource { return &NodePoolResource{} }

func (r *NodePoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_karpenter_node_pool"
}

// Configure hands the resource the provider's settings and starts compiling the latest Karpenter
// release's CRDs in the background: the first plan-time validation then finds them ready.
func (r *NodePoolResource) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.Resource.Configure(ctx, req, resp)
	if r.Meta != nil && r.Meta.Once("karpenter-crds-warm") {
		kube.Warm(render.CRDSet(render.ModeKarpenter, render.LatestKarpenter))
	}
}

func poolID(cluster, name string) string { return cluster + ":" + name }

func (r *NodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	cluster, name, ok := strings.Cut(req.ID, ":")
	if !ok || cluster == "" || name == "" || strings.Contains(name, ":") {
		resp.Diagnostics.AddError("Invalid import id", fmt.Sprintf("%q: import %s as <cluster_name>:<name>, e.g. ml:train.", req.ID, ResourceType))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("cluster_name"), cluster)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}

// ModifyPlan validates the pool, derives every computed value, renders the objects and validates
// them in process against the Karpenter release's CRDs (the API server's own validation code: a
// schema or CEL error is a plan error at the attribute that produced it), and runs the policy
// bundle. It never calls the cluster, nor AWS.
func (r *NodePoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	plan, state, unchanged := poolschema.PlanOf[nodePoolModel](ctx, &r.Resource, req, resp)
	if plan == nil {
		return
	}
	record, err := recordConfig(req.Plan.Raw)
	if err != nil {
		resp.Diagnostics.AddError("Recording the pool's configuration", err.Error())
		return
	}
	if unchanged && state != nil && r.drifted(ctx, state, record) {
		// The objects in the cluster are not what the configuration renders (a hand edit, an
		// object deleted): the plan applies them again, as a change.
		unchanged = false
		fresh := new(nodePoolModel)
		resp.Diagnostics.Append(req.Plan.Get(ctx, fresh)...)
		plan = fresh
	}
	if region := r.Meta.AWSSettings.RegionHint(); region != "" {
		plan.Region = types.StringValue(region)
	} else if state != nil && !state.Region.IsNull() {
		plan.Region = state.Region
	}
	if regionMoves(plan, state) {
		// The pool's objects are in the cluster of state's region: another region is another
		// cluster, so the pool is replaced (deleted there, created in the new one), as
		// terraform-provider-aws replaces a resource whose region changes.
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("region"))
	}
	if state != nil {
		plan.OwnerID = state.OwnerID
	}
	if !plan.ClusterName.IsUnknown() && !plan.Name.IsUnknown() {
		plan.ID = types.StringValue(poolID(plan.ClusterName.ValueString(), plan.Name.ValueString()))
	}
	plan.Kubernetes.Validate(path.Root("kubernetes"), &resp.Diagnostics)
	spec, diags := plan.spec(ctx, &plan.Model, plan.Region)
	resp.Diagnostics.Append(diags...)
	set, diags := plan.settings(ctx, record)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if record == "" {
		if spec.Unknown == nil {
			spec.Unknown = map[string]bool{}
		}
		spec.Unknown["config"] = true
	}
	// The objects a change updates are validated as updates of state's (CEL transition rules);
	// a replacement creates new ones.
	old := previousObjects(state)
	if replaced(plan, state) {
		old = nil
	}
	var rendering render.Rendering
	check := func(s pool.Spec, d pool.Derived, diags *diag.Diagnostics) {
		rendering = render.Render(s, d, set)
		addNotes(diags, rendering.Notes)
		warnTagDrift(old, rendering, diags)
		warnTemplateDrift(old, rendering, diags)
		if diags.HasError() || unchanged || skipValidation {
			return
		}
		validateObjects(ctx, set, rendering, old, diags)
	}
	derived, ok := poolschema.Plan(ctx, r.Meta, spec, &plan.Model, unchanged, check, &resp.Diagnostics)
	if !ok {
		return
	}
	if derived == nil && !unchanged && !skipValidation {
		r.validateWithPlaceholders(ctx, req.Plan, plan.Region, old, &resp.Diagnostics)
	}
	switch {
	case derived == nil:
		plan.Manifests = types.StringUnknown()
		plan.Objects = types.ListUnknown(types.ObjectType{AttrTypes: objectAttrTypes})
		plan.NodePools = types.ListUnknown(types.ObjectType{AttrTypes: nodePoolAttrTypes})
	case !unchanged:
		plan.Manifests = types.StringValue(manifests(rendering.Objects))
		plan.Objects = objectList(rendering.Objects)
		plan.NodePools = nodePoolList(rendering.NodePools)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// warnTagDrift warns when an update changes the node class's tags: Karpenter hashes an
// EC2NodeClass's spec.tags into the hash it compares with its nodes' (karpenter-provider-aws
// v1.15.2 pkg/apis/v1/ec2nodeclass.go: Tags has no hash:"ignore", EC2NodeClass.Hash), so the
// change marks every node of the pool drifted, and Karpenter replaces them as the disruption
// budgets allow. (old: state's objects by kind and name, empty on a create or a replacement.)
func warnTagDrift(old map[string]map[string]any, rendering render.Rendering, diags *diag.Diagnostics) {
	for _, o := range rendering.Objects {
		if o.Kind() != "EC2NodeClass" && o.Kind() != "NodeClass" {
			continue
		}
		before, ok := old[o.Kind()+"/"+o.Name()]
		if !ok {
			continue
		}
		was, _, _ := unstructured.NestedFieldNoCopy(before, "spec", "tags")
		now, _, _ := unstructured.NestedFieldNoCopy(o.Manifest, "spec", "tags")
		if !reflect.DeepEqual(was, now) {
			diags.AddAttributeWarning(path.Root("tags"), "Changed tags replace the pool's nodes",
				fmt.Sprintf("the tags of %s %s change, and Karpenter counts a change of a node class's spec.tags as drift (karpenter-provider-aws v1.15.2, EC2NodeClass.Hash): it replaces every node of the pool, as the disruption budgets allow, to give the new instances the new tags (existing instances keep the old ones until then). Change tags in a maintenance window, or tag through a tag policy instead.", o.Kind(), o.Name()))
		}
	}
}

// driftingTemplateFields are the fields of a NodePool's spec.template that Karpenter hashes
// (sigs.k8s.io/karpenter v1.15.0 pkg/apis/v1/nodepool.go: NodePool.Hash over spec.template, whose
// requirements alone are hash:"ignore"), among those gpufleet writes.
var driftingTemplateFields = [][]string{
	{"metadata", "labels"}, {"metadata", "annotations"}, {"spec", "taints"}, {"spec", "startupTaints"},
	{"spec", "nodeClassRef"}, {"spec", "terminationGracePeriod"}, {"spec", "expireAfter"},
}

// warnTemplateDrift warns when an update changes a field of a NodePool's node template that
// Karpenter hashes: it then marks every node of that NodePool drifted and replaces them as the
// disruption budgets allow (static NodePools too: pkg/controllers/disruption/staticdrift.go). Each
// field is named at the attribute behind it. (old: state's objects by kind and name, empty on a
// create or a replacement.)
func warnTemplateDrift(old map[string]map[string]any, rendering render.Rendering, diags *diag.Diagnostics) {
	for _, o := range rendering.Objects {
		before, ok := old[o.Kind()+"/"+o.Name()]
		if o.Kind() != "NodePool" || !ok {
			continue
		}
		for _, f := range driftingTemplateFields {
			field := append([]string{"spec", "template"}, f...)
			was, _, _ := unstructured.NestedFieldNoCopy(before, field...)
			now, _, _ := unstructured.NestedFieldNoCopy(o.Manifest, field...)
			if reflect.DeepEqual(was, now) {
				continue
			}
			at := o.AttributeOf(strings.Join(field, "."))
			diags.AddAttributeWarning(poolschema.ProblemPath(at), "A change that replaces the NodePool's nodes",
				fmt.Sprintf("%s: %s of NodePool %s changes (%s to %s), and Karpenter counts a change of the node template (NodePool.Hash: every field of spec.template but its requirements) as drift: it replaces every node of that NodePool, as the disruption budgets allow. Apply it in a maintenance window.",
					at, strings.Join(field, "."), o.Name(), shortValue(was), shortValue(now)))
		}
	}
}

// shortValue is a manifest value for a message: JSON, cut to 80 characters; "unset" for none.
func shortValue(v any) string {
	if v == nil {
		return "unset"
	}
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// replaced reports whether the plan replaces the pool: an argument that requires replacement
// changes (the framework tells ModifyPlan nothing of its attributes' RequiresReplace).
func replaced(plan, state *nodePoolModel) bool {
	return state != nil && (!plan.ClusterName.Equal(state.ClusterName) || !plan.Name.Equal(state.Name) ||
		!plan.Mode.Equal(state.Mode) || regionMoves(plan, state))
}

// regionMoves reports whether another region takes the pool to another cluster: its cluster is
// found by name in the region (EKS access). A pool reached through a kubernetes block stays in
// that cluster whatever the region (a provider's region, or the AWS_REGION of whoever runs
// Terraform, changed): replacing it would delete its NodePools, and Karpenter drain their GPU
// nodes, to create the same objects again there. (A block that reaches another cluster is
// refused at apply by the recorded cluster identity.)
func regionMoves(plan, state *nodePoolModel) bool {
	if state == nil || state.Region.IsNull() || plan.Region.Equal(state.Region) {
		return false
	}
	return !plan.Kubernetes.Configured() || !state.Kubernetes.Configured()
}

// drifted reports whether the objects state read from the cluster differ from what state's
// configuration renders.
func (r *NodePoolResource) drifted(ctx context.Context, state *nodePoolModel, record string) bool {
	if state.Manifests.IsNull() || state.Manifests.IsUnknown() || record == "" {
		return false
	}
	spec, diags := state.spec(ctx, &state.Model, state.Region)
	set, d := state.settings(ctx, record)
	diags.Append(d...)
	if diags.HasError() || !spec.AllKnown() || len(spec.Validate()) > 0 {
		return false
	}
	derived, err := pool.Derive(spec, r.Meta.Pool)
	if err != nil {
		return false
	}
	return manifests(render.Render(spec, derived, set).Objects) != state.Manifests.ValueString()
}

// addNotes reports the renderer's notes at their attributes.
func addNotes(diags *diag.Diagnostics, notes []render.Note) {
	for _, n := range notes {
		at := poolschema.ProblemPath(n.Path)
		detail := n.Path.String() + ": " + n.Detail
		if n.Severity == render.Error {
			diags.AddAttributeError(at, n.Summary, detail)
		} else {
			diags.AddAttributeWarning(at, n.Summary, detail)
		}
	}
}

func (r *NodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.apply(ctx, req.Plan.Raw, req.Plan.Get, nil, &resp.State, &resp.Diagnostics, true)
}

func (r *NodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	state := new(nodePoolModel)
	resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.apply(ctx, req.Plan.Raw, req.Plan.Get, state, &resp.State, &resp.Diagnostics, false)
}

func (r *NodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.read(ctx, req, resp)
}

func (r *NodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.delete(ctx, req, resp)
}

// subject names the pool in messages.
func subject(m *nodePoolModel) string {
	return fmt.Sprintf("Karpenter node pool %s in EKS cluster %s", m.Name.ValueString(), m.ClusterName.ValueString())
}

// manifests renders the objects as the manifests attribute shows them: without the owner label.
func manifests(objs []render.Object) string {
	ms := make([]map[string]any, len(objs))
	for i, o := range objs {
		ms[i] = o.Manifest
	}
	return kube.YAML(ms...)
}
