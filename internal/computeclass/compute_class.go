package computeclass

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/crd"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/gke"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

var (
	_ resource.Resource                = &ComputeClassResource{}
	_ resource.ResourceWithConfigure   = &ComputeClassResource{}
	_ resource.ResourceWithModifyPlan  = &ComputeClassResource{}
	_ resource.ResourceWithImportState = &ComputeClassResource{}
)

// gvk is the ComputeClass kind.
var gvk = k8sschema.GroupVersionKind{Group: crd.Group, Version: crd.Version, Kind: crd.Kind}

// deletePoll is how often a deletion is checked for; tests shorten it.
var deletePoll = 2 * time.Second

// ComputeClassResource is gpufleet_gke_compute_class.
type ComputeClassResource struct {
	poolschema.Resource
}

// NewComputeClassResource is the resource factory.
func NewComputeClassResource() resource.Resource { return &ComputeClassResource{} }

// resourceModel is the resource's data: the class and its cluster.
type resourceModel struct {
	classModel

	ID         types.String          `tfsdk:"id"`
	Project    types.String          `tfsdk:"project"`
	Cluster    types.String          `tfsdk:"cluster"`
	OwnerID    types.String          `tfsdk:"owner_id"`
	ClusterID  types.String          `tfsdk:"cluster_identity"`
	Kubernetes *kube.ConnectionModel `tfsdk:"kubernetes"`
}

func (r *ComputeClassResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_gke_compute_class"
}

