package poolschema

import (
	"fmt"

	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// The render-only data sources (gpufleet_karpenter_manifests, gpufleet_gke_compute_class_manifest)
// take their resource's own attributes and blocks, so that both say the same thing: the same
// types, descriptions and validators. Plan modifiers and defaults, which data sources do not have,
// are left out (the data sources' Read sets the defaults).

// Flags are a data source attribute's required, optional and computed flags.
type Flags struct{ Required, Optional, Computed bool }

// FlagsOf is the flags a resource attribute has; a data source that takes an attribute as it is uses
// it.
func FlagsOf(a rschema.Attribute) Flags {
	return Flags{Required: a.IsRequired(), Optional: a.IsOptional(), Computed: a.IsComputed()}
}

// DataSourceAttributes is the data source form of a resource's attributes, each with the flags
// flags gives it (FlagsOf keeps the resource's). It panics on an attribute type no pool resource
// uses, which the provider's schema tests would show.
func DataSourceAttributes(in map[string]rschema.Attribute, flags func(name string, a rschema.Attribute) Flags) map[string]dschema.Attribute {
	out := make(map[string]dschema.Attribute, len(in))
	for name, a := range in {
		out[name] = dataSourceAttribute(a, flags(name, a), flags)
	}
	return out
}

// DataSourceBlocks is the data source form of a resource's blocks (single nested blocks).
func DataSourceBlocks(in map[string]rschema.Block, flags func(name string, a rschema.Attribute) Flags) map[string]dschema.Block {
	out := make(map[string]dschema.Block, len(in))
	for name, b := range in {
		sb, ok := b.(rschema.SingleNestedBlock)
		if !ok {
			panic(fmt.Sprintf("DataSourceBlocks: no data source form of %T (%s)", b, name))
		}
		out[name] = dschema.SingleNestedBlock{MarkdownDescription: sb.MarkdownDescription,
			Attributes: DataSourceAttributes(sb.Attributes, flags), Blocks: DataSourceBlocks(sb.Blocks, flags), Validators: sb.Validators}
	}
	return out
}

// KeepFlags keeps every attribute's own flags.
func KeepFlags(_ string, a rschema.Attribute) Flags { return FlagsOf(a) }

func dataSourceAttribute(a rschema.Attribute, f Flags, flags func(string, rschema.Attribute) Flags) dschema.Attribute {
	nested := func(attrs map[string]rschema.Attribute) dschema.NestedAttributeObject {
		return dschema.NestedAttributeObject{Attributes: DataSourceAttributes(attrs, flags)}
	}
	switch a := a.(type) {
	case rschema.StringAttribute:
		return dschema.StringAttribute{MarkdownDescription: a.MarkdownDescription, Required: f.Required, Optional: f.Optional, Computed: f.Computed, Sensitive: a.Sensitive, Validators: a.Validators}
	case rschema.Int64Attribute:
		return dschema.Int64Attribute{MarkdownDescription: a.MarkdownDescription, Required: f.Required, Optional: f.Optional, Computed: f.Computed, Validators: a.Validators}
	case rschema.Float64Attribute:
		return dschema.Float64Attribute{MarkdownDescription: a.MarkdownDescription, Required: f.Required, Optional: f.Optional, Computed: f.Computed, Validators: a.Validators}
	case rschema.NumberAttribute:
		return dschema.NumberAttribute{MarkdownDescription: a.MarkdownDescription, Required: f.Required, Optional: f.Optional, Computed: f.Computed, Validators: a.Validators}
	case rschema.BoolAttribute:
		return dschema.BoolAttribute{MarkdownDescription: a.MarkdownDescription, Required: f.Required, Optional: f.Optional, Computed: f.Computed, Validators: a.Validators}
	case rschema.MapAttribute:
		return dschema.MapAttribute{MarkdownDescription: a.MarkdownDescription, ElementType: a.ElementType, Required: f.Required, Optional: f.Optional, Computed: f.Computed, Sensitive: a.Sensitive, Validators: a.Validators}
	case rschema.SetAttribute:
		return dschema.SetAttribute{MarkdownDescription: a.MarkdownDescription, ElementType: a.ElementType, Required: f.Required, Optional: f.Optional, Computed: f.Computed, Validators: a.Validators}
	case rschema.ListAttribute:
		return dschema.ListAttribute{MarkdownDescription: a.MarkdownDescription, ElementType: a.ElementType, Required: f.Required, Optional: f.Optional, Computed: f.Computed, Validators: a.Validators}
	case rschema.ObjectAttribute:
		return dschema.ObjectAttribute{MarkdownDescription: a.MarkdownDescription, AttributeTypes: a.AttributeTypes, Required: f.Required, Optional: f.Optional, Computed: f.Computed, Validators: a.Validators}
	case rschema.SingleNestedAttribute:
		return dschema.SingleNestedAttribute{MarkdownDescription: a.MarkdownDescription, Attributes: DataSourceAttributes(a.Attributes, flags), Required: f.Required, Optional: f.Optional, Computed: f.Computed, Validators: a.Validators}
	case rschema.ListNestedAttribute:
		return dschema.ListNestedAttribute{MarkdownDescription: a.MarkdownDescription, NestedObject: nested(a.NestedObject.Attributes), Required: f.Required, Optional: f.Optional, Computed: f.Computed, Validators: a.Validators}
	case rschema.SetNestedAttribute:
		return dschema.SetNestedAttribute{MarkdownDescription: a.MarkdownDescription, NestedObject: nested(a.NestedObject.Attributes), Required: f.Required, Optional: f.Optional, Computed: f.Computed, Validators: a.Validators}
	}
	panic(fmt.Sprintf("DataSourceAttributes: no data source form of %T", a))
}
