package catalog

import (
	"slices"
	"strings"
	"testing"
)

func TestAWSInstanceTypes(t *testing.T) {
	tests := []struct {
		name   string
		family string
		gpu    string
		gpus   int
		vcpu   int
		memory float64
	}{
		{"g4dn.xlarge", "g4dn", "T4", 1, 4, 16},
		{"g4dn.12xlarge", "g4dn", "T4", 4, 48, 192},
		{"g4dn.metal", "g4dn", "T4", 8, 96, 384},
		{"g5.xlarge", "g5", "A10G", 1, 4, 16},
		{"g5.48xlarge", "g5", "A10G", 8, 192, 768},
		{"g6.24xlarge", "g6", "L4", 4, 96, 384},
		// gr6: AWS accelerated computing instance specifications (one L4, 16/32 vCPUs, 128/256 GiB).
		{"gr6.4xlarge", "gr6", "L4", 1, 16, 128},
		{"gr6.8xlarge", "gr6", "L4", 1, 32, 256},
		{"g6e.xlarge", "g6e", "L40S", 1, 4, 32},
		{"g6e.48xlarge", "g6e", "L40S", 8, 192, 1536},
		{"p3.2xlarge", "p3", "V100-16GB", 1, 8, 61},
		{"p3dn.24xlarge", "p3dn", "V100-32GB", 8, 96, 768},
		{"p4d.24xlarge", "p4d", "A100-40GB", 8, 96, 1152},
		{"p4de.24xlarge", "p4de", "A100-80GB", 8, 96, 1152},
		{"p5.4xlarge", "p5", "H100-80GB", 1, 16, 256},
		{"p5.48xlarge", "p5", "H100-80GB", 8, 192, 2048},
		{"p5e.48xlarge", "p5e", "H200-141GB", 8, 192, 2048},
		{"p5en.48xlarge", "p5en", "H200-141GB", 8, 192, 2048},
		{"p6-b200.48xlarge", "p6-b200", "B200", 8, 192, 2048},
	}
	for _, tt := range tests {
		n, ok := AWSInstanceType(tt.name)
		if !ok {
			t.Errorf("AWSInstanceType(%q) not found", tt.name)
			continue
		}
		if n.Cloud != AWS || n.Family != tt.family || n.GPUModel != tt.gpu || n.GPUCount != tt.gpus || n.VCPU != tt.vcpu || n.MemoryGiB != tt.memory || n.Accelerator != "" {
			t.Errorf("%s = %+v", tt.name, n)
		}
	}
	for _, missing := range []string{"g5g.xlarge", "m5.large", "p5.xlarge", ""} {
		if _, ok := AWSInstanceType(missing); ok {
			t.Errorf("AWSInstanceType(%q) found", missing)
		}
	}
	// Every size of every family the brief lists.
	sizes := map[string]int{"g4dn": 7, "g5": 8, "g6": 8, "g6e": 8, "gr6": 2, "p3": 3, "p3dn": 1, "p4d": 1, "p4de": 1, "p5": 2, "p5e": 1, "p5en": 1, "p6-b200": 1}
	got := map[string]int{}
	for _, n := range NodeTypes(AWS) {
		got[n.Family]++
	}
	for fam, want := range sizes {
		if got[fam] != want {
			t.Errorf("family %s has %d sizes, want %d", fam, got[fam], want)
		}
	}
	if len(got) != len(sizes) {
		t.Errorf("families %v, want %v", got, sizes)
	}
}

func TestEveryNodeTypeHasKnownGPU(t *testing.T) {
	for _, cloud := range []Cloud{AWS, GCP} {
		for _, n := range NodeTypes(cloud) {
			g, ok := GPU(n.GPUModel)
			if !ok || g.Name != n.GPUModel {
				t.Errorf("%s %s: unknown GPU model %q", cloud, n.Name, n.GPUModel)
			}
			if n.GPUCount <= 0 || n.VCPU <= 0 || n.MemoryGiB <= 0 || n.Family == "" {
				t.Errorf("%s %s: gpus=%d vcpu=%d mem=%g family=%q", cloud, n.Name, n.GPUCount, n.VCPU, n.MemoryGiB, n.Family)
			}
			if cloud == GCP {
				if acc, ok := GPUByAccelerator(n.Accelerator); !ok || acc.Name != n.GPUModel {
					t.Errorf("%s: accelerator %q is not GPU %s", n.Name, n.Accelerator, n.GPUModel)
				}
			}
		}
	}
}

