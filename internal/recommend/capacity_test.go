package recommend

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// ladderText is a ladder as the guide writes it: "reservation 1 ($106.00/h)".
func ladderText(rungs []Rung) string {
	var out []string
	for _, r := range rungs {
		out = append(out, fmt.Sprintf("%s %d (%s/h)", r.CapacityType, r.Nodes, usd(r.HourlyUSD)))
	}
	return strings.Join(out, ", ")
}

// Issue #40, item 7: a machine type Compute Engine sells only reserved is answered once the team
// says it holds a reservation of it, in the reservation's zone with a specific affinity, and the
// no-fit message without one says to add the capacity input. Worked example of the guide.
func TestRecommend_reservationAnswersA4(t *testing.T) {
	e := env(t, catalog.Pricing{})
	gcp := []catalog.Cloud{catalog.GCP}
	fp4 := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 405, Precision: "fp4"}
	_, err := Recommend(context.Background(), Request{Workload: fp4, Clouds: gcp, Regions: []string{"us-central1"}}, e)
	const fix = "Compute Engine sells a4-highgpu-8g only as Spot, flex-start or a reservation, and the pool would run 1 of its 1 nodes on demand without a reservation: add a capacity input (capacity.reservation) for a reservation of it that holds the on-demand nodes in one zone, or capacity.flex_start for flex-start VMs in a ComputeClass"
	if err == nil || !strings.Contains(err.Error(), fix) {
		t.Fatalf("without the reservation: %v", err)
	}
	guideHas(t, "`"+fix+"`.")
	held := Reservation{ID: "b200-serving", Zone: "us-central1-b", NodeType: "a4-highgpu-8g", Nodes: 2}
	a, err := Recommend(context.Background(), Request{Workload: fp4, Clouds: gcp, Regions: []string{"us-central1"}, Reservations: []Reservation{held}}, e)
	if err != nil {
		t.Fatal(err)
	}
	b := a.Results[catalog.GCP].Best
	if b.Node.Name != "a4-highgpu-8g" || b.Reservation == nil || b.Reservation.ID != "b200-serving" || !reflect.DeepEqual(b.NodeLocations, []string{"us-central1-b"}) {
		t.Fatalf("answer %s, locations %v", b.Label(), b.NodeLocations)
	}
	r := b.Spec.Capacity.Reservation
	if r == nil || r.Type != pool.ReservationSpecific || r.Name != "b200-serving" || len(b.Spec.Validate()) > 0 {
		t.Errorf("pool reservation %+v, problems %v", r, b.Spec.Validate())
	}
	got := ladderText(b.Ladder)
	if got != "reservation 1 ($106.00/h)" || b.OutOfPocketHourlyUSD != 0 || b.HourlyUSD != 106 {
		t.Errorf("ladder %s, out of pocket %g, hourly %g", got, b.OutOfPocketHourlyUSD, b.HourlyUSD)
	}
	if l := b.Spec.Capacity.Reservation; l != nil {
		guideHas(t, fmt.Sprintf("%s/h in all, %s out of pocket", usd(b.HourlyUSD), usd(b.OutOfPocketHourlyUSD)))
	}
	guideHas(t, "`a4-highgpu-8g (8 x B200) on reservation b200-serving in us-central1`, `node_locations = [\"us-central1-b\"]`, ladder `"+got+"`")
	// Two replicas need two nodes on demand: a reservation of one does not hold them, and the
	// message says so.
	small := held
	small.Nodes = 1
	_, err = Recommend(context.Background(), Request{Workload: fp4, Replicas: 2, Clouds: gcp, Regions: []string{"us-central1"}, Reservations: []Reservation{small}}, e)
	if err == nil || !strings.Contains(err.Error(), "(reservation b200-serving holds 1 node(s), fewer than the 2 the pool runs on demand)") {
		t.Errorf("reservation too small: %v", err)
	}
	guideHas(t, "`(reservation b200-serving holds 1 node(s), fewer than the 2 the pool runs on demand)`")
	// A reservation outside the regions asked could never be used.
	_, err = Recommend(context.Background(), Request{Workload: fp4, Clouds: gcp, Regions: []string{"us-east4"}, Reservations: []Reservation{held}}, e)
	if err == nil || !strings.HasPrefix(err.Error(), "capacity.reservation[0].zone: us-central1-b is in us-central1, which regions us-east4") {
		t.Errorf("reservation outside the regions: %v", err)
	}
	// A reservation in a zone without the GPU is refused at plan, naming the argument.
	held.Zone = "us-central1-a"
	_, err = Recommend(context.Background(), Request{Workload: fp4, Clouds: gcp, Regions: []string{"us-central1"}, Reservations: []Reservation{held}}, e)
	if err == nil || !strings.HasPrefix(err.Error(), "capacity.reservation[0].zone: us-central1-a has no a4-highgpu-8g") {
		t.Errorf("zone without B200: %v", err)
	}
}

