package kube

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/kube/crds"
)

// In-process validation: what a CRD-serving API server does to a custom resource on a create or an
// update with fieldValidation=Strict, run by k8s.io/apiextensions-apiserver's own code in the same
// order as its request path (pkg/apiserver/customresource_handler.go and the generic registry's
// rest.BeforeCreate / rest.BeforeUpdate):
//
//  1. decoding: metadata coercion, pruning of unknown fields (Strict: every unknown field is an
//     error, and the request stops there, as the server answers 400 before validating), and the
//     removal of nulls a non-nullable field without default cannot hold;
//  2. defaulting from the structural schema;
//  3. the strategy: status dropped on create, type and object metadata, the OpenAPI schema, embedded
//     objects, list-type invariants, then the CEL x-kubernetes-validations (with oldSelf on an
//     update: transition rules, and the ratcheting of unchanged values);
//  4. the generic object metadata checks.
//
// The CRDs are compiled once per process (a set's Schemas are shared): structural schemas, schema
// validators and CEL programs.

// FieldError is one reason the API server would refuse an object: the field path as the server
// names it (spec.template.spec.requirements[0].key) and its message.
type FieldError struct {
	Field   string
	Message string
}

func (e FieldError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// Schemas validates objects of the kinds of a set of CRDs.
type Schemas struct {
	kinds map[schema.GroupVersionKind]*kindSchema
}

type kindSchema struct {
	gvk        schema.GroupVersionKind
	structural *structuralschema.Structural
	strategy   strategy
}

// strategy is the apiextensions-apiserver's customResourceStrategy, as the registry uses it.
type strategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

var (
	setOnce    sync.Mutex
	setSchemas = map[crds.Set]*compiled{}
)

type compiled struct {
	once    sync.Once
	schemas *Schemas
	err     error
}

// Warm compiles a set's schemas in the background, so that the first validation finds them ready
// (a provider calls it when a resource that validates is first configured).
func Warm(set crds.Set) { go func() { _, _ = SchemasFor(set) }() }

// SchemasFor returns the compiled schemas of a CRD set: compiled on first use, once per process.
func SchemasFor(set crds.Set) (*Schemas, error) {
	setOnce.Lock()
	c, ok := setSchemas[set]
	if !ok {
		c = &compiled{}
		setSchemas[set] = c
	}
	setOnce.Unlock()
	c.once.Do(func() {
		files, err := set.Files()
		if err != nil {
			c.err = err
			return
		}
		names := make([]string, 0, len(files))
		for n := range files {
			names = append(names, n)
		}
		sort.Strings(names)
		docs := make([][]byte, len(names))
		for i, n := range names {
			docs[i] = files[n]
		}
		c.schemas, c.err = Compile(docs...)
		if c.err != nil {
			c.err = fmt.Errorf("compiling the %s CRDs: %w", set, c.err)
		}
	})
	return c.schemas, c.err
}

// Compile builds the validators of the CRDs' served versions, as the API server builds them when it
// starts serving a CRD.
func Compile(crdYAML ...[]byte) (*Schemas, error) {
	s := &Schemas{kinds: map[schema.GroupVersionKind]*kindSchema{}}
	for _, doc := range crdYAML {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(doc, &crd); err != nil {
			return nil, fmt.Errorf("reading a CRD: %w", err)
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			ks, err := compileVersion(&crd, v)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", crd.Name, v.Name, err)
			}
			s.kinds[ks.gvk] = ks
		}
	}
	return s, nil
}

func compileVersion(crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion) (*kindSchema, error) {
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
	val, err := apiextensionshelpers.GetSchemaForVersion(crd, v.Name)
	if err != nil || val == nil {
		return nil, fmt.Errorf("no schema: %w", err)
	}
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
		return nil, err
	}
	structural, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("not a structural schema: %w", err)
	}
	structural = structural.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(structural); err != nil {
		return nil, err
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	var statusSpec *apiextensionsinternal.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	if sub := v.Subresources; sub != nil && sub.Status != nil {
		statusSpec = &apiextensionsinternal.CustomResourceSubresourceStatus{}
		if props := internal.OpenAPIV3Schema.Properties; props != nil {
			if st, ok := props["status"]; ok {
				if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&st); err != nil {
					return nil, err
				}
			}
		}
	}
	typer := unstructuredTyper{crdserverscheme.NewUnstructuredObjectTyper()}
	st := customresource.NewStrategy(typer, crd.Spec.Scope == apiextensionsv1.NamespaceScoped, gvk, validator, statusValidator,
		structural, statusSpec, nil, v.SelectableFields)
	return &kindSchema{gvk: gvk, structural: structural, strategy: st}, nil
}

