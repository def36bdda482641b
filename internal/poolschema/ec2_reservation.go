package poolschema

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpufleet/terraform-provider-gpufleet/internal/pool"
)

// The capacity block of the pools whose nodes are EC2 instances (gpufleet_eks_node_pool's node
// groups, gpufleet_karpenter_node_pool's NodePools): the spot mix and one EC2 capacity reservation
// (ODCR) or capacity block. Each resource says how it targets the reservation in the block's
// description; the attributes, the model and what they give the pool spec are the same.

// EC2Capacity is the model of that capacity block.
type EC2Capacity struct {
	CapacityMix
	Reservation *EC2Reservation `tfsdk:"reservation"`
}

// EC2Reservation is the model of its reservation block.
type EC2Reservation struct {
	ID             types.String  `tfsdk:"id"`
	Type           types.String  `tfsdk:"type"`
	HourlyPriceUSD types.Float64 `tfsdk:"hourly_price_usd"`
}

// Empty reports whether the reservation block was written empty: no reservation.
func (r *EC2Reservation) Empty() bool { return Unset(r.ID, r.Type, r.HourlyPriceUSD) }

// EC2ReservationAttributes are the reservation block's attributes; priceDetail follows the price
// attribute's description (what the resource does with the price).
func EC2ReservationAttributes(priceDetail string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":   schema.StringAttribute{MarkdownDescription: "Reservation id, `cr-…`.", Optional: true},
		"type": schema.StringAttribute{MarkdownDescription: "`capacity-reservation` or `capacity-block`.", Optional: true, Validators: []validator.String{stringvalidator.OneOf(pool.EKSReservation...)}},
		"hourly_price_usd": schema.Float64Attribute{
			MarkdownDescription: "Capacity blocks only, and required there: what the block costs per instance-hour" + priceDetail,
			Optional:            true,
			Validators:          []validator.Float64{float64validator.AtLeast(0)},
		},
	}
}

// EC2Capacity gives the spec the capacity block's reservation and returns its spot mix (nil
// without the block), for Common.
func (b *SpecBuilder) EC2Capacity(c *EC2Capacity) *CapacityMix {
	if c == nil {
		return nil
	}
	if r := c.Reservation; r != nil && !r.Empty() {
		b.Unknown(r.HourlyPriceUSD, "capacity", "reservation")
		b.Spec().Capacity.Reservation = &pool.Reservation{ID: b.String(r.ID, "capacity", "reservation"), Type: b.String(r.Type, "capacity", "reservation"),
			HourlyUSD: r.HourlyPriceUSD.ValueFloat64()}
	}
	return &c.CapacityMix
}
