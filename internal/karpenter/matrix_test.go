package karpenter

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// matrixCase is one pool spec and its render settings; wantRefused names the attribute a refused
// case must be refused at ("" for a case both validations must accept).
type matrixCase struct {
	name        string
	spec        pool.Spec
	set         render.Settings
	wantRefused string
}

func baseSpec(name string) pool.Spec {
	return pool.Spec{
		Cloud: catalog.AWS, ResourceType: render.ResourceType, Name: name, Region: "us-east-1", Client: "acme",
		Workload:           pool.Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 16},
		InstanceTypes:      []string{"g6.xlarge"},
		Scaling:            pool.Sizes{Min: 0, Max: 4},
		AutoscalerOwnsSize: true,
		Karpenter:          true,
	}
}

func baseSettings(mode, version string) render.Settings {
	s := render.Settings{
		Mode: mode, KarpenterVersion: version, NodeRole: "KarpenterNodeRole-ml",
		Subnets:        []render.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "ml"}}},
		SecurityGroups: []render.SelectorTerm{{ID: "sg-0123456789abcdef0"}},
		Annotations:    map[string]string{annotationConfig: `{"client":"acme"}`},
	}
	return s
}

// matrix are the pool specs whose objects the in-process validation and the real API server must
// judge alike: every mode and Karpenter release, plain GPUs, MIG, time-slicing, MPS, spot mixes,
// reservations, capacity blocks, static capacity, and settings the CRDs refuse.
func matrix() []matrixCase {
	var out []matrixCase
	add := func(name string, mod func(*pool.Spec, *render.Settings), refusedAt string, modes ...string) {
		for _, mode := range modes {
			versions := []string{render.Karpenter114, render.Karpenter115}
			if mode == render.ModeAutoMode {
				versions = []string{""}
			}
			for _, v := range versions {
				s, set := baseSpec(strings.ReplaceAll(name, "_", "-")), baseSettings(mode, v)
				if mod != nil {
					mod(&s, &set)
				}
				label := fmt.Sprintf("%s/%s%s", name, mode, v)
				out = append(out, matrixCase{name: label, spec: s, set: set, wantRefused: refusedAt})
			}
		}
	}
	both := []string{render.ModeKarpenter, render.ModeAutoMode}
	karp := []string{render.ModeKarpenter}
	add("plain", nil, "", both...)
	add("h100_training", func(s *pool.Spec, _ *render.Settings) {
		s.InstanceTypes = []string{"p5.48xlarge"}
		s.Workload = pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, GPUMemoryGiB: 60, GPUsPerReplica: 8}
		s.Scaling = pool.Sizes{Max: 2}
	}, "", both...)
	add("spot_mix", func(s *pool.Spec, _ *render.Settings) {
		s.Capacity = pool.Capacity{SpotPercentage: 70, OnDemandBase: 1}
		s.Scaling = pool.Sizes{Max: 10}
	}, "", both...)
	add("all_spot", func(s *pool.Spec, _ *render.Settings) { s.Capacity = pool.Capacity{SpotPercentage: 100} }, "", both...)
	add("static_min", func(s *pool.Spec, _ *render.Settings) {
		s.Scaling = pool.Sizes{Min: 2, Max: 6, Desired: 2}
		s.Capacity = pool.Capacity{SpotPercentage: 50, OnDemandBase: 1}
	}, "", both...)
	add("odcr", func(s *pool.Spec, _ *render.Settings) {
		s.InstanceTypes = []string{"p5.48xlarge"}
		s.Capacity = pool.Capacity{Reservation: &pool.Reservation{Type: pool.ReservationCapacityReservation, ID: "cr-0a1b2c3d4e5f60718"}}
	}, "", both...)
	add("capacity_block", func(s *pool.Spec, _ *render.Settings) {
		s.InstanceTypes = []string{"p5.48xlarge"}
		s.Capacity = pool.Capacity{Reservation: &pool.Reservation{Type: pool.ReservationCapacityBlock, ID: "cr-0b1c2d3e4f5a60719", HourlyUSD: 31.46}}
	}, "", both...)
	add("mig", func(s *pool.Spec, _ *render.Settings) {
		s.InstanceTypes = []string{"p5.48xlarge"}
		s.GPU.MIG = &pool.MIG{Profile: "3g.40gb"}
		s.Workload.GPUMemoryGiB = 30
	}, "", karp...)
	add("mig_balanced", func(s *pool.Spec, _ *render.Settings) {
		s.InstanceTypes = []string{"p4d.24xlarge"}
		s.GPU.MIG = &pool.MIG{Config: pool.MIGConfigBalanced}
		s.GPU.MIGStrategy = pool.MIGStrategyMixed
		s.Workload.GPUMemoryGiB = 4
	}, "", karp...)
	add("mig_mixed", func(s *pool.Spec, _ *render.Settings) {
		s.InstanceTypes = []string{"p5.48xlarge"}
		s.GPU.MIG = &pool.MIG{Profile: "3g.40gb"}
		s.GPU.MIGStrategy = pool.MIGStrategyMixed
		s.Workload.GPUMemoryGiB = 30
	}, "", karp...)
	add("time_slicing", func(s *pool.Spec, _ *render.Settings) {
		s.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 4}
		s.Workload.GPUMemoryGiB = 4
	}, "", karp...)
	add("mps", func(s *pool.Spec, _ *render.Settings) {
		s.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingMPS, Replicas: 3}
		s.Workload.GPUMemoryGiB = 6
	}, "", karp...)
	add("mig_time_slicing", func(s *pool.Spec, _ *render.Settings) {
		s.InstanceTypes = []string{"p4de.24xlarge"}
		s.GPU.MIG = &pool.MIG{Profile: "1g.10gb"}
		s.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 2}
		s.Workload.GPUMemoryGiB = 4
	}, "", karp...)
	add("protected_training", func(s *pool.Spec, _ *render.Settings) {
		s.Workload = pool.Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, GPUMemoryGiB: 16}
	}, "", both...)
	add("taints_labels_tags", func(s *pool.Spec, _ *render.Settings) {
		s.Taints = []pool.Taint{{Key: "team", Value: "ml", Effect: pool.EffectNoSchedule}, {Key: "example.com/dedicated", Effect: pool.EffectNoExecute}}
		s.Labels = map[string]string{"example.com/team": "ml"}
		s.Tags = map[string]string{"CostCenter": "1234"}
	}, "", both...)
	add("instance_profile", func(_ *pool.Spec, set *render.Settings) {
		set.NodeRole, set.InstanceProfile = "", "KarpenterNodeInstanceProfile-ml"
	}, "", karp...)
	add("budgets_schedule", func(_ *pool.Spec, set *render.Settings) {
		set.Disruption = render.Disruption{BudgetsSet: true, Budgets: []render.Budget{{Nodes: "0", Schedule: "0 9 * * mon-fri", Duration: "8h"}, {Nodes: "20%"}}}
	}, "", both...)
	add("bottlerocket", func(_ *pool.Spec, set *render.Settings) { set.AMIAlias = "bottlerocket@latest" }, "", karp...)
	add("several_types", func(s *pool.Spec, _ *render.Settings) {
		s.InstanceTypes = []string{"g6.xlarge", "g6.2xlarge", "g6.4xlarge"}
	}, "", both...)

	// Refused by the CRDs.
	add("bad_ami_family", func(_ *pool.Spec, set *render.Settings) { set.AMIAlias = "ubuntu@latest" }, "ami_alias", karp...)
	add("bad_consolidate_after", func(_ *pool.Spec, set *render.Settings) { set.Disruption.ConsolidateAfter = "5 minutes" }, "disruption.consolidate_after", both...)
	add("bad_expire_after", func(_ *pool.Spec, set *render.Settings) { set.Disruption.ExpireAfter = "1d" }, "disruption.expire_after", both...)
	add("schedule_without_duration", func(_ *pool.Spec, set *render.Settings) {
		set.Disruption = render.Disruption{BudgetsSet: true, Budgets: []render.Budget{{Nodes: "1", Schedule: "@daily"}}}
	}, "disruption.budgets", both...)
	add("bad_budget_nodes", func(_ *pool.Spec, set *render.Settings) {
		set.Disruption = render.Disruption{BudgetsSet: true, Budgets: []render.Budget{{Nodes: "ten"}}}
	}, "disruption.budgets", both...)
	add("restricted_tag", func(s *pool.Spec, _ *render.Settings) { s.Tags = map[string]string{"karpenter.sh/nodepool": "x"} }, "tags", both...)
	add("karpenter_label", func(s *pool.Spec, _ *render.Settings) { s.Labels = map[string]string{"karpenter.sh/custom": "x"} }, "labels", both...)
	add("empty_subnet_term", func(_ *pool.Spec, set *render.Settings) { set.Subnets = []render.SelectorTerm{{}} }, "subnet_selector", both...)
	add("subnet_id_and_tags", func(_ *pool.Spec, set *render.Settings) {
		set.Subnets = []render.SelectorTerm{{ID: "subnet-0a1a1a1a1a1a1a1a1", Tags: map[string]string{"a": "b"}}}
	}, "subnet_selector", both...)
	add("bad_sg_id", func(_ *pool.Spec, set *render.Settings) { set.SecurityGroups = []render.SelectorTerm{{ID: "group-1"}} }, "security_group_selector", both...)
	add("empty_tag_value_selector", func(_ *pool.Spec, set *render.Settings) {
		set.SecurityGroups = []render.SelectorTerm{{Tags: map[string]string{"Name": ""}}}
	}, "security_group_selector", both...)
	add("bad_termination_grace", func(_ *pool.Spec, set *render.Settings) { set.Disruption.TerminationGracePeriod = "forever" }, "disruption.termination_grace_period", both...)
	add("long_role", func(_ *pool.Spec, set *render.Settings) { set.NodeRole = strings.Repeat("r", 70) }, "node_role", render.ModeAutoMode)
	return out
}

