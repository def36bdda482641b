// Command gen copies the pinned Karpenter CRDs (crdsource.Pins) from their Go modules into
// internal/kube/crds, byte for byte. Run by `go generate ./internal/kube/crds` (make generate);
// TestCopiesMatchPinnedModules fails when a copy differs from its module.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/crds/crdsource"
)

func main() {
	for _, p := range crdsource.Pins {
		files, err := crdsource.Read(context.Background(), p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for dst, data := range files {
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Printf("%s@%s → %s\n", p.Module, p.Version, dst)
		}
	}
}
