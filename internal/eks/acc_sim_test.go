package eks_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/acctest"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

func TestMain(m *testing.M) { os.Exit(acctest.Main(m)) }

const (
	testRegion  = "us-east-1"
	otherRegion = "eu-west-1"
	testCluster = "ml"
	testRole    = "arn:aws:iam::123456789012:role/gpu-nodes"
	odcrID      = "cr-0a1b2c3d4e5f60718"
	blockID     = "cr-0b1c2d3e4f5a60719"
	// usedODCR has one of its four instances free (other instances run in it), dedicatedODCR is for
	// dedicated-tenancy instances, futureODCR starts in two days (scheduled).
	usedODCR      = "cr-0c2d3e4f5a6b70720"
	dedicatedODCR = "cr-0d3e4f5a6b7c80721"
	futureODCR    = "cr-0e4f5a6b7c8d90722"
	// secondODCR is another free ODCR like odcrID, for a pool that moves between reservations.
	secondODCR = "cr-0f5a6b7c8d9ea0723"
)

// testSeed is the AWS world of the acceptance tests: clusters at 1.31 and one at 1.33 ("new"), two
// subnets, GPU offerings for every family the tests use, an ODCR and a capacity block (started a
// day ago, for a month) for p5.48xlarge in us-east-1a, and four more ODCRs there: one mostly used by
// other instances, one for dedicated tenancy, one future-dated, and a second free one.
func testSeed(t *testing.T) *cloudsim.Seed {
	t.Helper()
	start := time.Now().UTC().Add(-24 * time.Hour).Truncate(time.Hour)
	end := start.AddDate(0, 1, 0)
	future := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Hour)
	types := []string{
		"g4dn.xlarge", "g4dn.2xlarge", "g5.xlarge", "g5.2xlarge", "g5.4xlarge", "g5.12xlarge", "g6.xlarge", "g6.2xlarge", "g6e.xlarge",
		"p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5.4xlarge", "p5e.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge", "p3.2xlarge",
	}
	seed := &cloudsim.Seed{AWS: cloudsim.AWSSeed{Regions: map[string]*cloudsim.AWSRegionSeed{
		testRegion: {
			// ml-a: its pool b and ml's pool a-b once shared a launch template name.
			Clusters: []cloudsim.EKSClusterSeed{{Name: testCluster, Version: "1.31"}, {Name: "ml-a", Version: "1.31"}, {Name: "new", Version: "1.33"}},
			Subnets: []cloudsim.SubnetSeed{
				{ID: "subnet-0a1a1a1a1a1a1a1a1", AvailabilityZone: "us-east-1a", VpcID: "vpc-0123456789abcdef0"},
				{ID: "subnet-0b2b2b2b2b2b2b2b2", AvailabilityZone: "us-east-1b", VpcID: "vpc-0123456789abcdef0"},
			},
			CapacityReservations: []cloudsim.CapacityReservationSeed{
				{ID: odcrID, InstanceType: "p5.48xlarge", AvailabilityZone: "us-east-1a", TotalInstanceCount: 4, AvailableInstanceCount: 4, InstanceMatchCriteria: "targeted"},
				{ID: blockID, InstanceType: "p5.48xlarge", AvailabilityZone: "us-east-1a", TotalInstanceCount: 2, AvailableInstanceCount: 2, ReservationType: "capacity-block", InstanceMatchCriteria: "targeted", StartDate: &start, EndDate: &end},
				{ID: usedODCR, InstanceType: "p5.48xlarge", AvailabilityZone: "us-east-1a", TotalInstanceCount: 4, AvailableInstanceCount: 1, InstanceMatchCriteria: "targeted"},
				{ID: dedicatedODCR, InstanceType: "p5.48xlarge", AvailabilityZone: "us-east-1a", TotalInstanceCount: 4, AvailableInstanceCount: 4, InstanceMatchCriteria: "targeted", Tenancy: "dedicated"},
				{ID: futureODCR, InstanceType: "p5.48xlarge", AvailabilityZone: "us-east-1a", TotalInstanceCount: 4, AvailableInstanceCount: 4, InstanceMatchCriteria: "targeted", StartDate: &future},
				{ID: secondODCR, InstanceType: "p5.48xlarge", AvailabilityZone: "us-east-1a", TotalInstanceCount: 4, AvailableInstanceCount: 4, InstanceMatchCriteria: "targeted"},
			},
			InstanceTypeOfferings: map[string][]string{"us-east-1a": types, "us-east-1b": types},
		},
		// A second region with a cluster of the same name, for pools that move or live elsewhere.
		otherRegion: {
			Clusters: []cloudsim.EKSClusterSeed{{Name: testCluster, Version: "1.31"}},
			Subnets: []cloudsim.SubnetSeed{
				{ID: "subnet-0e1e1e1e1e1e1e1e1", AvailabilityZone: "eu-west-1a", VpcID: "vpc-0fedcba9876543210"},
				{ID: "subnet-0f2f2f2f2f2f2f2f2", AvailabilityZone: "eu-west-1b", VpcID: "vpc-0fedcba9876543210"},
			},
			InstanceTypeOfferings: map[string][]string{"eu-west-1a": types, "eu-west-1b": types},
		},
	}}}
	return seed
}

