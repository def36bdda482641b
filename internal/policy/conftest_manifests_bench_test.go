package policy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/bench"
)

// BenchmarkConftestManifests measures conftest with the release's bundle (what gpufleet-policy
// bundle writes: the rules without their unit tests) against conftest with a one-deny-one-warn
// policy (testdata/one_deny_one_warn) on the same GitOps directory of manifests: 2 000 objects in
// multi-document YAML files, of which 100 (5 %) are GPU NodePools (Karpenter and EKS Auto Mode) or
// GKE ComputeClasses, beside their node classes and NodeOverlays, CPU NodePools and the apps'
// Deployments, Services, ConfigMaps, ServiceAccounts and HorizontalPodAutoscalers (one GPU object
// in ten violating). Both with the same policy data (clients and the cluster registry), two ways:
//
//	combine:released/floor, rss-…, cpu-…   conftest test --combine on the directory, as the guide
//	                                        Policy in CI has teams run it (the target: 1.3)
//	separate:released/floor, rss-…, cpu-…  conftest test on the directory, each file's documents
//	                                        judged apart (a NodePool without its node class)
//	documents:released/floor, rss-…, cpu-… gpufleet-policy bundle, gpufleet-policy documents --data
//	                                        on the directory and conftest test on its pools.json (the
//	                                        findings of combine; times added up, the largest peak),
//	                                        against combine's floor
//	combine-10k:…                           combine on a directory of 10 000 objects laid out alike
//	                                        (500 GPU NodePools and ComputeClasses)
//	combine-1:…                             combine on a directory of one Deployment: what loading
//	                                        each policy costs, whatever the directory holds
//
// The bundle's extra cost is mostly fixed (conftest parses and compiles the bundle on every run), so
// its ratio to the floor falls as the directory grows: combine-1 and combine-10k show both ends.

