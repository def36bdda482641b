# Autoscaler rules: the traps of GPU capacity declared as Karpenter NodePools (with their node
# classes and NodeOverlays) and GKE ComputeClasses (issue #38). They read the document's
# "autoscaler" part, which only the builders of Kubernetes objects write (documents_kube.rego,
# internal/plandoc): node groups, node pools and gpufleet's own pools have none, and these rules
# never fire on them. The attribute is the object's field to change.
#   GF-AS-001 deny  a reserved rung whose node class selects no capacity reservation, or a
#                   capacity-block rung without the capacity-block requirement
#   GF-AS-002 warn  a spot NodePool that relies on a lower-weighted on-demand NodePool to fall back to
#   GF-AS-003 deny  time-sliced or MPS GPUs without a NodeOverlay that advertises their replicas
#   GF-AS-004 deny  whenUnsatisfiable: ScaleUpAnyway on a GPU ComputeClass
#   GF-AS-005 deny  a Specific reservation priority with location.zones
#   GF-AS-006 deny  a flex-start priority that also consumes reservations
#   GF-AS-007 deny  a GPU NodePool without an nvidia.com/gpu limit
#   GF-AS-008 deny  disruption that consolidates busy nodes, expires nodes or migrates workloads of
#                   non-interruptible training or batch work
package gpufleet.rules

import data.gpufleet.lib
import input as doc

# ---------------------------------------------------------------------------------------------
# GF-AS-001: a NodePool that allows the reserved capacity type launches reserved capacity only from
# the reservations its node class selects (spec.capacityReservationSelectorTerms); without terms the
# rung never launches a reserved node (karpenter.sh, "Utilizing On-Demand Capacity Reservations and
# Capacity Blocks", https://karpenter.sh/docs/tasks/odcrs, read 2026-11-28). A capacity-block rung
# (gpufleet.io/capacity-type: capacity-block) without the requirement
# karpenter.k8s.aws/capacity-reservation-type In [capacity-block] also takes the node class's other
# reservations, and other NodePools with reserved capacity take its block (Karpenter's capacity
# block design, designs/capacity-block-support.md: "Configure a NodePool to only be compatible with
# instance types with active capacity block reservations").
# ---------------------------------------------------------------------------------------------

deny contains lib.finding("GF-AS-001", "spec.template.spec.nodeClassRef", text) if {
	a := doc.autoscaler
	a.kind == "NodePool"
	"reserved" in a.capacity_types # named by the requirement: the node class selects no reservation (documents._np_capacity_types)
	a.node_class.reservation_terms == 0
	text := sprintf("the NodePool asks for capacity type reserved but its %s %q has no capacityReservationSelectorTerms, so Karpenter has no reservation to launch into: the reserved rung never launches a reserved node and the reservation goes unused; select the reservation in the node class (capacityReservationSelectorTerms: [{id: cr-…}] or by tags)", [a.node_class.kind, a.node_class.name])
}

deny contains lib.finding("GF-AS-001", "spec.template.spec.requirements", text) if {
	a := doc.autoscaler
	a.kind == "NodePool"
	a.capacity_block == true
	a.capacity_block_required == false
	text := "the NodePool is a capacity-block rung (gpufleet.io/capacity-type: capacity-block) without the requirement karpenter.k8s.aws/capacity-reservation-type In [capacity-block]: it may launch into the node class's other reservations, and NodePools that allow reserved capacity may take the block; add the requirement"
}

# ---------------------------------------------------------------------------------------------
# GF-AS-002: a spot NodePool weighted at or above an on-demand NodePool of the same node class and
# GPU, meant as its fallback: Karpenter keeps retrying the spot NodePool when spot launches fail
# for lack of capacity and does not move on to the lower-weighted one, so pods stay Pending
# (aws/karpenter-provider-aws#8885, kubernetes-sigs/karpenter#2275; a NodePool that allows both
# capacity types falls back within itself: aws/karpenter-provider-aws#5743). gpufleet's own
# rendering weights on-demand above spot and splits them by limits, which this does not flag.
# ---------------------------------------------------------------------------------------------

