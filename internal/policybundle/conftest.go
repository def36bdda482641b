package policybundle

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path"
	"path/filepath"
	"time"
)

// WriteConftest writes the bundle's Rego files, without their unit tests, under dir, as conftest
// loads them (--policy dir).
func WriteConftest(dir string) error {
	mods, err := modules()
	if err != nil {
		return err
	}
	for _, m := range mods {
		target := filepath.Join(dir, filepath.FromSlash(m.path))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, m.raw, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// archiveTime is every entry's modification time in the conftest archive: a fixed one, so that the
// same files always give the same bytes (a release publishes and signs the archive's checksum).
var archiveTime = time.Unix(0, 0).UTC()

// WriteConftestArchive writes what WriteConftest writes as a tar.gz archive, the files at its root:
// the bundle a release publishes for `conftest pull --policy DIR URL`, which unpacks it into DIR.
// The same bundle gives the same bytes (entries in path order, a fixed time, no owners, no name in
// the gzip header). It returns the bundle's revision, as WriteOPA names it.
func WriteConftestArchive(w io.Writer) (string, error) {
	mods, err := modules()
	if err != nil {
		return "", err
	}
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return "", err
	}
	tw := tar.NewWriter(gz)
	dirs := map[string]bool{".": true}
	for _, m := range mods {
		var parents []string
		for d := path.Dir(m.path); !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			parents = append([]string{d}, parents...)
		}
		for _, d := range parents {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: archiveTime, Format: tar.FormatUSTAR}); err != nil {
				return "", err
			}
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: m.path, Mode: 0o644, Size: int64(len(m.raw)), ModTime: archiveTime, Format: tar.FormatUSTAR}); err != nil {
			return "", err
		}
		if _, err := tw.Write(m.raw); err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := gz.Close(); err != nil {
		return "", err
	}
	return revision(mods, nil), nil
}