func TestGKENodeTypeResolves(t *testing.T) {
	tests := []struct {
		machine, accelerator string
		count                int
		wantGPU              string
		wantAccelerator      string
		wantCount            int
		wantFamily           string
	}{
		{"g2-standard-4", "", 0, "L4", "nvidia-l4", 1, "g2"},
		{"g2-standard-24", "", 0, "L4", "nvidia-l4", 2, "g2"},
		{"g2-standard-32", "", 0, "L4", "nvidia-l4", 1, "g2"},
		{"g2-standard-48", "nvidia-l4", 4, "L4", "nvidia-l4", 4, "g2"},
		{"g2-standard-96", "", 8, "L4", "nvidia-l4", 8, "g2"},
		{"a2-highgpu-1g", "", 0, "A100-40GB", "nvidia-tesla-a100", 1, "a2-highgpu"},
		{"a2-megagpu-16g", "nvidia-tesla-a100", 0, "A100-40GB", "nvidia-tesla-a100", 16, "a2-megagpu"},
		{"a2-ultragpu-8g", "", 0, "A100-80GB", "nvidia-a100-80gb", 8, "a2-ultragpu"},
		{"a3-highgpu-2g", "", 0, "H100-80GB", "nvidia-h100-80gb", 2, "a3-highgpu"},
		{"a3-megagpu-8g", "", 0, "H100-80GB", "nvidia-h100-mega-80gb", 8, "a3-megagpu"},
		{"a3-ultragpu-8g", "", 0, "H200-141GB", "nvidia-h200-141gb", 8, "a3-ultragpu"},
		{"a4-highgpu-8g", "nvidia-b200", 8, "B200", "nvidia-b200", 8, "a4-highgpu"},
		{"n1-standard-4", "nvidia-tesla-t4", 1, "T4", "nvidia-tesla-t4", 1, "n1"},
		{"n1-standard-32", "nvidia-tesla-t4", 4, "T4", "nvidia-tesla-t4", 4, "n1"},
		{"n1-standard-8", "nvidia-tesla-v100", 8, "V100-16GB", "nvidia-tesla-v100", 8, "n1"},
		{"n1-standard-32", "nvidia-tesla-v100", 4, "V100-16GB", "nvidia-tesla-v100", 4, "n1"},
		{"n1-highmem-16", "nvidia-tesla-v100", 2, "V100-16GB", "nvidia-tesla-v100", 2, "n1"},
		{"n1-highmem-8", "nvidia-tesla-p100", 2, "P100", "nvidia-tesla-p100", 2, "n1"},
		{"n1-standard-16", "nvidia-tesla-p100", 1, "P100", "nvidia-tesla-p100", 1, "n1"},
	}
	for _, tt := range tests {
		n, err := GKENodeType(tt.machine, tt.accelerator, tt.count)
		if err != nil {
			t.Errorf("GKENodeType(%q, %q, %d): %v", tt.machine, tt.accelerator, tt.count, err)
			continue
		}
		if n.Cloud != GCP || n.Name != tt.machine || n.GPUModel != tt.wantGPU || n.Accelerator != tt.wantAccelerator || n.GPUCount != tt.wantCount || n.Family != tt.wantFamily {
			t.Errorf("GKENodeType(%q, %q, %d) = %s %s %dx%s (%s)", tt.machine, tt.accelerator, tt.count,
				n.Name, n.GPUModel, n.GPUCount, n.Accelerator, n.Family)
		}
	}
}

