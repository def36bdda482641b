// Package crds holds the CustomResourceDefinitions gpufleet validates the objects it renders
// against, at plan time in process and in the tests' API server: the Karpenter CRDs of each
// supported release, copied byte for byte from the Go modules that publish them (crdsource.Pins;
// `go generate` copies them, TestCopiesMatchPinnedModules checks the copies), and the EKS Auto Mode
// NodeClass schema that gpufleet wrote (automode/eks.amazonaws.com_nodeclasses.yaml), since AWS
// publishes none.
package crds

import (
	"embed"
	"io/fs"
	"path"
	"sort"
)

//go:generate go run ./gen

//go:embed karpenter-v1.14/*.yaml karpenter-v1.15/*.yaml automode/*.yaml
var files embed.FS

// A Set is the CRDs one cluster flavour serves: self-managed Karpenter of one release, or EKS Auto
// Mode.
type Set string

const (
	Karpenter114 Set = "karpenter-v1.14"
	Karpenter115 Set = "karpenter-v1.15"
	AutoMode     Set = "automode"
)

// Sets are every set gpufleet supports.
var Sets = []Set{Karpenter114, Karpenter115, AutoMode}

// Files returns the YAML of every CRD of the set, sorted by file name.
func (s Set) Files() (map[string][]byte, error) {
	names, err := fs.Glob(files, string(s)+"/*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make(map[string][]byte, len(names))
	for _, n := range names {
		data, err := files.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out[path.Base(n)] = data
	}
	return out, nil
}

// File returns one file of the embedded tree, by its path under internal/kube/crds.
func File(name string) ([]byte, error) { return files.ReadFile(name) }
