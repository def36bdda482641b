package karpenter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/endpoint"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// placeholderOwner stands for the owner id in plan-time validation: a new pool's id is made at
// apply, and the label's value has the same shape.
const placeholderOwner = "0000000000000000"

// withOwner is a copy of the manifest with the owner label.
func withOwner(m map[string]any, ownerID string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	md := map[string]any{}
	if old, ok := m["metadata"].(map[string]any); ok {
		for k, v := range old {
			md[k] = v
		}
	}
	labels := map[string]any{}
	if old, ok := md["labels"].(map[string]any); ok {
		for k, v := range old {
			labels[k] = v
		}
	}
	labels[kube.LabelOwner] = ownerID
	md["labels"] = labels
	out["metadata"] = md
	return out
}

// withoutOwner is m less the owner label (the manifests attribute's view of a live object).
func withoutOwner(m map[string]any) map[string]any {
	if md, ok := m["metadata"].(map[string]any); ok {
		if labels, ok := md["labels"].(map[string]any); ok {
			delete(labels, kube.LabelOwner)
		}
	}
	return m
}

// validateObjects runs what the API server would do with each object, in process, against the CRDs
// of the pool's Karpenter release (or Auto Mode's): a refused field is an error at the attribute
// that produced it. old holds the objects the pool applied before, by kind/name, so that CEL
// transition rules (oldSelf) see the update.
func validateObjects(ctx context.Context, set render.Settings, rd render.Rendering, old map[string]map[string]any, diags *diag.Diagnostics) {
	validateObjectsKeeping(ctx, set, rd, old, nil, "", diags)
}

// validateObjectsKeeping is validateObjects reporting only the errors keep takes, by the attribute
// behind each (validation with placeholders reports none at the attributes they stand for); note
// ends each message.
func validateObjectsKeeping(ctx context.Context, set render.Settings, rd render.Rendering, old map[string]map[string]any, keep func(pool.Path) bool, note string, diags *diag.Diagnostics) {
	crdSet := render.CRDSet(set.Mode, set.KarpenterVersion)
	schemas, err := kube.SchemasFor(crdSet)
	if err != nil {
		diags.AddError("Loading the Karpenter CRDs", err.Error())
		return
	}
	for _, o := range rd.Objects {
		var prev map[string]any
		if p, ok := old[o.Kind()+"/"+o.Name()]; ok {
			prev = withOwner(p, placeholderOwner)
		}
		_, errs, err := schemas.Validate(ctx, withOwner(o.Manifest, placeholderOwner), prev)
		if err != nil {
			diags.AddError("Validating the "+o.Kind()+" "+o.Name(), err.Error())
			continue
		}
		for _, e := range errs {
			if len(errs) > 1 && strings.Contains(e.Message, "some validation rules were not checked") {
				continue // the server's note beside a schema error: the schema error says it
			}
			at := o.AttributeOf(e.Field)
			if keep != nil && !keep(at) {
				continue
			}
			diags.AddAttributeError(poolschema.ProblemPath(at), "The "+o.Kind()+" would be refused",
				fmt.Sprintf("%s: %s %s: %s (validated at plan against the %s CRDs, with the API server's own validation code%s).", at, o.Kind(), o.Name(), e, crdSet, note))
		}
	}
}

// previousObjects are the objects state holds (the manifests read from the cluster), by kind/name,
// decoded as the API server decodes a stored object: whole numbers as int64. (A YAML or JSON
// decoder into any gives float64, and the CRDs' CEL rules, which see the old object of an update,
// refuse a float64 replicas: "expected int, got float64", so that every plan that changed a pool
// with a min_size, and its static NodePools, failed.)
func previousObjects(state *nodePoolModel) map[string]map[string]any {
	out := map[string]map[string]any{}
	if state == nil || state.Manifests.IsNull() || state.Manifests.IsUnknown() {
		return out
	}
	for _, doc := range strings.Split(state.Manifests.ValueString(), "\n---\n") {
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			continue
		}
		var u unstructured.Unstructured
		if u.UnmarshalJSON(j) != nil || u.Object == nil {
			continue
		}
		o := render.Object{Manifest: u.Object}
		out[o.Kind()+"/"+o.Name()] = u.Object
	}
	return out
}

