package policybundle_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2/hclsimple"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/policybundle"
)

const policies = "../../policies"

// The plan fixtures judged with the example policy data (policies/testdata/expected), by path.
func fixtures(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(policies, "testdata", "expected", "*.json"))
	var out []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			Fixture string   `json:"fixture"`
			Data    []string `json:"data"`
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		// plans (the manifest fixtures have a test of their own: TestManifests_sameFindingsEverywhere)
		if slices.Equal(want.Data, []string{"examples/policy-data.yaml"}) && strings.HasSuffix(want.Fixture, ".json") {
			out = append(out, filepath.Join(policies, "testdata", want.Fixture))
		}
	}
	if len(out) < 8 {
		t.Fatalf("only %d fixtures with the example policy data", len(out))
	}
	return out
}

type finding struct {
	Msg       string `json:"msg"`
	Rule      string `json:"rule"`
	Address   string `json:"address"`
	Attribute any    `json:"attribute"`
	Severity  string `json:"severity"`
}

// conftestFindings are the pinned conftest's failures and warnings on the fixture, as the bundle
// in policies/ reports them, with the example policy data.
func conftestFindings(t *testing.T, fixture string) (deny, warn []finding) {
	t.Helper()
	return conftestFindingsWith(t, policies, fixture)
}

func conftestBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("GPUFLEET_CONFTEST")
	if bin == "" {
		t.Skip("GPUFLEET_CONFTEST is not set (make test sets it to the pinned conftest)")
	}
	return bin
}

// conftestFindingsWith are the pinned conftest's failures and warnings on the fixture with the
// bundle in policyDir and the example policy data.
func conftestFindingsWith(t *testing.T, policyDir, fixture string) (deny, warn []finding) {
	t.Helper()
	bin := conftestBinary(t)
	out, err := exec.Command(bin, "test", "--no-color", "-o", "json", "--policy", policyDir, "--data", filepath.Join(policies, "examples", "policy-data.yaml"), fixture).Output()
	var exitErr *exec.ExitError
	if err != nil && (!errors.As(err, &exitErr) || exitErr.ExitCode() != 1) {
		t.Fatalf("conftest on %s: %v: %s", fixture, err, out)
	}
	var results []struct {
		Failures []struct {
			Msg      string  `json:"msg"`
			Metadata finding `json:"metadata"`
		} `json:"failures"`
		Warnings []struct {
			Msg      string  `json:"msg"`
			Metadata finding `json:"metadata"`
		} `json:"warnings"`
	}
	if jsonErr := json.Unmarshal(out, &results); jsonErr != nil {
		var stderr []byte
		if errors.As(err, &exitErr) {
			stderr = exitErr.Stderr
		}
		t.Fatalf("conftest output: %v: %s%s", jsonErr, out, stderr)
	}
	for _, r := range results {
		for _, f := range r.Failures {
			// GF-INPUT-001 names conftest's file (data.conftest.file.name); elsewhere, "input"
			f.Metadata.Msg = strings.Replace(f.Msg, "GF-INPUT-001: "+filepath.Base(fixture)+": ", "GF-INPUT-001: input: ", 1)
			deny = append(deny, f.Metadata)
		}
		for _, w := range r.Warnings {
			w.Metadata.Msg = w.Msg
			warn = append(warn, w.Metadata)
		}
	}
	return sorted(deny), sorted(warn)
}

func sorted(fs []finding) []finding {
	slices.SortFunc(fs, func(a, b finding) int { return strings.Compare(a.Msg+a.Rule+a.Address, b.Msg+b.Rule+b.Address) })
	if fs == nil {
		fs = []finding{}
	}
	return fs
}

func msgs(fs []finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Msg)
	}
	slices.Sort(out)
	return out
}

func opaBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("GPUFLEET_OPA")
	if bin == "" {
		t.Skip("GPUFLEET_OPA is not set (make test sets it to the pinned opa)")
	}
	return bin
}

// rsaKeys writes a new RSA key pair as PEM files.
func rsaKeys(t *testing.T, dir string) (private, public string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	private, public = filepath.Join(dir, "private.pem"), filepath.Join(dir, "public.pem")
	for path, block := range map[string]*pem.Block{
		private: {Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)},
		public:  {Type: "PUBLIC KEY", Bytes: pub},
	} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return private, public
}

