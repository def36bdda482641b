package cloudsim

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// With a read-after-write lag, a new node group is not found by DescribeNodegroup nor listed by
// ListNodegroups, and a new update is not found by DescribeUpdate, until the lag has passed; then
// both read as usual. Without a lag (the default) both are readable at once.
func TestEKS_ReadAfterWriteLag(t *testing.T) {
	t.Parallel()
	// Long enough for the reads right after each write to fall inside it on a loaded machine; the
	// waits below start from when each write returned, which is after the server's clock started it.
	const lag = 2 * time.Second
	sim := newSim(t, func(o *Options) { o.ReadAfterWriteLag = lag })
	c := eksClient(sim, "us-east-1")
	createNodegroup(t, c, gpuNodegroup("gpu-od"))
	created := time.Now() // after the call: the lag runs from when cloudsim served it
	_, err := c.DescribeNodegroup(ctxT(t), &eks.DescribeNodegroupInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od")})
	wantAPIError(t, err, "ResourceNotFoundException", "No node group found for name: gpu-od")
	if names := listNodegroups(t, c); slices.Contains(names, "gpu-od") {
		t.Fatalf("ListNodegroups lists gpu-od within its lag: %v", names)
	}
	time.Sleep(time.Until(created.Add(lag)))
	if err := waitNodegroupActive(t, c, "ml", "gpu-od"); err != nil {
		t.Fatal(err)
	}
	if names := listNodegroups(t, c); !slices.Contains(names, "gpu-od") {
		t.Fatalf("ListNodegroups after the lag: %v", names)
	}

	out, err := c.UpdateNodegroupConfig(ctxT(t), &eks.UpdateNodegroupConfigInput{ClusterName: aws.String("ml"), NodegroupName: aws.String("gpu-od"),
		ScalingConfig: &ekstypes.NodegroupScalingConfig{DesiredSize: aws.Int32(3)}})
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	describe := &eks.DescribeUpdateInput{Name: aws.String("ml"), NodegroupName: aws.String("gpu-od"), UpdateId: out.Update.Id}
	_, err = c.DescribeUpdate(ctxT(t), describe)
	wantAPIError(t, err, "ResourceNotFoundException", "No update found for ID")
	if ng := describeNodegroup(t, c, "ml", "gpu-od"); ng.Status != ekstypes.NodegroupStatusUpdating && ng.Status != ekstypes.NodegroupStatusActive {
		t.Fatalf("a node group read before the write stays readable: status %s", ng.Status)
	}
	time.Sleep(time.Until(started.Add(lag)))
	if du, err := c.DescribeUpdate(ctxT(t), describe); err != nil || du.Update.Status != ekstypes.UpdateStatusSuccessful {
		t.Fatalf("DescribeUpdate after the lag = %+v, %v", du, err)
	}

	sim.SetReadAfterWriteLag(0)
	createNodegroup(t, c, gpuNodegroup("gpu-spot"))
	describeNodegroup(t, c, "ml", "gpu-spot")
}

// PUT /eks/read-after-write-lag sets the lag, GET shows it; a bad duration is a 400.
func TestControl_ReadAfterWriteLag(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	if code, body := ctl(t, sim, "PUT", "/eks/read-after-write-lag", `{"lag":"1500ms"}`); code != http.StatusNoContent {
		t.Fatalf("PUT = %d %s", code, body)
	}
	if got := sim.ReadAfterWriteLag(); got != 1500*time.Millisecond {
		t.Fatalf("lag = %s", got)
	}
	if code, body := ctl(t, sim, "GET", "/eks/read-after-write-lag", ""); code != http.StatusOK || !strings.Contains(string(body), `"1.5s"`) {
		t.Fatalf("GET = %d %s", code, body)
	}
	if code, body := ctl(t, sim, "PUT", "/eks/read-after-write-lag", `{"lag":"soon"}`); code != http.StatusBadRequest || !strings.Contains(string(body), "lag") {
		t.Fatalf("PUT bad lag = %d %s", code, body)
	}
}

func listNodegroups(t *testing.T, c *eks.Client) []string {
	t.Helper()
	out, err := c.ListNodegroups(ctxT(t), &eks.ListNodegroupsInput{ClusterName: aws.String("ml")})
	if err != nil {
		t.Fatal(err)
	}
	return out.Nodegroups
}