// Issue #40, item 7: a held EC2 capacity reservation is used before cheaper capacity the team would
// buy when it holds the answer's whole on-demand side (an EKS node group that targets it launches
// nothing beyond it); the ladder is then reserved, then spot.
func TestRecommend_reservationUsedFirst(t *testing.T) {
	e := env(t, catalog.Pricing{})
	aws := []catalog.Cloud{catalog.AWS}
	serve := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, Interruptible: true, GPUMemoryGiB: 20}
	req := Request{Workload: serve, Replicas: 8, Clouds: aws, Regions: []string{"us-east-1"}}
	a, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	plain := a.Results[catalog.AWS].Best
	if plain.Node.Name == "g6e.xlarge" || plain.Reservation != nil {
		t.Fatalf("without a reservation: %s", plain.Label())
	}
	// Three reserved nodes do not hold the five on demand: not used.
	odcr := Reservation{ID: "cr-0123456789abcdef0", Zone: "us-east-1a", NodeType: "g6e.xlarge", Nodes: 3}
	req.Reservations = []Reservation{odcr}
	if a, err = Recommend(context.Background(), req, e); err != nil || a.Results[catalog.AWS].Best.Reservation != nil {
		t.Fatalf("with 3 reserved g6e.xlarge: %v %v", a.Results[catalog.AWS].Best.Label(), err)
	}
	odcr.Nodes = 5
	req.Reservations = []Reservation{odcr}
	if a, err = Recommend(context.Background(), req, e); err != nil {
		t.Fatal(err)
	}
	b := a.Results[catalog.AWS].Best
	if b.Node.Name != "g6e.xlarge" || b.Reservation == nil {
		t.Fatalf("with 5 reserved g6e.xlarge: %s", b.Label())
	}
	got := ladderText(b.Ladder)
	if !strings.HasPrefix(got, "reserved 5 (") || !strings.Contains(got, ", spot 3 (") || len(b.Ladder) != 2 {
		t.Errorf("ladder %s", got)
	}
	if b.OutOfPocketHourlyUSD >= plain.HourlyUSD {
		t.Errorf("out of pocket %g, not less than the plain answer's %g", b.OutOfPocketHourlyUSD, plain.HourlyUSD)
	}
	if r := b.Spec.Capacity.Reservation; r == nil || r.ID != "cr-0123456789abcdef0" || r.Type != pool.ReservationCapacityReservation {
		t.Errorf("pool reservation %+v", r)
	}
	guideHas(t, "ladder `"+got+"`")
	guideHas(t, fmt.Sprintf("%s/h beyond the reservation (%s/h in all), where the cheapest answer without it, %s, costs %s/h",
		usd(b.OutOfPocketHourlyUSD), usd(b.HourlyUSD), plain.Label(), usd(plain.HourlyUSD)))
}

// Issue #40, item 7: an EC2 capacity block is used when it holds every node of the answer, all on
// the block (no spot: a block has no fallback), priced at the block's price.
func TestRecommend_capacityBlock(t *testing.T) {
	e := env(t, catalog.Pricing{})
	train := Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, Interruptible: true, GPUMemoryGiB: 70, GPUsPerReplica: 8}
	block := Reservation{ID: "cr-0fedcba9876543210", Type: pool.ReservationCapacityBlock, Zone: "us-east-1a", NodeType: "p5.48xlarge", Nodes: 2, HourlyUSD: 31.464}
	req := Request{Workload: train, Replicas: 2, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Reservations: []Reservation{block}}
	a, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	b := a.Results[catalog.AWS].Best
	if b.Node.Name != "p5.48xlarge" || b.Reservation == nil || b.SpotPercentage != 0 || b.OnDemandBase != 0 {
		t.Fatalf("with a block of 2 p5.48xlarge: %s, spot %d base %d", b.Label(), b.SpotPercentage, b.OnDemandBase)
	}
	if got := ladderText(b.Ladder); got != "capacity-block 2 ($62.93/h)" || b.OutOfPocketHourlyUSD != 0 {
		t.Errorf("ladder %s, out of pocket %g", got, b.OutOfPocketHourlyUSD)
	}
	guideHas(t, "capacity block of 2 `p5.48xlarge` at $31.464 per instance-hour: both nodes on the block, ladder\n  `capacity-block 2 ($62.93/h)`")
	// Three replicas need three nodes: the block of two cannot hold them (no fallback), so it is not used.
	req.Replicas = 3
	if a, err = Recommend(context.Background(), req, e); err != nil || a.Results[catalog.AWS].Best.Reservation != nil {
		t.Errorf("3 nodes on a block of 2: %v %v", a.Results[catalog.AWS].Best.Label(), err)
	}
}