func (r *ComputeClassResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attributes := classAttributes()
	maps.Copy(attributes, gke.ClusterAttributes())
	maps.Copy(attributes, map[string]schema.Attribute{
		"cluster": schema.StringAttribute{
			MarkdownDescription: "Name of the GKE cluster. gpufleet reaches its Kubernetes API server through GKE's GetCluster (endpoint and CA) with an access token of the provider's Google credentials, unless a `kubernetes` block says otherwise.",
			Required:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"owner_id":         kube.OwnerIDAttribute("the ComputeClass"),
		"cluster_identity": kube.ClusterIdentityAttribute("ComputeClass"),
	})
	attributes["manifests"] = schema.StringAttribute{
		MarkdownDescription: "The ComputeClass as YAML, as gpufleet applies it but for the ownership labels it adds (`" + kube.LabelOwner + "`, `" + kube.LabelResource + "`). After a refresh, what of the class gpufleet still manages in the cluster: a field changed by hand shows here, and the next apply puts it back.",
		Computed:            true,
	}
	blocks := classBlocks(ctx)
	blocks["kubernetes"] = kube.ConnectionBlock("the GKE cluster's endpoint and CA (GetCluster) and an access token of the provider's Google credentials")
	resp.Schema = schema.Schema{
		MarkdownDescription: "A GPU pool as a GKE custom ComputeClass (`cloud.google.com/v1`), managed in the cluster: a priority " +
			"per rung of the capacity ladder (reservation, on-demand, flex-start, spot) with the machine type and GPU from the " +
			"catalog, the GPU and client taints, node labels, and consolidation and migration settings that suit the workload. " +
			"Validated at plan in process against the ComputeClass schema (no cluster call) and judged by the policy bundle; " +
			"`pod_spec` is what workloads add to use it. See the guide \"GPU capacity on GKE with ComputeClasses\".",
		Attributes: attributes,
		Blocks:     blocks,
	}
}

func classID(m *resourceModel) string {
	return strings.Join([]string{m.Project.ValueString(), m.Location.ValueString(), m.Cluster.ValueString(), m.Name.ValueString()}, "/")
}

func (r *ComputeClassResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	gke.ImportClusterID(ctx, render.ResourceType, "ml-platform/us-central1/ml/globex-l4-serve", req, resp)
}

// ModifyPlan validates the class, fills every derived attribute so that the plan shows it, runs the
// policy bundle on the pool and validates the rendered ComputeClass against its CRD, all in
// process: it never calls the cluster or a cloud.
func (r *ComputeClassResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	plan, state, unchanged := poolschema.PlanOf[resourceModel](ctx, &r.Resource, req, resp)
	if plan == nil {
		return
	}
	if !gke.PlanProject(&plan.Project, state != nil, func() types.String { return state.Project }, r.Meta, "the class", &resp.Diagnostics) {
		return
	}
	var cfg resourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.Project.IsUnknown() && !plan.Location.IsUnknown() && !plan.Cluster.IsUnknown() && !plan.Name.IsUnknown() {
		plan.ID = types.StringValue(classID(plan))
	}
	if state == nil {
		plan.OwnerID = types.StringUnknown()
	}
	plan.Kubernetes.Validate(path.Root("kubernetes"), &resp.Diagnostics)
	set := configured{activeMigration: !cfg.ActiveMigration.IsNull(), consolidationDelay: !cfg.ConsolidationDelayMinutes.IsNull()}
	planClass(ctx, r.Meta, &plan.classModel, set, unchanged, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// client connects to the class's cluster: the kubernetes block, or GKE's GetCluster and a Google
// access token. A GKE cluster that does not exist (any more) is gone, with no error added: the class
// went with it, which a refresh and a destroy take as the class gone (an apply reports it).
func (r *ComputeClassResource) client(ctx context.Context, m *resourceModel, diags *diag.Diagnostics) (client *kube.Client, gone error) {
	var access kube.Access
	if m.Kubernetes.Configured() {
		a, ds := m.Kubernetes.Access(ctx)
		diags.Append(ds...)
		if diags.HasError() {
			return nil, nil
		}
		access = a
	} else {
		gkeClient, ok := poolschema.Connect(ctx, &r.Resource, "GKE", (*conns.Meta).GKE, diags)
		if !ok {
			return nil, nil
		}
		ref := fmt.Sprintf("projects/%s/locations/%s/clusters/%s", m.Project.ValueString(), m.Location.ValueString(), m.Cluster.ValueString())
		c, err := gkeClient.GetCluster(ctx, &containerpb.GetClusterRequest{Name: ref})
		if status.Code(err) == codes.NotFound {
			return nil, fmt.Errorf("GKE cluster %s: %w (%w)", ref, kube.ErrClusterNotFound, err)
		}
		if err != nil {
			diags.AddError("Reading the GKE cluster", fmt.Sprintf("GetCluster %s: %v", ref, err))
			return nil, nil
		}
		tokens, err := r.Meta.GoogleTokenSource(ctx)
		if err != nil {
			diags.AddError("Google credentials for the cluster", err.Error())
			return nil, nil
		}
		access, err = kube.GKEAccess(kube.GKECluster{Name: ref, Endpoint: c.GetEndpoint(), CACertificateBase64: c.GetMasterAuth().GetClusterCaCertificate()}, tokens)
		if err != nil {
			diags.AddError("Reaching the GKE cluster", err.Error())
			return nil, nil
		}
	}
	client, err := kube.NewClient(access, r.Meta.UserAgent)
	if err != nil {
		diags.AddError("Connecting to the cluster", err.Error())
		return nil, nil
	}
	return client, nil
}

// desired is the object gpufleet applies: the planned class with its ownership labels.
func desired(m *resourceModel) (map[string]any, error) {
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(m.Manifests.ValueString()), &obj); err != nil {
		return nil, fmt.Errorf("reading the planned manifests: %w", err)
	}
	u := unstructured.Unstructured{Object: obj}
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[kube.LabelOwner] = m.OwnerID.ValueString()
	labels[kube.LabelResource] = render.ResourceType
	u.SetLabels(labels)
	return u.Object, nil
}

func (r *ComputeClassResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	poolschema.Create(ctx, req, resp, func(ctx context.Context, plan *resourceModel, _ time.Duration) {
		id, err := kube.NewOwnerID()
		if err != nil {
			resp.Diagnostics.AddError("Creating the ComputeClass", err.Error())
			return
		}
		plan.OwnerID = types.StringValue(id)
		if ok, left := r.apply(ctx, plan, &resp.Diagnostics); !ok {
			if left {
				// State records the class the failed create could not undo: Terraform taints
				// it, and the next apply deletes it before it creates it again.
				resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
			}
			return
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	})
}

func (r *ComputeClassResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	poolschema.Update(ctx, req, resp, func(ctx context.Context, plan, state *resourceModel, _ time.Duration) {
		plan.OwnerID = state.OwnerID
		if ok, _ := r.apply(ctx, plan, &resp.Diagnostics); !ok {
			// State keeps the configuration as it was, which the next plan applies again, with the
			// class as the cluster now holds it: an apply whose answer was lost (a timeout, a
			// connection cut) may have been done.
			if m, ok := r.liveManifests(ctx, state); ok && m != state.Manifests.ValueString() {
				state.Manifests = types.StringValue(m)
				resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
			}
			return
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	})
}

// apply writes the planned class: never over an object of the same name that is not this
// resource's, which is an error before any write. A create that fails after the server did the
// apply (its answer lost: a timeout, a connection cut) deletes the class it made; left reports one
// it could not delete, for state to record.
func (r *ComputeClassResource) apply(ctx context.Context, m *resourceModel, diags *diag.Diagnostics) (ok, left bool) {
	client, gone := r.client(ctx, m, diags)
	if gone != nil {
		diags.AddError("Reading the GKE cluster", gone.Error())
	}
	if client == nil {
		return false, false
	}
	// The cluster first: one other than the class's stops the apply before any write. (An update's
	// plan holds the identity state recorded; a create's is unknown.)
	recorded := ""
	if !m.ClusterID.IsUnknown() {
		recorded = m.ClusterID.ValueString()
	}
	m.ClusterID = kube.SameCluster(ctx, client, gvk, recorded, diags)
	if diags.HasError() {
		return false, false
	}
	obj, err := desired(m)
	if err != nil {
		diags.AddError("Applying the ComputeClass", err.Error())
		return false, false
	}
	// A class being deleted (a destroy that timed out on its finalizers) is waited for and made
	// again: written to, it would go all the same.
	live, err := client.GetSettled(ctx, gvk, m.Name.ValueString(), deletePoll)
	creating := kube.IsNotFound(err)
	checked := "" // the UID of the class checked: the write goes to it alone (none: a create)
	switch {
	case err == nil:
		if err := client.CheckOwned(live, m.OwnerID.ValueString()); err != nil {
			diags.AddAttributeError(path.Root("name"), "ComputeClass of this name is not this resource's", err.Error())
			return false, false
		}
		checked = string(live.GetUID())
	case !creating:
		diags.AddError("Reading the ComputeClass", err.Error())
		return false, false
	}
	if _, err := client.ApplyOver(ctx, obj, checked); err != nil {
		if kube.IsNotOwned(err) {
			diags.AddAttributeError(path.Root("name"), "ComputeClass of this name is not this resource's", err.Error())
		} else if causes := kube.Causes(err); len(causes) > 0 {
			reportFieldErrors(diags, causes)
		} else {
			diags.AddError("Applying the ComputeClass", err.Error())
		}
		if creating {
			return false, undoCreate(ctx, client, m, diags)
		}
		return false, false
	}
	tflog.Info(ctx, "applied the ComputeClass", map[string]any{"name": m.Name.ValueString()})
	return true, false
}

// liveManifests are the managed fields of the class in the cluster (managedManifests) when it is
// there and this resource's; ok is false otherwise, or when it cannot be read.
func (r *ComputeClassResource) liveManifests(ctx context.Context, m *resourceModel) (string, bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var scratch diag.Diagnostics
	client, gone := r.client(ctx, m, &scratch)
	if gone != nil || client == nil {
		return "", false
	}
	live, err := client.Get(ctx, gvk, m.Name.ValueString())
	if err != nil || client.CheckOwned(live, m.OwnerID.ValueString()) != nil {
		return "", false
	}
	out, err := managedManifests(live)
	return out, err == nil
}

// undoCreate deletes the class a failed create made anyway (it is this resource's: the create's new
// owner id), and reports whether it is left.
func undoCreate(ctx context.Context, client *kube.Client, m *resourceModel, diags *diag.Diagnostics) (left bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	live, err := client.Get(ctx, gvk, m.Name.ValueString())
	if err != nil || client.CheckOwned(live, m.OwnerID.ValueString()) != nil {
		return false // not made (or not readable: the apply's error says what happened)
	}
	if err := client.Delete(ctx, gvk, live.GetName(), string(live.GetUID()), deletePoll); err != nil {
		diags.AddError("Removing the ComputeClass the failed create made", fmt.Sprintf("%v. State records it, and the next apply deletes it before it creates it again.", err))
		return true
	}
	return false
}

func (r *ComputeClassResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	poolschema.Read(ctx, req, resp, func(ctx context.Context, m *resourceModel, diags *diag.Diagnostics) bool {
		client, gone := r.client(ctx, m, diags)
		if gone != nil {
			diags.AddWarning("ComputeClass "+m.Name.ValueString()+" is gone with its cluster", gone.Error()+"; the class went with the cluster, and it is removed from state.")
			return false
		}
		if client == nil {
			return false
		}
		if err := kube.OtherCluster(ctx, client, gvk, m.ClusterID.ValueString()); err != nil {
			diags.AddAttributeError(path.Root("cluster_identity"), "Reading the ComputeClass: another cluster", err.Error())
			return false
		}
		live, err := client.Get(ctx, gvk, m.Name.ValueString())
		switch {
		case kube.IsNotFound(err):
			return false
		case err != nil:
			diags.AddError("Reading the ComputeClass", err.Error())
			return false
		}
		if m.OwnerID.IsNull() || m.OwnerID.IsUnknown() || m.OwnerID.ValueString() == "" {
			// An import: the class must be gpufleet's, and its owner id becomes this resource's.
			if err := client.CheckOwned(live, ""); err != nil {
				diags.AddError("ComputeClass is not gpufleet's", err.Error())
				return false
			}
			if !importClass(ctx, r.Meta, live, m, diags) {
				return false
			}
		} else if err := client.CheckOwned(live, m.OwnerID.ValueString()); err != nil {
			// Another object has taken the name: this resource's class is gone, and the next plan
			// would create it over the other one's name (which the apply refuses): say so.
			diags.AddWarning("ComputeClass "+m.Name.ValueString()+" is no longer this resource's", err.Error()+"; it is removed from state and left alone.")
			return false
		}
		if kube.Terminating(live) {
			diags.AddWarning("ComputeClass "+m.Name.ValueString()+" is being deleted",
				fmt.Sprintf("It has been terminating since %s (finalizers: %s), after a destroy that did not wait for it to go. It is removed from state; the next apply waits for it to go and creates it again.",
					live.GetDeletionTimestamp().UTC().Format(time.RFC3339), strings.Join(live.GetFinalizers(), ", ")))
			return false
		}
		manifests, err := managedManifests(live)
		if err != nil {
			diags.AddError("Reading the ComputeClass", err.Error())
			return false
		}
		m.Manifests = types.StringValue(manifests)
		if m.ClusterID.IsNull() || m.ClusterID.IsUnknown() {
			// imported, or recorded by a version that did not: the cluster the class is in
			m.ClusterID = kube.RecordedIdentity(ctx, client, gvk)
		}
		return true
	})
}

// managedManifests is the YAML of what gpufleet manages of the live class (kube.Managed), without
// the ownership labels: equal to the planned manifests until someone changes a field by hand.
func managedManifests(live *unstructured.Unstructured) (string, error) {
	managed, err := kube.Managed(live, kube.FieldManager)
	if err != nil {
		return "", err
	}
	if managed == nil {
		managed = map[string]any{"apiVersion": live.GetAPIVersion(), "kind": live.GetKind(), "metadata": map[string]any{"name": live.GetName()}}
	}
	u := unstructured.Unstructured{Object: managed}
	labels := u.GetLabels()
	delete(labels, kube.LabelOwner)
	delete(labels, kube.LabelResource)
	if len(labels) == 0 {
		unstructured.RemoveNestedField(u.Object, "metadata", "labels")
	} else {
		u.SetLabels(labels)
	}
	out, err := yaml.Marshal(u.Object)
	return string(out), err
}

func (r *ComputeClassResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	poolschema.Delete(ctx, req, resp, func(ctx context.Context, state *resourceModel, _ time.Duration) {
		client, gone := r.client(ctx, state, &resp.Diagnostics)
		if gone != nil || client == nil {
			return // gone with its cluster, or an error reported
		}
		if err := kube.OtherCluster(ctx, client, gvk, state.ClusterID.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("cluster_identity"), "Deleting the ComputeClass: another cluster", err.Error())
			return
		}
		live, err := client.Get(ctx, gvk, state.Name.ValueString())
		switch {
		case kube.IsNotFound(err):
			return
		case err != nil:
			resp.Diagnostics.AddError("Reading the ComputeClass", err.Error())
			return
		}
		if err := client.CheckOwned(live, state.OwnerID.ValueString()); err != nil {
			resp.Diagnostics.AddWarning("Left alone: ComputeClass "+state.Name.ValueString(), err.Error())
			return
		}
		if err := client.Delete(ctx, gvk, live.GetName(), string(live.GetUID()), deletePoll); err != nil {
			resp.Diagnostics.AddError("Deleting the ComputeClass", err.Error())
		}
	})
}
