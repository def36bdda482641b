// Command gpufleet-policy-data checks policy data files against policies/policy-data.schema.json
// with the provider's own validation (policy.LoadData), for conftest users in CI:
//
//	go run ./internal/policy/cmd/gpufleet-policy-data validate FILE...
//	make policy-data-check DATA="FILE..."
//
// It prints one line per problem on stderr, each naming the file and the key, and exits 1 when a
// file is unusable, 2 on bad usage, 0 when every file is valid.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
)

const usage = "usage: gpufleet-policy-data validate FILE...\n" +
	"Checks gpufleet policy data files (YAML or JSON; conftest --data, provider policy.data_files)\n" +
	"against policies/policy-data.schema.json.\n"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 || args[0] != "validate" {
		fmt.Fprint(stderr, usage)
		return 2
	}
	files := args[1:]
	if _, err := policy.LoadData(files); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "%d policy data file(s) valid\n", len(files))
	return 0
}