// Issue #40, item 7: bad capacity inputs fail before any fit, naming the argument.
func TestRecommend_badReservation(t *testing.T) {
	e := env(t, catalog.Pricing{})
	w := Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 20}
	good := Reservation{ID: "cr-0123456789abcdef0", Zone: "us-east-1a", NodeType: "g6.xlarge", Nodes: 1}
	for _, tc := range []struct {
		name   string
		clouds []catalog.Cloud
		edit   func(*Reservation)
		want   string
	}{
		{"unknown node type", nil, func(r *Reservation) { r.NodeType = "g6.xlarg" }, "capacity.reservation[0].node_type: unknown node type \"g6.xlarg\""},
		{"nodes", nil, func(r *Reservation) { r.Nodes = 0 }, "capacity.reservation[0].nodes: must be 1 or more (the instances or VMs reserved, not GPUs), got 0"},
		{"ec2 id", nil, func(r *Reservation) { r.ID = "my-odcr" }, "capacity.reservation[0].id: \"my-odcr\" is not an EC2 capacity reservation id"},
		{"zone", nil, func(r *Reservation) { r.Zone = "us-east-1" }, "capacity.reservation[0].zone: \"us-east-1\" is not an Availability Zone name"},
		{"block price", nil, func(r *Reservation) { r.Type = pool.ReservationCapacityBlock }, "capacity.reservation[0].hourly_price_usd: a capacity block is prepaid"},
		{"type", nil, func(r *Reservation) { r.Type = "specific" }, "capacity.reservation[0].type: an EC2 reservation is"},
		{"cloud not asked", []catalog.Cloud{catalog.GCP}, func(*Reservation) {}, "capacity.reservation[0].node_type: g6.xlarge is a aws node type, and clouds is gcp"},
		{"gcp zone not in region list", []catalog.Cloud{catalog.GCP}, func(r *Reservation) {
			*r = Reservation{ID: "l4s", Zone: "us-central1-f", NodeType: "g2-standard-8", Nodes: 1}
		},
			"capacity.reservation[0].zone: us-central1-f has no g2-standard-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := good
			tc.edit(&r)
			clouds := tc.clouds
			if clouds == nil {
				clouds = []catalog.Cloud{catalog.AWS}
			}
			_, err := Recommend(context.Background(), Request{Workload: w, Clouds: clouds, Regions: []string{"us-*"}, Reservations: []Reservation{r}}, e)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want %s…", err, tc.want)
			}
		})
	}
}

