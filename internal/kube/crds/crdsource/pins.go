package crdsource

// Pins are the Karpenter releases whose CRDs gpufleet validates against, and where the copies
// under internal/kube/crds come from. They are not requirements in go.mod: these module versions
// declare go 1.26.9 to 1.26.11 (their go.mod files), newer than the toolchain go.mod pins, and
// nothing of them is compiled in; the generator reads their zips by the same checksums go.sum
// would hold (`go mod download -json <module>@<version>`, 2026-11-28, verified against
// sum.golang.org).
//
// Karpenter lines (karpenter.sh, "Compatibility", 2026-11): v1.14 is the current long-term support
// release ("v1.14.2 (LTS) ... Supported until Jul 2027", aws/karpenter-provider-aws releases), v1.15
// the latest release. The AWS provider's module ships the CRDs that self-managed Karpenter on EKS
// installs (its karpenter-crd chart): EC2NodeClass, and the karpenter.sh NodePool and NodeOverlay
// with the karpenter.k8s.aws label rules added. EKS Auto Mode runs Karpenter's core: its NodePool
// is validated against the core module's CRD (kubernetes-sigs/karpenter), its NodeClass against the
// schema gpufleet wrote (automode/eks.amazonaws.com_nodeclasses.yaml; AWS publishes none).
var Pins = []Pin{
	{
		Module: "github.com/aws/karpenter-provider-aws", Version: "v1.14.3", Sum: "h1:XS61hMCoPL0sXWh5JtJeyTCZLN5Y1So1uNU70pmLccY=",
		Files: map[string]string{
			"pkg/apis/crds/karpenter.sh_nodepools.yaml":           "karpenter-v1.14/karpenter.sh_nodepools.yaml",
			"pkg/apis/crds/karpenter.sh_nodeoverlays.yaml":        "karpenter-v1.14/karpenter.sh_nodeoverlays.yaml",
			"pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml": "karpenter-v1.14/karpenter.k8s.aws_ec2nodeclasses.yaml",
		},
	},
	{
		Module: "github.com/aws/karpenter-provider-aws", Version: "v1.15.2", Sum: "h1:RGw64PB2ROUHZIUhBqjO78l3zJ9YctnWeullrr4cxYI=",
		Files: map[string]string{
			"pkg/apis/crds/karpenter.sh_nodepools.yaml":           "karpenter-v1.15/karpenter.sh_nodepools.yaml",
			"pkg/apis/crds/karpenter.sh_nodeoverlays.yaml":        "karpenter-v1.15/karpenter.sh_nodeoverlays.yaml",
			"pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml": "karpenter-v1.15/karpenter.k8s.aws_ec2nodeclasses.yaml",
		},
	},
	{
		Module: "sigs.k8s.io/karpenter", Version: "v1.15.0", Sum: "h1:5SEptlAvsOZbNg4qg8OSdF1qi6BEZHZLA020nXY7jGw=",
		Files: map[string]string{
			"pkg/apis/crds/karpenter.sh_nodepools.yaml": "automode/karpenter.sh_nodepools.yaml",
		},
	},
}