// startSim runs cloudsim for one test and points the AWS SDK's credential chain at static keys.
func startSim(t *testing.T) *cloudsim.Sim {
	t.Helper()
	return startSimWith(t, nil)
}

// startSimWith is startSim on the test seed as mod changes it.
func startSimWith(t *testing.T, mod func(*cloudsim.AWSRegionSeed)) *cloudsim.Sim {
	t.Helper()
	seed := testSeed(t)
	if mod != nil {
		mod(seed.AWS.Regions[testRegion])
	}
	sim, err := cloudsim.Start(cloudsim.Options{Seed: seed, TransitionDelay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAGPUFLEETTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "gpufleet-test-secret")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return sim
}

// providerConfig is the provider block that points gpufleet at the simulator.
func providerConfig(sim *cloudsim.Sim, extra string) string {
	e := sim.Endpoints()
	return fmt.Sprintf(`
provider "gpufleet" {
  default_tags = { ManagedBy = "terraform" }
  aws {
    region                      = %q
    skip_credentials_validation = true
    endpoints {
      eks         = %q
      ec2         = %q
      autoscaling = %q
    }
  }
%s
}
`, testRegion, e.EKS, e.EC2, e.AutoScaling, extra)
}

// poolConfig renders one gpufleet_eks_node_pool with the usual arguments and body for the rest.
func poolConfig(name, instanceTypes, body string) string {
	return poolConfigAs(name, name, instanceTypes, body)
}

// inZoneA puts a pool's node groups in us-east-1a only, where the reservations are.
func inZoneA(cfg string) string {
	return strings.Replace(cfg, `["subnet-0a1a1a1a1a1a1a1a1", "subnet-0b2b2b2b2b2b2b2b2"]`, `["subnet-0a1a1a1a1a1a1a1a1"]`, 1)
}

// poolConfigAs is poolConfig for a resource whose address label differs from the pool's name.
func poolConfigAs(label, name, instanceTypes, body string) string {
	return fmt.Sprintf(`
resource "gpufleet_eks_node_pool" %[1]q {
  cluster_name   = %[2]q
  name           = %[6]q
  client         = "acme"
  node_role_arn  = %[3]q
  subnet_ids     = ["subnet-0a1a1a1a1a1a1a1a1", "subnet-0b2b2b2b2b2b2b2b2"]
  instance_types = %[4]s
%[5]s
}
`, label, testCluster, testRole, instanceTypes, body, name)
}

type awsClients struct {
	eks         *eks.Client
	ec2         *ec2.Client
	autoscaling *autoscaling.Client
}

// clients are real SDK clients on the simulator, for checking what the provider left in the cloud.
func clients(t *testing.T, sim *cloudsim.Sim) awsClients { return clientsIn(t, sim, testRegion) }

// clientsIn are clients in another region of the simulator.
func clientsIn(t *testing.T, sim *cloudsim.Sim, region string) awsClients {
	t.Helper()
	// The tests' own reads go through the faults a test injects (TestAccEKSNodePool_throttling
	// throttles one call in five): ten attempts, not the SDK's default three, so a check never fails
	// on its own throttled read (three in a row: about one check in 125, a red CI every few runs).
	cfg, err := awsconfig.LoadDefaultConfig(context.Background(), awsconfig.WithRegion(region), awsconfig.WithRetryMaxAttempts(10),
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("AKIAGPUFLEETTEST", "secret", "")))
	if err != nil {
		t.Fatal(err)
	}
	e := sim.Endpoints()
	return awsClients{
		eks:         eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(e.EKS) }),
		ec2:         ec2.NewFromConfig(cfg, func(o *ec2.Options) { o.BaseEndpoint = aws.String(e.EC2) }),
		autoscaling: autoscaling.NewFromConfig(cfg, func(o *autoscaling.Options) { o.BaseEndpoint = aws.String(e.AutoScaling) }),
	}
}