// Run with -benchtime=1x (make bench does). Every command runs GPUFLEET_BENCH_RUNS times (default
// 5), bundle and floor alternating, and the medians are reported.
func BenchmarkConftestManifests(b *testing.B) {
	bin, dir, runs := conftestBenchSetup(b)
	repo := filepath.Join(dir, "repo")
	objects, gpu, err := writeManifestRepo(repo, 2000)
	if err != nil {
		b.Fatal(err)
	}
	if objects != 2000 || gpu != 100 {
		b.Fatalf("the repository has %d objects, %d of them GPU NodePools or ComputeClasses", objects, gpu)
	}
	// The same layout at five times the size, and a directory of one object.
	repo10k := filepath.Join(dir, "repo-10k")
	if objects, gpu, err := writeManifestRepo(repo10k, 10000); err != nil || objects != 10000 || gpu != 500 {
		b.Fatalf("the 10 000-object repository: %d objects, %d GPU NodePools or ComputeClasses, %v", objects, gpu, err)
	}
	repoOne := filepath.Join(dir, "repo-1")
	if err := os.MkdirAll(repoOne, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repoOne, "app001.yaml"), []byte(appYAML("app001")[0]), 0o600); err != nil {
		b.Fatal(err)
	}
	data := filepath.Join(dir, "manifests-data.json")
	if err := writeManifestBenchData(data); err != nil {
		b.Fatal(err)
	}
	floorPolicy, _ := filepath.Abs("testdata/one_deny_one_warn")
	r := bench.NewRunner(b)
	gpufleetPolicy := r.Build(b, "internal/policy/cmd/gpufleet-policy")
	released := filepath.Join(dir, "gpufleet-policies")
	if _, _, err := r.Run("", nil, nil, gpufleetPolicy, "bundle", "-o", released); err != nil {
		b.Fatalf("gpufleet-policy bundle: %v", err)
	}
	conftest := func(policyDir, target string, flags ...string) bench.Sample {
		// exit code 1: the repository has failures, as one GPU object in ten and the floor's deny have
		args := append([]string{bin, "test", "--no-color", "--policy", policyDir, "--data", data}, flags...)
		s, _, err := r.Run(dir, nil, []int{0, 1}, append(args, target)...)
		if err != nil {
			b.Fatalf("conftest: %v", err)
		}
		return s
	}
	// The documents way, as CI runs it: the bundle written, the directory's documents built in Go,
	// conftest on them.
	viaDocuments, pools := filepath.Join(dir, "gpufleet-policies-documents"), filepath.Join(dir, "pools.json")
	documents := func() bench.Sample {
		if err := os.RemoveAll(viaDocuments); err != nil {
			b.Fatal(err)
		}
		written, _, err := r.Run("", nil, nil, gpufleetPolicy, "bundle", "-o", viaDocuments)
		if err != nil {
			b.Fatalf("gpufleet-policy bundle: %v", err)
		}
		built, _, err := r.Run(dir, nil, nil, gpufleetPolicy, "documents", "--data", data, "-o", pools, "repo/")
		if err != nil {
			b.Fatalf("gpufleet-policy documents: %v", err)
		}
		return written.Then(built).Then(conftest(viaDocuments, pools))
	}
	// What is measured is judging: the bundle reports the ten violating GPU objects, no more, on the
	// directory and on its documents.
	documents()
	for target, want := range map[string]int{"repo/": gpu / 10, pools: gpu / 10, "repo-10k/": 50, "repo-1/": 0} {
		if _, out, err := r.Run(dir, nil, []int{0, 1}, bin, "test", "--no-color", "--combine", "--policy", released, "--data", data, target); err != nil {
			b.Fatalf("conftest: %v", err)
		} else if fails := strings.Count(string(out), "FAIL - "); fails != want || strings.Contains(string(out), "WARN - ") {
			b.Fatalf("the bundle reports %d failures (want %d) on %s:\n%s", fails, want, target, out)
		}
	}
	for b.Loop() {
		for _, way := range []struct {
			name, target string
			flags        []string
		}{{"combine", "repo/", []string{"--combine"}}, {"separate", "repo/", nil}, {"documents", "repo/", nil},
			{"combine-10k", "repo-10k/", []string{"--combine"}}, {"combine-1", "repo-1/", []string{"--combine"}}} {
			var bundle, floor bench.Series
			for range runs {
				if way.name == "documents" {
					bundle.Add(documents())
					floor.Add(conftest(floorPolicy, "repo/", "--combine"))
					continue
				}
				bundle.Add(conftest(released, way.target, way.flags...))
				floor.Add(conftest(floorPolicy, way.target, way.flags...))
			}
			for unit, v := range map[string]float64{
				"s-floor": bench.Median(floor.Wall), "MiB-floor": bench.Median(floor.Peak),
				"s-released": bench.Median(bundle.Wall), "MiB-released": bench.Median(bundle.Peak),
				"released/floor": bench.MedianRatio(bundle.Wall, floor.Wall), "rss-released/floor": bench.MedianRatio(bundle.Peak, floor.Peak),
				"cpu-released/floor": bench.MedianRatio(bundle.CPU, floor.CPU),
			} {
				b.ReportMetric(v, way.name+":"+unit)
			}
			what := "release's bundle"
			if way.name == "documents" {
				what = "bundle + documents + conftest"
			}
			b.Logf("%s: one-deny-one-warn %.2fs %.0fMiB (cpu %.2fs), %s %.2fs %.0fMiB (cpu %.2fs), ratios (median of %d) wall %.2f, rss %.2f, cpu %.2f",
				way.name, bench.Median(floor.Wall), bench.Median(floor.Peak), bench.Median(floor.CPU), what, bench.Median(bundle.Wall), bench.Median(bundle.Peak), bench.Median(bundle.CPU), runs,
				bench.MedianRatio(bundle.Wall, floor.Wall), bench.MedianRatio(bundle.Peak, floor.Peak), bench.MedianRatio(bundle.CPU, floor.CPU))
		}
	}
}

// writeManifestBenchData writes the policy data of BenchmarkConftestManifests: the clients of the
// GPU objects with budgets none exceeds, and the clusters the objects without a zone name.
func writeManifestBenchData(path string) error {
	data := `{"gpufleet": {"thresholds": {"oversize_factor": 4}, "clients": {
  "acme": {"cost_center": "cc-1001", "allowed_regions": ["eu-*", "europe-*", "us-*"], "isolation": "shared", "monthly_budget_usd": 1e12},
  "initech": {"cost_center": "cc-3003", "allowed_regions": ["us-*", "eu-*", "europe-*"], "isolation": "shared", "monthly_budget_usd": 1e12}},
  "clusters": {"ml-us": {"cloud": "aws", "region": "us-east-1"}, "gke-ml-eu": {"cloud": "gcp", "region": "europe-west4"}}}}`
	return os.WriteFile(path, []byte(data), 0o600)
}

