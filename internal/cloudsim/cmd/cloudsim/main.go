// Command cloudsim runs the offline EKS, EC2, GKE and Compute simulator (package cloudsim) as a
// process, for `make demo` and scripts. It prints one NAME=value line per endpoint:
//
//	EKS_ENDPOINT=http://127.0.0.1:41001
//	EC2_ENDPOINT=http://127.0.0.1:41002
//	GKE_ENDPOINT=127.0.0.1:41003
//	CONTROL_ENDPOINT=http://127.0.0.1:41004
//	COMPUTE_ENDPOINT=http://127.0.0.1:41005/compute/v1/
//	STS_ENDPOINT=http://127.0.0.1:41006
//	AUTOSCALING_ENDPOINT=http://127.0.0.1:41007
//
// and runs until SIGINT or SIGTERM, then shuts down cleanly, writing the state file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/cloudsim"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cloudsim:", err)
		os.Exit(1)
	}
}

// run starts the simulator, reports its endpoints and blocks until ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cloudsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seedPath := fs.String("seed", "", "seed file (JSON); optional when -state already holds a world")
	statePath := fs.String("state", "", "state file, loaded at start and rewritten after every change")
	listen := fs.String("listen", "127.0.0.1:0", "listen address; port 0 gives each service a free port, port p gives EKS p, EC2 p+1, GKE p+2, control p+3, Compute p+4, STS p+5, Auto Scaling p+6")
	delay := fs.Duration("delay", 2*time.Second, "how long transitional statuses (CREATING, UPDATING, ...) last")
	envFile := fs.String("env-file", "", "also write the endpoint lines to this file")
	permissions := fs.String("gcp-permissions", "", "comma-separated IAM permissions the GKE and Compute Engine caller holds (a custom role's); calls they do not authorise are refused. Empty: every call is allowed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	opts := cloudsim.Options{StatePath: *statePath, TransitionDelay: *delay, Addr: *listen,
		Logf: log.New(stderr, "cloudsim: ", log.LstdFlags).Printf}
	if *permissions != "" {
		opts.GCPPermissions = strings.Split(*permissions, ",")
	}
	if *seedPath != "" {
		seed, err := cloudsim.LoadSeed(*seedPath)
		if err != nil {
			return err
		}
		opts.Seed = seed
	}
	sim, err := cloudsim.Start(opts)
	if err != nil {
		return err
	}
	lines := endpointLines(sim.Endpoints())
	if _, err := io.WriteString(stdout, lines); err != nil {
		return errors.Join(err, sim.Close())
	}
	if *envFile != "" {
		if err := writeFileAtomic(*envFile, lines); err != nil {
			return errors.Join(err, sim.Close())
		}
	}
	fmt.Fprintln(stderr, "cloudsim: ready; stop with SIGINT or SIGTERM")
	<-ctx.Done()
	fmt.Fprintln(stderr, "cloudsim: shutting down")
	return sim.Close()
}

func endpointLines(ep cloudsim.Endpoints) string {
	return fmt.Sprintf("EKS_ENDPOINT=%s\nEC2_ENDPOINT=%s\nGKE_ENDPOINT=%s\nCONTROL_ENDPOINT=%s\nCOMPUTE_ENDPOINT=%s\nSTS_ENDPOINT=%s\nAUTOSCALING_ENDPOINT=%s\n",
		ep.EKS, ep.EC2, ep.GKE, ep.Control, ep.Compute, ep.STS, ep.AutoScaling)
}

// writeFileAtomic writes via a temp file and rename, so a script polling for the file never
// reads it half written.
func writeFileAtomic(path, content string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cloudsim-env-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