func TestGKENodeTypeRejects(t *testing.T) {
	tests := []struct {
		machine, accelerator string
		count                int
		wantErr              []string // every fragment must be in the message
	}{
		{"e2-standard-4", "", 0, []string{`"e2-standard-4"`, "not a GKE GPU machine type"}},
		{"a3-highgpu-16g", "", 0, []string{"not a GKE GPU machine type"}},
		{"n1-standard-8", "", 0, []string{"no GPUs of its own", "nvidia-tesla-t4"}},
		{"n1-standard-8", "nvidia-tesla-t4", 0, []string{"no GPUs of its own"}},
		{"n1-standard-8", "", 2, []string{"no GPUs of its own"}},
		{"n1-standard-8", "nvidia-tesla-t4", 3, []string{`takes "nvidia-tesla-t4" in counts [1 2 4], not 3`}},
		{"n1-standard-32", "nvidia-tesla-v100", 1, []string{`"n1-standard-32"`, "32 vCPUs", "counts [4 8], not 1"}},
		{"n1-standard-16", "nvidia-tesla-v100", 1, []string{"counts [2 4 8], not 1"}},
		{"n1-highmem-16", "nvidia-tesla-v100", 1, []string{"counts [2 4 8]"}},
		{"n1-standard-32", "nvidia-tesla-p100", 1, []string{"counts [2 4], not 1"}},
		{"n1-standard-8", "nvidia-l4", 1, []string{`"nvidia-l4" cannot be attached`, "nvidia-tesla-p100, nvidia-tesla-p4, nvidia-tesla-t4, nvidia-tesla-v100"}},
		{"a2-highgpu-1g", "nvidia-tesla-t4", 1, []string{`comes with 1 x "nvidia-tesla-a100"`, `not take 1 x "nvidia-tesla-t4"`}},
		{"a2-highgpu-1g", "", 2, []string{`comes with 1 x "nvidia-tesla-a100"`, "2 GPUs"}},
		{"a3-megagpu-8g", "nvidia-h100-80gb", 0, []string{`"nvidia-h100-mega-80gb"`}},
		{"g2-standard-4", "nvidia-l4", -1, []string{"negative"}},
	}
	for _, tt := range tests {
		_, err := GKENodeType(tt.machine, tt.accelerator, tt.count)
		if err == nil {
			t.Errorf("GKENodeType(%q, %q, %d) succeeded", tt.machine, tt.accelerator, tt.count)
			continue
		}
		for _, frag := range tt.wantErr {
			if !strings.Contains(err.Error(), frag) {
				t.Errorf("GKENodeType(%q, %q, %d) error %q lacks %q", tt.machine, tt.accelerator, tt.count, err, frag)
			}
		}
	}
}

func TestGKEN1Combinations(t *testing.T) {
	// Compute Engine's N1 GPU limits, written out per machine: accelerator → valid counts. P4
	// (Compute Engine "GPU platforms", N1 + P4): 1 GPU up to 24 vCPUs, 2 up to 48, 4 up to 96.
	want := map[string]map[string][]int{
		"n1-standard-4":  {"nvidia-tesla-t4": {1, 2, 4}, "nvidia-tesla-v100": {1, 2, 4, 8}, "nvidia-tesla-p100": {1, 2, 4}, "nvidia-tesla-p4": {1, 2, 4}},
		"n1-standard-8":  {"nvidia-tesla-t4": {1, 2, 4}, "nvidia-tesla-v100": {1, 2, 4, 8}, "nvidia-tesla-p100": {1, 2, 4}, "nvidia-tesla-p4": {1, 2, 4}},
		"n1-standard-16": {"nvidia-tesla-t4": {1, 2, 4}, "nvidia-tesla-v100": {2, 4, 8}, "nvidia-tesla-p100": {1, 2, 4}, "nvidia-tesla-p4": {1, 2, 4}},
		"n1-standard-32": {"nvidia-tesla-t4": {1, 2, 4}, "nvidia-tesla-v100": {4, 8}, "nvidia-tesla-p100": {2, 4}, "nvidia-tesla-p4": {2, 4}},
		"n1-highmem-8":   {"nvidia-tesla-t4": {1, 2, 4}, "nvidia-tesla-v100": {1, 2, 4, 8}, "nvidia-tesla-p100": {1, 2, 4}, "nvidia-tesla-p4": {1, 2, 4}},
		"n1-highmem-16":  {"nvidia-tesla-t4": {1, 2, 4}, "nvidia-tesla-v100": {2, 4, 8}, "nvidia-tesla-p100": {1, 2, 4}, "nvidia-tesla-p4": {1, 2, 4}},
	}
	got := map[string]map[string][]int{}
	for _, n := range NodeTypes(GCP) {
		if n.Family != "n1" {
			continue
		}
		if got[n.Name] == nil {
			got[n.Name] = map[string][]int{}
		}
		got[n.Name][n.Accelerator] = append(got[n.Name][n.Accelerator], n.GPUCount)
	}
	for machine, accs := range want {
		for acc, counts := range accs {
			if !slices.Equal(got[machine][acc], counts) {
				t.Errorf("%s + %s: counts %v, want %v", machine, acc, got[machine][acc], counts)
			}
		}
		if len(got[machine]) != len(accs) {
			t.Errorf("%s: accelerators %v", machine, got[machine])
		}
	}
	if len(got) != len(want) {
		t.Errorf("n1 machine types %d, want %d", len(got), len(want))
	}
}

