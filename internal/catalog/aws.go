package catalog

import (
	"fmt"
	"strings"
)

// awsShape is an EC2 GPU instance type as AWS documents it (accelerated computing instance specs).
// g5g (Graviton + T4G) is left out on purpose: it is ARM and EKS's NVIDIA AMIs for it differ.
type awsShape struct {
	name      string
	gpu       string
	gpus      int
	vcpu      int
	memoryGiB float64
}

var awsShapes = []awsShape{
	// g4dn: NVIDIA T4, the cheapest inference GPU on AWS.
	{"g4dn.xlarge", "T4", 1, 4, 16},
	{"g4dn.2xlarge", "T4", 1, 8, 32},
	{"g4dn.4xlarge", "T4", 1, 16, 64},
	{"g4dn.8xlarge", "T4", 1, 32, 128},
	{"g4dn.12xlarge", "T4", 4, 48, 192},
	{"g4dn.16xlarge", "T4", 1, 64, 256},
	{"g4dn.metal", "T4", 8, 96, 384},

	// g5: NVIDIA A10G.
	{"g5.xlarge", "A10G", 1, 4, 16},
	{"g5.2xlarge", "A10G", 1, 8, 32},
	{"g5.4xlarge", "A10G", 1, 16, 64},
	{"g5.8xlarge", "A10G", 1, 32, 128},
	{"g5.12xlarge", "A10G", 4, 48, 192},
	{"g5.16xlarge", "A10G", 1, 64, 256},
	{"g5.24xlarge", "A10G", 4, 96, 384},
	{"g5.48xlarge", "A10G", 8, 192, 768},

	// g6: NVIDIA L4.
	{"g6.xlarge", "L4", 1, 4, 16},
	{"g6.2xlarge", "L4", 1, 8, 32},
	{"g6.4xlarge", "L4", 1, 16, 64},
	{"g6.8xlarge", "L4", 1, 32, 128},
	{"g6.12xlarge", "L4", 4, 48, 192},
	{"g6.16xlarge", "L4", 1, 64, 256},
	{"g6.24xlarge", "L4", 4, 96, 384},
	{"g6.48xlarge", "L4", 8, 192, 768},

	// gr6: NVIDIA L4 with twice g6's host memory per vCPU (AWS "Accelerated computing" instance
	// specifications: gr6.4xlarge and gr6.8xlarge, one L4 each).
	{"gr6.4xlarge", "L4", 1, 16, 128},
	{"gr6.8xlarge", "L4", 1, 32, 256},

	// g6e: NVIDIA L40S.
	{"g6e.xlarge", "L40S", 1, 4, 32},
	{"g6e.2xlarge", "L40S", 1, 8, 64},
	{"g6e.4xlarge", "L40S", 1, 16, 128},
	{"g6e.8xlarge", "L40S", 1, 32, 256},
	{"g6e.12xlarge", "L40S", 4, 48, 384},
	{"g6e.16xlarge", "L40S", 1, 64, 512},
	{"g6e.24xlarge", "L40S", 4, 96, 768},
	{"g6e.48xlarge", "L40S", 8, 192, 1536},

	// p3 / p3dn: NVIDIA V100, 16 GB and (p3dn only) 32 GB.
	{"p3.2xlarge", "V100-16GB", 1, 8, 61},
	{"p3.8xlarge", "V100-16GB", 4, 32, 244},
	{"p3.16xlarge", "V100-16GB", 8, 64, 488},
	{"p3dn.24xlarge", "V100-32GB", 8, 96, 768},

	// p4d / p4de: NVIDIA A100 40 GB / 80 GB.
	{"p4d.24xlarge", "A100-40GB", 8, 96, 1152},
	{"p4de.24xlarge", "A100-80GB", 8, 96, 1152},

	// p5: NVIDIA H100 80 GB; p5.4xlarge is the single-GPU size.
	{"p5.4xlarge", "H100-80GB", 1, 16, 256},
	{"p5.48xlarge", "H100-80GB", 8, 192, 2048},

	// p5e / p5en: NVIDIA H200 141 GB (p5en: Sapphire Rapids hosts, EFAv3).
	{"p5e.48xlarge", "H200-141GB", 8, 192, 2048},
	{"p5en.48xlarge", "H200-141GB", 8, 192, 2048},

	// p6-b200: NVIDIA B200.
	{"p6-b200.48xlarge", "B200", 8, 192, 2048},
}

// awsInstanceTypes is built once at init from the shape and price tables.
var awsInstanceTypes = buildAWSInstanceTypes()

func buildAWSInstanceTypes() []NodeType {
	out := make([]NodeType, 0, len(awsShapes))
	for _, s := range awsShapes {
		fam := awsFamilyOf(s.name)
		f, ok := awsFamilies[fam]
		if !ok {
			panic(fmt.Sprintf("catalog: no AWS family data for %s", s.name))
		}
		od, ok := awsOnDemand[s.name]
		if !ok {
			panic(fmt.Sprintf("catalog: no AWS on-demand price for %s", s.name))
		}
		internode, nics := awsInterNode(s.name)
		out = append(out, NodeType{
			InterNode:     internode,
			InterNodeNICs: nics,
			Cloud:         AWS,
			Name:          s.name,
			Family:        fam,
			GPUModel:      s.gpu,
			GPUCount:      s.gpus,
			VCPU:          s.vcpu,
			MemoryGiB:     s.memoryGiB,
			Interconnect:  interconnectOf(fam, s.gpus),
			Prices:        priceRows(AWS, fam, f, od, awsListed(s.name)),
		})
	}
	return out
}

// awsFamilyOf is the part of an instance type before the size ("p6-b200.48xlarge" → "p6-b200").
func awsFamilyOf(instanceType string) string {
	fam, _, _ := strings.Cut(instanceType, ".")
	return fam
}
