// Package kubetest runs a real CRD-serving Kubernetes API server for tests and the demo: Debian's
// etcd and the standalone k8s.io/apiextensions-apiserver (built by `make bin/apiextensions-apiserver`)
// on free loopback ports in a temporary directory, with the pinned CRDs installed, following the
// tested recipe in ../shared/recipes/kube-apiserver.md. Clients authenticate with a client
// certificate (the admin, O=system:masters) or a bearer token that the server's delegated
// authentication sends to an in-process token webhook (authn.go): EKS tokens are checked against
// cloudsim's STS as aws-iam-authenticator checks them. The server's audit log records every request
// (Events), so a test can prove that a plan sent none. Everything is stopped by PID and removed by
// Stop.
package kubetest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/crds"
)

// Environment variables naming the binaries; make test sets them to bin/etcd and
// bin/apiextensions-apiserver.
const (
	EnvEtcd      = "GPUFLEET_ETCD"
	EnvAPIServer = "GPUFLEET_APISERVER"
)

// AdminUser is the user name of the admin client certificate (the tests' own requests).
const AdminUser = "gpufleet-test-admin"

// Options configures a Server.
type Options struct {
	// Cluster is the EKS cluster name EKS tokens must be made for (x-k8s-aws-id); "ml" by default.
	Cluster string
	// Set is the CRD set installed at start; crds.Karpenter115 by default. The Auto Mode NodeClass
	// CRD is installed with it (its group is its own).
	Set crds.Set
}

// Server is a running API server.
type Server struct {
	URL       string // https://127.0.0.1:port
	CAPEM     []byte // signs the server's certificate
	AdminCert []byte // PEM, O=system:masters
	AdminKey  []byte
	Cluster   string

	dir       string
	auditPath string
	etcd      *process
	apiserver *process
	auth      *authenticator
	authSrv   *http.Server
}

var (
	sharedOnce sync.Once
	shared     *Server
	sharedErr  error
)

