package computeclass

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// publishedGPUClass writes a ComputeClass as GoogleCloudPlatform/accelerated-platforms publishes
// its GPU classes (platforms/gke/base/core/custom_compute_class/{templates/,}manifests/ccc/gpu/*,
// read 2026-11-28): active migration, node pool auto-creation, image streaming on some, and per
// GPU shape a ladder of a specific reservation (commented out there, with a reservation block), any
// reservation, on-demand, flex-start for 7 days and for 1 day with node recycling, and spot, each
// with gpu {count, driverVersion latest, type}, the machine type and maxPodsPerNode. Shapes sold
// without on-demand capacity (A3 Ultra) have no on-demand and no specific rung there.
func publishedGPUClass(name, machineType, gpuType string, count, maxPods int, onDemand, imageStreaming bool) string {
	gpu := fmt.Sprintf("      gpu:\n        count: %d\n        driverVersion: latest\n        type: %s\n      machineType: %s\n      maxPodsPerNode: %d\n", count, gpuType, machineType, maxPods)
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: cloud.google.com/v1\nkind: ComputeClass\nmetadata:\n  name: %s\nspec:\n  activeMigration:\n    optimizeRulePriority: true\n", name)
	if imageStreaming {
		b.WriteString("  nodePoolConfig:\n    imageStreaming:\n      enabled: true\n")
	}
	b.WriteString("  nodePoolAutoCreation:\n    enabled: true\n  priorities:\n")
	rung := func(head, tail string) { b.WriteString("    - " + strings.TrimPrefix(head+gpu, "      ") + tail) }
	if onDemand {
		rung("", "      reservations:\n        affinity: Specific\n        specific:\n          - name: "+gpuType+"-specific\n            reservationBlock:\n              name: block-1\n      spot: false\n")
	}
	rung("", "      reservations:\n        affinity: AnyBestEffort\n      spot: false\n")
	if onDemand {
		rung("", "      spot: false\n")
	}
	flex := "      flexStart:\n        enabled: true\n        nodeRecycling:\n          leadTimeSeconds: 3600\n"
	rung(flex, "      maxRunDurationSeconds: 604800\n")
	rung(flex, "      maxRunDurationSeconds: 86400\n")
	rung("", "      spot: true\n")
	return b.String()
}

func validateYAML(t *testing.T, doc string) []fieldError {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatalf("%v:\n%s", err, doc)
	}
	s, err := schemas()
	if err != nil {
		t.Fatal(err)
	}
	_, errs, err := s.Validate(context.Background(), obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

// Google's published GPU ComputeClasses validate against gpufleet's CRD, shape by shape.
func TestCRD_publishedGPUClassesValidate(t *testing.T) {
	for _, c := range []struct {
		name, machineType, gpuType string
		count, maxPods             int
		onDemand, imageStreaming   bool
	}{
		{"gpu-l4-24gb-x2", "g2-standard-24", "nvidia-l4", 2, 32, true, false},
		{"gpu-l4-24gb-s8-x1", "g2-standard-8", "nvidia-l4", 1, 32, true, true},
		{"gpu-a100-40gb-x2", "a2-highgpu-2g", "nvidia-tesla-a100", 2, 32, true, false},
		{"gpu-a100-80gb-x1", "a2-ultragpu-1g", "nvidia-a100-80gb", 1, 32, true, false},
		{"gpu-h100-80gb-high-x4", "a3-highgpu-4g", "nvidia-h100-80gb", 4, 32, true, true},
		{"gpu-h100-80gb-high-x8", "a3-highgpu-8g", "nvidia-h100-80gb", 8, 32, true, false},
		{"gpu-h100-80gb-mega-x8", "a3-megagpu-8g", "nvidia-h100-mega-80gb", 8, 32, true, false},
		{"gpu-h200-141gb-x8-ultra", "a3-ultragpu-8g", "nvidia-h200-141gb", 8, 16, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := publishedGPUClass(c.name, c.machineType, c.gpuType, c.count, c.maxPods, c.onDemand, c.imageStreaming)
			if errs := validateYAML(t, doc); len(errs) > 0 {
				t.Fatalf("refused: %v\n%s", errs, doc)
			}
		})
	}
}

// The rules the CRD holds, GKE's and gpufleet's (crd.YAML, G), refuse what they state, at the
// priority, and a published class with one field gpufleet's CRD does not know is refused as
// fieldValidation=Strict refuses it.
func TestCRD_rulesRefuse(t *testing.T) {
	base := "apiVersion: cloud.google.com/v1\nkind: ComputeClass\nmetadata:\n  name: c\nspec:\n  priorities:\n  - "
	for name, tc := range map[string]struct{ priority, want string }{
		"spot with reservations":      {"machineType: g2-standard-8\n    spot: true\n    reservations: {affinity: AnyBestEffort}", "Spot VMs cannot consume reservations"},
		"spot without reservations":   {"machineType: g2-standard-8\n    spot: true\n    reservations: {affinity: None}", ""},
		"flex-start with reservation": {"machineType: g2-standard-8\n    flexStart: {enabled: true}\n    reservations: {affinity: AnyBestEffort}", "A flex-start priority takes no reservations"},
		"flex-start with spot":        {"machineType: g2-standard-8\n    flexStart: {enabled: true}\n    spot: true", "Flex Start provisioning model is incompatible with Spot"},
		"specific with location": {"machineType: g2-standard-8\n    location: {zones: [us-central1-a]}\n    reservations: {affinity: Specific, specific: [{name: r, zones: [us-central1-a]}]}",
			"names its zones in reservations.specific[].zones"},
		"specific in its zones":     {"machineType: g2-standard-8\n    reservations: {affinity: Specific, specific: [{name: r, zones: [us-central1-a]}]}", ""},
		"specific without names":    {"machineType: g2-standard-8\n    reservations: {affinity: Specific}", "At least 1 specific reservation required"},
		"family and type":           {"machineType: g2-standard-8\n    machineFamily: g2", "MachineFamily and MachineType cannot be set together"},
		"nodepools and more":        {"nodepools: [a]\n    spot: true", "Nodepool field cannot be set along with other fields"},
		"wait without flex-start":   {"machineType: g2-standard-8\n    capacityCheckWaitTimeSeconds: 60", "capacityCheckWaitTimeSeconds is only supported"},
		"driver version":            {"gpu: {type: nvidia-l4, count: 1, driverVersion: installation-disabled}", "Unsupported value"},
		"a field the CRD not knows": {"machineType: g2-standard-8\n    gpuPartitionSize: 1g.10gb", "unknown field"},
	} {
		t.Run(name, func(t *testing.T) {
			errs := validateYAML(t, base+tc.priority+"\n")
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Fatalf("refused: %v", errs)
			case tc.want != "" && (len(errs) == 0 || !strings.Contains(errs[0].Message, tc.want) || !strings.HasPrefix(errs[0].Field, "spec.priorities[0]")):
				// (A schema error comes with the server's note that CEL rules were not checked.)
				t.Fatalf("errors %v, want the first at spec.priorities[0] with %q", errs, tc.want)
			}
		})
	}
}