bundle_warn contains lib.finding("GF-AS-002", "spec.template.spec.requirements", text) if {
	a := doc.autoscaler
	a.kind == "NodePool"
	is_array(a.fallback_to)
	count(a.fallback_to) > 0
	text := sprintf("spot-only NodePool (weight %v) with the on-demand NodePool(s) %s of the same node class and GPU at a lower or equal weight as its fallback: Karpenter does not fall back to a lower-weighted NodePool when spot launches fail for lack of capacity (aws/karpenter-provider-aws#8885), so pods stay Pending; allow both capacity types in one NodePool (karpenter.sh/capacity-type In [spot, on-demand]), within which Karpenter falls back to on-demand", [a.weight, concat(", ", a.fallback_to)])
}

# ---------------------------------------------------------------------------------------------
# GF-AS-003: with time-slicing or MPS a node advertises replicas x GPUs as nvidia.com/gpu, which
# Karpenter cannot know from the instance type: without a NodeOverlay that says so it launches a node
# per physical GPU requested (kubernetes-sigs/karpenter#729; the NodeOverlay API,
# sigs.k8s.io/karpenter v1.15.0 karpenter.sh_nodeoverlays.yaml, spec.capacity).
# ---------------------------------------------------------------------------------------------

deny contains lib.finding("GF-AS-003", "spec.template.metadata.labels", text) if {
	a := doc.autoscaler
	a.kind == "NodePool"
	doc.gpu.sharing.strategy
	per_node := doc.gpu.per_node
	is_number(per_node)
	advertised := a.advertised_gpus_per_node
	is_number(advertised)
	advertised <= per_node
	text := sprintf("the NodePool's GPUs are shared (%s, label nvidia.com/device-plugin.config) but no NodeOverlay selecting it advertises the shared replicas, so Karpenter counts %v nvidia.com/gpu per node and launches a node for every %v GPU(s) requested; add a NodeOverlay (karpenter.sh/v1alpha1) whose requirements select the NodePool (karpenter.sh/nodepool In [%s]) with capacity nvidia.com/gpu = replicas x %v", [doc.gpu.sharing.strategy, per_node, per_node, doc.name, per_node])
}

# ---------------------------------------------------------------------------------------------
# GF-AS-004: ScaleUpAnyway makes node auto-provisioning create nodes of its default configuration
# (E2 machines, no GPU) when no priority can be met: GPU pods never fit them, CPU pods that tolerate
# the class land there (GKE, "About custom compute classes",
# https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes,
# whenUnsatisfiable; issue #39).
# ---------------------------------------------------------------------------------------------

deny contains lib.finding("GF-AS-004", "spec.whenUnsatisfiable", text) if {
	a := doc.autoscaler
	a.kind == "ComputeClass"
	a.when_unsatisfiable == "ScaleUpAnyway"
	text := "whenUnsatisfiable: ScaleUpAnyway on a GPU ComputeClass: when no priority can be met, GKE creates nodes of its default machine series, which have no GPU, so GPU pods stay Pending and the class's nodes cost without serving them; set whenUnsatisfiable: DoNotScaleUp"
}

# ---------------------------------------------------------------------------------------------
# GF-AS-005: a Specific reservation is in the zones it was made in; a priority that names it takes
# its zones from the reservation (reservations.specific[].zones), and location.zones beside it is
# refused or never matches (GKE, "About custom compute classes", reservations; the ComputeClass
# schema gpufleet wrote, internal/computeclass/crd, rule on Specific priorities).
# ---------------------------------------------------------------------------------------------

