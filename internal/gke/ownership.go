package gke

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/poolschema"
)

// Ownership. gpufleet changes and deletes only node pools it created and can prove it owns, as the
// EKS pool does (internal/eks/ownership.go). Each node pool carries two resource labels that users
// cannot set (tags starting with gpufleet_ are refused at plan): gpufleet_pool, the pool's name, and
// gpufleet_owner, the pool's owner id (pool.NewOwnerID: random, made when the pool is created, kept
// in state as owner_id). The name alone does not tell two pools apart that declare the same cluster
// and name (two states, two workspaces); the owner id does. A node pool of a side's name that is not
// the pool's is never adopted, changed or deleted: when the pool needs that side, the apply stops
// before any change; when it does not, the pool ignores it.
//
// Pools made before owner ids have a null owner_id and node pools without gpufleet_owner. Such a
// node pool is the pool's only when its state recorded it: one of its instance group URLs is in
// the state's node_pools. GKE names a node pool's instance groups gke-<cluster>-<pool>-<hash>-grp
// with a hash unique to the node pool (kubetest's poolTemplateRe: "unique hash (used as nonce for
// firewall rules)", kubernetes/test-infra PR #20061, kubetest/gke.go), so a node pool created again
// under the name, by another state, has other URLs; cloudsim gives each node pool a random suffix
// likewise (instanceGroupURLs). The pool's next apply gives
// it an owner id and writes gpufleet_owner on its node pools. Import takes the owner id from the
// node pools' labels (none on node pools made before owner ids, or by another tool and labelled by
// hand as the migration guide says: the pool then gets an owner id on its next apply).

// labelOwner is the resource label that holds the owner id. Like labelSpotMix it is gpufleet's
// record, not part of effective_tags.
const labelOwner = "gpufleet_owner"

// owner is whose node pools a pool's are: its name and owner id ("" before owner ids), or, on
// import (anyID), any owner id of the name. recorded holds, per node pool name, the instance group
// URLs state recorded for it: the proof for node pools made before owner ids. legacy says that the
// state recorded came from a pool made before owner ids (a null owner_id).
type owner struct {
	pool     string
	id       string
	anyID    bool
	legacy   bool
	recorded map[string][]string
}

// owner is the model's owner; recorded are the node pools of the state the model comes from (the
// prior state during an update), null on import, and recordedOwner that state's owner id.
func (m *nodePoolModel) owner(ctx context.Context, recorded types.List, recordedOwner types.String) owner {
	o := owner{pool: m.Name.ValueString(), id: m.OwnerID.ValueString(), recorded: map[string][]string{}}
	o.anyID = (m.OwnerID.IsNull() || m.OwnerID.IsUnknown()) && recorded.IsNull()
	o.legacy = recordedOwner.IsNull() && !recorded.IsNull()
	for _, np := range poolschema.ListOf[nodePoolSideModel](ctx, recorded) {
		var urls []string
		if !np.InstanceGroupURLs.IsUnknown() {
			np.InstanceGroupURLs.ElementsAs(ctx, &urls, false)
		}
		o.recorded[np.Name.ValueString()] = urls
	}
	return o
}

// owns reports whether np is one of the pool's node pools. A pool made before owner ids owns the
// node pools its state recorded whatever owner id they carry: its first apply under owner ids writes
// the new id on them before Terraform saves it, so an apply killed in between leaves node pools
// labelled with an id that no state holds, and their instance groups are still the proof.
func (o owner) owns(np *containerpb.NodePool) bool {
	labels := np.GetConfig().GetResourceLabels()
	if labels[pool.TagKeysFor(catalog.GCP).Pool] != o.pool {
		return false
	}
	if id, ok := labels[labelOwner]; ok && (o.anyID || o.id != "" && id == o.id) {
		return true
	} else if ok && !o.legacy {
		return false
	}
	return o.anyID || slices.ContainsFunc(np.GetInstanceGroupUrls(), func(u string) bool { return slices.Contains(o.recorded[np.GetName()], u) })
}

// ownerIDOf is the owner id a node pool carries, "" for one made before owner ids.
func ownerIDOf(np *containerpb.NodePool) string {
	return np.GetConfig().GetResourceLabels()[labelOwner]
}

// notOwned explains why np, which has a side's name, is not the pool's.
func (o owner) notOwned(cluster clusterRef, np *containerpb.NodePool) error {
	labels := np.GetConfig().GetResourceLabels()
	poolKey := pool.TagKeysFor(catalog.GCP).Pool
	var why string
	switch id, hasID := labels[labelOwner]; {
	case labels[poolKey] != o.pool:
		why = fmt.Sprintf("it has no %s resource label naming pool %q, so gpufleet did not create it for this pool", poolKey, o.pool)
	case hasID:
		why = fmt.Sprintf("its %s label is %q, this pool's owner_id is %q: it belongs to another gpufleet pool of the same cluster and name (another Terraform state or workspace)", labelOwner, id, o.id)
	default:
		why = fmt.Sprintf("it has no %s label and this pool's state does not record it (its instance groups are not the ones state holds)", labelOwner)
	}
	return fmt.Errorf("GKE node pool %s/%s is not this pool's: %s. gpufleet changes and deletes only node pools it can prove it owns and has left it unchanged: "+
		"delete or rename it if it is stale, give this pool another name, or manage the other pool from its own state", cluster, np.GetName(), why)
}

// importedOwnerID is the owner id an imported pool takes from its node pools' labels: one id, or
// none for node pools made before owner ids; node pools of different pools are an error.
func importedOwnerID(cluster clusterRef, name string, nps []*containerpb.NodePool) (types.String, error) {
	ids := map[string]bool{}
	for _, np := range nps {
		ids[ownerIDOf(np)] = true
	}
	if len(ids) > 1 {
		return types.StringNull(), fmt.Errorf("the node pools of %s/%s carry the %s labels of different pools (%q): import one pool's node pools, after deleting or renaming the other's",
			cluster, name, labelOwner, strings.Join(slices.Sorted(maps.Keys(ids)), `", "`))
	}
	for id := range ids {
		return poolschema.NullableString(id), nil
	}
	return types.StringNull(), nil
}
