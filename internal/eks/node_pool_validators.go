package eks

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	fwtypes "github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

var _ resource.ResourceWithConfigValidators = &NodePoolResource{}

// ConfigValidators are the checks across attributes that the schema's validators cannot make.
func (r *NodePoolResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{launchTemplateNameValidator{}, amiArchitectureValidator{}, amiVersionValidator{}, bottlerocketGPUValidator{}, networkValidator{}}
}

// launchTemplateNameValidator fails at plan time, at name, when a side's launch template name
// would exceed EC2's limit; otherwise CreateLaunchTemplate would reject it half-way through an apply.
type launchTemplateNameValidator struct{}

func (launchTemplateNameValidator) Description(context.Context) string {
	return fmt.Sprintf("the launch template names gpufleet.<cluster_name>.<name>-spot fit EC2's %d characters", maxLaunchTemplateName)
}

func (v launchTemplateNameValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (launchTemplateNameValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cluster, name fwtypes.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("cluster_name"), &cluster)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	if resp.Diagnostics.HasError() || !knownString(cluster) || !knownString(name) {
		return
	}
	longest := launchTemplateName(cluster.ValueString(), name.ValueString()+pool.SuffixSpot)
	if n := len(longest); n > maxLaunchTemplateName {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Launch template name too long",
			fmt.Sprintf("name: the pool's launch templates are named gpufleet.<cluster_name>.<node group>, and %q is %d characters, over EC2's %d. Shorten name or cluster_name by %d characters.",
				longest, n, maxLaunchTemplateName, n-maxLaunchTemplateName))
	}
}

// amiArchitectureValidator fails at plan time, at ami_type, when the AMI's architecture is not the
// instance types': EKS would launch no node.
type amiArchitectureValidator struct{}

func (amiArchitectureValidator) Description(context.Context) string {
	return "ami_type is for the instance types' architecture: ARM (arm64) NVIDIA AMI types only with Graviton instance types"
}

func (v amiArchitectureValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (amiArchitectureValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var ami fwtypes.String
	var instanceTypes []fwtypes.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("ami_type"), &ami)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("instance_types"), &instanceTypes)...)
	if resp.Diagnostics.HasError() || !knownString(ami) {
		return // unset: the default is x86_64, as every GPU instance type gpufleet knows
	}
	want := amiArchitecture(ami.ValueString())
	for _, it := range instanceTypes {
		if !knownString(it) {
			continue
		}
		if got := instanceArchitecture(it.ValueString()); got != want {
			resp.Diagnostics.AddAttributeError(path.Root("ami_type"), "AMI type for another architecture",
				fmt.Sprintf("ami_type: %s is an %s AMI type, and %s is an %s instance type. Use an %s NVIDIA AMI type (%s).",
					ami.ValueString(), want, it.ValueString(), got, got, strings.Join(amiTypesFor(got), ", ")))
			return
		}
	}
}

const (
	archX86 = "x86_64"
	archARM = "arm64"
)

func amiArchitecture(amiType string) string {
	if strings.Contains(amiType, "_ARM_64_") {
		return archARM
	}
	return archX86
}

func amiTypesFor(arch string) []string {
	var out []string
	for _, t := range nvidiaAMITypes {
		if amiArchitecture(t) == arch {
			out = append(out, t)
		}
	}
	return out
}

// ec2Family splits an instance type's family into its series and generation and the attribute
// letters after them: g5g.xlarge → "g5", "g"; g4dn.xlarge → "g4", "dn"; p6-b200.48xlarge → no match.
var ec2Family = regexp.MustCompile(`^[a-z]+[0-9]+([a-z]*)\.`)

// instanceArchitecture reads the architecture from the EC2 naming convention: a "g" among the
// attribute letters is AWS Graviton (g5g, c7gn, m6gd), arm64; everything else is x86_64 (EC2 User
// Guide, "Amazon EC2 instance type naming conventions").
func instanceArchitecture(instanceType string) string {
	if m := ec2Family.FindStringSubmatch(instanceType); m != nil && strings.Contains(m[1], "g") {
		return archARM
	}
	return archX86
}

// amiVersionValidator fails at plan time, at ami_type, for an Amazon Linux 2 AMI type on a
// Kubernetes version AWS publishes no AL2 AMI of, and warns that AL2 is past its end of support.
// With kubernetes_version unset the cluster's version decides, read at plan or apply (checks.go).
type amiVersionValidator struct{}

func (amiVersionValidator) Description(context.Context) string {
	return "ami_type AL2_x86_64_GPU only up to Kubernetes 1.32, the last version with Amazon Linux 2 AMIs"
}

func (v amiVersionValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (amiVersionValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var ami, version fwtypes.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("ami_type"), &ami)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("kubernetes_version"), &version)...)
	if resp.Diagnostics.HasError() || !knownString(ami) || !strings.HasPrefix(ami.ValueString(), "AL2_") {
		return
	}
	if p := amiProblem(ami.ValueString(), version.ValueString()); p != nil {
		resp.Diagnostics.AddAttributeError(path.Root("ami_type"), p.Summary, "ami_type: "+p.Detail)
		return
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("ami_type"), "Amazon Linux 2 is past its end of support",
		"ami_type: EKS's Amazon Linux 2 AMIs reached end of support on 2025-11-26 (no security fixes since) and exist only up to Kubernetes 1.32 (awslabs/amazon-eks-ami#2545). Move to AL2023_x86_64_NVIDIA (a new pool: the AMI type of a node group cannot change).")
}

// bottlerocketGPUValidator fails at plan time when a Bottlerocket pool asks for MIG or GPU sharing:
// gpufleet configures both through node labels the NVIDIA GPU Operator reads, while Bottlerocket's
// NVIDIA variants run their own device plugin, configured through settings.kubelet-device-plugins
// in user data (Bottlerocket settings reference, kubelet-device-plugins), which gpufleet does not
// write; the labels would do nothing and the autoscaler tags would count slices that never appear.
type bottlerocketGPUValidator struct{}

func (bottlerocketGPUValidator) Description(context.Context) string {
	return "no gpu.mig or gpu.sharing with a Bottlerocket ami_type"
}

func (v bottlerocketGPUValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (bottlerocketGPUValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var ami fwtypes.String
	var mig, sharing fwtypes.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("ami_type"), &ami)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("gpu").AtName("mig"), &mig)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("gpu").AtName("sharing"), &sharing)...)
	if resp.Diagnostics.HasError() || !knownString(ami) || !strings.HasPrefix(ami.ValueString(), "BOTTLEROCKET_") {
		return
	}
	for _, b := range []struct {
		name  string
		block fwtypes.Object
	}{{"mig", mig}, {"sharing", sharing}} {
		name := b.name
		if b.block.IsNull() {
			continue
		}
		resp.Diagnostics.AddAttributeError(path.Root("gpu").AtName(name), "MIG and GPU sharing on Bottlerocket",
			fmt.Sprintf("gpu.%s: on EKS gpufleet partitions and shares GPUs through the NVIDIA GPU Operator's node labels, and Bottlerocket's NVIDIA AMIs run their own device plugin, set up through settings.kubelet-device-plugins.nvidia in user data, which gpufleet does not write: the labels would do nothing. Use ami_type %s, or drop gpu.%s.", name, defaultAMIType, name))
	}
}