deny contains lib.finding("GF-AS-005", sprintf("spec.priorities[%d].location.zones", [i]), text) if {
	a := doc.autoscaler
	a.kind == "ComputeClass"
	some i, p in a.priorities
	p.reservation_affinity == "Specific"
	p.location_zones > 0
	text := sprintf("priority %d consumes a Specific reservation and also sets location.zones: a specific reservation's zones are its own (reservations.specific[].zones), so the priority never matches; remove location.zones from it", [i])
}

# ---------------------------------------------------------------------------------------------
# GF-AS-006: flex-start VMs are obtained through the Dynamic Workload Scheduler, never from a
# reservation: a priority that asks for both never matches (GKE, "About flex-start provisioning",
# https://cloud.google.com/kubernetes-engine/docs/concepts/dws; issue #39).
# ---------------------------------------------------------------------------------------------

deny contains lib.finding("GF-AS-006", sprintf("spec.priorities[%d]", [i]), text) if {
	a := doc.autoscaler
	a.kind == "ComputeClass"
	some i, p in a.priorities
	p.flex_start
	not p.reservation_affinity in {null, "None"} # None: no reservation is consumed
	text := sprintf("priority %d enables flex-start and consumes reservations (affinity %s): flex-start VMs never come from a reservation, so the priority never matches; put the reservation and flex-start in priorities of their own", [i, p.reservation_affinity])
}

# ---------------------------------------------------------------------------------------------
# GF-AS-007: a NodePool without limits grows as far as pending pods ask: GPU nodes at tens of
# dollars an hour, with no bound on the bill (karpenter.sh, "NodePools", spec.limits).
# ---------------------------------------------------------------------------------------------

deny contains lib.finding("GF-AS-007", "spec.limits", text) if {
	a := doc.autoscaler
	a.kind == "NodePool"
	a.static == false
	a.gpu_limit == null
	text := "the GPU NodePool has no nvidia.com/gpu limit (nor nvidia.com/mig-<profile> limits, under the mixed MIG strategy), so Karpenter adds GPU nodes for as many pending pods as ask, with no bound on their cost; set spec.limits nvidia.com/gpu (and nodes)"
}

# ---------------------------------------------------------------------------------------------
# GF-AS-008: Karpenter evicts the pods of nodes it consolidates (WhenEmptyOrUnderutilized, its
# default, or Balanced) and of nodes that expire (expireAfter, default 720h) (karpenter.sh,
# "Disruption"); a ComputeClass with activeMigration.optimizeRulePriority evicts pods to move them
# to a better priority. A training or batch job that cannot checkpoint loses its run.
# ---------------------------------------------------------------------------------------------

deny contains lib.finding("GF-AS-008", "spec.disruption.consolidationPolicy", text) if {
	_protected
	d := doc.autoscaler.disruption
	d.consolidates_busy_nodes == true
	text := sprintf("non-interruptible %s on a NodePool that consolidates underutilised nodes (consolidationPolicy %s, no budget of 0 nodes for Underutilized): Karpenter evicts running jobs to pack or replace their nodes; set consolidationPolicy: WhenEmpty", [doc.workload.kind, d.consolidation_policy])
}

deny contains lib.finding("GF-AS-008", "spec.template.spec.expireAfter", text) if {
	_protected
	e := doc.autoscaler.disruption.expire_after
	e != "Never"
	text := sprintf("non-interruptible %s on a NodePool whose nodes expire after %s (Karpenter's default 720h when unset): Karpenter drains an expired node whatever it runs; set expireAfter: Never", [doc.workload.kind, e])
}

deny contains lib.finding("GF-AS-008", "spec.activeMigration.optimizeRulePriority", text) if {
	_protected
	doc.autoscaler.kind == "ComputeClass"
	doc.autoscaler.optimize_rule_priority == true
	text := sprintf("non-interruptible %s on a ComputeClass with activeMigration.optimizeRulePriority: GKE evicts running pods to move them to a higher priority; set optimizeRulePriority: false", [doc.workload.kind])
}

_protected if {
	doc.workload.interruptible == false
	doc.workload.kind in {"training", "batch"}
}
