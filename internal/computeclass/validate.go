package computeclass

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/crd"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/computeclass/render"
	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube"
)

type fieldError = kube.FieldError

// schemas is the ComputeClass CRD compiled by the apiextensions-apiserver's own code, once per
// provider process.
var schemas = sync.OnceValues(func() (*kube.Schemas, error) { return kube.Compile(crd.YAML) })

// objectMap is the rendered object as the API server decodes it.
func objectMap(obj render.ComputeClass) (map[string]any, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(b, &out)
}

// validateObject reports, at the attributes, what the API server would refuse in the rendered
// class (a create with fieldValidation=Strict): ok is false when it would refuse it.
func validateObject(ctx context.Context, r render.Rendered, diags *diag.Diagnostics) bool {
	errs, err := crdErrors(ctx, r.Object)
	if err != nil {
		diags.AddError("Validating the ComputeClass", err.Error())
		return false
	}
	reportFieldErrors(diags, errs)
	return len(errs) == 0
}

// crdErrors is the CRD's verdict on a ComputeClass: nil when the API server accepts it.
func crdErrors(ctx context.Context, obj render.ComputeClass) ([]fieldError, error) {
	s, err := schemas()
	if err != nil {
		return nil, err
	}
	m, err := objectMap(obj)
	if err != nil {
		return nil, err
	}
	_, errs, err := s.Validate(ctx, m, nil)
	return errs, err
}
