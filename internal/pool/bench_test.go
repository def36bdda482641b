package pool

import "testing"

// The provider validates and derives every pool on every plan: both must stay far below the cost of
// the plan itself (microseconds, not milliseconds).
func BenchmarkValidateAndDerive(b *testing.B) {
	s := eksSpec()
	s.GPU.MIG = &MIG{Profile: "3g.40gb"}
	s.Taints = []Taint{{Key: "team", Value: "ml", Effect: EffectNoSchedule}}
	s.Labels = map[string]string{"team": "ml"}
	env := Environment{Registry: Registry{"acme": {CostCenter: "cc-1", Isolation: IsolationDedicated}}}
	b.ReportAllocs()
	for b.Loop() {
		if problems := s.Validate(); len(problems) != 0 {
			b.Fatal(problems)
		}
		d, err := Derive(s, env)
		if err != nil {
			b.Fatal(err)
		}
		_ = Document("gpufleet_eks_node_pool.train", s, &d)
	}
}