func TestKnownGKEMachineType(t *testing.T) {
	for _, name := range []string{"g2-standard-8", "a2-megagpu-16g", "a3-ultragpu-8g", "a4-highgpu-8g", "n1-standard-4", "n1-highmem-16"} {
		if !knownGKEMachineType(name) {
			t.Errorf("knownGKEMachineType(%q) = false", name)
		}
	}
	for _, name := range []string{"", "n1-standard-2", "n2-standard-8", "a3-edgegpu-8g", "g2-standard-6"} {
		if knownGKEMachineType(name) {
			t.Errorf("knownGKEMachineType(%q) = true", name)
		}
	}
}

func TestNodeTypesSortedAndCopied(t *testing.T) {
	for _, cloud := range []Cloud{AWS, GCP} {
		nts := NodeTypes(cloud)
		if len(nts) == 0 {
			t.Fatalf("no %s node types", cloud)
		}
		for i := 1; i < len(nts); i++ {
			a, b := nts[i-1], nts[i]
			if a.Name > b.Name || a.Name == b.Name && (a.Accelerator > b.Accelerator || a.Accelerator == b.Accelerator && a.GPUCount >= b.GPUCount) {
				t.Errorf("%s: %s/%s/%d before %s/%s/%d", cloud, a.Name, a.Accelerator, a.GPUCount, b.Name, b.Accelerator, b.GPUCount)
			}
		}
		nts[0].Name = "mutated"
		if NodeTypes(cloud)[0].Name == "mutated" {
			t.Errorf("NodeTypes(%s) exposes the catalog's slice", cloud)
		}
	}
	if NodeTypes("azure") != nil {
		t.Error("unknown cloud has node types")
	}
}