// gpuShape is a GPU pool of the benchmark's repository: its instance (EC2) or machine (GKE) type,
// its GPUs per node and the workload its labels say.
type gpuShape struct {
	instanceType string
	gpus         int
	workload     string
	memoryGiB    int
}

var (
	ec2GPUShapes = []gpuShape{{"g6.4xlarge", 1, "inference", 16}, {"g5.4xlarge", 1, "inference", 18}, {"g6e.2xlarge", 1, "inference", 36}, {"p4d.24xlarge", 8, "training", 34}, {"p5.48xlarge", 8, "training", 70}}
	// Notebooks: four time-sliced replicas of 4 GiB on each L4, advertised by a NodeOverlay.
	ec2SharedShape = gpuShape{"g6.4xlarge", 1, "development", 4}
	gkeGPUShapes   = []gpuShape{{"g2-standard-8", 1, "inference", 16}, {"a2-highgpu-1g", 1, "inference", 30}, {"a3-highgpu-8g", 8, "training", 70}}
)

// writeManifestRepo writes a GitOps repository of objects Kubernetes objects under root, as
// platform teams lay one out: per team, a file of its Karpenter EC2NodeClass, GPU NodePools and
// NodeOverlay, or of its Auto Mode NodeClass and GPU NodePools, or of its GKE ComputeClasses; a
// file of CPU NodePools; and a file per app (Deployment, Service, ConfigMap, ServiceAccount,
// HorizontalPodAutoscaler) until there are objects in all. A twentieth of them are GPU NodePools
// and ComputeClasses; every tenth of those violates a rule (no nvidia.com/gpu limit, no GPU taint).
// It returns the objects written and how many are GPU NodePools or ComputeClasses.
func writeManifestRepo(root string, objects int) (written, gpu int, err error) {
	files := map[string][]string{}
	add := func(file, doc string) { files[file] = append(files[file], doc) }
	gpuPools := objects / 20
	for i := range gpuPools {
		team := fmt.Sprintf("team%02d", i/4)
		client := []string{"acme", "initech"}[i/4%2]
		violating := i%10 == 9
		switch i % 4 {
		case 0, 1: // Karpenter on EKS, two NodePools per team, time-sliced inference with its overlay
			file := filepath.Join("clusters", "ml-us", "karpenter", team+".yaml")
			if i%4 == 0 {
				add(file, nodeClassYAML(team, client, false))
			}
			sh, shared := ec2GPUShapes[i%len(ec2GPUShapes)], i%8 == 1
			if shared {
				sh = ec2SharedShape
			}
			add(file, karpenterNodePoolYAML(fmt.Sprintf("%s-gpu-%d", team, i%4), team, "karpenter.k8s.aws", "EC2NodeClass", "karpenter.k8s.aws", client, sh, shared, violating))
			if shared {
				add(file, nodeOverlayYAML(fmt.Sprintf("%s-gpu-%d", team, i%4), sh.gpus*4))
			}
		case 2: // EKS Auto Mode
			file := filepath.Join("clusters", "ml-us", "automode", team+".yaml")
			add(file, nodeClassYAML(team, client, true))
			add(file, karpenterNodePoolYAML(team+"-gpu", team, "eks.amazonaws.com", "NodeClass", "eks.amazonaws.com", client, ec2GPUShapes[i%len(ec2GPUShapes)], false, violating))
		case 3: // GKE
			file := filepath.Join("clusters", "gke-ml-eu", "computeclasses", team+".yaml")
			add(file, computeClassYAML(team+"-gpu", client, gkeGPUShapes[i%len(gkeGPUShapes)], violating))
		}
		gpu++
	}
	for i := range 20 {
		add(filepath.Join("clusters", "ml-us", "karpenter", "cpu.yaml"), cpuNodePoolYAML(i))
	}
	count := func() int {
		n := 0
		for _, docs := range files {
			n += len(docs)
		}
		return n
	}
	for app := 0; count() < objects; app++ {
		file := filepath.Join("apps", fmt.Sprintf("app%03d.yaml", app))
		for _, doc := range appYAML(fmt.Sprintf("app%03d", app)) {
			if count() < objects {
				add(file, doc)
			}
		}
	}
	for file, docs := range files {
		path := filepath.Join(root, file)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return 0, 0, err
		}
		if err := os.WriteFile(path, []byte(strings.Join(docs, "---\n")), 0o600); err != nil {
			return 0, 0, err
		}
	}
	return count(), gpu, nil
}

