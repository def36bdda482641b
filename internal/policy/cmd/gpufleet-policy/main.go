// Command gpufleet-policy is the gpufleet bundle's companion for CI:
//
//	gpufleet-policy documents [-o FILE] PLAN.json    pool documents of a plan, for conftest
//	gpufleet-policy documents [-o FILE] [--data FILE] MANIFEST.yaml|DIR...   of Kubernetes manifests
//	gpufleet-policy bundle -o DIR                      the policy bundle of this release, for conftest
//	gpufleet-policy bundle --format opa -o FILE         a (signed) OPA bundle archive, for OPA servers
//	gpufleet-policy bundle --format hcp -o DIR          an HCP Terraform / TFE OPA policy set
//	gpufleet-policy validate FILE...                  policy data checked against the schema
//	gpufleet-policy junit [RESULTS.json]              conftest's JSON results as a JUnit report
//	gpufleet-policy utilization --prometheus URL --pool NAME [...]   observed GPU utilisation, for GF-RS-006
//
// documents reads the JSON of a Terraform plan (terraform show -json; - for standard input) and
// writes the pool documents of its GPU pools, built once, in Go (internal/plandoc), to FILE or
// standard output. conftest judges that file with the same bundle and policy data as the plan
// itself, with the same findings, without building every document twice in Rego:
//
//	terraform show -json plan.out > plan.json
//	gpufleet-policy bundle -o gpufleet-policies
//	gpufleet-policy documents -o pools.json plan.json
//	conftest test --policy gpufleet-policies --data policy-data.yaml pools.json
//
// bundle writes the Rego bundle built into the binary (policies/ of the same release, so that it
// reads the documents this binary writes) without its unit tests: conftest compiles every module
// it is given on every run, and the tests would cost more than judging a plan of a thousand pools.
// The directory is the bundle's: a later run replaces it whole, and a directory it did not write
// is refused unless empty.
// validate checks policy data files with the provider's own validation (policy.LoadData), which
// conftest --data does not: one line per problem on stderr, each naming the file and the key.
//
// junit reads what conftest test -o json printed (a file, or standard input) and writes JUnit XML:
// a case per finding named "<rule> <address>", denies as failures and warnings as passing cases
// with their message, where conftest's own -o junit fails on warnings too. It does not change the
// verdict: keep conftest's exit code.
//
// Exit codes: 0 done, 1 the input is unusable (not a plan, invalid policy data), 2 bad usage.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/plandoc"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policy"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/policybundle"
)

const usage = "usage: gpufleet-policy documents [-o FILE] [--data FILE ...] [--ignore REGEX] [--stdin-filename NAME] PLAN.json | MANIFEST.yaml|DIR ...\n" +
	"       gpufleet-policy bundle -o DIR|FILE.tar.gz\n" +
	"       gpufleet-policy bundle --format hcp -o DIR [--data FILE ...]\n" +
	"       gpufleet-policy bundle --format opa -o BUNDLE.tar.gz [--data FILE ...] [--signing-key KEY [--signing-alg RS256|HS256|...] [--signing-key-id ID]]\n" +
	"       gpufleet-policy validate FILE...\n" +
	"       gpufleet-policy junit [RESULTS.json]\n" +
	"       gpufleet-policy utilization --prometheus URL --pool NAME [--selector MATCHERS] [--window 14d] [--step 5m] ...\n" +
	"documents: the pool documents of a Terraform plan's JSON, or of Kubernetes manifests (YAML or JSON:\n" +
	"  any number of files, and directories, whose .yaml, .yml and .json files are read at any depth, as\n" +
	"  conftest reads a directory, symbolic links followed, files of other formats conftest reads refused;\n" +
	"  judged together as conftest --combine judges them; - reads standard input), for conftest test\n" +
	"  --policy DIR FILE: the same findings as on the plan or manifests (each naming its manifest's file,\n" +
	"  as conftest --combine's do), documents built once.\n" +
	"  --data: the policy data's cluster registry, for manifests whose objects name no zone (give conftest the same).\n" +
	"  --ignore, --stdin-filename: as conftest test's (files whose path matches REGEX passed over; the name\n" +
	"  of standard input in the findings, - without it).\n" +
	"bundle: writes the gpufleet policy bundle of this release, without its tests: for conftest, to DIR\n" +
	"  (or, with -o FILE.tar.gz, as the archive a release publishes for conftest pull --policy DIR FILE);\n" +
	"  --format opa, an OPA bundle archive for OPA servers (the catalog and the --data policy data as\n" +
	"  data.json, a .manifest with roots and revision, .signatures.json when given a --signing-key: a PEM\n" +
	"  private key or HMAC secret, or a file holding one, as opa build takes it); --format hcp, an HCP\n" +
	"  Terraform / Terraform Enterprise OPA policy set (policies.hcl) in DIR.\n" +
	"junit: conftest test -o json results (a file or standard input) as JUnit XML: a case per finding\n" +
	"  named \"<rule> <address>\", denies failed, warnings passed with their message.\n" +
	"validate: checks gpufleet policy data files (YAML or JSON; conftest --data, provider\n" +
	"  policy.data_files) against policies/policy-data.schema.json.\n"

