package kube

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	fwtypes "github.com/hashicorp/terraform-plugin-framework/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// FieldManager is the server-side apply field manager of everything gpufleet writes.
const FieldManager = "gpufleet"

// Ownership: gpufleet changes and deletes only objects it created and can prove it owns. Each
// carries LabelOwner with the owner id of the gpufleet resource that created it: random, made when
// the resource is created and kept in its state, so two resources that render objects of the same
// name (two states, two workspaces, create_before_destroy) never take each other's. An object of
// the same name without the resource's owner id is never adopted, changed or deleted: applying
// fails before any write. LabelResource names the resource, so that import can find its objects.
const (
	LabelOwner    = "gpufleet.io/owner"
	LabelResource = "gpufleet.io/resource"
)

// NewOwnerID is a resource's owner id: 64 random bits, hex.
func NewOwnerID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generating the owner id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// resources maps the kinds gpufleet manages to their resources (the CRDs' spec.names.plural;
// TestResourcesMatchCRDs): the test API server has no discovery to ask, and gpufleet asks none.
var resources = map[schema.GroupKind]string{
	{Group: "karpenter.sh", Kind: "NodePool"}:          "nodepools",
	{Group: "karpenter.sh", Kind: "NodeOverlay"}:       "nodeoverlays",
	{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass"}: "ec2nodeclasses",
	{Group: "eks.amazonaws.com", Kind: "NodeClass"}:    "nodeclasses",
	// GKE's ComputeClass (internal/computeclass/crd, gpufleet's reconstruction of GKE's CRD).
	{Group: "cloud.google.com", Kind: "ComputeClass"}: "computeclasses",
}

// Resource is the resource of a kind gpufleet manages.
func Resource(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	plural, ok := resources[gvk.GroupKind()]
	if !ok {
		return schema.GroupVersionResource{}, fmt.Errorf("gpufleet does not manage %s", gvk)
	}
	return gvk.GroupVersion().WithResource(plural), nil
}

// Client talks to one cluster's API server.
type Client struct {
	dyn     dynamic.Interface
	cluster string
}

// NewClient connects to the cluster of the access (no request is made until one is needed).
func NewClient(a Access, userAgent string) (*Client, error) {
	cfg, err := a.RESTConfig(userAgent)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", a.Cluster, err)
	}
	return &Client{dyn: dyn, cluster: a.Cluster}, nil
}

func (c *Client) resource(gvk schema.GroupVersionKind) (dynamic.ResourceInterface, error) {
	gvr, err := Resource(gvk)
	if err != nil {
		return nil, err
	}
	return c.dyn.Resource(gvr), nil
}

// crdResource is the CustomResourceDefinitions' resource.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// ClusterIdentity identifies where the objects of kind gvk live in the cluster c reaches: the UID of
// the kind's CustomResourceDefinition. The cluster made it when the CRD was installed there, no
// other cluster has it, and it lasts as long as the kind's objects do (deleting the CRD deletes
// them). An identity other than the one a resource recorded says that its access now reaches
// another cluster than the one its objects were written to. "" with no error when the CRD is not
// installed (the apply then fails on the kind itself).
func (c *Client) ClusterIdentity(ctx context.Context, gvk schema.GroupVersionKind) (string, error) {
	gvr, err := Resource(gvk)
	if err != nil {
		return "", err
	}
	name := gvr.Resource + "." + gvk.Group
	u, err := c.dyn.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
	switch {
	case IsNotFound(err):
		return "", nil
	case err != nil:
		return "", c.wrap("reading", "CustomResourceDefinition", name, err)
	}
	return string(u.GetUID()), nil
}

// IsForbidden reports whether err is an authorization refusal.
func IsForbidden(err error) bool { return apierrors.IsForbidden(err) }

// IsNotFound reports whether err says the object does not exist.
func IsNotFound(err error) bool { return apierrors.IsNotFound(err) }