func writeOPABundle(t *testing.T, path string, signing *policybundle.Signing) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rev, err := policybundle.WriteOPA(context.Background(), f, []string{filepath.Join(policies, "examples", "policy-data.yaml")}, signing)
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// opaServer is the pinned opa as a server on a UNIX domain socket of its own, loading the bundle
// file with signature verification on (the public key, key id default, RS256), stopped by its PID
// when the test ends.
type opaServer struct {
	cmd    *exec.Cmd
	url    string       // http://opa: the client dials the socket whatever the host
	client *http.Client // dials the server's socket
	log    *syncBuffer
	exited chan struct{} // closed when the process has exited, with err set
	err    error
}

func startOPA(t *testing.T, bundlePath, publicKey string) *opaServer {
	t.Helper()
	return startOPAWith(t, "--bundle", bundlePath, "--verification-key", publicKey, "--verification-key-id", "default", "--signing-alg", "RS256")
}

// startOPAWith starts the pinned opa as a server with the arguments. It listens on a UNIX domain
// socket in a directory of its own: a loopback port found free and closed before opa binds it may
// be taken meanwhile by another package's server (go test runs packages in parallel), which opa
// exits on or, worse, which answers in its place. (A directory under os.TempDir, not t.TempDir: a
// socket's path has at most 107 bytes, and subtests' names are long.)
func startOPAWith(t *testing.T, args ...string) *opaServer {
	t.Helper()
	dir, err := os.MkdirTemp("", "opa")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	socket := filepath.Join(dir, "s")
	s := &opaServer{url: "http://opa", log: &syncBuffer{}, exited: make(chan struct{}), client: &http.Client{
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		}},
	}}
	t.Cleanup(s.client.CloseIdleConnections)
	s.cmd = exec.Command(opaBinary(t), append([]string{"run", "--server", "--addr", "unix://" + socket, "--log-level", "error"}, args...)...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() { // stopped by its PID
		select {
		case <-s.exited:
			return
		default:
		}
		_ = s.cmd.Process.Signal(os.Interrupt)
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	})
	return s
}

// syncBuffer is the server's output, read while the server writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// ready waits until the server reports its bundle activated (GET /health?bundles), or it exits.
func (s *opaServer) ready(t *testing.T) {
	t.Helper()
	if !s.waitReady(t, 60*time.Second) {
		t.Fatalf("opa did not become ready:\n%s", s.log)
	}
}