// Issue #40, item 7: with flex_start, a machine type Compute Engine sells as flex-start but not on
// demand is answered with its on-demand side on flex-start VMs (a ComputeClass's flex_start rung),
// priced at the on-demand list price (an upper bound: the catalog has no flex-start price); a held
// reservation still comes first.
func TestRecommend_flexStartAnswersA4(t *testing.T) {
	e := env(t, catalog.Pricing{})
	gcp := []catalog.Cloud{catalog.GCP}
	fp4 := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 405, Precision: "fp4"}
	req := Request{Workload: fp4, Clouds: gcp, Regions: []string{"us-central1"}, FlexStart: true}
	a, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	b := a.Results[catalog.GCP].Best
	got := ladderText(b.Ladder)
	if b.Node.Name != "a4-highgpu-8g" || !b.FlexStart || b.Reservation != nil || got != "flex_start 1 ($106.00/h)" {
		t.Fatalf("answer %s, flex-start %v, ladder %s", b.Label(), b.FlexStart, got)
	}
	guideHas(t, "`"+b.Label()+"`, ladder `"+got+"`")
	// What a team without right-sizing buys on demand: A4 is not sold so.
	if n := a.Results[catalog.GCP].Naive; n != nil && n.Node.Name == "a4-highgpu-8g" {
		t.Errorf("naive %s, not sold on demand", n.Label())
	}
	req.Reservations = []Reservation{{ID: "b200-serving", Zone: "us-central1-b", NodeType: "a4-highgpu-8g", Nodes: 2}}
	if a, err = Recommend(context.Background(), req, e); err != nil || a.Results[catalog.GCP].Best.Reservation == nil || a.Results[catalog.GCP].Best.FlexStart {
		t.Errorf("flex-start and a reservation: %+v %v", a.Results[catalog.GCP].Best, err)
	}
	// A machine type sold on demand is not moved to flex-start.
	small := Request{Workload: Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, GPUMemoryGiB: 20}, Clouds: gcp, Regions: []string{"us-central1"}, FlexStart: true}
	if a, err = Recommend(context.Background(), small, e); err != nil || a.Results[catalog.GCP].Best.FlexStart {
		t.Errorf("20 GiB with flex_start: %v %v", a.Results[catalog.GCP].Best.Label(), err)
	}
	_, err = Recommend(context.Background(), Request{Workload: fp4, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, FlexStart: true}, e)
	if err == nil || !strings.HasPrefix(err.Error(), "capacity.flex_start: flex-start VMs are GKE's") {
		t.Errorf("flex_start on AWS: %v", err)
	}
}

