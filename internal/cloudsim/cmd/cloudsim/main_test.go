package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

const seed = "../../../../examples/cloudsim/seed.json"

// TestMain lets the test binary act as the cloudsim command for the signal test.
func TestMain(m *testing.M) {
	if os.Getenv("CLOUDSIM_RUN_MAIN") == "1" {
		os.Args = append([]string{"cloudsim"}, strings.Fields(os.Getenv("CLOUDSIM_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

var lineRE = regexp.MustCompile(`^EKS_ENDPOINT=http://127\.0\.0\.1:\d+\nEC2_ENDPOINT=http://127\.0\.0\.1:\d+\nGKE_ENDPOINT=127\.0\.0\.1:\d+\nCONTROL_ENDPOINT=http://127\.0\.0\.1:\d+\nCOMPUTE_ENDPOINT=http://127\.0\.0\.1:\d+/compute/v1/\nSTS_ENDPOINT=http://127\.0\.0\.1:\d+\nAUTOSCALING_ENDPOINT=http://127\.0\.0\.1:\d+\n$`)

func parseEnv(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		k, v, _ := strings.Cut(line, "=")
		out[k] = v
	}
	return out
}

// run prints the endpoints (stdout and -env-file), serves the real SDKs, and on cancellation
// shuts down and writes the state file.
func TestRun_PrintsEndpointsServesAndWritesStateOnShutdown(t *testing.T) {
	dir := t.TempDir()
	envFile, stateFile := filepath.Join(dir, "cloudsim.env"), filepath.Join(dir, "state.json")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-seed", seed, "-state", stateFile, "-env-file", envFile, "-delay", "10ms"}, &stdout, &stderr)
	}()
	var env []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(envFile); err == nil {
			env = b
			break
		}
	}
	if !lineRE.Match(env) {
		t.Fatalf("env file = %q", env)
	}
	stdout.mu.Lock()
	printed := stdout.b.String()
	stdout.mu.Unlock()
	if printed != string(env) {
		t.Fatalf("stdout %q differs from env file %q", printed, env)
	}
	ep := parseEnv(string(env))
	c := eks.NewFromConfig(cloudsim.AWSConfig("us-east-1", 0), func(o *eks.Options) { o.BaseEndpoint = aws.String(ep["EKS_ENDPOINT"]) })
	out, err := c.DescribeCluster(context.Background(), &eks.DescribeClusterInput{Name: aws.String("ml")})
	if err != nil || *out.Cluster.Name != "ml" {
		t.Fatalf("DescribeCluster = %v %v", out, err)
	}
	resp, err := http.Get(ep["CONTROL_ENDPOINT"] + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz = %v %v", resp, err)
	}
	resp.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(stateFile); err != nil || !bytes.Contains(b, []byte(`"nodegroups"`)) {
		t.Fatalf("state file = %s %v", b, err)
	}
}

// The command stops cleanly on SIGTERM with exit status 0 and leaves the state file.
func TestMain_SIGTERM_CleanShutdown(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "state.json")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CLOUDSIM_RUN_MAIN=1", "CLOUDSIM_ARGS=-seed "+seed+" -state "+stateFile)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var lines []string
	for len(lines) < 5 && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "EKS_ENDPOINT=http://127.0.0.1:") || !strings.HasPrefix(lines[2], "GKE_ENDPOINT=127.0.0.1:") {
		_ = cmd.Process.Kill()
		t.Fatalf("output = %q", lines)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
	if _, err := os.Stat(stateFile); err != nil {
		t.Fatal(err)
	}
}

// Bad flags and seeds are reported, not ignored.
func TestRun_BadArguments(t *testing.T) {
	var out, errb syncBuffer
	for _, args := range [][]string{{"-seed", "does-not-exist.json"}, {"-listen", "nonsense"}, {"extra"}} {
		if err := run(context.Background(), args, &out, &errb); err == nil {
			t.Errorf("run(%v) succeeded", args)
		}
	}
}

// -aws-policy checks the calls signed with -aws-access-key (default offline, the key the guide
// exports) against a policy file: an allowed call answers, another is refused with AWS's error naming
// the action, and a policy cloudsim cannot evaluate stops the command.
func TestRun_awsPolicy(t *testing.T) {
	dir := t.TempDir()
	policy, envFile := filepath.Join(dir, "policy.json"), filepath.Join(dir, "cloudsim.env")
	doc := `{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "eks:DescribeCluster", "Resource": "*"}]}`
	if err := os.WriteFile(policy, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	if err := run(context.Background(), []string{"-seed", seed, "-aws-policy", filepath.Join(dir, "missing.json")}, &stdout, &stderr); err == nil {
		t.Fatal("a missing policy file was ignored")
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*", "Principal": "*"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"-seed", seed, "-aws-policy", bad}, &stdout, &stderr); err == nil {
		t.Fatal("a policy cloudsim cannot evaluate was taken")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-seed", seed, "-env-file", envFile, "-delay", "10ms", "-aws-policy", policy}, &stdout, &stderr)
	}()
	var env []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && len(env) == 0; time.Sleep(10 * time.Millisecond) {
		env, _ = os.ReadFile(envFile)
	}
	ep := parseEnv(string(env))
	cfg := cloudsim.AWSConfig("us-east-1", 0)
	cfg.Credentials = aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("offline", "offline", ""))
	c := eks.NewFromConfig(cfg, func(o *eks.Options) { o.BaseEndpoint = aws.String(ep["EKS_ENDPOINT"]) })
	if _, err := c.DescribeCluster(context.Background(), &eks.DescribeClusterInput{Name: aws.String("ml")}); err != nil {
		t.Errorf("an allowed call: %v", err)
	}
	_, err := c.ListNodegroups(context.Background(), &eks.ListNodegroupsInput{ClusterName: aws.String("ml")})
	if err == nil || !strings.Contains(err.Error(), "AccessDeniedException") || !strings.Contains(err.Error(), "not authorized to perform: eks:ListNodegroups") {
		t.Errorf("a call the policy does not allow: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// The guide "Offline testing with cloudsim" quotes what the command prints with -listen
// 127.0.0.1:41001: the same lines, here on five free ports from another base.
func TestRun_printsWhatTheGuideQuotes(t *testing.T) {
	raw, err := os.ReadFile("../../../../templates/guides/offline-testing-with-cloudsim.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "```\nEKS_ENDPOINT=")
	quote, _, _ := strings.Cut(rest, "```")
	if !ok || !strings.Contains(string(raw), "-listen 127.0.0.1:41001") {
		t.Fatal("the guide no longer quotes cloudsim's output for -listen 127.0.0.1:41001")
	}
	quote = "EKS_ENDPOINT=" + quote
	// The ports are found free and released before cloudsim binds them; another package's server
	// may take one meanwhile (go test runs packages in parallel): then cloudsim is started again on
	// other ports.
	var base int
	var printed string
	for attempt := 1; ; attempt++ {
		base = freePorts(t, 7)
		ctx, cancel := context.WithCancel(context.Background())
		var stdout, stderr syncBuffer
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"-seed", seed, "-state", filepath.Join(t.TempDir(), "state.json"), "-listen", fmt.Sprintf("127.0.0.1:%d", base), "-delay", "10ms"}, &stdout, &stderr)
		}()
		var err error
		exited := false
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !strings.Contains(printed, "ready") && !exited; time.Sleep(10 * time.Millisecond) {
			stdout.mu.Lock()
			stderr.mu.Lock()
			printed = stdout.b.String() + stderr.b.String()
			stderr.mu.Unlock()
			stdout.mu.Unlock()
			select {
			case err = <-done:
				exited = true
			default:
			}
		}
		cancel()
		if !exited {
			err = <-done
		}
		if err != nil && attempt < 3 && strings.Contains(err.Error(), "address already in use") {
			printed = ""
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	want := quote
	for i := 6; i >= 0; i-- {
		want = strings.ReplaceAll(want, fmt.Sprint(41001+i), fmt.Sprint(base+i))
	}
	if printed != want {
		t.Fatalf("cloudsim printed\n%s\nthe guide quotes (for base port %d)\n%s", printed, base, want)
	}
}

// freePorts finds a base port p such that p to p+n-1 are free on the loopback interface.
func freePorts(t *testing.T, n int) int {
	t.Helper()
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base := l.Addr().(*net.TCPAddr).Port
		l.Close()
		free := base+n < 65536
		for i := 1; i < n && free; i++ {
			if c, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i)); err != nil {
				free = false
			} else {
				c.Close()
			}
		}
		if free {
			return base
		}
	}
	t.Fatal("no five consecutive free ports")
	return 0
}