func main() {
	// A short run over one plan: fewer collections for more memory, still well under what
	// conftest needs for the same plan.
	debug.SetGCPercent(400)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

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
	case "bundle":
		return bundle(args[1:], stdout, stderr)
	case "junit":
		return junit(args[1:], stdin, stdout, stderr)
	case "utilization":
		return utilization(args[1:], stdout, stderr)
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
	fset := flag.NewFlagSet("documents", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	out := fset.String("o", "", "")
	var dataFiles multiFlag
	fset.Var(&dataFiles, "data", "")
	ignore := fset.String("ignore", "", "")
	stdinName := fset.String("stdin-filename", "", "")
	if fset.Parse(args) != nil || fset.NArg() < 1 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var ignoreRegexp *regexp.Regexp
	if *ignore != "" {
		var err error
		if ignoreRegexp, err = regexp.Compile(*ignore); err != nil {
			fmt.Fprintf(stderr, "--ignore: %v\n", err)
			return 2
		}
	}
	// The cluster registry of the policy data places Kubernetes objects that name no zone: conftest
	// must judge the documents with the same data.
	var clusters map[string]any
	if len(dataFiles) > 0 {
		data, err := policy.LoadData(dataFiles)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		clusters, _ = data.Raw["gpufleet"].(map[string]any)["clusters"].(map[string]any)
	}
	names, err := plandoc.ManifestPaths(fset.Args(), ignoreRegexp)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	files, err := plandoc.ReadManifestFiles(names, stdin, *stdinName)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	name := files[0].Path
	if name == "-" && *stdinName == "" {
		name = "standard input"
	}
	plan, err := plandoc.Read(bytes.NewReader(files[0].Data))
	if err != nil || len(files) > 1 {
		// Kubernetes manifests (YAML or JSON: NodePools and their node classes and overlays,
		// ComputeClasses), every file's objects judged together as conftest --combine judges them.
		manifests, kubeErr := plandoc.ReadManifests(files)
		switch {
		case kubeErr == nil:
			plan = manifests
			for i, f := range files {
				if names[i] != "-" && strings.EqualFold(filepath.Ext(f.Path), ".json") {
					continue // conftest parses it as JSON (standard input as YAML, whatever its name)
				}
				for _, line := range plandoc.ConftestUnread(f.Data) {
					fmt.Fprintf(stderr, "%s:%d: warning: kubectl starts a document at this separator, conftest test does not: it splits a file only at lines of \"---\" alone (with the file's line endings) and reads the first document of each part, so the objects from here to the next such line pass conftest unjudged; these documents judge them, as kubectl applies them. Write \"---\" alone on the line.\n", f.Path, line)
				}
			}
			if len(files) > 1 {
				name = fmt.Sprintf("%d files", len(files))
			}
		case errors.As(kubeErr, new(*plandoc.DuplicateObjectsError)):
			fmt.Fprintln(stderr, kubeErr) // manifests, but of several clusters (GF-INPUT-003)
			return 1
		case err != nil && !plandoc.LooksLikeManifests(files[0].Data):
			fmt.Fprintf(stderr, "%s: %v; run it on the JSON of a plan: terraform show -json plan.out > plan.json\n", name, err)
			return 1
		default:
			fmt.Fprintf(stderr, "%v; run it on the JSON of one plan (terraform show -json plan.out > plan.json) or on Kubernetes manifests (--ignore REGEX passes over other files, as conftest test --ignore does)\n", kubeErr)
			return 1
		}
	}
	plan.SetClusters(clusters)
	d, err := plan.Build()
	if err == nil {
		err = writeOutput(*out, stdout, func(w io.Writer) error { return d.WriteFile(w, plan) })
	}
	if err != nil {
		fmt.Fprintf(stderr, "writing the documents of %s: %v\n", name, err)
		return 1
	}
	return 0
}

// writeOutput writes to the file path (standard output when it is empty). A file is complete or
// absent: written beside its place and renamed there only when every byte is on disk.
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".gpufleet-policy-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, a no-op
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// bundleMarker marks a directory bundle wrote: the only kind of non-empty directory it replaces.
const bundleMarker = ".gpufleet-policy-bundle"

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// bundle writes the embedded bundle for an engine: for conftest (the default), its Rego files,
// tests left out, under a directory; for OPA servers, a (signed) bundle archive; for HCP
// Terraform / Terraform Enterprise, a policy set directory.
func bundle(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("bundle", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	out := fset.String("o", "", "")
	format := fset.String("format", "conftest", "")
	var data multiFlag
	fset.Var(&data, "data", "")
	key := fset.String("signing-key", "", "")
	alg := fset.String("signing-alg", "RS256", "")
	keyID := fset.String("signing-key-id", "", "")
	if fset.Parse(args) != nil || fset.NArg() != 0 || *out == "" {
		fmt.Fprint(stderr, usage)
		return 2
	}
	signingFlags := *key != "" || *keyID != "" || *alg != "RS256"
	switch {
	case *format != "conftest" && *format != "opa" && *format != "hcp":
		fmt.Fprintf(stderr, "--format %q: one of conftest, opa, hcp\n", *format)
		return 2
	case *format == "conftest" && len(data) > 0:
		fmt.Fprint(stderr, "--data goes into --format opa and hcp only: conftest takes the policy data itself (conftest test --data FILE)\n")
		return 2
	case *format != "opa" && signingFlags:
		fmt.Fprint(stderr, "--signing-key, --signing-alg and --signing-key-id sign --format opa bundles only\n")
		return 2
	case *format == "opa" && *key == "" && (*keyID != "" || *alg != "RS256"):
		fmt.Fprint(stderr, "--signing-alg and --signing-key-id need --signing-key\n")
		return 2
	}
	if *format == "opa" {
		var signing *policybundle.Signing
		if *key != "" {
			signing = &policybundle.Signing{Key: *key, Algorithm: *alg, KeyID: *keyID}
		}
		var rev string
		err := writeOutput(*out, stdout, func(w io.Writer) error {
			var err error
			rev, err = policybundle.WriteOPA(context.Background(), w, data, signing)
			return err
		})
		if err != nil {
			fmt.Fprintf(stderr, "writing the OPA bundle %s: %v\n", *out, err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote the OPA bundle %s, revision %s (roots %s)\n", *out, rev, strings.Join(policybundle.Roots, ", "))
		return 0
	}
	if *format == "conftest" && isArchive(*out) {
		var rev string
		err := writeOutput(*out, stdout, func(w io.Writer) error {
			var err error
			rev, err = policybundle.WriteConftestArchive(w)
			return err
		})
		if err != nil {
			fmt.Fprintf(stderr, "writing the bundle archive %s: %v\n", *out, err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote the conftest bundle archive %s, revision %s (conftest pull --policy DIR unpacks it)\n", *out, rev)
		return 0
	}
	if code := bundleDirectory(*out, stderr); code != 0 {
		return code
	}
	if *format == "hcp" {
		rev, err := policybundle.WriteHCP(*out, data)
		if err != nil {
			fmt.Fprintf(stderr, "writing the policy set to %s: %v\n", *out, err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote the HCP Terraform policy set %s, revision %s\n", *out, rev)
		return 0
	}
	err := policybundle.WriteConftest(*out)
	if err != nil {
		fmt.Fprintf(stderr, "writing the bundle to %s: %v\n", *out, err)
		return 1
	}
	return 0
}

// isArchive says whether bundle's -o names an archive (conftest's bundle as a tar.gz) rather than a
// directory.
func isArchive(out string) bool {
	return strings.HasSuffix(out, ".tar.gz") || strings.HasSuffix(out, ".tgz")
}

// bundleDirectory prepares dir for a bundle: a directory bundle wrote before is replaced whole (no
// file of an older release stays behind for conftest to load); any other non-empty directory is
// left alone, with an error.
func bundleDirectory(dir string, stderr io.Writer) int {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && len(entries) == 0:
	case err != nil:
		fmt.Fprintln(stderr, err)
		return 1
	default:
		if _, err := os.Stat(filepath.Join(dir, bundleMarker)); err != nil {
			fmt.Fprintf(stderr, "%s is not empty and was not written by gpufleet-policy bundle: write the bundle to a directory of its own (keep your own rules in another, passed as a second --policy)\n", dir)
			return 1
		}
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if err := os.WriteFile(filepath.Join(dir, bundleMarker), []byte("written by gpufleet-policy bundle; replaced whole by its next run\n"), 0o644); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

func junit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	in := stdin
	if len(args) == 1 && args[0] != "-" {
		f, err := os.Open(args[0])
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		defer f.Close()
		in = f
	}
	if err := policy.JUnit(in, stdout); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