// Issue #40, item 7: with overflow_to_on_demand, a reservation smaller than the on-demand side is
// used too, the rest overflowing to on demand (reserved N, on-demand M, spot K), ranked by what the
// answer costs beyond the reservation; the answer then applies to the autoscaler resources only.
// Without it the same reservation is not used and the answer applies to the node pools as well.
// Worked example of the guide.
func TestRecommend_reservationOverflow(t *testing.T) {
	e := env(t, catalog.Pricing{})
	serve := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, Interruptible: true, GPUMemoryGiB: 20}
	odcr := Reservation{ID: "cr-0123456789abcdef0", Zone: "us-east-1a", NodeType: "g6e.xlarge", Nodes: 3}
	req := Request{Workload: serve, Replicas: 8, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Reservations: []Reservation{odcr}}
	a, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	plain := a.Results[catalog.AWS].Best
	if plain.Reservation != nil || plain.Overflow || !reflect.DeepEqual(plain.AppliesTo(), []string{"gpufleet_eks_node_pool", "gpufleet_karpenter_node_pool"}) {
		t.Fatalf("without overflow: %s, applies to %v", plain.Label(), plain.AppliesTo())
	}
	req.Overflow = true
	if a, err = Recommend(context.Background(), req, e); err != nil {
		t.Fatal(err)
	}
	b := a.Results[catalog.AWS].Best
	got := ladderText(b.Ladder)
	if b.Node.Name != "g6e.xlarge" || b.Reservation == nil || !b.Overflow || got != "reserved 3 ($5.58/h), on-demand 2 ($3.72/h), spot 3 ($2.24/h)" {
		t.Fatalf("with overflow: %s, overflow %v, ladder %s", b.Label(), b.Overflow, got)
	}
	if !reflect.DeepEqual(b.AppliesTo(), []string{"gpufleet_karpenter_node_pool"}) || b.OutOfPocketHourlyUSD >= plain.OutOfPocketHourlyUSD {
		t.Errorf("applies to %v, out of pocket %g against %g", b.AppliesTo(), b.OutOfPocketHourlyUSD, plain.OutOfPocketHourlyUSD)
	}
	// The pool's reservation is the ODCR, for the Karpenter pool's reserved NodePool, and its spot
	// mix is the workload's: five on demand (three of them reserved), three on spot.
	if r := b.Spec.Capacity.Reservation; r == nil || r.ID != odcr.ID || b.SpotPercentage != 50 || b.OnDemandBase != 2 || b.Nodes != 8 {
		t.Errorf("pool reservation %+v, spot %d, base %d, nodes %d", r, b.SpotPercentage, b.OnDemandBase, b.Nodes)
	}
	guideHas(t, fmt.Sprintf("ladder `%s`, %s/h beyond the reservation (%s/h in all) against %s/h for %s",
		got, usd(b.OutOfPocketHourlyUSD), usd(b.HourlyUSD), usd(plain.HourlyUSD), plain.Label()))

	// GKE: a reservation of 2 g2-standard-8 in us-central1-a, the rest of the on-demand side
	// overflowing to on_demand in the same zone.
	gcp := Request{Workload: serve, Replicas: 8, Clouds: []catalog.Cloud{catalog.GCP}, Regions: []string{"us-central1"}, Overflow: true,
		Reservations: []Reservation{{ID: "l4-serving", Zone: "us-central1-a", NodeType: "g2-standard-8", Nodes: 2}}}
	if a, err = Recommend(context.Background(), gcp, e); err != nil {
		t.Fatal(err)
	}
	g := a.Results[catalog.GCP].Best
	got = ladderText(g.Ladder)
	if got != "reservation 2 ($1.71/h), on_demand 3 ($2.56/h), spot 3 ($1.01/h)" || !reflect.DeepEqual(g.NodeLocations, []string{"us-central1-a"}) ||
		!reflect.DeepEqual(g.AppliesTo(), []string{"gpufleet_gke_compute_class"}) {
		t.Fatalf("gcp with overflow: %s, ladder %s, locations %v, applies to %v", g.Label(), got, g.NodeLocations, g.AppliesTo())
	}
	guideHas(t, "`"+g.Label()+"`, ladder `"+got+"`")

	// A4 is not sold on demand: a reservation of one A4 overflows only to flex-start VMs.
	fp4 := Workload{Kind: pool.KindInference, Environment: pool.EnvProduction, ParametersBillion: 405, Precision: "fp4"}
	a4 := Request{Workload: fp4, Replicas: 3, Clouds: []catalog.Cloud{catalog.GCP}, Regions: []string{"us-central1"}, Overflow: true, GKEZones: 1,
		Reservations: []Reservation{{ID: "b200-serving", Zone: "us-central1-b", NodeType: "a4-highgpu-8g", Nodes: 1}}}
	_, err = Recommend(context.Background(), a4, e)
	const notSold = "(reservation b200-serving holds 1 node(s), fewer than the 2 the pool runs on demand, and a4-highgpu-8g is not sold on demand to overflow to (capacity.flex_start overflows to flex-start VMs))"
	if err == nil || !strings.Contains(err.Error(), notSold) {
		t.Fatalf("A4 overflow without flex-start: %v", err)
	}
	guideHas(t, "`"+notSold+"`")
	a4.FlexStart = true
	if a, err = Recommend(context.Background(), a4, e); err != nil {
		t.Fatal(err)
	}
	if got = ladderText(a.Results[catalog.GCP].Best.Ladder); got != "reservation 1 ($106.00/h), flex_start 1 ($106.00/h)" {
		t.Errorf("A4 overflow to flex-start: ladder %s", got)
	}
	guideHas(t, "ladder `"+got+"`")

	// A capacity block has no fallback, and overflow needs a reservation that is not one.
	block := Reservation{ID: "cr-0fedcba9876543210", Type: pool.ReservationCapacityBlock, Zone: "us-east-1a", NodeType: "p5.48xlarge", Nodes: 2, HourlyUSD: 31.464}
	_, err = Recommend(context.Background(), Request{Workload: serve, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Overflow: true, Reservations: []Reservation{block}}, e)
	if err == nil || !strings.HasPrefix(err.Error(), "capacity.overflow_to_on_demand: ") {
		t.Errorf("overflow with a capacity block only: %v", err)
	}
	train := Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, Interruptible: true, GPUMemoryGiB: 70, GPUsPerReplica: 8}
	if a, err = Recommend(context.Background(), Request{Workload: train, Replicas: 3, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Overflow: true,
		Reservations: []Reservation{block, odcr}}, e); err != nil || a.Results[catalog.AWS].Best.Reservation != nil {
		t.Errorf("3 nodes on a block of 2 with overflow: %v %v", a.Results[catalog.AWS].Best.Label(), err)
	}
}