func (c awsClients) nodegroup(name string) (*ekstypes.Nodegroup, error) {
	out, err := c.eks.DescribeNodegroup(context.Background(), &eks.DescribeNodegroupInput{ClusterName: aws.String(testCluster), NodegroupName: aws.String(name)})
	if err != nil {
		return nil, err
	}
	return out.Nodegroup, nil
}

func (c awsClients) nodegroupNames(t *testing.T) []string {
	t.Helper()
	out, err := c.eks.ListNodegroups(context.Background(), &eks.ListNodegroupsInput{ClusterName: aws.String(testCluster)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Nodegroups
}

func (c awsClients) launchTemplateNames(t *testing.T) []string {
	t.Helper()
	out, err := c.ec2.DescribeLaunchTemplates(context.Background(), &ec2.DescribeLaunchTemplatesInput{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, lt := range out.LaunchTemplates {
		names = append(names, aws.ToString(lt.LaunchTemplateName))
	}
	return names
}

// launchTemplateData returns the data of the launch template version a node group uses.
func (c awsClients) launchTemplateData(ng *ekstypes.Nodegroup) (*ec2types.ResponseLaunchTemplateData, error) {
	if ng.LaunchTemplate == nil {
		return nil, fmt.Errorf("node group %s has no launch template", aws.ToString(ng.NodegroupName))
	}
	out, err := c.ec2.DescribeLaunchTemplateVersions(context.Background(), &ec2.DescribeLaunchTemplateVersionsInput{
		LaunchTemplateId: ng.LaunchTemplate.Id, Versions: []string{aws.ToString(ng.LaunchTemplate.Version)},
	})
	if err != nil {
		return nil, err
	}
	if len(out.LaunchTemplateVersions) != 1 {
		return nil, fmt.Errorf("launch template %s version %s: %d versions", aws.ToString(ng.LaunchTemplate.Id), aws.ToString(ng.LaunchTemplate.Version), len(out.LaunchTemplateVersions))
	}
	return out.LaunchTemplateVersions[0].LaunchTemplateData, nil
}

// poolTest is the test case of steps against sim, which destroy leaves with nothing of the pools.
func poolTest(t *testing.T, sim *cloudsim.Sim, steps ...resource.TestStep) resource.TestCase {
	return resource.TestCase{ProtoV6ProviderFactories: acctest.ProviderFactories, CheckDestroy: checkNothingLeft(t, sim), Steps: steps}
}

// checkNothingLeft is a CheckDestroy: no node group and no launch template survive the pools, in
// either region.
func checkNothingLeft(t *testing.T, sim *cloudsim.Sim) func(*terraform.State) error {
	return func(*terraform.State) error {
		for _, region := range []string{testRegion, otherRegion} {
			c := clientsIn(t, sim, region)
			if ngs := c.nodegroupNames(t); len(ngs) > 0 {
				return fmt.Errorf("node groups left after destroy in %s: %v", region, ngs)
			}
			if lts := c.launchTemplateNames(t); len(lts) > 0 {
				return fmt.Errorf("launch templates left after destroy in %s: %v", region, lts)
			}
			for _, g := range sim.PlacementGroups(region) {
				if _, owned := g.Tags["gpufleet:owner"]; owned {
					return fmt.Errorf("placement group %s left after destroy in %s (%v)", g.GroupName, region, g.Tags)
				}
			}
		}
		return nil
	}
}

// checkNodegroup runs f on a node group as the simulator holds it.
func checkNodegroup(t *testing.T, sim *cloudsim.Sim, name string, f func(*ekstypes.Nodegroup) error) func(*terraform.State) error {
	return func(*terraform.State) error {
		ng, err := clients(t, sim).nodegroup(name)
		if err != nil {
			return fmt.Errorf("describing %s: %w", name, err)
		}
		return f(ng)
	}
}

func wantLabel(ng *ekstypes.Nodegroup, key, value string) error {
	if got, ok := ng.Labels[key]; !ok || got != value {
		return fmt.Errorf("node group %s label %s = %q, want %q (labels %v)", aws.ToString(ng.NodegroupName), key, got, value, ng.Labels)
	}
	return nil
}

func noLabel(ng *ekstypes.Nodegroup, key string) error {
	if v, ok := ng.Labels[key]; ok {
		return fmt.Errorf("node group %s has label %s=%q, want none", aws.ToString(ng.NodegroupName), key, v)
	}
	return nil
}

// requestCount counts the simulator's recorded calls, optionally of one operation.
func requestCount(sim *cloudsim.Sim, operation string) int {
	n := 0
	for _, r := range sim.Requests() {
		if operation == "" || r.Operation == operation {
			n++
		}
	}
	return n
}

// foreignLaunchTemplate creates a launch template as another tool would, through the EC2 API, with
// tags of its own; it returns the template's id.
func (c awsClients) foreignLaunchTemplate(t *testing.T, name string, tags map[string]string) string {
	t.Helper()
	in := &ec2.CreateLaunchTemplateInput{
		LaunchTemplateName: aws.String(name),
		LaunchTemplateData: &ec2types.RequestLaunchTemplateData{UserData: aws.String("IyEvYmluL2Jhc2g=")},
	}
	if len(tags) > 0 {
		spec := ec2types.TagSpecification{ResourceType: ec2types.ResourceTypeLaunchTemplate}
		for k, v := range tags {
			spec.Tags = append(spec.Tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(v)})
		}
		in.TagSpecifications = []ec2types.TagSpecification{spec}
	}
	out, err := c.ec2.CreateLaunchTemplate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.LaunchTemplate.LaunchTemplateId)
}

// ownerTagOf reports whether v is the owner tag of the side owner ("<cluster>/<pool>/<node group>")
// with an owner id.
func ownerTagOf(v, owner string) bool {
	id, ok := strings.CutPrefix(v, owner+"/")
	return ok && regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(id)
}

// foreignNodegroup creates a node group as another tool would, through the EKS API, with tags of its
// own and no launch template.
func (c awsClients) foreignNodegroup(t *testing.T, name string, tags map[string]string) *ekstypes.Nodegroup {
	t.Helper()
	out, err := c.eks.CreateNodegroup(context.Background(), &eks.CreateNodegroupInput{
		ClusterName:   aws.String(testCluster),
		NodegroupName: aws.String(name),
		NodeRole:      aws.String(testRole),
		Subnets:       []string{"subnet-0a1a1a1a1a1a1a1a1"},
		InstanceTypes: []string{"g6.xlarge"},
		ScalingConfig: &ekstypes.NodegroupScalingConfig{MinSize: aws.Int32(0), MaxSize: aws.Int32(3), DesiredSize: aws.Int32(1)},
		Tags:          tags,
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Nodegroup
}

// mutatingCalls lists the recorded calls that change something in EKS or EC2.
func mutatingCalls(sim *cloudsim.Sim) []string {
	var out []string
	for _, r := range sim.Requests() {
		for _, verb := range []string{"Create", "Update", "Delete", "Modify", "Tag", "Untag"} {
			if strings.HasPrefix(r.Operation, verb) {
				out = append(out, r.Service+":"+r.Operation)
				break
			}
		}
	}
	return out
}

// launchTemplate describes one launch template by id, with its tags.
func (c awsClients) launchTemplate(id string) (*ec2types.LaunchTemplate, error) {
	out, err := c.ec2.DescribeLaunchTemplates(context.Background(), &ec2.DescribeLaunchTemplatesInput{LaunchTemplateIds: []string{id}})
	if err != nil {
		return nil, err
	}
	if len(out.LaunchTemplates) != 1 {
		return nil, fmt.Errorf("launch template %s: %d answers", id, len(out.LaunchTemplates))
	}
	return &out.LaunchTemplates[0], nil
}

// wantOwnedTemplate checks that a node group's launch template exists and carries the owner tag of
// the pool that owns the node group: "<cluster>/<pool>/<node group>/<owner id>", as the node group's.
func (c awsClients) wantOwnedTemplate(ng *ekstypes.Nodegroup, owner string) error {
	if ng.LaunchTemplate == nil {
		return fmt.Errorf("node group %s has no launch template", aws.ToString(ng.NodegroupName))
	}
	lt, err := c.launchTemplate(aws.ToString(ng.LaunchTemplate.Id))
	if err != nil {
		return err
	}
	for _, tag := range lt.Tags {
		if aws.ToString(tag.Key) == "gpufleet:owner" {
			if v := aws.ToString(tag.Value); !ownerTagOf(v, owner) || v != ng.Tags["gpufleet:owner"] {
				return fmt.Errorf("launch template %s: gpufleet:owner = %q, want %q and an owner id, as the node group's %q", aws.ToString(lt.LaunchTemplateId), v, owner, ng.Tags["gpufleet:owner"])
			}
			return nil
		}
	}
	return fmt.Errorf("launch template %s has no gpufleet:owner tag: %v", aws.ToString(lt.LaunchTemplateId), lt.Tags)
}
