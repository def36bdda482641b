package render

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// Node labels GKE sets and pods select (GKE, "About GPU sharing strategies in GKE": "You can
// request multi-instance GPU in workloads by specifying the cloud.google.com/gke-gpu-partition-size
// label in the Pod spec nodeSelector field ... If there are no appropriate available nodes, GKE
// uses autoscaling and node auto-provisioning to create new nodes or node pools that match this
// label"; the same for cloud.google.com/gke-gpu-sharing-strategy and
// cloud.google.com/gke-max-shared-clients-per-gpu; page last updated 2026-03-16, read 2026-11-28).
const (
	LabelComputeClass     = "cloud.google.com/compute-class"
	LabelAccelerator      = "cloud.google.com/gke-accelerator"
	LabelPartitionSize    = "cloud.google.com/gke-gpu-partition-size"
	LabelSharingStrategy  = "cloud.google.com/gke-gpu-sharing-strategy"
	LabelMaxSharedClients = "cloud.google.com/gke-max-shared-clients-per-gpu"
	// AnnotationSafeToEvict keeps the cluster autoscaler from evicting a pod to remove its node
	// (kubernetes/autoscaler cluster-autoscaler FAQ, "What types of pods can prevent CA from
	// removing a node?"; GKE honours it).
	AnnotationSafeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict"
)

// sharingStrategies are the cloud.google.com/gke-gpu-sharing-strategy values pods select, as GKE's
// how-to pages spell them (time-sharing GPUs: time-sharing; NVIDIA MPS: mps).
var sharingStrategies = map[string]string{pool.SharingTimeSlicing: "time-sharing", pool.SharingMPS: "mps"}

// Pod is the pod-side stanza of a class: what a workload's pod template adds to run on it.
type Pod struct {
	NodeSelector map[string]string
	Tolerations  []Toleration
	// Labels carry the client to GKE cost allocation, which splits a cluster's cost by namespace
	// and by pod label: the ComputeClass cannot label the nodes' VMs for billing.
	Labels map[string]string
	// Annotations keep the cluster autoscaler from evicting work that does not checkpoint.
	Annotations map[string]string
}

// Toleration is a pod toleration.
type Toleration struct {
	Key      string
	Operator string // Equal or Exists
	Value    string
	Effect   string
}

func podStanza(s pool.Spec, d pool.Derived, c Class) Pod {
	p := Pod{
		NodeSelector: map[string]string{LabelComputeClass: c.Name, LabelAccelerator: d.Node.Accelerator},
		// Node pools of a class are tainted cloud.google.com/compute-class=<name>:NoSchedule (so
		// GKE's instructions have node pools made by hand for a class tainted; GKE adds the
		// toleration to pods that select the class): written here too, so that the stanza is
		// complete on its own, whoever made the node pool.
		Tolerations: []Toleration{{Key: LabelComputeClass, Operator: "Equal", Value: c.Name, Effect: "NoSchedule"}},
		Labels:      map[string]string{pool.LabelClient: s.Client, pool.LabelWorkload: s.Workload.Kind},
	}
	if m := s.GPU.MIG; m != nil {
		p.NodeSelector[LabelPartitionSize] = strings.TrimPrefix(m.ConfigName(), "all-")
	}
	if sh := s.GPU.Sharing; sh != nil {
		p.NodeSelector[LabelSharingStrategy] = sharingStrategies[sh.Strategy]
		p.NodeSelector[LabelMaxSharedClients] = itoa(sh.Replicas)
	}
	for _, t := range d.Taints {
		if t.Key == pool.TaintGPU {
			p.Tolerations = append(p.Tolerations, Toleration{Key: t.Key, Operator: "Exists", Effect: effects[t.Effect]})
			continue
		}
		op := "Equal"
		if t.Value == "" {
			op = "Exists"
		}
		p.Tolerations = append(p.Tolerations, Toleration{Key: t.Key, Operator: op, Value: t.Value, Effect: effects[t.Effect]})
	}
	if !c.Effective(s.Workload).OptimizeRulePriority && !s.Workload.Interruptible {
		p.Annotations = map[string]string{AnnotationSafeToEvict: "false"}
	}
	return p
}

