// Package render turns a pool (pool.Spec and what gpufleet derives from it) into the Kubernetes
// objects that realise it under Karpenter or EKS Auto Mode: one node class (EC2NodeClass, or Auto
// Mode's NodeClass), a NodePool per capacity rung (and a static NodePool per rung for min_size),
// and a NodeOverlay that makes Karpenter count shared or partitioned GPUs. One renderer per kind,
// one way: the resource gpufleet_karpenter_node_pool and its render-only data source both call
// Render. Whatever the objects cannot carry exactly is a Note at the attribute, never dropped in
// silence. Pure functions, no I/O.
package render

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/crds"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Modes.
const (
	ModeKarpenter = "karpenter"
	ModeAutoMode  = "auto_mode"
)

// Karpenter releases gpufleet renders for and validates against (internal/kube/crds).
const (
	Karpenter114 = "1.14"
	Karpenter115 = "1.15"
)

var (
	Modes             = []string{ModeKarpenter, ModeAutoMode}
	KarpenterVersions = []string{Karpenter114, Karpenter115}
)

// DefaultAMIAlias is the AMI of self-managed Karpenter's nodes unless the pool names one: the latest
// Amazon Linux 2023 EKS AMI, whose NVIDIA variant Karpenter picks for GPU instance types
// (karpenter.sh, "EC2NodeClasses", amiSelectorTerms alias).
const DefaultAMIAlias = "al2023@latest"

// LatestKarpenter is the release a pool targets unless it says otherwise.
const LatestKarpenter = Karpenter115

// CRDSet is the CRD set objects of a mode and Karpenter release are validated against.
func CRDSet(mode, version string) crds.Set {
	switch {
	case mode == ModeAutoMode:
		return crds.AutoMode
	case version == Karpenter114:
		return crds.Karpenter114
	}
	return crds.Karpenter115
}

// Settings are what the objects need beyond the pool spec: the resource's Karpenter arguments.
type Settings struct {
	Mode             string
	KarpenterVersion string
	// NodeRole is the IAM role name of the nodes; InstanceProfile an instance profile instead
	// (self-managed Karpenter only).
	NodeRole, InstanceProfile string
	Subnets                   []SelectorTerm
	SecurityGroups            []SelectorTerm
	// AMIAlias selects the AMI family and version, e.g. al2023@latest (self-managed Karpenter only).
	AMIAlias   string
	Disruption Disruption
	// Annotations go on the node class (the resource's recorded configuration, for import).
	Annotations map[string]string
}

// SelectorTerm selects subnets or security groups: by id, by name (security groups) or by tags.
type SelectorTerm struct {
	ID   string
	Name string
	Tags map[string]string
}

// Disruption is the pool's disruption settings as written; empty fields take gpufleet's defaults
// for the workload (DefaultDisruption).
type Disruption struct {
	ConsolidationPolicy    string
	ConsolidateAfter       string
	ExpireAfter            string
	TerminationGracePeriod string
	Budgets                []Budget
	// BudgetsSet says the budgets were written (an empty list is a choice too).
	BudgetsSet bool
}

// Budget is one NodePool disruption budget.
type Budget struct {
	Nodes    string
	Reasons  []string
	Schedule string
	Duration string
}

// Object is one rendered object and where its fields come from.
type Object struct {
	Manifest map[string]any
	// Origins map field paths of the object (as the API server names them in errors) to the
	// attributes that produce them; the longest matching prefix wins.
	Origins []Origin
}

// Origin ties an object field path prefix to a resource attribute; an Exact origin matches its
// field only, not the fields under it.
type Origin struct {
	Field string
	Attr  pool.Path
	Exact bool
}

// Kind is the object's kind.
func (o Object) Kind() string { s, _ := o.Manifest["kind"].(string); return s }

// APIVersion is the object's apiVersion.
func (o Object) APIVersion() string { s, _ := o.Manifest["apiVersion"].(string); return s }

// Name is the object's name.
func (o Object) Name() string {
	md, _ := o.Manifest["metadata"].(map[string]any)
	s, _ := md["name"].(string)
	return s
}

// AttributeOf is the attribute that produced the field (an API server's error path), "name" when
// no origin matches.
func (o Object) AttributeOf(field string) pool.Path {
	best, bestLen := pool.P("name"), -1
	for _, org := range o.Origins {
		under := !org.Exact && (strings.HasPrefix(field, org.Field+".") || strings.HasPrefix(field, org.Field+"["))
		if (field == org.Field || under) && len(org.Field) > bestLen {
			best, bestLen = org.Attr, len(org.Field)
		}
	}
	return best
}

// Severity of a note.
type Severity int

const (
	Warning Severity = iota
	Error
)

// Note is something the objects cannot carry exactly, at the attribute that asks for it.
type Note struct {
	Path     pool.Path
	Severity Severity
	Summary  string
	Detail   string
}