// Get returns the object; an error IsNotFound reports when it does not exist.
func (c *Client) Get(ctx context.Context, gvk schema.GroupVersionKind, name string) (*unstructured.Unstructured, error) {
	r, err := c.resource(gvk)
	if err != nil {
		return nil, err
	}
	u, err := r.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, c.wrap("reading", gvk.Kind, name, err)
	}
	return u, nil
}

// Terminating reports an object being deleted: its deletionTimestamp is set, and its finalizers
// hold it until they are done (Karpenter's drain a NodePool's nodes first). The API server still
// takes writes to it, but it goes all the same: an apply to it is undone by its deletion.
func Terminating(u *unstructured.Unstructured) bool {
	return u != nil && u.GetDeletionTimestamp() != nil
}

// GetSettled is Get for an apply: an object of gpufleet's being deleted (Terminating, with an owner
// label: this resource's, or that of the resource it replaces) is waited for until it is gone, and
// then read again (IsNotFound: the apply creates the object anew), so that the apply never writes to
// an object that then disappears. Another tool's object comes back as it is, being deleted or not,
// for the caller's ownership check to refuse at once. The wait ends with ctx, with an error saying
// what holds the object.
func (c *Client) GetSettled(ctx context.Context, gvk schema.GroupVersionKind, name string, poll time.Duration) (*unstructured.Unstructured, error) {
	for {
		live, err := c.Get(ctx, gvk, name)
		if err != nil || !Terminating(live) || c.CheckOwned(live, "") != nil {
			return live, err
		}
		if err := c.WaitDeleted(ctx, gvk, name, string(live.GetUID()), poll); err != nil {
			return nil, fmt.Errorf("%s %s is being deleted (since %s; finalizers %s hold it until their controller is done, as Karpenter's drain a NodePool's nodes), and the apply waits for it to go before it creates it again: %w",
				gvk.Kind, name, live.GetDeletionTimestamp().UTC().Format(time.RFC3339), strings.Join(live.GetFinalizers(), ", "), err)
		}
	}
}

// List returns the objects of a kind that carry the labels.
func (c *Client) List(ctx context.Context, gvk schema.GroupVersionKind, labels map[string]string) ([]unstructured.Unstructured, error) {
	r, err := c.resource(gvk)
	if err != nil {
		return nil, err
	}
	var sel []string
	for k, v := range labels {
		sel = append(sel, k+"="+v)
	}
	sort.Strings(sel)
	l, err := r.List(ctx, metav1.ListOptions{LabelSelector: strings.Join(sel, ",")})
	if err != nil {
		return nil, c.wrap("listing", gvk.Kind+"s", "", err)
	}
	return l.Items, nil
}

// Apply server-side applies obj as gpufleet (force: gpufleet's fields are gpufleet's, and a hand
// change of one is drift that the apply undoes), with strict field validation. dryRun asks the
// server to validate and answer without persisting anything.
func (c *Client) Apply(ctx context.Context, obj map[string]any, dryRun bool) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: obj}
	r, err := c.resource(u.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	force := true
	opts := metav1.PatchOptions{FieldManager: FieldManager, Force: &force, FieldValidation: "Strict"}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	out, err := r.Patch(ctx, u.GetName(), types.ApplyPatchType, data, opts)
	if err != nil {
		return nil, c.wrap("applying", u.GetKind(), u.GetName(), err)
	}
	return out, nil
}