// Shared starts one server for the test binary (on first call) and returns it; it skips t when the
// binaries are not configured. Call StopShared from TestMain.
func Shared(t testing.TB) *Server {
	t.Helper()
	etcd, apiserver := os.Getenv(EnvEtcd), os.Getenv(EnvAPIServer)
	if etcd == "" || apiserver == "" {
		t.Skipf("%s and %s are not set: these tests need a real API server (make test installs bin/etcd and bin/apiextensions-apiserver and sets them)", EnvEtcd, EnvAPIServer)
	}
	sharedOnce.Do(func() { shared, sharedErr = Start(etcd, apiserver, Options{}) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// Own starts a server of t's own, a second cluster beside the shared one, stopped when t ends; it
// skips t as Shared does.
func Own(t testing.TB) *Server {
	t.Helper()
	etcd, apiserver := os.Getenv(EnvEtcd), os.Getenv(EnvAPIServer)
	if etcd == "" || apiserver == "" {
		t.Skipf("%s and %s are not set: these tests need a real API server", EnvEtcd, EnvAPIServer)
	}
	s, err := Start(etcd, apiserver, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// StopShared stops the shared server, if one was started.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}

// Start starts etcd and the API server on free loopback ports, waits until the server is ready and
// installs the CRDs.
func Start(etcdBin, apiserverBin string, opts Options) (*Server, error) {
	if opts.Cluster == "" {
		opts.Cluster = "ml"
	}
	if opts.Set == "" {
		opts.Set = crds.Karpenter115
	}
	dir, err := os.MkdirTemp("", "gpufleet-kubeapi-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, Cluster: opts.Cluster, auditPath: filepath.Join(dir, "audit.log")}
	// freePorts releases the ports before etcd and the API server bind them, and in between another
	// process may take one (CI starts test servers by the hundred): the child then exits, and both
	// are started again on other ports.
	for attempt := 1; ; attempt++ {
		err := s.start(etcdBin, apiserverBin)
		if err == nil {
			break
		}
		if attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			s.Stop()
			return nil, err
		}
		s.stopProcesses()
		if err := os.RemoveAll(filepath.Join(dir, "etcd")); err != nil {
			s.Stop()
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.InstallCRDs(ctx, opts.Set); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) start(etcdBin, apiserverBin string) error {
	p, err := newPKI()
	if err != nil {
		return err
	}
	s.CAPEM = p.CAPEM
	if s.AdminCert, s.AdminKey, err = p.issue(AdminUser, []string{"system:masters"}, false); err != nil {
		return err
	}
	serverCert, serverKey, err := p.issue("kube-apiserver", nil, true)
	if err != nil {
		return err
	}
	authCert, authKey, err := p.issue("token-webhook", nil, true)
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"ca.crt": s.CAPEM, "admin.crt": s.AdminCert, "admin.key": s.AdminKey,
		"serving.crt": serverCert, "serving.key": serverKey,
		"audit-policy.yaml": []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(s.dir, name), data, 0o600); err != nil {
			return err
		}
	}

	// The token webhook, on its own port.
	s.auth = &authenticator{cluster: s.Cluster, static: map[string]string{}, client: &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	pair, err := tls.X509KeyPair(authCert, authKey)
	if err != nil {
		return err
	}
	authLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.authSrv = &http.Server{Handler: s.auth, ReadHeaderTimeout: 10 * time.Second, TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}}
	go s.authSrv.ServeTLS(authLn, "", "") //nolint:errcheck // returns on Close

	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	s.URL = "https://127.0.0.1:" + strconv.Itoa(ports[2])

	self := s.kubeconfig(s.URL, true)
	webhook := s.kubeconfig("https://"+authLn.Addr().String(), false)
	for name, data := range map[string][]byte{"self.kubeconfig": self, "webhook.kubeconfig": webhook} {
		if err := os.WriteFile(filepath.Join(s.dir, name), data, 0o600); err != nil {
			return err
		}
	}
	if s.etcd, err = startProcess(s.dir, "etcd", etcdBin,
		"--data-dir="+filepath.Join(s.dir, "etcd"), "--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL, "--initial-cluster=default="+peerURL,
		"--log-level=warn"); err != nil {
		return err
	}
	f := func(name string) string { return filepath.Join(s.dir, name) }
	// Flags as the recipe explains them: the standalone server's authentication and authorization
	// are delegated only; the admin certificate's group system:masters is always allowed; the
	// admission plugins and the flow control that need the core API are off.
	if s.apiserver, err = startProcess(s.dir, "apiserver", apiserverBin,
		"--etcd-servers="+etcdURL, "--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(ports[2]),
		"--tls-cert-file="+f("serving.crt"), "--tls-private-key-file="+f("serving.key"),
		"--client-ca-file="+f("ca.crt"),
		"--kubeconfig="+f("self.kubeconfig"), "--authorization-kubeconfig="+f("self.kubeconfig"),
		"--authentication-kubeconfig="+f("webhook.kubeconfig"), "--authentication-skip-lookup",
		"--authentication-token-webhook-cache-ttl=0s",
		"--enable-priority-and-fairness=false",
		"--disable-admission-plugins=NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,MutatingAdmissionPolicy",
		"--audit-policy-file="+f("audit-policy.yaml"), "--audit-log-path="+s.auditPath, "--audit-log-format=json",
		"--audit-log-mode=blocking"); err != nil {
		return err
	}
	return s.waitReady(2 * time.Minute)
}

// kubeconfig is a kubeconfig for server: with the admin's certificate (the API server talking to
// itself), or none (the token webhook).
func (s *Server) kubeconfig(server string, admin bool) []byte {
	user := map[string]any{}
	if admin {
		user = map[string]any{"client-certificate-data": s.AdminCert, "client-key-data": s.AdminKey}
	}
	cfg := map[string]any{
		"apiVersion": "v1", "kind": "Config", "current-context": "c",
		"clusters": []any{map[string]any{"name": "c", "cluster": map[string]any{"server": server, "certificate-authority-data": s.CAPEM}}},
		"users":    []any{map[string]any{"name": "u", "user": user}},
		"contexts": []any{map[string]any{"name": "c", "context": map[string]any{"cluster": "c", "user": "u"}}},
	}
	out, _ := yaml.Marshal(cfg)
	return out
}

func (s *Server) waitReady(timeout time.Duration) error {
	client, err := s.adminHTTP()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, p := range []*process{s.etcd, s.apiserver} {
			if err := p.alive(); err != nil {
				return fmt.Errorf("%w\n%s", err, p.tail())
			}
		}
		// /readyz stays red on the informer of v1 Services, which this server cannot list (the
		// recipe, item 4): harmless.
		resp, err := client.Get(s.URL + "/readyz?exclude=informer-sync")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the API server was not ready after %s\n%s", timeout, s.apiserver.tail())
}

func (s *Server) adminHTTP() (*http.Client, error) {
	pair, err := tls.X509KeyPair(s.AdminCert, s.AdminKey)
	if err != nil {
		return nil, err
	}
	roots, err := certPool(s.CAPEM)
	if err != nil {
		return nil, err
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		Certificates: []tls.Certificate{pair}, RootCAs: roots, MinVersion: tls.VersionTLS12,
	}}}, nil
}

// AdminAccess is the admin's access: its client certificate (group system:masters).
func (s *Server) AdminAccess() kube.Access {
	return kube.Access{Host: s.URL, CAData: s.CAPEM, ClientCert: s.AdminCert, ClientKey: s.AdminKey, Cluster: "the test API server"}
}

// Admin is a client with the admin's access.
func (s *Server) Admin() (*kube.Client, error) {
	return kube.NewClient(s.AdminAccess(), "gpufleet-kubetest")
}

// CRD reads an installed CustomResourceDefinition with the admin's access.
func (s *Server) CRD(name string) (*unstructured.Unstructured, error) {
	dyn, err := s.adminDynamic()
	if err != nil {
		return nil, err
	}
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
}

// AddToken makes the webhook accept a static bearer token as user.
func (s *Server) AddToken(token, user string) {
	s.auth.mu.Lock()
	defer s.auth.mu.Unlock()
	s.auth.static[token] = user
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// InstallCRDs creates the set's CRDs, or replaces them (another release's), with the Auto Mode
// NodeClass, and waits until they are established.
func (s *Server) InstallCRDs(ctx context.Context, set crds.Set) error {
	cfg, err := s.AdminAccess().RESTConfig("gpufleet-kubetest")
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	files, err := set.Files()
	if err != nil {
		return err
	}
	if set != crds.AutoMode {
		nodeClass, err := crds.File("automode/eks.amazonaws.com_nodeclasses.yaml")
		if err != nil {
			return err
		}
		files["eks.amazonaws.com_nodeclasses.yaml"] = nodeClass
	}
	r := dyn.Resource(crdGVR)
	var names []string
	for file, data := range files {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		names = append(names, u.GetName())
		_, err := r.Create(ctx, u, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			var live *unstructured.Unstructured
			if live, err = r.Get(ctx, u.GetName(), metav1.GetOptions{}); err == nil {
				u.SetResourceVersion(live.GetResourceVersion())
				_, err = r.Update(ctx, u, metav1.UpdateOptions{})
			}
		}
		if err != nil {
			return fmt.Errorf("installing %s: %w", file, err)
		}
	}
	for _, name := range names {
		if err := waitEstablished(ctx, r, name); err != nil {
			return err
		}
	}
	return nil
}

func waitEstablished(ctx context.Context, r dynamic.ResourceInterface, name string) error {
	for {
		u, err := r.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("CRD %s not established: %w", name, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Event is one request in the server's audit log.
type Event struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// Events are the requests the server received, in order (their RequestReceived audit events, which
// the server writes before it handles a request), except the admin's (the tests' own).
func (s *Server) Events() ([]Event, error) {
	data, err := os.ReadFile(s.auditPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var out []Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e Event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.User.Username == AdminUser || e.User.Username == "system:apiserver" {
			continue
		}
		if e.Stage == "RequestReceived" || e.Stage == "ResponseStarted" && e.ResponseStatus != nil && e.ResponseStatus.Code == http.StatusUnauthorized {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}

// Stop stops the API server and etcd, by PID, and removes the directory.
func (s *Server) Stop() {
	s.stopProcesses()
	_ = os.RemoveAll(s.dir)
}

// stopProcesses stops the API server, etcd and the token webhook.
func (s *Server) stopProcesses() {
	if s.apiserver != nil {
		s.apiserver.stop()
		s.apiserver = nil
	}
	if s.etcd != nil {
		s.etcd.stop()
		s.etcd = nil
	}
	if s.authSrv != nil {
		_ = s.authSrv.Close()
		s.authSrv = nil
	}
}

// process is one child process with its log.
type process struct {
	name   string
	cmd    *exec.Cmd
	log    string
	exited chan error
	err    error
	done   bool
}

func startProcess(dir, name, bin string, args ...string) (*process, error) {
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// A test binary killed by its timeout never runs Stop: the kernel kills the children then.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", name, bin, err)
	}
	p := &process{name: name, cmd: cmd, log: logPath, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait(); logFile.Close() }()
	return p, nil
}

func (p *process) alive() error {
	if p.done {
		return fmt.Errorf("%s exited: %w", p.name, p.err)
	}
	select {
	case err := <-p.exited:
		p.done, p.err = true, err
		return fmt.Errorf("%s exited: %w", p.name, err)
	default:
		return nil
	}
}

func (p *process) tail() string {
	data, _ := os.ReadFile(p.log)
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}

// stop sends SIGTERM, and SIGKILL when the process has not exited after a few seconds (the data
// directory is thrown away: nothing needs a clean shutdown).
func (p *process) stop() {
	if p.done {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.exited:
		p.err = err
	case <-time.After(3 * time.Second):
		_ = p.cmd.Process.Kill()
		p.err = <-p.exited
	}
	p.done = true
}

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// UpdateAs replaces obj (a full object with its resourceVersion) as field manager manager, as
// `kubectl edit` does: a hand change in the cluster.
func (s *Server) UpdateAs(ctx context.Context, obj *unstructured.Unstructured, manager string) (*unstructured.Unstructured, error) {
	dyn, err := s.adminDynamic()
	if err != nil {
		return nil, err
	}
	gvr, err := kube.Resource(obj.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	return dyn.Resource(gvr).Update(ctx, obj, metav1.UpdateOptions{FieldManager: manager})
}

// adminDynamic is a dynamic client with the admin's access.
func (s *Server) adminDynamic() (dynamic.Interface, error) {
	cfg, err := s.AdminAccess().RESTConfig("gpufleet-kubetest")
	if err != nil {
		return nil, err
	}
	return dynamic.NewForConfig(cfg)
}
