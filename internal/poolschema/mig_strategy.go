package poolschema

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// MIGStrategyAttribute is mig_strategy, of the pools on EC2 whose nodes' GPUs the NVIDIA GPU
// Operator manages (gpufleet_eks_node_pool, gpufleet_karpenter_node_pool): the operator's MIG
// strategy is one for the whole cluster, and pool.Spec.Validate checks the pool against it.
// mixedAdvertises says how the resource tells the autoscaler what a mixed node advertises.
func MIGStrategyAttribute(mixedAdvertises string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "The MIG strategy of the NVIDIA GPU Operator in the cluster (its Helm value `mig.strategy`), `single` (the default) or `mixed`. The operator gives every device plugin of the cluster that strategy, whatever a node's own device plugin config says, so it decides what MIG nodes advertise and the autoscaler must agree: under `single` each slice is an `nvidia.com/gpu`; under `mixed` each size is its own `nvidia.com/mig-<profile>`, and the nodes advertise no `nvidia.com/gpu` (" + mixedAdvertises + "). `gpu.mig.config = \"all-balanced\"` needs `mixed`; sharing MIG slices needs `single`. Set the same value on every pool of a cluster; it changes nothing on pools without `gpu.mig`. See the MIG and GPU sharing guide.",
		Optional:            true,
		Computed:            true,
		Default:             stringdefault.StaticString(pool.MIGStrategySingle),
		Validators:          []validator.String{stringvalidator.OneOf(pool.MIGStrategies...)},
	}
}
