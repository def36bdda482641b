package render

import (
	"maps"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Node classes. Self-managed Karpenter: an EC2NodeClass (karpenter.k8s.aws/v1) with the node role
// or instance profile, the AMI alias, the subnet and security group selectors, the pool's tags
// (Karpenter puts them on the instances, volumes, network interfaces and launch templates it
// creates: karpenter.sh, "EC2NodeClasses", spec.tags) and the reservation. EKS Auto Mode: its
// NodeClass (eks.amazonaws.com/v1) with the same, less the AMI and the instance profile.

// NodeClassName is the name of the pool's node class: the pool's name.
func NodeClassName(s pool.Spec) string { return s.Name }

func (r *renderer) nodeClass() Object {
	spec := map[string]any{
		"subnetSelectorTerms":        selectorTerms(r.set.Subnets, false),
		"securityGroupSelectorTerms": selectorTerms(r.set.SecurityGroups, true),
		"tags":                       anyMap(r.derived.Tags),
	}
	origins := []Origin{
		{Field: "metadata", Attr: pool.P("name")},
		{Field: "spec.subnetSelectorTerms", Attr: pool.P("subnet_selector")},
		{Field: "spec.securityGroupSelectorTerms", Attr: pool.P("security_group_selector")},
		{Field: "spec.tags", Attr: pool.P("tags")},
		{Field: "spec.role", Attr: pool.P("node_role")},
		{Field: "spec.capacityReservationSelectorTerms", Attr: pool.P("capacity", "reservation", "id")},
	}
	if res := r.spec.Capacity.Reservation; res != nil {
		spec["capacityReservationSelectorTerms"] = []any{map[string]any{"id": res.ID}}
	}
	md := r.metadata(NodeClassName(r.spec))
	if len(r.set.Annotations) > 0 {
		md["annotations"] = anyMap(r.set.Annotations)
	}
	obj := map[string]any{"metadata": md, "spec": spec}
	if r.autoMode() {
		obj["apiVersion"], obj["kind"] = "eks.amazonaws.com/v1", "NodeClass"
		spec["role"] = r.set.NodeRole
		return Object{Manifest: obj, Origins: origins}
	}
	obj["apiVersion"], obj["kind"] = "karpenter.k8s.aws/v1", "EC2NodeClass"
	if r.set.InstanceProfile != "" {
		spec["instanceProfile"] = r.set.InstanceProfile
	} else {
		spec["role"] = r.set.NodeRole
	}
	spec["amiSelectorTerms"] = []any{map[string]any{"alias": r.set.AMIAlias}}
	origins = append(origins,
		Origin{Field: "spec.instanceProfile", Attr: pool.P("instance_profile")},
		Origin{Field: "spec.amiSelectorTerms", Attr: pool.P("ami_alias")},
		Origin{"spec", pool.P("node_role"), true}, // the role-or-instance-profile rule is on spec
	)
	return Object{Manifest: obj, Origins: origins}
}

// selectorTerms renders subnet or security group selector terms; names only for security groups.
func selectorTerms(terms []SelectorTerm, names bool) []any {
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		m := map[string]any{}
		if t.ID != "" {
			m["id"] = t.ID
		}
		if t.Name != "" && names {
			m["name"] = t.Name
		}
		if len(t.Tags) > 0 {
			m["tags"] = anyMap(maps.Clone(t.Tags))
		}
		out = append(out, m)
	}
	return out
}