func objectList(objs []render.Object) types.List {
	elems := make([]attr.Value, len(objs))
	for i, o := range objs {
		elems[i] = types.ObjectValueMust(objectAttrTypes, map[string]attr.Value{
			"api_version": types.StringValue(o.APIVersion()), "kind": types.StringValue(o.Kind()), "name": types.StringValue(o.Name()),
		})
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: objectAttrTypes}, elems)
}

func nodePoolList(nps []render.NodePoolSummary) types.List {
	elems := make([]attr.Value, len(nps))
	for i, np := range nps {
		elems[i] = types.ObjectValueMust(nodePoolAttrTypes, map[string]attr.Value{
			"name": types.StringValue(np.Name), "capacity_type": types.StringValue(np.CapacityType),
			"weight": types.Int64Value(int64(np.Weight)), "nodes": types.Int64Value(int64(np.Nodes)), "static": types.BoolValue(np.Static),
		})
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: nodePoolAttrTypes}, elems)
}

// objectRef is an object in state.
type objectRef struct {
	gvk  schema.GroupVersionKind
	name string
}

func refsOf(ctx context.Context, l types.List) []objectRef {
	var out []objectRef
	for _, o := range poolschema.ListOf[objectModel](ctx, l) {
		out = append(out, objectRef{gvk: schema.FromAPIVersionAndKind(o.APIVersion.ValueString(), o.Kind.ValueString()), name: o.Name.ValueString()})
	}
	return out
}

func refOf(o render.Object) objectRef {
	return objectRef{gvk: schema.FromAPIVersionAndKind(o.APIVersion(), o.Kind()), name: o.Name()}
}

// connect is a client of the pool's cluster: through the kubernetes block, else through EKS
// (DescribeCluster, and tokens from the provider's AWS credentials) in the region m records, state's
// for a refresh or a destroy: a pool lives in the region it was created in, whatever the provider's
// region is today (a region change replaces the pool, deleting it there). poll is how often
// deletions are polled. An EKS cluster that does not exist (any more) is gone, with no error
// added: its objects went with it, which a refresh and a destroy take as the pool gone (an apply
// reports it).
func (r *NodePoolResource) connect(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) (c *kube.Client, poll time.Duration, gone error) {
	if r.Meta == nil {
		diags.AddError("Provider not configured", "the gpufleet provider was not configured before the resource was used")
		return nil, 0, nil
	}
	var access kube.Access
	if m.Kubernetes.Configured() {
		var d diag.Diagnostics
		access, d = m.Kubernetes.Access(ctx)
		diags.Append(d...)
	} else {
		region := "" // the provider's, for a pool whose region is not known yet
		if !m.Region.IsNull() && !m.Region.IsUnknown() {
			region = m.Region.ValueString()
		}
		eksIn := func(meta *conns.Meta, ctx context.Context) (*eks.Client, error) { return meta.EKSIn(ctx, region) }
		eksClient, ok := poolschema.Connect(ctx, &r.Resource, "EKS", eksIn, diags)
		if !ok {
			return nil, 0, nil
		}
		stsClient, ok := poolschema.Connect(ctx, &r.Resource, "STS", (*conns.Meta).STS, diags)
		if !ok {
			return nil, 0, nil
		}
		var err error
		access, err = kube.EKSAccess(ctx, eksClient, stsClient, m.ClusterName.ValueString())
		if errors.Is(err, kube.ErrClusterNotFound) {
			return nil, 0, err
		}
		if err != nil {
			diags.AddError("Reaching the cluster of "+subject(m), err.Error())
			return nil, 0, nil
		}
	}
	if diags.HasError() {
		return nil, 0, nil
	}
	c, err := kube.NewClient(access, r.Meta.UserAgent)
	if err != nil {
		diags.AddError("Reaching the cluster of "+subject(m), err.Error())
		return nil, 0, nil
	}
	poll = 2 * time.Second
	if endpoint.IsLoopback(access.Host) {
		poll = 50 * time.Millisecond
	}
	return c, poll, nil
}