// unstructuredTyper types unstructured objects by their apiVersion and kind, as the API server's
// typer does for custom resources.
type unstructuredTyper struct{ runtime.ObjectTyper }

// Kinds are the kinds the schemas validate.
func (s *Schemas) Kinds() []schema.GroupVersionKind {
	out := make([]schema.GroupVersionKind, 0, len(s.kinds))
	for k := range s.kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Validate returns what the API server would refuse in obj, a create (old nil) or an update of old:
// nil when it accepts the object. defaulted is the object as the server would store it (defaults
// applied, status dropped), for display and as the old object of a later update.
func (s *Schemas) Validate(ctx context.Context, obj, old map[string]any) (defaulted map[string]any, errs []FieldError, err error) {
	u := &unstructured.Unstructured{Object: normalizeJSON(obj)}
	gvk := u.GroupVersionKind()
	ks, ok := s.kinds[gvk]
	if !ok {
		return nil, nil, fmt.Errorf("no CRD serves %s", gvk)
	}
	if unknown := ks.decode(u); len(unknown) > 0 {
		for _, f := range unknown {
			errs = append(errs, FieldError{Field: f, Message: fmt.Sprintf("unknown field %q", f)})
		}
		return nil, errs, nil
	}
	structuraldefaulting.Default(u.Object, ks.structural)

	ctx = genericapirequest.WithNamespace(ctx, u.GetNamespace())
	var verr error
	if old == nil {
		rest.FillObjectMetaSystemFields(u)
		verr = rest.BeforeCreate(ks.strategy, ctx, u)
	} else {
		o := &unstructured.Unstructured{Object: normalizeJSON(old)}
		if unknown := ks.decode(o); len(unknown) > 0 {
			return nil, nil, fmt.Errorf("the old object has unknown fields: %s", strings.Join(unknown, ", "))
		}
		structuraldefaulting.Default(o.Object, ks.structural)
		if o.GetUID() == "" {
			rest.FillObjectMetaSystemFields(o)
		}
		// An update names the version it replaces; server-side apply takes the live object's.
		if o.GetResourceVersion() == "" {
			o.SetResourceVersion("1")
		}
		u.SetResourceVersion(o.GetResourceVersion())
		verr = rest.BeforeUpdate(ks.strategy, ctx, u, o)
	}
	if verr != nil {
		var status apierrors.APIStatus
		if !errors.As(verr, &status) || status.Status().Details == nil || len(status.Status().Details.Causes) == 0 {
			return nil, nil, verr
		}
		for _, c := range status.Status().Details.Causes {
			errs = append(errs, FieldError{Field: c.Field, Message: c.Message})
		}
		return nil, errs, nil
	}
	out := u.Object
	if md, ok := out["metadata"].(map[string]any); ok {
		// The system fields BeforeCreate needs, which the server would set itself.
		for _, k := range []string{"uid", "creationTimestamp", "generation", "resourceVersion"} {
			delete(md, k)
		}
	}
	return out, nil, nil
}

// decode is what the CRD's decoder does after JSON decoding, with unknown fields tracked
// (fieldValidation=Strict): it returns the paths of unknown fields.
func (ks *kindSchema) decode(u *unstructured.Unstructured) []string {
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	objectMeta, foundMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return []string{"metadata: " + err.Error()}
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, ks.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, ks.structural)
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, ks.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil {
		unknown = append(unknown, ferr.Error())
	}
	unknown = append(unknown, paths...)
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if foundMeta {
		_ = schemaobjectmeta.SetObjectMeta(u.Object, objectMeta)
	}
	sort.Strings(unknown)
	return unknown
}