// render renders a case.
func (c matrixCase) render(t testing.TB) render.Rendering {
	t.Helper()
	if problems := c.spec.Validate(); len(problems) > 0 {
		t.Fatalf("%s: invalid spec: %v", c.name, problems)
	}
	d, err := pool.Derive(c.spec, pool.Environment{})
	if err != nil {
		t.Fatal(err)
	}
	rd := render.Render(c.spec, d, c.set)
	for _, n := range rd.Notes {
		if n.Severity == render.Error {
			t.Fatalf("%s: render error %s: %s", c.name, n.Path, n.Detail)
		}
	}
	return rd
}

// TestMatrixInProcess checks the in-process verdicts of the matrix: the accepted cases pass, the
// refused ones are refused at the attribute that produced the field.
func TestMatrixInProcess(t *testing.T) {
	cases := matrix()
	if len(cases) < 40 {
		t.Fatalf("the matrix has %d cases, fewer than 40", len(cases))
	}
	for _, c := range cases {
		rd := c.render(t)
		var diags diag.Diagnostics
		validateObjects(context.Background(), c.set, rd, nil, &diags)
		switch {
		case c.wantRefused == "" && diags.HasError():
			t.Errorf("%s: refused: %v", c.name, diags.Errors())
		case c.wantRefused != "" && !diags.HasError():
			t.Errorf("%s: accepted, want refused at %s", c.name, c.wantRefused)
		case c.wantRefused != "":
			for _, e := range diags.Errors() {
				if !strings.HasPrefix(e.Detail(), c.wantRefused+":") {
					t.Errorf("%s: refused at %q, want %s", c.name, e.Detail(), c.wantRefused)
				}
			}
		}
	}
}