// apply applies the planned objects and deletes the ones the pool no longer has (state's, when
// updating). Before any write every object is checked: an object of a name the pool would write
// that is not the pool's stops the apply with nothing written. A create that fails part-way deletes
// what it applied, so that nothing is left behind; an update leaves what it applied in place (state
// says what exists, and the next plan repairs the rest).
func (r *NodePoolResource) apply(ctx context.Context, config tftypes.Value, getPlan func(context.Context, any) diag.Diagnostics, state *nodePoolModel, out *tfsdk.State, diags *diag.Diagnostics, create bool) {
	plan := new(nodePoolModel)
	diags.Append(getPlan(ctx, plan)...)
	if diags.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, poolschema.DefaultUpdateTimeout)
	if create {
		timeout, d = plan.Timeouts.Create(ctx, poolschema.DefaultCreateTimeout)
	}
	diags.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	what := "updating "
	if create {
		what = "creating "
	}
	what += subject(plan)
	record, err := recordConfig(config)
	if err != nil {
		diags.AddError(what, err.Error())
		return
	}
	spec, d := plan.spec(ctx, &plan.Model, plan.Region)
	diags.Append(d...)
	set, d := plan.settings(ctx, record)
	diags.Append(d...)
	derived, ok := poolschema.Derive(&r.Resource, spec, nil, diags)
	if !ok {
		return
	}
	rendering := render.Render(spec, derived, set)
	addNotes(diags, rendering.Notes)
	if diags.HasError() {
		return
	}
	if create || plan.OwnerID.IsNull() || plan.OwnerID.IsUnknown() {
		id, err := kube.NewOwnerID()
		if err != nil {
			diags.AddError(what, err.Error())
			return
		}
		plan.OwnerID = types.StringValue(id)
	}
	owner := plan.OwnerID.ValueString()
	c, poll, gone := r.connect(ctx, plan, diags)
	if gone != nil {
		diags.AddError("Reaching the cluster of "+subject(plan), gone.Error())
	}
	if c == nil {
		return
	}
	// The cluster first: one other than the objects' stops the apply before any write.
	recorded := ""
	if state != nil {
		recorded = state.ClusterID.ValueString()
	}
	plan.ClusterID = kube.SameCluster(ctx, c, nodePoolGVK, recorded, diags)
	if diags.HasError() {
		return
	}
	var stale []objectRef
	if state != nil {
		wanted := map[objectRef]bool{}
		for _, o := range rendering.Objects {
			wanted[refOf(o)] = true
		}
		for _, ref := range refsOf(ctx, state.Objects) {
			if !wanted[ref] {
				stale = append(stale, ref)
			}
		}
	}
	// Ownership first, for every object the apply writes or deletes. Each write then goes only to
	// the object checked (its UID; none: a create), so that one created or replaced meanwhile is
	// never written (kube.Client.ApplyOver).
	staleLive := map[objectRef]*unstructured.Unstructured{}
	checked := map[objectRef]string{}
	for _, o := range rendering.Objects {
		// An object of the pool being deleted (a removal or destroy that timed out while Karpenter
		// drained it) is waited for, and made again: written to, it would go all the same.
		live, err := c.GetSettled(ctx, refOf(o).gvk, o.Name(), poll)
		switch {
		case kube.IsNotFound(err):
		case err != nil:
			diags.AddError(what, err.Error())
			return
		default:
			if err := c.CheckOwned(live, owner); err != nil {
				diags.AddError(what, err.Error())
				return
			}
			checked[refOf(o)] = string(live.GetUID())
		}
	}
	// The stale objects that are no longer the pool's in the cluster: gone already, left alone as
	// another's, or (below) deleted. State drops them, whether the update succeeds or fails.
	dropped := map[objectRef]bool{}
	for _, ref := range stale {
		live, err := c.Get(ctx, ref.gvk, ref.name)
		switch {
		case kube.IsNotFound(err):
			dropped[ref] = true
		case err != nil:
			diags.AddError(what, err.Error())
			return
		default:
			if err := c.CheckOwned(live, owner); err != nil {
				// no longer the pool's (replaced by someone else's): not deleted, and not in state
				diags.AddWarning("Left alone: "+ref.gvk.Kind+" "+ref.name, err.Error())
				dropped[ref] = true
				continue
			}
			staleLive[ref] = live
		}
	}
	var applied []*unstructured.Unstructured
	for _, o := range rendering.Objects {
		live, err := c.ApplyOver(ctx, withOwner(o.Manifest, owner), checked[refOf(o)])
		if err != nil {
			diags.AddError(what, applyError(o, err))
			// An apply whose answer was lost (a timeout, a connection cut, a gateway's 5xx) may
			// have been done: the object is looked up, and one that is the pool's counts as
			// applied, so that it is undone or recorded like the others, never left unrecorded.
			if u := appliedAnyway(ctx, c, o, owner); u != nil {
				applied = append(applied, u)
			}
			if create {
				if left := r.undo(ctx, c, applied, poll, diags); len(left) > 0 {
					// State records what could not be undone: Terraform taints the pool, and the
					// next apply deletes it before it creates the pool again.
					setFromLive(plan, left, diags)
					diags.Append(out.Set(ctx, plan)...)
				}
			} else {
				r.saveApplied(ctx, c, plan, state, applied, dropped, out, diags)
			}
			return
		}
		applied = append(applied, live)
	}
	for _, ref := range stale {
		live, ok := staleLive[ref]
		if !ok {
			continue
		}
		if err := c.Delete(ctx, ref.gvk, ref.name, string(live.GetUID()), poll); err != nil {
			diags.AddError(what, err.Error())
			r.saveApplied(ctx, c, plan, state, applied, dropped, out, diags)
			return
		}
		dropped[ref] = true
	}
	setFromLive(plan, applied, diags)
	diags.Append(out.Set(ctx, plan)...)
}