// Issue #40, item 7: a reservation given as GPUs of a model (gpu, gpus) is resolved to the one
// shape the zone's cloud sells the model as that holds the GPUs in whole nodes, and used as that
// reservation of nodes; when several shapes could be it, or none holds the GPUs whole, the plan
// fails at the attribute, naming the candidates. Worked examples of the guide.
func TestRecommend_reservationInGPUs(t *testing.T) {
	e := env(t, catalog.Pricing{})
	train := Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, Interruptible: true, GPUMemoryGiB: 70, GPUsPerReplica: 8}
	// 16 B200 on a capacity block in us-east-1a: p6-b200.48xlarge, the one B200 shape of EC2, 2 nodes.
	block := Reservation{ID: "cr-0fedcba9876543210", Type: pool.ReservationCapacityBlock, Zone: "us-east-1a", GPU: "B200", GPUs: 16, HourlyUSD: 113.93}
	a, err := Recommend(context.Background(), Request{Workload: train, Replicas: 2, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Reservations: []Reservation{block}}, e)
	if err != nil {
		t.Fatal(err)
	}
	b := a.Results[catalog.AWS].Best
	got := ladderText(b.Ladder)
	if b.Node.Name != "p6-b200.48xlarge" || b.Reservation == nil || b.Reservation.Nodes != 2 || got != "capacity-block 2 ($227.86/h)" {
		t.Fatalf("16 B200 on a block: %s, ladder %s", b.Label(), got)
	}
	guideHas(t, "`"+b.Label()+"`, ladder `"+got+"`")
	// 16 H200 in us-central1-b: a3-ultragpu-8g, 2 VMs.
	gcp := Request{Workload: train, Replicas: 2, Clouds: []catalog.Cloud{catalog.GCP}, Regions: []string{"us-central1"},
		Reservations: []Reservation{{ID: "h200-training", Zone: "us-central1-b", GPU: "H200-141GB", GPUs: 16}}}
	if a, err = Recommend(context.Background(), gcp, e); err != nil {
		t.Fatal(err)
	}
	if g := a.Results[catalog.GCP].Best; g.Node.Name != "a3-ultragpu-8g" || g.Reservation == nil || g.Reservation.Nodes != 2 {
		t.Fatalf("16 H200 on GKE: %s", g.Label())
	}
	for _, tc := range []struct {
		name string
		r    Reservation
		want string
	}{
		{"several shapes", Reservation{ID: "h100s", Zone: "us-central1-a", GPU: "H100-80GB", GPUs: 16},
			"capacity.reservation[0].gpu: 16 GPUs of H100-80GB in us-central1-a may be a reservation of a3-highgpu-1g (1 GPU each: nodes = 16), a3-highgpu-2g (2 GPUs each: nodes = 8), a3-highgpu-4g (4 GPUs each: nodes = 4), a3-highgpu-8g (8 GPUs each: nodes = 2), a3-megagpu-8g (8 GPUs each: nodes = 2): a reservation is of one instance or machine type, which the pool must run to consume it, so give node_type and nodes (and for N1 gpu and gpus_per_node) instead of gpus"},
		{"not whole nodes", Reservation{ID: "h200s", Zone: "us-central1-b", GPU: "H200-141GB", GPUs: 12},
			"capacity.reservation[0].gpus: 12 GPUs of H200-141GB are not a whole number of nodes of any shape gcp sells it as in us-central1-b: a3-ultragpu-8g (8 GPUs each)"},
		{"both forms", Reservation{ID: "h200s", Zone: "us-central1-b", GPU: "H200-141GB", GPUs: 16, Nodes: 2}, "capacity.reservation[0].gpus: a reservation is given in one form"},
		{"node type with gpus", Reservation{ID: "h200s", Zone: "us-central1-b", GPU: "H200-141GB", GPUs: 16, NodeType: "a3-ultragpu-8g"}, "capacity.reservation[0].node_type: a reservation is given in one form"},
		{"gpus without gpu", Reservation{ID: "h200s", Zone: "us-central1-b", GPUs: 16}, "capacity.reservation[0].gpu: required with gpus"},
		{"unknown gpu", Reservation{ID: "h200s", Zone: "us-central1-b", GPU: "H200", GPUs: 16}, "capacity.reservation[0].gpu: unknown GPU model \"H200\""},
		{"not sold in the zone", Reservation{ID: "b200s", Zone: "us-central1-a", GPU: "B200", GPUs: 8}, "capacity.reservation[0].gpu: gcp sells no node type with B200 in us-central1-a"},
		{"gpu on a type with its own", Reservation{ID: "h200s", Zone: "us-central1-b", NodeType: "a3-ultragpu-8g", Nodes: 2, GPU: "H200-141GB"}, "capacity.reservation[0].gpu: a3-ultragpu-8g brings its own GPUs (8 x H200-141GB)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Recommend(context.Background(), Request{Workload: train, Clouds: []catalog.Cloud{catalog.GCP}, Regions: []string{"us-central1"}, Reservations: []Reservation{tc.r}}, e)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want %s…", err, tc.want)
			}
		})
	}
	guideHas(t, "`16 GPUs of H100-80GB in us-central1-a may be a reservation of a3-highgpu-1g (1 GPU each: nodes = 16), a3-highgpu-2g")
}

