// Command gen writes the catalog's Rego export (policies/gpufleet/catalog.rego) and the fit
// shortcuts' table bodies (policies/gpufleet/catalog_fit.rego). It is run by `go generate
// ./internal/catalog`; the catalog's tests fail when a committed file is stale.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/catalog"
)

func main() {
	out := flag.String("out", "", "file to write the catalog's Rego module to")
	shortcuts := flag.String("shortcuts", "", "file to write the fit shortcuts' Rego module to")
	flag.Parse()
	if *out == "" || *shortcuts == "" {
		fmt.Fprintln(os.Stderr, "usage: gen -out <catalog.rego> -shortcuts <catalog_fit.rego>")
		os.Exit(2)
	}
	for _, f := range []struct {
		path   string
		export func() ([]byte, error)
	}{{*out, catalog.RegoExport}, {*shortcuts, catalog.FitShortcutsExport}} {
		if err := run(f.path, f.export); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}

func run(out string, export func() ([]byte, error)) error {
	data, err := export()
	if err != nil {
		return err
	}
	// Leave an up-to-date file alone so its modification time does not trigger rebuilds.
	if old, err := os.ReadFile(out); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	// Write next to the target and rename, so a failed run never leaves half a file behind.
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+"-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