// applyError explains an apply the API server refused, naming the attribute behind each field.
func applyError(o render.Object, err error) string {
	causes := kube.Causes(err)
	if len(causes) == 0 {
		return err.Error()
	}
	var b strings.Builder
	b.WriteString(err.Error())
	for _, c := range causes {
		fmt.Fprintf(&b, "\n  %s (from %s)", c, o.AttributeOf(c.Field))
	}
	return b.String()
}

// undo deletes what a failed create applied, last first, and returns what it could not delete.
func (r *NodePoolResource) undo(ctx context.Context, c *kube.Client, applied []*unstructured.Unstructured, poll time.Duration, diags *diag.Diagnostics) (left []*unstructured.Unstructured) {
	ctx = context.WithoutCancel(ctx)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for i := len(applied) - 1; i >= 0; i-- {
		u := applied[i]
		if err := c.Delete(ctx, u.GroupVersionKind(), u.GetName(), string(u.GetUID()), poll); err != nil {
			diags.AddError("Removing what the failed create applied", fmt.Sprintf("%s %s was applied and could not be deleted: %v. State records it, and the next apply deletes it before it creates the pool again.",
				u.GetKind(), u.GetName(), err))
			left = append(left, u)
		}
	}
	slices.Reverse(left)
	return left
}

// appliedAnyway is the object o as the cluster holds it after an apply of it failed, when it is
// the pool's (owner): nil when it does not exist, is someone else's, or cannot be read.
func appliedAnyway(ctx context.Context, c *kube.Client, o render.Object, owner string) *unstructured.Unstructured {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	u, err := c.Get(ctx, refOf(o).gvk, o.Name())
	if err != nil || c.CheckOwned(u, owner) != nil {
		return nil
	}
	return u
}