// ApplyOver server-side applies obj as Apply does, but only to the object the caller checked the
// ownership of: with uid "", only if no object of obj's name exists (the apply creates it); else
// only to the object whose UID is uid. An object created, deleted or replaced by another of its name
// between that check and this write is never written, whoever made it: the server refuses the
// apply on its precondition, checked in the same storage transaction as the write (k8s.io/apiserver
// pkg/registry/generic/registry/store.go, Store.Update: a resourceVersion that differs from the
// object's is a Conflict, and a create wipes it "AFTER preconditions are checked"; a uid that
// differs from the object's is refused, and one without an object is a Conflict). The error is then
// a *NotOwnedError when the name is now another's object, or an *APIError saying the object
// changed. (Shown on the API server in TestApplyOver_writesOnlyTheObjectChecked.)
func (c *Client) ApplyOver(ctx context.Context, obj map[string]any, uid string) (*unstructured.Unstructured, error) {
	u := (&unstructured.Unstructured{Object: obj}).DeepCopy()
	if uid == "" {
		// A resourceVersion no object has (an object's is the storage revision of its last write)
		// refuses the apply if the name is taken; the server wipes it on a create.
		u.SetResourceVersion(createOnly)
	} else {
		u.SetUID(types.UID(uid))
	}
	out, err := c.Apply(ctx, u.Object, false)
	if err == nil || !preconditionFailed(err, uid != "") {
		return out, err
	}
	return nil, c.changed(ctx, u, uid, err)
}

// createOnly is the resourceVersion of a create-only apply: the largest a server parses
// (strconv.ParseUint, 64 bits), never an object's.
const createOnly = "18446744073709551615"

// preconditionFailed reports whether err refuses an ApplyOver on its precondition: a Conflict (a
// resourceVersion or a uid without an object; a forced apply has no field conflicts), or, with a
// uid, the Invalid answer of a uid other than the object's ("metadata.uid: … field is immutable").
func preconditionFailed(err error, withUID bool) bool {
	if apierrors.IsConflict(err) {
		return true
	}
	if !withUID || !apierrors.IsInvalid(err) {
		return false
	}
	for _, f := range Causes(err) {
		if f.Field == "metadata.uid" {
			return true
		}
	}
	return false
}

// changed is the error of an ApplyOver refused on its precondition: the object that has the name
// now is looked up, and one that is not the applying resource's (by the owner label obj carries) is
// a *NotOwnedError, as the caller's own check would have said.
func (c *Client) changed(ctx context.Context, obj *unstructured.Unstructured, uid string, refused error) error {
	var api *APIError
	if errors.As(refused, &api) {
		refused = api.err // the server's words, without the "applying … in …" said once below
	}
	live, err := c.Get(ctx, obj.GroupVersionKind(), obj.GetName())
	what := "an object of its name appeared while gpufleet created it"
	switch {
	case IsNotFound(err) && uid != "":
		what = "the object was deleted while gpufleet applied it"
	case IsNotFound(err):
		what = "an object of its name appeared, and went, while gpufleet created it"
	case err != nil:
		return c.wrap("applying", obj.GetKind(), obj.GetName(), fmt.Errorf("the server refused the apply (%s), and reading the object again failed: %w", refused.Error(), err))
	default:
		if err := c.CheckOwned(live, obj.GetLabels()[LabelOwner]); err != nil {
			return err
		}
		if uid != "" {
			what = "the object was replaced by another of its name while gpufleet applied it"
		}
	}
	return c.wrap("applying", obj.GetKind(), obj.GetName(), fmt.Errorf("%s, so the server refused the apply and gpufleet has written nothing (%s); run the apply again", what, refused.Error()))
}

// Delete deletes the object whose UID is uid (so that an object replaced meanwhile by another of
// the same name is left alone), and waits until it is gone or ctx ends: a NodePool's nodes are
// drained first, and an EC2NodeClass waits for its NodeClaims. An object already gone is success.
func (c *Client) Delete(ctx context.Context, gvk schema.GroupVersionKind, name, uid string, poll time.Duration) error {
	if err := c.StartDelete(ctx, gvk, name, uid); err != nil {
		return err
	}
	return c.WaitDeleted(ctx, gvk, name, uid, poll)
}