func (s *opaServer) waitReady(t *testing.T, timeout time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			t.Fatalf("opa exited (%v):\n%s", s.err, s.log)
		default:
		}
		if resp, err := s.client.Get(s.url + "/health?bundles"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// decide posts the plan as input to the bundle's decision path /v1/data/main and returns its
// deny and warn findings.
func (s *opaServer) decide(t *testing.T, plan []byte) (deny, warn []finding) {
	t.Helper()
	body := append(append([]byte(`{"input":`), plan...), '}')
	resp, err := s.client.Post(s.url+"/v1/data/"+strings.TrimSuffix(policybundle.DecisionDeny, "/deny"), "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/data/main: %s: %s", resp.Status, raw)
	}
	var out struct {
		Result struct {
			Deny []finding `json:"deny"`
			Warn []finding `json:"warn"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("decision: %v: %s", err, raw)
	}
	return sorted(out.Result.Deny), sorted(out.Result.Warn)
}

// An OPA server that verifies the bundle's signature loads the signed bundle, and on every plan
// fixture its decision (POST /v1/data/main with the plan as input) has the findings conftest
// reports on the same plan, to the letter; a bundle changed after signing is refused.
// The conftest bundle archive a release publishes (.goreleaser.yml): conftest pull fetches it over
// HTTP and unpacks it into the --policy directory (--absolute-paths: without it, conftest pull
// takes even an absolute --policy as relative to the working directory), which then holds the bundle's Rego files without
// their unit tests, byte for byte, and nothing else; conftest judges every fixture with it exactly as
// with policies/. The same bundle gives the same bytes (the release signs its checksum).
func TestConftestArchive_pulledByConftestSameFindings(t *testing.T) {
	bin := conftestBinary(t)
	write := func() []byte {
		var buf bytes.Buffer
		rev, err := policybundle.WriteConftestArchive(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(rev, "+") {
			t.Errorf("revision %q", rev)
		}
		return buf.Bytes()
	}
	archive := write()
	if again := write(); !bytes.Equal(archive, again) {
		t.Fatal("two archives of the same bundle differ")
	}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/releases/download/v0.0.0/gpufleet-policies_0.0.0.tar.gz" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(archive)
	}))
	defer server.Close()
	pulled := filepath.Join(t.TempDir(), "gpufleet-policies")
	if out, err := exec.Command(bin, "pull", "--absolute-paths", "--policy", pulled, server.URL+"/releases/download/v0.0.0/gpufleet-policies_0.0.0.tar.gz").CombinedOutput(); err != nil {
		t.Fatalf("conftest pull: %v: %s", err, out)
	}

	want := map[string][]byte{}
	_ = filepath.WalkDir(policies, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".rego") && !strings.HasSuffix(path, "_test.rego") {
			rel, _ := filepath.Rel(policies, path)
			want[filepath.ToSlash(rel)], err = os.ReadFile(path)
		}
		return err
	})
	got := map[string][]byte{}
	_ = filepath.WalkDir(pulled, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(pulled, path)
			got[filepath.ToSlash(rel)], err = os.ReadFile(path)
		}
		return err
	})
	if len(want) < 10 || len(got) != len(want) {
		t.Errorf("the pulled bundle has %d files, policies/ %d Rego files without tests", len(got), len(want))
	}
	for name, raw := range want {
		if !bytes.Equal(got[name], raw) {
			t.Errorf("%s: not the bytes of policies/%s", name, name)
		}
	}

	for _, fixture := range fixtures(t) {
		t.Run(filepath.Base(fixture), func(t *testing.T) {
			wantDeny, wantWarn := conftestFindings(t, fixture)
			deny, warn := conftestFindingsWith(t, pulled, fixture)
			if !slices.Equal(deny, wantDeny) || !slices.Equal(warn, wantWarn) {
				t.Errorf("pulled bundle deny:\n%v\nwarn:\n%v\npolicies/ failures:\n%v\nwarnings:\n%v", deny, warn, wantDeny, wantWarn)
			}
		})
	}
}

func TestOPABundle_signedOnAServerSameFindingsAsConftest(t *testing.T) {
	opaBinary(t)
	dir := t.TempDir()
	private, public := rsaKeys(t, dir)
	signed := filepath.Join(dir, "gpufleet.tar.gz")
	rev := writeOPABundle(t, signed, &policybundle.Signing{Key: private, Algorithm: "RS256"})
	server := startOPA(t, signed, public)
	server.ready(t)

	// the manifest the server activated: revision and roots
	resp, err := server.client.Get(server.url + "/v1/data/system/bundles")
	if err == nil {
		resp.Body.Close()
	}
	for _, fixture := range fixtures(t) {
		t.Run(filepath.Base(fixture), func(t *testing.T) {
			plan, err := os.ReadFile(fixture)
			if err != nil {
				t.Fatal(err)
			}
			wantDeny, wantWarn := conftestFindings(t, fixture)
			deny, warn := server.decide(t, plan)
			if !slices.Equal(deny, wantDeny) || !slices.Equal(warn, wantWarn) {
				t.Errorf("opa server deny:\n%v\nwarn:\n%v\nconftest failures:\n%v\nwarnings:\n%v", deny, warn, wantDeny, wantWarn)
			}
		})
	}
	if !strings.Contains(rev, "+") {
		t.Errorf("revision %q", rev)
	}

	t.Run("tampered", func(t *testing.T) {
		tampered := filepath.Join(dir, "tampered.tar.gz")
		rewrite(t, signed, tampered, "/gpufleet/rules/residency.rego", func(raw []byte) []byte {
			return append(raw, []byte("\n# loosened after signing\n")...)
		})
		s := startOPA(t, tampered, public)
		select {
		case <-s.exited:
			if s.err == nil || !strings.Contains(s.log.String(), "residency.rego") {
				t.Fatalf("opa exited with %v on a tampered bundle:\n%s", s.err, s.log)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("opa still runs on a tampered bundle:\n%s", s.log)
		}
	})

	t.Run("unsigned", func(t *testing.T) {
		unsigned := filepath.Join(dir, "unsigned.tar.gz")
		writeOPABundle(t, unsigned, nil)
		s := startOPA(t, unsigned, public)
		select {
		case <-s.exited:
			if s.err == nil {
				t.Fatalf("opa accepted an unsigned bundle:\n%s", s.log)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("opa still runs on an unsigned bundle:\n%s", s.log)
		}
	})
}

// Servers that download the bundle from a bundle server verify it with the keys of OPA's
// configuration (keys.<id>, bundles.<name>.signing.keyid), here with an HS256 shared secret: the
// signed bundle is activated and judges a plan as conftest does; one changed after signing is never
// activated.
func TestOPABundle_fromABundleServerWithKeysInTheConfiguration(t *testing.T) {
	opaBinary(t)
	dir := t.TempDir()
	const secret = "a-shared-secret-of-the-platform-team"
	signed := filepath.Join(dir, "gpufleet.tar.gz")
	writeOPABundle(t, signed, &policybundle.Signing{Key: secret, Algorithm: "HS256", KeyID: "gpufleet-ci"})
	tampered := filepath.Join(dir, "tampered.tar.gz")
	rewrite(t, signed, tampered, "/data.json", func(raw []byte) []byte {
		return bytes.Replace(raw, []byte(`"eu-*"`), []byte(`"*"`), 1) // loosen a client's residency
	})
	files := http.FileServer(http.Dir(dir))
	bundles := httptest.NewServer(files)
	defer bundles.Close()
	config := func(resource string) string {
		path := filepath.Join(dir, resource+".yaml")
		conf := fmt.Sprintf(`services:
  policies:
    url: %s
bundles:
  gpufleet:
    service: policies
    resource: %s
    signing:
      keyid: gpufleet-ci
keys:
  gpufleet-ci:
    algorithm: HS256
    key: %s
`, bundles.URL, resource, secret)
		if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	server := startOPAWith(t, "--config-file", config("gpufleet.tar.gz"))
	server.ready(t)
	fixture := filepath.Join(policies, "testdata", "real_module_plans.json")
	plan, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	wantDeny, wantWarn := conftestFindings(t, fixture)
	if deny, warn := server.decide(t, plan); !slices.Equal(deny, wantDeny) || !slices.Equal(warn, wantWarn) {
		t.Errorf("opa server deny:\n%v\nwarn:\n%v\nconftest failures:\n%v\nwarnings:\n%v", deny, warn, wantDeny, wantWarn)
	}

	refused := startOPAWith(t, "--config-file", config("tampered.tar.gz"), "--log-level", "info")
	if refused.waitReady(t, 10*time.Second) {
		t.Fatalf("opa activated a bundle changed after signing:\n%s", refused.log)
	}
	if !strings.Contains(refused.log.String(), "data.json: digest mismatch") {
		t.Errorf("opa did not say why it refused the bundle:\n%s", refused.log)
	}
}

// rewrite copies the bundle archive with one file changed.
func rewrite(t *testing.T, from, to, name string, change func([]byte) []byte) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	gz, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	tr := tar.NewReader(gz)
	changed := false
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == name {
			raw, changed = change(raw), true
		}
		h.Size = int64(len(raw))
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(raw); err != nil {
			t.Fatal(err)
		}
	}
	if !changed {
		t.Fatalf("no %s in the bundle", name)
	}
	if err := errors.Join(tw.Close(), zw.Close(), os.WriteFile(to, out.Bytes(), 0o600)); err != nil {
		t.Fatal(err)
	}
}

// A run's input as HCP Terraform passes it to OPA: the plan under "plan", the run's metadata under
// "run" (the shape of the sample input of "Define OPA policies for HCP Terraform",
// developer.hashicorp.com/terraform/cloud-docs/policy-enforcement/define-policies/opa).
func hcpInput(t *testing.T, plan []byte) []byte {
	t.Helper()
	run := `{"id": "run-8zCGjAKHiBBtx1Ag", "created_at": "2026-11-27T01:00:00.000Z", "created_by": "platform-team",
	"message": "Queued manually using Terraform", "commit_sha": null, "is_destroy": false, "refresh": true,
	"refresh_only": false, "replace_addrs": null, "speculative": true, "target_addrs": null, "variables": {},
	"project": {"id": "prj-AGHfwrJk5ZAaVh6r", "name": "ml-platform"},
	"organization": {"name": "acme"},
	"workspace": {"id": "ws-mJtysFGmRoXSMhJX", "name": "gpu-pools", "created_at": "2026-01-05T10:00:00.000Z",
		"description": null, "execution_mode": "remote", "auto_apply": false, "tags": [], "working_directory": null,
		"vcs_repo": null}}`
	return []byte(fmt.Sprintf(`{"plan": %s, "run": %s}`, plan, run))
}

// The HCP Terraform policy set: policies.hcl has a mandatory query for deny and an advisory one for
// warn, and the pinned opa, evaluating each query on a plan wrapped as HCP Terraform wraps it,
// returns the messages conftest reports on the plan as failures and warnings.
func TestHCPPolicySet_sameFindingsAsConftest(t *testing.T) {
	bin := opaBinary(t)
	dir := t.TempDir()
	if _, err := policybundle.WriteHCP(dir, []string{filepath.Join(policies, "examples", "policy-data.yaml")}); err != nil {
		t.Fatal(err)
	}
	var set struct {
		Policies []struct {
			Name             string `hcl:"name,label"`
			Query            string `hcl:"query"`
			EnforcementLevel string `hcl:"enforcement_level"`
			Description      string `hcl:"description,optional"`
		} `hcl:"policy,block"`
	}
	if err := hclsimple.DecodeFile(filepath.Join(dir, "policies.hcl"), nil, &set); err != nil {
		t.Fatal(err)
	}
	levels := map[string]string{}
	for _, p := range set.Policies {
		levels[p.EnforcementLevel] = p.Query
	}
	if len(set.Policies) != 2 || levels["mandatory"] == "" || levels["advisory"] == "" {
		t.Fatalf("policies.hcl: %+v", set.Policies)
	}
	eval := func(t *testing.T, input, query string) []string {
		t.Helper()
		out, err := exec.Command(bin, "eval", "--format", "json", "--data", dir, "--input", input, query).Output()
		if err != nil {
			t.Fatalf("opa eval %s: %v: %s", query, err, out)
		}
		var result struct {
			Result []struct {
				Expressions []struct {
					Value []string `json:"value"`
				} `json:"expressions"`
			} `json:"result"`
		}
		if err := json.Unmarshal(out, &result); err != nil || len(result.Result) != 1 || len(result.Result[0].Expressions) != 1 {
			t.Fatalf("opa eval %s: %v: %s", query, err, out)
		}
		return append([]string{}, result.Result[0].Expressions[0].Value...)
	}
	for _, fixture := range fixtures(t) {
		t.Run(filepath.Base(fixture), func(t *testing.T) {
			plan, err := os.ReadFile(fixture)
			if err != nil {
				t.Fatal(err)
			}
			input := filepath.Join(t.TempDir(), "input.json")
			if err := os.WriteFile(input, hcpInput(t, plan), 0o600); err != nil {
				t.Fatal(err)
			}
			wantDeny, wantWarn := conftestFindings(t, fixture)
			deny, warn := eval(t, input, levels["mandatory"]), eval(t, input, levels["advisory"])
			if !slices.Equal(deny, msgs(wantDeny)) || !slices.Equal(warn, msgs(wantWarn)) {
				t.Errorf("policy set deny:\n%s\nwarn:\n%s\nconftest failures:\n%s\nwarnings:\n%s", strings.Join(deny, "\n"), strings.Join(warn, "\n"), strings.Join(msgs(wantDeny), "\n"), strings.Join(msgs(wantWarn), "\n"))
			}
		})
	}
	// not HCP Terraform's input (the plan itself, not wrapped): one deny says so
	input := filepath.Join(dir, "bare.json")
	if err := os.WriteFile(input, []byte(`{"format_version": "1.2"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if deny := eval(t, input, levels["mandatory"]); len(deny) != 1 || !strings.Contains(deny[0], "input.plan") {
		t.Errorf("deny on an input without plan: %v", deny)
	}
}

// A signing key OPA cannot use is an error that never quotes it: OPA reads a key as a file name
// first, and its error (stat <key>: file name too long) would print the key.
func TestOPABundle_signingErrorNeverQuotesTheKey(t *testing.T) {
	key := strings.Repeat("hs256-shared-secret-", 20) // longer than a file name may be
	for _, alg := range []string{"RS256", "HS256-typo"} {
		_, err := policybundle.WriteOPA(context.Background(), io.Discard, nil, &policybundle.Signing{Key: key, Algorithm: alg})
		if err == nil {
			t.Fatalf("%s: signed with a key that is no %s key", alg, alg)
		}
		if strings.Contains(err.Error(), "hs256-shared-secret") {
			t.Errorf("%s: the error quotes the key: %v", alg, err)
		}
	}
}