// saveApplied keeps in state, after a failed update, what exists: the objects state knew but those
// that are no longer the pool's (dropped: gone, deleted by the update, or another's; or found so
// now: gone or taken meanwhile), and the ones applied, with manifests that differ from the
// configuration's, so that the next plan shows the update again. One that cannot be read is kept.
func (r *NodePoolResource) saveApplied(ctx context.Context, c *kube.Client, plan, state *nodePoolModel, applied []*unstructured.Unstructured, dropped map[objectRef]bool, out *tfsdk.State, diags *diag.Diagnostics) {
	if state == nil {
		return
	}
	known := map[objectRef]bool{}
	var objs []render.Object
	for _, u := range applied {
		m, _ := kube.Managed(u, kube.FieldManager)
		objs = append(objs, render.Object{Manifest: withoutOwner(m)})
		known[objectRef{gvk: u.GroupVersionKind(), name: u.GetName()}] = true
	}
	prev := previousObjects(state)
	lookup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for _, ref := range refsOf(ctx, state.Objects) {
		if known[ref] || dropped[ref] {
			continue
		}
		if live, err := c.Get(lookup, ref.gvk, ref.name); kube.IsNotFound(err) || err == nil && c.CheckOwned(live, plan.OwnerID.ValueString()) != nil {
			continue
		}
		if m, ok := prev[ref.gvk.Kind+"/"+ref.name]; ok {
			objs = append(objs, render.Object{Manifest: m})
		}
	}
	st := *state
	st.OwnerID = plan.OwnerID
	st.Objects = objectList(objs)
	st.Manifests = types.StringValue(manifests(objs))
	diags.Append(out.Set(ctx, &st)...)
}

// setFromLive records the applied objects: their list, and the fields gpufleet applied as the
// cluster holds them.
func setFromLive(m *nodePoolModel, live []*unstructured.Unstructured, diags *diag.Diagnostics) {
	objs := make([]render.Object, 0, len(live))
	for _, u := range live {
		man, err := kube.Managed(u, kube.FieldManager)
		if err != nil {
			diags.AddError("Reading the managed fields", err.Error())
			return
		}
		if man == nil {
			man = map[string]any{"apiVersion": u.GetAPIVersion(), "kind": u.GetKind(), "metadata": map[string]any{"name": u.GetName()}}
		}
		objs = append(objs, render.Object{Manifest: withoutOwner(man)})
	}
	m.Objects = objectList(objs)
	m.Manifests = types.StringValue(manifests(objs))
}