// StartDelete asks for the deletion of the object whose UID is uid (see Delete) without waiting for
// it to go: objects whose finalizers take time (NodePools draining their nodes) are deleted side by
// side, then waited for with WaitDeleted. An object already gone is success.
func (c *Client) StartDelete(ctx context.Context, gvk schema.GroupVersionKind, name, uid string) error {
	r, err := c.resource(gvk)
	if err != nil {
		return err
	}
	opts := metav1.DeleteOptions{}
	if uid != "" {
		u := types.UID(uid)
		opts.Preconditions = &metav1.Preconditions{UID: &u}
	}
	// Background: the object goes at once (the garbage collector deletes dependents later; these
	// kinds have none); its own finalizers (Karpenter's, which drain nodes) still hold it.
	policy := metav1.DeletePropagationBackground
	opts.PropagationPolicy = &policy
	if err := r.Delete(ctx, name, opts); err != nil {
		if IsNotFound(err) || deletionStarted(ctx, r, name, uid, err) {
			return nil
		}
		return c.wrap("deleting", gvk.Kind, name, err)
	}
	return nil
}

// deletionStarted reports, after a deletion request failed, whether the object was deleted all the
// same: an answer lost on its way back (a gateway's timeout, a connection cut after the server
// acted) hides a deletion the server did. The object is looked up: gone, being deleted, or replaced
// by another object of its name (uid) is a deletion started; there unchanged, or not readable, is
// not. A refusal the server answered before acting (forbidden, invalid) is not looked up.
func deletionStarted(ctx context.Context, r dynamic.ResourceInterface, name, uid string, err error) bool {
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || apierrors.IsMethodNotSupported(err) {
		return false // refused before anything was done: nothing to look up
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	live, err := r.Get(ctx, name, metav1.GetOptions{})
	switch {
	case IsNotFound(err):
		return true
	case err != nil:
		return false
	case uid != "" && string(live.GetUID()) != uid:
		return true
	}
	return live.GetDeletionTimestamp() != nil
}

// WaitDeleted waits until the object whose UID is uid is gone (or replaced by another of its name),
// or ctx ends.
func (c *Client) WaitDeleted(ctx context.Context, gvk schema.GroupVersionKind, name, uid string, poll time.Duration) error {
	r, err := c.resource(gvk)
	if err != nil {
		return err
	}
	if poll <= 0 {
		poll = 2 * time.Second
	}
	err = wait.PollUntilContextCancel(ctx, poll, true, func(ctx context.Context) (bool, error) {
		live, err := r.Get(ctx, name, metav1.GetOptions{})
		switch {
		case IsNotFound(err):
			return true, nil
		case transient(err):
			return false, nil // a drain takes many minutes: a blip of the API server does not end the wait
		case err != nil:
			return false, err
		}
		return uid != "" && string(live.GetUID()) != uid, nil // replaced by another object: ours is gone
	})
	if err != nil {
		return c.wrap("waiting for the deletion of", gvk.Kind, name, err)
	}
	return nil
}

func (c *Client) wrap(doing, kind, name string, err error) error {
	what := kind
	if name != "" {
		what += " " + name
	}
	return &APIError{msg: fmt.Sprintf("%s %s in %s", doing, what, c.cluster), err: err}
}

// APIError is a failed request, naming what was asked of which cluster.
type APIError struct {
	msg string
	err error
}

func (e *APIError) Error() string { return e.msg + ": " + e.err.Error() }
func (e *APIError) Unwrap() error { return e.err }

// Causes are the field errors an API server gave for refusing an object (422 Invalid).
func Causes(err error) []FieldError {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	var out []FieldError
	for _, c := range status.Status().Details.Causes {
		out = append(out, FieldError{Field: c.Field, Message: c.Message})
	}
	return out
}

// NotOwnedError is an object of a name gpufleet would write that is not the resource's: gpufleet
// leaves it alone.
type NotOwnedError struct {
	Kind, Name, Cluster string
	Owner               *string // the object's owner label, nil without one
	Want                string
}

func (e *NotOwnedError) Error() string {
	has := "it has no " + LabelOwner + " label"
	if e.Owner != nil {
		has = fmt.Sprintf("its %s label is %q", LabelOwner, *e.Owner)
	}
	return fmt.Sprintf("%s %s in %s is not this resource's: %s, and gpufleet changes and deletes only objects labelled %s=%s. "+
		"gpufleet has written nothing; delete or rename the object if it is stale, or give the resource another name.",
		e.Kind, e.Name, e.Cluster, has, LabelOwner, e.Want)
}

// IsNotOwned reports whether err is a NotOwnedError.
func IsNotOwned(err error) bool {
	var e *NotOwnedError
	return errors.As(err, &e)
}

// CheckOwned returns a *NotOwnedError unless live carries owner id ownerID ("" accepts any owner id
// of gpufleet: an import, which learns the id from the objects).
func (c *Client) CheckOwned(live *unstructured.Unstructured, ownerID string) error {
	v, ok := live.GetLabels()[LabelOwner]
	if ok && (v == ownerID || ownerID == "" && v != "") {
		return nil
	}
	e := &NotOwnedError{Kind: live.GetKind(), Name: live.GetName(), Cluster: c.cluster, Want: ownerID}
	if ok {
		e.Owner = &v
	}
	return e
}

// Managed is the part of live that the field manager set with server-side apply: its fields per
// the object's managedFields, with their current values, plus apiVersion, kind and name. A field
// another manager took over (a hand edit) is no longer the manager's and is left out, so comparing
// Managed with what gpufleet would apply shows drift. nil when the manager owns nothing.
func Managed(live *unstructured.Unstructured, manager string) (map[string]any, error) {
	var set *fieldpath.Set
	for _, e := range live.GetManagedFields() {
		if e.Manager != manager || e.Operation != metav1.ManagedFieldsOperationApply || e.Subresource != "" || e.FieldsV1 == nil {
			continue
		}
		s := &fieldpath.Set{}
		if err := s.FromJSON(e.FieldsV1.GetRawReader()); err != nil {
			return nil, fmt.Errorf("reading the managed fields of %s %s: %w", live.GetKind(), live.GetName(), err)
		}
		set = s
	}
	if set == nil {
		return nil, nil
	}
	out, _ := project(live.Object, set).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	out["apiVersion"], out["kind"] = live.GetAPIVersion(), live.GetKind()
	md, _ := out["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		out["metadata"] = md
	}
	md["name"] = live.GetName()
	if ns := live.GetNamespace(); ns != "" {
		md["namespace"] = ns
	}
	return out, nil
}

// project keeps the parts of v that set names: a leaf of the set keeps the whole value under it; a
// field with children keeps only them.
func project(v any, set *fieldpath.Set) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for name, child := range x {
			pe := fieldpath.PathElement{FieldName: &name}
			sub, hasChildren := set.Children.Get(pe)
			switch {
			case hasChildren && !sub.Empty():
				out[name] = project(child, sub)
			case set.Members.Has(pe) || hasChildren:
				out[name] = child
			}
		}
		return out
	case []any:
		var out []any
		for i, elem := range x {
			matched := false
			var sub *fieldpath.Set
			check := func(pe fieldpath.PathElement) {
				if matched || !elementMatches(pe, i, elem) {
					return
				}
				matched = true
				if s, ok := set.Children.Get(pe); ok && !s.Empty() {
					sub = s
				}
			}
			set.Members.Iterate(check)
			set.Children.Iterate(check)
			switch {
			case sub != nil:
				out = append(out, project(elem, sub))
			case matched:
				out = append(out, elem)
			}
		}
		return out
	}
	return v
}

