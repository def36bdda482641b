package plandoc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	ccrender "github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// What gpufleet renders (gpufleet_karpenter_manifests, gpufleet_gke_compute_class_manifest) and a
// team then keeps in a GitOps repository is judged from its YAML as the pool it came from: the
// convention labels and tags the renderers write are the ones the builders read (client, workload,
// GPU, the GPU taint), and no autoscaler rule (GF-AS-*) fires on objects gpufleet renders, over a
// matrix of workloads, spot mixes, GPU sharing, MIG, reservations and capacity blocks.
func TestDocuments_renderedObjectsReadBack(t *testing.T) {
	rules, err := rego.New(
		rego.Query(`x := [f.rule | some f in data.gpufleet.rules.deny]; y := [f.rule | some f in data.gpufleet.rules.warn]`),
		rego.Load([]string{"../../policies/gpufleet"}, func(_ string, info os.FileInfo, _ int) bool {
			return strings.HasSuffix(info.Name(), "_test.rego")
		}),
	).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	judge := func(t *testing.T, label string, objects []string, want func(doc map[string]any)) int {
		t.Helper()
		p, err := ReadManifests([]ManifestFile{{Path: label, Data: []byte(strings.Join(objects, "---\n"))}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := p.Build()
		if err != nil {
			t.Fatal(err)
		}
		for _, pl := range d.Pools {
			var doc map[string]any
			if err := json.Unmarshal(pl.Document, &doc); err != nil {
				t.Fatal(err)
			}
			want(doc)
			rs, err := rules.Eval(context.Background(), rego.EvalInput(doc))
			if err != nil || len(rs) != 1 {
				t.Fatalf("%s: %v %v", label, err, rs)
			}
			for _, v := range []any{rs[0].Bindings["x"], rs[0].Bindings["y"]} {
				for _, r := range v.([]any) {
					if strings.HasPrefix(r.(string), "GF-AS-") {
						t.Errorf("%s: %s: %s on what gpufleet renders", label, pl.Address, r)
					}
				}
			}
		}
		return len(d.Pools)
	}

	set := render.Settings{NodeRole: "r", Subnets: []render.SelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "ml"}}}, SecurityGroups: []render.SelectorTerm{{ID: "sg-1"}}}
	type variant struct {
		kind          string
		interruptible bool
		pct, base     int
		sharing       bool
		mig           bool
		reservation   string
		mode          string
	}
	var variants []variant
	for _, kind := range []string{pool.KindTraining, pool.KindInference, pool.KindBatch, pool.KindDevelopment} {
		for _, interruptible := range []bool{false, true} {
			for _, mix := range [][2]int{{0, 0}, {50, 1}, {100, 0}} {
				variants = append(variants,
					variant{kind: kind, interruptible: interruptible, pct: mix[0], base: mix[1], mode: render.ModeKarpenter},
					variant{kind: kind, interruptible: interruptible, pct: mix[0], base: mix[1], sharing: true, mode: render.ModeKarpenter},
					variant{kind: kind, interruptible: interruptible, pct: mix[0], base: mix[1], mode: render.ModeAutoMode})
			}
			variants = append(variants,
				variant{kind: kind, interruptible: interruptible, mig: true, mode: render.ModeKarpenter},
				variant{kind: kind, interruptible: interruptible, reservation: pool.ReservationCapacityReservation, mode: render.ModeKarpenter},
				variant{kind: kind, interruptible: interruptible, reservation: pool.ReservationCapacityBlock, mode: render.ModeKarpenter})
		}
	}
	judged := 0
	for i, v := range variants {
		s := pool.Spec{
			Cloud: catalog.AWS, ResourceType: render.ResourceType, Name: fmt.Sprintf("p%d", i), Region: "us-east-1", Client: "acme",
			Workload:      pool.Workload{Kind: v.kind, Environment: pool.EnvStaging, GPUMemoryGiB: 16, Interruptible: v.interruptible},
			InstanceTypes: []string{"g6.xlarge"}, Scaling: pool.Sizes{Min: 1, Max: 6, Desired: 1},
			AutoscalerOwnsSize: true, Karpenter: true, Capacity: pool.Capacity{SpotPercentage: v.pct, OnDemandBase: v.base},
		}
		if v.sharing {
			s.GPU.Sharing = &pool.Sharing{Strategy: pool.SharingTimeSlicing, Replicas: 4}
		}
		if v.mig {
			s.InstanceTypes, s.Workload.GPUMemoryGiB = []string{"p5.48xlarge"}, 30
			s.GPU.MIG = &pool.MIG{Profile: "3g.40gb"}
		}
		if v.reservation != "" {
			s.InstanceTypes = []string{"p5.48xlarge"}
			s.Capacity = pool.Capacity{Reservation: &pool.Reservation{Type: v.reservation, ID: "cr-0123456789abcdef0"}}
			if v.reservation == pool.ReservationCapacityBlock {
				s.Capacity.Reservation.HourlyUSD = 31.46
				s.Scaling = pool.Sizes{Min: 0, Max: 6}
			}
		}
		if problems := s.Validate(); len(problems) > 0 {
			t.Fatalf("variant %+v: %v", v, problems)
		}
		d, err := pool.Derive(s, pool.Environment{})
		if err != nil {
			t.Fatal(err)
		}
		set.Mode = v.mode
		rd := render.Render(s, d, set)
		var objects []string
		for _, o := range rd.Objects {
			y, err := yaml.Marshal(o.Manifest)
			if err != nil {
				t.Fatal(err)
			}
			objects = append(objects, string(y))
		}
		label := fmt.Sprintf("%+v", v)
		judged += judge(t, label, objects, func(doc map[string]any) {
			w, _ := doc["workload"].(map[string]any)
			g, _ := doc["gpu"].(map[string]any)
			if doc["client"] != "acme" || w["kind"] != v.kind || w["interruptible"] != v.interruptible || g["model"] != d.GPU.Name || doc["region"] != "us-east-1" && doc["region"] != nil {
				t.Errorf("%s: %s: client %v, workload %v, GPU %v, region %v", label, doc["address"], doc["client"], w, g["model"], doc["region"])
			}
			if taints := fmt.Sprint(doc["taints"]); !strings.Contains(taints, "nvidia.com/gpu") {
				t.Errorf("%s: %s: taints %s", label, doc["address"], taints)
			}
		})
	}

	for _, ladder := range [][]string{
		{ccrender.RungReservation, ccrender.RungOnDemand, ccrender.RungFlexStart, ccrender.RungSpot},
		{ccrender.RungOnDemand, ccrender.RungSpot},
		{ccrender.RungFlexStart},
	} {
		for _, kind := range []string{pool.KindTraining, pool.KindInference} {
			s := pool.Spec{
				Cloud: catalog.GCP, ResourceType: ccrender.ResourceType, Name: "acme-l4", Region: "us-central1", Client: "acme",
				Workload:    pool.Workload{Kind: kind, Environment: pool.EnvStaging, GPUMemoryGiB: 20},
				MachineType: "g2-standard-24", GPU: pool.GPU{DriverVersion: "LATEST"},
				Scaling: pool.Sizes{Min: 0, Max: 4}, AutoscalerOwnsSize: true,
			}
			c := ccrender.Class{Name: "acme-l4", Ladder: ladder, NodePoolAutoCreation: true, Zones: []string{"us-central1-a"}}
			if c.Has(ccrender.RungReservation) {
				s.Capacity.Reservation = &pool.Reservation{Type: pool.ReservationSpecific, Name: "l4-reservation"}
				c.ReservationZones = []string{"us-central1-b"}
			}
			s.Zones = append(append([]string(nil), c.Zones...), c.ReservationZones...)
			if problems := append(ccrender.ValidatePool(s), ccrender.Validate(s, c)...); len(problems) > 0 {
				t.Fatalf("%v: %v", ladder, problems)
			}
			s.Capacity = ccrender.Capacity(c, s.Capacity.Reservation)
			d, err := ccrender.Derive(s, pool.Environment{}, c)
			if err != nil {
				t.Fatal(err)
			}
			r, err := ccrender.Render(s, d, c, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			label := fmt.Sprintf("ComputeClass %v %s", ladder, kind)
			judged += judge(t, label, []string{r.YAML}, func(doc map[string]any) {
				w, _ := doc["workload"].(map[string]any)
				g, _ := doc["gpu"].(map[string]any)
				if doc["client"] != "acme" || w["kind"] != kind || g["model"] != "L4" || doc["region"] != "us-central1" {
					t.Errorf("%s: client %v, workload %v, GPU %v, region %v", label, doc["client"], w, g["model"], doc["region"])
				}
				if pct := doc["capacity"].(map[string]any)["spot_percentage"]; pct != map[bool]float64{true: 100, false: 0}[c.Has(ccrender.RungSpot)] {
					t.Errorf("%s: spot_percentage %v", label, pct)
				}
			})
		}
	}
	if judged < 100 {
		t.Fatalf("only %d documents of rendered objects", judged)
	}
	_ = bytes.MinRead
}