// Labels every rendered object carries (metadata): which gpufleet resource renders it, for import.
// The owner label (kube.LabelOwner) is added when the objects are applied.
const (
	LabelResource = "gpufleet.io/resource"
	LabelPool     = "gpufleet.io/pool"
	ResourceType  = "gpufleet_karpenter_node_pool"
)

// Rendering is the result of Render.
type Rendering struct {
	Objects []Object
	Notes   []Note
	// NodePools are the NodePools, in order, for the resource's node_pools attribute.
	NodePools []NodePoolSummary
}

// NodePoolSummary describes one rendered NodePool.
type NodePoolSummary struct {
	Name         string
	CapacityType string // on-demand, reserved, capacity-block, spot
	Weight       int    // 0 for a static NodePool
	Nodes        int    // limits.nodes, or replicas of a static NodePool
	Static       bool
}

// Render renders the pool. s must be valid (pool.Validate) and d its derived values. Errors among
// the notes mean the objects cannot realise the pool: the caller reports them and stops.
func Render(s pool.Spec, d pool.Derived, set Settings) Rendering {
	r := &renderer{spec: s, derived: d, set: set}
	if r.set.KarpenterVersion == "" {
		r.set.KarpenterVersion = LatestKarpenter
	}
	r.checkSettings()
	r.checkInterNode()
	nodeClass := r.nodeClass()
	pools := r.nodePools()
	out := Rendering{Objects: append([]Object{nodeClass}, pools...), NodePools: r.summaries}
	if overlay, ok := r.nodeOverlay(); ok {
		out.Objects = append(out.Objects, overlay)
	}
	out.Notes = r.notes
	return out
}

type renderer struct {
	spec            pool.Spec
	derived         pool.Derived
	set             Settings
	notes           []Note
	summaries       []NodePoolSummary
	disruptionNoted bool
	baseNoted       bool
}

func (r *renderer) note(sev Severity, p pool.Path, summary, format string, args ...any) {
	r.notes = append(r.notes, Note{Path: p, Severity: sev, Summary: summary, Detail: fmt.Sprintf(format, args...)})
}

func (r *renderer) autoMode() bool { return r.set.Mode == ModeAutoMode }

// metadata is an object's metadata: its name and gpufleet's labels.
func (r *renderer) metadata(name string) map[string]any {
	return map[string]any{"name": name, "labels": map[string]any{LabelResource: ResourceType, LabelPool: r.spec.Name}}
}

// checkInterNode says what a training pool whose replicas span nodes needs beyond its NodePools
// (issue #40, item 8). The NodePools admit only the pool's instance types (node.kubernetes.io/
// instance-type In), which the fit (GF-RS-001) requires all to have EFA. Karpenter attaches EFA
// interfaces, one per network card, only to a node launched for pods that request the
// vpc.amazonaws.com/efa resource (karpenter-provider-aws v1.15.2, pkg/providers/instance/instance.go
// getEFACountForInstance and pkg/providers/launchtemplate/launchtemplate.go
// generateNetworkInterfaces, read 2026-11-28): without that request the nodes come up without EFA.
// EKS Auto Mode's handling of EFA is not read: the note is given in both modes.
func (r *renderer) checkInterNode() {
	n := r.derived.Node
	if !n.MultiNode() || !catalog.SpansNodes(r.spec.Workload.Kind, r.spec.Workload.GPUsPerReplica, n.GPUCount) {
		return
	}
	r.note(Warning, pool.P("workload", "gpus_per_replica"), "EFA needs the training pods' request",
		"workload.gpus_per_replica = %d spans %d %s nodes, which reach each other over EFA (%d network cards): Karpenter attaches the EFA interfaces only to nodes launched for pods that request the vpc.amazonaws.com/efa resource (e.g. resources.limits \"vpc.amazonaws.com/efa\": %d, with the EFA device plugin on the nodes), so give the training pods that request.",
		r.spec.Workload.GPUsPerReplica, r.spec.Workload.GPUsPerReplica/n.GPUCount, n.Name, n.InterNodeNICs, n.InterNodeNICs)
}

