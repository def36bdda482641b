package poolschema

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/conns"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Default timeouts of the pool resources: GPU capacity and node pool operations take minutes.
const (
	DefaultCreateTimeout = 40 * time.Minute
	DefaultUpdateTimeout = 60 * time.Minute
	DefaultDeleteTimeout = 40 * time.Minute
)

// Resource is what every pool resource gets from the provider; the resources embed it.
type Resource struct {
	Meta *conns.Meta
}

func (r *Resource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	meta, err := conns.FromProviderData(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected provider data", err.Error())
		return
	}
	r.Meta = meta
}

// PlanOf reads a ModifyPlan request into a resource model. plan is nil when there is nothing to
// plan (destroy, or a provider not configured yet, as in validate); state is nil on create;
// unchanged says the plan leaves the pool as it is.
func PlanOf[M any](ctx context.Context, r *Resource, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) (plan, state *M, unchanged bool) {
	if req.Plan.Raw.IsNull() || r.Meta == nil {
		return nil, nil, false
	}
	plan = new(M)
	resp.Diagnostics.Append(req.Plan.Get(ctx, plan)...)
	if !req.State.Raw.IsNull() {
		state = new(M)
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
		unchanged = keepsState(req.Config.Raw, req.Plan.Raw, req.State.Raw)
		if unchanged {
			// The framework may have seen a difference Terraform does not (see keepsState) and
			// marked the computed attributes unknown: the pool is planned from its state.
			*plan = *state
		}
	}
	if resp.Diagnostics.HasError() {
		return nil, nil, false
	}
	return plan, state, unchanged
}

// Read is a pool resource's Read: the state, refreshed from the cloud (refresh reports its own
// diagnostics), or removed from state when none of the pool exists any more.
func Read[M any](ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse, refresh func(context.Context, *M, *diag.Diagnostics) (found bool)) {
	state := new(M)
	resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	found := refresh(ctx, state, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !found {
		tflog.Warn(ctx, "node pool not found in the cloud, removing it from state")
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// PoolModel is a pool resource's model: it embeds Model.
type PoolModel[M any] interface {
	*M
	Base() *Model
}

// Base is the cloud-neutral part of a resource model.
func (m *Model) Base() *Model { return m }

// Create runs a pool resource's Create: the planned model, and a context bounded by the create
// timeout (also handed to do, for the cloud's waiters).
func Create[M any, P PoolModel[M]](ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse, do func(ctx context.Context, plan P, timeout time.Duration)) {
	plan := P(new(M))
	resp.Diagnostics.Append(req.Plan.Get(ctx, plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	withTimeout(ctx, plan.Base().Timeouts.Create, DefaultCreateTimeout, &resp.Diagnostics, func(ctx context.Context, timeout time.Duration) { do(ctx, plan, timeout) })
}

// Update runs a pool resource's Update: the planned and the prior model, within the update timeout.
func Update[M any, P PoolModel[M]](ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse, do func(ctx context.Context, plan, state P, timeout time.Duration)) {
	plan, state := P(new(M)), P(new(M))
	resp.Diagnostics.Append(req.Plan.Get(ctx, plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	withTimeout(ctx, plan.Base().Timeouts.Update, DefaultUpdateTimeout, &resp.Diagnostics, func(ctx context.Context, timeout time.Duration) { do(ctx, plan, state, timeout) })
}

// Delete runs a pool resource's Delete: the prior model, within the delete timeout.
func Delete[M any, P PoolModel[M]](ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse, do func(ctx context.Context, state P, timeout time.Duration)) {
	state := P(new(M))
	resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	withTimeout(ctx, state.Base().Timeouts.Delete, DefaultDeleteTimeout, &resp.Diagnostics, func(ctx context.Context, timeout time.Duration) { do(ctx, state, timeout) })
}

func withTimeout(ctx context.Context, timeout func(context.Context, time.Duration) (time.Duration, diag.Diagnostics), def time.Duration, diags *diag.Diagnostics, do func(context.Context, time.Duration)) {
	d, ds := timeout(ctx, def)
	diags.Append(ds...)
	if diags.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	do(ctx, d)
}

// Derive validates and derives a pool again at apply: the plan holds only the results.
func Derive(r *Resource, spec pool.Spec, specDiags diag.Diagnostics, diags *diag.Diagnostics) (pool.Derived, bool) {
	diags.Append(specDiags...)
	spec.NodeLimits = pool.NodeLimitsFor(spec.ResourceType, r.Meta.Pool)
	AddProblems(diags, spec.Validate())
	if diags.HasError() {
		return pool.Derived{}, false
	}
	d, err := pool.Derive(spec, r.Meta.Pool)
	if err != nil {
		diags.AddError("Deriving the pool", err.Error())
		return pool.Derived{}, false
	}
	return d, true
}

// ListOf reads a computed list of objects; nil when it is null or unknown.
func ListOf[T any](ctx context.Context, l types.List) []T {
	var out []T
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	l.ElementsAs(ctx, &out, false)
	return out
}

// MapSlice applies f to every element.
func MapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// Connect returns one cloud client of the provider (get, e.g. meta.EKS), or reports why there is
// none: a provider not configured yet, or a client that could not be built (what names the cloud).
func Connect[T any](ctx context.Context, r *Resource, what string, get func(*conns.Meta, context.Context) (T, error), diags *diag.Diagnostics) (T, bool) {
	var zero T
	if r.Meta == nil {
		diags.AddError("Provider not configured", "the gpufleet provider was not configured before the resource was used")
		return zero, false
	}
	c, err := get(r.Meta, ctx)
	if err != nil {
		diags.AddError("Configuring the "+what+" client", err.Error())
		return zero, false
	}
	return c, true
}