// elementMatches reports whether the path element pe names the list element elem at index i.
func elementMatches(pe fieldpath.PathElement, i int, elem any) bool {
	switch {
	case pe.Index != nil:
		return *pe.Index == i
	case pe.Value != nil:
		return value.Equals(*pe.Value, value.NewValueInterface(elem))
	case pe.Key != nil:
		m, ok := elem.(map[string]any)
		if !ok {
			return false
		}
		for _, f := range *pe.Key {
			fv, ok := m[f.Name]
			if !ok || !value.Equals(f.Value, value.NewValueInterface(fv)) {
				return false
			}
		}
		return true
	}
	return false
}

// transient reports an error a wait sits out: the API server overloaded, timing out, restarting
// (a control plane upgrade) or the connection cut.
func transient(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) ||
		utilnet.IsConnectionReset(err) || utilnet.IsConnectionRefused(err) || utilnet.IsProbableEOF(err)
}

// SameCluster checks that c reaches the cluster whose identity (ClusterIdentity of kind gvk) a
// resource recorded, before the resource writes anything, and returns the identity to record: the
// one read, or the recorded one when none can be read (a warning then says the check was skipped).
// Nothing recorded (a create, a state from before identities were recorded) passes.
func SameCluster(ctx context.Context, c *Client, gvk schema.GroupVersionKind, recorded string, diags *diag.Diagnostics) fwtypes.String {
	return identityValue(sameCluster(ctx, c, gvk, recorded, diags))
}

