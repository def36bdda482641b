package karpenter

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/karpenter/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/crds"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/kubetest"
)

// For every object of the matrix, the in-process verdict is the real API server's: the server,
// with the CRDs of the case's Karpenter release (or Auto Mode's) installed, is asked to apply the
// object with dryRun=All and fieldValidation=Strict, and it accepts exactly the objects the
// in-process validation accepts, and refuses the others at fields of the same attributes.
func TestMatrixAgainstAPIServer(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("runs with the acceptance tests (TF_ACC=1): it needs the real API server")
	}
	srv := kubetest.Shared(t)
	admin, err := srv.Admin()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t.Cleanup(func() { _ = srv.InstallCRDs(context.Background(), crds.Karpenter115) })
	bySet := map[crds.Set][]matrixCase{}
	for _, c := range matrix() {
		set := render.CRDSet(c.set.Mode, c.set.KarpenterVersion)
		bySet[set] = append(bySet[set], c)
	}
	objects, refused := 0, 0
	for _, set := range crds.Sets {
		if err := srv.InstallCRDs(ctx, set); err != nil {
			t.Fatal(err)
		}
		schemas, err := kube.SchemasFor(set)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range bySet[set] {
			for _, o := range c.render(t).Objects {
				obj := withOwner(o.Manifest, placeholderOwner)
				_, inErrs, err := schemas.Validate(ctx, obj, nil)
				if err != nil {
					t.Fatal(err)
				}
				_, applyErr := admin.Apply(ctx, obj, true)
				objects++
				if applyErr != nil {
					refused++
				}
				switch {
				case (applyErr == nil) != (len(inErrs) == 0):
					t.Errorf("%s: %s %s: the server says %v, in process %v", c.name, o.Kind(), o.Name(), applyErr, inErrs)
				case applyErr != nil:
					server := attributes(o, kube.Causes(applyErr), applyErr)
					inProcess := attributes(o, inErrs, nil)
					if server != inProcess {
						t.Errorf("%s: %s %s: refused at %s by the server (%v), at %s in process (%v)", c.name, o.Kind(), o.Name(), server, applyErr, inProcess, inErrs)
					}
				}
			}
		}
	}
	t.Logf("%d cases, %d objects, %d refused, verdicts equal", len(matrix()), objects, refused)
	if refused == 0 || refused == objects {
		t.Fatal("the matrix must hold accepted and refused objects")
	}
}

// attributes are the attributes behind the error fields, sorted and joined; a strict-decoding
// error (400) names its fields only in its message.
func attributes(o render.Object, errs []kube.FieldError, raw error) string {
	set := map[string]bool{}
	for _, e := range errs {
		if strings.Contains(e.Message, "some validation rules were not checked") {
			continue
		}
		set[o.AttributeOf(e.Field).String()] = true
	}
	if len(set) == 0 && raw != nil {
		set["(no field: "+raw.Error()+")"] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}
