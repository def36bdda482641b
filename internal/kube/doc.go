// Package kube is gpufleet's one way to Kubernetes clusters, shared by the resources that manage
// autoscaler objects (gpufleet_karpenter_node_pool, and GKE ComputeClasses next): cluster access
// (an EKS cluster's endpoint and a token made from the provider's AWS credentials as `aws eks
// get-token` makes it, a GKE cluster's endpoint and a Google token, or a kubernetes block),
// server-side apply with the field manager "gpufleet" and an owner label, drift read from the
// fields gpufleet manages, deletion, and in-process validation against the pinned CRDs with
// k8s.io/apiextensions-apiserver's own code, so that a plan never needs the cluster.
package kube

import (
	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

func init() {
	// client-go and the apiserver libraries log through klog to stderr, which terraform shows as
	// the provider's output; gpufleet reports through diagnostics instead.
	klog.SetLogger(logr.Discard())
}