// Issue #40, item 7: a Compute Engine reservation of N1 VMs names their attached GPUs
// (guestAccelerators: type and count): node_type n1-*, gpu and gpus_per_node, checked against the
// catalog's N1 table (which GPU models attach, in which counts per machine type). Worked example of
// the guide.
func TestRecommend_reservationN1(t *testing.T) {
	e := env(t, catalog.Pricing{})
	serve := Workload{Kind: pool.KindInference, Environment: pool.EnvStaging, GPUMemoryGiB: 12}
	t4 := Reservation{ID: "t4-serving", Zone: "us-central1-b", NodeType: "n1-standard-8", Nodes: 2, GPU: "T4", GPUsPerNode: 1}
	req := Request{Workload: serve, Replicas: 2, Clouds: []catalog.Cloud{catalog.GCP}, Regions: []string{"us-central1"}, Reservations: []Reservation{t4}}
	a, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	b := a.Results[catalog.GCP].Best
	got := ladderText(b.Ladder)
	if b.Node.Name != "n1-standard-8" || b.Spec.GPU.Type != "nvidia-tesla-t4" || b.Spec.GPU.Count != 1 || b.Reservation == nil || got != "reservation 2 ($1.46/h)" ||
		!reflect.DeepEqual(b.NodeLocations, []string{"us-central1-b"}) || len(b.Spec.Validate()) > 0 {
		t.Fatalf("on the N1 reservation: %s, gpu %s x %d, ladder %s, locations %v, problems %v", b.Label(), b.Spec.GPU.Type, b.Spec.GPU.Count, got, b.NodeLocations, b.Spec.Validate())
	}
	guideHas(t, "`"+b.Label()+"`, `gpu.type = \"nvidia-tesla-t4\"`, `gpu.count = 1`, ladder `"+got+"`")
	// A reservation of n1-standard-8 with two T4s is another shape: not used for one-T4 nodes.
	two := t4
	two.GPUsPerNode = 2
	req.Reservations = []Reservation{two}
	if a, err = Recommend(context.Background(), req, e); err != nil || a.Results[catalog.GCP].Best.Reservation != nil && a.Results[catalog.GCP].Best.Node.GPUCount != 2 {
		t.Errorf("two T4s per VM: %v %v", a.Results[catalog.GCP].Best.Label(), err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Reservation)
		want string
	}{
		{"no gpu", func(r *Reservation) { r.GPU, r.GPUsPerNode = "", 0 }, "capacity.reservation[0].gpu: n1-standard-8 is an N1 machine type, and a Compute Engine reservation of N1 VMs names the GPUs attached to each (guestAccelerators: type and count): set gpu ("},
		{"no count", func(r *Reservation) { r.GPUsPerNode = 0 }, "capacity.reservation[0].gpus_per_node: n1-standard-8 is an N1 machine type"},
		{"count", func(r *Reservation) { r.GPUsPerNode = 3 }, "capacity.reservation[0].gpus_per_node: n1-standard-8 takes T4 in counts 1, 2, 4 per VM, not 3"},
		{"model", func(r *Reservation) { r.GPU = "L4" }, "capacity.reservation[0].gpu: \"L4\" does not attach to n1-standard-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := t4
			tc.edit(&r)
			_, err := Recommend(context.Background(), Request{Workload: serve, Clouds: []catalog.Cloud{catalog.GCP}, Regions: []string{"us-central1"}, Reservations: []Reservation{r}}, e)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want %s…", err, tc.want)
			}
		})
	}
	guideHas(t, "`n1-standard-8 takes T4 in counts 1, 2, 4 per VM, not 3")
}

