// Command measure runs a command and writes its wall time, CPU time and peak memory as JSON: the
// benchmarks start commands through it, because a child that a large test process starts itself
// reports that process's memory as its own peak (the child shares it until exec).
//
//	measure -o sample.json [-ok 0,1] -- terraform plan ...
//
// The command's output goes to measure's own; an exit code outside -ok is measure's exit code.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/bench"
)

func main() {
	out := flag.String("o", "", "file to write the sample to (JSON)")
	ok := flag.String("ok", "0", "exit codes of the command that count as success, comma-separated")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: measure -o sample.json [-ok 0,1] -- command args...")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(2)
	}
	code := cmd.ProcessState.ExitCode()
	usage, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	sample := bench.Sample{
		WallSeconds: wall.Seconds(),
		CPUSeconds:  (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds(),
		PeakMiB:     float64(usage.Maxrss) / 1024, // KiB on Linux; the largest of the command and the children it waited for
		ExitCode:    code,
	}
	raw, _ := json.Marshal(sample)
	if err := os.WriteFile(*out, raw, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(2)
	}
	for _, c := range strings.Split(*ok, ",") {
		if n, err := strconv.Atoi(c); err == nil && n == code {
			return
		}
	}
	os.Exit(max(code, 1))
}