// nodeClassYAML is a team's node class carrying its client's cost tags: Karpenter's EC2NodeClass,
// or with autoMode EKS Auto Mode's NodeClass.
func nodeClassYAML(team, client string, autoMode bool) string {
	apiVersion, kind, spec := "karpenter.k8s.aws/v1", "EC2NodeClass", `  role: KarpenterNodeRole-ml-us
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: ml-us}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: ml-us}}]
`
	if autoMode {
		apiVersion, kind, spec = "eks.amazonaws.com/v1", "NodeClass", `  role: AmazonEKSAutoNodeRole
  subnetSelectorTerms: [{tags: {kubernetes.io/role/internal-elb: "1"}}]
  securityGroupSelectorTerms: [{tags: {aws:eks:cluster-name: ml-us}}]
`
	}
	return fmt.Sprintf(`apiVersion: %[1]s
kind: %[2]s
metadata:
  name: %[3]s-gpu
  labels: {gpufleet.io/cluster: ml-us, app.kubernetes.io/part-of: platform}
spec:
%[4]s  tags:
    team: %[3]s
    gpufleet:client: %[5]s
    gpufleet:cost-center: %[6]s
`, apiVersion, kind, team, spec, client, map[string]string{"acme": "cc-1001", "initech": "cc-3003"}[client])
}

// karpenterNodePoolYAML is a GPU NodePool of the team's node class; violating, without its
// nvidia.com/gpu limit (GF-AS-007).
func karpenterNodePoolYAML(name, team, group, kind, prefix, client string, sh gpuShape, shared, violating bool) string {
	labels := ""
	if shared {
		labels = "\n        nvidia.com/device-plugin.config: time-slicing-4"
	}
	limits := fmt.Sprintf("    nodes: \"4\"\n    nvidia.com/gpu: \"%d\"\n", 4*sh.gpus)
	if violating {
		limits = "    nodes: \"4\"\n"
	}
	disruption := "  disruption:\n    consolidationPolicy: WhenEmptyOrUnderutilized\n    consolidateAfter: 5m\n"
	interruptible := "true"
	if sh.workload == "training" {
		disruption, interruptible = "  disruption:\n    consolidationPolicy: WhenEmpty\n    consolidateAfter: 30m\n", "false"
	}
	expire := "720h"
	if interruptible == "false" {
		expire = "Never"
	}
	gpuReq := fmt.Sprintf("- {key: node.kubernetes.io/instance-type, operator: In, values: [%s]}", sh.instanceType)
	if prefix == "eks.amazonaws.com" {
		gpuReq = fmt.Sprintf("- {key: node.kubernetes.io/instance-type, operator: In, values: [%s]}\n        - {key: %s/instance-gpu-count, operator: In, values: [\"%d\"]}", sh.instanceType, prefix, sh.gpus)
	}
	return fmt.Sprintf(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: %[1]s
  labels: {app.kubernetes.io/part-of: %[2]s}
spec:
  weight: 50
  template:
    metadata:
      labels:
        gpufleet.io/client: %[3]s
        gpufleet.io/workload: %[4]s
        gpufleet.io/environment: staging
        gpufleet.io/interruptible: "%[5]s"
        gpufleet.io/gpu-memory-gib: "%[6]d"%[7]s
    spec:
      nodeClassRef: {group: %[8]s, kind: %[9]s, name: %[2]s-gpu}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        %[10]s
      taints:
        - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
      expireAfter: %[11]s
%[12]s  limits:
%[13]s`, name, team, client, sh.workload, interruptible, sh.memoryGiB, labels, group, kind, gpuReq, expire, disruption, limits)
}

func nodeOverlayYAML(nodePool string, advertised int) string {
	return fmt.Sprintf(`apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata:
  name: %[1]s
  labels: {app.kubernetes.io/part-of: karpenter}
spec:
  requirements:
    - {key: karpenter.sh/nodepool, operator: In, values: [%[1]s]}
  capacity:
    nvidia.com/gpu: "%[2]d"
`, nodePool, advertised)
}

// computeClassYAML is a GPU ComputeClass; violating, without the GPU taint (GF-ISO-001).
func computeClassYAML(name, client string, sh gpuShape, violating bool) string {
	taints := "\n    taints:\n      - {key: nvidia.com/gpu, value: present, effect: NoSchedule}"
	if violating {
		taints = ""
	}
	interruptible := "true"
	if sh.workload == "training" {
		interruptible = "false"
	}
	return fmt.Sprintf(`apiVersion: cloud.google.com/v1
kind: ComputeClass
metadata:
  name: %[1]s
  labels: {gpufleet.io/cluster: gke-ml-eu, app.kubernetes.io/part-of: platform}
spec:
  priorities:
    - machineType: %[2]s
      gpu: {type: %[3]s, count: %[4]d, driverVersion: latest}
  nodePoolAutoCreation:
    enabled: true
  nodePoolConfig:
    nodeLabels:
      gpufleet.io/client: %[5]s
      gpufleet.io/workload: %[6]s
      gpufleet.io/environment: staging
      gpufleet.io/interruptible: "%[7]s"
      gpufleet.io/gpu-memory-gib: "%[8]d"%[9]s
  whenUnsatisfiable: DoNotScaleUp
`, name, sh.instanceType, map[string]string{"g2-standard-8": "nvidia-l4", "a2-highgpu-1g": "nvidia-tesla-a100", "a3-highgpu-8g": "nvidia-h100-80gb"}[sh.instanceType],
		sh.gpus, client, sh.workload, interruptible, sh.memoryGiB, taints)
}

func cpuNodePoolYAML(i int) string {
	return fmt.Sprintf(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general-%02[1]d
  labels: {app.kubernetes.io/part-of: karpenter}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["5"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
  limits:
    cpu: "1000"
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
`, i)
}

