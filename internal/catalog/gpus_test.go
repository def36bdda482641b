package catalog

import (
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// The expected MIG tables, written out from NVIDIA's MIG User Guide ("Supported MIG Profiles") rather
// than derived from the catalog, so a slip in either shows up as a difference.
// Each entry: profile name → max instances per GPU, in NVIDIA's table order.
var nvidiaMIGTables = map[string][]struct {
	name string
	max  int
}{
	"A100-40GB":  {{"1g.5gb", 7}, {"1g.5gb+me", 1}, {"1g.10gb", 4}, {"2g.10gb", 3}, {"3g.20gb", 2}, {"4g.20gb", 1}, {"7g.40gb", 1}},
	"A100-80GB":  {{"1g.10gb", 7}, {"1g.10gb+me", 1}, {"1g.20gb", 4}, {"2g.20gb", 3}, {"3g.40gb", 2}, {"4g.40gb", 1}, {"7g.80gb", 1}},
	"H100-80GB":  {{"1g.10gb", 7}, {"1g.10gb+me", 1}, {"1g.20gb", 4}, {"2g.20gb", 3}, {"3g.40gb", 2}, {"4g.40gb", 1}, {"7g.80gb", 1}},
	"H100-94GB":  {{"1g.12gb", 7}, {"1g.12gb+me", 1}, {"1g.24gb", 4}, {"2g.24gb", 3}, {"3g.47gb", 2}, {"4g.47gb", 1}, {"7g.94gb", 1}},
	"H200-141GB": {{"1g.18gb", 7}, {"1g.18gb+me", 1}, {"1g.35gb", 4}, {"2g.35gb", 3}, {"3g.71gb", 2}, {"4g.71gb", 1}, {"7g.141gb", 1}},
	"B200":       {{"1g.23gb", 7}, {"1g.23gb+me", 1}, {"1g.45gb", 4}, {"2g.45gb", 3}, {"3g.90gb", 2}, {"4g.90gb", 1}, {"7g.180gb", 1}},
	"A30":        {{"1g.6gb", 4}, {"1g.6gb+me", 1}, {"2g.12gb", 2}, {"2g.12gb+me", 1}, {"4g.24gb", 1}},
}

// The "all-balanced" config of NVIDIA mig-parted / GPU Operator (config-default.yaml).
var migPartedBalanced = map[string][]string{
	"A100-40GB":  {"1g.5gb", "2g.10gb", "3g.20gb"},
	"A100-80GB":  {"1g.10gb", "2g.20gb", "3g.40gb"},
	"H100-80GB":  {"1g.10gb", "2g.20gb", "3g.40gb"},
	"H100-94GB":  {"1g.12gb", "2g.24gb", "3g.47gb"},
	"H200-141GB": {"1g.18gb", "2g.35gb", "3g.71gb"},
	"B200":       {"1g.23gb", "2g.45gb", "3g.90gb"},
	"A30":        {"1g.6gb", "2g.12gb"},
}

func TestMIGTablesMatchNVIDIA(t *testing.T) {
	for model, want := range nvidiaMIGTables {
		t.Run(model, func(t *testing.T) {
			g, ok := GPU(model)
			if !ok {
				t.Fatalf("GPU %q missing", model)
			}
			if len(g.MIGProfiles) != len(want) {
				t.Fatalf("%d profiles %v, want %d", len(g.MIGProfiles), g.MIGProfileNames(), len(want))
			}
			for i, w := range want {
				got := g.MIGProfiles[i]
				if got.Name != w.name || got.MaxInstances != w.max {
					t.Errorf("profile %d = %s(%d), want %s(%d)", i, got.Name, got.MaxInstances, w.name, w.max)
				}
			}
			if !slices.Equal(g.BalancedMIG, migPartedBalanced[model]) {
				t.Errorf("BalancedMIG = %v, want %v", g.BalancedMIG, migPartedBalanced[model])
			}
		})
	}
	// Only the GPUs above have MIG.
	for _, g := range GPUs() {
		if _, listed := nvidiaMIGTables[g.Name]; g.MIGCapable() != listed {
			t.Errorf("%s: MIGCapable() = %v, NVIDIA table listed = %v", g.Name, g.MIGCapable(), listed)
		}
	}
}

var profileName = regexp.MustCompile(`^([1-7])g\.([0-9]+)gb(\+me)?$`)

func TestMIGProfilesParseFromName(t *testing.T) {
	for _, g := range GPUs() {
		slices := 0
		for _, p := range g.MIGProfiles {
			m := profileName.FindStringSubmatch(p.Name)
			if m == nil {
				t.Errorf("%s: profile %q is not <n>g.<m>gb[+me]", g.Name, p.Name)
				continue
			}
			gs, _ := strconv.Atoi(m[1])
			mem, _ := strconv.ParseFloat(m[2], 64)
			// The name is NVIDIA's nominal size; a slice never holds more than the GPU's usable memory.
			if p.ComputeSlices != gs || p.MemoryGiB != min(mem, g.MemoryGiB) {
				t.Errorf("%s %s: ComputeSlices=%d MemoryGiB=%g, name says %d and %g", g.Name, p.Name, p.ComputeSlices, p.MemoryGiB, gs, mem)
			}
			if p.MemoryGiB > g.MemoryGiB || p.MaxInstances < 1 {
				t.Errorf("%s %s: memory %g of %g GiB, max %d", g.Name, p.Name, p.MemoryGiB, g.MemoryGiB, p.MaxInstances)
			}
			slices = max(slices, p.ComputeSlices)
		}
		// The largest profile is the whole GPU.
		if g.MIGCapable() {
			last := g.MIGProfiles[len(g.MIGProfiles)-1]
			if last.MemoryGiB != g.MemoryGiB || last.ComputeSlices != slices {
				t.Errorf("%s: whole-GPU profile %s does not match %g GiB / %d slices", g.Name, last.Name, g.MemoryGiB, slices)
			}
		}
		for _, b := range g.BalancedMIG {
			if _, ok := g.MIGProfile(b); !ok {
				t.Errorf("%s: balanced profile %s not in the MIG table", g.Name, b)
			}
		}
	}
}

func TestGPUModels(t *testing.T) {
	tests := []struct {
		name, arch  string
		memory      float64
		class       Class
		accelerator string
	}{
		{"T4", "Turing", 16, ClassInference, "nvidia-tesla-t4"},
		{"V100-16GB", "Volta", 16, ClassTraining, "nvidia-tesla-v100"},
		{"V100-32GB", "Volta", 32, ClassTraining, ""},
		{"P100", "Pascal", 16, ClassTraining, "nvidia-tesla-p100"},
		{"P4", "Pascal", 8, ClassInference, "nvidia-tesla-p4"}, // Tesla P4: 8 GB GDDR5 (NVIDIA datasheet); GKE N1 accelerator
		// Usable GiB as EC2 DescribeInstanceTypes reports them: A10G (g5) and L4 (g6) 22,888 MiB,
		// L40S (g6e) 45,776 MiB; sold as "24 GB" and "48 GB".
		{"A10G", "Ampere", 22.35, ClassInference, ""},
		{"L4", "Ada Lovelace", 22.35, ClassInference, "nvidia-l4"},
		{"L40S", "Ada Lovelace", 44.7, ClassInference, ""},
		{"A30", "Ampere", 24, ClassInference, ""},
		{"A100-40GB", "Ampere", 40, ClassTraining, "nvidia-tesla-a100"},
		{"A100-80GB", "Ampere", 80, ClassTraining, "nvidia-a100-80gb"},
		{"H100-80GB", "Hopper", 80, ClassTraining, "nvidia-h100-80gb"},
		{"H100-94GB", "Hopper", 94, ClassTraining, ""},
		{"H200-141GB", "Hopper", 141, ClassTraining, "nvidia-h200-141gb"},
		{"B200", "Blackwell", 179, ClassTraining, "nvidia-b200"}, // EC2 (p6-b200): about 179 GiB, sold as "180 GB"
	}
	if len(GPUs()) != len(tests) {
		t.Errorf("catalog has %d GPU models, test knows %d", len(GPUs()), len(tests))
	}
	for _, tt := range tests {
		g, ok := GPU(tt.name)
		if !ok {
			t.Errorf("GPU(%q) not found", tt.name)
			continue
		}
		if g.Architecture != tt.arch || g.MemoryGiB != tt.memory || g.Class != tt.class || g.GKEAccelerator != tt.accelerator {
			t.Errorf("%s = %s/%g/%s/%q, want %s/%g/%s/%q", tt.name, g.Architecture, g.MemoryGiB, g.Class, g.GKEAccelerator,
				tt.arch, tt.memory, tt.class, tt.accelerator)
		}
		if tt.accelerator != "" {
			if byAcc, ok := GPUByAccelerator(tt.accelerator); !ok || byAcc.Name != tt.name {
				t.Errorf("GPUByAccelerator(%q) = %q, %v", tt.accelerator, byAcc.Name, ok)
			}
		}
	}
}

func TestGPULookups(t *testing.T) {
	if g, ok := GPU("h100-80gb"); !ok || g.Name != "H100-80GB" {
		t.Errorf("GPU is not case-insensitive: %q %v", g.Name, ok)
	}
	if _, ok := GPU("H100"); ok {
		t.Error("GPU(\"H100\") should not match a model by prefix")
	}
	if g, ok := GPUByAccelerator("nvidia-h100-mega-80gb"); !ok || g.Name != "H100-80GB" {
		t.Errorf("A3 Mega accelerator resolves to %q %v", g.Name, ok)
	}
	for _, a := range []string{"", "nvidia-tesla-k80", "nvidia-l40s"} {
		if g, ok := GPUByAccelerator(a); ok {
			t.Errorf("GPUByAccelerator(%q) = %s, want none", a, g.Name)
		}
	}
	// GPUs hands out a copy.
	GPUs()[0].Name = "mutated"
	if GPUs()[0].Name == "mutated" {
		t.Error("GPUs() exposes the catalog's slice")
	}
}
