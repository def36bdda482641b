// Package crdsource reads the CustomResourceDefinitions gpufleet pins from the Go modules that
// publish them, for the generator that copies them into internal/kube/crds and for the test that
// checks the copies. A module zip is taken from the Go module cache, or fetched from the module
// proxy, and used only when its checksum is the one pinned (the h1: hash the Go checksum database
// records for the module, as go.sum would).
package crdsource

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
)

// Pin is one module version and the files gpufleet copies from it.
type Pin struct {
	Module  string
	Version string
	// Sum is the module zip's h1: hash from the Go checksum database (`go mod download -json`).
	Sum string
	// Files maps a path in the module to the path of its copy under internal/kube/crds.
	Files map[string]string
}

// Read returns the pinned files of p, keyed as p.Files' values, from the module zip. The zip comes
// from the Go module cache when it is there, else from the module proxy (GOPROXY's first URL).
func Read(ctx context.Context, p Pin) (map[string][]byte, error) {
	zipPath, cleanup, err := moduleZip(ctx, p)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	sum, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		return nil, fmt.Errorf("%s@%s: hashing the module zip: %w", p.Module, p.Version, err)
	}
	if sum != p.Sum {
		return nil, fmt.Errorf("%s@%s: module zip hash %s is not the pinned %s", p.Module, p.Version, sum, p.Sum)
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	prefix := p.Module + "@" + p.Version + "/"
	out := map[string][]byte{}
	for _, f := range zr.File {
		dst, ok := p.Files[strings.TrimPrefix(f.Name, prefix)]
		if !ok || !strings.HasPrefix(f.Name, prefix) {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		out[dst] = data
	}
	for src, dst := range p.Files {
		if _, ok := out[dst]; !ok {
			return nil, fmt.Errorf("%s@%s has no file %s", p.Module, p.Version, src)
		}
	}
	return out, nil
}

// moduleZip is the module zip in the module cache, or a temporary copy fetched from the proxy.
func moduleZip(ctx context.Context, p Pin) (path string, cleanup func(), err error) {
	escMod, err := module.EscapePath(p.Module)
	if err != nil {
		return "", nil, err
	}
	escVer, err := module.EscapeVersion(p.Version)
	if err != nil {
		return "", nil, err
	}
	rel := escMod + "/@v/" + escVer + ".zip"
	if cache := goEnv("GOMODCACHE"); cache != "" {
		cached := filepath.Join(cache, "cache", "download", filepath.FromSlash(rel))
		if _, err := os.Stat(cached); err == nil {
			return cached, func() {}, nil
		}
	}
	proxy := proxyURL()
	if proxy == "" {
		return "", nil, fmt.Errorf("%s@%s is not in the module cache and GOPROXY names no proxy URL", p.Module, p.Version)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, proxy+"/"+rel, nil)
	if err != nil {
		return "", nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", nil, fmt.Errorf("fetching %s@%s from %s: %w", p.Module, p.Version, proxy, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("fetching %s@%s from %s: %s", p.Module, p.Version, proxy, resp.Status)
	}
	f, err := os.CreateTemp("", "gpufleet-crds-*.zip")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.Remove(f.Name()) }
	_, err = io.Copy(f, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return f.Name(), cleanup, nil
}

// proxyURL is GOPROXY's first URL ("" when it lists none, e.g. "off" or "direct").
func proxyURL() string {
	for _, entry := range strings.FieldsFunc(goEnv("GOPROXY"), func(r rune) bool { return r == ',' || r == '|' }) {
		if strings.HasPrefix(entry, "https://") || strings.HasPrefix(entry, "http://") {
			return strings.TrimSuffix(entry, "/")
		}
	}
	return ""
}

func goEnv(name string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
