// Command gpufleet-policy is the gpufleet bundle's companion for CI:
//
//	gpufleet-policy documents [-o FILE] PLAN.json    pool documents of a plan, for conftest
//	gpufleet-policy validate FILE...                  policy data checked against the schema
//
// documents reads the JSON of a Terraform plan (terraform show -json; - for standard input) and
// writes the pool documents of its GPU pools, built once, in Go (internal/plandoc), to FILE or
// standard output. conftest judges that file with the same bundle and policy data as the plan
// itself, with the same findings, without building every document twice in Rego:
//
//	terraform show -json plan.out > plan.json
//	gpufleet-policy documents -o pools.json plan.json
//	conftest test --policy policies --data policy-data.yaml pools.json
//
// validate checks policy data files with the provider's own validation (policy.LoadData), which
// conftest --data does not: one line per problem on stderr, each naming the file and the key.
//
// Exit codes: 0 done, 1 the input is unusable (not a plan, invalid policy data), 2 bad usage.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/plandoc"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
)

const usage = "usage: gpufleet-policy documents [-o FILE] PLAN.json\n" +
	"       gpufleet-policy validate FILE...\n" +
	"documents: the pool documents of a Terraform plan's JSON (- reads standard input), for\n" +
	"  conftest test --policy policies FILE: the same findings as on the plan, documents built once.\n" +
	"validate: checks gpufleet policy data files (YAML or JSON; conftest --data, provider\n" +
	"  policy.data_files) against policies/policy-data.schema.json.\n"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "validate":
		return validate(args[1:], stdout, stderr)
	case "documents":
		return documents(args[1:], stdin, stdout, stderr)
	}
	fmt.Fprint(stderr, usage)
	return 2
}

func validate(files []string, stdout, stderr io.Writer) int {
	if len(files) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if _, err := policy.LoadData(files); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "%d policy data file(s) valid\n", len(files))
	return 0
}

func documents(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("documents", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "")
	if fs.Parse(args) != nil || fs.NArg() != 1 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	name := fs.Arg(0)
	in := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		defer f.Close()
		in = f
	} else {
		name = "standard input"
	}
	plan, err := plandoc.Read(in)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v; run it on the JSON of a plan: terraform show -json plan.out > plan.json\n", name, err)
		return 1
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		defer f.Close()
		w = f
	}
	if err := plan.Build().WriteFile(w, plan); err != nil {
		fmt.Fprintf(stderr, "writing the documents of %s: %v\n", name, err)
		return 1
	}
	return 0
}