// checkSettings reports the settings the objects cannot take.
func (r *renderer) checkSettings() {
	if !r.spec.AutoscalerOwnsSize {
		r.note(Error, pool.P("scaling", "desired_size"), "Desired size under Karpenter",
			"Karpenter has no desired size: it adds nodes for pending pods and removes the ones consolidation finds empty or underutilised. Remove desired_size; min_size nodes are kept as static NodePools.")
	}
	if !r.autoMode() {
		if r.set.AMIAlias == "" {
			r.set.AMIAlias = DefaultAMIAlias
		}
		return
	}
	if r.set.InstanceProfile != "" {
		r.note(Error, pool.P("instance_profile"), "Instance profile in Auto Mode", "EKS Auto Mode's NodeClass takes a node role (spec.role), not an instance profile (AWS, \"Create a Node Class for Amazon EKS\"): set node_role.")
	}
	if r.set.AMIAlias != "" {
		r.note(Error, pool.P("ami_alias"), "AMI in Auto Mode", "EKS Auto Mode chooses and updates the nodes' AMI itself; its NodeClass has no AMI selection. Remove ami_alias.")
	}
	if r.spec.GPU.MIG != nil {
		r.note(Error, pool.P("gpu", "mig"), "MIG in Auto Mode", "EKS Auto Mode runs its own NVIDIA driver and device plugin (not a DaemonSet you can configure: AWS, \"Deploy an accelerated workload\"), so no MIG manager applies the nvidia.com/mig.config label. Use mode = \"karpenter\" with the NVIDIA GPU Operator, or drop gpu.mig.")
	}
	// EKS Auto Mode replaces every node after at most 21 days whatever expireAfter says (AWS,
	// "Automate cluster infrastructure with EKS Auto Mode": "EKS Auto Mode enforces a 21-day maximum
	// node lifetime to ensure up-to-date software and APIs"; read 2026-11-29).
	if after := r.expireAfter(false); r.protected() || r.set.Disruption.ExpireAfter != "" {
		if d, err := time.ParseDuration(after); after == "Never" || err == nil && d > AutoModeMaxLifetime {
			at := pool.P("disruption", "expire_after")
			if r.set.Disruption.ExpireAfter == "" {
				at = pool.P("workload", "interruptible")
			}
			r.note(Warning, at, "Nodes live at most 21 days in Auto Mode",
				"the NodePool says expireAfter: %s, but EKS Auto Mode replaces every node after at most 21 days (AWS, \"Automate cluster infrastructure with EKS Auto Mode\": \"EKS Auto Mode enforces a 21-day maximum node lifetime\"): a run longer than that is evicted with its node. Checkpoint work that can run longer, or use mode = \"karpenter\", whose nodes live as expireAfter says.", after)
		}
	}
	// The static NodePools' nodes are made together, and Auto Mode's lifetime expires them together:
	// Karpenter's expiry is forceful, without regard to budgets (expireAfter).
	for _, side := range r.derived.Sides {
		if side.Sizes.Min > 0 {
			r.note(Warning, pool.P("scaling", "min_size"), "The minimum is replaced all at once in Auto Mode",
				"min_size is held by static NodePools whose nodes are made together, and EKS Auto Mode replaces every node after at most 21 days (AWS, \"Automate cluster infrastructure with EKS Auto Mode\"): Karpenter's expiry deletes nodes without regard to disruption budgets, so the pool's whole minimum drains at once every 21 days, its replacements held back until the old nodes are gone. gpufleet gives static NodePools no expiry (expireAfter: Never), which Auto Mode overrides; in mode = \"karpenter\" it holds, and drift replaces their nodes within the budget. In Auto Mode, keep spare replicas behind the pods' PodDisruptionBudgets, or use mode = \"karpenter\".")
			break
		}
	}
	// A NodeClass that selects reservations turns off Auto Mode's use of open ODCRs for every
	// NodeClass of the cluster (AWS, "Control deployment of workloads into EC2 On-Demand Capacity
	// Reservations with EKS Auto Mode", warning; read 2026-11-29).
	if r.spec.Capacity.Reservation != nil {
		r.note(Warning, pool.P("capacity", "reservation"), "A reservation in Auto Mode changes the whole cluster",
			"the NodeClass selects the reservation by capacityReservationSelectorTerms, and then \"EKS Auto Mode will no longer automatically use open ODCRs for any NodeClass in the cluster\" (AWS, \"Control deployment of workloads into EC2 On-Demand Capacity Reservations with EKS Auto Mode\"): open reservations that other NodePools launched into go unused, and their nodes are billed at on-demand rates beside them, unless their NodeClasses select them too.")
	}
	if r.spec.GPU.Sharing != nil {
		r.note(Error, pool.P("gpu", "sharing"), "GPU sharing in Auto Mode", "EKS Auto Mode's built-in NVIDIA device plugin cannot be given a time-slicing or MPS config, and Auto Mode has no NodeOverlay to make Karpenter count shared GPUs. Use mode = \"karpenter\", or drop gpu.sharing.")
	}
}

// gpuName is Karpenter's instance-gpu-name value of a GPU: EC2's GPU name in lower kebab case
// (karpenter-provider-aws pkg/providers/instancetype/types.go, lowerKabobCase of
// GpuInfo.Gpus[].Name): the catalog's model name less its memory suffix, "H100-80GB" → "h100".
func gpuName(model string) string {
	name := strings.ToLower(model)
	if i := strings.LastIndex(name, "-"); i > 0 && strings.HasSuffix(name, "gb") {
		name = name[:i]
	}
	return name
}

func sortedUnique(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

func anyStrings(in []string) []any {
	out := make([]any, len(in))
	for i, v := range in {
		out[i] = v
	}
	return out
}

func anyMap(in map[string]string) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}
