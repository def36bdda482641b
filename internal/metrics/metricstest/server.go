package metricstest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Environment variables naming the binaries; make test sets them to bin/prometheus and bin/promtool.
const (
	EnvPrometheus = "GPUFLEET_PROMETHEUS"
	EnvPromtool   = "GPUFLEET_PROMTOOL"
)

// Credentials the server requires (Prometheus's --web.config.file basic_auth_users), so every
// query also exercises the client's basic auth, and a wrong password gets a real 401.
const (
	Username = "gpufleet"
	Password = "s3cret-for-tests"
)

// Server is a running Prometheus with the fixtures backfilled; End is the last sample's time.
type Server struct {
	URL string
	End time.Time
	dir string
	cmd *exec.Cmd
	log *os.File
	// exited receives cmd.Wait's result once.
	exited chan error
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
	prom, tool := os.Getenv(EnvPrometheus), os.Getenv(EnvPromtool)
	if prom == "" || tool == "" {
		t.Skipf("%s and %s are not set: these tests need a real Prometheus (make test installs bin/prometheus and bin/promtool and sets them)", EnvPrometheus, EnvPromtool)
	}
	sharedOnce.Do(func() { shared, sharedErr = Start(prom, tool) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// StopShared stops the shared server, if one was started.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}

// Start backfills the fixtures into a new TSDB with promtool and starts prometheus on a free
// loopback port, with no scrape jobs, waiting until it is ready.
func Start(prometheus, promtool string) (*Server, error) {
	dir, err := os.MkdirTemp("", "gpufleet-prometheus-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, End: time.Now().UTC().Truncate(Step)}
	if err := s.start(prometheus, promtool); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) start(prometheus, promtool string) error {
	data := filepath.Join(s.dir, "data.om")
	f, err := os.Create(data)
	if err != nil {
		return err
	}
	all := Pools()
	maps.Copy(all, UnusablePools())
	if err := WriteOpenMetrics(f, all, s.End); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	tsdb := filepath.Join(s.dir, "tsdb")
	// Day-long blocks: promtool's default of 2h makes 180 blocks of 15 days and takes five times longer.
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", "--max-block-duration=24h", data, tsdb).CombinedOutput(); err != nil {
		return fmt.Errorf("promtool tsdb create-blocks-from openmetrics: %w\n%s", err, out)
	}
	_ = os.Remove(data)
	hash, err := bcrypt.GenerateFromPassword([]byte(Password), bcrypt.MinCost)
	if err != nil {
		return err
	}
	config := filepath.Join(s.dir, "prometheus.yml")
	web := filepath.Join(s.dir, "web.yml")
	if err := os.WriteFile(config, []byte("# no scrape jobs: the data is backfilled\nglobal:\n  scrape_interval: 5m\n"), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(web, fmt.Appendf(nil, "basic_auth_users:\n  %s: %s\n", Username, hash), 0o600); err != nil {
		return err
	}
	// freePort releases the port before Prometheus binds it, and in between another process may take
	// it (CI starts test servers by the hundred): then Prometheus exits at once, and it is started
	// again on another port.
	for attempt := 1; ; attempt++ {
		err := s.launch(prometheus, config, web, tsdb)
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			return err
		}
	}
}

// launch starts Prometheus on a free port and waits until it is ready.
func (s *Server) launch(prometheus, config, web, tsdb string) error {
	addr, err := freePort()
	if err != nil {
		return err
	}
	s.URL = "http://" + addr
	if s.log != nil {
		s.log.Close()
	}
	if s.log, err = os.Create(filepath.Join(s.dir, "prometheus.log")); err != nil {
		return err
	}
	s.cmd = exec.Command(prometheus,
		"--config.file="+config, "--web.config.file="+web,
		"--storage.tsdb.path="+tsdb, "--storage.tsdb.retention.time=30d",
		"--web.listen-address="+addr, "--log.level=warn")
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting prometheus: %w", err)
	}
	s.exited = make(chan error, 1)
	go func() { s.exited <- s.cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		// Exited first: whatever answers on the port is not this Prometheus then.
		select {
		case err := <-s.exited:
			s.cmd = nil
			return fmt.Errorf("prometheus exited before it was ready (%w):\n%s", err, s.logTail())
		case <-ctx.Done():
			return fmt.Errorf("prometheus not ready after 2 minutes:\n%s", s.logTail())
		default:
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/-/ready", nil)
		req.SetBasicAuth(Username, Password)
		// A short limit per try: another process on the port may accept and never answer.
		if resp, err := (&http.Client{Timeout: 2 * time.Second}).Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "prometheus.log"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// Stop stops the server by its PID and removes its files.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		// The exit status of a signalled server is an error by nature: nothing to report.
		select {
		case err := <-s.exited:
			_ = err
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			err := <-s.exited
			_ = err
		}
	}
	if s.log != nil {
		s.log.Close()
	}
	_ = os.RemoveAll(s.dir)
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	if a, ok := l.Addr().(*net.TCPAddr); ok {
		return a.String(), nil
	}
	return "", errors.New("no TCP address")
}