// OtherCluster reports, for a resource that recorded the identity of its cluster, an error when c
// reaches another cluster (ClusterIdentity of kind gvk differs): refresh and destroy stop there
// rather than find none of the objects, drop the resource from state and leave them running in the
// recorded cluster (credentials of another account whose cluster has the same name). An identity
// that cannot be read, or a kind not installed, does not stop them (nil), as SameCluster.
func OtherCluster(ctx context.Context, c *Client, gvk schema.GroupVersionKind, recorded string) error {
	if recorded == "" {
		return nil
	}
	// "" when it cannot be read (its error is not this call's to report) or is not installed
	id, _ := c.ClusterIdentity(ctx, gvk)
	if id == "" || id == recorded {
		return nil
	}
	return fmt.Errorf("%s is another cluster than the one this resource's objects were written to (the %s CustomResourceDefinition's uid is %s there, %s where they are), so gpufleet cannot read or delete them there: check the provider's credentials, region and project, or the kubernetes block. State is left as it is; to give the objects up where they are, terraform state rm the resource",
		c.cluster, gvk.Kind, id, recorded)
}

// RecordedIdentity is the identity to record of the cluster c reaches, for a resource that has none
// recorded (imported, or recorded by a version that did not); null when it cannot be read.
func RecordedIdentity(ctx context.Context, c *Client, gvk schema.GroupVersionKind) fwtypes.String {
	id, err := c.ClusterIdentity(ctx, gvk)
	if err != nil {
		return identityValue("")
	}
	return identityValue(id)
}

func identityValue(id string) fwtypes.String {
	if id == "" {
		return fwtypes.StringNull()
	}
	return fwtypes.StringValue(id)
}

func sameCluster(ctx context.Context, c *Client, gvk schema.GroupVersionKind, recorded string, diags *diag.Diagnostics) string {
	id, err := c.ClusterIdentity(ctx, gvk)
	switch {
	case IsForbidden(err):
		diags.AddWarning("Cluster identity not checked", fmt.Sprintf("%v: gpufleet cannot tell whether the kubernetes block now reaches another cluster than the one the objects were written to (grant get on this CustomResourceDefinition).", err))
		return recorded
	case err != nil:
		diags.AddError("Reading the cluster's identity", err.Error())
		return recorded
	case id == "":
		return recorded
	case recorded != "" && id != recorded:
		diags.AddAttributeError(path.Root("kubernetes"), "Another cluster",
			fmt.Sprintf("%s reaches another cluster than the one this resource's objects were written to (the %s CustomResourceDefinition's uid is %s there, %s where they are). gpufleet does not move objects between clusters in place, which would leave them running in the old one, recorded nowhere; nothing was written. Replace the resource instead: terraform apply -replace=<its address> deletes the objects from the old cluster (with the settings in state) and creates them in this one.",
				c.cluster, gvk.Kind, id, recorded))
		return recorded
	}
	return id
}