// Warnings says, at the attribute, what of the pool a ComputeClass does not carry and where it
// goes instead. Nothing of the pool is dropped silently.
func Warnings(s pool.Spec, c Class) []pool.Problem {
	var out []pool.Problem
	add := func(p pool.Path, summary, detail string) {
		out = append(out, pool.Problem{Path: p, Summary: summary, Detail: detail})
	}
	add(pool.P("tags"), "Resource labels not carried by a ComputeClass",
		"a ComputeClass cannot label the VMs and disks of the node pools GKE creates for it, so effective_tags (the client's billing labels) do not reach Cloud Billing from this class. "+
			"Split the cluster's cost by client with GKE cost allocation, which exports namespaces and pod labels: pod_spec.labels carries gpufleet.io/client for it. "+
			"Cluster-wide resource labels (google_container_cluster resource_labels) reach auto-created node pools too.")
	if s.GPU.MIG != nil && s.Known(pool.P("gpu", "mig")) {
		add(pool.P("gpu", "mig"), "MIG partitions requested by the pods",
			"gpufleet does not render the ComputeClass field gpu.gpuSharing.gpuPartitionSize: it is known from one third-party source only (GKE 1.35.2-gke.1485000 and later; no dumped CRD confirms its names), and an older GKE refuses it. GKE partitions the GPUs of the node pools it creates for the pods' node selector "+LabelPartitionSize+
				". Use pod_spec.node_selector in the workload, or pods get whole GPUs.")
	}
	if s.GPU.Sharing != nil && s.Known(pool.P("gpu", "sharing")) {
		add(pool.P("gpu", "sharing"), "GPU sharing requested by the pods",
			"gpufleet does not render the ComputeClass field gpu.gpuSharing: it is known from one third-party source only (GKE 1.35.2-gke.1485000 and later; no dumped CRD confirms its names), and an older GKE refuses it. GKE shares the GPUs of the node pools it creates for the pods' node selectors "+
				LabelSharingStrategy+" and "+LabelMaxSharedClients+". Use pod_spec.node_selector in the workload, or pods get whole GPUs.")
	}
	if r := s.Capacity.Reservation; r != nil && r.Type == pool.ReservationAny && s.Known(pool.P("capacity", "reservation")) && s.Known(pool.P("capacity", "ladder")) {
		if i := slices.Index(c.Ladder, RungReservation); i >= 0 {
			for _, later := range c.Ladder[i+1:] {
				if later == RungOnDemand {
					break // on-demand before it either way
				}
				if later == RungSpot || later == RungFlexStart {
					add(pool.P("capacity", "ladder"), "Rungs after an \"any\" reservation run only in a stockout",
						fmt.Sprintf("the %q rung consumes any matching reservation with AnyBestEffort, which falls back to on-demand VMs within its own priority (the ComputeClass CRD: \"AnyBestEffort: any matching reservation, else on-demand\"; GKE, https://cloud.google.com/kubernetes-engine/docs/how-to/consuming-reservations: \"Any matching reservation with fallback\"). GKE moves on to the %q rung only when on-demand capacity of the machine type is out too: the class runs on-demand where the ladder reads %s. Put %q before the reservation rung, consume a \"specific\" reservation (no fallback), or leave the rung out.", RungReservation, later, strings.Join(c.Ladder, ", "), later))
					break
				}
			}
		}
	}
	if w := s.Workload; c.Has(RungFlexStart) && !w.Interruptible && (w.Kind == pool.KindTraining || w.Kind == pool.KindBatch) &&
		s.Known(pool.P("workload", "interruptible")) && s.Known(pool.P("capacity", "ladder")) {
		run := c.FlexStart.maxRun()
		add(pool.P("workload", "interruptible"), "Flex-start nodes end within 7 days",
			fmt.Sprintf("the %q rung's nodes run at most %d seconds (%s; capacity.flex_start.max_run_duration_seconds, up to 7 days: GKE, \"About flex-start provisioning mode\", \"for up to seven days\"), then GKE removes them, node recycling or not: a %s run that is not interruptible and outlasts that is lost with its node. Keep the rung for runs shorter than that, checkpoint and mark the workload interruptible, or leave %q out of the ladder.",
				RungFlexStart, run, time.Duration(run)*time.Second, w.Kind, RungFlexStart))
	}
	if s.Scaling.Min > 0 && s.Known(pool.P("scaling", "min_size")) {
		add(pool.P("scaling", "min_size"), "Minimum size not carried by a ComputeClass",
			"a ComputeClass keeps no nodes warm: GKE creates nodes for pending pods and removes unneeded ones, so the class may run 0 nodes. scaling sizes the cost estimate and policy checks only; keep nodes with a placeholder Deployment or a node pool of the class.")
	}
	if !s.AutoscalerOwnsSize && s.Known(pool.P("scaling", "desired_size")) {
		add(pool.P("scaling", "desired_size"), "Desired size not carried by a ComputeClass",
			"a ComputeClass has no size: GKE sizes the class's nodes to the pending pods. desired_size sizes the cost estimate only.")
	}
	if n, problem, known := s.NodeType(); problem == nil && known && n.MultiNode() && s.Known(pool.P("workload", "gpus_per_replica")) &&
		catalog.SpansNodes(s.Workload.Kind, s.Workload.GPUsPerReplica, n.GPUCount) {
		// The ComputeClass CRD (cloud.google.com/v1, GKE "ComputeClass" CRD reference, read
		// 2026-11-28) has no field for a node pool's additional node networks: a priority takes a
		// machine type or family, GPUs, reservations, a placement policy and storage (issue #40,
		// item 8).
		add(pool.P("workload", "gpus_per_replica"), "GPUDirect networks not carried by a ComputeClass",
			fmt.Sprintf("workload.gpus_per_replica = %d spans %d %s nodes, whose GPUs reach each other over %s through %d additional node networks; a ComputeClass cannot give the node pools GKE creates for it additional node networks, so NCCL between those nodes runs over the primary network. "+
				"For multi-node training use gpufleet_gke_node_pool with network.additional_node_networks, or keep a replica on one node.",
				s.Workload.GPUsPerReplica, s.Workload.GPUsPerReplica/n.GPUCount, n.Name, catalog.InterNodeName(n.InterNode), catalog.GKEAdditionalNodeNetworks(n.Name)))
	}
	if c.WhenUnsatisfiable == ScaleUpAnyway {
		add(pool.P("when_unsatisfiable"), "ScaleUpAnyway on a GPU class",
			"when no rung can be satisfied, ScaleUpAnyway creates nodes of the cluster's default configuration (such as E2 machines, without GPUs): GPU pods still do not fit them, and CPU pods of the class land on them. DoNotScaleUp leaves the pods Pending, which is what to alert on.")
	}
	return out
}
