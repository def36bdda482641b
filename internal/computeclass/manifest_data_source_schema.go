package computeclass

import (
	"fmt"

	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// The render-only data source takes the resource's own attributes and blocks (one definition, so
// that both say the same thing), as a data source schema: the same types, flags, descriptions and
// validators; plan modifiers and defaults, which data sources do not have, are left out (the
// defaults are set by Read).

func dataSourceAttributes(in map[string]rschema.Attribute) map[string]dschema.Attribute {
	out := make(map[string]dschema.Attribute, len(in))
	for name, a := range in {
		out[name] = dataSourceAttribute(a)
	}
	return out
}

func dataSourceAttribute(a rschema.Attribute) dschema.Attribute {
	switch a := a.(type) {
	case rschema.StringAttribute:
		return dschema.StringAttribute{MarkdownDescription: a.MarkdownDescription, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive, Validators: a.Validators}
	case rschema.Int64Attribute:
		return dschema.Int64Attribute{MarkdownDescription: a.MarkdownDescription, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Validators: a.Validators}
	case rschema.Float64Attribute:
		return dschema.Float64Attribute{MarkdownDescription: a.MarkdownDescription, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Validators: a.Validators}
	case rschema.NumberAttribute: // the pools' cost estimates (poolschema)
		return dschema.NumberAttribute{MarkdownDescription: a.MarkdownDescription, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Validators: a.Validators}
	case rschema.BoolAttribute:
		return dschema.BoolAttribute{MarkdownDescription: a.MarkdownDescription, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Validators: a.Validators}
	case rschema.MapAttribute:
		return dschema.MapAttribute{MarkdownDescription: a.MarkdownDescription, ElementType: a.ElementType, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Validators: a.Validators}
	case rschema.SetAttribute:
		return dschema.SetAttribute{MarkdownDescription: a.MarkdownDescription, ElementType: a.ElementType, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Validators: a.Validators}
	case rschema.ListAttribute:
		return dschema.ListAttribute{MarkdownDescription: a.MarkdownDescription, ElementType: a.ElementType, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Validators: a.Validators}
	case rschema.ObjectAttribute:
		return dschema.ObjectAttribute{MarkdownDescription: a.MarkdownDescription, AttributeTypes: a.AttributeTypes, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Validators: a.Validators}
	case rschema.SingleNestedAttribute:
		return dschema.SingleNestedAttribute{MarkdownDescription: a.MarkdownDescription, Attributes: dataSourceAttributes(a.Attributes), Required: a.Required, Optional: a.Optional, Computed: a.Computed, Validators: a.Validators}
	case rschema.ListNestedAttribute:
		return dschema.ListNestedAttribute{MarkdownDescription: a.MarkdownDescription, NestedObject: dschema.NestedAttributeObject{Attributes: dataSourceAttributes(a.NestedObject.Attributes)},
			Required: a.Required, Optional: a.Optional, Computed: a.Computed, Validators: a.Validators}
	case rschema.SetNestedAttribute:
		return dschema.SetNestedAttribute{MarkdownDescription: a.MarkdownDescription, NestedObject: dschema.NestedAttributeObject{Attributes: dataSourceAttributes(a.NestedObject.Attributes)},
			Required: a.Required, Optional: a.Optional, Computed: a.Computed, Validators: a.Validators}
	}
	panic(fmt.Sprintf("dataSourceAttribute: no data source form of %T", a))
}

func dataSourceBlocks(in map[string]rschema.Block) map[string]dschema.Block {
	out := make(map[string]dschema.Block, len(in))
	for name, b := range in {
		sb, ok := b.(rschema.SingleNestedBlock)
		if !ok {
			panic(fmt.Sprintf("dataSourceBlocks: no data source form of %T", b))
		}
		out[name] = dschema.SingleNestedBlock{MarkdownDescription: sb.MarkdownDescription, Attributes: dataSourceAttributes(sb.Attributes), Blocks: dataSourceBlocks(sb.Blocks), Validators: sb.Validators}
	}
	return out
}