// read refreshes the pool from the cluster: the objects state lists (or, on import, the objects
// labelled as the pool's), each that still exists and is still the pool's, with the fields
// gpufleet applied as the cluster holds them. None left: the pool is gone.
func (r *NodePoolResource) read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	m := new(nodePoolModel)
	resp.Diagnostics.Append(req.State.Get(ctx, m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c, _, gone := r.connect(ctx, m, &resp.Diagnostics)
	if gone != nil {
		resp.Diagnostics.AddWarning(subject(m)+" is gone with its cluster", gone.Error()+"; the pool's objects went with the cluster, and it is removed from state.")
		resp.State.RemoveResource(ctx)
		return
	}
	if c == nil {
		return
	}
	if err := kube.OtherCluster(ctx, c, nodePoolGVK, m.ClusterID.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("cluster_identity"), "Reading "+subject(m)+": another cluster", err.Error())
		return
	}
	importing := m.Objects.IsNull()
	var refs []objectRef
	var read map[objectRef]*unstructured.Unstructured
	owner := m.OwnerID.ValueString()
	if importing {
		found, record, id, err := findPoolObjects(ctx, c, m.Name.ValueString())
		if err != nil {
			resp.Diagnostics.AddError("importing "+subject(m), err.Error())
			return
		}
		if len(found) == 0 {
			resp.State.RemoveResource(ctx)
			return
		}
		refs, owner = found, id
		if !r.loadRecord(ctx, record, &resp.State, &resp.Diagnostics) {
			return
		}
		resp.Diagnostics.Append(resp.State.Get(ctx, m)...)
		m.OwnerID = types.StringValue(owner)
	} else {
		listed, objs, err := ownedObjects(ctx, c, owner)
		read = objs
		if err != nil {
			resp.Diagnostics.AddError("reading "+subject(m), err.Error())
			return
		}
		refs = withListed(refsOf(ctx, m.Objects), listed)
	}
	var live []*unstructured.Unstructured
	for _, ref := range refs {
		u, err := read[ref], error(nil) // as listed; one the list did not show (not ours now) is read
		if u == nil {
			u, err = c.Get(ctx, ref.gvk, ref.name)
		}
		switch {
		case kube.IsNotFound(err):
			tflog.Warn(ctx, "object of the pool not found in the cluster", map[string]any{"kind": ref.gvk.Kind, "name": ref.name})
			continue
		case err != nil:
			resp.Diagnostics.AddError("reading "+subject(m), err.Error())
			return
		}
		if err := c.CheckOwned(u, owner); err != nil {
			resp.Diagnostics.AddWarning("An object of "+subject(m)+" is no longer the pool's", err.Error())
			continue
		}
		if kube.Terminating(u) {
			resp.Diagnostics.AddWarning(fmt.Sprintf("%s %s of %s is being deleted", ref.gvk.Kind, ref.name, subject(m)),
				fmt.Sprintf("It has been terminating since %s (finalizers: %s; Karpenter drains a NodePool's nodes first), after a removal or destroy that did not wait for it to go. State no longer counts it, and the next apply waits for it to go and creates it again.",
					u.GetDeletionTimestamp().UTC().Format(time.RFC3339), strings.Join(u.GetFinalizers(), ", ")))
			continue
		}
		live = append(live, u)
	}
	if len(live) == 0 {
		tflog.Warn(ctx, "none of the pool's objects is in the cluster, removing it from state")
		resp.State.RemoveResource(ctx)
		return
	}
	setFromLive(m, live, &resp.Diagnostics)
	if m.ClusterID.IsNull() || m.ClusterID.IsUnknown() {
		// imported, or recorded by a version that did not: the cluster the objects are in
		m.ClusterID = kube.RecordedIdentity(ctx, c, nodePoolGVK)
	}
	if importing {
		r.refreshDerived(ctx, m, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// refreshDerived fills the computed values of an imported pool from its recorded configuration.
func (r *NodePoolResource) refreshDerived(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) {
	if region := r.Meta.AWSSettings.RegionHint(); region != "" {
		m.Region = types.StringValue(region)
	}
	m.ID = types.StringValue(poolID(m.ClusterName.ValueString(), m.Name.ValueString()))
	spec, d := m.spec(ctx, &m.Model, m.Region)
	diags.Append(d...)
	derived, err := pool.Derive(spec, r.Meta.Pool)
	if err != nil {
		diags.AddWarning("The imported pool does not derive", err.Error())
		return
	}
	m.SetDerived(derived, pool.Document(fmt.Sprintf("%s[%s]", spec.ResourceType, spec.Name), spec, &derived))
	m.PolicyFindings = types.ListValueMust(poolschema.FindingType, nil)
	set, _ := m.settings(ctx, "")
	m.NodePools = nodePoolList(render.Render(spec, derived, set).NodePools)
}

// importKinds are the kinds a pool's objects may be of, node classes first.
var importKinds = []schema.GroupVersionKind{
	{Group: "karpenter.k8s.aws", Version: "v1", Kind: "EC2NodeClass"},
	{Group: "eks.amazonaws.com", Version: "v1", Kind: "NodeClass"},
	nodePoolGVK,
	{Group: "karpenter.sh", Version: "v1alpha1", Kind: "NodeOverlay"},
}

// nodePoolGVK is Karpenter's NodePool (EKS Auto Mode's too), whose CRD identifies the cluster.
var nodePoolGVK = schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodePool"}

// ownedRefs lists the objects of every kind a pool's may be of that carry the pool's owner id
// (kube.LabelOwner, which gpufleet writes on each): those state lists, and any an apply made but
// could not record (its answer lost and the look-up after it failed too; the provider killed
// between two writes), which refresh and destroy would otherwise never find while the NodePool
// launched GPU nodes. No owner id (a pool recorded before owner ids): none. A kind whose CRD is
// not installed has none; a list the caller may not make (RBAC grants get but not list) is
// skipped, with a log line, and only state's objects are read.
func ownedRefs(ctx context.Context, c *kube.Client, owner string) ([]objectRef, error) {
	refs, _, err := ownedObjects(ctx, c, owner)
	return refs, err
}

// ownedObjects is ownedRefs with the objects as the list read them.
func ownedObjects(ctx context.Context, c *kube.Client, owner string) ([]objectRef, map[objectRef]*unstructured.Unstructured, error) {
	if owner == "" {
		return nil, nil, nil
	}
	var refs []objectRef
	objs := map[objectRef]*unstructured.Unstructured{}
	for _, gvk := range importKinds {
		items, err := c.List(ctx, gvk, map[string]string{kube.LabelOwner: owner})
		switch {
		case kube.IsNotFound(err):
			continue
		case kube.IsForbidden(err):
			tflog.Warn(ctx, "cannot list the pool's objects by its owner label: only those state records are read", map[string]any{"kind": gvk.Kind, "error": err.Error()})
			continue
		case err != nil:
			return nil, nil, err
		}
		for i := range items {
			ref := objectRef{gvk: gvk, name: items[i].GetName()}
			refs, objs[ref] = append(refs, ref), &items[i]
		}
	}
	return refs, objs, nil
}

// withListed is refs with the listed ones state does not hold after them.
func withListed(refs, listed []objectRef) []objectRef {
	out := slices.Clone(refs)
	for _, ref := range listed {
		if !slices.Contains(out, ref) {
			out = append(out, ref)
		}
	}
	return out
}

// findPoolObjects lists the objects labelled as the pool's, and reads its owner id (all must agree)
// and its recorded configuration (the node class's annotation).
func findPoolObjects(ctx context.Context, c *kube.Client, name string) (refs []objectRef, record, owner string, err error) {
	labels := map[string]string{render.LabelResource: render.ResourceType, render.LabelPool: name}
	for _, gvk := range importKinds {
		items, err := c.List(ctx, gvk, labels)
		if err != nil {
			if kube.IsNotFound(err) { // the kind's CRD is not installed (Auto Mode, or no NodeOverlay)
				continue
			}
			return nil, "", "", err
		}
		for i := range items {
			u := &items[i]
			id := u.GetLabels()[kube.LabelOwner]
			switch {
			case id == "":
				continue
			case owner == "":
				owner = id
			case owner != id:
				return nil, "", "", fmt.Errorf("the objects labelled as pool %s have two owner ids (%s and %s): two gpufleet resources claim them; import is ambiguous", name, owner, id)
			}
			if rec, ok := u.GetAnnotations()[annotationConfig]; ok && record == "" {
				record = rec
			}
			refs = append(refs, objectRef{gvk: gvk, name: u.GetName()})
		}
	}
	if len(refs) > 0 && record == "" {
		return nil, "", "", errors.New("the pool's node class has no " + annotationConfig + " annotation: it was not made by gpufleet, which imports only pools it made")
	}
	return refs, record, owner, nil
}

// loadRecord puts the recorded configuration into the state being imported.
func (r *NodePoolResource) loadRecord(ctx context.Context, record string, st *tfsdk.State, diags *diag.Diagnostics) bool {
	objType, ok := st.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		diags.AddError("importing", "unexpected schema type")
		return false
	}
	values, err := recordedValues(record, objType)
	if err != nil {
		diags.AddError("importing", err.Error())
		return false
	}
	var attrs map[string]tftypes.Value
	if err := st.Raw.As(&attrs); err != nil {
		diags.AddError("importing", err.Error())
		return false
	}
	for k, v := range values {
		attrs[k] = v
	}
	st.Raw = tftypes.NewValue(objType, attrs)
	return true
}

// delete deletes the pool's objects that exist and are still the pool's: its NodePools and
// NodeOverlay side by side, then its node class once they are gone (Karpenter drains a deleted
// NodePool's nodes; an EC2NodeClass waits for its nodes to go). Deleted one after another, the
// NodePools still there would take the pods a draining one evicts, and launch GPU nodes for them
// that are drained in turn; side by side, the destroy takes as long as the longest drain, not
// their sum. One already gone is success.
func (r *NodePoolResource) delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	m := new(nodePoolModel)
	resp.Diagnostics.Append(req.State.Get(ctx, m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Delete(ctx, poolschema.DefaultDeleteTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, poll, gone := r.connect(ctx, m, &resp.Diagnostics)
	if gone != nil {
		return // the objects went with the cluster
	}
	if c == nil {
		return
	}
	if err := kube.OtherCluster(ctx, c, nodePoolGVK, m.ClusterID.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("cluster_identity"), "Deleting "+subject(m)+": another cluster", err.Error())
		return
	}
	defer func() {
		if resp.Diagnostics.HasError() {
			keepRemaining(ctx, c, m, &resp.State, &resp.Diagnostics)
		}
	}()
	listed, err := ownedRefs(ctx, c, m.OwnerID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("deleting "+subject(m), err.Error())
		return
	}
	var pools, classes []objectRef
	for _, ref := range withListed(refsOf(ctx, m.Objects), listed) {
		if isNodeClass(ref.gvk) {
			classes = append(classes, ref)
		} else {
			pools = append(pools, ref)
		}
	}
	for _, wave := range [][]objectRef{pools, classes} {
		uids := map[objectRef]string{}
		for _, ref := range wave {
			live, err := c.Get(ctx, ref.gvk, ref.name)
			switch {
			case kube.IsNotFound(err):
				continue
			case err != nil:
				resp.Diagnostics.AddError("deleting "+subject(m), err.Error())
				return
			}
			if err := c.CheckOwned(live, m.OwnerID.ValueString()); err != nil {
				resp.Diagnostics.AddWarning("Left alone: "+ref.gvk.Kind+" "+ref.name, err.Error())
				continue
			}
			if err := c.StartDelete(ctx, ref.gvk, ref.name, string(live.GetUID())); err != nil {
				resp.Diagnostics.AddError("deleting "+subject(m), err.Error())
				return
			}
			uids[ref] = string(live.GetUID())
		}
		for _, ref := range wave {
			if uid, ok := uids[ref]; ok {
				if err := c.WaitDeleted(ctx, ref.gvk, ref.name, uid, poll); err != nil {
					resp.Diagnostics.AddError("deleting "+subject(m), err.Error())
					return
				}
			}
		}
	}
}

// keepRemaining records, after a failed destroy, the pool's objects that are still in the cluster
// (and still the pool's): the NodePools deleted before the failure are gone from state as from the
// cluster, and the next destroy deletes the rest. An object that cannot be read is kept. With none
// left (the last one went while the destroy gave up waiting), the destroy succeeds.
func keepRemaining(ctx context.Context, c *kube.Client, m *nodePoolModel, st *tfsdk.State, diags *diag.Diagnostics) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	prev := previousObjects(m)
	refs := refsOf(ctx, m.Objects)
	if listed, err := ownedRefs(ctx, c, m.OwnerID.ValueString()); err == nil {
		refs = withListed(refs, listed) // the ones the destroy found by the owner label too
	}
	var objs []render.Object
	for _, ref := range refs {
		live, err := c.Get(ctx, ref.gvk, ref.name)
		if kube.IsNotFound(err) || err == nil && c.CheckOwned(live, m.OwnerID.ValueString()) != nil {
			continue
		}
		man, ok := prev[ref.gvk.Kind+"/"+ref.name]
		if !ok {
			man = map[string]any{"apiVersion": ref.gvk.GroupVersion().String(), "kind": ref.gvk.Kind, "metadata": map[string]any{"name": ref.name}}
		}
		objs = append(objs, render.Object{Manifest: man})
	}
	if len(objs) == 0 {
		// Nothing of the pool is left: the destroy is done. Terraform restores the prior state
		// when a failed destroy returns none, so the errors that did not stop it are warnings.
		var kept diag.Diagnostics
		for _, d := range *diags {
			if d.Severity() == diag.SeverityError {
				kept.AddWarning(d.Summary(), d.Detail()+" (None of the pool's objects is left in the cluster: the destroy is done.)")
			} else {
				kept.Append(d)
			}
		}
		*diags = kept
		st.RemoveResource(ctx)
		return
	}
	m.Objects = objectList(objs)
	m.Manifests = types.StringValue(manifests(objs))
	diags.Append(st.Set(ctx, m)...)
}

// isNodeClass reports a node class (Karpenter's EC2NodeClass or Auto Mode's NodeClass), which goes
// after the NodePools that use it.
func isNodeClass(gvk schema.GroupVersionKind) bool {
	return gvk.Kind == "EC2NodeClass" || (gvk.Group == "eks.amazonaws.com" && gvk.Kind == "NodeClass")
}
