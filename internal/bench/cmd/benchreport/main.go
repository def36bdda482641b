// Command benchreport reads the output of `make bench`'s `go test -bench` runs on standard input,
// passes it through, and writes the figures to bench/results.json and BENCHMARKS.md (paths are
// flags), with the date and what the machine is.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/bench"
)

func main() {
	jsonPath := flag.String("json", "bench/results.json", "where to write the figures (JSON)")
	mdPath := flag.String("md", "BENCHMARKS.md", "where to write the table (Markdown)")
	flag.Parse()
	benchmarks, cpu, err := bench.ParseBenchOutput(os.Stdin, os.Stdout)
	if err != nil {
		fail(err)
	}
	if len(benchmarks) == 0 {
		fail(fmt.Errorf("no benchmark results on standard input"))
	}
	r := bench.Results{
		Date: time.Now().UTC().Format("2006-01-02"),
		Machine: bench.Machine{CPUs: runtime.NumCPU(), MemoryGiB: memoryGiB(), CPU: cpu,
			OS: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version(), Terraform: terraformVersion()},
		Benchmarks: benchmarks,
	}
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(dirOf(*jsonPath), 0o755); err != nil {
		fail(err)
	}
	if err := os.WriteFile(*jsonPath, append(raw, '\n'), 0o644); err != nil {
		fail(err)
	}
	if err := os.WriteFile(*mdPath, []byte(r.Markdown()), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("\nfigures written to %s and %s\n", *jsonPath, *mdPath)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchreport:", err)
	os.Exit(1)
}

func dirOf(path string) string {
	if i := strings.LastIndex(path, "/"); i > 0 {
		return path[:i]
	}
	return "."
}

// memoryGiB is the machine's memory from /proc/meminfo; 0 where there is none.
func memoryGiB() float64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kib, _ := strconv.ParseFloat(strings.Fields(rest)[0], 64)
			return kib / (1 << 20)
		}
	}
	return 0
}

func terraformVersion() string {
	out, err := exec.Command("terraform", "version", "-json").Output()
	if err != nil {
		return "not found"
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if json.Unmarshal(out, &v) != nil {
		return "unknown"
	}
	return v.Version
}