func TestRegions(t *testing.T) {
	tests := []struct {
		cloud Cloud
		want  []string
	}{
		{AWS, []string{"ap-northeast-1", "ap-southeast-1", "eu-central-1", "eu-north-1", "eu-west-1", "us-east-1", "us-east-2", "us-west-2"}},
		{GCP, []string{"asia-northeast1", "asia-southeast1", "europe-west1", "europe-west4", "us-central1", "us-east4", "us-west1"}},
	}
	for _, tt := range tests {
		if got := Regions(tt.cloud); !slices.Equal(got, tt.want) {
			t.Errorf("Regions(%s) = %v, want %v", tt.cloud, got, tt.want)
		}
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		name      string
		req       Requirement
		wantFirst string // cheapest
		wantAll   func(NodeType) bool
		wantNames []string // must all be present
		notNames  []string // must all be absent
	}{
		{
			name:      "A10G in us-east-1, cheapest first",
			req:       Requirement{Cloud: AWS, Region: "us-east-1", GPUModel: "a10g"},
			wantFirst: "g5.xlarge",
			wantAll:   func(n NodeType) bool { return n.Family == "g5" },
			wantNames: []string{"g5.48xlarge"},
		},
		{
			name:      "80 GiB MIG GPUs on AWS in us-east-1",
			req:       Requirement{Cloud: AWS, Region: "us-east-1", MinGPUMemoryGiB: 80, MIGCapable: true},
			wantFirst: "p5.4xlarge",
			wantAll:   func(n NodeType) bool { return n.GPU().MemoryGiB >= 80 && n.GPU().MIGCapable() },
			// p5en has its published us-east-1 row since the catalog corrections; p5e is not sold there.
			wantNames: []string{"p4de.24xlarge", "p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge"},
			notNames:  []string{"p5e.48xlarge", "p4d.24xlarge"}, // A100 40 GB too small
		},
		{
			name:      "H200 only where offered",
			req:       Requirement{Cloud: AWS, Region: "us-east-2", GPUModel: "H200-141GB"},
			wantFirst: "p5e.48xlarge",
			wantNames: []string{"p5en.48xlarge"},
		},
		{
			name:      "single-GPU L4 on GKE",
			req:       Requirement{Cloud: GCP, Region: "europe-west4", GPUModel: "L4", MaxGPUs: 1},
			wantFirst: "g2-standard-4",
			wantAll:   func(n NodeType) bool { return n.GPUCount == 1 && n.Family == "g2" },
			notNames:  []string{"g2-standard-24", "g2-standard-96"},
		},
		{
			name:      "at least 4 T4s on either cloud",
			req:       Requirement{MinGPUs: 4, GPUModel: "T4"},
			wantFirst: "n1-standard-4",
			wantAll:   func(n NodeType) bool { return n.GPUCount >= 4 && n.GPUModel == "T4" },
			wantNames: []string{"g4dn.12xlarge", "g4dn.metal", "n1-standard-32"},
		},
		{
			name:     "V100 not offered in asia-southeast1 on GKE",
			req:      Requirement{Cloud: GCP, Region: "asia-southeast1", GPUModel: "V100-16GB"},
			notNames: []string{"n1-standard-8"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Find(tt.req)
			if tt.wantFirst == "" {
				if len(got) != 0 {
					t.Fatalf("found %d, want none", len(got))
				}
				return
			}
			if len(got) == 0 || got[0].Name != tt.wantFirst {
				t.Fatalf("first = %v, want %s", names(got), tt.wantFirst)
			}
			prev := 0.0
			for _, n := range got {
				price := referencePrice(n, tt.req.Region)
				if price < prev {
					t.Errorf("%s at %g after %g: not ordered by price", n.Name, price, prev)
				}
				prev = price
				if tt.wantAll != nil && !tt.wantAll(n) {
					t.Errorf("%s does not meet the requirement", n.Name)
				}
				if tt.req.Region != "" {
					if _, ok := n.Price(tt.req.Region); !ok {
						t.Errorf("%s has no price in %s", n.Name, tt.req.Region)
					}
				}
			}
			for _, w := range tt.wantNames {
				if !slices.Contains(names(got), w) {
					t.Errorf("%s missing from %v", w, names(got))
				}
			}
			for _, w := range tt.notNames {
				if slices.Contains(names(got), w) {
					t.Errorf("%s should not be found", w)
				}
			}
		})
	}
}

func names(nts []NodeType) []string {
	out := make([]string, len(nts))
	for i, n := range nts {
		out[i] = n.Name
	}
	return out
}

// The bundle's plan builders pass over node groups and node pools that are surely not GPU pools
// before calling a builder (documents.cpu_node_groups, policies/gpufleet/documents.rego): an EKS
// node group none of whose instance types starts with "p" or "g", a GKE node pool without
// accelerators whose machine type starts with neither "a" nor "g". That is right only while every
// GPU node type of the catalog starts so.
func TestGPUFamilyPrefixes(t *testing.T) {
	prefixes := map[Cloud][]string{AWS: {"p", "g"}, GCP: {"a", "g"}}
	for cloud, want := range prefixes {
		for _, n := range NodeTypes(cloud) {
			if cloud == GCP && n.Family == "n1" {
				continue // GPUs attached as guest_accelerator: never passed over
			}
			if !strings.HasPrefix(n.Name, want[0]) && !strings.HasPrefix(n.Name, want[1]) {
				t.Errorf("%s %s: a GPU node type that starts with neither %q nor %q; documents.cpu_node_groups would pass over its pools", cloud, n.Name, want[0], want[1])
			}
		}
	}
}