// appYAML is an app's objects: one in seven Deployments without a memory limit (the floor's deny).
func appYAML(app string) []string {
	limits := "\n            limits: {memory: 512Mi}"
	if n, _ := strconv.Atoi(strings.TrimPrefix(app, "app")); n%7 == 0 {
		limits = ""
	}
	return []string{
		fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: %[1]s
  labels: {app.kubernetes.io/name: %[1]s, app.kubernetes.io/part-of: shop}
spec:
  replicas: 3
  selector:
    matchLabels: {app.kubernetes.io/name: %[1]s}
  template:
    metadata:
      labels: {app.kubernetes.io/name: %[1]s}
    spec:
      serviceAccountName: %[1]s
      containers:
        - name: %[1]s
          image: registry.example.com/%[1]s:1.4.2
          ports: [{containerPort: 8080}]
          envFrom: [{configMapRef: {name: %[1]s}}]
          resources:
            requests: {cpu: 250m, memory: 256Mi}%[2]s
`, app, limits),
		fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: %[1]s
  namespace: %[1]s
  labels: {app.kubernetes.io/name: %[1]s, app.kubernetes.io/part-of: shop}
spec:
  selector: {app.kubernetes.io/name: %[1]s}
  ports: [{port: 80, targetPort: 8080}]
`, app),
		fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s
  namespace: %[1]s
  labels: {app.kubernetes.io/name: %[1]s}
data:
  LOG_LEVEL: info
  UPSTREAM: http://%[1]s-backend.%[1]s.svc.cluster.local
`, app),
		fmt.Sprintf(`apiVersion: v1
kind: ServiceAccount
metadata:
  name: %[1]s
  namespace: %[1]s
  labels: {app.kubernetes.io/name: %[1]s, app.kubernetes.io/part-of: shop}
`, app),
		fmt.Sprintf(`apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: %[1]s
  namespace: %[1]s
  labels: {app.kubernetes.io/name: %[1]s, app.kubernetes.io/part-of: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: %[1]s}
  minReplicas: 3
  maxReplicas: 12
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
`, app),
	}
}