// Issue #40, item 7: a capacity block's dates (start, end), checked at plan and judged against the
// request's clock (Request.Now, set here so that no test depends on the day it runs): a block that
// has not started is used, its rung carrying its dates, with a warning at its start; one that has
// ended is not used, with a warning at its end. Worked example of the guide.
func TestRecommend_capacityBlockDates(t *testing.T) {
	e := env(t, catalog.Pricing{})
	train := Workload{Kind: pool.KindTraining, Environment: pool.EnvProduction, Interruptible: true, GPUMemoryGiB: 70, GPUsPerReplica: 8}
	block := Reservation{ID: "cr-0fedcba9876543210", Type: pool.ReservationCapacityBlock, Zone: "us-east-1a", NodeType: "p5.48xlarge", Nodes: 2, HourlyUSD: 31.464,
		Start: "2026-12-01T11:30:00Z", End: "2026-12-15T11:30:00Z"}
	req := Request{Workload: train, Replicas: 2, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Reservations: []Reservation{block}}
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Three days before the block: used, and said.
	req.Now = at("2026-11-28T16:00:00Z")
	a, err := Recommend(context.Background(), req, e)
	if err != nil {
		t.Fatal(err)
	}
	b := a.Results[catalog.AWS].Best
	if b.Reservation == nil || len(b.Ladder) != 1 || !b.Ladder[0].Start.Equal(at(block.Start)) || !b.Ladder[0].End.Equal(at(block.End)) {
		t.Fatalf("before the block: %s, ladder %+v", b.Label(), b.Ladder)
	}
	if len(a.Warnings) != 1 || a.Warnings[0].Argument != "capacity.reservation[0].start" {
		t.Fatalf("warnings %+v", a.Warnings)
	}
	guideHas(t, "`"+a.Warnings[0].Detail+"`")
	// While it runs: used, nothing to say.
	req.Now = at("2026-12-02T00:00:00Z")
	if a, err = Recommend(context.Background(), req, e); err != nil || a.Results[catalog.AWS].Best.Reservation == nil || len(a.Warnings) != 0 {
		t.Fatalf("during the block: %v, warnings %+v", err, a.Warnings)
	}
	// At its end and after: not used, and said.
	req.Now = at(block.End)
	if a, err = Recommend(context.Background(), req, e); err != nil || a.Results[catalog.AWS].Best.Reservation != nil || len(a.Warnings) != 1 || a.Warnings[0].Argument != "capacity.reservation[0].end" {
		t.Fatalf("after the block: %v, %v, warnings %+v", a.Results[catalog.AWS].Best.Label(), err, a.Warnings)
	}
	guideHas(t, "`"+a.Warnings[0].Detail+"`")

	for _, tc := range []struct {
		name string
		edit func(*Reservation)
		want string
	}{
		{"start only", func(r *Reservation) { r.End = "" }, "capacity.reservation[0].end: a capacity block's dates go together"},
		{"not RFC 3339", func(r *Reservation) { r.Start = "2026-12-01 11:30" }, "capacity.reservation[0].start: \"2026-12-01 11:30\" is not an RFC 3339 date"},
		{"end before start", func(r *Reservation) { r.End = "2026-11-30T11:30:00Z" }, "capacity.reservation[0].end: 2026-11-30T11:30:00Z is not after start 2026-12-01T11:30:00Z"},
		{"end not at 11:30 UTC", func(r *Reservation) { r.End = "2026-12-15T11:30:00+01:00" }, "capacity.reservation[0].end: 2026-12-15T11:30:00+01:00 is 10:30:00 UTC, and every EC2 capacity block ends at 11:30 UTC"},
		{"longer than 182 days", func(r *Reservation) { r.End = "2027-06-08T11:30:00Z" }, "capacity.reservation[0].end: the block would last 189.0 days: a capacity block lasts at most 182 days"},
		{"dates on an ODCR", func(r *Reservation) { r.Type, r.HourlyUSD = pool.ReservationCapacityReservation, 0 }, "capacity.reservation[0].start: only a capacity block has dates"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := block
			tc.edit(&r)
			_, err := Recommend(context.Background(), Request{Workload: train, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Reservations: []Reservation{r}, Now: at("2026-11-28T16:00:00Z")}, e)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want %s…", err, tc.want)
			}
		})
	}
	// 182 days and the hours by which an offering may exceed it are a block.
	long := block
	long.Start, long.End = "2026-12-01T04:55:00Z", "2027-06-01T11:30:00Z"
	if _, err := Recommend(context.Background(), Request{Workload: train, Replicas: 2, Clouds: []catalog.Cloud{catalog.AWS}, Regions: []string{"us-east-1"}, Reservations: []Reservation{long}, Now: at("2026-11-28T16:00:00Z")}, e); err != nil {
		t.Errorf("182 days and 6.5 hours: %v", err)
	}
}
